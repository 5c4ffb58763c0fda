// SPDX-License-Identifier: GPL-2.0

//! Every lifecycle path of the core through its public interface, with a test host.

mod common;

use common::{fifo, opener, TestHost};
use gcaps_core::ioctl::{begin_request, BeginRequest};
use gcaps_core::stats::ResetScope;
use gcaps_core::uapi::{self, SegBegin};
use gcaps_core::{Call, ClientRef, Core, Errno, Exits, ListBuf, TaskToken, Warning};

fn core() -> Box<Core> {
    Box::new(Core::new())
}

fn req(prio: i32, gpu: i32) -> BeginRequest {
    let a = SegBegin {
        size: 24,
        gpu_priority: gpu,
        ..Default::default()
    };
    begin_request(&a, fifo(prio), |_| true).unwrap()
}

fn call(rt: bool) -> Call {
    Call { entry_ns: 0, rt }
}

fn begin(c: &mut Core, h: &mut TestHost, r: ClientRef, prio: i32) -> Result<(u32, u64), Errno> {
    c.seg_begin(h, r, req(prio, 0), call(prio > 0))
}

fn list(c: &Core, h: &TestHost) -> (Box<ListBuf>, uapi::List) {
    let mut buf = Box::new(ListBuf {
        clients: [uapi::ClientInfo::default(); gcaps_core::MAX_CLIENTS],
        tsgs: [uapi::TsgInfo::default(); gcaps_core::MAX_TSGS],
    });
    let mut l = uapi::List::default();
    c.list(h, &mut buf, &mut l);
    (buf, l)
}

fn stats(c: &mut Core, reset: Option<ResetScope>) -> uapi::Stats {
    let mut s = uapi::Stats::default();
    c.stats(&mut s, reset);
    s
}

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
fn begin_end_preempt_resume() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    c.backend_bound();
    let lo = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let hi = c.open(&mut h, &opener(2, 0, 20), 8).unwrap();
    let be = c.open(&mut h, &opener(3, 0, 0), 8).unwrap();
    // A best-effort segment changes nothing.
    assert_eq!(begin(&mut c, &mut h, be, 0), Ok((uapi::STATE_RUNNING, 0)));
    assert_eq!(h.resubmits, 0);
    // The first real-time segment: the all flag flips (no TSG exists).
    assert_eq!(begin(&mut c, &mut h, lo, 10), Ok((uapi::STATE_RUNNING, 1)));
    assert_eq!(h.resubmits, 1);
    assert!(!h.snapshot().unwrap().all);
    let mut st = uapi::Status::default();
    c.status(&h, be, &mut st).unwrap();
    assert_eq!(st.self_.state, uapi::STATE_PENDING);
    assert_eq!(begin(&mut c, &mut h, lo, 10), Err(Errno::EALREADY));
    // Preemption.
    assert_eq!(begin(&mut c, &mut h, hi, 20), Ok((uapi::STATE_RUNNING, 1)));
    let ev = h.events();
    let p = ev.iter().find(|e| e.kind == uapi::TRACE_PREEMPT).unwrap();
    assert_eq!((p.client_id, p.running_client_id), (lo.id, hi.id));
    // A pending end keeps the decision.
    assert_eq!(c.seg_end(&mut h, lo, call(true)), Ok(1));
    assert_eq!(c.seg_end(&mut h, lo, call(true)), Err(Errno::ENOENT));
    assert_eq!(begin(&mut c, &mut h, lo, 10), Ok((uapi::STATE_PENDING, 1)));
    let last = h.events().last().copied().unwrap();
    assert_eq!(last.flags & uapi::TRACE_F_PENDING, uapi::TRACE_F_PENDING);
    // The winner's end resumes `lo`.
    c.seg_end(&mut h, hi, call(true)).unwrap();
    let r = h
        .events()
        .into_iter()
        .rev()
        .find(|e| e.kind == uapi::TRACE_RESUME)
        .unwrap();
    assert_eq!((r.client_id, r.running_client_id), (lo.id, lo.id));
    c.seg_end(&mut h, lo, call(true)).unwrap();
    assert_eq!(c.generation(), 2);
    assert!(h.snapshot().unwrap().all);
    let s = stats(&mut c, None);
    assert_eq!((s.begins, s.ends, s.preemptions, s.resumes), (4, 3, 1, 1));
    assert_eq!(s.segments_open, 1, "the best-effort segment");
    assert!(s.delay.count >= 4);
    c.check().unwrap();
}

