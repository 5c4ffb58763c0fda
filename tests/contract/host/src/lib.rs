// SPDX-License-Identifier: GPL-2.0

//! # gcaps-contract-host: gcaps's side of the backend contract, in a user process
//!
//! A GPU driver's tests (nvgpu's host POSIX unit build, `tests/nvgpu/`) link this crate's
//! static library in place of `gcaps.ko`. It exports the one symbol `gcaps.ko` exports,
//! [`gcaps_backend_register`], with the signature and semantics of
//! `module/include/gcaps_backend.h`, and hands out a `struct gcaps_be_calls` table that
//! behaves like `gcaps.ko`'s (`module/gcaps/gcaps_glue.c`): `tsg_update`/`tsg_release` record
//! into a per-TSG event table (a release takes the id off the published set at once),
//! `recovered` sets a flag, `eligible` copies the published snapshot, `unregister` unbinds.
//! Every decision is made by gcaps's real core ([`gcaps_core::Core`], and through it the
//! policy crate), called exactly as `module/gcaps/device.rs` calls it; this crate is only the
//! [`Host`] around it: the snapshot is a plain struct behind a mutex, a resubmit calls the
//! driver's `ops->resubmit(drv)`, processes are explicit `(tgid, start)` values the test gives,
//! and time is a test clock.
//!
//! The test plays gcaps's users and its work item through the C API of
//! `include/gcaps_host.h` (`gcaps_host_*`): open a client for a process, begin and end
//! segments, close, let a process exit, run the work item (apply pending TSG events, exits and
//! recoveries, then resubmit if the decision changed), unload and load gcaps, read counters and
//! the decision.
//!
//! ## Locks and reentrancy
//!
//! As in `gcaps.ko`: the *update lock* (a mutex here) guards the core and is held while the
//! driver's `ops->resubmit`/`ops->detach` run; the event table and the snapshot have their own
//! locks, never held across a call into the driver, so the driver's `eligible()`,
//! `tsg_update()`, `tsg_release()` and `recovered()` work from inside `ops->resubmit` (they are
//! recorded, and applied by the next work run or real-time update, never re-entrantly). A call
//! that needs the update lock made from inside `ops->resubmit`/`ops->detach` on the same thread
//! (which would deadlock `gcaps.ko`) fails with `-EDEADLK` (`gcaps_host_*`, and
//! `gcaps_backend_register` as `ERR_PTR(-EDEADLK)`), `gcaps_host_run_work` with `-EAGAIN`
//! (`gcaps.ko`'s work item retries later), and `calls->unregister` is ignored and counted as a
//! contract violation (except during `ops->detach`, where `gcaps.ko`'s unregister also returns
//! at once). All state is process-global, like the module's.
//!
//! Threads: every call is memory-safe from any thread (the locks above), but the scenarios are
//! meant to run on one thread (nvgpu's unit runner uses `--num-threads 1`): nothing runs the
//! work item behind the test's back, so the test decides when events are applied. Rust tests
//! in one binary must serialise their scenarios (the state is global).
//!
//! ## Panics
//!
//! No panic crosses the C boundary: every entry point runs under `catch_unwind`; after a panic
//! (a bug here) the crate is *broken* and every later call fails with `-EIO` (void calls do
//! nothing). A callback of the driver must not unwind (C cannot; a Rust test driver's
//! `extern "C"` callback aborts the process if it panics, so tests record and assert after).

#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::ffi::{c_int, c_long, c_void};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use gcaps_core::ioctl::{self, Sched, SCHED_FIFO};
use gcaps_core::uapi::{self, TraceEvent};
use gcaps_core::{
    Call, ClientRef, Core, Decision, Errno, Exits, Host, Opener, PidToken, TsgEvent, Warning,
    MAX_TSGS, TSG_WORDS,
};

/// The backend contract as bindgen reads it from `module/include/gcaps_backend.h` (through
/// `include/gcaps_backend_user.h`), with bindgen's layout tests.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    missing_docs,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    clippy::indexing_slicing
)]
pub mod backend {
    include!(concat!(env!("OUT_DIR"), "/backend.rs"));
}

use backend::{
    gcaps_backend, gcaps_backend_ops, gcaps_be_calls, gcaps_be_eligible, gcaps_be_tsg,
    GCAPS_BACKEND_ABI, GCAPS_BE_MAX_TSGS,
};

#[cfg(not(target_pointer_width = "64"))]
compile_error!("gcaps-contract-host: 64-bit only (gcaps.ko requires BITS_PER_LONG == 64)");

// The header's TSG capacity is the policy's (gcaps.ko checks the same at link time).
const _: () = assert!(GCAPS_BE_MAX_TSGS as usize == MAX_TSGS);
// The published bit set covers every TSG id.
const _: () = assert!(
    std::mem::size_of::<gcaps_be_eligible>() >= std::mem::size_of::<u64>() * (2 + TSG_WORDS)
);

/// Linux error numbers this host adds to [`Errno`]'s (the same on x86_64 and arm64).
pub mod errno {
    use gcaps_core::Errno;
    /// No such process (`gcaps_host_owner_exit` of an identity without a live process).
    pub const ESRCH: Errno = Errno(3);
    /// I/O error: the crate is broken (an internal panic was caught).
    pub const EIO: Errno = Errno(5);
    /// Bad file descriptor: an unknown client handle.
    pub const EBADF: Errno = Errno(9);
    /// Try again: the work item found the update lock taken.
    pub const EAGAIN: Errno = Errno(11);
    /// File exists: `gcaps_host_load` while loaded.
    pub const EEXIST: Errno = Errno(17);
    /// Resource deadlock avoided: a call that needs the update lock from inside
    /// `ops->resubmit`/`ops->detach`.
    pub const EDEADLK: Errno = Errno(35);
}
use errno::{EAGAIN, EBADF, EDEADLK, EEXIST, EIO, ESRCH};

// ------------------------------------------------------------------ C API types

