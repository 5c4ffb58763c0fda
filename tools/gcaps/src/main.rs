//! `gcaps`: the command-line tool of the gcaps project.

use clap::{Parser, Subcommand};
use gcaps_analysis::taskset_file::escape_text;
use std::process::ExitCode;

mod analyze;
mod experiment;
mod generate;
mod output;
mod plot;

/// GCAPS: GPU context-aware preemptive priority-based scheduling tools.
#[derive(Parser)]
#[command(name = "gcaps", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bound worst-case response times of a taskset (Sec. 6 of the paper).
    Analyze(analyze::Args),
    /// Generate random tasksets (Sec. 7.1, Table 3).
    Generate(generate::Args),
    /// Run the schedulability sweeps of Fig. 8 and Fig. 9.
    Experiment(experiment::Args),
}

/// Parses the command line. A usage error is printed as one line with every
/// argument the user typed escaped (clap echoes values raw, over several
/// lines); help and version requests print as clap formats them.
fn parse_args() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    let e = match Cli::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let mut text = e.to_string();
    // Longest first, so that an argument containing another is replaced
    // whole.
    let mut args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| escape_text(a) != *a)
        .collect();
    args.sort_by_key(|a| std::cmp::Reverse(a.len()));
    for a in &args {
        text = text.replace(a.as_str(), &escape_text(a));
    }
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // Clap may echo a value altered (trimmed, styles stripped), so that it
    // is not found above: the lines are joined, and any control character
    // left is escaped.
    let line: String = line
        .join(" ")
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    eprintln!("gcaps: {line}");
    Err(ExitCode::from(2))
}

fn main() -> ExitCode {
    let cli = match parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match cli.command {
        Command::Analyze(args) => analyze::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Experiment(args) => experiment::run(args),
    }
}
