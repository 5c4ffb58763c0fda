// SPDX-License-Identifier: GPL-2.0

//! Rust mirror of `uapi/linux/gcaps.h` (the single source of truth). The sizes are checked
//! here against the header's `*_SIZE_VER0` constants and in `gcaps_glue.c` against the C
//! structs themselves, so both sides agree on the layout. Every struct is `repr(C)` of
//! integers and byte arrays with explicit padding only (a host may declare them plain-old-data
//! for its user copies, as gcaps.ko does in `glue.rs`).

use core::mem::size_of;

pub const IOC_MAGIC: u32 = 0xC5;
pub const ABI_VERSION: u32 = 1;
/// 0.1.0 as `major << 16 | minor << 8 | patch`.
pub const MODULE_VERSION: u32 = 0x00_01_00;

pub const NR_VERSION: u32 = 0x00;
pub const NR_SEG_BEGIN: u32 = 0x01;
pub const NR_SEG_END: u32 = 0x02;
pub const NR_STATUS: u32 = 0x03;
pub const NR_LIST: u32 = 0x04;
pub const NR_SET_ALWAYS: u32 = 0x05;
pub const NR_STATS: u32 = 0x10;

pub const NR_TRACE_READ: u32 = 0x11;

pub const STATS_RESET: u32 = 1 << 0;

pub const REJ_EPERM: usize = 0;
pub const REJ_ENOENT: usize = 1;
pub const REJ_EINTR: usize = 2;
pub const REJ_E2BIG: usize = 3;
pub const REJ_EFAULT: usize = 4;
pub const REJ_EINVAL: usize = 5;
pub const REJ_EMFILE: usize = 6;
pub const REJ_ENOTTY: usize = 7;
pub const REJ_ENOSPC: usize = 8;
pub const REJ_EALREADY: usize = 9;
pub const REJ_OTHER: usize = 10;
pub const REJ_NR: usize = 16;

pub const DELAY_BUCKETS: usize = 32;
pub const DELAY_BUCKET0_SHIFT: u32 = 10;

pub const TRACE_OPEN: u32 = 1;
pub const TRACE_CLOSE: u32 = 2;
pub const TRACE_BEGIN: u32 = 3;
pub const TRACE_END: u32 = 4;
pub const TRACE_PREEMPT: u32 = 5;
pub const TRACE_RESUME: u32 = 6;
pub const TRACE_RECOVERY: u32 = 7;
pub const TRACE_TSG_NEW: u32 = 8;
pub const TRACE_TSG_GONE: u32 = 9;
pub const TRACE_TSG_ALWAYS: u32 = 10;
pub const TRACE_BOOST: u32 = 11;
pub const TRACE_UNBOOST: u32 = 12;

pub const TRACE_F_PENDING: u32 = 1 << 0;
pub const TRACE_F_ENDED: u32 = 1 << 1;
pub const TRACE_F_SUBMIT: u32 = 1 << 2;
pub const TRACE_F_SUBMIT_FAILED: u32 = 1 << 3;

pub const GPU_PRIO_INHERIT: i32 = 0;
pub const GPU_PRIO_MAX: i32 = 99;

pub const CLASS_OTHER: u32 = 0;
pub const CLASS_FIFO: u32 = 1;
pub const CLASS_RR: u32 = 2;

pub const STATE_IDLE: u32 = 0;
pub const STATE_RUNNING: u32 = 1;
pub const STATE_PENDING: u32 = 2;

pub const TSG_ELIGIBLE: u32 = 1 << 0;
pub const TSG_ALWAYS: u32 = 1 << 1;
pub const TSG_ALWAYS_DRIVER: u32 = 1 << 2;
pub const TSG_ALWAYS_ADMIN: u32 = 1 << 3;

/// `GCAPS_BACKEND_STOCK` (`gcaps_version.backend_flags`): the backend's runlists are stock.
pub const BACKEND_STOCK: u32 = 1 << 0;

/// `GCAPS_MAX_TSGS`.
pub const MAX_TSGS: u32 = 1024;

/// An ioctl argument struct: starts with its `size`, grows at the end.
pub trait IoctlArg: Default + Copy {
    /// Size of the first version; a smaller `size` is `EINVAL`.
    const SIZE_VER0: usize;
}

macro_rules! ioctl_arg {
    ($t:ty, $ver0:expr) => {
        ioctl_arg!($t, $ver0, $ver0);
    };
    ($t:ty, $ver0:expr, $current:expr) => {
        impl IoctlArg for $t {
            const SIZE_VER0: usize = $ver0;
        }
        const _: () = assert!(size_of::<$t>() == $current);
    };
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    pub size: u32,
    pub abi_version: u32,
    pub module_version: u32,
    pub backend_abi: u32,
    pub backend_name: [u8; 32],
    // VER1
    pub backend_runlists: u32,
    pub backend_flags: u32,
    pub backend_detail: [u8; 64],
}
ioctl_arg!(Version, 48, 120);

