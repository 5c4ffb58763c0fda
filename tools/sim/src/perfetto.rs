//! Chrome trace-event JSON (opens in Perfetto UI and chrome://tracing). The shape is the
//! contract for the kernel's trace export (`docs/simulator.md`, "Trace format"):
//!
//! * one process per task/client: `pid = 1 + task index`, named `NAME` (metadata
//!   `process_name`), `args` of its first event carry cpu and priorities;
//! * in each process, thread `tid 1` "state" (complete events `running`, `preempted`,
//!   `lock wait`, `gpu wait`; instants `release`, `finish`, `preempted by X`, and under
//!   gcaps-boost `boost` / `unboost` with `args.by` and `args.core`), thread
//!   `tid 2` "cpu" (complete events `cpu`, `misc`, `update`, `spin`, args `core`), thread
//!   `tid 3` "gpu" (complete events `gpu`, `switch` while its TSG is on the engine);
//! * process `pid 0` "GPU" with thread `tid 1` "engine" (the same GPU spans, named by task)
//!   and thread `tid 2` "runlist" (instant `runlist` with `args.tsgs` and `args.by`).
//!
//! Timestamps and durations are microseconds with three decimals (exact nanoseconds).

use crate::model::{SimModel, Time};
use crate::trace::{CpuKind, GpuKind, Mark, TaskState, Trace};
use serde_json::{json, Value};
use std::fmt::Write;

fn us(t: Time) -> String {
    format!("{}.{:03}", t / 1000, t % 1000)
}

fn name_json(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Renders the trace as one JSON object `{"displayTimeUnit": "ns", "traceEvents": [...]}`.
pub fn render(model: &SimModel, tr: &Trace) -> String {
    let mut ev: Vec<String> = Vec::new();
    let meta = |pid: usize, tid: Option<u32>, kind: &str, name: &str| -> String {
        match tid {
            None => format!(
                r#"{{"ph":"M","pid":{pid},"name":"{kind}","args":{{"name":{}}}}}"#,
                name_json(name)
            ),
            Some(t) => format!(
                r#"{{"ph":"M","pid":{pid},"tid":{t},"name":"{kind}","args":{{"name":{}}}}}"#,
                name_json(name)
            ),
        }
    };
    ev.push(meta(0, None, "process_name", "GPU"));
    ev.push(meta(0, Some(1), "thread_name", "engine"));
    ev.push(meta(0, Some(2), "thread_name", "runlist"));
    for (i, t) in model.tasks.iter().enumerate() {
        let pid = i + 1;
        ev.push(meta(pid, None, "process_name", &t.name));
        ev.push(format!(
            r#"{{"ph":"M","pid":{pid},"name":"process_sort_index","args":{{"sort_index":{pid}}}}}"#
        ));
        ev.push(meta(pid, Some(1), "thread_name", "state"));
        ev.push(meta(pid, Some(2), "thread_name", "cpu"));
        ev.push(meta(pid, Some(3), "thread_name", "gpu"));
        let args = json!({
            "cpu": t.cpu,
            "priority": t.priority,
            "gpu_priority": t.gpu_priority,
            "period_ns": t.period,
            "deadline_ns": t.deadline,
        });
        ev.push(format!(
            r#"{{"ph":"i","s":"t","pid":{pid},"tid":1,"ts":0,"name":"task","args":{args}}}"#
        ));
    }
    let complete = |pid: usize, tid: u32, name: &str, start: Time, end: Time, args: &str| {
        format!(
            r#"{{"ph":"X","pid":{pid},"tid":{tid},"name":{},"ts":{},"dur":{},"args":{args}}}"#,
            name_json(name),
            us(start),
            us(end - start)
        )
    };
    for sp in &tr.tasks {
        let name = match sp.state {
            TaskState::Running => "running",
            TaskState::Preempted => "preempted",
            TaskState::LockWait => "lock wait",
            TaskState::UpdateSleep => "update sleep",
            TaskState::GpuWait => "gpu wait",
        };
        ev.push(complete(sp.task + 1, 1, name, sp.start, sp.end, "{}"));
    }
    for sp in &tr.cpu {
        let name = match sp.kind {
            CpuKind::Work => "cpu",
            CpuKind::Misc => "misc",
            CpuKind::Update => "update",
            CpuKind::Spin => "spin",
        };
        let args = format!(r#"{{"core":{}}}"#, sp.core);
        ev.push(complete(sp.task + 1, 2, name, sp.start, sp.end, &args));
    }
    for sp in &tr.gpu {
        let name = match sp.kind {
            GpuKind::Run => "gpu",
            GpuKind::Switch => "switch",
        };
        ev.push(complete(sp.task + 1, 3, name, sp.start, sp.end, "{}"));
        let args = format!(r#"{{"kind":"{name}"}}"#);
        ev.push(complete(
            0,
            1,
            &model.tasks[sp.task].name,
            sp.start,
            sp.end,
            &args,
        ));
    }
    for mk in &tr.markers {
        let ts = us(mk.time);
        let e = match &mk.mark {
            Mark::Release { task } => format!(
                r#"{{"ph":"i","s":"t","pid":{},"tid":1,"ts":{ts},"name":"release"}}"#,
                task + 1
            ),
            Mark::Finish {
                task,
                response,
                miss,
            } => format!(
                r#"{{"ph":"i","s":"t","pid":{},"tid":1,"ts":{ts},"name":"finish","args":{{"response_ns":{response},"miss":{miss}}}}}"#,
                task + 1
            ),
            Mark::Preempt { core, by, victim } => format!(
                r#"{{"ph":"i","s":"t","pid":{},"tid":1,"ts":{ts},"name":{},"args":{{"core":{core}}}}}"#,
                victim + 1,
                name_json(&format!("preempted by {}", model.tasks[*by].name))
            ),
            Mark::Runlist { by, tsgs } => {
                let names: Vec<&str> = tsgs.iter().map(|&t| model.tasks[t].name.as_str()).collect();
                let args = json!({"by": model.tasks[*by].name, "tsgs": names});
                format!(
                    r#"{{"ph":"i","s":"p","pid":0,"tid":2,"ts":{ts},"name":"runlist","args":{args}}}"#
                )
            }
            Mark::Boost { task, by } | Mark::Unboost { task, by } => {
                let name = if matches!(mk.mark, Mark::Boost { .. }) {
                    "boost"
                } else {
                    "unboost"
                };
                let args = json!({"by": model.tasks[*by].name, "core": model.tasks[*task].cpu});
                format!(
                    r#"{{"ph":"i","s":"t","pid":{},"tid":1,"ts":{ts},"name":"{name}","args":{args}}}"#,
                    task + 1
                )
            }
        };
        ev.push(e);
    }
    let mut s = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    for (k, e) in ev.iter().enumerate() {
        let _ = write!(s, "{e}{}", if k + 1 < ev.len() { ",\n" } else { "\n" });
    }
    s.push_str("]}\n");
    s
}
