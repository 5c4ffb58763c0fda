//! Issue 8: one minimal counterexample per class of schedules that
//! exceeded the bounds `gcaps analyze` used to declare. Each test writes out
//! a schedule that is legal under the model assumptions U1-U7 of
//! docs/analysis.md (updates at the ceiling, FIFO runlist lock, ...), the
//! response it produces, the bound the analysis gave before the fix (which
//! the response exceeds) and the hand-computed bound after it.
//!
//! Notation of the time lines: `[a, b)` an interval in ms; `upd` an update
//! (runlist lock held, at the ceiling); `req` a lock request (the caller
//! sleeps at the ceiling in the lock's FIFO queue); `gpu` pure GPU work of
//! the task's TSG.

mod common;

use common::{cfg, cpu, gpu, gpu_pieces, ms, task, taskset as ts, wcrt_cfg};
use gcaps_analysis::model::{GpuSegment, Platform, Segment, Task, Taskset};
use gcaps_analysis::{analyze, is_schedulable, Config, GpuPolicy, NoBound, WaitMode};

/// Class 2, lock queue-ahead: under U3 the rt_mutex grants in FIFO order,
/// so a request waits for one update of every other task with a request
/// outstanding, not for one holder (old D6) plus higher-CPU-priority
/// waiters (old D7).
///
/// eps = 1. i (core 0, prio 10): one segment, G^e = 1. x1..x5 (cores 1..5,
/// prios 5..1): one segment each, G^e = 0.05.
///
/// ```text
/// t     lock / core events                                 GPU
/// 0.1   x1 req, granted: x1 upd [0.1, 1.1)
/// 0.2-0.5 x2..x5 req (queued in that order)
/// 0.6   i released on core 0, i req (queued behind x5)
/// 1.1   x2 upd [1.1, 2.1) (x1's segment open: x2 pending)  x1 gpu [1.1, 1.15)
/// 1.15  x1 req (end), queued behind i
/// 2.1   x3 upd [2.1, 3.1); 3.1 x4 upd; 4.1 x5 upd [4.1, 5.1)
/// 5.1   i upd [5.1, 6.1): i's TSG wins
/// 6.1   x1 upd (end) [6.1, 7.1)                           i gpu [6.1, 7.1)
/// 7.1   i req (end), lock free: i upd [7.1, 8.1)
/// 8.1   i done: response 8.1 - 0.6 = 7.5
/// ```
///
/// Old bound: 1 + 2 eps (own updates) + (1 + 2 + 1) eps = 7 (suspend),
/// 6 (busy). New (D13): own 1 + 2 eps, and each of i's 2 requests may wait
/// for one update of each of the 5 others (none of them is charged
/// elsewhere: lower GPU priority, other cores): 3 + 2 * 5 * eps = 13.
/// (The simulator of issue 13 replays this schedule with these releases:
/// 7.5 under the FIFO lock, 4.5 under a CPU-priority lock.)
#[test]
fn class2_fifo_lock_queue_ahead() {
    let mut tasks = vec![task("i", 0, Some(10), 100.0, vec![gpu(0.0, 1.0)])];
    for k in 1..=5u32 {
        tasks.push(task(
            &format!("x{k}"),
            k,
            Some(6 - k),
            100.0,
            vec![gpu(0.0, 0.05)],
        ));
    }
    let t = ts(6, 1.0, 0.0, 1.0, tasks);
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        let r = wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, mode), "i").unwrap();
        assert!(r >= ms(7.5), "{mode:?}: bound {r} below the schedule");
        assert_eq!(r, ms(13.0), "{mode:?}");
    }
}

/// Class 3, preemptible updates: U2/U4 make an update non-preemptive by
/// running it at the ceiling, which costs a higher-priority task on the
/// caller's core one update of every lower GPU task per ready interval
/// (a lower task's request granted while the task runs preempts it).
///
/// eps = 1. Core 0: i (prio 3, CPU 5), l1 (prio 2) and l2 (prio 1), one
/// segment each. Core 1: r (prio 4), one segment, to hold the lock.
///
/// ```text
/// t     core 0                       lock
/// 0     -                            r req, granted: r upd [0, 1)
/// 0.1   l1 released, runs, l1 req    queued
/// 0.2   l2 released, runs, l2 req    queued behind l1
/// 0.3   i released, runs             
/// 1     l1 upd at the ceiling [1, 2) l1 holds (preempts i)
/// 2     l2 upd at the ceiling [2, 3) l2 holds (preempts i)
/// 3     i runs [3, 7.3)
/// 7.3   i done: response 7.0
/// ```
///
/// Old bound (one non-preemptive update at release, Lemma 8): 5 + eps = 6.
/// New (D14): 5 + 1 ready interval * 2 lower updaters * eps = 7, reached
/// (the simulator of issue 13 gives 7 with these releases).
#[test]
fn class3_ceiling_blocking_by_lower_updaters() {
    let t = ts(
        2,
        1.0,
        0.0,
        1.0,
        vec![
            task("r", 1, Some(4), 100.0, vec![gpu(0.0, 1.0)]),
            task("i", 0, Some(3), 100.0, vec![cpu(5.0)]),
            task("l1", 0, Some(2), 100.0, vec![gpu(0.0, 1.0)]),
            task("l2", 0, Some(1), 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        assert_eq!(
            wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, mode), "i"),
            Some(ms(7.0)),
            "{mode:?}"
        );
    }
}