impl Default for Version {
    fn default() -> Self {
        Self {
            size: 0,
            abi_version: 0,
            module_version: 0,
            backend_abi: 0,
            backend_name: [0; 32],
            backend_runlists: 0,
            backend_flags: 0,
            backend_detail: [0; 64],
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct SetAlways {
    pub size: u32,
    pub flags: u32,
    pub tsgid: u32,
    pub on: u32,
    pub reasons: u32,
    pub reserved: u32,
    pub generation: u64,
}
ioctl_arg!(SetAlways, 32);

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct SegBegin {
    pub size: u32,
    pub flags: u32,
    pub gpu_priority: i32,
    pub state: u32,
    pub generation: u64,
    // VER1
    pub refused: u32,
    pub cpu_priority: i32,
}
ioctl_arg!(SegBegin, 24, 32);

/// `GCAPS_REFUSED_*`: the permission rule that refused a `GCAPS_IOC_SEG_BEGIN` (`EPERM`).
pub const REFUSED_NOT_OWNER: u32 = 1;
pub const REFUSED_NEEDS_REALTIME: u32 = 2;
pub const REFUSED_ABOVE_OWN: u32 = 3;

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct SegEnd {
    pub size: u32,
    pub flags: u32,
    pub generation: u64,
}
ioctl_arg!(SegEnd, 16);

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct ClientInfo {
    pub client_id: u64,
    pub tgid: u32,
    pub cpu_class: u32,
    pub cpu_priority: i32,
    pub gpu_priority: i32,
    pub state: u32,
    pub num_tsgs: u32,
    pub comm: [u8; 16],
}
const _: () = assert!(size_of::<ClientInfo>() == 48);

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Status {
    pub size: u32,
    pub flags: u32,
    pub self_: ClientInfo,
    pub generation: u64,
    pub rt_active: u32,
    pub num_clients: u32,
    // VER1
    pub boost: u32,
    pub boost_prio: i32,
    pub update_prio: i32,
    pub reserved: u32,
}
ioctl_arg!(Status, 72, 88);
pub const STATUS_SIZE_VER1: usize = 88;
pub const BOOST_ON: u32 = 1 << 0;
pub const BOOST_SELF: u32 = 1 << 1;

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct TsgInfo {
    pub tsgid: u32,
    pub flags: u32,
    pub owner_client_id: u64,
    pub owner_tgid: u32,
    pub timeslice_us: u32,
}
const _: () = assert!(size_of::<TsgInfo>() == 24);

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct List {
    pub size: u32,
    pub flags: u32,
    pub clients_ptr: u64,
    pub tsgs_ptr: u64,
    pub clients_cap: u32,
    pub tsgs_cap: u32,
    pub clients_count: u32,
    pub tsgs_count: u32,
    pub generation: u64,
    pub rt_active: u32,
    pub reserved: u32,
}
ioctl_arg!(List, 56);

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Stats {
    pub size: u32,
    pub flags: u32,
    pub begins: u64,
    pub ends: u64,
    pub ends_by_close: u64,
    pub submits: u64,
    pub submit_errors: u64,
    pub clients_now: u32,
    pub clients_max: u32,
    pub preemptions: u64,
    pub resumes: u64,
    pub submit_timeouts: u64,
    pub recoveries: u64,
    pub tsgs_now: u32,
    pub tsgs_max: u32,
    pub rejected: [u64; REJ_NR],
    pub delay: DelayHistogram,
    pub open_at_reset: u64,
    pub segments_open: u64,
}
ioctl_arg!(Stats, 56, 528);

/// The update-delay statistics of `struct gcaps_stats` (`delay_count` .. `delay_buckets`).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct DelayHistogram {
    pub count: u64,
    pub sum_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub buckets: [u64; DELAY_BUCKETS],
}
const _: () = assert!(size_of::<DelayHistogram>() == 32 + 8 * DELAY_BUCKETS);

/// One event of the trace ring (`struct gcaps_trace_event`).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub seq: u64,
    pub time_ns: u64,
    pub client_id: u64,
    pub running_client_id: u64,
    pub generation: u64,
    pub delay_ns: u64,
    pub tgid: u32,
    pub kind: u32,
    pub cpu_priority: i32,
    pub requested_priority: i32,
    pub effective_priority: i32,
    pub flags: u32,
    pub running_tgid: u32,
    pub tid: u32,
    pub comm: [u8; 16],
}

impl TraceEvent {
    /// All zero (`kind` 0: no event).
    pub const ZERO: Self = Self {
        seq: 0,
        time_ns: 0,
        client_id: 0,
        running_client_id: 0,
        generation: 0,
        delay_ns: 0,
        tgid: 0,
        kind: 0,
        cpu_priority: 0,
        requested_priority: 0,
        effective_priority: 0,
        flags: 0,
        running_tgid: 0,
        tid: 0,
        comm: [0; 16],
    };
}
pub const TRACE_EVENT_SIZE_VER0: usize = 96;
const _: () = assert!(size_of::<TraceEvent>() == TRACE_EVENT_SIZE_VER0);

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct TraceRead {
    pub size: u32,
    pub flags: u32,
    pub events_ptr: u64,
    pub events_cap: u32,
    pub event_size: u32,
    pub from_seq: u64,
    pub events_count: u32,
    pub ring_size: u32,
    pub next_seq: u64,
    pub dropped: u64,
    pub overwritten: u64,
}
ioctl_arg!(TraceRead, 64);
