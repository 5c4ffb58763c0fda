//! `gcapsctl trace`: dumps the module's trace ring (`--format text|json`), follows it
//! (`--follow`: new events as they come, lost ones reported in-band), or writes it as a
//! Perfetto / Chrome trace JSON (`--perfetto FILE`, see [`crate::perfetto`]).
use crate::device::DeviceArg;
use crate::output::{human_ns, write_file, write_stdout};
use crate::perfetto::{self, Drop};
use libgcaps::{Gcaps, TraceBuf, TraceEvent};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Output format of the dump (json: one document; with --follow: one object per line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Keep reading: print new events as they come (until interrupted).
    #[arg(long, conflicts_with = "perfetto")]
    follow: bool,
    /// Write the events held now as a Perfetto / Chrome trace JSON to this file (instead of
    /// printing them).
    #[arg(long, value_name = "FILE")]
    perfetto: Option<PathBuf>,
    /// Poll interval of --follow, in milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    interval: u64,
    #[command(flatten)]
    device: DeviceArg,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Events read per ioctl.
const BATCH: usize = 256;

pub fn run(args: Args) -> Result<(), String> {
    let gcaps = args.device.open()?;
    let mut names = Names::new(&gcaps);
    let mut buf = TraceBuf::with_capacity(BATCH);
    let dump = read_all(&gcaps, 0, &mut buf)?;
    if dump.ring_size == 0 {
        return Err(
            "the gcaps trace is disabled: gcaps.ko was loaded with trace_size=0 \
                    (reload it with trace_size=N)"
                .into(),
        );
    }
    // Name the clients once, while as many as possible are still alive.
    for e in &dump.events {
        names.learn(e);
    }
    if let Some(path) = &args.perfetto {
        let doc = perfetto::convert(&dump.events, &dump.drops, &|id, pid| names.get(id, pid));
        let mut text = serde_json::to_string(&doc).expect("plain data serialises");
        text.push('\n');
        return write_file(path, &text);
    }
    if !args.follow {
        return write_stdout(&match args.format {
            Format::Text => text_dump(&dump, &names),
            Format::Json => json_dump(&dump, &names),
        });
    }
    if args.format == Format::Text {
        write_stdout(&format!("{}\n", text_header()))?;
    }
    let mut next = dump.next_seq;
    let mut first = Some(dump);
    loop {
        let d = match first.take() {
            Some(d) => d,
            None => {
                std::thread::sleep(Duration::from_millis(args.interval));
                read_all(&gcaps, next, &mut buf)?
            }
        };
        next = d.next_seq;
        for e in &d.events {
            names.learn(e);
        }
        let mut out = String::new();
        for line in stream_lines(&d, &names, args.format) {
            out.push_str(&line);
            out.push('\n');
        }
        write_stdout(&out)?;
    }
}

/// What one or more reads returned, in seq order.
#[derive(Debug, Default, PartialEq)]
pub struct Dump {
    pub events: Vec<TraceEvent>,
    pub drops: Vec<Drop>,
    pub next_seq: u64,
    pub ring_size: u32,
    pub overwritten: u64,
}

/// Reads from `from_seq` until the reader has caught up with the ring.
fn read_all(gcaps: &Gcaps, from_seq: u64, buf: &mut TraceBuf) -> Result<Dump, String> {
    let mut dump = Dump {
        next_seq: from_seq,
        ..Default::default()
    };
    loop {
        let b = gcaps
            .read_trace(dump.next_seq, buf)
            .map_err(|e| e.to_string())?;
        if b.dropped > 0 {
            let before_seq = b.events.first().map_or(b.next_seq, |e| e.seq);
            dump.drops.push(Drop {
                before_seq,
                count: b.dropped,
            });
        }
        let n = b.events.len();
        dump.events.extend(b.events);
        dump.next_seq = b.next_seq;
        dump.ring_size = b.ring_size;
        dump.overwritten = b.overwritten;
        if n < buf.capacity() {
            return Ok(dump);
        }
    }
}

/// Command names of clients: from the module's client list (live clients) and
/// `/proc/PID/comm` (live processes), remembered once seen.
pub struct Names {
    by_client: HashMap<u64, String>,
}

impl Names {
    fn new(gcaps: &Gcaps) -> Self {
        let mut by_client = HashMap::new();
        if let Ok(list) = gcaps.list() {
            for c in list.clients {
                by_client.insert(c.client_id, c.comm);
            }
        }
        Self { by_client }
    }

    /// Remembers the names of the clients `e` mentions: its own command name (carried by the
    /// event), else, if they can still be found, from `/proc`.
    fn learn(&mut self, e: &TraceEvent) {
        if e.client_id != 0 && !e.comm.is_empty() {
            self.by_client
                .entry(e.client_id)
                .or_insert_with(|| e.comm.clone());
        }
        for (id, pid) in [(e.client_id, e.pid), (e.running_client_id, e.running_pid)] {
            if id != 0 && pid != 0 && !self.by_client.contains_key(&id) {
                if let Ok(c) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
                    self.by_client.insert(id, c.trim_end().to_string());
                }
            }
        }
    }

    fn get(&self, client_id: u64, _pid: u32) -> Option<String> {
        self.by_client.get(&client_id).cloned()
    }

    #[cfg(test)]
    pub fn of(pairs: &[(u64, &str)]) -> Self {
        Self {
            by_client: pairs.iter().map(|&(i, c)| (i, c.to_string())).collect(),
        }
    }
}

