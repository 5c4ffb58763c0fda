//! `include/gcaps.h` compiles cleanly as C and C++ (`-Wall -Wextra -Wpedantic -Werror`), and a
//! program using every function and both arities of the paper's macros links against
//! `libgcaps.a` and runs (without the module: the error paths).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

fn target_dir() -> PathBuf {
    // target/<profile>/deps/header-<hash>
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Builds libgcaps.a (cargo does not build a staticlib for its integration tests).
fn static_lib() -> PathBuf {
    static BUILD: Once = Once::new();
    let dir = target_dir();
    BUILD.call_once(|| {
        let mut cargo = Command::new(env!("CARGO"));
        cargo.args(["build", "--quiet", "--locked", "-p", "gcaps-capi", "--lib"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cargo.arg("--release");
        }
        assert!(
            cargo.status().unwrap().success(),
            "cargo build -p gcaps-capi failed"
        );
    });
    let lib = dir.join("libgcaps.a");
    assert!(lib.exists(), "{} missing after cargo build", lib.display());
    lib
}

fn build_and_run(compiler: &str, std: &str, lang: &str) {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = static_lib();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("header-{lang}"));
    let st = Command::new(compiler)
        .args([std, "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-x", lang])
        .arg("-I")
        .arg(here.join("include"))
        .arg(here.join("tests/header.c"))
        .args(["-x", "none"])
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(st.success(), "{compiler} failed on gcaps.h ({lang})");
    let run = Command::new(&out).output().unwrap();
    assert!(
        run.status.success(),
        "{lang} program failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "gcaps.h: ok\n");
}

#[test]
fn header_compiles_and_links_as_c() {
    build_and_run("cc", "-std=c99", "c");
}

#[test]
fn header_compiles_and_links_as_cxx() {
    build_and_run("c++", "-std=c++11", "c++");
}
