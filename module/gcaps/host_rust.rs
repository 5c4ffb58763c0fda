// SPDX-License-Identifier: GPL-2.0

//! gcaps.ko, host A: the module on kernels with Rust-for-Linux (`CONFIG_RUST`, 6.12+).
//!
//! GPU context-aware preemptive priority-based scheduling (GCAPS, ECRTS 2024) for Tegra-style
//! GPU runlists. Everything but the module's registration is the device (`device.rs`, the same
//! Rust as host B's freestanding object) and the C glue (`gcaps_glue.c`); `docs/module.md`
//! describes the module, `docs/ARCHITECTURE.md` the two hosts.

use kernel::prelude::*;

#[allow(unreachable_pub, unused_attributes)]
#[path = "device.rs"]
mod device;

module! {
    type: Gcaps,
    name: "gcaps",
    author: "gcaps",
    description: "GCAPS: GPU context-aware preemptive priority-based scheduling",
    license: "GPL",
}

struct Gcaps {
    /// Dropping it (module exit) unregisters and frees the device.
    _device: device::Loaded,
}

impl kernel::Module for Gcaps {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Module init runs once per load, and the only `Loaded` lives in the module
        // (dropped at exit).
        match unsafe { device::Loaded::load() } {
            Ok(d) => Ok(Gcaps { _device: d }),
            Err(e) => Err(Error::from_errno(-e.0)),
        }
    }
}
