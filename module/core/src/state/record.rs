// SPDX-License-Identifier: GPL-2.0

//! Trace records: the event a client's call writes (its client, the decision now), the
//! preemption or resumption a begin, end or close caused, and the update delay.

use super::super::policy::ClientId;
use super::super::uapi;
use super::super::uapi::TraceEvent;
use super::{plus1, slot_of, Call, Client, Core, Host};

impl Core {
    /// A trace event about client `slot` (none for driver events), with the decision now.
    pub(super) fn event(&self, h: &impl Host, kind: u32, slot: Option<usize>) -> TraceEvent {
        let c = slot.and_then(|s| self.clients.get(s)).filter(|c| c.in_use);
        let mut ev = TraceEvent {
            client_id: c.map_or(0, |c| c.id),
            tgid: c.map_or(0, |c| c.tgid),
            kind,
            effective_priority: c.map_or(0, |c| self.effective_of(c)),
            comm: c.map_or([0; 16], |c| c.comm),
            ..TraceEvent::default()
        };
        self.stamp(h, &mut ev);
        ev
    }

    /// Sets `ev`'s time and the decision now (running client, generation).
    pub(super) fn stamp(&self, h: &impl Host, ev: &mut TraceEvent) {
        let r = slot_of(self.running).and_then(|s| self.clients.get(s));
        ev.time_ns = h.now_ns();
        ev.running_client_id = r.map_or(0, |c| c.id);
        ev.running_tgid = r.map_or(0, |c| c.tgid);
        ev.generation = self.generation();
    }

    /// Effective GPU priority of `c`'s open segment (0: none or best-effort).
    pub(super) fn effective_of(&self, c: &Client) -> i32 {
        self.policy
            .client_info(ClientId::from_raw(c.handle))
            .ok()
            .and_then(|i| i.effective_priority)
            .map_or(0, i32::from)
    }

    /// After a begin/end/close by `slot` (recorded as `cause`) that left `prev` (1 + slot)
    /// running before: counts and records the preemption or resumption it caused (a begin can
    /// only preempt, an end or close can only resume), at the cause's time.
    pub(super) fn handover(
        &mut self,
        h: &mut impl Host,
        slot: usize,
        prev: u32,
        cause: &TraceEvent,
    ) {
        let me = plus1(slot);
        let now = self.running;
        let (kind, who) = match (prev, now) {
            (p, n) if p != 0 && n != 0 && n == me && p != me => {
                self.counters.preemptions = self.counters.preemptions.wrapping_add(1);
                (uapi::TRACE_PREEMPT, p)
            }
            (p, n) if p != 0 && n != 0 && p == me && n != me => {
                self.counters.resumes = self.counters.resumes.wrapping_add(1);
                (uapi::TRACE_RESUME, n)
            }
            _ => return,
        };
        let mut ev = self.event(h, kind, slot_of(who));
        ev.time_ns = cause.time_ns;
        h.record(&ev);
    }

    /// The update delay of a successful begin/end: sampled for real-time callers.
    pub(super) fn delay_of(&mut self, h: &impl Host, call: Call) -> u64 {
        if !call.rt {
            return 0;
        }
        let d = h.now_ns().saturating_sub(call.entry_ns);
        self.counters.delay.record(d);
        d
    }
}
