//! Hand-computed WCRTs of tasks with several GPU segments (eta >= 2), one
//! test per term that depends on eta, so that a wrong factor of eta (or a
//! dropped eta-dependent term) changes a bound. Arithmetic in ms in the
//! comments; D-numbers refer to docs/analysis.md. Each test names the
//! mutations of the analysis it was checked to catch.

use gcaps_analysis::model::{GpuSegment, Platform, Segment, Task, Taskset, Time};
use gcaps_analysis::{analyze, is_schedulable, Config, GpuPolicy, WaitMode};

const US: Time = 1_000; // 1 microsecond in ns
fn ms(x: f64) -> Time {
    (x * 1000.0).round() as Time * US
}
fn cpu(x: f64) -> Segment {
    Segment::Cpu(ms(x))
}
fn gpu(m: f64, e: f64) -> Segment {
    Segment::Gpu(GpuSegment {
        misc: ms(m),
        exec: ms(e),
    })
}
fn task(name: &str, core: u32, prio: u32, period: f64, segs: Vec<Segment>) -> Task {
    Task {
        name: name.into(),
        period: ms(period),
        deadline: ms(period),
        cpu: core,
        priority: Some(prio),
        gpu_priority: None,
        segments: segs,
    }
}
fn ts(eps: f64, theta: f64, l: f64, tasks: Vec<Task>) -> Taskset {
    Taskset {
        platform: Platform {
            cpus: 4,
            epsilon: ms(eps),
            theta: ms(theta),
            timeslice: ms(l),
        },
        tasks,
    }
}
fn wcrt(t: &Taskset, policy: GpuPolicy, mode: WaitMode, name: &str) -> Option<Time> {
    let c = Config {
        policy,
        mode,
        gpu_priority_assignment: false,
    };
    let r = analyze(t, &c);
    assert_eq!(r.schedulable, is_schedulable(t, &c), "fast path disagrees");
    r.tasks.iter().find(|x| x.name == name).unwrap().wcrt
}
/// Two GPU segments: C = 3, G^m = 2m, G^e = 2e.
fn two_segments(m: f64, e: f64) -> Vec<Segment> {
    vec![cpu(1.0), gpu(m, e), cpu(1.0), gpu(m, e), cpu(1.0)]
}

// ---------------- GCAPS own work and same-core terms ----------------

#[test]
fn gcaps_own_updates_and_blocking_per_segment() {
    // Catches: own updates 2 eps eta -> 2 eps; blocking 2 eps eta -> 2 eps;
    // suspend wake-up blocking eps eta -> eps.
    // One task, eta = 2, eps = 0.1: base = C 3 + G^m 1 + G^e 4 = 8.
    // Own updates (D1): 2 eps eta = 0.4.
    // Blocking (D6): suspend (1 + 2 eta + eta) eps = 7 * 0.1 = 0.7,
    //                busy    (1 + 2 eta) eps       = 5 * 0.1 = 0.5.
    // R = 8 + 0.4 + 0.7 = 9.1 (suspend), 8 + 0.4 + 0.5 = 8.9 (busy).
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![task("A", 0, 5, 100.0, two_segments(0.5, 2.0))],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "A"),
        Some(ms(9.1))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "A"),
        Some(ms(8.9))
    );
}

#[test]
fn gcaps_busy_same_core_task_charges_four_eps_per_segment() {
    // Catches: the busy hpp demand 4 eps eta_h -> 4 eps.
    // H (prio 9, eta 2) and L (prio 1, CPU only) on core 0, eps = 0.1, busy.
    // H's per-job demand on L (Lemma 12, D3): C 3 + G^m 1 + G^e 4
    //   + 4 eps eta_h = 0.8 -> 8.8, no jitter.
    // L: own = C 5 + one blocking eps 0.1 = 5.1; no remote term (no GPU
    //   task on another core). R = 5.1 + ceil(R/100) 8.8 = 13.9.
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("H", 0, 9, 100.0, two_segments(0.5, 2.0)),
            task("L", 0, 1, 100.0, vec![cpu(5.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "L"),
        Some(ms(13.9))
    );
}

#[test]
fn gcaps_suspend_same_core_gpu_task_charges_updates_and_lock_waits_per_segment() {
    // Catches: either 2 eps eta_h of the suspend hpp demand -> 2 eps.
    // H (prio 9, eta 2) and L (prio 1, one GPU segment) on core 0,
    // eps = 0.1, suspend.
    // R_H = 8 + 2 eps eta 0.4 + (1 + 3 eta) eps 0.7 = 9.1 (alone on the GPU:
    //   L has a lower GPU priority and is on H's core).
    // H's demand on L (Lemma 15 + Lemma 13 first term, D4, D10): C 3 + G^m 1
    //   + 2 eps eta 0.4 + G^e 4 + 2 eps eta 0.4 = 8.8, jitter 9.1 - 8.8 = 0.3.
    // L: base 1 + 1 + 1 = 3, own = 3 + 2 eps 0.2 + (1 + 2 + 1) eps 0.4 = 3.6.
    // R_L = 3.6 + ceil((R + 0.3)/100) 8.8 = 12.4.
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("H", 0, 9, 100.0, two_segments(0.5, 2.0)),
            task("L", 0, 1, 100.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "H"),
        Some(ms(9.1))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "L"),
        Some(ms(12.4))
    );
}