#[test]
fn unbound_publishes_but_never_submits() {
    let (mut c, mut h) = (core(), TestHost::new(8));
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let (_, g) = begin(&mut c, &mut h, a, 10).unwrap();
    assert_eq!((g, h.published.len(), h.resubmits), (1, 1, 0));
    assert_eq!(h.events().last().unwrap().flags & uapi::TRACE_F_SUBMIT, 0);
}

#[test]
fn resubmit_failures_warn_once() {
    let (mut c, mut h) = (core(), TestHost::new(8));
    c.backend_bound();
    h.fail_resubmit = Some(Errno::ETIMEDOUT);
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    c.seg_end(&mut h, a, call(true)).unwrap();
    let s = stats(&mut c, None);
    assert_eq!((s.submits, s.submit_errors, s.submit_timeouts), (2, 2, 2));
    assert_eq!(h.warnings, [Warning::ResubmitFailed(Errno::ETIMEDOUT)]);
    let f = uapi::TRACE_F_SUBMIT | uapi::TRACE_F_SUBMIT_FAILED;
    assert_eq!(h.events().last().unwrap().flags & f, f);
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

#[test]
fn stats_reset_scopes() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    c.backend_bound();
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    let b = c.open(&mut h, &opener(2, 0, 20), 8).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    begin(&mut c, &mut h, b, 20).unwrap();
    c.seg_end(&mut h, b, call(true)).unwrap();
    // A VER0 caller (56 bytes): the segment counters (always), submits and submit_errors.
    let s = stats(&mut c, Some(ResetScope::new(56)));
    assert_eq!((s.begins, s.ends, s.submits, s.preemptions), (2, 1, 1, 1));
    let s = stats(&mut c, None);
    assert_eq!((s.begins, s.ends, s.ends_by_close, s.submits), (0, 0, 0, 0));
    assert_eq!(
        (s.preemptions, s.resumes, s.open_at_reset, s.segments_open),
        (1, 1, 1, 1)
    );
    assert!(s.delay.count > 0);
    assert_eq!(s.clients_max, 2);
    // The full struct: everything.
    c.release(&mut h, b);
    let s = stats(&mut c, Some(ResetScope::new(528)));
    assert_eq!(s.clients_max, 2);
    let s = stats(&mut c, None);
    assert_eq!(
        (s.preemptions, s.resumes, s.delay.count, s.clients_max),
        (0, 0, 0, 1)
    );
    // The balance holds across resets.
    c.release(&mut h, a);
    let s = stats(&mut c, None);
    assert_eq!(
        s.open_at_reset + s.begins,
        s.ends + s.ends_by_close + s.segments_open
    );
}

#[test]
fn trace_events_carry_the_decision() {
    let (mut c, mut h) = (core(), TestHost::new(64));
    h.now = 5000;
    let a = c.open(&mut h, &opener(1, 0, 10), 8).unwrap();
    c.seg_begin(
        &mut h,
        a,
        req(10, 0),
        Call {
            entry_ns: 4000,
            rt: true,
        },
    )
    .unwrap();
    let e = h.events().last().copied().unwrap();
    assert_eq!(e.kind, uapi::TRACE_BEGIN);
    assert_eq!((e.time_ns, e.delay_ns, e.generation), (5000, 1000, 1));
    assert_eq!(
        (e.cpu_priority, e.requested_priority, e.effective_priority),
        (10, 0, 10)
    );
    assert_eq!((e.running_client_id, e.running_tgid, e.tgid), (a.id, 1, 1));
    assert_eq!(&e.comm[..4], b"test");
}

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

