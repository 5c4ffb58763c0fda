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
    /// sum_j ceil(G^e_{i,j} / L): round-robin rounds needed (Eq. 3).
    pub slices: Time,
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
            policy,
            mode,
            p,
            eps: ts.platform.epsilon,
            theta: ts.platform.theta,
            slice,
            n_gpu,
            hpp,
            order,
        }
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
