// SPDX-License-Identifier: GPL-2.0

use super::super::policy::{GpuPriority, SchedClass, Segment};
use super::super::uapi::{self, IoctlArg};
use super::*;

/// `_IOWR(GCAPS_IOC_MAGIC, nr, T)` with a struct of `size` bytes.
fn iowr(nr: u32, size: u32) -> u32 {
    (3 << 30) | (size << 16) | (uapi::IOC_MAGIC << 8) | nr
}

#[test]
fn commands() {
    assert_eq!(Command::decode(iowr(0, 48), false), Ok(Command::Version));
    assert_eq!(Command::decode(iowr(1, 24), false), Ok(Command::SegBegin));
    assert_eq!(Command::decode(iowr(2, 16), false), Ok(Command::SegEnd));
    assert_eq!(Command::decode(iowr(3, 72), false), Ok(Command::Status));
    assert_eq!(Command::decode(iowr(4, 56), false), Ok(Command::List));
    assert_eq!(Command::decode(iowr(5, 32), false), Ok(Command::SetAlways));
    assert_eq!(Command::decode(iowr(0x10, 528), false), Ok(Command::Stats));
    assert_eq!(
        Command::decode(iowr(0x11, 64), false),
        Ok(Command::TraceRead)
    );
    // The size bits do not select: a struct's own `size` versions it.
    assert_eq!(Command::decode(iowr(1, 0), false), Ok(Command::SegBegin));
    // Unknown numbers and other magics.
    assert_eq!(Command::decode(iowr(0x12, 72), false), Err(Errno::ENOTTY));
    assert_eq!(Command::decode(iowr(0xff, 0), false), Err(Errno::ENOTTY));
    assert_eq!(
        Command::decode((3 << 30) | (72 << 16) | (u32::from(b'v') << 8) | 1, false),
        Err(Errno::ENOTTY)
    );
    // A foreign caller is refused before anything else.
    assert_eq!(Command::decode(iowr(0xff, 0), true), Err(Errno::EPERM));
    assert_eq!(Command::decode(iowr(1, 24), true), Err(Errno::EPERM));
}

#[test]
fn sizes() {
    assert_eq!(arg_size::<uapi::SegBegin>(23), Err(Errno::EINVAL));
    assert_eq!(arg_size::<uapi::SegBegin>(0), Err(Errno::EINVAL));
    assert_eq!(arg_size::<uapi::SegBegin>(24), Ok(24));
    assert_eq!(arg_size::<uapi::SegBegin>(4096), Ok(4096));
    assert_eq!(arg_size::<uapi::Stats>(56), Ok(56));
    assert_eq!(arg_size::<uapi::Stats>(55), Err(Errno::EINVAL));
    assert_eq!(uapi::Version::SIZE_VER0, 48);
    assert_eq!(core::mem::size_of::<uapi::Version>(), 120);
    assert_eq!(uapi::SetAlways::SIZE_VER0, 32);
    assert_eq!(uapi::SegEnd::SIZE_VER0, 16);
    assert_eq!(uapi::Status::SIZE_VER0, 72);
    assert_eq!(uapi::List::SIZE_VER0, 56);
    assert_eq!(uapi::TraceRead::SIZE_VER0, 64);
    assert_eq!(core::mem::size_of::<uapi::Stats>(), 2736);
}

fn fifo(p: i32) -> Sched {
    Sched {
        policy: SCHED_FIFO,
        rt_priority: p,
    }
}

const OTHER: Sched = Sched {
    policy: 0,
    rt_priority: 0,
};

#[test]
fn classes() {
    let c = fifo(10).classify();
    assert_eq!(
        (c.uclass, c.class, c.cpu_prio),
        (uapi::CLASS_FIFO, SchedClass::RealTime(10), 10)
    );
    let c = Sched {
        policy: SCHED_RR,
        rt_priority: 99,
    }
    .classify();
    assert_eq!(
        (c.uclass, c.class),
        (uapi::CLASS_RR, SchedClass::RealTime(99))
    );
    assert!(c.is_rt());
    // SCHED_DEADLINE (6), SCHED_OTHER, and out-of-range priorities are best-effort.
    for s in [
        OTHER,
        Sched {
            policy: 6,
            rt_priority: 0,
        },
        fifo(0),
        fifo(100),
        fifo(-1),
    ] {
        let c = s.classify();
        assert_eq!(
            (c.uclass, c.class, c.cpu_prio),
            (uapi::CLASS_OTHER, SchedClass::BestEffort, 0),
            "{s:?}"
        );
        assert!(!c.is_rt());
    }
}

