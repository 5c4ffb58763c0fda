// SPDX-License-Identifier: GPL-2.0

//! Holder boost and the update ceiling: the one owner of "a thread's own scheduling
//! parameters" while gcaps has changed them (issue 20, `docs/module.md`, "Holder boost").
//!
//! gcaps changes a thread's policy and priority in two layers:
//! * the **ceiling** (U2): a real-time caller runs its own update at SCHED_FIFO `update_prio`
//!   and returns from it afterwards (raised before the update lock, restored after it);
//! * the **holder boost**: the owner thread of the running real-time segment (the thread that
//!   called its begin) runs at SCHED_FIFO `boost_prio`; applied and removed inside the updates
//!   that change the running segment, possibly from another thread's update.
//!
//! [`Holder`] decides both, from the parameters the host reads from the task under the host's
//! lock that serialises every change gcaps makes to a thread's parameters (the device's sched
//! lock): at most one thread is boosted at any time (there is one running segment), so one
//! record says which thread it is and what it returns to. The host performs the [`Set`]s the
//! methods return, under the same lock (so a decision and its effect are atomic with respect
//! to every other decision). The rules:
//!
//! 1. **Boost.** The new holder's live parameters, if SCHED_FIFO/SCHED_RR below `boost_prio`,
//!    become SCHED_FIFO `boost_prio` (`Set`), and what it had is its *own*. A thread at or above
//!    `boost_prio` (including one inside its ceiling, at `update_prio`) is left alone now
//!    (`Deferred`): if it is inside its update, the return from its ceiling applies the boost
//!    (with the parameters its ceiling saved as its own). A thread that is not real-time (it
//!    left SCHED_FIFO/SCHED_RR after its begin) is never boosted (`Kept`).
//! 2. **Ceiling of a boosted thread.** Its own parameters (not the boost) are what its ceiling
//!    saves, so an update that ends the boost returns it to its own priority, not to
//!    `boost_prio`; an update that keeps it boosted returns it to `boost_prio`.
//! 3. **User changes win.** If, when gcaps would undo its change, the thread no longer runs at
//!    exactly what gcaps set (SCHED_FIFO `boost_prio` for a boost, SCHED_FIFO `update_prio` for
//!    a ceiling), somebody (the thread itself, another thread, an administrator) changed its
//!    parameters meanwhile: they stay, and a boosted thread stays unboosted for the rest of that
//!    segment's run (`Kept`). The check and the change are atomic with respect to gcaps's own
//!    changes only: a setter that lands in between, or that sets exactly what gcaps set, is
//!    overwritten (last writer wins, as between any two setters).
//! 4. **Tail rule** (boost on): a thread that loses the boost or returns from the ceiling to
//!    its own priority goes to the tail of its priority level ([`Set::tail`]; the host knows
//!    how), not the head where Linux puts a lowered priority.

/// `SCHED_FIFO`.
pub const SCHED_FIFO: i32 = 1;
/// `SCHED_RR`.
pub const SCHED_RR: i32 = 2;

/// An opaque host token for a thread (the kernel's `struct task_struct *`), valid while the
/// core holds a counted reference to it. 0: none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskToken(pub usize);

impl TaskToken {
    /// Whether this names a thread.
    pub fn is_some(self) -> bool {
        self.0 != 0
    }
}

/// A thread's scheduling parameters as gcaps reads and sets them (never SCHED_DEADLINE: a
/// thread in that class is never raised nor boosted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// `SCHED_*`.
    pub policy: i32,
    /// `rt_priority` (0 for non-real-time policies).
    pub prio: i32,
    /// `SCHED_RESET_ON_FORK`, kept across every change.
    pub reset_on_fork: bool,
}

impl Params {
    /// SCHED_FIFO `prio`, keeping `reset_on_fork` of `like`.
    pub fn fifo(prio: i32, like: Params) -> Self {
        Self {
            policy: SCHED_FIFO,
            prio,
            reset_on_fork: like.reset_on_fork,
        }
    }

    /// SCHED_FIFO or SCHED_RR.
    pub fn is_rt(self) -> bool {
        self.policy == SCHED_FIFO || self.policy == SCHED_RR
    }

    /// Real-time at `prio` or above.
    pub fn rt_at_least(self, prio: i32) -> bool {
        self.is_rt() && self.prio >= prio
    }

    /// Runs at exactly SCHED_FIFO `prio` (what gcaps sets), whatever `reset_on_fork`.
    fn is_fifo(self, prio: i32) -> bool {
        self.policy == SCHED_FIFO && self.prio == prio
    }
}

/// A change for the host to apply to a thread now (under its lock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Set {
    /// The parameters to set.
    pub params: Params,
    /// Place the thread at the tail of its new priority level (the tail rule), not where
    /// Linux puts it by itself (the head for a lowered priority).
    pub tail: bool,
}

