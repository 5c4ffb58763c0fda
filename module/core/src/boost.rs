// SPDX-License-Identifier: GPL-2.0

//! Holder boost and the update ceiling: the one owner of "a thread's own scheduling
//! parameters" while gcaps has changed them (issues 20 and 28, `docs/module.md`, "Holder
//! boost").
//!
//! gcaps changes a thread's policy and priority in two layers over its *own* parameters (its
//! last requested ones: the last change somebody else than gcaps made, the thread itself,
//! another thread or an administrator, else what it had before gcaps changed it):
//! * the **ceiling** (U2): a real-time caller runs its own update at SCHED_FIFO `update_prio`
//!   and returns from it afterwards (raised before the update lock, restored after it);
//! * the **holder boost**: the owner thread of the running real-time segment (the thread that
//!   called its begin) runs at SCHED_FIFO `boost_prio` while it holds the GPU, if its own
//!   parameters are SCHED_FIFO/SCHED_RR below `boost_prio`; applied and removed inside the
//!   updates that change the running segment, possibly from another thread's update.
//!
//! The host reads a thread's parameters and applies the [`Set`]s the methods return under
//! the host's lock that serialises every change gcaps makes to a thread's parameters (the
//! device's sched lock), so each decision and its effect are atomic with respect to every
//! other decision. Every decision compares the thread's live parameters with what gcaps
//! last wrote to it: if they differ, somebody changed them since, and that change is its own
//! parameters from then on. What gcaps last wrote is recorded in exactly one place:
//! * for the holder (at most one thread: there is one running segment), in [`Holder`]'s
//!   record, if gcaps's last change to it is the boost ([`State::Boosted`]) or the ceiling it
//!   raised itself to while boosted ([`State::Raised`]);
//! * otherwise, for a thread inside its own update, in its ceiling's [`Saved`] (what it was
//!   raised from, if it was raised).
//!
//! The ceiling's record lives with the thread's update, so a boost or an unboost from
//! another thread's update cannot see it: such a decision compares the live parameters with
//! the boost's own record only (a thread at the ceiling is above `boost_prio` and is left
//! alone), and the return from the ceiling reconciles the two: the holder record is the later
//! one whenever it says the boost was written (a raise turns the record of a boosted thread
//! into [`State::Raised`], so a `Boosted` record at the return was written inside the
//! update). The rules:
//!
//! 1. **Last request wins.** At each decision gcaps sets a thread to what its layers say over
//!    its own parameters: the ceiling inside its own update if it was raised and nobody changed
//!    it since; else the boost if it holds the GPU and its own parameters are real-time below
//!    `boost_prio`; else its own. Between decisions a change stays as it is made (a change
//!    during its update makes the rest of that update run at it). So the return from the
//!    ceiling and the unboost land on the last request; the return from the ceiling of a
//!    holder boosts it over a change made meanwhile.
//! 2. **Indistinguishable changes.** A change that sets exactly what gcaps set (SCHED_FIFO
//!    `boost_prio` over a boost, SCHED_FIFO `update_prio` over a ceiling), or that lands
//!    between gcaps's read and its write, is not seen: gcaps's next decision treats the thread
//!    as still at its write (last writer wins, as between any two setters).
//! 3. **Tail rule** (boost on): a thread that loses the boost or returns from the ceiling to
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

/// A thread's ceiling: what it was raised from, if gcaps raised it (then gcaps's last change
/// to it is SCHED_FIFO `update_prio`, unless the holder record says later).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Saved {
    /// Its own parameters when it was raised; `None`: it already ran at or above the ceiling
    /// (not raised).
    pub own: Option<Params>,
}

