// SPDX-License-Identifier: GPL-2.0

//! Observation: the stats reset scopes and the decision every trace event carries.

use super::*;

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
    // A VER2 struct: every counter `Core` keeps (the device holds the update costs).
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
