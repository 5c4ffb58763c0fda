#!/usr/bin/env bash
# make nvgpu-oot-test: NVIDIA's R36 nvgpu.ko with gcaps's series, built out of tree for arm64
# (build.sh) and loaded beside gcaps.ko in the arm64 6.12 VM (vm/70-nvgpu-oot-load.sh, run by
# tests/vm/run.sh with its kernel-health checks). See tests/nvgpu-oot/README.md.
# Environment: as build.sh (NVGPU_OOT_SRC, NVGPU_OOT_JOBS, NVGPU_OOT_REBUILD, CI) and
# tests/vm/run.sh (VM_TIMEOUT_SCALE, ...). Ends with tests/vm/run.sh's "vm-test: N passed, M
# failed" line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export VM_ARCH=arm64 VM_KERNEL=debug
# shellcheck source=tests/vm/lib.sh
. "$here/../vm/lib.sh"

mods=$VMWORK/nvgpu-oot-modules
# gcaps.ko for the same kernel (its default host there: A, Rust-for-Linux), then the nvgpu
# modules beside it; build.sh builds (or reuses) the kernel first.
build=$("$here/build.sh" "$mods.nv" | tee /dev/stderr | tail -n 1)
case "$build" in
  *SKIP*) echo "vm-test: 0 passed, 0 failed (nvgpu-oot skipped)"; exit 0 ;;
esac
"$VM_DIR/build-modules.sh" debug "$mods"
cp "$mods.nv"/*.ko "$mods/"
VM_MODULES=$mods VM_RUN_NAME=nvgpu-oot VM_TESTS="$here/vm/70-nvgpu-oot-load.sh" \
  "$VM_DIR/run.sh"
