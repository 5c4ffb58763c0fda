//! CLI tests of `gcaps experiment`.

use assert_cmd::Command;
use std::path::Path;

fn run(dir: &Path, sweep: &str, n: &str, env_threads: Option<&str>) -> String {
    let mut cmd = Command::cargo_bin("gcaps").unwrap();
    cmd.args([
        "experiment",
        "--sweep",
        sweep,
        "-n",
        n,
        "--seed",
        "9",
        "--out",
    ])
    .arg(dir);
    if let Some(t) = env_threads {
        cmd.env("RAYON_NUM_THREADS", t);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Minimal XML well-formedness: balanced tags, proper nesting, one root.
fn check_xml(s: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = s;
    let mut roots = 0;
    while let Some(i) = rest.find('<') {
        assert!(!rest[..i].contains('>'), "stray '>'");
        let j = rest[i..].find('>').expect("unterminated tag") + i;
        let tag = &rest[i + 1..j];
        assert!(!tag.contains('<'), "'<' inside tag");
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            if stack.is_empty() {
                roots += 1;
            }
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        } else if stack.is_empty() {
            roots += 1;
        }
        rest = &rest[j + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1);
}

#[test]
fn tiny_run_writes_csv_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = run(dir.path(), "cpus", "20", None);
    assert!(
        stdout.contains("tasksets: 180, analyses: 2520, elapsed:"),
        "{stdout}"
    );
    assert!(stdout.contains("tasksets/s:"));

    let csv = std::fs::read_to_string(dir.path().join("cpus.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("sweep,x,series,schedulable,total,ratio"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 9 * 14);
    let series = [
        "tsg_rr_busy",
        "tsg_rr_suspend",
        "gcaps_busy_gpa",
        "gcaps_suspend_gpa",
        "mpcp_busy",
        "mpcp_suspend",
        "fmlp+_busy",
        "fmlp+_suspend",
        "gcaps_boost_busy_gpa",
        "gcaps_boost_suspend_gpa",
        "gcaps_gate_busy_gpa",
        "gcaps_gate_suspend_gpa",
        "gcaps_boost_gate_busy_gpa",
        "gcaps_boost_gate_suspend_gpa",
    ];
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), 6);
        assert_eq!(r[0], "cpus");
        assert_eq!(r[1], (2 + k / 14).to_string());
        assert_eq!(r[2], series[k % 14]);
        let s: u64 = r[3].parse().unwrap();
        assert_eq!(r[4], "20");
        assert!(s <= 20);
        let ratio: f64 = r[5].parse().unwrap();
        assert!((ratio - s as f64 / 20.0).abs() < 1e-4);
    }

    let svg = std::fs::read_to_string(dir.path().join("cpus.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    check_xml(&svg);
    for label in series {
        assert!(svg.contains(&format!(">{label}</text>")), "legend {label}");
    }
    assert!(svg.contains("schedulable tasksets (%)"));
    assert!(svg.contains("number of CPUs"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    run(one.path(), "g-to-c-ratio", "40", Some("1"));
    run(two.path(), "g-to-c-ratio", "40", Some("2"));
    let a = std::fs::read(one.path().join("g-to-c-ratio.csv")).unwrap();
    let b = std::fs::read(two.path().join("g-to-c-ratio.csv")).unwrap();
    assert_eq!(a, b);
    let sa = std::fs::read(one.path().join("g-to-c-ratio.svg")).unwrap();
    let sb = std::fs::read(two.path().join("g-to-c-ratio.svg")).unwrap();
    assert_eq!(sa, sb);
}

fn csv_counts(path: &Path, series: &str) -> Vec<(String, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[2] == series)
        .map(|r| (r[1].to_string(), r[3].parse().unwrap()))
        .collect()
}

#[test]
fn fig9_shares_tasksets_with_the_utilisation_sweep() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), "util-per-cpu", "30", None);
    run(dir.path(), "gpu-priority-gain", "30", None);
    let util = dir.path().join("util-per-cpu.csv");
    let gain = dir.path().join("gpu-priority-gain.csv");
    // Fig. 8 gcaps curves use GPU priority assignment.
    assert_eq!(
        csv_counts(&util, "gcaps_busy_gpa"),
        csv_counts(&gain, "gcaps_busy_gpa")
    );
    assert_eq!(
        csv_counts(&util, "gcaps_suspend_gpa"),
        csv_counts(&gain, "gcaps_suspend_gpa")
    );
    // The assignment is only tried when RM priorities fail: never worse.
    for (mode, gpa) in [
        ("gcaps_busy_no_gpa", "gcaps_busy_gpa"),
        ("gcaps_suspend_no_gpa", "gcaps_suspend_gpa"),
    ] {
        for ((x, a), (_, b)) in csv_counts(&gain, mode).iter().zip(csv_counts(&gain, gpa)) {
            assert!(b >= *a, "{gpa} < {mode} at x = {x}");
        }
    }
}

#[test]
fn unknown_sweep_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("gcaps")
        .unwrap()
        .args(["experiment", "--sweep", "nope", "-n", "1", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown sweep `nope`; expected one of"));
}

#[test]
fn unknown_sweep_name_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("gcaps")
        .unwrap()
        .args([
            "experiment",
            "--sweep",
            "x\n\u{1b}[31my",
            "-n",
            "1",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("unknown sweep `x\\n\\u{1b}[31my`"), "{err:?}");
}

/// `--epsilon-ms` / `--epsilon-fast-ms` / `--epsilon-cpu-ms` set the
/// overheads of every generated taskset; epsilon_fast or epsilon_cpu above
/// epsilon is refused in one line.
#[test]
fn overhead_flags_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let run = |flags: &[&str]| {
        Command::cargo_bin("gcaps")
            .unwrap()
            .args([
                "experiment",
                "--sweep",
                "cpus",
                "-n",
                "2",
                "-q",
                "--epsilon-ms",
                "0.5",
            ])
            .args(flags)
            .arg("--out")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    for (flag, why) in [
        ("--epsilon-fast-ms", "epsilon-fast-ms: must not exceed epsilon-ms (it bounds the updates that do not submit)"),
        ("--epsilon-cpu-ms", "epsilon-cpu-ms: must not exceed epsilon-ms (it is the part of an update spent on its caller's core)"),
    ] {
        let out = run(&[flag, "0.6"]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("gcaps experiment: error: {why}\n")
        );
    }
    let out = run(&["--epsilon-fast-ms", "0.05", "--epsilon-cpu-ms", "0.05"]);
    assert_eq!(out.status.code(), Some(0));
}
