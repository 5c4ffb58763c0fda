#![allow(missing_docs)]
#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]
pub mod backend {
    include!(concat!(env!("OUT_DIR"), "/backend.rs"));
}