/// The header of the text format (the widths of [`text_line`]).
fn text_header() -> String {
    format!(
        "{:>8} {:>20}  {:<9} {:>6} {:>8}  {:<16} {:>3} {:>4} {:>4} {:>7} {:>10}  {:>7}  {}",
        "SEQ",
        "TIME_S",
        "KIND",
        "CLIENT",
        "PID",
        "COMMAND",
        "CPU",
        "REQ",
        "GPU",
        "GEN",
        "DELAY",
        "RUNNING",
        "FLAGS"
    )
}

/// One line of the text format.
fn text_line(e: &TraceEvent, names: &Names) -> String {
    let comm = names
        .get(e.client_id, e.pid)
        .map_or_else(|| "-".to_string(), |c| c.escape_debug().to_string());
    let dash = |v: u64| {
        if v == 0 {
            "-".to_string()
        } else {
            v.to_string()
        }
    };
    let delay = if e.delay_ns > 0 {
        human_ns(e.delay_ns as f64)
    } else {
        "-".into()
    };
    let mut flags = e.flags.names();
    if let Some(t) = e.tsgid() {
        flags.push(format!("tsg={t}"));
    }
    if let Some(r) = e.always_reasons() {
        flags.push(format!("always={}", crate::status::reasons_text(r)));
    }
    if e.tid != 0 {
        flags.push(format!("tid={}", e.tid));
    }
    let flags = if flags.is_empty() {
        "-".into()
    } else {
        flags.join(",")
    };
    let line = format!(
        "{:>8} {:>20}  {:<9} {:>6} {:>8}  {:<16} {:>3} {:>4} {:>4} {:>7} {:>10}  {:>7}  {}",
        e.seq,
        format!(
            "{}.{:09}",
            e.time_ns / 1_000_000_000,
            e.time_ns % 1_000_000_000
        ),
        e.kind.name(),
        dash(e.client_id),
        dash(u64::from(e.pid)),
        comm,
        // TSG events carry the tsgid in this field (shown under FLAGS)
        if e.tsgid().is_some() {
            "-".to_string()
        } else {
            e.cpu_priority.to_string()
        },
        e.requested_priority,
        e.effective_priority,
        e.generation,
        delay,
        dash(e.running_client_id),
        flags
    );
    line.trim_end().to_string()
}

fn drop_line(d: &Drop) -> String {
    format!(
        "# dropped {} events before seq {} (overwritten before they were read)",
        d.count, d.before_seq
    )
}

