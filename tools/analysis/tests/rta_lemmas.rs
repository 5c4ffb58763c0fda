//! Hand-computed WCRTs, one test per lemma/term (arithmetic in ms in the
//! comments; D-numbers refer to the departures in docs/analysis.md).

mod common;

use common::{cfg, cpu, gpu, ms, task, taskset, wcrt_cfg};
use gcaps_analysis::model::{Task, Taskset};
use gcaps_analysis::{analyze, GpuPolicy, WaitMode};

fn ts(eps: f64, theta: f64, l: f64, tasks: Vec<Task>) -> Taskset {
    taskset(4, eps, theta, l, tasks)
}
const ALL: [(GpuPolicy, WaitMode); 4] = [
    (GpuPolicy::TsgRr, WaitMode::Busy),
    (GpuPolicy::TsgRr, WaitMode::Suspend),
    (GpuPolicy::Gcaps, WaitMode::Busy),
    (GpuPolicy::Gcaps, WaitMode::Suspend),
];

// ---------------- TSG round-robin (Sec. 6.2) ----------------

#[test]
fn lemma1_interleaving_counts_switch_back_d2() {
    // L = 1, theta = 0.1; A: G^e = 2.5 -> 3 rounds; nu = 1 other (B).
    // Per round: nu (L + theta) + theta = 1.1 + 0.1 = 1.2 -> I = 3.6.
    // R_A = 1 + 0.5 + 2.5 + 1 + 3.6 = 8.6 (printed Eq. 3 gives 8.3).
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task(
                "A",
                0,
                Some(2),
                100.0,
                vec![cpu(1.0), gpu(0.5, 2.5), cpu(1.0)],
            ),
            task("B", 1, Some(1), 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        assert_eq!(
            wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, mode), "A"),
            Some(ms(8.6))
        );
    }
}

#[test]
fn lemma1_best_effort_counts_in_nu() {
    // Adding a best-effort GPU process: nu = 2 -> 3 * (2 * 1.1 + 0.1) = 6.9.
    // R_A = 5 + 6.9 = 11.9.
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task(
                "A",
                0,
                Some(2),
                100.0,
                vec![cpu(1.0), gpu(0.5, 2.5), cpu(1.0)],
            ),
            task("B", 1, Some(1), 100.0, vec![gpu(0.0, 1.0)]),
            task("BE", 2, None, 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "A"),
        Some(ms(11.9))
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "BE"),
        None
    );
}

#[test]
fn lemma7_suspend_cpu_preemption_with_jitter() {
    // h alone on the GPU: R_h = 2 + 1 + 3 = 6. i: e_h = C_h + G^m_h = 3,
    // J = 6 - 3 = 3; R = 5 + ceil((R + 3) / 20) * 3 = 8.
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 20.0, vec![cpu(2.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 50.0, vec![cpu(5.0)]),
        ],
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "h"),
        Some(ms(6.0))
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "i"),
        Some(ms(8.0))
    );
}

#[test]
fn lemma4_5_busy_indirect_delay() {
    // Busy: i is charged h's C + G^m + G^e = 6 (no other GPU process).
    // R_i = 5 + 6 = 11.
    let mut t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 20.0, vec![cpu(2.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 50.0, vec![cpu(5.0)]),
        ],
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Busy), "i"),
        Some(ms(11.0))
    );
    // Remote k joins the GPU: h needs 3 rounds; per round for i's analysis:
    // nu_out (1) * 1.1 + theta * m_hpp (1) = 1.2 -> h's busy wait grows by
    // 3.6: R_i = 5 + 6 + 3.6 = 14.6. R_h = 6 + 3 * (1.1 + 0.1) = 9.6.
    t.tasks
        .push(task("k", 1, Some(3), 100.0, vec![gpu(0.0, 1.0)]));
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Busy), "h"),
        Some(ms(9.6))
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Busy), "i"),
        Some(ms(14.6))
    );
}

// ---------------- GCAPS (Sec. 6.3) ----------------

