//! `gcaps simulate`, `gcaps compare` and `gcaps soundness`: the discrete-event simulator
//! (`tools/sim`, `docs/simulator.md`) on a taskset file, against the analysis bounds, and
//! over many generated tasksets.

use crate::analyze::{InputFormat, OutputFormat};
use gcaps_sim::input::{parse, parse_release_flag, scenario_toml, SimInput};
use gcaps_sim::search::{explore, Search};
use gcaps_sim::soundness::{
    analysis_bounds, check_set_timed, default_search, fig8_points, mode_name, model_for,
    point_taskset, points, policy_name, stress_points, Violation, PAIRS,
};
use gcaps_sim::{
    run, BoostTiming, Config, Exec, GpuPolicy, LockOrder, MiscSplit, RunResult, Scenario, SimModel,
    Time, WaitMode, NS_PER_MS,
};
use rayon::prelude::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PolicyArg {
    /// nvgpu's TSG round robin.
    TsgRr,
    /// GCAPS.
    Gcaps,
    /// GCAPS with the holder boost and the tail rule (issue 20).
    GcapsBoost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ModeArg {
    /// Busy-waiting during GPU work.
    Busy,
    /// Self-suspending during GPU work.
    Suspend,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LockArg {
    /// FIFO at the update ceiling (U3, the model).
    Fifo,
    /// CPU-priority order (the lock model of the analysis before U3).
    CpuPriority,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BoostTimingArg {
    /// Boost and unboost at the end of the update, with the runlist (what gcaps.ko does).
    AtEnd,
    /// Unboost at the decision, boost at the end (also within U8).
    UnboostAtDecision,
    /// Both at the decision, before the submit (also within U8: D18's hand-over spin; the
    /// finding tests/regressions/boost-handover-update-busy.toml).
    AtDecision,
}

fn boost_timing(b: BoostTimingArg) -> BoostTiming {
    match b {
        BoostTimingArg::AtEnd => BoostTiming::AtEnd,
        BoostTimingArg::UnboostAtDecision => BoostTiming::UnboostAtDecision,
        BoostTimingArg::AtDecision => BoostTiming::AtDecision,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PointsArg {
    /// The points of `gcaps_sim::soundness::points` (docs/simulator.md).
    Default,
    /// GPU-heavy points (`stress_points`): many segments per core.
    Stress,
    /// Six Fig. 8 points at Table 3 defaults (`fig8_points`), where gcaps-boost accepts most.
    Fig8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ScenarioArg {
    /// Seeded random offsets, sporadic delays, execution times and G^m placement.
    Random,
    /// All released at 0 (or at the file's offsets/releases), WCET, G^m before the GPU work.
    Synchronous,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExecArg {
    /// Every step takes its WCET.
    Wcet,
    /// Uniform in [50 %, 100 %] of the WCET.
    Random,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MiscArg {
    /// G^m before the GPU work.
    Before,
    /// G^m after the GPU work.
    After,
    /// G^m spread evenly around the pieces.
    Even,
    /// Random cut points.
    Random,
}

fn policy(p: PolicyArg) -> GpuPolicy {
    match p {
        PolicyArg::TsgRr => GpuPolicy::TsgRr,
        PolicyArg::Gcaps => GpuPolicy::Gcaps,
        PolicyArg::GcapsBoost => GpuPolicy::GcapsBoost,
    }
}

fn mode(m: ModeArg) -> WaitMode {
    match m {
        ModeArg::Busy => WaitMode::Busy,
        ModeArg::Suspend => WaitMode::Suspend,
    }
}

fn lock(l: LockArg) -> LockOrder {
    match l {
        LockArg::Fifo => LockOrder::Fifo,
        LockArg::CpuPriority => LockOrder::CpuPriority,
    }
}

fn lock_name(l: LockOrder) -> &'static str {
    match l {
        LockOrder::Fifo => "fifo",
        LockOrder::CpuPriority => "cpu-priority",
    }
}

/// Arguments of `gcaps simulate`.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// Taskset file (TOML or JSON, optionally with a [simulation] table); default: the
    /// embedded case study. `-` reads standard input.
    file: Option<PathBuf>,
    /// GPU scheduling policy.
    #[arg(long, value_enum, default_value = "gcaps")]
    policy: PolicyArg,
    /// How tasks wait for pure GPU work.
    #[arg(long, value_enum, default_value = "suspend")]
    mode: ModeArg,
    /// Runlist lock order.
    #[arg(long, value_enum, default_value = "fifo")]
    lock: LockArg,
    /// gcaps-boost: when the boost moves inside the update.
    #[arg(long, value_enum, default_value = "at-end")]
    boost_timing: BoostTimingArg,
    /// Releases happen in [0, MS) (default: the file's horizon, else 10 longest periods,
    /// at least 1000 ms).
    #[arg(long, value_name = "MS")]
    duration: Option<f64>,
    /// Seed of all random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Number of runs (> 1: statistics over all runs; the table's max is the largest).
    #[arg(long, default_value_t = 1)]
    runs: u32,
    /// Search the choices (offsets, execution times, G^m placement) for the largest
    /// response times (hill climb; default 200 runs unless --runs is given).
    #[arg(long)]
    adversarial: bool,
    /// Base scenario of a single run (default: synchronous if the file has a [simulation]
    /// table or --release/--offset is given, else random).
    #[arg(long, value_enum)]
    scenario: Option<ScenarioArg>,
    /// Exact release times of a task: NAME=MS,MS,... (repeatable).
    #[arg(long, value_name = "NAME=MS,...")]
    release: Vec<String>,
    /// First release of a task: NAME=MS (repeatable).
    #[arg(long, value_name = "NAME=MS")]
    offset: Vec<String>,
    /// Execution times.
    #[arg(long, value_enum)]
    exec: Option<ExecArg>,
    /// Where G^m lies relative to the GPU work.
    #[arg(long, value_enum)]
    misc: Option<MiscArg>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// Write an SVG Gantt chart of the (worst) run.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Write a Chrome/Perfetto trace JSON of the (worst) run.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Time window of the SVG, FROM:TO in ms (default: the first 2 longest periods).
    #[arg(long, value_name = "FROM:TO")]
    window: Option<String>,
    /// Input syntax.
    #[arg(long, value_enum, default_value = "auto")]
    input_format: InputFormat,
}

fn read_input(file: &Option<PathBuf>, input: InputFormat) -> Result<(SimInput, String), String> {
    let (text, origin, format) = crate::analyze::read_input(file, input)?;
    // `origin` stays raw (the parsers escape it); messages here use the escaped form.
    let sim = parse(&text, &origin, format)?;
    Ok((sim, origin.escape_debug().to_string()))
}

fn ms_arg(x: f64, what: &str) -> Result<Time, String> {
    if !x.is_finite() || x <= 0.0 || x > 1e9 {
        return Err(format!(
            "{what}: expected a number of ms in (0, 1e9], got {x}"
        ));
    }
    Ok(((x * NS_PER_MS as f64).round() as Time).max(1))
}

fn ms(t: Time) -> f64 {
    t as f64 / NS_PER_MS as f64
}

fn fmt_ms(t: Time) -> String {
    let s = format!("{:.3}", ms(t));
    let s = s.trim_end_matches('0');
    s.strip_suffix('.').unwrap_or(s).to_string()
}

fn default_horizon(m: &SimModel) -> Time {
    let max_p = m.tasks.iter().map(|t| t.period).max().unwrap_or(0);
    max_p.saturating_mul(10).max(1000 * NS_PER_MS)
}

/// p99 by the nearest-rank method.
fn p99(v: &mut [Time]) -> Option<Time> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let k = (v.len() * 99).div_ceil(100).max(1) - 1;
    Some(v[k])
}

struct Row {
    jobs: u64,
    max: Time,
    mean: Option<Time>,
    p99: Option<Time>,
    misses: u64,
    unfinished: u64,
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| {
        format!(
            "cannot write {}: {e}",
            path.display().to_string().escape_debug()
        )
    })
}

fn window(arg: &Option<String>, m: &SimModel, end: Time) -> Result<(Time, Time), String> {
    match arg {
        None => {
            let max_p = m.tasks.iter().map(|t| t.period).max().unwrap_or(1);
            Ok((0, (2 * max_p).min(end.max(1))))
        }
        Some(s) => {
            let bad = || {
                format!(
                    "--window '{}': expected FROM:TO in ms with FROM < TO",
                    s.escape_debug()
                )
            };
            let (a, b) = s.split_once(':').ok_or_else(bad)?;
            let a: f64 = a.trim().parse().map_err(|_| bad())?;
            let b: f64 = b.trim().parse().map_err(|_| bad())?;
            if !(a.is_finite() && b.is_finite()) || a < 0.0 || b <= a || b > 1e9 {
                return Err(bad());
            }
            Ok((
                (a * NS_PER_MS as f64).round() as Time,
                (b * NS_PER_MS as f64).round() as Time,
            ))
        }
    }
}

fn simulate(args: &SimulateArgs) -> Result<(String, bool), String> {
    let (input, origin) = read_input(&args.file, args.input_format)?;
    let model = SimModel::from_taskset(&input.taskset).map_err(|e| format!("{origin}: {e}"))?;
    let horizon = match args.duration {
        Some(d) => ms_arg(d, "--duration")?,
        None => input.sim.horizon.unwrap_or_else(|| default_horizon(&model)),
    };
    let mut cfg = Config::new(policy(args.policy), mode(args.mode), horizon);
    cfg.lock = lock(args.lock);
    cfg.boost_timing = boost_timing(args.boost_timing);
    let has_table = input.sim != Default::default();
    let synchronous = match args.scenario {
        Some(ScenarioArg::Synchronous) => true,
        Some(ScenarioArg::Random) => false,
        None => has_table || !args.release.is_empty() || !args.offset.is_empty(),
    };
    let mut sc = if synchronous {
        Scenario::synchronous(model.tasks.len())
    } else {
        Scenario::random(&model, args.seed)
    };
    sc.seed = args.seed;
    input.sim.apply(&model, &mut sc);
    let idx = |name: &str| {
        model
            .tasks
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| format!("no task named '{}' in {origin}", name.escape_debug()))
    };
    for r in &args.release {
        let (name, times) = parse_release_flag(r)?;
        sc.releases[idx(&name)?] = Some(times);
    }
    for o in &args.offset {
        let (name, times) = parse_release_flag(o)?;
        let [t] = times[..] else {
            return Err(format!(
                "--offset '{}': expected NAME=MS (one time)",
                o.escape_debug()
            ));
        };
        sc.offsets[idx(&name)?] = t;
    }
    if let Some(e) = args.exec {
        sc.exec = match e {
            ExecArg::Wcet => Exec::Wcet,
            ExecArg::Random => Exec::Random { min_permille: 500 },
        };
    }
    if let Some(m) = args.misc {
        sc.misc = match m {
            MiscArg::Before => MiscSplit::Before,
            MiscArg::After => MiscSplit::After,
            MiscArg::Even => MiscSplit::Even,
            MiscArg::Random => MiscSplit::Random,
        };
    }
    // Checked up front, also when no SVG is asked for.
    window(&args.window, &model, horizon)?;
    let want_trace = args.svg.is_some() || args.trace.is_some();
    let runs = if args.adversarial && args.runs == 1 {
        200
    } else {
        args.runs.max(1)
    };
    let start = Instant::now();
    let (rows, events, traced): (Vec<Row>, u64, Option<RunResult>) = if runs == 1 {
        cfg.record = want_trace;
        let r = run(&model, &cfg, &sc)?;
        let rows = r
            .tasks
            .iter()
            .map(|s| {
                let mut v = s.responses.clone();
                Row {
                    jobs: s.jobs,
                    max: s.max,
                    mean: (s.jobs > 0).then(|| (s.sum / s.jobs as u128) as Time),
                    p99: p99(&mut v),
                    misses: s.misses,
                    unfinished: s.unfinished,
                }
            })
            .collect();
        (rows, r.events, Some(r))
    } else {
        let search = Search {
            seed: args.seed,
            runs,
            adversarial: args.adversarial,
            horizon,
            stop_on_miss: false,
        };
        let mut obs = explore(&model, &cfg, &search)?;
        let rows = (0..model.tasks.len())
            .map(|i| Row {
                jobs: obs.jobs[i],
                max: obs.max[i],
                mean: (obs.jobs[i] > 0).then(|| (obs.sum[i] / obs.jobs[i] as u128) as Time),
                p99: p99(&mut obs.responses[i]),
                misses: obs.misses[i],
                unfinished: 0,
            })
            .collect();
        // Re-run the witness of the worst real-time task (max / D) to draw it.
        let traced = if want_trace {
            let worst = (0..model.tasks.len())
                .filter(|&i| !model.tasks[i].is_best_effort())
                .max_by_key(|&i| obs.max[i] as u128 * 1_000_000 / model.tasks[i].deadline as u128)
                .unwrap_or(0);
            let mut c = cfg;
            c.record = true;
            let w = obs.witness[worst].clone().unwrap_or(sc.clone());
            Some(run(&model, &c, &w)?)
        } else {
            None
        };
        (rows, obs.events, traced)
    };
    let secs = start.elapsed().as_secs_f64();
    if let Some(r) = &traced {
        if let Some(tr) = &r.trace {
            if let Some(p) = &args.svg {
                let (from, to) = window(&args.window, &model, tr.end)?;
                let title = format!(
                    "{} — {}, {}, lock {}",
                    origin,
                    policy_name(cfg.policy),
                    mode_name(cfg.mode),
                    lock_name(cfg.lock)
                );
                write_file(p, &gcaps_sim::svg::render(&model, tr, from, to, &title))?;
            }
            if let Some(p) = &args.trace {
                write_file(p, &gcaps_sim::perfetto::render(&model, tr))?;
            }
        }
    }
    let any_miss = rows
        .iter()
        .zip(&model.tasks)
        .any(|(r, t)| !t.is_best_effort() && r.misses > 0);
    let text = match args.format {
        OutputFormat::Json => {
            let tasks: Vec<_> = rows
                .iter()
                .zip(&model.tasks)
                .map(|(r, t)| {
                    json!({
                        "name": t.name,
                        "best_effort": t.is_best_effort(),
                        "cpu": t.cpu,
                        "jobs": r.jobs,
                        "max": ms(r.max),
                        "mean": r.mean.map(ms),
                        "p99": r.p99.map(ms),
                        "misses": r.misses,
                        "unfinished": r.unfinished,
                        "deadline": ms(t.deadline),
                    })
                })
                .collect();
            let doc = json!({
                "policy": policy_name(cfg.policy),
                "mode": mode_name(cfg.mode),
                "lock": lock_name(cfg.lock),
                "runs": runs,
                "adversarial": args.adversarial,
                "seed": if runs == 1 { sc.seed } else { args.seed },
                "horizon": ms(horizon),
                "events": events,
                "tasks": tasks,
            });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
            )
        }
        OutputFormat::Table => {
            let mut out =
                format!(
                "policy {}, mode {}, lock {}; {} run{}{}, horizon {} ms, seed {} (times in ms)\n",
                policy_name(cfg.policy),
                mode_name(cfg.mode),
                lock_name(cfg.lock),
                runs,
                if runs == 1 { "" } else { "s" },
                if args.adversarial { " (adversarial)" } else { "" },
                fmt_ms(horizon),
                if runs == 1 { sc.seed } else { args.seed }
            );
            let mut t = vec![[
                "task", "cpu", "prio", "D", "jobs", "max", "mean", "p99", "misses",
            ]
            .map(String::from)
            .to_vec()];
            for (r, task) in rows.iter().zip(&model.tasks) {
                let opt = |x: Option<Time>| x.map_or("-".to_string(), fmt_ms);
                let mut misses = r.misses.to_string();
                if r.unfinished > 0 {
                    misses += &format!(" ({} unfinished)", r.unfinished);
                }
                t.push(vec![
                    task.name.escape_debug().to_string(),
                    task.cpu.to_string(),
                    task.priority.map_or("be".to_string(), |p| p.to_string()),
                    fmt_ms(task.deadline),
                    r.jobs.to_string(),
                    fmt_ms(r.max),
                    opt(r.mean),
                    opt(r.p99),
                    misses,
                ]);
            }
            out.push_str(&columns(&t));
            out.push_str(&format!(
                "{} events in {:.3} s ({:.1} M events/s); {}\n",
                events,
                secs,
                events as f64 / secs.max(1e-9) / 1e6,
                if any_miss {
                    "deadline misses"
                } else {
                    "no deadline miss"
                }
            ));
            out
        }
    };
    Ok((text, any_miss))
}

/// Left-aligned first column, right-aligned others.
fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.first().map_or(0, |r| r.len());
    let widths: Vec<usize> = (0..n)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{:<w$}", s, w = widths[c])
                } else {
                    format!("{:>w$}", s, w = widths[c])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// Runs `gcaps simulate`: exit 0 without real-time deadline misses, 1 with, 2 on errors.
pub fn run_simulate(args: SimulateArgs) -> ExitCode {
    match simulate(&args) {
        Ok((text, miss)) => {
            if !crate::output::write_stdout("gcaps simulate", &text) {
                return ExitCode::from(2);
            }
            ExitCode::from(miss as u8)
        }
        Err(e) => {
            eprintln!("gcaps simulate: {e}");
            ExitCode::from(2)
        }
    }
}

/// Arguments of `gcaps compare`.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// Taskset file; default: the embedded case study. `-` reads standard input.
    file: Option<PathBuf>,
    /// Adversarial runs per policy/mode pair.
    #[arg(long, default_value_t = 300)]
    runs: u32,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Runlist lock order simulated.
    #[arg(long, value_enum, default_value = "fifo")]
    lock: LockArg,
    /// Releases happen in [0, MS) of each run (default: 3 longest periods).
    #[arg(long, value_name = "MS")]
    duration: Option<f64>,
    /// Use the analysis's GPU priority assignment (GCAPS) when the baseline fails, and
    /// simulate with the assigned priorities.
    #[arg(long)]
    gpu_priority_assignment: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// Input syntax.
    #[arg(long, value_enum, default_value = "auto")]
    input_format: InputFormat,
}

fn compare(args: &CompareArgs) -> Result<(String, bool), String> {
    let (input, origin) = read_input(&args.file, args.input_format)?;
    let ts = &input.taskset;
    let mut search = default_search(ts, args.seed, args.runs.max(3));
    if let Some(d) = args.duration {
        search.horizon = ms_arg(d, "--duration")?;
    }
    let mut cols = Vec::new();
    let mut violated = false;
    for &(p, m) in &PAIRS {
        let b = analysis_bounds(ts, p, m, args.gpu_priority_assignment);
        let model = model_for(ts, &b).map_err(|e| format!("{origin}: {e}"))?;
        let mut cfg = Config::new(p, m, search.horizon);
        cfg.lock = lock(args.lock);
        cfg.keep_responses = false;
        let obs = explore(&model, &cfg, &search)?;
        for (i, t) in model.tasks.iter().enumerate() {
            if b.schedulable && !t.is_best_effort() {
                if let Some(w) = b.wcrt[i] {
                    violated |= obs.max[i] > w;
                }
            }
        }
        cols.push((p, m, b, obs));
    }
    let text = match args.format {
        OutputFormat::Json => {
            let tasks: Vec<_> = ts
                .tasks
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let per: serde_json::Map<String, serde_json::Value> = cols
                        .iter()
                        .map(|(p, m, b, o)| {
                            (
                                format!("{}_{}", policy_name(*p).replace('-', "_"), mode_name(*m)),
                                json!({
                                    "observed": ms(o.max[i]),
                                    "bound": b.wcrt[i].map(ms),
                                    "misses": o.misses[i],
                                    "set_accepted": b.schedulable,
                                }),
                            )
                        })
                        .collect();
                    json!({"name": t.name, "best_effort": t.is_best_effort(), "deadline": ms(t.deadline), "results": per})
                })
                .collect();
            let doc = json!({
                "runs": search.runs,
                "seed": args.seed,
                "lock": lock_name(lock(args.lock)),
                "horizon": ms(search.horizon),
                "violation": violated,
                "tasks": tasks,
            });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
            )
        }
        OutputFormat::Table => {
            let mut out = format!(
                "observed maximum (adversarial simulation, {} runs per pair, lock {}) / analysis bound, ms\n",
                search.runs,
                lock_name(lock(args.lock))
            );
            let mut head = vec!["task".to_string(), "D".to_string()];
            for (p, m, _, _) in &cols {
                head.push(format!("{} {}", policy_name(*p), mode_name(*m)));
            }
            let mut rows = vec![head];
            for (i, t) in ts.tasks.iter().enumerate() {
                let mut r = vec![t.name.escape_debug().to_string(), fmt_ms(t.deadline)];
                for (_, _, b, o) in &cols {
                    let bound = if t.is_best_effort() {
                        "be".to_string()
                    } else {
                        b.wcrt[i].map_or("fails".to_string(), fmt_ms)
                    };
                    let flag = match b.wcrt[i] {
                        Some(w) if b.schedulable && o.max[i] > w => " !",
                        _ => "",
                    };
                    r.push(format!("{} / {}{}", fmt_ms(o.max[i]), bound, flag));
                }
                rows.push(r);
            }
            out.push_str(&columns(&rows));
            for (p, m, b, _) in &cols {
                if !b.schedulable {
                    out.push_str(&format!(
                        "{} {}: the analysis does not accept the set (its bounds assume every task keeps its own)\n",
                        policy_name(*p),
                        mode_name(*m)
                    ));
                }
            }
            out.push_str(if violated {
                "VIOLATION: an observed response exceeds the bound of an accepted set (marked !)\n"
            } else {
                "every observed response is within its bound\n"
            });
            out
        }
    };
    Ok((text, violated))
}

