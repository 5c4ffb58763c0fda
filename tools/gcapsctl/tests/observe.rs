//! Checks what `gcapsctl stats` and `gcapsctl trace` wrote on the live system against the
//! scenario of VM test `tests/vm/tests/52-gcapsctl-observe.sh` (installed in the VM as
//! `/bin/gcapsctl-observe`; ignored elsewhere): a low-priority real-time segment (SCHED_FIFO 10)
//! is preempted by a high one (FIFO 50), which ends, then the low one resumes and ends.
//!
//! Environment: `OBSERVE_DIR` holds `stats.json` (after the scenario, statistics reset just
//! before it), `trace.json` (`gcapsctl trace --format json`), `perfetto.json`
//! (`--perfetto`) and `status.json` (`gcapsctl status --format json`, after the scenario); `OBSERVE_LOW` and `OBSERVE_HIGH` are the two processes' pids.
use serde_json::Value;
use std::path::PathBuf;

fn input(name: &str) -> Value {
    let dir = PathBuf::from(std::env::var("OBSERVE_DIR").expect("OBSERVE_DIR"));
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} does not parse: {e}"))
}

fn pid(var: &str) -> u64 {
    std::env::var(var)
        .unwrap_or_else(|_| panic!("{var}"))
        .parse()
        .expect("a pid")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

#[test]
#[ignore = "needs the files of VM test 52-gcapsctl-observe"]
fn stats_match_the_scenario() {
    let s = input("stats.json");
    println!("stats: {s}");
    assert_eq!(u(&s["begins"]), 2, "two segments begun");
    assert_eq!(u(&s["ends"]), 2);
    assert_eq!(u(&s["ends_by_close"]), 0);
    assert_eq!(u(&s["preemptions"]), 1);
    assert_eq!(u(&s["resumes"]), 1);
    assert!(
        u(&s["submits"]) >= 4,
        "each begin and end changed the eligible set"
    );
    assert!(u(&s["clients_max"]) >= 2 && u(&s["tsgs_max"]) >= 2);
    let d = &s["update_delay"];
    assert_eq!(u(&d["count"]), 4, "four real-time begin/end calls sampled");
    let buckets = d["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 32);
    let in_buckets: u64 = buckets.iter().map(|b| u(&b["count"])).sum();
    assert_eq!(in_buckets, 4, "every sample is in one bucket");
    let (min, max) = (u(&d["min_ns"]), u(&d["max_ns"]));
    let mean = d["mean_ns"].as_f64().unwrap();
    assert!(0 < min && min as f64 <= mean && mean <= max as f64, "{d}");
    assert_eq!(u(&d["sum_ns"]) as f64 / 4.0, mean);
    // min and max fall in the first and last non-empty buckets
    let used: Vec<&Value> = buckets.iter().filter(|b| u(&b["count"]) > 0).collect();
    let first = used.first().unwrap();
    let last = used.last().unwrap();
    assert!(u(&first["lo_ns"]) <= min && first["hi_ns"].as_u64().is_none_or(|h| min < h));
    assert!(u(&last["lo_ns"]) <= max && last["hi_ns"].as_u64().is_none_or(|h| max < h));
}

/// The scenario's events in the JSON dump: (kind, pid) of begin/end/preempt/resume.
#[test]
#[ignore = "needs the files of VM test 52-gcapsctl-observe"]
fn trace_holds_the_scenario_in_order() {
    let (low, high) = (pid("OBSERVE_LOW"), pid("OBSERVE_HIGH"));
    let t = input("trace.json");
    assert!(u(&t["ring_size"]) > 0);
    assert_eq!(u(&t["dropped"]), 0);
    let events = t["events"].as_array().unwrap();
    let seqs: Vec<u64> = events.iter().map(|e| u(&e["seq"])).collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "seq increases: {seqs:?}"
    );
    let times: Vec<u64> = events.iter().map(|e| u(&e["time_ns"])).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "time never goes back"
    );
    let mine: Vec<&Value> = events
        .iter()
        .filter(|e| [low, high].contains(&u(&e["pid"])))
        .filter(|e| ["begin", "end", "preempt", "resume"].contains(&e["kind"].as_str().unwrap()))
        .collect();
    let seen: Vec<(&str, u64)> = mine
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), u(&e["pid"])))
        .collect();
    assert_eq!(
        seen,
        [
            ("begin", low),
            ("begin", high),
            ("preempt", low),
            ("end", high),
            ("resume", low),
            ("end", low)
        ]
    );
    let (bl, bh, pl, eh, rl, el) = (mine[0], mine[1], mine[2], mine[3], mine[4], mine[5]);
    let (cl, ch) = (u(&bl["client_id"]), u(&bh["client_id"]));
    assert_ne!(cl, ch);
    // priorities: inherited from SCHED_FIFO 10 and 50
    assert_eq!(
        (
            bl["cpu_priority"].as_i64(),
            bl["effective_priority"].as_i64()
        ),
        (Some(10), Some(10))
    );
    assert_eq!(
        (
            bh["cpu_priority"].as_i64(),
            bh["effective_priority"].as_i64()
        ),
        (Some(50), Some(50))
    );
    assert_eq!(bl["requested_priority"].as_i64(), Some(0));
    // the decision after each event, and the runlist submits
    assert_eq!(u(&bl["running_client_id"]), cl);
    assert_eq!(u(&bh["running_client_id"]), ch);
    assert_eq!(u(&pl["running_client_id"]), ch);
    assert_eq!(u(&eh["running_client_id"]), cl);
    assert_eq!(u(&rl["running_client_id"]), cl);
    assert_eq!(
        u(&el["running_client_id"]),
        0,
        "nothing runs after the last end"
    );
    for e in [bl, bh, eh, el] {
        let flags: Vec<&str> = e["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        assert_eq!(flags, ["submit"], "{e}");
        assert!(u(&e["delay_ns"]) > 0, "a real-time update has a delay: {e}");
    }
    assert!(u(&bh["generation"]) > u(&bl["generation"]));
    assert!(u(&el["generation"]) > u(&eh["generation"]));
}

