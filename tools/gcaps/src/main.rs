//! `gcaps`: the command-line tool of the gcaps project.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod analyze;
mod empirical;
mod experiment;
mod generate;
mod output;
mod plot;
mod simulate;

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
    /// Simulate a taskset (discrete-event: CPUs, GPU, runlist updates).
    Simulate(simulate::SimulateArgs),
    /// Observed maximum response (adversarial simulation) next to the analysis bound.
    Compare(simulate::CompareArgs),
    /// Check the analysis bounds against simulation over generated tasksets.
    Soundness(simulate::SoundnessArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Analyze(args) => analyze::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Experiment(args) => experiment::run(args),
        Command::Simulate(args) => simulate::run_simulate(args),
        Command::Compare(args) => simulate::run_compare(args),
        Command::Soundness(args) => simulate::run_soundness(args),
    }
}
