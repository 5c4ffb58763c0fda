//! Errors of the taskset file: where (file, line and column, or task and
//! field) and why, always one line with every piece of user text escaped
//! ([`escape_text`]).

use std::fmt;

/// Where in the file an error is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A syntax error at a 1-based line and column (0 when unknown).
    Syntax { line: usize, column: usize },
    /// The file as a whole (e.g. empty taskset).
    File,
    /// A field of the `[platform]` table.
    Platform { field: String },
    /// A field of a task; `task` is its name, or `#N` (1-based) when the
    /// task has no usable name.
    Task { task: String, field: String },
}

/// A taskset file error: one clear line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// File name as given by the caller.
    pub origin: String,
    /// Where.
    pub location: Location,
    /// Why.
    pub message: String,
}

impl fmt::Display for ParseError {
    /// One line: every piece of text (file name, task name, field, reason)
    /// goes through [`escape_text`], which leaves no line break or control
    /// character.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = escape_text(&self.origin);
        let message = escape_text(&self.message);
        match &self.location {
            Location::Syntax { line, column } => {
                write!(f, "{origin}:{line}:{column}: syntax error: {message}")
            }
            Location::File => write!(f, "{origin}: {message}"),
            Location::Platform { field } => write!(
                f,
                "{origin}: platform field '{}': {message}",
                escape_text(field)
            ),
            Location::Task { task, field } => write!(
                f,
                "{origin}: task '{}' field '{}': {message}",
                escape_text(task),
                escape_text(field)
            ),
        }
    }
}

/// Text from a file or the command line made safe for a one-line message:
/// line breaks, control characters (terminal escape codes), other
/// non-printable characters (e.g. bidi overrides) and backslashes become
/// Rust escapes (`\n`, `\u{1b}`, `\\`) as by [`char::escape_debug`];
/// printable text, quotes included, is kept.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\'' || c == '"' {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

impl std::error::Error for ParseError {}

/// A validation error without a file name (see [`super::validate`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// Where.
    pub location: Location,
    /// Why.
    pub message: String,
}

impl ValidationError {
    /// Attaches a file name.
    pub fn with_origin(self, origin: &str) -> ParseError {
        ParseError {
            origin: origin.to_string(),
            location: self.location,
            message: self.message,
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.clone().with_origin("<taskset>"))
    }
}

impl std::error::Error for ValidationError {}

/// Error builder for one scope (platform, a task, or the file).
#[derive(Clone)]
pub(super) struct Scope {
    pub task: Option<String>,
}

impl Scope {
    pub fn err(&self, field: &str, message: impl Into<String>) -> ValidationError {
        let location = match &self.task {
            Some(t) => Location::Task {
                task: t.clone(),
                field: field.to_string(),
            },
            None => Location::Platform {
                field: field.to_string(),
            },
        };
        ValidationError {
            location,
            message: message.into(),
        }
    }
}

pub(super) fn file_err(message: impl Into<String>) -> ValidationError {
    ValidationError {
        location: Location::File,
        message: message.into(),
    }
}
