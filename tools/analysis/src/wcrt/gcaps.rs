//! Terms of GCAPS (Sec. 6.3, Lemmas 8-15), and the time a GPU-using task
//! keeps its TSGs on the runlist ([`hold`], D4).

use super::context::Ctx;
use super::view::{term, Deps, Term, View};
use super::{ceil_div, WaitMode};
use crate::model::Time;

/// GCAPS: the time a GPU-using task `k` can keep its TSGs on the runlist
/// per job ("segment-open time", D4): its G^m and G^e, its two runlist
/// updates and one lock wait at the end of each segment, one
/// non-preemptive runlist update of a lower task on its core when it wakes
/// up (suspend), and the CPU work its same-core higher-priority tasks can
/// do while it holds the GPU (their CPU segments and segment-begin
/// updates). Capped by k's response time (in deadline mode, `D_k`).
pub(crate) fn hold(ctx: &Ctx, view: &View, k: usize, deps: &mut Deps) -> Time {
    if let Some(h) = view.holds {
        return h[k];
    }
    let pk = &ctx.p[k];
    let eps = ctx.eps;
    let per_seg = 3 + u64::from(ctx.mode == WaitMode::Suspend);
    let base = pk
        .gm
        .saturating_add(pk.ge)
        .saturating_add(eps.saturating_mul(per_seg).saturating_mul(pk.eta));
    let wk = view.resp(ctx, k, deps);
    // Fixed point over the total open time H of one job: the eta_k open
    // intervals (total length H) meet at most
    // ceil((H + eta_k J_x) / T_x) + eta_k - 1 jobs of x (sum of per-interval
    // ceilings), and never more than the jobs in k's response window.
    let eta = pk.eta.max(1);
    let mut h = base;
    loop {
        if h >= wk {
            return wk;
        }
        let mut next = base;
        for &x in &ctx.hpp[k] {
            let px = &ctx.p[x];
            let e = px.c.saturating_add(eps.saturating_mul(px.eta));
            let jx = view.resp(ctx, x, deps).saturating_sub(e);
            let by_intervals = ceil_div(h.saturating_add(eta.saturating_mul(jx)), px.period)
                .saturating_add(eta - 1);
            let by_window = ceil_div(wk.saturating_add(jx), px.period);
            next = next.saturating_add(by_intervals.min(by_window).saturating_mul(e));
        }
        if next == h {
            return h;
        }
        h = next;
    }
}

/// Pushes the interference terms of real-time task `i` and returns its own
/// work with its runlist updates and blocking.
pub(super) fn build(
    ctx: &Ctx,
    view: &View,
    i: usize,
    terms: &mut Vec<Term>,
    deps: &mut Deps,
) -> Time {
    let pi = &ctx.p[i];
    let eps = ctx.eps;
    let busy = ctx.mode == WaitMode::Busy;
    let igpu = pi.gpu();
    let base = pi.c.saturating_add(pi.gm).saturating_add(pi.ge);
    // Own work with own runlist updates (G*_i, D1) and blocking (Lemma 8
    // extended, D6): one non-preemptive lower-priority update at release,
    // one lock holder per lock request (two per segment), and one more per
    // wake-up when self-suspending.
    let blocks = 1 + 2 * pi.eta + if busy { 0 } else { pi.eta };
    let own = base
        .saturating_add(eps.saturating_mul(2 * pi.eta))
        .saturating_add(eps.saturating_mul(blocks));
    let mut hpp_min_g = u32::MAX;
    let mut chain_min_c = if igpu { pi.prio } else { u32::MAX };
    for &h in &ctx.hpp[i] {
        let ph = &ctx.p[h];
        if ph.gpu() {
            hpp_min_g = hpp_min_g.min(view.gprio[h]);
            if busy || igpu {
                chain_min_c = chain_min_c.min(ph.prio);
            }
        }
        if busy {
            // Lemma 12 + Lemma 10 first term, for any tau_i (D3): C_h +
            // G^m_h + the busy wait on its own G^e, its two updates and two
            // lock waits per segment (suspension-oblivious). Waiting behind
            // remote segments is charged through K below.
            let e =
                ph.c.saturating_add(ph.gm)
                    .saturating_add(ph.ge)
                    .saturating_add(eps.saturating_mul(4 * ph.eta));
            terms.push(term(ph.period, 0, e, false));
        } else {
            // Lemma 15: C_h + G^m*_h.
            let mut e =
                ph.c.saturating_add(ph.gm)
                    .saturating_add(eps.saturating_mul(2 * ph.eta));
            if igpu && ph.gpu() {
                // Lemma 13 first term: G^e_h, plus the lock wait at the end
                // of each segment and a lower task's update at its wake-up
                // while it keeps the GPU (D4). Both parts of a job's delay
                // lie in h's response window, so they form one demand with
                // one jitter R_h - e (D10), never more than two terms with
                // separate jitters.
                e = e
                    .saturating_add(ph.ge)
                    .saturating_add(eps.saturating_mul(2 * ph.eta));
            }
            let r = view.resp(ctx, h, deps);
            terms.push(term(ph.period, r, e, true));
        }
    }
    // Remote tasks whose open segments can delay tau_i: GPU priority >=
    // tau_i's (Lemma 10/13 second term), or, busy-waiting, >= the lowest GPU
    // priority of a same-core higher-priority GPU task that tau_i may wait
    // behind on its core (Lemma 11, D5).
    let mut thr = u32::MAX;
    if igpu {
        thr = view.gprio[i];
    }
    if busy {
        thr = thr.min(hpp_min_g);
    }
    if thr != u32::MAX {
        for (k, pk) in ctx.p.iter().enumerate() {
            if k == i || !pk.rt || !pk.gpu() || pk.cpu == pi.cpu {
                continue;
            }
            if view.gprio[k] >= thr {
                chain_min_c = chain_min_c.min(pk.prio);
                let e = hold(ctx, view, k, deps);
                let r = view.resp(ctx, k, deps);
                terms.push(term(pk.period, r, e, true));
            }
        }
        // Lock queue-ahead (D7): remote tasks not charged above whose CPU
        // priority (the rt_mutex order) is above a task in the chain of lock
        // requesters tau_i may wait on. Empty when GPU priorities equal CPU
        // priorities.
        for (x, px) in ctx.p.iter().enumerate() {
            if x == i || !px.rt || !px.gpu() || px.cpu == pi.cpu {
                continue;
            }
            if view.gprio[x] < thr && px.prio > chain_min_c {
                let e = eps.saturating_mul(2 * px.eta);
                if e > 0 {
                    let r = view.resp(ctx, x, deps);
                    terms.push(term(px.period, r, e, true));
                }
            }
        }
    }
    own
}