/// `struct gcaps_host_counters` (`include/gcaps_host.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Resubmits the core asked of the driver (`ops->resubmit` calls).
    pub resubmits: u64,
    /// Of those, failed (a non-zero return).
    pub resubmit_errors: u64,
    /// Of those, `-ETIMEDOUT`.
    pub resubmit_timeouts: u64,
    /// Recoveries applied (`calls->recovered` seen by a work run or real-time update).
    pub recoveries: u64,
    /// TSG events applied (at most one per TSG id per application: its latest state).
    pub events: u64,
    /// Successful begins.
    pub begins: u64,
    /// Successful ends.
    pub ends: u64,
    /// Segments ended by a close or the owner's exit.
    pub ends_by_close: u64,
    /// Begins that took the GPU from a running real-time segment.
    pub preemptions: u64,
    /// Ends or closes that handed it to a waiting one.
    pub resumes: u64,
    /// Decisions published to the snapshot.
    pub publishes: u64,
    /// The published decision's generation (the policy's).
    pub generation: u64,
    /// `ops->detach` calls (`gcaps_host_unload` with a driver bound).
    pub detaches: u64,
    /// Successful `gcaps_backend_register` calls.
    pub registrations: u64,
    /// `calls->unregister` calls that unbound a driver.
    pub unregistrations: u64,
    /// Contract violations by the driver (each also one line on stderr): a call through the
    /// table while nothing is bound or with a handle gcaps did not hand out, a TSG id
    /// `>= GCAPS_BE_MAX_TSGS`, a NULL argument, `unregister` under the update lock.
    pub violations: u64,
    /// Warnings the core asked for (the first failed resubmit).
    pub warnings: u64,
    /// Trace events the core recorded.
    pub trace_events: u64,
    /// 1: a driver is bound.
    pub bound: u32,
    /// 1: gcaps is loaded (`gcaps_host_unload` clears it, `gcaps_host_load` sets it).
    pub loaded: u32,
    /// Clients now (open files whose owner has not exited).
    pub clients: u32,
    /// TSGs the core knows now (applied events).
    pub tsgs: u32,
}

/// `struct gcaps_host_decision` (`include/gcaps_host.h`): a decision or the published
/// snapshot.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecisionOut {
    /// Generation.
    pub generation: u64,
    /// 1: every TSG is eligible (no real-time segment open).
    pub all: u32,
    /// Zero.
    pub pad: u32,
    /// Eligible TSG ids (bit `t % 64` of word `t / 64`), valid when `all` is 0.
    pub bits: [u64; TSG_WORDS],
}

/// `GCAPS_HOST_IDLE`: no open segment.
pub const GCAPS_HOST_IDLE: c_int = uapi::STATE_IDLE as c_int;
/// `GCAPS_HOST_RUNNING`: the segment runs (its TSGs are eligible).
pub const GCAPS_HOST_RUNNING: c_int = uapi::STATE_RUNNING as c_int;
/// `GCAPS_HOST_PENDING`: the segment waits for a higher-priority one.
pub const GCAPS_HOST_PENDING: c_int = uapi::STATE_PENDING as c_int;

// ------------------------------------------------------------------ state

/// A process the test named: `(tgid, start)` is its identity, never reused.
struct Proc {
    tgid: i32,
    start: u64,
    exited: bool,
}

/// An open "file": the client handle the test holds.
struct File {
    r: ClientRef,
    sched: Sched,
    /// Index into `Gcaps::procs`.
    proc_: usize,
}

/// The bound driver.
struct Bound {
    ops: *const gcaps_backend_ops,
    drv: *mut c_void,
}

// SAFETY: The pointers are only dereferenced/passed back with the update lock held; the
// backend contract makes the driver keep `ops` valid and accept calls with `drv` from any
// process context until it is unbound (gcaps.ko calls it from whichever task updates).
unsafe impl Send for Bound {}

/// Counters of this host (the core keeps the rest).
#[derive(Clone, Copy, Default)]
struct HostStats {
    publishes: u64,
    detaches: u64,
    registrations: u64,
    unregistrations: u64,
    warnings: u64,
    trace_events: u64,
}

impl HostStats {
    const ZERO: Self = Self {
        publishes: 0,
        detaches: 0,
        registrations: 0,
        unregistrations: 0,
        warnings: 0,
        trace_events: 0,
    };
}

/// Everything the update lock guards.
struct Gcaps {
    loaded: bool,
    core: Core,
    exits: Exits,
    files: Vec<File>,
    procs: Vec<Proc>,
    be: Option<Bound>,
    stats: HostStats,
}

/// The published snapshot (`gcaps_snap` and `gcaps_snap_released` of the C glue).
struct Snap {
    generation: u64,
    all: bool,
    words: [u64; TSG_WORDS],
    /// Ids released since the core last took them: kept off every publish until then.
    released: [u64; TSG_WORDS],
}

impl Snap {
    const INITIAL: Self = Self {
        generation: 0,
        all: true,
        words: [0; TSG_WORDS],
        released: [0; TSG_WORDS],
    };
}

/// One TSG's latest report (`struct gcaps_ev_slot` of the C glue: the driver's struct as it
/// passed it, whatever fields its ABI has, and whether the TSG exists).
#[derive(Clone, Copy)]
struct Slot {
    tsg: gcaps_be_tsg,
    present: bool,
}

/// The per-TSG event table (`gcaps_ev_table` of the C glue): the latest state per TSG id.
struct Events {
    table: [Slot; MAX_TSGS],
    dirty: [u64; TSG_WORDS],
    recovered: bool,
}

const NO_EVENT: Slot = Slot {
    // SAFETY: `struct gcaps_be_tsg` is plain integers (bindgen's layout tests): all-zero is
    // valid.
    tsg: unsafe { std::mem::zeroed() },
    present: false,
};

impl Events {
    const EMPTY: Self = Self {
        table: [NO_EVENT; MAX_TSGS],
        dirty: [0; TSG_WORDS],
        recovered: false,
    };

    /// Forgets every pending event and the recovery flag (at bind and unbind, as the glue).
    fn clear(&mut self) {
        self.dirty = [0; TSG_WORDS];
        self.recovered = false;
    }

    fn pending(&self) -> bool {
        self.recovered || self.dirty.iter().any(|w| *w != 0)
    }
}

