//! Reading a file into a generic tree: TOML or JSON syntax, with the line
//! and column of syntax errors. The tree is walked by [`super::schema`].

use super::error::{Location, ParseError};
use super::Format;
use serde_json::Value;

/// Marks a non-finite TOML float in the tree: `NONFINITE` + its text.
pub(super) const NONFINITE: &str = "\u{0}nonfinite:";
/// Marks a TOML date-time in the tree: `DATETIME` + its text.
pub(super) const DATETIME: &str = "\u{0}datetime:";
/// Marks a file's string that begins with NUL (so that it cannot pass for
/// one of the marks above): `STRING` + the string.
pub(super) const STRING: &str = "\u{0}string:";

/// Parses `text` into a JSON tree (TOML is converted; values JSON cannot
/// hold are kept as marked strings: [`NONFINITE`], [`DATETIME`], and any
/// string of the file that begins with NUL is marked [`STRING`]).
pub(super) fn read_tree(text: &str, origin: &str, format: Format) -> Result<Value, ParseError> {
    Ok(match format {
        Format::Json => {
            let mut tree = serde_json::from_str::<Value>(text).map_err(|e| ParseError {
                origin: origin.to_string(),
                location: Location::Syntax {
                    line: e.line(),
                    column: e.column(),
                },
                message: one_line(&strip_json_position(&e.to_string())),
            })?;
            mark_json_strings(&mut tree);
            tree
        }
        Format::Toml => {
            let table = toml::from_str::<toml::Table>(text).map_err(|e| {
                let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
                ParseError {
                    origin: origin.to_string(),
                    location: Location::Syntax { line, column },
                    message: one_line(e.message()),
                }
            })?;
            toml_to_json(toml::Value::Table(table))
        }
    })
}

fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 200 {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|p| p + 1)
        .unwrap_or(0);
    let column = String::from_utf8_lossy(&before[col_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

fn strip_json_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(p) => s[..p].to_string(),
        None => s.to_string(),
    }
}

pub(super) fn toml_to_json(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(mark_string(s)),
        toml::Value::Integer(i) => Value::from(i),
        // NaN and infinities have no JSON number; keep them as a marker
        // string that the number reader rejects with a clear message.
        toml::Value::Float(f) if !f.is_finite() => Value::String(format!("{NONFINITE}{f}")),
        toml::Value::Float(f) => Value::from(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(format!("{DATETIME}{d}")),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect())
        }
    }
}

fn mark_string(s: String) -> String {
    if s.starts_with('\u{0}') {
        format!("{STRING}{s}")
    } else {
        s
    }
}

fn mark_json_strings(v: &mut Value) {
    match v {
        Value::String(s) if s.starts_with('\u{0}') => *s = mark_string(std::mem::take(s)),
        Value::Array(a) => a.iter_mut().for_each(mark_json_strings),
        Value::Object(o) => o.values_mut().for_each(mark_json_strings),
        _ => {}
    }
}
