//! Hand-computed WCRTs of gcaps-boost (issue 20, `docs/analysis.md`
//! D17-D19), one test per term, each beside the plain GCAPS value of the
//! same set. Arithmetic in ms in the comments. Each test names the
//! mutations of the analysis it was checked to fail on (the term broken in
//! `tools/analysis/src/wcrt/gcaps.rs`, the test run and seen to fail, the
//! term restored).

mod common;

use common::{cfg, cpu, gpu, local_lower_set, ms, rt_task as task, taskset, wcrt};
use gcaps_analysis::model::{Task, Taskset};
use gcaps_analysis::{analyze, policy_error, GpuPolicy, NoBound, WaitMode};

const BOOST: GpuPolicy = GpuPolicy::GcapsBoost;
const PLAIN: GpuPolicy = GpuPolicy::Gcaps;
const BUSY: WaitMode = WaitMode::Busy;
const SUSPEND: WaitMode = WaitMode::Suspend;

fn ts(eps: f64, tasks: Vec<Task>) -> Taskset {
    taskset(4, eps, 0.0, 1.0, tasks)
}

/// A (core 0, prio 5): one segment. K (core 1, prio 6, so GPU priority 6 >=
/// A's 5: a holder of A, D5) with a CPU hog X (prio 9) and a lower GPU task
/// L1 (prio 2) on its core. eps = 0.1; three updaters (A, K, L1): W = 0.2.
fn remote_holder_set() -> Taskset {
    ts(
        0.1,
        vec![
            task("A", 0, 5, 100.0, vec![cpu(1.0), gpu(0.5, 2.0), cpu(1.0)]),
            task("K", 1, 6, 50.0, vec![gpu(1.0, 3.0)]),
            task("X", 1, 9, 100.0, vec![cpu(10.0)]),
            task("L1", 1, 2, 100.0, vec![gpu(0.2, 1.0)]),
        ],
    )
}

#[test]
fn d17_remote_hold_has_no_cpu_preemption_on_the_holders_core() {
    // Guards D17 (the boosted hold). Checked to fail on: the hold keeping
    // plain GCAPS's fixed point over hpp(k) (9.4 -> 19.4); the hold without
    // its lower updaters' ceiling updates (D14 part, 9.4 -> 9.2); the hold
    // without its end-update lock wait (9.4 -> 9.3, and 12.8 -> 12.6 in the
    // window-cap test).
    //
    // A, suspend. Own: C 2 + G^m 0.5 + G^e 2 = 4.5, own updates 2 eps = 0.2.
    // No lower updater on core 0. Lock waits (D13): the other updaters are
    // K and L1; K is a holder (charged in its hold), so each of A's two
    // requests waits for L1 only: wait = 0.1, 2 * 0.1 = 0.2. Own = 4.9.
    // K's hold (D17): G^m 1 + G^e 3 + its two updates 0.2 + its end lock wait
    // (the refined wait, 0.1) + L1's ceiling update after K's begin and after
    // its GPU wait (2 * 1 * 0.1 = 0.2) = 4.5; nothing of X (K is boosted
    // above X while its segment runs). Cap R_K:
    //   R_X = 10 + lower updaters K, L1 once at release 0.2 = 10.2.
    //   R_K = 4 + 0.2 + D14 (1 + 2 + 1 ready intervals) * L1 * 0.1 = 0.4
    //     + lock waits 2 * (A, L1: 0.2) = 0.4 + X: 10 (jitter 0.2)
    //     + L1 boosted once per interval without an open segment (D18),
    //       (1 + 1) * (G^m 0.2 + eps 0.1) = 0.6 (R_L1 not known yet: count)
    //     = 15.6.
    // R_A = 4.9 + ceil((R + 15.6 - 4.5) / 50) * 4.5 = 9.4.
    // Plain GCAPS (D4): the hold adds X's 10 (one job): 14.5; R_A = 19.4.
    let t = remote_holder_set();
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "K"), Some(ms(15.6)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "A"), Some(ms(9.4)));
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "A"), Some(ms(19.4)));
    // Busy: A's D14 count has no GPU-wait interval, but A has no lower
    // updater; K's hold loses the GPU-wait restart (4.5 - 0.1 = 4.4):
    // R_A = 4.9 + 4.4 = 9.3.
    assert_eq!(wcrt(&t, BOOST, BUSY, "A"), Some(ms(9.3)));
}

