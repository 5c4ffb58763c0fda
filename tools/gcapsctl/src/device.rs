//! `--device PATH`, the option of every command that opens the gcaps device node.
use crate::output::Format;
use libgcaps::{Gcaps, DEVICE_PATH};

/// The options of a command that opens the device and prints a report (`check`, `status`).
#[derive(clap::Args)]
pub struct ReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub device: DeviceArg,
}

#[derive(clap::Args)]
pub struct DeviceArg {
    /// The gcaps device node.
    #[arg(long, default_value = DEVICE_PATH, value_name = "PATH")]
    device: String,
}

impl DeviceArg {
    /// Opens the device node; the error is libgcaps's one-line message.
    pub fn open(&self) -> Result<Gcaps, String> {
        Gcaps::open_path(&self.device).map_err(|e| e.to_string())
    }
}
