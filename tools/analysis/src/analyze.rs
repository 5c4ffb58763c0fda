//! The user-facing analysis: bounds the worst-case response times of a
//! taskset under a configuration, with the GPU priorities of the file, and
//! when asked and those fail, with GPU priorities found by
//! [`crate::gpu_priorities`]. Top layer: built on [`crate::wcrt`] and
//! [`crate::gpu_priorities`], used by the CLI and the experiments.

use crate::gpu_priorities;
use crate::model::{Taskset, Time};
use crate::wcrt::{file_gprio, pass, Ctx, Pass, St};
pub use crate::wcrt::{GpuPolicy, WaitMode};

/// Analysis configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Config {
    /// GPU scheduling policy.
    pub policy: GpuPolicy,
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

fn task_results(ts: &Taskset, cfg: &Config, gprio: &[u32], p: &Pass) -> Vec<TaskResult> {
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
                } else if cfg.policy == GpuPolicy::Gcaps || t.gpu_priority.is_some() {
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
    let ctx = Ctx::new(ts, cfg.policy, cfg.mode);
    let gprio = file_gprio(ts);
    let base = pass(&ctx, &gprio, false, false);
    if !base.all_ok && cfg.gpu_priority_assignment && cfg.policy == GpuPolicy::Gcaps {
        if let Some((g, final_pass)) = gpu_priorities::assign(&ctx, &gprio) {
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
                tasks: task_results(ts, cfg, &g, &final_pass),
                assigned_gpu_priorities: Some(assigned),
            };
        }
    }
    Report {
        schedulable: base.all_ok,
        config: *cfg,
        tasks: task_results(ts, cfg, &gprio, &base),
        assigned_gpu_priorities: None,
    }
}

/// Fast schedulability test (stops at the first miss); agrees with
/// `analyze(ts, cfg).schedulable`.
pub fn is_schedulable(ts: &Taskset, cfg: &Config) -> bool {
    let ctx = Ctx::new(ts, cfg.policy, cfg.mode);
    let gprio = file_gprio(ts);
    if pass(&ctx, &gprio, false, true).all_ok {
        return true;
    }
    cfg.gpu_priority_assignment
        && cfg.policy == GpuPolicy::Gcaps
        && gpu_priorities::assign(&ctx, &gprio).is_some()
}