/// Runs `gcaps compare`: exit 0 if no accepted bound is exceeded, 1 if one is, 2 on
/// errors.
pub fn run_compare(args: CompareArgs) -> ExitCode {
    match compare(&args) {
        Ok((text, violated)) => {
            if !crate::output::write_stdout("gcaps compare", &text) {
                return ExitCode::from(2);
            }
            ExitCode::from(violated as u8)
        }
        Err(e) => {
            eprintln!("gcaps compare: {e}");
            ExitCode::from(2)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LockSel {
    /// FIFO only (U3).
    Fifo,
    /// CPU-priority order only (the analysis's lock model before U3).
    CpuPriority,
    /// Both.
    Both,
}

/// Arguments of `gcaps soundness`.
#[derive(clap::Args)]
pub struct SoundnessArgs {
    /// Generated tasksets (spread round robin over the parameter points).
    #[arg(long, default_value_t = 200)]
    sets: u64,
    /// Base seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Adversarial runs per accepted set and pair.
    #[arg(long, default_value_t = 24)]
    runs: u32,
    /// Lock order(s) simulated.
    #[arg(long, value_enum, default_value = "both")]
    lock: LockSel,
    /// gcaps-boost: when the boost moves inside the update.
    #[arg(long, value_enum, default_value = "at-end")]
    boost_timing: BoostTimingArg,
    /// Parameter points: the default ones, the GPU-heavy stress points or six Fig. 8 points.
    #[arg(long, value_enum, default_value = "default")]
    points: PointsArg,
    /// Run every point under this eligibility mechanism (reload or gate, docs/analysis.md
    /// D24) instead of its own; its other costs stay the point's.
    #[arg(long, value_parser = crate::generate::parse_mechanism, value_name = "NAME")]
    mechanism: Option<gcaps_analysis::model::Mechanism>,
    /// Write each violation as a replayable taskset file into DIR.
    #[arg(long, value_name = "DIR")]
    regressions: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,
}

fn violation_file(
    ts: &gcaps_analysis::model::Taskset,
    v: &Violation,
    point: &str,
    index: u64,
    seed: u64,
    horizon: Time,
) -> String {
    let mut ts = ts.clone();
    for (t, m) in ts.tasks.iter_mut().zip(&v.model.tasks) {
        t.gpu_priority = m.gpu_priority.filter(|_| t.priority.is_some());
    }
    format!(
        "# Soundness violation found by `gcaps soundness --seed {seed}` (point {point}, set {index}).\n\
         # Replay: gcaps simulate FILE --policy {} --mode {} --lock {}\n\
         # Task '{}' (index {}): simulated response {} ms > analysis bound {} ms\n\
         # (job released at {} ms of the replayed run).\n{}\n{}",
        policy_name(v.policy),
        mode_name(v.mode),
        lock_name(v.lock),
        v.model.tasks[v.task].name.escape_debug(),
        v.task,
        fmt_ms(v.observed),
        fmt_ms(v.bound),
        fmt_ms(v.release),
        gcaps_analysis::to_toml(&ts),
        scenario_toml(&v.model, &v.scenario, horizon)
    )
}

/// Runs `gcaps soundness`: exit 0 if no violation, 1 if any, 2 on errors.
pub fn run_soundness(args: SoundnessArgs) -> ExitCode {
    let fail = |m: String| {
        eprintln!("gcaps soundness: error: {m}");
        ExitCode::from(2)
    };
    let locks: Vec<LockOrder> = match args.lock {
        LockSel::Fifo => vec![LockOrder::Fifo],
        LockSel::CpuPriority => vec![LockOrder::CpuPriority],
        LockSel::Both => vec![LockOrder::Fifo, LockOrder::CpuPriority],
    };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(j) = args.jobs {
        builder = builder.num_threads(j);
    }
    let pool = match builder.build() {
        Ok(p) => p,
        Err(e) => return fail(format!("cannot start worker threads: {e}")),
    };
    let mut pts = match args.points {
        PointsArg::Default => points(),
        PointsArg::Stress => stress_points(),
        PointsArg::Fig8 => fig8_points(),
    };
    if let Some(m) = args.mechanism {
        for p in &mut pts {
            p.params.mechanism = m;
        }
    }
    let start = Instant::now();
    type SetOut = Result<
        Vec<(
            LockOrder,
            [gcaps_sim::soundness::PairOutcome; gcaps_sim::soundness::NPAIRS],
            String,
        )>,
        String,
    >;
    let results: Vec<SetOut> = pool.install(|| {
        (0..args.sets)
            .into_par_iter()
            .map(|k| {
                let p = &pts[(k % pts.len() as u64) as usize];
                let index = k / pts.len() as u64;
                let ts = point_taskset(p, args.seed, index)?;
                let search = default_search(&ts, args.seed ^ k, args.runs);
                let mut v = Vec::new();
                for &l in &locks {
                    let out = check_set_timed(&ts, l, boost_timing(args.boost_timing), &search)?;
                    let mut files = String::new();
                    for o in &out {
                        for viol in &o.violations {
                            files.push_str(&violation_file(
                                &ts,
                                viol,
                                p.name,
                                index,
                                args.seed,
                                search.horizon,
                            ));
                            files.push('\u{0}');
                        }
                    }
                    v.push((l, out, files));
                }
                Ok(v)
            })
            .collect()
    });
    let secs = start.elapsed().as_secs_f64();
    let mut text = format!(
        "soundness: {} generated tasksets ({} parameter points), seed {}, {} adversarial runs per accepted set and pair{}\n",
        args.sets,
        pts.len(),
        args.seed,
        args.runs,
        match args.boost_timing {
            BoostTimingArg::AtEnd => "",
            BoostTimingArg::UnboostAtDecision => " (gcaps-boost: unboost at the decision)",
            BoostTimingArg::AtDecision => " (gcaps-boost: boost at the decision)",
        }
    );
    if let Some(m) = args.mechanism {
        text += &format!("every point under mechanism {}\n", m.name());
    }
    let mut total_viol = 0u64;
    let mut total_events = 0u64;
    let mut n_file = 0u64;
    if let Some(d) = &args.regressions {
        if let Err(e) = std::fs::create_dir_all(d) {
            return fail(format!("cannot create {}: {e}", d.display()));
        }
    }
    for (li, &l) in locks.iter().enumerate() {
        let mut rows = vec![[
            "pair",
            "accepted",
            "violations",
            "worst obs/bound",
            "GPU tasks",
            "runs",
        ]
        .map(String::from)
        .to_vec()];
        for (k, &(p, m)) in PAIRS.iter().enumerate() {
            let (mut acc, mut viol, mut worst, mut runs, mut viol_sets, mut worst_gpu) =
                (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
            for r in &results {
                let r = match r {
                    Ok(r) => r,
                    Err(e) => return fail(e.clone()),
                };
                let o = &r[li].1[k];
                acc += o.accepted as u64;
                viol += o.violations.len() as u64;
                viol_sets += (!o.violations.is_empty()) as u64;
                worst = worst.max(o.worst_permille);
                worst_gpu = worst_gpu.max(o.worst_gpu_permille);
                runs += o.runs;
                total_events += o.events;
            }
            total_viol += viol;
            rows.push(vec![
                format!("{} {}", policy_name(p), mode_name(m)),
                acc.to_string(),
                format!("{viol} in {viol_sets} sets"),
                format!("{}.{:03}", worst / 1000, worst % 1000),
                format!("{}.{:03}", worst_gpu / 1000, worst_gpu % 1000),
                runs.to_string(),
            ]);
        }
        text.push_str(&format!("lock {}:\n", lock_name(l)));
        text.push_str(&columns(&rows));
        if let Some(d) = &args.regressions {
            for r in results.iter().flatten() {
                for f in r[li].2.split('\u{0}').filter(|f| !f.is_empty()) {
                    n_file += 1;
                    let path = d.join(format!("violation-{}-{n_file:04}.toml", lock_name(l)));
                    if let Err(e) = write_file(&path, f) {
                        return fail(e);
                    }
                }
            }
        }
    }
    text.push_str(&format!(
        "{total_viol} violations; {total_events} events in {secs:.1} s ({:.1} M events/s)\n",
        total_events as f64 / secs.max(1e-9) / 1e6
    ));
    if !crate::output::write_stdout("gcaps soundness", &text) {
        return ExitCode::from(2);
    }
    ExitCode::from((total_viol > 0) as u8)
}
