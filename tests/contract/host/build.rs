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
}
