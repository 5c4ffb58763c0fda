//! The schedulability sweeps of Sec. 7.1 (Fig. 8 a-f and Fig. 9).
//!
//! A [`Sweep`] varies one generation parameter over a list of points,
//! keeping the others at Table 3 defaults ([`GenParams::default`]), and
//! checks every generated taskset with every [`Series`] (an analysis
//! configuration). The driver (parallelism, files) is the `gcaps
//! experiment` command; this module owns what is computed and the seeds.
//!
//! Seeds: taskset `k` of point `x` of a sweep is generated from
//! `derive_seed(seed, [fnv1a(seed_key), bits(x), k])` ([`Sweep::seed_key`]
//! is the sweep name, except that Fig. 9 shares the utilisation sweep's
//! tasksets), so a result depends only on `(seed, sweep, x, k)`: not on
//! the thread count, the evaluation order, `-n`, or which other points or
//! sweeps run.

use crate::analyze::{is_schedulable, Config, GpuPolicy, WaitMode};
use crate::generate::{derive_seed, fnv1a, generate_into, GenParams, Range, Scratch};
use crate::model::{Mechanism, Platform, Taskset};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// One curve of a plot: a named analysis configuration.
#[derive(Debug, Clone)]
pub struct Series {
    /// Name used in the CSV and the legend, e.g. `gcaps_busy_gpa`. One name
    /// means one configuration in every sweep: `_gpa` with the GPU priority
    /// assignment fallback, `_no_gpa` without.
    pub name: &'static str,
    /// The analysis run on every taskset.
    pub config: Config,
    /// The eligibility mechanism analysed, if not the platform's (D24).
    pub mechanism: Option<Mechanism>,
}

impl Series {
    /// A series for `policy` under `mode`, with or without the GPU priority
    /// assignment fallback of Sec. 5.3 / 6.4.
    pub fn new(name: &'static str, policy: GpuPolicy, mode: WaitMode, gpa: bool) -> Self {
        Series {
            name,
            config: Config {
                policy,
                mode,
                gpu_priority_assignment: gpa,
            },
            mechanism: None,
        }
    }

    /// The series analysed under `m` whatever the platform's mechanism.
    pub fn under(mut self, m: Mechanism) -> Self {
        self.mechanism = Some(m);
        self
    }

    /// True if the series' analysis deems `ts` schedulable (under the
    /// series' mechanism, if it has one).
    pub fn check(&self, ts: &mut Taskset) -> bool {
        let platform = ts.platform.mechanism;
        ts.platform.mechanism = self.mechanism.unwrap_or(platform);
        let ok = is_schedulable(ts, &self.config);
        ts.platform.mechanism = platform;
        ok
    }
}

/// The Fig. 8 comparison. GCAPS uses the GPU priority assignment as in the
/// paper ("we first run the response time test with the default RM
/// priorities, and if the test fails, try again with separate priorities
/// for GPU segments"). MPCP and FMLP+ treat each GPU segment as a critical
/// section (the paper's synchronization-based baselines). gcaps-boost
/// (issue 20, D17-D19) uses the same fallback. The `_gate` series analyse
/// both GCAPS policies under the gate mechanism (D24), the others under the
/// platform's (reload by default).
pub fn fig8_series() -> Vec<Series> {
    vec![
        Series::new("tsg_rr_busy", GpuPolicy::TsgRr, WaitMode::Busy, false),
        Series::new("tsg_rr_suspend", GpuPolicy::TsgRr, WaitMode::Suspend, false),
        Series::new("gcaps_busy_gpa", GpuPolicy::Gcaps, WaitMode::Busy, true),
        Series::new(
            "gcaps_suspend_gpa",
            GpuPolicy::Gcaps,
            WaitMode::Suspend,
            true,
        ),
        Series::new("mpcp_busy", GpuPolicy::Mpcp, WaitMode::Busy, false),
        Series::new("mpcp_suspend", GpuPolicy::Mpcp, WaitMode::Suspend, false),
        Series::new("fmlp+_busy", GpuPolicy::FmlpPlus, WaitMode::Busy, false),
        Series::new(
            "fmlp+_suspend",
            GpuPolicy::FmlpPlus,
            WaitMode::Suspend,
            false,
        ),
        Series::new(
            "gcaps_boost_busy_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Busy,
            true,
        ),
        Series::new(
            "gcaps_boost_suspend_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Suspend,
            true,
        ),
        Series::new(
            "gcaps_gate_busy_gpa",
            GpuPolicy::Gcaps,
            WaitMode::Busy,
            true,
        )
        .under(Mechanism::Gate),
        Series::new(
            "gcaps_gate_suspend_gpa",
            GpuPolicy::Gcaps,
            WaitMode::Suspend,
            true,
        )
        .under(Mechanism::Gate),
        Series::new(
            "gcaps_boost_gate_busy_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Busy,
            true,
        )
        .under(Mechanism::Gate),
        Series::new(
            "gcaps_boost_gate_suspend_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Suspend,
            true,
        )
        .under(Mechanism::Gate),
    ]
}

