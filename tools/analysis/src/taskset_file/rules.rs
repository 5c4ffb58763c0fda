//! The semantic rules of a taskset, shared by the file reader and the
//! generator.

use super::error::{file_err, Scope, ValidationError};
use super::write::ms_string;
use crate::model::{
    cpu_priority_ok, gpu_priority_ok, within_epsilon, Segment, Taskset, Time, EPS_CPU_RULE,
    EPS_FAST_RULE, MAX_GPU_PRIORITY, MAX_PRIORITY, MAX_SUBMISSIONS, MIN_PRIORITY, NS_PER_MS,
    UPDATE_CEILING,
};
use std::collections::HashMap;

/// Largest time accepted in a file, in milliseconds (about 11.6 days).
pub const MAX_TIME_MS: f64 = 1e9;
/// Largest accepted number of CPUs.
pub const MAX_CPUS: u32 = 4096;

/// Checks the semantic rules of a taskset (also used by the generator):
/// non-empty; unique non-empty names; `cpus >= 1`; `timeslice > 0`;
/// `0 < deadline <= period`; `cpu < cpus`; CPU priorities in 1..=98 (below
/// the update ceiling, U2) and GPU priorities in 1..=99; GPU segments with
/// 1..=[`MAX_SUBMISSIONS`] submissions; no
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
        ("epsilon_fast", ts.platform.eps_fast()),
        ("epsilon_cpu", ts.platform.eps_cpu()),
        ("epsilon_preempt", ts.platform.eps_preempt()),
        ("epsilon_handover", ts.platform.eps_handover()),
        ("theta", ts.platform.theta),
        ("timeslice", ts.platform.timeslice),
    ] {
        if v > max_ns {
            return Err(p.err(f, "absurdly large"));
        }
    }
    for (f, part, rule) in [
        ("epsilon_fast", ts.platform.epsilon_fast, EPS_FAST_RULE),
        ("epsilon_cpu", ts.platform.epsilon_cpu, EPS_CPU_RULE),
    ] {
        if !within_epsilon(part, ts.platform.epsilon) {
            return Err(p.err(
                f,
                format!(
                    "must not exceed epsilon ({} ms): {rule}",
                    ms_string(ts.platform.epsilon)
                ),
            ));
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
        if let Some(v) = t.priority {
            if !cpu_priority_ok(i64::from(v)) {
                return Err(s.err(
                    "priority",
                    format!("must be in {MIN_PRIORITY}..={MAX_PRIORITY}, below the update ceiling {UPDATE_CEILING}, got {v}"),
                ));
            }
        }
        if let Some(v) = t.gpu_priority {
            if !gpu_priority_ok(i64::from(v)) {
                return Err(s.err(
                    "gpu_priority",
                    format!("must be in {MIN_PRIORITY}..={MAX_GPU_PRIORITY}, got {v}"),
                ));
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
                    if !(1..=MAX_SUBMISSIONS).contains(&g.submissions) {
                        return Err(s.err(
                            &format!("segments[{j}].gpu.submissions"),
                            format!("must be in 1..={MAX_SUBMISSIONS}, got {}", g.submissions),
                        ));
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