/// What a thread's ceiling saved: what it returns to, if it was raised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Saved {
    /// `None`: the thread already ran at or above the ceiling (not raised, nothing to restore).
    pub own: Option<Params>,
}

/// The boosted thread's record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Nobody is boosted.
    #[default]
    None,
    /// `task` runs at SCHED_FIFO `boost_prio` (gcaps set it); `own` is what it returns to.
    Set { task: TaskToken, own: Params },
    /// `task` was `Set` and is inside its own update (at the ceiling), whose saved parameters
    /// are `own` (its own, not the boost).
    InCeiling { task: TaskToken, own: Params },
    /// `task` is the holder but was at or above `boost_prio` when boosted (inside its ceiling,
    /// or by itself): the return from its ceiling, if it is in one, applies the boost.
    Deferred { task: TaskToken },
    /// `task` is the holder, but its parameters are its own (a user change, or not real-time):
    /// nothing to undo when the boost ends.
    Kept { task: TaskToken },
}

impl State {
    fn task(self) -> Option<TaskToken> {
        match self {
            State::None => None,
            State::Set { task, .. }
            | State::InCeiling { task, .. }
            | State::Deferred { task }
            | State::Kept { task } => Some(task),
        }
    }
}

/// The record of the boosted thread and the rules above. All-zero (`Default`) is "boost off,
/// nobody boosted"; the host configures it at load with [`Holder::new`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Holder {
    /// SCHED_FIFO priority of the holder; 0: boosting is off (the ceiling alone, as before).
    boost_prio: i32,
    /// The update ceiling (`update_prio`).
    ceiling: i32,
    state: State,
}

impl Holder {
    /// `boost_prio` 0 turns boosting (and the tail rule) off; else `0 < boost_prio < ceiling`
    /// (checked by the caller at load).
    pub const fn new(boost_prio: i32, ceiling: i32) -> Self {
        Self {
            boost_prio,
            ceiling,
            state: State::None,
        }
    }

    /// Whether boosting is on.
    pub fn on(&self) -> bool {
        self.boost_prio > 0
    }

    /// The holder's SCHED_FIFO priority (0: boosting off).
    pub fn prio(&self) -> i32 {
        self.boost_prio
    }

    /// The thread the module counts as boosted now (its parameters are, or will be when it
    /// leaves its ceiling, SCHED_FIFO `boost_prio`): not a `Kept` holder.
    pub fn boosted(&self) -> Option<TaskToken> {
        match self.state {
            State::Set { task, .. } | State::InCeiling { task, .. } | State::Deferred { task } => {
                Some(task)
            }
            State::None | State::Kept { .. } => None,
        }
    }

    /// Whether `t` (parameters `live`) is boosted now: the holder, and (if gcaps set its
    /// parameters) still at them; a holder that changed its own since is not.
    pub fn is_boosted(&self, t: TaskToken, live: Params) -> bool {
        match self.state {
            State::Set { task, .. } => task == t && live.is_fifo(self.boost_prio),
            State::InCeiling { task, .. } | State::Deferred { task } => task == t,
            State::None | State::Kept { .. } => false,
        }
    }

    /// The calling thread `cur`'s own parameters (what it runs at without gcaps's change): its
    /// `live` ones, or, while gcaps boosts it, what it returns to. A begin is judged by these
    /// (class, inherited GPU priority, permission), never by the boost.
    pub fn own_of(&self, cur: TaskToken, live: Params) -> Params {
        match self.state {
            State::Set { task, own } if task == cur && live.is_fifo(self.boost_prio) => own,
            _ => live,
        }
    }

    /// The calling thread `cur` (parameters `live`) raises itself to the ceiling: returns what
    /// its ceiling saves and the change to make now (`None`: already at or above the ceiling).
    pub fn raise(&mut self, cur: TaskToken, live: Params) -> (Saved, Option<Set>) {
        let mut own = live;
        if self.state.task() == Some(cur) {
            match self.state {
                State::Set { task, own: o } if live.is_fifo(self.boost_prio) => {
                    // Rule 2: its ceiling saves its own parameters, not the boost.
                    self.state = State::InCeiling { task, own: o };
                    own = o;
                }
                State::Set { task, .. } => {
                    // Rule 3: changed since gcaps boosted it; theirs stays.
                    self.state = State::Kept { task };
                }
                State::InCeiling { own: o, .. } => own = o,
                _ => {}
            }
        }
        if live.rt_at_least(self.ceiling) {
            return (Saved { own: None }, None);
        }
        let set = Set {
            params: Params::fifo(self.ceiling, live),
            tail: false,
        };
        (Saved { own: Some(own) }, Some(set))
    }

