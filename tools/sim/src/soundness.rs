//! The soundness check: for tasksets the analysis accepts, no simulated response of a
//! real-time task may exceed its bound, under every policy/mode pair.
//!
//! Every use of the analysis crate's API (configuration types, `analyze`) is in
//! [`analysis_bounds`], so a rename there changes one function here.

use crate::engine::{BoostTiming, Config, GpuPolicy, LockOrder, WaitMode};
use crate::model::{SimModel, Time, NS_PER_MS};
use crate::scenario::Scenario;
use crate::search::{explore, Observed, Search};
use gcaps_analysis::experiment::Param;
use gcaps_analysis::generate::{derive_seed, generate, GenParams, Range};
use gcaps_analysis::model::{Mechanism, Taskset};

/// Number of policy/mode pairs.
pub const NPAIRS: usize = 6;

/// The policy/mode pairs, in report order.
pub const PAIRS: [(GpuPolicy, WaitMode); NPAIRS] = [
    (GpuPolicy::TsgRr, WaitMode::Busy),
    (GpuPolicy::TsgRr, WaitMode::Suspend),
    (GpuPolicy::Gcaps, WaitMode::Busy),
    (GpuPolicy::Gcaps, WaitMode::Suspend),
    (GpuPolicy::GcapsBoost, WaitMode::Busy),
    (GpuPolicy::GcapsBoost, WaitMode::Suspend),
];

/// `tsg-rr` / `gcaps` / `gcaps-boost`.
pub fn policy_name(p: GpuPolicy) -> &'static str {
    match p {
        GpuPolicy::TsgRr => "tsg-rr",
        GpuPolicy::Gcaps => "gcaps",
        GpuPolicy::GcapsBoost => "gcaps-boost",
    }
}

/// `busy` / `suspend`.
pub fn mode_name(m: WaitMode) -> &'static str {
    match m {
        WaitMode::Busy => "busy",
        WaitMode::Suspend => "suspend",
    }
}

/// The analysis of one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// True if every real-time task has a bound within its deadline.
    pub schedulable: bool,
    /// Per task (file order): the bound, `None` for best-effort tasks and tasks without one.
    pub wcrt: Vec<Option<Time>>,
    /// GPU priorities assigned by Audsley's search (GCAPS, `gpa`), by task index.
    pub assigned: Option<Vec<(usize, u32)>>,
}

/// Runs the analysis for `policy`/`mode` (the GCAPS policies with the GPU priority
/// assignment fallback if `gpa`).
pub fn analysis_bounds(ts: &Taskset, policy: GpuPolicy, mode: WaitMode, gpa: bool) -> Bounds {
    use gcaps_analysis::{analyze, Config as AConfig, GpuPolicy as APolicy, WaitMode as AMode};
    let cfg = AConfig {
        policy: match policy {
            GpuPolicy::TsgRr => APolicy::TsgRr,
            GpuPolicy::Gcaps => APolicy::Gcaps,
            GpuPolicy::GcapsBoost => APolicy::GcapsBoost,
        },
        mode: match mode {
            WaitMode::Busy => AMode::Busy,
            WaitMode::Suspend => AMode::Suspend,
        },
        gpu_priority_assignment: gpa && policy.is_gcaps(),
    };
    let rep = analyze(ts, &cfg);
    let assigned = rep.assigned_gpu_priorities.as_ref().map(|v| {
        v.iter()
            .filter_map(|(name, p)| {
                ts.tasks
                    .iter()
                    .position(|t| &t.name == name)
                    .map(|i| (i, *p))
            })
            .collect()
    });
    Bounds {
        schedulable: rep.schedulable,
        wcrt: rep.tasks.iter().map(|t| t.wcrt).collect(),
        assigned,
    }
}

/// The model to simulate for an analysis result: with the assigned GPU priorities.
pub fn model_for(ts: &Taskset, b: &Bounds) -> Result<SimModel, String> {
    let mut m = SimModel::from_taskset(ts)?;
    if let Some(a) = &b.assigned {
        for &(i, p) in a {
            m.tasks[i].gpu_priority = Some(p);
        }
    }
    Ok(m)
}

