//! `gcaps generate` (placeholder, being written).

use std::process::ExitCode;

/// Arguments of `gcaps generate`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("gcaps generate: not implemented yet");
    ExitCode::from(2)
}