#[test]
fn gcaps_own_updates_d1_and_no_blocking_alone_d13_d14() {
    // eps = 0.5, one segment. Own work 7, own updates 2 eps = 1 -> 8. Alone
    // on the platform, nothing else takes the lock (D13) or updates on its
    // core (D14): no blocking in either mode.
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![task(
            "A",
            0,
            Some(5),
            100.0,
            vec![cpu(1.0), gpu(1.0, 4.0), cpu(1.0)],
        )],
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Busy), "A"),
        Some(ms(8.0))
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Suspend), "A"),
        Some(ms(8.0))
    );
}

#[test]
fn lemma8_cpu_only_release_blocking() {
    // A CPU-only task is blocked at its release by one ceiling update of
    // each lower-priority GPU task on its core (Lemma 8 with U4, D14):
    // B and C may each have a lock request outstanding: 5 + 2 * 0.5.
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("A", 0, Some(5), 100.0, vec![cpu(5.0)]),
            task("B", 0, Some(4), 100.0, vec![gpu(0.0, 1.0)]),
            task("C", 0, Some(3), 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    for (p, m) in [
        (GpuPolicy::Gcaps, WaitMode::Busy),
        (GpuPolicy::Gcaps, WaitMode::Suspend),
    ] {
        assert_eq!(wcrt_cfg(&t, cfg(p, m), "A"), Some(ms(6.0)));
    }
    // Lemma 3: no blocking under tsg-rr.
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::TsgRr, WaitMode::Busy), "A"),
        Some(ms(5.0))
    );
}

#[test]
fn gcaps_busy_cpu_only_charged_hpp_busy_wait_d3() {
    // i CPU-only below GPU-using h on the same core, busy-waiting.
    // h's core occupation: C 1 + G^m 1 + G^e 3 + 2 eps (2 updates) + 2 lock
    // waits of W = 0 (h is the only updater, D13) = 6.
    // R_i = 5 + 6 = 11 (Lemma 12 as printed: 7).
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 20.0, vec![cpu(1.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 50.0, vec![cpu(5.0)]),
        ],
    );
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Busy), "i"),
        Some(ms(11.0))
    );
    // Suspending: h only costs C + G^m + 2 eps = 3 with jitter
    // R_h - 3 = 6 - 3 = 3 (R_h = 5 + 2 * 0.5 = 6): R_i = 5 + 3 = 8.
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Suspend), "i"),
        Some(ms(8.0))
    );
}

#[test]
fn lemma11_remote_delays_cpu_only_via_hpp_d5() {
    // Remote k (GPU prio 3 >= h's 2) holds the GPU while h busy-waits.
    // Two updaters: W = eps = 0.5 (D13).
    // R_k = 2.5 + 2 eps + 2 requests * 1 queued (h) * eps = 4.5.
    // In h's and i's analyses, the only other updater (k) is a holder whose
    // updates are inside its hold, so nothing else queues ahead of k's end
    // request there (D13): hold_k = G^m 0.5 + 2 eps + G^e 2 = 3.5, J_k = 1.
    // R_h = 5 + 2 eps + ceil((R + 1)/40) * 3.5 = 9.5 (Lemma 10 second
    // term with the hold time).
    // R_i: h's busy demand is either 1 + 1 + 3 + 2 eps + 2 W = 7 with no
    //     jitter, or, with jitter R_h - 6 = 3.5, 6 (i is CPU-only: h's lock
    //     waits never delay it, D3); the smaller counts:
    //     R_i = 5 + min(ceil(R/20) * 7, ceil((R + 3.5)/20) * 6)
    //     + ceil((R + 1)/40) * 3.5 = 5 + 6 + 3.5 = 14.5.
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 20.0, vec![cpu(1.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 50.0, vec![cpu(5.0)]),
            task("k", 1, Some(3), 40.0, vec![gpu(0.5, 2.0)]),
        ],
    );
    let c = cfg(GpuPolicy::Gcaps, WaitMode::Busy);
    assert_eq!(wcrt_cfg(&t, c, "k"), Some(ms(4.5)));
    assert_eq!(wcrt_cfg(&t, c, "h"), Some(ms(9.5)));
    assert_eq!(wcrt_cfg(&t, c, "i"), Some(ms(14.5)));
    // Self-suspending: no indirect delay (Lemma 14). R_h = 9.5 as in busy
    // mode, so i: 5 + ceil((R + 9.5 - 3)/20) * 3 = 8.
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Suspend), "i"),
        Some(ms(8.0))
    );
}

