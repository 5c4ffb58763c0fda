#!/bin/sh
# NVIDIA's R36 nvgpu.ko with gcaps's series (tests/nvgpu-oot/build.sh) beside gcaps.ko in the
# arm64 6.12 VM: nvgpu's dependencies (hwpm, nvidia-oot's host1x, host1x-nvhost, nvmap) and
# nvgpu.ko load and unload, gcaps.ko loads before and after nvgpu.ko and either unloads while the
# other stays. The VM has no GA10B, so nvgpu's platform driver registers and probes nothing:
# the glue's module notifier and its symbol_get() of gcaps_backend_register are set up in
# probe and never run here (tests/nvgpu-oot/README.md). What this shows: the patched nvgpu.ko
# links and loads with no gcaps symbol resolved at load (it loads while gcaps.ko is absent),
# holds no reference on gcaps.ko (gcaps's refcnt stays 0 and it has no holder, so it unloads
# with nvgpu loaded), and the kernel reports nothing (the harness's health checks: lockdep,
# KASAN, kmemleak, taint). vmtest-timeout=240
set -eu
fail() { echo "FAIL: $*"; exit 1; }
loaded() { grep -q "^$1 " /proc/modules; }
# nvgpu's dependencies in the order of their symbols (modinfo's depends)
deps_in() {
  insmod /modules/nvhwpm.ko || fail "insmod nvhwpm.ko"
  insmod /modules/host1x.ko || fail "insmod host1x.ko"
  insmod /modules/host1x-nvhost.ko || fail "insmod host1x-nvhost.ko"
  insmod /modules/nvsciipc.ko || fail "insmod nvsciipc.ko"
  insmod /modules/nvmap.ko || fail "insmod nvmap.ko"
}
deps_out() {
  for m in nvmap nvsciipc host1x_nvhost host1x nvhwpm; do rmmod "$m" || fail "rmmod $m"; done
}
# gcaps is not pinned by nvgpu: no holder, reference count 0
gcaps_free() {
  [ "$(cat /sys/module/gcaps/refcnt)" = 0 ] || fail "gcaps refcnt $(cat /sys/module/gcaps/refcnt) with nvgpu loaded ($1)"
  [ -z "$(ls /sys/module/gcaps/holders)" ] || fail "gcaps held by $(ls /sys/module/gcaps/holders) ($1)"
}

# 1. nvgpu first (gcaps absent: a static reference to a gcaps symbol would fail this insmod),
#    then gcaps; gcaps unloads first, loads again, then nvgpu unloads first.
deps_in
insmod /modules/nvgpu.ko || fail "insmod nvgpu.ko without gcaps.ko loaded"
loaded nvgpu || fail "nvgpu not listed after insmod"
insmod /modules/gcaps.ko || fail "insmod gcaps.ko after nvgpu.ko"
gcaps_free "nvgpu, then gcaps"
rmmod gcaps || fail "rmmod gcaps with nvgpu loaded"
insmod /modules/gcaps.ko || fail "insmod gcaps.ko again with nvgpu loaded"
gcaps_free "gcaps reloaded"
rmmod nvgpu || fail "rmmod nvgpu with gcaps loaded"
rmmod gcaps || fail "rmmod gcaps after nvgpu"
deps_out
echo "order 1: nvgpu, gcaps; rmmod gcaps, insmod gcaps; rmmod nvgpu, gcaps: ok"

# 2. gcaps first, then nvgpu; nvgpu unloads first, loads again, then gcaps unloads first.
insmod /modules/gcaps.ko || fail "insmod gcaps.ko first"
deps_in
insmod /modules/nvgpu.ko || fail "insmod nvgpu.ko after gcaps.ko"
gcaps_free "gcaps, then nvgpu"
rmmod nvgpu || fail "rmmod nvgpu with gcaps loaded"
insmod /modules/nvgpu.ko || fail "insmod nvgpu.ko again with gcaps loaded"
gcaps_free "nvgpu reloaded"
rmmod gcaps || fail "rmmod gcaps with nvgpu loaded"
rmmod nvgpu || fail "rmmod nvgpu after gcaps"
deps_out
echo "order 2: gcaps, nvgpu; rmmod nvgpu, insmod nvgpu; rmmod gcaps, nvgpu: ok"

# What the kernel said of the drivers (no probe: no GPU node in the VM's device tree).
dmesg | grep -iE 'nvgpu|gcaps|host1x|nvmap|hwpm' | tail -n 20 || true
if dmesg | grep -q 'gcaps: bound'; then fail "a backend bound without a GPU"; fi
echo "PASS nvgpu-oot-load"
