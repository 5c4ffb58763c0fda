//! `gcaps analyze`: worst-case response times of a taskset (Sec. 6 of the
//! GCAPS paper). Exit status 0 when schedulable, 1 when not, 2 on bad input
//! or usage.

use gcaps_analysis::model::{Mechanism, Taskset, Time, NS_PER_MS};
use gcaps_analysis::taskset_file::escape_text;
use gcaps_analysis::{
    analyze, parse_taskset, policy_error, Config, Format, GpuPolicy, NoBound, Report, TaskResult,
    WaitMode,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// The paper's case-study taskset (Table 4), analysed when no file is given.
pub const CASE_STUDY: &str = include_str!("../../../examples/case-study.toml");

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PolicyArg {
    /// Default nvgpu TSG round-robin time slicing (Lemmas 1-7).
    TsgRr,
    /// GCAPS preemptive priority-based GPU scheduling (Lemmas 8-15).
    Gcaps,
    /// GCAPS with the running segment's owner boosted to SCHED_FIFO 98
    /// (issue 20; task priorities must be below 98).
    GcapsBoost,
    /// GPU segments as critical sections under MPCP (lock-based baseline).
    Mpcp,
    /// GPU segments as critical sections under FMLP+ (lock-based baseline).
    #[value(name = "fmlp+")]
    FmlpPlus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ModeArg {
    /// Tasks busy-wait on the CPU during pure GPU work.
    Busy,
    /// Tasks self-suspend during pure GPU work.
    Suspend,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// Aligned columns.
    Table,
    /// One JSON object.
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InputFormat {
    /// From the file name (.json, .toml), else from the content (`{` first:
    /// JSON), also for standard input.
    Auto,
    /// TOML.
    Toml,
    /// JSON.
    Json,
}

/// Arguments of `gcaps analyze`.
#[derive(clap::Args)]
pub struct Args {
    /// Taskset file (TOML or JSON); default: the embedded case study of the
    /// paper (examples/case-study.toml). `-` reads standard input.
    file: Option<PathBuf>,
    /// GPU scheduling policy.
    #[arg(long, value_enum, default_value = "gcaps")]
    policy: PolicyArg,
    /// How tasks wait for pure GPU work.
    #[arg(long, value_enum, default_value = "suspend")]
    mode: ModeArg,
    /// If the taskset fails with GPU priorities = CPU priorities, assign
    /// separate GPU-segment priorities with Audsley's algorithm (gcaps and
    /// gcaps-boost only; Sec. 5.3 / 6.4) and print the assignment.
    #[arg(long)]
    gpu_priority_assignment: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: OutputFormat,
    /// Input syntax.
    #[arg(long, value_enum, default_value = "auto")]
    input_format: InputFormat,
}

fn ms(t: Time) -> f64 {
    t as f64 / NS_PER_MS as f64
}

fn fmt_ms(t: Time) -> String {
    let s = format!("{:.3}", ms(t));
    let s = s.trim_end_matches('0');
    let s = s.strip_suffix('.').unwrap_or(s);
    s.to_string()
}

fn load(args: &Args) -> Result<Taskset, String> {
    let (text, origin, format) = read_input(&args.file, args.input_format)?;
    parse_taskset(&text, &origin, format).map_err(|e| e.to_string())
}

/// Reads a taskset file's text (`None`: the embedded case study; `-`: standard input) and
/// returns it with its origin (raw: the parsers escape it) and the format to parse it in.
/// Shared by `analyze` and the simulator commands.
pub(crate) fn read_input(
    file: &Option<PathBuf>,
    input: InputFormat,
) -> Result<(String, String, Format), String> {
    let (text, origin, detected) = match file {
        None => (
            CASE_STUDY.to_string(),
            "examples/case-study.toml (embedded)".to_string(),
            Format::Toml,
        ),
        Some(p) if p.as_os_str() == "-" => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| format!("<stdin>: cannot read: {e}"))?;
            let format = Format::detect(None, &s);
            (s, "<stdin>".to_string(), format)
        }
        Some(p) => {
            let origin = p.display().to_string();
            let shown = escape_text(&origin);
            let bytes = std::fs::read(p).map_err(|e| format!("{shown}: cannot read: {e}"))?;
            let text =
                String::from_utf8(bytes).map_err(|e| format!("{shown}: not UTF-8 text: {e}"))?;
            let format = Format::detect(Some(p), &text);
            (text, origin, format)
        }
    };
    let format = match input {
        InputFormat::Auto => detected,
        InputFormat::Toml => Format::Toml,
        InputFormat::Json => Format::Json,
    };
    Ok((text, origin, format))
}

fn policy_name(p: GpuPolicy) -> &'static str {
    p.name()
}

fn mode_name(m: WaitMode) -> &'static str {
    match m {
        WaitMode::Busy => "busy",
        WaitMode::Suspend => "suspend",
    }
}