/// The text dump: header, events, lost events in-band, a summary line.
fn text_dump(d: &Dump, names: &Names) -> String {
    let mut s = String::new();
    s.push_str(&text_header());
    s.push('\n');
    for line in stream_lines(d, names, Format::Text) {
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(&format!(
        "# {} events, ring size {}, overwritten since load {}, next seq {}\n",
        d.events.len(),
        d.ring_size,
        d.overwritten,
        d.next_seq
    ));
    s
}

fn event_json(e: &TraceEvent, names: &Names) -> Value {
    let mut v = json!({
        "seq": e.seq,
        "time_ns": e.time_ns,
        "kind": e.kind.name(),
        "flags": e.flags.names(),
        "client_id": e.client_id,
        "pid": e.pid,
        "comm": names.get(e.client_id, e.pid),
        "running_client_id": e.running_client_id,
        "running_pid": e.running_pid,
        "generation": e.generation,
        "delay_ns": e.delay_ns,
        "cpu_priority": e.cpu_priority,
        "requested_priority": e.requested_priority,
        "effective_priority": e.effective_priority,
    });
    if let Some(t) = e.tsgid() {
        v["tsgid"] = json!(t);
    }
    if let Some(r) = e.always_reasons() {
        v["always"] = json!({"driver": r.driver, "admin": r.admin});
    }
    if e.tid != 0 {
        v["tid"] = json!(e.tid);
    }
    v
}

fn drop_json(d: &Drop) -> Value {
    json!({"dropped": d.count, "before_seq": d.before_seq})
}

/// The JSON dump: one document.
fn json_dump(d: &Dump, names: &Names) -> String {
    let doc = json!({
        "ring_size": d.ring_size,
        "overwritten": d.overwritten,
        "next_seq": d.next_seq,
        "dropped": d.drops.iter().map(|x| x.count).sum::<u64>(),
        "drops": d.drops.iter().map(drop_json).collect::<Vec<_>>(),
        "events": d.events.iter().map(|e| event_json(e, names)).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("plain data serialises");
    s.push('\n');
    s
}

/// The events of `d` as lines (text, or one JSON object each), with a line for each loss
/// just before the first event after it.
fn stream_lines(d: &Dump, names: &Names, format: Format) -> Vec<String> {
    let mut lines = Vec::new();
    let mut drops = d.drops.iter().peekable();
    let drop_out = |x: &Drop, lines: &mut Vec<String>| {
        lines.push(match format {
            Format::Text => drop_line(x),
            Format::Json => drop_json(x).to_string(),
        })
    };
    for e in &d.events {
        while let Some(x) = drops.next_if(|x| x.before_seq <= e.seq) {
            drop_out(x, &mut lines);
        }
        lines.push(match format {
            Format::Text => text_line(e, names),
            Format::Json => event_json(e, names).to_string(),
        });
    }
    for x in drops {
        drop_out(x, &mut lines);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use libgcaps::{TraceFlags, TraceKind};

    fn ev(seq: u64, kind: TraceKind, client: u64, flags: u32) -> TraceEvent {
        TraceEvent {
            seq,
            time_ns: 12_000_000_000 + seq * 1_500,
            kind,
            flags: TraceFlags(flags),
            client_id: client,
            pid: if client == 0 { 0 } else { 100 + client as u32 },
            running_client_id: 1,
            running_pid: 101,
            generation: 7,
            delay_ns: if kind == TraceKind::Begin { 45_200 } else { 0 },
            cpu_priority: 10,
            requested_priority: 0,
            effective_priority: 10,
            comm: String::new(),
            tid: 0,
            tsg: 0,
        }
    }

    #[test]
    fn names_come_from_the_events_command_name_first() {
        let mut names = Names::of(&[]);
        let mut e = ev(1, TraceKind::Open, 4, 0);
        e.comm = "camera".into();
        e.pid = 0; // no /proc fallback
        names.learn(&e);
        assert_eq!(names.get(4, 0).as_deref(), Some("camera"));
        let mut later = ev(2, TraceKind::Begin, 4, 0);
        later.comm = "renamed".into();
        names.learn(&later);
        assert_eq!(
            names.get(4, 0).as_deref(),
            Some("camera"),
            "the first name is kept"
        );
    }

    fn dump() -> Dump {
        let mut tsg = ev(12, TraceKind::TsgNew, 0, 0);
        tsg.tsg = 4;
        Dump {
            events: vec![
                ev(3, TraceKind::Begin, 1, 4 | 1),
                ev(11, TraceKind::End, 2, 0),
                tsg,
            ],
            drops: vec![Drop {
                before_seq: 11,
                count: 7,
            }],
            next_seq: 13,
            ring_size: 64,
            overwritten: 10,
        }
    }

    #[test]
    fn text_dump_reports_losses_in_band() {
        let names = Names::of(&[(1, "gpu\tclient")]);
        let t = text_dump(&dump(), &names);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 6, "{t}");
        assert!(lines[0].starts_with("     SEQ               TIME_S  KIND"));
        // the header's columns line up with the events'
        let col = |l: &str, w: &str| {
            let end = l.find(w).unwrap() + w.len();
            l[..end].chars().count()
        };
        assert_eq!(col(lines[0], "TIME_S"), col(lines[1], "12.000004500"));
        assert_eq!(col(lines[0], "COMMAND") - 7, lines[1].find("gpu").unwrap());
        assert_eq!(col(lines[0], "DELAY"), col(lines[1], "µs"));
        let want = "       3         12.000004500  begin          1      101  gpu\\tclient       \
                    10    0   10       7    45.2 µs        1  pending,submit";
        assert_eq!(lines[1], want);
        assert_eq!(
            lines[2],
            "# dropped 7 events before seq 11 (overwritten before they were read)"
        );
        assert!(
            lines[3].contains("  end  ") && lines[3].contains(" 102  -  "),
            "{}",
            lines[3]
        );
        assert!(lines[4].ends_with("  tsg=4"), "{}", lines[4]);
        assert!(
            lines[4].contains("tsg_new        -        -  -                  -    0"),
            "{}",
            lines[4]
        );
        assert_eq!(
            lines[5],
            "# 3 events, ring size 64, overwritten since load 10, next seq 13"
        );
    }

    #[test]
    fn json_dump_and_stream() {
        let names = Names::of(&[(1, "app")]);
        let j: Value = serde_json::from_str(&json_dump(&dump(), &names)).unwrap();
        assert_eq!(j["ring_size"], 64);
        assert_eq!(j["dropped"], 7);
        assert_eq!(j["drops"][0], json!({"dropped": 7, "before_seq": 11}));
        let e = &j["events"][0];
        assert_eq!(e["kind"], "begin");
        assert_eq!(e["flags"], json!(["pending", "submit"]));
        assert_eq!(e["comm"], "app");
        assert_eq!(e["delay_ns"], 45_200);
        assert_eq!(j["events"][1]["comm"], Value::Null);
        assert_eq!(j["events"][2]["tsgid"], 4);
        // --follow --format json: one object per line, the loss in its place
        let lines = stream_lines(&dump(), &names, Format::Json);
        let kinds: Vec<String> = lines
            .iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v.get("kind")
                    .map_or_else(|| format!("dropped {}", v["dropped"]), |k| k.to_string())
            })
            .collect();
        assert_eq!(kinds, ["\"begin\"", "dropped 7", "\"end\"", "\"tsg_new\""]);
        // a loss after the last event (the ring moved on) still shows
        let mut d = dump();
        d.drops.push(Drop {
            before_seq: 20,
            count: 2,
        });
        let lines = stream_lines(&d, &names, Format::Text);
        assert_eq!(
            lines.last().unwrap(),
            "# dropped 2 events before seq 20 (overwritten before they were read)"
        );
    }
}
