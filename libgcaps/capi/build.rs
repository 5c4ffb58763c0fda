//! The shared library carries the SONAME `libgcaps.so.0` (ABI major 0), so programs linked
//! with `-lgcaps` load `libgcaps.so.0` at run time (`make install` creates the links).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgcaps.so.0");
}
