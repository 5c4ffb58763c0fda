//! Hand-computed WCRTs of D24 (`docs/analysis.md`): under the gate mechanism a
//! begin that takes the GPU costs `epsilon_preempt` and the winner's TSG starts
//! theta later; the end of the running segment hands the GPU over in
//! `epsilon_handover` on the caller's core without waiting, and the next
//! winner's TSG starts theta later, possibly after the ending job's response
//! window. Arithmetic in ms in the comments. Each test names the mutations of
//! `tools/analysis/src/model.rs` (`Platform::costs`) and
//! `tools/analysis/src/wcrt/gcaps.rs` it was checked to fail on.

mod common;

use common::{cpu, gpu, ms, rt_task as task, taskset, wcrt};
use gcaps_analysis::model::{Mechanism, Taskset};
use gcaps_analysis::{GpuPolicy, WaitMode};

const POLICIES: [GpuPolicy; 2] = [GpuPolicy::Gcaps, GpuPolicy::GcapsBoost];
const MODES: [WaitMode; 2] = [WaitMode::Busy, WaitMode::Suspend];

/// i (core 0, prio 1) and k (core 1, prio 2), one GPU segment (0, 1) each:
/// k is i's holder (D5).
fn pair(eps: f64, theta: f64) -> Taskset {
    let seg = || vec![gpu(0.0, 1.0)];
    taskset(
        2,
        eps,
        theta,
        10.0,
        vec![task("i", 0, 1, 100.0, seg()), task("k", 1, 2, 100.0, seg())],
    )
}

fn gate(mut t: Taskset) -> Taskset {
    t.platform.mechanism = Mechanism::Gate;
    t
}

/// The bound of `name` under every GCAPS policy and mode, which agree here.
fn bound(t: &Taskset, name: &str) -> Option<u64> {
    let b = wcrt(t, GpuPolicy::Gcaps, WaitMode::Busy, name);
    for p in POLICIES {
        for m in MODES {
            assert_eq!(wcrt(t, p, m, name), b, "{p:?} {m:?}");
        }
    }
    b
}

#[test]
fn d24_the_handover_switch_lies_past_the_holders_window() {
    // The schedule of tools/sim/tests/regressions/gate-handover-past-the-window.toml
    // (eps = 0, theta = 0.2): i begins at 0 (its TSG loads 0-0.2); k begins at
    // 0.2 and takes the GPU (its TSG loads 0.2-0.4, runs 0.4-1.4); k's end at
    // 1.4 hands over, k's job is done (R_k = 1.2), but i's TSG loads 1.4-1.6
    // and runs 1.6-2.6: 2.6.
    // k: own 1 + begin (eps_preempt 0 + theta) = 1.2.
    // i: own 1.2; k's hold G^e 1 + begin 0.2 + end (eps_handover 0 + theta)
    // 0.2 = 1.4, capped at R_k + theta = 1.4 (not R_k): 2.6.
    // Checked to fail on: the hold capped at R_k (2.4); theta dropped from
    // the hand-over (2.4) or from the begin (own 1.0, hold 1.2: 2.2).
    // Under reload the switches are inside epsilon (U1): 1 + 1 = 2.0.
    // With k on i's core (hpp, D3/D10) the same 1.4 per job of k: its begin
    // until its TSG runs and its end until i's TSG runs; checked to fail on
    // the end counted until k returns (2.4), which the soundness batch
    // found first (docs/analysis.md D24).
    let t = gate(pair(0.0, 0.2));
    assert_eq!(bound(&t, "k"), Some(ms(1.2)));
    assert_eq!(bound(&t, "i"), Some(ms(2.6)));
    assert_eq!(bound(&pair(0.0, 0.2), "i"), Some(ms(2.0)));
    let mut t = t;
    t.tasks[1].cpu = 0;
    assert_eq!(bound(&t, "i"), Some(ms(2.6)));
}

#[test]
fn d24_a_handover_costs_its_cpu_time_and_theta_not_a_reload() {
    // eps = 1 (a reload, and a preempting begin), epsilon_fast = 0.05,
    // epsilon_handover = 0.05, theta = 0.2.
    // Reload: i own 1 + 2 eps = 3; k's hold 1 + 2 eps = 3: 6.0. k: own 3 +
    // i queued ahead of each request (eps + eps_fast) 1.05 = 4.05.
    // Gate: i own 1 + begin (1 + 0.2) + end 0.05 = 2.25; k's hold 1 + begin
    // 1.2 + hand-over (0.05 + 0.2) = 2.45: 4.7. k: own 2.25 + i queued
    // (max(eps_preempt, eps_handover) + eps_fast) 1.05 = 3.3.
    // Checked to fail on: the end update charged eps_preempt (own 3.2, hold
    // 3.4: 6.6); the lock time of an update taken as eps_handover (k 2.3).
    let mut t = pair(1.0, 0.2);
    t.platform.epsilon_fast = Some(ms(0.05));
    assert_eq!(bound(&t, "i"), Some(ms(6.0)));
    assert_eq!(bound(&t, "k"), Some(ms(4.05)));
    let mut t = gate(t);
    t.platform.epsilon_handover = Some(ms(0.05));
    assert_eq!(bound(&t, "i"), Some(ms(4.7)));
    assert_eq!(bound(&t, "k"), Some(ms(3.3)));
}

#[test]
fn d24_a_boosted_busy_lower_owner_spins_for_the_switch() {
    // H (core 0, prio 9, CPU 2.5), L (core 0, prio 1, one segment (0, 2)),
    // R (core 1, prio 8, one segment (0, 3)); eps = 1, theta = 0.5.
    // gcaps-boost busy, H = C 2.5 + D14 (L once, at the update's CPU time 1)
    // + D18: L's boosted segment G^e 2 + the switch after its own begin
    // (gate: theta 0.5) + its end update 1 = 3.5, + the hand-over spin of
    // R's end (gate: eps_handover 1 + theta 0.5) = 8.5. Suspend: L sleeps
    // through both switches: 2.5 + 1 + (0 + 1) = 4.5. Reload: 2.5 + 1 +
    // (2 + 1) + 1 = 7.5 busy, 4.5 suspend.
    // Checked to fail on: no spin after L's own begin (8.0); the hand-over
    // spin without theta (8.0); the spin charged in suspend mode (5.0).
    let t = taskset(
        2,
        1.0,
        0.5,
        10.0,
        vec![
            task("H", 0, 9, 100.0, vec![cpu(2.5)]),
            task("L", 0, 1, 100.0, vec![gpu(0.0, 2.0)]),
            task("R", 1, 8, 100.0, vec![gpu(0.0, 3.0)]),
        ],
    );
    let boost = |t: &Taskset, m| wcrt(t, GpuPolicy::GcapsBoost, m, "H");
    assert_eq!(boost(&t, WaitMode::Busy), Some(ms(7.5)));
    assert_eq!(boost(&t, WaitMode::Suspend), Some(ms(4.5)));
    let t = gate(t);
    assert_eq!(boost(&t, WaitMode::Busy), Some(ms(8.5)));
    assert_eq!(boost(&t, WaitMode::Suspend), Some(ms(4.5)));
}