#[test]
fn d17_equal_priority_peer_of_the_holder_preempts_it() {
    // Guards D17's equal-priority peers. Checked to fail on: the peers'
    // updates dropped from the boosted hold (9.4 -> 9.2).
    //
    // Y (core 1) has K's CPU priority 6 but GPU priority 4, below A's 5: not
    // a holder of A. While K's segment is pending and K unboosted, Y can
    // run (K at the tail of priority 6 after the ceiling or the boost) and
    // queue a begin (or its end is already queued before K's begin); each
    // may be granted while K runs boosted and preempt it for eps: at most
    // two per segment of K (then Y's segment is open and pending behind K).
    // eps = 0.1, three updaters (A, K, Y).
    // A, suspend: own 4.5 + own updates 0.2 + lock waits 2 * (Y: 0.1) = 4.9.
    // K's hold: G^m 1 + G^e 3 + 2 eps 0.2 + end wait (Y) 0.1 + Y's two
    // updates 0.2 = 4.5 (one job: R_K is far below 50 - R_A).
    // R_A = 4.9 + 4.5 = 9.4.
    let mut y = task("Y", 1, 6, 100.0, vec![gpu(0.1, 0.5)]);
    y.gpu_priority = Some(4);
    let t = ts(
        0.1,
        vec![
            task("A", 0, 5, 100.0, vec![cpu(1.0), gpu(0.5, 2.0), cpu(1.0)]),
            task("K", 1, 6, 50.0, vec![gpu(1.0, 3.0)]),
            y,
        ],
    );
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "A"), Some(ms(9.4)));
}

#[test]
fn d18_boosted_lower_segments_per_interval_without_an_open_segment() {
    // Guards D18's count. Checked to fail on (before the hand-over spin):
    // 1 + eta_i -> 1 interval (busy 15.5 -> 10.6); busy charging only G^m
    // (15.5 -> 7.9); the end update's eps dropped (busy 15.5 -> 15.1);
    // suspend charging the whole segment (8.1 -> 15.7).
    //
    // A: C 2 + G^m 0.5 + G^e 2 = 4.5, own updates 0.2; lock waits (D13):
    // both other updaters queue ahead of each request, 2 * 0.2 = 0.4.
    // D14: M and L once per ready interval: busy (1 + 2) * 2 * 0.1 = 0.6,
    // suspend (1 + 2 + 1) * 2 * 0.1 = 0.8.
    // D18: 1 + eta_A = 2 intervals without an open segment of A (release to
    // begin; end update to completion, the hand-over), in each one segment
    // of M and one of L run boosted (R_M, R_L not known yet: the count):
    //   busy: longest G^m + G^e + eps: M 3.4 + 0.1, L 1.3 + 0.1:
    //     2 * (3.5 + 1.4) = 9.8;
    //   suspend: longest G^m + eps: M 0.6 + 0.1, L 0.3 + 0.1: 2 * 1.1 = 2.2.
    // Suspend: 4.5 + 0.2 + 0.4 + 0.8 + 2.2 = 8.1.
    // Busy adds the hand-over spin (D18): M's end updates can make L's
    // pending segment the running one (L is below M on the GPU), boosting
    // L up to eps before its TSG runs: eta_M * eps = 0.2 per job of M. That
    // term needs R_M, which the single pass does not have yet, so it assumes
    // D_M and the least fixed point of D11 follows, with every task's latest
    // value at hand: D18 then takes the window where it is smaller (M: one
    // job, its boosted segments 3.5 + 1.7 = 5.2 < the count 7; L: 1.4 <
    // 2.8), and D21 caps L's ceiling updates at its two per job (0.2 <
    // 3 * 0.1): D14 0.3 + 0.2 = 0.5.
    // Busy: 4.5 + 0.2 + 0.4 + 0.5 + 5.2 + 1.4 + 0.2 = 12.4 (15.5 by the
    // count before the hand-over spin).
    // Plain GCAPS has no D18: 5.7 busy, 5.9 suspend.
    let t = ts(0.1, local_lower_set());
    assert_eq!(wcrt(&t, BOOST, BUSY, "A"), Some(ms(12.4)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "A"), Some(ms(8.1)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "A"), Some(ms(5.7)));
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "A"), Some(ms(5.9)));
}

