//! The empirical series of `gcaps experiment --empirical RUNS`: per policy and mode, the
//! share of tasksets in which an adversarial simulation (`gcaps-sim`) observes no deadline
//! miss. A set with an observed miss is unschedulable under any analysis, so each series is
//! an upper bound on what a sound analysis of that policy and mode can accept (with the
//! set's own GPU priorities: the simulated sets use GPU = CPU priorities).

use gcaps_analysis::experiment::{format_x, PointResult, Sweep, Worker};
use gcaps_analysis::generate::GenParams;
use gcaps_sim::search::explore;
use gcaps_sim::soundness::{default_search, PAIRS};
use gcaps_sim::{Config, SimModel};

/// Series names, in `PAIRS` order.
pub const NAMES: [&str; gcaps_sim::soundness::NPAIRS] = [
    "sim_tsg_rr_busy",
    "sim_tsg_rr_suspend",
    "sim_gcaps_busy",
    "sim_gcaps_suspend",
    "sim_gcaps_boost_busy",
    "sim_gcaps_boost_suspend",
];

/// Per-thread state: the analysis's worker, which generates the same tasksets.
#[derive(Default)]
pub struct SimWorker {
    gen: Worker,
}

impl SimWorker {
    /// Generates the same taskset as the analysis series (same seed) and simulates it
    /// under every pair: bit `k` is set if no real-time deadline miss was observed under
    /// `PAIRS[k]` in `runs` adversarial runs.
    pub fn evaluate(
        &mut self,
        sweep: &Sweep,
        params: &GenParams,
        seed: u64,
        x: f64,
        index: u64,
        runs: u32,
    ) -> u64 {
        let ts = self.gen.generate(sweep, params, seed, x, index);
        let Ok(model) = SimModel::from_taskset(ts) else {
            return 0;
        };
        let mut search = default_search(ts, sweep.taskset_seed(seed, x, index), runs);
        search.stop_on_miss = true;
        let mut mask = 0;
        for (k, &(p, m)) in PAIRS.iter().enumerate() {
            let mut cfg = Config::new(p, m, search.horizon);
            cfg.keep_responses = false;
            let Ok(obs) = explore(&model, &cfg, &search) else {
                continue;
            };
            let miss = model
                .tasks
                .iter()
                .enumerate()
                .any(|(i, t)| !t.is_best_effort() && obs.misses[i] > 0);
            if !miss {
                mask |= 1 << k;
            }
        }
        mask
    }
}

/// CSV rows of the empirical series (same columns as the analysis series).
pub fn csv_rows(sweep: &Sweep, results: &[PointResult]) -> String {
    let mut out = String::new();
    for r in results {
        for (j, name) in NAMES.iter().enumerate() {
            out.push_str(&format!(
                "{},{},{},{},{},{:.4}\n",
                sweep.name,
                format_x(r.x),
                name,
                r.schedulable[j],
                r.total,
                r.percent(j) / 100.0
            ));
        }
    }
    out
}

/// Runs the empirical series of one sweep on the current rayon pool (parameters already
/// validated by the analysis run).
pub fn run_sweep(
    sweep: &Sweep,
    base: &GenParams,
    seed: u64,
    n: u64,
    runs: u32,
) -> Vec<PointResult> {
    use rayon::prelude::*;
    let params: Vec<GenParams> = sweep
        .points
        .iter()
        .map(|&x| sweep.params_at(base, x))
        .collect();
    let jobs = sweep.points.len() as u64 * n;
    let masks: Vec<u64> = (0..jobs)
        .into_par_iter()
        .map_init(SimWorker::default, |w, job| {
            let point = (job / n) as usize;
            w.evaluate(
                sweep,
                &params[point],
                seed,
                sweep.points[point],
                job % n,
                runs,
            )
        })
        .collect();
    sweep
        .points
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let lo = i * n as usize;
            PointResult::from_masks(x, NAMES.len(), &masks[lo..lo + n as usize])
        })
        .collect()
}