static UPDATE: Mutex<Gcaps> = Mutex::new(Gcaps {
    loaded: true,
    core: Core::new(),
    exits: Exits::new(),
    files: Vec::new(),
    procs: Vec::new(),
    be: None,
    stats: HostStats::ZERO,
});
static SNAP: Mutex<Snap> = Mutex::new(Snap::INITIAL);
static EVENTS: Mutex<Events> = Mutex::new(Events::EMPTY);
/// Whether a driver is bound (set and cleared under the update lock; read by the table's
/// calls, which must not take it).
static BOUND: AtomicBool = AtomicBool::new(false);
/// `calls->stock`: the bound driver's runlists are stock (the glue's `gcaps_be_stock_on`):
/// written by the driver, cleared at registration and unbinding.
static STOCK: AtomicBool = AtomicBool::new(false);
static VIOLATIONS: AtomicU64 = AtomicU64::new(0);
static BROKEN: AtomicBool = AtomicBool::new(false);
/// The test clock (ns).
static NOW: AtomicU64 = AtomicU64::new(0);
/// The address of this is the `struct gcaps_backend *` handle (opaque to the driver).
static HANDLE: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread holds the update lock (a call into the driver is on its stack).
    static IN_UPDATE: Cell<bool> = const { Cell::new(false) };
    /// This thread is inside `ops->detach`.
    static DETACHING: Cell<bool> = const { Cell::new(false) };
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock means a caught panic: `BROKEN` stops every later call before it gets
    // here, except the one that is already inside.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn handle() -> *mut gcaps_backend {
    (&HANDLE as *const AtomicU64).cast_mut().cast()
}

/// The update lock, held by this thread until the guard drops.
struct UpdateGuard {
    g: MutexGuard<'static, Gcaps>,
}

impl Drop for UpdateGuard {
    fn drop(&mut self) {
        IN_UPDATE.with(|c| c.set(false));
    }
}

impl std::ops::Deref for UpdateGuard {
    type Target = Gcaps;
    fn deref(&self) -> &Gcaps {
        &self.g
    }
}

impl std::ops::DerefMut for UpdateGuard {
    fn deref_mut(&mut self) -> &mut Gcaps {
        &mut self.g
    }
}

/// Takes the update lock (`EDEADLK` if this thread holds it: a call from inside the driver's
/// `ops->resubmit`/`ops->detach`).
fn update_lock() -> Result<UpdateGuard, Errno> {
    if IN_UPDATE.with(Cell::get) {
        return Err(EDEADLK);
    }
    let g = lock(&UPDATE);
    IN_UPDATE.with(|c| c.set(true));
    Ok(UpdateGuard { g })
}

/// The update lock of a loaded gcaps (`ENODEV` after `gcaps_host_unload`).
fn live() -> Result<UpdateGuard, Errno> {
    let g = update_lock()?;
    if !g.loaded {
        return Err(Errno::ENODEV);
    }
    Ok(g)
}

fn violation(what: &str) {
    VIOLATIONS.fetch_add(1, Ordering::Relaxed);
    let _ = writeln!(
        std::io::stderr(),
        "gcaps-contract-host: backend contract violation: {what}"
    );
}

/// Runs an entry point's body: `fallback` if the crate is broken or the body panics.
fn entry<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    if BROKEN.load(Ordering::Acquire) {
        return fallback;
    }
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            BROKEN.store(true, Ordering::Release);
            let _ = writeln!(
                std::io::stderr(),
                "gcaps-contract-host: internal panic caught; every later call fails (-EIO)"
            );
            fallback
        }
    }
}

fn ret(r: Result<c_int, Errno>) -> c_int {
    r.unwrap_or_else(|e| -e.0)
}

fn bit(words: &[u64; TSG_WORDS], t: usize) -> bool {
    words.get(t / 64).is_some_and(|w| w & (1 << (t % 64)) != 0)
}

fn set_bit(words: &mut [u64; TSG_WORDS], t: usize, on: bool) {
    if let Some(w) = words.get_mut(t / 64) {
        if on {
            *w |= 1 << (t % 64);
        } else {
            *w &= !(1 << (t % 64));
        }
    }
}

/// The core's view of this process while the update lock is held.
struct Env<'a> {
    be: Option<&'a Bound>,
    procs: &'a [Proc],
    stats: &'a mut HostStats,
}

impl Gcaps {
    /// The core, its host, and the exit marks.
    fn parts(&mut self) -> (&mut Core, Env<'_>, &Exits) {
        (
            &mut self.core,
            Env {
                be: self.be.as_ref(),
                procs: &self.procs,
                stats: &mut self.stats,
            },
            &self.exits,
        )
    }

    /// Whether exits or TSG events wait to be applied (device.rs's `events_pending`).
    fn pending(&self) -> bool {
        self.exits.any() || lock(&EVENTS).pending()
    }

    /// The update path of a begin/end/close (device.rs's `update`): a real-time caller first
    /// applies pending exits and TSG events; a best-effort one never does (U5).
    fn update<R>(&mut self, rt: bool, f: impl FnOnce(&mut Core, &mut Env<'_>) -> R) -> R {
        let pending = rt && self.pending();
        let (core, mut env, exits) = self.parts();
        if pending {
            core.apply_events(&mut env, exits);
        }
        f(core, &mut env)
    }

    fn file(&self, client: i64) -> Result<&File, Errno> {
        let id = u64::try_from(client).map_err(|_| EBADF)?;
        self.files.iter().find(|f| f.r.id == id).ok_or(EBADF)
    }

    /// Forgets the bound driver (the glue's `gcaps_glue_be_forget` and the device's
    /// `backend_gone`). Returns whether one was bound.
    fn forget(&mut self) -> bool {
        if self.be.take().is_none() {
            return false;
        }
        BOUND.store(false, Ordering::Release);
        lock(&EVENTS).clear();
        STOCK.store(false, Ordering::Release);
        let (core, mut env, _) = self.parts();
        core.backend_gone(&mut env);
        true
    }
}

impl Host for Env<'_> {
    fn now_ns(&self) -> u64 {
        NOW.load(Ordering::Relaxed)
    }

    fn record(&mut self, _ev: &TraceEvent) {
        self.stats.trace_events = self.stats.trace_events.wrapping_add(1);
    }

    fn publish(&mut self, d: &Decision) {
        self.stats.publishes = self.stats.publishes.wrapping_add(1);
        let mut s = lock(&SNAP);
        s.generation = d.generation;
        s.all = d.all;
        let released = s.released;
        for ((o, w), r) in s.words.iter_mut().zip(d.eligible.words()).zip(released) {
            *o = w & !r;
        }
    }

    fn resubmit(&mut self) -> Result<(), Errno> {
        let b = self.be.ok_or(Errno::ENODEV)?;
        // SAFETY: `ops` was checked at registration and the driver keeps it valid while bound
        // (backend contract); we hold the update lock.
        let f = unsafe { (*b.ops).resubmit }.ok_or(Errno::ENODEV)?;
        // SAFETY: The driver's resubmit with its own `drv`, holding the update lock, in
        // "process context" (this thread), as gcaps.ko calls it.
        let rc = unsafe { f(b.drv) };
        if rc == 0 {
            Ok(())
        } else {
            Err(Errno(rc.checked_neg().unwrap_or(Errno::EINVAL.0)))
        }
    }

