#!/usr/bin/env bash
# make nvgpu-oot-test: NVIDIA's R36 nvgpu.ko with gcaps's series, built out of tree for arm64
# (build.sh) and loaded beside gcaps.ko in the arm64 6.12 VM (vm/70-nvgpu-oot-load.sh, run by
# tests/vm/run.sh with its kernel-health checks). See tests/nvgpu-oot/README.md.
# Environment: as build.sh (NVGPU_OOT_SRC, NVGPU_OOT_JOBS, NVGPU_OOT_REBUILD, CI) and
# tests/vm/run.sh (VM_TIMEOUT_SCALE, ...). Ends with tests/vm/run.sh's "vm-test: N passed, M
# failed" line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export VM_ARCH=arm64 VM_KERNEL=oot
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh"

mods=$VMWORK/nvgpu-oot-modules
# gcaps.ko for the same kernel (its default host there: B, the kernel has no Rust), then the nvgpu
# modules beside it; build.sh builds (or reuses) the kernel first.
build=$("$here/build.sh" "$mods.nv" | tee /dev/stderr | tail -n 1)
case "$build" in
  *SKIP*) echo "vm-test: 0 passed, 0 failed (nvgpu-oot skipped)"; exit 0 ;;
esac
"$VM_DIR/build-modules.sh" oot "$mods"
# nvgpu.ko binds with symbol_get(gcaps_backend_register): gcaps.ko must export it (either host:
# the export is the C glue's, module/gcaps/backend.c).
ko_has_symbol "$mods/gcaps.ko" ' __ksymtab_gcaps_backend_register$' ||
  die "gcaps.ko ($(gcaps_ko_host "$mods/gcaps.ko") host) does not export gcaps_backend_register"
echo "nvgpu-oot: gcaps.ko: host $(gcaps_ko_host "$mods/gcaps.ko"), exports gcaps_backend_register"
cp "$mods.nv"/*.ko "$mods/"
VM_MODULES=$mods VM_RUN_NAME=nvgpu-oot VM_TESTS="$here/vm/70-nvgpu-oot-load.sh" \
  "$VM_DIR/run.sh"
