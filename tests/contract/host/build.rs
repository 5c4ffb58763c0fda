//! Generates the Rust view of the backend contract with bindgen from the kernel header itself
//! (`module/include/gcaps_backend.h`, through `include/gcaps_backend_user.h`, which supplies
//! the kernel types for userspace), layout tests included: no hand-written mirror of
//! `struct gcaps_be_tsg`, `gcaps_be_eligible`, `gcaps_backend_ops` or `gcaps_be_calls`.
use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let wrapper = manifest.join("include/gcaps_backend_user.h");
    let header = manifest.join("../../../module/include/gcaps_backend.h");
    println!("cargo:rerun-if-changed={}", wrapper.display());
    println!("cargo:rerun-if-changed={}", header.display());
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));

    let bindings = bindgen::Builder::default()
        .header(wrapper.to_str().expect("UTF-8 path"))
        .allowlist_type("gcaps_.*")
        .allowlist_var("GCAPS_.*")
        .allowlist_function("gcaps_backend_register")
        .derive_default(true)
        .layout_tests(true)
        .generate_comments(false)
        .generate()
        .unwrap_or_else(|e| {
            panic!(
                "bindgen could not read {}: {e} (is libclang installed? tests/vm/setup.sh \
                 installs libclang-dev)",
                wrapper.display()
            )
        });
    bindings
        .write_to_file(out.join("backend.rs"))
        .expect("write OUT_DIR/backend.rs");

    // Fields of the contract's later ABIs, by name (never by position): ABI 2 adds `flags` to
    // `struct gcaps_be_tsg` (passed to the core) and `detail`/`runlists` to
    // `struct gcaps_backend_ops` (validated at registration, as gcaps.ko does).
    let text = bindings.to_string();
    let has = |strukt: &str, field: &str| {
        let start = format!("pub struct {strukt} {{");
        text.find(&start).is_some_and(|i| {
            let body = &text[i + start.len()..];
            let body = &body[..body.find('}').unwrap_or(body.len())];
            body.contains(&format!("pub {field}:"))
        })
    };
    println!("cargo::rustc-check-cfg=cfg(gcaps_be_tsg_flags)");
    println!("cargo::rustc-check-cfg=cfg(gcaps_be_ops_detail)");
    if has("gcaps_be_tsg", "flags") {
        println!("cargo::rustc-cfg=gcaps_be_tsg_flags");
    }
    if has("gcaps_backend_ops", "detail") && has("gcaps_backend_ops", "runlists") {
        println!("cargo::rustc-cfg=gcaps_be_ops_detail");
    }
}