    fn pid_vnr(&self, pid: PidToken) -> u32 {
        pid.0
            .checked_sub(1)
            .and_then(|i| self.procs.get(i))
            .map_or(0, |p| p.tgid as u32)
    }

    fn pid_group_exited(&self, pid: PidToken) -> bool {
        pid.0
            .checked_sub(1)
            .and_then(|i| self.procs.get(i))
            .is_none_or(|p| p.exited)
    }

    fn take_released(&mut self) -> [u64; TSG_WORDS] {
        std::mem::take(&mut lock(&SNAP).released)
    }

    fn next_tsg_event(&mut self) -> Option<TsgEvent> {
        let mut e = lock(&EVENTS);
        let (w, word) = e.dirty.iter().enumerate().find(|(_, w)| **w != 0)?;
        let t = w * 64 + word.trailing_zeros() as usize;
        set_bit(&mut e.dirty, t, false);
        let s = e.table.get(t).copied()?;
        Some(tsg_event(u32::try_from(t).ok()?, &s))
    }

    fn take_recovered(&mut self) -> bool {
        std::mem::take(&mut lock(&EVENTS).recovered)
    }

    fn warn(&mut self, w: Warning) {
        self.stats.warnings = self.stats.warnings.wrapping_add(1);
        let Warning::ResubmitFailed(e) = w;
        let _ = writeln!(
            std::io::stderr(),
            "gcaps-contract-host: backend resubmit failed (errno {}); further failures are \
             only counted",
            e.0
        );
    }
}

// ------------------------------------------------------------------ the backend contract

/// `ERR_PTR(-e)`: the kernel's encoding of an error in a pointer (the last page of the
/// address space), which `IS_ERR()` and [`gcaps_host_is_err`] recognise.
fn err_ptr(e: Errno) -> *mut gcaps_backend {
    std::ptr::without_provenance_mut((-(e.0 as isize)) as usize)
}

/// The table `gcaps_backend_register` hands out (`gcaps_calls` of the C glue).
static CALLS: gcaps_be_calls = gcaps_be_calls {
    unregister: Some(be_unregister),
    tsg_update: Some(be_tsg_update),
    tsg_release: Some(be_tsg_release),
    recovered: Some(be_recovered),
    eligible: Some(be_eligible),
    stock: Some(be_stock),
};

/// `gcaps_backend_register()` of `module/include/gcaps_backend.h`: binds a driver.
///
/// Returns the handle and sets `*calls` to gcaps's table, or an `ERR_PTR`-style pointer
/// (`gcaps_host_is_err`/`gcaps_host_ptr_err`, or the kernel's `IS_ERR`/`PTR_ERR`): `-EINVAL`
/// for a NULL `ops` or `calls`, an `ops->abi` other than `GCAPS_BACKEND_ABI`, a NULL
/// `resubmit` or `detach`, a NULL `name` (ABI 2: gcaps.ko's checks of `name`, `detail` and
/// `runlists`), checked first and in gcaps.ko's order; `-ENODEV` after
/// `gcaps_host_unload` (gcaps.ko's symbol is gone then); `-EBUSY` if a driver is bound;
/// `-EDEADLK` from inside `ops->resubmit`/`ops->detach`. The driver then reports every
/// existing TSG with `calls->tsg_update()` (applied by the next work run or real-time update).
///
/// # Safety
///
/// `ops`, if not NULL, points to a `struct gcaps_backend_ops` that stays valid (with its
/// strings, NULL or NUL-terminated) until the driver unregisters or is detached, and whose
/// functions accept `drv`;
/// `calls`, if not NULL, is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn gcaps_backend_register(
    ops: *const gcaps_backend_ops,
    drv: *mut c_void,
    calls: *mut *const gcaps_be_calls,
) -> *mut gcaps_backend {
    entry(err_ptr(EIO), || {
        // SAFETY: The caller's guarantees (function contract).
        match unsafe { register(ops, drv, calls) } {
            Ok(()) => handle(),
            Err(e) => err_ptr(e),
        }
    })
}