/// Holder boost: the running segment's begin thread is boosted and unboosted by whichever
/// update changes the running segment; references balance to zero; the trace has
/// BOOST/UNBOOST after the event that caused them; STATUS reports the setting.
#[test]
fn holder_boost_follows_the_running_segment() {
    let mut c = core();
    c.configure(99, 98);
    c.backend_bound();
    let mut h = TestHost::new(64);
    // A TSG per real-time process, so that every change of the running segment submits.
    h.tsg(3, 1, 10, 1);
    h.tsg(7, 2, 20, 1);
    c.apply_events(&mut h, &Exits::new());
    let a = c.open(&mut h, &opener(1, 0, 10), 4).unwrap();
    let b = c.open(&mut h, &opener(2, 0, 20), 4).unwrap();
    let e = c.open(&mut h, &opener(3, 0, 0), 4).unwrap();
    // a's thread 0x10 begins: runs, boosted.
    h.thread = 0x10;
    begin(&mut c, &mut h, a, 10).unwrap();
    assert_eq!(h.boosts, vec![(true, 0x10)]);
    assert_eq!(c.boosted_task(), TaskToken(0x10));
    // A best-effort begin takes no reference and boosts nothing.
    h.thread = 0x30;
    begin(&mut c, &mut h, e, 0).unwrap();
    assert_eq!(h.refs.get(&0x30).copied().unwrap_or(0), 0);
    // b's thread 0x20 preempts: a unboosted, b boosted, in that order.
    h.thread = 0x20;
    begin(&mut c, &mut h, b, 20).unwrap();
    assert_eq!(h.boosts[1..], [(false, 0x10), (true, 0x20)]);
    // U8: the old holder before the submit, the new one after it.
    let r = h.resubmits;
    assert_eq!(
        h.boost_submits[1..],
        [r - 1, r],
        "unboost before, boost after the submit"
    );
    // b's end (from another thread) hands the GPU back: b unboosted, a boosted.
    h.thread = 0x21;
    c.seg_end(&mut h, b, call(true)).unwrap();
    assert_eq!(h.boosts[3..], [(false, 0x20), (true, 0x10)]);
    // a's client goes (release): unboosted, nothing running.
    c.release(&mut h, a);
    assert_eq!(h.boosts[5..], [(false, 0x10)]);
    assert_eq!(c.boosted_task(), TaskToken(0));
    c.seg_end(&mut h, e, call(false)).unwrap();
    assert!(
        h.refs.values().all(|&r| r == 0),
        "references left: {:?}",
        h.refs
    );
    let kinds: Vec<u32> = h
        .events()
        .iter()
        .map(|ev| ev.kind)
        .filter(|&k| k != uapi::TRACE_OPEN && k != uapi::TRACE_TSG_NEW)
        .collect();
    assert_eq!(
        kinds,
        [
            uapi::TRACE_BEGIN,
            uapi::TRACE_BOOST,
            uapi::TRACE_BEGIN,
            uapi::TRACE_BEGIN,
            uapi::TRACE_PREEMPT,
            uapi::TRACE_UNBOOST,
            uapi::TRACE_BOOST,
            uapi::TRACE_END,
            uapi::TRACE_RESUME,
            uapi::TRACE_UNBOOST,
            uapi::TRACE_BOOST,
            uapi::TRACE_CLOSE,
            uapi::TRACE_UNBOOST,
            uapi::TRACE_END,
        ]
    );
    let events = h.events();
    let boost_ev = events
        .iter()
        .find(|ev| ev.kind == uapi::TRACE_BOOST)
        .unwrap();
    assert_eq!(
        (
            boost_ev.tid,
            boost_ev.cpu_priority,
            boost_ev.requested_priority
        ),
        (0x10, 98, 10)
    );
    let mut st = uapi::Status::default();
    c.status(&h, b, &mut st).unwrap();
    assert_eq!(
        (st.boost, st.boost_prio, st.update_prio),
        (uapi::BOOST_ON, 98, 99)
    );
}

/// With boost off nothing is referenced or boosted, and STATUS says so.
#[test]
fn boost_off_takes_no_references() {
    let mut c = core();
    c.configure(99, 0);
    let mut h = TestHost::new(64);
    h.thread = 0x10;
    let a = c.open(&mut h, &opener(1, 0, 10), 4).unwrap();
    begin(&mut c, &mut h, a, 10).unwrap();
    c.seg_end(&mut h, a, call(true)).unwrap();
    assert!(h.boosts.is_empty() && h.refs.is_empty());
    let mut st = uapi::Status::default();
    c.status(&h, a, &mut st).unwrap();
    assert_eq!((st.boost, st.boost_prio, st.update_prio), (0, 0, 99));
}
