//! The taskset file format (TOML or JSON, same schema) and its validation.
//!
//! Times are milliseconds in the file and integer nanoseconds in the
//! [`crate::model`]. Every error is one line naming the file, the task and
//! the field: `FILE: task 'NAME' field 'FIELD': WHY`, or
//! `FILE:LINE:COL: syntax error: WHY` for syntax errors.
//!
//! The file is first parsed into a generic tree (so that syntax errors keep
//! their line and column) and then walked by hand, which gives precise
//! messages for unknown, missing and ill-typed fields.

use crate::model::{
    GpuSegment, Platform, Segment, Task, Taskset, Time, MAX_PRIORITY, MIN_PRIORITY, NS_PER_MS,
};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// Largest time accepted in a file, in milliseconds (about 11.6 days).
pub const MAX_TIME_MS: f64 = 1e9;
/// Largest accepted number of CPUs.
pub const MAX_CPUS: u32 = 4096;

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

/// A validation error without a file name (see [`validate`]).
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

/// Parses and validates a taskset file. `origin` names the file in
/// messages.
pub fn parse_taskset(text: &str, origin: &str, format: Format) -> Result<Taskset, ParseError> {
    let tree = match format {
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
    };
    let ts = from_tree(&tree).map_err(|e| e.with_origin(origin))?;
    validate(&ts).map_err(|e| e.with_origin(origin))?;
    Ok(ts)
}

fn strip_json_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(p) => s[..p].to_string(),
        None => s.to_string(),
    }
}

fn toml_to_json(v: toml::Value) -> Value {
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

fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(s) if s.starts_with("\u{0}nonfinite:") => {
            s["\u{0}nonfinite:".len()..].to_string()
        }
        Value::String(s) if s.starts_with("\u{0}datetime:") => "a date-time".into(),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "a table".into(),
    }
}

/// Error builder for one scope (platform, a task, or the file).
#[derive(Clone)]
struct Scope {
    task: Option<String>,
}

impl Scope {
    fn err(&self, field: &str, message: impl Into<String>) -> ValidationError {
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

fn file_err(message: impl Into<String>) -> ValidationError {
    ValidationError {
        location: Location::File,
        message: message.into(),
    }
}

fn check_fields(
    obj: &Map<String, Value>,
    allowed: &[&str],
    scope: &Scope,
    prefix: &str,
) -> Result<(), ValidationError> {
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(scope.err(
                &format!("{prefix}{k}"),
                format!("unknown field (expected one of: {})", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

fn number(v: &Value, scope: &Scope, field: &str) -> Result<f64, ValidationError> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| scope.err(field, "not a representable number")),
        Value::String(s) if s.starts_with("\u{0}nonfinite:") => Err(scope.err(
            field,
            format!("must be a finite number, got {}", type_name(v)),
        )),
        other => Err(scope.err(
            field,
            format!("expected a number (milliseconds), got {}", type_name(other)),
        )),
    }
}

/// Converts milliseconds to nanoseconds. `allow_zero` selects whether 0 is
/// valid.
fn ms_to_ns(
    ms: f64,
    allow_zero: bool,
    scope: &Scope,
    field: &str,
) -> Result<Time, ValidationError> {
    if ms.is_nan() || ms.is_infinite() {
        return Err(scope.err(field, format!("must be a finite number, got {ms}")));
    }
    if ms < 0.0 {
        return Err(scope.err(field, format!("must not be negative, got {ms}")));
    }
    if ms == 0.0 && !allow_zero {
        return Err(scope.err(field, "must be greater than 0"));
    }
    if ms > MAX_TIME_MS {
        return Err(scope.err(
            field,
            format!("{ms} ms is absurdly large (limit {MAX_TIME_MS} ms)"),
        ));
    }
    let ns = (ms * NS_PER_MS as f64).round() as Time;
    if ns == 0 && !allow_zero {
        return Err(scope.err(
            field,
            format!("{ms} ms is below the 1 ns resolution (must be > 0)"),
        ));
    }
    Ok(ns)
}

fn time_field(
    obj: &Map<String, Value>,
    key: &str,
    allow_zero: bool,
    scope: &Scope,
    prefix: &str,
) -> Result<Option<Time>, ValidationError> {
    let field = format!("{prefix}{key}");
    match obj.get(key) {
        None => Ok(None),
        Some(v) => Ok(Some(ms_to_ns(
            number(v, scope, &field)?,
            allow_zero,
            scope,
            &field,
        )?)),
    }
}

fn required<T>(v: Option<T>, scope: &Scope, field: &str) -> Result<T, ValidationError> {
    v.ok_or_else(|| scope.err(field, "missing field"))
}

fn integer(v: &Value, scope: &Scope, field: &str) -> Result<i64, ValidationError> {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i)
            } else if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 1e15 {
                    Ok(f as i64)
                } else {
                    Err(scope.err(field, format!("expected an integer, got {f}")))
                }
            } else {
                Err(scope.err(field, "integer out of range"))
            }
        }
        other => Err(scope.err(
            field,
            format!("expected an integer, got {}", type_name(other)),
        )),
    }
}

