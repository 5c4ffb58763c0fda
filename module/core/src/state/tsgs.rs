// SPDX-License-Identifier: GPL-2.0

//! The mirror of the driver's TSGs: the event table's reports ([`TsgEvent`]) and releases
//! applied to the policy and the mirror, the always-eligible reasons
//! (`GCAPS_IOC_SET_ALWAYS`, the driver's own TSGs), and the backend's binding and loss.

use super::super::errno::Errno;
use super::super::policy::Outcome;
use super::super::uapi;
use super::super::uapi::TraceEvent;
use super::{for_each_bit, plus1, slot_of, ClientRef, Core, Exits, Host, Tsg};

/// The latest state of one TSG as the driver reported it (`struct gcaps_ev` of the C glue).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsgEvent {
    /// Start time of the owning process (with `tgid`, its identity).
    pub start: u64,
    /// TSG id.
    pub tsgid: u32,
    /// Owning process.
    pub tgid: i32,
    /// Timeslice.
    pub timeslice_us: u32,
    /// Channels bound.
    pub num_channels: u32,
    /// 0: the TSG is gone.
    pub present: u32,
    /// `GCAPS_BE_TSG_*` of the driver's report (`GCAPS_BE_TSG_ALWAYS`: driver-internal).
    pub flags: u32,
}

/// `GCAPS_BE_TSG_ALWAYS` of `gcaps_backend.h`: the driver's own TSG, always eligible.
pub const BE_TSG_ALWAYS: u32 = 1 << 0;

impl Core {
    /// Removes the clients whose owners exited (marked in `exits`), applies the releases the
    /// driver reported, every pending TSG event (at most one per TSG id) and, after a reported
    /// recovery, forces a resubmit. Ends with a sync.
    pub fn apply_events(&mut self, h: &mut impl Host, exits: &Exits) {
        self.apply_exits(h, exits.take());
        let mut changed = false;
        // Released ids are off the host's snapshot: release them here first, so that an id
        // that is eligible again after the drain (the winner reopened a TSG and got the same
        // id, which the event table reports as one present TSG) is a decision change.
        let released = h.take_released();
        for_each_bit(&released, |t| {
            if let Ok(t) = u32::try_from(t) {
                changed |= self.tsg_gone(h, t);
            }
        });
        while let Some(ev) = h.next_tsg_event() {
            self.counters.events = self.counters.events.wrapping_add(1);
            changed |= self.apply(h, &ev);
        }
        let force = h.take_recovered();
        if force {
            self.counters.recoveries = self.counters.recoveries.wrapping_add(1);
            let ev = self.event(h, uapi::TRACE_RECOVERY, None);
            h.record(&ev);
        }
        self.sync(h, changed, force);
        self.flush_boost(h, None);
    }

    /// Removes TSG `t` if the mirror has it; returns whether the decision changed.
    pub(super) fn tsg_gone(&mut self, h: &mut impl Host, t: u32) -> bool {
        if !self.policy.tsgs().contains(t) {
            return false;
        }
        let Some(old) = self.tsgs.get(t as usize).copied() else {
            return false;
        };
        let out = self.policy.tsg_destroy(t);
        if let Some(m) = self.tsgs.get_mut(t as usize) {
            *m = Tsg::NONE;
        }
        self.tsg_counted(h, uapi::TRACE_TSG_GONE, t, old.tgid, old.owner);
        out.is_ok_and(|o: Outcome| o.decision_changed)
    }

    /// A TSG appeared or disappeared: records it (with its owner's client if it has one) and
    /// the new maximum count.
    pub(super) fn tsg_counted(
        &mut self,
        h: &mut impl Host,
        kind: u32,
        t: u32,
        tgid: i32,
        owner: u32,
    ) {
        if kind == uapi::TRACE_TSG_NEW {
            self.counters.tsgs_max = self.counters.tsgs_max.max(self.tsgs_now());
        }
        let mut ev = self.event(h, kind, slot_of(owner));
        ev.tgid = tgid as u32;
        ev.cpu_priority = t as i32;
        h.record(&ev);
    }

