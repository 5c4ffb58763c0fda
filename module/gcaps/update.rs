// SPDX-License-Identifier: GPL-2.0

//! The update path (U1-U5 of `docs/analysis.md`): the module's [`State`] and what the update
//! lock guards ([`Locked`]), the [`Host`] the core acts through while it is held ([`Env`]),
//! an update at the ceiling or on the non-preemptive fast path ([`State::update`]), the
//! draining of TSG events, exits and handed-over files, and a file's release.

use super::*;

/// What the update lock guards: the core and the backend token.
pub(super) struct Locked {
    pub(super) core: Core,
    pub(super) be: Backend,
}

// SAFETY: `Core`'s all-zero bit pattern is `Core::new()` (documented by the core: integers,
// bools and arrays of them, and a policy whose all-zero pattern is documented to be empty);
// `Backend` is a zero-sized token.
unsafe impl Zeroable for Locked {}

// SAFETY: Arrays of UAPI structs made of integers: all-zero is valid.
unsafe impl Zeroable for ListBuf {}

// SAFETY: Integer atomics only: all-zero is `UpdateCosts::new()` (documented by the core).
unsafe impl Zeroable for UpdateCosts {}

/// The start of a real-time update's cost window (`GCAPS_UPDATE_*` in the STATS reply): wall
/// time from the moment the update holds the lock (plus the raise to the ceiling before its
/// lock request) to the release and the return from the ceiling; the caller's CPU time in the
/// same window. The lock wait is outside it (the analysis's ε starts with the hold, U1).
#[derive(Clone, Copy)]
struct CostStart {
    /// Wall time of the window before the hold: the raise to the ceiling.
    before_ns: u64,
    /// `CLOCK_MONOTONIC` when the hold began (the fast path: when it tried the lock).
    at_ns: u64,
    /// The caller's CPU time then; `None` on the fast path, which runs with preemption
    /// disabled and never sleeps, so its on-CPU time is its wall time (the scheduler's
    /// runtime is not brought up to date inside it).
    cpu_ns: Option<u64>,
}

impl CostStart {
    /// An update at the ceiling that now holds the lock; the raise took `raise_ns`. Its CPU
    /// time is read now: the raise's change of policy brought the runtime up to date (and so
    /// does a sleep in the lock wait), so the reading lags only by the lock acquisition.
    /// Forgets what earlier holders applied (the work item's, LIST's): the update's kind is
    /// what `core` applies from here ([`Core::take_applied`] before the release).
    fn ceiling(core: &mut Core, raise_ns: u64) -> Self {
        core.take_applied();
        Self {
            before_ns: raise_ns,
            at_ns: now_ns(),
            cpu_ns: Some(glue::current_cputime_ns()),
        }
    }

    /// An update on the fast path that tried the lock at `at_ns` (see [`CostStart::ceiling`]).
    fn fast(core: &mut Core, at_ns: u64) -> Self {
        core.take_applied();
        Self {
            before_ns: 0,
            at_ns,
            cpu_ns: None,
        }
    }

    /// Records the update, which has released the lock and returned from the ceiling, and
    /// whose costliest application was `applied`. The CPU time is read after that return,
    /// whose change of policy brings it up to date.
    fn record(self, costs: &UpdateCosts, applied: Option<Applied>) {
        let end = now_ns();
        let wall = end
            .saturating_sub(self.at_ns)
            .saturating_add(self.before_ns);
        let cpu = self
            .cpu_ns
            .map_or(wall, |c| glue::current_cputime_ns().saturating_sub(c));
        costs.record(UpdateKind::of(applied), wall, cpu);
    }
}

/// The core's view of the kernel while the update lock is held.
pub(super) struct Env<'a> {
    be: &'a mut Backend,
    trace: &'a TraceRing,
    sched: &'a SchedLock,
}

