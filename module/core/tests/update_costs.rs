// SPDX-License-Identifier: GPL-2.0

//! The update costs per kind of `GCAPS_IOC_STATS` VER3 (`stats::UpdateCosts`): what one
//! record adds to its kind, the on-CPU time counted as at most the wall time, the reserved
//! kinds staying zero, the reset of a kind only when its whole record fits in the caller's
//! struct, and `Core::submits`, by which the device tells a submitting update from a fast one.

mod common;

use common::{opener, TestHost};
use gcaps_core::errno::Errno;
use gcaps_core::ioctl::begin_request;
use gcaps_core::stats::{delay_bucket, Applied, ResetScope, UpdateCosts, UpdateKind};
use gcaps_core::uapi::SegBegin;
use gcaps_core::uapi::{self, UpdateCost};
use gcaps_core::{Call, Core, Exits, Mechanism};
use std::mem::{offset_of, size_of};

fn begin_req(prio: i32) -> gcaps_core::ioctl::BeginRequest {
    let a = SegBegin {
        size: 24,
        ..Default::default()
    };
    begin_request(&a, common::fifo(prio), |_| true).unwrap()
}

fn read(c: &UpdateCosts, reset: Option<ResetScope>) -> [UpdateCost; uapi::UPDATE_KINDS] {
    let mut out = [UpdateCost::default(); uapi::UPDATE_KINDS];
    c.read(&mut out, reset);
    out
}

/// Two submitting updates and one fast one.
fn sample() -> UpdateCosts {
    let c = UpdateCosts::new();
    c.record(UpdateKind::Submit, 300_000, 20_000);
    c.record(UpdateKind::Submit, 100_000, 60_000);
    c.record(UpdateKind::Fast, 5_000, 5_000);
    c
}

#[test]
fn kinds_are_the_headers() {
    assert_eq!(UpdateKind::Submit.index(), uapi::UPDATE_SUBMIT);
    assert_eq!(UpdateKind::Fast.index(), uapi::UPDATE_FAST);
    assert_eq!(UpdateKind::Preempt.index(), uapi::UPDATE_PREEMPT);
    assert_eq!(UpdateKind::Handover.index(), uapi::UPDATE_HANDOVER);
    assert_eq!(uapi::UPDATE_KINDS, 4);
    assert_eq!(
        offset_of!(uapi::Stats, updates),
        uapi::header::GCAPS_STATS_SIZE_VER2 as usize
    );
    assert_eq!(
        size_of::<uapi::Stats>(),
        uapi::header::GCAPS_STATS_SIZE_VER3 as usize
    );
}

#[test]
fn a_record_adds_to_its_kind_only() {
    let u = read(&sample(), None);
    let s = u[uapi::UPDATE_SUBMIT];
    assert_eq!(s.count, 2);
    assert_eq!((s.wall_max_ns, s.wall_sum_ns), (300_000, 400_000));
    assert_eq!((s.cpu_max_ns, s.cpu_sum_ns), (60_000, 80_000));
    // Buckets: the update-delay rule, one owner.
    assert_eq!(s.wall_buckets[delay_bucket(300_000)], 1);
    assert_eq!(s.wall_buckets[delay_bucket(100_000)], 1);
    assert_eq!(s.wall_buckets.iter().sum::<u64>(), 2);
    assert_eq!(s.cpu_buckets[delay_bucket(20_000)], 1);
    assert_eq!(s.cpu_buckets[delay_bucket(60_000)], 1);
    assert_eq!(s.cpu_buckets.iter().sum::<u64>(), 2);
    let f = u[uapi::UPDATE_FAST];
    assert_eq!(
        (
            f.count,
            f.wall_max_ns,
            f.wall_sum_ns,
            f.cpu_max_ns,
            f.cpu_sum_ns
        ),
        (1, 5_000, 5_000, 5_000, 5_000)
    );
    assert_eq!(f.wall_buckets[delay_bucket(5_000)], 1);
    assert_eq!(f.cpu_buckets[delay_bucket(5_000)], 1);
    // mechanism=gate's kinds are reserved: nothing records them.
    assert_eq!(u[uapi::UPDATE_PREEMPT], UpdateCost::default());
    assert_eq!(u[uapi::UPDATE_HANDOVER], UpdateCost::default());
    // Reading does not consume.
    assert_eq!(read(&sample(), None), u);
}

