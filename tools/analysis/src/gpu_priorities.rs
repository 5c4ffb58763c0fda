//! GPU priority assignment (Sec. 5.3 and 6.4 of the GCAPS paper): the
//! generic [`crate::audsley`] search with per-level tests built from the
//! fixed-assignment analysis ([`crate::wcrt`]), plus searches guided by
//! response estimates (D12 in `docs/analysis.md`).
//!
//! At each level the candidates are the unassigned GPU-using real-time
//! tasks that have the lowest CPU priority among the unassigned GPU-using
//! tasks of their core, so the same-core order rule (GPU order = CPU order
//! on a core) holds by construction. A candidate is accepted if it passes
//! the test at that level assuming every other unassigned task has a
//! higher GPU priority. Candidates are tried from the lowest CPU priority
//! up (the paper's iteration order). At most `m(m+1)/2` single-task tests
//! for `m` GPU-using tasks.
//!
//! The first search uses the paper's test: jitters use `D` instead of `R`
//! (Sec. 6.4), which makes the test of a task depend only on the *set* of
//! higher-GPU-priority tasks. That test is much weaker than the analysis of
//! a fixed assignment, so when it finds nothing, further searches replace
//! `D_x` by response estimates (first the tasks' own work, then the bounds
//! of the previous candidate assignment). Those tests only choose an
//! assignment: every assignment is accepted only if the full analysis of
//! that fixed assignment (`pass` in response mode, with the least fixed
//! point of D11) passes, CPU-only tasks included (their busy-waiting bound
//! depends on the GPU priorities of others, D5). An assignment that passes
//! the paper's test always passes that check.

use crate::audsley::audsley;
use crate::model::{Time, MAX_GPU_PRIORITY, MIN_PRIORITY};
use crate::wcrt::{build, fixed_point, pass, Ctx, Deps, Pass, St, Term, View};

/// Estimate-guided searches after the paper's one (each is one Audsley run
/// plus one check of its result).
const GUIDED_ROUNDS: usize = 3;

/// GPU priority of a task not assigned yet: above every level.
const UNASSIGNED: u32 = 1000;

/// Returns the assigned GPU priorities (indexed like the tasks; CPU-only
/// and best-effort entries unchanged from `gprio`) and the final analysis
/// pass, or `None` if no assignment found passes.
pub(crate) fn assign(ctx: &Ctx, gprio: &[u32]) -> Option<(Vec<u32>, Pass)> {
    let n = ctx.p.len();
    let gpu: Vec<usize> = (0..n).filter(|&i| ctx.p[i].rt && ctx.p[i].gpu()).collect();
    let m = gpu.len();
    if m == 0 || m > (MAX_GPU_PRIORITY - MIN_PRIORITY + 1) as usize {
        return None;
    }
    let mut terms = Vec::with_capacity(2 * n);
    let mut tried: Vec<Vec<u32>> = Vec::new();
    // The paper's test (D for every other task), then estimates: the own
    // work of every task, then the bounds of the last candidate (D where it
    // has none).
    let mut est: Option<Vec<Time>> = None;
    for round in 0..=GUIDED_ROUNDS {
        let Some(g) = search(ctx, gprio, &gpu, est.as_deref(), &mut terms) else {
            if round == 0 {
                est = Some(ctx.own_work());
                continue;
            }
            return None;
        };
        if tried.contains(&g) {
            return None;
        }
        let p = pass(ctx, &g, false, false);
        if p.all_ok {
            return Some((g, p));
        }
        est = Some(if round == 0 {
            ctx.own_work()
        } else {
            (0..n)
                .map(|x| match p.st[x] {
                    St::Ok(r) => r,
                    _ => ctx.p[x].deadline,
                })
                .collect()
        });
        tried.push(g);
    }
    None
}

/// One Audsley run over the GPU-using real-time tasks `gpu`. `est`: `None`
/// for the paper's deadline-based test, else the response values assumed
/// for every other task. Returns the GPU priorities with the ranks mapped
/// to values.
fn search(
    ctx: &Ctx,
    gprio: &[u32],
    gpu: &[usize],
    est: Option<&[Time]>,
    terms: &mut Vec<Term>,
) -> Option<Vec<u32>> {
    let n = ctx.p.len();
    let mut g = gprio.to_vec();
    for &i in gpu {
        g[i] = UNASSIGNED;
    }
    let st = vec![St::Pending; n];
    // No precomputed segment-open times: each test computes the holds
    // with the lock wait refined for the task tested (D22), as the full
    // analysis does.
    // Candidates: the unassigned tasks with the lowest CPU priority among
    // the unassigned GPU tasks of their core, lowest CPU priority first.
    let candidates = |levels: &[Option<u32>], out: &mut Vec<usize>| {
        for (a, &c) in gpu.iter().enumerate() {
            if levels[a].is_some() {
                continue;
            }
            let lowest = gpu.iter().enumerate().all(|(b, &o)| {
                o == c
                    || levels[b].is_some()
                    || ctx.p[o].cpu != ctx.p[c].cpu
                    || ctx.p[o].prio >= ctx.p[c].prio
            });
            if lowest {
                out.push(a);
            }
        }
        out.sort_by(|&a, &b| {
            ctx.p[gpu[a]]
                .prio
                .cmp(&ctx.p[gpu[b]].prio)
                .then(gpu[a].cmp(&gpu[b]))
        });
    };
    let passes = |a: usize, levels: &[Option<u32>]| {
        for (b, &i) in gpu.iter().enumerate() {
            g[i] = levels[b].unwrap_or(UNASSIGNED);
        }
        let view = View {
            deadline_mode: est.is_none(),
            st: &st,
            gprio: &g,
            ahead: est,
        };
        let c = gpu[a];
        let mut deps = Deps::default();
        let own = build(ctx, &view, c, terms, &mut deps);
        fixed_point(own, terms, ctx.p[c].deadline).is_some()
    };
    let ranks = audsley(gpu.len(), candidates, passes)?;
    // Map ranks 1..=m to values: reuse the sorted original GPU priorities
    // of the GPU-using tasks when they are distinct (so the printed values
    // look like the file's), else keep the ranks.
    let mut orig: Vec<u32> = gpu.iter().map(|&i| gprio[i]).collect();
    orig.sort_unstable();
    let distinct = orig.windows(2).all(|w| w[0] < w[1]);
    let mut g = gprio.to_vec();
    for (a, &i) in gpu.iter().enumerate() {
        g[i] = if distinct {
            orig[(ranks[a] - 1) as usize]
        } else {
            ranks[a]
        };
    }
    Some(g)
}