fn from_tree(tree: &Value) -> Result<Taskset, ValidationError> {
    let root = tree.as_object().ok_or_else(|| {
        file_err(format!(
            "expected a table at top level, got {}",
            type_name(tree)
        ))
    })?;
    for k in root.keys() {
        // `simulation` is the simulator's scenario table (gcaps-sim validates it); the
        // analysis ignores it so that one file serves both.
        if k != "platform" && k != "task" && k != "simulation" {
            return Err(file_err(format!(
                "unknown top-level field '{k}' (expected 'platform', 'task' and optionally 'simulation')"
            )));
        }
    }
    let pscope = Scope { task: None };
    let pval = root
        .get("platform")
        .ok_or_else(|| file_err("missing [platform] table"))?;
    let pobj = pval.as_object().ok_or_else(|| {
        file_err(format!(
            "'platform' must be a table, got {}",
            type_name(pval)
        ))
    })?;
    check_fields(
        pobj,
        &["cpus", "epsilon", "theta", "timeslice"],
        &pscope,
        "",
    )?;
    let cpus_v = required(pobj.get("cpus"), &pscope, "cpus")?;
    let cpus = integer(cpus_v, &pscope, "cpus")?;
    if cpus < 1 || cpus > MAX_CPUS as i64 {
        return Err(pscope.err("cpus", format!("must be in 1..={MAX_CPUS}, got {cpus}")));
    }
    let platform = Platform {
        cpus: cpus as u32,
        epsilon: required(
            time_field(pobj, "epsilon", true, &pscope, "")?,
            &pscope,
            "epsilon",
        )?,
        theta: required(
            time_field(pobj, "theta", true, &pscope, "")?,
            &pscope,
            "theta",
        )?,
        timeslice: required(
            time_field(pobj, "timeslice", false, &pscope, "")?,
            &pscope,
            "timeslice",
        )?,
    };
    let tasks_v = match root.get("task") {
        None => return Err(file_err("empty taskset: no [[task]] entries")),
        Some(v) => v,
    };
    let arr = tasks_v.as_array().ok_or_else(|| {
        file_err(format!(
            "'task' must be an array of tables ([[task]]), got {}",
            type_name(tasks_v)
        ))
    })?;
    let mut tasks = Vec::with_capacity(arr.len());
    for (idx, tv) in arr.iter().enumerate() {
        tasks.push(task_from_tree(tv, idx)?);
    }
    Ok(Taskset { platform, tasks })
}

