//! The prototype's defects 1-3 (`docs/policy.md`), each as the sequence that exposed it.

use super::*;

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
