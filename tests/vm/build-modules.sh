#!/bin/bash
# Usage: build-modules.sh fast|debug|rt|debug510|oot <out dir>   (debug, debug510: also VM_ARCH=arm64; oot: arm64 only)
# Builds the out-of-tree modules of the root Kbuild against the variant's test kernel and copies
# every resulting .ko into <out dir>. The build runs in a scratch copy of the repo's module
# sources (target/vm/modbuild-<variant>[-arm64]/), so the work tree stays clean and the fast and
# debug builds never share objects. On kernels without CONFIG_RUST (5.10) the Rust modules are
# left out by their Kbuild files (ifdef CONFIG_RUST). Relative paths (e.g. #[path = "../../module/policy/src/lib.rs"])
# keep working because the copy mirrors the repo layout.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: build-modules.sh fast|debug|rt|debug510|oot <out dir>}
out=${2:?usage: build-modules.sh fast|debug|rt|debug510|oot <out dir>}
variant_series "$variant" >/dev/null   # unknown variant or wrong VM_ARCH: stop here
name=$(kernel_build_name "$variant")
kb=$(kernel_build_dir "$variant")
[ -f "$kb/.vmtest-built" ] || die "kernel $name not built (VM_ARCH=$VM_ARCH tests/vm/build-kernel.sh $variant)"
# toolchain, Rust tools (6.12), ARCH/CROSS_COMPILE (arm64)
mapfile -t kvars < <(variant_makevars "$variant")

stage=$VMWORK/modbuild-$name
mkdir -p "$VMWORK"
exec 9>"$stage.lock"   # concurrent runs (e.g. vm-test and vm-selftest) share the scratch dir
flock 9
rm -rf "$stage"
mkdir -p "$stage/tests/vm"
cp "$REPO_ROOT/Kbuild" "$stage/"
cp -r "$REPO_ROOT/tests/vm/modules" "$stage/tests/vm/"
# The product's sources (module/) and the UAPI headers (uapi/), without build products.
for d in module uapi; do
  if [ -d "$REPO_ROOT/$d" ]; then
    (cd "$REPO_ROOT" && find "$d" -path '*/target' -prune -o -type f -print0 \
       | cpio -0 -pdm --quiet "$stage")
  fi
done

# gcaps.ko's host: GCAPS_HOST=rust|c (default: rust on kernels with CONFIG_RUST, c elsewhere).
# Host B's cargo build keeps its target dir here, outside the scratch copy, to be reused.
hostvars=()
[ -z "${GCAPS_HOST:-}" ] || hostvars+=("GCAPS_HOST=$GCAPS_HOST")
export CARGO_TARGET_DIR=$VMWORK/cargo-device
t0=$(now)
if ! make -C "$kb" M="$stage" "${kvars[@]}" "${hostvars[@]}" -j"$(nproc)" modules \
     >"$stage/build.log" 2>&1; then
  cat "$stage/build.log" >&2
  die "module build against the $name kernel failed"
fi
# Our modules build warning-free (rustc, clang/gcc and objtool): a warning fails the build.
if grep -E 'warning:|error:|warning\(' "$stage/build.log" >&2; then
  die "warnings in the module build against the $name kernel"
fi
record_time "module-build-$name" "$(elapsed "$t0")"

rm -rf "$out"; mkdir -p "$out"
n=0
while IFS= read -r -d '' ko; do
  cp "$ko" "$out/"; n=$((n + 1))
done < <(find "$stage" -name '*.ko' -print0)
[ "$n" -gt 0 ] || die "no .ko produced (check the root Kbuild)"
# gcaps.ko's host as built, against the one asked for (GCAPS_HOST, else the kernel's default).
if [ -f "$out/gcaps.ko" ]; then
  built=$(gcaps_ko_host "$out/gcaps.ko")
  want=${GCAPS_HOST:-$(kernel_gcaps_host "$kb")}
  [ "$built" = "$want" ] || die "gcaps.ko was built with host $built, expected $want (GCAPS_HOST='${GCAPS_HOST:-}')"
  label=A; [ "$built" = c ] && label=B
  log "gcaps.ko ($name): host $label ($built)"
fi
log "modules ($name): $(cd "$out" && echo *.ko)"
