//! The soundness check at a small, deterministic count (the full count is `gcaps soundness`,
//! see docs/simulator.md): tasksets the analysis accepts never show a simulated response
//! above their bound, under every policy/mode pair (tsg-rr, gcaps and gcaps-boost, busy and
//! suspend), with the update-path model's FIFO order (U3) and with CPU-priority order (the
//! lock model of the analysis before U3); and a few sets of the GPU-heavy stress points and
//! of the Fig. 8 points.

use gcaps_sim::soundness::{
    check_set, default_search, fig8_points, point_taskset, points, stress_points, PairOutcome,
    Point, PAIRS,
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

/// Checks `sets` tasksets of every point (taskset seed `seed`, `runs` adversarial runs
/// each) under every lock order in `locks`; a set's acceptances count once (first order).
fn check_points(points: Vec<Point>, seed: u64, sets: u64, runs: u32, locks: &[LockOrder]) -> Tally {
    let mut tally = Tally::new();
    for p in points {
        for index in 0..sets {
            let ts = point_taskset(&p, seed, index).expect("valid point");
            let search = default_search(&ts, index, runs);
            for (k, &lock) in locks.iter().enumerate() {
                let out = check_set(&ts, lock, &search).expect("simulates");
                tally.add(p.name, index, lock, &out, k == 0);
            }
        }
    }
    tally
}

#[test]
fn accepted_sets_never_exceed_their_bounds() {
    // The update-path model (U3: FIFO) and the lock order the analysis assumed before U3
    // (CPU-priority order).
    check_points(
        points(),
        1,
        10,
        16,
        &[LockOrder::Fifo, LockOrder::CpuPriority],
    )
    .assert_sound();
}

#[test]
fn stress_points_never_exceed_their_bounds() {
    check_points(stress_points(), 2, 5, 16, &[LockOrder::Fifo]).assert_sound();
}

#[test]
fn fig8_points_never_exceed_their_bounds() {
    check_points(fig8_points(), 3, 4, 8, &[LockOrder::Fifo]).assert_sound();
}
