//! The simulator's view of a taskset: the analysis model (`gcaps_analysis::model`) plus what
//! the update-path model U1-U7 (`docs/analysis.md`) adds that the analysis model may not carry
//! yet (the number of submissions per GPU segment, U7).
//!
//! All times are integer nanoseconds.

pub use gcaps_analysis::model::Mechanism;
use gcaps_analysis::model::{GpuSegment, Segment, Taskset};

/// Time in integer nanoseconds.
pub type Time = u64;

/// Nanoseconds per millisecond.
pub const NS_PER_MS: Time = 1_000_000;

/// Largest number of tasks the simulator accepts (one TSG per task; the policy crate's
/// default capacity is 1024 TSGs and 128 clients).
pub const MAX_TASKS: usize = 128;

/// One segment of a simulated task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimSegment {
    /// CPU work with its WCET.
    Cpu(Time),
    /// A GPU segment: `misc` CPU work (G^m) and `exec` pure GPU work (G^e), the latter
    /// submitted in `submissions` pieces with parts of `misc` between them (U7).
    Gpu {
        /// G^m.
        misc: Time,
        /// G^e.
        exec: Time,
        /// Number of pieces G^e is submitted in (>= 1).
        submissions: u32,
    },
}

/// A simulated task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimTask {
    /// Name (unique).
    pub name: String,
    /// Core it is pinned to.
    pub cpu: u32,
    /// SCHED_FIFO priority; `None` = best-effort (below every real-time task).
    pub priority: Option<u32>,
    /// Separate GPU-segment priority, if any.
    pub gpu_priority: Option<u32>,
    /// Minimum inter-arrival time.
    pub period: Time,
    /// Relative deadline.
    pub deadline: Time,
    /// Segments in order.
    pub segments: Vec<SimSegment>,
}

impl SimTask {
    /// True for a best-effort task.
    pub fn is_best_effort(&self) -> bool {
        self.priority.is_none()
    }

    /// True if the task has a GPU segment.
    pub fn uses_gpu(&self) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, SimSegment::Gpu { .. }))
    }
}

/// A platform and its tasks, as simulated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimModel {
    /// Number of cores.
    pub cpus: u32,
    /// Runlist update bound epsilon (U1).
    pub epsilon: Time,
    /// Bound of an update that cannot submit (D20; `epsilon` unless the file sets
    /// `epsilon_fast`).
    pub epsilon_fast: Time,
    /// The on-CPU part of an update that submits (D23; `epsilon` unless the file sets
    /// `epsilon_cpu`): the rest of its epsilon the updater sleeps in the pending wait,
    /// holding the lock.
    pub epsilon_cpu: Time,
    /// The eligibility mechanism (D24): `reload` submits the eligible set, `gate`
    /// enables the eligible TSGs' channels on a complete runlist.
    pub mechanism: Mechanism,
    /// Under `gate`: bound of a begin that takes the GPU (`epsilon` unless the file sets
    /// `epsilon_preempt`); its CPU part is at most `epsilon_cpu`, the rest it sleeps in the
    /// preempt's completion wait, holding the lock.
    pub epsilon_preempt: Time,
    /// Under `gate`: bound of the end of the running segment (`epsilon` unless the file
    /// sets `epsilon_handover`), all of it on the caller's core.
    pub epsilon_handover: Time,
    /// TSG context-switch overhead theta.
    pub theta: Time,
    /// TSG time slice L.
    pub timeslice: Time,
    /// Tasks in file order; task `i` owns TSG `i`.
    pub tasks: Vec<SimTask>,
}

/// The number of pieces a GPU segment submits its pure GPU work in (U7), the taskset
/// file's `submissions` (default 1).
pub fn submissions(seg: &GpuSegment) -> u32 {
    seg.submissions
}

impl SimModel {
    /// Converts an (already validated) analysis taskset.
    pub fn from_taskset(ts: &Taskset) -> Result<SimModel, String> {
        if ts.tasks.len() > MAX_TASKS {
            return Err(format!(
                "{} tasks: the simulator handles at most {MAX_TASKS}",
                ts.tasks.len()
            ));
        }
        let tasks = ts
            .tasks
            .iter()
            .map(|t| SimTask {
                name: t.name.clone(),
                cpu: t.cpu,
                priority: t.priority,
                gpu_priority: t.gpu_priority,
                period: t.period,
                deadline: t.deadline,
                segments: t
                    .segments
                    .iter()
                    .map(|s| match s {
                        Segment::Cpu(c) => SimSegment::Cpu(*c),
                        Segment::Gpu(g) => SimSegment::Gpu {
                            misc: g.misc,
                            exec: g.exec,
                            submissions: submissions(g),
                        },
                    })
                    .collect(),
            })
            .collect();
        Ok(SimModel {
            cpus: ts.platform.cpus,
            epsilon: ts.platform.epsilon,
            epsilon_fast: ts.platform.eps_fast(),
            epsilon_cpu: ts.platform.eps_cpu(),
            mechanism: ts.platform.mechanism,
            epsilon_preempt: ts.platform.eps_preempt(),
            epsilon_handover: ts.platform.eps_handover(),
            theta: ts.platform.theta,
            timeslice: ts.platform.timeslice.max(1),
            tasks,
        })
    }

    /// Checks what the engine relies on (the analysis parser checks the rest): task count,
    /// cores, priorities in the policy crate's range, positive periods and time slice,
    /// `submissions >= 1`.
    pub fn check(&self) -> Result<(), String> {
        if self.tasks.is_empty() {
            return Err("no tasks".into());
        }
        if self.tasks.len() > MAX_TASKS {
            return Err(format!(
                "{} tasks: the simulator handles at most {MAX_TASKS}",
                self.tasks.len()
            ));
        }
        if self.timeslice == 0 {
            return Err("timeslice must be > 0".into());
        }
        for t in &self.tasks {
            let name = t.name.escape_debug();
            if t.cpu >= self.cpus {
                return Err(format!(
                    "task '{name}': cpu {} >= cpus {}",
                    t.cpu, self.cpus
                ));
            }
            if t.period == 0 || t.deadline == 0 {
                return Err(format!("task '{name}': period and deadline must be > 0"));
            }
            for p in [t.priority, t.gpu_priority].into_iter().flatten() {
                if !gcaps_policy::priority_in_range(i64::from(p)) {
                    return Err(format!(
                        "task '{name}': priority {p} is outside {}..={}",
                        gcaps_policy::MIN_PRIORITY,
                        gcaps_policy::MAX_PRIORITY
                    ));
                }
            }
            if t.priority.is_none() && t.gpu_priority.is_some() {
                return Err(format!(
                    "task '{name}': a best-effort task cannot have a GPU priority"
                ));
            }
            for s in &t.segments {
                if let SimSegment::Gpu { submissions: 0, .. } = s {
                    return Err(format!("task '{name}': submissions must be >= 1"));
                }
            }
        }
        Ok(())
    }
}
