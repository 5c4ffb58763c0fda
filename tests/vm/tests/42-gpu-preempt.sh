#!/bin/sh
# gcaps.ko + gcaps_simgpu.ko end to end (issue 9): a higher-priority segment preempts a lower
# one mid-work and the lower one resumes; equal priorities are first come, first served;
# kill -9 of a task inside a segment or of a pending task frees the GPU for the next one within
# one update delay. The clients are ordered by events (gpuclient --go, --wait-go, --end-on-go
# and their STARTED lines), not by start times; a section is retried only when the clients'
# record shows that its precondition did not hold (a process woke too late). vmtest-timeout=200
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, retry, gpu_load
theta_ns=200000
tol_ns=10000000   # tolerance: TCG timer and wake-up jitter of the loaded VM (stated, printed)

gpu_load theta_us=$((theta_ns / 1000))

# 1. H (prio 50) begins 30 ms after L (prio 10) queued its 300 ms of work (L's go): L is
# preempted mid-work, H runs alone, L resumes after H's segment.
s1() {
rm -f h.out l.out   # new files for every attempt (tests/vm/README.md)
gpuclient --prio 50 --cpu 0 --work 10 --wait-go --delay-ms 30 --tag H --report >h.out & h=$!
waitline h.out CLIENT
gpuclient --prio 10 --cpu 1 --work 300 --go $h --tag L --report >l.out & l=$!
wait $l && wait $h || fail "a client failed"
cat l.out h.out
# precondition: L was on the GPU when H began (H woke within L's 300 ms)
[ "$(f l.out gpu_start)" -lt "$(f h.out begin_call)" ] && [ "$(f h.out begin_call)" -lt "$(f l.out gpu_end)" ] || return 2
[ "$(f h.out gpu_end)" -lt "$(f l.out gpu_end)" ] || fail "L finished before H"
[ "$(f l.out preempt)" -ge 1 ] || fail "L not preempted"
[ "$(f h.out preempt)" = 0 ] || fail "H preempted"
[ "$(f h.out state)" = 1 ] || fail "H not running at begin"
[ $(( $(f h.out gpu_end) - $(f h.out gpu_submit) )) -eq $((theta_ns + 10000000)) ] || fail "H not alone on the GPU"
[ $(( $(f l.out gpu_end) - $(f l.out gpu_start) )) -ge 310000000 ] || fail "L did not wait for H"
lat=$(( $(f h.out gpu_start) - $(f h.out begin_call) ))
U=$(updmax l.out h.out)
echo "FIGURE preemption: H's GPU start $(us $lat) us after its begin call (theta $(us $theta_ns) us, update delay $(us $U) us); L resumed after H and finished $(us $(( $(f l.out gpu_end) - $(f h.out gpu_end) ))) us after H"
}
retry s1

# 2. Equal priorities: first come, first served (E2 pends until E1's segment ends). E2 begins
# once E1 has queued its work, and E1 ends its segment only once E2 has begun (E2's go): E2
# begins inside E1's segment by construction.
gpuclient --prio 30 --cpu 1 --work 40 --end-on-go --tag E1 --report >e1.out & e1=$!
waitline e1.out CLIENT
gpuclient --prio 30 --cpu 0 --work 10 --wait-go --go $e1 --tag E2 --report >e2.out & e2=$!
waitline e2.out CLIENT
waitline e1.out STARTED
kill -USR1 $e2
wait $e1 $e2
cat e1.out e2.out
[ "$(f e1.out begun)" -lt "$(f e2.out begin_call)" ] && [ "$(f e2.out begun)" -lt "$(f e1.out end_call)" ] || fail "E2 did not begin inside E1's segment"
[ "$(f e2.out state)" = 2 ] || fail "E2 not pending at begin"
[ "$(f e1.out preempt)" = 0 ] || fail "E1 preempted by an equal priority"
[ $(( $(f e1.out gpu_end) - $(f e1.out gpu_start) )) -eq 40000000 ] || fail "E1 not alone"
[ "$(f e2.out gpu_start)" -ge "$(f e1.out end_call)" ] || fail "E2 ran before E1's segment ended"
echo "fcfs: E2 pending, ran $(us $(( $(f e2.out gpu_start) - $(f e1.out end_call) ))) us after E1's segment ended"

