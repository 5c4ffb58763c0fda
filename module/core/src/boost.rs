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
    #[allow(dead_code)] // for tests and the contract host: gcaps.ko does not call it
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
mod tests;
