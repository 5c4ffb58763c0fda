// SPDX-License-Identifier: GPL-2.0

//! What `GCAPS_IOC_STATS` reports beyond plain counters: the update-delay histogram (log2
//! buckets in ns, `uapi/linux/gcaps.h`), the reset scope of a `GCAPS_STATS_RESET`, the
//! lock-free counters of rejected calls (per `GCAPS_REJ_*` class of their [`Errno`]) and the
//! lock-free update costs per kind ([`UpdateCosts`], `GCAPS_UPDATE_*`).

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
            *o = take(c, zero);
            off = off.saturating_add(size_of::<u64>());
        }
    }
}

/// What the driver did to apply a changed decision (the backend's answer, or what a failed
/// attempt may have cost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Mechanism reload: rebuilt and submitted the runlist and waited for the submit.
    Reload,
    /// Mechanism gate: changed the channels' enable state and preempted a TSG that lost the
    /// GPU while it ran, waiting for the preempt.
    Preempt,
    /// Mechanism gate: changed the enable state only (no submit, no preempt, no wait).
    Handover,
}

impl Applied {
    /// How costly the application is: preempt, then reload, then hand-over.
    const fn rank(self) -> u8 {
        match self {
            Self::Handover => 0,
            Self::Reload => 1,
            Self::Preempt => 2,
        }
    }

    /// What the host's application returned: the `GCAPS_UPDATE_*` kind of what the driver
    /// did (`GCAPS_UPDATE_PREEMPT`, `GCAPS_UPDATE_HANDOVER`; any other kind is a reload's
    /// `GCAPS_UPDATE_SUBMIT`), or a negative errno.
    pub fn from_kind(ret: i32) -> Result<Self, Errno> {
        if ret < 0 {
            return Err(ret.checked_neg().map_or(Errno::EINVAL, Errno));
        }
        Ok(match usize::try_from(ret) {
            Ok(uapi::UPDATE_PREEMPT) => Self::Preempt,
            Ok(uapi::UPDATE_HANDOVER) => Self::Handover,
            _ => Self::Reload,
        })
    }

    /// The costlier of two applications (an update that applied twice counts as it).
    pub fn costlier(self, other: Self) -> Self {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// The kind of an update, by what it did (`GCAPS_UPDATE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateKind {
    /// It had the driver resubmit its runlist (`GCAPS_UPDATE_SUBMIT`).
    Submit,
    /// It applied nothing (`GCAPS_UPDATE_FAST`).
    Fast,
    /// It had the driver gate and preempt (`GCAPS_UPDATE_PREEMPT`).
    Preempt,
    /// It had the driver gate only (`GCAPS_UPDATE_HANDOVER`).
    Handover,
}

impl UpdateKind {
    /// The kind of an update whose costliest application was `applied` (`None`: none).
    pub const fn of(applied: Option<Applied>) -> Self {
        match applied {
            None => Self::Fast,
            Some(Applied::Reload) => Self::Submit,
            Some(Applied::Preempt) => Self::Preempt,
            Some(Applied::Handover) => Self::Handover,
        }
    }

