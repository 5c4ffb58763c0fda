//! A recorded schedule: what ran where, who waited for what, and the instants that matter
//! (releases, completions, preemptions, runlist updates). Recorded only when asked for
//! (`Config::record`); the SVG and Perfetto writers read it.

use crate::model::Time;

/// What a core executes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuKind {
    /// A CPU segment.
    Work,
    /// G^m, the CPU part of a GPU segment.
    Misc,
    /// A runlist update (begin or end), at the ceiling, holding the runlist lock.
    Update,
    /// Busy-waiting for GPU work.
    Spin,
}

/// A span of CPU time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSpan {
    /// Core.
    pub core: u32,
    /// Task index.
    pub task: usize,
    /// What it did.
    pub kind: CpuKind,
    /// Start (ns).
    pub start: Time,
    /// End (ns).
    pub end: Time,
}

/// What the GPU does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuKind {
    /// Executes the TSG's work.
    Run,
    /// Context switch (theta) into the TSG.
    Switch,
}

/// A span of GPU time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuSpan {
    /// The TSG (= task index).
    pub task: usize,
    /// Run or switch.
    pub kind: GpuKind,
    /// Start (ns).
    pub start: Time,
    /// End (ns).
    pub end: Time,
}

/// The state of a task with an unfinished job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// On its core (any CPU kind).
    Running,
    /// Runnable but kept off its core by another task (preempted or not yet started).
    Preempted,
    /// Sleeping on the runlist lock.
    LockWait,
    /// Holding the runlist lock, asleep in its update's pending wait (D23).
    UpdateSleep,
    /// Waiting for its GPU work (suspended; busy-waiting shows as `Running`/`Preempted`).
    GpuWait,
}

/// A span of one task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSpan {
    /// Task index.
    pub task: usize,
    /// State.
    pub state: TaskState,
    /// Start (ns).
    pub start: Time,
    /// End (ns).
    pub end: Time,
}

/// An instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// A job of `task` was released.
    Release {
        /// Task index.
        task: usize,
    },
    /// A job of `task` finished with `response`.
    Finish {
        /// Task index.
        task: usize,
        /// Response time (ns).
        response: Time,
        /// True if it exceeded the deadline.
        miss: bool,
    },
    /// `victim` was preempted on `core` by `by`.
    Preempt {
        /// Core.
        core: u32,
        /// The task that now runs.
        by: usize,
        /// The task that was running and is still runnable.
        victim: usize,
    },
    /// A runlist submitted by `by`'s update reached the hardware: now `tsgs` are eligible.
    Runlist {
        /// The updating task.
        by: usize,
        /// The eligible TSGs (task indices) in increasing order.
        tsgs: Vec<usize>,
    },
    /// `task` (owner of the segment that now runs) was raised to `boost_prio` by `by`'s
    /// update (gcaps-boost).
    Boost {
        /// Task index.
        task: usize,
        /// The updating task.
        by: usize,
    },
    /// `task` lost the boost in `by`'s update (its segment ended or lost the GPU) and went
    /// back to its own priority (gcaps-boost).
    Unboost {
        /// Task index.
        task: usize,
        /// The updating task.
        by: usize,
    },
}

/// An instant with its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// Time (ns).
    pub time: Time,
    /// What.
    pub mark: Mark,
}

/// A recorded schedule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// CPU spans, in order of their end.
    pub cpu: Vec<CpuSpan>,
    /// GPU spans, in order.
    pub gpu: Vec<GpuSpan>,
    /// Task state spans, in order of their end.
    pub tasks: Vec<TaskSpan>,
    /// Instants, in time order.
    pub markers: Vec<Marker>,
    /// The time the simulation stopped.
    pub end: Time,
}