    /// The calling thread `cur` (parameters `live`) leaves the ceiling it raised with `saved`:
    /// the change to make now, if any.
    pub fn restore(&mut self, cur: TaskToken, saved: Saved, live: Params) -> Option<Set> {
        let tail = self.on();
        let raised = saved.own.is_some();
        if raised && !live.is_fifo(self.ceiling) {
            // Rule 3: changed during the update; theirs stays (and it stays unboosted).
            if self.state.task() == Some(cur) {
                self.state = State::Kept { task: cur };
            }
            return None;
        }
        let own = saved.own.unwrap_or(live);
        if self.state.task() == Some(cur) {
            match self.state {
                State::InCeiling { task, .. } | State::Deferred { task } => {
                    if own.is_rt() && !own.rt_at_least(self.boost_prio) {
                        self.state = State::Set { task, own };
                        // Only the boosted thread runs at `boost_prio`: no tail to choose.
                        return raised.then_some(Set {
                            params: Params::fifo(self.boost_prio, own),
                            tail: false,
                        });
                    }
                    // At or above `boost_prio` by itself, or no longer real-time: its own.
                    self.state = State::Kept { task };
                }
                _ => {}
            }
        }
        saved.own.map(|params| Set { params, tail })
    }

    /// `task` (parameters `live`) becomes the holder. The caller has ended any previous
    /// holder's boost ([`Holder::unboost`]). Returns the change to make now.
    pub fn boost(&mut self, task: TaskToken, live: Params) -> Option<Set> {
        if !self.on() || !task.is_some() {
            return None;
        }
        if !live.is_rt() {
            self.state = State::Kept { task };
            return None;
        }
        if live.rt_at_least(self.boost_prio) {
            self.state = State::Deferred { task };
            return None;
        }
        self.state = State::Set { task, own: live };
        Some(Set {
            params: Params::fifo(self.boost_prio, live),
            tail: false,
        })
    }

    /// `task` (parameters `live`) stops being the holder. Returns the change to make now and
    /// the priority it returns to (for the trace; `None`: gcaps leaves its parameters as they
    /// are, or its own update's ceiling restores them and they are not known here).
    pub fn unboost(&mut self, task: TaskToken, live: Params) -> (Option<Set>, Option<i32>) {
        if self.state.task() != Some(task) {
            return (None, None);
        }
        let state = core::mem::take(&mut self.state);
        match state {
            State::Set { own, .. } if live.is_fifo(self.boost_prio) => (
                Some(Set {
                    params: own,
                    tail: true,
                }),
                Some(own.prio),
            ),
            // Its ceiling holds its own parameters and restores them (rule 2).
            State::InCeiling { own, .. } => (None, Some(own.prio)),
            _ => (None, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: TaskToken = TaskToken(0x1000);
    const Y: TaskToken = TaskToken(0x2000);

    fn fifo(p: i32) -> Params {
        Params {
            policy: SCHED_FIFO,
            prio: p,
            reset_on_fork: false,
        }
    }

    fn rr(p: i32) -> Params {
        Params {
            policy: SCHED_RR,
            prio: p,
            reset_on_fork: false,
        }
    }

    fn set(p: Params, tail: bool) -> Option<Set> {
        Some(Set { params: p, tail })
    }

    /// A thread with the parameters gcaps and the user give it.
    struct Thread {
        tok: TaskToken,
        live: Params,
        saved: Option<Saved>,
    }

    impl Thread {
        fn new(tok: TaskToken, live: Params) -> Self {
            Self {
                tok,
                live,
                saved: None,
            }
        }
        fn apply(&mut self, s: Option<Set>) {
            if let Some(s) = s {
                self.live = s.params;
            }
        }
        fn raise(&mut self, h: &mut Holder) {
            let (saved, s) = h.raise(self.tok, self.live);
            self.saved = Some(saved);
            self.apply(s);
        }
        fn restore(&mut self, h: &mut Holder) -> Option<Set> {
            let s = h.restore(self.tok, self.saved.take().unwrap_or_default(), self.live);
            self.apply(s);
            s
        }
        fn boost(&mut self, h: &mut Holder) {
            let s = h.boost(self.tok, self.live);
            self.apply(s);
        }
        fn unboost(&mut self, h: &mut Holder) -> Option<i32> {
            let (s, p) = h.unboost(self.tok, self.live);
            self.apply(s);
            p
        }
    }

    #[test]
    fn remote_boost_and_unboost_return_to_own_at_the_tail() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, rr(10));
        x.boost(&mut h);
        assert_eq!(x.live, fifo(98));
        assert_eq!(h.boosted(), Some(X));
        let (s, p) = h.unboost(X, x.live);
        assert_eq!((s, p), (set(rr(10), true), Some(10)));
        assert_eq!(h.boosted(), None);
    }

    #[test]
    fn own_begin_boosts_at_the_return_from_the_ceiling() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.raise(&mut h);
        assert_eq!(x.live, fifo(99));
        x.boost(&mut h); // inside its update: deferred
        assert_eq!(x.live, fifo(99));
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
        assert_eq!(h.boosted(), Some(X));
        // Its end: 98 -> 99 -> its own 10 (not 98), at the tail.
        x.raise(&mut h);
        assert_eq!(x.live, fifo(99));
        assert_eq!(x.unboost(&mut h), Some(10));
        assert_eq!(x.live, fifo(99), "the ceiling stays during the update");
        assert_eq!(x.restore(&mut h), set(fifo(10), true));
        assert_eq!(x.live, fifo(10));
    }

