//! gcaps-boost (issue 20, `docs/analysis.md` "gcaps-boost"): hand-computed schedules of the holder boost
//! and the tail rule. Times are in units of U = 0.1 ms; every task is released once at the
//! given time and runs its WCET. The schedule each test expects is written out in its
//! comment; `boost_prio` is above every task priority here, the update ceiling above it.
//! The boost moves at the end of the update that changes the running segment, with the
//! runlist (U8 of `docs/analysis.md`, `BoostTiming::AtEnd`); (f) shows what boosting at
//! the decision, before the submit, would add.
//! A job ends when its thread runs again after its last step (it returns from the end
//! call), so an owner whose end update lets a higher task of its core run finishes after
//! that task.

use gcaps_sim::trace::Mark;
use gcaps_sim::{
    run, BoostTiming, Config, GpuPolicy, LockOrder, Mechanism, MiscSplit, RunResult, Scenario,
    SimModel, SimSegment, SimTask, WaitMode,
};

const U: u64 = 100_000;
const MS: u64 = 1_000_000;

fn cpu(x: u64) -> SimSegment {
    SimSegment::Cpu(x * U)
}

fn gpu(misc: u64, exec: u64) -> SimSegment {
    SimSegment::Gpu {
        misc: misc * U,
        exec: exec * U,
        submissions: 1,
    }
}

fn task(name: &str, cpu: u32, prio: u32, segments: Vec<SimSegment>) -> SimTask {
    SimTask {
        name: name.into(),
        cpu,
        priority: Some(prio),
        gpu_priority: None,
        period: 10_000 * U,
        deadline: 10_000 * U,
        segments,
    }
}

/// epsilon = 10 U, theta 0, one long slice.
fn model(cpus: u32, tasks: Vec<SimTask>) -> SimModel {
    SimModel {
        cpus,
        epsilon: 10 * U,
        epsilon_fast: 10 * U,
        epsilon_cpu: 10 * U,
        mechanism: Mechanism::Reload,
        epsilon_preempt: 10 * U,
        epsilon_handover: 10 * U,
        theta: 0,
        timeslice: 1_000 * U,
        tasks,
    }
}

/// Which rules are on.
#[derive(Clone, Copy, Debug)]
enum Rules {
    /// Plain GCAPS: no boost, back from the ceiling to the head (U6).
    Gcaps,
    /// gcaps-boost: holder boost and tail rule.
    Boost,
    /// GCAPS with only the tail rule (no boost).
    TailOnly,
    /// Holder boost without the tail rule (head, as Linux).
    BoostOnly,
}

fn config(rules: Rules, mode: WaitMode, horizon: u64) -> Config {
    let mut cfg = match rules {
        Rules::Boost => Config::new(GpuPolicy::GcapsBoost, mode, horizon),
        _ => Config::new(GpuPolicy::Gcaps, mode, horizon),
    };
    match rules {
        Rules::Gcaps | Rules::Boost => {}
        Rules::TailOnly => cfg.tail = true,
        Rules::BoostOnly => cfg.boost = true,
    }
    cfg.record = true;
    cfg
}

fn sim(m: &SimModel, rules: Rules, mode: WaitMode, misc: MiscSplit, rel: &[u64]) -> RunResult {
    let mut sc = Scenario::synchronous(m.tasks.len());
    sc.misc = misc;
    sc.releases = rel.iter().map(|&r| Some(vec![r * U])).collect();
    run(m, &config(rules, mode, 1_000 * U), &sc).expect("valid model")
}

/// Responses in U.
fn responses(r: &RunResult) -> Vec<u64> {
    r.tasks
        .iter()
        .map(|s| {
            assert_eq!(s.jobs, 1, "every task finishes its one job");
            s.max / U
        })
        .collect()
}

