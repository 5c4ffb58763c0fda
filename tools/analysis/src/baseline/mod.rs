//! The synchronization-based baselines of Fig. 8 of the GCAPS paper: every
//! GPU segment is a critical section on one global GPU lock, managed by
//! MPCP ([`mpcp`]) or by the partitioned FMLP+ ([`fmlp`]). The bounds follow
//! the published analyses (`docs/analysis.md` "Lock-based baselines") with
//! the departures B1..B9 of `docs/analysis.md`; the code cites them.
//!
//! Model (B1, B2): the lock holder uses the GPU exclusively; every GPU-using
//! task of the taskset, best-effort ones included, takes the lock for each
//! of its GPU segments (the paper's Fig. 8 setup) and no other GPU process
//! exists. There are no runlist updates (ε is not charged); each lock
//! acquisition switches the GPU to the new holder's context, which costs θ.
//! A critical section therefore lasts `cs = G^m + G^e + θ`, and as the only
//! boosted job on its core its holder is never preempted (B3).
//!
//! Every bound is one fixed point `R = own_i + F_i(R)`, iterated from the
//! task's own work until it settles or exceeds the deadline. Real-time
//! tasks are analysed by decreasing CPU priority.

mod fmlp;
mod mpcp;

use crate::model::{Taskset, Time};
pub(crate) use crate::per_task::ceil_div;
use crate::per_task::{self, PerTask, St};

/// The locking protocol of a synchronization-based baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Multiprocessor priority ceiling protocol (Rajkumar 1990, with the
    /// analysis of Patel et al., RTAS 2018).
    Mpcp,
    /// Partitioned FMLP+ (Brandenburg, ECRTS 2014).
    FmlpPlus,
}

/// Bounds of one taskset under a baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// True if every real-time task has a bound within its deadline.
    pub schedulable: bool,
    /// Per task in file order: the WCRT bound, `None` for best-effort tasks
    /// and for tasks without a bound within their deadline.
    pub wcrt: Vec<Option<Time>>,
}

/// The analysis context of one taskset.
pub(crate) struct Ctx {
    pub tasks: Vec<PerTask>,
    /// Busy-waiting (the holder keeps its core during `G^e`) or
    /// self-suspending.
    pub busy: bool,
    /// Real-time tasks by decreasing CPU priority (ties by index).
    order: Vec<usize>,
}

impl Ctx {
    pub fn new(ts: &Taskset, busy: bool) -> Ctx {
        let tasks = per_task::tasks(ts);
        let order = per_task::rt_order(&tasks);
        Ctx { tasks, busy, order }
    }

    /// True if `x` is a real-time task other than `i` with a CPU priority at
    /// least `i`'s: it preempts `i` and its requests go ahead of `i`'s.
    /// Equal priorities count in both directions (FIFO within a priority).
    pub fn higher(&self, x: usize, i: usize) -> bool {
        x != i && self.tasks[x].rt && self.tasks[x].prio >= self.tasks[i].prio
    }

    /// True if `x` has a lower CPU priority than `i` (best-effort tasks are
    /// below every real-time task).
    pub fn lower(&self, x: usize, i: usize) -> bool {
        x != i && !self.higher(x, i)
    }

    /// The same-core per-job delay of a higher-priority task `h` of `i`'s
    /// core (B4): its CPU segments, and its critical sections either as CPU
    /// time (busy-waiting holder, boosted) or as lock time `i` waits for (a
    /// GPU-using `i` can queue behind `h`'s request). Each instant of `h`'s
    /// critical section delays `i` once, on the CPU or at the lock, so the
    /// two are one demand with one jitter. A self-suspending `h` delays a
    /// CPU-only `i` only by its `G^m`.
    pub fn hpp_demand(&self, h: usize, i: usize) -> Time {
        let th = &self.tasks[h];
        if self.busy || !self.tasks[i].cs.is_empty() {
            th.c.saturating_add(th.cs_total)
        } else {
            th.c.saturating_add(th.misc_total)
        }
    }
}

/// Response times of the other tasks as seen while bounding task `i`.
pub(crate) struct View<'a> {
    st: &'a [St],
    /// Count the requests of a lower-priority task not analysed yet as
    /// unbounded instead of assuming `R_x <= D_x` (B5).
    lower_unbounded: bool,
    /// Set when `D_x` stood for the response time of a task not analysed
    /// yet: such a bound holds only if every task meets its deadline.
    pub assumed: bool,
    /// Set when a term needed the response time of a task without a bound.
    pub failed: bool,
}