#[test]
fn d18_cpu_only_task_has_one_interval() {
    // Guards D18 for a CPU-only task (eta = 0: one interval, the whole
    // job). Checked to fail on: the count eta_i instead of 1 + eta_i (6.5 ->
    // 5.1).
    // C (prio 6, CPU 5) and L (prio 2, one segment (0.3, 1)) on core 0,
    // eps = 0.1. D14: L once at release, 0.1. D18: one boosted segment of L:
    // busy 1.3 + 0.1 = 1.4, suspend 0.3 + 0.1 = 0.4.
    // Busy 5 + 0.1 + 1.4 = 6.5, suspend 5 + 0.1 + 0.4 = 5.5; plain 5.1.
    let t = ts(
        0.1,
        vec![
            task("C", 0, 6, 100.0, vec![cpu(5.0)]),
            task("L", 0, 2, 100.0, vec![gpu(0.3, 1.0)]),
        ],
    );
    assert_eq!(wcrt(&t, BOOST, BUSY, "C"), Some(ms(6.5)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "C"), Some(ms(5.5)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "C"), Some(ms(5.1)));
}

#[test]
fn d18_window_cap_when_the_lower_bound_is_known() {
    // Guards D18's per-window cap. Checked to fail on: the cap dropped (the
    // count alone: busy 12.8 -> 16.0); the window demand without the end
    // updates' eps (busy 12.8 -> 12.5). (Values before D21; with D21 12.7.)
    //
    // The set of the test above plus G (core 2, CPU priority 1, GPU priority
    // 9, one segment (0, 0.1), T 1000): a holder of A (D5) analysed after A,
    // so A's pass assumes D_G and the least fixed point of D11 runs; there
    // every task's latest value is at hand, R_M and R_L included. A's
    // boosted-lower charge per task is then the smaller of the count and
    // the window ceil((R + R_x - e_x) / T_x) * e_x, e_x = x's boosted
    // segments per job (busy: G^m + G^e + eps per segment; suspend: G^m +
    // eps per segment).
    // Four updaters now (W = 0.3); A's lock waits still count M and L
    // (G is a holder): 0.4. G's hold (D17): G^e 0.1 + 2 eps 0.2 + end wait
    // (M, L: 0.2) = 0.5 per job (T 1000: one job).
    //   Busy, M: e = 0.4 + 3 + 0.6 + 1 + 2 * 0.1 = 5.2 (one job: R_A + R_M
    //     stays below T_M = 100), count 2 * 3.5 = 7: 5.2.
    //     L: e = 1.4 (T 1000), count 2.8: 1.4.
    //     R_A = 4.5 + 0.2 + 0.4 + 0.6 + 5.2 + 1.4 + 0.5 = 12.8.
    //   Suspend, M: e = 0.4 + 0.6 + 0.2 = 1.2, count 2 * 0.7 = 1.4: 1.2.
    //     L: e = 0.4, count 0.8: 0.4.
    //     R_A = 4.5 + 0.2 + 0.4 + 0.8 + 1.2 + 0.4 + 0.5 = 8.0.
    // D21 (issue 20, later): with R_L at hand, L's ceiling updates (D14)
    // are also capped by its updates in A's window, two per job: busy
    // min(3 * 0.1, 0.2), suspend min(4 * 0.1, 0.2): 0.1 and 0.2 less than
    // above: busy 12.7, suspend 7.8. (M has four updates per job: no cap.)
    // The hand-over spin (D18, busy): M's two ends can hand over to L (0.2
    // per job of M), G's end to M or L (0.1 per job of G), L's to nobody
    // (M outranks L on the GPU); one job each in A's window: busy 13.0.
    let mut tasks = local_lower_set();
    let mut g = task("G", 2, 1, 1000.0, vec![gpu(0.0, 0.1)]);
    g.gpu_priority = Some(9);
    tasks.push(g);
    let t = ts(0.1, tasks);
    assert_eq!(wcrt(&t, BOOST, BUSY, "A"), Some(ms(13.0)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "A"), Some(ms(7.8)));
}

