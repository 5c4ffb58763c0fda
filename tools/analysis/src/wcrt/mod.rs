//! Worst-case response-time bounds of one *fixed* GPU priority assignment:
//! the response-time analysis of Sec. 6 of the GCAPS paper, with the
//! soundness fixes documented in `docs/analysis.md` (every departure from
//! the printed equations is listed there, D1..Dn; the code cites them).
//!
//! This is the bottom layer of the analysis: it depends only on
//! [`crate::model`]. The GPU priority search ([`crate::gpu_priorities`])
//! and the user-facing [`crate::analyze()`] are built on it.
//!
//! Every bound has the shape of a classical fixed point
//!
//! ```text
//! R = own_i + sum over interferers x of ceil((R + J_x) / T_x) * e_x
//! ```
//!
//! where `own_i` is the task's own work plus blocking, and each interferer
//! contributes a per-job demand `e_x` with a carry-in jitter `J_x`
//! (`J_x = R_x - e_x`, or `D_x - e_x` under GPU priority assignment,
//! Sec. 6.4). The terms are built once per task (no allocation inside the
//! fixed point) and iterated until a fixed point or until `R > D`.
//!
//! Files: `context` (per-task quantities of a taskset), `deadlock` (tasks
//! without a bound because equal-priority busy waiters can deadlock, D16),
//! `view` (where
//! the response times of other tasks come from, and the interference term),
//! `tsg_rr` and `gcaps` (the terms of each GPU policy), `solve` (the
//! fixed points and the passes over all tasks).

mod context;
mod deadlock;
mod gcaps;
mod solve;
mod tsg_rr;
mod view;

pub(crate) use context::Ctx;
pub(crate) use deadlock::pairs as deadlock_pairs;
pub(crate) use solve::{build, file_gprio, fixed_point, pass, Pass};
pub(crate) use view::{Deps, St, Term, View};

/// GPU scheduling policy analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GpuPolicy {
    /// Default nvgpu TSG round-robin time slicing (Sec. 6.2).
    TsgRr,
    /// GCAPS priority-based preemptive GPU context scheduling (Sec. 6.3).
    Gcaps,
    /// GCAPS with the holder boost of issue 20: the owner of the running
    /// segment runs at SCHED_FIFO 98, above every task priority (1..=97)
    /// and below the update ceiling (`docs/analysis.md` D17-D19).
    GcapsBoost,
    /// GPU segments as critical sections under MPCP (bounded by
    /// [`crate::baseline`], not by this module).
    Mpcp,
    /// GPU segments as critical sections under FMLP+ (bounded by
    /// [`crate::baseline`], not by this module).
    FmlpPlus,
}

impl GpuPolicy {
    /// The policy's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            GpuPolicy::TsgRr => "tsg-rr",
            GpuPolicy::Gcaps => "gcaps",
            GpuPolicy::GcapsBoost => "gcaps-boost",
            GpuPolicy::Mpcp => "mpcp",
            GpuPolicy::FmlpPlus => "fmlp+",
        }
    }

    /// True for the GCAPS policies (plain and boosted): GPU segment
    /// priorities, Audsley GPU priority assignment (Sec. 5.3 / 6.4).
    pub fn has_gpu_priorities(self) -> bool {
        matches!(self, GpuPolicy::Gcaps | GpuPolicy::GcapsBoost)
    }
}

/// How a task waits for its pure GPU work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitMode {
    /// Busy-waiting: the task keeps its core during `G^e`.
    Busy,
    /// Self-suspending: the task releases its core during `G^e`.
    Suspend,
}

pub(crate) use crate::per_task::ceil_div;
