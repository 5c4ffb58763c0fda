#!/bin/sh
# gcapsctl check (issue 18): each setup problem of docs/jetson.md is reported with its fix, on
# the live system: no module (FAIL, exit 1), module without a GPU driver (WARN), real-time
# throttling on (WARN with the kernel's figures) and off, a user without real-time priority
# (WARN), the update ceiling from the module's parameter, the bound emulated GPU (ok).
# vmtest-needs=libgcaps vmtest-needs=common-lib  vmtest-timeout=60
. /vmtest/common.sh   # set -eu, fail, expect_error, field, f

rt=/proc/sys/kernel/sched_rt_runtime_us
saved=$(cat $rt)
restore() { echo "$saved" >$rt; }
trap restore EXIT

# status <output> <check>: the status word of one check's row
status() { echo "$1" | awk -v c="$2" '$1 == c { print $2; exit }'; }

# --- no module: two failures, exit 1, one error line
expect_error 1 "check: 2 failed (module, device)" gcapsctl check
out=$(gcapsctl check 2>/dev/null || true)
echo "$out"
[ "$(status "$out" module)" = FAIL ] || fail "module not FAIL without gcaps"
echo "$out" | grep -q "fix: load it: insmod gcaps.ko" || fail "no fix for the module"

# --- module loaded with update_prio=60, no GPU driver, throttling on
insmod /modules/gcaps.ko update_prio=60 boost_prio=50
echo 950000 >$rt
out=$(gcapsctl check) || fail "warnings alone must not fail the check"
echo "$out"
[ "$(status "$out" module)" = ok ] && [ "$(status "$out" device)" = ok ] || fail "module/device not ok"
echo "$out" | grep -q "SCHED_FIFO 60, the running segment's owner at SCHED_FIFO 50 (holder boost): give analysed tasks priorities 1..49" \
  || fail "ceiling and boost not read"
[ "$(status "$out" backend)" = WARN ] || fail "no backend not a warning"
[ "$(status "$out" rt-throttling)" = WARN ] || fail "throttling not a warning"
echo "$out" | grep -q "stopped after 950000 us of every 1000000 us" || fail "throttling figures"
[ "$(status "$out" rt-priority)" = ok ] || fail "root (CAP_SYS_NICE) not ok"
out=$(runas 1000 gcapsctl check)
[ "$(status "$out" rt-priority)" = WARN ] || fail "uid 1000 without RLIMIT_RTPRIO not a warning"

# --- the emulated GPU bound, throttling off: nothing to warn about
insmod /modules/gcaps_simgpu.ko
echo -1 >$rt
out=$(gcapsctl check --format json)
echo "$out"
echo "$out" | grep -q '"status": "warn"\|"status": "fail"' && fail "a warning on a good setup"
echo "$out" | grep -q '"detail": "simgpu bound (emulated gv11b, backend ABI 3)"' || fail "backend not named"
echo "$out" | grep -q '"detail": "off (sched_rt_runtime_us = -1)"' || fail "throttling off not seen"
rmmod gcaps_simgpu
rmmod gcaps
echo "gcapsctl check: ok"
