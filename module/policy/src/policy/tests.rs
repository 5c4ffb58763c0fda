//! Unit tests for the decision rules, the error contract and the change contract.

extern crate std;

use super::*;
use std::boxed::Box;
use std::vec::Vec;

/// 128 TSG ids (two words, so ids above 64 are exercised), 8 clients.
type P = Policy<2, 8>;

const RT: fn(u8) -> SchedClass = SchedClass::RealTime;
const BE: SchedClass = SchedClass::BestEffort;
const INH: GpuPriority = GpuPriority::Inherit;

fn reg(p: &mut P, key: ProcessKey, class: SchedClass) -> ClientId {
    let (id, out) = p.register(key, class).unwrap();
    assert!(!out.changed, "register never changes the eligible set");
    id
}

/// The class a client registered with (or began its last segment with): what the
/// kernel would read from an unchanged task at the next begin.
fn cls<const W: usize, const C: usize>(p: &Policy<W, C>, id: ClientId) -> SchedClass {
    p.client_info(id).map(|i| i.class).unwrap_or(BE)
}

/// The segment of a caller of class `class` asking for `gpu`: the permission rule is not
/// the policy's (a best-effort caller with an explicit GPU priority has no `Segment`), so
/// these tests never ask for one.
fn seg(class: SchedClass, gpu: GpuPriority) -> Segment {
    match (class, gpu) {
        (SchedClass::BestEffort, GpuPriority::Inherit) => Segment::BestEffort,
        (SchedClass::BestEffort, GpuPriority::Explicit(_)) => {
            panic!("a best-effort caller has no explicit GPU priority")
        }
        (SchedClass::RealTime(cpu), gpu) => Segment::RealTime { cpu, gpu },
    }
}

fn set(ids: &[u32]) -> TsgSet<2> {
    let mut s = TsgSet::EMPTY;
    for &i in ids {
        assert!(s.insert(i));
    }
    s
}

fn elig(p: &P) -> Vec<u32> {
    p.eligible().iter().collect()
}

/// Asserts that an event failed with `err` and left the state unchanged.
fn rejects(p: &mut P, err: Error, f: impl FnOnce(&mut P) -> Result<Outcome, Error>) {
    let before = p.clone();
    assert_eq!(f(p), Err(err));
    assert_eq!(*p, before, "a rejected event must not change the state");
}

#[test]
fn new_is_empty_and_reset_restores_it() {
    let mut p = P::new();
    assert!(p.eligible().is_empty());
    assert!(!p.rt_active());
    assert_eq!(p.generation(), 0);
    let a = reg(&mut p, 1, RT(10));
    p.tsg_create(3, 1).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    p.reset();
    assert_eq!(p, P::new());
    assert_eq!(P::default(), P::new());
}

#[test]
fn no_rt_segment_means_every_tsg_is_eligible() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(50));
    let b = reg(&mut p, 2, BE);
    p.tsg_create(0, 1).unwrap();
    p.tsg_create(1, 2).unwrap();
    p.tsg_create(2, 99).unwrap(); // a process that never uses gcaps
    p.tsg_create(100, 98).unwrap();
    assert_eq!(elig(&p), [0, 1, 2, 100]);
    // A best-effort segment changes nothing.
    let out = p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    assert!(!out.changed);
    assert_eq!(p.client_status(b), Ok(ClientStatus::Running));
    assert_eq!(p.client_status(a), Ok(ClientStatus::Idle));
    assert_eq!(elig(&p), [0, 1, 2, 100]);
}

#[test]
fn rt_segment_gets_the_gpu_exclusively_plus_always_eligible() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(50));
    let b = reg(&mut p, 2, BE);
    p.tsg_create(0, 1).unwrap();
    p.tsg_create(65, 1).unwrap(); // second word
    p.tsg_create(1, 2).unwrap();
    p.tsg_create(2, 99).unwrap();
    p.tsg_create(70, 77).unwrap(); // compositor
    p.set_always_eligible(70, true).unwrap();
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    let out = p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert!(out.changed);
    assert_eq!(elig(&p), [0, 65, 70]);
    assert_eq!(p.running_rt(), Some(a));
    assert_eq!(p.client_status(b), Ok(ClientStatus::Pending));
    assert_eq!(p.pending().collect::<Vec<_>>(), [b]);
    let out = p.seg_end(a).unwrap();
    assert!(out.changed);
    assert_eq!(elig(&p), [0, 1, 2, 65, 70]);
    assert_eq!(p.client_status(b), Ok(ClientStatus::Running));
}

