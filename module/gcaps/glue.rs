// SPDX-License-Identifier: GPL-2.0

//! Safe wrappers around the C glue (`gcaps_glue.c`, declared in `gcaps_glue.h`, mirrored
//! here by hand): memory, the kernel log, the update lock, the LIST lock and the trace lock,
//! the update ceiling, the calling task, user copies, the published decision, the TSG event
//! table and the backend binding. Every `unsafe` block of the device that calls into C is
//! here, and the plain-old-data declarations of the core's UAPI structs for the user copies.

use core::cell::UnsafeCell;
use core::ffi::{c_int, c_ulong, c_void};
use core::marker::PhantomData;
use core::mem::size_of;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use super::gcaps_core::boost::SCHED_FIFO;
use super::gcaps_core::ioctl::{self, Sched};
use super::gcaps_core::uapi::{self, IoctlArg};
use super::gcaps_core::{
    ClientRef, Errno, Holder, Params, PidToken, Saved, Set, TaskToken, TsgEvent, MAX_TSGS,
    TSG_WORDS,
};
use super::Result;

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

/// Plain old data: any bytes are a valid value and every byte of a value is initialised.
///
/// # Safety
///
/// Implementors are `repr(C)` structs of integers and byte arrays with explicit padding fields
/// only (the core's size assertions and the C side's `BUILD_BUG_ON`s check there is no
/// implicit padding).
pub(crate) unsafe trait PlainData: Copy {}

macro_rules! plain_data {
    ($($t:ty),*) => {$(
        // SAFETY: `repr(C)` struct of integers and byte arrays with explicit padding only.
        unsafe impl PlainData for $t {}
    )*};
}
plain_data!(
    uapi::Version,
    uapi::SetAlways,
    uapi::SegBegin,
    uapi::SegEnd,
    uapi::ClientInfo,
    uapi::Status,
    uapi::TsgInfo,
    uapi::List,
    uapi::Stats,
    uapi::TraceEvent,
    uapi::TraceEventV1,
    uapi::TraceRead
);