fn task_from_tree(tv: &Value, idx: usize) -> Result<Task, ValidationError> {
    let mut scope = Scope {
        task: Some(format!("#{}", idx + 1)),
    };
    let obj = tv
        .as_object()
        .ok_or_else(|| scope.err("task", format!("expected a table, got {}", type_name(tv))))?;
    // The name first, so that later messages can use it.
    let name = match obj.get("name") {
        None => return Err(scope.err("name", "missing field")),
        Some(Value::String(s)) if s.starts_with('\u{0}') => {
            return Err(scope.err("name", format!("expected a string, got {}", type_name(tv))))
        }
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(scope.err(
                "name",
                format!("expected a string, got {}", type_name(other)),
            ))
        }
    };
    if name.trim().is_empty() {
        return Err(scope.err("name", "must not be empty"));
    }
    if name.chars().any(|c| c.is_control()) {
        return Err(scope.err("name", "must not contain control characters"));
    }
    scope.task = Some(name.clone());
    check_fields(
        obj,
        &[
            "name",
            "period",
            "deadline",
            "cpu",
            "priority",
            "gpu_priority",
            "segments",
        ],
        &scope,
        "",
    )?;
    let period = required(
        time_field(obj, "period", false, &scope, "")?,
        &scope,
        "period",
    )?;
    let deadline = time_field(obj, "deadline", false, &scope, "")?.unwrap_or(period);
    let cpu_v = required(obj.get("cpu"), &scope, "cpu")?;
    let cpu = integer(cpu_v, &scope, "cpu")?;
    if cpu < 0 || cpu > u32::MAX as i64 {
        return Err(scope.err("cpu", format!("must be a core index >= 0, got {cpu}")));
    }
    let prio = |key: &str| -> Result<Option<u32>, ValidationError> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => {
                let p = integer(v, &scope, key)?;
                if p < MIN_PRIORITY as i64 || p > MAX_PRIORITY as i64 {
                    return Err(scope.err(
                        key,
                        format!(
                            "must be in {MIN_PRIORITY}..={MAX_PRIORITY} (omit it for a best-effort task), got {p}"
                        ),
                    ));
                }
                Ok(Some(p as u32))
            }
        }
    };
    let priority = prio("priority")?;
    let gpu_priority = prio("gpu_priority")?;
    let segs_v = required(obj.get("segments"), &scope, "segments")?;
    let segs = segs_v.as_array().ok_or_else(|| {
        scope.err(
            "segments",
            format!("expected an array of segments, got {}", type_name(segs_v)),
        )
    })?;
    let mut segments = Vec::with_capacity(segs.len());
    for (j, sv) in segs.iter().enumerate() {
        let f = format!("segments[{j}]");
        let so = sv.as_object().ok_or_else(|| {
            scope.err(
                &f,
                format!(
                    "expected {{cpu = MS}} or {{gpu = {{misc = MS, exec = MS}}}}, got {}",
                    type_name(sv)
                ),
            )
        })?;
        if so.len() != 1 {
            return Err(scope.err(&f, "a segment must have exactly one key, 'cpu' or 'gpu'"));
        }
        let (k, v) = so.iter().next().expect("one key");
        match k.as_str() {
            "cpu" => {
                let field = format!("{f}.cpu");
                let ns = ms_to_ns(number(v, &scope, &field)?, false, &scope, &field)?;
                segments.push(Segment::Cpu(ns));
            }
            "gpu" => {
                let field = format!("{f}.gpu");
                let go = v.as_object().ok_or_else(|| {
                    scope.err(
                        &field,
                        format!("expected {{misc = MS, exec = MS}}, got {}", type_name(v)),
                    )
                })?;
                let prefix = format!("{field}.");
                check_fields(go, &["misc", "exec"], &scope, &prefix)?;
                let misc = required(
                    time_field(go, "misc", true, &scope, &prefix)?,
                    &scope,
                    &format!("{prefix}misc"),
                )?;
                let exec = required(
                    time_field(go, "exec", false, &scope, &prefix)?,
                    &scope,
                    &format!("{prefix}exec"),
                )?;
                segments.push(Segment::Gpu(GpuSegment { misc, exec }));
            }
            other => {
                return Err(scope.err(
                    &format!("{f}.{other}"),
                    "unknown segment kind (expected 'cpu' or 'gpu')",
                ))
            }
        }
    }
    Ok(Task {
        name,
        period,
        deadline,
        cpu: cpu as u32,
        priority,
        gpu_priority,
        segments,
    })
}

