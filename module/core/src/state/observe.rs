// SPDX-License-Identifier: GPL-2.0

//! Observation: `GCAPS_IOC_STATUS`, `GCAPS_IOC_LIST` (into a [`ListBuf`]) and
//! `GCAPS_IOC_STATS` with its reset scopes. Nothing here changes the decision.

use super::super::errno::Errno;
use super::super::policy::{ClientId, ClientStatus};
use super::super::stats::ResetScope;
use super::super::uapi::{self, IoctlArg};
use super::{slot_of, Client, ClientRef, Core, Host, MAX_CLIENTS, MAX_TSGS};
use core::mem::{offset_of, size_of_val};

/// Preallocated output of `GCAPS_IOC_LIST` (filled under the update lock, copied to user space
/// after it is released). All-zero is valid.
pub struct ListBuf {
    /// Client records.
    pub clients: [uapi::ClientInfo; MAX_CLIENTS],
    /// TSG records.
    pub tsgs: [uapi::TsgInfo; MAX_TSGS],
}

impl Core {
    /// TSGs the driver reported (the policy's set: O(T/64)). At most 1024.
    pub(super) fn tsgs_now(&self) -> u32 {
        u32::try_from(self.policy.tsgs().len()).unwrap_or(u32::MAX)
    }

    pub(super) fn clients_now(&self) -> u32 {
        // At most `MAX_CLIENTS = 128`.
        self.clients.iter().filter(|c| c.in_use).count() as u32
    }

    /// Open segments (real-time and best-effort): O(C).
    pub(super) fn segments_open(&self) -> u64 {
        self.clients
            .iter()
            .filter(|c| c.in_use && self.state_of(ClientId::from_raw(c.handle)) != uapi::STATE_IDLE)
            .count() as u64
    }

    /// `GCAPS_IOC_STATS` (without `rejected` and `updates`): fills the counters, then resets those within
    /// `reset`'s scope (the caller checked the permission): a counter becomes 0,
    /// `clients_max`/`tsgs_max` the current counts. `begins`, `ends` and `ends_by_close` are
    /// reset by every reset, together, and `open_at_reset` then records the segments open, so
    /// that `open_at_reset + begins == ends + ends_by_close + segments_open` always holds.
    pub fn stats(&mut self, out: &mut uapi::Stats, reset: Option<ResetScope>) {
        let c = self.counters;
        out.begins = c.begins;
        out.ends = c.ends;
        out.ends_by_close = c.ends_by_close;
        out.submits = c.submits;
        out.submit_errors = c.submit_errors;
        out.clients_now = self.clients_now();
        out.clients_max = c.clients_max;
        out.preemptions = c.preemptions;
        out.resumes = c.resumes;
        out.submit_timeouts = c.submit_timeouts;
        out.recoveries = c.recoveries;
        out.tsgs_now = self.tsgs_now();
        out.tsgs_max = c.tsgs_max;
        out.delay = c.delay;
        out.open_at_reset = c.open_at_reset;
        out.segments_open = self.segments_open();
        let Some(scope) = reset else {
            return;
        };
        let c = &mut self.counters;
        // Every caller's struct holds the VER0 fields (smaller sizes are EINVAL).
        const _: () = assert!(offset_of!(uapi::Stats, ends_by_close) + 8 <= uapi::Stats::SIZE_VER0);
        c.begins = 0;
        c.ends = 0;
        c.ends_by_close = 0;
        c.open_at_reset = out.segments_open;
        macro_rules! zero_within {
            ($($f:ident),*) => {$(
                if scope.covers(offset_of!(uapi::Stats, $f), size_of_val(&out.$f)) {
                    c.$f = 0;
                }
            )*};
        }
        zero_within!(
            submits,
            submit_errors,
            preemptions,
            resumes,
            submit_timeouts,
            recoveries
        );
        if scope.covers(offset_of!(uapi::Stats, clients_max), 4) {
            c.clients_max = out.clients_now;
        }
        if scope.covers(offset_of!(uapi::Stats, tsgs_max), 4) {
            c.tsgs_max = out.tsgs_now;
        }
        if scope.covers(offset_of!(uapi::Stats, delay), size_of_val(&out.delay)) {
            c.delay = uapi::DelayHistogram::EMPTY;
        }
    }