/// The boost changes of the run: (time in U, "+" boost / "-" unboost, task, by).
fn boosts(r: &RunResult) -> Vec<(u64, &'static str, usize, usize)> {
    r.trace
        .as_ref()
        .expect("recorded")
        .markers
        .iter()
        .filter_map(|mk| match mk.mark {
            Mark::Boost { task, by } => Some((mk.time / U, "+", task, by)),
            Mark::Unboost { task, by } => Some((mk.time / U, "-", task, by)),
            _ => None,
        })
        .collect()
}

const MODES: [WaitMode; 2] = [WaitMode::Busy, WaitMode::Suspend];

/// (a) D4: a running lower-GPU-priority segment's owner preempted on its core by a CPU hog
/// delays every remote task waiting for the GPU; the boost removes that.
///
/// Core 0: L (prio 2, G^m 30 before G^e 20) at 0, H (prio 9, CPU 50, the hog) at 15.
/// Core 1: T (prio 1 = its GPU priority, below L's; G^e 20) at 20.
///
/// gcaps (both modes): L's begin 0-10 ({L} at 10), misc 10-15; H preempts L 15-65; L's
/// misc 65-90, GPU 90-110, end 110-120 ({T} at 120). T: begin 20-30 (pending), waits
/// 30-120 (H's 50 included), GPU 120-140, end 140-150. Responses L 120, H 50, T 130.
///
/// gcaps-boost: L boosted at 10 (end of its begin update); H cannot preempt it. L's misc
/// 10-40, GPU 40-60, end 60-70 ({T} at 70; L unboosted, T boosted, both by L's update).
/// T: GPU 70-90, end 90-100 (T unboosted): T waits 30-70, L's own work only.
/// Suspend: H runs 40-60 while L sleeps, L wakes boosted at 60 and preempts H for its end
/// update 60-70, H 70-100 (H 85), then L returns from its end call (L 100). Busy: L spins
/// boosted 40-60, end 60-70, H 70-120 (H 105), L 120.
#[test]
fn a_d4_hog_on_the_holders_core_no_longer_delays_remote_tasks() {
    let m = model(
        2,
        vec![
            task("L", 0, 2, vec![gpu(30, 20)]),
            task("H", 0, 9, vec![cpu(50)]),
            task("T", 1, 1, vec![gpu(0, 20)]),
        ],
    );
    for mode in MODES {
        let r = sim(&m, Rules::Gcaps, mode, MiscSplit::Before, &[0, 15, 20]);
        assert_eq!(responses(&r), vec![120, 50, 130], "gcaps {mode:?}");
        assert!(boosts(&r).is_empty());
        let r = sim(&m, Rules::Boost, mode, MiscSplit::Before, &[0, 15, 20]);
        let (l, h) = if mode == WaitMode::Suspend {
            (100, 85)
        } else {
            (120, 105)
        };
        assert_eq!(responses(&r), vec![l, h, 80], "gcaps-boost {mode:?}");
        assert_eq!(
            boosts(&r),
            vec![
                (10, "+", 0, 0),
                (70, "-", 0, 0),
                (70, "+", 2, 0),
                (100, "-", 2, 2)
            ]
        );
    }
}

