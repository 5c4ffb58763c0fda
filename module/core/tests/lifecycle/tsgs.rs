// SPDX-License-Identifier: GPL-2.0

//! The TSG mirror: driver events and owners in LIST, a released id the winner reopens, a
//! recovery's forced resubmit, the backend's binding and loss.

use super::*;

#[test]
fn tsg_events_owner_and_list() {
    let (mut c, mut h) = (core(), TestHost::new(256));
    c.backend_bound();
    let exits = Exits::new();
    // TSGs of a process that opens later belong to it at once.
    h.tsg(3, 1, 10, 1);
    h.tsg(7, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    assert!(h.published.is_empty(), "TSGs while every TSG is eligible");
    assert_eq!(h.resubmits, 0);
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let a2 = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let (buf, l) = list(&c, &h);
    assert_eq!((l.clients_count, l.tsgs_count, l.rt_active), (2, 2, 0));
    assert_eq!(buf.tsgs[0].owner_client_id, a.id);
    assert_eq!(buf.tsgs[0].flags, uapi::TSG_ELIGIBLE);
    assert_eq!(buf.tsgs[1].owner_client_id, 0);
    assert_eq!(buf.clients[0].num_tsgs, 1);
    begin(&mut c, &mut h, a, 10).unwrap();
    let d = h.snapshot().unwrap();
    assert_eq!(d.eligible.iter().collect::<Vec<_>>(), [3]);
    let (buf, l) = list(&c, &h);
    assert_eq!((l.rt_active, buf.tsgs[1].flags), (1, 0));
    // The first client goes: the process's other client owns the TSG now.
    c.release(&mut h, a);
    let (buf, _) = list(&c, &h);
    assert_eq!(buf.tsgs[0].owner_client_id, a2.id);
    c.check().unwrap();
    begin(&mut c, &mut h, a2, 10).unwrap();
    let g = c.generation();
    // A content change of the winner's TSG is the driver's business.
    h.tsg(3, 1, 10, 2);
    c.apply_events(&mut h, &exits);
    assert_eq!(c.generation(), g);
    // A new TSG of the winner's process joins the eligible set.
    h.tsg(9, 1, 10, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(c.generation(), g + 1);
    assert_eq!(
        h.snapshot().unwrap().eligible.iter().collect::<Vec<_>>(),
        [3, 9]
    );
    // Another process's TSG is not eligible and changes nothing.
    h.tsg(11, 5, 50, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(c.generation(), g + 1);
    // An id reused by another process: gone and new, off the eligible set.
    h.tsg_release(9);
    h.tsg(9, 5, 50, 1);
    c.apply_events(&mut h, &exits);
    assert_eq!(
        h.snapshot().unwrap().eligible.iter().collect::<Vec<_>>(),
        [3]
    );
    let s = stats(&mut c, None);
    assert_eq!((s.tsgs_now, s.tsgs_max), (4, 4));
    c.check().unwrap();
}

#[test]
fn released_id_reopened_by_the_winner_is_republished() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    c.backend_bound();
    let exits = Exits::new();
    h.tsg(4, 1, 10, 1);
    c.apply_events(&mut h, &exits);
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    let n = h.published.len();
    // Released and reopened by the same process before the drain: the table shows one
    // present TSG, the released mark says the host's snapshot lacks it.
    h.tsg_release(4);
    h.tsg(4, 1, 10, 1);
    c.apply_events(&mut h, &exits);
    assert!(h.published.len() > n);
    assert_eq!(
        h.snapshot().unwrap().eligible.iter().collect::<Vec<_>>(),
        [4]
    );
    let k = h.kinds();
    assert_eq!(
        &k[k.len() - 2..],
        [uapi::TRACE_TSG_GONE, uapi::TRACE_TSG_NEW]
    );
    c.check().unwrap();
}

#[test]
fn recovery_forces_a_resubmit() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    let exits = Exits::new();
    h.recovered = true;
    c.apply_events(&mut h, &exits);
    assert_eq!(h.resubmits, 0, "unbound");
    c.backend_bound();
    h.recovered = true;
    c.apply_events(&mut h, &exits);
    assert_eq!(h.resubmits, 1);
    assert_eq!(stats(&mut c, None).recoveries, 2);
    assert_eq!(h.kinds().last(), Some(&uapi::TRACE_RECOVERY));
}

#[test]
fn backend_bind_unbind() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    let exits = Exits::new();
    c.backend_bound();
    h.tsg(1, 1, 10, 1);
    h.tsg(2, 2, 20, 1);
    c.apply_events(&mut h, &exits);
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    let r = h.resubmits;
    c.backend_gone(&mut h);
    // The decision without the TSGs is published, nothing is submitted.
    assert!(h.snapshot().unwrap().eligible.is_empty());
    assert!(!h.snapshot().unwrap().all);
    assert_eq!(h.resubmits, r);
    let (_, l) = list(&c, &h);
    assert_eq!(l.tsgs_count, 0);
    c.seg_end(&mut h, a, call(true)).unwrap();
    assert_eq!(h.resubmits, r, "unbound: no submits");
    c.backend_bound();
    begin(&mut c, &mut h, a, 10).unwrap();
    assert_eq!(h.resubmits, r + 1);
    c.check().unwrap();
}
