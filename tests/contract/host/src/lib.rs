// SPDX-License-Identifier: GPL-2.0

//! # gcaps-contract-host: gcaps's side of the backend contract, in a user process
//!
//! A GPU driver's tests (nvgpu's host POSIX unit build, `tests/nvgpu/`) link this crate's
//! static library in place of `gcaps.ko`. gcaps's half of the backend contract is gcaps.ko's
//! own C, `module/gcaps/backend.c`, compiled here (`build.rs`) against a user-space shim of
//! the few primitives it uses (`shim/`: a pthread mutex for the raw spinlock, a counter for
//! the seqcount, the work item run by the test): it defines `gcaps_backend_register`, the
//! calls table it hands out, the published snapshot with its released ids and the per-TSG
//! event table. Every decision is made by gcaps's real core ([`gcaps_core::Core`], and through
//! it the policy crate). This crate is only the rest of gcaps.ko around them, standing in for
//! `module/gcaps/device.rs`: it drives the core as the device does, through backend.c's
//! functions (`gcaps_glue_publish`, `gcaps_glue_take_released`, `gcaps_glue_ev_next`,
//! `gcaps_glue_ev_take_recovered`, `gcaps_glue_be_*`), and implements what backend.c calls
//! back (`gcaps_rust_bind`, `gcaps_rust_unbind`, `gcaps_rust_work`); processes are explicit
//! `(tgid, start)` values the test gives, and time is a test clock.
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
//! driver's `ops->resubmit`/`ops->detach` run (backend.c asserts it, the shim aborts without
//! it); the event table and the snapshot have backend.c's own locks, never held across a call
//! into the driver, so the driver's `eligible()`, `tsg_update()`, `tsg_release()` and
//! `recovered()` work from inside `ops->resubmit` (they are recorded, and applied by the next
//! work run or real-time update, never re-entrantly). A call that needs the update lock made
//! from inside `ops->resubmit`/`ops->detach` on the same thread (which would deadlock
//! `gcaps.ko`) fails with `-EDEADLK` (`gcaps_host_*`, and `gcaps_backend_register` as
//! `ERR_PTR(-EDEADLK)`), `gcaps_host_run_work` with `-EAGAIN` (`gcaps.ko`'s work item retries
//! later), and `calls->unregister` is ignored and counted as a contract violation (except
//! during `ops->detach`, where gcaps is unloading and backend.c's unregister returns at once).
//! All state is process-global, like the module's.
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
use std::ffi::{c_char, c_int, c_long, c_void, CStr};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use gcaps_core::ioctl::{self, Sched, SCHED_FIFO};
use gcaps_core::stats::Applied;
use gcaps_core::uapi::{self, TraceEvent};
use gcaps_core::{
    Call, ClientRef, Core, Decision, Errno, Exits, Host, Mechanism, Opener, PidToken, TsgEvent,
    Warning, MAX_TSGS, TSG_WORDS,
};