/// The `update_prio` module parameter (not validated).
pub(crate) fn param_update_prio() -> i32 {
    // SAFETY: Reads an `int` module parameter (0444, set before init).
    unsafe { gcaps_glue_update_prio() }
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

/// Publishes `ctx` for the C callbacks and registers `/dev/gcaps`.
///
/// # Safety
///
/// `ctx` must point to the module's `State` and stay valid until [`exit_final`] returned.
pub(crate) unsafe fn init(ctx: *mut c_void) -> Result {
    // SAFETY: The caller guarantees `ctx` outlives the registration.
    check(unsafe { gcaps_glue_init(ctx) })
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

/// The calling task's scheduling policy and `rt_priority`, read from the task.
pub(crate) fn current_sched() -> Sched {
    let (mut policy, mut rt_priority) = (0, 0);
    // SAFETY: Both pointers are valid for writes; the C side reads `current`.
    unsafe { gcaps_glue_current_sched(&mut policy, &mut rt_priority) };
    Sched {
        policy,
        rt_priority,
    }
}

/// Whether the caller has `CAP_SYS_ADMIN` (resetting the statistics, reading the trace).
pub(crate) fn capable_admin() -> bool {
    // SAFETY: No preconditions (reads the current task's credentials).
    unsafe { gcaps_glue_capable_admin() }
}

/// Whether the calling thread is exiting (its exit closes its files; no signal can interrupt
/// its waits then: a fatal one was dequeued before).
pub(crate) fn current_exiting() -> bool {
    // SAFETY: No preconditions (reads the current task's flags).
    unsafe { gcaps_glue_current_exiting() }
}

/// Whether the caller may raise an RT priority to `prio` (`RLIMIT_RTPRIO` or `CAP_SYS_NICE`:
/// the rule of `sched_setscheduler`).
pub(crate) fn may_raise_rt_prio(prio: i32) -> bool {
    // SAFETY: No preconditions; checks `current`.
    unsafe { gcaps_glue_may_raise_rt_prio(prio) }
}

// A `PidToken` here is a counted reference to a thread group's `struct pid`, held by the open
// file (C side) until its release (or, for a file handed over at its release, until the
// [`ClosedFile`] is dropped after its client's removal), stored by the core in the file's
// client, which asks about it only while that client exists: so it is valid whenever it is used.

/// A file handed over at its release (`gcaps_rust_release` returned false): its record still
/// holds the pid reference its client names. Taken under the update lock; dropping it frees
/// the record, so remove the client first.
pub(crate) struct ClosedFile {
    file: NonNull<c_void>,
    client: ClientRef,
}

impl ClosedFile {
    /// The oldest handed-over file, if any (call with the update lock held).
    pub(crate) fn pop() -> Option<Self> {
        let mut client = ClientRef::default();
        // SAFETY: `client` is valid for writes; the list is the C side's, under its spinlock.
        let file = NonNull::new(unsafe { gcaps_glue_closed_pop(&mut client) })?;
        Some(Self { file, client })
    }

    /// Its client (possibly gone already: the owner's exit removes it too).
    pub(crate) fn client(&self) -> ClientRef {
        self.client
    }

    /// Puts it back at the head of the list, for a later drain (call with the update lock
    /// held; its client is still there).
    pub(crate) fn unpop(self) {
        let me = core::mem::ManuallyDrop::new(self);
        // SAFETY: `file` was popped off the list (ours alone) and goes back once; `me` is never
        // dropped, so it is not freed.
        unsafe { gcaps_glue_closed_unpop(me.file.as_ptr()) }
    }
}

impl Drop for ClosedFile {
    fn drop(&mut self) {
        // SAFETY: `file` was popped off the list (so it is ours alone) and is freed once.
        unsafe { gcaps_glue_closed_free(self.file.as_ptr()) }
    }
}

/// The tgid of `pid` in the calling task's pid namespace (0 if not visible there).
pub(crate) fn pid_vnr(pid: PidToken) -> u32 {
    if pid.0 == 0 {
        return 0;
    }
    // SAFETY: The token is a `struct pid *` with a reference held (see above).
    unsafe { gcaps_glue_pid_vnr(pid.0) }
}

/// Whether `pid`'s whole thread group has exited (its leader is gone, or a zombie without
/// other threads). A null token counts as exited.
pub(crate) fn pid_group_exited(pid: PidToken) -> bool {
    if pid.0 == 0 {
        return true;
    }
    // SAFETY: The token is a `struct pid *` with a reference held (see above).
    unsafe { gcaps_glue_pid_group_exited(pid.0) }
}

// Threads. A `TaskToken` here is a `struct task_struct *`; one the core stores (a segment's
// owner, the boosted thread) holds a counted reference taken with `task_self_get` or
// `task_get` until the core's `task_put`, so it is valid whenever it is used. The calling
// thread (`task_self`) is valid while it runs this code.

/// The calling thread (no reference: only to compare with tokens and act on itself).
pub(crate) fn task_self() -> TaskToken {
    // SAFETY: No preconditions (`current`).
    TaskToken(unsafe { gcaps_glue_task_self() })
}

/// A counted reference to the calling thread.
pub(crate) fn task_self_get() -> TaskToken {
    // SAFETY: No preconditions (`get_task_struct(current)`).
    TaskToken(unsafe { gcaps_glue_task_self_get() })
}

/// Another reference to `t` (the caller holds one).
pub(crate) fn task_get(t: TaskToken) {
    if t.is_some() {
        // SAFETY: `t` holds a reference (see above), so the task is alive.
        unsafe { gcaps_glue_task_get(t.0) }
    }
}

/// Drops a reference to `t`.
pub(crate) fn task_put(t: TaskToken) {
    if t.is_some() {
        // SAFETY: `t` holds a reference (see above), which this gives up.
        unsafe { gcaps_glue_task_put(t.0) }
    }
}

/// `t`'s thread id in the initial pid namespace (0 once it is reaped).
pub(crate) fn task_tid(t: TaskToken) -> u32 {
    if !t.is_some() {
        return 0;
    }
    // SAFETY: `t` holds a reference (see above).
    unsafe { gcaps_glue_task_tid(t.0) }
}

/// `t`'s scheduling parameters now.
fn task_params(t: TaskToken) -> Params {
    let (mut policy, mut prio, mut reset_on_fork) = (0, 0, false);
    // SAFETY: `t` is the calling thread or holds a reference (see above); the pointers are
    // valid for writes.
    unsafe { gcaps_glue_task_params(t.0, &mut policy, &mut prio, &mut reset_on_fork) };
    Params {
        policy,
        prio,
        reset_on_fork,
    }
}

/// Applies `set` to `t` (see `gcaps_glue_task_set` for the tail rule).
fn task_set(t: TaskToken, set: Set) -> Result {
    let p = set.params;
    // SAFETY: `t` is the calling thread or holds a reference (see above).
    check(unsafe { gcaps_glue_task_set(t.0, p.policy, p.prio, p.reset_on_fork, set.tail) })
}

/// The sched lock: the C side's static `rt_mutex` that serialises every change gcaps makes to
/// a thread's scheduling parameters (lock order: after the update lock).
pub(crate) enum SchedParams {}

// SAFETY: `SchedParams` is the single static `gcaps_sched_lock`; `unlock` releases it.
unsafe impl CLock for SchedParams {
    type Mode = ();

    unsafe fn unlock(_: ()) {
        // SAFETY: The caller holds the lock (function contract).
        unsafe { gcaps_glue_sched_unlock() };
    }
}

/// The holder record (`boost::Holder`) under the sched lock, with its configuration.
/// Invariant: at most one exists (it owns the single C lock).
pub(crate) struct SchedLock {
    /// Whether boosting is on (fixed at load).
    on: bool,
    /// The record as loaded (nobody boosted): what the ceiling uses with boosting off.
    initial: Holder,
    lock: GlueLock<Holder, SchedParams>,
}

impl SchedLock {
    /// The record for `holder`'s configuration.
    ///
    /// # Safety
    ///
    /// No other `SchedLock` may exist while this one does (the C lock is a single static).
    pub(crate) unsafe fn new(holder: Holder) -> Self {
        Self {
            on: holder.on(),
            initial: holder,
            // SAFETY: The caller guarantees this is the only one.
            lock: unsafe { GlueLock::new(holder) },
        }
    }

    /// Runs `f` on the holder record: under the sched lock with boosting on; with it off on a
    /// copy of the (empty) record, without the lock (the ceiling alone is each thread's own
    /// business, as before the holder boost).
    fn with<R>(&self, f: impl FnOnce(&mut Holder) -> R) -> R {
        if !self.on {
            let mut copy = self.initial;
            return f(&mut copy);
        }
        // SAFETY: No preconditions; sleeps until the lock is ours (never on the fast path,
        // which changes no holder).
        unsafe { gcaps_glue_sched_lock() };
        // SAFETY: Just taken.
        let mut g = unsafe { self.lock.guard(()) };
        f(&mut g)
    }

    /// As [`Self::with`], but a signal ends the wait for the lock (see
    /// [`GlueLock::lock_killable`]); then `f` has not run.
    fn with_killable<R>(&self, f: impl FnOnce(&mut Holder) -> R) -> Result<R> {
        if !self.on {
            return Ok(self.with(f));
        }
        // SAFETY: No preconditions; on an error the lock is not taken.
        check(unsafe { gcaps_glue_sched_lock_killable() })?;
        // SAFETY: Just taken.
        let mut g = unsafe { self.lock.guard(()) };
        Ok(f(&mut g))
    }

    /// `t` becomes the holder of the running segment: boost it (decided and applied under
    /// the lock).
    pub(crate) fn boost(&self, t: TaskToken) {
        self.with(|h| {
            if let Some(set) = h.boost(t, task_params(t)) {
                let _ = task_set(t, set);
            }
        });
    }

    /// `t` stops being the holder: undo its boost. Returns the priority it returns to.
    pub(crate) fn unboost(&self, t: TaskToken) -> Option<i32> {
        self.with(|h| {
            let (set, prio) = h.unboost(t, task_params(t));
            if let Some(set) = set {
                let _ = task_set(t, set);
            }
            prio
        })
    }

    /// Whether `t` is boosted now.
    pub(crate) fn is_boosted(&self, t: TaskToken) -> bool {
        self.with(|h| h.is_boosted(t, task_params(t)))
    }

    /// The calling thread's own policy and priority (`live`, read from the task): what it
    /// runs at without the holder boost. The lock is taken only for a thread that runs at
    /// exactly SCHED_FIFO `boost_prio` (only the boosted thread can be the boost's), so no
    /// other caller pays for it.
    pub(crate) fn own_sched(&self, live: Sched) -> Sched {
        if !self.on || live.policy != SCHED_FIFO || live.rt_priority != self.initial.prio() {
            return live;
        }
        let me = task_self();
        let own = self.with(|h| h.own_of(me, task_params(me)));
        Sched {
            policy: own.policy,
            rt_priority: own.prio,
        }
    }
}

/// The calling thread raised to the update ceiling (U1/U2); dropping it returns the thread to
/// what the holder record says (its own policy and priority, or the boost if it holds the
/// running segment; `boost::Holder`). Not `Send`: it must be dropped by the thread it raised.
pub(crate) struct Ceiling<'a> {
    sched: &'a SchedLock,
    saved: Saved,
    _not_send: PhantomData<*mut ()>,
}

impl<'a> Ceiling<'a> {
    /// Raises the calling thread to SCHED_FIFO `update_prio` (no-op if it already runs at or
    /// above). The wait for the sched lock is killable (see [`GlueLock::lock_killable`]): the
    /// caller has changed nothing yet, and may wait behind higher real-time updaters for long.
    /// If the change fails, or a signal ends the wait, nothing changed (the record is left as
    /// it was).
    pub(crate) fn raise(sched: &'a SchedLock) -> Result<Self> {
        let me = task_self();
        let raise = |h: &mut Holder| {
            let before = *h;
            let (saved, set) = h.raise(me, task_params(me));
            if let Some(set) = set {
                if let Err(e) = task_set(me, set) {
                    *h = before;
                    return Err(e);
                }
            }
            Ok(saved)
        };
        let saved = sched.with_killable(raise)??;
        Ok(Self {
            sched,
            saved,
            _not_send: PhantomData,
        })
    }
}

impl Drop for Ceiling<'_> {
    fn drop(&mut self) {
        // Same thread as `raise` (the type is not `Send`).
        let me = task_self();
        let saved = self.saved;
        self.sched.with(|h| {
            if let Some(set) = h.restore(me, saved, task_params(me)) {
                let _ = task_set(me, set);
            }
        });
    }
}