impl Host for Env<'_> {
    fn now_ns(&self) -> u64 {
        now_ns()
    }

    fn record(&mut self, ev: &TraceEvent) {
        self.trace.record(*ev);
    }

    fn publish(&mut self, d: &Decision) {
        self.be.publish(d.generation, d.all, d.eligible.words());
    }

    fn apply(&mut self) -> Result<Applied> {
        self.be.apply()
    }

    fn pid_vnr(&self, pid: PidToken) -> u32 {
        glue::pid_vnr(pid)
    }

    fn pid_group_exited(&self, pid: PidToken) -> bool {
        glue::pid_group_exited(pid)
    }

    fn take_released(&mut self) -> [u64; TSG_WORDS] {
        self.be.take_released()
    }

    fn next_tsg_event(&mut self) -> Option<TsgEvent> {
        self.be.next_event()
    }

    fn take_recovered(&mut self) -> bool {
        self.be.take_recovered()
    }

    fn warn(&mut self, w: Warning) {
        match w {
            Warning::ResubmitFailed(e) => log::warn(
                Msg::new()
                    .str("backend resubmit failed (errno ")
                    .num(e.0.into())
                    .str("); further failures are only counted"),
            ),
        }
    }

    fn task_current(&mut self) -> TaskToken {
        glue::task_self_get()
    }

    fn task_get(&mut self, t: TaskToken) {
        glue::task_get(t);
    }

    fn task_put(&mut self, t: TaskToken) {
        glue::task_put(t);
    }

    fn task_tid(&self, t: TaskToken) -> u32 {
        glue::task_tid(t)
    }

    fn boost(&mut self, t: TaskToken) {
        self.sched.boost(t);
    }

    fn unboost(&mut self, t: TaskToken) -> Option<i32> {
        self.sched.unboost(t)
    }

    fn boosted(&self, t: TaskToken) -> bool {
        self.sched.is_boosted(t)
    }
}

impl Locked {
    /// Runs `f` on the core with the host it acts through.
    pub(super) fn with<R>(
        &mut self,
        st: (&TraceRing, &SchedLock),
        f: impl FnOnce(&mut Core, &mut Env<'_>) -> R,
    ) -> R {
        let mut env = Env {
            be: &mut self.be,
            trace: st.0,
            sched: st.1,
        };
        f(&mut self.core, &mut env)
    }
}

/// The module's state. Invariant: exactly one exists while the module is loaded (it owns the
/// only [`UpdateLock`], [`ListLock`] and [`TraceRing`]), at a fixed address (boxed by
/// [`Loaded`]) published to C as `ctx`.
pub(super) struct State {
    /// Everything decisions depend on; its rt_mutex serialises every update.
    pub(super) update: UpdateLock<KvBox<Locked>>,
    /// The LIST output buffer (lock order: `list` before `update`).
    pub(super) list: ListLock<KvBox<ListBuf>>,
    /// The trace ring (its own raw spinlock, taken under `update` by writers, alone by readers).
    pub(super) trace: TraceRing,
    /// Failed open/ioctl calls per errno class (lock-free).
    pub(super) rejected: Rejected,
    /// Costs of real-time updates per kind (lock-free; recorded after the release).
    pub(super) costs: KvBox<UpdateCosts>,
    /// Clients whose owner may have exited (lock-free; drained under `update`).
    pub(super) exits: Exits,
    /// Who is boosted and the ceiling's rules (`update_prio`, U2; `boost_prio`): every change
    /// gcaps makes to a thread's scheduling parameters (lock order: after `update`).
    pub(super) sched: SchedLock,
    /// `max_clients_per_user`.
    pub(super) max_per_user: u32,
}

impl State {
    /// What the core's host needs besides the locked state.
    pub(super) fn env(&self) -> (&TraceRing, &SchedLock) {
        (&self.trace, &self.sched)
    }

