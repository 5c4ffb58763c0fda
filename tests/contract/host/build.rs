//! Generates the Rust view of the backend contract with bindgen from the kernel header itself
//! (`module/include/gcaps_backend.h`, through `include/gcaps_backend_user.h`, which supplies
//! the kernel types for userspace), layout tests included: no hand-written mirror of
//! `struct gcaps_be_tsg`, `gcaps_be_eligible`, `gcaps_backend_ops` or `gcaps_be_calls`.
//!
//! Compiles gcaps.ko's own half of the backend contract, `module/gcaps/backend.c`, with the
//! user-space shim of its primitives (`shim/backend_prims_user.h`, `shim/shim.c`) into a static
//! library linked into this crate (and bundled into its staticlib).
use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let wrapper = manifest.join("include/gcaps_backend_user.h");
    let header = manifest.join("../../../module/include/gcaps_backend.h");
    println!("cargo:rerun-if-changed={}", wrapper.display());
    println!("cargo:rerun-if-changed={}", header.display());
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));

    let gcaps = manifest.join("../../../module/gcaps");
    let shim = manifest.join("shim");
    for f in [
        gcaps.join("backend.c"),
        gcaps.join("backend.h"),
        gcaps.join("backend_prims.h"),
        gcaps.join("gcaps_glue.h"),
        manifest.join("../../../uapi/linux/gcaps.h"),
        shim.join("backend_prims_user.h"),
        shim.join("shim.c"),
    ] {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    // gcaps.ko's glue interface (gcaps_glue.h, backend.h) and the shim's, for the Rust that
    // stands in for device.rs: no hand-written extern block.
    let glue = shim.join("glue_user.h");
    println!("cargo:rerun-if-changed={}", glue.display());
    bindgen::Builder::default()
        .header(glue.to_str().expect("UTF-8 path"))
        .clang_arg(format!("-I{}", shim.display()))
        .allowlist_function("gcaps_glue_.*|gcaps_rust_.*|gcaps_shim_.*")
        .allowlist_function("gcaps_backend_(start|stop|ctx|events_pending|snapshot)")
        .allowlist_type("gcaps_ev|gcaps_client_ref|gcaps_caller")
        .allowlist_var("GCAPS_BACKEND_STOCK")
        .blocklist_type("gcaps_be_eligible")
        .derive_default(true)
        .layout_tests(true)
        .generate_comments(false)
        .generate()
        .unwrap_or_else(|e| panic!("bindgen could not read {}: {e}", glue.display()))
        .write_to_file(out.join("glue.rs"))
        .expect("write OUT_DIR/glue.rs");

    cc::Build::new()
        .file(gcaps.join("backend.c"))
        .file(shim.join("shim.c"))
        .include(&shim)
        .define("GCAPS_BACKEND_USER", None)
        .std("gnu11")
        .pic(true)
        .warnings(true)
        .extra_warnings(true)
        .flag("-Wno-unused-parameter")
        .warnings_into_errors(true)
        .compile("gcaps_backend");

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
