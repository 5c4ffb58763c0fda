//! Audsley's optimal priority assignment for GPU segments (Sec. 5.3 and
//! 6.4 of the GCAPS paper).
//!
//! GPU priority levels are filled from the lowest to the highest. At each
//! level the candidates are the unassigned GPU-using real-time tasks that
//! have the lowest CPU priority among the unassigned GPU-using tasks of
//! their core, so the same-core order rule (GPU order = CPU order on a
//! core) holds by construction. A candidate is accepted if it passes the
//! test at that level assuming every other unassigned task has a higher
//! GPU priority; jitters use `D` instead of `R` (Sec. 6.4), which makes the
//! test of a task depend only on the *set* of higher-GPU-priority tasks.
//! Candidates are tried from the lowest CPU priority up (the paper's
//! iteration order). At most `m(m+1)/2` single-task tests for `m`
//! GPU-using tasks.
//!
//! CPU-only tasks have no GPU priority, but their busy-waiting bound
//! depends on the GPU priorities of others (D5 in `docs/analysis.md`), so
//! the final assignment is checked for every task before it is returned.

use crate::rta::{build, fixed_point, pass, Ctx, Deps, Pass, View};

/// Returns the assigned GPU priorities (indexed like the tasks; CPU-only
/// and best-effort entries unchanged from `gprio`) and the final analysis
/// pass, or `None` if no assignment passes.
pub(crate) fn assign(ctx: &Ctx, gprio: &[u32]) -> Option<(Vec<u32>, Pass)> {
    let n = ctx.p.len();
    let gpu: Vec<usize> = (0..n).filter(|&i| ctx.p[i].rt && ctx.p[i].gpu()).collect();
    let m = gpu.len();
    if m == 0 || m > 99 {
        return None;
    }
    const UNASSIGNED: u32 = 1000;
    let mut g = gprio.to_vec();
    for &i in &gpu {
        g[i] = UNASSIGNED;
    }
    let st = vec![crate::rta::St::Pending; n];
    let mut terms = Vec::with_capacity(2 * n);
    let mut candidates = Vec::with_capacity(m);
    for level in 1..=m as u32 {
        candidates.clear();
        for &c in &gpu {
            if g[c] != UNASSIGNED {
                continue;
            }
            let lowest = gpu.iter().all(|&o| {
                o == c
                    || g[o] != UNASSIGNED
                    || ctx.p[o].cpu != ctx.p[c].cpu
                    || ctx.p[o].prio >= ctx.p[c].prio
            });
            if lowest {
                candidates.push(c);
            }
        }
        candidates.sort_by(|&a, &b| ctx.p[a].prio.cmp(&ctx.p[b].prio).then(a.cmp(&b)));
        let mut chosen = None;
        for &c in &candidates {
            g[c] = level;
            let view = View {
                deadline_mode: true,
                st: &st,
                gprio: &g,
            };
            let mut deps = Deps::default();
            let own = build(ctx, &view, c, &mut terms, &mut deps);
            if fixed_point(own, &terms, ctx.p[c].deadline).is_some() {
                chosen = Some(c);
                break;
            }
            g[c] = UNASSIGNED;
        }
        chosen?;
    }
    // Map ranks 1..=m to values: reuse the sorted original GPU priorities
    // of the GPU-using tasks when they are distinct (so the printed values
    // look like the file's), else keep the ranks.
    let mut orig: Vec<u32> = gpu.iter().map(|&i| gprio[i]).collect();
    orig.sort_unstable();
    let distinct = orig.windows(2).all(|w| w[0] < w[1]);
    if distinct {
        for &i in &gpu {
            g[i] = orig[(g[i] - 1) as usize];
        }
    }
    let final_pass = pass(ctx, &g, true, false);
    if final_pass.all_ok {
        Some((g, final_pass))
    } else {
        None
    }
}
