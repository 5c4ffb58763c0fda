//! Hand-computed WCRTs of tasks with several GPU segments (eta >= 2), one
//! test per term that depends on eta, so that a wrong factor of eta (or a
//! dropped eta-dependent term) changes a bound. Arithmetic in ms in the
//! comments; D-numbers refer to docs/analysis.md. Each test names the
//! mutations of the analysis it was checked to catch.

mod common;

use common::{cpu, gpu, ms, taskset, wcrt};
use gcaps_analysis::model::{Segment, Task, Taskset};
use gcaps_analysis::{GpuPolicy, WaitMode};

/// A real-time task (every task here has a priority).
fn task(name: &str, core: u32, prio: u32, period: f64, segs: Vec<Segment>) -> Task {
    common::task(name, core, Some(prio), period, segs)
}
fn ts(eps: f64, theta: f64, l: f64, tasks: Vec<Task>) -> Taskset {
    taskset(4, eps, theta, l, tasks)
}
/// Two GPU segments: C = 3, G^m = 2m, G^e = 2e.
fn two_segments(m: f64, e: f64) -> Vec<Segment> {
    vec![cpu(1.0), gpu(m, e), cpu(1.0), gpu(m, e), cpu(1.0)]
}

// ---------------- GCAPS own work and same-core terms ----------------

#[test]
fn gcaps_own_updates_and_blocking_per_segment() {
    // Catches: own updates 2 eps eta -> 2 eps; ceiling blocking (D14) per
    // lock request 2 eta -> 2; suspend wake-ups eta -> 1; lock waits (D13)
    // 2 eta -> 2 requests.
    // A (prio 5, eta 2) and L (prio 1, one GPU segment) on core 0, eps = 0.1.
    // A: base = C 3 + G^m 1 + G^e 4 = 8. Own updates (D1): 2 eps eta = 0.4.
    // Blocking by L's ceiling updates (D14), one per ready interval:
    //   suspend (1 + 2 eta + eta) eps = 0.7, busy (1 + 2 eta) eps = 0.5.
    // Lock waits (D13): each of the 2 eta requests behind one update of L:
    //   2 eta eps = 0.4.
    // R = 8 + 0.4 + 0.7 + 0.4 = 9.5 (suspend), 8 + 0.4 + 0.5 + 0.4 = 9.3.
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("A", 0, 5, 100.0, two_segments(0.5, 2.0)),
            task("L", 0, 1, 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "A"),
        Some(ms(9.5))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "A"),
        Some(ms(9.3))
    );
}

#[test]
fn gcaps_busy_same_core_task_charges_updates_and_lock_waits_per_segment() {
    // Catches: the busy hpp demand's 2 eps eta_h -> 2 eps, its lock waits
    // 2 eta_h W -> 2 W, and the choice of the smaller of its two forms (D3).
    // H (prio 9, eta 2) and L (prio 1, CPU only) on core 0; R (prio 5, one
    // GPU segment) on core 1; eps = 0.1, busy. Two updaters: W = 0.1 (D13).
    // R_H = 8 + 2 eps eta 0.4 + 2 eta requests * 1 queued (R) * eps 0.4 =
    //   8.8.
    // H's per-job demand on L (Lemma 12, D3): C 3 + G^m 1 + G^e 4
    //   + 2 eps eta_h 0.4 + 2 eta_h W 0.4 = 8.8 with no jitter, or, with
    //   jitter R_H - 8.6 = 0.2, 8.4 + its end lock waits behind R (not
    //   charged elsewhere in L's analysis) eta_h * 0.1 = 8.6.
    // L: own = C 5 (no lower updater on the core); R's GPU priority 5 is
    //   below H's 9, so L never waits behind it.
    //   R = 5 + min(ceil(R/100) 8.8, ceil((R + 0.2)/100) 8.6) = 13.6.
    // With X (prio 10, CPU 50, T 200) above H on core 0: R_X = 50 + H's
    //   ceiling update at X's release (D14) = 50.1, R_H = 8.8 + 50 = 58.8,
    //   the jittered form costs two jobs (ceil((R + 50.2)/100) = 2), so the
    //   unjittered one counts: R_L = 5 + 50 + 8.8 = 63.8.
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("H", 0, 9, 100.0, two_segments(0.5, 2.0)),
            task("L", 0, 1, 100.0, vec![cpu(5.0)]),
            task("R", 1, 5, 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "L"),
        Some(ms(13.6))
    );
    let mut with_x = t.clone();
    with_x.tasks.push(task("X", 0, 10, 200.0, vec![cpu(50.0)]));
    with_x.tasks[1].period = ms(200.0);
    with_x.tasks[1].deadline = ms(200.0);
    assert_eq!(
        wcrt(&with_x, GpuPolicy::Gcaps, WaitMode::Busy, "H"),
        Some(ms(58.8))
    );
    assert_eq!(
        wcrt(&with_x, GpuPolicy::Gcaps, WaitMode::Busy, "L"),
        Some(ms(63.8))
    );
}