/// One of the C glue's static locks, as a type: how a guard of it unlocks.
///
/// # Safety
///
/// Implementors stand for exactly one static C lock, and [`CLock::unlock`] releases that lock
/// as taken in `mode`; the acquiring methods of [`GlueLock`] for the implementor take it.
pub(crate) unsafe trait CLock {
    /// How a guard took the lock (what the unlock must undo).
    type Mode: Copy;

    /// Releases the lock.
    ///
    /// # Safety
    ///
    /// The calling task holds the lock, taken in `mode`.
    unsafe fn unlock(mode: Self::Mode);
}

/// Data guarded by one of the C glue's static locks (`L`).
///
/// Invariant: at most one `GlueLock<_, L>` exists per `L` (its constructor is `unsafe` and says
/// so), so the C lock guards exactly this `T`; `data` is only reached through a [`Guard`].
pub(crate) struct GlueLock<T, L: CLock> {
    data: UnsafeCell<T>,
    _lock: PhantomData<L>,
}

// SAFETY: `data` is only accessed while the C lock is held (through `Guard`), which serialises
// all threads; `T: Send` because it is used from whichever thread holds the lock.
unsafe impl<T: Send, L: CLock> Sync for GlueLock<T, L> {}
// SAFETY: Moving the lock moves `T`, which is `Send`.
unsafe impl<T: Send, L: CLock> Send for GlueLock<T, L> {}