#[test]
fn d18_handover_spin_of_a_busy_lower_owner() {
    // Guards D18's hand-over spin (busy). Checked to fail on: the term
    // dropped (busy 7.5 -> 6.5); charged in suspend mode too (4.5 -> 5.5);
    // the hand-over counted for the lower task's own ends (C of
    // d18_cpu_only_task_has_one_interval 6.5 -> 6.6).
    // The set of tools/sim/tests/regressions/boost-handover-update-busy.toml:
    // H (core 0, prio 9, CPU 2.5), L (core 0, prio 1, one segment (0, 2)),
    // R (core 1, prio 8, one segment (0, 3)); eps = 1.
    // D14: L once at H's release: 1. D18: one boosted segment of L: busy
    // G^e 2 + eps = 3, suspend 0 + eps = 1. Hand-over spin: R's end can
    // make L's pending segment the running one and boost L before its TSG
    // runs (U8 allows the boost at the decision): eps per segment of R,
    // one job in H's window: 1.
    // Busy 2.5 + 1 + 3 + 1 = 7.5 (the simulator shows 7.3 with the boost at
    // the decision); suspend 2.5 + 1 + 1 = 4.5.
    let t = ts(
        1.0,
        vec![
            task("H", 0, 9, 100.0, vec![cpu(2.5)]),
            task("L", 0, 1, 100.0, vec![gpu(0.0, 2.0)]),
            task("R", 1, 8, 100.0, vec![gpu(0.0, 3.0)]),
        ],
    );
    assert_eq!(wcrt(&t, BOOST, BUSY, "H"), Some(ms(7.5)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "H"), Some(ms(4.5)));
}

#[test]
fn d19_no_deadlock_rule_under_gcaps_boost() {
    // Guards D19: the equal-priority busy pair of D16 (the minimal case of
    // tests/issue8.rs) has no deadlock rule under gcaps-boost (the holder
    // of the running segment is boosted, and a task back from the ceiling
    // queues at the tail). Checked to fail on: `deadlock::prone` accepting
    // GcapsBoost (a and b lose their bounds).
    let t = ts(
        1.0,
        vec![
            task("a", 0, 5, 100.0, vec![gpu(1.0, 2.0)]),
            task("b", 0, 5, 100.0, vec![gpu(0.0, 2.0)]),
        ],
    );
    let plain = analyze(&t, &cfg(PLAIN, BUSY));
    assert!(matches!(
        plain.tasks[0].no_bound,
        Some(NoBound::Deadlock { .. })
    ));
    // gcaps-boost busy: a and b interfere as equal-priority hpp (D3), W = 1.
    // a (analysed first): own 3 + own updates 2 = 5, no lock wait (b is
    //   same-core hpp); b's bound is not at hand, so b's demand is the form
    //   without jitter: G^e 2 + 2 eps + 2 W = 6. R_a = 11.
    // b: own 2 + 2 = 4; a's demand: min(G^m 1 + G^e 2 + 2 eps + 2 W = 7,
    //   with jitter R_a - 5 = 6: 1 + 2 + 2 + end wait 0 = 5) = 5. R_b = 9.
    let r = analyze(&t, &cfg(BOOST, BUSY));
    assert!(r.schedulable);
    assert_eq!(wcrt(&t, BOOST, BUSY, "a"), Some(ms(11.0)));
    assert_eq!(wcrt(&t, BOOST, BUSY, "b"), Some(ms(9.0)));
}

#[test]
fn d19_priorities_at_or_above_the_boost_priority_are_refused() {
    // Guards D19's priority range: a task at 98 (the boost priority) has no
    // place under gcaps-boost; the analysis gives no bound and says why in
    // one line; plain GCAPS accepts 98.
    let t = ts(0.1, vec![task("hi", 0, 98, 100.0, vec![gpu(0.5, 1.0)])]);
    let msg = policy_error(&t, &cfg(BOOST, SUSPEND)).expect("refused");
    assert_eq!(
        msg,
        "task 'hi' field 'priority': must be in 1..=97 under gcaps-boost, below the boost priority 98, got 98 (docs/analysis.md D19)"
    );
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "hi"), None);
    assert!(policy_error(&t, &cfg(PLAIN, SUSPEND)).is_none());
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "hi"), Some(ms(1.7)));
    let ok = ts(0.1, vec![task("hi", 0, 97, 100.0, vec![gpu(0.5, 1.0)])]);
    assert_eq!(wcrt(&ok, BOOST, SUSPEND, "hi"), Some(ms(1.7)));
}
