//! Partitioned FMLP+ with the GPU as one global resource (Brandenburg, ECRTS 2014;
//! `docs/analysis.md` "Lock-based baselines" states the equations and departures B1..B9).
//! Waiters suspend in one FIFO queue; the holder is priority-boosted on its core.
//!
//! `R_i = C_i + cs_i + Σ_{h∈hpp(i)} ceil((t + R_h − e_h)/T_h)·e_h`
//! `      + Σ_{x remote} min(η_i, n_x(t))·L_x`
//! `      + Σ_{l same core, lower} min(η_i + 1, n_l(t))·f_l`
//!
//! * `e_h`: same-core higher-priority delay per job (B4,
//!   [`Ctx::hpp_demand`]): with a GPU-using `τ_i` it includes `h`'s whole
//!   critical sections, since `h`'s request can be ahead of `τ_i`'s in the
//!   FIFO queue (B8).
//! * Remote tasks of any priority, best-effort ones included: at most one
//!   request ahead of each request of `τ_i` (FIFO, one outstanding request
//!   per task), `L_x` the longest critical section.
//! * Same-core lower-priority tasks: one critical section per non-critical
//!   interval of `τ_i` (release and after each of its critical sections),
//!   boosted or ahead in the queue (B9); `f_l = L_l`, or `G^m` for a
//!   CPU-only self-suspending `τ_i`.
//! * `n_x(t) = η_x·ceil((t + R_x)/T_x)`: requests of `x`'s jobs that can
//!   overlap the window.

use super::{jobs, Ctx, Delay, Term, View};
use crate::model::Time;

/// A task charged per request: (cap on its requests, per-request length,
/// window, period, η_x).
type PerRequest = (Time, Time, Option<Time>, Time, Time);

pub(crate) struct Fmlp {
    /// Same-core higher-priority tasks (B4).
    local: Vec<Term>,
    /// Remote tasks and same-core lower-priority tasks.
    per_request: Vec<PerRequest>,
}

impl Fmlp {
    pub fn new(ctx: &Ctx, view: &mut View, i: usize) -> Fmlp {
        let ti = &ctx.tasks[i];
        let eta = ti.eta;
        let mut local = Vec::new();
        let mut per_request = Vec::new();
        for x in 0..ctx.tasks.len() {
            if x == i {
                continue;
            }
            let tx = &ctx.tasks[x];
            let same = tx.cpu == ti.cpu;
            if same && ctx.higher(x, i) {
                let r = view.resp(ctx, x);
                local.push(Term::new(tx.period, r, ctx.hpp_demand(x, i)));
            } else if tx.cs.is_empty() {
                continue;
            } else if same {
                let f = if ctx.busy || eta > 0 {
                    tx.cs_max()
                } else {
                    tx.misc.first().copied().unwrap_or(0)
                };
                let w = view.window(ctx, x, i);
                per_request.push((eta + 1, f, w, tx.period, tx.eta));
            } else if eta > 0 {
                let w = view.window(ctx, x, i);
                per_request.push((eta, tx.cs_max(), w, tx.period, tx.eta));
            }
        }
        Fmlp { local, per_request }
    }
}

impl Delay for Fmlp {
    fn at(&self, _ctx: &Ctx, t: Time) -> Time {
        let mut d: Time = 0;
        for term in &self.local {
            d = d.saturating_add(term.at(t));
        }
        for &(cap, len, w, period, eta_x) in &self.per_request {
            let n = jobs(t, w, period).saturating_mul(eta_x);
            d = d.saturating_add(cap.min(n).saturating_mul(len));
        }
        d
    }
}