/// The Fig. 9 comparison: GCAPS and gcaps-boost with and without GPU
/// priority assignment.
pub fn fig9_series() -> Vec<Series> {
    vec![
        Series::new("gcaps_busy_no_gpa", GpuPolicy::Gcaps, WaitMode::Busy, false),
        Series::new("gcaps_busy_gpa", GpuPolicy::Gcaps, WaitMode::Busy, true),
        Series::new(
            "gcaps_suspend_no_gpa",
            GpuPolicy::Gcaps,
            WaitMode::Suspend,
            false,
        ),
        Series::new(
            "gcaps_suspend_gpa",
            GpuPolicy::Gcaps,
            WaitMode::Suspend,
            true,
        ),
        Series::new(
            "gcaps_boost_busy_no_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Busy,
            false,
        ),
        Series::new(
            "gcaps_boost_busy_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Busy,
            true,
        ),
        Series::new(
            "gcaps_boost_suspend_no_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Suspend,
            false,
        ),
        Series::new(
            "gcaps_boost_suspend_gpa",
            GpuPolicy::GcapsBoost,
            WaitMode::Suspend,
            true,
        ),
    ]
}

/// The generation parameter a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// Fixed number of tasks on every CPU.
    TasksPerCpu,
    /// Number of CPUs.
    Cpus,
    /// Fixed utilisation of every CPU.
    UtilPerCpu,
    /// Fixed ratio of GPU-using tasks, x in percent.
    GpuTaskRatio,
    /// Fixed G_i / C_i.
    GToCRatio,
    /// Ratio of best-effort tasks, x in percent.
    BestEffortRatio,
}

impl Param {
    /// Sets the parameter to the point `x` (in the sweep's display unit:
    /// percent for the two ratio-of-tasks sweeps).
    pub fn apply(self, p: &mut GenParams, x: f64) {
        match self {
            Param::TasksPerCpu => p.tasks_per_cpu = Range::fixed(x as u32),
            Param::Cpus => p.cpus = x as u32,
            Param::UtilPerCpu => p.util_per_cpu = Range::fixed(x),
            Param::GpuTaskRatio => p.gpu_task_ratio = Range::fixed(x / 100.0),
            Param::GToCRatio => p.g_to_c_ratio = Range::fixed(x),
            Param::BestEffortRatio => p.best_effort_ratio = x / 100.0,
        }
    }
}

/// One schedulability experiment.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Name on the command line and of the output files.
    pub name: &'static str,
    /// Which figure of the paper it reproduces.
    pub figure: &'static str,
    /// Plot title.
    pub title: &'static str,
    /// X-axis label, with units.
    pub x_label: &'static str,
    /// The varied parameter.
    pub param: Param,
    /// The x values, in the display unit of `x_label`.
    pub points: Vec<f64>,
    /// The analyses compared.
    pub series: Vec<Series>,
    /// Name that keys the taskset seeds. Sweeps with the same key and the
    /// same parameter see identical tasksets at equal x (Fig. 9 reuses the
    /// tasksets of the utilisation sweep, so `gcaps_busy_gpa` there equals
    /// `gcaps_busy_gpa` of Fig. 8b: a series name always means one
    /// analysis configuration).
    pub seed_key: &'static str,
}

