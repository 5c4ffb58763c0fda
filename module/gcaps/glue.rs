// SPDX-License-Identifier: GPL-2.0

//! Safe wrappers around the C glue (`gcaps_glue.c`, declared in `gcaps_glue.h`, whose
//! bindgen translation is `glue/bindings.rs`). Every `unsafe` block of the device that calls
//! into C is here or in a submodule, one per concept:
//! - this file: the bindings and their checks (header hash, struct layouts, the TSG capacity
//!   symbol), module parameters, the clock, registration of the device;
//! - `lock`: the static C locks as typed guards (update lock, trace lock, LIST lock);
//! - `task`: the calling task, threads, the sched lock with the holder record, the ceiling;
//! - `files`: handed-over files and the owners' pid references;
//! - `backend`: the bound backend and the driver's events, the work item's kick;
//! - `user`: user copies of the UAPI structs (plain old data);
//! - `mem`: kernel memory and the kernel log.

use core::cell::UnsafeCell;
use core::ffi::{c_int, c_ulong, c_void};
use core::marker::PhantomData;
use core::mem::size_of;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use super::gcaps_core::boost::SCHED_FIFO;
use super::gcaps_core::ioctl::{self, Sched};
use super::gcaps_core::stats::Applied;
use super::gcaps_core::uapi::{self, IoctlArg};
use super::gcaps_core::{
    ClientRef, Errno, Holder, Mechanism, Params, PidToken, Saved, Set, TaskToken, TsgEvent,
    MAX_TSGS, TSG_WORDS,
};
use super::Result;

mod backend;
mod files;
mod lock;
mod mem;
mod task;
mod user;

pub(crate) use self::backend::*;
pub(crate) use self::files::*;
pub(crate) use self::lock::*;
pub(crate) use self::mem::*;
pub(crate) use self::task::*;
pub(crate) use self::user::*;

/// The error of a C call's return value (0 or `-errno`).
fn check(ret: c_int) -> Result {
    if ret == 0 {
        Ok(())
    } else {
        Err(Errno(-ret))
    }
}

/// bindgen's translation of `gcaps_glue.h` (generated code: its names are C's), checked in
/// because the kernel build and DKMS may not have bindgen: `module/gcaps/bindings.sh`
/// regenerates it, and the assertion below fails the build of both hosts when the header is
/// no longer the one it was generated from. The device implements the header's
/// `gcaps_rust_*` functions; `device.rs` checks their signatures against these declarations.
#[allow(dead_code, non_camel_case_types, clippy::all)]
#[rustfmt::skip]
pub(crate) mod bindings;
use self::bindings::*;
const _: () = assert!(
    uapi::fnv1a(include_bytes!("gcaps_glue.h")) == bindings::HEADER_FNV1A,
    "module/gcaps/gcaps_glue.h changed since glue/bindings.rs was generated: run module/gcaps/bindings.sh"
);

/// `struct gcaps_caller`: identity and scheduling state of the calling task.
pub(crate) type Caller = gcaps_caller;

/// `struct gcaps_ev` and `struct gcaps_client_ref` are the core's [`TsgEvent`] and
/// [`ClientRef`] (`repr(C)`), compared here field by field with the header's.
#[allow(non_camel_case_types)]
type gcaps_ev = TsgEvent;
#[allow(non_camel_case_types)]
type gcaps_client_ref = ClientRef;
macro_rules! same_layout {
    ($rust:ty, $c:ty, { $($f:ident = $cf:ident),* $(,)? }) => {
        const _: () = {
            assert!(size_of::<$rust>() == size_of::<$c>());
            $(assert!(core::mem::offset_of!($rust, $f) == core::mem::offset_of!($c, $cf));)*
        };
    };
}
same_layout!(TsgEvent, layout::gcaps_ev, {
    start = start, tsgid = tsgid, tgid = tgid, timeslice_us = timeslice_us,
    num_channels = num_channels, present = present, flags = flags,
});
same_layout!(ClientRef, layout::gcaps_client_ref, { id = id, slot = slot, pad = pad });

/// The TSG capacity, agreed with the C side at build time: `gcaps_glue.c` references this
/// symbol by a name made from its `GCAPS_BE_MAX_TSGS`, so a C capacity other than the core's
/// [`MAX_TSGS`] leaves the module with an undefined symbol (modpost fails the build). The
/// name and the assertion must change together.
#[no_mangle]
#[used]
#[allow(non_upper_case_globals)]
static gcaps_rust_max_tsgs_1024: u8 = 0;
const _: () = assert!(MAX_TSGS == 1024 && TSG_WORDS * 64 == MAX_TSGS);

/// The `update_prio` module parameter (not validated).
pub(crate) fn param_update_prio() -> i32 {
    // SAFETY: Reads an `int` module parameter (0444, set before init).
    unsafe { gcaps_glue_update_prio() }
}

/// The `mechanism` module parameter; `EINVAL` (logged by the C side, which owns the text)
/// if it names none.
pub(crate) fn param_mechanism() -> Result<Mechanism> {
    // SAFETY: Reads a `charp` module parameter (0444, set before init).
    let v = unsafe { gcaps_glue_mechanism() };
    u32::try_from(v)
        .ok()
        .and_then(Mechanism::from_uapi)
        .ok_or(Errno::EINVAL)
}

/// The `boost` module parameter.
pub(crate) fn param_boost() -> bool {
    // SAFETY: Reads a `bool` module parameter (0444, set before init).
    unsafe { gcaps_glue_boost_on() }
}

/// The `boost_prio` module parameter (not validated).
pub(crate) fn param_boost_prio() -> i32 {
    // SAFETY: Reads an `int` module parameter (0444, set before init).
    unsafe { gcaps_glue_boost_prio() }
}

/// The `trace_size` module parameter (not validated).
pub(crate) fn param_trace_size() -> u32 {
    // SAFETY: Reads a `uint` module parameter (0444, set before init).
    unsafe { gcaps_glue_trace_size() }
}

/// `CLOCK_MONOTONIC` now, in ns.
pub(crate) fn now_ns() -> u64 {
    // SAFETY: No preconditions (`ktime_get_ns`).
    unsafe { gcaps_glue_now_ns() }
}

/// The `max_clients_per_user` module parameter.
pub(crate) fn param_max_clients_per_user() -> u32 {
    // SAFETY: Reads a `uint` module parameter (0444, set before init).
    unsafe { gcaps_glue_max_clients_per_user() }
}

/// Publishes `ctx` for the C callbacks (backends bind with `mechanism`) and registers
/// `/dev/gcaps`.
///
/// # Safety
///
/// `ctx` must point to the module's `State` and stay valid until [`exit_final`] returned.
pub(crate) unsafe fn init(ctx: *mut c_void, mechanism: Mechanism) -> Result {
    // SAFETY: The caller guarantees `ctx` outlives the registration.
    check(unsafe { gcaps_glue_init(ctx, mechanism.uapi()) })
}

/// Deregisters `/dev/gcaps` (no file is open: each open file holds a module reference).
pub(crate) fn exit_dev() {
    // SAFETY: Called once from module exit, after a successful `init`.
    unsafe { gcaps_glue_exit_dev() }
}

/// Waits for the work item and forgets `ctx`; afterwards no C callback reaches the state.
pub(crate) fn exit_final() {
    // SAFETY: Called once from module exit, after the backend was detached.
    unsafe { gcaps_glue_exit_final() }
}