#[test]
fn higher_priority_preempts_and_lower_resumes() {
    let mut p = P::new();
    let lo = reg(&mut p, 1, RT(10));
    let hi = reg(&mut p, 2, RT(90));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(lo, seg(cls(&p, lo), INH)).unwrap();
    assert_eq!(elig(&p), [1]);
    assert!(p.seg_begin(hi, seg(cls(&p, hi), INH)).unwrap().changed);
    assert_eq!(elig(&p), [2]);
    assert_eq!(p.client_status(lo), Ok(ClientStatus::Pending));
    assert!(p.seg_end(hi).unwrap().changed);
    assert_eq!(elig(&p), [1]);
    assert_eq!(p.client_status(lo), Ok(ClientStatus::Running));
}

#[test]
fn lower_priority_request_is_pending_without_change() {
    let mut p = P::new();
    let lo = reg(&mut p, 1, RT(10));
    let hi = reg(&mut p, 2, RT(90));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(hi, seg(cls(&p, hi), INH)).unwrap();
    let out = p.seg_begin(lo, seg(cls(&p, lo), INH)).unwrap();
    assert!(!out.changed);
    assert_eq!(p.client_status(lo), Ok(ClientStatus::Pending));
    assert_eq!(elig(&p), [2]);
}

#[test]
fn equal_priorities_are_first_come_first_served_without_interleaving() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(50));
    let b = reg(&mut p, 2, RT(50));
    let c = reg(&mut p, 3, RT(50));
    for (t, k) in [(1, 1), (2, 2), (3, 3)] {
        p.tsg_create(t, k).unwrap();
    }
    // c registered last but begins first.
    p.seg_begin(c, seg(cls(&p, c), INH)).unwrap();
    assert!(!p.seg_begin(a, seg(cls(&p, a), INH)).unwrap().changed);
    assert!(!p.seg_begin(b, seg(cls(&p, b), INH)).unwrap().changed);
    assert_eq!(elig(&p), [3]);
    p.seg_end(c).unwrap();
    assert_eq!(elig(&p), [1]);
    // c comes back: it queues behind b.
    p.seg_begin(c, seg(cls(&p, c), INH)).unwrap();
    p.seg_end(a).unwrap();
    assert_eq!(elig(&p), [2]);
    p.seg_end(b).unwrap();
    assert_eq!(elig(&p), [3]);
}

#[test]
fn gpu_priority_overrides_cpu_priority() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(90));
    let b = reg(&mut p, 2, RT(10));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(a, seg(cls(&p, a), GpuPriority::Explicit(20)))
        .unwrap();
    assert_eq!(elig(&p), [1]);
    // b inherits 10 < 20: pending.
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    assert_eq!(elig(&p), [1]);
    p.seg_end(b).unwrap();
    // b asks for 30 > 20: preempts a although its CPU priority is lower.
    p.seg_begin(b, seg(cls(&p, b), GpuPriority::Explicit(30)))
        .unwrap();
    assert_eq!(elig(&p), [2]);
    let info = p.client_info(b).unwrap();
    assert_eq!(info.segment, Some(GpuPriority::Explicit(30)));
    assert_eq!(info.effective_priority, Some(30));
    assert_eq!(info.class, RT(10));
    assert_eq!(info.key, 2);
    assert_eq!(info.status, ClientStatus::Running);
    assert_eq!(p.client_info(a).unwrap().status, ClientStatus::Pending);
}

#[test]
fn best_effort_segment_is_pending_while_rt_runs_and_resumes_after() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(5));
    let b = reg(&mut p, 2, BE);
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert!(!p.seg_begin(b, seg(cls(&p, b), INH)).unwrap().changed);
    assert_eq!(p.client_status(b), Ok(ClientStatus::Pending));
    assert!(p.seg_end(a).unwrap().changed);
    assert_eq!(p.client_status(b), Ok(ClientStatus::Running));
    assert_eq!(elig(&p), [1, 2]);
}