fn begin(prio: i32) -> uapi::SegBegin {
    uapi::SegBegin {
        size: 24,
        gpu_priority: prio,
        ..Default::default()
    }
}

#[test]
fn seg_begin_checks() {
    assert_eq!(check_seg_begin(&begin(0)), Ok(()));
    assert_eq!(check_seg_begin(&begin(99)), Ok(()));
    assert_eq!(check_seg_begin(&begin(100)), Err(Errno::EINVAL));
    assert_eq!(check_seg_begin(&begin(-1)), Err(Errno::EINVAL));
    let mut b = begin(0);
    b.flags = 1;
    assert_eq!(check_seg_begin(&b), Err(Errno::EINVAL));
}

#[test]
fn seg_begin_permissions() {
    let never = |_| -> bool { panic!("may_raise asked when it does not matter") };
    // Inherit: anyone.
    let r = begin_request(&begin(0), OTHER, never).unwrap();
    assert_eq!((r.segment, r.requested), (Segment::BestEffort, 0));
    assert_eq!(
        begin_request(&begin(0), fifo(5), never)
            .unwrap()
            .class
            .cpu_prio,
        5
    );
    assert_eq!(
        begin_request(&begin(0), fifo(5), never).unwrap().segment,
        rt(5, GpuPriority::Inherit)
    );
    // Explicit: real-time callers only.
    assert_eq!(
        begin_request(&begin(5), OTHER, never),
        Err(Refusal::NeedsRealTime)
    );
    // At or below the own priority: no capability needed.
    let r = begin_request(&begin(10), fifo(10), never).unwrap();
    assert_eq!(r.segment, rt(10, GpuPriority::Explicit(10)));
    assert_eq!(
        begin_request(&begin(3), fifo(10), never).unwrap().segment,
        rt(10, GpuPriority::Explicit(3))
    );
    // Above: what sched_setscheduler needs, for exactly that priority.
    let mut asked = 0;
    assert_eq!(
        begin_request(&begin(50), fifo(10), |p| {
            asked = p;
            false
        }),
        Err(Refusal::AboveOwn)
    );
    assert_eq!(asked, 50);
    assert_eq!(
        begin_request(&begin(50), fifo(10), |_| true)
            .unwrap()
            .segment,
        rt(10, GpuPriority::Explicit(50))
    );
}

fn rt(cpu: u8, gpu: GpuPriority) -> Segment {
    Segment::RealTime { cpu, gpu }
}

#[test]
fn refusals_are_reported_with_the_judged_priority() {
    let mut a = begin(60);
    Refusal::AboveOwn.report(&mut a, fifo(10));
    assert_eq!((a.refused, a.cpu_priority), (uapi::REFUSED_ABOVE_OWN, 10));
    let mut a = begin(60);
    Refusal::NeedsRealTime.report(&mut a, OTHER);
    assert_eq!(
        (a.refused, a.cpu_priority),
        (uapi::REFUSED_NEEDS_REALTIME, 0)
    );
    let mut a = begin(0);
    Refusal::NotOwner.report(&mut a, fifo(7));
    assert_eq!((a.refused, a.cpu_priority), (uapi::REFUSED_NOT_OWNER, 7));
    // The codes are the UAPI's, distinct and non-zero (0: not refused).
    let codes = [Refusal::NotOwner, Refusal::NeedsRealTime, Refusal::AboveOwn].map(Refusal::code);
    assert_eq!(codes, [1, 2, 3]);
}

#[test]
fn flags_and_reserved() {
    let mut e = uapi::SegEnd::default();
    assert_eq!(check_seg_end(&e), Ok(()));
    e.flags = 2;
    assert_eq!(check_seg_end(&e), Err(Errno::EINVAL));
    let mut s = uapi::Status::default();
    assert_eq!(check_status(&s), Ok(()));
    s.flags = 1;
    assert_eq!(check_status(&s), Err(Errno::EINVAL));
    let mut l = uapi::List::default();
    assert_eq!(check_list(&l), Ok(()));
    l.reserved = 1;
    assert_eq!(check_list(&l), Err(Errno::EINVAL));
    l.reserved = 0;
    l.flags = 1;
    assert_eq!(check_list(&l), Err(Errno::EINVAL));
}

