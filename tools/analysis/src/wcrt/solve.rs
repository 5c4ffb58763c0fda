//! The fixed points: one task's bound from its terms, one pass over all
//! real-time tasks, and the least fixed point of all bounds together (D11).

use super::context::Ctx;
use super::view::{Deps, St, Term, View};
use super::{deadlock, gcaps, tsg_rr, GpuPolicy};
use crate::model::{Taskset, Time};

/// Builds own work (returned) and interference terms (into `terms`) of
/// real-time task `i` under the context's policy.
pub(crate) fn build(
    ctx: &Ctx,
    view: &View,
    i: usize,
    terms: &mut Vec<Term>,
    deps: &mut Deps,
) -> Time {
    terms.clear();
    match ctx.policy {
        GpuPolicy::TsgRr => tsg_rr::build(ctx, view, i, terms, deps),
        // gcaps-boost shares the GCAPS terms but D17/D18 (in `gcaps`).
        GpuPolicy::Gcaps | GpuPolicy::GcapsBoost => gcaps::build(ctx, view, i, terms, deps),
        // `crate::analyze` bounds the lock-based baselines with
        // `crate::baseline` and never builds a context for them.
        GpuPolicy::Mpcp | GpuPolicy::FmlpPlus => unreachable!("lock-based baseline in wcrt"),
    }
}

/// Iterates the fixed point; `None` if it exceeds the deadline.
pub(crate) fn fixed_point(own: Time, terms: &[Term], deadline: Time) -> Option<Time> {
    let mut r = own;
    loop {
        if r > deadline {
            return None;
        }
        let mut next = own;
        for t in terms {
            next = next.saturating_add(t.at(r));
        }
        if next == r {
            return Some(r);
        }
        r = next;
    }
}

/// Result of one pass over all real-time tasks.
pub(crate) struct Pass {
    pub st: Vec<St>,
    pub all_ok: bool,
    /// Per task, the deadlocking pair that leaves it without a bound (D16).
    pub stuck: Vec<Option<(usize, usize)>>,
}

/// Passes of the least-fixed-point iteration before giving up (then the
/// single pass with `D` for tasks not analysed yet stands).
const LFP_MAX_PASSES: usize = 64;

/// The least fixed point of all bounds together (D11): starts every
/// real-time task at its own work (a lower bound) and repeats passes, each
/// task using the latest value of every other task, until nothing changes.
/// The values only grow and stay below the least fixed point, so the result
/// is the least vector `B` with `B = F(B)`; if every `B_x <= D_x`, it bounds
/// the response times by the first-violation argument (at the first
/// instant a job exceeds its bound, every other job has kept its own, so
/// the job's interference is at most `F(B)`). `None` if some value exceeds
/// its deadline (then no vector within the deadlines is self-consistent)
/// or the iteration has not settled after `LFP_MAX_PASSES` passes.
fn lfp(ctx: &Ctx, gprio: &[u32], terms: &mut Vec<Term>) -> Option<Vec<Time>> {
    let n = ctx.p.len();
    let mut est = ctx.own_work();
    let mut st = vec![St::Pending; n];
    for _ in 0..LFP_MAX_PASSES {
        st.iter_mut().for_each(|s| *s = St::Pending);
        let mut changed = false;
        for &i in &ctx.order {
            let mut deps = Deps::default();
            let view = View {
                deadline_mode: false,
                st: &st,
                gprio,
                ahead: Some(&est),
            };
            let own = build(ctx, &view, i, terms, &mut deps);
            let r = fixed_point(own, terms, ctx.p[i].deadline)?;
            changed |= r != est[i];
            st[i] = St::Ok(r);
        }
        for &i in &ctx.order {
            if let St::Ok(r) = st[i] {
                est[i] = r;
            }
        }
        if !changed {
            return Some(est);
        }
    }
    None
}

/// Analyses all real-time tasks with GPU priorities `gprio`. In response
/// mode tasks are analysed by decreasing CPU priority and later tasks use
/// the bounds of earlier ones; in deadline mode jitters use `D` (Sec. 6.4).
/// With `stop_early`, stops at the first miss.
pub(crate) fn pass(ctx: &Ctx, gprio: &[u32], deadline_mode: bool, stop_early: bool) -> Pass {
    let n = ctx.p.len();
    let mut st = vec![St::Pending; n];
    let mut assumed = vec![false; n];
    let mut terms = Vec::with_capacity(n * 2);
    let stuck = deadlock::stuck(ctx, gprio);
    let any_stuck = stuck.iter().any(Option::is_some);
    for (i, s) in stuck.iter().enumerate() {
        if s.is_some() {
            st[i] = St::Failed;
        }
    }
    let mut all_ok = !any_stuck;
    if any_stuck && stop_early {
        return Pass { st, all_ok, stuck };
    }
    let mut any_assumed = false;
    for &i in &ctx.order {
        if stuck[i].is_some() {
            continue;
        }
        let mut deps = Deps::default();
        let view = View {
            deadline_mode,
            st: &st,
            gprio,
            ahead: None,
        };
        let own = build(ctx, &view, i, &mut terms, &mut deps);
        let r = if deps.failed {
            None
        } else {
            fixed_point(own, &terms, ctx.p[i].deadline)
        };
        assumed[i] = deps.assumed;
        any_assumed |= deps.assumed;
        st[i] = match r {
            Some(r) => St::Ok(r),
            None => St::Failed,
        };
        if r.is_none() {
            all_ok = false;
            if stop_early {
                break;
            }
        }
    }
    if (any_assumed || !all_ok) && !deadline_mode && !any_stuck {
        // Some bound used D_x of a task analysed later (equal priorities or
        // separate GPU priorities), or some task missed in this pass: the
        // least fixed point of all bounds is never larger and may stay
        // within the deadlines where this pass does not (D11), also because
        // there every task's bound is at hand for the window caps (D18,
        // D21). Otherwise the pass already is that least fixed point.
        if let Some(v) = lfp(ctx, gprio, &mut terms) {
            for &i in &ctx.order {
                st[i] = St::Ok(v[i]);
            }
            return Pass {
                st,
                all_ok: true,
                stuck,
            };
        }
    }
    if !all_ok {
        // Bounds that assumed R_x <= D_x for a task analysed later are only
        // valid if every task meets its deadline.
        for i in 0..n {
            if assumed[i] && matches!(st[i], St::Ok(_)) {
                st[i] = St::Failed;
            }
        }
    }
    Pass { st, all_ok, stuck }
}

/// Effective GPU priorities from the file (0 for best-effort tasks).
pub(crate) fn file_gprio(ts: &Taskset) -> Vec<u32> {
    ts.tasks
        .iter()
        .map(|t| t.effective_gpu_priority().unwrap_or(0))
        .collect()
}