impl<T, L: CLock> GlueLock<T, L> {
    /// Wraps `data`.
    ///
    /// # Safety
    ///
    /// No other `GlueLock<_, L>` may exist while this one does (the C lock is a single static).
    pub(crate) unsafe fn new(data: T) -> Self {
        Self {
            data: UnsafeCell::new(data),
            _lock: PhantomData,
        }
    }

    /// The guard of an acquisition in `mode`.
    ///
    /// # Safety
    ///
    /// The calling task has just taken the C lock in `mode`.
    unsafe fn guard(&self, mode: L::Mode) -> Guard<'_, T, L> {
        Guard {
            lock: self,
            mode,
            _not_send: PhantomData,
        }
    }
}

/// Proof that the lock is held; unlocks when dropped (by the same task: not `Send`).
pub(crate) struct Guard<'a, T, L: CLock> {
    lock: &'a GlueLock<T, L>,
    mode: L::Mode,
    _not_send: PhantomData<*mut ()>,
}

impl<T, L: CLock> Deref for Guard<'_, T, L> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: The lock is held for the guard's lifetime: no other reference to `data`.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T, L: CLock> DerefMut for Guard<'_, T, L> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: The lock is held and the guard is borrowed mutably: the only reference.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T, L: CLock> Drop for Guard<'_, T, L> {
    fn drop(&mut self) {
        // SAFETY: This guard's task took the lock in `mode` (`GlueLock::guard`'s contract).
        unsafe { L::unlock(self.mode) };
    }
}

/// The update lock: the C side's static `rt_mutex` (priority inheritance, FIFO among equal
/// priorities).
pub(crate) enum Update {}

/// How the update lock was taken.
#[derive(Clone, Copy)]
pub(crate) enum UpdateMode {
    /// Sleeping lock, preemptible holder.
    Preemptible,
    /// The fast path: preemption has been off since the lock was taken and comes back on
    /// with the unlock (nothing under the guard may sleep).
    NonPreemptible,
}

// SAFETY: `Update` is the single static `gcaps_update_lock`; `unlock` releases it as taken.
unsafe impl CLock for Update {
    type Mode = UpdateMode;

