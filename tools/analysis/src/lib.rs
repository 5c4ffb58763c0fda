//! GCAPS offline analysis: the task model, the taskset file format, the
//! response-time analysis of Sec. 6 of the GCAPS paper (default TSG
//! round-robin and GCAPS, busy-waiting and self-suspending), Audsley GPU
//! priority assignment, and the random taskset generator of Sec. 7.1.

pub mod audsley;
pub mod baseline;
pub mod experiment;
pub mod generate;
pub mod model;
pub mod parse;
pub mod rta;

pub use parse::{parse_taskset, to_json, to_toml, validate, Format, ParseError, ValidationError};
pub use rta::{analyze, is_schedulable, Config, Policy, Report, TaskResult, WaitMode};
