//! `gcaps experiment` (placeholder, being written).

use std::process::ExitCode;

/// Arguments of `gcaps experiment`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("gcaps experiment: not implemented yet");
    ExitCode::from(2)
}
