// SPDX-License-Identifier: GPL-2.0

//! What `GCAPS_IOC_STATS` reports beyond plain counters: the update-delay histogram (log2
//! buckets in ns, `uapi/linux/gcaps.h`), the reset scope of a `GCAPS_STATS_RESET`, and the
//! lock-free counters of rejected calls (per `GCAPS_REJ_*` class of their [`Errno`]).

use core::mem::{offset_of, size_of};
use core::sync::atomic::{AtomicU64, Ordering};

use super::errno::Errno;
use super::uapi::{self, DelayHistogram};

/// The bucket of a delay of `ns`: 0 below `2^10` ns, then one per power of two, the last one
/// open-ended.
pub fn delay_bucket(ns: u64) -> usize {
    let bits = u64::BITS - ns.leading_zeros(); // floor(log2(ns)) + 1, 0 for ns = 0
    let b = bits.saturating_sub(uapi::DELAY_BUCKET0_SHIFT) as usize;
    b.min(uapi::DELAY_BUCKETS - 1)
}

impl DelayHistogram {
    /// The empty histogram.
    pub const EMPTY: Self = Self {
        count: 0,
        sum_ns: 0,
        min_ns: 0,
        max_ns: 0,
        buckets: [0; uapi::DELAY_BUCKETS],
    };

    /// Adds one sample.
    pub fn record(&mut self, ns: u64) {
        if self.count == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.count = self.count.saturating_add(1);
        self.sum_ns = self.sum_ns.saturating_add(ns);
        if let Some(b) = self.buckets.get_mut(delay_bucket(ns)) {
            *b = b.saturating_add(1);
        }
    }
}

/// Which counters a `GCAPS_STATS_RESET` resets: exactly those the caller's struct of `size`
/// bytes holds whole (`uapi/linux/gcaps.h`), so a caller never loses counters it cannot see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResetScope {
    size: usize,
}

impl ResetScope {
    /// The scope of a reset by a caller whose struct has `size` bytes.
    pub fn new(size: usize) -> Self {
        Self { size }
    }

    /// Whether the field at byte `offset` with `len` bytes lies entirely within the caller's
    /// struct.
    pub fn covers(self, offset: usize, len: usize) -> bool {
        offset.checked_add(len).is_some_and(|end| end <= self.size)
    }
}

/// Failed calls per class, counted without any lock (a rejected call must not wait for the
/// update lock just to be counted).
pub struct Rejected([AtomicU64; uapi::REJ_NR]);

impl Default for Rejected {
    fn default() -> Self {
        Self::new()
    }
}

impl Rejected {
    /// All counters zero.
    pub const fn new() -> Self {
        Self([const { AtomicU64::new(0) }; uapi::REJ_NR])
    }

    /// Counts a call that failed with `e`.
    pub fn count(&self, e: Errno) {
        if let Some(c) = self.0.get(e.reject_class()) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Copies the counters to `out` (`Stats::rejected`), zeroing those within `reset`'s scope.
    pub fn read(&self, out: &mut [u64; uapi::REJ_NR], reset: Option<ResetScope>) {
        let base = offset_of!(uapi::Stats, rejected);
        let mut off = base;
        for (o, c) in out.iter_mut().zip(self.0.iter()) {
            let zero = reset.is_some_and(|r| r.covers(off, size_of::<u64>()));
            *o = if zero {
                c.swap(0, Ordering::Relaxed)
            } else {
                c.load(Ordering::Relaxed)
            };
            off = off.saturating_add(size_of::<u64>());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets() {
        assert_eq!(delay_bucket(0), 0);
        assert_eq!(delay_bucket(1023), 0);
        assert_eq!(delay_bucket(1024), 1);
        assert_eq!(delay_bucket(2047), 1);
        assert_eq!(delay_bucket(2048), 2);
        assert_eq!(delay_bucket(u64::MAX), uapi::DELAY_BUCKETS - 1);
    }

    #[test]
    fn histogram() {
        let mut h = DelayHistogram::EMPTY;
        h.record(5000);
        h.record(100);
        h.record(u64::MAX);
        assert_eq!((h.count, h.min_ns, h.max_ns), (3, 100, u64::MAX));
        assert_eq!(h.sum_ns, u64::MAX);
        assert_eq!(h.buckets[0], 1);
        assert_eq!(h.buckets[3], 1);
        assert_eq!(h.buckets[uapi::DELAY_BUCKETS - 1], 1);
    }

    #[test]
    fn reset_scope() {
        let s = ResetScope::new(56);
        assert!(s.covers(48, 8));
        assert!(!s.covers(52, 8));
        assert!(!s.covers(usize::MAX, 1));
    }

    #[test]
    fn rejected_reset_only_within_scope() {
        let r = Rejected::new();
        r.count(Errno::EPERM);
        r.count(Errno::EPERM);
        r.count(Errno::ENOTTY);
        r.count(Errno::ETIMEDOUT);
        let mut out = [0; uapi::REJ_NR];
        r.read(&mut out, None);
        assert_eq!(
            (
                out[uapi::REJ_EPERM],
                out[uapi::REJ_ENOTTY],
                out[uapi::REJ_OTHER]
            ),
            (2, 1, 1)
        );
        // A struct that ends right after rejected[REJ_EINVAL] resets classes 0..=5 only.
        let base = offset_of!(uapi::Stats, rejected);
        let scope = ResetScope::new(base + 8 * (uapi::REJ_EINVAL + 1));
        r.read(&mut out, Some(scope));
        assert_eq!(
            out[uapi::REJ_EPERM],
            2,
            "read returns the value before the reset"
        );
        r.read(&mut out, None);
        assert_eq!(
            (
                out[uapi::REJ_EPERM],
                out[uapi::REJ_ENOTTY],
                out[uapi::REJ_OTHER]
            ),
            (0, 1, 1)
        );
    }
}