/// A generator parameter point of the check.
#[derive(Debug, Clone)]
pub struct Point {
    /// Name.
    pub name: &'static str,
    /// Parameters.
    pub params: GenParams,
}

/// The parameter points: small tasksets (2-4 cores, 2-4 tasks per core) at low to medium
/// utilisation, so that the analysis accepts many of them under every pair and a run takes
/// well under a millisecond; two with best-effort tasks, one with epsilon = 0, one with a
/// small epsilon and theta, three at Table 3's shape with 0.3 utilisation per core (one with
/// updates that sleep for all but 50 us of their epsilon, D23), and two under the gate
/// mechanism (D24): one at Table 3's shape with 50 us hand-overs, one light with a
/// preempting begin of half epsilon.
pub fn points() -> Vec<Point> {
    let base = GenParams {
        cpus: 2,
        tasks_per_cpu: Range::new(2, 3),
        util_per_cpu: Range::new(0.1, 0.3),
        period: Range::new(20 * NS_PER_MS, 200 * NS_PER_MS),
        gpu_segments: Range::new(1, 2),
        ..GenParams::default()
    };
    let mut v = vec![Point {
        name: "light-2cpu",
        params: base.clone(),
    }];
    v.push(Point {
        name: "light-2cpu-be",
        params: GenParams {
            best_effort_ratio: 0.25,
            ..base.clone()
        },
    });
    v.push(Point {
        name: "eps0-3cpu",
        params: GenParams {
            cpus: 3,
            epsilon: 0,
            tasks_per_cpu: Range::new(2, 4),
            util_per_cpu: Range::new(0.15, 0.35),
            ..base.clone()
        },
    });
    v.push(Point {
        name: "small-eps-3cpu-be",
        params: GenParams {
            cpus: 3,
            epsilon: 200_000,
            theta: 50_000,
            tasks_per_cpu: Range::new(2, 4),
            util_per_cpu: Range::new(0.15, 0.35),
            best_effort_ratio: 0.2,
            gpu_segments: Range::new(1, 3),
            ..base.clone()
        },
    });
    let table3 = GenParams {
        util_per_cpu: Range::fixed(0.3),
        period: Range::new(30 * NS_PER_MS, 300 * NS_PER_MS),
        ..GenParams::default()
    };
    v.push(Point {
        name: "table3-u0.3-fast",
        params: GenParams {
            epsilon_fast: Some(50_000),
            ..table3.clone()
        },
    });
    v.push(Point {
        name: "table3-u0.3-sleep",
        params: GenParams {
            epsilon_fast: Some(50_000),
            epsilon_cpu: Some(50_000),
            ..table3.clone()
        },
    });
    v.push(Point {
        name: "table3-u0.3-gate",
        params: GenParams {
            epsilon_fast: Some(50_000),
            epsilon_cpu: Some(50_000),
            mechanism: Mechanism::Gate,
            epsilon_handover: Some(50_000),
            ..table3.clone()
        },
    });
    v.push(Point {
        name: "light-2cpu-gate",
        params: GenParams {
            mechanism: Mechanism::Gate,
            epsilon_preempt: Some(500_000),
            epsilon_handover: Some(100_000),
            epsilon_fast: Some(20_000),
            ..base.clone()
        },
    });
    v.push(Point {
        name: "table3-u0.3",
        params: table3,
    });
    v
}

