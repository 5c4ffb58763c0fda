//! A lost submit is recovered from by the policy's generation, not by its `changed` flag: a
//! driver that remembers the generation on the hardware resubmits after a failed submit even
//! when later events report no change.

use gcaps_policy::{Error, GpuPriority, Policy, SchedClass, Segment};
use gcaps_runlist::DoubleBuffer;

#[test]
fn a_failed_submit_stays_owed_until_a_build_succeeds() {
    let mut p: Policy<16, 8> = Policy::new();
    let (a, _) = p.register(1, SchedClass::RealTime(10)).unwrap();
    p.tsg_create(1, 1).unwrap();
    p.tsg_create(2, 2).unwrap();
    assert!(
        p.seg_begin(
            a,
            Segment::RealTime {
                cpu: 10,
                gpu: GpuPriority::Inherit
            }
        )
        .unwrap()
        .changed
    );
    let mut db = DoubleBuffer::new();
    db.begin_build(p.generation()).unwrap();
    db.submitted().unwrap();
    db.poll(false).unwrap();
    assert!(!db.needs_submit(p.generation()));
    let out = p.tsg_create(5, 1).unwrap();
    assert!(out.changed);
    db.begin_build(out.generation).unwrap();
    db.failed().unwrap(); // e.g. GPU railgated, submit not done
    assert_eq!(p.tsg_changed(62).err(), Some(Error::UnknownTsg)); // no change
    assert!(
        db.needs_submit(p.generation()),
        "the failed submit is still owed"
    );
    db.begin_build(p.generation()).unwrap();
    db.submitted().unwrap();
    db.poll(false).unwrap();
    assert!(!db.needs_submit(p.generation()));
}
