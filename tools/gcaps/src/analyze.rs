//! `gcaps analyze` (placeholder, being written).

use std::process::ExitCode;

/// Arguments of `gcaps analyze`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("gcaps analyze: not implemented yet");
    ExitCode::from(2)
}