    #[test]
    fn an_update_that_keeps_the_boost_returns_to_the_boost() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.raise(&mut h);
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
        assert_eq!(x.unboost(&mut h), Some(10));
        assert_eq!(x.live, fifo(10));
    }

    #[test]
    fn remote_unboost_of_a_thread_in_its_ceiling_leaves_the_ceiling() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        let mut y = Thread::new(Y, fifo(20));
        x.boost(&mut h);
        x.raise(&mut h); // waits for the lock at 99
        x.unboost(&mut h); // another update hands the GPU to y
        y.boost(&mut h);
        assert_eq!(x.live, fifo(99));
        assert_eq!(y.live, fifo(98));
        assert_eq!(x.restore(&mut h), set(fifo(10), true));
        assert_eq!(h.boosted(), Some(Y));
        // ... and boosted again while in its ceiling.
        y.unboost(&mut h);
        assert_eq!(y.live, fifo(20));
        x.raise(&mut h);
        x.boost(&mut h);
        assert_eq!(x.live, fifo(99));
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
    }

    #[test]
    fn a_user_change_while_boosted_stays() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.live = fifo(20); // sched_setscheduler by the thread
        assert_eq!(x.unboost(&mut h), None);
        assert_eq!(x.live, fifo(20));
        // Changed, then an update of its own: it keeps 20, and is not boosted again.
        x.boost(&mut h);
        x.live = fifo(30);
        x.raise(&mut h);
        assert_eq!(h.boosted(), None);
        assert_eq!(x.restore(&mut h), set(fifo(30), true));
        assert_eq!(x.live, fifo(30));
        assert_eq!(h.boosted(), None);
        x.unboost(&mut h);
        assert_eq!(x.live, fifo(30));
        // Changed during its update (at the ceiling): theirs stays.
        x.boost(&mut h);
        x.raise(&mut h);
        x.live = rr(5);
        assert_eq!(x.restore(&mut h), None);
        assert_eq!(x.unboost(&mut h), None);
        assert_eq!(x.live, rr(5));
    }

    #[test]
    fn threads_at_or_above_the_boost_and_best_effort_are_left_alone() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(98));
        x.boost(&mut h);
        assert_eq!(x.live, fifo(98));
        assert_eq!(x.unboost(&mut h), None);
        assert_eq!(x.live, fifo(98));
        let other = Params::default();
        let mut y = Thread::new(Y, other);
        y.boost(&mut h);
        assert_eq!(h.boosted(), None);
        assert_eq!(y.unboost(&mut h), None);
        assert_eq!(y.live, other);
        // Already at the ceiling: not raised, nothing restored.
        let mut z = Thread::new(X, fifo(99));
        z.raise(&mut h);
        assert_eq!(z.live, fifo(99));
        assert_eq!(z.restore(&mut h), None);
    }

    #[test]
    fn a_boosted_thread_is_judged_by_its_own_parameters() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        assert!(h.is_boosted(X, x.live));
        assert_eq!(h.own_of(X, x.live), fifo(10));
        assert_eq!(h.own_of(Y, fifo(98)), fifo(98));
        x.live = fifo(20);
        assert!(!h.is_boosted(X, x.live));
        assert_eq!(h.own_of(X, x.live), fifo(20));
    }

    #[test]
    fn boost_off_is_the_old_ceiling() {
        let mut h = Holder::new(0, 99);
        let mut x = Thread::new(X, rr(10));
        x.boost(&mut h);
        assert_eq!(x.live, rr(10));
        x.raise(&mut h);
        assert_eq!(x.live, fifo(99));
        assert_eq!(x.restore(&mut h), set(rr(10), false));
    }

    #[test]
    fn reset_on_fork_is_kept() {
        let mut h = Holder::new(98, 99);
        let own = Params {
            policy: SCHED_RR,
            prio: 10,
            reset_on_fork: true,
        };
        let mut x = Thread::new(X, own);
        x.boost(&mut h);
        assert!(x.live.reset_on_fork);
        x.raise(&mut h);
        assert!(x.live.reset_on_fork);
        x.unboost(&mut h);
        assert_eq!(x.restore(&mut h), set(own, true));
    }
}
