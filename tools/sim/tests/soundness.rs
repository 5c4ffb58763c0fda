//! The soundness check at a small, deterministic count (the full count is `gcaps soundness`,
//! see docs/simulator.md): tasksets the analysis accepts never show a simulated response
//! above their bound, under every policy/mode pair (tsg-rr, gcaps and gcaps-boost, busy and
//! suspend), with the update-path model's FIFO order (U3) and with CPU-priority order (the
//! lock model of the analysis before U3); and a few sets of the GPU-heavy stress points and
//! of the Fig. 8 points.

use gcaps_sim::soundness::{
    check_set, default_search, fig8_points, point_taskset, points, stress_points, PairOutcome,
    PAIRS,
};
use gcaps_sim::LockOrder;

/// Accepted sets per pair and every violation found, over the sets a test checks.
struct Tally {
    accepted: [u32; PAIRS.len()],
    violations: Vec<String>,
}

impl Tally {
    fn new() -> Self {
        Tally {
            accepted: [0; PAIRS.len()],
            violations: Vec::new(),
        }
    }

    /// Adds one set's outcomes; its acceptances count only once per set (`count`).
    fn add(&mut self, point: &str, index: u64, lock: LockOrder, out: &[PairOutcome], count: bool) {
        for (k, o) in out.iter().enumerate() {
            if count {
                self.accepted[k] += o.accepted as u32;
            }
            for v in &o.violations {
                self.violations.push(format!(
                    "{point} #{index} {:?}/{:?} {lock:?} task {}: {} > {}",
                    PAIRS[k].0, PAIRS[k].1, v.task, v.observed, v.bound
                ));
            }
        }
    }

    /// At least 5 accepted sets per pair, and no violation.
    fn assert_sound(self) {
        let Tally {
            accepted,
            violations,
        } = self;
        eprintln!("accepted per pair: {accepted:?}");
        assert!(
            accepted.iter().all(|&a| a >= 5),
            "too few accepted: {accepted:?}"
        );
        assert!(violations.is_empty(), "{violations:#?}");
    }
}

#[test]
fn accepted_sets_never_exceed_their_bounds() {
    let mut tally = Tally::new();
    for p in points() {
        for index in 0..10 {
            let ts = point_taskset(&p, 1, index).expect("valid point");
            let search = default_search(&ts, index, 16);
            // The update-path model (U3: FIFO) and the lock order the analysis assumed
            // before U3 (CPU-priority order).
            for lock in [LockOrder::Fifo, LockOrder::CpuPriority] {
                let out = check_set(&ts, lock, &search).expect("simulates");
                tally.add(p.name, index, lock, &out, lock == LockOrder::Fifo);
            }
        }
    }
    tally.assert_sound();
}

#[test]
fn stress_points_never_exceed_their_bounds() {
    let mut tally = Tally::new();
    for p in stress_points() {
        for index in 0..5 {
            let ts = point_taskset(&p, 2, index).expect("valid point");
            let search = default_search(&ts, index, 16);
            let out = check_set(&ts, LockOrder::Fifo, &search).expect("simulates");
            tally.add(p.name, index, LockOrder::Fifo, &out, true);
        }
    }
    tally.assert_sound();
}

#[test]
fn fig8_points_never_exceed_their_bounds() {
    let mut tally = Tally::new();
    for p in fig8_points() {
        for index in 0..4 {
            let ts = point_taskset(&p, 3, index).expect("valid point");
            let search = default_search(&ts, index, 8);
            let out = check_set(&ts, LockOrder::Fifo, &search).expect("simulates");
            tally.add(p.name, index, LockOrder::Fifo, &out, true);
        }
    }
    tally.assert_sound();
}
