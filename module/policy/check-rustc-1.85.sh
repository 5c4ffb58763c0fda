#!/bin/sh
# Compiles the gcaps-policy crate and the gcaps-core crate (module/core, which includes the
# policy's source) with Debian's rustc 1.85 (/usr/bin/rustc), the compiler used for the
# Rust-for-Linux kernel and its modules, exactly as standalone no_std libraries: once with
# default flags and once like the kernel (overflow checks on, panic = abort). Warnings are
# errors. Usage: module/policy/check-rustc-1.85.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rustc=${RUSTC_185:-/usr/bin/rustc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$rustc" --version
"$rustc" --edition 2021 --crate-type lib --crate-name gcaps_policy -D warnings \
    "$here/src/lib.rs" -o "$out/default.rlib"
"$rustc" --edition 2021 --crate-type lib --crate-name gcaps_policy -D warnings \
    -C overflow-checks=on -C panic=abort -C opt-level=2 \
    "$here/src/lib.rs" -o "$out/kernel-like.rlib"
echo "gcaps-policy: OK with $("$rustc" --version)"
core=$here/../core/src/lib.rs
"$rustc" --edition 2021 --crate-type lib --crate-name gcaps_core -D warnings \
    "$core" -o "$out/core-default.rlib"
"$rustc" --edition 2021 --crate-type lib --crate-name gcaps_core -D warnings \
    -C overflow-checks=on -C panic=abort -C opt-level=2 \
    "$core" -o "$out/core-kernel-like.rlib"
echo "gcaps-core: OK with $("$rustc" --version)"