/// Class 4, several submissions per segment (U7), under tsg-rr: each piece
/// submitted after a gap may have just missed its TSG's turn.
///
/// L = 1, theta = 0. i (core 0, prio 2): one segment, misc 0.2, G^e 2 in 2
/// pieces (0.5, then 1.5, the misc between them). b: a best-effort GPU
/// process (core 1) with plenty of GPU work.
///
/// ```text
/// t     core 0               GPU
/// 0     i submits piece 1    b's slice [0, 1)
/// 1                          i [1, 1.5) (piece done, turn given up)
/// 1.5   i misc [1.5, 1.7)    b's slice [1.5, 2.5)
/// 1.7   i submits piece 2
/// 2.5                        i [2.5, 3.5); b [3.5, 4.5); i [4.5, 5)
/// 5     i done: response 5.0
/// ```
///
/// Old bound (Eq. 3 with D2): 0.2 + 2 + ceil(2/L) rounds * (L + theta) =
/// 4.2. New (D15): ceil(2/L) + (2 - 1) = 3 rounds: 5.2. (The simulator's
/// adversarial search over offsets and piece splits reaches 5.2 with two
/// submissions and 4.2 with one.)
#[test]
fn class4_submissions_lose_the_round_robin_turn() {
    let t = ts(
        2,
        0.0,
        0.0,
        1.0,
        vec![
            task("i", 0, Some(2), 100.0, vec![gpu_pieces(0.2, 2.0, 2)]),
            task("b", 1, None, 1000.0, vec![gpu(0.0, 100.0)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        let r = wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, mode), "i").unwrap();
        assert!(r >= ms(5.0), "{mode:?}: bound {r} below the schedule");
        assert_eq!(r, ms(5.2), "{mode:?}");
    }
    // One submission keeps Eq. 3's count.
    let mut one = t.clone();
    one.tasks[0].segments = vec![gpu(0.2, 2.0)];
    assert_eq!(
        wcrt_cfg(&one, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "i"),
        Some(ms(4.2))
    );
}

/// Class 4 under GCAPS: a segment open across its pieces keeps its TSG on
/// the runlist (the gaps are G^m), but in suspend mode each piece is one
/// more wake-up, after which a lower GPU task on the core may preempt it
/// with an update at the ceiling (D14, D15).
///
/// eps = 0.5, W = 0.5 (two updaters). h (core 0, prio 2, T 20): C 1, one
/// segment misc 1, G^e 3 in 2 pieces. i (core 0, prio 1): C 1, misc 1,
/// G^e 2.
/// R_h = 5 + 2 eps + 2 requests * eps (i queued ahead) + (1 + 2 + 2 wake-ups)
///       ready intervals * 1 lower updater * eps = 5 + 1 + 1 + 2.5 = 9.5
///       (one piece: 9).
/// R_i = 5 + ceil((R + 9.5 - 7.5)/20) * (C + G^m + 2 eps = 3, plus G^e 3 +
///       h's end lock wait (only i's own update could be ahead: 0, D13) +
///       (1 begin + 2 wake-ups) * 0.5 = 4.5) = 12.5 (one piece: 12).
/// Busy: no wake-ups, so the pieces change nothing: R_h = 8.5.
#[test]
fn class4_submissions_are_wake_ups_under_gcaps_suspend() {
    let t = ts(
        1,
        0.5,
        0.1,
        1.0,
        vec![
            task(
                "h",
                0,
                Some(2),
                20.0,
                vec![cpu(1.0), gpu_pieces(1.0, 3.0, 2)],
            ),
            task("i", 0, Some(1), 100.0, vec![cpu(1.0), gpu(1.0, 2.0)]),
        ],
    );
    let s = cfg(GpuPolicy::Gcaps, WaitMode::Suspend);
    assert_eq!(wcrt_cfg(&t, s, "h"), Some(ms(9.5)));
    assert_eq!(wcrt_cfg(&t, s, "i"), Some(ms(12.5)));
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Busy), "h"),
        Some(ms(8.5))
    );
}