#[test]
fn lemma13_15_suspend_same_core_gpu_preemption() {
    // eps = 0.5, two updaters: W = 0.5 (D13).
    // R_h = 5 + 2 eps (updates) + 2 requests * 1 queued (i) * eps
    //     + 4 ready intervals (release, 2 requests, 1 wake-up) * 1 lower
    //       updater (i) * eps (D14) = 5 + 1 + 1 + 2 = 9.
    // i: own 4 + 2 eps = 5 (its lock waits behind h are in h's term).
    // h: CPU part C + G^m + 2 eps = 3, plus the rest of its open time
    // (Lemma 13): G^e 3 + its end lock wait (only i could be ahead, and
    // i's update is i's own work: 0, D13) + (begin + 1 wake-up) * 1 lower
    // updater * eps = 4; one demand 7 with J = 9 - 7 = 2 (D10).
    // R = 5 + ceil((R + 2)/20) * 7 = 12.
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 20.0, vec![cpu(1.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 100.0, vec![cpu(1.0), gpu(1.0, 2.0)]),
        ],
    );
    let c = cfg(GpuPolicy::Gcaps, WaitMode::Suspend);
    assert_eq!(wcrt_cfg(&t, c, "h"), Some(ms(9.0)));
    assert_eq!(wcrt_cfg(&t, c, "i"), Some(ms(12.0)));
    // Busy (Lemma 10 first term + 12): R_h = 5 + 1 + (1 + 2) * 0.5 + 2 *
    // 0.5 = 8.5; h costs 1 + 1 + 3 + 2 eps + 2 W = 7 with no jitter, or
    // 6 + its end lock wait (0 here, D13) with jitter 8.5 - 6 = 2.5 (D3);
    // own 4 + 1 = 5 -> 5 + min(7, 6) = 11.
    assert_eq!(
        wcrt_cfg(&t, cfg(GpuPolicy::Gcaps, WaitMode::Busy), "i"),
        Some(ms(11.0))
    );
}

#[test]
fn lemma10_remote_hold_includes_cpu_preemption_d4() {
    // eps = 0. k's segment (1 + 2) stays open while x preempts k on core 1:
    // R_x = 4, R_k = 3 + 4 = 7, hold_k = 3 + 4 = 7, J = 0.
    // R_i = 1.5 + 7 = 8.5 (Lemma 13 as printed: 1.5 + G^e_k = 3.5).
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task("x", 1, Some(9), 50.0, vec![cpu(4.0)]),
            task("k", 1, Some(5), 100.0, vec![gpu(1.0, 2.0)]),
            task("i", 0, Some(3), 100.0, vec![gpu(0.5, 1.0)]),
        ],
    );
    for mode in [WaitMode::Busy, WaitMode::Suspend] {
        let c = cfg(GpuPolicy::Gcaps, mode);
        assert_eq!(wcrt_cfg(&t, c, "k"), Some(ms(7.0)));
        assert_eq!(wcrt_cfg(&t, c, "i"), Some(ms(8.5)));
    }
}