    /// The update path of a begin/end (U1-U5): a real-time caller is raised to the ceiling
    /// *before* it requests the lock (U1/U2), applies pending TSG events, takes the decision,
    /// and, if what the driver lists changed, has it resubmitted and waits for the submit,
    /// all under the lock; then unlocks and restores its own priority (drop order: the guard
    /// before the ceiling). A best-effort caller is never raised and never drains events (U5):
    /// its events never change the eligible set (policy rule 3), so it never submits.
    ///
    /// Fast path: a real-time event that `keeps` the decision (checked under the lock) and
    /// finds no TSG event pending runs with preemption disabled instead of at the ceiling, if
    /// the lock is free at once: the same non-preemptive update (nothing can submit, so
    /// nothing sleeps), without the two `sched_setattr` calls.
    pub(super) fn update<R>(
        &self,
        rt: bool,
        keeps: impl FnOnce(&Core) -> bool,
        f: impl FnOnce(&mut Core, &mut Env<'_>) -> Result<R>,
    ) -> Result<R> {
        let mut ceiling = None;
        let tried_ns = if rt { now_ns() } else { 0 };
        let fast = if rt {
            self.update
                .try_lock_nonpreemptible()
                .filter(|l| !self.events_pending() && keeps(&l.core))
        } else {
            None
        };
        let (mut locked, cost) = match fast {
            Some(mut l) => {
                let cost = CostStart::fast(&mut l.core, tried_ns);
                (l, Some(cost))
            }
            None => {
                let mut raise_ns = 0;
                if rt {
                    let t = now_ns();
                    ceiling = Some(Ceiling::raise(&self.sched)?);
                    raise_ns = now_ns().saturating_sub(t);
                }
                let mut l = self.update.lock_killable()?;
                let cost = rt.then(|| CostStart::ceiling(&mut l.core, raise_ns));
                if rt && self.events_pending() {
                    l.with(self.env(), |c, env| self.apply_events(c, env));
                }
                (l, cost)
            }
        };
        let r = locked.with(self.env(), f);
        let applied = locked.core.take_applied();
        drop(locked);
        drop(ceiling);
        if let Some(c) = cost {
            c.record(&self.costs, applied);
        }
        r
    }

    /// Whether exits, handed-over files or TSG events wait to be applied (lock-free hints).
    pub(super) fn events_pending(&self) -> bool {
        self.exits.any() || glue::events_pending()
    }

    /// Applies everything that waits (update lock held): the files handed over at their release
    /// (each record freed after its client's removal), then owner exits and TSG events.
    pub(super) fn apply_events(&self, c: &mut Core, env: &mut Env<'_>) {
        while let Some(f) = glue::ClosedFile::pop() {
            c.release(env, f.client());
        }
        c.apply_events(env, &self.exits);
    }

    /// Applies the hand-overs that any caller may apply (update lock held; open, LIST, STATUS
    /// and STATS, from callers of any class, before they act): the handed-over files and owner
    /// exits whose removal keeps the decision ([`Core::release_keeps_decision`]: no publish, no
    /// submit, no boost; U5). So a client whose file is released, or whose owner has exited, is
    /// not in their replies, except the running real-time segment's: its removal changes what
    /// the driver lists, which only an update may do (the next real-time update or the work
    /// item, kicked again here); until then its TSGs still hold the GPU and the replies say so.
    pub(super) fn apply_releases(&self, c: &mut Core, env: &mut Env<'_>) {
        let mut left = None;
        while let Some(f) = glue::ClosedFile::pop() {
            if c.release_keeps_decision(f.client()) {
                c.release(env, f.client());
            } else if left.is_none() {
                left = Some(f);
            } else {
                // Not reached: only the running segment's removal changes the decision, and
                // one client has one file. Left for an update too.
                f.unpop();
                break;
            }
        }
        let mut kick = c.apply_exits_keeping(env, &self.exits);
        if let Some(f) = left {
            f.unpop();
            kick = true;
        }
        if kick {
            glue::kick_work();
        }
    }

    /// The file's last reference is gone: end the open segment and remove the client (if the
    /// owner's exit has not done so). An update like a begin/end: a real-time closer is raised
    /// to the ceiling (a failed or interrupted raise only loses it) and waits its turn among
    /// the updaters there (bounded, U1), so a killed real-time owner ends its segment itself.
    /// Below the ceiling a closer never waits for the update lock, alive or dying: it takes
    /// the lock only if nobody owns it or waits for it. Otherwise (or if a fatal signal ended
    /// a real-time closer's wait) the removal is handed over: this returns false, and the C
    /// side keeps the file's record (its client names its pid reference) on the list
    /// [`State::apply_events`] drains: the next real-time update, or the work item (kicked);
    /// LIST, STATUS and STATS apply it first if it keeps the decision
    /// ([`State::apply_releases`]), and so does an open before it counts the clients.
    pub(super) fn release(&self, client: ClientRef) -> bool {
        let rt = glue::current_sched().classify().is_rt();
        let raise_at = now_ns();
        let ceiling = if rt {
            Ceiling::raise(&self.sched).ok()
        } else {
            None
        };
        let raise_ns = now_ns().saturating_sub(raise_at);
        let locked = match (ceiling.is_some(), glue::current_exiting()) {
            // Its turn among the updaters at the ceiling (on 5.10 an interruptible wait would
            // end at once: the group's SIGKILL is still pending in the exit).
            (true, true) => Some(self.update.lock()),
            (true, false) => self.update.lock_killable().ok(),
            (false, _) => self.update.try_lock_free(),
        };
        let Some(mut locked) = locked else {
            return false;
        };
        // A real-time closer's removal is an update at the ceiling like a begin/end.
        let cost = ceiling
            .is_some()
            .then(|| CostStart::ceiling(&mut locked.core, raise_ns));
        locked.with(self.env(), |c, env| {
            if rt {
                self.apply_events(c, env);
            }
            c.release(env, client);
        });
        let applied = locked.core.take_applied();
        drop(locked);
        drop(ceiling);
        if let Some(c) = cost {
            c.record(&self.costs, applied);
        }
        true
    }
}