#[test]
fn on_cpu_time_is_at_most_the_wall_time() {
    let c = UpdateCosts::new();
    // A runtime reading that grew by more than the window (the lock acquisition before it).
    c.record(UpdateKind::Fast, 2_000, 2_500);
    c.record(UpdateKind::Submit, 0, 7);
    let u = read(&c, None);
    let f = u[uapi::UPDATE_FAST];
    assert_eq!((f.cpu_max_ns, f.cpu_sum_ns), (2_000, 2_000));
    assert_eq!(f.cpu_buckets[delay_bucket(2_000)], 1);
    assert_ne!(delay_bucket(2_000), delay_bucket(2_500));
    assert_eq!(
        f.cpu_buckets[delay_bucket(2_500)],
        0,
        "the bucket of the time counted, not of the reading"
    );
    let s = u[uapi::UPDATE_SUBMIT];
    assert_eq!((s.count, s.wall_max_ns, s.cpu_max_ns), (1, 0, 0));
    assert_eq!((s.wall_buckets[0], s.cpu_buckets[0]), (1, 1));
}

#[test]
fn saturating_and_open_ended() {
    let c = UpdateCosts::new();
    c.record(UpdateKind::Submit, u64::MAX, u64::MAX);
    let s = read(&c, None)[uapi::UPDATE_SUBMIT];
    assert_eq!((s.wall_max_ns, s.cpu_max_ns), (u64::MAX, u64::MAX));
    assert_eq!(s.wall_buckets[uapi::DELAY_BUCKETS - 1], 1);
    assert_eq!(s.cpu_buckets[uapi::DELAY_BUCKETS - 1], 1);
}

/// The caller's struct size that ends after the first `n` kinds.
fn size_with_kinds(n: usize) -> usize {
    offset_of!(uapi::Stats, updates) + n * size_of::<UpdateCost>()
}

#[test]
fn a_kind_resets_only_if_its_whole_record_fits() {
    // A VER2 caller cannot see the kinds: nothing of them is reset.
    let c = sample();
    let before = read(&c, None);
    assert_eq!(read(&c, Some(ResetScope::new(size_with_kinds(0)))), before);
    assert_eq!(read(&c, None), before);
    // One byte short of SUBMIT's record: still nothing.
    let u = read(&c, Some(ResetScope::new(size_with_kinds(1) - 1)));
    assert_eq!(u, before, "the reset returns the figures before it");
    assert_eq!(read(&c, None), before);
    // SUBMIT whole: SUBMIT only (the reply holds the figures before the reset).
    let u = read(&c, Some(ResetScope::new(size_with_kinds(1))));
    assert_eq!(u, before);
    let after = read(&c, None);
    assert_eq!(after[uapi::UPDATE_SUBMIT], UpdateCost::default());
    assert_eq!(after[uapi::UPDATE_FAST], before[uapi::UPDATE_FAST]);
    // SUBMIT and half of FAST: FAST stays.
    let u = read(
        &c,
        Some(ResetScope::new(
            size_with_kinds(1) + size_of::<UpdateCost>() / 2,
        )),
    );
    assert_eq!(u[uapi::UPDATE_FAST], before[uapi::UPDATE_FAST]);
    assert_eq!(read(&c, None)[uapi::UPDATE_FAST], before[uapi::UPDATE_FAST]);
    // The whole VER3 struct: everything.
    let c = sample();
    read(
        &c,
        Some(ResetScope::new(
            uapi::header::GCAPS_STATS_SIZE_VER3 as usize,
        )),
    );
    assert_eq!(read(&c, None), [UpdateCost::default(); uapi::UPDATE_KINDS]);
    // Recording goes on after a reset.
    c.record(UpdateKind::Fast, 9, 9);
    assert_eq!(read(&c, None)[uapi::UPDATE_FAST].count, 1);
}

#[test]
fn concurrent_records_all_count() {
    let c = UpdateCosts::new();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let c = &c;
            s.spawn(move || {
                for i in 0..1000u64 {
                    c.record(
                        [UpdateKind::Submit, UpdateKind::Fast][(i % 2) as usize],
                        1000 + t,
                        10 + t,
                    );
                }
            });
        }
    });
    let u = read(&c, None);
    for k in [uapi::UPDATE_SUBMIT, uapi::UPDATE_FAST] {
        assert_eq!(u[k].count, 2000);
        assert_eq!((u[k].wall_max_ns, u[k].cpu_max_ns), (1003, 13));
        assert_eq!(u[k].wall_sum_ns, 500 * (1000 + 1001 + 1002 + 1003));
        assert_eq!(u[k].wall_buckets.iter().sum::<u64>(), 2000);
    }
}

