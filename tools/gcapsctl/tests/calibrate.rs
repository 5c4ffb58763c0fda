//! Checks the update costs per kind and `gcapsctl calibrate`'s output on the live system
//! against the scenario of VM test `tests/vm/tests/59-gcaps-calibrate.sh` (installed in the VM
//! as `/bin/gcapsctl-calibrate`; ignored elsewhere): updates that submit (a higher segment
//! preempting and handing back) and updates that keep the decision (pending segments), with
//! the statistics reset just before.
//!
//! Environment: `CALIBRATE_DIR` holds `stats.json` (`gcapsctl stats --format json` after the
//! scenario), `platform.toml` (`gcapsctl calibrate`) and `platform50.toml` (`--margin 50
//! --theta-ms 0.1 --timeslice-ms 2 --cpus 4`); `CALIBRATE_MECHANISM` is the module's mechanism
//! (`reload` or `gate`); `CALIBRATE_SUBMIT`, `CALIBRATE_PREEMPT`, `CALIBRATE_HANDOVER` and
//! `CALIBRATE_FAST` are the updates of each kind the scenario makes (0 if unset),
//! `CALIBRATE_CLOSES` how many of the FAST ones are real-time closes (not begin/end calls, so
//! not update-delay samples), `CALIBRATE_CPUS` the machine's CPUs.
use gcaps_analysis::model::{Mechanism, Platform};
use gcaps_analysis::taskset_file::{parse_taskset, Format};
use serde_json::Value;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(std::env::var("CALIBRATE_DIR").expect("CALIBRATE_DIR"))
}

fn text(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn stats() -> Value {
    serde_json::from_str(&text("stats.json")).expect("stats.json parses")
}

fn var(name: &str) -> u64 {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name}"))
        .parse()
        .expect("a number")
}

/// A count of updates the scenario makes (0 if the variable is unset).
fn count(name: &str) -> u64 {
    std::env::var(name).map_or(0, |v| v.parse().expect("a number"))
}

fn gate() -> bool {
    std::env::var("CALIBRATE_MECHANISM").as_deref() == Ok("gate")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

/// `ns` + `pct` %, rounded up to the ns.
fn plus(ns: u64, pct: u64) -> u64 {
    (ns * (100 + pct)).div_ceil(100)
}

/// The printed section with one task, through the analysis's parser.
fn platform(name: &str) -> Platform {
    let file = format!(
        "{}\n[[task]]\nname = \"t\"\nperiod = 100.0\ncpu = 0\npriority = 10\n\
         segments = [{{cpu = 1.0}}, {{gpu = {{misc = 0.5, exec = 2.0}}}}]\n",
        text(name)
    );
    parse_taskset(&file, name, Format::Toml)
        .unwrap_or_else(|e| panic!("the analysis refuses {name}: {e}\n{file}"))
        .platform
}

#[test]
#[ignore = "needs the files of VM test 59-gcaps-calibrate"]
fn update_costs_match_the_scenario() {
    let s = stats();
    println!("updates: {}", s["updates"]);
    let kinds = ["submit", "preempt", "handover", "fast"];
    let mut total = 0;
    for k in kinds {
        let want = count(&format!("CALIBRATE_{}", k.to_uppercase()));
        assert_eq!(u(&s["updates"][k]["count"]), want, "{k} updates");
        total += want;
    }
    let fast = u(&s["updates"]["fast"]["count"]);
    assert_eq!(
        total - fast,
        u(&s["submits"]),
        "every application of the scenario (a submit, or a gate) is one update of its kind"
    );
    assert_eq!(
        total - var("CALIBRATE_CLOSES"),
        u(&s["update_delay"]["count"]),
        "the begins/ends sampled for the update delay are the updates but the closes"
    );
    for name in kinds {
        let c = &s["updates"][name];
        let n = u(&c["count"]);
        if n == 0 {
            assert_eq!(u(&c["wall_sum_ns"]), 0, "{name}");
            continue;
        }
        let (wmax, wsum, cmax, csum) = (
            u(&c["wall_max_ns"]),
            u(&c["wall_sum_ns"]),
            u(&c["cpu_max_ns"]),
            u(&c["cpu_sum_ns"]),
        );
        assert!(wmax > 0 && wsum >= wmax && wsum <= wmax * n, "{name}: {c}");
        assert!(
            cmax > 0 && csum >= cmax,
            "{name}: no on-CPU time counted: {c}"
        );
        assert!(
            cmax <= wmax && csum <= wsum,
            "{name}: on-CPU above wall: {c}"
        );
        assert!(csum <= cmax * n, "{name}: {c}");
        for (b, max) in [("wall_buckets", wmax), ("cpu_buckets", cmax)] {
            let buckets = c[b].as_array().unwrap();
            assert_eq!(buckets.len(), 32);
            let total: u64 = buckets.iter().map(|x| u(&x["count"])).sum();
            assert_eq!(total, n, "{name} {b}: every sample in one bucket");
            let last = buckets.iter().rfind(|x| u(&x["count"]) > 0).unwrap();
            assert!(
                u(&last["lo_ns"]) <= max && last["hi_ns"].as_u64().is_none_or(|h| max < h),
                "{name} {b}: the max {max} is not in the last non-empty bucket {last}"
            );
        }
    }
    // A submitting update sleeps in the submit's pending wait, a preempting one in the
    // preempt's completion wait.
    let sleeper = &s["updates"][if gate() { "preempt" } else { "submit" }];
    assert!(
        u(&sleeper["cpu_sum_ns"]) < u(&sleeper["wall_sum_ns"]),
        "{sleeper}"
    );
}

#[test]
#[ignore = "needs the files of VM test 59-gcaps-calibrate"]
fn calibrate_prints_a_platform_the_analysis_accepts() {
    let s = stats();
    let max = |k: &str, f: &str| u(&s["updates"][k][f]);
    let want = |pct| {
        let f = plus(max("fast", "wall_max_ns"), pct);
        if gate() {
            let pre = plus(
                max("preempt", "wall_max_ns").max(max("handover", "wall_max_ns")),
                pct,
            );
            let hand = plus(max("handover", "wall_max_ns"), pct);
            let c = plus(
                max("preempt", "cpu_max_ns").max(max("handover", "cpu_max_ns")),
                pct,
            );
            let e = pre.max(hand).max(f).max(c);
            (e, Some(f), Some(c), Some(pre), Some(hand))
        } else {
            let e = plus(max("submit", "wall_max_ns"), pct);
            let c = plus(max("submit", "cpu_max_ns"), pct);
            (e.max(f).max(c), Some(f), Some(c), None, None)
        }
    };
    let got = |p: &Platform| {
        (
            p.epsilon,
            p.epsilon_fast,
            p.epsilon_cpu,
            p.epsilon_preempt,
            p.epsilon_handover,
        )
    };
    let p = platform("platform.toml");
    println!("platform: {p:?}");
    assert_eq!(got(&p), want(20));
    assert_eq!(
        p.mechanism,
        if gate() {
            Mechanism::Gate
        } else {
            Mechanism::Reload
        }
    );
    assert_eq!(u64::from(p.cpus), var("CALIBRATE_CPUS"));
    assert_eq!(
        (p.theta, p.timeslice),
        (200_000, 1_024_000),
        "the generator's"
    );
    let p = platform("platform50.toml");
    assert_eq!(got(&p), want(50));
    assert_eq!((p.cpus, p.theta, p.timeslice), (4, 100_000, 2_000_000));
}
