//! Response-time analysis of Sec. 6 of the GCAPS paper, with the soundness
//! fixes documented in `docs/analysis.md` (every departure from the
//! printed equations is listed there, D1..Dn; the code cites them).
//!
//! Every bound has the shape of a classical fixed point
//!
//! ```text
//! R = own_i + sum over interferers x of ceil((R + J_x) / T_x) * e_x
//! ```
//!
//! where `own_i` is the task's own work plus blocking, and each interferer
//! contributes a per-job demand `e_x` with a carry-in jitter `J_x`
//! (`J_x = R_x - e_x`, or `D_x - e_x` under GPU priority assignment,
//! Sec. 6.4). The terms are built once per task (no allocation inside the
//! fixed point) and iterated until a fixed point or until `R > D`.

use crate::model::{Segment, Taskset, Time};

/// GPU scheduling policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Default nvgpu TSG round-robin time slicing (Sec. 6.2).
    TsgRr,
    /// GCAPS priority-based preemptive GPU context scheduling (Sec. 6.3).
    Gcaps,
}

/// How a task waits for its pure GPU work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitMode {
    /// Busy-waiting: the task keeps its core during `G^e`.
    Busy,
    /// Self-suspending: the task releases its core during `G^e`.
    Suspend,
}

/// Analysis configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Config {
    /// GPU scheduling policy.
    pub policy: Policy,
    /// Waiting mode.
    pub mode: WaitMode,
    /// If the taskset fails with the given GPU priorities, try Audsley GPU
    /// priority assignment (Sec. 5.3 / 6.4). Only meaningful for GCAPS.
    pub gpu_priority_assignment: bool,
}

/// The result for one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskResult {
    /// Task name.
    pub name: String,
    /// True for a best-effort task (no bound).
    pub best_effort: bool,
    /// CPU priority (`None` for best-effort).
    pub priority: Option<u32>,
    /// GPU-segment priority used by the analysis (`None` for best-effort
    /// tasks).
    pub gpu_priority: Option<u32>,
    /// The WCRT bound; `None` for best-effort tasks and tasks without a
    /// bound within their deadline.
    pub wcrt: Option<Time>,
    /// Relative deadline.
    pub deadline: Time,
    /// True if the bound is within the deadline (always true for
    /// best-effort tasks, which have no deadline guarantee).
    pub schedulable: bool,
}

/// The result of [`analyze`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// True if every real-time task is schedulable.
    pub schedulable: bool,
    /// The configuration analysed.
    pub config: Config,
    /// Per task, in file order.
    pub tasks: Vec<TaskResult>,
    /// `Some` when Audsley's assignment ran and produced the final (passing)
    /// assignment: (task name, GPU priority) for every GPU-using real-time
    /// task, in file order.
    pub assigned_gpu_priorities: Option<Vec<(String, u32)>>,
}

/// Per-task quantities, computed once.
#[derive(Debug, Clone)]
pub(crate) struct Prep {
    pub rt: bool,
    /// CPU priority (0 for best-effort).
    pub prio: u32,
    pub cpu: u32,
    pub period: Time,
    pub deadline: Time,
    /// C_i.
    pub c: Time,
    /// G^m_i.
    pub gm: Time,
    /// G^e_i.
    pub ge: Time,
    /// eta^g_i.
    pub eta: Time,
    /// sum_j ceil(G^e_{i,j} / L): round-robin rounds needed (Eq. 3).
    pub slices: Time,
}

impl Prep {
    pub fn gpu(&self) -> bool {
        self.eta > 0
    }
}

/// The analysis context of one taskset and configuration.
pub(crate) struct Ctx {
    pub cfg: Config,
    pub p: Vec<Prep>,
    pub eps: Time,
    pub theta: Time,
    pub slice: Time,
    /// Number of GPU-using processes, including best-effort ones.
    pub n_gpu: Time,
    /// hpp(i): real-time tasks on i's core with CPU priority >= i's
    /// (ties interfere), excluding i. Empty for best-effort tasks.
    pub hpp: Vec<Vec<usize>>,
    /// Real-time task indices by decreasing CPU priority (ties by index).
    pub order: Vec<usize>,
}

#[inline]
fn ceil_div(a: Time, b: Time) -> Time {
    if a == 0 {
        0
    } else {
        (a - 1) / b + 1
    }
}

