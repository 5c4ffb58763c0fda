//! `GCAPS_IOC_STATS`: the module's counters and the update-delay histogram, decoded.
use crate::uapi;

/// Number of buckets of the update-delay histogram (`GCAPS_DELAY_BUCKETS`).
pub const DELAY_BUCKETS: usize = uapi::GCAPS_DELAY_BUCKETS as usize;

/// The errno names of the rejected-call classes, by `GCAPS_REJ_*` index.
const REJECT_NAMES: [(usize, &str); 11] = [
    (uapi::GCAPS_REJ_EPERM as usize, "EPERM"),
    (uapi::GCAPS_REJ_ENOENT as usize, "ENOENT"),
    (uapi::GCAPS_REJ_EINTR as usize, "EINTR"),
    (uapi::GCAPS_REJ_E2BIG as usize, "E2BIG"),
    (uapi::GCAPS_REJ_EFAULT as usize, "EFAULT"),
    (uapi::GCAPS_REJ_EINVAL as usize, "EINVAL"),
    (uapi::GCAPS_REJ_EMFILE as usize, "EMFILE"),
    (uapi::GCAPS_REJ_ENOTTY as usize, "ENOTTY"),
    (uapi::GCAPS_REJ_ENOSPC as usize, "ENOSPC"),
    (uapi::GCAPS_REJ_EALREADY as usize, "EALREADY"),
    (uapi::GCAPS_REJ_OTHER as usize, "other"),
];

/// Number of update kinds (`GCAPS_UPDATE_KINDS`).
pub const UPDATE_KINDS: usize = uapi::GCAPS_UPDATE_KINDS as usize;

/// The kinds of update `GCAPS_IOC_STATS` reports costs for, by `GCAPS_UPDATE_*` index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum UpdateKind {
    /// It had the driver resubmit its runlist (`GCAPS_UPDATE_SUBMIT`).
    Submit,
    /// It did not submit: the fast path, or an update whose decision did not change
    /// (`GCAPS_UPDATE_FAST`).
    Fast,
    /// Reserved for `mechanism=gate`: a begin that preempts the running TSG.
    Preempt,
    /// Reserved for `mechanism=gate`: an end that hands the GPU over without a reload.
    Handover,
}

impl UpdateKind {
    /// Every kind, in `GCAPS_UPDATE_*` order.
    pub const ALL: [UpdateKind; UPDATE_KINDS] = [
        UpdateKind::Submit,
        UpdateKind::Fast,
        UpdateKind::Preempt,
        UpdateKind::Handover,
    ];

    /// Its index in [`Stats::updates`].
    pub fn index(self) -> usize {
        (match self {
            UpdateKind::Submit => uapi::GCAPS_UPDATE_SUBMIT,
            UpdateKind::Fast => uapi::GCAPS_UPDATE_FAST,
            UpdateKind::Preempt => uapi::GCAPS_UPDATE_PREEMPT,
            UpdateKind::Handover => uapi::GCAPS_UPDATE_HANDOVER,
        }) as usize
    }

    /// Its name in upper case, as the header spells it after `GCAPS_UPDATE_`.
    pub fn name(self) -> &'static str {
        match self {
            UpdateKind::Submit => "SUBMIT",
            UpdateKind::Fast => "FAST",
            UpdateKind::Preempt => "PREEMPT",
            UpdateKind::Handover => "HANDOVER",
        }
    }
}

/// The costs of one kind of update (`struct gcaps_update_cost`): wall time from holding the
/// update lock (plus the raise to the ceiling) to its release and the return from the ceiling,
/// and the caller's on-CPU time in that window, with a log2 histogram of each (the buckets of
/// [`DelayHistogram::bounds_ns`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpdateCost {
    /// Updates of this kind.
    pub count: u64,
    pub wall_max_ns: u64,
    pub wall_sum_ns: u64,
    pub cpu_max_ns: u64,
    pub cpu_sum_ns: u64,
    pub wall_buckets: [u64; DELAY_BUCKETS],
    pub cpu_buckets: [u64; DELAY_BUCKETS],
}

