#!/bin/sh
# The deferred close and what it hands over (docs/module.md "Client lifecycle"):
#  0. /dev/gcaps is a character device of its own (a major of its own, not the misc major 10),
#     mode 0666.
#  1. Inside a real-time update that holds the update lock (A, SCHED_FIFO 50 with a TSG, begins
#     while the emulated engine is stalled: its update waits in its submit, as 57 does):
#     a. a best-effort open of /dev/gcaps waits for the update lock (O, asleep in
#        gcaps_rust_open) and another misc device's open (/dev/gcaps_simgpu_ctl) still
#        completes: gcaps's open waits without misc_mtx (as a misc device it held it);
#     b. a live best-effort process closes its /dev/gcaps file (P): close() returns at once, the
#        release handed over (before, it waited for the update lock).
#  2. A best-effort client with an open segment (V) is killed inside A's update; its file is
#     handed over. A LIST (2), STATUS (3) or STATS (4) call from a file opened before (gcapsq),
#     queued behind A's update, answers without V: it applies the hand-over itself (the work
#     item cannot take the lock while the call waits). Before, V was listed and counted.
#  5. Under a never-pausing real-time load (L, SCHED_FIFO 20, begin/end in a loop on CPU 1), a
#     killed best-effort client (E) exits while the load runs (never asleep in its release),
#     and its client is gone from LIST while the load still runs.
# Every wait is for an event (polled, at most 15 s); each stall lasts until the test ends it
# (simgpu's submit timeout, 10 s, bounds it).
# vmtest-timeout=240
# vmtest-needs=gpu-lib vmtest-needs=libgcaps
. /vmtest/gpu.sh   # set -eu, fail, field, waitfor, waitline, gpu_load, gpu_unload

failed=
bad() { echo "FAIL: $*"; failed=1; }
# pstate <pid>: its state letter (/proc/<pid>/stat), "gone" once reaped
pstate() { st=$(cat "/proc/$1/stat" 2>/dev/null) || { echo gone; return; }; st=${st##*) }; echo "${st%% *}"; }
# exited <pid>: gone, or a zombie (its files were released before it became one)
exited() { case $(pstate "$1") in gone|Z) ;; *) return 1 ;; esac; }
# asleep <pid> <functions>: asleep with one of <functions> (an extended regex) on its kernel
# stack (D: a killable wait; S on 5.10, where the update lock's killable wait is interruptible)
asleep() { case $(pstate "$1") in D|S) grep -Eqs "$2" "/proc/$1/stack" ;; *) return 1 ;; esac; }
# The update lock's wait as a stack shows it: the ioctl entry, or the glue's lock functions. A
# Rust frame without a frame record (arm64 builds Rust without forced frame pointers) hides
# its caller from the unwinder, so STATS, not inlined into the entry, may show only the glue.
in_update_lock='gcaps_rust_ioctl|gcaps_glue_lock_killable|gcaps_rt_mutex_lock_killable\b'

# clients: the pids LIST shows (gcapsctl's own open applies every hand-over first)
clients() { gcapsctl status | awk '$1 ~ /^[0-9]+$/ { print $1 }' | sort -n | tr '\n' ' '; }

gpu_load submit_timeout_ms=10000

# 0. the device node
major=$(awk '/^Block devices:/ { exit } $2 == "gcaps" { print $1 }' /proc/devices)
[ -n "$major" ] && [ "$major" != 10 ] || bad "0: /proc/devices: gcaps has no character major of its own (got '$major')"
# shellcheck disable=SC2046
set -- $(ls -l /dev/gcaps)
[ "$1" = crw-rw-rw- ] && [ "${5%,}" = "$major" ] \
  || bad "0: /dev/gcaps: '$*', want a character device crw-rw-rw- of major $major"
echo "0: /dev/gcaps: '$1' major ${5%,} (gcaps's in /proc/devices: '$major'; misc is 10)"

# gcapsq keeps its file open and answers queries from q.in (docs at tests/vm/progs/gcapsq.c)
mkfifo q.in
gcapsq <q.in >q.out & q=$!
exec 7>q.in
waitline q.out READY
# ask <query>: gcapsq runs it (one query at a time); answer: its answer (waited for)
ask() { kind=$(echo "$1" | tr a-z A-Z); nth=$(( $(grep -c "^$kind " q.out || true) + 1 )); echo "$1" >&7; }
answer() { waitfor "gcapsq: no answer $nth to $kind" eval "[ \$(grep -c '^$kind ' q.out) -ge $nth ]"
           grep "^$kind " q.out | sed -n "${nth}p"; }

