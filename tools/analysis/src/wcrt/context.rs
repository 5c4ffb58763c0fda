//! The analysis context of one taskset under one policy and waiting mode:
//! the per-task view ([`PerTask`]) and the relations between tasks, computed
//! once.

use super::{GpuPolicy, WaitMode};
use crate::model::{Taskset, Time, UpdateCosts};
use crate::per_task::{self, PerTask};

/// The analysis context of one taskset, policy and waiting mode.
pub(crate) struct Ctx {
    pub policy: GpuPolicy,
    pub mode: WaitMode,
    pub p: Vec<PerTask>,
    /// What an update costs under the platform's mechanism (D24).
    pub cost: UpdateCosts,
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
    /// `cost.lock()` (D13).
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
        let p = per_task::tasks(ts);
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
        let order = per_task::rt_order(&p);
        let cost = ts.platform.costs();
        Ctx {
            policy,
            mode,
            p,
            cost,
            eps_fast: ts.platform.eps_fast(),
            theta: ts.platform.theta,
            slice,
            n_gpu,
            lock_wait: cost.lock().saturating_mul(updaters.saturating_sub(1)),
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
