//! `--device PATH`, the option of every command that opens the gcaps device node.
use libgcaps::{Gcaps, DEVICE_PATH};

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
