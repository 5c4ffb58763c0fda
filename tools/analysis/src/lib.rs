//! GCAPS offline analysis: the task model, the taskset file format, the
//! response-time analysis of Sec. 6 of the GCAPS paper (default TSG
//! round-robin and GCAPS, busy-waiting and self-suspending), Audsley GPU
//! priority assignment, and the random taskset generator of Sec. 7.1.
//!
//! Layers of the analysis, each using only those below it:
//! [`model`] → `per_task` (the per-task view every analysis uses) →
//! [`wcrt`] (bounds of a fixed GPU priority assignment) →
//! [`audsley`] (generic priority search) + [`gpu_priorities`] (the search
//! for GPU priorities) → [`analyze`](mod@analyze) (the user-facing entry
//! point).

pub mod analyze;
pub mod audsley;
pub mod baseline;
pub mod experiment;
pub mod generate;
pub mod gpu_priorities;
pub mod model;
mod per_task;
pub mod taskset_file;
pub mod wcrt;

pub use analyze::{
    analyze, is_schedulable, policy_error, Config, GpuPolicy, NoBound, Report, TaskResult, WaitMode,
};
pub use taskset_file::{
    parse_taskset, to_json, to_toml, validate, Format, ParseError, ValidationError,
};
