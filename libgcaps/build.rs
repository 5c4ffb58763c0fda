//! Generates the Rust bindings of `uapi/linux/gcaps.h` (the single source of truth of the
//! ioctl interface) with bindgen, layout tests included, and compiles `src/uapi_check.c`: the
//! C compiler's view of the ioctl numbers and struct sizes, which the unit tests compare with
//! the numbers the library computes (bindgen cannot expand the `_IOWR()` macros).
use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let uapi = manifest.join("../uapi");
    let header = uapi.join("linux/gcaps.h");
    println!("cargo:rerun-if-changed={}", header.display());
    println!("cargo:rerun-if-changed=src/uapi_check.c");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));

    let bindings = bindgen::Builder::default()
        .header(header.to_str().expect("UTF-8 path"))
        .clang_arg(format!("-I{}", uapi.display()))
        .allowlist_type("gcaps_.*")
        .allowlist_var("GCAPS_.*")
        .derive_default(true)
        .layout_tests(true)
        .generate_comments(false)
        .generate()
        .unwrap_or_else(|e| {
            panic!(
                "bindgen could not read {}: {e} (is libclang installed? tests/vm/setup.sh \
                 installs libclang-dev)",
                header.display()
            )
        });
    bindings
        .write_to_file(out.join("uapi.rs"))
        .expect("write OUT_DIR/uapi.rs");

    cc::Build::new()
        .file("src/uapi_check.c")
        .include(&uapi)
        .warnings_into_errors(true)
        .compile("gcaps_uapi_check");
}
