#!/bin/sh
# gcaps.ko + gcaps_simgpu.ko end to end (issue 9): a higher-priority segment preempts a lower
# one mid-work and the lower one resumes; equal priorities are first come, first served;
# kill -9 of a task inside a segment or of a pending task frees the GPU for the next one within
# one update delay. vmtest-timeout=200
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, retry, gpu_load
theta_ns=200000
tol_ns=10000000   # tolerance: TCG timer and wake-up jitter of the loaded VM (stated, printed)

gpu_load theta_us=$((theta_ns / 1000))

# 1. H (prio 50) begins 30 ms into L's (prio 10) 80 ms of work: L is preempted, H runs alone,
# L resumes after H's segment.
s1() {
t0=$(( $(now) + 2000000000 ))
gpuclient --prio 10 --cpu 1 --work 80 --start-at $t0 --tag L --report >l.out & l=$!
gpuclient --prio 50 --cpu 0 --work 10 --start-at $((t0 + 30000000)) --tag H --report >h.out & h=$!
wait $l $h
cat l.out h.out
# precondition: L was on the GPU when H began
[ "$(f l.out gpu_start)" -lt "$(f h.out begin_call)" ] && [ "$(f h.out begin_call)" -lt "$(f l.out gpu_end)" ] || return 2
[ "$(f h.out gpu_end)" -lt "$(f l.out gpu_end)" ] || fail "L finished before H"
[ "$(f l.out preempt)" -ge 1 ] || fail "L not preempted"
[ "$(f h.out preempt)" = 0 ] || fail "H preempted"
[ "$(f h.out state)" = 1 ] || fail "H not running at begin"
[ $(( $(f h.out gpu_end) - $(f h.out gpu_submit) )) -eq $((theta_ns + 10000000)) ] || fail "H not alone on the GPU"
[ $(( $(f l.out gpu_end) - $(f l.out gpu_start) )) -ge 90000000 ] || fail "L did not wait for H"
lat=$(( $(f h.out gpu_start) - $(f h.out begin_call) ))
U=$(updmax l.out h.out)
echo "FIGURE preemption: H's GPU start $(us $lat) us after its begin call (theta $(us $theta_ns) us, update delay $(us $U) us); L resumed after H and finished $(us $(( $(f l.out gpu_end) - $(f h.out gpu_end) ))) us after H"
}
retry s1

# 2. Equal priorities: first come, first served (E2 pends until E1's segment ends).
s2() {
t0=$(( $(now) + 2000000000 ))
gpuclient --prio 30 --cpu 1 --work 40 --start-at $t0 --tag E1 --report >e1.out & e1=$!
gpuclient --prio 30 --cpu 0 --work 10 --start-at $((t0 + 15000000)) --tag E2 --report >e2.out & e2=$!
wait $e1 $e2
cat e1.out e2.out
# precondition: E2 began while E1's segment was open
[ "$(f e1.out begun)" -lt "$(f e2.out begin_call)" ] && [ "$(f e2.out begin_call)" -lt "$(f e1.out end_call)" ] || return 2
[ "$(f e2.out state)" = 2 ] || fail "E2 not pending at begin"
[ "$(f e1.out preempt)" = 0 ] || fail "E1 preempted by an equal priority"
[ $(( $(f e1.out gpu_end) - $(f e1.out gpu_start) )) -eq 40000000 ] || fail "E1 not alone"
[ "$(f e2.out gpu_start)" -ge "$(f e1.out gpu_end)" ] || fail "E2 ran before E1 finished"
echo "fcfs: E2 pending, ran $(us $(( $(f e2.out gpu_start) - $(f e1.out gpu_end) ))) us after E1's GPU end"
}
retry s2

# 3. kill -9 of the task inside a segment: the pending one gets the GPU within one update delay.
s3() {
t0=$(( $(now) + 2000000000 ))
gpuclient --prio 50 --cpu 0 --work 3000 --start-at $t0 --tag K --report >k.out & k=$!
gpuclient --prio 30 --cpu 1 --work 10 --start-at $((t0 + 50000000)) --tag P --report >p.out & p=$!
gpuclient --sleep-until $((t0 + 300000000))
gpuclient --kill $k >kill.out
wait $p; wait $k 2>/dev/null || true
cat p.out kill.out
# precondition: K held the GPU when P began (P pending) and P began before the kill
[ "$(f p.out state)" = 2 ] && [ "$(f p.out begin_call)" -lt "$(field kill.out KILL at)" ] || return 2
tk=$(field kill.out KILL at); tx=$(field kill.out KILL exited)
U=$(updmax l.out h.out e1.out e2.out p.out)
lat=$(( $(f p.out gpu_start) - tk ))
echo "FIGURE kill: P's GPU start $(us $lat) us after kill -9 of the segment holder; the holder's exit (files closed) took $(us $((tx - tk))) us; update delay $(us $U) us, theta $(us $theta_ns) us, tol $(us $tol_ns) us"
# The GPU is freed by the holder's exit (closing its files): at most one update delay (+ theta
# to switch P in, + tolerance) after the exit completed.
[ "$(f p.out gpu_start)" -le $((tx + U + theta_ns + tol_ns)) ] || fail "GPU not freed within one update delay of the exit"
}
retry s3

# 4. kill -9 of a pending task: nothing changes for the running one; the next pending one runs.
s4() {
t0=$(( $(now) + 2000000000 ))
gpuclient --prio 50 --cpu 0 --work 300 --start-at $t0 --tag K2 --report >k2.out & k2=$!
gpuclient --prio 40 --cpu 1 --work 10 --start-at $((t0 + 30000000)) --tag P1 --report >p1.out & p1=$!
gpuclient --prio 30 --cpu 1 --work 10 --start-at $((t0 + 40000000)) --tag P2 --report >p2.out & p2=$!
gpuclient --sleep-until $((t0 + 100000000))
kill -9 $p1
wait $k2 $p2; wait $p1 2>/dev/null || true
cat k2.out p2.out
# precondition: P2 began while K2's segment was open
[ "$(f p2.out state)" = 2 ] || return 2
[ "$(f k2.out preempt)" = 0 ] || fail "K2 preempted"
[ $(( $(f k2.out gpu_end) - $(f k2.out gpu_start) )) -eq 300000000 ] || fail "K2 not alone"
[ "$(f p2.out gpu_start)" -ge "$(f k2.out gpu_end)" ] || fail "P2 ran before K2 ended"
echo "kill pending: K2 undisturbed, P2 ran $(us $(( $(f p2.out gpu_start) - $(f k2.out gpu_end) ))) us after K2's GPU end"
}
retry s4
[ "$(stat num_tsgs)" = 0 ] || fail "TSGs left"
gpu_unload
echo "gpu preemption: ok"
