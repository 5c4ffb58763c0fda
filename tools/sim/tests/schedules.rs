//! Hand-computed schedules, one rule each. Times are in units of U = 0.1 ms; every task
//! is released at explicit times, runs its WCET and puts G^m as the scenario says.
//! The schedule each test expects is written out in its comment.

use gcaps_sim::trace::Mark;
use gcaps_sim::{
    run, Config, GpuPolicy, LockOrder, Mechanism, MiscSplit, RunResult, Scenario, SimModel,
    SimSegment, SimTask, WaitMode,
};

const U: u64 = 100_000;

fn cpu(x: u64) -> SimSegment {
    SimSegment::Cpu(x * U)
}

fn gpu(misc: u64, exec: u64, submissions: u32) -> SimSegment {
    SimSegment::Gpu {
        misc: misc * U,
        exec: exec * U,
        submissions,
    }
}

fn task(name: &str, cpu: u32, prio: Option<u32>, segments: Vec<SimSegment>) -> SimTask {
    SimTask {
        name: name.into(),
        cpu,
        priority: prio,
        gpu_priority: None,
        period: 10_000 * U,
        deadline: 10_000 * U,
        segments,
    }
}

fn model(cpus: u32, eps: u64, theta: u64, slice: u64, tasks: Vec<SimTask>) -> SimModel {
    SimModel {
        cpus,
        epsilon: eps * U,
        epsilon_fast: eps * U,
        epsilon_cpu: eps * U,
        mechanism: Mechanism::Reload,
        epsilon_preempt: eps * U,
        epsilon_handover: eps * U,
        theta: theta * U,
        timeslice: slice * U,
        tasks,
    }
}

/// Runs with one release per task at the given times (in U) and returns the result.
fn sim(
    m: &SimModel,
    policy: GpuPolicy,
    mode: WaitMode,
    lock: LockOrder,
    misc: MiscSplit,
    releases: &[u64],
) -> RunResult {
    let mut sc = Scenario::synchronous(m.tasks.len());
    sc.misc = misc;
    sc.releases = releases.iter().map(|&r| Some(vec![r * U])).collect();
    let mut cfg = Config::new(policy, mode, 1_000 * U);
    cfg.lock = lock;
    cfg.record = true;
    run(m, &cfg, &sc).expect("valid model")
}

fn responses(r: &RunResult) -> Vec<u64> {
    r.tasks
        .iter()
        .map(|s| {
            assert_eq!(s.jobs, 1, "every task finishes its one job");
            s.max / (U / 10)
        })
        .collect()
}

/// Responses in tenths of U (so 4.5 U = 45).
fn resp(m: &SimModel, policy: GpuPolicy, mode: WaitMode, releases: &[u64]) -> Vec<u64> {
    responses(&sim(
        m,
        policy,
        mode,
        LockOrder::Fifo,
        MiscSplit::Before,
        releases,
    ))
}

/// Core 0: A (prio 5, C = 30 U) released at 0, B (prio 5, C = 20) at 10, H (prio 9,
/// C = 10) at 20. A 0-20, H preempts 20-30, A resumes at the head of prio 5 (before B,
/// which arrived earlier than A's return) 30-40, B 40-60.
/// Responses: A 40, B 50, H 10.
#[test]
fn cpu_fifo_among_equal_priorities_and_preempted_task_keeps_head() {
    let m = model(
        1,
        10,
        0,
        10,
        vec![
            task("A", 0, Some(5), vec![cpu(30)]),
            task("B", 0, Some(5), vec![cpu(20)]),
            task("H", 0, Some(9), vec![cpu(10)]),
        ],
    );
    for policy in [GpuPolicy::TsgRr, GpuPolicy::Gcaps] {
        for mode in [WaitMode::Busy, WaitMode::Suspend] {
            assert_eq!(resp(&m, policy, mode, &[0, 10, 20]), vec![400, 500, 100]);
        }
    }
}

/// Best-effort work runs only when no real-time task is runnable on the core: BE (C = 20)
/// at 0, RT (prio 1, C = 10) at 5: BE 0-5, RT 5-15, BE 15-30. Responses: BE 30, RT 10.
#[test]
fn best_effort_runs_below_every_real_time_task() {
    let m = model(
        1,
        0,
        0,
        10,
        vec![
            task("be", 0, None, vec![cpu(20)]),
            task("rt", 0, Some(1), vec![cpu(10)]),
        ],
    );
    assert_eq!(
        resp(&m, GpuPolicy::TsgRr, WaitMode::Suspend, &[0, 5]),
        vec![300, 100]
    );
}

