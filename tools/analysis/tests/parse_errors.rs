//! Error messages of the taskset reader: one line, user text escaped, the
//! real type named. Each test is a defect found once (named after it).

use gcaps_analysis::{parse_taskset, Format};

const PLATFORM_JSON: &str =
    r#""platform": {"cpus": 2, "epsilon": 1.0, "theta": 0.2, "timeslice": 1.024}"#;

fn json_err(body: &str) -> String {
    let text = format!("{{{PLATFORM_JSON}, {body}}}");
    parse_taskset(&text, "t.json", Format::Json)
        .unwrap_err()
        .to_string()
}

fn toml_err(text: &str) -> String {
    parse_taskset(text, "t.toml", Format::Toml)
        .unwrap_err()
        .to_string()
}

/// No raw control character (newline, ESC, ...) and no bidi override
/// reaches the terminal.
fn assert_clean(m: &str) {
    assert!(
        !m.chars()
            .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
        "raw control text in {m:?}"
    );
}

#[test]
fn json_key_with_newline_and_escape_codes_is_escaped() {
    // Found by tests/parse_fuzz.rs: an unknown key printed raw forged a
    // second, coloured line.
    let m = json_err(
        r#""task": [{"name": "a", "period": 10, "cpu": 0, "segments": [{"cpu": 1}], "x\nforged: \u001b[31mred": 1}]"#,
    );
    assert_clean(&m);
    assert_eq!(
        m,
        "t.json: task 'a' field 'x\\nforged: \\u{1b}[31mred': unknown field (expected one of: name, period, deadline, cpu, priority, gpu_priority, segments)"
    );
}