/// Published defect 1: two best-effort tasks inside segments, one ends; the
/// prototype's `running := pending` dropped the other.
#[test]
fn defect1_two_best_effort_in_segments_one_ends() {
    let mut p = P::new();
    let x = reg(&mut p, 1, BE);
    let y = reg(&mut p, 2, BE);
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(x, seg(cls(&p, x), INH)).unwrap();
    p.seg_begin(y, seg(cls(&p, y), INH)).unwrap();
    let out = p.seg_end(x).unwrap();
    assert!(!out.changed);
    assert!(p.is_eligible(2), "y's TSG must stay on the runlist");
    assert!(p.is_eligible(1), "x between segments still time-shares");
    assert_eq!(p.client_status(y), Ok(ClientStatus::Running));
    // Same with a real-time segment in between that preempts both.
    let r = reg(&mut p, 3, RT(1));
    p.tsg_create(3, 3).unwrap();
    p.seg_begin(x, seg(cls(&p, x), INH)).unwrap();
    p.seg_begin(r, seg(cls(&p, r), INH)).unwrap();
    assert_eq!(elig(&p), [3]);
    p.seg_end(r).unwrap();
    p.seg_end(x).unwrap();
    assert!(p.is_eligible(2));
    assert_eq!(p.client_status(y), Ok(ClientStatus::Running));
}

/// Published defect 2: a task that was already preempted ends its segment while a
/// third task is pending; the prototype's `running := next` dropped the
/// higher-priority task that had preempted it, mid-kernel.
#[test]
fn defect2_preempted_client_ends_while_third_pending() {
    let mut p = P::new();
    let lo = reg(&mut p, 1, RT(10));
    let hi = reg(&mut p, 2, RT(90));
    let mid = reg(&mut p, 3, RT(50));
    for k in 1..=3 {
        p.tsg_create(k, u64::from(k)).unwrap();
    }
    p.seg_begin(lo, seg(cls(&p, lo), INH)).unwrap();
    p.seg_begin(hi, seg(cls(&p, hi), INH)).unwrap(); // preempts lo
    p.seg_begin(mid, seg(cls(&p, mid), INH)).unwrap(); // pending
    assert_eq!(elig(&p), [2]);
    let out = p.seg_end(lo).unwrap(); // the preempted one ends
    assert!(!out.changed, "nothing on the runlist changes");
    assert_eq!(elig(&p), [2], "hi must keep the GPU");
    assert_eq!(p.client_status(hi), Ok(ClientStatus::Running));
    assert_eq!(p.client_status(mid), Ok(ClientStatus::Pending));
    p.seg_end(hi).unwrap();
    assert_eq!(elig(&p), [3]);
    // Same with the preempted client dying instead of ending.
    p.seg_begin(lo, seg(cls(&p, lo), INH)).unwrap();
    p.seg_begin(hi, seg(cls(&p, hi), INH)).unwrap();
    p.client_gone(mid).unwrap();
    assert_eq!(elig(&p), [2]);
    assert_eq!(p.client_status(lo), Ok(ClientStatus::Pending));
}

/// Published defect 3: a private cache of "what is on the runlist" skipped updates
/// while the driver changed the runlist underneath. Here every driver TSG event
/// reports `changed` exactly when the runlist content must change, including tsgid
/// reuse, and the generation lets a caller recover from a lost submit.
#[test]
fn defect3_driver_tsg_events_never_skip_a_needed_change() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(50));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    // No RT segment: any new TSG is eligible, so it is a change.
    assert!(p.tsg_create(3, 3).unwrap().changed);
    assert!(p.tsg_changed(3).unwrap().changed);
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert_eq!(elig(&p), [1]);
    // The winner creates another TSG mid-segment: change.
    assert!(p.tsg_create(80, 1).unwrap().changed);
    assert_eq!(elig(&p), [1, 80]);
    // Another process creates a TSG: no change, and it is not eligible.
    let out = p.tsg_create(4, 2).unwrap();
    assert!(!out.changed);
    assert!(!p.is_eligible(4));
    // Channel changes: only eligible TSGs matter.
    assert!(p.tsg_changed(1).unwrap().changed);
    assert!(!p.tsg_changed(4).unwrap().changed);
    // tsgid reuse between scheduler events: the winner's TSG 80 is released and the
    // id is handed to another process.
    assert!(p.tsg_destroy(80).unwrap().changed);
    let out = p.tsg_create(80, 2).unwrap();
    assert!(!out.changed);
    assert!(
        !p.is_eligible(80),
        "the new owner of id 80 is not the winner"
    );
    // ... and the other way round: a non-eligible id reused by the winner.
    assert!(!p.tsg_destroy(4).unwrap().changed);
    assert!(p.tsg_create(4, 1).unwrap().changed);
    assert_eq!(elig(&p), [1, 4]);
    // Destroying a non-eligible TSG changes nothing.
    assert!(!p.tsg_destroy(2).unwrap().changed);
    // End of segment: everything that exists is eligible again.
    assert!(p.seg_end(a).unwrap().changed);
    assert_eq!(elig(&p), [1, 3, 4, 80]);
}

