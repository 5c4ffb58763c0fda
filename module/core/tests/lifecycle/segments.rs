// SPDX-License-Identifier: GPL-2.0

//! Segments: begin, end, preemption and resumption, and what their sync does without a
//! backend and when the resubmit fails.

use super::*;

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
