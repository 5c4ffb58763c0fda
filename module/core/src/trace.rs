// SPDX-License-Identifier: GPL-2.0

//! The trace ring's contents (`GCAPS_IOC_TRACE_READ`): the last `capacity` events, each with a
//! sequence number. The host owns the storage (allocated once, handed over as `S`) and the
//! lock around the [`Ring`]: it records under the update lock (so the order of the sequence
//! numbers is the order of the decisions) and lets readers take one [`Ring::step`] at a time
//! under the ring's lock, copying each event out after dropping it.
//!
//! Invariants:
//! * `next_seq >= 1`; the ring holds exactly the events with sequence numbers in
//!   `oldest() .. next_seq`, event `s` at index `(s - 1) % capacity`.
//! * A capacity of 0 disables tracing (nothing is recorded).

use core::ops::DerefMut;

use super::uapi::TraceEvent;

/// The ring over its storage `S` (a slice of events the host allocated).
#[derive(Clone)]
pub struct Ring<S> {
    slots: S,
    next_seq: u64,
}

/// A reader's position and what it learned besides the events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadPosition {
    /// Sequence number to continue from.
    pub next_seq: u64,
    /// Events from the reader's position on that were overwritten before it read them.
    pub dropped: u64,
    /// Events overwritten since load (as of the last look at the ring).
    pub overwritten: u64,
    /// Events handed out.
    pub count: usize,
}

impl ReadPosition {
    /// A read from `from_seq` (0: from the oldest event held).
    pub fn new(from_seq: u64) -> Self {
        Self {
            next_seq: from_seq,
            ..Self::default()
        }
    }

    /// The event the last [`Ring::step`] returned was delivered.
    pub fn handed_out(&mut self) {
        self.count = self.count.saturating_add(1);
        self.next_seq = self.next_seq.saturating_add(1);
    }
}

impl<S: DerefMut<Target = [TraceEvent]>> Ring<S> {
    /// An empty ring over `slots` (its length is the capacity).
    pub fn new(slots: S) -> Self {
        Self { slots, next_seq: 1 }
    }

    /// Number of events the ring holds at most.
    pub fn capacity(&self) -> u32 {
        u32::try_from(self.slots.len()).unwrap_or(u32::MAX)
    }

    /// The oldest sequence number still held (`next_seq` if the ring is empty).
    fn oldest(&self) -> u64 {
        let recorded = self.next_seq.saturating_sub(1);
        let held = u64::try_from(self.slots.len())
            .unwrap_or(u64::MAX)
            .min(recorded);
        self.next_seq.saturating_sub(held)
    }

    fn index(&self, seq: u64) -> Option<usize> {
        let cap = u64::try_from(self.slots.len()).ok()?;
        let i = seq.checked_sub(1)?.checked_rem(cap)?;
        usize::try_from(i).ok()
    }

    /// Records `ev`, assigning its `seq`.
    pub fn record(&mut self, mut ev: TraceEvent) {
        let Some(i) = self.index(self.next_seq) else {
            return;
        };
        ev.seq = self.next_seq;
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = ev;
        }
        self.next_seq = self.next_seq.saturating_add(1);
    }

    /// One step of a read that hands out at most `max` events: brings `pos` up to date
    /// (overwritten count; events the reader missed are counted in `dropped` and skipped; a
    /// position beyond the head is brought back to it) and returns the next event, if any and
    /// if fewer than `max` were handed out. The caller delivers it and calls
    /// [`ReadPosition::handed_out`].
    pub fn step(&self, pos: &mut ReadPosition, max: usize) -> Option<TraceEvent> {
        let oldest = self.oldest();
        pos.overwritten = oldest.saturating_sub(1);
        if pos.next_seq == 0 {
            pos.next_seq = oldest;
        } else if pos.next_seq < oldest {
            pos.dropped = pos.dropped.saturating_add(oldest - pos.next_seq);
            pos.next_seq = oldest;
        }
        if pos.next_seq >= self.next_seq {
            pos.next_seq = self.next_seq;
            return None;
        }
        if pos.count >= max {
            return None;
        }
        self.index(pos.next_seq)
            .and_then(|i| self.slots.get(i))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn ev(kind: u32) -> TraceEvent {
        TraceEvent {
            kind,
            ..TraceEvent::default()
        }
    }

    fn read(r: &Ring<&mut [TraceEvent]>, from: u64, max: usize) -> (Vec<u64>, ReadPosition) {
        let mut pos = ReadPosition::new(from);
        let mut seqs = Vec::new();
        while let Some(e) = r.step(&mut pos, max) {
            seqs.push(e.seq);
            pos.handed_out();
        }
        (seqs, pos)
    }

    #[test]
    fn empty_and_disabled() {
        let mut none: [TraceEvent; 0] = [];
        let mut r = Ring::new(&mut none[..]);
        r.record(ev(1));
        assert_eq!(r.capacity(), 0);
        let (s, p) = read(&r, 0, 10);
        assert!(s.is_empty());
        assert_eq!((p.next_seq, p.dropped, p.overwritten), (1, 0, 0));
    }

    #[test]
    fn positions_dropped_overwritten() {
        let mut slots = [TraceEvent::default(); 4];
        let mut r = Ring::new(&mut slots[..]);
        for k in 0..3 {
            r.record(ev(k));
        }
        let (s, p) = read(&r, 0, 10);
        assert_eq!(s, [1, 2, 3]);
        assert_eq!(
            (p.next_seq, p.dropped, p.overwritten, p.count),
            (4, 0, 0, 3)
        );
        // At most `max`, continuing where the last read stopped.
        let (s, p) = read(&r, 2, 1);
        assert_eq!(s, [2]);
        assert_eq!(p.next_seq, 3);
        // Six more: 1..=5 overwritten, 6..=9 held.
        for k in 0..6 {
            r.record(ev(k));
        }
        let (s, p) = read(&r, 4, 10);
        assert_eq!(s, [6, 7, 8, 9]);
        assert_eq!((p.dropped, p.overwritten, p.next_seq), (2, 5, 10));
        // 0 means the oldest held; a position beyond the head comes back to it.
        assert_eq!(read(&r, 0, 10).0, [6, 7, 8, 9]);
        let (s, p) = read(&r, 100, 10);
        assert!(s.is_empty());
        assert_eq!((p.next_seq, p.dropped), (10, 0));
        let (s, p) = read(&r, 0, 0);
        assert!(s.is_empty());
        assert_eq!(p.next_seq, 6);
    }
}