impl UpdateCost {
    fn from_uapi(u: &uapi::gcaps_update_cost) -> Self {
        let &uapi::gcaps_update_cost {
            count,
            wall_max_ns,
            wall_sum_ns,
            cpu_max_ns,
            cpu_sum_ns,
            wall_buckets,
            cpu_buckets,
        } = u;
        Self {
            count,
            wall_max_ns,
            wall_sum_ns,
            cpu_max_ns,
            cpu_sum_ns,
            wall_buckets,
            cpu_buckets,
        }
    }

    /// The mean wall time in ns, `None` without samples.
    pub fn wall_mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.wall_sum_ns as f64 / self.count as f64)
    }

    /// The mean on-CPU time in ns, `None` without samples.
    pub fn cpu_mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.cpu_sum_ns as f64 / self.count as f64)
    }
}

/// Counters since the module was loaded or the statistics were last reset.
///
/// With the `serde` feature the plain counters serialise under their field names (the JSON of
/// `gcapsctl stats`); `rejected` and `delay` are skipped, their presentation is the caller's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Stats {
    /// Successful SEG_BEGIN calls.
    pub begins: u64,
    /// Successful SEG_END calls.
    pub ends: u64,
    /// Open segments ended because their client went (close of the file's last reference,
    /// or the exit or kill of the owning process).
    pub ends_by_close: u64,
    /// Runlist resubmits asked of the backend.
    pub submits: u64,
    /// Of which the backend refused or timed out.
    pub submit_errors: u64,
    pub clients_now: u32,
    /// Most clients at once.
    pub clients_max: u32,
    /// Real-time segments that went from running to pending (a higher one began).
    pub preemptions: u64,
    /// Pending segments that became running.
    pub resumes: u64,
    /// Resubmits that stayed pending until the driver's timeout (in `submit_errors`).
    pub submit_timeouts: u64,
    /// Recoveries the driver reported.
    pub recoveries: u64,
    pub tsgs_now: u32,
    /// Most TSGs at once.
    pub tsgs_max: u32,
    /// Failed open/ioctl calls per `GCAPS_REJ_*` class (index); see [`Stats::rejected_by_errno`].
    #[cfg_attr(feature = "serde", serde(skip))]
    pub rejected: [u64; uapi::GCAPS_REJ_NR as usize],
    /// The runlist update delay (epsilon).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub delay: DelayHistogram,
    /// Segments open when `begins`/`ends`/`ends_by_close` were last reset (0 since load).
    pub open_at_reset: u64,
    /// Segments open now. Always `open_at_reset + begins == ends + ends_by_close +
    /// segments_open` (see [`Stats::balanced`]).
    pub segments_open: u64,
    /// Update costs per kind, by [`UpdateKind::index`] (see [`Stats::update`]).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub updates: [UpdateCost; UPDATE_KINDS],
}

/// The update-delay histogram: log2 buckets in nanoseconds (see [`DelayHistogram::bounds_ns`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DelayHistogram {
    /// Delays sampled.
    pub count: u64,
    pub sum_ns: u64,
    /// 0 if nothing was sampled.
    pub min_ns: u64,
    pub max_ns: u64,
    pub buckets: [u64; DELAY_BUCKETS],
}

impl Stats {
    /// Decodes the reply. The pattern names every field of the header's struct (no `..`), so a
    /// field added to `uapi/linux/gcaps.h` fails this build until it is decoded here.
    pub(crate) fn from_uapi(s: &uapi::gcaps_stats) -> Self {
        let &uapi::gcaps_stats {
            size: _,
            flags: _,
            begins,
            ends,
            ends_by_close,
            submits,
            submit_errors,
            clients_now,
            clients_max,
            preemptions,
            resumes,
            submit_timeouts,
            recoveries,
            tsgs_now,
            tsgs_max,
            rejected,
            delay_count,
            delay_sum_ns,
            delay_min_ns,
            delay_max_ns,
            delay_buckets,
            open_at_reset,
            segments_open,
            updates,
        } = s;
        Self {
            begins,
            ends,
            ends_by_close,
            submits,
            submit_errors,
            clients_now,
            clients_max,
            preemptions,
            resumes,
            submit_timeouts,
            recoveries,
            tsgs_now,
            tsgs_max,
            rejected,
            delay: DelayHistogram {
                count: delay_count,
                sum_ns: delay_sum_ns,
                min_ns: delay_min_ns,
                max_ns: delay_max_ns,
                buckets: delay_buckets,
            },
            open_at_reset,
            segments_open,
            updates: updates.each_ref().map(UpdateCost::from_uapi),
        }
    }

