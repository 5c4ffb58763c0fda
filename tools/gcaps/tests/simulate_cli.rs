//! `gcaps simulate`, `gcaps compare` and `gcaps soundness` end to end: exit codes, the JSON
//! shape, the SVG and trace files, bad-input messages.

use assert_cmd::Command;
use std::io::Write;

fn gcaps() -> Command {
    Command::cargo_bin("gcaps").unwrap()
}

const EXAMPLE2: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/example2.toml");

fn file(text: &str, ext: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(ext).tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn simulate_case_study_table_and_exit_0() {
    let out = gcaps().arg("simulate").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("policy gcaps, mode suspend, lock fifo; 1 run"));
    assert!(s.contains("task             cpu  prio    D  jobs"));
    assert!(s.contains("no deadline miss"));
}

#[test]
fn simulate_example2_json_shows_the_miss_and_exits_1() {
    let out = gcaps()
        .args(["simulate", EXAMPLE2, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "tau3 misses");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tasks = v["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 4);
    for t in tasks {
        for k in ["name", "jobs", "max", "mean", "p99", "misses"] {
            assert!(t.get(k).is_some(), "field {k}");
        }
    }
    assert_eq!(tasks[2]["name"], "tau3");
    assert_eq!(tasks[2]["max"], 194.0);
    assert_eq!(tasks[2]["misses"], 1);
}

#[test]
fn simulate_writes_svg_and_perfetto_trace() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("s.svg");
    let trace = dir.path().join("t.json");
    let out = gcaps()
        .args(["simulate", EXAMPLE2, "--window", "0:200"])
        .arg("--svg")
        .arg(&svg)
        .arg("--trace")
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    assert!(s.contains(">CPU 0<") && s.contains(">CPU 1<") && s.contains(">GPU<"));
    assert!(s.contains("tau3 finished at 194 ms, response 194 ms (deadline miss)"));
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let ev = t["traceEvents"].as_array().unwrap();
    let procs: Vec<&str> = ev
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(procs, ["GPU", "tau1", "tau2", "tau3", "tau4"]);
    // tau4 (pid 4) on the GPU 81-91 ms: a complete event on its "gpu" thread.
    assert!(ev.iter().any(|e| e["ph"] == "X"
        && e["pid"] == 4
        && e["tid"] == 3
        && e["ts"].as_f64() == Some(81000.0)
        && e["dur"].as_f64() == Some(10000.0)));
}

#[test]
fn simulate_release_flag_replays_a_scenario() {
    // Example 2 without its table: the same releases given by flags give the same miss.
    let text = std::fs::read_to_string(EXAMPLE2).unwrap();
    let bare = text.split("[simulation]").next().unwrap();
    let f = file(bare, ".toml");
    let out = gcaps()
        .arg("simulate")
        .arg(f.path())
        .args([
            "--release",
            "tau1=30,110",
            "--release",
            "tau2=26.5",
            "--release",
            "tau3=0",
            "--release",
            "tau4=10",
            "--duration",
            "200",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tasks"][2]["max"], 194.0);
}

fn error_of(args: &[&str], text: Option<&str>) -> String {
    let f = text.map(|t| file(t, ".toml"));
    let mut c = gcaps();
    c.arg("simulate");
    if let Some(f) = &f {
        c.arg(f.path());
    }
    let out = c.args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8(out.stderr).unwrap();
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e
}

#[test]
fn simulate_bad_input_is_one_line_exit_2() {
    let text = std::fs::read_to_string(EXAMPLE2).unwrap();
    let e = error_of(
        &[],
        Some(&text.replace("misc = \"before\"", "misc = \"middle\"")),
    );
    assert!(e.contains("simulation field 'misc': expected one of: before, after, even, random"));
    let e = error_of(
        &[],
        Some(&text.replace("tau4 = [10.0]", "\"tau\\n\\u001b[31m\" = [10.0]")),
    );
    assert!(e.contains("no task named 'tau\\n\\u{1b}[31m'"), "{e}");
    let e = error_of(&[], Some(&text.replace("tau2 = [26.5]", "tau2 = [-1.0]")));
    assert!(e.contains("simulation field 'releases.tau2': must be a finite number"));
    let e = error_of(
        &[],
        Some(&text.replace("horizon = 200.0", "horizon = 200.0\nspeed = 2")),
    );
    assert!(e.contains("simulation field 'speed': unknown field"));
    let e = error_of(&["--release", "nobody=1"], None);
    assert!(e.contains("no task named 'nobody'"));
    let e = error_of(&["--release", "histogram=x"], None);
    assert!(e.contains("'x' is not a number of ms"));
    let e = error_of(&["--window", "5:1"], None);
    assert!(e.contains("--window '5:1': expected FROM:TO"));
    let e = error_of(&["--duration=-3"], None);
    assert!(e.contains("--duration: expected a number of ms"));
}

#[test]
fn compare_case_study_lists_observed_and_bound_per_pair() {
    let out = gcaps().args(["compare", "--runs", "20"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("tsg-rr busy") && s.contains("gcaps suspend"));
    let hist = s.lines().find(|l| l.starts_with("histogram")).unwrap();
    // The bounds of `gcaps analyze` (tsg-rr and gcaps suspend) for histogram.
    assert!(hist.contains("/ 67.88") && hist.contains("/ 27"), "{hist}");
    let out = gcaps()
        .args(["compare", "--runs", "5", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tasks"][0]["results"]["gcaps_suspend"]["bound"], 27.0);
    assert!(v["tasks"][0]["results"]["gcaps_boost_busy"]["observed"].is_number());
}

/// gcaps-boost on Example 2 (the D4 replay): tau4's running segment keeps its core while
/// tau2 and tau1 are released, so the GPU no longer idles 46-81 ms and tau3 meets its
/// deadline; the trace shows the boost and unboost instants.
#[test]
fn simulate_gcaps_boost_traces_boost_and_unboost() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    let out = gcaps()
        .args([
            "simulate",
            EXAMPLE2,
            "--policy",
            "gcaps-boost",
            "--format",
            "json",
        ])
        .arg("--trace")
        .arg(&trace)
        .arg("--svg")
        .arg(dir.path().join("s.svg"))
        .output()
        .unwrap();
    let s = std::fs::read_to_string(dir.path().join("s.svg")).unwrap();
    assert!(s.contains("tau3 boosted by tau3's update at 4 ms"));
    assert!(s.contains("tau3 unboosted by tau4's update at 26 ms"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["policy"], "gcaps-boost");
    assert_eq!(v["tasks"][2]["misses"], 0);
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let ev = t["traceEvents"].as_array().unwrap();
    let count = |name: &str| ev.iter().filter(|e| e["name"] == name).count();
    assert!(count("boost") > 0);
    assert_eq!(count("boost"), count("unboost"));
    // Plain gcaps never boosts.
    let out = gcaps()
        .args(["simulate", EXAMPLE2])
        .arg("--trace")
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!std::fs::read_to_string(&trace)
        .unwrap()
        .contains("\"boost\""));
}

#[test]
fn soundness_small_run_reports_every_pair() {
    let out = gcaps()
        .args(["soundness", "--sets", "10", "--runs", "4", "--lock", "fifo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    for pair in [
        "tsg-rr busy",
        "tsg-rr suspend",
        "gcaps busy",
        "gcaps suspend",
        "gcaps-boost busy",
        "gcaps-boost suspend",
    ] {
        assert!(s.contains(pair), "{pair}");
    }
    assert!(s.contains("0 violations"));
}
