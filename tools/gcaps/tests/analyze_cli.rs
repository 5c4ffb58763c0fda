//! `gcaps analyze` end to end: exit codes, JSON shape, bad-input messages.

use assert_cmd::Command;
use std::io::Write;

fn gcaps() -> Command {
    Command::cargo_bin("gcaps").unwrap()
}

const GOOD: &str = r#"
[platform]
cpus = 2
epsilon = 1.0
theta = 0.2
timeslice = 1.024

[[task]]
name = "histogram"
period = 100.0
deadline = 100.0
cpu = 0
priority = 70
segments = [ {cpu = 0.5}, {gpu = {misc = 1.0, exec = 9.0}}, {cpu = 0.5} ]

[[task]]
name = "other"
period = 50.0
cpu = 1
segments = [ {cpu = 1.0} ]
"#;

fn file(text: &str, ext: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(ext).tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

fn stderr_of(text: &str) -> (String, String) {
    let f = file(text, ".toml");
    let out = gcaps().arg("analyze").arg(f.path()).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let name = f.path().display().to_string();
    (String::from_utf8(out.stderr).unwrap(), name)
}

#[test]
fn embedded_case_study_is_schedulable_under_gcaps() {
    let out = gcaps().arg("analyze").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("histogram") && s.contains("best-effort") && s.contains("schedulable"));
}

#[test]
fn exit_1_when_unschedulable() {
    // The case study fails under tsg-rr busy-waiting (as in Table 5).
    gcaps()
        .args(["analyze", "--policy", "tsg-rr", "--mode", "busy"])
        .assert()
        .code(1);
}

