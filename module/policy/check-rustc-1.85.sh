#!/bin/sh
# Compiles the gcaps-policy crate with Debian's rustc 1.85 (/usr/bin/rustc), the compiler
# used for the Rust-for-Linux kernel and its modules, exactly as a standalone no_std
# library: once with default flags and once like the kernel (overflow checks on,
# panic = abort). Warnings are errors. Usage: module/policy/check-rustc-1.85.sh
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
