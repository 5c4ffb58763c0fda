#!/bin/sh
# A killed best-effort process never waits in its close for the real-time updaters; a killed
# real-time one waits its turn at the update ceiling (the release hand-off, docs/module.md
# "Client lifecycle"). Before, every release took the update lock uninterruptibly at the
# closer's own priority once it was below the ceiling, so a killed best-effort client queued
# behind every real-time updater (the hung-task detector reported such waits in the stress tests).
#
# K (SCHED_FIFO 10) and B (best-effort) have segments open. The emulated engine is stalled and
# A (SCHED_FIFO 50, with a TSG) begins: its update holds the update lock while its submit waits
# for the engine (until the test ends the stall; simgpu's submit timeout is 10 s). Inside A's
# update (A's kernel stack shows it in its submit):
#  - B is killed and exits: its release found the lock taken and handed its client over (with
#    its file's pid reference) instead of waiting;
#  - K is killed and waits in its release (its state and stack): for the update lock, at the
#    ceiling; it does not exit.
# The stall ends: A's begin returns RUNNING; K's release follows at the ceiling, and as a
# real-time update it first removes the handed-over client: once K is reaped, LIST shows A
# alone at once. STATS counts both segments as ended by close; the trace has their two CLOSE
# events with the ENDED flag. Without the hand-off B exits only after A's update (the test fails).
# Every wait is for an event (polled, at most 15 s).
# vmtest-timeout=120
# vmtest-needs=gpu-lib vmtest-needs=libgcaps
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

# pstate <pid>: its state letter (/proc/<pid>/stat), "gone" once reaped
pstate() { st=$(cat "/proc/$1/stat" 2>/dev/null) || { echo gone; return; }; st=${st##*) }; echo "${st%% *}"; }
# exited <pid>: gone, or a zombie (its files were released before it became one)
exited() { case $(pstate "$1") in gone|Z) ;; *) return 1 ;; esac; }
# B is killed inside A's update: it exits while A is still in its submit
kill -9 $b
b_exited() {
  in_submit || { simgpuctl stall 0 >/dev/null; fail "B exited only after A's update (its close waited for the update lock)"; }
  exited $b
}
waitfor "B did not exit" b_exited
echo "B exited while A's update held the lock (in its submit)"
# K is killed inside A's update: it waits for the update lock, at the ceiling
kill -9 $k
# waits <pid>: asleep (D) in gcaps's release
waits() { [ "$(pstate "$1")" = D ] && grep -qs gcaps_rust_release "/proc/$1/stack"; }
waitfor "K does not wait in its release" waits $k
in_submit || fail "A's update left its submit before K waited in its release"
grep -q "^STARTED" a.out && fail "A's begin returned while its submit was pending"
echo "K waits in its release (for the update lock, at the ceiling)"

# the stall ends: A runs; K's release (a real-time update) removes B's client too
simgpuctl stall 0 >/dev/null
wait $k $b 2>/dev/null || true
clients() { gcapsctl status | awk '$1 ~ /^[0-9]+$/ { print $1 }' | sort | tr '\n' ' '; }
[ "$(clients)" = "$a " ] || fail "after K was reaped LIST shows $(clients), want A ($a) alone"
waitline a.out STARTED
[ "$(field a.out STARTED state)" = 1 ] || fail "A not running at its begin"
gcapsctl stats >st.txt; cat st.txt
grep -q "ended by close 2 " st.txt || fail "STATS: want 2 segments ended by close"
gcapsctl trace >tr.txt
for p in $k $b; do
  awk -v p="$p" '$3 == "close" && $5 == p && $NF ~ /ended/' tr.txt | grep -q . || { cat tr.txt; fail "trace: no CLOSE event of $p that ended its segment"; }
done
echo "A running; K's and B's clients removed by K's release"

kill -USR1 $a; wait $a
gpu_unload
echo "release hand-off: ok"
