//! Terms of GCAPS (Sec. 6.3, Lemmas 8-15), and the time a GPU-using task
//! keeps its TSGs on the runlist ([`hold`], D4), under the update path of
//! U1-U4: every update runs at the ceiling, the runlist lock grants in FIFO
//! order (D13), and a lower-priority updater on the core can block a task
//! once per ready interval (D14). gcaps-boost (issue 20) shares all of it
//! but two terms: a running segment's owner is boosted, so the hold has no
//! CPU preemption by its core's tasks (D17), and a boosted lower-priority
//! segment can delay a task on its core (D18).

use super::context::Ctx;
use super::view::{term, Deps, Term, View};
use super::{ceil_div, WaitMode};
use crate::model::Time;

/// Number of times per job that task `x` starts a ready interval inside an
/// open segment of its own: after the begin update of each segment, and in
/// suspend mode after each GPU wait (one per submission, U7). Each such
/// start can be followed by one ceiling update of every lower-priority
/// updater on its core (D14).
fn open_restarts(ctx: &Ctx, x: usize) -> Time {
    let px = &ctx.p[x];
    let wakeups = if ctx.mode == WaitMode::Suspend {
        px.pieces
    } else {
        0
    };
    px.eta.saturating_add(wakeups)
}

/// The part of a segment-open time of task `x` per job that is not CPU
/// work of `x`: its pure GPU work, the lock wait of each end update (at
/// most `lock_wait`, D13), and the ceiling updates of lower-priority tasks
/// on its core that preempt it while a segment is open (D14). Those cannot
/// submit (x's open segment outranks theirs on the GPU): `eps_fast` each
/// (D20).
fn open_non_cpu(ctx: &Ctx, x: usize, lock_wait: Time) -> Time {
    let px = &ctx.p[x];
    px.ge
        .saturating_add(px.eta.saturating_mul(lock_wait))
        .saturating_add(
            open_restarts(ctx, x)
                .saturating_mul(px.lower_updaters)
                .saturating_mul(ctx.eps_fast),
        )
}