/// The names of the Fig. 8 sweeps, in the order (paper panels a, c,
/// b, d, e, f: 8b is utilisation per CPU, 8c the number of CPUs).
pub const FIG8: [&str; 6] = [
    "tasks-per-cpu",
    "cpus",
    "util-per-cpu",
    "gpu-task-ratio",
    "g-to-c-ratio",
    "best-effort-ratio",
];

/// The x values of the utilisation sweeps.
const UTIL_POINTS: [f64; 9] = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7];

/// All sweeps: the six of Fig. 8, then `gpu-priority-gain` (Fig. 9).
pub fn sweeps() -> Vec<Sweep> {
    let ints = |a: u32, b: u32| (a..=b).map(f64::from).collect::<Vec<_>>();
    let percents = |a: u32, b: u32| (a..=b).step_by(10).map(f64::from).collect::<Vec<_>>();
    vec![
        Sweep {
            name: "tasks-per-cpu",
            figure: "Fig. 8a",
            title: "Schedulability vs. number of tasks per CPU",
            x_label: "tasks per CPU",
            param: Param::TasksPerCpu,
            points: ints(2, 10),
            series: fig8_series(),
            seed_key: "tasks-per-cpu",
        },
        Sweep {
            name: "cpus",
            figure: "Fig. 8c",
            title: "Schedulability vs. number of CPUs",
            x_label: "number of CPUs",
            param: Param::Cpus,
            points: ints(2, 10),
            series: fig8_series(),
            seed_key: "cpus",
        },
        Sweep {
            name: "util-per-cpu",
            figure: "Fig. 8b",
            title: "Schedulability vs. utilisation per CPU",
            x_label: "utilisation per CPU (C+G)/T",
            param: Param::UtilPerCpu,
            points: UTIL_POINTS.to_vec(),
            series: fig8_series(),
            seed_key: "util-per-cpu",
        },
        Sweep {
            name: "gpu-task-ratio",
            figure: "Fig. 8d",
            title: "Schedulability vs. ratio of GPU-using tasks",
            x_label: "GPU-using tasks (%)",
            param: Param::GpuTaskRatio,
            points: percents(10, 90),
            series: fig8_series(),
            seed_key: "gpu-task-ratio",
        },
        Sweep {
            name: "g-to-c-ratio",
            figure: "Fig. 8e",
            title: "Schedulability vs. ratio of GPU to CPU execution",
            x_label: "G_i / C_i (GPU / CPU execution time per task)",
            param: Param::GToCRatio,
            points: vec![0.2, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0, 2.5, 3.0],
            series: fig8_series(),
            seed_key: "g-to-c-ratio",
        },
        Sweep {
            name: "best-effort-ratio",
            figure: "Fig. 8f",
            title: "Schedulability vs. ratio of best-effort tasks",
            x_label: "best-effort tasks (%)",
            param: Param::BestEffortRatio,
            points: percents(0, 80),
            series: fig8_series(),
            seed_key: "best-effort-ratio",
        },
        Sweep {
            name: "gpu-priority-gain",
            figure: "Fig. 9",
            title: "GCAPS with and without GPU priority assignment",
            x_label: "utilisation per CPU (C+G)/T",
            param: Param::UtilPerCpu,
            points: UTIL_POINTS.to_vec(),
            series: fig9_series(),
            seed_key: "util-per-cpu",
        },
    ]
}

/// Resolves a `--sweep` argument: a sweep name, `all-fig8` (the six Fig. 8
/// sweeps) or `all` (all seven). `None` for an unknown name.
pub fn select(name: &str) -> Option<Vec<Sweep>> {
    let all = sweeps();
    match name {
        "all" => Some(all),
        "all-fig8" => Some(all.into_iter().filter(|s| FIG8.contains(&s.name)).collect()),
        _ => all.into_iter().find(|s| s.name == name).map(|s| vec![s]),
    }
}

/// The names accepted by [`select`].
pub fn sweep_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = sweeps().iter().map(|s| s.name).collect();
    v.push("all-fig8");
    v.push("all");
    v
}

impl Sweep {
    /// Generation parameters at point `x`: `base` with the swept parameter
    /// set to `x`.
    pub fn params_at(&self, base: &GenParams, x: f64) -> GenParams {
        let mut p = base.clone();
        self.param.apply(&mut p, x);
        p
    }

