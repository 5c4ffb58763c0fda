//! MPCP with the GPU as one global resource (Rajkumar, ICDCS 1990, in the GPU-segment
//! form of Patel et al., RTAS 2018; `docs/analysis.md` "Lock-based baselines" states the
//! equations and departures B1..B9). A critical section runs at a priority above every normal
//! priority on its core; waiters suspend in a queue ordered by their normal
//! CPU priorities.
//!
//! `R_i = C_i + cs_i + Σ_{h∈hpp(i)} ceil((t + R_h − e_h)/T_h)·e_h`
//! `      + B^H_i(t) + B^L_i(t) + B^P_i(t)`
//!
//! * `e_h`: same-core higher-priority delay per job (B4, [`Ctx::hpp_demand`]).
//! * `B^H`: critical sections of remote higher-priority tasks that `τ_i`
//!   waits for: job-driven, capped by the request-driven count over `η_i`
//!   waits of at most `β_i` each (B6).
//! * `B^L`: one lower-priority critical section per request of `τ_i` (the
//!   one holding the lock when it asks), the `η_i` largest over all cores.
//! * `B^P`: lower-priority critical sections of `τ_i`'s core that run
//!   boosted while `τ_i` is ready: at most one per task per non-critical
//!   interval of `τ_i`, `η_i + 1` in all per task, each `G` + θ when
//!   busy-waiting and `G^m` when self-suspending (B7).

use super::{ceil_div, jobs, Ctx, Delay, Term, View};
use crate::model::Time;

/// Lower-priority critical sections: (length, window of the task, period).
type Cs = (Time, Option<Time>, Time);

pub(crate) struct Mpcp {
    /// Same-core higher-priority tasks (CPU and lock, B4).
    local: Vec<Term>,
    /// Remote higher-priority tasks (lock only, B6).
    remote: Vec<Term>,
    /// η_i.
    eta: Time,
    /// Every lower-priority critical section, longest first (B^L).
    lower_cs: Vec<Cs>,
    /// Same-core lower-priority tasks: (task, window) (B^P).
    boost: Vec<(usize, Option<Time>)>,
}

/// The per-request wait β_i: the least `B >= 1` with
/// `B = W^low + Σ_{h higher} ceil((B + R_h − cs_h)/T_h)·cs_h`, or `None`
/// if it exceeds the deadline (the request-driven count is then unused).
fn request_wait(w_low: Time, hp: &[Term], deadline: Time) -> Option<Time> {
    let mut b: Time = 1;
    loop {
        let next = hp
            .iter()
            .fold(w_low, |a, term| a.saturating_add(term.at(b)));
        if next <= b {
            return Some(b);
        }
        if next > deadline {
            return None;
        }
        b = next;
    }
}

impl Mpcp {
    pub fn new(ctx: &Ctx, view: &mut View, i: usize) -> Mpcp {
        let ti = &ctx.tasks[i];
        let eta = ti.eta;
        let mut local = Vec::new();
        let mut lock_hp = Vec::new();
        let mut remote_idx = Vec::new();
        for h in 0..ctx.tasks.len() {
            if !ctx.higher(h, i) {
                continue;
            }
            let th = &ctx.tasks[h];
            let same = th.cpu == ti.cpu;
            if !same && (eta == 0 || th.cs.is_empty()) {
                continue;
            }
            let r = view.resp(ctx, h);
            if same {
                local.push(Term::new(th.period, r, ctx.hpp_demand(h, i)));
            }
            if eta > 0 && !th.cs.is_empty() {
                let term = Term::new(th.period, r, th.cs_total);
                if !same {
                    remote_idx.push(lock_hp.len());
                }
                lock_hp.push(term);
            }
        }
        let mut lower_cs = Vec::new();
        let mut boost = Vec::new();
        let mut w_low = 0;
        for l in 0..ctx.tasks.len() {
            let tl = &ctx.tasks[l];
            if !ctx.lower(l, i) || tl.cs.is_empty() {
                continue;
            }
            let win = view.window(ctx, l, i);
            if eta > 0 {
                w_low = w_low.max(tl.cs_max());
                lower_cs.extend(tl.cs.iter().map(|&c| (c, win, tl.period)));
            }
            if tl.cpu == ti.cpu {
                boost.push((l, win));
            }
        }
        lower_cs.sort_by_key(|c| std::cmp::Reverse(c.0));
        // Request-driven cap (B6): each of the eta_i waits lasts at most
        // beta_i and meets at most ceil((beta_i + J_h)/T_h) jobs of h.
        let beta = if eta > 0 {
            request_wait(w_low, &lock_hp, ti.deadline)
        } else {
            None
        };
        let remote = remote_idx
            .into_iter()
            .map(|k| {
                let mut term = lock_hp[k];
                if let Some(b) = beta {
                    term.cap =
                        eta.saturating_mul(ceil_div(b.saturating_add(term.jitter), term.period));
                }
                term
            })
            .collect();
        Mpcp {
            local,
            remote,
            eta,
            lower_cs,
            boost,
        }
    }
}

/// Takes items of `lengths` (longest first), each at most `per_item`
/// times, `limit` in all; returns their sum.
fn greedy(lengths: impl Iterator<Item = (Time, Time)>, limit: Time) -> Time {
    let mut left = limit;
    let mut sum: Time = 0;
    for (len, n) in lengths {
        if left == 0 {
            break;
        }
        let k = n.min(left);
        left -= k;
        sum = sum.saturating_add(k.saturating_mul(len));
    }
    sum
}

impl Delay for Mpcp {
    fn at(&self, ctx: &Ctx, t: Time) -> Time {
        let mut d: Time = 0;
        for term in self.local.iter().chain(&self.remote) {
            d = d.saturating_add(term.at(t));
        }
        // B^L: one lower-priority critical section per request.
        d = d.saturating_add(greedy(
            self.lower_cs.iter().map(|&(c, w, p)| (c, jobs(t, w, p))),
            self.eta,
        ));
        // B^P: boosted lower-priority critical sections on tau_i's core (B7).
        for &(l, w) in &self.boost {
            let tl = &ctx.tasks[l];
            let n = jobs(t, w, tl.period);
            let footprint = if ctx.busy { &tl.cs } else { &tl.misc };
            d = d.saturating_add(greedy(footprint.iter().map(|&f| (f, n)), self.eta + 1));
        }
        d
    }
}
