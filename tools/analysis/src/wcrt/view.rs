//! Where the response times of the other tasks come from while one task's
//! terms are built, and the interference term itself.

use super::ceil_div;
use super::context::Ctx;
use crate::model::Time;

pub(crate) use crate::per_task::St;

/// How response times of interfering tasks are obtained.
pub(crate) struct View<'a> {
    /// `true`: always use `D_x` (Sec. 6.4, GPU priority assignment).
    pub deadline_mode: bool,
    pub st: &'a [St],
    /// GPU priority of each task (0 for best-effort / unused).
    pub gprio: &'a [u32],
    /// Values used for `Pending` tasks instead of `D_x` (not flagged): the
    /// previous iterate of the least-fixed-point iteration
    /// ([`super::solve`]), or the response estimates of a GPU priority
    /// search candidate test.
    pub ahead: Option<&'a [Time]>,
}

/// Flags raised while building the terms of one task.
#[derive(Default)]
pub(crate) struct Deps {
    /// Used `D_x` for a task not analysed yet.
    pub assumed: bool,
    /// Used a task without a bound: no sound bound for this task.
    pub failed: bool,
}

impl View<'_> {
    /// The response time to assume for task `x` if one is at hand without
    /// an assumption (analysed, an estimate, or `D` in deadline mode);
    /// `None` otherwise, with no flag raised.
    pub fn resp_if_known(&self, ctx: &Ctx, x: usize) -> Option<Time> {
        if self.deadline_mode {
            return Some(ctx.p[x].deadline);
        }
        match self.st[x] {
            St::Ok(r) => Some(r),
            St::Pending => self.ahead.map(|a| a[x]),
            St::Failed => None,
        }
    }

    /// The response time to assume for task `x`.
    pub fn resp(&self, ctx: &Ctx, x: usize, deps: &mut Deps) -> Time {
        let d = ctx.p[x].deadline;
        if self.deadline_mode {
            return d;
        }
        match self.st[x] {
            St::Ok(r) => r,
            St::Pending => match self.ahead {
                Some(a) => a[x],
                None => {
                    deps.assumed = true;
                    d
                }
            },
            St::Failed => {
                deps.failed = true;
                d
            }
        }
    }
}

/// One interference term: ceil((R + jitter) / period) * demand, or, with
/// `alt = Some((jitter', demand'))`, the smaller of that and
/// ceil((R + jitter') / period) * demand' (two sound bounds of the same
/// task's delay, D3), and with `cap = Some(c)` never more than `c` (a bound
/// of the same delay per job of the analysed task that does not grow with
/// the window, D18).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub period: Time,
    pub jitter: Time,
    pub demand: Time,
    pub alt: Option<(Time, Time)>,
    pub cap: Option<Time>,
}

impl Term {
    /// The term's value in a window of length `r`.
    pub fn at(&self, r: Time) -> Time {
        let first =
            ceil_div(r.saturating_add(self.jitter), self.period).saturating_mul(self.demand);
        let v = match self.alt {
            None => first,
            Some((j, d)) => first.min(ceil_div(r.saturating_add(j), self.period).saturating_mul(d)),
        };
        self.cap.map_or(v, |c| v.min(c))
    }
}

/// A term with per-job demand `demand` of a task with response time
/// `resp`; `with_jitter` selects the carry-in jitter `resp - demand` (all
/// of a job's demand lies within its response window).
pub(crate) fn term(period: Time, resp: Time, demand: Time, with_jitter: bool) -> Term {
    Term {
        period,
        jitter: if with_jitter {
            resp.saturating_sub(demand)
        } else {
            0
        },
        demand,
        alt: None,
        cap: None,
    }
}
