// SPDX-License-Identifier: GPL-2.0

//! The trace ring (`GCAPS_IOC_TRACE_READ`): its storage, allocated at load, and its lock; the
//! contents (sequence numbers, overwritten and dropped events) are the core's
//! ([`Ring`]). Written only by the holder of the update lock (so the order of the sequence
//! numbers is the order of the decisions), never allocating; read by any number of readers,
//! each with its own cursor, without the update lock (a reader never delays an update beyond
//! the copy of one event under the ring's raw spinlock).

use super::gcaps_core::trace::{ReadPosition, Ring};
use super::gcaps_core::uapi::TraceEvent;
use super::glue::{KvBox, TraceLock};
use super::Result;

/// The trace ring and its lock.
pub(crate) struct TraceRing {
    ring: TraceLock<Ring<KvBox<[TraceEvent]>>>,
}

impl TraceRing {
    /// A ring of `capacity` events, all allocated now (none later).
    ///
    /// # Safety
    ///
    /// No other `TraceRing` may exist while this one does (its lock is the glue's one static
    /// trace spinlock).
    pub(crate) unsafe fn new(capacity: usize) -> Result<Self> {
        let slots = KvBox::new_zeroed_slice(capacity)?;
        Ok(Self {
            // SAFETY: The only ring (function contract) owns the only `TraceLock`.
            ring: unsafe { TraceLock::new(Ring::new(slots)) },
        })
    }

    /// Number of events the ring holds at most.
    pub(crate) fn capacity(&self) -> u32 {
        self.ring.lock().capacity()
    }

    /// Records `ev` (its `seq` is assigned here). The caller holds the update lock, which is
    /// what orders the events; `time_ns` must be read under it too.
    pub(crate) fn record(&self, ev: TraceEvent) {
        self.ring.lock().record(ev);
    }

    /// One step of a read, under the ring lock (dropped on return).
    fn step(&self, pos: &mut ReadPosition, max: usize) -> Option<TraceEvent> {
        self.ring.lock().step(pos, max)
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
        let mut pos = ReadPosition::new(from_seq);
        while let Some(ev) = self.step(&mut pos, max) {
            out(&ev)?;
            pos.handed_out();
        }
        Ok(pos)
    }
}
