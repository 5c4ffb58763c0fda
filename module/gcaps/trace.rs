// SPDX-License-Identifier: GPL-2.0

//! The trace ring (`GCAPS_IOC_TRACE_READ`): the last `trace_size` events, allocated at load,
//! each with a sequence number. Written only by the holder of the update lock (so the order
//! of the sequence numbers is the order of the decisions), never allocating; read by any number
//! of readers, each with its own cursor, without the update lock (a reader never delays an
//! update beyond the copy of one event under the ring's raw spinlock).
//!
//! Invariants (under the ring lock):
//! * `next_seq >= 1`; the ring holds exactly the events with sequence numbers in
//!   `oldest() .. next_seq`, event `s` at index `(s - 1) % capacity`.
//! * `capacity == slots.len()`; a capacity of 0 disables tracing (nothing is recorded).

use kernel::prelude::*;

use super::glue::TraceLock;
use super::uapi::TraceEvent;

/// The ring's storage.
pub(crate) struct Ring {
    slots: KVVec<TraceEvent>,
    next_seq: u64,
}

impl Ring {
    /// The oldest sequence number still held (`next_seq` if the ring is empty).
    fn oldest(&self) -> u64 {
        let held = (self.slots.len() as u64).min(self.next_seq - 1);
        self.next_seq - held
    }

    fn index(&self, seq: u64) -> Option<usize> {
        let cap = self.slots.len() as u64;
        if cap == 0 {
            return None;
        }
        usize::try_from((seq - 1) % cap).ok()
    }
}

/// What a reader gets besides the events.
pub(crate) struct ReadPosition {
    /// Sequence number to continue from.
    pub(crate) next_seq: u64,
    /// Events from the reader's position on that were overwritten before it read them.
    pub(crate) dropped: u64,
    /// Events overwritten since load (as of the last look at the ring).
    pub(crate) overwritten: u64,
    /// Events handed out.
    pub(crate) count: usize,
}

/// The trace ring and its lock.
pub(crate) struct TraceRing {
    ring: TraceLock<Ring>,
}

impl TraceRing {
    /// A ring of `capacity` events, all allocated now (none later).
    pub(crate) fn new(capacity: usize) -> Result<Self> {
        let slots = KVVec::from_elem(TraceEvent::default(), capacity, GFP_KERNEL)?;
        Ok(Self {
            ring: TraceLock::new(Ring { slots, next_seq: 1 }),
        })
    }

    /// Number of events the ring holds at most.
    pub(crate) fn capacity(&self) -> u32 {
        u32::try_from(self.ring.lock().slots.len()).unwrap_or(u32::MAX)
    }

    /// Records `ev` (its `seq` is assigned here). The caller holds the update lock, which is
    /// what orders the events; `time_ns` must be read under it too.
    pub(crate) fn record(&self, mut ev: TraceEvent) {
        let mut r = self.ring.lock();
        let Some(i) = r.index(r.next_seq) else {
            return;
        };
        ev.seq = r.next_seq;
        if let Some(slot) = r.slots.get_mut(i) {
            *slot = ev;
        }
        r.next_seq += 1;
    }

    /// Hands at most `max` events from `from_seq` on (0: the oldest held) to `out`, oldest
    /// first, one at a time (the ring lock is held only for the copy of one event into a
    /// local, never while `out` runs). Events overwritten while the reader was behind are
    /// counted in `dropped` and skipped.
    pub(crate) fn read(
        &self,
        from_seq: u64,
        max: usize,
        mut out: impl FnMut(&TraceEvent) -> Result,
    ) -> Result<ReadPosition> {
        let mut pos = ReadPosition {
            next_seq: from_seq,
            dropped: 0,
            overwritten: 0,
            count: 0,
        };
        loop {
            let ev = {
                let r = self.ring.lock();
                let oldest = r.oldest();
                pos.overwritten = oldest - 1;
                if pos.next_seq == 0 {
                    pos.next_seq = oldest;
                } else if pos.next_seq < oldest {
                    pos.dropped += oldest - pos.next_seq;
                    pos.next_seq = oldest;
                }
                if pos.next_seq >= r.next_seq {
                    // Nothing newer; a position beyond the head is brought back to it.
                    pos.next_seq = r.next_seq;
                    return Ok(pos);
                }
                if pos.count == max {
                    return Ok(pos);
                }
                match r.index(pos.next_seq).and_then(|i| r.slots.get(i)) {
                    Some(ev) => *ev,
                    None => return Ok(pos),
                }
            };
            out(&ev)?;
            pos.count += 1;
            pos.next_seq += 1;
        }
    }
}
