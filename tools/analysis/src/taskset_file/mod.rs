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

pub use error::{escape_text, Location, ParseError, ValidationError};
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
    /// Detects the format of a file: from its name when that ends in
    /// `.json` or `.toml`, else (standard input, other names) from its
    /// content ([`Format::sniff`]).
    pub fn detect(path: Option<&Path>, text: &str) -> Format {
        match path.and_then(|p| p.extension()).and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            Some(e) if e.eq_ignore_ascii_case("toml") => Format::Toml,
            _ => Format::sniff(text),
        }
    }

    /// Detects the format from the content: JSON when the first
    /// non-whitespace character is `{` (a TOML document cannot begin with
    /// one), else TOML.
    pub fn sniff(text: &str) -> Format {
        match text.trim_start().as_bytes().first() {
            Some(b'{') => Format::Json,
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