impl Ctx {
    pub fn new(ts: &Taskset, cfg: &Config) -> Ctx {
        let slice = ts.platform.timeslice.max(1);
        let p: Vec<Prep> = ts
            .tasks
            .iter()
            .map(|t| {
                let mut c = 0u64;
                let mut gm = 0u64;
                let mut ge = 0u64;
                let mut eta = 0u64;
                let mut slices = 0u64;
                for s in &t.segments {
                    match s {
                        Segment::Cpu(x) => c = c.saturating_add(*x),
                        Segment::Gpu(g) => {
                            gm = gm.saturating_add(g.misc);
                            ge = ge.saturating_add(g.exec);
                            eta += 1;
                            slices = slices.saturating_add(ceil_div(g.exec, slice));
                        }
                    }
                }
                Prep {
                    rt: t.priority.is_some(),
                    prio: t.priority.unwrap_or(0),
                    cpu: t.cpu,
                    period: t.period.max(1),
                    deadline: t.deadline,
                    c,
                    gm,
                    ge,
                    eta,
                    slices,
                }
            })
            .collect();
        let n_gpu = p.iter().filter(|x| x.gpu()).count() as Time;
        let hpp = (0..p.len())
            .map(|i| {
                if !p[i].rt {
                    return Vec::new();
                }
                (0..p.len())
                    .filter(|&h| {
                        h != i && p[h].rt && p[h].cpu == p[i].cpu && p[h].prio >= p[i].prio
                    })
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..p.len()).filter(|&i| p[i].rt).collect();
        order.sort_by(|&a, &b| p[b].prio.cmp(&p[a].prio).then(a.cmp(&b)));
        Ctx {
            cfg: *cfg,
            p,
            eps: ts.platform.epsilon,
            theta: ts.platform.theta,
            slice,
            n_gpu,
            hpp,
            order,
        }
    }
}

/// State of a task during one analysis pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum St {
    /// Not analysed yet: other tasks use `D` in its place (Sec. 6.4).
    Pending,
    /// Bounded.
    Ok(Time),
    /// No bound within the deadline.
    Failed,
}

/// How response times of interfering tasks are obtained.
pub(crate) struct View<'a> {
    /// `true`: always use `D_x` (Sec. 6.4, GPU priority assignment).
    pub deadline_mode: bool,
    pub st: &'a [St],
    /// GPU priority of each task (0 for best-effort / unused).
    pub gprio: &'a [u32],
    /// Values used for `Pending` tasks instead of `D_x` (not flagged): the
    /// previous iterate of the least-fixed-point iteration ([`lfp`]), or the
    /// response estimates of a GPU priority search candidate test.
    pub ahead: Option<&'a [Time]>,
    /// Precomputed segment-open times ([`hold`]) by task, valid when they do
    /// not depend on `st` (deadline mode, or all tasks `Pending` with
    /// `ahead`).
    pub holds: Option<&'a [Time]>,
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
    fn resp(&self, ctx: &Ctx, x: usize, deps: &mut Deps) -> Time {
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

/// One interference term: ceil((R + jitter) / period) * demand.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub period: Time,
    pub jitter: Time,
    pub demand: Time,
}

fn term(period: Time, resp: Time, demand: Time, with_jitter: bool) -> Term {
    Term {
        period,
        // Carry-in jitter R_x - e_x (all of a job's demand e_x lies within
        // its response window).
        jitter: if with_jitter {
            resp.saturating_sub(demand)
        } else {
            0
        },
        demand,
    }
}

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
    let per_seg = 3 + u64::from(ctx.cfg.mode == WaitMode::Suspend);
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