// ---------------- GCAPS segment-open time of remote tasks (D4) ----------------

#[test]
fn gcaps_remote_hold_charges_updates_and_lock_waits_per_segment() {
    // Catches: hold base eps per_seg eta -> eps per_seg.
    // K (prio 9, eta 2) on core 1, I (prio 1, one segment) on core 0,
    // eps = 0.1; no same-core tasks of K.
    // hold_K = G^m 1 + G^e 4 + per-segment eps (4 suspend, 3 busy) * eta 2:
    //   suspend 5 + 0.8 = 5.8, busy 5 + 0.6 = 5.6.
    // R_K = 8 + 0.4 + 0.7 = 9.1 (suspend), 8 + 0.4 + 0.5 = 8.9 (busy).
    // I: own = 3 + 2 eps 0.2 + blocking (suspend 4, busy 3) eps
    //   = 3.6 (suspend), 3.5 (busy); K's term ceil((R + R_K - hold)/100) hold:
    //   R_I = 3.6 + 5.8 = 9.4 (suspend), 3.5 + 5.6 = 9.1 (busy).
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("K", 1, 9, 100.0, two_segments(0.5, 2.0)),
            task("I", 0, 1, 100.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "I"),
        Some(ms(9.4))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "I"),
        Some(ms(9.1))
    );
}

#[test]
fn gcaps_remote_hold_counts_extra_jobs_per_segment_with_jitter_d4() {
    // Catches: deleting `+ (eta - 1)` in the hold fixed point; `eta J_x`
    // -> `J_x`; the window cap's `min` -> `max`.
    // eps = 0, suspend. Core 1: X (prio 10, C 1, G^e 1, T 4), K (prio 5,
    // eta 2: cpu 1, gpu 2, cpu 8, gpu 2, cpu 1, T 100). Core 0: I (prio 3,
    // cpu 1, gpu 1, cpu 1, T 100).
    // R_X = 1 + 1 = 2 (nothing above it on the GPU or its core).
    // R_K: own = C 10 + G^e 4 = 14; X's demand (Lemma 15 + 13) C 1 + G^e 1
    //   = 2, jitter R_X - 2 = 0: R = 14 + 2 ceil(R/4): 14 -> 22 -> 26 -> 28
    //   -> 28 (ceil(28/4) = 7). R_K = 28.
    // hold_K: base G^e = 4; X preempts K's open segments with e = C_X = 1,
    //   J_X = R_X - 1 = 1; jobs of X in K's eta = 2 open intervals of total
    //   length H: min(ceil((H + eta J_X)/4) + eta - 1, ceil((R_K + J_X)/4)
    //   = ceil(29/4) = 8).
    //   H = 4: ceil(6/4) + 1 = 3 -> H = 4 + 3 = 7;
    //   H = 7: ceil(9/4) + 1 = 4 -> H = 8; H = 8: ceil(10/4) + 1 = 4 -> 8.
    //   hold_K = 8 (without + (eta - 1): 6; with J_X once: 7; max: 12).
    // I: own = 3; remote K: hold 8, jitter R_K - 8 = 20, T 100; remote X:
    //   hold_X = G^e 1 (nothing preempts it), jitter R_X - 1 = 1, T 4.
    //   R = 3 + 8 ceil((R + 20)/100) + ceil((R + 1)/4):
    //   3 -> 12 -> 3 + 8 + 4 = 15 -> ceil(16/4) = 4 -> 15. R_I = 15
    //   (hold 7: 14; hold 6: 13; hold 12: 21).
    let t = ts(
        0.0,
        0.0,
        1.0,
        vec![
            task("X", 1, 10, 4.0, vec![cpu(1.0), gpu(0.0, 1.0)]),
            task(
                "K",
                1,
                5,
                100.0,
                vec![cpu(1.0), gpu(0.0, 2.0), cpu(8.0), gpu(0.0, 2.0), cpu(1.0)],
            ),
            task("I", 0, 3, 100.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
        ],
    );
    let s = WaitMode::Suspend;
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "X"), Some(ms(2.0)));
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "K"), Some(ms(28.0)));
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "I"), Some(ms(15.0)));
}

