//! gcapsctl's errors without the module and with bad arguments: one line, non-zero exit.
use assert_cmd::Command;

const SCHED_FIFO: u32 = 1;

fn gcapsctl(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("gcapsctl")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn one_line_error(args: &[&str], code: i32, needle: &str) {
    let (c, out, err) = gcapsctl(args);
    assert_eq!(c, code, "{args:?}: stderr {err:?}");
    assert!(out.is_empty(), "{args:?}: stdout {out:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err:?}");
    assert!(err.starts_with("gcapsctl: "), "{err:?}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err:?}");
}

#[test]
fn status_without_the_module() {
    one_line_error(
        &["status", "--device", "/nonexistent/gcaps"],
        1,
        "modprobe gcaps",
    );
    one_line_error(
        &[
            "status",
            "--format",
            "json",
            "--device",
            "/nonexistent/gcaps",
        ],
        1,
        "not loaded",
    );
}

#[test]
fn status_on_something_else() {
    one_line_error(
        &["status", "--device", "/dev/null"],
        1,
        "not a gcaps device",
    );
}

#[test]
fn bad_arguments() {
    one_line_error(&["status", "--format", "xml"], 2, "invalid value 'xml'");
    one_line_error(
        &["run", "--priority", "0", "--", "true"],
        2,
        "0 is not in 1..=99",
    );
    one_line_error(
        &["run", "--priority", "100", "--", "true"],
        2,
        "100 is not in 1..=99",
    );
    one_line_error(
        &["run", "--priority", "x", "--", "true"],
        2,
        "invalid value 'x'",
    );
    one_line_error(
        &[
            "run",
            "--priority",
            "10",
            "--gpu-priority",
            "100",
            "--",
            "true",
        ],
        2,
        "invalid GPU priority 100",
    );
    one_line_error(
        &[
            "run",
            "--priority",
            "10",
            "--gpu-priority",
            "-3",
            "--",
            "true",
        ],
        2,
        "-3",
    );
    one_line_error(&["run", "--priority", "10"], 2, "not provided: <CMD>...");
    one_line_error(
        &["run", "--priority", "-5", "--", "true"],
        2,
        "invalid value '-5'",
    );
    one_line_error(&["run", "--", "true"], 2, "--priority");
    // 98 is the holder boost (no module loaded here: the defaults, boost on).
    one_line_error(
        &["run", "--priority", "98", "--", "true"],
        1,
        "at or above gcaps's holder boost 98 (boost_prio)",
    );
    one_line_error(&["frobnicate"], 2, "frobnicate");
    one_line_error(
        &["run", "--priority", "10", "--cpu", "100000", "--", "true"],
        1,
        "--cpu 100000",
    );
}

#[test]
fn help_is_not_an_error() {
    let (c, out, _) = gcapsctl(&["--help"]);
    assert_eq!(c, 0);
    assert!(out.contains("status") && out.contains("run"));
}

/// rt_priority and policy of the command (fields 40 and 41 of /proc/self/stat of `cat`).
fn sched_of_stat(stat: &str) -> (u32, u32) {
    let after_comm = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after_comm.split_whitespace().collect();
    // after_comm starts at field 3
    (f[40 - 3].parse().unwrap(), f[41 - 3].parse().unwrap())
}

#[test]
fn run_gives_the_command_its_priorities() {
    let script = "echo \"gpu=${GCAPS_GPU_PRIORITY-unset}\"; cat /proc/self/stat";
    for (gpu, want_env) in [
        (Some("33"), "gpu=33"),
        (Some("inherit"), "gpu=0"),
        (None, "gpu=unset"),
    ] {
        let mut args = vec!["run", "--priority", "10"];
        if let Some(g) = gpu {
            args.extend(["--gpu-priority", g]);
        }
        args.extend(["--", "sh", "-c", script]);
        let out = Command::cargo_bin("gcapsctl")
            .unwrap()
            .env("GCAPS_GPU_PRIORITY", "5")
            .args(&args)
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if out.status.success() {
            let mut lines = stdout.lines();
            assert_eq!(lines.next(), Some(want_env), "{args:?}");
            assert_eq!(
                sched_of_stat(lines.next().unwrap()),
                (10, SCHED_FIFO),
                "{args:?}"
            );
        } else {
            // Without CAP_SYS_NICE (unprivileged CI): the one-line permission error.
            assert_eq!(out.status.code(), Some(1));
            assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
            assert!(
                stderr.contains("SCHED_FIFO priority 10: permission denied"),
                "{stderr:?}"
            );
        }
    }
}

#[test]
fn stats_and_trace_without_the_module() {
    for args in [
        &["stats", "--device", "/nonexistent/gcaps"][..],
        &[
            "stats",
            "--reset",
            "--format",
            "json",
            "--device",
            "/nonexistent/gcaps",
        ],
        &["trace", "--device", "/nonexistent/gcaps"],
        &[
            "trace",
            "--perfetto",
            "/tmp/x.json",
            "--device",
            "/nonexistent/gcaps",
        ],
    ] {
        one_line_error(args, 1, "modprobe gcaps");
    }
    one_line_error(&["stats", "--device", "/dev/null"], 1, "not a gcaps device");
    one_line_error(
        &[
            "trace",
            "--follow",
            "--perfetto",
            "x",
            "--device",
            "/dev/null",
        ],
        2,
        "cannot be used with",
    );
    one_line_error(&["trace", "--format", "xml"], 2, "invalid value 'xml'");
}
