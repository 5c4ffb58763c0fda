// SPDX-License-Identifier: GPL-2.0

//! The holder boost through the core: who is boosted and unboosted by which update, the
//! references, the BOOST/UNBOOST events, and boost off.

use super::*;

/// Holder boost: the running segment's begin thread is boosted and unboosted by whichever
/// update changes the running segment; references balance to zero; the trace has
/// BOOST/UNBOOST after the event that caused them; STATUS reports the setting.
#[test]
fn holder_boost_follows_the_running_segment() {
    let mut c = core();
    c.configure(99, 98, Mechanism::Reload);
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
    c.configure(99, 0, Mechanism::Reload);
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
