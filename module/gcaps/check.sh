#!/bin/sh
# Builds host B's freestanding device object for both arches (x86_64 and arm64) outside a
# kernel build, with object.sh's checks (relocations the module loaders apply, undefined
# symbols, exports), and prints what it got. Uses LLVM's binutils, which read both arches.
# The kernel config matters only for x86's hardening flags: a config with IBT, retpolines
# and return thunks is made up here so those flags are built and checked too.
# Usage: module/gcaps/check-objects.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export AR=llvm-ar-14 LD=ld.lld-14 OBJCOPY=llvm-objcopy-14 READELF=llvm-readelf-14 NM=llvm-nm-14
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/../../target/device-objects}"
manifest=$here/Cargo.toml
"$here/bindings.sh" --check
cargo fmt --manifest-path "$manifest" -- --check
cargo clippy --quiet --manifest-path "$manifest" --locked -- -D warnings
RUSTFLAGS="--cfg gcaps_host_c" cargo clippy --quiet --manifest-path "$manifest" --locked \
  --target x86_64-unknown-none -- -D warnings
echo "device: rustfmt and clippy (host A and host B configurations) clean"
printf 'CONFIG_X86_KERNEL_IBT=y\nCONFIG_MITIGATION_RETPOLINE=y\nCONFIG_MITIGATION_RETHUNK=y\n' >"$out/hardened.config"
: >"$out/plain.config"
for v in "x86 plain" "x86 hardened" "arm64 plain"; do
  set -- $v
  "$here/object.sh" "$1" "$out/$2.config" "$out/$1-$2.o"
  relocs=$("$READELF" -rW "$out/$1-$2.o" | awk '$3 ~ /^R_/ { n[$3]++ } END { for (r in n) printf "%s:%d ", r, n[r] }')
  echo "device object $1 ($2 config): $(wc -c <"$out/$1-$2.o") bytes; relocations: $relocs"
done
