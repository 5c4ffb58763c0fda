// SPDX-License-Identifier: GPL-2.0

//! The holder boost as the core applies it: which thread to boost or unboost after a sync,
//! the core's counted reference to it, and the BOOST/UNBOOST trace events (the rules of a
//! thread's parameters are [`super::super::boost`]'s; the host applies them).

use super::super::boost::TaskToken;
use super::super::uapi;
use super::super::uapi::TraceEvent;
use super::{slot_of, Core, Host};

impl Core {
    /// Boosts the running segment's owner thread and ends the previous one's boost, if the
    /// holder changed (`docs/module.md`, "Holder boost"); notes the trace events. The core
    /// holds its own reference to the boosted thread, so a client's end or removal (which
    /// drops the client's reference) never frees a thread it still has to unboost. With
    /// `boost_new` false only the previous holder's boost ends (U8: before the submit).
    pub(super) fn sync_boost(&mut self, h: &mut impl Host, boost_new: bool) {
        let run = slot_of(self.running).and_then(|s| self.clients.get(s).map(|c| (s, c)));
        let want = match run {
            Some((_, c)) if self.boost_prio > 0 && c.in_use => c.task,
            _ => TaskToken(0),
        };
        if want == self.boosted {
            return;
        }
        // The next free note (the unboost of a first call may already be noted).
        let mut n = self
            .notes
            .iter()
            .position(|e| e.kind == 0)
            .unwrap_or(self.notes.len());
        if self.boosted.is_some() {
            let old = self.boosted;
            let prio = h.unboost(old);
            h.task_put(old);
            let mut ev = self.boosted_ev;
            ev.kind = uapi::TRACE_UNBOOST;
            ev.cpu_priority = prio.unwrap_or(-1);
            if let Some(slot) = self.notes.get_mut(n) {
                *slot = ev;
                n += 1;
            }
            self.boosted = TaskToken(0);
        }
        if let (true, true, Some((s, c))) = (boost_new, want.is_some(), run) {
            h.task_get(want);
            h.boost(want);
            self.boosted = want;
            let mut ev = self.event(h, uapi::TRACE_BOOST, Some(s));
            ev.tid = h.task_tid(want);
            ev.cpu_priority = self.boost_prio;
            ev.requested_priority = c.cpu_prio;
            self.boosted_ev = ev;
            if let Some(slot) = self.notes.get_mut(n) {
                *slot = ev;
            }
        }
    }

    /// Records the BOOST/UNBOOST events the last sync noted, at `time_ns` (the cause's).
    pub(super) fn flush_boost(&mut self, h: &mut impl Host, time_ns: Option<u64>) {
        for i in 0..self.notes.len() {
            let Some(mut ev) = self.notes.get(i).copied().filter(|e| e.kind != 0) else {
                continue;
            };
            self.stamp(h, &mut ev);
            if let Some(t) = time_ns {
                ev.time_ns = t;
            }
            h.record(&ev);
            if let Some(n) = self.notes.get_mut(i) {
                *n = TraceEvent::ZERO;
            }
        }
    }

    /// Drops the client's reference to the thread that began its segment.
    pub(super) fn drop_task(&mut self, h: &mut impl Host, slot: usize) {
        if let Some(c) = self.clients.get_mut(slot) {
            let t = core::mem::take(&mut c.task);
            if t.is_some() {
                h.task_put(t);
            }
        }
    }
}
