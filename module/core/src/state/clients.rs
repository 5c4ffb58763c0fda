// SPDX-License-Identifier: GPL-2.0

//! Clients: a file's open ([`Core::open`]) and release, the owner's exit (the [`Exits`]
//! marks and their application) and a client's removal, which ends its segment and passes
//! its TSGs to the process's next client.

use super::super::boost::TaskToken;
use super::super::errno::Errno;
use super::super::ioctl::{Class, Sched};
use super::super::policy::ClientId;
use super::super::uapi;
use super::{
    for_each_bit, map_policy_error, plus1, Client, ClientRef, Core, Host, PidToken, EXIT_WORDS,
};
use core::sync::atomic::{AtomicU64, Ordering};

/// Who opens a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Opener {
    /// Thread group id (init namespace).
    pub tgid: u32,
    /// Start time of the thread group leader (with `tgid`, the process identity).
    pub start: u64,
    /// Real uid (for `max_clients_per_user`).
    pub uid: u32,
    /// Scheduling state now.
    pub sched: Sched,
    /// Command name.
    pub comm: [u8; 16],
    /// The file's pid reference.
    pub pid: PidToken,
}

/// Client slots whose owner's thread group may have exited, marked lock-free from the pid's
/// wake function (any context) and taken under the update lock by [`Core::apply_events`].
pub struct Exits([AtomicU64; EXIT_WORDS]);

impl Default for Exits {
    fn default() -> Self {
        Self::new()
    }
}

impl Exits {
    /// No marks.
    pub const fn new() -> Self {
        Self([const { AtomicU64::new(0) }; EXIT_WORDS])
    }

    /// Marks slot `slot` (ignored if out of range).
    pub fn mark(&self, slot: u32) {
        let s = slot as usize;
        if let Some(w) = self.0.get(s / 64) {
            // Release: what the exiting task wrote before its wake is seen by the taker.
            w.fetch_or(1 << (s % 64), Ordering::Release);
        }
    }

    /// Whether any slot is marked (a hint for the fast path).
    pub fn any(&self) -> bool {
        self.0.iter().any(|w| w.load(Ordering::Relaxed) != 0)
    }

    /// Takes (and clears) the marks.
    pub(super) fn take(&self) -> [u64; EXIT_WORDS] {
        let mut out = [0; EXIT_WORDS];
        for (o, w) in out.iter_mut().zip(self.0.iter()) {
            *o = w.swap(0, Ordering::Acquire);
        }
        out
    }
}

impl Core {
    /// A file is opened: a new client (`EMFILE` beyond `max_per_user` clients of the uid,
    /// `ENOSPC` if the table is full). Never changes the decision.
    pub fn open(
        &mut self,
        h: &mut impl Host,
        o: &Opener,
        max_per_user: u32,
    ) -> Result<ClientRef, Errno> {
        let mine = self
            .clients
            .iter()
            .filter(|c| c.in_use && c.uid == o.uid)
            .count();
        if mine >= max_per_user as usize {
            return Err(Errno::EMFILE);
        }
        let slot = self
            .clients
            .iter()
            .position(|c| !c.in_use)
            .ok_or(Errno::ENOSPC)?;
        let key = self.key_for(o.tgid, o.start);
        let Class {
            uclass,
            class,
            cpu_prio,
        } = o.sched.classify();
        let (id, _) = self.policy.register(key, class).map_err(map_policy_error)?;
        let cid = self.next_client_id.wrapping_add(1);
        let c = self.clients.get_mut(slot).ok_or(Errno::ENOSPC)?;
        self.next_client_id = cid;
        *c = Client {
            in_use: true,
            id: cid,
            handle: id.to_raw(),
            key,
            tgid: o.tgid,
            start: o.start,
            uid: o.uid,
            pid: o.pid,
            comm: o.comm,
            cpu_class: uclass,
            cpu_prio,
            task: TaskToken(0),
        };
        // The new client owns its process's TSGs unless a lower slot of the process does.
        let me = plus1(slot);
        for (t, id) in self.tsgs.iter_mut().zip(0u32..) {
            if self.policy.tsg_owner(id) == Some(key) && (t.owner == 0 || t.owner > me) {
                t.owner = me;
            }
        }
        let now = self.clients_now();
        self.counters.clients_max = self.counters.clients_max.max(now);
        let ev = self.event(h, uapi::TRACE_OPEN, Some(slot));
        h.record(&ev);
        Ok(ClientRef {
            id: cid,
            slot: u32::try_from(slot).map_err(|_| Errno::ENOSPC)?,
            pad: 0,
        })
    }