/// The holder record: which thread holds the GPU, and whether gcaps's last change to it is
/// the boost (or the ceiling over the boost).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Nobody holds the GPU (or boosting is off).
    #[default]
    None,
    /// `task` holds the GPU; gcaps's last change to it set SCHED_FIFO `boost_prio` over
    /// `own`, its own parameters then.
    Boosted { task: TaskToken, own: Params },
    /// `task` holds the GPU and raised itself to its ceiling while boosted: gcaps's last
    /// change to it is the ceiling, over `own` (what its [`Saved`] holds too; here for the
    /// unboost's report).
    Raised { task: TaskToken, own: Params },
    /// `task` holds the GPU, and gcaps's last change to it, if any, is not the boost: it runs
    /// at its own parameters (at or above `boost_prio`, not real-time, or changed while
    /// boosted), or, inside its own update, at what its ceiling left (its [`Saved`] knows).
    Held { task: TaskToken },
}

impl State {
    fn task(self) -> Option<TaskToken> {
        match self {
            State::None => None,
            State::Boosted { task, .. } | State::Raised { task, .. } | State::Held { task } => {
                Some(task)
            }
        }
    }
}

/// The record of the holder and the rules above. All-zero (`Default`) is "boost off, nobody
/// boosted"; the host configures it at load with [`Holder::new`].
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

    /// The boost over `own` (a holder's own parameters), if it applies: `own` is real-time
    /// below `boost_prio` (and boosting is on).
    fn over(&self, own: Params) -> Option<Params> {
        (self.on() && own.is_rt() && !own.rt_at_least(self.boost_prio))
            .then(|| Params::fifo(self.boost_prio, own))
    }

    /// The thread the module counts as boosted now (gcaps set it to SCHED_FIFO `boost_prio`,
    /// or its ceiling is over that boost).
    pub fn boosted(&self) -> Option<TaskToken> {
        match self.state {
            State::Boosted { task, .. } | State::Raised { task, .. } => Some(task),
            State::None | State::Held { .. } => None,
        }
    }

    /// Whether `t` (parameters `live`) is boosted now: the holder, still at the boost gcaps
    /// set (or in the ceiling it raised itself to over it); a holder that changed its own
    /// since is not.
    pub fn is_boosted(&self, t: TaskToken, live: Params) -> bool {
        match self.state {
            State::Boosted { task, .. } => task == t && live.is_fifo(self.boost_prio),
            State::Raised { task, .. } => task == t,
            State::None | State::Held { .. } => false,
        }
    }

    /// The calling thread `cur`'s own parameters (what it runs at without gcaps's change): its
    /// `live` ones, or, while gcaps boosts it, what it returns to. A begin is judged by these
    /// (class, inherited GPU priority, permission), never by the boost.
    pub fn own_of(&self, cur: TaskToken, live: Params) -> Params {
        match self.state {
            State::Boosted { task, own } if task == cur && live.is_fifo(self.boost_prio) => own,
            _ => live,
        }
    }

    /// The calling thread `cur` (parameters `live`, outside any update of its own) raises
    /// itself to the ceiling: returns what its ceiling saves and the change to make now
    /// (`None`: already at or above the ceiling).
    pub fn raise(&mut self, cur: TaskToken, live: Params) -> (Saved, Option<Set>) {
        let raised = !live.rt_at_least(self.ceiling);
        let own = match self.state {
            State::Boosted { task, own } if task == cur && live.is_fifo(self.boost_prio) => {
                // The ceiling is gcaps's last change from now on (rule 1: over its own).
                self.state = State::Raised { task, own };
                own
            }
            // Changed since the boost (the change is its own), or not boosted.
            State::Boosted { task, .. } | State::Raised { task, .. } | State::Held { task }
                if task == cur =>
            {
                self.state = State::Held { task };
                live
            }
            _ => live,
        };
        if !raised {
            return (Saved { own: None }, None);
        }
        let set = Set {
            params: Params::fifo(self.ceiling, own),
            tail: false,
        };
        (Saved { own: Some(own) }, Some(set))
    }

    /// The calling thread `cur` (parameters `live`) leaves the ceiling it raised with `saved`:
    /// the change to make now, if any.
    pub fn restore(&mut self, cur: TaskToken, saved: Saved, live: Params) -> Option<Set> {
        // gcaps's last change to `cur`, and the own parameters it was made over: the boost's
        // if the boost was written inside this update, else the ceiling's (if it raised).
        let (wrote, own) = match self.state {
            State::Boosted { task, own } if task == cur => (Some(self.boost_prio), own),
            _ => (saved.own.map(|_| self.ceiling), saved.own.unwrap_or(live)),
        };
        // A change since then is its own (rule 1).
        let own = match wrote {
            Some(prio) if live.is_fifo(prio) => own,
            _ => live,
        };
        let holder = self.state.task() == Some(cur);
        let boost = if holder { self.over(own) } else { None };
        if holder {
            self.state = match boost {
                Some(_) => State::Boosted { task: cur, own },
                None => State::Held { task: cur },
            };
        }
        let (params, tail) = match boost {
            // Only the holder runs at `boost_prio`: no tail to choose.
            Some(b) => (b, false),
            None => (own, self.on()),
        };
        (params != live).then_some(Set { params, tail })
    }

    /// `task` (parameters `live`) becomes the holder. The caller has ended any previous
    /// holder's boost ([`Holder::unboost`]). Returns the change to make now.
    ///
    /// If `task` is inside its own update, its ceiling is not known here: raised and not
    /// changed since, it runs at the ceiling, above `boost_prio`, and is left to the return
    /// from its ceiling; changed, the change is its own and is boosted over now.
    pub fn boost(&mut self, task: TaskToken, live: Params) -> Option<Set> {
        if !self.on() || !task.is_some() {
            return None;
        }
        match self.over(live) {
            Some(params) => {
                self.state = State::Boosted { task, own: live };
                Some(Set {
                    params,
                    tail: false,
                })
            }
            None => {
                self.state = State::Held { task };
                None
            }
        }
    }

    /// `task` (parameters `live`) stops being the holder. Returns the change to make now and
    /// the priority it returns to (for the trace; `None`: gcaps leaves its parameters as they
    /// are, which are its own or the ceiling of an update of its own that restores them).
    pub fn unboost(&mut self, task: TaskToken, live: Params) -> (Option<Set>, Option<i32>) {
        if self.state.task() != Some(task) {
            return (None, None);
        }
        match core::mem::take(&mut self.state) {
            State::Boosted { own, .. } if live.is_fifo(self.boost_prio) => (
                Some(Set {
                    params: own,
                    tail: true,
                }),
                Some(own.prio),
            ),
            // Its ceiling holds its own parameters and restores them.
            State::Raised { own, .. } if live.is_fifo(self.ceiling) => (None, Some(own.prio)),
            _ => (None, None),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::collections::{HashSet, VecDeque};
    use std::vec::Vec;

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

    fn other() -> Params {
        Params::default()
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

    // ---- the paths of docs/module.md's table ("Holder boost", "A change of parameters
    // meets the ceiling and the boost"), one test or assertion each, in its order.

    /// Path 1: no change; the holder's own begin and end.
    #[test]
    fn own_begin_boosts_at_the_return_from_the_ceiling() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.raise(&mut h);
        assert_eq!(x.live, fifo(99));
        x.boost(&mut h); // inside its update: the ceiling stays
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

    /// Path 2: boosted and unboosted by other threads' updates, outside its own.
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

    /// Path 3: an update of its own that keeps the boost returns to the boost.
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

    /// Paths 4 and 5: a change while boosted (by the thread or another), outside any update:
    /// it stays, and is what the unboost leaves (remote or in its own end).
    #[test]
    fn a_change_while_boosted_is_what_the_unboost_leaves() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.live = fifo(20);
        assert!(!h.is_boosted(X, x.live));
        assert_eq!(h.own_of(X, x.live), fifo(20));
        assert_eq!(x.unboost(&mut h), None, "remote end: left alone");
        assert_eq!(x.live, fifo(20));
        // The same with its own end (raise, unboost, restore).
        x.boost(&mut h);
        assert_eq!(x.live, fifo(98));
        x.live = rr(30);
        x.raise(&mut h);
        assert_eq!(x.live, fifo(99));
        assert_eq!(x.unboost(&mut h), None);
        assert_eq!(x.restore(&mut h), set(rr(30), true));
        assert_eq!(x.live, rr(30));
        assert_eq!(h.boosted(), None);
    }

    /// Path 6: a change while boosted, then an update of its own while it still holds the GPU:
    /// the return from the ceiling boosts it over the change; its end leaves the change.
    #[test]
    fn a_change_while_boosted_then_an_own_update_boosts_over_it() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.live = fifo(20);
        x.raise(&mut h);
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
        assert!(h.is_boosted(X, x.live));
        assert_eq!(h.own_of(X, x.live), fifo(20));
        x.raise(&mut h);
        assert_eq!(x.unboost(&mut h), Some(20));
        assert_eq!(x.restore(&mut h), set(fifo(20), true));
    }

    /// Path 7 (issue 28 item 6): another process changes the thread during its begin's update,
    /// before the boost (the boost comes after the pending wait): the boost applies over the
    /// change, the end returns to the change.
    #[test]
    fn a_change_in_the_update_before_the_boost_is_what_the_end_returns_to() {
        for (boost, ceiling) in [(49, 50), (98, 99)] {
            let mut h = Holder::new(boost, ceiling);
            let mut x = Thread::new(X, fifo(10));
            x.raise(&mut h);
            x.live = fifo(20); // sched_setscheduler(x, FIFO 20) by another process
            x.boost(&mut h);
            assert_eq!(x.live, fifo(boost));
            assert_eq!(x.restore(&mut h), None, "it holds the GPU: the boost stays");
            assert_eq!(x.live, fifo(boost));
            assert!(h.is_boosted(X, x.live));
            assert_eq!(h.own_of(X, x.live), fifo(20));
            // Its end.
            x.raise(&mut h);
            assert_eq!(x.live, fifo(ceiling));
            assert_eq!(x.unboost(&mut h), Some(20));
            assert_eq!(x.restore(&mut h), set(fifo(20), true));
            assert_eq!(
                x.live,
                fifo(20),
                "boost {boost}: not back at its last request"
            );
            // ... and the end by another thread (the owner's second thread): the same.
            let mut x = Thread::new(X, fifo(10));
            x.raise(&mut h);
            x.live = fifo(20);
            x.boost(&mut h);
            x.restore(&mut h);
            assert_eq!(x.unboost(&mut h), Some(20));
            assert_eq!(x.live, fifo(20), "boost {boost}: remote end");
        }
    }

    /// Path 8: a change in its update after the boost (deferred at the ceiling): the return
    /// from the ceiling boosts over the change; a change to at or above the boost, or out of
    /// real time, stays as it is.
    #[test]
    fn a_change_in_the_update_after_the_boost() {
        for (change, after) in [
            (fifo(20), fifo(98)),
            (rr(98), rr(98)),
            (fifo(99), fifo(10)), // what gcaps set: indistinguishable, the ceiling's restore
            (rr(99), rr(99)),
            (other(), other()),
        ] {
            let mut h = Holder::new(98, 99);
            let mut x = Thread::new(X, fifo(10));
            x.raise(&mut h);
            x.boost(&mut h);
            assert_eq!(x.live, fifo(99));
            x.live = change;
            x.restore(&mut h);
            let after = if change == fifo(99) { fifo(98) } else { after };
            assert_eq!(x.live, after, "change {change:?}");
            x.raise(&mut h);
            x.unboost(&mut h);
            x.restore(&mut h);
            let last = if change == fifo(99) { fifo(10) } else { change };
            assert_eq!(x.live, last, "change {change:?}: its end");
        }
    }

    /// Path 9: a change in an update that does not touch the holder (not the winner, or
    /// boosting off): theirs stays, the ceiling's restore does nothing.
    #[test]
    fn a_change_in_an_update_without_boost_stays() {
        for b in [0, 98] {
            let mut h = Holder::new(b, 99);
            let mut x = Thread::new(X, fifo(10));
            x.raise(&mut h);
            x.live = rr(5);
            assert_eq!(x.restore(&mut h), None);
            assert_eq!(x.live, rr(5));
        }
    }

    /// Path 10: a change in the holder's own update that ends its boost (its end): the change
    /// stays (the unboost and the restore see it).
    #[test]
    fn a_change_in_the_end_of_the_holder_stays() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.raise(&mut h);
        x.live = fifo(20); // before the unboost
        assert_eq!(x.unboost(&mut h), None, "left as it is");
        assert_eq!(x.restore(&mut h), None);
        assert_eq!(x.live, fifo(20));
        x.boost(&mut h);
        x.raise(&mut h);
        x.unboost(&mut h);
        x.live = fifo(30); // after the unboost
        assert_eq!(x.restore(&mut h), None);
        assert_eq!(x.live, fifo(30));
    }

    /// Path 11: a change in the holder's own update that keeps the boost: the return from
    /// the ceiling boosts over it.
    #[test]
    fn a_change_in_an_update_that_keeps_the_boost() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.raise(&mut h);
        x.live = fifo(20);
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
        assert_eq!(x.unboost(&mut h), Some(20));
        assert_eq!(x.live, fifo(20));
    }

    /// Paths 12-13: waiting for the update lock at the ceiling, unboosted or boosted by
    /// another thread's update, no change: it leaves the ceiling for its own or the boost.
    #[test]
    fn remote_unboost_and_boost_of_a_thread_in_its_ceiling() {
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

    /// Path 14: waiting at the ceiling, changed, then boosted by another thread's update: the
    /// boost applies over the change and stays at the return from the ceiling; the end
    /// returns to the change.
    #[test]
    fn a_change_at_the_ceiling_then_a_remote_boost() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.raise(&mut h);
        x.live = fifo(20);
        x.boost(&mut h);
        assert_eq!(x.live, fifo(98));
        assert_eq!(x.restore(&mut h), None);
        assert_eq!(x.live, fifo(98));
        x.raise(&mut h);
        x.unboost(&mut h);
        x.restore(&mut h);
        assert_eq!(x.live, fifo(20));
        // Changed, boosted, unboosted, all before it has the lock: the change.
        x.raise(&mut h);
        x.live = rr(30);
        x.boost(&mut h);
        assert_eq!(x.unboost(&mut h), Some(30));
        assert_eq!(x.live, rr(30));
        assert_eq!(x.restore(&mut h), None);
        assert_eq!(x.live, rr(30));
    }

    /// Path 15: waiting at the ceiling, changed, then unboosted by another thread's update:
    /// the change stays.
    #[test]
    fn a_change_at_the_ceiling_then_a_remote_unboost() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.boost(&mut h);
        x.raise(&mut h);
        x.live = fifo(20);
        assert_eq!(x.unboost(&mut h), None);
        assert_eq!(x.live, fifo(20));
        assert_eq!(x.restore(&mut h), None);
        assert_eq!(x.live, fifo(20));
    }

    /// Path 16: boosted at the ceiling (no change), then changed before the return: the return
    /// boosts over the change.
    #[test]
    fn a_remote_boost_at_the_ceiling_then_a_change() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(10));
        x.raise(&mut h);
        x.boost(&mut h);
        x.live = fifo(20);
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
        assert_eq!(x.unboost(&mut h), Some(20));
        assert_eq!(x.live, fifo(20));
    }

    /// Path 17: a holder at or above the boost, or not real-time, is left alone; a change
    /// below the boost is boosted at its next return from the ceiling.
    #[test]
    fn threads_at_or_above_the_boost_and_best_effort_are_left_alone() {
        let mut h = Holder::new(98, 99);
        let mut x = Thread::new(X, fifo(98));
        x.boost(&mut h);
        assert_eq!(x.live, fifo(98));
        assert!(!h.is_boosted(X, x.live));
        assert_eq!(x.unboost(&mut h), None);
        assert_eq!(x.live, fifo(98));
        let mut y = Thread::new(Y, other());
        y.boost(&mut h);
        assert_eq!(h.boosted(), None);
        assert_eq!(y.unboost(&mut h), None);
        assert_eq!(y.live, other());
        // Already at the ceiling: not raised, nothing restored.
        let mut z = Thread::new(X, fifo(99));
        z.raise(&mut h);
        assert_eq!(z.live, fifo(99));
        assert_eq!(z.restore(&mut h), None);
        // At the boost by itself, then lowered while holding: boosted at its next return.
        let mut x = Thread::new(X, rr(98));
        x.boost(&mut h);
        x.live = fifo(20);
        x.raise(&mut h);
        assert_eq!(x.restore(&mut h), set(fifo(98), false));
        assert_eq!(x.unboost(&mut h), Some(20));
        assert_eq!(x.live, fifo(20));
    }

    /// Path 18: boosting off: the ceiling alone (head of the level).
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

    // ---- exhaustive model check

    /// What the rules say a thread's parameters are, from what was asked for it.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    struct Spec {
        /// Its last requested parameters: the last user change, else its initial ones.
        requested: Params,
        /// Inside its own update (between raise and restore).
        in_update: bool,
        /// Raised, and nobody changed it since: it runs at the ceiling.
        at_ceiling: bool,
    }

    const TOKS: [TaskToken; 2] = [X, Y];

    /// The user's choices: below, at and above the boost (not what gcaps sets: a change to
    /// exactly SCHED_FIFO `boost_prio` or `update_prio` is indistinguishable from gcaps's own).
    fn user_values() -> [Params; 5] {
        [fifo(20), rr(30), rr(98), rr(99), other()]
    }

    fn rank(p: Params) -> i32 {
        if p.is_rt() {
            p.prio
        } else {
            0
        }
    }

    fn check_model(boost: i32, ceiling: i32) -> usize {
        let over = |p: Params| {
            if boost > 0 && p.is_rt() && p.prio < boost {
                fifo(boost)
            } else {
                p
            }
        };
        let start = |p: Params| Spec {
            requested: p,
            in_update: false,
            at_ceiling: false,
        };
        let w0 = (
            Holder::new(boost, ceiling),
            [fifo(10), rr(10)],
            [None, None],
            [start(fifo(10)), start(rr(10))],
            None,
        );
        type St = (
            Holder,
            [Params; 2],
            [Option<Saved>; 2],
            [Spec; 2],
            Option<usize>,
        );
        let key = |w: &St| std::format!("{:?}", w);
        let mut seen: HashSet<std::string::String> = HashSet::new();
        let mut todo: VecDeque<(St, Vec<std::string::String>)> = VecDeque::new();
        todo.push_back((w0, Vec::new()));
        seen.insert(key(&w0));
        while let Some((w, trail)) = todo.pop_front() {
            let (h0, live0, saved0, spec0, holder0) = w;
            let mut next: Vec<(St, std::string::String)> = Vec::new();
            for i in 0..2 {
                let t = TOKS[i];
                // Its own update.
                if spec0[i].in_update {
                    let (mut h, mut live, mut saved, mut spec) = (h0, live0, saved0, spec0);
                    if let Some(s) = h.restore(t, saved[i].take().unwrap_or_default(), live[i]) {
                        live[i] = s.params;
                        // The tail rule: a return to its own parameters, with boosting on.
                        assert_eq!(s.tail, boost > 0 && s.params == spec[i].requested);
                    }
                    spec[i].in_update = false;
                    spec[i].at_ceiling = false;
                    let want = if holder0 == Some(i) {
                        over(spec[i].requested)
                    } else {
                        spec[i].requested
                    };
                    assert_eq!(live[i], want, "restore of {i} after {trail:?}");
                    next.push(((h, live, saved, spec, holder0), std::format!("restore {i}")));
                } else {
                    let (mut h, mut live, mut saved, mut spec) = (h0, live0, saved0, spec0);
                    let (sv, s) = h.raise(t, live[i]);
                    if let Some(s) = s {
                        live[i] = s.params;
                    }
                    saved[i] = Some(sv);
                    spec[i].in_update = true;
                    spec[i].at_ceiling = sv.own.is_some();
                    if sv.own.is_some() {
                        assert_eq!(live[i], fifo(ceiling), "raise of {i} after {trail:?}");
                    } else {
                        assert_eq!(live[i], live0[i]);
                    }
                    next.push(((h, live, saved, spec, holder0), std::format!("raise {i}")));
                }
                // Another thread's update (or its own, after its decision).
                match holder0 {
                    None => {
                        let (mut h, mut live) = (h0, live0);
                        if let Some(s) = h.boost(t, live[i]) {
                            live[i] = s.params;
                            assert!(!s.tail);
                        }
                        let want = if spec0[i].at_ceiling {
                            fifo(ceiling)
                        } else {
                            over(spec0[i].requested)
                        };
                        assert_eq!(live[i], want, "boost of {i} after {trail:?}");
                        next.push(((h, live, saved0, spec0, Some(i)), std::format!("boost {i}")));
                    }
                    Some(j) if j == i => {
                        let (mut h, mut live) = (h0, live0);
                        if let (Some(s), _) = h.unboost(t, live[i]) {
                            live[i] = s.params;
                            assert!(s.tail);
                        }
                        let want = if spec0[i].at_ceiling {
                            fifo(ceiling)
                        } else {
                            spec0[i].requested
                        };
                        assert_eq!(live[i], want, "unboost of {i} after {trail:?}");
                        next.push(((h, live, saved0, spec0, None), std::format!("unboost {i}")));
                    }
                    Some(_) => {}
                }
                // A user's change (the thread's own or another's).
                for v in user_values() {
                    let (mut live, mut spec) = (live0, spec0);
                    live[i] = v;
                    spec[i].requested = v;
                    spec[i].at_ceiling = false;
                    next.push((
                        (h0, live, saved0, spec, holder0),
                        std::format!("user {i} {v:?}"),
                    ));
                }
            }
            for (w, step) in next {
                // Above its own parameters only while it holds the GPU or is in its update.
                for i in 0..2 {
                    if rank(w.1[i]) > rank(w.3[i].requested) {
                        assert!(
                            w.4 == Some(i) || w.3[i].in_update,
                            "{i} above its own after {trail:?} {step}"
                        );
                    }
                }
                if seen.insert(key(&w)) {
                    let mut t = trail.clone();
                    t.push(step);
                    todo.push_back((w, t));
                }
            }
        }
        seen.len()
    }

    /// Every interleaving of two threads' updates (raise .. restore), the boost and unboost of
    /// either by any update, and user changes of either at any point, over every reachable
    /// state: after each of gcaps's actions a thread runs at what its last requested
    /// parameters, the ceiling and the boost say (the end's last action leaves it at its last
    /// request), and it is above its own parameters only while it holds the GPU or is inside
    /// its own update.
    #[test]
    fn model_check_every_interleaving() {
        for (b, c) in [(98, 99), (49, 50), (0, 99)] {
            let n = check_model(b, c);
            assert!(n > 100, "{n} states");
            std::println!("boost {b} ceiling {c}: {n} states");
        }
    }
}
