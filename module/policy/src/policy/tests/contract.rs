//! The change-reporting contract and the snapshot: the decision and its generations,
//! always-eligible marks, capacity beyond one word, arrival-number exhaustion, the canonical
//! form, the iterators.

use super::*;

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
