// SPDX-License-Identifier: GPL-2.0

//! The C glue's static locks as typed guards: [`GlueLock`] and [`Guard`] over a [`CLock`], with
//! the update lock ([`UpdateLock`]: rt_mutex, the non-preemptive fast path, the work item's
//! `try_lock_free`), the trace ring's raw spinlock ([`TraceLock`]) and the LIST mutex
//! ([`ListLock`]).

use super::*;

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
    pub(super) unsafe fn guard(&self, mode: L::Mode) -> Guard<'_, T, L> {
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
