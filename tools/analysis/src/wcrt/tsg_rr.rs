//! Terms of the default nvgpu TSG round-robin driver (Sec. 6.2, Lemmas
//! 1-7).

use super::context::Ctx;
use super::view::{term, Deps, Term, View};
use super::WaitMode;
use crate::model::Time;

/// Pushes the interference terms of real-time task `i` and returns its own
/// work (with the round-robin interleaving of its own GPU work).
pub(super) fn build(
    ctx: &Ctx,
    view: &View,
    i: usize,
    terms: &mut Vec<Term>,
    deps: &mut Deps,
) -> Time {
    let pi = &ctx.p[i];
    let (theta, l) = (ctx.theta, ctx.slice);
    let busy = ctx.mode == WaitMode::Busy;
    let igpu = pi.gpu();
    let base = pi.c.saturating_add(pi.gm).saturating_add(pi.ge);
    // Lemma 1 with Eq. 3 corrected (D2): per round-robin round, each of the
    // nu other GPU processes (best-effort included) runs up to L and costs
    // one context switch, plus one switch back to tau_i.
    let nu = ctx.n_gpu - u64::from(igpu);
    let own_ie = if nu > 0 {
        pi.slices.saturating_mul(
            nu.saturating_mul(l.saturating_add(theta))
                .saturating_add(theta),
        )
    } else {
        0
    };
    // Lemma 4 (busy): rounds during which a same-core higher-priority task
    // busy-waits; other hpp tasks' slices are charged to their own G^e, but
    // every TSG switch in the round is charged (D2).
    let m_hpp = ctx.hpp[i].iter().filter(|&&h| ctx.p[h].gpu()).count() as Time;
    let nu_out = ctx.n_gpu.saturating_sub(m_hpp + u64::from(igpu));
    let per_round = if ctx.n_gpu >= 2 {
        nu_out
            .saturating_mul(l.saturating_add(theta))
            .saturating_add(theta.saturating_mul(m_hpp + u64::from(igpu)))
    } else {
        0
    };
    for &h in &ctx.hpp[i] {
        let ph = &ctx.p[h];
        if busy {
            // Lemma 5 + Lemma 4: C_h + G^m_h + the whole busy wait.
            let e =
                ph.c.saturating_add(ph.gm)
                    .saturating_add(ph.ge)
                    .saturating_add(ph.slices.saturating_mul(per_round));
            terms.push(term(ph.period, 0, e, false));
        } else {
            // Lemma 7.
            let e = ph.c.saturating_add(ph.gm);
            let r = view.resp(ctx, h, deps);
            terms.push(term(ph.period, r, e, true));
        }
    }
    base.saturating_add(own_ie)
}
