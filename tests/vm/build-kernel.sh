#!/bin/bash
# Usage: build-kernel.sh fast|debug|rt|debug510|oot   (debug, debug510: also VM_ARCH=arm64; oot: arm64 only)
# Builds (or reuses) the test kernel for a variant in $KCACHE/build-<variant>-<key>/ (see
# lib.sh). <key> hashes sources, toolchain and config fragments, so changing a fragment or a
# pinned version rebuilds; an unchanged kernel costs nothing. Clones with different fragments
# keep their own build dirs side by side (the scripts find theirs by key, not by a link).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: build-kernel.sh fast|debug|rt|debug510|oot}
variant_series "$variant" >/dev/null   # unknown variant or wrong VM_ARCH: stop here
"$VM_DIR/setup.sh" "$variant"

read -r -a frags <<<"$(variant_fragments "$variant")"
tc=$(variant_toolchain "$variant")
ksrc=$(variant_ksrc "$variant")
# toolchain, Rust tools (6.12), ARCH/CROSS_COMPILE (arm64)
mapfile -t kvars < <(variant_makevars "$variant")
bd=$(kernel_build_dir "$variant")
image=$(kernel_image "$bd")
name=$(kernel_build_name "$variant")
mkdir -p "$bd"

# One build per build dir at a time (e.g. `make kernel-debug` racing `make vm-test`).
exec 9>"$bd.lock"
flock 9

if [ -f "$bd/.vmtest-built" ] && [ -f "$image" ]; then
  log "kernel $name up to date: $bd"
  touch "$bd"   # in use: keeps it from the stale-build sweep below
  exit 0
fi

kmake() { make -C "$ksrc" O="$bd" "${kvars[@]}" "$@"; }

if [ ! -f "$bd/.config-ok" ]; then
  log "configuring $name ($tc): tinyconfig + ${frags[*]}"
  if variant_rust "$variant"; then
    kmake -s rustavailable >/dev/null || { kmake rustavailable; die "Rust toolchain not usable for the kernel"; }
  fi
  kmake -s tinyconfig >/dev/null
  paths=(); for f in "${frags[@]}"; do paths+=("$VM_DIR/kernel/$f"); done
  "$ksrc/scripts/kconfig/merge_config.sh" -m -O "$bd" "$bd/.config" "${paths[@]}" >/dev/null
  kmake -s olddefconfig >/dev/null
  # Kconfig drops options whose dependencies fail, silently: check every requested one.
  bad=0
  while IFS= read -r line; do
    case "$line" in
      CONFIG_*=*)
        grep -qxF -- "$line" "$bd/.config" || {
          log "config: requested $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$bd/.config" || echo unset)"; bad=1; } ;;
      "# CONFIG_"*" is not set")
        opt=${line#\# }; opt=${opt%% *}
        ! grep -q "^$opt=" "$bd/.config" || { log "config: requested $opt off, got: $(grep "^$opt=" "$bd/.config")"; bad=1; } ;;
    esac
  done < <(cat "${paths[@]}")
  [ "$bad" = 0 ] || die "config fragments for $name did not survive olddefconfig (see above)"
  touch "$bd/.config-ok"
fi

log "building kernel $name in $bd (log: $bd/build.log)"
t0=$(now)
if ! kmake -j"$(nproc)" "$(kernel_image_target)" modules >"$bd/build.log" 2>&1; then
  tail -n 40 "$bd/build.log" >&2
  die "kernel build ($name) failed; full log: $bd/build.log"
fi
record_time "kernel-build-$name" "$(elapsed "$t0")"
grep -E '(^|[^a-z])(warning|error):' "$bd/build.log" | head -n 20 >&2 || true
touch "$bd/.vmtest-built"
# Drop build dirs of this variant (and architecture) unused for a week (each is 300+ MB; other
# clones may use other keys).
find "$KCACHE" -maxdepth 1 -regextype posix-extended -regex ".*/build-$name-[0-9a-f]{12}(\.lock)?" \
  -mtime +7 ! -path "$bd*" -exec rm -rf {} +
log "kernel $name ready: $(cat "$bd/include/config/kernel.release") $image"
