#!/bin/sh
# Usage: object.sh <SRCARCH> <kernel .config> <out.o>
# Host B's device: builds device.rs (with the core and the policy it includes) as one
# freestanding object for a kernel module and checks it. Called by Kbuild (GCAPS_HOST=c).
#   - rustup's cargo (CARGO, else cargo in PATH, else ~/.cargo/bin/cargo) for
#     x86_64-unknown-none (x86) or aarch64-unknown-none-softfloat (arm64): no float or SIMD
#     registers; panic=abort with the device's own panic handler. `core` is built from
#     rust-src with the same flags (-Zbuild-std, under RUSTC_BOOTSTRAP as the kernel does for
#     its own Rust): the prebuilt one is position-independent and calls memcpy through the
#     GOT, which no module loader applies. Fat LTO makes one object of it all.
#   - Only the LTO'd object is taken from the static library, not compiler-builtins: memcpy
#     and friends come from the kernel. Every symbol but gcaps_rust_* is made local.
#   - Checks (each failure is one line and fails the build): every relocation is of a type the
#     arch's module loader applies (no GOT, no TLS), and every undefined symbol is the C glue's
#     (gcaps_glue_*) or a kernel string function.
set -eu

arch=${1:?usage: object.sh SRCARCH .config out.o}
config=${2:?usage: object.sh SRCARCH .config out.o}
out=${3:?usage: object.sh SRCARCH .config out.o}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "object.sh: $*" >&2; exit 1; }

[ -f "$config" ] || fail "no kernel config at '$config'"
case "$arch" in
  x86)
    target=x86_64-unknown-none
    # -Zplt=yes: the target calls external functions through the GOT by default.
    flags="-Crelocation-model=static -Ccode-model=kernel -Zplt=yes"
    # The kernel's x86 hardening, as its own Rust gets it (arch/x86/Makefile): indirect
    # branch tracking (IBT: jump tables would be indirect jumps without ENDBR), retpolines
    # and return thunks (these two call the kernel's thunks, allowed below).
    if grep -q '^CONFIG_X86_KERNEL_IBT=y' "$config"; then
      flags="$flags -Zcf-protection=branch -Cjump-tables=no"; fi
    if grep -Eq '^CONFIG_(MITIGATION_)?RETPOLINE=y' "$config"; then
      flags="$flags -Zretpoline-external-thunk"; fi
    if grep -Eq '^CONFIG_(MITIGATION_)?RETHUNK=y' "$config"; then
      flags="$flags -Zfunction-return=thunk-extern"; fi
    thunks='|__x86_indirect_thunk_[a-z0-9]+|__x86_return_thunk'
    # what x86_64's module loader applies (arch/x86/kernel/module.c)
    relocs="R_X86_64_NONE R_X86_64_64 R_X86_64_32 R_X86_64_32S R_X86_64_PC32 R_X86_64_PLT32 R_X86_64_PC64" ;;
  arm64)
    target=aarch64-unknown-none-softfloat
    flags="-Crelocation-model=static"
    # what arm64's module loader applies (arch/arm64/kernel/module.c)
    relocs="R_AARCH64_NONE R_AARCH64_ABS64 R_AARCH64_ABS32 R_AARCH64_ABS16 R_AARCH64_PREL64
      R_AARCH64_PREL32 R_AARCH64_PREL16 R_AARCH64_LD_PREL_LO19 R_AARCH64_ADR_PREL_LO21
      R_AARCH64_ADR_PREL_PG_HI21 R_AARCH64_ADR_PREL_PG_HI21_NC R_AARCH64_ADD_ABS_LO12_NC
      R_AARCH64_LDST8_ABS_LO12_NC R_AARCH64_LDST16_ABS_LO12_NC R_AARCH64_LDST32_ABS_LO12_NC
      R_AARCH64_LDST64_ABS_LO12_NC R_AARCH64_LDST128_ABS_LO12_NC R_AARCH64_TSTBR14
      R_AARCH64_CONDBR19 R_AARCH64_JUMP26 R_AARCH64_CALL26" ;;
  *) fail "no freestanding Rust target for ARCH '$arch' (x86 and arm64 are supported)" ;;
