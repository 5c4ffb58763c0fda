//! The user-facing analysis: bounds the worst-case response times of a
//! taskset under a configuration, with the GPU priorities of the file, and
//! when asked and those fail, with GPU priorities found by
//! [`crate::gpu_priorities`]. Top layer: built on [`crate::wcrt`] and
//! [`crate::gpu_priorities`], used by the CLI and the experiments.

use crate::baseline::{self, Protocol};
use crate::gpu_priorities;
use crate::model::{Taskset, Time, BOOST_PRIORITY, MAX_BOOST_TASK_PRIORITY, MIN_PRIORITY};
use crate::taskset_file::escape_text;
use crate::wcrt::{deadlock_pairs, file_gprio, pass, Ctx, Pass, St};
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
    /// Why a real-time task has no bound (`None` when it has one, and for
    /// best-effort tasks).
    pub no_bound: Option<NoBound>,
}

/// Why a real-time task has no bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoBound {
    /// The fixed point exceeds the deadline, or the bound needs the bound
    /// of a task that has none.
    Deadline,
    /// Two busy-waiting GPU tasks of equal CPU priority on one core can
    /// deadlock under GCAPS with epsilon > 0, and this task is stuck with
    /// them (D16).
    Deadlock {
        /// The two tasks of equal priority.
        tasks: [String; 2],
        /// Their core.
        cpu: u32,
        /// Their CPU priority.
        priority: u32,
    },
}

impl std::fmt::Display for NoBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoBound::Deadline => write!(f, "no bound within the deadline"),
            NoBound::Deadlock {
                tasks,
                cpu,
                priority,
            } => write!(
                f,
                "can deadlock: '{}' and '{}' busy-wait at equal CPU priority {priority} on core {cpu} with epsilon > 0 (docs/analysis.md D16)",
                escape_text(&tasks[0]),
                escape_text(&tasks[1])
            ),
        }
    }
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
            let no_bound = match (be, wcrt, p.stuck[i]) {
                (false, None, Some((a, b))) => Some(NoBound::Deadlock {
                    tasks: [ts.tasks[a].name.clone(), ts.tasks[b].name.clone()],
                    cpu: ts.tasks[a].cpu,
                    priority: ts.tasks[a].priority.unwrap_or(0),
                }),
                (false, None, None) => Some(NoBound::Deadline),
                _ => None,
            };
            TaskResult {
                name: t.name.clone(),
                best_effort: be,
                priority: t.priority,
                gpu_priority: if be {
                    None
                } else if cfg.policy.has_gpu_priorities() || t.gpu_priority.is_some() {
                    Some(gprio[i])
                } else {
                    t.priority
                },
                wcrt,
                deadline: t.deadline,
                schedulable: be || wcrt.is_some(),
                no_bound,
            }
        })
        .collect()
}

/// The locking protocol of a lock-based baseline policy.
fn protocol(policy: GpuPolicy) -> Option<Protocol> {
    match policy {
        GpuPolicy::TsgRr | GpuPolicy::Gcaps | GpuPolicy::GcapsBoost => None,
        GpuPolicy::Mpcp => Some(Protocol::Mpcp),
        GpuPolicy::FmlpPlus => Some(Protocol::FmlpPlus),
    }
}

/// The report of a lock-based baseline (no GPU priorities: the lock queue
/// follows CPU priorities or arrival order; the shown GPU priority is the
/// file's, as for tsg-rr).
fn baseline_report(ts: &Taskset, cfg: &Config, p: Protocol) -> Report {
    let b = baseline::bounds(ts, p, cfg.mode == WaitMode::Busy, false);
    let tasks = ts
        .tasks
        .iter()
        .zip(b.wcrt)
        .map(|(t, wcrt)| TaskResult {
            name: t.name.clone(),
            best_effort: t.is_best_effort(),
            priority: t.priority,
            gpu_priority: t.effective_gpu_priority(),
            wcrt,
            deadline: t.deadline,
            schedulable: t.is_best_effort() || wcrt.is_some(),
            no_bound: (!t.is_best_effort() && wcrt.is_none()).then_some(NoBound::Deadline),
        })
        .collect();
    Report {
        schedulable: b.schedulable,
        config: *cfg,
        tasks,
        assigned_gpu_priorities: None,
    }
}

/// Why `ts` cannot be analysed under `cfg` at all, as one line: under
/// gcaps-boost a task priority must be below the boost priority 98 (D19).
/// `None` when it can.
pub fn policy_error(ts: &Taskset, cfg: &Config) -> Option<String> {
    if cfg.policy != GpuPolicy::GcapsBoost {
        return None;
    }
    let t = ts
        .tasks
        .iter()
        .find(|t| t.priority.is_some_and(|p| p > MAX_BOOST_TASK_PRIORITY))?;
    Some(format!(
        "task '{}' field 'priority': must be in {MIN_PRIORITY}..={MAX_BOOST_TASK_PRIORITY} under gcaps-boost, below the boost priority {BOOST_PRIORITY}, got {} (docs/analysis.md D19)",
        escape_text(&t.name),
        t.priority.unwrap_or(0)
    ))
}

/// The report of a taskset that cannot be analysed ([`policy_error`]): no
/// real-time task has a bound.
fn refused_report(ts: &Taskset, cfg: &Config) -> Report {
    let tasks = ts
        .tasks
        .iter()
        .map(|t| {
            let be = t.is_best_effort();
            TaskResult {
                name: t.name.clone(),
                best_effort: be,
                priority: t.priority,
                gpu_priority: t.effective_gpu_priority(),
                wcrt: None,
                deadline: t.deadline,
                schedulable: be,
                no_bound: (!be).then_some(NoBound::Deadline),
            }
        })
        .collect();
    Report {
        schedulable: false,
        config: *cfg,
        tasks,
        assigned_gpu_priorities: None,
    }
}

/// Bounds the WCRT of every real-time task of `ts` under `cfg`. A taskset
/// with a [`policy_error`] gets no bound for any real-time task.
pub fn analyze(ts: &Taskset, cfg: &Config) -> Report {
    if policy_error(ts, cfg).is_some() {
        return refused_report(ts, cfg);
    }
    if let Some(p) = protocol(cfg.policy) {
        return baseline_report(ts, cfg, p);
    }
    let ctx = Ctx::new(ts, cfg.policy, cfg.mode);
    let gprio = file_gprio(ts);
    let base = pass(&ctx, &gprio, false, false);
    // A deadlock of equal-priority busy waiters (D16) does not depend on
    // the GPU priorities: no assignment can help.
    let assignable = cfg.gpu_priority_assignment
        && cfg.policy.has_gpu_priorities()
        && deadlock_pairs(&ctx).is_empty();
    if !base.all_ok && assignable {
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
    if policy_error(ts, cfg).is_some() {
        return false;
    }
    if let Some(p) = protocol(cfg.policy) {
        return baseline::bounds(ts, p, cfg.mode == WaitMode::Busy, true).schedulable;
    }
    let ctx = Ctx::new(ts, cfg.policy, cfg.mode);
    let gprio = file_gprio(ts);
    if pass(&ctx, &gprio, false, true).all_ok {
        return true;
    }
    cfg.gpu_priority_assignment
        && cfg.policy.has_gpu_priorities()
        && deadlock_pairs(&ctx).is_empty()
        && gpu_priorities::assign(&ctx, &gprio).is_some()
}