#[test]
fn tsgs_created_before_registration_belong_to_the_client() {
    let mut p = P::new();
    p.tsg_create(7, 42).unwrap();
    p.tsg_create(9, 43).unwrap();
    let a = reg(&mut p, 42, RT(3));
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert_eq!(elig(&p), [7]);
    assert_eq!(p.tsg_owner(7), Some(42));
    assert_eq!(p.tsg_owner(8), None);
}

#[test]
fn client_gone_ends_its_segment_and_the_next_wins() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(90));
    let b = reg(&mut p, 2, RT(10));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    assert!(p.client_gone(a).unwrap().changed);
    assert_eq!(elig(&p), [2]);
    assert_eq!(p.client_status(a), Err(Error::UnknownClient));
    // a's TSG still exists (the driver releases it later) and is not eligible.
    assert!(p.tsgs().contains(1));
    p.seg_end(b).unwrap();
    assert_eq!(elig(&p), [1, 2]);
    // Gone without a segment; gone twice is an error.
    assert!(!p.client_gone(b).unwrap().changed);
    rejects(&mut p, Error::UnknownClient, |p| p.client_gone(b));
}

#[test]
fn unregister_rules() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(90));
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    rejects(&mut p, Error::SegmentOpen, |p| p.unregister(a));
    p.seg_end(a).unwrap();
    assert!(!p.unregister(a).unwrap().changed);
    rejects(&mut p, Error::UnknownClient, |p| p.unregister(a));
    // The key is free again.
    let a2 = reg(&mut p, 1, BE);
    assert_eq!(a2.slot(), a.slot());
    assert_ne!(a2, a);
}

#[test]
fn stale_and_forged_handles_are_rejected() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(90));
    p.client_gone(a).unwrap();
    let b = reg(&mut p, 2, RT(90)); // reuses a's slot
    assert_eq!(a.slot(), b.slot());
    rejects(&mut p, Error::UnknownClient, |p| {
        p.seg_begin(a, seg(cls(p, a), INH))
    });
    rejects(&mut p, Error::UnknownClient, |p| p.seg_end(a));
    for raw in [u64::MAX, 8, 1000, (1u64 << 32) | 1] {
        let f = ClientId::from_raw(raw);
        rejects(&mut p, Error::UnknownClient, |p| {
            p.seg_begin(f, seg(cls(p, f), INH))
        });
    }
    assert_eq!(ClientId::from_raw(b.to_raw()), b);
    assert_eq!(p.client_by_key(2), Some(b));
    assert_eq!(p.client_by_key(1), None);
}

