//! Clients and the error contract: TSGs collected at registration, a client gone or
//! unregistered, stale and forged handles, errors that leave the state unchanged, a full
//! table, clients sharing a key, 64-bit keys.

use super::*;

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
fn priority_range_is_one_to_ninety_nine() {
    for (p, ok) in [
        (i64::MIN, false),
        (-1, false),
        (0, false),
        (1, true),
        (50, true),
        (99, true),
        (100, false),
        (256, false),
        (i64::MAX, false),
    ] {
        assert_eq!(priority_in_range(p), ok, "priority {p}");
    }
}
