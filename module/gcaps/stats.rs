// SPDX-License-Identifier: GPL-2.0

//! What `GCAPS_IOC_STATS` reports beyond plain counters: the update-delay histogram (log2
//! buckets in ns, `uapi/linux/gcaps.h`) and the rejected-call classes (an errno to its
//! `GCAPS_REJ_*` index), with the lock-free counters of rejected calls.

use core::mem::{offset_of, size_of};
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::bindings;

use super::uapi::{self, DelayHistogram};

/// The bucket of a delay of `ns`: 0 below `2^10` ns, then one per power of two, the last one
/// open-ended.
pub(crate) fn delay_bucket(ns: u64) -> usize {
    let bits = u64::BITS - ns.leading_zeros(); // floor(log2(ns)) + 1, 0 for ns = 0
    let b = bits.saturating_sub(uapi::DELAY_BUCKET0_SHIFT) as usize;
    b.min(uapi::DELAY_BUCKETS - 1)
}

impl DelayHistogram {
    /// Adds one sample.
    pub(crate) fn record(&mut self, ns: u64) {
        if self.count == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.count += 1;
        self.sum_ns = self.sum_ns.saturating_add(ns);
        if let Some(b) = self.buckets.get_mut(delay_bucket(ns)) {
            *b += 1;
        }
    }
}

/// The `GCAPS_REJ_*` index of a (negative) errno.
pub(crate) fn reject_class(errno: i32) -> usize {
    let e = u32::try_from(-errno).unwrap_or(0);
    match e {
        bindings::EPERM => uapi::REJ_EPERM,
        bindings::ENOENT => uapi::REJ_ENOENT,
        bindings::EINTR => uapi::REJ_EINTR,
        bindings::E2BIG => uapi::REJ_E2BIG,
        bindings::EFAULT => uapi::REJ_EFAULT,
        bindings::EINVAL => uapi::REJ_EINVAL,
        bindings::EMFILE => uapi::REJ_EMFILE,
        bindings::ENOTTY => uapi::REJ_ENOTTY,
        bindings::ENOSPC => uapi::REJ_ENOSPC,
        bindings::EALREADY => uapi::REJ_EALREADY,
        _ => uapi::REJ_OTHER,
    }
}

/// Which counters a `GCAPS_STATS_RESET` resets: exactly those the caller's struct of `size`
/// bytes holds whole (`uapi/linux/gcaps.h`), so a caller never loses counters it cannot see.
#[derive(Clone, Copy)]
pub(crate) struct ResetScope {
    size: usize,
}

impl ResetScope {
    /// The scope of a reset by a caller whose struct has `size` bytes.
    pub(crate) fn new(size: usize) -> Self {
        Self { size }
    }

    /// Whether the field at byte `offset` with `len` bytes lies entirely within the caller's
    /// struct.
    pub(crate) fn covers(self, offset: usize, len: usize) -> bool {
        offset.checked_add(len).is_some_and(|end| end <= self.size)
    }
}

/// Failed calls per class, counted without any lock (a rejected call must not wait for the
/// update lock just to be counted).
pub(crate) struct Rejected([AtomicU64; uapi::REJ_NR]);

impl Rejected {
    pub(crate) const fn new() -> Self {
        Self([const { AtomicU64::new(0) }; uapi::REJ_NR])
    }

    /// Counts a call that failed with `errno` (negative).
    pub(crate) fn count(&self, errno: i32) {
        if let Some(c) = self.0.get(reject_class(errno)) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Copies the counters to `out` (`Stats::rejected`), zeroing those within `reset`'s scope.
    pub(crate) fn read(&self, out: &mut [u64; uapi::REJ_NR], reset: Option<ResetScope>) {
        let base = offset_of!(uapi::Stats, rejected);
        for (i, (o, c)) in out.iter_mut().zip(self.0.iter()).enumerate() {
            let zero =
                reset.is_some_and(|r| r.covers(base + i * size_of::<u64>(), size_of::<u64>()));
            *o = if zero {
                c.swap(0, Ordering::Relaxed)
            } else {
                c.load(Ordering::Relaxed)
            };
        }
    }
}
