// SPDX-License-Identifier: GPL-2.0

//! Always-eligible TSGs: the driver's own TSGs and the administrator's marks, the two reasons
//! and their release.

use super::*;

/// The eligible ids of the host's snapshot (what the driver lists).
fn snap_ids(h: &TestHost) -> Vec<usize> {
    h.snapshot()
        .unwrap()
        .eligible
        .iter()
        .map(|t| t as usize)
        .collect()
}

/// LIST's flags of TSG `t`.
fn tsg_flags(c: &Core, h: &TestHost, t: u32) -> Option<u32> {
    let (buf, l) = list(c, h);
    buf.tsgs[..l.tsgs_count as usize]
        .iter()
        .find(|i| i.tsgid == t)
        .map(|i| i.flags)
}

const DRIVER: u32 = uapi::TSG_ALWAYS_DRIVER;
const ADMIN: u32 = uapi::TSG_ALWAYS_ADMIN;
const ELIG_ALWAYS: u32 = uapi::TSG_ELIGIBLE | uapi::TSG_ALWAYS;

#[test]
fn driver_internal_tsg_stays_eligible_during_another_owners_segment() {
    let (mut c, mut h) = (core(), TestHost::new(256));
    c.backend_bound();
    let exits = Exits::new();
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    h.tsg(3, 1, 10, 1); // a's
    h.tsg_flags(5, 0, 0, 1); // the driver's own (no user owner)
    h.tsg(7, 2, 20, 1); // another process's
    c.apply_events(&mut h, &exits);
    assert_eq!(tsg_flags(&c, &h, 5), Some(ELIG_ALWAYS | DRIVER));
    assert!(c.policy().is_always_eligible(5));
    begin(&mut c, &mut h, a, 10).unwrap();
    assert_eq!(
        snap_ids(&h),
        [3, 5],
        "the driver's TSG stays on the runlist"
    );
    assert_eq!(tsg_flags(&c, &h, 7), Some(0));
    // The driver clears its flag: the TSG leaves at once (publish + resubmit, traced).
    let (g, n) = (c.generation(), h.resubmits);
    h.tsg_flags(5, 0, 0, 0);
    c.apply_events(&mut h, &exits);
    assert_eq!(snap_ids(&h), [3]);
    assert_eq!((c.generation(), h.resubmits), (g + 1, n + 1));
    assert_eq!(tsg_flags(&c, &h, 5), Some(0));
    let ev = *h.events().last().unwrap();
    assert_eq!(
        (
            ev.kind,
            ev.cpu_priority,
            ev.requested_priority,
            ev.client_id
        ),
        (uapi::TRACE_TSG_ALWAYS, 5, 0, 0)
    );
    // A driver-internal TSG created during the segment is eligible as soon as it is applied.
    h.tsg_flags(9, 0, 0, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(snap_ids(&h), [3, 9]);
    let k = h.kinds();
    assert_eq!(
        &k[k.len() - 2..],
        [uapi::TRACE_TSG_NEW, uapi::TRACE_TSG_ALWAYS]
    );
    // A content change that keeps the flag changes nothing.
    let g = c.generation();
    h.tsg_flags(9, 0, 0, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(c.generation(), g);
    c.check().unwrap();
    c.seg_end(&mut h, a, call(true)).unwrap();
    assert!(h.snapshot().unwrap().all);
    c.check().unwrap();
}

#[test]
fn admin_mark_is_a_second_reason() {
    let (mut c, mut h) = (core(), TestHost::new(256));
    c.backend_bound();
    let exits = Exits::new();
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let root = c.open(&mut h, &opener(50, 0, 0), 8).unwrap();
    h.tsg(3, 1, 10, 1);
    h.tsg(7, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    begin(&mut c, &mut h, a, 10).unwrap();
    assert_eq!(snap_ids(&h), [3]);
    // Unknown and out-of-range ids.
    assert_eq!(c.set_always(&mut h, root, 8, true), Err(Errno::ENOENT));
    assert_eq!(c.set_always(&mut h, root, 1024, true), Err(Errno::EINVAL));
    // The administrator marks 7: published, resubmitted, traced with the caller.
    let n = h.resubmits;
    let g = c.generation();
    assert_eq!(c.set_always(&mut h, root, 7, true), Ok((ADMIN, g + 1)));
    assert_eq!(snap_ids(&h), [3, 7]);
    assert_eq!(h.resubmits, n + 1);
    let ev = *h.events().last().unwrap();
    assert_eq!(
        (
            ev.kind,
            ev.client_id,
            ev.cpu_priority,
            ev.requested_priority
        ),
        (uapi::TRACE_TSG_ALWAYS, root.id, 7, ADMIN as i32)
    );
    assert_eq!(ev.flags, uapi::TRACE_F_SUBMIT);
    assert_eq!(tsg_flags(&c, &h, 7), Some(ELIG_ALWAYS | ADMIN));
    // Marking again changes nothing.
    let (k, n) = (h.kinds().len(), h.resubmits);
    assert_eq!(c.set_always(&mut h, root, 7, true), Ok((ADMIN, g + 1)));
    assert_eq!((h.kinds().len(), h.resubmits), (k, n));
    // The driver flags it too; the administrator's unmark leaves the driver's reason.
    h.tsg_flags(7, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(tsg_flags(&c, &h, 7), Some(ELIG_ALWAYS | ADMIN | DRIVER));
    assert_eq!(c.set_always(&mut h, root, 7, false), Ok((DRIVER, g + 1)));
    assert_eq!(snap_ids(&h), [3, 7]);
    c.check().unwrap();
    // The driver's clear: no reason left.
    h.tsg_flags(7, 2, 20, 0);
    c.apply_events(&mut h, &exits);
    assert_eq!(snap_ids(&h), [3]);
    // A foreign or stale client cannot call.
    c.release(&mut h, root);
    assert_eq!(c.set_always(&mut h, root, 7, true), Err(Errno::EPERM));
    c.check().unwrap();
}

#[test]
fn release_drops_both_reasons() {
    let (mut c, mut h) = (core(), TestHost::new(256));
    c.backend_bound();
    let exits = Exits::new();
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let root = c.open(&mut h, &opener(50, 0, 0), 8).unwrap();
    h.tsg(3, 1, 10, 1);
    h.tsg_flags(9, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    c.set_always(&mut h, root, 9, true).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    assert_eq!(snap_ids(&h), [3, 9]);
    // Released and the id reused by another process, unflagged: a new TSG without marks.
    h.tsg_release(9);
    h.tsg(9, 5, 50, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(snap_ids(&h), [3]);
    assert_eq!(tsg_flags(&c, &h, 9), Some(0));
    assert!(!c.policy().is_always_eligible(9));
    c.check().unwrap();
    // Released alone (applied), then reopened by the same process without the flag.
    h.tsg_flags(12, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    c.set_always(&mut h, root, 12, true).unwrap();
    assert_eq!(snap_ids(&h), [3, 12]);
    h.tsg_release(12);
    c.apply_events(&mut h, &exits);
    c.check().expect("nothing of the released TSG is left");
    h.tsg(12, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(snap_ids(&h), [3]);
    assert_eq!(tsg_flags(&c, &h, 12), Some(0));
    c.check().unwrap();
    // The backend goes: nothing is left marked.
    h.tsg_flags(11, 0, 0, 1);
    c.apply_events(&mut h, &exits);
    assert!(c.policy().is_always_eligible(11));
    c.backend_gone(&mut h);
    assert!(!c.policy().is_always_eligible(11));
    assert_eq!(c.set_always(&mut h, root, 11, true), Err(Errno::ENOENT));
    c.check().unwrap();
}
