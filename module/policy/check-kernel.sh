#!/bin/sh
# Builds module/policy/kcheck/policy_check.ko, a Rust kernel module that includes the
# gcaps-policy crate with #[path], against a Rust-enabled kernel build directory.
# Usage: module/policy/check-kernel.sh <kernel build dir> [extra make args, e.g. LLVM=-14]
# Environment: BINDGEN (default: ~/.cache/gcaps/kernel/tools/bindgen-0.69.5/bin/bindgen),
#              KCHECK_OUT (directory to copy the .ko to; default: none).
# The build runs in a temporary copy, so the work tree stays clean.
set -eu
kdir=${1:?usage: check-kernel.sh <kernel build dir> [make args]}
shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bindgen=${BINDGEN:-${XDG_CACHE_HOME:-$HOME/.cache}/gcaps/kernel/tools/bindgen-0.69.5/bin/bindgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/policy"
cp -r "$here/src" "$here/kcheck" "$tmp/policy/"
make -C "$kdir" M="$tmp/policy/kcheck" RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc \
    RUSTDOC=/usr/bin/rustdoc BINDGEN="$bindgen" "$@" modules >"$tmp/build.log" 2>&1 || {
    cat "$tmp/build.log" >&2
    echo "gcaps-policy kernel check: build FAILED" >&2
    exit 1
}
if grep -E 'warning|error' "$tmp/build.log" >&2; then
    echo "gcaps-policy kernel check: warnings in the kernel build" >&2
    exit 1
fi
if [ -n "${KCHECK_OUT:-}" ]; then
    mkdir -p "$KCHECK_OUT"
    cp "$tmp/policy/kcheck/policy_check.ko" "$KCHECK_OUT/"
fi
echo "gcaps-policy kernel check: policy_check.ko built against $kdir"
