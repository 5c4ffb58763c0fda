//! Tasks without a bound because two busy-waiting GPU tasks of equal CPU
//! priority on one core can deadlock under GCAPS with epsilon > 0 (issue 8
//! class 1, D16).
//!
//! The schedule (U1-U3, Linux SCHED_FIFO): A and B share core c and CPU
//! priority p. A's begin update has to wait (the lock is held by another
//! update, or A's own update sleeps in the submit wait), so B runs and
//! requests the lock behind A. A's update opens A's segment and A returns
//! to p; B's update is granted next, preempts A at the ceiling, finds A's
//! segment holding the GPU at an equal (or higher) GPU priority, and
//! returns to p at the *head* of p's queue (Linux enqueues a task whose
//! priority is lowered at the head). B now busy-waits for the GPU ahead of
//! A, and A, which needs the core to finish its segment, never runs again.

use super::context::Ctx;
use super::{GpuPolicy, WaitMode};

/// True if the configuration can deadlock at all: GCAPS, busy waiting,
/// epsilon > 0 (with epsilon = 0 no update waits or sleeps).
fn prone(ctx: &Ctx) -> bool {
    ctx.policy == GpuPolicy::Gcaps && ctx.mode == WaitMode::Busy && ctx.cost.lock() > 0
}

/// Pairs of real-time GPU tasks with equal CPU priorities on one core (in
/// the deadlock-prone configuration): the pair, by task index.
pub(crate) fn pairs(ctx: &Ctx) -> Vec<(usize, usize)> {
    if !prone(ctx) {
        return Vec::new();
    }
    let p = &ctx.p;
    let gpu_rt = |x: usize| p[x].rt && p[x].gpu();
    let mut out = Vec::new();
    for a in 0..p.len() {
        for b in a + 1..p.len() {
            if gpu_rt(a) && gpu_rt(b) && p[a].cpu == p[b].cpu && p[a].prio == p[b].prio {
                out.push((a, b));
            }
        }
    }
    out
}

/// For each task, the deadlocking pair that leaves it without a bound, if
/// any. Once a pair is stuck: every task on its core at or below its
/// priority never runs again (the spinner keeps the core); every real-time
/// GPU task whose GPU priority is not above the pair's waits forever behind
/// the open segment (Alg. 1 preempts only on a strictly higher priority),
/// and, busy-waiting, keeps its own core, so every task at or below it on
/// that core is stuck too.
pub(crate) fn stuck(ctx: &Ctx, gprio: &[u32]) -> Vec<Option<(usize, usize)>> {
    let p = &ctx.p;
    let n = p.len();
    let mut out: Vec<Option<(usize, usize)>> = vec![None; n];
    for (a, b) in pairs(ctx) {
        let g_max = gprio[a].max(gprio[b]);
        // Spinners: (core, priority) of tasks that keep a core forever.
        let mut spinners = vec![(p[a].cpu, p[a].prio)];
        let mut mark = vec![false; n];
        for x in 0..n {
            if p[x].rt && p[x].gpu() && gprio[x] <= g_max {
                mark[x] = true;
                spinners.push((p[x].cpu, p[x].prio));
            }
        }
        let mut k = 0;
        while k < spinners.len() {
            let (cpu, prio) = spinners[k];
            for x in 0..n {
                if !mark[x] && p[x].rt && p[x].cpu == cpu && p[x].prio <= prio {
                    mark[x] = true;
                    if p[x].gpu() {
                        spinners.push((p[x].cpu, p[x].prio));
                    }
                }
            }
            k += 1;
        }
        for x in 0..n {
            if mark[x] && out[x].is_none() {
                out[x] = Some((a, b));
            }
        }
    }
    out
}
