// SPDX-License-Identifier: GPL-2.0

//! The calling task (its scheduling class, capabilities, exit state) and threads: task
//! references, their scheduling parameters, the sched lock with the holder record
//! ([`SchedLock`]) and the update ceiling ([`Ceiling`]).

use super::*;

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

/// The calling thread's CPU time in ns (its scheduler runtime, as of the last scheduler event
/// of the thread: the C side says when it is brought up to date).
pub(crate) fn current_cputime_ns() -> u64 {
    // SAFETY: No preconditions (reads `current`'s CPU time).
    unsafe { gcaps_glue_current_cputime_ns() }
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
