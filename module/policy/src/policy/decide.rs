// SPDX-License-Identifier: GPL-2.0

//! The decision (rules 1-4 of the crate documentation): the winner, the eligible set
//! recomputed from the bookkeeping after every event, the change report and generations,
//! and the renumbering of arrival numbers.

use super::{Outcome, Policy};

impl<const W: usize, const C: usize> Policy<W, C> {
    /// The open real-time segment with the highest effective priority; among equal
    /// priorities the one that began first (smallest arrival number). O(C), branch-free
    /// per client: candidates are ranked by `priority << 64 | !seq`.
    pub(super) fn find_winner(&self) -> Option<usize> {
        let mut best: u128 = 0;
        let mut best_slot = None;
        for (slot, c) in self.clients.iter().enumerate() {
            let rank = match c.effective() {
                // p >= 1, so any candidate ranks above 0.
                Some(p) => (u128::from(p) << 64) | u128::from(!c.seq),
                None => 0,
            };
            if rank > best {
                best = rank;
                best_slot = Some(slot);
            }
        }
        best_slot
    }

    /// Recomputes the decision from the bookkeeping; returns whether the eligible set
    /// changed. O(C + T/64).
    pub(super) fn recompute(&mut self) -> bool {
        let winner = self.find_winner();
        let mut new = self.exists;
        let mut winner_raw = 0;
        if let Some(slot) = winner {
            // `find_winner` returns an index of `clients` (and `owned` has the same
            // length), and client capacities beyond u32 are not supported, so the
            // `else` case cannot happen; it would fail open (no real-time segment:
            // everything eligible).
            if let (Some(mine), Ok(s)) = (self.owned.get(slot), u32::try_from(slot)) {
                new = *mine;
                new.union_with(&self.always);
                new.intersect_with(&self.exists);
                winner_raw = s.saturating_add(1);
            }
        }
        self.winner = winner_raw;
        let changed = new != self.eligible;
        self.eligible = new;
        changed
    }

    /// Common tail of every successful event.
    /// [`Policy::finish`], or, if the event `keeps` the decision (a `*_keeps_decision`
    /// predicate held: the winner and hence the eligible set stay), the outcome without the
    /// O(C) winner search.
    pub(super) fn finish_unless(&mut self, keeps: bool) -> Outcome {
        if keeps {
            return Outcome {
                changed: false,
                generation: self.generation,
                decision_changed: false,
            };
        }
        self.finish(false)
    }

    pub(super) fn finish(&mut self, content_changed: bool) -> Outcome {
        let was_all = self.winner == 0;
        let set_changed = self.recompute();
        let all = self.winner == 0;
        let changed = set_changed || content_changed;
        if changed {
            self.generation = self.generation.wrapping_add(1);
        }
        // While every TSG is eligible the snapshot's set is empty, whatever exists.
        let decision_changed = was_all != all || (!all && set_changed);
        if decision_changed {
            self.decision_generation = self.decision_generation.wrapping_add(1);
        }
        Outcome {
            changed,
            generation: self.generation,
            decision_changed,
        }
    }

    /// Replaces the arrival numbers of open segments by their ranks (0, 1, ...),
    /// preserving their order; closed segments get 0. O(clients^2), runs only when the
    /// 64-bit counter is exhausted (never in practice) and in [`Policy::canonical`].
    /// Uses `C` bytes of stack.
    pub(super) fn renumber(&mut self) {
        let mut done = [false; C];
        let mut rank: u64 = 0;
        loop {
            let mut best: Option<(usize, u64)> = None;
            for (i, (c, d)) in self.clients.iter().zip(done.iter()).enumerate() {
                if !c.registered || !c.open || *d {
                    continue;
                }
                let smaller = match best {
                    None => true,
                    Some((_, s)) => c.seq < s,
                };
                if smaller {
                    best = Some((i, c.seq));
                }
            }
            let Some((i, _)) = best else { break };
            if let (Some(c), Some(d)) = (self.clients.get_mut(i), done.get_mut(i)) {
                c.seq = rank;
                *d = true;
            } else {
                break;
            }
            rank = rank.saturating_add(1);
        }
        for c in self.clients.iter_mut() {
            if !c.open {
                c.seq = 0;
            }
        }
        self.next_seq = rank;
    }

    /// Test hook: pretend `n` segments have begun so far.
    #[cfg(test)]
    pub(super) fn set_next_seq(&mut self, n: u64) {
        self.next_seq = n;
    }
}