#[test]
fn take_applied_tells_what_an_update_had_the_driver_do() {
    let mut c = Core::new();
    let mut h = TestHost::new(64);
    c.backend_bound();
    let rt = Call {
        entry_ns: 0,
        rt: true,
    };
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let b = c.open(&mut h, &opener(2, 0, 5), 8).unwrap();
    let d = c.open(&mut h, &opener(3, 0, 20), 8).unwrap();
    // Each process has a TSG (opener's start is tgid * 10), so each winner changes the set.
    for t in 1..=3 {
        h.tsg(t, t as i32, u64::from(t) * 10, 1);
    }
    c.apply_events(&mut h, &Exits::new());
    assert_eq!(c.take_applied(), None);
    // a's begin changes the decision: one reload.
    c.seg_begin(&mut h, a, begin_req(10), rt).unwrap();
    assert_eq!(c.take_applied(), Some(Applied::Reload));
    assert_eq!(c.take_applied(), None, "taken once");
    // b's lower begin stays pending: the decision is kept, nothing applied.
    c.seg_begin(&mut h, b, begin_req(5), rt).unwrap();
    assert_eq!(c.take_applied(), None);
    assert_eq!(h.resubmits, 1);
    // Under gate the driver's answer is the kind; two applications count as the costlier.
    h.applies_as = Applied::Preempt;
    c.seg_begin(&mut h, d, begin_req(20), rt).unwrap();
    h.applies_as = Applied::Handover;
    c.seg_end(&mut h, d, rt).unwrap();
    assert_eq!(c.take_applied(), Some(Applied::Preempt));
    c.seg_end(&mut h, a, rt).unwrap();
    assert_eq!(c.take_applied(), Some(Applied::Handover));
    assert_eq!(
        UpdateKind::of(Some(Applied::Handover)),
        UpdateKind::Handover
    );
    assert_eq!(UpdateKind::of(Some(Applied::Preempt)), UpdateKind::Preempt);
    assert_eq!(UpdateKind::of(Some(Applied::Reload)), UpdateKind::Submit);
    assert_eq!(UpdateKind::of(None), UpdateKind::Fast);
    // The host's report of an application: a kind, or a negative errno.
    let k = |v: usize| i32::try_from(v).unwrap();
    assert_eq!(
        Applied::from_kind(k(uapi::UPDATE_SUBMIT)),
        Ok(Applied::Reload)
    );
    assert_eq!(
        Applied::from_kind(k(uapi::UPDATE_PREEMPT)),
        Ok(Applied::Preempt)
    );
    assert_eq!(
        Applied::from_kind(k(uapi::UPDATE_HANDOVER)),
        Ok(Applied::Handover)
    );
    assert_eq!(Applied::from_kind(-110), Err(Errno::ETIMEDOUT));
    assert_eq!(Applied::from_kind(i32::MIN), Err(Errno::EINVAL));
}

#[test]
fn a_failed_application_counts_as_what_it_may_have_cost() {
    let mut c = Core::new();
    let mut h = TestHost::new(64);
    c.configure(99, 98, Mechanism::Gate);
    c.backend_bound();
    let rt = Call {
        entry_ns: 0,
        rt: true,
    };
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    // A preempt that timed out (the driver recovered): a preempt's cost.
    h.fail_resubmit = Some(Errno::ETIMEDOUT);
    c.seg_begin(&mut h, a, begin_req(10), rt).unwrap();
    assert_eq!(c.take_applied(), Some(Applied::Preempt));
    // Nothing written (e.g. powered off): a hand-over's.
    h.fail_resubmit = Some(Errno::ENODEV);
    c.seg_end(&mut h, a, rt).unwrap();
    assert_eq!(c.take_applied(), Some(Applied::Handover));
    // Under reload any failed attempt is a submit's.
    c.configure(99, 98, Mechanism::Reload);
    h.fail_resubmit = Some(Errno::ETIMEDOUT);
    c.seg_begin(&mut h, a, begin_req(10), rt).unwrap();
    assert_eq!(c.take_applied(), Some(Applied::Reload));
}
