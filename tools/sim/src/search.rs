//! Many runs of one taskset: fixed critical-instant candidates, seeded random scenarios, and
//! (`adversarial`) a hill climb over release offsets, execution times and G^m placement that
//! keeps the scenario with the largest normalised response times.

use crate::engine::{run, Config, RunResult};
use crate::model::{SimModel, Time};
use crate::scenario::{Exec, MiscSplit, PieceSplit, Scenario};
use gcaps_analysis::generate::derive_seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What to explore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Search {
    /// Base seed.
    pub seed: u64,
    /// Number of runs (at least the fixed candidates: 3).
    pub runs: u32,
    /// Hill-climb (otherwise: fixed candidates, then independent random scenarios).
    pub adversarial: bool,
    /// Releases happen in `[0, horizon)` of each run.
    pub horizon: Time,
    /// Stop at the first run in which a real-time task misses a deadline.
    pub stop_on_miss: bool,
}

/// The worst observed per task over all runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// Per task: largest response (or age of an unfinished job).
    pub max: Vec<Time>,
    /// Per task: the scenario that produced `max`.
    pub witness: Vec<Option<Scenario>>,
    /// Per task: release time of the job that produced `max` in its witness.
    pub witness_release: Vec<Time>,
    /// Per task: jobs over all runs.
    pub jobs: Vec<u64>,
    /// Per task: misses over all runs.
    pub misses: Vec<u64>,
    /// Per task: every finished response of every run (if `Config::keep_responses`).
    pub responses: Vec<Vec<Time>>,
    /// Per task: sum of finished responses over all runs.
    pub sum: Vec<u128>,
    /// Runs made.
    pub runs: u32,
    /// Events processed.
    pub events: u64,
}

impl Observed {
    fn new(n: usize) -> Observed {
        Observed {
            max: vec![0; n],
            witness: vec![None; n],
            witness_release: vec![0; n],
            jobs: vec![0; n],
            misses: vec![0; n],
            responses: vec![Vec::new(); n],
            sum: vec![0; n],
            runs: 0,
            events: 0,
        }
    }

    fn add(&mut self, r: &RunResult, sc: &Scenario) {
        self.runs += 1;
        self.events += r.events;
        for (i, s) in r.tasks.iter().enumerate() {
            self.jobs[i] += s.jobs;
            self.misses[i] += s.misses;
            self.sum[i] += s.sum;
            self.responses[i].extend_from_slice(&s.responses);
            if s.max > self.max[i] || self.witness[i].is_none() {
                self.max[i] = s.max;
                self.witness[i] = Some(sc.clone());
                self.witness_release[i] = s.max_release;
            }
        }
    }
}

/// Score of a run: the sum over tasks of `max_i / D_i`, in millionths (integer).
fn score(model: &SimModel, r: &RunResult) -> u128 {
    r.tasks
        .iter()
        .zip(&model.tasks)
        .filter(|(_, t)| !t.is_best_effort())
        .map(|(s, t)| s.max as u128 * 1_000_000 / t.deadline.max(1) as u128)
        .sum()
}

/// The fixed candidates: synchronous release at 0 with WCET and G^m before, after, or
/// spread over the GPU pieces.
fn fixed(model: &SimModel) -> Vec<Scenario> {
    let n = model.tasks.len();
    [MiscSplit::Before, MiscSplit::After, MiscSplit::Even]
        .into_iter()
        .map(|misc| {
            let mut s = Scenario::synchronous(n);
            s.misc = misc;
            s
        })
        .collect()
}

/// A neighbour of `sc`: one to three tasks get a new offset (fresh or shifted), and with
/// some probability the G^m placement, the CPU part of the updates around their sleep or
/// the execution-time choice changes.
fn mutate(model: &SimModel, sc: &Scenario, rng: &mut ChaCha8Rng) -> Scenario {
    let mut s = sc.clone();
    let n = model.tasks.len();
    let k = rng.gen_range(1..=3.min(n));
    for _ in 0..k {
        let i = rng.gen_range(0..n);
        let p = model.tasks[i].period;
        s.offsets[i] = match rng.gen_range(0..4) {
            0 => 0,
            1 => rng.gen_range(0..p),
            _ => {
                // Small shift, up to 5 % of the period either way.
                let d = (p / 20).max(1);
                let delta = rng.gen_range(0..=2 * d);
                (s.offsets[i] + delta).saturating_sub(d).min(p - 1)
            }
        };
    }
    let split = |rng: &mut ChaCha8Rng| MiscSplit::ALL[rng.gen_range(0..MiscSplit::ALL.len())];
    if rng.gen_range(0..4) == 0 {
        s.misc = split(rng);
    }
    if rng.gen_range(0..4) == 0 {
        s.update_cpu = split(rng);
    }
    if rng.gen_range(0..6) == 0 {
        s.exec = if s.exec == Exec::Wcet {
            Exec::Random { min_permille: 800 }
        } else {
            Exec::Wcet
        };
    }
    if rng.gen_range(0..6) == 0 {
        s.pieces = if s.pieces == PieceSplit::Even {
            PieceSplit::Random
        } else {
            PieceSplit::Even
        };
    }
    if rng.gen_range(0..8) == 0 {
        s.sporadic_permille = if s.sporadic_permille == 0 { 100 } else { 0 };
    }
    s.seed = rng.gen::<u64>() >> 1; // 63 bits: a TOML integer
    s
}

/// Runs the search. Errors only on a model the engine cannot run.
pub fn explore(model: &SimModel, cfg: &Config, search: &Search) -> Result<Observed, String> {
    let mut cfg = *cfg;
    cfg.horizon = search.horizon;
    cfg.record = false;
    let mut obs = Observed::new(model.tasks.len());
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(search.seed, &[0x5ea7c4]));
    let mut best: Option<(u128, Scenario)> = None;
    let runs = search.runs.max(1);
    let fixed = fixed(model);
    for k in 0..runs {
        let sc = if (k as usize) < fixed.len() {
            fixed[k as usize].clone()
        } else if search.adversarial && k as usize >= 2 * fixed.len() && best.is_some() {
            let (_, b) = best.as_ref().expect("checked");
            // Mostly climb from the best; now and then restart from a fresh point.
            if rng.gen_range(0..8) == 0 {
                Scenario::random(model, rng.gen::<u64>() >> 1)
            } else {
                mutate(model, b, &mut rng)
            }
        } else {
            let mut s = Scenario::random(model, derive_seed(search.seed, &[k as u64]) >> 1);
            if search.adversarial {
                s.exec = Exec::Wcet;
                s.sporadic_permille = 0;
            }
            s
        };
        let r = run(model, &cfg, &sc)?;
        obs.add(&r, &sc);
        if search.stop_on_miss
            && r.tasks
                .iter()
                .zip(&model.tasks)
                .any(|(s, t)| !t.is_best_effort() && s.misses > 0)
        {
            break;
        }
        let sco = score(model, &r);
        if best.as_ref().is_none_or(|(b, _)| sco > *b) {
            best = Some((sco, sc));
        }
    }
    Ok(obs)
}
