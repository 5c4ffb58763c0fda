//! What a simulation run leaves to chance, and how it is chosen: release offsets, sporadic
//! delays, execution times below the WCET, where a segment's CPU work (G^m) lies relative to
//! its GPU pieces, and explicit release times. Every choice is drawn from per-task ChaCha8
//! streams derived from one seed, so a run is the same on every machine.

use crate::model::{SimModel, Time};
use gcaps_analysis::generate::derive_seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Execution times of one job's steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exec {
    /// Every step takes its WCET (and every runlist update takes epsilon).
    Wcet,
    /// Each step takes a uniform draw in `[min_permille/1000 * WCET, WCET]` (at least 1 ns).
    Random {
        /// Lower end in thousandths of the WCET (0..=1000).
        min_permille: u32,
    },
}

/// Where a GPU segment's CPU work G^m lies relative to its GPU pieces (and, with the same
/// choices, an update's CPU part around its sleep). With `n` submissions
/// G^m is cut into `n + 1` parts: before the first piece, between pieces, after the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MiscSplit {
    /// All of G^m before the first piece.
    Before,
    /// All of G^m after the last piece.
    After,
    /// Equal parts (the remainder in the last part).
    Even,
    /// Uniform random cut points, drawn per job.
    Random,
}

impl MiscSplit {
    /// Every choice, in declaration order.
    pub const ALL: [MiscSplit; 4] = [
        MiscSplit::Before,
        MiscSplit::After,
        MiscSplit::Even,
        MiscSplit::Random,
    ];
}

/// How the pure GPU work G^e of a segment is cut into its pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceSplit {
    /// Equal pieces (the remainder in the last).
    Even,
    /// Uniform random cut points, drawn per job.
    Random,
}

/// All choices of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Base seed of the per-task random streams.
    pub seed: u64,
    /// First release of each task (ignored for tasks with explicit releases).
    pub offsets: Vec<Time>,
    /// Largest extra delay between two releases, in thousandths of the period (0 =
    /// periodic; each gap is `T + uniform[0, max]`).
    pub sporadic_permille: u32,
    /// Execution times.
    pub exec: Exec,
    /// G^m placement.
    pub misc: MiscSplit,
    /// G^e pieces.
    pub pieces: PieceSplit,
    /// Where the on-CPU part of an update that submits lies around its sleep in the
    /// pending wait (D23): all before it, all after it, half each, or a random cut. No
    /// effect when `epsilon_cpu` is epsilon (the update never sleeps).
    pub update_cpu: MiscSplit,
    /// Explicit release times per task (`None`: offset + periodic/sporadic). A task with an
    /// explicit list is released exactly at those times (sorted) and never otherwise.
    pub releases: Vec<Option<Vec<Time>>>,
}

impl Scenario {
    /// Synchronous periodic release at 0, WCET, G^m before the GPU work: the classic
    /// critical-instant candidate.
    pub fn synchronous(n_tasks: usize) -> Scenario {
        Scenario {
            seed: 0,
            offsets: vec![0; n_tasks],
            sporadic_permille: 0,
            exec: Exec::Wcet,
            misc: MiscSplit::Before,
            pieces: PieceSplit::Even,
            update_cpu: MiscSplit::Before,
            releases: vec![None; n_tasks],
        }
    }

    /// A random scenario from `seed`: offsets uniform in `[0, T)`, sporadic delays up to
    /// 20 % of T, execution times in `[50 %, 100 %]` of the WCET, random G^m placement.
    pub fn random(model: &SimModel, seed: u64) -> Scenario {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, &[0x0ff5e7]));
        Scenario {
            seed,
            offsets: model
                .tasks
                .iter()
                .map(|t| rng.gen_range(0..t.period))
                .collect(),
            sporadic_permille: 200,
            exec: Exec::Random { min_permille: 500 },
            misc: MiscSplit::Random,
            pieces: PieceSplit::Random,
            update_cpu: MiscSplit::Random,
            releases: vec![None; model.tasks.len()],
        }
    }

    /// The random stream of task `i`.
    pub(crate) fn task_rng(&self, i: usize) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(derive_seed(self.seed, &[i as u64]))
    }

    /// The random stream of task `i`'s update durations (its own stream, so that the
    /// job's draws do not depend on how many updates ran).
    pub(crate) fn update_rng(&self, i: usize) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(derive_seed(self.seed, &[i as u64, 0x0bda7e]))
    }
}

/// Scales a WCET by the execution choice.
pub(crate) fn scale(exec: Exec, wcet: Time, rng: &mut ChaCha8Rng) -> Time {
    match exec {
        Exec::Wcet => wcet,
        Exec::Random { min_permille } => {
            if wcet == 0 {
                return 0;
            }
            let k = rng.gen_range(min_permille.min(1000)..=1000) as u128;
            ((wcet as u128 * k / 1000) as Time).max(1)
        }
    }
}

/// Cuts `total` into `parts.len()` parts: `Even`, all in the first, all in the last, or at
/// random cut points.
pub(crate) fn cut(total: Time, parts: &mut [Time], how: MiscSplit, rng: &mut ChaCha8Rng) {
    let n = parts.len();
    if n == 0 {
        return;
    }
    parts.fill(0);
    match how {
        MiscSplit::Before => parts[0] = total,
        MiscSplit::After => parts[n - 1] = total,
        MiscSplit::Even => {
            let each = total / n as Time;
            parts.fill(each);
            parts[n - 1] = total - each * (n as Time - 1);
        }
        MiscSplit::Random => {
            // n - 1 sorted cut points in [0, total].
            let mut prev = 0;
            let mut cuts: [Time; 8] = [0; 8];
            if n - 1 <= cuts.len() {
                for c in cuts.iter_mut().take(n - 1) {
                    *c = rng.gen_range(0..=total);
                }
                cuts[..n - 1].sort_unstable();
                for (k, p) in parts.iter_mut().enumerate().take(n - 1) {
                    *p = cuts[k] - prev;
                    prev = cuts[k];
                }
            } else {
                let mut v: Vec<Time> = (0..n - 1).map(|_| rng.gen_range(0..=total)).collect();
                v.sort_unstable();
                for (k, p) in parts.iter_mut().enumerate().take(n - 1) {
                    *p = v[k] - prev;
                    prev = v[k];
                }
            }
            parts[n - 1] = total - prev;
        }
    }
}
