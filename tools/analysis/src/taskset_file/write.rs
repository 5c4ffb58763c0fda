//! Writing a taskset as TOML or JSON, with times as exact decimal
//! milliseconds so that reading the text back gives the same taskset.

use crate::model::{Mechanism, Segment, Taskset, Time, NS_PER_MS};

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

/// The optional `submissions` entry of a GPU segment in TOML (U7), omitted
/// when it is the default 1.
fn toml_submissions(n: u32) -> String {
    if n == 1 {
        String::new()
    } else {
        format!(", submissions = {n}")
    }
}

/// The same in JSON.
fn json_submissions(n: u32) -> String {
    if n == 1 {
        String::new()
    } else {
        format!(", \"submissions\": {n}")
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
    if let Some(f) = p.epsilon_fast {
        let _ = writeln!(out, "epsilon_fast = {}", ms_string(f));
    }
    if let Some(c) = p.epsilon_cpu {
        let _ = writeln!(out, "epsilon_cpu = {}", ms_string(c));
    }
    if p.mechanism != Mechanism::default() {
        let _ = writeln!(out, "mechanism = \"{}\"", p.mechanism.name());
    }
    if let Some(c) = p.epsilon_preempt {
        let _ = writeln!(out, "epsilon_preempt = {}", ms_string(c));
    }
    if let Some(c) = p.epsilon_handover {
        let _ = writeln!(out, "epsilon_handover = {}", ms_string(c));
    }
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
                    "{{gpu = {{misc = {}, exec = {}{}}}}}",
                    ms_string(g.misc),
                    ms_string(g.exec),
                    toml_submissions(g.submissions)
                ),
            })
            .collect();
        let _ = writeln!(out, "segments = [{}]", segs.join(", "));
    }
    out
}

/// Serialises a taskset as JSON (same schema as TOML); round-trips through
/// [`super::parse_taskset`] exactly.
pub fn to_json(ts: &Taskset) -> String {
    let p = &ts.platform;
    let mut out = String::new();
    out.push_str(&format!(
        "{{\n  \"platform\": {{\"cpus\": {}, \"epsilon\": {}{}{}{}{}{}, \"theta\": {}, \"timeslice\": {}}},\n  \"task\": [",
        p.cpus,
        ms_string(p.epsilon),
        p.epsilon_fast.map_or(String::new(), |f| format!(", \"epsilon_fast\": {}", ms_string(f))),
        p.epsilon_cpu.map_or(String::new(), |c| format!(", \"epsilon_cpu\": {}", ms_string(c))),
        if p.mechanism == Mechanism::default() {
            String::new()
        } else {
            format!(", \"mechanism\": \"{}\"", p.mechanism.name())
        },
        p.epsilon_preempt.map_or(String::new(), |c| format!(", \"epsilon_preempt\": {}", ms_string(c))),
        p.epsilon_handover.map_or(String::new(), |c| format!(", \"epsilon_handover\": {}", ms_string(c))),
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
                    "{{\"gpu\": {{\"misc\": {}, \"exec\": {}{}}}}}",
                    ms_string(g.misc),
                    ms_string(g.exec),
                    json_submissions(g.submissions)
                ),
            })
            .collect();
        out.push_str(&format!(", \"segments\": [{}]}}", segs.join(", ")));
    }
    out.push_str("\n  ]\n}\n");
    out
}