    pub(super) fn state_of(&self, id: ClientId) -> u32 {
        match self.policy.client_status(id) {
            Ok(ClientStatus::Running) => uapi::STATE_RUNNING,
            Ok(ClientStatus::Pending) => uapi::STATE_PENDING,
            _ => uapi::STATE_IDLE,
        }
    }

    pub(super) fn info_of(&self, h: &impl Host, c: &Client) -> uapi::ClientInfo {
        let id = ClientId::from_raw(c.handle);
        uapi::ClientInfo {
            client_id: c.id,
            tgid: h.pid_vnr(c.pid),
            cpu_class: c.cpu_class,
            cpu_priority: c.cpu_prio,
            gpu_priority: self.effective_of(c),
            state: self.state_of(id),
            num_tsgs: u32::try_from(self.policy.owned_tsgs(id)).unwrap_or(u32::MAX),
            comm: c.comm,
        }
    }

    /// `GCAPS_IOC_STATUS` (everything but `size`/`flags`).
    pub fn status(&self, h: &impl Host, r: ClientRef, out: &mut uapi::Status) -> Result<(), Errno> {
        let c = self.client(r)?;
        out.self_ = self.info_of(h, c);
        out.generation = self.generation();
        out.rt_active = u32::from(self.policy.rt_active());
        out.num_clients = self.clients_now();
        out.boost = 0;
        if self.boost_prio > 0 {
            out.boost |= uapi::BOOST_ON;
            let running = slot_of(self.running) == Some(r.slot as usize);
            if running && c.task.is_some() && h.boosted(c.task) {
                out.boost |= uapi::BOOST_SELF;
            }
        }
        out.boost_prio = self.boost_prio;
        out.update_prio = self.update_prio;
        out.mechanism = self.mechanism.uapi();
        Ok(())
    }

    /// `GCAPS_IOC_LIST`: one consistent copy into `buf`; sets the counts. O(C + T): each TSG's
    /// owner is kept in the mirror.
    pub fn list(&self, h: &impl Host, buf: &mut ListBuf, out: &mut uapi::List) {
        let mut n = 0;
        for (c, dst) in self
            .clients
            .iter()
            .filter(|c| c.in_use)
            .zip(buf.clients.iter_mut())
        {
            *dst = self.info_of(h, c);
            n += 1;
        }
        out.clients_count = n;
        let d = self.policy.decision();
        let d_exists = self.policy.tsgs();
        let mut n = 0;
        for ((t, tsgid), dst) in self
            .tsgs
            .iter()
            .zip(0u32..)
            .filter(|(_, id)| d_exists.contains(*id))
            .zip(buf.tsgs.iter_mut())
        {
            let mut flags = 0;
            if d.all || d.eligible.contains(tsgid) {
                flags |= uapi::TSG_ELIGIBLE;
            }
            if self.policy.is_always_eligible(tsgid) {
                flags |= uapi::TSG_ALWAYS;
            }
            flags |= t.always & (uapi::TSG_ALWAYS_DRIVER | uapi::TSG_ALWAYS_ADMIN);
            let owner = slot_of(t.owner).and_then(|s| self.clients.get(s));
            *dst = uapi::TsgInfo {
                tsgid,
                flags,
                owner_client_id: owner.map_or(0, |c| c.id),
                owner_tgid: t.tgid as u32,
                timeslice_us: t.timeslice_us,
            };
            n += 1;
        }
        out.tsgs_count = n;
        out.generation = d.generation;
        out.rt_active = u32::from(!d.all);
    }
}