#[test]
fn errors_leave_the_state_unchanged() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(50));
    let b = reg(&mut p, 2, BE);
    p.tsg_create(1, 1).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    // Priorities.
    for bad in [0u8, 100, 255] {
        let before = p.clone();
        assert_eq!(p.register(9, RT(bad)), Err(Error::PriorityOutOfRange));
        assert_eq!(p, before);
        rejects(&mut p, Error::PriorityOutOfRange, |p| {
            p.seg_begin(b, seg(RT(bad), INH))
        });
        rejects(&mut p, Error::PriorityOutOfRange, |p| {
            p.seg_begin(b, seg(RT(10), GpuPriority::Explicit(bad)))
        });
    }
    // Segments.
    rejects(&mut p, Error::SegmentAlreadyOpen, |p| {
        p.seg_begin(a, seg(cls(p, a), INH))
    });
    rejects(&mut p, Error::NoOpenSegment, |p| p.seg_end(b));
    // Duplicate key.
    let before = p.clone();
    p.register(1, BE).unwrap();
    assert_ne!(p, before);
    p = before;
    // TSGs.
    rejects(&mut p, Error::TsgExists, |p| p.tsg_create(1, 5));
    rejects(&mut p, Error::TsgOutOfRange, |p| p.tsg_create(128, 5));
    rejects(&mut p, Error::TsgOutOfRange, |p| p.tsg_create(u32::MAX, 5));
    rejects(&mut p, Error::UnknownTsg, |p| p.tsg_destroy(2));
    rejects(&mut p, Error::TsgOutOfRange, |p| p.tsg_destroy(128));
    rejects(&mut p, Error::UnknownTsg, |p| p.tsg_changed(3));
    rejects(&mut p, Error::TsgOutOfRange, |p| p.tsg_changed(1 << 20));
    rejects(&mut p, Error::UnknownTsg, |p| {
        p.set_always_eligible(4, true)
    });
    rejects(&mut p, Error::TsgOutOfRange, |p| {
        p.set_always_eligible(999, true)
    });
}

#[test]
fn client_table_full() {
    let mut p = P::new();
    for k in 0..8 {
        reg(&mut p, k, BE);
    }
    let before = p.clone();
    assert_eq!(p.register(100, BE), Err(Error::ClientTableFull));
    assert_eq!(p, before);
    // Error order: priority, then full.
    assert_eq!(p.register(100, RT(0)), Err(Error::PriorityOutOfRange));
}

#[test]
fn clients_sharing_a_key_all_own_its_tsgs() {
    // Two open files of one process: two clients, one key.
    let mut p = P::new();
    p.tsg_create(1, 7).unwrap();
    let a = reg(&mut p, 7, RT(10));
    let b = reg(&mut p, 7, RT(20));
    let c = reg(&mut p, 8, RT(15));
    p.tsg_create(2, 7).unwrap();
    p.tsg_create(3, 8).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert_eq!(elig(&p), [1, 2]);
    p.seg_begin(c, seg(cls(&p, c), INH)).unwrap();
    assert_eq!(elig(&p), [3]);
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    assert_eq!(elig(&p), [1, 2]);
    assert_eq!(p.client_status(a), Ok(ClientStatus::Pending));
    // Destroying a TSG removes it from every client of the key.
    assert!(p.tsg_destroy(1).unwrap().changed);
    p.seg_end(b).unwrap();
    assert_eq!(elig(&p), [3]);
    p.seg_end(c).unwrap();
    assert_eq!(elig(&p), [2]);
    assert_eq!(p.client_by_key(7), Some(a));
}

#[test]
fn class_is_taken_with_the_begin_event() {
    let mut p = P::new();
    let a = reg(&mut p, 1, BE);
    let b = reg(&mut p, 2, RT(20));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    assert_eq!(elig(&p), [2]);
    // a registered best-effort but is real-time (30) when it begins: one event, one
    // change, straight to a's TSGs (no intermediate decision with the old class).
    let g = p.generation();
    let out = p.seg_begin(a, seg(RT(30), INH)).unwrap();
    assert!(out.changed);
    assert_eq!(out.generation, g + 1);
    assert_eq!(elig(&p), [1]);
    assert_eq!(p.client_info(a).unwrap().class, RT(30));
    p.seg_end(a).unwrap();
    // Next segment as best-effort: it changes nothing and b runs again.
    assert_eq!(elig(&p), [2]);
    assert!(!p.seg_begin(a, seg(BE, INH)).unwrap().changed);
    assert_eq!(p.client_status(a), Ok(ClientStatus::Pending));
    assert_eq!(p.client_info(a).unwrap().class, BE);
    // The class is validated with the segment; a rejected begin keeps the old class.
    p.seg_end(a).unwrap();
    rejects(&mut p, Error::PriorityOutOfRange, |p| {
        p.seg_begin(a, seg(RT(0), INH))
    });
    assert_eq!(p.client_info(a).unwrap().class, BE);
    // A client that became real-time may ask for an explicit GPU priority.
    assert!(
        p.seg_begin(a, seg(RT(1), GpuPriority::Explicit(80)))
            .unwrap()
            .changed
    );
    assert_eq!(elig(&p), [1]);
}