/// (b) The hand-over on one core (suspend): I's end update makes the preempted lower
/// segment of its own core (Lo) the winner, and the boosted Lo preempts I before I
/// finishes.
///
/// Core 0: Lo (prio 2, G^e 40 then G^m 10) at 0, I (prio 9, G^e 20, then CPU 30) at 20.
/// Lo's begin 0-10 ({Lo} at 10, Lo boosted), GPU 10-30. I (Lo sleeps): begin 20-30 ({I}
/// at 30: Lo's TSG preempted with 20 left; Lo unboosted, I boosted), GPU 30-50, end
/// 50-60 ({Lo} at 60; I unboosted, Lo boosted by I's update). Lo's GPU 60-80; I's CPU
/// 60-80; at 80 Lo wakes boosted and preempts I: Lo's misc 80-90, end 90-100 (unboosted);
/// I 100-110, Lo returns 110. Responses: Lo 110, I 90 (Lo's G^m and end update, 20,
/// inside I's job).
/// Plain gcaps: I's CPU 60-90 (I 70), Lo's misc 90-100, end 100-110 (Lo 110).
#[test]
fn b_hand_over_on_one_core_boosted_owner_preempts_the_ender() {
    let m = model(
        1,
        vec![
            task("Lo", 0, 2, vec![gpu(10, 40)]),
            task("I", 0, 9, vec![gpu(0, 20), cpu(30)]),
        ],
    );
    let w = WaitMode::Suspend;
    let r = sim(&m, Rules::Boost, w, MiscSplit::After, &[0, 20]);
    assert_eq!(responses(&r), vec![110, 90]);
    assert_eq!(
        boosts(&r),
        vec![
            (10, "+", 0, 0),
            (30, "-", 0, 1),
            (30, "+", 1, 1),
            (60, "-", 1, 1),
            (60, "+", 0, 1),
            (100, "-", 0, 0)
        ]
    );
    let tr = r.trace.as_ref().expect("recorded");
    assert!(tr.markers.iter().any(|mk| mk.time == 80 * U
        && mk.mark
            == Mark::Preempt {
                core: 0,
                by: 0,
                victim: 1
            }));
    let r = sim(&m, Rules::Gcaps, w, MiscSplit::After, &[0, 20]);
    assert_eq!(responses(&r), vec![110, 70]);
}

/// (c) Local blocking of a higher task by a boosted lower segment: busy mode up to the
/// whole segment, suspend mode its CPU parts.
///
/// Core 0: Lo (prio 2, G^m 20 split 10 | G^e 30 | 10) at 0, I (prio 9, CPU 40) at 15.
/// Lo's begin 0-10 (boosted at 10), misc 10-20.
/// Busy: Lo spins boosted 20-50, misc 50-60, end 60-70 (unboosted); I 70-110: I 95,
/// blocked 55 = the rest of Lo's segment (5 + 30 + 10 + epsilon); Lo returns 110.
/// Suspend: Lo sleeps 20-50 and I runs 20-50; Lo wakes boosted at 50: misc 50-60, end
/// 60-70; I 70-80: I 65, blocked 25 = Lo's CPU parts (5 + 10 + epsilon); Lo returns 80.
/// Plain gcaps (both modes): I preempts Lo's misc 15-55; Lo misc 55-60, GPU 60-90, misc
/// 90-100, end 100-110: I 40, Lo 110.
#[test]
fn c_local_blocking_by_a_boosted_lower_segment_busy_vs_suspend() {
    let m = model(
        1,
        vec![
            task("Lo", 0, 2, vec![gpu(20, 30)]),
            task("I", 0, 9, vec![cpu(40)]),
        ],
    );
    let r = sim(&m, Rules::Boost, WaitMode::Busy, MiscSplit::Even, &[0, 15]);
    assert_eq!(responses(&r), vec![110, 95]);
    let r = sim(
        &m,
        Rules::Boost,
        WaitMode::Suspend,
        MiscSplit::Even,
        &[0, 15],
    );
    assert_eq!(responses(&r), vec![80, 65]);
    for mode in MODES {
        let r = sim(&m, Rules::Gcaps, mode, MiscSplit::Even, &[0, 15]);
        assert_eq!(responses(&r), vec![110, 40], "gcaps {mode:?}");
    }
}

