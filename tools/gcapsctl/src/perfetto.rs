//! Trace events -> Perfetto / Chrome trace JSON (`gcapsctl trace --perfetto`), in the shape of
//! the simulator's `--trace` (docs/simulator.md, "Trace format") so that a simulated and a live
//! schedule open side by side:
//!
//! - pid 0 `GPU`, tid 2 `runlist`: `X` spans named after the client whose real-time segment
//!   runs (the decision after each event); `i` `runlist` at every runlist submit (`args.by`,
//!   `args.cause`, `args.generation`, `args.delay_ns`, `args.failed`); `i` `recovery`;
//!   `i` `dropped N events` where the reader lost events;
//! - pid 0, tid 3 `tsgs`: `i` `tsg N new` / `tsg N gone` (`args.pid`: the owner);
//! - pid 1 + client index (in order of first appearance), named `comm (pid P, client C)`
//!   (`pid P (client C)` when the command name is unknown: the process is gone):
//!   tid 1 `state`: `X` `gpu wait` while its segment is pending (BEGIN with PENDING, or
//!   PREEMPT, until RESUME, END or CLOSE), `i` `open`, `close`, `preempted` (`args.by`: the
//!   client whose BEGIN caused it), `resumed`; tid 2 `segment`: `X` `segment` from BEGIN to END
//!   or to a CLOSE that ended it (`args`: priorities, `end`, delays, `preemptions`).
//!
//! `ts`/`dur` are microseconds with three decimals (exact ns) since the first event
//! (`otherData.origin_ns`, CLOCK_MONOTONIC). Spans still open at the last event end there,
//! with `args.note` saying so; spans whose start the dump does not hold (dropped or
//! overwritten events) start at the first event, with a note.
use libgcaps::{TraceEvent, TraceKind};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Events lost to the reader: `count` events just before `before_seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drop {
    pub before_seq: u64,
    pub count: u64,
}

const GPU_PID: u64 = 0;
const RUNLIST_TID: u64 = 2;
const TSGS_TID: u64 = 3;
const STATE_TID: u64 = 1;
const SEGMENT_TID: u64 = 2;

const NOTE_OPEN_AT_END: &str = "still open at the end of the dump: ends at the last event's time";
const NOTE_START_MISSING: &str =
    "its start is not in the dump (overwritten or dropped): starts at the first event";

/// Per client: its process in the trace and what is open.
struct Client {
    pid: u64,
    label: String,
    segment: Option<Segment>,
    /// Start of the current `gpu wait`, with its note.
    wait: Option<(u64, Option<&'static str>)>,
}

struct Segment {
    start: u64,
    args: Map<String, Value>,
}

/// The converter's state while it walks the events.
struct Builder<'a> {
    origin: u64,
    out: Vec<Value>,
    clients: HashMap<u64, Client>,
    order: Vec<u64>,
    comm_of: &'a dyn Fn(u64, u32) -> Option<String>,
    /// The running-client span: (client id, start).
    running: Option<(u64, u64)>,
}

/// The Chrome trace JSON of `events` (in seq order). `comm_of(client_id, pid)` names a client
/// (its command) where known; `drops` says where the reader lost events.
pub fn convert(
    events: &[TraceEvent],
    drops: &[Drop],
    comm_of: &dyn Fn(u64, u32) -> Option<String>,
) -> Value {
    let origin = events.first().map_or(0, |e| e.time_ns);
    let mut b = Builder {
        origin,
        out: Vec::new(),
        clients: HashMap::new(),
        order: Vec::new(),
        comm_of,
        running: None,
    };
    b.meta(GPU_PID, None, "process_name", "GPU");
    b.meta(GPU_PID, None, "process_sort_index", 0);
    b.meta(GPU_PID, Some(RUNLIST_TID), "thread_name", "runlist");
    b.meta(GPU_PID, Some(TSGS_TID), "thread_name", "tsgs");
    let mut drops = drops.to_vec();
    drops.sort_by_key(|d| d.before_seq);
    let mut next_drop = 0;
    let mut prev: Option<&TraceEvent> = None;
    for e in events {
        while next_drop < drops.len() && drops[next_drop].before_seq <= e.seq {
            let d = drops[next_drop];
            let name = format!("dropped {} events", d.count);
            b.instant(
                GPU_PID,
                RUNLIST_TID,
                e.time_ns,
                &name,
                json!({"count": d.count, "before_seq": d.before_seq}),
            );
            next_drop += 1;
        }
        b.event(e, prev);
        prev = Some(e);
    }
    let end = events.last().map_or(origin, |e| e.time_ns);
    for d in &drops[next_drop..] {
        let name = format!("dropped {} events", d.count);
        b.instant(
            GPU_PID,
            RUNLIST_TID,
            end,
            &name,
            json!({"count": d.count, "before_seq": d.before_seq}),
        );
    }
    b.finish(end);
    let dropped: u64 = drops.iter().map(|d| d.count).sum();
    json!({
        "displayTimeUnit": "ns",
        "otherData": {
            "source": "gcaps.ko trace ring (gcapsctl trace --perfetto)",
            "clock": "CLOCK_MONOTONIC",
            "origin_ns": origin,
            "first_seq": events.first().map_or(0, |e| e.seq),
            "last_seq": events.last().map_or(0, |e| e.seq),
            "dropped": dropped,
        },
        "traceEvents": b.out,
    })
}

/// `ns` since `origin` as microseconds with three decimals (exact: the nearest double of
/// n/1000 prints as the decimal n/1000).
fn us(ns: u64) -> Value {
    json!(ns as f64 / 1000.0)
}

impl Builder<'_> {
    fn meta(&mut self, pid: u64, tid: Option<u64>, name: &str, value: impl Into<Value>) {
        let key = if name == "process_sort_index" {
            "sort_index"
        } else {
            "name"
        };
        let mut ev = json!({"ph": "M", "pid": pid, "name": name, "args": {key: value.into()}});
        if let Some(tid) = tid {
            ev["tid"] = json!(tid);
        }
        self.out.push(ev);
    }

    fn instant(&mut self, pid: u64, tid: u64, t: u64, name: &str, args: Value) {
        self.out.push(json!({
            "ph": "i", "s": "t", "pid": pid, "tid": tid, "name": name,
            "ts": us(t.saturating_sub(self.origin)), "args": args,
        }));
    }

    fn span(&mut self, pid: u64, tid: u64, start: u64, end: u64, name: &str, args: Value) {
        self.out.push(json!({
            "ph": "X", "pid": pid, "tid": tid, "name": name,
            "ts": us(start.saturating_sub(self.origin)),
            "dur": us(end.saturating_sub(start)), "args": args,
        }));
    }

    /// The client `id` (process `pid`), created at its first appearance.
    fn client(&mut self, id: u64, pid: u32) -> &mut Client {
        if !self.clients.contains_key(&id) {
            let tpid = 1 + self.order.len() as u64;
            let label = match (self.comm_of)(id, pid) {
                Some(comm) => format!("{comm} (pid {pid}, client {id})"),
                None => format!("pid {pid} (client {id})"),
            };
            self.meta(tpid, None, "process_name", label.clone());
            self.meta(tpid, None, "process_sort_index", tpid);
            self.meta(tpid, Some(STATE_TID), "thread_name", "state");
            self.meta(tpid, Some(SEGMENT_TID), "thread_name", "segment");
            self.order.push(id);
            self.clients.insert(
                id,
                Client {
                    pid: tpid,
                    label,
                    segment: None,
                    wait: None,
                },
            );
        }
        self.clients.get_mut(&id).expect("inserted above")
    }

    fn label(&mut self, id: u64, pid: u32) -> String {
        if id == 0 {
            return "-".into();
        }
        self.client(id, pid).label.clone()
    }

    /// Ends the `gpu wait` of client `id` at `t`, if one is open.
    fn end_wait(&mut self, id: u64, t: u64, note: Option<&str>) {
        let c = self.clients.get_mut(&id).expect("client exists");
        if let Some((start, start_note)) = c.wait.take() {
            let pid = c.pid;
            let mut args = Map::new();
            if let Some(n) = start_note.or(note) {
                args.insert("note".into(), json!(n));
            }
            self.span(pid, STATE_TID, start, t, "gpu wait", Value::Object(args));
        }
    }

    /// Ends the segment of client `id` at `t` (`how`: end, close, ...).
    fn end_segment(&mut self, id: u64, t: u64, how: &str, e: Option<&TraceEvent>) {
        let c = self.clients.get_mut(&id).expect("client exists");
        let Some(seg) = c.segment.take() else { return };
        let pid = c.pid;
        let mut args = seg.args;
        args.insert("end".into(), json!(how));
        if let Some(e) = e {
            args.insert("end_seq".into(), json!(e.seq));
            if e.delay_ns > 0 {
                args.insert("end_delay_ns".into(), json!(e.delay_ns));
            }
        } else {
            args.insert("note".into(), json!(NOTE_OPEN_AT_END));
        }
        self.span(
            pid,
            SEGMENT_TID,
            seg.start,
            t,
            "segment",
            Value::Object(args),
        );
    }

    /// Makes sure client `id` has an open segment (PREEMPT/RESUME/END of a segment whose BEGIN
    /// is not in the dump: it starts at the first event).
    fn ensure_segment(&mut self, id: u64, pid: u32) {
        let origin = self.origin;
        let c = self.client(id, pid);
        if c.segment.is_none() {
            let mut args = Map::new();
            args.insert("note".into(), json!(NOTE_START_MISSING));
            args.insert("preemptions".into(), json!(0));
            c.segment = Some(Segment {
                start: origin,
                args,
            });
        }
    }

    fn event(&mut self, e: &TraceEvent, prev: Option<&TraceEvent>) {
        let t = e.time_ns;
        let id = e.client_id;
        match e.kind {
            TraceKind::Open => {
                let pid = self.client(id, e.pid).pid;
                self.instant(pid, STATE_TID, t, "open", json!({"seq": e.seq}));
            }
            TraceKind::Begin => {
                if self.client(id, e.pid).segment.is_some() {
                    // a BEGIN while one is open: the END/CLOSE between them was lost
                    self.end_wait(id, t, None);
                    self.end_segment(id, t, "lost (next begin)", None);
                }
                let mut args = Map::new();
                args.insert("begin_seq".into(), json!(e.seq));
                args.insert("cpu_priority".into(), json!(e.cpu_priority));
                args.insert("requested_priority".into(), json!(e.requested_priority));
                args.insert("gpu_priority".into(), json!(e.effective_priority));
                args.insert("pending_at_begin".into(), json!(e.flags.pending()));
                args.insert("preemptions".into(), json!(0));
                if e.delay_ns > 0 {
                    args.insert("begin_delay_ns".into(), json!(e.delay_ns));
                }
                let c = self.client(id, e.pid);
                c.segment = Some(Segment { start: t, args });
                if e.flags.pending() {
                    c.wait = Some((t, None));
                }
            }
            TraceKind::Preempt => {
                self.ensure_segment(id, e.pid);
                let by = match prev {
                    Some(p) if p.kind == TraceKind::Begin => self.label(p.client_id, p.pid),
                    _ => "?".into(),
                };
                let c = self.clients.get_mut(&id).expect("ensured");
                if let Some(seg) = &mut c.segment {
                    let n = seg.args["preemptions"].as_u64().unwrap_or(0) + 1;
                    seg.args.insert("preemptions".into(), json!(n));
                }
                if c.wait.is_none() {
                    c.wait = Some((t, None));
                }
                let pid = c.pid;
                self.instant(
                    pid,
                    STATE_TID,
                    t,
                    "preempted",
                    json!({"seq": e.seq, "by": by}),
                );
            }
            TraceKind::Resume => {
                self.ensure_segment(id, e.pid);
                let origin = self.origin;
                let c = self.clients.get_mut(&id).expect("ensured");
                let pid = c.pid;
                if c.wait.is_none() {
                    c.wait = Some((origin, Some(NOTE_START_MISSING)));
                }
                self.end_wait(id, t, None);
                self.instant(pid, STATE_TID, t, "resumed", json!({"seq": e.seq}));
            }
            TraceKind::End => {
                self.ensure_segment(id, e.pid);
                self.end_wait(id, t, None);
                self.end_segment(id, t, "end", Some(e));
            }
            TraceKind::Close => {
                let pid = self.client(id, e.pid).pid;
                self.end_wait(id, t, None);
                if e.flags.ended() {
                    self.ensure_segment(id, e.pid);
                }
                self.end_segment(id, t, "close", Some(e));
                self.instant(
                    pid,
                    STATE_TID,
                    t,
                    "close",
                    json!({"seq": e.seq, "ended_segment": e.flags.ended()}),
                );
            }
            TraceKind::Recovery => {
                self.instant(GPU_PID, RUNLIST_TID, t, "recovery", json!({"seq": e.seq}));
            }
            TraceKind::TsgNew | TraceKind::TsgGone => {
                let what = if e.kind == TraceKind::TsgNew {
                    "new"
                } else {
                    "gone"
                };
                let name = format!("tsg {} {what}", e.tsgid().unwrap_or(0));
                self.instant(
                    GPU_PID,
                    TSGS_TID,
                    t,
                    &name,
                    json!({"seq": e.seq, "pid": e.pid}),
                );
            }
            TraceKind::TsgAlways => {
                let r = e.always_reasons().unwrap_or_default();
                let name = format!(
                    "tsg {} always {}",
                    e.tsgid().unwrap_or(0),
                    crate::status::reasons_text(r)
                );
                self.instant(
                    GPU_PID,
                    TSGS_TID,
                    t,
                    &name,
                    json!({"seq": e.seq, "pid": e.pid, "driver": r.driver, "admin": r.admin}),
                );
            }
            TraceKind::Boost | TraceKind::Unboost => {
                let pid = self.client(id, e.pid).pid;
                let name = if e.kind == TraceKind::Boost {
                    format!("boost tid {} -> FIFO {}", e.tid, e.cpu_priority)
                } else if e.cpu_priority >= 0 {
                    format!("unboost tid {} -> {}", e.tid, e.cpu_priority)
                } else {
                    format!("unboost tid {} (left as set)", e.tid)
                };
                self.instant(
                    pid,
                    STATE_TID,
                    t,
                    &name,
                    json!({"seq": e.seq, "tid": e.tid, "priority": e.cpu_priority}),
                );
            }
            TraceKind::Unknown(_) => {
                let name = e.kind.name();
                self.instant(GPU_PID, TSGS_TID, t, &name, json!({"seq": e.seq}));
            }
        }
        if e.flags.submit() {
            let by = self.label(id, e.pid);
            self.instant(
                GPU_PID,
                RUNLIST_TID,
                t,
                "runlist",
                json!({"seq": e.seq, "by": by, "cause": e.kind.name(),
                       "generation": e.generation, "delay_ns": e.delay_ns,
                       "failed": e.flags.submit_failed()}),
            );
        }
        self.set_running(e, t);
    }

    /// Follows the decision: a `runlist` span per running client.
    fn set_running(&mut self, e: &TraceEvent, t: u64) {
        let now = e.running_client_id;
        if self.running.map(|r| r.0) == Some(now) || (now == 0 && self.running.is_none()) {
            return;
        }
        self.end_running(t, None);
        if now != 0 {
            self.client(now, e.running_pid);
            self.running = Some((now, t));
        }
    }

    fn end_running(&mut self, t: u64, note: Option<&str>) {
        if let Some((id, start)) = self.running.take() {
            let label = self.clients[&id].label.clone();
            let mut args = json!({"client_id": id});
            if let Some(n) = note {
                args["note"] = json!(n);
            }
            self.span(GPU_PID, RUNLIST_TID, start, t, &label, args);
        }
    }

    /// Ends everything still open at `end` (the last event's time), saying so.
    fn finish(&mut self, end: u64) {
        self.end_running(end, Some(NOTE_OPEN_AT_END));
        for id in self.order.clone() {
            self.end_wait(id, end, Some(NOTE_OPEN_AT_END));
            self.end_segment(id, end, "open at the end of the dump", None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use libgcaps::TraceFlags;

    const PENDING: u32 = 1;
    const ENDED: u32 = 2;
    const SUBMIT: u32 = 4;
    const FAILED: u32 = 8;

    /// A trace being written: each event gets the next seq; `running` is the decision after it.
    struct Script {
        events: Vec<TraceEvent>,
        generation: u64,
    }

    impl Script {
        fn new() -> Self {
            Self {
                events: Vec::new(),
                generation: 1,
            }
        }

        /// Client ids are 1, 2, 3...; their pid is 100 + id.
        fn ev(&mut self, t_us: u64, kind: TraceKind, client: u64, flags: u32, running: u64) {
            if flags & SUBMIT != 0 {
                self.generation += 1;
            }
            let seq = self.events.last().map_or(1, |e| e.seq + 1);
            self.events.push(TraceEvent {
                seq,
                // an origin that is not a round number, and exact nanoseconds
                time_ns: 5_000_000_123 + t_us * 1000,
                kind,
                flags: TraceFlags(flags),
                client_id: client,
                pid: if client == 0 { 0 } else { 100 + client as u32 },
                running_client_id: running,
                running_pid: if running == 0 {
                    0
                } else {
                    100 + running as u32
                },
                generation: self.generation,
                delay_ns: if matches!(kind, TraceKind::Begin | TraceKind::End) {
                    20_000 + client
                } else {
                    0
                },
                cpu_priority: 10 * client as i32,
                requested_priority: 0,
                effective_priority: 10 * client as i32,
                comm: String::new(),
                tid: 0,
                tsg: 0,
            });
        }
    }

    fn names(id: u64, _pid: u32) -> Option<String> {
        (id != 3).then(|| format!("app{id}"))
    }

    /// Converts, prints and parses back (the file is what a user opens).
    fn parse(events: &[TraceEvent], drops: &[Drop]) -> Value {
        let text = serde_json::to_string(&convert(events, drops, &names)).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn all(doc: &Value) -> &Vec<Value> {
        doc["traceEvents"].as_array().unwrap()
    }

    /// The trace pid of the process named `label`.
    fn pid_of(doc: &Value, label: &str) -> u64 {
        all(doc)
            .iter()
            .find(|e| e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == label)
            .unwrap_or_else(|| panic!("no process {label}"))["pid"]
            .as_u64()
            .unwrap()
    }

    /// `X` events of (pid, tid) named `name` as (ts, dur) in µs.
    fn spans(doc: &Value, pid: u64, tid: u64, name: &str) -> Vec<(f64, f64)> {
        all(doc)
            .iter()
            .filter(|e| e["ph"] == "X" && e["pid"] == pid && e["tid"] == tid && e["name"] == name)
            .map(|e| (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap()))
            .collect()
    }

    fn span_args(doc: &Value, pid: u64, tid: u64, name: &str) -> Vec<Value> {
        all(doc)
            .iter()
            .filter(|e| e["ph"] == "X" && e["pid"] == pid && e["tid"] == tid && e["name"] == name)
            .map(|e| e["args"].clone())
            .collect()
    }

    fn instants(doc: &Value, pid: u64, name: &str) -> Vec<Value> {
        all(doc)
            .iter()
            .filter(|e| e["ph"] == "i" && e["pid"] == pid && e["name"] == name)
            .cloned()
            .collect()
    }

    const A: &str = "app1 (pid 101, client 1)";
    const B: &str = "app2 (pid 102, client 2)";
    const C: &str = "pid 103 (client 3)";

    /// BEGIN low, BEGIN high, PREEMPT low, END high, RESUME low, END low.
    fn preemption() -> Vec<TraceEvent> {
        let mut s = Script::new();
        s.ev(0, TraceKind::Open, 1, 0, 0);
        s.ev(1, TraceKind::Open, 2, 0, 0);
        s.ev(10, TraceKind::Begin, 1, SUBMIT, 1);
        s.ev(30, TraceKind::Begin, 2, SUBMIT, 2);
        s.ev(30, TraceKind::Preempt, 1, 0, 2);
        s.ev(45, TraceKind::End, 2, SUBMIT, 1);
        s.ev(45, TraceKind::Resume, 1, 0, 1);
        s.ev(100, TraceKind::End, 1, SUBMIT, 0);
        s.events
    }

    #[test]
    fn preempted_segment_waits_and_resumes() {
        let doc = parse(&preemption(), &[]);
        assert_eq!(doc["displayTimeUnit"], "ns");
        assert_eq!(doc["otherData"]["origin_ns"], 5_000_000_123u64);
        let (a, b) = (pid_of(&doc, A), pid_of(&doc, B));
        assert_eq!(
            (a, b),
            (1, 2),
            "one process per client, in order of appearance"
        );
        assert_eq!(spans(&doc, a, SEGMENT_TID, "segment"), [(10.0, 90.0)]);
        assert_eq!(spans(&doc, b, SEGMENT_TID, "segment"), [(30.0, 15.0)]);
        assert_eq!(spans(&doc, a, STATE_TID, "gpu wait"), [(30.0, 15.0)]);
        assert!(spans(&doc, b, STATE_TID, "gpu wait").is_empty());
        let sa = &span_args(&doc, a, SEGMENT_TID, "segment")[0];
        assert_eq!(sa["preemptions"], 1);
        assert_eq!(sa["end"], "end");
        assert_eq!(sa["begin_delay_ns"], 20_001);
        assert_eq!(sa["gpu_priority"], 10);
        let p = instants(&doc, a, "preempted");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0]["args"]["by"], B);
        assert_eq!(p[0]["ts"], 30.0);
        assert_eq!(instants(&doc, a, "resumed").len(), 1);
        // the runlist track: who runs, and one instant per submit
        assert_eq!(
            spans(&doc, GPU_PID, RUNLIST_TID, A),
            [(10.0, 20.0), (45.0, 55.0)]
        );
        assert_eq!(spans(&doc, GPU_PID, RUNLIST_TID, B), [(30.0, 15.0)]);
        let r = instants(&doc, GPU_PID, "runlist");
        let by: Vec<&str> = r
            .iter()
            .map(|i| i["args"]["by"].as_str().unwrap())
            .collect();
        assert_eq!(by, [A, B, B, A]);
        let gens: Vec<u64> = r
            .iter()
            .map(|i| i["args"]["generation"].as_u64().unwrap())
            .collect();
        assert_eq!(gens, [2, 3, 4, 5]);
        assert_eq!(r[1]["args"]["cause"], "begin");
        assert_eq!(r[1]["args"]["delay_ns"], 20_002);
        assert_eq!(r[1]["args"]["failed"], false);
    }

    #[test]
    fn timestamps_are_exact_microseconds_with_three_decimals() {
        let mut s = Script::new();
        s.ev(0, TraceKind::Open, 1, 0, 0);
        s.ev(0, TraceKind::Begin, 1, 0, 1);
        s.events[1].time_ns += 1_234_567; // 1234.567 µs after the first
        s.ev(0, TraceKind::End, 1, 0, 0);
        s.events[2].time_ns = s.events[1].time_ns + 999_001;
        let text = serde_json::to_string(&convert(&s.events, &[], &names)).unwrap();
        assert!(text.contains(r#""ts":1234.567"#), "{text}");
        assert!(text.contains(r#""dur":999.001"#), "{text}");
    }

    #[test]
    fn nested_preemptions_unwind_in_order() {
        let mut s = Script::new();
        s.ev(0, TraceKind::Begin, 1, SUBMIT, 1);
        s.ev(10, TraceKind::Begin, 2, SUBMIT, 2);
        s.ev(10, TraceKind::Preempt, 1, 0, 2);
        s.ev(20, TraceKind::Begin, 3, SUBMIT, 3);
        s.ev(20, TraceKind::Preempt, 2, 0, 3);
        s.ev(30, TraceKind::End, 3, SUBMIT, 2);
        s.ev(30, TraceKind::Resume, 2, 0, 2);
        s.ev(40, TraceKind::End, 2, SUBMIT, 1);
        s.ev(40, TraceKind::Resume, 1, 0, 1);
        s.ev(50, TraceKind::End, 1, SUBMIT | FAILED, 0);
        let doc = parse(&s.events, &[]);
        let (a, b, c) = (pid_of(&doc, A), pid_of(&doc, B), pid_of(&doc, C));
        assert_eq!(spans(&doc, a, STATE_TID, "gpu wait"), [(10.0, 30.0)]);
        assert_eq!(spans(&doc, b, STATE_TID, "gpu wait"), [(20.0, 10.0)]);
        assert_eq!(spans(&doc, c, SEGMENT_TID, "segment"), [(20.0, 10.0)]);
        assert_eq!(instants(&doc, b, "preempted")[0]["args"]["by"], C);
        let runs: Vec<(String, f64)> = all(&doc)
            .iter()
            .filter(|e| e["ph"] == "X" && e["pid"] == GPU_PID)
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["ts"].as_f64().unwrap(),
                )
            })
            .collect();
        let order: Vec<&str> = runs.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(order, [A, B, C, B, A]);
        let last = instants(&doc, GPU_PID, "runlist").pop().unwrap();
        assert_eq!(last["args"]["failed"], true);
    }

    #[test]
    fn pending_at_begin_and_closed_while_pending() {
        let mut s = Script::new();
        s.ev(0, TraceKind::Begin, 1, SUBMIT, 1);
        s.ev(5, TraceKind::Begin, 2, PENDING, 1);
        s.ev(25, TraceKind::Close, 2, ENDED, 1);
        s.ev(30, TraceKind::End, 1, SUBMIT, 0);
        let doc = parse(&s.events, &[]);
        let b = pid_of(&doc, B);
        assert_eq!(spans(&doc, b, STATE_TID, "gpu wait"), [(5.0, 20.0)]);
        assert_eq!(spans(&doc, b, SEGMENT_TID, "segment"), [(5.0, 20.0)]);
        let args = &span_args(&doc, b, SEGMENT_TID, "segment")[0];
        assert_eq!(args["end"], "close");
        assert_eq!(args["pending_at_begin"], true);
        let close = instants(&doc, b, "close");
        assert_eq!(close[0]["args"]["ended_segment"], true);
        // b never ran: the runlist track only ever shows a
        assert!(spans(&doc, GPU_PID, RUNLIST_TID, B).is_empty());
        assert_eq!(spans(&doc, GPU_PID, RUNLIST_TID, A), [(0.0, 30.0)]);
        assert_eq!(
            instants(&doc, GPU_PID, "runlist").len(),
            2,
            "the pending begin did not submit"
        );
    }

    #[test]
    fn dropped_events_and_spans_cut_by_the_dump() {
        // The BEGIN of client 1 and 9 events before seq 10 were lost; client 2's segment is
        // still open (and pending) at the end.
        let mut s = Script::new();
        s.ev(0, TraceKind::Recovery, 0, 0, 1);
        for e in &mut s.events {
            e.seq = 10;
        }
        s.ev(20, TraceKind::Begin, 2, PENDING, 1);
        s.ev(40, TraceKind::End, 1, SUBMIT, 2);
        s.ev(40, TraceKind::Resume, 2, 0, 2);
        s.ev(50, TraceKind::Preempt, 2, 0, 2);
        s.ev(70, TraceKind::TsgNew, 0, 0, 2);
        s.events[5].tsg = 7;
        s.events[5].pid = 555;
        let drops = [Drop {
            before_seq: 10,
            count: 9,
        }];
        let doc = parse(&s.events, &drops);
        assert_eq!(doc["otherData"]["dropped"], 9);
        let d = instants(&doc, GPU_PID, "dropped 9 events");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0]["args"]["before_seq"], 10);
        assert_eq!(instants(&doc, GPU_PID, "recovery").len(), 1);
        assert_eq!(instants(&doc, GPU_PID, "tsg 7 new")[0]["args"]["pid"], 555);
        let (a, b) = (pid_of(&doc, A), pid_of(&doc, B));
        // a's BEGIN is missing: its segment starts at the first event
        assert_eq!(spans(&doc, a, SEGMENT_TID, "segment"), [(0.0, 40.0)]);
        let args = &span_args(&doc, a, SEGMENT_TID, "segment")[0];
        assert_eq!(args["note"], NOTE_START_MISSING);
        // b: pending 20..40, then preempted at 50 and still waiting at the end (70)
        assert_eq!(
            spans(&doc, b, STATE_TID, "gpu wait"),
            [(20.0, 20.0), (50.0, 20.0)]
        );
        assert_eq!(spans(&doc, b, SEGMENT_TID, "segment"), [(20.0, 50.0)]);
        let args = &span_args(&doc, b, SEGMENT_TID, "segment")[0];
        assert_eq!(args["note"], NOTE_OPEN_AT_END);
        assert_eq!(args["end"], "open at the end of the dump");
        let waits = span_args(&doc, b, STATE_TID, "gpu wait");
        assert_eq!(waits[1]["note"], NOTE_OPEN_AT_END);
        let run_b = span_args(&doc, GPU_PID, RUNLIST_TID, B);
        assert_eq!(run_b[0]["note"], NOTE_OPEN_AT_END);
        // preempted with no BEGIN just before it: the cause is unknown
        assert_eq!(instants(&doc, b, "preempted")[0]["args"]["by"], "?");
    }

    #[test]
    fn empty_dump_is_a_valid_trace() {
        let doc = parse(&[], &[]);
        assert_eq!(doc["otherData"]["first_seq"], 0);
        assert!(all(&doc).iter().all(|e| e["ph"] == "M"));
    }
}