/// X events of the process `pid` (Perfetto pid) on `tid` named `name`, as (ts, end) in µs.
fn spans(events: &[Value], pid: u64, tid: u64, name: &str) -> Vec<(f64, f64)> {
    events
        .iter()
        .filter(|e| {
            e["ph"] == "X" && u(&e["pid"]) == pid && u(&e["tid"]) == tid && e["name"] == name
        })
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (ts, ts + e["dur"].as_f64().unwrap())
        })
        .collect()
}

#[test]
#[ignore = "needs the files of VM test 52-gcapsctl-observe"]
fn perfetto_file_holds_the_spans() {
    let (low, high) = (pid("OBSERVE_LOW"), pid("OBSERVE_HIGH"));
    let doc = input("perfetto.json");
    assert_eq!(doc["displayTimeUnit"], "ns");
    let events = doc["traceEvents"].as_array().unwrap();
    let process = |os_pid: u64| -> (u64, String) {
        let m: Vec<&Value> = events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
            .filter(|e| {
                e["args"]["name"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("pid {os_pid}"))
            })
            .collect();
        assert_eq!(m.len(), 1, "one process for pid {os_pid}");
        (
            u(&m[0]["pid"]),
            m[0]["args"]["name"].as_str().unwrap().to_string(),
        )
    };
    let ((pl, low_name), (ph, high_name)) = (process(low), process(high));
    let seg_l = spans(events, pl, 2, "segment");
    let seg_h = spans(events, ph, 2, "segment");
    assert_eq!((seg_l.len(), seg_h.len()), (1, 1), "one segment each");
    let ((l0, l1), (h0, h1)) = (seg_l[0], seg_h[0]);
    assert!(
        l0 < h0 && h1 < l1,
        "high's segment inside low's: {seg_l:?} {seg_h:?}"
    );
    // low waits from its PREEMPT (recorded just after high's BEGIN) to its RESUME (just after
    // high's END)
    let wait = spans(events, pl, 1, "gpu wait");
    assert_eq!(wait.len(), 1, "one gpu wait of low: {wait:?}");
    let (w0, w1) = wait[0];
    assert!(
        h0 <= w0 && w0 < h1 && h1 <= w1 && w1 < l1,
        "low waits while high's segment is open: wait {wait:?}, high {seg_h:?}, low {seg_l:?}"
    );
    assert!(
        spans(events, ph, 1, "gpu wait").is_empty(),
        "high never waits"
    );
    let preempted: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "i" && u(&e["pid"]) == pl && e["name"] == "preempted")
        .collect();
    assert_eq!(preempted.len(), 1);
    assert_eq!(preempted[0]["args"]["by"], high_name.as_str());
    // the runlist track: low runs, high runs, low runs again
    let running: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "X" && u(&e["pid"]) == 0 && u(&e["tid"]) == 2)
        .map(|e| e["name"].as_str().unwrap())
        .filter(|n| *n == low_name || *n == high_name)
        .collect();
    assert_eq!(running, [&low_name, &high_name, &low_name]);
    let submits = events
        .iter()
        .filter(|e| e["ph"] == "i" && e["name"] == "runlist")
        .filter(|e| {
            [low_name.as_str(), high_name.as_str()].contains(&e["args"]["by"].as_str().unwrap())
        })
        .count();
    assert_eq!(submits, 4, "one runlist submit per begin and end");
}

#[test]
#[ignore = "needs the files of VM test 52-gcapsctl-observe"]
fn status_names_the_bound_backend() {
    let s = input("status.json");
    println!("status: {s}");
    let m = &s["module"];
    assert_eq!(m["backend"], "simgpu");
    assert_eq!(m["backend_detail"], "emulated gv11b");
    assert_eq!(u(&m["backend_abi"]), 3, "backend contract ABI 3");
    assert_eq!(m["runlists"], serde_json::json!([0]));
    assert_eq!(
        m["backend_stock"], false,
        "simgpu filters its runlists (stock only with `simgpuctl stock on`, VM test 56)"
    );
    assert_eq!(s["rt_active"], false, "the scenario's segments ended");
    assert_eq!(
        s["always_eligible_tsgs"],
        serde_json::json!([]),
        "nothing is always eligible"
    );
}
