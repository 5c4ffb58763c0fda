// SPDX-License-Identifier: GPL-2.0

//! Clients: the open limits and the open's trace event, the release that ends a segment, the
//! removals LIST/STATUS/STATS may do, owner exits and stale references.

use super::*;

#[test]
fn open_limits_and_trace() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    let a = c.open(&mut h, &opener(100, 7, 0), 2).unwrap();
    let b = c.open(&mut h, &opener(101, 7, 5), 2).unwrap();
    assert_eq!(c.open(&mut h, &opener(102, 7, 0), 2), Err(Errno::EMFILE));
    assert_ne!(a.id, b.id);
    assert_ne!(a.slot, b.slot);
    // Another uid is not limited by uid 7's clients; the table is.
    for i in 0..126 {
        c.open(&mut h, &opener(200 + i, 8, 0), 1000).unwrap();
    }
    assert_eq!(c.open(&mut h, &opener(999, 9, 0), 1000), Err(Errno::ENOSPC));
    assert_eq!(
        h.kinds().iter().filter(|k| **k == uapi::TRACE_OPEN).count(),
        64
    );
    let s = stats(&mut c, None);
    assert_eq!((s.clients_now, s.clients_max), (128, 128));
    let mut st = uapi::Status::default();
    c.status(&h, b, &mut st).unwrap();
    assert_eq!(
        (
            st.self_.tgid,
            st.self_.cpu_class,
            st.self_.cpu_priority,
            st.num_clients
        ),
        (101, uapi::CLASS_FIFO, 5, 128)
    );
    c.check().unwrap();
    assert!(h.published.is_empty(), "opens never change the decision");
}

#[test]
fn release_ends_the_segment() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    c.backend_bound();
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let b = c.open(&mut h, &opener(2, 0, 5), 8).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    begin(&mut c, &mut h, b, 5).unwrap();
    c.release(&mut h, a);
    let ev = h.events();
    let close = ev.iter().find(|e| e.kind == uapi::TRACE_CLOSE).unwrap();
    assert_eq!(close.client_id, a.id);
    assert_eq!(close.flags & uapi::TRACE_F_ENDED, uapi::TRACE_F_ENDED);
    assert_eq!(
        close.running_client_id, b.id,
        "stamped with the decision after"
    );
    assert_eq!(ev.last().unwrap().kind, uapi::TRACE_RESUME);
    // The file is gone: its ref names nothing.
    assert_eq!(begin(&mut c, &mut h, a, 10), Err(Errno::EPERM));
    c.release(&mut h, a); // a second release does nothing
    let s = stats(&mut c, None);
    assert_eq!((s.ends_by_close, s.clients_now), (1, 1));
    c.check().unwrap();
}

/// What LIST, STATUS and STATS apply before they answer: the removals that keep the decision,
/// with no publish and no submit; the running segment's removal is left for an update.
#[test]
fn removals_that_keep_the_decision() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    c.backend_bound();
    let exits = Exits::new();
    h.tsg(0, 1, 10, 1);
    h.tsg(1, 2, 20, 1);
    let a = c.open(&mut h, &opener(1, 0, 20), 8).unwrap();
    let b = c.open(&mut h, &opener(2, 0, 10), 8).unwrap();
    let e = c.open(&mut h, &opener(3, 0, 0), 8).unwrap();
    let idle = c.open(&mut h, &opener(4, 0, 0), 8).unwrap();
    let l = c.open(&mut h, &opener(5, 0, 0), 8).unwrap();
    c.apply_events(&mut h, &exits);
    begin(&mut c, &mut h, a, 20).unwrap();
    begin(&mut c, &mut h, b, 10).unwrap();
    begin(&mut c, &mut h, e, 0).unwrap();
    // The running segment's client (a) changes the decision; pending (b), best-effort (e) and
    // idle clients, and an unknown one, do not.
    assert!(!c.release_keeps_decision(a));
    for r in [b, e, idle] {
        assert!(c.release_keeps_decision(r));
    }
    let (pubs, subs) = (h.published.len(), h.resubmits);
    c.release(&mut h, idle);
    assert!(c.release_keeps_decision(idle));
    // Every owner but l's exited; l's mark is a wake of a live process.
    h.exited.extend([1, 2, 3]);
    for r in [a, b, e, l] {
        exits.mark(r.slot);
    }
    assert!(c.apply_exits_keeping(&mut h, &exits), "a's removal is left");
    assert_eq!(
        (h.published.len(), h.resubmits),
        (pubs, subs),
        "no publish, no submit"
    );
    assert_eq!(c.running_slot(), Some(a.slot as usize));
    let (buf, li) = list(&c, &h);
    let ids: Vec<u64> = buf.clients[..li.clients_count as usize]
        .iter()
        .map(|i| i.client_id)
        .collect();
    assert_eq!(ids, [a.id, l.id]);
    let s = stats(&mut c, None);
    assert_eq!((s.ends_by_close, s.segments_open, s.clients_now), (2, 1, 2));
    // Only a's mark is left, for an update: it removes a and hands the GPU to nobody.
    assert!(exits.any());
    assert!(c.apply_exits_keeping(&mut h, &exits));
    assert_eq!(h.published.len(), pubs);
    c.apply_events(&mut h, &exits);
    assert!(!exits.any());
    assert!(h.published.len() > pubs && h.resubmits > subs);
    assert!(h.snapshot().unwrap().all);
    assert_eq!(stats(&mut c, None).clients_now, 1);
    c.check().unwrap();
}

#[test]
fn owner_exit_and_stale_refs() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    c.backend_bound();
    let exits = Exits::new();
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    // A wake while the process lives is ignored.
    exits.mark(a.slot);
    assert!(exits.any());
    c.apply_events(&mut h, &exits);
    assert!(!exits.any());
    assert!(!c.end_keeps_decision(a));
    // The group exits: the client goes, its segment ends now.
    h.exited.insert(1);
    exits.mark(a.slot);
    exits.mark(1000); // out of range: ignored
    c.apply_events(&mut h, &exits);
    c.check().expect("after exit");
    assert!(h.snapshot().unwrap().all);
    assert_eq!(stats(&mut c, None).ends_by_close, 1);
    // The slot is reused by another process; the old file's ref reaches nothing.
    let b = c.open(&mut h, &opener(2, 0, 0), 8).unwrap();
    assert_eq!(b.slot, a.slot);
    assert_ne!(b.id, a.id);
    c.check().expect("after reuse");
    assert_eq!(begin(&mut c, &mut h, a, 10), Err(Errno::EPERM));
    assert_eq!(c.seg_end(&mut h, a, call(false)), Err(Errno::EPERM));
    let mut st = uapi::Status::default();
    assert_eq!(c.status(&h, a, &mut st), Err(Errno::EPERM));
    assert!(c.begin_keeps_decision(a, &req(10, 0)));
    // The old file's release does not remove the new client.
    c.release(&mut h, a);
    assert_eq!(stats(&mut c, None).clients_now, 1);
    // A slot out of range is EINVAL.
    let bad = ClientRef {
        id: b.id,
        slot: 5000,
        pad: 0,
    };
    assert_eq!(c.status(&h, bad, &mut st), Err(Errno::EINVAL));
    c.check().unwrap();
}
