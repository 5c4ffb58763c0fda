// SPDX-License-Identifier: GPL-2.0

//! Safe wrappers around the C glue (`gcaps_glue.c`, declared in `gcaps_glue.h`, mirrored
//! here by hand): the update lock, the update ceiling, the calling task, user structs, the
//! published decision, the TSG event table and the backend binding. Every `unsafe` block of
//! the module that calls into C is here, and the plain-old-data declarations of the core's
//! UAPI structs for the user copies.

use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use core::marker::PhantomData;
use core::mem::size_of;
use core::ops::{Deref, DerefMut};
use kernel::prelude::*;
use kernel::types::{AsBytes, FromBytes};
use kernel::uaccess::UserSlice;

use super::gcaps_core::ioctl::{self, Sched};
use super::gcaps_core::uapi::{self, IoctlArg};
use super::gcaps_core::{ClientRef, PidToken, TsgEvent, TSG_WORDS};

/// Mirrors `struct gcaps_caller`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct Caller {
    pub(crate) start: u64,
    pub(crate) tgid: u32,
    pub(crate) uid: u32,
    pub(crate) policy: i32,
    pub(crate) rt_priority: i32,
    pub(crate) comm: [u8; 16],
}
const _: () = assert!(size_of::<Caller>() == 40);

// The core's `TsgEvent` mirrors `struct gcaps_ev` and its `ClientRef` `struct gcaps_client_ref`
// (`repr(C)`; `gcaps_glue.c` checks the C sizes).
const _: () = assert!(size_of::<TsgEvent>() == 32);
const _: () = assert!(size_of::<ClientRef>() == 16);

macro_rules! plain_data {
    ($($t:ty),*) => {$(
        // SAFETY: `repr(C)` struct of integers and byte arrays: every bit pattern is valid.
        unsafe impl FromBytes for $t {}
        // SAFETY: `repr(C)` with explicit padding fields only (the core's size assertions and
        // the C side's `BUILD_BUG_ON`s check there is no implicit padding).
        unsafe impl AsBytes for $t {}
    )*};
}
plain_data!(
    uapi::Version,
    uapi::SegBegin,
    uapi::SegEnd,
    uapi::ClientInfo,
    uapi::Status,
    uapi::TsgInfo,
    uapi::List,
    uapi::Stats,
    uapi::TraceEvent,
    uapi::TraceRead
);

extern "C" {
    fn gcaps_glue_update_prio() -> c_int;
    fn gcaps_glue_trace_size() -> c_uint;
    fn gcaps_glue_trace_lock();
    fn gcaps_glue_trace_unlock();
    fn gcaps_glue_max_clients_per_user() -> c_uint;
    fn gcaps_glue_init(ctx: *mut c_void) -> c_int;
    fn gcaps_glue_exit_misc();
    fn gcaps_glue_exit_final();
    fn gcaps_glue_current_sched(policy: *mut i32, rt_priority: *mut i32);
    fn gcaps_glue_may_raise_rt_prio(prio: c_int) -> bool;
    fn gcaps_glue_capable_admin() -> bool;
    fn gcaps_glue_pid_vnr(pid_token: usize) -> u32;
    fn gcaps_glue_pid_group_exited(pid_token: usize) -> bool;
    fn gcaps_glue_boost(ceiling: c_int, saved: *mut u64) -> c_int;
    fn gcaps_glue_restore(ceiling: c_int, saved: u64);
    fn gcaps_glue_lock_killable() -> c_int;
    fn gcaps_glue_lock();
    fn gcaps_glue_unlock();
    fn gcaps_glue_trylock_nopreempt() -> bool;
    fn gcaps_glue_trylock_free() -> bool;
    fn gcaps_glue_unlock_nopreempt();
    fn gcaps_glue_copy_struct_from_user(
        dst: *mut c_void,
        ksize: usize,
        src: c_ulong,
        usize: usize,
    ) -> c_int;
    fn gcaps_glue_publish(generation: u64, all: bool, words: *const u64);
    fn gcaps_glue_take_released(words: *mut u64);
    fn gcaps_glue_ev_next(out: *mut TsgEvent) -> bool;
    fn gcaps_glue_ev_take_recovered() -> bool;
    fn gcaps_glue_ev_pending() -> bool;
    fn gcaps_glue_be_attach(ops: *const c_void, drv: *mut c_void) -> c_int;
    fn gcaps_glue_be_forget() -> bool;
    fn gcaps_glue_be_detach() -> bool;
    fn gcaps_glue_be_resubmit() -> c_int;
    fn gcaps_glue_be_name(buf: *mut c_char, len: usize) -> u32;
}