/// A module of bindgen's output `$file` (in `OUT_DIR`), with the lints generated code does not
/// follow allowed, once for every such module.
macro_rules! bindgen_module {
    ($(#[$doc:meta])* $name:ident = $file:literal $(; $use:item)*) => {
        $(#[$doc])*
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
        pub mod $name {
            $($use)*
            include!(concat!(env!("OUT_DIR"), "/", $file));
        }
    };
}

bindgen_module! {
    /// The backend contract as bindgen reads it from `module/include/gcaps_backend.h` (through
    /// `include/gcaps_backend_user.h`), with bindgen's layout tests.
    backend = "backend.rs"
}

bindgen_module! {
    /// gcaps.ko's C interface as bindgen reads it from `module/gcaps/gcaps_glue.h` and
    /// `module/gcaps/backend.h` (through `shim/glue_user.h`): the functions of backend.c this
    /// host calls, the callbacks it implements (`gcaps_rust_*`, checked against these
    /// declarations below) and the shim's.
    glue = "glue.rs";
    use super::backend::gcaps_be_eligible;
}

use backend::{gcaps_be_eligible, GCAPS_BE_MAX_TSGS};

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
    /// Applications the core asked of the driver (`ops->resubmit` or `ops->gate` calls).
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
    /// `ops->gate` calls that returned `GCAPS_BE_GATE_PREEMPTED`.
    pub gate_preempts: u64,
    /// `ops->gate` calls that returned `GCAPS_BE_GATE_HANDOVER`.
    pub gate_handovers: u64,
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

/// Counters of this host (the core keeps the rest).
#[derive(Clone, Copy, Default)]
struct HostStats {
    publishes: u64,
    detaches: u64,
    registrations: u64,
    unregistrations: u64,
    warnings: u64,
    trace_events: u64,
    gate_preempts: u64,
    gate_handovers: u64,
}

impl HostStats {
    const ZERO: Self = Self {
        publishes: 0,
        detaches: 0,
        registrations: 0,
        unregistrations: 0,
        warnings: 0,
        trace_events: 0,
        gate_preempts: 0,
        gate_handovers: 0,
    };
}

/// Everything the update lock guards (besides backend.c's binding, which it also guards).
struct Gcaps {
    loaded: bool,
    core: Core,
    exits: Exits,
    files: Vec<File>,
    procs: Vec<Proc>,
    /// A driver is bound (backend.c's `gcaps_glue_be_attach` succeeded, not yet forgotten).
    bound: bool,
    stats: HostStats,
}

static UPDATE: Mutex<Gcaps> = Mutex::new(Gcaps {
    loaded: true,
    core: Core::new(),
    exits: Exits::new(),
    files: Vec::new(),
    procs: Vec::new(),
    bound: false,
    stats: HostStats::ZERO,
});
static VIOLATIONS: AtomicU64 = AtomicU64::new(0);
static BROKEN: AtomicBool = AtomicBool::new(false);
/// The test clock (ns).
static NOW: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread holds the update lock (a call into the driver may be on its stack).
    static IN_UPDATE: Cell<bool> = const { Cell::new(false) };
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock means a caught panic: `BROKEN` stops every later call before it gets
    // here, except the one that is already inside.
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
    let _ = writeln!(std::io::stderr(), "gcaps-contract-host: {what}");
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

/// The core's view of this process while the update lock is held.
struct Env<'a> {
    procs: &'a [Proc],
    stats: &'a mut HostStats,
}

impl Gcaps {
    /// The core, its host, and the exit marks.
    fn parts(&mut self) -> (&mut Core, Env<'_>, &Exits) {
        (
            &mut self.core,
            Env {
                procs: &self.procs,
                stats: &mut self.stats,
            },
            &self.exits,
        )
    }

    /// Whether exits or TSG events wait to be applied (device.rs's `events_pending`).
    fn pending(&self) -> bool {
        // SAFETY: A lock-free hint of backend.c, callable in any context.
        self.exits.any() || unsafe { glue::gcaps_backend_events_pending() }
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

    /// Forgets the bound driver (backend.c's `gcaps_glue_be_forget`, then the core's
    /// `backend_gone`, as device.rs's `gcaps_rust_unbind`). Returns whether one was bound.
    fn forget(&mut self) -> bool {
        // SAFETY: The update lock is held (`self` is behind it).
        if !unsafe { glue::gcaps_glue_be_forget() } {
            return false;
        }
        self.gone();
        true
    }

    /// The driver is unbound: the core forgets its TSGs.
    fn gone(&mut self) {
        self.bound = false;
        let (core, mut env, _) = self.parts();
        core.backend_gone(&mut env);
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
        // SAFETY: The update lock is held; `words` has GCAPS_BE_MAX_TSGS / 64 entries.
        unsafe { glue::gcaps_glue_publish(d.generation, d.all, d.eligible.words().as_ptr()) };
    }

    fn apply(&mut self) -> Result<Applied, Errno> {
        // SAFETY: The update lock is held, in "process context" (this thread), as gcaps.ko
        // calls it; backend.c calls the bound driver's `ops->resubmit(drv)` or `ops->gate(drv)`.
        let a = Applied::from_kind(unsafe { glue::gcaps_glue_be_apply() })?;
        let n = match a {
            Applied::Preempt => &mut self.stats.gate_preempts,
            Applied::Handover => &mut self.stats.gate_handovers,
            Applied::Reload => return Ok(a),
        };
        *n = n.wrapping_add(1);
        Ok(a)
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
        let mut words = [0; TSG_WORDS];
        // SAFETY: The update lock is held; `words` has GCAPS_BE_MAX_TSGS / 64 entries.
        unsafe { glue::gcaps_glue_take_released(words.as_mut_ptr()) };
        words
    }

    fn next_tsg_event(&mut self) -> Option<TsgEvent> {
        let mut ev = glue::gcaps_ev::default();
        // SAFETY: The update lock is held; `ev` is valid for a write.
        if !unsafe { glue::gcaps_glue_ev_next(&mut ev) } {
            return None;
        }
        Some(TsgEvent {
            start: ev.start,
            tsgid: ev.tsgid,
            tgid: ev.tgid,
            timeslice_us: ev.timeslice_us,
            num_channels: ev.num_channels,
            present: ev.present,
            flags: ev.flags,
        })
    }

    fn take_recovered(&mut self) -> bool {
        // SAFETY: The update lock is held.
        unsafe { glue::gcaps_glue_ev_take_recovered() }
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

// ------------------------------------------------------------------ what backend.c calls

/// `gcaps_backend_register`'s bind (device.rs's `gcaps_rust_bind`): attaches the checked
/// driver under the update lock. `-EDEADLK` from inside `ops->resubmit`/`ops->detach`,
/// `-EBUSY` (backend.c) if a driver is bound.
///
/// # Safety
///
/// `ops` is a checked `struct gcaps_backend_ops` the driver keeps valid until it unregisters
/// or is detached (backend contract).
#[no_mangle]
pub unsafe extern "C" fn gcaps_rust_bind(
    _ctx: *mut c_void,
    ops: *const c_void,
    drv: *mut c_void,
) -> c_int {
    entry(-EIO.0, || {
        let mut g = match live() {
            Ok(g) => g,
            Err(e) => return -e.0,
        };
        // SAFETY: The update lock is held; `ops` as the function contract says.
        let rc = unsafe { glue::gcaps_glue_be_attach(ops, drv) };
        if rc != 0 {
            return rc;
        }
        g.bound = true;
        g.stats.registrations = g.stats.registrations.wrapping_add(1);
        g.core.backend_bound();
        0
    })
}

/// `calls->unregister`'s unbind (device.rs's `gcaps_rust_unbind`): forgets the driver under
/// the update lock. From inside `ops->resubmit` (the update lock held by this thread, which
/// would deadlock gcaps.ko) it is ignored and counted as a violation.
///
/// # Safety
///
/// None beyond the C call's (no pointer is dereferenced).
#[no_mangle]
pub unsafe extern "C" fn gcaps_rust_unbind(_ctx: *mut c_void) {
    entry((), || {
        let Ok(mut g) = update_lock() else {
            violation(
                "backend contract violation: unregister() under gcaps's update lock (from \
                 ops->resubmit/detach): gcaps.ko would deadlock",
            );
            return;
        };
        if g.forget() {
            g.stats.unregistrations = g.stats.unregistrations.wrapping_add(1);
        }
    });
}

/// The work item's body (device.rs's `gcaps_rust_work`), run by backend.c's work function
/// when the test runs the work item: applies owner exits, released ids, TSG events and a
/// recovery under the update lock. Always true (the test runs it again, no retry).
///
/// # Safety
///
/// None beyond the C call's (no pointer is dereferenced).
#[no_mangle]
pub unsafe extern "C" fn gcaps_rust_work(_ctx: *mut c_void) -> bool {
    entry(true, || {
        if let Ok(mut g) = live() {
            let (core, mut env, exits) = g.parts();
            core.apply_events(&mut env, exits);
        }
        true
    })
}

/// For backend.c's `gcaps_assert_update_lock_held()` (the shim aborts if false).
#[no_mangle]
pub extern "C" fn gcaps_host_update_held() -> bool {
    IN_UPDATE.with(Cell::get)
}

/// backend.c's `gcaps_be_misuse()`: a driver broke the contract (counted, one line on stderr).
///
/// # Safety
///
/// `msg` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn gcaps_host_violation(msg: *const c_char) {
    entry((), || {
        // SAFETY: NUL-terminated (function contract).
        let m = unsafe { CStr::from_ptr(msg) };
        violation(&m.to_string_lossy());
    });
}

// The definitions above have the types gcaps_glue.h declares (bindgen's declarations): this
// does not compile otherwise.
#[allow(dead_code)]
fn callbacks_match_the_header() {
    fn same<T>(_: T, _: T) {}
    same(
        glue::gcaps_rust_bind as unsafe extern "C" fn(_, _, _) -> _,
        gcaps_rust_bind as unsafe extern "C" fn(_, _, _) -> _,
    );
    same(
        glue::gcaps_rust_unbind as unsafe extern "C" fn(_),
        gcaps_rust_unbind as unsafe extern "C" fn(_),
    );
    same(
        glue::gcaps_rust_work as unsafe extern "C" fn(_) -> _,
        gcaps_rust_work as unsafe extern "C" fn(_) -> _,
    );
}

/// The `ctx` backend.c hands back to the `gcaps_rust_*` callbacks (which use none: the state
/// is this crate's statics); not NULL, which backend.c reads as "gcaps is loaded".
fn ctx() -> *mut c_void {
    (&UPDATE as *const Mutex<Gcaps>).cast_mut().cast()
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
    // Module exit has begun: backend.c's unregister finds no module reference from now on.
    // SAFETY: A flag of the shim.
    unsafe { glue::gcaps_shim_set_unloading(true) };
    let mut detached = 0;
    // SAFETY: The update lock is held; backend.c calls the driver's `ops->detach(drv)`.
    if unsafe { glue::gcaps_glue_be_detach() } {
        g.stats.detaches = g.stats.detaches.wrapping_add(1);
        g.gone();
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
    // SAFETY: The driver is detached: no work item runs afterwards, registering is ENODEV.
    unsafe { glue::gcaps_backend_stop() };
    Ok(detached)
}

/// `gcaps_host_load`: gcaps.ko loaded afresh (no clients, no TSGs, every TSG eligible,
/// generation 0, counters zero; the clock keeps running). `-EEXIST` if loaded (gcaps starts
/// loaded), `-EDEADLK` from inside a driver callback.
#[no_mangle]
pub extern "C" fn gcaps_host_load() -> c_int {
    entry(-EIO.0, || ret(load(Mechanism::Reload)))
}

/// `gcaps_host_load_mechanism`: [`gcaps_host_load`] with the mechanism `mechanism=` selects
/// (`GCAPS_BE_MECH_RELOAD` or `GCAPS_BE_MECH_GATE`); `-EINVAL` for another value.
#[no_mangle]
pub extern "C" fn gcaps_host_load_mechanism(mechanism: u32) -> c_int {
    entry(-EIO.0, || {
        let m = match mechanism {
            backend::GCAPS_BE_MECH_RELOAD => Mechanism::Reload,
            backend::GCAPS_BE_MECH_GATE => Mechanism::Gate,
            _ => return -Errno::EINVAL.0,
        };
        ret(load(m))
    })
}

fn load(mechanism: Mechanism) -> Result<c_int, Errno> {
    let mut g = update_lock()?;
    if g.loaded {
        return Err(EEXIST);
    }
    g.core = Core::new();
    g.core.configure(99, 0, mechanism);
    g.exits = Exits::new();
    g.files.clear();
    g.procs.clear();
    g.stats = HostStats::ZERO;
    // backend.c's state as a fresh module's: nothing is bound (the unload detached or found
    // nothing), so its event table is empty (cleared when the driver was forgotten, and no
    // call is recorded while unbound); the released ids are taken and the snapshot is the
    // initial one (every TSG eligible, generation 0).
    let mut released = [0; TSG_WORDS];
    // SAFETY: The update lock is held; both arrays have GCAPS_BE_MAX_TSGS / 64 entries.
    unsafe {
        glue::gcaps_glue_take_released(released.as_mut_ptr());
        glue::gcaps_glue_publish(0, true, [0; TSG_WORDS].as_ptr());
        glue::gcaps_shim_set_unloading(false);
        glue::gcaps_backend_start(
            ctx(),
            match mechanism {
                Mechanism::Reload => backend::GCAPS_BE_MECH_RELOAD,
                Mechanism::Gate => backend::GCAPS_BE_MECH_GATE,
            },
        );
    }
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
    drop(live().map_err(|e| if e == EDEADLK { EAGAIN } else { e })?);
    // SAFETY: backend.c's work function, as the kernel's workqueue runs it (no lock held).
    unsafe { glue::gcaps_shim_run_work() };
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
        bound: u32::from(g.bound),
        loaded: u32::from(g.loaded),
        clients: s.clients_now,
        tsgs: s.tsgs_now,
        gate_preempts: g.stats.gate_preempts,
        gate_handovers: g.stats.gate_handovers,
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
        let info = || {
            let (mut name, mut detail) = ([0 as c_char; 32], [0 as c_char; 64]);
            let (mut runlists, mut flags) = (0, 0);
            // SAFETY: The update lock is held (by this thread: the caller's or the guard
            // below); the buffers are valid for their lengths.
            let abi = unsafe {
                glue::gcaps_glue_be_info(
                    name.as_mut_ptr(),
                    name.len(),
                    detail.as_mut_ptr(),
                    detail.len(),
                    &mut runlists,
                    &mut flags,
                )
            };
            c_int::from(abi != 0 && flags & glue::GCAPS_BACKEND_STOCK != 0)
        };
        match update_lock() {
            Ok(_g) => info(),
            // This thread holds it (inside `ops->resubmit`).
            Err(_) => info(),
        }
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
        let mut s = gcaps_be_eligible::default();
        // SAFETY: backend.c's seqcount read, any context; `s` is valid for a write.
        unsafe { glue::gcaps_backend_snapshot(&mut s) };
        let mut bits = [0; TSG_WORDS];
        for (o, w) in bits.iter_mut().zip(s.bits) {
            *o = w;
        }
        let v = DecisionOut {
            generation: s.generation,
            all: u32::from(s.all),
            pad: 0,
            bits,
        };
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