    /// The file's last reference is gone: end its segment, remove the client (nothing if the
    /// owner's exit removed it already).
    pub fn release(&mut self, h: &mut impl Host, r: ClientRef) {
        if self.client(r).is_ok() {
            self.remove(h, r.slot as usize);
        }
    }

    /// Whether removing client `r` (the release of its file, its owner's exit) certainly keeps
    /// the published decision: its segment, if any, is not the running real-time one (the
    /// policy's `end_keeps_decision`: `client_gone` ends the segment like an end and drops only
    /// the client's own TSG set, never the winner's). An unknown client keeps it too (nothing
    /// is removed). Such a removal publishes nothing, submits nothing and changes no holder:
    /// bookkeeping any caller may do, a best-effort one included (U5).
    pub fn release_keeps_decision(&self, r: ClientRef) -> bool {
        self.end_keeps_decision(r)
    }

    /// The owner exits marked in `exits` whose removal keeps the decision
    /// ([`Core::release_keeps_decision`]), for a caller that must not publish or submit (LIST,
    /// STATUS, STATS): removes each marked client whose owner's group has exited and whose
    /// segment is not the running one, drops the marks of live owners (as
    /// [`Core::apply_events`] does) and marks the running client's slot again for an update.
    /// Returns whether it left such a mark (the caller kicks the work item).
    pub fn apply_exits_keeping(&mut self, h: &mut impl Host, exits: &Exits) -> bool {
        let mut left = false;
        for_each_bit(&exits.take(), |s| {
            let Some(c) = self.clients.get(s).filter(|c| c.in_use).copied() else {
                return;
            };
            if !h.pid_group_exited(c.pid) {
                return;
            }
            let Ok(slot) = u32::try_from(s) else {
                return;
            };
            let r = ClientRef {
                id: c.id,
                slot,
                pad: 0,
            };
            if self.release_keeps_decision(r) {
                self.remove(h, s);
            } else {
                exits.mark(slot);
                left = true;
            }
        });
        left
    }

    /// The owners of the clients in `slots` (a bit per slot) may have exited: removes each
    /// client whose owner's thread group is gone (its file may live on in another process,
    /// which can do nothing with it). A mark whose slot is free or held by a live process's
    /// client (the slot was reused since, or another wake of the pid's queue) is ignored.
    pub(super) fn apply_exits(&mut self, h: &mut impl Host, slots: [u64; EXIT_WORDS]) {
        for_each_bit(&slots, |s| {
            let gone = self
                .clients
                .get(s)
                .is_some_and(|c| c.in_use && h.pid_group_exited(c.pid));
            if gone {
                self.remove(h, s);
            }
        });
    }

    /// Ends client `s`'s open segment and removes the client, in one policy event.
    pub(super) fn remove(&mut self, h: &mut impl Host, s: usize) {
        let prev = self.running;
        let mut ev = self.event(h, uapi::TRACE_CLOSE, Some(s));
        let mut changed = false;
        let Some(c) = self.clients.get(s).filter(|c| c.in_use).copied() else {
            return;
        };
        let id = ClientId::from_raw(c.handle);
        if self.state_of(id) != uapi::STATE_IDLE {
            self.counters.ends_by_close = self.counters.ends_by_close.wrapping_add(1);
            ev.flags |= uapi::TRACE_F_ENDED;
        }
        // Cannot fail for a registered handle.
        if let Ok(out) = self.policy.client_gone(id) {
            changed = out.decision_changed;
        }
        self.drop_task(h, s);
        if let Some(slot) = self.clients.get_mut(s) {
            *slot = Client::FREE;
        }
        // Its TSGs pass to the next client of the process, if any.
        let next = self.first_with_key(c.key).map_or(0, plus1);
        let me = plus1(s);
        for t in self.tsgs.iter_mut() {
            if t.owner == me {
                t.owner = next;
            }
        }
        ev.flags |= self.sync(h, changed, false).trace_flags();
        // The client is gone: its fields were taken before, the decision is the one after.
        self.stamp(h, &mut ev);
        h.record(&ev);
        self.handover(h, s, prev, &ev);
        self.flush_boost(h, Some(ev.time_ns));
    }
}