esac

cargo=${CARGO:-}
if [ -z "$cargo" ]; then
  if command -v cargo >/dev/null 2>&1; then cargo=cargo
  elif [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then cargo=${CARGO_HOME:-$HOME/.cargo}/bin/cargo
  else fail "cargo not found (install rustup, or pass CARGO=/path/to/cargo to make)"; fi
fi
if command -v rustup >/dev/null 2>&1 && ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  fail "rustup's rust-src is not installed (rustup component add rust-src)"
fi

tdir=${CARGO_TARGET_DIR:-$(dirname "$out")/.cargo-target}
# The kernel build's binutils (Kbuild exports AR, LD, ... with CROSS_COMPILE or LLVM applied),
# else CROSS_COMPILE's, else the host's.
ar=${AR:-${CROSS_COMPILE:-}ar}; ld=${LD:-${CROSS_COMPILE:-}ld}
objcopy=${OBJCOPY:-${CROSS_COMPILE:-}objcopy}; readelf=${READELF:-${CROSS_COMPILE:-}readelf}
nm=${NM:-${CROSS_COMPILE:-}nm}

# RUSTFLAGS reach core too (unlike `cargo rustc -- ...`); the environment's are replaced, and
# so is Kbuild's RUSTC (the kernel's rustc, for host A: cargo would take it).
env -u CARGO_ENCODED_RUSTFLAGS -u RUSTC -u RUSTDOC -u RUSTC_WRAPPER RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$tdir" \
  RUSTFLAGS="--cfg gcaps_host_c $flags -Cforce-unwind-tables=no -Cdebuginfo=0" \
  "$cargo" rustc --quiet --manifest-path "$here/Cargo.toml" --locked --release \
  -Zbuild-std=core --target "$target" --crate-type staticlib \
  || fail "cargo failed to build the device for $target"
lib=$tdir/$target/release/libgcaps_device.a
[ -f "$lib" ] || fail "cargo produced no $lib"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
members=$("$ar" t "$lib" | grep '^gcaps_device' || true)
[ -n "$members" ] || fail "no gcaps_device object in $lib"
(cd "$work" && for m in $members; do "$ar" x "$lib" "$m"; done)
# shellcheck disable=SC2086
(cd "$work" && "$ld" -r -o joined.o $members 2>ld.err) \
  || fail "$ld -r failed for $target (wrong LD or CROSS_COMPILE?): $(head -n 1 "$work/ld.err")"
"$objcopy" -w --keep-global-symbol='gcaps_rust_*' --remove-section=.comment \
  "$work/joined.o" "$work/device.o"

bad=$("$readelf" -rW "$work/device.o" | awk -v ok="$relocs" '
  BEGIN { n = split(ok, a, /[ \n]+/); for (i = 1; i <= n; i++) allowed[a[i]] = 1 }
  $3 ~ /^R_/ && !($3 in allowed) { print $3 }' | sort -u | tr '\n' ' ')
[ -z "$bad" ] || fail "$target object has relocations the $arch module loader does not apply: $bad"
if "$readelf" -SW "$work/device.o" | grep -Eq '\.(tdata|tbss|got|plt)\b'; then
  fail "$target object has TLS, GOT or PLT sections"
fi
undef=$("$nm" -u "$work/device.o" | awk '{ print $2 }' \
  | grep -Ev "^(gcaps_glue_[a-z0-9_]+|memcpy|memmove|memset|memcmp|bcmp${thunks:-})\$" | tr '\n' ' ' || true)
[ -z "$undef" ] || fail "$target object needs symbols the kernel does not provide: $undef"
exports=$("$nm" -g --defined-only "$work/device.o" | awk '{ print $3 }' | grep -v '^gcaps_rust_' || true)
[ -z "$exports" ] || fail "$target object exports more than gcaps_rust_*: $exports"
mv "$work/device.o" "$out"