/// GCAPS: the time a GPU-using task `k` can keep its TSGs on the runlist
/// per job ("segment-open time", D4): its G^m and G^e, its two runlist
/// updates and the lock wait of its end update per segment (D13), the
/// ceiling updates of lower tasks on its core after each begin update and
/// each GPU wait (D14), and the CPU work its same-core higher-priority
/// tasks can do while it holds the GPU (their CPU segments and
/// segment-begin updates). Capped by k's response time (in deadline mode,
/// `D_k`). `lock_wait` bounds the part of one end-update lock wait that is
/// not charged elsewhere in the analysis that uses the hold (D13): at most
/// `ctx.lock_wait`. (The Audsley tests compute holds the same way, D22.)
///
/// gcaps-boost (D17): the time `k`'s segments are the *running* segment
/// (Alg. 1's winner); while it runs, k is boosted above every task of its
/// core, so nothing of hpp(k) is added: the same base, plus up to two
/// updates per segment of each equal-priority GPU task of k's core (which
/// can run while k is ready but not boosted, and whose updates are not
/// charged to a holder when its GPU priority is lower), capped by `R_k`.
fn hold(ctx: &Ctx, view: &View, k: usize, lock_wait: Time, deps: &mut Deps) -> Time {
    let pk = &ctx.p[k];
    let cost = &ctx.cost;
    let base = pk
        .gm
        .saturating_add(segment_updates_gpu(ctx).saturating_mul(pk.eta))
        .saturating_add(open_non_cpu(ctx, k, lock_wait));
    let wk = view.resp(ctx, k, deps);
    // The hold ends when the next winner's TSG runs: up to `switch_after`
    // after k's last end update, which lies in k's response window (D24).
    let cap = wk.saturating_add(ctx.cost.switch_after);
    if ctx.boost() {
        let peers = cost
            .lock()
            .saturating_mul(2 * pk.eta)
            .saturating_mul(pk.equal_updaters);
        return base.saturating_add(peers).min(cap);
    }
    // Fixed point over the total open time H of one job: the eta_k open
    // intervals (total length H) meet at most
    // ceil((H + eta_k J_x) / T_x) + eta_k - 1 jobs of x (sum of per-interval
    // ceilings), and never more than the jobs in k's response window.
    let eta = pk.eta.max(1);
    let mut h = base;
    loop {
        if h >= cap {
            return cap;
        }
        let mut next = base;
        for &x in &ctx.hpp[k] {
            let px = &ctx.p[x];
            let e = px.c.saturating_add(cost.begin_gpu.saturating_mul(px.eta));
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

/// The two updates of one segment as a task's own response and as a hold
/// count them (D1, D24): the begin until its TSG can run, the end until it
/// returns (a hand-over does not wait for the GPU).
fn own_updates(ctx: &Ctx) -> Time {
    ctx.cost.begin_gpu.saturating_add(ctx.cost.end_lock)
}

/// The two updates of one segment as the GPU time the segment keeps from
/// the others (D4, D17, D24): the begin until its TSG can run, the end
/// until the next winner's TSG can run.
fn segment_updates_gpu(ctx: &Ctx) -> Time {
    ctx.cost.begin_gpu.saturating_add(ctx.cost.end_gpu)
}

/// The window in which the GPU delays caused by a job of `x` lie: its
/// response window, and under gate the switch to the next winner after its
/// last end update (D24).
fn gpu_window(ctx: &Ctx, view: &View, x: usize, deps: &mut Deps) -> Time {
    view.resp(ctx, x, deps)
        .saturating_add(ctx.cost.switch_after)
}

/// Pushes the interference terms of real-time task `i` and returns its own
/// work with its runlist updates, lock waits and blocking.
pub(super) fn build(
    ctx: &Ctx,
    view: &View,
    i: usize,
    terms: &mut Vec<Term>,
    deps: &mut Deps,
) -> Time {
    let pi = &ctx.p[i];
    // Own work with own runlist updates (G*_i, D1, D24).
    let mut own =
        pi.c.saturating_add(pi.gm)
            .saturating_add(pi.ge)
            .saturating_add(own_updates(ctx).saturating_mul(pi.eta));
    own = own.saturating_add(ceiling_blocking(ctx, view, i, terms));
    let thr = threshold(ctx, view, i);
    let holders = holders(ctx, view, i, thr);
    let queued = queued_updaters(ctx, i, &holders);
    let waits = LockWaits::new(ctx, queued.len() as Time);
    if pi.gpu() {
        own = own.saturating_add(own_lock_waits(ctx, view, i, &queued, terms));
    }
    hpp_terms(ctx, view, i, thr, &waits, terms, deps);
    for &k in &holders {
        let e = hold(ctx, view, k, waits.end, deps);
        let r = gpu_window(ctx, view, k, deps);
        terms.push(term(ctx.p[k].period, r, e, true));
    }
    if ctx.boost() {
        own = own.saturating_add(boosted_lower(ctx, view, i, terms));
        handover_spin(ctx, view, i, terms, deps);
    }
    own
}

/// The blocking of tau_i by lower-priority updaters on its core (D14):
/// each has at most one request outstanding, and can only issue one while
/// tau_i is not ready, so it preempts tau_i at the ceiling at most once per
/// ready interval: after the release, after each of tau_i's lock requests,
/// and in suspend mode after each GPU wait (one per submission, U7). What
/// blocks tau_i is the update's CPU time on the core, eps_cpu (D23): the
/// rest of the update sleeps in the pending wait, and tau_i runs then. In
/// the intervals that start with tau_i's segment open (after a begin
/// request, after a GPU wait) a lower updater cannot submit: eps_fast
/// (D20). Each lower updater's charge is also capped by its updates' CPU
/// time in tau_i's window (D21). Returns the part without a window.
fn ceiling_blocking(ctx: &Ctx, view: &View, i: usize, terms: &mut Vec<Term>) -> Time {
    let pi = &ctx.p[i];
    let closed_intervals = 1 + pi.eta;
    let per_lower = closed_intervals
        .saturating_mul(ctx.cost.cpu)
        .saturating_add(open_restarts(ctx, i).saturating_mul(ctx.eps_fast));
    let mut fixed: Time = 0;
    for (x, px) in ctx.p.iter().enumerate() {
        if px.rt && px.gpu() && px.cpu == pi.cpu && px.prio < pi.prio {
            let cost = (ctx.cost.cpu.saturating_mul(2), per_lower);
            fixed = fixed.saturating_add(updates_capped(ctx, view, x, cost, terms));
        }
    }
    fixed
}

/// The GPU priority threshold of the remote tasks whose open segments can
/// delay tau_i (K): GPU priority >= tau_i's (Lemma 10/13 second term), or,
/// busy-waiting, >= the lowest GPU priority of a same-core higher-priority
/// GPU task that tau_i may wait behind on its core (Lemma 11, D5);
/// `u32::MAX` when there is none.
fn threshold(ctx: &Ctx, view: &View, i: usize) -> u32 {
    let mut thr = u32::MAX;
    if ctx.p[i].gpu() {
        thr = view.gprio[i];
    }
    if ctx.mode == WaitMode::Busy {
        let hpp_min_g = ctx.hpp[i]
            .iter()
            .filter(|&&h| ctx.p[h].gpu())
            .map(|&h| view.gprio[h])
            .min()
            .unwrap_or(u32::MAX);
        thr = thr.min(hpp_min_g);
    }
    thr
}

/// The holders K of tau_i (D5): remote real-time GPU tasks at or above the
/// threshold.
fn holders(ctx: &Ctx, view: &View, i: usize, thr: u32) -> Vec<usize> {
    if thr == u32::MAX {
        return Vec::new();
    }
    let pi = &ctx.p[i];
    (0..ctx.p.len())
        .filter(|&k| {
            let pk = &ctx.p[k];
            k != i && pk.rt && pk.gpu() && pk.cpu != pi.cpu && view.gprio[k] >= thr
        })
        .collect()
}

/// Lock waits (D13): the rt_mutex grants in FIFO order at the ceiling, so a
/// request waits for at most one update of every other real-time GPU task.
/// Some of those updates are charged elsewhere: those of same-core
/// higher-priority tasks are in their terms, those of the holders K inside
/// their segment-open times, and tau_i's own in its own work. At any
/// instant tau_i waits in one place, so a lock wait (of tau_i, or of a task
/// whose open segment tau_i waits behind) only needs the other updaters:
/// these. Every one of them has a lower GPU priority than tau_i and than
/// the holders and same-core hpp tasks (D5, strict same-core order).
fn queued_updaters(ctx: &Ctx, i: usize, holders: &[usize]) -> Vec<usize> {
    let pi = &ctx.p[i];
    (0..ctx.p.len())
        .filter(|&x| {
            let px = &ctx.p[x];
            x != i
                && px.rt
                && px.gpu()
                && !(px.cpu == pi.cpu && px.prio >= pi.prio)
                && !holders.contains(&x)
        })
        .collect()
}

/// One lock wait behind the queued updaters (D13): ahead of a begin
/// request, eps each; ahead of the end request of an open segment that
/// outranks them all, eps_fast each, since their updates cannot submit
/// then (D20).
struct LockWaits {
    begin: Time,
    end: Time,
}

impl LockWaits {
    fn new(ctx: &Ctx, queued: Time) -> LockWaits {
        LockWaits {
            begin: ctx.cost.lock().saturating_mul(queued).min(ctx.lock_wait),
            end: ctx.eps_fast.saturating_mul(queued).min(ctx.lock_wait),
        }
    }

    /// The end wait of a same-core hpp task h: eps_fast per updater when
    /// every queued updater is below h on the GPU (always, unless h has
    /// tau_i's CPU priority and a GPU priority below the threshold).
    fn end_of(&self, view: &View, h: usize, thr: u32) -> Time {
        if view.gprio[h] >= thr {
            self.end
        } else {
            self.begin
        }
    }
}

/// tau_i's own lock waits (D13): per queued updater, one update per
/// request (eps ahead of a begin, eps_fast ahead of an end, D20), and never
/// more than its updates in tau_i's window (D21). Returns the part without
/// a window.
fn own_lock_waits(
    ctx: &Ctx,
    view: &View,
    i: usize,
    queued: &[usize],
    terms: &mut Vec<Term>,
) -> Time {
    let cost = &ctx.cost;
    let per_queued = cost
        .lock()
        .saturating_add(ctx.eps_fast)
        .saturating_mul(ctx.p[i].eta);
    let per_segment = cost.begin_lock.saturating_add(cost.end_lock);
    queued.iter().fold(0, |acc: Time, &x| {
        acc.saturating_add(updates_capped(
            ctx,
            view,
            x,
            (per_segment, per_queued),
            terms,
        ))
    })
}

/// The terms of tau_i's same-core higher-priority tasks (D3, D10).
fn hpp_terms(
    ctx: &Ctx,
    view: &View,
    i: usize,
    thr: u32,
    waits: &LockWaits,
    terms: &mut Vec<Term>,
    deps: &mut Deps,
) {
    let igpu = ctx.p[i].gpu();
    // h's updates: its begin until its TSG runs, and its end until the next
    // winner's TSG runs (D24: under gate the switch follows the hand-over).
    // tau_i may wait on the GPU behind that switch, and so, busy-waiting, may
    // another hpp task of the core that keeps tau_i from running.
    let updates = segment_updates_gpu(ctx);
    for &h in &ctx.hpp[i] {
        let ph = &ctx.p[h];
        if ctx.mode == WaitMode::Busy {
            // Lemma 12 + Lemma 10 first term, for any tau_i (D3): C_h +
            // G^m_h + the busy wait on its own G^e and its two updates per
            // segment. Waiting behind remote segments is charged through K.
            // h's lock waits, two per segment, either count
            // suspension-obliviously at their full bound W with no jitter,
            // or, with the jitter R_h - e, only where they can delay tau_i:
            // the end waits, while h's segment is open (tau_i, or a task of
            // its core that tau_i waits behind, may busy-wait on the GPU
            // behind it), counting the updaters not charged elsewhere
            // (D13). During h's begin waits its segment is not open yet and
            // tau_i can run unless something charged elsewhere delays it.
            // Both bound the delay, so the smaller counts.
            let cpu_and_gpu =
                ph.c.saturating_add(ph.gm)
                    .saturating_add(ph.ge)
                    .saturating_add(updates.saturating_mul(ph.eta));
            let e = cpu_and_gpu.saturating_add(ctx.lock_wait.saturating_mul(2 * ph.eta));
            let mut t = term(ph.period, 0, e, false);
            if let Some(r) = view.resp_if_known(ctx, h) {
                let r = r.saturating_add(ctx.cost.switch_after);
                let e2 =
                    cpu_and_gpu.saturating_add(waits.end_of(view, h, thr).saturating_mul(ph.eta));
                t.alt = Some((r.saturating_sub(e2), e2));
            }
            terms.push(t);
        } else {
            // Lemma 15: C_h + G^m*_h.
            let mut e =
                ph.c.saturating_add(ph.gm)
                    .saturating_add(updates.saturating_mul(ph.eta));
            if igpu && ph.gpu() {
                // Lemma 13 first term: the rest of h's segment-open time,
                // during which tau_i cannot get the GPU: G^e_h, the lock
                // wait of each end update (D13) and the lower updaters'
                // ceiling updates after its begin updates and GPU waits
                // (D14). Both parts of a job's delay lie in h's response
                // window, so they form one demand with one jitter R_h - e
                // (D10), never more than two terms with separate jitters.
                e = e.saturating_add(open_non_cpu(ctx, h, waits.end_of(view, h, thr)));
            }
            let r = gpu_window(ctx, view, h, deps);
            terms.push(term(ph.period, r, e, true));
        }
    }
}

/// D21: the delay of tau_i by the updates of task `x` (lock waits behind
/// them, D13, or their ceiling preemptions, D14) is at most `per_job` per
/// job of tau_i, and never more than x's updates in tau_i's window: one
/// begin and one end per segment, at most `per_segment` together (their
/// lock times for a lock wait, twice the update's CPU time for a
/// preemption, D23), all inside x's response window (jitter
/// `R_x - eta_x per_segment`). Pushes the capped
/// term and returns 0 when `R_x` is at hand without an assumption (an
/// earlier task, the least fixed point of D11, the Audsley tests);
/// otherwise returns `per_job`.
fn updates_capped(
    ctx: &Ctx,
    view: &View,
    x: usize,
    (per_segment, per_job): (Time, Time),
    terms: &mut Vec<Term>,
) -> Time {
    let px = &ctx.p[x];
    let Some(r) = view.resp_if_known(ctx, x) else {
        return per_job;
    };
    let mut t = term(px.period, r, per_segment.saturating_mul(px.eta), true);
    t.cap = Some(per_job);
    terms.push(t);
    0
}

/// gcaps-boost: the CPU time on its core of one segment of `l` that runs
/// boosted (D18): busy-waiting, the whole segment `G^m + G^e` (it spins at
/// the boost priority), the wait for its TSG after its own begin (gate:
/// theta, D24) and its end update's CPU time; self-suspending, its `G^m`
/// and its end update's CPU time (D23: the update sleeps for the rest).
/// Returns (longest segment, sum per job).
fn boosted_cpu(ctx: &Ctx, l: usize) -> (Time, Time) {
    let pl = &ctx.p[l];
    let update = ctx.cost.cpu;
    let spin = ctx.cost.switch_after;
    let (one, all) = match ctx.mode {
        WaitMode::Busy => (
            pl.seg_max.saturating_add(spin),
            pl.gm
                .saturating_add(pl.ge)
                .saturating_add(spin.saturating_mul(pl.eta)),
        ),
        WaitMode::Suspend => (pl.gm_max, pl.gm),
    };
    (
        one.saturating_add(update),
        all.saturating_add(update.saturating_mul(pl.eta)),
    )
}

/// gcaps-boost (D18): `l` is a real-time GPU task of tau_i's core below it,
/// which can run boosted while tau_i is ready.
fn is_boostable_lower(ctx: &Ctx, i: usize, l: usize) -> bool {
    let (pi, pl) = (&ctx.p[i], &ctx.p[l]);
    pl.rt && pl.gpu() && pl.cpu == pi.cpu && pl.prio < pi.prio
}

/// gcaps-boost (D18): the boosted segments of lower-priority GPU tasks of
/// tau_i's core. A lower `l` runs while tau_i is ready only boosted, i.e.
/// while its segment is the running one, which cannot happen while tau_i
/// has an open segment (tau_i outranks it on the GPU); so only in the
/// `1 + eta_i` intervals without an open segment of tau_i (from the
/// release, and from each end update: the hand-over on one core), each
/// with at most one segment of each `l`. Per `l`: `(1 + eta_i)` times its
/// longest boosted segment, and when `R_l` is at hand also at most its
/// boosted segments in tau_i's window (jitter `R_l - e`). Pushes the
/// window-capped terms and returns the count-only charges (no `R_l`).
fn boosted_lower(ctx: &Ctx, view: &View, i: usize, terms: &mut Vec<Term>) -> Time {
    let pi = &ctx.p[i];
    let intervals = 1 + pi.eta;
    let mut fixed: Time = 0;
    for (l, pl) in ctx.p.iter().enumerate() {
        if !is_boostable_lower(ctx, i, l) {
            continue;
        }
        let (one, per_job) = boosted_cpu(ctx, l);
        let by_count = intervals.saturating_mul(one);
        match view.resp_if_known(ctx, l) {
            Some(r) => {
                let mut t = term(pl.period, r, per_job, true);
                t.cap = Some(by_count);
                terms.push(t);
            }
            None => fixed = fixed.saturating_add(by_count),
        }
    }
    fixed
}

/// gcaps-boost, busy-waiting (D18, the hand-over spin): an update of
/// another task that makes a pending lower segment `l` of tau_i's core the
/// running one may boost l before l's TSGs run (at its decision; U8 allows
/// it), and l then spins at 98 on tau_i's core until its TSG runs: the
/// rest of that update, and under gate the switch after it (`end_gpu`,
/// D24). Such an update is the end of the running segment,
/// which ranked at least l's on the GPU (it ran while l was open), of a
/// task other than tau_i (tau_i has no open segment while l runs
/// boosted) and other than l: `end_gpu` per segment of every such task in
/// tau_i's window. l's own begin makes it the winner at the ceiling, and
/// self-suspending owners sleep until their work runs: nothing more.
fn handover_spin(ctx: &Ctx, view: &View, i: usize, terms: &mut Vec<Term>, deps: &mut Deps) {
    if ctx.mode != WaitMode::Busy {
        return;
    }
    for (h, ph) in ctx.p.iter().enumerate() {
        let hands_over = (0..ctx.p.len())
            .any(|l| l != h && is_boostable_lower(ctx, i, l) && view.gprio[l] <= view.gprio[h]);
        if h == i || !(ph.rt && ph.gpu()) || !hands_over {
            continue;
        }
        let r = gpu_window(ctx, view, h, deps);
        terms.push(term(
            ph.period,
            r,
            ctx.cost.end_gpu.saturating_mul(ph.eta),
            true,
        ));
    }
}
