//! The soundness check at a small, deterministic count (the full count is `gcaps soundness`,
//! see docs/simulator.md): tasksets the analysis accepts never show a simulated response
//! above their bound, under every policy/mode pair (tsg-rr, gcaps and gcaps-boost, busy and
//! suspend), with the update-path model's FIFO order (U3) and with CPU-priority order (the
//! lock model of the analysis before U3); and a few sets of the GPU-heavy stress points.

use gcaps_sim::soundness::{
    check_set, default_search, point_taskset, points, stress_points, PAIRS,
};
use gcaps_sim::LockOrder;

#[test]
fn accepted_sets_never_exceed_their_bounds() {
    let mut accepted = [0u32; PAIRS.len()];
    let mut violations = Vec::new();
    for p in points() {
        for index in 0..10 {
            let ts = point_taskset(&p, 1, index).expect("valid point");
            let search = default_search(&ts, index, 16);
            // The update-path model (U3: FIFO) and the lock order the analysis assumed
            // before U3 (CPU-priority order).
            for lock in [LockOrder::Fifo, LockOrder::CpuPriority] {
                let out = check_set(&ts, lock, &search).expect("simulates");
                for (k, o) in out.iter().enumerate() {
                    if lock == LockOrder::Fifo {
                        accepted[k] += o.accepted as u32;
                    }
                    for v in &o.violations {
                        violations.push(format!(
                            "{} #{index} {:?}/{:?} {lock:?} task {}: {} > {}",
                            p.name, PAIRS[k].0, PAIRS[k].1, v.task, v.observed, v.bound
                        ));
                    }
                }
            }
        }
    }
    eprintln!("accepted per pair: {accepted:?}");
    assert!(
        accepted.iter().all(|&a| a >= 5),
        "too few accepted: {accepted:?}"
    );
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn stress_points_never_exceed_their_bounds() {
    let mut accepted = [0u32; PAIRS.len()];
    let mut violations = Vec::new();
    for p in stress_points() {
        for index in 0..5 {
            let ts = point_taskset(&p, 2, index).expect("valid point");
            let search = default_search(&ts, index, 16);
            let out = check_set(&ts, LockOrder::Fifo, &search).expect("simulates");
            for (k, o) in out.iter().enumerate() {
                accepted[k] += o.accepted as u32;
                for v in &o.violations {
                    violations.push(format!(
                        "{} #{index} {:?}/{:?} task {}: {} > {}",
                        p.name, PAIRS[k].0, PAIRS[k].1, v.task, v.observed, v.bound
                    ));
                }
            }
        }
    }
    eprintln!("accepted per pair: {accepted:?}");
    assert!(
        accepted.iter().all(|&a| a >= 5),
        "too few accepted: {accepted:?}"
    );
    assert!(violations.is_empty(), "{violations:#?}");
}