    unsafe fn unlock(mode: UpdateMode) {
        match mode {
            // SAFETY: The caller holds the lock, taken with preemption off (function contract).
            UpdateMode::NonPreemptible => unsafe { gcaps_glue_unlock_nopreempt() },
            // SAFETY: The caller holds the lock (function contract).
            UpdateMode::Preemptible => unsafe { gcaps_glue_unlock() },
        }
    }
}

/// Data guarded by the update lock.
pub(crate) type UpdateLock<T> = GlueLock<T, Update>;

impl<T> GlueLock<T, Update> {
    /// Takes the lock, uninterruptibly (release, binding).
    pub(crate) fn lock(&self) -> Guard<'_, T, Update> {
        // SAFETY: No preconditions; sleeps until the lock is ours.
        unsafe { gcaps_glue_lock() };
        // SAFETY: Just taken, preemptible.
        unsafe { self.guard(UpdateMode::Preemptible) }
    }

    /// Disables preemption and tries the lock once; on success both last until the guard is
    /// dropped (the fast path: nothing under this guard may sleep).
    pub(crate) fn try_lock_nonpreemptible(&self) -> Option<Guard<'_, T, Update>> {
        // SAFETY: No preconditions; never sleeps.
        if !unsafe { gcaps_glue_trylock_nopreempt() } {
            return None;
        }
        // SAFETY: Just taken, with preemption off.
        Some(unsafe { self.guard(UpdateMode::NonPreemptible) })
    }

    /// Takes the lock if nobody owns it or waits for it (never steals it from a waiter);
    /// `None` otherwise. Never sleeps to wait.
    pub(crate) fn try_lock_free(&self) -> Option<Guard<'_, T, Update>> {
        // SAFETY: No preconditions; never sleeps.
        if !unsafe { gcaps_glue_trylock_free() } {
            return None;
        }
        // SAFETY: Just taken, preemptible.
        Some(unsafe { self.guard(UpdateMode::Preemptible) })
    }

    /// Takes the lock; a fatal signal while waiting gives `EINTR` (the caller is dying), and on
    /// kernels before 5.15 any signal gives `ERESTARTSYS` (the call restarts after the
    /// handler): the caller must not have changed anything yet.
    pub(crate) fn lock_killable(&self) -> Result<Guard<'_, T, Update>> {
        // SAFETY: No preconditions.
        check(unsafe { gcaps_glue_lock_killable() })?;
        // SAFETY: Just taken, preemptible.
        Ok(unsafe { self.guard(UpdateMode::Preemptible) })
    }
}

/// The trace ring's lock: the C side's static raw spinlock (recording never sleeps, also on
/// PREEMPT_RT, and never waits for a preempted reader).
pub(crate) enum Trace {}

// SAFETY: `Trace` is the single static `gcaps_trace_lock`; `unlock` releases it.
unsafe impl CLock for Trace {
    type Mode = ();

    unsafe fn unlock(_: ()) {
        // SAFETY: The caller holds the spinlock (function contract).
        unsafe { gcaps_glue_trace_unlock() };
    }
}

/// Data guarded by the trace ring's lock.
pub(crate) type TraceLock<T> = GlueLock<T, Trace>;

impl<T> GlueLock<T, Trace> {
    /// Takes the spinlock (preemption is off until the guard is dropped: keep it short, no
    /// user memory, no sleeping).
    pub(crate) fn lock(&self) -> Guard<'_, T, Trace> {
        // SAFETY: No preconditions; never sleeps.
        unsafe { gcaps_glue_trace_lock() };
        // SAFETY: Just taken.
        unsafe { self.guard(()) }
    }
}

/// The LIST buffer's lock: the C side's static mutex (a LIST sleeps in user copies while
/// holding it; lock order: before the update lock).
pub(crate) enum List {}

// SAFETY: `List` is the single static `gcaps_list_lock`; `unlock` releases it.
unsafe impl CLock for List {
    type Mode = ();

    unsafe fn unlock(_: ()) {
        // SAFETY: The caller holds the mutex (function contract).
        unsafe { gcaps_glue_list_unlock() };
    }
}

/// Data guarded by the LIST lock.
pub(crate) type ListLock<T> = GlueLock<T, List>;

impl<T> GlueLock<T, List> {
    /// Takes the mutex, uninterruptibly.
    pub(crate) fn lock(&self) -> Guard<'_, T, List> {
        // SAFETY: No preconditions; sleeps until the mutex is ours.
        unsafe { gcaps_glue_list_lock() };
        // SAFETY: Just taken.
        unsafe { self.guard(()) }
    }
}

