//! `gcaps generate`: random tasksets following Sec. 7.1 and Table 3.

use gcaps_analysis::generate::{generate, taskset_seed, GenParams, Range};
use gcaps_analysis::model::{Mechanism, Time, NS_PER_MS};
use gcaps_analysis::taskset_file;
use gcaps_analysis::taskset_file::escape_text;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;

/// Output format of the taskset files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// TOML, the format `gcaps analyze` reads by default.
    Toml,
    /// JSON.
    Json,
}

/// A `MIN..MAX` (or `MIN,MAX`, or single `V`) command-line range.
#[derive(Clone, Copy, Debug)]
pub struct Span<T>(pub Range<T>);

impl<T: FromStr + Copy> FromStr for Span<T>
where
    T::Err: std::fmt::Display,
{
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parse = |v: &str| {
            v.trim()
                .parse::<T>()
                .map_err(|e| format!("`{}`: {e}", v.trim()))
        };
        let (a, b) = if let Some((a, b)) = s.split_once("..") {
            (a, b)
        } else if let Some((a, b)) = s.split_once(',') {
            (a, b)
        } else {
            let v = parse(s)?;
            return Ok(Span(Range::fixed(v)));
        };
        Ok(Span(Range::new(parse(a)?, parse(b)?)))
    }
}

/// The generation parameters as flags (defaults: Table 3). Ranges are
/// written `MIN..MAX` (or `MIN,MAX`); a single value fixes the parameter.
/// Ratios are fractions in [0, 1].
#[derive(clap::Args, Debug, Clone)]
pub struct GenFlags {
    /// Number of CPU cores.
    #[arg(long, allow_hyphen_values = true, default_value_t = 4)]
    pub cpus: u32,
    /// Number of tasks per CPU (drawn per CPU).
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "3..6",
        value_name = "RANGE"
    )]
    pub tasks_per_cpu: Span<u32>,
    /// Ratio of GPU-using tasks (drawn per taskset).
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "0.4..0.6",
        value_name = "RANGE"
    )]
    pub gpu_task_ratio: Span<f64>,
    /// Utilisation (C+G)/T per CPU (drawn per CPU, UUniFast over its tasks).
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "0.4..0.6",
        value_name = "RANGE"
    )]
    pub util_per_cpu: Span<f64>,
    /// Task period in milliseconds (implicit deadline D = T).
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "30..500",
        value_name = "RANGE"
    )]
    pub period_ms: Span<f64>,
    /// Number of GPU segments of a GPU-using task.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "1..3",
        value_name = "RANGE"
    )]
    pub gpu_segments: Span<u32>,
    /// Ratio G_i/C_i of GPU to CPU execution of a GPU-using task.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "0.2..2",
        value_name = "RANGE"
    )]
    pub g_to_c_ratio: Span<f64>,
    /// Share G^m/G of CPU-side ("misc") work in each GPU segment.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "0.1..0.3",
        value_name = "RANGE"
    )]
    pub gm_share: Span<f64>,
    /// Runlist update delay epsilon, in milliseconds.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value_t = 1.0,
        value_name = "MS"
    )]
    pub epsilon_ms: f64,
    /// Bound of an update that cannot submit (a pending begin, the end of
    /// a segment that is not running), in milliseconds; at most epsilon.
    /// Default: epsilon (written to the file only when given).
    #[arg(long, allow_hyphen_values = true, value_name = "MS")]
    pub epsilon_fast_ms: Option<f64>,
    /// The on-CPU part of an update that submits (the rest sleeps in the
    /// pending wait), in milliseconds; at most epsilon. Default: epsilon
    /// (written to the file only when given).
    #[arg(long, allow_hyphen_values = true, value_name = "MS")]
    pub epsilon_cpu_ms: Option<f64>,
    /// The eligibility mechanism gcaps.ko runs: reload (a runlist submit per
    /// change of the running segment) or gate (channel enables on a complete
    /// runlist; docs/analysis.md D24).
    #[arg(long, default_value = "reload", value_parser = parse_mechanism, value_name = "NAME")]
    pub mechanism: Mechanism,
    /// Under gate: bound of a begin that takes the GPU (disable, preempt,
    /// enable), in milliseconds. Default: epsilon (written to the file only
    /// when given).
    #[arg(long, allow_hyphen_values = true, value_name = "MS")]
    pub epsilon_preempt_ms: Option<f64>,
    /// Under gate: bound of the end of the running segment (the hand-over by
    /// channel enables, no submit, no wait), in milliseconds. Default:
    /// epsilon (written to the file only when given).
    #[arg(long, allow_hyphen_values = true, value_name = "MS")]
    pub epsilon_handover_ms: Option<f64>,
    /// TSG context-switch overhead theta, in milliseconds.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value_t = 0.2,
        value_name = "MS"
    )]
    pub theta_ms: f64,
    /// TSG time slice, in milliseconds.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value_t = 1.024,
        value_name = "MS"
    )]
    pub timeslice_ms: f64,
    /// Ratio of best-effort tasks (no priority), chosen at random.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value_t = 0.0,
        value_name = "RATIO"
    )]
    pub best_effort_ratio: f64,
}