impl View<'_> {
    /// `R_h` of a higher-priority task, for its carry-in jitter.
    pub fn resp(&mut self, ctx: &Ctx, h: usize) -> Time {
        match self.st[h] {
            St::Ok(r) => r,
            St::Pending => {
                self.assumed = true;
                ctx.tasks[h].deadline
            }
            St::Failed => {
                self.failed = true;
                ctx.tasks[h].deadline
            }
        }
    }

    /// The window in which `x`'s jobs can be active, for counting its
    /// requests: `R_x`, or `None` when the count is unbounded (best-effort
    /// tasks, tasks without a bound, B5).
    pub fn window(&mut self, ctx: &Ctx, x: usize, i: usize) -> Option<Time> {
        if !ctx.tasks[x].rt {
            return None;
        }
        match self.st[x] {
            St::Ok(r) => Some(r),
            St::Failed => None,
            St::Pending if self.lower_unbounded && ctx.lower(x, i) => None,
            St::Pending => {
                self.assumed = true;
                Some(ctx.tasks[x].deadline)
            }
        }
    }
}

/// Jobs of a task with period `period` whose response windows (of length
/// `window`, `None` = unbounded) overlap an interval of length `t`.
#[inline]
pub(crate) fn jobs(t: Time, window: Option<Time>, period: Time) -> Time {
    match window {
        Some(r) => ceil_div(t.saturating_add(r), period),
        None => Time::MAX,
    }
}

/// One carry-in term `ceil((t + jitter) / period) * demand`, capped at
/// `cap` jobs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub period: Time,
    pub jitter: Time,
    pub demand: Time,
    pub cap: Time,
}

impl Term {
    /// A term of a task with response time `resp` whose per-job demand lies
    /// in its response window: jitter `resp - demand`.
    pub fn new(period: Time, resp: Time, demand: Time) -> Term {
        Term {
            period,
            jitter: resp.saturating_sub(demand),
            demand,
            cap: Time::MAX,
        }
    }

    pub fn at(&self, t: Time) -> Time {
        ceil_div(t.saturating_add(self.jitter), self.period)
            .min(self.cap)
            .saturating_mul(self.demand)
    }
}

/// The delay function of one task under one protocol.
pub(crate) trait Delay {
    /// Everything but the task's own work in a window of length `t`.
    fn at(&self, ctx: &Ctx, t: Time) -> Time;
}

/// The least fixed point of `R = own + F(R)` from `own`, or `None` if it
/// exceeds `deadline`.
fn fixed_point(own: Time, f: &impl Delay, ctx: &Ctx, deadline: Time) -> Option<Time> {
    let mut r = own;
    loop {
        if r > deadline {
            return None;
        }
        let next = own.saturating_add(f.at(ctx, r));
        if next == r {
            return Some(r);
        }
        r = next;
    }
}

fn bound(ctx: &Ctx, protocol: Protocol, view: &mut View, i: usize) -> Option<Time> {
    let own = ctx.tasks[i].own_locked();
    let d = ctx.tasks[i].deadline;
    let r = match protocol {
        Protocol::Mpcp => fixed_point(own, &mpcp::Mpcp::new(ctx, view, i), ctx, d),
        Protocol::FmlpPlus => fixed_point(own, &fmlp::Fmlp::new(ctx, view, i), ctx, d),
    };
    if view.failed {
        None
    } else {
        r
    }
}

struct Pass {
    st: Vec<St>,
    assumed: Vec<bool>,
    all_ok: bool,
}

fn pass(ctx: &Ctx, protocol: Protocol, lower_unbounded: bool, stop_early: bool) -> Pass {
    let n = ctx.tasks.len();
    let mut st = vec![St::Pending; n];
    let mut assumed = vec![false; n];
    let mut all_ok = true;
    for &i in &ctx.order {
        let mut view = View {
            st: &st,
            lower_unbounded,
            assumed: false,
            failed: false,
        };
        let r = bound(ctx, protocol, &mut view, i);
        assumed[i] = view.assumed;
        st[i] = r.map_or(St::Failed, St::Ok);
        if r.is_none() {
            all_ok = false;
            if stop_early {
                break;
            }
        }
    }
    Pass {
        st,
        assumed,
        all_ok,
    }
}

/// Bounds the WCRT of every real-time task of `ts` under `protocol`, with
/// busy-waiting (`busy`) or self-suspending lock holders. With
/// `stop_early`, stops at the first task without a bound (the per-task
/// bounds are then incomplete; `schedulable` is exact).
///
/// The first pass counts the requests of lower-priority tasks (analysed
/// later) over `D_x`: those bounds hold if every task meets its deadline
/// (first-violation argument, B5). If some task misses, the bounds are
/// recomputed counting such requests as unbounded, and bounds that still
/// assumed `R_x <= D_x` (equal priorities) are withdrawn.
pub fn bounds(ts: &Taskset, protocol: Protocol, busy: bool, stop_early: bool) -> Bounds {
    let ctx = Ctx::new(ts, busy);
    let mut p = pass(&ctx, protocol, false, stop_early);
    let schedulable = p.all_ok;
    if !schedulable && !stop_early {
        p = pass(&ctx, protocol, true, false);
        for i in 0..p.st.len() {
            if p.assumed[i] {
                p.st[i] = St::Failed;
            }
        }
    }
    Bounds {
        schedulable,
        wcrt: p
            .st
            .iter()
            .zip(&ctx.tasks)
            .map(|(s, t)| match s {
                St::Ok(r) if t.rt => Some(*r),
                _ => None,
            })
            .collect(),
    }
}