/// Builds own work and interference terms of real-time task `i`.
pub(crate) fn build(
    ctx: &Ctx,
    view: &View,
    i: usize,
    terms: &mut Vec<Term>,
    deps: &mut Deps,
) -> Time {
    terms.clear();
    let pi = &ctx.p[i];
    let (eps, theta, l) = (ctx.eps, ctx.theta, ctx.slice);
    let busy = ctx.cfg.mode == WaitMode::Busy;
    let igpu = pi.gpu();
    let base = pi.c.saturating_add(pi.gm).saturating_add(pi.ge);
    match ctx.cfg.policy {
        Policy::TsgRr => {
            // Lemma 1 with Eq. 3 corrected (D2): per round-robin round, each
            // of the nu other GPU processes (best-effort included) runs up to
            // L and costs one context switch, plus one switch back to tau_i.
            let nu = ctx.n_gpu - u64::from(igpu);
            let own_ie = if nu > 0 {
                pi.slices.saturating_mul(
                    nu.saturating_mul(l.saturating_add(theta))
                        .saturating_add(theta),
                )
            } else {
                0
            };
            // Lemma 4 (busy): rounds during which a same-core higher-priority
            // task busy-waits; other hpp tasks' slices are charged to their
            // own G^e, but every TSG switch in the round is charged (D2).
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
        Policy::Gcaps => {
            // Own work with own runlist updates (G*_i, D1) and blocking
            // (Lemma 8 extended, D6): one non-preemptive lower-priority
            // update at release, one lock holder per lock request (two per
            // segment), and one more per wake-up when self-suspending.
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
                    // Lemma 12 + Lemma 10 first term, for any tau_i (D3):
                    // C_h + G^m_h + the busy wait on its own G^e, its two
                    // updates and two lock waits per segment (suspension-
                    // oblivious). Waiting behind remote segments is charged
                    // through K below.
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
                        // Lemma 13 first term: G^e_h, plus the lock wait at
                        // the end of each segment and a lower task's update
                        // at its wake-up while it keeps the GPU (D4). Both
                        // parts of a job's delay lie in h's response
                        // window, so they form one demand with one jitter
                        // R_h - e (D10), never more than two terms with
                        // separate jitters.
                        e = e
                            .saturating_add(ph.ge)
                            .saturating_add(eps.saturating_mul(2 * ph.eta));
                    }
                    let r = view.resp(ctx, h, deps);
                    terms.push(term(ph.period, r, e, true));
                }
            }
            // Remote tasks whose open segments can delay tau_i: GPU priority
            // >= tau_i's (Lemma 10/13 second term), or, busy-waiting, >= the
            // lowest GPU priority of a same-core higher-priority GPU task
            // that tau_i may wait behind on its core (Lemma 11, D5).
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
                // Lock queue-ahead (D7): remote tasks not charged above whose
                // CPU priority (the rt_mutex order) is above a task in the
                // chain of lock requesters tau_i may wait on. Empty when GPU
                // priorities equal CPU priorities.
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
            let n = ceil_div(r.saturating_add(t.jitter), t.period);
            next = next.saturating_add(n.saturating_mul(t.demand));
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
pub(crate) fn lfp(ctx: &Ctx, gprio: &[u32], terms: &mut Vec<Term>) -> Option<Vec<Time>> {
    let n = ctx.p.len();
    let mut est: Vec<Time> = ctx
        .p
        .iter()
        .map(|p| p.c.saturating_add(p.gm).saturating_add(p.ge))
        .collect();
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
                holds: None,
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
    let mut all_ok = true;
    let mut any_assumed = false;
    for &i in &ctx.order {
        let mut deps = Deps::default();
        let view = View {
            deadline_mode,
            st: &st,
            gprio,
            ahead: None,
            holds: None,
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
    if any_assumed && !deadline_mode {
        // Some bound used D_x of a task analysed later (equal priorities or
        // separate GPU priorities): the least fixed point of all bounds is
        // never larger and may stay within the deadlines where this pass
        // does not (D11). Without such a task the pass already is the least
        // fixed point.
        if let Some(v) = lfp(ctx, gprio, &mut terms) {
            for &i in &ctx.order {
                st[i] = St::Ok(v[i]);
            }
            return Pass { st, all_ok: true };
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
    Pass { st, all_ok }
}

/// Effective GPU priorities from the file (0 for best-effort tasks).
pub(crate) fn file_gprio(ts: &Taskset) -> Vec<u32> {
    ts.tasks
        .iter()
        .map(|t| t.effective_gpu_priority().unwrap_or(0))
        .collect()
}

fn report(ts: &Taskset, cfg: &Config, gprio: &[u32], p: &Pass) -> Vec<TaskResult> {
    ts.tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let be = t.is_best_effort();
            let wcrt = match p.st[i] {
                St::Ok(r) if !be => Some(r),
                _ => None,
            };
            TaskResult {
                name: t.name.clone(),
                best_effort: be,
                priority: t.priority,
                gpu_priority: if be {
                    None
                } else if cfg.policy == Policy::Gcaps || t.gpu_priority.is_some() {
                    Some(gprio[i])
                } else {
                    t.priority
                },
                wcrt,
                deadline: t.deadline,
                schedulable: be || wcrt.is_some(),
            }
        })
        .collect()
}

/// Bounds the WCRT of every real-time task of `ts` under `cfg`.
pub fn analyze(ts: &Taskset, cfg: &Config) -> Report {
    let ctx = Ctx::new(ts, cfg);
    let gprio = file_gprio(ts);
    let base = pass(&ctx, &gprio, false, false);
    if !base.all_ok && cfg.gpu_priority_assignment && cfg.policy == Policy::Gcaps {
        if let Some((g, final_pass)) = crate::audsley::assign(&ctx, &gprio) {
            let assigned = ts
                .tasks
                .iter()
                .enumerate()
                .filter(|(i, _)| ctx.p[*i].rt && ctx.p[*i].gpu())
                .map(|(i, t)| (t.name.clone(), g[i]))
                .collect();
            return Report {
                schedulable: true,
                config: *cfg,
                tasks: report(ts, cfg, &g, &final_pass),
                assigned_gpu_priorities: Some(assigned),
            };
        }
    }
    Report {
        schedulable: base.all_ok,
        config: *cfg,
        tasks: report(ts, cfg, &gprio, &base),
        assigned_gpu_priorities: None,
    }
}

/// Fast schedulability test (stops at the first miss); agrees with
/// `analyze(ts, cfg).schedulable`.
pub fn is_schedulable(ts: &Taskset, cfg: &Config) -> bool {
    let ctx = Ctx::new(ts, cfg);
    let gprio = file_gprio(ts);
    if pass(&ctx, &gprio, false, true).all_ok {
        return true;
    }
    cfg.gpu_priority_assignment
        && cfg.policy == Policy::Gcaps
        && crate::audsley::assign(&ctx, &gprio).is_some()
}