/// Class 1, equal CPU priorities on one core, busy mode, eps > 0. The U6
/// argument (the holder's end request is queued before any begin request of
/// a same-core task) holds for the issue's schedule, but not for this
/// variant, where the second task's begin request is queued during the
/// holder's *begin* lock wait:
///
/// eps = 1. Core 0: a and b, CPU priority 5; c (prio 2, CPU only).
/// Core 1: x (prio 9), to hold the lock. Core 2: y (prio 3), z (core 3,
/// prio 7).
///
/// ```text
/// t     core 0                                   lock            GPU
/// 0     -                                        x upd [0, 1)
/// 0.2   a released, runs, a req (begin)          queued
/// 0.3   b released, runs (a sleeps), b req       queued behind a
/// 1     a upd [1, 2) at the ceiling: x wins,     a holds         x [1, 2)
///       a pending; a back to prio 5 (head)
/// 2     b upd [2, 3) preempts a: b pending;      b holds
///       b back to prio 5 at the HEAD of the
///       queue (Linux enqueues a lowered task
///       at the head), ahead of a
/// 2     x req (end), queued behind b
/// 3     b busy-waits for the GPU, forever        x upd [3, 4):
/// 4                                              a wins (FCFS)   idle
///       a needs core 0 for its G^m: never runs; b waits for a's segment.
/// ```
///
/// a and b deadlock; c never runs again; y (GPU priority 3 <= 5) waits
/// behind a's open segment forever. x and z (GPU priority above 5) preempt
/// a's segment and keep their bounds. Old analysis: finite bounds for all.
/// (The simulator of issue 13, with releases x 0, a 0.2, b 0.3, never
/// finishes a, b, y and c, and finishes x and z. The issue's own schedule,
/// where b's begin request comes after a's *end* request, completes: U3
/// grants a first and a runs its end update at the ceiling.)
#[test]
fn class1_equal_priority_busy_waiters_deadlock() {
    let t = ts(
        4,
        1.0,
        0.0,
        1.0,
        vec![
            task("x", 1, Some(9), 100.0, vec![gpu(0.0, 1.0)]),
            task("z", 3, Some(7), 100.0, vec![gpu(0.0, 1.0)]),
            task("a", 0, Some(5), 100.0, vec![gpu(1.0, 2.0)]),
            task("b", 0, Some(5), 100.0, vec![gpu(0.0, 2.0)]),
            task("y", 2, Some(3), 100.0, vec![gpu(0.0, 1.0)]),
            task("c", 0, Some(2), 100.0, vec![cpu(1.0)]),
        ],
    );
    let busy = cfg(GpuPolicy::Gcaps, WaitMode::Busy);
    let r = analyze(&t, &busy);
    assert!(!r.schedulable);
    assert!(!is_schedulable(&t, &busy));
    for name in ["a", "b", "y", "c"] {
        let tr = r.tasks.iter().find(|x| x.name == name).unwrap();
        assert_eq!(tr.wcrt, None, "{name}");
        match &tr.no_bound {
            Some(NoBound::Deadlock {
                tasks,
                cpu,
                priority,
            }) => {
                assert_eq!(tasks, &["a".to_string(), "b".to_string()]);
                assert_eq!((*cpu, *priority), (0, 5));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    for name in ["x", "z"] {
        assert!(wcrt_cfg(&t, busy, name).is_some(), "{name}");
    }
    // No assignment of GPU priorities helps.
    let gpa = Config {
        gpu_priority_assignment: true,
        ..busy
    };
    assert!(!analyze(&t, &gpa).schedulable);
    assert!(!is_schedulable(&t, &gpa));
    // Self-suspending waiters give the core back, and with eps = 0 no
    // update waits: finite bounds. So does tsg-rr (no updates).
    assert!(analyze(&t, &cfg(GpuPolicy::Gcaps, WaitMode::Suspend)).schedulable);
    let mut no_eps = t.clone();
    no_eps.platform.epsilon = 0;
    assert!(analyze(&no_eps, &busy).schedulable);
    assert!(analyze(&t, &cfg(GpuPolicy::TsgRr, WaitMode::Busy)).schedulable);
}

/// U7's field in the file: read, validated and written back exactly.
#[test]
fn submissions_parse_and_round_trip() {
    use gcaps_analysis::{parse_taskset, to_json, to_toml, Format};
    let src = r#"
[platform]
cpus = 1
epsilon = 1.0
theta = 0.2
timeslice = 1.024
[[task]]
name = "a"
period = 100.0
cpu = 0
priority = 98
segments = [{gpu = {misc = 1.0, exec = 9.0, submissions = 3}}, {gpu = {misc = 1.0, exec = 2.0}}]
"#;
    let ts = parse_taskset(src, "s", Format::Toml).unwrap();
    let subs: Vec<u32> = ts.tasks[0].gpu_segments().map(|g| g.submissions).collect();
    assert_eq!(subs, vec![3, 1]);
    assert!(to_toml(&ts).contains("submissions = 3}"));
    assert_eq!(
        to_toml(&ts).matches("submissions").count(),
        1,
        "the default is not written"
    );
    assert_eq!(parse_taskset(&to_toml(&ts), "t", Format::Toml).unwrap(), ts);
    assert_eq!(parse_taskset(&to_json(&ts), "j", Format::Json).unwrap(), ts);
    // The ceiling: 99 is rejected with a message naming it.
    let e = parse_taskset(
        &src.replace("priority = 98", "priority = 99"),
        "s",
        Format::Toml,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("below the update ceiling 99"), "{e}");
}

/// Found by the simulator of issue 13 against a first version of D3's
/// jittered form, which left out a same-core task's end lock waits when
/// the analysed task does not use the GPU: another task of the core can
/// busy-wait behind the open segment meanwhile. Busy, eps = 1. Core 0: t0
/// (prio 98, two segments), t1 (97, one segment), t3 (96, CPU only, 11.207);
/// core 1: t4 (95, two segments), t2 best-effort.
///
/// ```text
/// t       core 0                                  lock
/// 0       t1 cpu, t1 upd [0.045, 1.045)           t1
/// 0.774   t0 released (waits for t1's update)
/// 1.045   t0 cpu, t0 upd [1.090, 2.090): t0 wins  t0
/// 2.090   t0 gpu (busy) [2.090, 2.269), misc      t4 upd [2.090, 3.090)
/// 2.315   t0 req (end): waits behind t4;          
///         t1 spins behind t0's open segment
///         [2.315, 3.090): t3 cannot run
/// 3.090   t0 upd (end), then t1's GPU work, t0's second segment (2 updates),
///         t1's end update: core 0 busy until 7.793
/// 7.793   t3 runs [7.793, 19.0): response 19.0
/// ```
///
/// The first version gave 18.372. Now t0's jittered demand includes its two
/// end lock waits behind t4 (1 each): t3 = 11.207 + t0 (0.869 + 4 updates
/// + 2 waits = 6.869) + t1 (0.296 + 2 updates + 1 wait = 3.296) = 21.372.
#[test]
fn d3_jittered_form_counts_end_lock_waits_for_cpu_only_tasks() {
    let us = |x: u64| x * 1000;
    let seg = |m: u64, e: u64| Segment::Gpu(GpuSegment::new(m, e));
    let c = |x: u64| Segment::Cpu(x);
    let mk = |name: &str, core, prio, period, segments| Task {
        name: name.into(),
        period,
        deadline: period,
        cpu: core,
        priority: prio,
        gpu_priority: None,
        segments,
    };
    let t = Taskset {
        platform: Platform {
            cpus: 2,
            epsilon: us(1000),
            epsilon_fast: None,
            epsilon_cpu: None,
            mechanism: Default::default(),
            epsilon_preempt: None,
            epsilon_handover: None,
            theta: us(200),
            timeslice: us(1024),
        },
        tasks: vec![
            mk(
                "t0",
                0,
                Some(98),
                44_407_801,
                vec![
                    c(44_830),
                    seg(46_154, 179_026),
                    c(287_712),
                    seg(429, 2_607),
                    c(308_076),
                ],
            ),
            mk(
                "t1",
                0,
                Some(97),
                59_947_515,
                vec![c(45_156), seg(34_086, 146_113), c(70_180)],
            ),
            mk("t2", 1, None, 60_508_381, vec![c(5_833_723)]),
            mk("t3", 0, Some(96), 68_775_033, vec![c(11_207_350)]),
            mk(
                "t4",
                1,
                Some(95),
                104_990_568,
                vec![
                    c(853_956),
                    seg(687_717, 1_791_551),
                    c(4_155_324),
                    seg(532_204, 1_395_273),
                    c(2_637_822),
                ],
            ),
        ],
    };
    let r = wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Busy), "t3").unwrap();
    assert!(r >= ms(19.0), "bound {r} below the simulated 19 ms");
    assert_eq!(r, 21_371_719);
}