/// The `update_prio` module parameter (not validated).
pub(crate) fn param_update_prio() -> i32 {
    // SAFETY: Reads an `int` module parameter (0444, set before init).
    unsafe { gcaps_glue_update_prio() }
}

/// The `trace_size` module parameter (not validated).
pub(crate) fn param_trace_size() -> u32 {
    // SAFETY: Reads a `uint` module parameter (0444, set before init).
    unsafe { gcaps_glue_trace_size() }
}

/// `CLOCK_MONOTONIC` now, in ns.
pub(crate) fn now_ns() -> u64 {
    u64::try_from(kernel::time::Ktime::ktime_get().to_ns()).unwrap_or(0)
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
    let ret = unsafe { gcaps_glue_init(ctx) };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    Ok(())
}

/// Deregisters `/dev/gcaps` (no file is open: each open file holds a module reference).
pub(crate) fn exit_misc() {
    // SAFETY: Called once from module exit, after a successful `init`.
    unsafe { gcaps_glue_exit_misc() }
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

/// Whether the caller may raise an RT priority to `prio` (`RLIMIT_RTPRIO` or `CAP_SYS_NICE`:
/// the rule of `sched_setscheduler`).
pub(crate) fn may_raise_rt_prio(prio: i32) -> bool {
    // SAFETY: No preconditions; checks `current`.
    unsafe { gcaps_glue_may_raise_rt_prio(prio) }
}

// A `PidToken` here is a counted reference to a thread group's `struct pid`, held by the open
// file (C side) until its release, stored by the core in the file's client, which asks about
// it only while that client exists (the file is open): so it is valid whenever it is used.

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

/// The calling thread raised to the update ceiling (U1/U2); dropping it restores the thread's
/// own policy and priority (see `gcaps_glue_restore` for the race with a concurrent
/// `sched_setscheduler`). Not `Send`: it must be dropped by the thread it boosted.
pub(crate) struct Ceiling {
    ceiling: i32,
    saved: u64,
    _not_send: PhantomData<*mut ()>,
}

impl Ceiling {
    /// Raises the calling thread to SCHED_FIFO `ceiling` (no-op if it already runs at or above).
    pub(crate) fn raise(ceiling: i32) -> Result<Self> {
        let mut saved = 0;
        // SAFETY: `saved` is valid for writes; the C side changes only `current`'s policy.
        let ret = unsafe { gcaps_glue_boost(ceiling, &mut saved) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(Self {
            ceiling,
            saved,
            _not_send: PhantomData,
        })
    }
}

impl Drop for Ceiling {
    fn drop(&mut self) {
        // SAFETY: Same thread as `raise` (the type is not `Send`); `saved` came from it.
        unsafe { gcaps_glue_restore(self.ceiling, self.saved) };
    }
}

/// The update lock: the C side's single static `rt_mutex` guarding `T`.
///
/// Invariant: at most one `UpdateLock` exists (the module's state owns it), so the C mutex
/// guards exactly this `T`; `data` is only reached through an [`UpdateGuard`].
pub(crate) struct UpdateLock<T> {
    data: UnsafeCell<T>,
}

// SAFETY: `data` is only accessed while the rt_mutex is held (through `UpdateGuard`), which
// serialises all threads; `T: Send` because it is used from whichever thread holds the lock.
unsafe impl<T: Send> Sync for UpdateLock<T> {}
// SAFETY: Moving the lock moves `T`, which is `Send`.
unsafe impl<T: Send> Send for UpdateLock<T> {}

impl<T> UpdateLock<T> {
    /// Wraps `data`. Must be called once per module lifetime (type invariant).
    pub(crate) fn new(data: T) -> Self {
        Self {
            data: UnsafeCell::new(data),
        }
    }

    /// Takes the lock, uninterruptibly (release, work item, binding).
    pub(crate) fn lock(&self) -> UpdateGuard<'_, T> {
        // SAFETY: No preconditions; sleeps until the lock is ours.
        unsafe { gcaps_glue_lock() };
        UpdateGuard {
            lock: self,
            nonpreemptible: false,
            _not_send: PhantomData,
        }
    }

    /// Disables preemption and tries the lock once; on success both last until the guard is
    /// dropped (the fast path: nothing under this guard may sleep).
    pub(crate) fn try_lock_nonpreemptible(&self) -> Option<UpdateGuard<'_, T>> {
        // SAFETY: No preconditions; never sleeps.
        // `then`, not `then_some`: a guard built for a failed try would unlock on drop.
        unsafe { gcaps_glue_trylock_nopreempt() }.then(|| UpdateGuard {
            lock: self,
            nonpreemptible: true,
            _not_send: PhantomData,
        })
    }

    /// Takes the lock if nobody owns it or waits for it (never steals it from a waiter);
    /// `None` otherwise. Never sleeps to wait.
    pub(crate) fn try_lock_free(&self) -> Option<UpdateGuard<'_, T>> {
        // SAFETY: No preconditions; never sleeps.
        unsafe { gcaps_glue_trylock_free() }.then(|| UpdateGuard {
            lock: self,
            nonpreemptible: false,
            _not_send: PhantomData,
        })
    }

    /// Takes the lock; a fatal signal while waiting gives `EINTR` (the caller is dying).
    pub(crate) fn lock_killable(&self) -> Result<UpdateGuard<'_, T>> {
        // SAFETY: No preconditions.
        if unsafe { gcaps_glue_lock_killable() } != 0 {
            return Err(EINTR);
        }
        Ok(UpdateGuard {
            lock: self,
            nonpreemptible: false,
            _not_send: PhantomData,
        })
    }
}

