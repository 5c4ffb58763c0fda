// SPDX-License-Identifier: GPL-2.0

//! Segments: `GCAPS_IOC_SEG_BEGIN` and `GCAPS_IOC_SEG_END` on a client, and the predicates
//! that tell a caller whether its begin or end certainly keeps the published decision.

use super::super::boost::TaskToken;
use super::super::errno::Errno;
use super::super::ioctl::BeginRequest;
use super::super::uapi;
use super::{map_policy_error, Call, ClientRef, Core, Host};

impl Core {
    /// `GCAPS_IOC_SEG_BEGIN` (after the checks of [`super::ioctl`]). Returns the client's
    /// `uapi::STATE_*` after the call and the generation.
    pub fn seg_begin(
        &mut self,
        h: &mut impl Host,
        r: ClientRef,
        req: BeginRequest,
        call: Call,
    ) -> Result<(u32, u64), Errno> {
        let id = self.handle(r)?;
        let slot = r.slot as usize;
        let prev = self.running;
        let out = self
            .policy
            .seg_begin(id, req.segment)
            .map_err(map_policy_error)?;
        // The thread that began a real-time segment is the one boosted while it runs.
        let task = if self.boost_prio > 0 && req.class.is_rt() {
            h.task_current()
        } else {
            TaskToken(0)
        };
        if let Some(c) = self.clients.get_mut(slot) {
            c.cpu_class = req.class.uclass;
            c.cpu_prio = req.class.cpu_prio;
            c.task = task;
        } else if task.is_some() {
            h.task_put(task);
        }
        self.counters.begins = self.counters.begins.wrapping_add(1);
        let submit = self.sync(h, out.decision_changed, false);
        let delay = self.delay_of(h, call);
        let state = self.state_of(id);
        let mut ev = self.event(h, uapi::TRACE_BEGIN, Some(slot));
        ev.delay_ns = delay;
        ev.cpu_priority = req.class.cpu_prio;
        ev.requested_priority = req.requested;
        ev.flags = submit.trace_flags();
        if state == uapi::STATE_PENDING {
            ev.flags |= uapi::TRACE_F_PENDING;
        }
        h.record(&ev);
        self.handover(h, slot, prev, &ev);
        self.flush_boost(h, Some(ev.time_ns));
        Ok((state, self.generation()))
    }

    /// Whether `seg_begin(r, req)` certainly keeps the published decision (the policy's
    /// predicate; an unknown client keeps it too: the event fails).
    pub fn begin_keeps_decision(&self, r: ClientRef, req: &BeginRequest) -> bool {
        self.handle(r)
            .map_or(true, |id| self.policy.begin_keeps_decision(id, req.segment))
    }

    /// Whether `seg_end(r)` certainly keeps the published decision.
    pub fn end_keeps_decision(&self, r: ClientRef) -> bool {
        self.handle(r)
            .map_or(true, |id| self.policy.end_keeps_decision(id))
    }

    /// `GCAPS_IOC_SEG_END`. Returns the generation.
    pub fn seg_end(&mut self, h: &mut impl Host, r: ClientRef, call: Call) -> Result<u64, Errno> {
        let id = self.handle(r)?;
        let slot = r.slot as usize;
        let prev = self.running;
        let out = self.policy.seg_end(id).map_err(map_policy_error)?;
        self.drop_task(h, slot);
        self.counters.ends = self.counters.ends.wrapping_add(1);
        let submit = self.sync(h, out.decision_changed, false);
        let mut ev = self.event(h, uapi::TRACE_END, Some(slot));
        ev.delay_ns = self.delay_of(h, call);
        ev.flags = submit.trace_flags();
        h.record(&ev);
        self.handover(h, slot, prev, &ev);
        self.flush_boost(h, Some(ev.time_ns));
        Ok(self.generation())
    }
}
