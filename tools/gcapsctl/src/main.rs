//! `gcapsctl`: see and steer gcaps on the device. `check` lists setup problems; `status` shows the module, its clients and
//! the eligible set; `run` starts a command under SCHED_FIFO with a default GPU priority;
//! `stats` prints the module's counters, update-delay histogram and update costs per kind;
//! `calibrate` prints a taskset file's `[platform]` from those costs; `trace` dumps or follows
//! the module's trace ring and converts it to a Perfetto timeline; `always-eligible` marks a
//! TSG always eligible (administrator).
//! Errors are one line on stderr with a non-zero exit (1: the operation failed, 2: bad
//! arguments), never a panic.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod always;
mod calibrate;
mod check;
mod device;
mod histogram_svg;
mod output;
mod perfetto;
mod run;
mod stats;
mod status;
mod trace;

#[derive(Parser)]
#[command(
    name = "gcapsctl",
    version,
    about = "Control and inspect gcaps (GPU priority scheduling)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Setup problems in one table: module and device, GPU driver bound, real-time throttling,
    /// real-time priority limits, the update ceiling and the kernel.
    Check(device::ReportArgs),
    /// Module and backend version, every client, the eligible TSG set.
    Status(device::ReportArgs),
    /// Run a command under SCHED_FIFO with a default GPU priority for libgcaps.
    Run(run::Args),
    /// Counters, the runlist update-delay histogram and the update costs per kind (table,
    /// JSON, SVG); --reset as root.
    Stats(stats::Args),
    /// Print a taskset file's [platform] section (TOML) from the measured update costs:
    /// epsilon, epsilon_fast and epsilon_cpu with a margin; theta and timeslice from options.
    Calibrate(calibrate::Args),
    /// Dump or follow the trace ring (text, JSON) or write a Perfetto timeline (root only).
    Trace(trace::Args),
    /// Mark a TSG always eligible (on the runlist during every real-time segment) or remove
    /// the mark (root only).
    AlwaysEligible(always::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return argument_error(e),
    };
    let r = match cli.command {
        Command::Check(a) => check::run(a),
        Command::Status(a) => status::run(a),
        Command::Run(a) => run::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Trace(a) => trace::run(a),
        Command::AlwaysEligible(a) => always::run(a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("gcapsctl: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Help and version go to stdout as clap prints them; an argument error is one line.
fn argument_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            eprintln!("gcapsctl: {}", one_line(&e.render().to_string()));
            ExitCode::from(2)
        }
    }
}

/// Clap's message up to its usage part, on one line, without the `error: ` prefix.
fn one_line(text: &str) -> String {
    let msg: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
        .map(str::trim)
        .collect();
    let msg = msg.join(" ");
    let msg = msg.strip_prefix("error: ").unwrap_or(&msg);
    if msg.is_empty() {
        "bad arguments".into()
    } else {
        msg.into()
    }
}