/// [`gcaps_backend_register`]'s body.
///
/// # Safety
///
/// As [`gcaps_backend_register`].
unsafe fn register(
    ops: *const gcaps_backend_ops,
    drv: *mut c_void,
    calls: *mut *const gcaps_be_calls,
) -> Result<(), Errno> {
    if ops.is_null() || calls.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: Not NULL, and valid by the caller's guarantee.
    let o = unsafe { &*ops };
    // gcaps.ko's order: the ABI before any field a later ABI added.
    if o.abi != GCAPS_BACKEND_ABI || o.resubmit.is_none() || o.detach.is_none() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: `ops` is valid, so are its strings (caller's guarantee).
    if !unsafe { ops_strings_ok(o) } {
        return Err(Errno::EINVAL);
    }
    let mut g = live()?;
    if g.be.is_some() {
        return Err(Errno::EBUSY);
    }
    lock(&EVENTS).clear();
    g.be = Some(Bound { ops, drv });
    g.stats.registrations = g.stats.registrations.wrapping_add(1);
    STOCK.store(false, Ordering::Release);
    BOUND.store(true, Ordering::Release);
    g.core.backend_bound();
    drop(g);
    // SAFETY: `calls` is valid for a write (caller's guarantee).
    unsafe { calls.write(&CALLS) };
    Ok(())
}

/// ABI 1: `name` is not NULL.
///
/// # Safety
///
/// None (nothing is dereferenced); `unsafe` for the ABI 2 variant's signature.
#[cfg(not(gcaps_be_ops_detail))]
unsafe fn ops_strings_ok(o: &gcaps_backend_ops) -> bool {
    !o.name.is_null()
}

/// ABI 2 (gcaps.ko's `gcaps_be_check_ops`): `name` 1..31 and `detail` 0..63 printable ASCII
/// characters (`GCAPS_BE_NAME_MAX`, `GCAPS_BE_DETAIL_MAX` with the NUL), `runlists` not 0.
///
/// # Safety
///
/// `o.name` and `o.detail` are NULL or NUL-terminated strings.
#[cfg(gcaps_be_ops_detail)]
unsafe fn ops_strings_ok(o: &gcaps_backend_ops) -> bool {
    // SAFETY: The strings are valid (function contract).
    let strings = unsafe {
        string_ok(o.name, backend::GCAPS_BE_NAME_MAX as usize, true)
            && string_ok(o.detail, backend::GCAPS_BE_DETAIL_MAX as usize, false)
    };
    strings && o.runlists != 0
}

/// A string of 1 (0 if not `nonempty`) .. `max - 1` printable ASCII characters (the glue's
/// `gcaps_be_string_ok`).
///
/// # Safety
///
/// `s` is NULL or a NUL-terminated string (at most `max` bytes are read).
#[cfg(gcaps_be_ops_detail)]
unsafe fn string_ok(s: *const std::ffi::c_char, max: usize, nonempty: bool) -> bool {
    if s.is_null() {
        return false;
    }
    let mut n = 0;
    while n < max {
        // SAFETY: Byte `n` is within the string or its NUL: every byte before it was not NUL,
        // and `n < max` bounds the read like `strnlen`.
        let c = unsafe { *s.add(n) } as u8;
        if c == 0 {
            return n > 0 || !nonempty;
        }
        if !(0x20..=0x7e).contains(&c) {
            return false;
        }
        n += 1;
    }
    false
}

/// Whether `be` is the handle of a bound driver (else counts a violation).
fn check_be(be: *mut gcaps_backend, what: &str) -> bool {
    if be != handle() {
        violation(&format!("{what}() with a handle gcaps did not hand out"));
        return false;
    }
    if !BOUND.load(Ordering::Acquire) {
        violation(&format!("{what}() while no driver is bound"));
        return false;
    }
    true
}

/// The core's event of TSG `t` from its table slot (`gcaps_glue_ev_next` of the C glue). Fields
/// are named, never positional: with the contract's ABI 2 (`struct gcaps_be_tsg` with
/// `flags`, and the core's `TsgEvent` with it) `build.rs` sets `gcaps_be_tsg_flags` and the
/// flags of a present TSG pass through.
fn tsg_event(t: u32, s: &Slot) -> TsgEvent {
    #[allow(unused_mut)]
    let mut ev = TsgEvent {
        start: s.tsg.owner_start,
        tsgid: t,
        tgid: s.tsg.tgid,
        timeslice_us: s.tsg.timeslice_us,
        num_channels: s.tsg.num_channels,
        present: u32::from(s.present),
        ..Default::default()
    };
    #[cfg(gcaps_be_tsg_flags)]
    if s.present {
        ev.flags = s.tsg.flags;
    }
    ev
}

/// Records the latest state of TSG `tsgid` (`gcaps_ev_put` of the C glue).
fn ev_put(tsgid: u32, tsg: Option<&gcaps_be_tsg>, present: bool) -> bool {
    let t = tsgid as usize;
    if t >= MAX_TSGS {
        violation(&format!("TSG id {tsgid} >= GCAPS_BE_MAX_TSGS"));
        return false;
    }
    let mut e = lock(&EVENTS);
    if let Some(slot) = e.table.get_mut(t) {
        if let Some(s) = tsg {
            slot.tsg = *s;
        }
        slot.tsg.tsgid = tsgid;
        slot.present = present;
    }
    set_bit(&mut e.dirty, t, true);
    true
}

/// `calls->tsg_update`.
///
/// # Safety
///
/// `tsg`, if not NULL, points to a valid `struct gcaps_be_tsg` for the call's duration.
unsafe extern "C" fn be_tsg_update(be: *mut gcaps_backend, tsg: *const gcaps_be_tsg) {
    entry((), || {
        if !check_be(be, "tsg_update") {
            return;
        }
        if tsg.is_null() {
            violation("tsg_update() with a NULL TSG");
            return;
        }
        // SAFETY: Not NULL, valid for the call (function contract).
        let t = unsafe { &*tsg };
        ev_put(t.tsgid, Some(t), true);
    });
}

/// `calls->tsg_release`: the event, then the id off the published set at once (the glue's
/// `gcaps_snap_forget_tsg`: it stays off every publish until the core takes the release).
///
/// # Safety
///
/// None beyond the contract (no pointer is dereferenced); `unsafe` for the table's type.
unsafe extern "C" fn be_tsg_release(be: *mut gcaps_backend, tsgid: u32) {
    entry((), || {
        if !check_be(be, "tsg_release") || !ev_put(tsgid, None, false) {
            return;
        }
        let mut s = lock(&SNAP);
        let t = tsgid as usize;
        set_bit(&mut s.released, t, true);
        if !s.all {
            set_bit(&mut s.words, t, false);
        }
    });
}

/// `calls->recovered`.
///
/// # Safety
///
/// None (no pointer is dereferenced); `unsafe` for the table's type.
unsafe extern "C" fn be_recovered(be: *mut gcaps_backend) {
    entry((), || {
        if check_be(be, "recovered") {
            lock(&EVENTS).recovered = true;
        }
    });
}

/// `calls->stock`: records whether the driver's runlists are stock (gcaps.ko only reports it,
/// in `GCAPS_IOC_VERSION`'s `backend_flags`; here [`gcaps_host_backend_stock`]).
///
/// # Safety
///
/// None (no pointer is dereferenced); `unsafe` for the table's type.
unsafe extern "C" fn be_stock(be: *mut gcaps_backend, on: bool) {
    entry((), || {
        if check_be(be, "stock") {
            STOCK.store(on, Ordering::Release);
        }
    });
}

/// `calls->eligible`: copies the published snapshot.
///
/// # Safety
///
/// `out`, if not NULL, is valid for a write of a `struct gcaps_be_eligible`.
unsafe extern "C" fn be_eligible(be: *mut gcaps_backend, out: *mut gcaps_be_eligible) {
    entry((), || {
        // gcaps.ko copies whatever it is called with; the check only counts misuse.
        check_be(be, "eligible");
        if out.is_null() {
            violation("eligible() with a NULL result");
            return;
        }
        let s = lock(&SNAP);
        let mut e = gcaps_be_eligible {
            generation: s.generation,
            all: s.all,
            ..Default::default()
        };
        for (o, w) in e.bits.iter_mut().zip(s.words) {
            *o = w;
        }
        drop(s);
        // SAFETY: Not NULL, valid for a write (function contract).
        unsafe { out.write(e) };
    });
}

/// `calls->unregister`: unbinds the driver (nothing if it is not bound).
///
/// # Safety
///
/// None (no pointer is dereferenced); `unsafe` for the table's type.
unsafe extern "C" fn be_unregister(be: *mut gcaps_backend) {
    entry((), || {
        if be != handle() {
            violation("unregister() with a handle gcaps did not hand out");
            return;
        }
        if DETACHING.with(Cell::get) {
            // gcaps.ko is unloading: its unregister returns at once (try_module_get fails)
            // and the detach in progress unbinds.
            return;
        }
        let Ok(mut g) = update_lock() else {
            violation(
                "unregister() under gcaps's update lock (from ops->resubmit/detach): gcaps.ko \
                 would deadlock",
            );
            return;
        };
        if g.forget() {
            g.stats.unregistrations = g.stats.unregistrations.wrapping_add(1);
        }
    });
}

// Both declarations of gcaps_backend_register (bindgen's from the header and the definition
// above) have the same type: this does not compile otherwise.
#[allow(dead_code)]
fn register_signature_is_the_headers() {
    fn same<T>(_: T, _: T) {}
    same(
        backend::gcaps_backend_register as unsafe extern "C" fn(_, _, _) -> _,
        gcaps_backend_register as unsafe extern "C" fn(_, _, _) -> _,
    );
}

// ------------------------------------------------------------------ the test's C API

/// `gcaps_host_is_err`: whether `ptr` encodes an error (`ERR_PTR(-errno)`, errno 1..4095),
/// like the kernel's `IS_ERR`.
#[no_mangle]
pub extern "C" fn gcaps_host_is_err(ptr: *const c_void) -> bool {
    (ptr as usize) >= (-4095isize) as usize
}

/// `gcaps_host_ptr_err`: the `-errno` an error pointer encodes, 0 for a valid pointer.
#[no_mangle]
pub extern "C" fn gcaps_host_ptr_err(ptr: *const c_void) -> c_long {
    if gcaps_host_is_err(ptr) {
        ptr as isize as c_long
    } else {
        0
    }
}

/// `gcaps_host_unload`: gcaps.ko's module exit: with a driver bound, calls `ops->detach(drv)`
/// holding the update lock, then forgets it (publishing the decision without its TSGs); every
/// client is closed (its segment ended), later calls fail with `-ENODEV` and `gcaps_backend_register` with
/// `ERR_PTR(-ENODEV)` until `gcaps_host_load`. The counters stay readable. Returns 1 if a
/// driver was detached, 0 if none was bound or gcaps was not loaded, `-EDEADLK` from inside
/// `ops->resubmit`/`ops->detach`.
#[no_mangle]
pub extern "C" fn gcaps_host_unload() -> c_int {
    entry(-EIO.0, || ret(unload()))
}

fn unload() -> Result<c_int, Errno> {
    let mut g = update_lock()?;
    if !g.loaded {
        return Ok(0);
    }
    let mut detached = 0;
    if let Some((ops, drv)) = g.be.as_ref().map(|b| (b.ops, b.drv)) {
        // SAFETY: The bound driver's ops are valid until it is detached (contract).
        if let Some(detach) = unsafe { (*ops).detach } {
            DETACHING.with(|c| c.set(true));
            // SAFETY: The driver's detach with its `drv`, under the update lock, as gcaps.ko.
            unsafe { detach(drv) };
            DETACHING.with(|c| c.set(false));
        }
        g.stats.detaches = g.stats.detaches.wrapping_add(1);
        g.forget();
        detached = 1;
    }
    // gcaps.ko cannot unload with files open; here their clients go with it (segments ended,
    // nothing to resubmit: the driver is gone).
    let files = std::mem::take(&mut g.files);
    let (core, mut env, _) = g.parts();
    for f in files {
        core.release(&mut env, f.r);
    }
    g.loaded = false;
    Ok(detached)
}

/// `gcaps_host_load`: gcaps.ko loaded afresh (no clients, no TSGs, every TSG eligible,
/// generation 0, counters zero; the clock keeps running). `-EEXIST` if loaded (gcaps starts
/// loaded), `-EDEADLK` from inside a driver callback.
#[no_mangle]
pub extern "C" fn gcaps_host_load() -> c_int {
    entry(-EIO.0, || ret(load()))
}

fn load() -> Result<c_int, Errno> {
    let mut g = update_lock()?;
    if g.loaded {
        return Err(EEXIST);
    }
    g.core = Core::new();
    g.exits = Exits::new();
    g.files.clear();
    g.procs.clear();
    g.stats = HostStats::ZERO;
    *lock(&SNAP) = Snap::INITIAL;
    lock(&EVENTS).clear();
    VIOLATIONS.store(0, Ordering::Relaxed);
    g.loaded = true;
    Ok(0)
}

/// `gcaps_host_client_open`: process `(tgid, owner_start)` opens `/dev/gcaps` (a new client).
/// `realtime`: the process is SCHED_FIFO at `cpu_prio` (1..99) for all its calls; otherwise
/// SCHED_OTHER and `cpu_prio` must be 0. Returns the client handle (> 0), or `-EINVAL` (bad
/// arguments), `-ESRCH` (that identity has exited), `-ENOSPC` (128 clients), `-ENODEV`,
/// `-EDEADLK`.
#[no_mangle]
pub extern "C" fn gcaps_host_client_open(
    tgid: i32,
    owner_start: u64,
    realtime: bool,
    cpu_prio: i32,
) -> i64 {
    entry(-i64::from(EIO.0), || {
        open(tgid, owner_start, realtime, cpu_prio).unwrap_or_else(|e| -i64::from(e.0))
    })
}

fn open(tgid: i32, start: u64, realtime: bool, cpu_prio: i32) -> Result<i64, Errno> {
    if tgid <= 0 {
        return Err(Errno::EINVAL);
    }
    let sched = if realtime {
        if !(1..=99).contains(&cpu_prio) {
            return Err(Errno::EINVAL);
        }
        Sched {
            policy: SCHED_FIFO,
            rt_priority: cpu_prio,
        }
    } else {
        if cpu_prio != 0 {
            return Err(Errno::EINVAL);
        }
        Sched::default()
    };
    let mut g = live()?;
    let proc_ = match g
        .procs
        .iter()
        .position(|p| p.tgid == tgid && p.start == start)
    {
        Some(i) if g.procs.get(i).is_some_and(|p| p.exited) => return Err(ESRCH),
        Some(i) => i,
        None => {
            g.procs.push(Proc {
                tgid,
                start,
                exited: false,
            });
            g.procs.len() - 1
        }
    };
    let opener = Opener {
        tgid: tgid as u32,
        start,
        uid: 0,
        sched,
        comm: *b"gcaps-host\0\0\0\0\0\0",
        pid: PidToken(proc_ + 1),
    };
    let (core, mut env, _) = g.parts();
    let r = core.open(&mut env, &opener, u32::MAX)?;
    g.files.push(File { r, sched, proc_ });
    i64::try_from(r.id).map_err(|_| Errno::ENOSPC)
}

/// `gcaps_host_begin`: `GCAPS_IOC_SEG_BEGIN` on the client's file with `gpu_prio` (0: the
/// CPU priority; 1..99 explicit, real-time clients only). A real-time client first applies
/// pending TSG events and exits (as gcaps.ko's update path); a resubmit follows if the
/// decision changed. Returns `GCAPS_HOST_RUNNING` or `GCAPS_HOST_PENDING`, or `-EINVAL`
/// (priority out of range), `-EPERM` (explicit priority from a best-effort client; or the
/// owner exited), `-EALREADY` (a segment is open), `-EBADF`, `-ENODEV`, `-EDEADLK`. A failed
/// resubmit does not fail the begin (it is counted).
#[no_mangle]
pub extern "C" fn gcaps_host_begin(client: i64, gpu_prio: i32) -> c_int {
    entry(-EIO.0, || ret(begin(client, gpu_prio)))
}

fn begin(client: i64, gpu_prio: i32) -> Result<c_int, Errno> {
    let a = uapi::SegBegin {
        size: std::mem::size_of::<uapi::SegBegin>() as u32,
        gpu_priority: gpu_prio,
        ..Default::default()
    };
    ioctl::check_seg_begin(&a)?;
    let mut g = live()?;
    let f = g.file(client)?;
    let (r, sched) = (f.r, f.sched);
    // The test's processes may raise their GPU priority (CAP_SYS_NICE).
    let req = ioctl::begin_request(&a, sched, |_| true).map_err(|_| Errno::EPERM)?;
    let rt = req.class.is_rt();
    let call = Call {
        entry_ns: NOW.load(Ordering::Relaxed),
        rt,
    };
    let (state, _) = g.update(rt, |c, env| c.seg_begin(env, r, req, call))?;
    Ok(state as c_int)
}

/// `gcaps_host_end`: `GCAPS_IOC_SEG_END`. 0, or `-ENOENT` (no open segment), `-EPERM` (the
/// owner exited), `-EBADF`, `-ENODEV`, `-EDEADLK`.
#[no_mangle]
pub extern "C" fn gcaps_host_end(client: i64) -> c_int {
    entry(-EIO.0, || ret(end(client)))
}

fn end(client: i64) -> Result<c_int, Errno> {
    let mut g = live()?;
    let f = g.file(client)?;
    let (r, rt) = (f.r, f.sched.classify().is_rt());
    let call = Call {
        entry_ns: NOW.load(Ordering::Relaxed),
        rt,
    };
    g.update(rt, |c, env| c.seg_end(env, r, call))?;
    Ok(0)
}

/// `gcaps_host_client_close`: the file's last reference is gone (ends an open segment,
/// removes the client; a real-time client first applies pending events). The handle is
/// invalid afterwards. 0, or `-EBADF`, `-ENODEV`, `-EDEADLK`.
#[no_mangle]
pub extern "C" fn gcaps_host_client_close(client: i64) -> c_int {
    entry(-EIO.0, || ret(close(client)))
}

fn close(client: i64) -> Result<c_int, Errno> {
    let mut g = live()?;
    let id = u64::try_from(client).map_err(|_| EBADF)?;
    let i = g.files.iter().position(|f| f.r.id == id).ok_or(EBADF)?;
    let f = g.files.remove(i);
    let rt = f.sched.classify().is_rt();
    g.update(rt, |c, env| c.release(env, f.r));
    Ok(0)
}

/// `gcaps_host_owner_exit`: process `(tgid, owner_start)` exited: its clients are marked
/// (gcaps.ko's pid wake) and removed by the next work run or real-time update, which ends
/// their segments; their handles stay valid until closed but every call on them is `-EPERM`.
/// Returns the number of clients marked (>= 0), or `-ESRCH` (no live process with that
/// identity), `-ENODEV`, `-EDEADLK`.
#[no_mangle]
pub extern "C" fn gcaps_host_owner_exit(tgid: i32, owner_start: u64) -> c_int {
    entry(-EIO.0, || ret(owner_exit(tgid, owner_start)))
}

fn owner_exit(tgid: i32, start: u64) -> Result<c_int, Errno> {
    let mut g = live()?;
    let i = g
        .procs
        .iter()
        .position(|p| p.tgid == tgid && p.start == start && !p.exited)
        .ok_or(ESRCH)?;
    if let Some(p) = g.procs.get_mut(i) {
        p.exited = true;
    }
    let mut n = 0;
    for f in g.files.iter().filter(|f| f.proc_ == i) {
        g.exits.mark(f.r.slot);
        n += 1;
    }
    Ok(n)
}

/// `gcaps_host_run_work`: gcaps.ko's work item: under the update lock, applies owner exits,
/// released TSG ids, every pending TSG event and a reported recovery, then publishes and
/// resubmits if the decision changed (always after a recovery). 0, or `-EAGAIN` from inside
/// `ops->resubmit`/`ops->detach` (gcaps.ko's work item would retry later), `-ENODEV`.
#[no_mangle]
pub extern "C" fn gcaps_host_run_work() -> c_int {
    entry(-EIO.0, || ret(run_work()))
}

fn run_work() -> Result<c_int, Errno> {
    let mut g = live().map_err(|e| if e == EDEADLK { EAGAIN } else { e })?;
    let (core, mut env, exits) = g.parts();
    core.apply_events(&mut env, exits);
    Ok(0)
}

/// `gcaps_host_work_pending`: 1 if TSG events, a recovery or owner exits wait for the work
/// item, 0 if not, `-ENODEV`, `-EDEADLK`.
#[no_mangle]
pub extern "C" fn gcaps_host_work_pending() -> c_int {
    entry(-EIO.0, || ret(live().map(|g| c_int::from(g.pending()))))
}

/// `gcaps_host_client_state`: the client's `GCAPS_HOST_IDLE`, `_RUNNING` or `_PENDING`, or
/// `-EPERM` (its owner exited), `-EBADF`, `-ENODEV`, `-EDEADLK`.
#[no_mangle]
pub extern "C" fn gcaps_host_client_state(client: i64) -> c_int {
    entry(-EIO.0, || ret(client_state(client)))
}

fn client_state(client: i64) -> Result<c_int, Errno> {
    let mut g = live()?;
    let r = g.file(client)?.r;
    let mut st = uapi::Status::default();
    let (core, env, _) = g.parts();
    core.status(&env, r, &mut st)?;
    Ok(st.self_.state as c_int)
}

/// `gcaps_host_set_time_ns`: sets the test clock (gcaps's `CLOCK_MONOTONIC`, ns).
#[no_mangle]
pub extern "C" fn gcaps_host_set_time_ns(ns: u64) {
    NOW.store(ns, Ordering::Relaxed);
}

/// `gcaps_host_time_ns`: the test clock.
#[no_mangle]
pub extern "C" fn gcaps_host_time_ns() -> u64 {
    NOW.load(Ordering::Relaxed)
}

/// `gcaps_host_counters`: fills `*out`. 0, or `-EINVAL` (NULL), `-EDEADLK` (from inside a
/// driver callback: the counters are the update lock's). Works after `gcaps_host_unload`.
///
/// # Safety
///
/// `out`, if not NULL, is valid for a write of a `struct gcaps_host_counters`.
#[no_mangle]
pub unsafe extern "C" fn gcaps_host_counters(out: *mut Counters) -> c_int {
    entry(-EIO.0, || {
        if out.is_null() {
            return -Errno::EINVAL.0;
        }
        match counters() {
            Ok(c) => {
                // SAFETY: Not NULL, valid for a write (function contract).
                unsafe { out.write(c) };
                0
            }
            Err(e) => -e.0,
        }
    })
}

/// The counters (for Rust callers).
pub fn counters() -> Result<Counters, Errno> {
    let mut g = update_lock()?;
    let mut s = uapi::Stats::default();
    g.core.stats(&mut s, None);
    let c = *g.core.counters();
    Ok(Counters {
        resubmits: c.submits,
        resubmit_errors: c.submit_errors,
        resubmit_timeouts: c.submit_timeouts,
        recoveries: c.recoveries,
        events: c.events,
        begins: c.begins,
        ends: c.ends,
        ends_by_close: c.ends_by_close,
        preemptions: c.preemptions,
        resumes: c.resumes,
        publishes: g.stats.publishes,
        generation: g.core.generation(),
        detaches: g.stats.detaches,
        registrations: g.stats.registrations,
        unregistrations: g.stats.unregistrations,
        violations: VIOLATIONS.load(Ordering::Relaxed),
        warnings: g.stats.warnings,
        trace_events: g.stats.trace_events,
        bound: u32::from(g.be.is_some()),
        loaded: u32::from(g.loaded),
        clients: s.clients_now,
        tsgs: s.tsgs_now,
    })
}

/// `gcaps_host_decision`: the policy's current decision (what gcaps.ko last published, before
/// released ids are taken off). 0, or `-EINVAL` (NULL), `-EDEADLK`.
///
/// # Safety
///
/// `out`, if not NULL, is valid for a write of a `struct gcaps_host_decision`.
#[no_mangle]
pub unsafe extern "C" fn gcaps_host_decision(out: *mut DecisionOut) -> c_int {
    entry(-EIO.0, || {
        if out.is_null() {
            return -Errno::EINVAL.0;
        }
        let d = match update_lock() {
            Ok(g) => g.core.policy().decision(),
            Err(e) => return -e.0,
        };
        let v = DecisionOut {
            generation: d.generation,
            all: u32::from(d.all),
            pad: 0,
            bits: *d.eligible.words(),
        };
        // SAFETY: Not NULL, valid for a write (function contract).
        unsafe { out.write(v) };
        0
    })
}

/// `gcaps_host_backend_stock`: 1 if a driver is bound and its last `calls->stock()` said its
/// runlists are stock (what `GCAPS_IOC_VERSION` reports as `GCAPS_BACKEND_STOCK`), else 0.
/// Takes no update lock: works from inside `ops->resubmit`.
#[no_mangle]
pub extern "C" fn gcaps_host_backend_stock() -> c_int {
    entry(-EIO.0, || {
        c_int::from(BOUND.load(Ordering::Acquire) && STOCK.load(Ordering::Acquire))
    })
}

/// `gcaps_host_published`: the snapshot the driver's `calls->eligible()` copies (released ids
/// already off). Takes no update lock: works from inside `ops->resubmit`. 0, or `-EINVAL`.
///
/// # Safety
///
/// `out`, if not NULL, is valid for a write of a `struct gcaps_host_decision`.
#[no_mangle]
pub unsafe extern "C" fn gcaps_host_published(out: *mut DecisionOut) -> c_int {
    entry(-EIO.0, || {
        if out.is_null() {
            return -Errno::EINVAL.0;
        }
        let s = lock(&SNAP);
        let v = DecisionOut {
            generation: s.generation,
            all: u32::from(s.all),
            pad: 0,
            bits: s.words,
        };
        drop(s);
        // SAFETY: Not NULL, valid for a write (function contract).
        unsafe { out.write(v) };
        0
    })
}

impl DecisionOut {
    /// Whether TSG `t` is eligible (`all`, or its bit).
    pub fn eligible(&self, t: u32) -> bool {
        self.all != 0 || bit(&self.bits, t as usize)
    }

    /// The eligible ids when `all` is 0, in increasing order.
    pub fn ids(&self) -> Vec<u32> {
        (0..MAX_TSGS as u32)
            .filter(|t| bit(&self.bits, *t as usize))
            .collect()
    }
}

/// The published snapshot (for Rust callers).
pub fn published() -> DecisionOut {
    let mut d = DecisionOut::default();
    // SAFETY: `d` is valid for a write.
    unsafe { gcaps_host_published(&mut d) };
    d
}

/// The policy's decision (for Rust callers).
pub fn decision() -> Result<DecisionOut, Errno> {
    let mut d = DecisionOut::default();
    // SAFETY: `d` is valid for a write.
    let rc = unsafe { gcaps_host_decision(&mut d) };
    if rc < 0 {
        Err(Errno(-rc))
    } else {
        Ok(d)
    }
}