#[test]
fn unknown_top_level_platform_and_gpu_keys_are_escaped() {
    let m = json_err(r#""task": [], "\u001b]0;x\u0007": 1"#);
    assert_clean(&m);
    assert!(m.contains("'\\u{1b}]0;x\\u{7}'"), "{m}");
    let m =
        toml_err("[platform]\ncpus = 1\nepsilon = 0\ntheta = 0\ntimeslice = 1\n\"a\\nb\" = 1\n");
    assert_clean(&m);
    assert_eq!(m, "t.toml: platform field 'a\\nb': unknown field (expected one of: cpus, epsilon, epsilon_fast, epsilon_cpu, mechanism, epsilon_preempt, epsilon_handover, theta, timeslice)");
    let m = json_err(
        r#""task": [{"name": "a", "period": 10, "cpu": 0, "segments": [{"gpu": {"exec": 1, "misc": 0, "\r": 1}}]}]"#,
    );
    assert_clean(&m);
    assert!(m.contains("field 'segments[0].gpu.\\r'"), "{m}");
    let m =
        json_err(r#""task": [{"name": "a", "period": 10, "cpu": 0, "segments": [{"\u001b": 1}]}]"#);
    assert_clean(&m);
    assert!(m.contains("field 'segments[0].\\u{1b}'"), "{m}");
}

#[test]
fn task_name_with_bidi_override_is_escaped() {
    let m = json_err(
        r#""task": [{"name": "ab\u202ecd", "period": 10, "deadline": 20, "cpu": 0, "segments": [{"cpu": 1}]}]"#,
    );
    assert_clean(&m);
    assert!(
        m.starts_with("t.json: task 'ab\\u{202e}cd' field 'deadline':"),
        "{m}"
    );
}

#[test]
fn file_name_is_escaped() {
    let m = parse_taskset("x = ", "evil\n\u{1b}[2Jname.toml", Format::Toml)
        .unwrap_err()
        .to_string();
    assert_clean(&m);
    assert!(m.starts_with("evil\\n\\u{1b}[2Jname.toml:1:"), "{m}");
}

#[test]
fn date_time_as_task_name_names_the_type() {
    // Reported "got a table" (the type of the task, not of the name).
    let m = toml_err(
        "[platform]\ncpus = 1\nepsilon = 0\ntheta = 0\ntimeslice = 1\n[[task]]\nname = 1979-05-27T07:32:00Z\nperiod = 10\ncpu = 0\nsegments = [{cpu = 1}]\n",
    );
    assert_eq!(
        m,
        "t.toml: task '#1' field 'name': expected a string, got a date-time"
    );
    let m = toml_err(
        "[platform]\ncpus = 1\nepsilon = 0\ntheta = 0\ntimeslice = 1\n[[task]]\nname = \"a\"\nperiod = 07:32:00\ncpu = 0\nsegments = [{cpu = 1}]\n",
    );
    assert_eq!(
        m,
        "t.toml: task 'a' field 'period': expected a number (milliseconds), got a date-time"
    );
}

#[test]
fn json_strings_are_strings_whatever_they_hold() {
    // TOML date-times and NaN are carried as marked strings inside the
    // reader; a JSON string that looks like such a mark is still a string.
    let m = json_err(
        r#""task": [{"name": "a", "period": "\u0000nonfinite:nan", "cpu": 0, "segments": [{"cpu": 1}]}]"#,
    );
    assert_eq!(
        m,
        "t.json: task 'a' field 'period': expected a number (milliseconds), got a string"
    );
    let m = json_err(
        r#""task": [{"name": "\u0000datetime:1979-05-27", "period": 1, "cpu": 0, "segments": [{"cpu": 1}]}]"#,
    );
    assert_eq!(
        m,
        "t.json: task '#1' field 'name': must not contain control characters"
    );
}

/// The platform's `epsilon_fast <= epsilon` rule and the GPU-priority range
/// (gcaps's `1..=99`) as a file meets them: each bound accepted, one past it
/// rejected with a message naming the rule.
#[test]
fn epsilon_fast_and_gpu_priority_bounds() {
    let file = |eps_fast: &str, gprio: &str| {
        format!(
            "[platform]\ncpus = 1\nepsilon = 1.0\nepsilon_fast = {eps_fast}\ntheta = 0.0\n\
             timeslice = 1.0\n\n[[task]]\nname = \"a\"\nperiod = 100.0\ncpu = 0\npriority = 10\n\
             gpu_priority = {gprio}\nsegments = [{{cpu = 1.0}}, {{gpu = {{misc = 0.0, exec = 1.0}}}}]\n"
        )
    };
    for (eps_fast, gprio) in [("1.0", "1"), ("0.5", "99")] {
        let text = file(eps_fast, gprio);
        assert!(
            parse_taskset(&text, "t.toml", Format::Toml).is_ok(),
            "{text}"
        );
    }
    let m = toml_err(&file("1.5", "10"));
    assert_eq!(
        m,
        "t.toml: platform field 'epsilon_fast': must not exceed epsilon (1.0 ms): it bounds the updates that do not submit"
    );
    // epsilon_cpu: the same rule, its own reason; written back exactly.
    let cpu = file("1.0", "10").replace("theta = 0.0", "epsilon_cpu = 0.05\ntheta = 0.0");
    let ts = parse_taskset(&cpu, "t.toml", Format::Toml).expect("epsilon_cpu 0.05 is valid");
    assert_eq!(ts.platform.epsilon_cpu, Some(50_000));
    let back = gcaps_analysis::taskset_file::to_json(&ts);
    assert_eq!(parse_taskset(&back, "t.json", Format::Json).unwrap(), ts);
    let m = toml_err(&cpu.replace("epsilon_cpu = 0.05", "epsilon_cpu = 1.5"));
    assert_eq!(
        m,
        "t.toml: platform field 'epsilon_cpu': must not exceed epsilon (1.0 ms): it is the part of an update spent on its caller's core"
    );
    // mechanism: "reload" or "gate", with the gate's two costs; both
    // written back exactly; anything else one escaped line.
    let gate = file("1.0", "10").replace(
        "theta = 0.0",
        "mechanism = \"gate\"\nepsilon_preempt = 0.8\nepsilon_handover = 0.02\ntheta = 0.0",
    );
    let ts = parse_taskset(&gate, "t.toml", Format::Toml).expect("a gate platform is valid");
    assert_eq!(
        ts.platform.mechanism,
        gcaps_analysis::model::Mechanism::Gate
    );
    assert_eq!(ts.platform.epsilon_preempt, Some(800_000));
    assert_eq!(ts.platform.epsilon_handover, Some(20_000));
    for back in [
        gcaps_analysis::taskset_file::to_json(&ts),
        gcaps_analysis::taskset_file::to_toml(&ts),
    ] {
        let fmt = if back.starts_with('{') {
            Format::Json
        } else {
            Format::Toml
        };
        assert_eq!(parse_taskset(&back, "t", fmt).unwrap(), ts, "{back}");
    }
    let m = toml_err(&gate.replace("\"gate\"", "\"ga\\u001bte\""));
    assert_clean(&m);
    assert_eq!(
        m,
        "t.toml: platform field 'mechanism': must be \"reload\" or \"gate\", got \"ga\\u{1b}te\""
    );
    let m = toml_err(&gate.replace("\"gate\"", "1"));
    assert_eq!(
        m,
        "t.toml: platform field 'mechanism': must be \"reload\" or \"gate\", got a number"
    );
    for gprio in ["0", "100"] {
        let m = toml_err(&file("1.0", gprio));
        assert_eq!(
            m,
            format!("t.toml: task 'a' field 'gpu_priority': must be in 1..=99, got {gprio}")
        );
    }
}