/// Proof that the update lock is held; unlocks when dropped (by the same task: not `Send`).
/// If `nonpreemptible`, preemption has been off since the lock was taken and comes back on
/// with the unlock.
pub(crate) struct UpdateGuard<'a, T> {
    lock: &'a UpdateLock<T>,
    nonpreemptible: bool,
    _not_send: PhantomData<*mut ()>,
}

impl<T> Deref for UpdateGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: The lock is held for the guard's lifetime: no other reference to `data`.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for UpdateGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: The lock is held and the guard is borrowed mutably: the only reference.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for UpdateGuard<'_, T> {
    fn drop(&mut self) {
        if self.nonpreemptible {
            // SAFETY: This guard took the lock with preemption off, on this task.
            unsafe { gcaps_glue_unlock_nopreempt() };
        } else {
            // SAFETY: This guard took the lock, on this task.
            unsafe { gcaps_glue_unlock() };
        }
    }
}

/// The trace ring's lock: the C side's single static raw spinlock guarding `T` (a raw
/// spinlock so that recording never sleeps, also on PREEMPT_RT, and never waits for a
/// preempted reader).
///
/// Invariant: at most one `TraceLock` exists (the trace ring owns it), so the C spinlock
/// guards exactly this `T`; `data` is only reached through a [`TraceGuard`].
pub(crate) struct TraceLock<T> {
    data: UnsafeCell<T>,
}