/// (e) A boosted owner losing the GPU to a higher remote begin is unboosted and goes to
/// the tail of its level.
///
/// Core 0: K (prio 5, G^m 30 before G^e 10) at 0, P (prio 5, CPU 20) at 12, after K's
/// begin update (so K is ahead of P in prio 5 until it loses the boost). Core 1: R (prio
/// 9, G^e 20) at 15.
/// gcaps-boost: K's begin 0-10 (boosted at 10), misc 10-25 (P waits); R's begin 15-25
/// ({R} at 25: K unboosted, R boosted, by R) sends K to the tail of prio 5, behind P:
/// P 25-45 (P 33); K's misc 45-60; R's GPU 25-45, end 45-55 ({K} at 55, K boosted by R;
/// R 40); K's GPU 60-70, end 70-80 (K 80). Same in both modes.
/// Without the tail rule (boost only) K stays at the head: misc 25-40, then suspend: P
/// 40-60 (P 48), K's GPU 55-65, end 65-75 (K 75); busy: K spins 40-55 ahead of P, boosted
/// at 55, GPU 55-65, end 65-75, back at the head (K 75), P 75-95 (P 83).
#[test]
fn e_owner_losing_the_gpu_is_unboosted_to_the_tail() {
    let m = model(
        2,
        vec![
            task("K", 0, 5, vec![gpu(30, 10)]),
            task("P", 0, 5, vec![cpu(20)]),
            task("R", 1, 9, vec![gpu(0, 20)]),
        ],
    );
    for mode in MODES {
        let r = sim(&m, Rules::Boost, mode, MiscSplit::Before, &[0, 12, 15]);
        assert_eq!(responses(&r), vec![80, 33, 40], "gcaps-boost {mode:?}");
        assert_eq!(
            boosts(&r),
            vec![
                (10, "+", 0, 0),
                (25, "-", 0, 2),
                (25, "+", 2, 2),
                (55, "-", 2, 2),
                (55, "+", 0, 2),
                (80, "-", 0, 0)
            ]
        );
    }
    let r = sim(
        &m,
        Rules::BoostOnly,
        WaitMode::Suspend,
        MiscSplit::Before,
        &[0, 12, 15],
    );
    assert_eq!(responses(&r), vec![75, 48, 40]);
    let r = sim(
        &m,
        Rules::BoostOnly,
        WaitMode::Busy,
        MiscSplit::Before,
        &[0, 12, 15],
    );
    assert_eq!(responses(&r), vec![75, 83, 40]);
}

/// (d) The minimal D16 case (`tests/regressions/u6-equal-priority-busy-deadlock.toml`,
/// schedule in its header): A and B (core 0, prio 5), C (core 1, prio 7), epsilon 1 ms.
/// Plain gcaps, busy: deadlock (A and B never finish). gcaps-boost, busy:
/// C's begin 0.4-1.4 (C boosted); A's begin 1.4-2.4 (pending) sends A to the *tail* of
/// prio 5; B's begin 2.4-3.4 (pending) sends B to the tail, behind A. A's misc 3.4-4.4,
/// spins; C's end 4.4-5.4 ({A}: A boosted), A's GPU 5.4-10.4, end 10.4-11.4 ({B}: B
/// boosted, A to the tail); B's misc 11.4-12.4, GPU 12.4-17.4, end 17.4-18.4 (B to the
/// tail, behind A); A's CPU 18.4-19.4, B's 19.4-20.4. Responses A 19.4, B 20.4, C 5.4.
/// With only the tail rule (no boost): the same schedule (A spins at the head of prio 5
/// when it wins; B behind it). With only the boost (head rule): B returns at 3.4 to the
/// head, ahead of A, runs its misc 3.4-4.4 and spins; at 5.4 A is boosted and preempts it:
/// A's misc 5.4-6.4, GPU 6.4-11.4, end 11.4-12.4 (B boosted); B's GPU 12.4-17.4, end
/// 17.4-18.4, back to the head: B's CPU 18.4-19.4, A's 19.4-20.4.
/// Either rule alone removes this deadlock; gcaps-boost has both.
#[test]
fn d_d16_case_deadlocks_under_gcaps_and_completes_with_boost_or_tail() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/regressions/u6-equal-priority-busy-deadlock.toml"
    ))
    .expect("regression file");
    let input = gcaps_sim::input::parse(&text, "u6", gcaps_analysis::Format::Toml).expect("valid");
    let model = SimModel::from_taskset(&input.taskset).expect("simulable");
    let mut sc = Scenario::synchronous(model.tasks.len());
    input.sim.apply(&model, &mut sc);
    let resp = |rules: Rules, lock: LockOrder| -> Vec<(u64, u64)> {
        let mut cfg = config(rules, WaitMode::Busy, 50 * MS);
        cfg.lock = lock;
        let r = run(&model, &cfg, &sc).expect("runs");
        r.tasks.iter().map(|t| (t.jobs, t.max / (U / 10))).collect()
    };
    for lock in [LockOrder::Fifo, LockOrder::CpuPriority] {
        // Deadlock: A and B unfinished (age 100 ms at the stop).
        assert_eq!(
            resp(Rules::Gcaps, lock),
            vec![(0, 10_000), (0, 10_000), (1, 540)]
        );
        let done = vec![(1, 1940), (1, 2040), (1, 540)];
        assert_eq!(resp(Rules::Boost, lock), done, "gcaps-boost {lock:?}");
        assert_eq!(resp(Rules::TailOnly, lock), done, "tail only {lock:?}");
        assert_eq!(
            resp(Rules::BoostOnly, lock),
            vec![(1, 2040), (1, 1940), (1, 540)],
            "boost only {lock:?}"
        );
    }
}

