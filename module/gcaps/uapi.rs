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

pub(crate) const NR_TRACE_READ: u32 = 0x11;

pub(crate) const STATS_RESET: u32 = 1 << 0;

pub(crate) const REJ_EPERM: usize = 0;
pub(crate) const REJ_ENOENT: usize = 1;
pub(crate) const REJ_EINTR: usize = 2;
pub(crate) const REJ_E2BIG: usize = 3;
pub(crate) const REJ_EFAULT: usize = 4;
pub(crate) const REJ_EINVAL: usize = 5;
pub(crate) const REJ_EMFILE: usize = 6;
pub(crate) const REJ_ENOTTY: usize = 7;
pub(crate) const REJ_ENOSPC: usize = 8;
pub(crate) const REJ_EALREADY: usize = 9;
pub(crate) const REJ_OTHER: usize = 10;
pub(crate) const REJ_NR: usize = 16;

pub(crate) const DELAY_BUCKETS: usize = 32;
pub(crate) const DELAY_BUCKET0_SHIFT: u32 = 10;

pub(crate) const TRACE_OPEN: u32 = 1;
pub(crate) const TRACE_CLOSE: u32 = 2;
pub(crate) const TRACE_BEGIN: u32 = 3;
pub(crate) const TRACE_END: u32 = 4;
pub(crate) const TRACE_PREEMPT: u32 = 5;
pub(crate) const TRACE_RESUME: u32 = 6;
pub(crate) const TRACE_RECOVERY: u32 = 7;
pub(crate) const TRACE_TSG_NEW: u32 = 8;
pub(crate) const TRACE_TSG_GONE: u32 = 9;

pub(crate) const TRACE_F_PENDING: u32 = 1 << 0;
pub(crate) const TRACE_F_ENDED: u32 = 1 << 1;
pub(crate) const TRACE_F_SUBMIT: u32 = 1 << 2;
pub(crate) const TRACE_F_SUBMIT_FAILED: u32 = 1 << 3;

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
        ioctl_arg!($t, $ver0, $ver0);
    };
    ($t:ty, $ver0:expr, $current:expr) => {
        // SAFETY: `repr(C)` struct of integers and byte arrays: every bit pattern is valid.
        unsafe impl FromBytes for $t {}
        // SAFETY: `repr(C)` with explicit padding fields only (the size assertion below and
        // the C side's `BUILD_BUG_ON`s check there is no implicit padding).
        unsafe impl AsBytes for $t {}
        impl IoctlArg for $t {
            const SIZE_VER0: usize = $ver0;
        }
        const _: () = assert!(size_of::<$t>() == $current);
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
    pub(crate) preemptions: u64,
    pub(crate) resumes: u64,
    pub(crate) submit_timeouts: u64,
    pub(crate) recoveries: u64,
    pub(crate) tsgs_now: u32,
    pub(crate) tsgs_max: u32,
    pub(crate) rejected: [u64; REJ_NR],
    pub(crate) delay: DelayHistogram,
    pub(crate) open_at_reset: u64,
    pub(crate) segments_open: u64,
}
ioctl_arg!(Stats, 56, 528);

/// The update-delay statistics of `struct gcaps_stats` (`delay_count` .. `delay_buckets`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct DelayHistogram {
    pub(crate) count: u64,
    pub(crate) sum_ns: u64,
    pub(crate) min_ns: u64,
    pub(crate) max_ns: u64,
    pub(crate) buckets: [u64; DELAY_BUCKETS],
}
const _: () = assert!(size_of::<DelayHistogram>() == 32 + 8 * DELAY_BUCKETS);

/// One event of the trace ring (`struct gcaps_trace_event`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct TraceEvent {
    pub(crate) seq: u64,
    pub(crate) time_ns: u64,
    pub(crate) client_id: u64,
    pub(crate) running_client_id: u64,
    pub(crate) generation: u64,
    pub(crate) delay_ns: u64,
    pub(crate) tgid: u32,
    pub(crate) kind: u32,
    pub(crate) cpu_priority: i32,
    pub(crate) requested_priority: i32,
    pub(crate) effective_priority: i32,
    pub(crate) flags: u32,
    pub(crate) running_tgid: u32,
    pub(crate) reserved: u32,
    pub(crate) comm: [u8; 16],
}
// SAFETY: `repr(C)`, integers and a byte array only.
unsafe impl FromBytes for TraceEvent {}
// SAFETY: `repr(C)`, 6 * 8 + 8 * 4 + 16 = 96 bytes, 8-aligned: no padding.
unsafe impl AsBytes for TraceEvent {}
pub(crate) const TRACE_EVENT_SIZE_VER0: usize = 96;
const _: () = assert!(size_of::<TraceEvent>() == TRACE_EVENT_SIZE_VER0);

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct TraceRead {
    pub(crate) size: u32,
    pub(crate) flags: u32,
    pub(crate) events_ptr: u64,
    pub(crate) events_cap: u32,
    pub(crate) event_size: u32,
    pub(crate) from_seq: u64,
    pub(crate) events_count: u32,
    pub(crate) ring_size: u32,
    pub(crate) next_seq: u64,
    pub(crate) dropped: u64,
    pub(crate) overwritten: u64,
}
ioctl_arg!(TraceRead, 64);