    /// Applies one TSG event; returns whether the decision changed.
    pub(super) fn apply(&mut self, h: &mut impl Host, ev: &TsgEvent) -> bool {
        let t = ev.tsgid;
        let Some(old) = self.tsgs.get(t as usize).copied() else {
            return false;
        };
        let exists = self.policy.tsgs().contains(t);
        let same_owner = exists && old.tgid == ev.tgid && old.start == ev.start;
        let mut changed = false;
        if exists && (ev.present == 0 || !same_owner) {
            changed |= self.tsg_gone(h, t);
        }
        if ev.present == 0 {
            return changed;
        }
        let driver = if ev.flags & BE_TSG_ALWAYS != 0 {
            uapi::TSG_ALWAYS_DRIVER
        } else {
            0
        };
        if same_owner {
            if old.timeslice_us != ev.timeslice_us || old.num_channels != ev.num_channels {
                // A content change: the driver rebuilds its own runlist for it.
                let _ = self.policy.tsg_changed(t);
            }
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                m.timeslice_us = ev.timeslice_us;
                m.num_channels = ev.num_channels;
            }
            let reasons = (old.always & !uapi::TSG_ALWAYS_DRIVER) | driver;
            changed |= self.set_reasons(h, t, reasons, None);
            return changed;
        }
        let key = self.key_for(ev.tgid as u32, ev.start);
        if let Ok(out) = self.policy.tsg_create(t, key) {
            changed |= out.decision_changed;
            let owner = self.first_with_key(key).map_or(0, plus1);
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                *m = Tsg {
                    tgid: ev.tgid,
                    start: ev.start,
                    timeslice_us: ev.timeslice_us,
                    num_channels: ev.num_channels,
                    owner,
                    always: 0,
                };
            }
            self.tsg_counted(h, uapi::TRACE_TSG_NEW, t, ev.tgid, owner);
            changed |= self.set_reasons(h, t, driver, None);
        }
        changed
    }

    /// Sets existing TSG `t`'s always-eligible reasons (`uapi::TSG_ALWAYS_DRIVER`/`_ADMIN`)
    /// and the policy's mark to match (set iff a reason is); records a `TSG_ALWAYS` event if
    /// the reasons changed (about client `by`, none for the driver). Returns whether the
    /// decision changed.
    pub(super) fn set_reasons(
        &mut self,
        h: &mut impl Host,
        t: u32,
        reasons: u32,
        by: Option<usize>,
    ) -> bool {
        let Some(m) = self.tsgs.get_mut(t as usize) else {
            return false;
        };
        let old = m.always;
        m.always = reasons;
        let on = reasons != 0;
        let mut changed = false;
        if self.policy.is_always_eligible(t) != on {
            changed = self
                .policy
                .set_always_eligible(t, on)
                .is_ok_and(|o| o.decision_changed);
        }
        if old != reasons && by.is_none() {
            let ev = self.always_event(h, t, by);
            h.record(&ev);
        }
        changed
    }

    /// A `TSG_ALWAYS` trace event about TSG `t` (its reasons now), caused by client `by`.
    pub(super) fn always_event(&self, h: &impl Host, t: u32, by: Option<usize>) -> TraceEvent {
        let mut ev = self.event(h, uapi::TRACE_TSG_ALWAYS, by);
        let m = self.tsgs.get(t as usize).copied().unwrap_or(Tsg::NONE);
        if by.is_none() {
            ev.tgid = m.tgid as u32;
        }
        ev.cpu_priority = t as i32;
        ev.requested_priority = m.always as i32;
        ev
    }

    /// `GCAPS_IOC_SET_ALWAYS` by client `r` (after [`super::ioctl::check_set_always`]: the
    /// caller is an administrator): sets or clears the administrator's reason of TSG `tsgid`
    /// (`ENOENT` if the driver has not reported it, `EINVAL` out of range), publishes and
    /// resubmits if the decision changed. The driver's reason is the driver's: it stays.
    /// Returns the reasons after the call and the generation.
    pub fn set_always(
        &mut self,
        h: &mut impl Host,
        r: ClientRef,
        tsgid: u32,
        on: bool,
    ) -> Result<(u32, u64), Errno> {
        self.client(r)?;
        let old = self.tsgs.get(tsgid as usize).ok_or(Errno::EINVAL)?.always;
        if !self.policy.tsgs().contains(tsgid) {
            return Err(Errno::ENOENT);
        }
        let reasons = if on {
            old | uapi::TSG_ALWAYS_ADMIN
        } else {
            old & !uapi::TSG_ALWAYS_ADMIN
        };
        let slot = r.slot as usize;
        let changed = self.set_reasons(h, tsgid, reasons, Some(slot));
        let submit = self.sync(h, changed, false);
        if old != reasons {
            let mut ev = self.always_event(h, tsgid, Some(slot));
            ev.flags = submit.trace_flags();
            h.record(&ev);
        }
        self.flush_boost(h, None);
        Ok((reasons, self.generation()))
    }

    /// A backend bound (the host attached it).
    pub fn backend_bound(&mut self) {
        self.bound = true;
    }

    /// The backend is gone (it unregistered, or the module detached it on unload): forget its
    /// TSGs (publishing the decision without them).
    pub fn backend_gone(&mut self, h: &mut impl Host) {
        self.bound = false;
        let mut changed = false;
        for (m, t) in self.tsgs.iter_mut().zip(0u32..) {
            if let Ok(out) = self.policy.tsg_destroy(t) {
                changed |= out.decision_changed;
            }
            *m = Tsg::NONE;
        }
        self.sync(h, changed, false);
        self.flush_boost(h, None);
    }
}