/// (f) When the boost moves (U8). The finding of
/// `tests/regressions/boost-handover-update-busy.toml`: R (core 1, prio 8, G^e 30) at 0, L
/// (core 0, prio 1, G^e 20) at 5, H (core 0, prio 9, CPU 25) at 12; busy.
/// R's begin 0-10 ({R} at 10), GPU 10-40, end 40-50; L's begin 10-20 (pending), spins at
/// prio 1; H blocked by L's update 12-20, runs 20-40.
/// At the end (U8, and unboost at the decision, boost at the end): L is boosted at 50
/// with its TSG; H runs 40-45 before: H 33. L's GPU 50-70, end 70-80: L 75.
/// At the decision (before the submit): L is boosted at 40 and spins at boost_prio 40-50
/// before its TSG is eligible, GPU 50-70, end 70-80; H 80-85: H 73 = C 25 + 8 (L's
/// update) + epsilon + G^e + epsilon; L returns 85: L 80.
#[test]
fn f_boost_at_the_decision_adds_the_hand_over_update_to_the_blocking() {
    let m = model(
        2,
        vec![
            task("H", 0, 9, vec![cpu(25)]),
            task("L", 0, 1, vec![gpu(0, 20)]),
            task("R", 1, 8, vec![gpu(0, 30)]),
        ],
    );
    let at = |timing: BoostTiming| {
        let mut sc = Scenario::synchronous(3);
        sc.releases = [12, 5, 0].iter().map(|&r| Some(vec![r * U])).collect();
        let mut cfg = config(Rules::Boost, WaitMode::Busy, 1_000 * U);
        cfg.boost_timing = timing;
        let r = run(&m, &cfg, &sc).expect("runs");
        (responses(&r), boosts(&r))
    };
    let (resp, b) = at(BoostTiming::AtEnd);
    assert_eq!(resp, vec![33, 75, 50]);
    assert_eq!(
        b,
        vec![
            (10, "+", 2, 2),
            (50, "-", 2, 2),
            (50, "+", 1, 2),
            (80, "-", 1, 1)
        ]
    );
    let (resp, b) = at(BoostTiming::UnboostAtDecision);
    assert_eq!(resp, vec![33, 75, 50]);
    assert_eq!(
        b,
        vec![
            (10, "+", 2, 2),
            (40, "-", 2, 2),
            (50, "+", 1, 2),
            (70, "-", 1, 1)
        ]
    );
    let (resp, b) = at(BoostTiming::AtDecision);
    assert_eq!(resp, vec![73, 80, 50]);
    assert_eq!(
        b,
        vec![
            (0, "+", 2, 2),
            (40, "-", 2, 2),
            (40, "+", 1, 2),
            (70, "-", 1, 1)
        ]
    );
}