    /// The costs of updates of `kind`.
    pub fn update(&self, kind: UpdateKind) -> &UpdateCost {
        &self.updates[kind.index()]
    }

    /// The module's segment balance: every segment begun since the last reset, and every one
    /// open at it, has ended or is open now.
    pub fn balanced(&self) -> bool {
        self.open_at_reset.checked_add(self.begins)
            == self
                .ends
                .checked_add(self.ends_by_close)
                .and_then(|n| n.checked_add(self.segments_open))
    }

    /// Rejected calls per errno name (`EPERM`, ..., `other`), in `GCAPS_REJ_*` order; classes
    /// this library does not name (a newer module) appear as `class11`, ... when non-zero.
    pub fn rejected_by_errno(&self) -> Vec<(String, u64)> {
        self.rejected
            .iter()
            .enumerate()
            .filter_map(|(i, &n)| match REJECT_NAMES.iter().find(|(j, _)| *j == i) {
                Some((_, name)) => Some((name.to_string(), n)),
                None if n != 0 => Some((format!("class{i}"), n)),
                None => None,
            })
            .collect()
    }

    /// All rejected calls.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.iter().fold(0, |a, &n| a.saturating_add(n))
    }
}

impl DelayHistogram {
    /// Bounds of bucket `b` in ns: `lo <= delay < hi`, `hi` = `None` for the last (open) one.
    /// Bucket 0 is below 2^GCAPS_DELAY_BUCKET0_SHIFT ns; bucket b (1..=30) is
    /// 2^(shift-1+b) <= delay < 2^(shift+b); the last is delay >= 2^(shift+30).
    pub fn bounds_ns(b: usize) -> (u64, Option<u64>) {
        let shift = uapi::GCAPS_DELAY_BUCKET0_SHIFT as usize;
        match b {
            0 => (0, Some(1 << shift)),
            b if b + 1 < DELAY_BUCKETS => (1 << (shift - 1 + b), Some(1 << (shift + b))),
            _ => (1 << (shift + DELAY_BUCKETS - 2), None),
        }
    }

    /// The bucket a delay of `ns` falls in (the module's rule; for tests and tools).
    pub fn bucket_of(ns: u64) -> usize {
        (0..DELAY_BUCKETS)
            .find(|&b| Self::bounds_ns(b).1.is_none_or(|hi| ns < hi))
            .unwrap_or(DELAY_BUCKETS - 1)
    }