    /// Its index in `Stats::updates`.
    pub const fn index(self) -> usize {
        match self {
            Self::Submit => uapi::UPDATE_SUBMIT,
            Self::Fast => uapi::UPDATE_FAST,
            Self::Preempt => uapi::UPDATE_PREEMPT,
            Self::Handover => uapi::UPDATE_HANDOVER,
        }
    }
}

/// The costs of one kind of update, as atomics (`struct gcaps_update_cost`).
struct CostCell {
    count: AtomicU64,
    wall_max_ns: AtomicU64,
    wall_sum_ns: AtomicU64,
    cpu_max_ns: AtomicU64,
    cpu_sum_ns: AtomicU64,
    wall_buckets: [AtomicU64; uapi::DELAY_BUCKETS],
    cpu_buckets: [AtomicU64; uapi::DELAY_BUCKETS],
}

impl CostCell {
    const fn new() -> Self {
        Self {
            count: AtomicU64::new(0),
            wall_max_ns: AtomicU64::new(0),
            wall_sum_ns: AtomicU64::new(0),
            cpu_max_ns: AtomicU64::new(0),
            cpu_sum_ns: AtomicU64::new(0),
            wall_buckets: [const { AtomicU64::new(0) }; uapi::DELAY_BUCKETS],
            cpu_buckets: [const { AtomicU64::new(0) }; uapi::DELAY_BUCKETS],
        }
    }
}

/// Reads `a`, or takes its value and leaves 0 if `zero`.
fn take(a: &AtomicU64, zero: bool) -> u64 {
    if zero {
        a.swap(0, Ordering::Relaxed)
    } else {
        a.load(Ordering::Relaxed)
    }
}

/// Update costs per kind (`GCAPS_UPDATE_*`): count, wall and on-CPU maxima and sums, and a
/// log2 histogram of each (the update-delay buckets, [`delay_bucket`]). Recorded without any
/// lock, after the update lock's release (the window ends with the release and the return
/// from the ceiling), so a record may run beside another one or a read: every field is one
/// atomic, and the count is added last and read first, so a read's sums, maxima and buckets
/// hold at least the updates its count says. A reset takes each field of the kinds it covers.
/// All-zero bytes are [`UpdateCosts::new`] (integer atomics only).
pub struct UpdateCosts([CostCell; uapi::UPDATE_KINDS]);

impl Default for UpdateCosts {
    fn default() -> Self {
        Self::new()
    }
}

impl UpdateCosts {
    /// Nothing recorded.
    pub const fn new() -> Self {
        Self([const { CostCell::new() }; uapi::UPDATE_KINDS])
    }

    /// Records one update of `kind` that took `wall_ns` of wall time and `cpu_ns` of its
    /// caller's CPU time. The on-CPU time is counted as at most the wall time (what a reading
    /// of the scheduler's runtime adds beyond it is time spent before the window).
    pub fn record(&self, kind: UpdateKind, wall_ns: u64, cpu_ns: u64) {
        let Some(c) = self.0.get(kind.index()) else {
            return;
        };
        let cpu_ns = cpu_ns.min(wall_ns);
        c.wall_max_ns.fetch_max(wall_ns, Ordering::Relaxed);
        c.wall_sum_ns.fetch_add(wall_ns, Ordering::Relaxed);
        c.cpu_max_ns.fetch_max(cpu_ns, Ordering::Relaxed);
        c.cpu_sum_ns.fetch_add(cpu_ns, Ordering::Relaxed);
        if let Some(b) = c.wall_buckets.get(delay_bucket(wall_ns)) {
            b.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(b) = c.cpu_buckets.get(delay_bucket(cpu_ns)) {
            b.fetch_add(1, Ordering::Relaxed);
        }
        c.count.fetch_add(1, Ordering::Release);
    }

    /// Copies the costs to `out` (`Stats::updates`), resetting each kind whose whole record
    /// lies within `reset`'s scope (a kind is one unit, like the delay histogram).
    pub fn read(
        &self,
        out: &mut [uapi::UpdateCost; uapi::UPDATE_KINDS],
        reset: Option<ResetScope>,
    ) {
        let mut off = offset_of!(uapi::Stats, updates);
        for (o, c) in out.iter_mut().zip(self.0.iter()) {
            let zero = reset.is_some_and(|r| r.covers(off, size_of::<uapi::UpdateCost>()));
            let count = if zero {
                c.count.swap(0, Ordering::Acquire)
            } else {
                c.count.load(Ordering::Acquire)
            };
            *o = uapi::UpdateCost {
                count,
                wall_max_ns: take(&c.wall_max_ns, zero),
                wall_sum_ns: take(&c.wall_sum_ns, zero),
                cpu_max_ns: take(&c.cpu_max_ns, zero),
                cpu_sum_ns: take(&c.cpu_sum_ns, zero),
                wall_buckets: [0; uapi::DELAY_BUCKETS],
                cpu_buckets: [0; uapi::DELAY_BUCKETS],
            };
            for (d, a) in o.wall_buckets.iter_mut().zip(c.wall_buckets.iter()) {
                *d = take(a, zero);
            }
            for (d, a) in o.cpu_buckets.iter_mut().zip(c.cpu_buckets.iter()) {
                *d = take(a, zero);
            }
            off = off.saturating_add(size_of::<uapi::UpdateCost>());
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