#[test]
fn decision_snapshot() {
    let mut p = P::new();
    let a = reg(&mut p, 1 << 40, RT(10));
    p.tsg_create(1, 1 << 40).unwrap();
    p.tsg_create(70, 5).unwrap();
    let d = p.decision();
    assert!(d.all);
    assert!(d.eligible.is_empty());
    assert_eq!(d.generation, 0);
    assert_eq!(d.generation, p.decision_generation());
    assert!(
        p.seg_begin(a, seg(cls(&p, a), INH))
            .unwrap()
            .decision_changed
    );
    let d = p.decision();
    assert!(!d.all);
    assert_eq!(d.eligible, set(&[1]));
    assert_eq!(d.generation, 1);
    // A TSG created while every TSG is eligible changes the eligible set but not what
    // a driver filtering through the snapshot lists.
    p.seg_end(a).unwrap();
    let before = p.decision();
    let out = p.tsg_create(2, 9).unwrap();
    assert!(out.changed && !out.decision_changed);
    let after = p.decision();
    assert_eq!(after.generation, before.generation);
    assert!(before.all && after.all);
    assert_eq!(
        (before.eligible, after.eligible),
        (TsgSet::EMPTY, TsgSet::EMPTY)
    );
}

#[test]
fn keys_are_64_bit() {
    let mut p = P::new();
    // Two keys that agree in their low 32 bits (e.g. the same tgid) are different
    // processes: a new process never inherits a dead one's TSGs.
    let old = 7u64 | (1 << 32);
    let new = 7u64 | (2 << 32);
    let a = reg(&mut p, old, RT(10));
    p.tsg_create(1, old).unwrap();
    p.client_gone(a).unwrap();
    let b = reg(&mut p, new, RT(10));
    p.tsg_create(2, new).unwrap();
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    assert_eq!(elig(&p), [2]);
    assert_eq!(p.tsg_owner(1), Some(old));
    assert_eq!(p.client_by_key(7), None);
}

#[test]
fn always_eligible_marks() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(10));
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(5, 77).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert_eq!(elig(&p), [1]);
    assert!(p.set_always_eligible(5, true).unwrap().changed);
    assert!(p.is_always_eligible(5));
    assert_eq!(elig(&p), [1, 5]);
    // Marking twice: no change.
    assert!(!p.set_always_eligible(5, true).unwrap().changed);
    // Destroy drops the mark; the id reused by someone else is not always-eligible.
    assert!(p.tsg_destroy(5).unwrap().changed);
    p.tsg_create(5, 78).unwrap();
    assert!(!p.is_always_eligible(5));
    assert_eq!(elig(&p), [1]);
    // Unmarking with no RT segment changes nothing (still eligible as everything).
    p.set_always_eligible(5, true).unwrap();
    p.seg_end(a).unwrap();
    assert!(!p.set_always_eligible(5, false).unwrap().changed);
}

#[test]
fn generation_counts_reported_changes() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(10));
    assert_eq!(p.generation(), 0);
    let o = p.tsg_create(1, 1).unwrap();
    assert_eq!((o.changed, o.generation), (true, 1));
    let o = p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert_eq!((o.changed, o.generation), (false, 1));
    let o = p.tsg_changed(1).unwrap();
    assert_eq!((o.changed, o.generation), (true, 2));
    assert_eq!(p.generation(), 2);
}

