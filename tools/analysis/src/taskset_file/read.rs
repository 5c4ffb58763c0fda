//! Reading a file into a generic tree: TOML or JSON syntax, with the line
//! and column of syntax errors. The tree is walked by [`super::schema`].

use super::error::{Location, ParseError};
use super::Format;
use serde_json::Value;

/// Parses `text` into a JSON tree (TOML is converted; TOML-only values are
/// kept as marker strings, see [`toml_to_json`]).
pub(super) fn read_tree(text: &str, origin: &str, format: Format) -> Result<Value, ParseError> {
    Ok(match format {
        Format::Json => serde_json::from_str::<Value>(text).map_err(|e| ParseError {
            origin: origin.to_string(),
            location: Location::Syntax {
                line: e.line(),
                column: e.column(),
            },
            message: one_line(&strip_json_position(&e.to_string())),
        })?,
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
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        // NaN and infinities have no JSON number; keep them as a marker
        // string that the number reader rejects with a clear message.
        toml::Value::Float(f) if !f.is_finite() => Value::String(format!("\u{0}nonfinite:{f}")),
        toml::Value::Float(f) => Value::from(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(format!("\u{0}datetime:{d}")),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect())
        }
    }
}