/// Checks the semantic rules of a taskset (also used by the generator):
/// non-empty; unique non-empty names; `cpus >= 1`; `timeslice > 0`;
/// `0 < deadline <= period`; `cpu < cpus`; priorities in 1..=99; no
/// `gpu_priority` without `priority`; at least one segment per task; CPU
/// segments and GPU `exec` > 0 (`misc` may be 0); no time beyond
/// [`MAX_TIME_MS`] (also per-task totals); and on each core the GPU
/// priority order never contradicts the CPU priority order (Sec. 5.3:
/// that would deadlock).
pub fn validate(ts: &Taskset) -> Result<(), ValidationError> {
    let p = Scope { task: None };
    let max_ns = (MAX_TIME_MS * NS_PER_MS as f64) as Time;
    if ts.platform.cpus == 0 || ts.platform.cpus > MAX_CPUS {
        return Err(p.err("cpus", format!("must be in 1..={MAX_CPUS}")));
    }
    if ts.platform.timeslice == 0 {
        return Err(p.err("timeslice", "must be greater than 0"));
    }
    for (f, v) in [
        ("epsilon", ts.platform.epsilon),
        ("theta", ts.platform.theta),
        ("timeslice", ts.platform.timeslice),
    ] {
        if v > max_ns {
            return Err(p.err(f, "absurdly large"));
        }
    }
    if ts.tasks.is_empty() {
        return Err(file_err("empty taskset: no [[task]] entries"));
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (idx, t) in ts.tasks.iter().enumerate() {
        let s = Scope {
            task: Some(if t.name.is_empty() {
                format!("#{}", idx + 1)
            } else {
                t.name.clone()
            }),
        };
        if t.name.trim().is_empty() {
            return Err(s.err("name", "must not be empty"));
        }
        if let Some(prev) = names.insert(t.name.as_str(), idx) {
            return Err(s.err(
                "name",
                format!("duplicate task name (tasks #{} and #{})", prev + 1, idx + 1),
            ));
        }
        if t.period == 0 {
            return Err(s.err("period", "must be greater than 0"));
        }
        if t.period > max_ns {
            return Err(s.err("period", "absurdly large"));
        }
        if t.deadline == 0 {
            return Err(s.err("deadline", "must be greater than 0"));
        }
        if t.deadline > t.period {
            return Err(s.err(
                "deadline",
                format!(
                    "deadline {} ms exceeds the period {} ms (constrained deadlines only)",
                    ms_string(t.deadline),
                    ms_string(t.period)
                ),
            ));
        }
        if t.cpu >= ts.platform.cpus {
            return Err(s.err(
                "cpu",
                format!(
                    "core {} does not exist (platform has {} cpus, cores 0..={})",
                    t.cpu,
                    ts.platform.cpus,
                    ts.platform.cpus - 1
                ),
            ));
        }
        for (f, v) in [("priority", t.priority), ("gpu_priority", t.gpu_priority)] {
            if let Some(v) = v {
                if !(MIN_PRIORITY..=MAX_PRIORITY).contains(&v) {
                    return Err(s.err(f, format!("must be in 1..=99, got {v}")));
                }
            }
        }
        if t.priority.is_none() && t.gpu_priority.is_some() {
            return Err(s.err(
                "gpu_priority",
                "a best-effort task (no 'priority') cannot have a GPU priority",
            ));
        }
        if t.segments.is_empty() {
            return Err(s.err("segments", "a task needs at least one segment"));
        }
        let mut total: u128 = 0;
        for (j, seg) in t.segments.iter().enumerate() {
            match seg {
                Segment::Cpu(c) => {
                    if *c == 0 {
                        return Err(s.err(&format!("segments[{j}].cpu"), "must be greater than 0"));
                    }
                    total += *c as u128;
                }
                Segment::Gpu(g) => {
                    if g.exec == 0 {
                        return Err(
                            s.err(&format!("segments[{j}].gpu.exec"), "must be greater than 0")
                        );
                    }
                    total += g.exec as u128 + g.misc as u128;
                }
            }
        }
        if total > max_ns as u128 {
            return Err(s.err("segments", format!("total work exceeds {MAX_TIME_MS} ms")));
        }
    }
    // Same-core GPU order rule (Sec. 5.3).
    for (a_idx, a) in ts.tasks.iter().enumerate() {
        for b in ts.tasks.iter().skip(a_idx + 1) {
            if a.cpu != b.cpu || !a.uses_gpu() || !b.uses_gpu() {
                continue;
            }
            let (Some(pa), Some(pb)) = (a.priority, b.priority) else {
                continue;
            };
            let (ga, gb) = (
                a.effective_gpu_priority().unwrap_or(pa),
                b.effective_gpu_priority().unwrap_or(pb),
            );
            let bad = (pa > pb && ga <= gb) || (pb > pa && gb <= ga);
            if bad {
                let (hi, lo) = if pa > pb { (a, b) } else { (b, a) };
                let s = Scope {
                    task: Some(lo.name.clone()),
                };
                return Err(s.err(
                    "gpu_priority",
                    format!(
                        "GPU priority order contradicts CPU order on core {}: '{}' has higher CPU priority but not higher GPU priority (Sec. 5.3: would deadlock)",
                        a.cpu, hi.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Formats nanoseconds as a decimal number of milliseconds, exactly.
pub fn ms_string(ns: Time) -> String {
    let whole = ns / NS_PER_MS;
    let frac = ns % NS_PER_MS;
    if frac == 0 {
        format!("{whole}.0")
    } else {
        let f = format!("{frac:06}");
        format!("{whole}.{}", f.trim_end_matches('0'))
    }
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("string serialises")
}

/// Serialises a taskset as TOML; `parse_taskset(to_toml(ts), .., Toml)`
/// gives back `ts` exactly.
pub fn to_toml(ts: &Taskset) -> String {
    use std::fmt::Write;
    let p = &ts.platform;
    let mut out = String::new();
    let _ = writeln!(out, "[platform]");
    let _ = writeln!(out, "cpus = {}", p.cpus);
    let _ = writeln!(out, "epsilon = {}", ms_string(p.epsilon));
    let _ = writeln!(out, "theta = {}", ms_string(p.theta));
    let _ = writeln!(out, "timeslice = {}", ms_string(p.timeslice));
    for t in &ts.tasks {
        let _ = writeln!(out, "\n[[task]]");
        let _ = writeln!(out, "name = {}", toml_string(&t.name));
        let _ = writeln!(out, "period = {}", ms_string(t.period));
        let _ = writeln!(out, "deadline = {}", ms_string(t.deadline));
        let _ = writeln!(out, "cpu = {}", t.cpu);
        if let Some(pr) = t.priority {
            let _ = writeln!(out, "priority = {pr}");
        }
        if let Some(g) = t.gpu_priority {
            let _ = writeln!(out, "gpu_priority = {g}");
        }
        let segs: Vec<String> = t
            .segments
            .iter()
            .map(|s| match s {
                Segment::Cpu(c) => format!("{{cpu = {}}}", ms_string(*c)),
                Segment::Gpu(g) => format!(
                    "{{gpu = {{misc = {}, exec = {}}}}}",
                    ms_string(g.misc),
                    ms_string(g.exec)
                ),
            })
            .collect();
        let _ = writeln!(out, "segments = [{}]", segs.join(", "));
    }
    out
}

/// Serialises a taskset as JSON (same schema as TOML); round-trips through
/// [`parse_taskset`] exactly.
pub fn to_json(ts: &Taskset) -> String {
    let p = &ts.platform;
    let mut out = String::new();
    out.push_str(&format!(
        "{{\n  \"platform\": {{\"cpus\": {}, \"epsilon\": {}, \"theta\": {}, \"timeslice\": {}}},\n  \"task\": [",
        p.cpus,
        ms_string(p.epsilon),
        ms_string(p.theta),
        ms_string(p.timeslice)
    ));
    for (i, t) in ts.tasks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "\n    {{\"name\": {}, \"period\": {}, \"deadline\": {}, \"cpu\": {}",
            json_string(&t.name),
            ms_string(t.period),
            ms_string(t.deadline),
            t.cpu
        ));
        if let Some(pr) = t.priority {
            out.push_str(&format!(", \"priority\": {pr}"));
        }
        if let Some(g) = t.gpu_priority {
            out.push_str(&format!(", \"gpu_priority\": {g}"));
        }
        let segs: Vec<String> = t
            .segments
            .iter()
            .map(|s| match s {
                Segment::Cpu(c) => format!("{{\"cpu\": {}}}", ms_string(*c)),
                Segment::Gpu(g) => format!(
                    "{{\"gpu\": {{\"misc\": {}, \"exec\": {}}}}}",
                    ms_string(g.misc),
                    ms_string(g.exec)
                ),
            })
            .collect();
        out.push_str(&format!(", \"segments\": [{}]}}", segs.join(", ")));
    }
    out.push_str("\n  ]\n}\n");
    out
}