/// GCAPS preempts the GPU at segment boundaries, after the update delay. epsilon = 10,
/// theta = 10 (charged by GCAPS never: the load after a submit is part of epsilon).
/// L (core 1, prio 5, G^e 100) at 0: begin update 0-10, GPU 10-30;
/// H (core 0, prio 10, G^e 30) at 20: begin update 20-30, runlist {H} at 30 preempts L
/// (80 left); H on the GPU 30-60, end update 60-70 gives the runlist back to L at 70;
/// L 70-150, end update 150-160. Responses: L 160, H 50.
#[test]
fn gcaps_preempts_at_segment_begin_after_the_update() {
    let m = model(
        2,
        10,
        10,
        1000,
        vec![
            task("L", 1, Some(5), vec![gpu(0, 100, 1)]),
            task("H", 0, Some(10), vec![gpu(0, 30, 1)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        let r = sim(
            &m,
            GpuPolicy::Gcaps,
            mode,
            LockOrder::Fifo,
            MiscSplit::Before,
            &[0, 20],
        );
        assert_eq!(responses(&r), vec![1600, 500]);
        let tr = r.trace.expect("recorded");
        let runlists: Vec<(u64, Vec<usize>)> = tr
            .markers
            .iter()
            .filter_map(|mk| match &mk.mark {
                Mark::Runlist { tsgs, .. } => Some((mk.time / U, tsgs.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            runlists,
            vec![
                (10, vec![0]),
                (30, vec![1]),
                (70, vec![0]),
                (160, vec![0, 1])
            ]
        );
    }
}

/// Equal GPU priorities: first come, first served, no preemption; the lock is FIFO.
/// epsilon = 10. A (core 0, prio 5, G^e 40) at 0: update 0-10, GPU 10-50, end 50-60.
/// B (core 1, prio 5, G^e 40) at 5: waits for the lock until 10, update 10-20 (B pending,
/// no runlist change), suspended; A's end update gives the runlist to B at 60; B 60-100,
/// end 100-110. Responses: A 60, B 105.
#[test]
fn gcaps_equal_gpu_priorities_are_served_in_begin_order() {
    let m = model(
        2,
        10,
        0,
        1000,
        vec![
            task("A", 0, Some(5), vec![gpu(0, 40, 1)]),
            task("B", 1, Some(5), vec![gpu(0, 40, 1)]),
        ],
    );
    assert_eq!(
        resp(&m, GpuPolicy::Gcaps, WaitMode::Suspend, &[0, 5]),
        vec![600, 1050]
    );
}

/// Round robin with time slice L = 20 and context switch theta = 10. A (G^e 50) and B
/// (G^e 30) on two cores, both submit at 0. Switch into A 0-10, A 10-30, switch 30-40,
/// B 40-60, switch 60-70, A 70-90, switch 90-100, B 100-110 (done mid-slice), switch
/// 110-120, A 120-130. Responses: A 130, B 110.
#[test]
fn tsg_rr_slices_with_context_switches() {
    let m = model(
        2,
        0,
        10,
        20,
        vec![
            task("A", 0, Some(5), vec![gpu(0, 50, 1)]),
            task("B", 1, Some(6), vec![gpu(0, 30, 1)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        assert_eq!(resp(&m, GpuPolicy::TsgRr, mode, &[0, 0]), vec![1300, 1100]);
    }
}

/// A segment submitting in two pieces loses its turn at each gap (U7). L = 20, theta = 10.
/// A: G^m 30 cut evenly into 10 | 10 | 10 around two pieces of 20. B (other core): G^e 60.
/// B's switch 0-10, B 10-30; A's misc 0-10, piece 1 waits; switch 30-40, A 40-60 (piece
/// done), switch to B 60-70, B 70-90; A's misc 60-70, piece 2 waits; switch 90-100, A
/// 100-120; switch 120-130, B 130-150 (done); A's misc 120-130.
/// Responses: A 130, B 150.
#[test]
fn tsg_rr_each_submission_can_lose_its_turn() {
    let m = model(
        2,
        0,
        10,
        20,
        vec![
            task("A", 0, Some(5), vec![gpu(30, 40, 2)]),
            task("B", 1, Some(6), vec![gpu(0, 60, 1)]),
        ],
    );
    let r = sim(
        &m,
        GpuPolicy::TsgRr,
        WaitMode::Suspend,
        LockOrder::Fifo,
        MiscSplit::Even,
        &[0, 0],
    );
    assert_eq!(responses(&r), vec![1300, 1500]);
}

/// The update delay: one task, C 10, G^m 10, G^e 20, C 10, epsilon 10, theta 5.
/// GCAPS: CPU 0-10, begin update 10-20, misc 20-30, GPU 30-50, end update 50-60, CPU
/// 60-70: 70. tsg-rr: CPU 0-10, misc 10-20, switch 20-25, GPU 25-45, CPU 45-55: 55.
#[test]
fn update_delay_epsilon_per_segment_boundary() {
    let m = model(
        1,
        10,
        5,
        1000,
        vec![task(
            "A",
            0,
            Some(5),
            vec![cpu(10), gpu(10, 20, 1), cpu(10)],
        )],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        assert_eq!(resp(&m, GpuPolicy::Gcaps, mode, &[0]), vec![700]);
        assert_eq!(resp(&m, GpuPolicy::TsgRr, mode, &[0]), vec![550]);
    }
}

/// An update runs at the ceiling: a higher-priority task on the same core released during
/// a lower task's update waits for it (U4). L (prio 1, G^e 50) at 0, H (prio 9, C 20) at
/// 5, epsilon 10. GCAPS: L's update 0-10, H 10-30: H responds in 25. tsg-rr: H 5-25: 20.
#[test]
fn update_is_non_preemptive_on_its_core() {
    let m = model(
        1,
        10,
        0,
        1000,
        vec![
            task("L", 0, Some(1), vec![gpu(0, 50, 1)]),
            task("H", 0, Some(9), vec![cpu(20)]),
        ],
    );
    let g = resp(&m, GpuPolicy::Gcaps, WaitMode::Suspend, &[0, 5]);
    assert_eq!(g[1], 250);
    let r = resp(&m, GpuPolicy::TsgRr, WaitMode::Suspend, &[0, 5]);
    assert_eq!(r[1], 200);
}

/// Busy-waiting keeps the core: H (prio 9, G^e 40) and L (prio 1, C 20) on core 0, both at
/// 0, theta 0. tsg-rr busy: H spins 0-40, L 40-60 (60). Suspend: L 0-20 (20).
/// GCAPS busy, epsilon 10: H update 0-10, spins 10-50, end update 50-60, L 60-80 (80);
/// suspend: L runs 10-30 while H waits for the GPU (30).
#[test]
fn busy_waiting_blocks_a_lower_task_on_its_core() {
    let m = model(
        1,
        10,
        0,
        1000,
        vec![
            task("H", 0, Some(9), vec![gpu(0, 40, 1)]),
            task("L", 0, Some(1), vec![cpu(20)]),
        ],
    );
    let mut mz = m.clone();
    mz.epsilon = 0;
    assert_eq!(
        resp(&mz, GpuPolicy::TsgRr, WaitMode::Busy, &[0, 0]),
        vec![400, 600]
    );
    assert_eq!(
        resp(&mz, GpuPolicy::TsgRr, WaitMode::Suspend, &[0, 0]),
        vec![400, 200]
    );
    assert_eq!(
        resp(&m, GpuPolicy::Gcaps, WaitMode::Busy, &[0, 0]),
        vec![600, 800]
    );
    assert_eq!(
        resp(&m, GpuPolicy::Gcaps, WaitMode::Suspend, &[0, 0]),
        vec![600, 300]
    );
}

/// Lock order: X (core 0, prio 1, G^e 100) at 0, Y (core 1, prio 2, G^e 20) at 2, Z
/// (core 2, prio 9, G^e 15) at 5; epsilon 10.
/// FIFO (U3): X 0-10 ({X} at 10, GPU 10-20); Y 10-20 ({Y} at 20, GPU 20-30); Z 20-30 ({Z}
/// at 30, GPU 30-45), Z's end 45-55 ({Y} at 55, Y 55-65), Y's end 65-75 ({X} at 75, X
/// 75-165), X's end 165-175. Responses: X 175, Y 73, Z 50.
/// CPU-priority order (the old model): Z is granted before Y: Z 10-20 ({Z} at 20, GPU
/// 20-35), Y 20-30 (pending, no change), Z's end 35-45 ({Y} at 45, Y 45-65), Y's end
/// 65-75, X 75-165, 165-175. Responses: X 175, Y 73, Z 40.
#[test]
fn lock_is_fifo_at_the_ceiling() {
    let m = model(
        3,
        10,
        0,
        1000,
        vec![
            task("X", 0, Some(1), vec![gpu(0, 100, 1)]),
            task("Y", 1, Some(2), vec![gpu(0, 20, 1)]),
            task("Z", 2, Some(9), vec![gpu(0, 15, 1)]),
        ],
    );
    let fifo = sim(
        &m,
        GpuPolicy::Gcaps,
        WaitMode::Suspend,
        LockOrder::Fifo,
        MiscSplit::Before,
        &[0, 2, 5],
    );
    assert_eq!(responses(&fifo), vec![1750, 730, 500]);
    let prio = sim(
        &m,
        GpuPolicy::Gcaps,
        WaitMode::Suspend,
        LockOrder::CpuPriority,
        MiscSplit::Before,
        &[0, 2, 5],
    );
    assert_eq!(responses(&prio), vec![1750, 730, 400]);
}

/// Under GCAPS a best-effort task's GPU work runs only while no real-time segment is open,
/// and best-effort tasks never update. BE (core 1, G^e 50) at 0, RT (core 0, prio 5, G^e
/// 20) at 10, epsilon 10, theta 5 (never charged here: under GCAPS the first load and every
/// load after a submit are part of epsilon). BE GPU 0-20; RT update 10-20 ({RT} at 20, BE
/// preempted with 30 left), RT GPU 20-40, end update 40-50 (all eligible at 50), BE 50-80.
/// Responses: BE 80, RT 40.
#[test]
fn gcaps_best_effort_gpu_work_waits_for_real_time_segments() {
    let m = model(
        2,
        10,
        5,
        1000,
        vec![
            task("be", 1, None, vec![gpu(0, 50, 1)]),
            task("rt", 0, Some(5), vec![gpu(0, 20, 1)]),
        ],
    );
    assert_eq!(
        resp(&m, GpuPolicy::Gcaps, WaitMode::Suspend, &[0, 10]),
        vec![800, 400]
    );
}

/// A job released while the previous one still runs starts when it finishes (one thread
/// per task); its response counts from its own release. C = 30, releases at 0 and 10:
/// responses 30 and 50, one miss with D = 40.
#[test]
fn backlogged_job_starts_after_the_previous_one() {
    let mut t = task("A", 0, Some(5), vec![cpu(30)]);
    t.deadline = 40 * U;
    let m = model(1, 0, 0, 10, vec![t]);
    let mut sc = Scenario::synchronous(1);
    sc.releases = vec![Some(vec![0, 10 * U])];
    let r = run(
        &m,
        &Config::new(GpuPolicy::TsgRr, WaitMode::Suspend, 1000 * U),
        &sc,
    )
    .expect("valid");
    assert_eq!(r.tasks[0].responses, vec![30 * U, 50 * U]);
    assert_eq!(r.tasks[0].misses, 1);
}

/// After its update a task goes back to the head of its priority level (Linux enqueues a
/// task whose priority is lowered at the head), ahead of an equal-priority task released
/// meanwhile. A (prio 5, G^m 10 before G^e 10) at 0, B (prio 5, C 10) at 5, one core,
/// epsilon 10, suspend: A's update 0-10, A's misc 10-20, A on the GPU 20-30 while B runs
/// 20-30, A's end update 30-40. Responses: A 40, B 25.
#[test]
fn updater_returns_to_the_head_of_its_level() {
    let m = model(
        1,
        10,
        0,
        1000,
        vec![
            task("A", 0, Some(5), vec![gpu(10, 10, 1)]),
            task("B", 0, Some(5), vec![cpu(10)]),
        ],
    );
    assert_eq!(
        resp(&m, GpuPolicy::Gcaps, WaitMode::Suspend, &[0, 5]),
        vec![400, 250]
    );
}

/// Under GCAPS the winner keeps the GPU through the gaps between its submissions (U7): the
/// GPU idles while it runs G^m, and a best-effort TSG with work cannot use the gaps.
/// RT (core 0, prio 5): G^m 30 even around two pieces of 20 (10 | 20 | 10 | 20 | 10);
/// BE (core 1): G^e 50 at 0. epsilon 10. BE GPU 0-10; RT update 0-10 ({RT} at 10, BE
/// preempted with 40 left), misc 10-20, piece 20-40, misc 40-50 (GPU idle), piece 50-70,
/// misc 70-80, end update 80-90 (all eligible at 90), BE 90-130.
/// Responses: RT 90, BE 130.
#[test]
fn gcaps_winner_keeps_the_gpu_through_submission_gaps() {
    let m = model(
        2,
        10,
        0,
        1000,
        vec![
            task("RT", 0, Some(5), vec![gpu(30, 40, 2)]),
            task("BE", 1, None, vec![gpu(0, 50, 1)]),
        ],
    );
    let r = sim(
        &m,
        GpuPolicy::Gcaps,
        WaitMode::Suspend,
        LockOrder::Fifo,
        MiscSplit::Even,
        &[0, 0],
    );
    assert_eq!(responses(&r), vec![900, 1300]);
}

/// An update that cannot submit holds the lock for `epsilon_fast` (D20), one that submits
/// for epsilon. epsilon = 10, epsilon_fast = 2, theta 0.
/// H (core 0, prio 10, G^e 5) at 0: begin update 0-10 (submits {H}), GPU 10-15.
/// L (core 1, prio 5, G^e 20) at 1: its begin request waits for H's update; granted at 10
/// it stays pending (H outranks it), so nothing is submitted: 10-12.
/// H's end request at 15 finds the lock free: 15-25, runlist {L}; H's response 25.
/// L on the GPU 25-45, end update 45-55: L's response 54.
/// With epsilon_fast = epsilon, L's update holds the lock 10-20 and H's end waits for it:
/// H 30, L 59.
#[test]
fn an_update_that_cannot_submit_holds_the_lock_for_epsilon_fast() {
    let mut m = model(
        2,
        10,
        0,
        1_000,
        vec![
            task("H", 0, Some(10), vec![gpu(0, 5, 1)]),
            task("L", 1, Some(5), vec![gpu(0, 20, 1)]),
        ],
    );
    for policy in [GpuPolicy::Gcaps, GpuPolicy::GcapsBoost] {
        for mode in [WaitMode::Busy, WaitMode::Suspend] {
            m.epsilon_fast = 2 * U;
            assert_eq!(resp(&m, policy, mode, &[0, 1]), vec![250, 540]);
            m.epsilon_fast = m.epsilon;
            assert_eq!(resp(&m, policy, mode, &[0, 1]), vec![300, 590]);
        }
    }
}

/// An update that submits runs `epsilon_cpu` of its epsilon on its core and sleeps in the
/// pending wait for the rest, holding the lock (D23); where the CPU part lies around the
/// sleep is the scenario's `update_cpu`. epsilon = 10, epsilon_cpu = 2, theta 0, one core.
/// L (prio 5, G^e 5) at 0: begin update, submits {L}; H (prio 9, CPU 4) at 1.
/// `before`: L on its core 0-2 (H waits for the ceiling), asleep 2-10: H runs 2-6 (its
/// response 5). L's runlist at 10, GPU 10-15, end update 15-25: L's response 25.
/// `after`: L asleep 0-8, on its core 8-10: H runs 1-5 (4). `even`: on its core 0-1,
/// asleep 1-9, 9-10: H 1-5 (4). L 25 in both.
/// With epsilon_cpu = epsilon, L's update keeps the core 0-10 and H runs 10-14 (13): L
/// submits its GPU work at 14, GPU 14-19, end update 19-29 (29). Under gcaps-boost L is
/// boosted from its runlist at 10 and submits at once: GPU 10-15, end update 15-25 (25);
/// self-suspending, H runs 10-14 (13); busy-waiting, L spins boosted until its end update
/// ends at 25: H 25-29 (28), and L returns from its end call after H (29).
/// The GCAPS policy/mode pairs.
const GCAPS_PAIRS: [(GpuPolicy, WaitMode); 4] = [
    (GpuPolicy::Gcaps, WaitMode::Busy),
    (GpuPolicy::Gcaps, WaitMode::Suspend),
    (GpuPolicy::GcapsBoost, WaitMode::Busy),
    (GpuPolicy::GcapsBoost, WaitMode::Suspend),
];

/// One core, epsilon 10, the given theta: L (prio 5, one segment (0, 5)) and H (prio 9,
/// CPU 4).
fn l_and_h(theta: u64) -> SimModel {
    model(
        1,
        10,
        theta,
        1_000,
        vec![
            task("L", 0, Some(5), vec![gpu(0, 5, 1)]),
            task("H", 0, Some(9), vec![cpu(4)]),
        ],
    )
}

/// [`l_and_h`]'s L released at 0 and H at 1, the updates' CPU part placed by `split`,
/// recorded.
fn run_l_and_h(m: &SimModel, policy: GpuPolicy, mode: WaitMode, split: MiscSplit) -> RunResult {
    let mut sc = Scenario::synchronous(m.tasks.len());
    sc.update_cpu = split;
    sc.releases = vec![Some(vec![0]), Some(vec![U])];
    let mut cfg = Config::new(policy, mode, 1_000 * U);
    cfg.record = true;
    run(m, &cfg, &sc).expect("runs")
}

#[test]
fn an_update_sleeps_for_all_but_epsilon_cpu_of_it() {
    let mut m = l_and_h(0);
    let run = |m: &SimModel, policy, mode, split| responses(&run_l_and_h(m, policy, mode, split));
    for (policy, mode) in GCAPS_PAIRS {
        m.epsilon_cpu = 2 * U;
        assert_eq!(run(&m, policy, mode, MiscSplit::Before), vec![250, 50]);
        assert_eq!(run(&m, policy, mode, MiscSplit::After), vec![250, 40]);
        assert_eq!(run(&m, policy, mode, MiscSplit::Even), vec![250, 40]);
        m.epsilon_cpu = m.epsilon;
        let want = match (policy, mode) {
            (GpuPolicy::GcapsBoost, WaitMode::Busy) => vec![290, 280],
            (GpuPolicy::GcapsBoost, WaitMode::Suspend) => vec![250, 130],
            _ => vec![290, 130],
        };
        assert_eq!(run(&m, policy, mode, MiscSplit::Before), want);
    }
}

#[test]
fn gate_begin_sleeps_in_its_preempt_and_the_handover_neither_sleeps_nor_reloads() {
    // One core, theta 3, epsilon 10 (a reload; under gate also a preempting begin),
    // epsilon_cpu 2, epsilon_handover 3. L (prio 5, one segment (0, 5)) released at 0, H
    // (prio 9, CPU 4) at 1.
    // Gate: L's begin takes the GPU: 0-2 on the core, asleep in the preempt 2-10 (H runs
    // 2-6: 50); L's TSG loads 10-13 (a switch after the update, not inside it), runs
    // 13-18; L's end hands over 18-21, all of it on the core: 210. With the CPU part after
    // the sleep H runs 1-5: 40.
    // Reload: the begin 0-10 includes the switch, work 10-15, the end update 15-25: 250.
    let mut m = l_and_h(3);
    m.epsilon_cpu = 2 * U;
    let run = run_l_and_h;
    for (policy, mode) in GCAPS_PAIRS {
        m.mechanism = Mechanism::Reload;
        assert_eq!(responses(&run(&m, policy, mode, MiscSplit::Before))[0], 250);
        m.mechanism = Mechanism::Gate;
        m.epsilon_handover = 3 * U;
        let r = run(&m, policy, mode, MiscSplit::Before);
        assert_eq!(responses(&r), vec![210, 50], "{policy:?} {mode:?}");
        let tr = r.trace.expect("recorded");
        let sleeps: Vec<(u64, u64)> = tr
            .tasks
            .iter()
            .filter(|s| s.task == 0 && s.state == gcaps_sim::trace::TaskState::UpdateSleep)
            .map(|s| (s.start / U, s.end / U))
            .collect();
        assert_eq!(sleeps, vec![(2, 10)], "{policy:?} {mode:?}");
        let loads: Vec<(u64, u64)> = tr.gpu.iter().map(|s| (s.start / U, s.end / U)).collect();
        assert_eq!(loads, vec![(10, 13), (13, 18)], "{policy:?} {mode:?}");
        assert_eq!(
            responses(&run(&m, policy, mode, MiscSplit::After)),
            vec![210, 40]
        );
    }
}
