#!/bin/sh
# Compiles the gcaps-policy crate, the gcaps-core crate (module/core, which includes the
# policy's source) and the device (module/gcaps/device.rs, which includes the core) with Debian's rustc 1.85 (/usr/bin/rustc), the compiler used for the
# Rust-for-Linux kernel and its modules, exactly as standalone no_std libraries: once with
# default flags and once like the kernel (overflow checks on, panic = abort). Warnings are
# errors. Usage: module/policy/check-rustc-1.85.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rustc=${RUSTC_185:-/usr/bin/rustc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$rustc" --version
# check <crate name> <lib.rs>: both builds of one crate.
check() {
    "$rustc" --edition 2021 --crate-type lib --crate-name "$1" -D warnings \
        "$2" -o "$out/$1-default.rlib"
    "$rustc" --edition 2021 --crate-type lib --crate-name "$1" -D warnings \
        -C overflow-checks=on -C panic=abort -C opt-level=2 \
        "$2" -o "$out/$1-kernel-like.rlib"
    echo "$1: OK with $("$rustc" --version)"
}
check gcaps_policy "$here/src/lib.rs"
check gcaps_core "$here/../core/src/lib.rs"
# The device (module/gcaps/device.rs, which includes the core): host A's configuration (the
# kernel build compiles it too, with the kernel's flags) and host B's (--cfg gcaps_host_c).
check gcaps_device "$here/../gcaps/device.rs"
"$rustc" --edition 2021 --crate-type lib --crate-name gcaps_device -D warnings \
    --cfg gcaps_host_c -C panic=abort "$here/../gcaps/device.rs" -o "$out/gcaps_device-host-c.rlib"
echo "gcaps_device (host B cfg): OK"
