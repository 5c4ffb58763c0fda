//! CLI tests of `gcaps generate`.

use assert_cmd::Command;
use gcaps_analysis::{parse_taskset, validate, Format};

fn gcaps() -> Command {
    Command::cargo_bin("gcaps").unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = gcaps().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn same_seed_gives_byte_identical_output() {
    for fmt in ["toml", "json"] {
        let a = stdout_of(&["generate", "--seed", "7", "--format", fmt]);
        let b = stdout_of(&["generate", "--seed", "7", "--format", fmt]);
        assert_eq!(a, b);
        let c = stdout_of(&["generate", "--seed", "8", "--format", fmt]);
        assert_ne!(a, c);
    }
}

#[test]
fn output_parses_validates_and_analyzes() {
    let toml = stdout_of(&["generate", "--seed", "3"]);
    let ts = parse_taskset(&toml, "stdin", Format::Toml).unwrap();
    validate(&ts).unwrap();
    let json = stdout_of(&["generate", "--seed", "3", "--format", "json"]);
    let tj = parse_taskset(&json, "stdin", Format::Json).unwrap();
    assert_eq!(ts, tj, "TOML and JSON describe the same taskset");
    // `gcaps analyze` reads it: exit 0 (schedulable) or 1 (not), never 2.
    let out = gcaps()
        .args(["analyze", "-"])
        .write_stdin(toml)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "analyze exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn count_writes_files_and_taskset_k_is_independent_of_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    gcaps()
        .args(["generate", "--seed", "11", "--count", "5", "--out", d])
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "taskset-0000.toml",
            "taskset-0001.toml",
            "taskset-0002.toml",
            "taskset-0003.toml",
            "taskset-0004.toml"
        ]
    );
    let first = std::fs::read_to_string(dir.path().join("taskset-0000.toml")).unwrap();
    assert_eq!(first, stdout_of(&["generate", "--seed", "11"]));
    for n in &names {
        let text = std::fs::read_to_string(dir.path().join(n)).unwrap();
        validate(&parse_taskset(&text, n, Format::Toml).unwrap()).unwrap();
    }
}

#[test]
fn every_flag_is_honoured() {
    let json = stdout_of(&[
        "generate",
        "--seed",
        "5",
        "--format",
        "json",
        "--cpus",
        "3",
        "--tasks-per-cpu",
        "4",
        "--gpu-task-ratio",
        "0.5",
        "--util-per-cpu",
        "0.3..0.4",
        "--period-ms",
        "50..60",
        "--gpu-segments",
        "2",
        "--g-to-c-ratio",
        "1",
        "--gm-share",
        "0.2",
        "--epsilon-ms",
        "0.5",
        "--theta-ms",
        "0.1",
        "--timeslice-ms",
        "2",
        "--best-effort-ratio",
        "0.25",
    ]);
    let ts = parse_taskset(&json, "stdin", Format::Json).unwrap();
    assert_eq!(ts.platform.cpus, 3);
    assert_eq!(ts.platform.epsilon, 500_000);
    assert_eq!(ts.platform.theta, 100_000);
    assert_eq!(ts.platform.timeslice, 2_000_000);
    assert_eq!(ts.tasks.len(), 12);
    assert_eq!(ts.tasks.iter().filter(|t| t.uses_gpu()).count(), 6);
    assert_eq!(ts.tasks.iter().filter(|t| t.is_best_effort()).count(), 3);
    for t in &ts.tasks {
        assert!((50_000_000..=60_000_000).contains(&t.period));
        if t.uses_gpu() {
            assert_eq!(t.gpu_segment_count(), 2);
        }
    }
}

#[test]
fn bad_parameters_exit_2_with_a_clear_message() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--tasks-per-cpu", "6..3"],
            "tasks-per-cpu: min 6 is greater than max 3",
        ),
        (
            &["--gpu-task-ratio", "40..60"],
            "gpu-task-ratio: a ratio must lie in [0, 1]",
        ),
        (&["--best-effort-ratio", "-0.1"], "best-effort-ratio"),
        (&["--cpus", "0"], "cpus: need at least one CPU"),
        (&["--util-per-cpu", "0.6..0.4"], "util-per-cpu"),
        (&["--period-ms", "-5..10"], "period-ms"),
        (&["--gpu-segments", "0..2"], "gpu-segments"),
        (&["--cpus", "30"], "too many real-time tasks"),
        (&["--count", "2"], "--count greater than 1 needs --out"),
        (&["--tasks-per-cpu", "x..3"], "tasks-per-cpu"),
    ];
    for (args, msg) in cases {
        let out = gcaps().arg("generate").args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: expected {msg:?} in {err}");
        assert!(out.stdout.is_empty());
    }
}