    /// The seed of taskset `index` at point `x`.
    pub fn taskset_seed(&self, seed: u64, x: f64, index: u64) -> u64 {
        derive_seed(seed, &[fnv1a(self.seed_key), x.to_bits(), index])
    }
}

/// Per-thread reusable state: the taskset buffer and generator scratch.
pub struct Worker {
    scratch: Scratch,
    ts: Taskset,
}

impl Default for Worker {
    fn default() -> Self {
        Worker {
            scratch: Scratch::default(),
            ts: Taskset {
                platform: Platform {
                    cpus: 1,
                    epsilon: 0,
                    epsilon_fast: None,
                    epsilon_cpu: None,
                    mechanism: Default::default(),
                    epsilon_preempt: None,
                    epsilon_handover: None,
                    theta: 0,
                    timeslice: 1,
                },
                tasks: Vec::new(),
            },
        }
    }
}

impl Worker {
    /// Generates taskset `index` of point `x` (with parameters `params`,
    /// from [`Sweep::params_at`], already validated) and checks it with
    /// every series. Bit `j` of the result is set if series `j` deems the
    /// taskset schedulable (at most 64 series).
    pub fn evaluate(
        &mut self,
        sweep: &Sweep,
        params: &GenParams,
        seed: u64,
        x: f64,
        index: u64,
    ) -> u64 {
        self.generate(sweep, params, seed, x, index);
        let mut mask = 0u64;
        for (j, s) in sweep.series.iter().enumerate() {
            if s.check(&mut self.ts) {
                mask |= 1 << j;
            }
        }
        mask
    }

    /// Generates taskset `index` of point `x` (the one [`Worker::evaluate`] checks, from the
    /// seed [`Sweep::taskset_seed`]) into the worker's buffer.
    pub fn generate(
        &mut self,
        sweep: &Sweep,
        params: &GenParams,
        seed: u64,
        x: f64,
        index: u64,
    ) -> &Taskset {
        let mut rng = ChaCha8Rng::seed_from_u64(sweep.taskset_seed(seed, x, index));
        generate_into(params, &mut rng, &mut self.scratch, &mut self.ts);
        &self.ts
    }

    /// The last generated taskset.
    pub fn taskset(&self) -> &Taskset {
        &self.ts
    }
}

/// The outcome at one point of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct PointResult {
    /// The x value.
    pub x: f64,
    /// Number of tasksets checked.
    pub total: u64,
    /// Schedulable tasksets per series (same order as `Sweep::series`).
    pub schedulable: Vec<u64>,
}

impl PointResult {
    /// Counts the bits of per-taskset masks from [`Worker::evaluate`].
    pub fn from_masks(x: f64, series: usize, masks: &[u64]) -> Self {
        let mut schedulable = vec![0; series];
        for m in masks {
            for (j, c) in schedulable.iter_mut().enumerate() {
                *c += (m >> j) & 1;
            }
        }
        PointResult {
            x,
            total: masks.len() as u64,
            schedulable,
        }
    }

    /// Schedulable fraction of series `j`, in percent.
    pub fn percent(&self, j: usize) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.schedulable[j] as f64 / self.total as f64
        }
    }
}

/// Formats an x value for CSV and tables (shortest round-trip form).
pub fn format_x(x: f64) -> String {
    format!("{x}")
}

/// The CSV of a sweep: header `sweep,x,series,schedulable,total,ratio` and
/// one row per point and series; `ratio` is schedulable/total in [0, 1].
pub fn to_csv(sweep: &Sweep, results: &[PointResult]) -> String {
    let mut out = String::from("sweep,x,series,schedulable,total,ratio\n");
    for r in results {
        for (j, s) in sweep.series.iter().enumerate() {
            let ratio = if r.total == 0 {
                0.0
            } else {
                r.schedulable[j] as f64 / r.total as f64
            };
            out.push_str(&format!(
                "{},{},{},{},{},{:.4}\n",
                sweep.name,
                format_x(r.x),
                s.name,
                r.schedulable[j],
                r.total,
                ratio
            ));
        }
    }
    out
}