/// `--mechanism`: "reload" or "gate".
pub(crate) fn parse_mechanism(s: &str) -> Result<Mechanism, String> {
    Mechanism::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Mechanism::ALL.iter().map(|m| m.name()).collect();
        format!("expected one of: {}", names.join(", "))
    })
}

pub(crate) fn ms_to_ns(flag: &str, ms: f64) -> Result<Time, String> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(format!(
            "{flag}: need a non-negative number of milliseconds, got {ms}"
        ));
    }
    Ok((ms * NS_PER_MS as f64).round() as Time)
}

/// [`ms_to_ns`] of an optional flag.
pub(crate) fn opt_ms_to_ns(flag: &str, ms: Option<f64>) -> Result<Option<Time>, String> {
    ms.map(|m| ms_to_ns(flag, m)).transpose()
}

impl GenFlags {
    /// Converts the flags to validated generation parameters.
    pub fn to_params(&self) -> Result<GenParams, String> {
        let period = Range::new(
            ms_to_ns("period-ms", self.period_ms.0.min)?,
            ms_to_ns("period-ms", self.period_ms.0.max)?,
        );
        let p = GenParams {
            cpus: self.cpus,
            tasks_per_cpu: self.tasks_per_cpu.0,
            gpu_task_ratio: self.gpu_task_ratio.0,
            util_per_cpu: self.util_per_cpu.0,
            period,
            gpu_segments: self.gpu_segments.0,
            g_to_c_ratio: self.g_to_c_ratio.0,
            gm_share: self.gm_share.0,
            epsilon: ms_to_ns("epsilon-ms", self.epsilon_ms)?,
            epsilon_fast: opt_ms_to_ns("epsilon-fast-ms", self.epsilon_fast_ms)?,
            epsilon_cpu: opt_ms_to_ns("epsilon-cpu-ms", self.epsilon_cpu_ms)?,
            mechanism: self.mechanism,
            epsilon_preempt: opt_ms_to_ns("epsilon-preempt-ms", self.epsilon_preempt_ms)?,
            epsilon_handover: opt_ms_to_ns("epsilon-handover-ms", self.epsilon_handover_ms)?,
            theta: ms_to_ns("theta-ms", self.theta_ms)?,
            timeslice: ms_to_ns("timeslice-ms", self.timeslice_ms)?,
            best_effort_ratio: self.best_effort_ratio,
        };
        p.validate().map_err(|e| e.to_string())?;
        Ok(p)
    }
}

/// Arguments of `gcaps generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seed of the random generator: the same seed gives the same tasksets
    /// on any machine. Taskset k is generated from (seed, k).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of tasksets (more than one needs --out).
    #[arg(long, default_value_t = 1)]
    pub count: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Toml)]
    pub format: Format,
    /// Write `taskset-NNNN.{toml,json}` files into this directory (created
    /// if missing) instead of printing to stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub gen: GenFlags,
}

fn fail(msg: &str) -> ExitCode {
    // Messages echo user text (sweep names, paths): one escaped line.
    eprintln!("gcaps generate: error: {}", escape_text(msg));
    ExitCode::from(2)
}

/// Runs the subcommand. Exit status 0 on success, 2 on bad parameters or
/// I/O errors.
pub fn run(args: Args) -> ExitCode {
    let params = match args.gen.to_params() {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    if args.count > 1 && args.out.is_none() {
        return fail("--count greater than 1 needs --out DIR (one file per taskset)");
    }
    if let Some(dir) = &args.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(&format!("cannot create {}: {e}", dir.display()));
        }
    }
    let width = args.count.saturating_sub(1).to_string().len().max(4);
    for k in 0..args.count {
        let ts = match generate(&params, taskset_seed(args.seed, k)) {
            Ok(ts) => ts,
            Err(e) => return fail(&e.to_string()),
        };
        if let Err(e) = taskset_file::validate(&ts) {
            // A generator bug, not a user error; still report it clearly.
            return fail(&format!("generated taskset {k} does not validate: {e}"));
        }
        let text = match args.format {
            Format::Toml => format!(
                "# gcaps generate --seed {} (taskset {k})\n{}",
                args.seed,
                taskset_file::to_toml(&ts)
            ),
            Format::Json => taskset_file::to_json(&ts),
        };
        match &args.out {
            None => {
                let nl = if text.ends_with('\n') { "" } else { "\n" };
                if !crate::output::write_stdout("gcaps generate", &format!("{text}{nl}")) {
                    return ExitCode::from(2);
                }
            }
            Some(dir) => {
                let ext = match args.format {
                    Format::Toml => "toml",
                    Format::Json => "json",
                };
                let path = dir.join(format!("taskset-{k:0width$}.{ext}"));
                if let Err(e) = std::fs::write(&path, text) {
                    return fail(&format!("cannot write {}: {e}", path.display()));
                }
            }
        }
    }
    ExitCode::SUCCESS
}