#[test]
fn stats_rules() {
    let never = || -> bool { panic!("admin asked without a reset") };
    let mut s = uapi::Stats::default();
    assert_eq!(stats_reset(&s, 56, never), Ok(None));
    s.flags = 2;
    assert_eq!(stats_reset(&s, 56, never), Err(Errno::EINVAL));
    s.flags = uapi::STATS_RESET | 2;
    assert_eq!(stats_reset(&s, 56, never), Err(Errno::EINVAL));
    s.flags = uapi::STATS_RESET;
    assert_eq!(stats_reset(&s, 56, || false), Err(Errno::EPERM));
    let scope = stats_reset(&s, 56, || true).unwrap().unwrap();
    assert!(scope.covers(48, 8) && !scope.covers(56, 8));
}

#[test]
fn trace_read_rules() {
    let mut t = uapi::TraceRead {
        event_size: 96,
        ..Default::default()
    };
    assert_eq!(trace_read_stride(&t, || true), Ok(96));
    assert_eq!(trace_read_stride(&t, || false), Err(Errno::EPERM));
    t.event_size = 200;
    assert_eq!(trace_read_stride(&t, || true), Ok(200));
    t.event_size = 95;
    assert_eq!(trace_read_stride(&t, || true), Err(Errno::EINVAL));
    // Flags before the permission, the permission before the size.
    assert_eq!(trace_read_stride(&t, || false), Err(Errno::EPERM));
    t.flags = 1;
    assert_eq!(trace_read_stride(&t, || false), Err(Errno::EINVAL));
}

#[test]
fn set_always_rules() {
    let mut a = uapi::SetAlways {
        size: 32,
        tsgid: 1023,
        on: 1,
        ..Default::default()
    };
    assert_eq!(check_set_always(&a, || true), Ok((1023, true)));
    assert_eq!(check_set_always(&a, || false), Err(Errno::EPERM));
    a.on = 0;
    assert_eq!(check_set_always(&a, || true), Ok((1023, false)));
    // Arguments before the permission.
    for bad in [
        uapi::SetAlways { on: 2, ..a },
        uapi::SetAlways { tsgid: 1024, ..a },
        uapi::SetAlways { flags: 1, ..a },
        uapi::SetAlways { reserved: 1, ..a },
    ] {
        assert_eq!(check_set_always(&bad, || false), Err(Errno::EINVAL));
    }
    // The permission is asked only for a valid call.
    let mut asked = false;
    let bad = uapi::SetAlways { on: 2, ..a };
    let _ = check_set_always(&bad, || {
        asked = true;
        true
    });
    assert!(!asked);
}

#[test]
fn trace_event_versions() {
    let tsg = |kind, id| uapi::TraceEvent {
        kind,
        cpu_priority: id,
        requested_priority: 9,
        ..Default::default()
    };
    // TSG events: VER0 (as recorded) carries the id in cpu_priority, VER1 in tsgid.
    for kind in [
        uapi::TRACE_TSG_NEW,
        uapi::TRACE_TSG_GONE,
        uapi::TRACE_TSG_ALWAYS,
    ] {
        let ev = tsg(kind, 7);
        let v1 = ev.ver1();
        assert_eq!((v1.tsgid, v1.ev.cpu_priority, v1.reserved), (7, 0, 0));
        assert_eq!(v1.ev.requested_priority, 9);
        assert_eq!(
            uapi::TraceEvent {
                cpu_priority: 7,
                ..v1.ev
            },
            ev
        );
    }
    // Other events keep cpu_priority and have no TSG id.
    for kind in [uapi::TRACE_BEGIN, uapi::TRACE_BOOST, uapi::TRACE_UNBOOST] {
        let v1 = tsg(kind, 50).ver1();
        assert_eq!((v1.tsgid, v1.ev.cpu_priority), (0, 50));
    }
    // VER0's fields lead VER1's: an old reader's stride cuts at the tsgid field.
    assert_eq!(
        core::mem::offset_of!(uapi::TraceEventV1, tsgid),
        uapi::TRACE_EVENT_SIZE_VER0
    );
}