#[test]
fn gcaps_remote_hold_is_capped_by_the_jobs_in_the_response_window_d4() {
    // Catches: dropping the window cap (`min(by_intervals, by_window)` ->
    // `by_intervals`), and `min` -> `max`.
    // eps = 0, suspend. Core 1: X (prio 10, CPU only, C 1, T 10), K (prio 5,
    // eta 2: cpu 1, gpu 2, cpu 1, gpu 2, cpu 1, T 50). Core 0: I (prio 3,
    // cpu 1, gpu 1, cpu 1, T 50).
    // R_X = 1, J_X = 0. R_K = 7 + ceil(R/10) = 8.
    // hold_K: base 4; by intervals ceil(H/10) + 1 = 2, by window
    //   ceil(8/10) = 1: H = 4 + 1 = 5 -> 5 (without the cap: 4 + 2 = 6).
    // I: own 3; K: hold 5, jitter 8 - 5 = 3: R_I = 3 + 5 = 8 (uncapped: 9).
    let t = ts(
        0.0,
        0.0,
        1.0,
        vec![
            task("X", 1, 10, 10.0, vec![cpu(1.0)]),
            task("K", 1, 5, 50.0, two_segments(0.0, 2.0)),
            task("I", 0, 3, 50.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
        ],
    );
    let s = WaitMode::Suspend;
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "K"), Some(ms(8.0)));
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "I"), Some(ms(8.0)));
}

#[test]
fn gcaps_lock_queue_ahead_charges_two_eps_per_segment_d7() {
    // Catches: the D7 demand 2 eps eta_x -> 2 eps.
    // eps = 0.1, suspend, separate GPU priorities. Core 1: X (CPU prio 8,
    // GPU prio 2, eta 2: cpu 1, gpu 1, cpu 1, gpu 1, cpu 1). Core 0: I (CPU
    // prio 5, GPU prio 5, cpu 1, gpu 1, cpu 1). Both T 100.
    // I: own = 3 + 2 eps 0.2 + 4 eps 0.4 = 3.6. X has a lower GPU priority
    //   (not charged as a holder) but a higher CPU priority than I, so its
    //   lock requests can queue ahead (D7): 2 eps eta_X = 0.4.
    //   R_I = 3.6 + 0.4 = 4.0.
    // X: own = 5 + 0.4 + 7 eps 0.7 = 6.1; I holds the GPU above it: hold_I =
    //   G^e 1 + 4 eps 0.4 = 1.4. R_X = 6.1 + 1.4 = 7.5.
    let mut x = task("X", 1, 8, 100.0, two_segments(0.0, 1.0));
    x.gpu_priority = Some(2);
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            x,
            task("I", 0, 5, 100.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
        ],
    );
    let s = WaitMode::Suspend;
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "I"), Some(ms(4.0)));
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "X"), Some(ms(7.5)));
}

// ---------------- TSG round-robin ----------------

#[test]
fn tsg_rr_rounds_are_counted_per_segment() {
    // Catches: rounds ceil(sum G^e / L) instead of sum ceil(G^e_j / L).
    // L = 1, theta = 0.1. A (core 0): two segments of G^e 1.5 -> 2 + 2 = 4
    // rounds (not ceil(3/1) = 3). B (core 1) is the one other GPU process.
    // Per round: nu (L + theta) + theta = 1.1 + 0.1 = 1.2 -> I = 4.8.
    // R_A = C 3 + G^e 3 + 4.8 = 10.8 in both modes (no same-core task).
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task("A", 0, 2, 100.0, two_segments(0.0, 1.5)),
            task("B", 1, 1, 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        assert_eq!(wcrt(&t, GpuPolicy::TsgRr, mode, "A"), Some(ms(10.8)));
    }
}