#[test]
fn gcaps_busy_same_core_jittered_form_counts_end_lock_waits_for_gpu_tasks_d3() {
    // Catches: the jittered busy demand of D3 leaving out the holder's end
    // lock waits for a GPU-using task, or counting them per job instead of
    // per segment.
    // Core 0: H (prio 9, eta 2), I (prio 5, one GPU segment), L (prio 1,
    // one GPU segment); eps = 0.1, busy, all T 100. Three updaters: W = 0.2.
    // R_H = 8 + 2 eps eta 0.4 + (1 + 2 eta) ready intervals * 2 lower
    //   updaters * eps 1.0 + 2 eta requests * 2 queued * eps 0.8 = 10.2.
    // I: own = 3 + 2 eps 0.2 + 3 ready intervals * 1 (L) * eps 0.3 + 2
    //   requests * 1 queued (L; H's updates are in its term) * eps 0.2 =
    //   3.7. H's demand: 8 + 0.4 + 2 eta W 0.8 = 9.2 with no jitter, or
    //   8.4 + eta end lock waits * 0.1 (only L not charged elsewhere) = 8.6
    //   with jitter 10.2 - 8.6 = 1.6: R_I = 3.7 + 8.6 = 12.3.
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("H", 0, 9, 100.0, two_segments(0.5, 2.0)),
            task("I", 0, 5, 100.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
            task("L", 0, 1, 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "H"),
        Some(ms(10.2))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "I"),
        Some(ms(12.3))
    );
}

#[test]
fn gcaps_suspend_same_core_gpu_task_charges_updates_and_lock_waits_per_segment() {
    // Catches: the suspend hpp demand's 2 eps eta_h -> 2 eps, and its
    // ceiling blocking (eta_h + wake-ups) -> 1.
    // H (prio 9, eta 2) and L (prio 1, one GPU segment) on core 0,
    // eps = 0.1, suspend. Two updaters: W = 0.1.
    // R_H = 8 + 2 eps eta 0.4 + (1 + 2 eta + eta) eps 0.7 (L's ceiling
    //   updates, D14) + 2 eta eps 0.4 (lock waits behind L, D13) = 9.5.
    // H's demand on L (Lemma 15 + Lemma 13 first term, D4, D10): C 3 + G^m 1
    //   + 2 eps eta 0.4 + G^e 4 + H's end lock waits (only L's own update
    //   could be ahead: 0, D13) + (eta + 2 wake-ups) * 1 * eps 0.4 = 8.8,
    //   jitter 9.5 - 8.8 = 0.7.
    // L: base 1 + 1 + 1 = 3, own = 3 + 2 eps 0.2 (its lock waits behind H
    //   are in H's term) = 3.2. R_L = 3.2 + ceil((R + 0.7)/100) 8.8 = 12.0.
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
        Some(ms(9.5))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "L"),
        Some(ms(12.0))
    );
}

