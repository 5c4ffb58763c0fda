//! The analysis context of one taskset under one policy and waiting mode:
//! per-task quantities computed once.

use super::{ceil_div, GpuPolicy, WaitMode};
use crate::model::{Segment, Taskset, Time};

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
}

impl Prep {
    pub fn gpu(&self) -> bool {
        self.eta > 0
    }
}

/// The analysis context of one taskset, policy and waiting mode.
pub(crate) struct Ctx {
    pub policy: GpuPolicy,
    pub mode: WaitMode,
    pub p: Vec<Prep>,
    pub eps: Time,
    /// Bound of an update that cannot submit (D20): `epsilon_fast`, else
    /// epsilon.
    pub eps_fast: Time,
    pub theta: Time,
    pub slice: Time,
    /// Number of GPU-using processes, including best-effort ones.
    pub n_gpu: Time,
    /// W: the longest wait of one lock request (U3): the rt_mutex grants in
    /// FIFO order and every other real-time GPU task has at most one
    /// request queued ahead, each update holding the lock for at most
    /// epsilon (D13).
    pub lock_wait: Time,
    /// hpp(i): real-time tasks on i's core with CPU priority >= i's
    /// (ties interfere), excluding i. Empty for best-effort tasks.
    pub hpp: Vec<Vec<usize>>,
    /// Real-time task indices by decreasing CPU priority (ties by index).
    pub order: Vec<usize>,
}

impl Ctx {
    pub fn new(ts: &Taskset, policy: GpuPolicy, mode: WaitMode) -> Ctx {
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
                let mut pieces = 0u64;
                let mut gm_max = 0u64;
                let mut seg_max = 0u64;
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
                    pieces,
                    lower_updaters: 0,
                    equal_updaters: 0,
                    gm_max,
                    seg_max,
                }
            })
            .collect();
        let mut p = p;
        for i in 0..p.len() {
            if p[i].rt {
                p[i].lower_updaters = (0..p.len())
                    .filter(|&x| {
                        p[x].rt && p[x].gpu() && p[x].cpu == p[i].cpu && p[x].prio < p[i].prio
                    })
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
        let updaters = p.iter().filter(|x| x.rt && x.gpu()).count() as Time;
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
            policy,
            mode,
            p,
            eps: ts.platform.epsilon,
            eps_fast: ts.platform.eps_fast(),
            theta: ts.platform.theta,
            slice,
            n_gpu,
            lock_wait: ts
                .platform
                .epsilon
                .saturating_mul(updaters.saturating_sub(1)),
            hpp,
            order,
        }
    }

    /// True under gcaps-boost (D17-D19).
    pub fn boost(&self) -> bool {
        self.policy == GpuPolicy::GcapsBoost
    }

    /// Own work of every task (`C + G^m + G^e`): a lower bound of its
    /// response time.
    pub fn own_work(&self) -> Vec<Time> {
        self.p
            .iter()
            .map(|p| p.c.saturating_add(p.gm).saturating_add(p.ge))
            .collect()
    }
}
