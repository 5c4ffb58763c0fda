//! Errors of the taskset file: where (file, line and column, or task and
//! field) and why, always one line with every piece of user text escaped.

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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Location::Syntax { line, column } => write!(
                f,
                "{}:{}:{}: syntax error: {}",
                self.origin, line, column, self.message
            ),
            Location::File => write!(f, "{}: {}", self.origin, self.message),
            Location::Platform { field } => write!(
                f,
                "{}: platform field '{}': {}",
                self.origin, field, self.message
            ),
            Location::Task { task, field } => write!(
                f,
                "{}: task '{}' field '{}': {}",
                self.origin, task, field, self.message
            ),
        }
    }
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