/// Operations that need the update lock held; the C side also asserts it with lockdep.
///
/// Invariant: the only `Backend` is the one inside the locked state (`Locked`, created by
/// zeroing; there is no constructor), so a `&mut Backend` proves the update lock is held.
pub(crate) struct Backend {
    _private: (),
}

impl Backend {
    /// Publishes the decision for the driver's runlist builder (seqcount write).
    pub(crate) fn publish(&mut self, generation: u64, all: bool, words: &[u64; TSG_WORDS]) {
        // SAFETY: Update lock held (`&mut self` is reachable only through the guard);
        // `words` has the 16 words the C side reads.
        unsafe { gcaps_glue_publish(generation, all, words.as_ptr()) };
    }

    /// The TSG ids released since the last call: the C side cleared them in the published set
    /// and keeps them off every publish until they are taken here. Take them before draining
    /// the event table (their release events are in it by then).
    pub(crate) fn take_released(&mut self) -> [u64; TSG_WORDS] {
        let mut words = [0; TSG_WORDS];
        // SAFETY: Update lock held; `words` has the 16 words the C side writes.
        unsafe { gcaps_glue_take_released(words.as_mut_ptr()) };
        words
    }

    /// The next dirty TSG of the event table, if any.
    pub(crate) fn next_event(&mut self) -> Option<TsgEvent> {
        let mut ev = TsgEvent::default();
        // SAFETY: Update lock held; `ev` is valid for writes.
        unsafe { gcaps_glue_ev_next(&mut ev) }.then_some(ev)
    }

    /// Whether the driver reported a recovery since the last call.
    pub(crate) fn take_recovered(&mut self) -> bool {
        // SAFETY: Update lock held.
        unsafe { gcaps_glue_ev_take_recovered() }
    }

    /// Binds a backend (`EBUSY` if one is bound).
    ///
    /// # Safety
    ///
    /// `ops` must be a valid `struct gcaps_backend_ops` that stays valid until the backend is
    /// forgotten or detached (the backend contract).
    pub(crate) unsafe fn attach(&mut self, ops: *const c_void, drv: *mut c_void) -> Result {
        // SAFETY: Update lock held; the caller guarantees `ops`.
        check(unsafe { gcaps_glue_be_attach(ops, drv) })
    }

    /// The driver unbinds; returns whether one was bound.
    pub(crate) fn forget(&mut self) -> bool {
        // SAFETY: Update lock held.
        unsafe { gcaps_glue_be_forget() }
    }

    /// gcaps unloads: `ops->detach` then forget; returns whether one was bound.
    pub(crate) fn detach(&mut self) -> bool {
        // SAFETY: Update lock held; the bound driver's ops are valid until detached.
        unsafe { gcaps_glue_be_detach() }
    }

    /// `ops->resubmit()`: rebuild, submit, wait until not pending. `ENODEV` if unbound.
    pub(crate) fn resubmit(&mut self) -> Result {
        // SAFETY: Update lock held; the bound driver's ops are valid while bound.
        check(unsafe { gcaps_glue_be_resubmit() })
    }

    /// The bound backend's name, detail, runlists and flags (`GCAPS_BACKEND_STOCK`) into `v`
    /// (`""`/0 if none); its ABI as `backend_abi`, 0 if none.
    pub(crate) fn info(&mut self, v: &mut uapi::Version) {
        // SAFETY: Update lock held; the arrays are valid for their lengths, `runlists` and
        // `flags` for a write.
        v.backend_abi = unsafe {
            gcaps_glue_be_info(
                v.backend_name.as_mut_ptr().cast(),
                v.backend_name.len(),
                v.backend_detail.as_mut_ptr().cast(),
                v.backend_detail.len(),
                &mut v.backend_runlists,
                &mut v.backend_flags,
            )
        };
    }
}

/// Kicks the work item (any context): it runs soon and applies what is pending.
pub(crate) fn kick_work() {
    // SAFETY: No preconditions (`mod_delayed_work`).
    unsafe { gcaps_glue_work_kick() }
}

/// Whether TSG events may be waiting (a lock-free hint).
pub(crate) fn events_pending() -> bool {
    // SAFETY: No preconditions (reads a bitmap and a flag).
    unsafe { gcaps_glue_ev_pending() }
}