# A (a GPU context of its own, so its begin changes the runlist) begins on its go, with the
# engine stalled: its update then holds the update lock in its submit.
in_submit() { grep -qs simgpu_submit_wait "/proc/$a/stack"; }
start_a() {
  rm -f a.out
  gpuclient --prio 50 --cpu 0 --work 0 --wait-go --end-on-go --tag A --report >a.out & a=$!
  waitline a.out CLIENT
  simgpuctl stall 10000 >/dev/null
  kill -USR1 $a
  waitfor "A's update did not reach its submit" in_submit
}
# end_a: the stall ends, A's begin returns, A ends its segment and exits
end_a() { simgpuctl stall 0 >/dev/null; waitline a.out STARTED; kill -USR1 $a; wait $a; }
# inside <what>: <what> happened while A's update still held the lock
inside() { in_submit || bad "$1 only after A's update (it waited for the update lock)"; }

# 1a. inside an update: a best-effort open waits for the update lock, another misc device opens
start_a
sh -c 'exec 5</dev/gcaps; echo OPENED' >o.out & o=$!
waitfor "O's open does not wait for the update lock" eval "asleep $o gcaps_rust_open || ! in_submit"
inside "1a: O's open queued"
sh -c 'exec 6</dev/gcaps_simgpu_ctl && echo MISC' >m.out & m=$!
waitfor "the misc device's open did not return" eval "grep -qs '^MISC' m.out || ! in_submit"
inside "1a: /dev/gcaps_simgpu_ctl opened"
in_submit && grep -qs '^OPENED' o.out && bad "1a: O's open returned inside A's update"
kill -9 $o 2>/dev/null || true; wait $o 2>/dev/null || true
wait $m
echo "1a: inside A's update O waits in its open of /dev/gcaps and /dev/gcaps_simgpu_ctl opened"
end_a

# 1b. inside an update: a live best-effort process closes its file
mkfifo p.go
sh -c 'exec 5</dev/gcaps; echo OPEN; read -r x <p.go; exec 5<&-; echo CLOSED' >p.out & p=$!
waitline p.out OPEN
start_a
echo ok >p.go
waitfor "P's close did not return" eval "grep -qs '^CLOSED' p.out || ! in_submit"
inside "1b: P's close returned"
wait $p
echo "1b: inside A's update P's close returned (its release handed over)"
end_a

# 2-4. LIST, STATUS, STATS after a hand-over, each asked inside an update
n=0
for query in list status stats; do
  n=$((n + 1))
  waitfor "clients left from before round $n: $(clients)" eval '[ "$(clients)" = "$q " ]'
  rm -f v.out
  gpuclient --no-gpu --end-on-go --tag V --report >v.out & v=$!
  waitline v.out STARTED
  start_a
  kill -9 $v
  waitfor "V did not exit" eval "exited $v || ! in_submit"
  inside "V exited"
  ask $query
  waitfor "gcapsq's $query does not wait for the update lock" eval "asleep $q '$in_update_lock' || ! in_submit"
  inside "gcapsq's $query queued"
  simgpuctl stall 0 >/dev/null
  want=$(printf '%s\n' "$q" "$a" | sort -n | tr '\n' ,)
  case $query in
    list)   r=$(answer);   [ "$r" = "LIST n=2 pids=${want%,}" ] || bad "2: '$r', want A and gcapsq (${want%,}), not V ($v)" ;;
    status) r=$(answer); [ "${r%% rt*}" = "STATUS clients=2" ] || bad "3: '$r', want 2 clients (A, gcapsq), not V's" ;;
    stats)  r=$(answer);  [ "$r" = "STATS clients=2 ended_by_close=3" ] || bad "4: '$r', want 2 clients and V's 3 segments ended by close" ;;
  esac
  echo "$((n + 1)): $query after V's hand-over: $r"
  wait $v 2>/dev/null || true
  end_a
done

# 5. a never-pausing real-time load: L loops begin/end (each a runlist submit) on CPU 1
waitfor "clients left before the load: $(clients)" eval '[ "$(clients)" = "$q " ]'
gpuclient --no-gpu --end-on-go --tag E --report >e.out & e=$!
waitline e.out STARTED
gpuclient --no-gpu --prio 20 --cpu 1 --bench 2000000000 --tag L >l.out & l=$!
waitline l.out CLIENT
running() { ! exited $l; }
kill -9 $e
waitfor "E did not exit under the load (state $(pstate $e))" exited $e
running || fail "5: the load ended before E exited"
wait $e 2>/dev/null || true
no_e() { ask list; r=$(answer); case $r in LIST*) ;; *) fail "5: no LIST answer" ;; esac
         case ",${r#*pids=}," in *,$e,*) return 1 ;; esac; }
waitfor "E's client still listed under the load" no_e
running || fail "5: the load ended before E's client was removed"
echo "5: E exited and its client was removed while L's load ran ($r)"
kill -9 $l; wait $l 2>/dev/null || true

exec 7>&-
wait $q
gpu_unload
[ -z "$failed" ] || exit 1
echo "deferred close: ok"
