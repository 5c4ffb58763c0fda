//! `gcaps experiment`: the schedulability sweeps of Fig. 8 and Fig. 9,
//! written as CSV and SVG.

use crate::plot::{render, Chart};
use gcaps_analysis::experiment::{
    format_x, select, sweep_names, to_csv, PointResult, Sweep, Worker,
};
use gcaps_analysis::generate::GenParams;
use gcaps_analysis::taskset_file::escape_text;
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gcaps experiment`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which sweep: tasks-per-cpu, cpus, util-per-cpu, gpu-task-ratio,
    /// g-to-c-ratio, best-effort-ratio (Fig. 8), gpu-priority-gain (Fig. 9),
    /// all-fig8 (the six Fig. 8 sweeps) or all.
    #[arg(long, default_value = "all", value_name = "NAME")]
    pub sweep: String,
    /// Tasksets per point.
    #[arg(
        short = 'n',
        long = "tasksets",
        default_value_t = 1000,
        value_name = "N"
    )]
    pub n: u64,
    /// Base seed; every taskset's seed is derived from (seed, sweep, x,
    /// index), so results do not depend on the thread count.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output directory for `<sweep>.csv` and `<sweep>.svg` (created if
    /// missing).
    #[arg(long, default_value = "experiments", value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads (default: all cores, or RAYON_NUM_THREADS).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Do not print the per-sweep tables (the final line is still printed).
    #[arg(short, long)]
    pub quiet: bool,
    /// Add the empirical series (share of tasksets without a deadline miss in RUNS
    /// adversarial simulation runs per policy and mode, `sim_*`; 0 = off). Slow: about
    /// 0.1 s per taskset and run budget of 24.
    #[arg(long, default_value_t = 0, value_name = "RUNS")]
    pub empirical: u32,
    /// Runlist update delay epsilon of every generated taskset, in
    /// milliseconds (default: Table 3's 1 ms).
    #[arg(long, value_name = "MS")]
    pub epsilon_ms: Option<f64>,
    /// Bound of an update that cannot submit (`epsilon_fast`, D20 in
    /// docs/analysis.md), in milliseconds, at most epsilon (default: epsilon).
    #[arg(long, value_name = "MS")]
    pub epsilon_fast_ms: Option<f64>,
    /// The on-CPU part of an update that submits (`epsilon_cpu`, D23 in
    /// docs/analysis.md), in milliseconds, at most epsilon (default:
    /// epsilon).
    #[arg(long, value_name = "MS")]
    pub epsilon_cpu_ms: Option<f64>,
    /// Under the gate mechanism (the `_gate` series, D24): bound of a begin
    /// that takes the GPU, in milliseconds (default: epsilon).
    #[arg(long, value_name = "MS")]
    pub epsilon_preempt_ms: Option<f64>,
    /// Under the gate mechanism: bound of a hand-over, in milliseconds
    /// (default: epsilon).
    #[arg(long, value_name = "MS")]
    pub epsilon_handover_ms: Option<f64>,
}

/// Table 3 defaults with the overheads given on the command line.
fn base_params(args: &Args) -> Result<GenParams, String> {
    let ns = crate::generate::ms_to_ns;
    let mut p = GenParams::default();
    if let Some(e) = args.epsilon_ms {
        p.epsilon = ns("epsilon-ms", e)?;
    }
    // Table 3 has none of the optional costs (each defaults to epsilon).
    let opt = crate::generate::opt_ms_to_ns;
    p.epsilon_fast = opt("epsilon-fast-ms", args.epsilon_fast_ms)?;
    p.epsilon_cpu = opt("epsilon-cpu-ms", args.epsilon_cpu_ms)?;
    p.epsilon_preempt = opt("epsilon-preempt-ms", args.epsilon_preempt_ms)?;
    p.epsilon_handover = opt("epsilon-handover-ms", args.epsilon_handover_ms)?;
    p.validate().map_err(|e| e.to_string())?;
    Ok(p)
}

fn fail(msg: &str) -> ExitCode {
    // Messages echo user text (sweep names, paths): one escaped line.
    eprintln!("gcaps experiment: error: {}", escape_text(msg));
    ExitCode::from(2)
}

/// Runs one sweep on the current rayon pool.
fn run_sweep(
    sweep: &Sweep,
    base: &GenParams,
    seed: u64,
    n: u64,
) -> Result<Vec<PointResult>, String> {
    let params: Vec<GenParams> = sweep
        .points
        .iter()
        .map(|&x| {
            let p = sweep.params_at(base, x);
            p.validate()
                .map(|_| p)
                .map_err(|e| format!("sweep {} at x = {}: {e}", sweep.name, format_x(x)))
        })
        .collect::<Result<_, _>>()?;
    let jobs = sweep.points.len() as u64 * n;
    let masks: Vec<u64> = (0..jobs)
        .into_par_iter()
        .map_init(Worker::default, |w, job| {
            let point = (job / n) as usize;
            let index = job % n;
            w.evaluate(sweep, &params[point], seed, sweep.points[point], index)
        })
        .collect();
    Ok(sweep
        .points
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let lo = i * n as usize;
            PointResult::from_masks(x, sweep.series.len(), &masks[lo..lo + n as usize])
        })
        .collect())
}

fn table(sweep: &Sweep, n: u64, results: &[PointResult], emp: Option<&[PointResult]>) -> String {
    let mut s = format!(
        "{} ({}): {}, {} tasksets per point, schedulable %\n",
        sweep.name, sweep.figure, sweep.x_label, n
    );
    s.push_str(&format!("{:>8}", "x"));
    for se in &sweep.series {
        s.push_str(&format!(" {:>17}", se.name));
    }
    if emp.is_some() {
        for name in crate::empirical::NAMES {
            s.push_str(&format!(" {name:>18}"));
        }
    }
    s.push('\n');
    for (i, r) in results.iter().enumerate() {
        s.push_str(&format!("{:>8}", format_x(r.x)));
        for j in 0..sweep.series.len() {
            s.push_str(&format!(" {:>17.1}", r.percent(j)));
        }
        if let Some(e) = emp {
            for j in 0..crate::empirical::NAMES.len() {
                s.push_str(&format!(" {:>18.1}", e[i].percent(j)));
            }
        }
        s.push('\n');
    }
    s
}

/// Runs the subcommand. Exit status 0 on success, 2 on bad arguments or
/// I/O errors.
pub fn run(args: Args) -> ExitCode {
    let Some(sweeps) = select(&args.sweep) else {
        return fail(&format!(
            "unknown sweep `{}`; expected one of: {}",
            args.sweep,
            sweep_names().join(", ")
        ));
    };
    if args.n == 0 {
        return fail("-n must be at least 1");
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return fail(&format!("cannot create {}: {e}", args.out.display()));
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(j) = args.jobs {
        builder = builder.num_threads(j);
    }
    let pool = match builder.build() {
        Ok(p) => p,
        Err(e) => return fail(&format!("cannot start worker threads: {e}")),
    };
    let base = match base_params(&args) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let start = Instant::now();
    let mut tasksets = 0u64;
    let mut analyses = 0u64;
    for sweep in &sweeps {
        let results = match pool.install(|| run_sweep(sweep, &base, args.seed, args.n)) {
            Ok(r) => r,
            Err(e) => return fail(&e),
        };
        tasksets += sweep.points.len() as u64 * args.n;
        analyses += sweep.points.len() as u64 * args.n * sweep.series.len() as u64;

        let emp = (args.empirical > 0).then(|| {
            pool.install(|| {
                crate::empirical::run_sweep(sweep, &base, args.seed, args.n, args.empirical)
            })
        });
        let mut csv = to_csv(sweep, &results);
        if let Some(e) = &emp {
            csv.push_str(&crate::empirical::csv_rows(sweep, e));
        }
        let csv_path = args.out.join(format!("{}.csv", sweep.name));
        if let Err(e) = std::fs::write(&csv_path, csv) {
            return fail(&format!("cannot write {}: {e}", csv_path.display()));
        }
        let subtitle = format!(
            "{}: {} random tasksets per point, seed {}, other parameters as in Table 3",
            sweep.figure, args.n, args.seed
        );
        let chart = Chart {
            title: sweep.title,
            subtitle: &subtitle,
            x_label: sweep.x_label,
            y_label: "schedulable tasksets (%)",
            xs: &sweep.points,
            series: sweep
                .series
                .iter()
                .enumerate()
                .map(|(j, s)| (s.name, results.iter().map(|r| r.percent(j)).collect()))
                .chain(emp.iter().flat_map(|e| {
                    crate::empirical::NAMES
                        .iter()
                        .enumerate()
                        .map(|(j, name)| (*name, e.iter().map(|r| r.percent(j)).collect()))
                }))
                .collect(),
        };
        let svg_path = args.out.join(format!("{}.svg", sweep.name));
        if let Err(e) = std::fs::write(&svg_path, render(&chart)) {
            return fail(&format!("cannot write {}: {e}", svg_path.display()));
        }
        if !args.quiet {
            // Ignore a closed stdout (e.g. `| head`): the files matter.
            let _ = writeln!(
                std::io::stdout(),
                "{}",
                table(sweep, args.n, &results, emp.as_deref())
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let _ = writeln!(
        std::io::stdout(),
        "tasksets: {tasksets}, analyses: {analyses}, elapsed: {secs:.2} s, tasksets/s: {:.0}",
        tasksets as f64 / secs.max(1e-9)
    );
    ExitCode::SUCCESS
}
