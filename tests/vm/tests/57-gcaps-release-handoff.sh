#!/bin/sh
# A killed process never waits in its close for another thread's update (the release hand-off,
# docs/module.md "Client lifecycle"). Before, release took the update lock uninterruptibly, so
# a killed client queued behind every real-time updater (the hung-task detector reported such
# waits in the stress tests).
#
# K (SCHED_FIFO 10) and B (best-effort) have segments open. The emulated engine is stalled and
# A (SCHED_FIFO 50, with a TSG) begins: its update holds the update lock while its submit waits for the
# engine (until the test ends the stall; simgpu's submit timeout is 10 s). K and B are killed
# (SIGKILL) inside A's update:
#  - both exit while A's update is still in its submit (A's kernel stack): their releases found the lock taken, their waits ended by the kill, and they
#    handed their clients over (with their files' pid references) instead of waiting;
#  - once the stall ends, A's begin returns RUNNING and the work item removes both clients:
#    LIST shows A alone, STATS counts both segments as ended by close, the trace has their two
#    CLOSE events with the ENDED flag.
# Without the hand-off K and B exit only after A's update: the test fails ("exited only after").
# Every wait is for an event (polled, at most 15 s).
# vmtest-timeout=120
# vmtest-needs=gpu-lib vmtest-needs=libgcaps
# vmtest-arch=x86_64 (gcapsctl is built for the host, not cross-built for arm64 yet)
. /vmtest/gpu.sh   # set -eu, fail, field, waitfor, waitline, gpu_load, gpu_unload

gpu_load submit_timeout_ms=10000

gpuclient --no-gpu --prio 10 --cpu 1 --end-on-go --tag K --report >k.out & k=$!
waitline k.out STARTED
gpuclient --no-gpu --end-on-go --tag B --report >b.out & b=$!
waitline b.out STARTED
[ "$(field k.out STARTED state)" = 1 ] && [ "$(field b.out STARTED state)" = 2 ] \
  || fail "states at begin: want K running, B pending"

# A (a GPU context of its own, so that its begin changes the runlist) begins on its go; its
# update is then in its submit, which the stalled engine does not take. (simgpuctl stats waits
# for the runlist lock, which the submit holds: A's place is read from /proc/<pid>/stack.)
gpuclient --prio 50 --cpu 0 --work 0 --wait-go --end-on-go --tag A --report >a.out & a=$!
waitline a.out CLIENT
simgpuctl stall 10000 >/dev/null
kill -USR1 $a
in_submit() { grep -qs simgpu_submit_wait "/proc/$a/stack"; }
waitfor "A's update did not reach its submit" in_submit

# K and B are killed inside A's update
kill -9 $k $b
# exited <pid>: gone, or a zombie (its files were released before it became one)
exited() { st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0; st=${st##*) }; [ "${st%% *}" = Z ]; }
both_exited() {
  in_submit || { simgpuctl stall 0 >/dev/null; fail "K and B exited only after A's update (their closes waited for the update lock)"; }
  exited $k && exited $b
}
waitfor "K and B did not exit" both_exited
in_submit || fail "A's update left its submit before K and B had exited"
grep -q "^STARTED" a.out && fail "A's begin returned while its submit was pending"
wait $k $b 2>/dev/null || true
echo "K and B exited while A's update held the lock (in its submit)"

# the stall ends: A runs, and the handed-over clients are removed
simgpuctl stall 0 >/dev/null
waitline a.out STARTED
[ "$(field a.out STARTED state)" = 1 ] || fail "A not running at its begin"
clients() { gcapsctl status | awk '$1 ~ /^[0-9]+$/ { print $1 }' | sort | tr '\n' ' '; }
only_a() { [ "$(clients)" = "$a " ]; }
waitfor "the handed-over clients were not removed" only_a
gcapsctl stats >st.txt; cat st.txt
grep -q "ended by close 2 " st.txt || fail "STATS: want 2 segments ended by close"
gcapsctl trace >tr.txt
for p in $k $b; do
  awk -v p="$p" '$3 == "close" && $5 == p && $NF ~ /ended/' tr.txt | grep -q . || { cat tr.txt; fail "trace: no CLOSE event of $p that ended its segment"; }
done
echo "A running; K's and B's clients removed by the work item"

kill -USR1 $a; wait $a
gpu_unload
echo "release hand-off: ok"
