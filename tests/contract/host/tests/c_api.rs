//! The C side: `include/gcaps_host.h` and `include/gcaps_backend_user.h` compile cleanly as C11
//! (`-Wall -Wextra -Wpedantic -Werror`) and the header as C++; a C driver (`tests/c/scenario.c`)
//! links against `libgcaps_contract_host.a` and runs; the C compiler's layouts of the API's
//! structs equal the Rust ones; and the static library links into a `gcc -shared -fPIC` shared
//! object that a program loads with `dlopen` and runs the same scenario in (nvgpu's unit
//! modules are such shared objects).
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use gcaps_contract_host::{Counters, DecisionOut};

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn target_dir() -> PathBuf {
    // target/<profile>/deps/c_api-<hash>
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Builds libgcaps_contract_host.a (cargo builds no staticlib for integration tests).
fn static_lib() -> PathBuf {
    static BUILD: Once = Once::new();
    let dir = target_dir();
    BUILD.call_once(|| {
        let mut cargo = Command::new(env!("CARGO"));
        cargo.args([
            "build",
            "--quiet",
            "--locked",
            "-p",
            "gcaps-contract-host",
            "--lib",
        ]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cargo.arg("--release");
        }
        assert!(
            cargo.status().unwrap().success(),
            "cargo build -p gcaps-contract-host failed"
        );
    });
    let lib = dir.join("libgcaps_contract_host.a");
    assert!(lib.exists(), "{} missing after cargo build", lib.display());
    lib
}

fn out(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        o.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const CFLAGS: [&str; 5] = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
const LIBS: [&str; 3] = ["-lpthread", "-ldl", "-lm"];

/// `name=value` pairs of the line starting with `what`.
fn fields(stdout: &str, what: &str) -> Vec<(String, usize)> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(what))
        .unwrap_or_else(|| panic!("no {what} line in {stdout}"));
    line.split_whitespace()
        .skip(1)
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn c_driver_links_runs_and_sees_the_rust_layouts() {
    let lib = static_lib();
    let exe = out("api");
    run(Command::new("gcc")
        .args(CFLAGS)
        .arg("-I")
        .arg(here().join("include"))
        .arg(here().join("tests/c/api.c"))
        .arg(here().join("tests/c/scenario.c"))
        .arg(&lib)
        .args(LIBS)
        .arg("-o")
        .arg(&exe));
    let stdout = run(&mut Command::new(&exe));
    assert!(stdout.ends_with("gcaps_host.h: ok\n"), "{stdout}");

    macro_rules! rust_layout {
        ($t:ty, $($f:ident),*) => {
            vec![("size".to_string(), size_of::<$t>()),
                 $((stringify!($f).to_string(), offset_of!($t, $f))),*]
        };
    }
    let counters = rust_layout!(
        Counters,
        resubmits,
        resubmit_errors,
        resubmit_timeouts,
        recoveries,
        events,
        begins,
        ends,
        ends_by_close,
        preemptions,
        resumes,
        publishes,
        generation,
        detaches,
        registrations,
        unregistrations,
        violations,
        warnings,
        trace_events,
        bound,
        loaded,
        clients,
        tsgs,
        gate_preempts,
        gate_handovers
    );
    assert_eq!(fields(&stdout, "counters"), counters);
    let decision = rust_layout!(DecisionOut, generation, all, pad, bits);
    assert_eq!(fields(&stdout, "decision"), decision);
    let states = format!(
        "states {} {} {} words {}",
        gcaps_contract_host::GCAPS_HOST_IDLE,
        gcaps_contract_host::GCAPS_HOST_RUNNING,
        gcaps_contract_host::GCAPS_HOST_PENDING,
        gcaps_core::TSG_WORDS
    );
    assert!(stdout.lines().any(|l| l == states), "{stdout}");
}

#[test]
fn header_compiles_and_links_as_cxx() {
    let lib = static_lib();
    let src = out("header.cc");
    std::fs::write(
        &src,
        "#include \"gcaps_backend_user.h\"\n#include \"gcaps_host.h\"\nint main() {\n\
         \tgcaps_host_set_time_ns(7);\n\treturn gcaps_host_is_err(nullptr) || \
         gcaps_host_time_ns() != 7;\n}\n",
    )
    .unwrap();
    let exe = out("header_cxx");
    run(Command::new("g++")
        .args([
            "-std=c++11",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-I",
        ])
        .arg(here().join("include"))
        .arg(&src)
        .arg(&lib)
        .args(LIBS)
        .arg("-o")
        .arg(&exe));
    run(&mut Command::new(&exe));
}

/// A translation unit with nvgpu's own kernel-style types (`<nvgpu/types.h>` on POSIX:
/// `u64` is `unsigned long long`) includes the contract with `GCAPS_HAVE_KERNEL_TYPES`.
#[test]
fn contract_header_with_the_drivers_own_u32_u64() {
    let src = out("nvgpu_types.c");
    std::fs::write(
        &src,
        "typedef unsigned int u32;\ntypedef unsigned long long u64;\n#define \
         GCAPS_HAVE_KERNEL_TYPES\n#include \"gcaps_backend_user.h\"\n#include \
         \"gcaps_host.h\"\n_Static_assert(sizeof(struct gcaps_be_eligible) == 144, \
         \"layout\");\n_Static_assert(GCAPS_BE_MAX_TSGS == 64 * GCAPS_HOST_TSG_WORDS, \
         \"words\");\n",
    )
    .unwrap();
    run(Command::new("gcc")
        .args(CFLAGS)
        .args(["-fsyntax-only", "-I"])
        .arg(here().join("include"))
        .arg(&src));
}

#[test]
fn staticlib_links_into_a_shared_object() {
    let lib = static_lib();
    let so = out("libgcaps_scenario.so");
    run(Command::new("gcc")
        .args(CFLAGS)
        .args(["-shared", "-fPIC", "-Wl,--no-undefined"])
        .arg("-I")
        .arg(here().join("include"))
        .arg(here().join("tests/c/scenario.c"))
        .arg(&lib)
        .args(LIBS)
        .arg("-o")
        .arg(&so));
    let exe = out("so_main");
    run(Command::new("gcc")
        .args(CFLAGS)
        .arg(here().join("tests/c/so_main.c"))
        .arg("-ldl")
        .arg("-o")
        .arg(&exe));
    let stdout = run(Command::new(&exe).arg(&so));
    assert_eq!(stdout, "shared object: ok\n");
}

/// The backend contract suite (`tests/contract/contract.c`, 17 scenarios) on gcaps's real core
/// hosted here, with the synchronous C driver of `tests/c/suite.c`: every scenario passes and
/// the driver commits no contract violation, under both mechanisms; the driver's mutations
/// fail the scenarios they must (ignoring the eligible set or not reporting opens: the 15
/// with a real-time segment; not reporting the recovery: `recovery-during-segment`; under
/// gate, a gate that changes nothing).
#[test]
fn contract_suite_passes_on_the_hosted_core() {
    let lib = static_lib();
    let suite = here().join("..");
    let exe = out("suite");
    run(Command::new("gcc")
        .args(CFLAGS)
        .arg("-I")
        .arg(here().join("include"))
        .arg("-I")
        .arg(&suite)
        .arg(here().join("tests/c/suite.c"))
        .arg(suite.join("contract.c"))
        .arg(&lib)
        .args(LIBS)
        .arg("-o")
        .arg(&exe));
    for mechanism in ["reload", "gate"] {
        let stdout = run(Command::new(&exe).env("SUITE_MECHANISM", mechanism));
        assert!(
            stdout.contains("\ncontract: 17 passed, 0 failed, 0 skipped\n"),
            "{mechanism}: {stdout}"
        );
        assert!(
            stdout.ends_with("gcaps-contract-host: 0 contract violations\n"),
            "{mechanism}: {stdout}"
        );
    }

    let failed = |mutation: &str, mechanism: &str| {
        let o = Command::new(&exe)
            .arg(mutation)
            .env("SUITE_MECHANISM", mechanism)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{mutation} ({mechanism}): passed");
        let mut names: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("FAIL "))
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    let rt_scenarios = 15;
    for mechanism in ["reload", "gate"] {
        assert_eq!(failed("ignore-eligible", mechanism).len(), rt_scenarios);
        assert_eq!(failed("no-open-report", mechanism).len(), rt_scenarios);
    }
    assert_eq!(
        failed("no-recovered", "reload"),
        vec!["recovery-during-segment"]
    );
    // Under gate only the driver's own paths would apply the decision.
    assert!(!failed("gate-ignored", "gate").is_empty());
}
