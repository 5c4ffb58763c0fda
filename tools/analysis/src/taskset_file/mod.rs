//! The taskset file format (TOML or JSON, same schema) and its validation.
//!
//! Times are milliseconds in the file and integer nanoseconds in the
//! [`crate::model`]. Every error is one line naming the file, the task and
//! the field: `FILE: task 'NAME' field 'FIELD': WHY`, or
//! `FILE:LINE:COL: syntax error: WHY` for syntax errors.
//!
//! Jobs, one file each: `read` (syntax into a generic tree, keeping the
//! line and column of syntax errors), `schema` (the walk over that tree
//! into a [`Taskset`], with precise messages for unknown, missing and
//! ill-typed fields), `rules` (the semantic rules, also used by the
//! generator), `write` (TOML and JSON output), `error` (the one-line
//! messages).

mod error;
mod read;
mod rules;
mod schema;
mod write;

pub use error::{Location, ParseError, ValidationError};
pub use rules::{validate, MAX_CPUS, MAX_TIME_MS};
pub use write::{ms_string, to_json, to_toml};

use crate::model::Taskset;
use std::path::Path;

/// File syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// TOML (`.toml`).
    Toml,
    /// JSON (`.json`).
    Json,
}

impl Format {
    /// Detects the format from a file name: `.json` is JSON, anything else
    /// TOML.
    pub fn from_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Toml,
        }
    }
}

/// Parses and validates a taskset file. `origin` names the file in
/// messages.
pub fn parse_taskset(text: &str, origin: &str, format: Format) -> Result<Taskset, ParseError> {
    let tree = read::read_tree(text, origin, format)?;
    let ts = schema::from_tree(&tree).map_err(|e| e.with_origin(origin))?;
    validate(&ts).map_err(|e| e.with_origin(origin))?;
    Ok(ts)
}
