#!/bin/sh
# Update costs per kind (STATS VER3) and gcapsctl calibrate on the emulated GPU. While a
# SCHED_FIFO 50 segment (H) runs, a SCHED_FIFO 10 client begins and ends 20 segments that
# stay pending (each begin and end keeps the decision: 40 FAST updates) and a SCHED_FIFO 60
# client begins and ends 25 segments that preempt H and hand the GPU back (each one a runlist
# submit: 50 SUBMIT updates). Both run without GPU contexts (no TSG events), and their closes
# at exit are real-time releases that keep the decision (2 more FAST updates). So, with the
# statistics reset just before: SUBMIT = submits = 50, FAST = 42, the update-delay samples
# (the 90 begins/ends) = SUBMIT + FAST - 2; per kind wall >= on-CPU (max and sum), every
# sample in one bucket of each histogram, the gate kinds 0 (checked by gcapsctl-calibrate,
# tools/gcapsctl/tests/calibrate.rs). gcapsctl calibrate's [platform] section goes through the
# analysis's own taskset parser there (epsilon, epsilon_fast, epsilon_cpu = the maxima + 20 %,
# rounded up to the ns). After a reset calibrate refuses in one line, exit 1. That under
# mechanism=reload; then the same under mechanism=gate with H's GPU work running throughout:
# each of B's begins preempts H (25 PREEMPT updates), each of its ends hands the GPU back
# (25 HANDOVER), L's 42 FAST as before, no SUBMIT; calibrate prints mechanism = "gate" with
# epsilon_preempt and epsilon_handover, which the analysis reads.
# vmtest-needs=libgcaps vmtest-needs=common-lib  vmtest-timeout=180
. /vmtest/common.sh   # set -eu, fail, expect_error, field, f, waitfor, waitline

cpus=$(grep -c ^processor /proc/cpuinfo)

# The scenario under mechanism $1, its files in $1/: H (the rest of the arguments: gpuclient's
# work options) runs; with the statistics reset, L's and B's round trips; stats and calibrate
# saved; H ended by $H_END (usr1: its end-on-go; kill: gpuclient --kill).
scenario() {
  m=$1; shift
  insmod /modules/gcaps.ko mechanism=$m
  insmod /modules/gcaps_simgpu.ko
  mkdir -p $m
  gpuclient --prio 50 --cpu 0 "$@" --tag H --report >$m/h.out & h=$!
  waitline $m/h.out STARTED
  [ "$(field $m/h.out STARTED state)" = 1 ] || fail "$m: H's segment is not running: $(cat $m/h.out)"
  gcapsctl status | grep -q "mechanism $m" || fail "$m: status does not say mechanism $m"
  gcapsctl stats --reset >/dev/null
  expect_error 1 "no $FIRST updates measured since load or the last reset" gcapsctl calibrate
  gpuclient --bench 25 --prio 60 --cpu 1 --no-gpu --tag B >$m/b.out || fail "$m: B failed: $(cat $m/b.out)"
  gpuclient --bench 20 --prio 10 --cpu 1 --no-gpu --tag L >$m/l.out || fail "$m: L failed: $(cat $m/l.out)"
  cat $m/l.out $m/b.out
  gcapsctl stats --format json >$m/stats.json
  gcapsctl stats >$m/stats.txt
  gcapsctl calibrate >$m/platform.toml || fail "$m: calibrate: $(cat $m/platform.toml)"
  gcapsctl calibrate --margin 50 --theta-ms 0.1 --timeslice-ms 2 --cpus 4 >$m/platform50.toml \
    || fail "$m: calibrate --margin 50"
  cat $m/stats.txt $m/platform.toml
  if [ "$H_END" = usr1 ]; then
    kill -USR1 $h
    wait $h || fail "$m: H failed"
  else
    gpuclient --kill $h >/dev/null
    wait $h 2>/dev/null || true
  fi
}

H_END=usr1 FIRST=SUBMIT scenario reload --work 5 --end-on-go
grep -q "^  SUBMIT  *50 " reload/stats.txt || fail "stats table: no SUBMIT row with 50 updates"
grep -q "^  FAST  *42 " reload/stats.txt || fail "stats table: no FAST row with 42 updates"
CALIBRATE_DIR=reload CALIBRATE_MECHANISM=reload CALIBRATE_SUBMIT=50 CALIBRATE_FAST=42 \
  CALIBRATE_CLOSES=2 CALIBRATE_CPUS=$cpus \
  gcapsctl-calibrate --ignored --test-threads=1 || fail "gcapsctl-calibrate"
# The figures for the record: the maxima per kind and what calibrate printed.
awk '/^  (SUBMIT|FAST) /' reload/stats.txt
grep -E '^(epsilon|epsilon_fast|epsilon_cpu) = ' reload/platform.toml

# Reset: both kinds empty again, calibrate refuses and names the kind.
gcapsctl stats --reset >/dev/null
expect_error 1 "no SUBMIT updates measured" gcapsctl calibrate
expect_error 2 "margin" gcapsctl calibrate --margin 1001
expect_error 2 "theta-ms" gcapsctl calibrate --theta-ms=-1
rmmod gcaps_simgpu
rmmod gcaps

# Gate: H's work item (10 s of GPU time, the emulated GPU's longest) runs from before the reset
# through B's round trips, which come first, so every begin of B finds H on the engine and
# preempts it (B's 25 round trips take milliseconds of H's GPU time each at most, under TCG);
# H is killed at the end (its work is never waited for).
H_END=kill FIRST=PREEMPT scenario gate --work 10000
grep -q '^mechanism = "gate"$' gate/platform.toml || fail "gate: no mechanism line"
CALIBRATE_DIR=gate CALIBRATE_MECHANISM=gate CALIBRATE_PREEMPT=25 CALIBRATE_HANDOVER=25 \
  CALIBRATE_FAST=42 CALIBRATE_CLOSES=2 CALIBRATE_CPUS=$cpus \
  gcapsctl-calibrate --ignored --test-threads=1 || fail "gate: gcapsctl-calibrate"
awk '/^  (PREEMPT|HANDOVER|FAST) /' gate/stats.txt
grep -E '^(epsilon|epsilon_fast|epsilon_cpu|epsilon_preempt|epsilon_handover) = ' gate/platform.toml
rmmod gcaps_simgpu
rmmod gcaps
echo "gcaps calibrate: ok"
