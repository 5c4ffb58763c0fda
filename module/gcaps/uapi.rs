// SPDX-License-Identifier: GPL-2.0

//! Rust mirror of `uapi/linux/gcaps.h` (the single source of truth). The sizes are checked
//! here against the header's `*_SIZE_VER0` constants and in `gcaps_glue.c` against the C
//! structs themselves, so both sides agree on the layout.

use core::mem::size_of;
use kernel::types::{AsBytes, FromBytes};

pub(crate) const IOC_MAGIC: u32 = 0xC5;
pub(crate) const ABI_VERSION: u32 = 1;
/// 0.1.0 as `major << 16 | minor << 8 | patch`.
pub(crate) const MODULE_VERSION: u32 = 0x00_01_00;

pub(crate) const NR_VERSION: u32 = 0x00;
pub(crate) const NR_SEG_BEGIN: u32 = 0x01;
pub(crate) const NR_SEG_END: u32 = 0x02;
pub(crate) const NR_STATUS: u32 = 0x03;
pub(crate) const NR_LIST: u32 = 0x04;
pub(crate) const NR_STATS: u32 = 0x10;

pub(crate) const STATS_RESET: u32 = 1 << 0;

pub(crate) const GPU_PRIO_INHERIT: i32 = 0;
pub(crate) const GPU_PRIO_MAX: i32 = 99;

pub(crate) const CLASS_OTHER: u32 = 0;
pub(crate) const CLASS_FIFO: u32 = 1;
pub(crate) const CLASS_RR: u32 = 2;

pub(crate) const STATE_IDLE: u32 = 0;
pub(crate) const STATE_RUNNING: u32 = 1;
pub(crate) const STATE_PENDING: u32 = 2;

pub(crate) const TSG_ELIGIBLE: u32 = 1 << 0;
pub(crate) const TSG_ALWAYS: u32 = 1 << 1;

/// An ioctl argument struct: starts with its `size`, grows at the end.
pub(crate) trait IoctlArg: FromBytes + AsBytes + Default {
    /// Size of the first version; a smaller `size` is `EINVAL`.
    const SIZE_VER0: usize;
}

macro_rules! ioctl_arg {
    ($t:ty, $ver0:expr) => {
        // SAFETY: `repr(C)` struct of integers and byte arrays: every bit pattern is valid.
        unsafe impl FromBytes for $t {}
        // SAFETY: `repr(C)` with explicit padding fields only (the size assertion below and
        // the C side's `BUILD_BUG_ON`s check there is no implicit padding).
        unsafe impl AsBytes for $t {}
        impl IoctlArg for $t {
            const SIZE_VER0: usize = $ver0;
        }
        const _: () = assert!(size_of::<$t>() == $ver0);
    };
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct Version {
    pub(crate) size: u32,
    pub(crate) abi_version: u32,
    pub(crate) module_version: u32,
    pub(crate) backend_abi: u32,
    pub(crate) backend_name: [u8; 32],
}
ioctl_arg!(Version, 48);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct SegBegin {
    pub(crate) size: u32,
    pub(crate) flags: u32,
    pub(crate) gpu_priority: i32,
    pub(crate) state: u32,
    pub(crate) generation: u64,
}
ioctl_arg!(SegBegin, 24);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct SegEnd {
    pub(crate) size: u32,
    pub(crate) flags: u32,
    pub(crate) generation: u64,
}
ioctl_arg!(SegEnd, 16);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct ClientInfo {
    pub(crate) client_id: u64,
    pub(crate) tgid: u32,
    pub(crate) cpu_class: u32,
    pub(crate) cpu_priority: i32,
    pub(crate) gpu_priority: i32,
    pub(crate) state: u32,
    pub(crate) num_tsgs: u32,
    pub(crate) comm: [u8; 16],
}
// SAFETY: `repr(C)`, integers and a byte array only.
unsafe impl FromBytes for ClientInfo {}
// SAFETY: `repr(C)`, 8 + 6 * 4 + 16 = 48 bytes, 8-aligned: no padding.
unsafe impl AsBytes for ClientInfo {}
const _: () = assert!(size_of::<ClientInfo>() == 48);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct Status {
    pub(crate) size: u32,
    pub(crate) flags: u32,
    pub(crate) self_: ClientInfo,
    pub(crate) generation: u64,
    pub(crate) rt_active: u32,
    pub(crate) num_clients: u32,
}
ioctl_arg!(Status, 72);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct TsgInfo {
    pub(crate) tsgid: u32,
    pub(crate) flags: u32,
    pub(crate) owner_client_id: u64,
    pub(crate) owner_tgid: u32,
    pub(crate) timeslice_us: u32,
}
// SAFETY: `repr(C)`, integers only.
unsafe impl FromBytes for TsgInfo {}
// SAFETY: `repr(C)`, 4 + 4 + 8 + 4 + 4 = 24 bytes, 8-aligned: no padding.
unsafe impl AsBytes for TsgInfo {}
const _: () = assert!(size_of::<TsgInfo>() == 24);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct List {
    pub(crate) size: u32,
    pub(crate) flags: u32,
    pub(crate) clients_ptr: u64,
    pub(crate) tsgs_ptr: u64,
    pub(crate) clients_cap: u32,
    pub(crate) tsgs_cap: u32,
    pub(crate) clients_count: u32,
    pub(crate) tsgs_count: u32,
    pub(crate) generation: u64,
    pub(crate) rt_active: u32,
    pub(crate) reserved: u32,
}
ioctl_arg!(List, 56);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct Stats {
    pub(crate) size: u32,
    pub(crate) flags: u32,
    pub(crate) begins: u64,
    pub(crate) ends: u64,
    pub(crate) ends_by_close: u64,
    pub(crate) submits: u64,
    pub(crate) submit_errors: u64,
    pub(crate) clients_now: u32,
    pub(crate) clients_max: u32,
}
ioctl_arg!(Stats, 56);