#[test]
fn json_shape() {
    let f = file(GOOD, ".toml");
    let out = gcaps()
        .args([
            "analyze", "--format", "json", "--policy", "gcaps", "--mode", "suspend",
        ])
        .arg(f.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schedulable"], true);
    assert_eq!(v["policy"], "gcaps");
    assert_eq!(v["mode"], "suspend");
    let t = &v["tasks"][0];
    assert_eq!(t["name"], "histogram");
    assert_eq!(t["best_effort"], false);
    assert_eq!(t["priority"], 70);
    assert_eq!(t["gpu_priority"], 70);
    // 1 + 10 + 2 eps = 13 ms (suspend): the only updater, so its lock
    // requests never wait (D13) and no lower task updates on its core (D14).
    assert_eq!(t["wcrt"], 13.0);
    assert_eq!(t["deadline"], 100.0);
    assert_eq!(t["schedulable"], true);
    assert!(t["no_bound_reason"].is_null());
    let be = &v["tasks"][1];
    assert_eq!(be["best_effort"], true);
    assert!(be["wcrt"].is_null());
    assert_eq!(v["mechanism"], "reload");
}

#[test]
fn gate_mechanism_is_reported_and_changes_the_bound() {
    // The same set under gate with a 0.05 ms hand-over and epsilon_fast (an
    // end of a segment a higher one preempted): 1 + 10 + (1 + 0.2)
    // for the begin until its TSG runs + 0.05 for the hand-over = 12.25 ms
    // (D24), against 13 under reload; the text says which mechanism.
    let gate = GOOD.replace(
        "theta = 0.2",
        "epsilon_fast = 0.05\nmechanism = \"gate\"\nepsilon_handover = 0.05\ntheta = 0.2",
    );
    let f = file(&gate, ".toml");
    let run = |args: &[&str]| {
        let out = gcaps()
            .arg("analyze")
            .args(args)
            .arg(f.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let v: serde_json::Value =
        serde_json::from_str(&run(&["--format", "json", "--mode", "suspend"])).unwrap();
    assert_eq!(v["mechanism"], "gate");
    assert_eq!(v["tasks"][0]["wcrt"], 12.25);
    let text = run(&["--mode", "suspend"]);
    assert!(
        text.starts_with("policy gcaps, mode suspend, mechanism gate"),
        "{text}"
    );
    let text = run(&["--policy", "mpcp", "--mode", "suspend"]);
    assert!(!text.contains("mechanism"), "{text}");
}

#[test]
fn lock_based_baselines() {
    let f = file(GOOD, ".toml");
    for policy in ["mpcp", "fmlp+"] {
        for mode in ["busy", "suspend"] {
            let out = gcaps()
                .args([
                    "analyze", "--format", "json", "--policy", policy, "--mode", mode,
                ])
                .arg(f.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{policy} {mode}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["policy"], policy);
            assert_eq!(v["mode"], mode);
            // 1 + 10 + theta: one lock acquisition, no runlist update.
            assert_eq!(v["tasks"][0]["wcrt"], 11.2, "{policy} {mode}");
            assert!(v["tasks"][1]["wcrt"].is_null());
        }
        let out = gcaps()
            .args(["analyze", "--policy", policy])
            .arg(f.path())
            .output()
            .unwrap();
        let s = String::from_utf8(out.stdout).unwrap();
        assert!(
            s.starts_with(&format!("policy {policy}, mode suspend")),
            "{s}"
        );
    }
}

/// Bad input gets the same error under every policy (the file is read and
/// validated before any analysis).
#[test]
fn bad_input_errors_do_not_depend_on_the_policy() {
    let bad = GOOD.replace("priority = 70", "priority = 0");
    let f = file(&bad, ".toml");
    let mut errors = Vec::new();
    for policy in ["gcaps", "tsg-rr", "mpcp", "fmlp+"] {
        let out = gcaps()
            .args(["analyze", "--policy", policy])
            .arg(f.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{policy}");
        assert!(out.stdout.is_empty());
        errors.push(String::from_utf8(out.stderr).unwrap());
    }
    assert!(errors[0].contains("'priority'"), "{}", errors[0]);
    assert_eq!(errors[0].lines().count(), 1);
    assert!(errors.iter().all(|e| *e == errors[0]), "{errors:?}");
}

#[test]
fn json_input_is_detected() {
    let ts = gcaps_analysis::parse_taskset(GOOD, "g", gcaps_analysis::Format::Toml).unwrap();
    let f = file(&gcaps_analysis::to_json(&ts), ".json");
    gcaps().arg("analyze").arg(f.path()).assert().code(0);
}

#[test]
fn usage_error_exit_2() {
    gcaps()
        .args(["analyze", "--policy", "edf"])
        .assert()
        .code(2);
    gcaps()
        .args(["analyze", "/nonexistent/x.toml"])
        .assert()
        .code(2);
}

fn expect(text: &str, parts: &[&str]) {
    let (err, name) = stderr_of(text);
    assert!(err.contains(&name), "no file name in: {err}");
    for p in parts {
        assert!(err.contains(p), "missing {p:?} in: {err}");
    }
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn syntax_error() {
    expect(
        &GOOD.replace("cpus = 2", "cpus = = 2"),
        &["syntax error", ":3:"],
    );
}

#[test]
fn unknown_field() {
    expect(
        &GOOD.replace("deadline = 100.0", "dedline = 100.0"),
        &["task 'histogram'", "field 'dedline'", "unknown"],
    );
}

#[test]
fn missing_field() {
    expect(
        &GOOD.replace("period = 100.0\n", ""),
        &["task 'histogram'", "field 'period'", "missing"],
    );
}

#[test]
fn negative_zero_nan_times() {
    expect(
        &GOOD.replace("{cpu = 0.5}, {gpu", "{cpu = -0.5}, {gpu"),
        &["task 'histogram'", "segments[0].cpu", "negative"],
    );
    expect(
        &GOOD.replace("period = 100.0", "period = 0.0"),
        &["task 'histogram'", "field 'period'", "greater than 0"],
    );
    expect(
        &GOOD.replace("exec = 9.0", "exec = nan"),
        &["task 'histogram'", "segments[1].gpu.exec", "finite"],
    );
    expect(
        &GOOD.replace("timeslice = 1.024", "timeslice = 0"),
        &["platform field 'timeslice'"],
    );
}

#[test]
fn deadline_after_period() {
    expect(
        &GOOD.replace("deadline = 100.0", "deadline = 120.0"),
        &["task 'histogram'", "field 'deadline'", "exceeds the period"],
    );
}

#[test]
fn cpu_out_of_range() {
    expect(
        &GOOD.replace("cpu = 0\n", "cpu = 2\n"),
        &["task 'histogram'", "field 'cpu'", "does not exist"],
    );
}

#[test]
fn priority_out_of_range() {
    expect(
        &GOOD.replace("priority = 70", "priority = 100"),
        &["task 'histogram'", "field 'priority'", "1..=98"],
    );
    // 99 is the update ceiling (U2): no task of the set may use it.
    expect(
        &GOOD.replace("priority = 70", "priority = 99"),
        &[
            "task 'histogram'",
            "field 'priority'",
            "1..=98",
            "update ceiling 99",
            "got 99",
        ],
    );
    // A GPU priority is not a CPU priority: 99 is fine there.
    let f = file(
        &GOOD.replace("priority = 70", "priority = 70\ngpu_priority = 99"),
        ".toml",
    );
    gcaps().arg("analyze").arg(f.path()).assert().code(0);
    expect(
        &GOOD.replace("priority = 70", "priority = 0"),
        &["task 'histogram'", "field 'priority'"],
    );
}

#[test]
fn duplicate_names() {
    expect(
        &GOOD.replace("name = \"other\"", "name = \"histogram\""),
        &["task 'histogram'", "field 'name'", "duplicate"],
    );
}

#[test]
fn empty_taskset() {
    let only_platform = &GOOD[..GOOD.find("[[task]]").unwrap()];
    expect(only_platform, &["empty taskset"]);
}

/// A reader that goes away (`gcaps analyze | head -0`) must not make the tool
/// panic: the write fails with a broken pipe and the tool exits quietly.
#[test]
fn closed_stdout_is_not_a_panic() {
    for sub in [
        &["analyze", "--format", "json"][..],
        &["generate", "--seed", "1"][..],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gcaps"))
            .args(sub)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end before the tool writes its result.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{sub:?}: {err}");
        assert!(
            matches!(out.status.code(), Some(0) | Some(2)),
            "{sub:?}: {:?}",
            out.status
        );
    }
}

#[test]
fn submissions_out_of_range() {
    for (n, why) in [
        ("0", "got 0"),
        ("-2", "got -2"),
        ("1.5", "expected an integer"),
        ("\"two\"", "expected an integer, got a string"),
        ("1000001", "1..=1000000"),
    ] {
        expect(
            &GOOD.replace("exec = 9.0}", &format!("exec = 9.0, submissions = {n}}}")),
            &[
                "task 'histogram'",
                "field 'segments[1].gpu.submissions'",
                why,
            ],
        );
    }
    // Valid: 3 pieces.
    let f = file(
        &GOOD.replace("exec = 9.0}", "exec = 9.0, submissions = 3}"),
        ".toml",
    );
    gcaps().arg("analyze").arg(f.path()).assert().code(0);
}

/// Two busy-waiting GPU tasks of equal CPU priority on one core can
/// deadlock under GCAPS with epsilon > 0 (D16): both get no bound, with the
/// reason in the table and in the JSON; suspending, they have bounds.
#[test]
fn equal_priority_busy_deadlock_is_reported() {
    let twin = GOOD.replace(
        "[[task]]\nname = \"other\"",
        "[[task]]\nname = \"twin\"\nperiod = 100.0\ncpu = 0\npriority = 70\n\
         segments = [ {gpu = {misc = 1.0, exec = 9.0}} ]\n\n[[task]]\nname = \"other\"",
    );
    let f = file(&twin, ".toml");
    let out = gcaps()
        .args(["analyze", "--mode", "busy"])
        .arg(f.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("DEADLOCK"), "{text}");
    assert!(
        text.contains(
            "histogram: no bound: can deadlock: 'histogram' and 'twin' busy-wait at equal CPU \
             priority 70 on core 0 with epsilon > 0"
        ),
        "{text}"
    );
    let out = gcaps()
        .args(["analyze", "--mode", "busy", "--format", "json"])
        .arg(f.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for t in 0..2 {
        assert!(v["tasks"][t]["wcrt"].is_null());
        assert!(v["tasks"][t]["no_bound_reason"]
            .as_str()
            .unwrap()
            .contains("can deadlock"));
    }
    gcaps()
        .args(["analyze", "--mode", "suspend"])
        .arg(f.path())
        .assert()
        .code(0);
}

/// `gcaps generate --format json | gcaps analyze -`: standard input was
/// always read as TOML.
#[test]
fn stdin_json_is_detected() {
    let json = gcaps()
        .args(["generate", "--seed", "1", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0));
    let out = gcaps()
        .args(["analyze", "-"])
        .write_stdin(json.stdout.clone())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    // The same taskset as TOML gives the same report.
    let toml = gcaps().args(["generate", "--seed", "1"]).output().unwrap();
    let out_toml = gcaps()
        .args(["analyze", "-"])
        .write_stdin(toml.stdout)
        .output()
        .unwrap();
    assert_eq!(out.stdout, out_toml.stdout);
    // An explicit --input-format wins over the detection.
    let forced = gcaps()
        .args(["analyze", "-", "--input-format", "toml"])
        .write_stdin(json.stdout)
        .output()
        .unwrap();
    assert_eq!(forced.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&forced.stderr).contains("<stdin>:1:1: syntax error"));
}

/// A file whose name does not end in `.json` or `.toml` is detected from
/// its content.
#[test]
fn json_content_without_json_extension_is_detected() {
    let ts = gcaps_analysis::parse_taskset(GOOD, "g", gcaps_analysis::Format::Toml).unwrap();
    let f = file(&gcaps_analysis::to_json(&ts), ".taskset");
    gcaps().arg("analyze").arg(f.path()).assert().code(0);
}

/// File names are user text too: escaped, one line.
#[test]
fn unreadable_file_name_is_escaped() {
    let out = gcaps()
        .args(["analyze", "/nonexistent/a\nb\u{1b}[31m.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(!err.trim_end().chars().any(char::is_control), "{err:?}");
    assert!(err.contains("a\\nb\\u{1b}[31m.toml"), "{err:?}");
}

/// The README's examples are what the tool prints.
mod readme {
    use super::gcaps;

    const README: &str = include_str!("../../../README.md");

    /// The fenced block that follows the first line containing `marker`.
    fn block_after(marker: &str) -> String {
        let start = README.find(marker).unwrap_or_else(|| panic!("{marker}"));
        let rest = &README[start..];
        let open = rest.find("```").unwrap();
        let body = &rest[open..];
        let body = &body[body.find('\n').unwrap() + 1..];
        body[..body.find("```").unwrap()].to_string()
    }

    #[test]
    fn analyze_table_is_what_make_analyze_prints() {
        let out = gcaps().arg("analyze").output().unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            block_after("Example\n(`make analyze`")
        );
    }

    #[test]
    fn json_example_is_the_start_of_what_the_tool_prints() {
        let block = block_after("`--format json` prints");
        let (head, tail) = block.split_once("...\n").expect("the block ends in ...");
        assert_eq!(tail, "");
        let out = gcaps()
            .args(["analyze", "--format", "json"])
            .output()
            .unwrap();
        let out = String::from_utf8(out.stdout).unwrap();
        assert!(out.starts_with(head), "README:\n{head}\ntool:\n{out}");
    }

    #[test]
    fn format_example_parses_and_error_example_is_exact() {
        let toml = block_after("### Taskset file format");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("good.toml"), &toml).unwrap();
        gcaps()
            .current_dir(dir.path())
            .args(["analyze", "good.toml"])
            .assert()
            .code(0);
        std::fs::write(
            dir.path().join("bad.toml"),
            toml.replace("deadline = 100.0", "deadline = 120.0"),
        )
        .unwrap();
        let out = gcaps()
            .current_dir(dir.path())
            .args(["analyze", "bad.toml"])
            .output()
            .unwrap();
        let block = block_after("with one message naming the file");
        assert_eq!(
            format!(
                "$ gcaps analyze bad.toml\n{}",
                String::from_utf8(out.stderr).unwrap()
            ),
            block
        );
    }
}

/// Clap echoes bad values raw over several lines: usage errors are one
/// line with the user's text escaped.
#[test]
fn usage_error_is_one_escaped_line() {
    let out = gcaps()
        .args(["analyze", "--policy", "x\ny"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(!err.trim_end().chars().any(char::is_control), "{err:?}");
    assert!(
        err.starts_with("gcaps: error: invalid value 'x\\ny' for '--policy <POLICY>'"),
        "{err:?}"
    );
    assert!(
        err.contains("[possible values: tsg-rr, gcaps, gcaps-boost, mpcp, fmlp+]"),
        "{err:?}"
    );
}

/// gcaps-boost refuses a task priority at or above its boost priority 98
/// with one line and exit status 2 (docs/analysis.md D19); 97 is analysed.
#[test]
fn gcaps_boost_refuses_priority_98() {
    let hi = GOOD.replace("priority = 70", "priority = 98");
    let f = file(&hi, ".toml");
    let out = gcaps()
        .args(["analyze", "--policy", "gcaps-boost"])
        .arg(f.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "gcaps analyze: task 'histogram' field 'priority': must be in 1..=97 under gcaps-boost, below the boost priority 98, got 98 (docs/analysis.md D19)\n"
    );
    let ok = file(&GOOD.replace("priority = 70", "priority = 97"), ".toml");
    let out = gcaps()
        .args(["analyze", "--policy", "gcaps-boost", "--format", "json"])
        .arg(ok.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["policy"], "gcaps-boost");
    // Plain GCAPS accepts 98 (below the update ceiling).
    let out = gcaps().arg("analyze").arg(f.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}