    /// The mean delay in ns, `None` if nothing was sampled.
    pub fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64)
    }

    /// The indices of the first and last non-empty buckets, `None` if all are empty.
    pub fn used_range(&self) -> Option<(usize, usize)> {
        let first = self.buckets.iter().position(|&n| n > 0)?;
        let last = self.buckets.iter().rposition(|&n| n > 0)?;
        Some((first, last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_bounds_follow_the_header() {
        assert_eq!(DelayHistogram::bounds_ns(0), (0, Some(1024)));
        assert_eq!(DelayHistogram::bounds_ns(1), (1024, Some(2048)));
        assert_eq!(DelayHistogram::bounds_ns(2), (2048, Some(4096)));
        assert_eq!(DelayHistogram::bounds_ns(30), (1 << 39, Some(1 << 40)));
        assert_eq!(DelayHistogram::bounds_ns(31), (1 << 40, None));
        // contiguous: each bucket starts where the previous one ends
        for b in 1..DELAY_BUCKETS {
            assert_eq!(
                Some(DelayHistogram::bounds_ns(b).0),
                DelayHistogram::bounds_ns(b - 1).1
            );
        }
        for (ns, b) in [
            (0, 0),
            (1023, 0),
            (1024, 1),
            (2047, 1),
            (2048, 2),
            (100_000, 7),
            ((1 << 40) - 1, 30),
            (1 << 40, 31),
            (u64::MAX, 31),
        ] {
            assert_eq!(DelayHistogram::bucket_of(ns), b, "{ns} ns");
        }
    }

    #[test]
    fn decodes_every_field() {
        let mut u = uapi::gcaps_stats {
            begins: 10,
            ends: 7,
            ends_by_close: 3,
            submits: 12,
            submit_errors: 1,
            clients_now: 2,
            clients_max: 5,
            preemptions: 4,
            resumes: 4,
            submit_timeouts: 1,
            recoveries: 2,
            tsgs_now: 3,
            tsgs_max: 6,
            delay_count: 4,
            delay_sum_ns: 10_000,
            delay_min_ns: 1_000,
            delay_max_ns: 4_000,
            open_at_reset: 2,
            segments_open: 2,
            ..Default::default()
        };
        u.rejected[uapi::GCAPS_REJ_EPERM as usize] = 2;
        u.rejected[uapi::GCAPS_REJ_OTHER as usize] = 1;
        u.rejected[12] = 9;
        u.delay_buckets[0] = 1;
        u.delay_buckets[2] = 3;
        let k = uapi::GCAPS_UPDATE_FAST as usize;
        u.updates[k].count = 2;
        u.updates[k].wall_max_ns = 7;
        u.updates[k].wall_sum_ns = 10;
        u.updates[k].cpu_max_ns = 5;
        u.updates[k].cpu_sum_ns = 6;
        u.updates[k].wall_buckets[1] = 2;
        u.updates[k].cpu_buckets[3] = 2;
        let s = Stats::from_uapi(&u);
        let f = s.update(UpdateKind::Fast);
        assert_eq!(
            (
                f.count,
                f.wall_max_ns,
                f.wall_sum_ns,
                f.cpu_max_ns,
                f.cpu_sum_ns
            ),
            (2, 7, 10, 5, 6)
        );
        assert_eq!((f.wall_buckets[1], f.cpu_buckets[3]), (2, 2));
        assert_eq!((f.wall_mean_ns(), f.cpu_mean_ns()), (Some(5.0), Some(3.0)));
        assert_eq!(s.update(UpdateKind::Submit), &UpdateCost::default());
        assert_eq!(UpdateCost::default().wall_mean_ns(), None);
        for (i, k) in UpdateKind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
        assert_eq!(
            (
                s.begins,
                s.ends,
                s.ends_by_close,
                s.submits,
                s.submit_errors
            ),
            (10, 7, 3, 12, 1)
        );
        assert_eq!(
            (s.clients_now, s.clients_max, s.tsgs_now, s.tsgs_max),
            (2, 5, 3, 6)
        );
        assert_eq!(
            (s.preemptions, s.resumes, s.submit_timeouts, s.recoveries),
            (4, 4, 1, 2)
        );
        assert_eq!((s.open_at_reset, s.segments_open), (2, 2));
        assert!(s.balanced(), "2 + 10 == 7 + 3 + 2");
        assert!(!Stats {
            segments_open: 3,
            ..s.clone()
        }
        .balanced());
        assert!(!Stats {
            open_at_reset: u64::MAX,
            ..s.clone()
        }
        .balanced());
        let r = s.rejected_by_errno();
        assert_eq!(r.len(), 12, "11 named classes and the unknown non-zero one");
        assert_eq!(r[0], ("EPERM".to_string(), 2));
        assert_eq!(r[9], ("EALREADY".to_string(), 0));
        assert_eq!(r[10], ("other".to_string(), 1));
        assert_eq!(r[11], ("class12".to_string(), 9));
        assert_eq!(s.rejected_total(), 12);
        assert_eq!(s.delay.mean_ns(), Some(2500.0));
        assert_eq!(s.delay.used_range(), Some((0, 2)));
        assert_eq!(DelayHistogram::default().mean_ns(), None);
        assert_eq!(DelayHistogram::default().used_range(), None);
    }
}