#[test]
fn gcaps_equal_priorities_interfere_both_ways() {
    // a and b share GPU priority 5 and each charges the other's hold 2.
    // A single pass gives a 6 (with D_b: J = 10 - 2 = 8, two jobs of b)
    // and b 4. The least fixed point of both (D11): R_a = R_b = 4
    // (J = 4 - 2 = 2, ceil((4 + 2)/10) = 1 job).
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task("a", 0, Some(5), 10.0, vec![gpu(0.0, 2.0)]),
            task("b", 1, Some(5), 10.0, vec![gpu(0.0, 2.0)]),
        ],
    );
    let c = cfg(GpuPolicy::Gcaps, WaitMode::Suspend);
    assert_eq!(wcrt_cfg(&t, c, "a"), Some(ms(4.0)));
    assert_eq!(wcrt_cfg(&t, c, "b"), Some(ms(4.0)));
}

#[test]
fn gcaps_equal_priority_updaters_are_interference_not_blocking_d14() {
    // a and b share CPU priority 5 on core 0 (suspend, eps = 0.5): each is
    // in the other's hpp, so its updates are charged as interference, not
    // as ceiling blocking (D14 counts strictly lower updaters only), and
    // its lock waits behind the other are inside that interference (D13).
    // Own: G^e 1 + 2 eps = 2. The other's demand: 2 eps + G^e 1 (its end
    // lock wait can only be behind this task's own update: 0) = 2, jitter
    // R - 2. Least fixed point (D11): R = 2 + 2 = 4 for both (counting b
    // as a lower updater of a would add 4 ready intervals * eps = 2 and
    // 2 * eps to b's open time: 7).
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("a", 0, Some(5), 100.0, vec![gpu(0.0, 1.0)]),
            task("b", 0, Some(5), 100.0, vec![gpu(0.0, 1.0)]),
        ],
    );
    let c = cfg(GpuPolicy::Gcaps, WaitMode::Suspend);
    assert_eq!(wcrt_cfg(&t, c, "a"), Some(ms(4.0)));
    assert_eq!(wcrt_cfg(&t, c, "b"), Some(ms(4.0)));
}

#[test]
fn separate_gpu_priorities_least_fixed_point_d11() {
    // b (core 0, CPU prio 1) has GPU priority 3 above c (core 1, CPU
    // prio 2); a (CPU-only, prio 3) preempts b. eps = 0.1, suspend.
    // Two updaters (b, c): W = 0.1 (D13). R_a = 30 + b's ceiling update
    // at a's release (D14) = 30.1. c is analysed before b. In c's
    // analysis b is the only other updater and a holder, so b's end request
    // queues behind nothing not charged elsewhere (D13): hold_b = 10 +
    // 2 eps + a's 30 = 40.2. A single pass gives c D_b: J = 100 - 40.2,
    // own 81 + 2 eps = 81.2 (its requests queue only behind b, whose
    // updates are in its hold), 81.2 + 3 * 40.2 = 201.8 > 200.
    // The least fixed point: R_b = 20 + 2 eps + 2 requests * 1 queued (c)
    // * eps + ceil((R + 0.1)/100) * 30 = 50.4, J_b = 10.2,
    // R_c = 81.2 + 2 * 40.2 = 161.6.
    let mut b = task(
        "b",
        0,
        Some(1),
        100.0,
        vec![cpu(5.0), gpu(0.0, 10.0), cpu(5.0)],
    );
    b.gpu_priority = Some(3);
    let t = ts(
        0.1,
        0.0,
        1.024,
        vec![
            task("a", 0, Some(3), 100.0, vec![cpu(30.0)]),
            b,
            task(
                "c",
                1,
                Some(2),
                200.0,
                vec![cpu(10.0), gpu(1.0, 60.0), cpu(10.0)],
            ),
        ],
    );
    let c = cfg(GpuPolicy::Gcaps, WaitMode::Suspend);
    assert_eq!(wcrt_cfg(&t, c, "b"), Some(ms(50.4)));
    assert_eq!(wcrt_cfg(&t, c, "c"), Some(ms(161.6)));
    assert!(analyze(&t, &c).schedulable);
}