/// Extra parameter points (`gcaps soundness --points stress`) that load the cores with GPU
/// tasks, so that many segments meet on one core: boosted holds (D17), boosted lower
/// segments and the hand-over on one core (D18), the same-core terms of both GCAPS
/// analyses. Small epsilon and theta in two of them, so that the analysis accepts enough;
/// two under the gate mechanism (D24), one of them on one core (hand-overs between the
/// segments of one core), the other with `epsilon_fast` (= epsilon) above a hand-over plus
/// theta, so that an end's charge exceeds what a hand-over takes.
pub fn stress_points() -> Vec<Point> {
    let base = GenParams {
        cpus: 2,
        tasks_per_cpu: Range::new(3, 4),
        gpu_task_ratio: Range::fixed(1.0),
        util_per_cpu: Range::new(0.1, 0.3),
        period: Range::new(20 * NS_PER_MS, 200 * NS_PER_MS),
        gpu_segments: Range::new(1, 3),
        g_to_c_ratio: Range::new(0.5, 3.0),
        epsilon: 100_000,
        theta: 50_000,
        ..GenParams::default()
    };
    vec![
        Point {
            name: "gpu-all-2cpu",
            params: base.clone(),
        },
        Point {
            name: "gpu-all-1cpu-5tasks",
            params: GenParams {
                cpus: 1,
                tasks_per_cpu: Range::new(4, 5),
                ..base.clone()
            },
        },
        Point {
            name: "gpu-mixed-3cpu-eps1",
            params: GenParams {
                cpus: 3,
                tasks_per_cpu: Range::new(2, 3),
                gpu_task_ratio: Range::new(0.6, 0.9),
                util_per_cpu: Range::new(0.05, 0.2),
                epsilon: 1_000_000,
                theta: 200_000,
                gpu_segments: Range::new(1, 2),
                ..base.clone()
            },
        },
        Point {
            name: "gpu-all-2cpu-fast",
            params: GenParams {
                epsilon_fast: Some(10_000),
                ..base.clone()
            },
        },
        Point {
            name: "gpu-all-2cpu-sleep",
            params: GenParams {
                epsilon_fast: Some(10_000),
                epsilon_cpu: Some(20_000),
                ..base.clone()
            },
        },
        Point {
            name: "gpu-all-2cpu-gate",
            params: GenParams {
                mechanism: Mechanism::Gate,
                epsilon_cpu: Some(20_000),
                epsilon_handover: Some(15_000),
                ..base.clone()
            },
        },
        Point {
            name: "gpu-all-1cpu-5tasks-gate",
            params: GenParams {
                cpus: 1,
                tasks_per_cpu: Range::new(4, 5),
                mechanism: Mechanism::Gate,
                epsilon_fast: Some(10_000),
                epsilon_handover: Some(20_000),
                ..base.clone()
            },
        },
        Point {
            name: "gpu-all-2cpu-be",
            params: GenParams {
                best_effort_ratio: 0.2,
                ..base
            },
        },
    ]
}

/// The Fig. 8 points (`gcaps soundness --points fig8`) where gcaps-boost accepts most of
/// the generated sets: Table 3 defaults (`GenParams::default`, periods up to 500 ms) with one
/// parameter set as `gcaps experiment` sets it (`experiment::Param::apply`), so the check
/// runs on the distributions of the schedulability figures themselves.
pub fn fig8_points() -> Vec<Point> {
    const AT: [(&str, Param, f64); 6] = [
        ("fig8a-2-tasks-per-cpu", Param::TasksPerCpu, 2.0),
        ("fig8c-2-cpus", Param::Cpus, 2.0),
        ("fig8b-util-0.3", Param::UtilPerCpu, 0.3),
        ("fig8d-20pct-gpu-tasks", Param::GpuTaskRatio, 20.0),
        ("fig8f-50pct-best-effort", Param::BestEffortRatio, 50.0),
        ("fig8f-80pct-best-effort", Param::BestEffortRatio, 80.0),
    ];
    AT.iter()
        .map(|&(name, param, x)| {
            let mut params = GenParams::default();
            param.apply(&mut params, x);
            Point { name, params }
        })
        .collect()
}

