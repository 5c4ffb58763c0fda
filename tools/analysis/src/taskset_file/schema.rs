//! The schema walk: a generic tree (from [`super::read`]) to a
//! [`Taskset`], with one precise message for every unknown, missing or
//! ill-typed field.

use super::error::{file_err, Scope, ValidationError};
use super::read::{DATETIME, NONFINITE, STRING};
use super::rules::{MAX_CPUS, MAX_TIME_MS};
use crate::model::{
    cpu_priority_ok, gpu_priority_ok, GpuSegment, Mechanism, Platform, Segment, Task, Taskset,
    Time, MAX_GPU_PRIORITY, MAX_PRIORITY, MAX_SUBMISSIONS, MIN_PRIORITY, NS_PER_MS, UPDATE_CEILING,
};
use serde_json::{Map, Value};

/// A string of the file (not one of the reader's marks for TOML values).
fn file_string(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) if s.starts_with(STRING) => Some(&s[STRING.len()..]),
        Value::String(s) if s.starts_with('\u{0}') => None,
        Value::String(s) => Some(s),
        _ => None,
    }
}

fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(s) if s.starts_with(NONFINITE) => s[NONFINITE.len()..].to_string(),
        Value::String(s) if s.starts_with(DATETIME) => "a date-time".into(),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "a table".into(),
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
        Value::String(s) if s.starts_with(NONFINITE) => Err(scope.err(
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

/// The platform's `mechanism`: "reload" (default) or "gate".
fn mechanism_field(obj: &Map<String, Value>, scope: &Scope) -> Result<Mechanism, ValidationError> {
    let Some(v) = obj.get("mechanism") else {
        return Ok(Mechanism::default());
    };
    let expected = || {
        Mechanism::ALL
            .map(|m| format!("\"{}\"", m.name()))
            .join(" or ")
    };
    let Some(name) = file_string(v) else {
        return Err(scope.err(
            "mechanism",
            format!("must be {}, got {}", expected(), type_name(v)),
        ));
    };
    Mechanism::from_name(name).ok_or_else(|| {
        scope.err(
            "mechanism",
            format!("must be {}, got \"{name}\"", expected()),
        )
    })
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

pub(super) fn from_tree(tree: &Value) -> Result<Taskset, ValidationError> {
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
        &[
            "cpus",
            "epsilon",
            "epsilon_fast",
            "epsilon_cpu",
            "mechanism",
            "epsilon_preempt",
            "epsilon_handover",
            "theta",
            "timeslice",
        ],
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
        epsilon_fast: time_field(pobj, "epsilon_fast", true, &pscope, "")?,
        epsilon_cpu: time_field(pobj, "epsilon_cpu", true, &pscope, "")?,
        mechanism: mechanism_field(pobj, &pscope)?,
        epsilon_preempt: time_field(pobj, "epsilon_preempt", true, &pscope, "")?,
        epsilon_handover: time_field(pobj, "epsilon_handover", true, &pscope, "")?,
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
        Some(v) => match file_string(v) {
            Some(s) => s.to_string(),
            None => {
                return Err(scope.err("name", format!("expected a string, got {}", type_name(v))))
            }
        },
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
    let priority = match obj.get("priority") {
        None => None,
        Some(v) => {
            let p = integer(v, &scope, "priority")?;
            if !cpu_priority_ok(p) {
                return Err(scope.err(
                    "priority",
                    format!(
                        "must be in {MIN_PRIORITY}..={MAX_PRIORITY}, below the update ceiling {UPDATE_CEILING} (omit it for a best-effort task), got {p}"
                    ),
                ));
            }
            Some(p as u32)
        }
    };
    let gpu_priority = match obj.get("gpu_priority") {
        None => None,
        Some(v) => {
            let p = integer(v, &scope, "gpu_priority")?;
            if !gpu_priority_ok(p) {
                return Err(scope.err(
                    "gpu_priority",
                    format!("must be in {MIN_PRIORITY}..={MAX_GPU_PRIORITY}, got {p}"),
                ));
            }
            Some(p as u32)
        }
    };
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
                        format!(
                            "expected {{misc = MS, exec = MS[, submissions = N]}}, got {}",
                            type_name(v)
                        ),
                    )
                })?;
                let prefix = format!("{field}.");
                check_fields(go, &["misc", "exec", "submissions"], &scope, &prefix)?;
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
                let submissions = match go.get("submissions") {
                    None => 1,
                    Some(v) => {
                        let f = format!("{prefix}submissions");
                        let n = integer(v, &scope, &f)?;
                        if n < 1 || n > MAX_SUBMISSIONS as i64 {
                            return Err(scope.err(
                                &f,
                                format!("must be an integer in 1..={MAX_SUBMISSIONS} (pieces the GPU work is submitted in), got {n}"),
                            ));
                        }
                        n as u32
                    }
                };
                segments.push(Segment::Gpu(GpuSegment {
                    misc,
                    exec,
                    submissions,
                }));
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
