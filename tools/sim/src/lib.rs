//! # gcaps-sim: a discrete-event simulator for GCAPS tasksets
//!
//! Partitioned fixed-priority preemptive CPUs and one GPU, under nvgpu's TSG round robin,
//! GCAPS or GCAPS with the holder boost (gcaps-boost), with every GCAPS decision made by the
//! `gcaps-policy` crate (the code the kernel module runs) and the runlist update path of
//! U1-U8 (`docs/analysis.md`). See
//! `docs/simulator.md` for the rules, the outputs and the checks.
//!
//! * [`model`]: the simulated taskset (the analysis model plus U7's submissions).
//! * [`scenario`]: the seeded choices of a run (offsets, sporadic delays, execution times,
//!   G^m placement, explicit releases).
//! * [`engine`]: the event loop ([`engine::run`]).
//! * [`search`]: many runs per taskset, and the adversarial search for large responses.
//! * [`trace`]: a recorded schedule; [`svg`] and [`perfetto`] draw it.
//! * [`input`]: the taskset file with its optional `[simulation]` table.
//! * [`soundness`]: simulated responses against the analysis bounds.

pub mod engine;
pub mod input;
pub mod model;
pub mod perfetto;
pub mod scenario;
pub mod search;
pub mod soundness;
pub mod svg;
pub mod trace;

pub use engine::{run, BoostTiming, Config, GpuPolicy, LockOrder, RunResult, TaskStats, WaitMode};
pub use model::{Mechanism, SimModel, SimSegment, SimTask, Time, NS_PER_MS};
pub use scenario::{Exec, MiscSplit, PieceSplit, Scenario};