# 3. kill -9 of the task inside a segment: the pending one gets the GPU within one update delay.
# P begins once K has queued its 3 s of work (K's go); K is killed once P has begun and queued
# (P's STARTED line).
s3() {
rm -f p.out k.out
gpuclient --prio 30 --cpu 1 --work 10 --wait-go --tag P --report >p.out & p=$!
waitline p.out CLIENT
gpuclient --prio 50 --cpu 0 --work 3000 --go $p --tag K --report >k.out & k=$!
waitline p.out STARTED
gpuclient --kill $k >kill.out || fail "K gone before the kill"
wait $p || fail "P failed"; wait $k 2>/dev/null || true
cat k.out p.out kill.out
tk=$(field kill.out KILL at); tx=$(field kill.out KILL exited)
# precondition: the kill came before K's work could have ended (P woke within K's 3 s)
[ "$tk" -lt $(( $(field k.out STARTED submit) + 3000000000 )) ] || return 2
[ "$(field k.out STARTED state)" = 1 ] || fail "K not running at begin"
[ "$(f p.out state)" = 2 ] || fail "P not pending at begin"
U=$(updmax l.out h.out e1.out e2.out p.out)
lat=$(( $(f p.out gpu_start) - tk ))
echo "FIGURE kill: P's GPU start $(us $lat) us after kill -9 of the segment holder; the holder's exit (files closed) took $(us $((tx - tk))) us; update delay $(us $U) us, theta $(us $theta_ns) us, tol $(us $tol_ns) us"
# The GPU is freed by the holder's exit (closing its files): at most one update delay (+ theta
# to switch P in, + tolerance) after the exit completed.
[ "$(f p.out gpu_start)" -gt "$tk" ] || fail "P ran before K was killed"
[ "$(f p.out gpu_start)" -le $((tx + U + theta_ns + tol_ns)) ] || fail "GPU not freed within one update delay of the exit"
}
retry s3

# 4. kill -9 of a pending task: nothing changes for the running one; the next pending one runs.
# P1 begins once K2 has queued its work, P2 once P1 has (the goes); P1 is killed once P2 has
# begun and queued (P2's STARTED line); K2 ends its segment only after the kill (its go), so
# P1 and P2 pend behind it however slowly the VM runs.
rm -f p2.out p1.out k2.out
gpuclient --prio 30 --cpu 1 --work 10 --wait-go --tag P2 --report >p2.out & p2=$!
waitline p2.out CLIENT
gpuclient --prio 40 --cpu 1 --work 10 --wait-go --go $p2 --tag P1 --report >p1.out & p1=$!
waitline p1.out CLIENT
gpuclient --prio 50 --cpu 0 --work 100 --go $p1 --end-on-go --tag K2 --report >k2.out & k2=$!
waitline p2.out STARTED
gpuclient --kill $p1 >kill2.out || fail "P1 gone before the kill"
kill -USR1 $k2
wait $k2 && wait $p2 || fail "a client failed"; wait $p1 2>/dev/null || true
cat k2.out p1.out p2.out kill2.out
[ "$(field p1.out STARTED state)" = 2 ] && [ "$(f p2.out state)" = 2 ] || fail "P1 and P2 not pending at begin"
[ -z "$(f p1.out gpu_start)" ] || fail "the killed P1 ran its segment"
[ "$(field kill2.out KILL exited)" -lt "$(f k2.out end_call)" ] || fail "P1 exited after K2's end (the go came early)"
[ "$(f k2.out preempt)" = 0 ] || fail "K2 preempted"
[ $(( $(f k2.out gpu_end) - $(f k2.out gpu_start) )) -eq 100000000 ] || fail "K2 not alone"
[ "$(f p2.out gpu_start)" -ge "$(f k2.out end_call)" ] || fail "P2 ran before K2's segment ended"
echo "kill pending: K2 undisturbed, P2 ran $(us $(( $(f p2.out gpu_start) - $(f k2.out end_call) ))) us after K2's end call"
[ "$(stat num_tsgs)" = 0 ] || fail "TSGs left"
gpu_unload
echo "gpu preemption: ok"
