//! The decision rules (crate documentation, rules 1-4): everything eligible without a
//! real-time segment, the winner's exclusive GPU, preemption and resumption, first come first
//! served, the GPU priority, pending best-effort segments, the class taken with the begin.

use super::*;

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
