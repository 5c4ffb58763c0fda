//! The per-task view of a taskset that every analysis works on (the bounds
//! of [`crate::wcrt`] and the lock-based baselines of [`crate::baseline`]):
//! each task's class, core, timing and the sums and maxima of its segments,
//! computed once per taskset, and the order in which real-time tasks are
//! analysed.

use crate::model::{Segment, Taskset, Time};

/// `ceil(a / b)` for `b > 0`.
#[inline]
pub(crate) fn ceil_div(a: Time, b: Time) -> Time {
    if a == 0 {
        0
    } else {
        (a - 1) / b + 1
    }
}

/// State of a task during one analysis pass, for every analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum St {
    /// Not analysed yet: the analyses use `D` in its place (Sec. 6.4), flagged as assumed.
    Pending,
    /// Bounded.
    Ok(Time),
    /// No bound within the deadline.
    Failed,
}

/// Per-task quantities, computed once per taskset ([`tasks`]).
#[derive(Debug, Clone)]
pub(crate) struct PerTask {
    pub rt: bool,
    /// CPU priority (0 for best-effort, below every real-time task).
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
    /// eta^g_i: number of GPU segments (lock requests per job under a
    /// baseline).
    pub eta: Time,
    /// sum_j (ceil(G^e_{i,j} / L) + n_{i,j} - 1): round-robin turns needed
    /// (Eq. 3), where `n_{i,j}` is the segment's number of submissions: each
    /// piece after the first may need one more turn (D14).
    pub slices: Time,
    /// sum_j n_{i,j}: GPU waits per job (U7), i.e. self-suspensions on the
    /// GPU in suspend mode.
    pub pieces: Time,
    /// Real-time GPU-using tasks on the same core with a strictly lower CPU
    /// priority: each can block this task once per ready interval with one
    /// update at the ceiling (U4, D14). 0 for best-effort tasks.
    pub lower_updaters: Time,
    /// Real-time GPU-using tasks on the same core with the same CPU
    /// priority (D17). 0 for best-effort tasks.
    pub equal_updaters: Time,
    /// max_j G^m_{i,j}: the longest `misc` of one GPU segment (D18).
    pub gm_max: Time,
    /// max_j (G^m_{i,j} + G^e_{i,j}): the longest GPU segment (D18).
    pub seg_max: Time,
    /// Per GPU segment, the lock holding time `G^m + G^e + θ` under a
    /// baseline (B1, B2), largest first.
    pub cs: Vec<Time>,
    /// Per GPU segment, `G^m`, largest first.
    pub misc: Vec<Time>,
    /// Sum of `cs`.
    pub cs_total: Time,
    /// Sum of `misc`.
    pub misc_total: Time,
}

impl PerTask {
    /// True if the task has GPU segments.
    pub fn gpu(&self) -> bool {
        self.eta > 0
    }

    /// Largest critical section under a baseline (0 without GPU segments).
    pub fn cs_max(&self) -> Time {
        self.cs.first().copied().unwrap_or(0)
    }

    /// The task's own work under a baseline: its CPU segments and its
    /// critical sections.
    pub fn own_locked(&self) -> Time {
        self.c.saturating_add(self.cs_total)
    }
}

/// The per-task view of every task of `ts`, in file order.
pub(crate) fn tasks(ts: &Taskset) -> Vec<PerTask> {
    let slice = ts.platform.timeslice.max(1);
    let theta = ts.platform.theta;
    let mut p: Vec<PerTask> = ts
        .tasks
        .iter()
        .map(|t| {
            let mut c = 0u64;
            let mut gm = 0u64;
            let mut ge = 0u64;
            let mut eta = 0u64;
            let mut slices = 0u64;
            let mut pieces = 0u64;
            let mut gm_max = 0u64;
            let mut seg_max = 0u64;
            let mut cs = Vec::new();
            let mut misc = Vec::new();
            for s in &t.segments {
                match s {
                    Segment::Cpu(x) => c = c.saturating_add(*x),
                    Segment::Gpu(g) => {
                        let n = Time::from(g.submissions.max(1));
                        gm = gm.saturating_add(g.misc);
                        ge = ge.saturating_add(g.exec);
                        eta += 1;
                        slices = slices
                            .saturating_add(ceil_div(g.exec, slice))
                            .saturating_add(n - 1);
                        pieces = pieces.saturating_add(n);
                        gm_max = gm_max.max(g.misc);
                        seg_max = seg_max.max(g.misc.saturating_add(g.exec));
                        cs.push(g.misc.saturating_add(g.exec).saturating_add(theta));
                        misc.push(g.misc);
                    }
                }
            }
            cs.sort_unstable_by(|a, b| b.cmp(a));
            misc.sort_unstable_by(|a, b| b.cmp(a));
            PerTask {
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
                pieces,
                lower_updaters: 0,
                equal_updaters: 0,
                gm_max,
                seg_max,
                cs_total: cs.iter().fold(0, |a: Time, x| a.saturating_add(*x)),
                misc_total: misc.iter().fold(0, |a: Time, x| a.saturating_add(*x)),
                cs,
                misc,
            }
        })
        .collect();
    for i in 0..p.len() {
        if p[i].rt {
            p[i].lower_updaters = (0..p.len())
                .filter(|&x| p[x].rt && p[x].gpu() && p[x].cpu == p[i].cpu && p[x].prio < p[i].prio)
                .count() as Time;
            p[i].equal_updaters = (0..p.len())
                .filter(|&x| {
                    x != i
                        && p[x].rt
                        && p[x].gpu()
                        && p[x].cpu == p[i].cpu
                        && p[x].prio == p[i].prio
                })
                .count() as Time;
        }
    }
    p
}

/// Real-time task indices by decreasing CPU priority (ties by index): the
/// order in which the analyses bound them.
pub(crate) fn rt_order(p: &[PerTask]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| p[i].rt).collect();
    order.sort_by(|&a, &b| p[b].prio.cmp(&p[a].prio).then(a.cmp(&b)));
    order
}