/// One violation: a simulated response above the bound.
#[derive(Debug, Clone)]
pub struct Violation {
    /// Policy.
    pub policy: GpuPolicy,
    /// Mode.
    pub mode: WaitMode,
    /// Lock order simulated.
    pub lock: LockOrder,
    /// Task index.
    pub task: usize,
    /// The bound.
    pub bound: Time,
    /// The observed response (or age of an unfinished job).
    pub observed: Time,
    /// The scenario that produced it.
    pub scenario: Scenario,
    /// Release time of the offending job in that scenario.
    pub release: Time,
    /// The simulated model (with assigned GPU priorities).
    pub model: SimModel,
}

/// The outcome of one pair on one taskset.
#[derive(Debug, Clone, Default)]
pub struct PairOutcome {
    /// The analysis accepted the set.
    pub accepted: bool,
    /// Largest observed/bound over the RT tasks, in thousandths (0 if not accepted).
    pub worst_permille: u64,
    /// The same over the real-time tasks with a GPU segment (0 if none): CPU-only tasks
    /// often have a tight bound (1.000), this shows how close the GPU terms come.
    pub worst_gpu_permille: u64,
    /// Violations.
    pub violations: Vec<Violation>,
    /// Runs and events simulated.
    pub runs: u64,
    /// Events.
    pub events: u64,
}

/// Checks one taskset under every pair with the given lock order.
pub fn check_set(
    ts: &Taskset,
    lock: LockOrder,
    search: &Search,
) -> Result<[PairOutcome; NPAIRS], String> {
    check_set_timed(ts, lock, BoostTiming::AtEnd, search)
}

/// [`check_set`] with the gcaps-boost pairs' boost moved at `timing` inside the update.
pub fn check_set_timed(
    ts: &Taskset,
    lock: LockOrder,
    timing: BoostTiming,
    search: &Search,
) -> Result<[PairOutcome; NPAIRS], String> {
    let mut out: [PairOutcome; NPAIRS] = Default::default();
    for (k, &(policy, mode)) in PAIRS.iter().enumerate() {
        let b = analysis_bounds(ts, policy, mode, true);
        if !b.schedulable {
            continue;
        }
        let m = model_for(ts, &b)?;
        let mut cfg = Config::new(policy, mode, search.horizon);
        cfg.lock = lock;
        cfg.boost_timing = timing;
        cfg.keep_responses = false;
        let obs: Observed = explore(&m, &cfg, search)?;
        let o = &mut out[k];
        o.accepted = true;
        o.runs = obs.runs as u64;
        o.events = obs.events;
        for (i, t) in m.tasks.iter().enumerate() {
            if t.is_best_effort() {
                continue;
            }
            let Some(bound) = b.wcrt[i] else { continue };
            let permille = obs.max[i] * 1000 / bound.max(1);
            o.worst_permille = o.worst_permille.max(permille);
            if t.uses_gpu() {
                o.worst_gpu_permille = o.worst_gpu_permille.max(permille);
            }
            if obs.max[i] > bound {
                o.violations.push(Violation {
                    policy,
                    mode,
                    lock,
                    task: i,
                    bound,
                    observed: obs.max[i],
                    scenario: obs.witness[i]
                        .clone()
                        .unwrap_or_else(|| Scenario::synchronous(m.tasks.len())),
                    release: obs.witness_release[i],
                    model: m.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// The taskset `index` of point `p` for base seed `seed`.
pub fn point_taskset(p: &Point, seed: u64, index: u64) -> Result<Taskset, String> {
    generate(
        &p.params,
        derive_seed(seed, &[gcaps_analysis::generate::fnv1a(p.name), index]),
    )
    .map_err(|e| format!("point {}: {e}", p.name))
}

/// The search used per accepted set and pair: `runs` runs (adversarial) over a horizon of
/// three of the longest periods.
pub fn default_search(ts: &Taskset, seed: u64, runs: u32) -> Search {
    let max_period = ts.tasks.iter().map(|t| t.period).max().unwrap_or(0);
    Search {
        seed,
        runs,
        adversarial: true,
        horizon: max_period.saturating_mul(3),
        stop_on_miss: false,
    }
}