#[test]
fn many_tsgs_beyond_64_work_in_the_default_capacity() {
    let mut p: Box<Policy> = Box::default();
    assert_eq!(Policy::<16, 128>::TSG_CAPACITY, 1024);
    assert_eq!(<Policy>::CLIENT_CAPACITY, 128);
    // Documented size of the default instance (about 27.4 KiB).
    assert!(core::mem::size_of::<Policy>() < 28 * 1024);
    let a = p.register(1, RT(10)).unwrap().0;
    for t in 0..1024u32 {
        p.tsg_create(t, if t % 100 == 63 { 1 } else { 2 }).unwrap();
    }
    assert_eq!(p.tsg_create(1024, 1), Err(Error::TsgOutOfRange));
    assert_eq!(p.eligible().len(), 1024);
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    let e: Vec<u32> = p.eligible().iter().collect();
    assert_eq!(e, (0..1024).filter(|t| t % 100 == 63).collect::<Vec<_>>());
    assert!(p.is_eligible(1023 - 1023 % 100 + 63 - 100));
    p.reset();
    assert_eq!(*p, Policy::new());
}

#[test]
fn arrival_numbers_survive_counter_exhaustion() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(50));
    let b = reg(&mut p, 2, RT(50));
    let c = reg(&mut p, 3, RT(50));
    for k in 1..=3 {
        p.tsg_create(k, u64::from(k)).unwrap();
    }
    p.set_next_seq(u64::MAX - 2);
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap(); // seq MAX-2
    p.seg_begin(c, seg(cls(&p, c), INH)).unwrap(); // seq MAX-1
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap(); // counter exhausted: renumber, then a is last
    assert_eq!(elig(&p), [2]);
    p.seg_end(b).unwrap();
    assert_eq!(elig(&p), [3]);
    p.seg_end(c).unwrap();
    assert_eq!(elig(&p), [1]);
}

#[test]
fn canonical_form_ignores_path_dependent_counters() {
    let mut p = P::new();
    let mut q = P::new();
    let a = reg(&mut p, 1, RT(5));
    p.tsg_create(1, 1).unwrap();
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    p.seg_end(a).unwrap();
    p.client_gone(a).unwrap();
    let a = reg(&mut p, 1, RT(5));
    p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    let a2 = reg(&mut q, 1, RT(5));
    q.tsg_create(1, 1).unwrap();
    q.seg_begin(a2, seg(cls(&q, a2), INH)).unwrap();
    assert_ne!(p, q);
    assert_eq!(p.canonical(), q.canonical());
}

#[test]
fn clients_iterator_and_sets() {
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(5));
    let b = reg(&mut p, 2, BE);
    p.seg_begin(b, seg(cls(&p, b), INH)).unwrap();
    let v: Vec<_> = p.clients().collect();
    assert_eq!(v, [(a, ClientStatus::Idle), (b, ClientStatus::Running)]);
    let mut s = set(&[0, 63, 64, 127]);
    assert_eq!(s.len(), 4);
    assert!(!s.insert(128));
    assert!(!s.contains(128));
    assert!(s.remove(63));
    assert_eq!(s.iter().collect::<Vec<_>>(), [0, 64, 127]);
    let t = set(&[0, 64]);
    assert!(t.is_subset(&s));
    let mut u = t;
    u.intersect_with(&set(&[64]));
    assert_eq!(u, set(&[64]));
    u.union_with(&set(&[1]));
    assert_eq!(u, set(&[1, 64]));
    u.clear();
    assert!(u.is_empty());
}

#[test]
fn all_flip_is_a_decision_change() {
    // No TSG exists: the eligible set stays empty, but the `all` flag flips both ways and
    // a driver must learn that TSGs it creates now are not eligible.
    let mut p = P::new();
    let a = reg(&mut p, 1, RT(10));
    let out = p.seg_begin(a, seg(cls(&p, a), INH)).unwrap();
    assert!(!out.changed && out.decision_changed);
    assert_eq!(p.decision_generation(), 1);
    let out = p.seg_end(a).unwrap();
    assert!(!out.changed && out.decision_changed);
    assert_eq!(p.decision().generation, 2);
    // A best-effort segment changes nothing.
    let out = p.seg_begin(a, seg(BE, INH)).unwrap();
    assert!(!out.decision_changed);
    // A content change of an eligible TSG is a runlist change, not a decision change.
    p.seg_end(a).unwrap();
    p.tsg_create(3, 1).unwrap();
    p.seg_begin(a, seg(RT(10), INH)).unwrap();
    let out = p.tsg_changed(3).unwrap();
    assert!(out.changed && !out.decision_changed);
}