// ---------------- GCAPS segment-open time of remote tasks (D4) ----------------

#[test]
fn gcaps_remote_hold_charges_updates_and_lock_waits_per_segment() {
    // Catches: the hold's 2 eps eta -> 2 eps, its end lock waits eta -> 1,
    // its end lock wait counting updaters charged elsewhere, and its
    // ceiling blocking restarts (eta, plus the wake-ups in suspend mode) -> 1.
    // K (prio 9, eta 2) and M (prio 2, one GPU segment) on core 1, I (prio 3,
    // one segment) on core 0, eps = 0.1. Three updaters: W = 0.2 (D13).
    // In I's analysis K is a holder, so ahead of K's end request only M's
    // update is not charged elsewhere (D13): 0.1 per end request.
    // hold_K = G^m 1 + 2 eps eta 0.4 + G^e 4 + eta * 0.1 + M's ceiling
    //   updates after each begin (and wake-up) of K (D14): busy 2, suspend
    //   4 * eps = 0.2 / 0.4 -> 5.8 (busy), 6.0 (suspend).
    // R_K = 8 + 0.4 + M's blocking (busy 5, suspend 7) * 0.1 + lock waits
    //   2 eta * 2 others * 0.1 = 0.8 -> 9.7 (busy), 9.9 (suspend).
    // I: own = 3 + 2 eps 0.2 + lock waits behind M (K's updates are in its
    //   hold) 2 * 0.1 = 3.4; K's term ceil((R + R_K - hold)/100) hold:
    //   R_I = 3.4 + 5.8 = 9.2 (busy), 3.4 + 6.0 = 9.4 (suspend).
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![
            task("K", 1, 9, 100.0, two_segments(0.5, 2.0)),
            task("M", 1, 2, 100.0, vec![gpu(0.0, 1.0)]),
            task("I", 0, 3, 100.0, vec![cpu(1.0), gpu(0.0, 1.0), cpu(1.0)]),
        ],
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "K"),
        Some(ms(9.9))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Suspend, "I"),
        Some(ms(9.4))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "K"),
        Some(ms(9.7))
    );
    assert_eq!(
        wcrt(&t, GpuPolicy::Gcaps, WaitMode::Busy, "I"),
        Some(ms(9.2))
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
fn gcaps_lock_waits_are_one_update_per_other_task_per_request_d13() {
    // Catches: the lock waits 2 eta_i (requests) -> 2; a queued-ahead task
    // charged per its own segments instead of per request; a remote task
    // charged both as a holder and in the lock queue.
    // eps = 0.1, suspend, separate GPU priorities. Core 1: X (CPU prio 8,
    // GPU prio 2, eta 2). Core 0: I (CPU prio 5, GPU prio 5, eta 2). Both
    // T 100, both two_segments(0, 1): base C 3 + G^e 2 = 5.
    // I: own = 5 + 2 eps eta 0.4; X has a lower GPU priority (not charged
    //   as a holder), so each of I's 4 requests may wait for one update of
    //   X in the FIFO queue (D13; X's CPU priority does not matter):
    //   4 eps = 0.4. R_I = 5.8.
    // X: own = 5 + 0.4; I is a holder above it (its updates are in its
    //   hold, so X's requests queue behind no one else, and I's end
    //   requests only behind X's own updates): hold_I = G^e 2 + 2 eps eta
    //   0.4 = 2.4. R_X = 5.4 + 2.4 = 7.8.
    let mut x = task("X", 1, 8, 100.0, two_segments(0.0, 1.0));
    x.gpu_priority = Some(2);
    let t = ts(
        0.1,
        0.0,
        1.0,
        vec![x, task("I", 0, 5, 100.0, two_segments(0.0, 1.0))],
    );
    let s = WaitMode::Suspend;
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "I"), Some(ms(5.8)));
    assert_eq!(wcrt(&t, GpuPolicy::Gcaps, s, "X"), Some(ms(7.8)));
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
