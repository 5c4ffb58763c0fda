// SPDX-License-Identifier: GPL-2.0

//! Tests of [`Holder`]: each path of `docs/module.md`'s "Holder boost" table, one test or
//! assertion each, and the model check of every interleaving of two threads' updates, boosts
//! and users' changes.

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
