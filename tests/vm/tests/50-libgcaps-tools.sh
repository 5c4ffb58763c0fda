#!/bin/sh
# libgcaps and gcapsctl without gcaps.ko: the library (C and Rust examples) and the tool give
# one clear line and a non-zero exit when the module is not loaded, with bad priorities and
# without permission; gcapsctl run gives the command the requested priorities. The library's
# unit tests pass on the VM's architecture.
# vmtest-needs=libgcaps vmtest-needs=common-lib  vmtest-timeout=60
. /vmtest/common.sh   # set -eu, fail, expect_error, field, f

test -e /usr/lib/libgcaps.so.0 || fail "libgcaps.so.0 not installed in /usr/lib"
grep -q "libgcaps.so.0" /bin/gpu_segment || fail "the C example is not linked against libgcaps.so.0"

# --- the library's unit tests on this architecture: ioctl numbers, struct sizes and bindgen's
# layouts against the C compiler's view of uapi/linux/gcaps.h (on arm64 cross-built)
libgcaps-unit --test-threads=1 || fail "libgcaps unit tests"

# --- without the module
expect_error 1 "modprobe gcaps" gcapsctl status
expect_error 1 "modprobe gcaps" gcapsctl status --format json
expect_error 1 "modprobe gcaps" gpu_segment 5
expect_error 1 "modprobe gcaps" gpu_segment_rs 5

# --- bad arguments and priorities
expect_error 2 "100 is not in 1..=99" gcapsctl run --priority 100 -- true
expect_error 2 "invalid GPU priority" gcapsctl run --priority 10 --gpu-priority 200 -- true
expect_error 1 "holder boost 98 (boost_prio).*use 1..97" gcapsctl run --priority 98 -- true
# the limit comes from the loaded module's STATUS: the boost's priority, or the ceiling
insmod /modules/gcaps.ko update_prio=60 boost_prio=50
expect_error 1 "holder boost 50 (boost_prio).*use 1..49" gcapsctl run --priority 50 -- true
rmmod gcaps
insmod /modules/gcaps.ko update_prio=60 boost=0
expect_error 1 "update ceiling 60 (update_prio).*use 1..59" gcapsctl run --priority 60 -- true
rmmod gcaps
# a boost_prio at or above the ceiling is refused at load, with one line saying why
if insmod /modules/gcaps.ko update_prio=60 2>/dev/null; then fail "boost_prio=98 with update_prio=60 loaded"; fi
dmesg | grep -q "gcaps: boost_prio=98 is outside 1..59 (it must be below update_prio=60; or load with boost=0)" \
  || fail "no log line for the refused boost_prio"
if insmod /modules/gcaps.ko boost_prio=0 2>/dev/null; then fail "boost_prio=0 loaded"; fi
expect_error 1 'GCAPS_GPU_PRIORITY="150"' env GCAPS_GPU_PRIORITY=150 gpu_segment 5
expect_error 1 'GCAPS_GPU_PRIORITY="x"' env GCAPS_GPU_PRIORITY=x gpu_segment_rs 5

# --- without permission (uid 1000: no CAP_SYS_NICE, RLIMIT_RTPRIO 0)
expect_error 1 "SCHED_FIFO priority 10: permission denied" runas 1000 gcapsctl run --priority 10 -- true

# --- gcapsctl run gives the command its priorities
out=$(gcapsctl run --priority 42 --gpu-priority 30 --cpu 1 -- sh -c \
  'echo "$GCAPS_GPU_PRIORITY"; cat /proc/self/stat; taskset -p $$')
echo "$out"
[ "$(echo "$out" | sed -n 1p)" = 30 ] || fail "GCAPS_GPU_PRIORITY not 30"
set -- $(echo "$out" | sed -n 2p | sed 's/.*) //')   # fields 3.. of /proc/self/stat
shift 37; [ "$1 $2" = "42 1" ] || fail "rt_priority/policy '$1 $2', want '42 1' (SCHED_FIFO)"
echo "$out" | sed -n 3p | grep -q 'mask: 2$' || fail "not pinned to CPU 1"

echo "libgcaps tools: ok"