/// Reads an ioctl argument struct with the UAPI size rules: the user's `size` (first field)
/// below `SIZE_VER0` is `EINVAL`; a shorter struct is zero-extended; a longer one must be zero
/// beyond ours (`E2BIG`). Returns the struct and the user's size.
pub(crate) fn read_arg<T: IoctlArg + PlainData>(arg: usize) -> Result<(T, usize)> {
    let mut usize_ = 0u32;
    // SAFETY: `usize_` is valid for writes; the C side checks the user address.
    check(unsafe { gcaps_glue_get_user_u32(arg as c_ulong, &mut usize_) })?;
    let usize_ = ioctl::arg_size::<T>(usize_)?;
    let mut val = T::default();
    // SAFETY: `val` is a valid `T` of `size_of::<T>()` writable bytes, and any bytes are a
    // valid `T` (`PlainData`); the C side checks the user range.
    check(unsafe {
        gcaps_glue_copy_struct_from_user(
            (&mut val as *mut T).cast(),
            size_of::<T>(),
            arg as c_ulong,
            usize_,
        )
    })?;
    Ok((val, usize_))
}

/// Copies `n` bytes from `src` to user address `dst` (`EFAULT` if not all were copied).
///
/// # Safety
///
/// `src` is valid for reads of `n` initialised bytes.
unsafe fn copy_to_user(dst: usize, src: *const c_void, n: usize) -> Result {
    // SAFETY: The caller guarantees `src`; the C side checks the user range.
    check(unsafe { gcaps_glue_copy_to_user(dst as c_ulong, src, n) })
}

/// Writes a UAPI struct (an ioctl argument, a trace event) to user address `arg`, its first
/// `min(user_size, size_of::<T>())` bytes.
pub(crate) fn write_arg<T: PlainData>(arg: usize, val: &T, user_size: usize) -> Result {
    let n = user_size.min(size_of::<T>());
    // SAFETY: `T: PlainData`: the first `n <= size_of::<T>()` bytes of `val` are initialised.
    unsafe { copy_to_user(arg, (val as *const T).cast(), n) }
}

/// Writes an array of UAPI structs to user address `dst`.
pub(crate) fn write_array<T: PlainData>(dst: usize, vals: &[T]) -> Result {
    // SAFETY: `T: PlainData`: the slice's `size_of_val` bytes are initialised.
    unsafe { copy_to_user(dst, vals.as_ptr().cast(), core::mem::size_of_val(vals)) }
}

/// Types whose all-zero bit pattern is a valid value.
///
/// # Safety
///
/// Implementors must be valid when every byte is zero.
pub(crate) unsafe trait Zeroable {}

// SAFETY: Plain old data: any bytes are valid.
unsafe impl<T: PlainData> Zeroable for T {}

/// A value in kernel memory from `kvzalloc` (`kmalloc`, or `vmalloc` for large ones), freed
/// with `kvfree` when dropped. Invariant: `ptr` points to a valid `T` that this box owns.
pub(crate) struct KvBox<T: ?Sized> {
    ptr: NonNull<T>,
}

// SAFETY: The box owns its `T` (like `Box<T>`).
unsafe impl<T: ?Sized + Send> Send for KvBox<T> {}
// SAFETY: Shared access is to `&T` only (like `Box<T>`).
unsafe impl<T: ?Sized + Sync> Sync for KvBox<T> {}

/// Zeroed memory for `size` bytes aligned for `align`, or `ENOMEM`.
fn kvzalloc(size: usize, align: usize) -> Result<NonNull<u8>> {
    // kvzalloc aligns to at least 8 bytes (kmalloc's minimum alignment on every arch, and
    // pages for vmalloc); nothing here needs more.
    if align > 8 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: No preconditions; a size of 0 gives a non-null special pointer (ZERO_SIZE_PTR)
    // that `kvfree` accepts.
    NonNull::new(unsafe { gcaps_glue_kvzalloc(size) }.cast()).ok_or(Errno::ENOMEM)
}

impl<T: Zeroable> KvBox<T> {
    /// A zeroed `T`, allocated now.
    pub(crate) fn new_zeroed() -> Result<Self> {
        let ptr = kvzalloc(size_of::<T>(), core::mem::align_of::<T>())?.cast();
        // Invariant: zeroed memory of `T`'s size and alignment is a valid `T` (`Zeroable`).
        Ok(Self { ptr })
    }
}

impl<T: Zeroable> KvBox<[T]> {
    /// `len` zeroed `T`s, allocated now.
    pub(crate) fn new_zeroed_slice(len: usize) -> Result<Self> {
        let size = size_of::<T>().checked_mul(len).ok_or(Errno::ENOMEM)?;
        let ptr = kvzalloc(size, core::mem::align_of::<T>())?.cast::<T>();
        // Invariant: `len` zeroed `T`s are valid (`Zeroable`).
        Ok(Self {
            ptr: NonNull::slice_from_raw_parts(ptr, len),
        })
    }
}

