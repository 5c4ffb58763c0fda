// SPDX-License-Identifier: GPL-2.0

//! Segment events: a client's begin and end, and the predicates that tell whether a begin
//! or an end certainly keeps the published decision.

use super::super::set::TsgSet;
use super::{check_priority, class_to_raw, ClientId, Error, GpuPriority, Outcome, Policy, Segment};

impl<const W: usize, const C: usize> Policy<W, C> {
    /// The client begins a GPU segment (`gcapsGpuSegBegin`). The segment's class is the
    /// caller's CPU scheduling class at the moment of the call (the kernel reads it from
    /// the task); it becomes the client's class, in the same event, so no intermediate
    /// decision is ever taken with a stale class.
    ///
    /// Errors: [`Error::UnknownClient`], [`Error::PriorityOutOfRange`] (CPU or GPU
    /// priority), [`Error::SegmentAlreadyOpen`] (checked in this order).
    pub fn seg_begin(&mut self, id: ClientId, seg: Segment) -> Result<Outcome, Error> {
        let slot = self.lookup(id)?;
        let cpu_raw = class_to_raw(seg.class())?;
        let gpu_raw = match seg {
            Segment::RealTime {
                gpu: GpuPriority::Explicit(p),
                ..
            } => check_priority(p)?,
            _ => 0,
        };
        let c = self.clients.get(slot).ok_or(Error::UnknownClient)?;
        if c.open {
            return Err(Error::SegmentAlreadyOpen);
        }
        // Validation done: from here on the event cannot fail.
        let keeps = self.begin_keeps_decision(id, seg);
        if self.next_seq == u64::MAX {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq = seq.saturating_add(1);
        let c = self.clients.get_mut(slot).ok_or(Error::UnknownClient)?;
        c.cpu_prio = cpu_raw;
        c.open = true;
        c.gpu_prio = gpu_raw;
        c.seq = seq;
        Ok(self.finish_unless(keeps))
    }

    /// Whether [`Policy::seg_begin`] with these arguments certainly leaves [`Policy::decision`]
    /// unchanged (apart from the generation, which does not move either): the segment is
    /// best-effort, or a real-time segment of at least its effective priority runs (the new
    /// segment will be pending), or the event would be rejected. `false` means the running
    /// segment changes (checked exhaustively by the model check). O(1). Lets a caller that
    /// must not sleep apply the event only when no runlist submit can follow (the kernel
    /// module's non-preemptive fast path).
    pub fn begin_keeps_decision(&self, id: ClientId, seg: Segment) -> bool {
        let Ok(slot) = self.lookup(id) else {
            return true;
        };
        if self.clients.get(slot).is_none_or(|c| c.open) {
            return true;
        }
        let effective = match seg {
            Segment::BestEffort => return true,
            Segment::RealTime {
                gpu: GpuPriority::Explicit(p),
                ..
            } => p,
            Segment::RealTime {
                cpu,
                gpu: GpuPriority::Inherit,
            } => cpu,
        };
        // A higher or equal effective priority that arrived earlier keeps the lead.
        self.running_effective().is_some_and(|w| w >= effective)
    }

    /// Whether [`Policy::seg_end`] certainly leaves [`Policy::decision`] unchanged: the
    /// client's segment is not the running real-time one (or the event would be rejected).
    /// `false` means the running segment changes. O(1).
    pub fn end_keeps_decision(&self, id: ClientId) -> bool {
        match self.lookup(id) {
            Ok(slot) => usize::try_from(self.winner).ok() != slot.checked_add(1),
            Err(_) => true,
        }
    }

    /// Number of existing TSGs the client owns (O(T/64)).
    pub fn owned_tsgs(&self, id: ClientId) -> usize {
        self.lookup(id)
            .ok()
            .and_then(|slot| self.owned.get(slot))
            .map_or(0, TsgSet::len)
    }

    /// Effective priority of the running real-time segment, if any.
    pub(super) fn running_effective(&self) -> Option<u8> {
        let slot = usize::try_from(self.winner.checked_sub(1)?).ok()?;
        self.clients.get(slot)?.effective()
    }

    /// The client ends its GPU segment (`gcapsGpuSegEnd`).
    ///
    /// Errors: [`Error::UnknownClient`], [`Error::NoOpenSegment`].
    pub fn seg_end(&mut self, id: ClientId) -> Result<Outcome, Error> {
        let slot = self.lookup(id)?;
        let keeps = self.end_keeps_decision(id);
        let c = self.clients.get_mut(slot).ok_or(Error::UnknownClient)?;
        if !c.open {
            return Err(Error::NoOpenSegment);
        }
        c.open = false;
        c.gpu_prio = 0;
        c.seq = 0;
        Ok(self.finish_unless(keeps))
    }
}
