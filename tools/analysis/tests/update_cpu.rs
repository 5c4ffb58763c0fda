//! Hand-computed WCRTs of D23 (`docs/analysis.md`): an update that submits
//! spends only `epsilon_cpu` of its epsilon on its caller's core and sleeps
//! in the pending wait for the rest, so what it takes from the tasks of that
//! core is its CPU time, while it holds the lock for all of epsilon.
//! Arithmetic in ms in the comments. Each test names the mutations of
//! `tools/analysis/src/wcrt/gcaps.rs` it was checked to fail on.

mod common;

use common::{
    cpu, gpu, local_lower_set, ms, rt_task as task, taskset, three_segments_over_a_lower, wcrt,
};
use gcaps_analysis::model::{Task, Taskset};
use gcaps_analysis::{GpuPolicy, WaitMode};

const BOOST: GpuPolicy = GpuPolicy::GcapsBoost;
const PLAIN: GpuPolicy = GpuPolicy::Gcaps;
const BUSY: WaitMode = WaitMode::Busy;
const SUSPEND: WaitMode = WaitMode::Suspend;

/// eps = 0.1, `epsilon_fast` = 0.01, and `epsilon_cpu` as given.
fn ts(eps_cpu: Option<f64>, tasks: Vec<Task>) -> Taskset {
    let mut t = taskset(4, 0.1, 0.0, 1.0, tasks);
    t.platform.epsilon_fast = Some(ms(0.01));
    t.platform.epsilon_cpu = eps_cpu.map(ms);
    t
}

#[test]
fn d23_lower_updaters_block_for_their_cpu_part() {
    // Guards D23 in the ceiling blocking (D14). Checked to fail on: the
    // closed intervals charged eps again (suspend 5.04 -> 5.36); the CPU
    // time of an update taken as epsilon_cpu alone where epsilon_fast is
    // larger (the third case: suspend 5.00 -> 4.98).
    //
    // common::local_lower_set: A (core 0, prio 5, one segment), lower GPU
    // tasks M (prio 3) and L (prio 2) on its core. Own 4.5 + own
    // updates (wall time, eps each) 0.2; D13 (M, L queue ahead of each
    // request: begin 2 * 0.1, end 2 * 0.01) 0.22.
    // D14 per lower updater: the 1 + eta = 2 intervals without an open
    // segment at the update's CPU time eps_cpu = 0.02, the intervals that
    // start with A's segment open at eps_fast (suspend 2, busy 1):
    //   suspend 2 * (0.04 + 0.02) = 0.12, busy 2 * (0.04 + 0.01) = 0.10.
    // Suspend 4.7 + 0.12 + 0.22 = 5.04, busy 5.02. Without epsilon_cpu
    // (= eps): 5.36 and 5.34, as in D20's test.
    // epsilon_cpu = 0.005 below epsilon_fast: an update that cannot submit
    // runs all of its epsilon_fast on the core, so 0.01 per closed interval:
    // suspend 4.7 + 2 * (0.02 + 0.02) + 0.22 = 5.00, busy 4.98.
    let tasks = local_lower_set();
    let t = ts(Some(0.02), tasks.clone());
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "A"), Some(ms(5.04)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "A"), Some(ms(5.02)));
    let t = ts(None, tasks.clone());
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "A"), Some(ms(5.36)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "A"), Some(ms(5.34)));
    let t = ts(Some(0.005), tasks);
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "A"), Some(ms(5.0)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "A"), Some(ms(4.98)));
}

#[test]
fn d23_a_boosted_lower_segment_costs_its_end_updates_cpu_part() {
    // Guards D23 in D18's boosted segments. Checked to fail on: the end
    // update of a boosted segment charged eps (busy 6.34 -> 6.42, suspend
    // 5.34 -> 5.42).
    //
    // The set of boost.rs::d18_cpu_only_task_has_one_interval: C (core 0,
    // prio 6, CPU 5) and L (prio 2, one segment (0.3, 1)) on core 0.
    // D14: L once, at C's release, at its CPU time 0.02. D18: one boosted
    // segment of L: busy G^m + G^e + its end update's CPU time 1.3 + 0.02,
    // suspend 0.3 + 0.02.
    // Busy 5 + 0.02 + 1.32 = 6.34, suspend 5 + 0.02 + 0.32 = 5.34, plain
    // GCAPS (no D18) 5.02. Without epsilon_cpu: 6.5, 5.5 and 5.1.
    let tasks = vec![
        task("C", 0, 6, 100.0, vec![cpu(5.0)]),
        task("L", 0, 2, 100.0, vec![gpu(0.3, 1.0)]),
    ];
    let t = ts(Some(0.02), tasks.clone());
    assert_eq!(wcrt(&t, BOOST, BUSY, "C"), Some(ms(6.34)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "C"), Some(ms(5.34)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "C"), Some(ms(5.02)));
    let t = ts(None, tasks);
    assert_eq!(wcrt(&t, BOOST, BUSY, "C"), Some(ms(6.5)));
    assert_eq!(wcrt(&t, BOOST, SUSPEND, "C"), Some(ms(5.5)));
    assert_eq!(wcrt(&t, PLAIN, BUSY, "C"), Some(ms(5.1)));
}

#[test]
fn d23_window_cap_of_ceiling_blocking_counts_cpu_parts() {
    // Guards D23 in D21's window cap of the ceiling blocking. Checked to
    // fail on: the window demand of a lower updater's preemptions at eps per
    // update (A 13.4 -> 14.4).
    //
    // eps = 1, eps_fast = 0.1, eps_cpu = 0.2. A (core 0, prio 5, D 15):
    // three segments (0, 1) with CPU 1 between: 5 of work, own updates 6. L
    // (core 0, prio 1, one segment (0, 1), T 1000) is A's only other
    // updater.
    // Single pass (R_L not known when A is analysed): D13 3 * (1 + 0.1) =
    // 3.3, D14 (1 + 3) * 0.2 + (3 + 3 GPU waits) * 0.1 = 1.4: R_A = 15.7 >
    // 15, no bound. The least fixed point (D11) has R_L: one job of L in
    // A's window, two updates: D13 2 * 1 = 2, D14 2 * 0.2 = 0.4: R_A = 5 +
    // 6 + 2 + 0.4 = 13.4.
    // L: 1 + 2 = 3, A's demand per job (Lemma 15 + D10): C 2 + 6 + G^e 3 +
    // A's lower updater (L) after each begin and GPU wait, eps_fast each,
    // 0.6 = 11.6: R_L = 14.6.
    let mut t = three_segments_over_a_lower(15.0);
    t.platform.epsilon_fast = Some(ms(0.1));
    t.platform.epsilon_cpu = Some(ms(0.2));
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "A"), Some(ms(13.4)));
    assert_eq!(wcrt(&t, PLAIN, SUSPEND, "L"), Some(ms(14.6)));
}