#[test]
fn suspend_same_core_cpu_and_gpu_parts_share_one_jitter_d10() {
    // As lemma13_15 with T_h = 16: R_h = 9. h's CPU part 3 and GPU part
    // 4 lie in one response window: one demand 7 with J = 9 - 7 = 2.
    // R_i = 5 + ceil((R + 2)/16) * 7 = 12. (Two terms with J = 6 and 5
    // would give 5 + 2 * 3 + 2 * 4 = 19.)
    let t = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 16.0, vec![cpu(1.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 100.0, vec![cpu(1.0), gpu(1.0, 2.0)]),
        ],
    );
    let c = cfg(GpuPolicy::Gcaps, WaitMode::Suspend);
    assert_eq!(wcrt_cfg(&t, c, "h"), Some(ms(9.0)));
    assert_eq!(wcrt_cfg(&t, c, "i"), Some(ms(12.0)));
}

#[test]
fn gcaps_best_effort_does_not_change_rt_bounds() {
    let base = ts(
        0.5,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 20.0, vec![cpu(1.0), gpu(1.0, 3.0)]),
            task("i", 0, Some(1), 100.0, vec![cpu(1.0), gpu(1.0, 2.0)]),
        ],
    );
    let mut with_be = base.clone();
    with_be
        .tasks
        .push(task("be", 0, None, 30.0, vec![cpu(5.0), gpu(1.0, 20.0)]));
    for (p, m) in [
        (GpuPolicy::Gcaps, WaitMode::Busy),
        (GpuPolicy::Gcaps, WaitMode::Suspend),
    ] {
        for n in ["h", "i"] {
            assert_eq!(
                wcrt_cfg(&base, cfg(p, m), n),
                wcrt_cfg(&with_be, cfg(p, m), n)
            );
        }
        assert_eq!(wcrt_cfg(&with_be, cfg(p, m), "be"), None);
    }
    // ... but under tsg-rr the best-effort process is time-sliced with i.
    assert!(
        wcrt_cfg(&with_be, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "i")
            > wcrt_cfg(&base, cfg(GpuPolicy::TsgRr, WaitMode::Suspend), "i")
    );
}

#[test]
fn failed_higher_priority_task_leaves_lower_unbounded() {
    // h cannot meet its deadline; i depends on R_h (suspend jitter) and
    // gets no bound, whatever the mode.
    let t = ts(
        0.0,
        0.1,
        1.0,
        vec![
            task("h", 0, Some(2), 10.0, vec![cpu(6.0), gpu(0.0, 6.0)]),
            task("i", 0, Some(1), 1000.0, vec![cpu(1.0)]),
        ],
    );
    for (p, m) in ALL {
        let r = analyze(&t, &cfg(p, m));
        assert!(!r.schedulable);
        assert_eq!(r.tasks[0].wcrt, None);
        if m == WaitMode::Suspend {
            assert_eq!(r.tasks[1].wcrt, None, "{p:?} {m:?}");
        }
    }
}

#[test]
fn all_four_combinations_on_a_small_set() {
    // One pair on one core, one GPU task remote; every combination gives a
    // bound >= the task's own work, and busy >= suspend for the CPU-only task.
    let t = ts(
        0.2,
        0.1,
        1.0,
        vec![
            task(
                "h",
                0,
                Some(3),
                20.0,
                vec![cpu(1.0), gpu(0.5, 2.0), cpu(1.0)],
            ),
            task("i", 0, Some(1), 100.0, vec![cpu(10.0)]),
            task("k", 1, Some(2), 50.0, vec![cpu(1.0), gpu(0.5, 4.0)]),
        ],
    );
    for (p, m) in ALL {
        let r = analyze(&t, &cfg(p, m));
        assert!(r.schedulable, "{p:?} {m:?}");
        assert!(r.tasks[1].wcrt.unwrap() >= ms(10.0));
    }
    for p in [GpuPolicy::TsgRr, GpuPolicy::Gcaps] {
        assert!(
            wcrt_cfg(&t, cfg(p, WaitMode::Busy), "i")
                >= wcrt_cfg(&t, cfg(p, WaitMode::Suspend), "i")
        );
    }
}