// SAFETY: `data` is only accessed with the spinlock held (through `TraceGuard`).
unsafe impl<T: Send> Sync for TraceLock<T> {}
// SAFETY: Moving the lock moves `T`, which is `Send`.
unsafe impl<T: Send> Send for TraceLock<T> {}

impl<T> TraceLock<T> {
    /// Wraps `data`. Must be called once per module lifetime (type invariant).
    pub(crate) fn new(data: T) -> Self {
        Self {
            data: UnsafeCell::new(data),
        }
    }

    /// Takes the spinlock (preemption is off until the guard is dropped: keep it short, no
    /// user memory, no sleeping).
    pub(crate) fn lock(&self) -> TraceGuard<'_, T> {
        // SAFETY: No preconditions; never sleeps.
        unsafe { gcaps_glue_trace_lock() };
        TraceGuard {
            lock: self,
            _not_send: PhantomData,
        }
    }
}

/// Proof that the trace lock is held; unlocks when dropped (same CPU and task: not `Send`).
pub(crate) struct TraceGuard<'a, T> {
    lock: &'a TraceLock<T>,
    _not_send: PhantomData<*mut ()>,
}

impl<T> Deref for TraceGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: The lock is held for the guard's lifetime: no other reference to `data`.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for TraceGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: The lock is held and the guard is borrowed mutably: the only reference.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for TraceGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: This guard took the lock, on this task (preemption off since).
        unsafe { gcaps_glue_trace_unlock() };
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
        let ret = unsafe { gcaps_glue_be_attach(ops, drv) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(())
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
        let ret = unsafe { gcaps_glue_be_resubmit() };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(())
    }

    /// The bound backend's name (NUL-terminated in `buf`) and ABI, 0 if none.
    pub(crate) fn name(&mut self, buf: &mut [u8; 32]) -> u32 {
        // SAFETY: Update lock held; `buf` is valid for 32 bytes.
        unsafe { gcaps_glue_be_name(buf.as_mut_ptr().cast(), buf.len()) }
    }
}

/// Whether TSG events may be waiting (a lock-free hint).
pub(crate) fn events_pending() -> bool {
    // SAFETY: No preconditions (reads a bitmap and a flag).
    unsafe { gcaps_glue_ev_pending() }
}

/// Reads an ioctl argument struct with the UAPI size rules: the user's `size` (first field)
/// below `SIZE_VER0` is `EINVAL`; a shorter struct is zero-extended; a longer one must be zero
/// beyond ours (`E2BIG`). Returns the struct and the user's size.
pub(crate) fn read_arg<T: IoctlArg + FromBytes>(arg: usize) -> Result<(T, usize)> {
    let usize_ = UserSlice::new(arg, size_of::<u32>())
        .reader()
        .read::<u32>()?;
    let usize_ = ioctl::arg_size::<T>(usize_).map_err(|e| Error::from_errno(-e.0))?;
    let mut val = T::default();
    // SAFETY: `val` is a valid `T` of `size_of::<T>()` writable bytes, and any bytes are a
    // valid `T` (`FromBytes`); the C side checks the user range.
    let ret = unsafe {
        gcaps_glue_copy_struct_from_user(
            (&mut val as *mut T).cast(),
            size_of::<T>(),
            arg as c_ulong,
            usize_,
        )
    };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    Ok((val, usize_))
}

/// Writes a UAPI struct (an ioctl argument, a trace event) to user address `arg`, its first
/// `min(user_size, size_of::<T>())` bytes.
pub(crate) fn write_arg<T: AsBytes>(arg: usize, val: &T, user_size: usize) -> Result {
    let n = user_size.min(size_of::<T>());
    // SAFETY: `T: AsBytes`: all `size_of::<T>()` bytes of `val` are initialised.
    let bytes =
        unsafe { core::slice::from_raw_parts((val as *const T).cast::<u8>(), size_of::<T>()) };
    UserSlice::new(arg, n).writer().write_slice(&bytes[..n])
}