/// The JSON document of a report.
pub fn report_json(ts: &Taskset, r: &Report) -> serde_json::Value {
    use serde_json::json;
    let tasks: Vec<_> = r
        .tasks
        .iter()
        .zip(&ts.tasks)
        .map(|(t, task)| {
            json!({
                "name": t.name,
                "best_effort": t.best_effort,
                "cpu": task.cpu,
                "priority": t.priority,
                "gpu_priority": t.gpu_priority,
                "wcrt": t.wcrt.map(ms),
                "deadline": ms(t.deadline),
                "schedulable": t.schedulable,
                "no_bound_reason": t.no_bound.as_ref().map(ToString::to_string),
            })
        })
        .collect();
    let assigned = r.assigned_gpu_priorities.as_ref().map(|a| {
        a.iter()
            .map(|(n, p)| (n.clone(), json!(p)))
            .collect::<serde_json::Map<_, _>>()
    });
    json!({
        "schedulable": r.schedulable,
        "policy": policy_name(r.config.policy),
        "mode": mode_name(r.config.mode),
        "mechanism": ts.platform.mechanism.name(),
        "gpu_priority_assignment": r.config.gpu_priority_assignment,
        "assigned_gpu_priorities": assigned,
        "tasks": tasks,
    })
}

/// True if the task has no bound because it can deadlock (D16).
fn is_deadlock(t: &TaskResult) -> bool {
    matches!(t.no_bound, Some(NoBound::Deadlock { .. }))
}

fn table(ts: &Taskset, r: &Report) -> String {
    let header = [
        "task", "cpu", "prio", "gpu_prio", "C", "G", "T", "D", "WCRT", "status",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for (t, task) in r.tasks.iter().zip(&ts.tasks) {
        let opt = |p: Option<u32>| p.map_or("-".to_string(), |p| p.to_string());
        rows.push(vec![
            t.name.clone(),
            task.cpu.to_string(),
            opt(t.priority),
            opt(t.gpu_priority),
            fmt_ms(task.cpu_time()),
            fmt_ms(task.gpu_time()),
            fmt_ms(task.period),
            fmt_ms(t.deadline),
            t.wcrt.map_or("-".to_string(), fmt_ms),
            if t.best_effort {
                "best-effort".to_string()
            } else if t.schedulable {
                "ok".to_string()
            } else if is_deadlock(t) {
                "DEADLOCK".to_string()
            } else {
                "MISS".to_string()
            },
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = format!(
        "policy {}, mode {}{}{} (times in ms)\n",
        policy_name(r.config.policy),
        mode_name(r.config.mode),
        if ts.platform.mechanism == Mechanism::Gate && r.config.policy.has_gpu_priorities() {
            ", mechanism gate"
        } else {
            ""
        },
        if r.config.gpu_priority_assignment {
            ", GPU priority assignment enabled"
        } else {
            ""
        }
    );
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 || c == header.len() - 1 {
                    format!("{:<w$}", s, w = widths[c])
                } else {
                    format!("{:>w$}", s, w = widths[c])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    for t in r.tasks.iter().filter(|t| is_deadlock(t)) {
        if let Some(why) = &t.no_bound {
            out.push_str(&format!("{}: no bound: {why}\n", escape_text(&t.name)));
        }
    }
    if let Some(a) = &r.assigned_gpu_priorities {
        out.push_str("GPU priorities assigned by Audsley's algorithm (Sec. 5.3):");
        for (n, p) in a {
            out.push_str(&format!(" {n}={p}"));
        }
        out.push('\n');
    }
    out.push_str(if r.schedulable {
        "schedulable\n"
    } else {
        "NOT schedulable\n"
    });
    out
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let ts = match load(&args) {
        Ok(ts) => ts,
        Err(msg) => {
            eprintln!("gcaps analyze: {msg}");
            return ExitCode::from(2);
        }
    };
    let cfg = Config {
        policy: match args.policy {
            PolicyArg::TsgRr => GpuPolicy::TsgRr,
            PolicyArg::Gcaps => GpuPolicy::Gcaps,
            PolicyArg::GcapsBoost => GpuPolicy::GcapsBoost,
            PolicyArg::Mpcp => GpuPolicy::Mpcp,
            PolicyArg::FmlpPlus => GpuPolicy::FmlpPlus,
        },
        mode: match args.mode {
            ModeArg::Busy => WaitMode::Busy,
            ModeArg::Suspend => WaitMode::Suspend,
        },
        gpu_priority_assignment: args.gpu_priority_assignment,
    };
    if cfg.gpu_priority_assignment && !cfg.policy.has_gpu_priorities() {
        eprintln!(
            "gcaps analyze: note: --gpu-priority-assignment has no effect with --policy {} (no GPU priorities)",
            policy_name(cfg.policy)
        );
    }
    if let Some(msg) = policy_error(&ts, &cfg) {
        eprintln!("gcaps analyze: {msg}");
        return ExitCode::from(2);
    }
    let report = analyze(&ts, &cfg);
    let text = match args.format {
        // A `serde_json::Value` always serialises.
        OutputFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report_json(&ts, &report)).expect("json")
        ),
        OutputFormat::Table => table(&ts, &report),
    };
    if !crate::output::write_stdout("gcaps analyze", &text) {
        return ExitCode::from(2);
    }
    if report.schedulable {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