impl<T> KvBox<T> {
    /// `value`, moved into memory allocated now.
    pub(crate) fn new(value: T) -> Result<Self> {
        let ptr = kvzalloc(size_of::<T>(), core::mem::align_of::<T>())?.cast::<T>();
        // SAFETY: `ptr` is valid for writes of a `T` (size and alignment checked above).
        unsafe { ptr.as_ptr().write(value) };
        Ok(Self { ptr })
    }

    /// The box's pointer; the caller owns the `T` until [`KvBox::from_raw`].
    #[cfg_attr(not(gcaps_host_c), allow(dead_code))] // host B only
    pub(crate) fn into_raw(self) -> *mut T {
        let ptr = self.ptr.as_ptr();
        core::mem::forget(self);
        ptr
    }

    /// Undoes [`KvBox::into_raw`].
    ///
    /// # Safety
    ///
    /// `ptr` came from `into_raw` and is used once.
    #[cfg_attr(not(gcaps_host_c), allow(dead_code))] // host B only
    pub(crate) unsafe fn from_raw(ptr: *mut T) -> Self {
        Self {
            // SAFETY: `into_raw` returned the non-null pointer of a box (function contract).
            ptr: unsafe { NonNull::new_unchecked(ptr) },
        }
    }
}

impl<T: ?Sized> Deref for KvBox<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `ptr` points to a valid `T` this box owns (type invariant).
        unsafe { self.ptr.as_ref() }
    }
}

impl<T: ?Sized> DerefMut for KvBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: As for `deref`, and `&mut self` makes the reference unique.
        unsafe { self.ptr.as_mut() }
    }
}

impl<T: ?Sized> Drop for KvBox<T> {
    fn drop(&mut self) {
        // SAFETY: The box owns a valid `T` (type invariant), dropped once here.
        unsafe { core::ptr::drop_in_place(self.ptr.as_ptr()) };
        // SAFETY: `ptr` came from `gcaps_glue_kvzalloc` and is freed once.
        unsafe { gcaps_glue_kvfree(self.ptr.as_ptr().cast()) };
    }
}

/// A kernel log message, built without `core::fmt` (which would pull its formatting machinery
/// and indirect calls into the freestanding object): text and decimal numbers in a fixed
/// buffer, truncated if too long.
pub(crate) struct Msg {
    buf: [u8; 160],
    len: usize,
}

impl Msg {
    /// An empty message.
    pub(crate) fn new() -> Self {
        Self {
            buf: [0; 160],
            len: 0,
        }
    }

    /// Appends `s`.
    pub(crate) fn str(mut self, s: &str) -> Self {
        for &b in s.as_bytes() {
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }
        self
    }

    /// Appends `n` in decimal.
    pub(crate) fn num(self, n: i64) -> Self {
        if n < 0 {
            self.str("-").unum(n.unsigned_abs())
        } else {
            self.unum(n.unsigned_abs())
        }
    }

    /// Appends `v` in decimal.
    pub(crate) fn unum(self, mut v: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + (v % 10) as u8;
            }
            v /= 10;
            if v == 0 || i == 0 {
                break;
            }
        }
        self.str(core::str::from_utf8(digits.get(i..).unwrap_or(&[])).unwrap_or("?"))
    }

    /// The text so far.
    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }
}

/// The kernel log, with the module's `gcaps: ` prefix.
pub(crate) mod log {
    use super::Msg;

    fn print(level: core::ffi::c_int, m: Msg) {
        let b = m.bytes();
        // SAFETY: `b` is valid for reads of `b.len()` bytes; the C side prints them as `%.*s`.
        unsafe { super::gcaps_glue_log(level, b.as_ptr().cast(), b.len()) };
    }

    /// `pr_err`.
    pub(crate) fn err(m: Msg) {
        print(3, m);
    }

    /// `pr_warn`.
    pub(crate) fn warn(m: Msg) {
        print(4, m);
    }

    /// `pr_info`.
    pub(crate) fn info(m: Msg) {
        print(6, m);
    }
}

/// Logs `m` at `KERN_EMERG` and `BUG()`s: the calling task oopses; never returns.
#[cfg_attr(not(gcaps_host_c), allow(dead_code))] // host B's panic handler only
pub(crate) fn bug(m: &Msg) -> ! {
    let b = m.bytes();
    // SAFETY: `b` is valid for reads of `b.len()` bytes; the C side never returns.
    unsafe { gcaps_glue_bug(b.as_ptr().cast(), b.len()) }
}
