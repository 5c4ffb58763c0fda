#!/bin/sh
# gcaps.ko + gcaps_simgpu.ko end to end (issue 9): the three published failure scenarios of the
# prototype (docs/policy.md, "How the published defects are avoided") with real processes; each
# completes with no stuck task. vmtest-timeout=200
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, retry, gpu_load
theta_ns=200000

gpu_load theta_us=$((theta_ns / 1000)) rebuild_interval_ms=2 rebuild_seed=3

# Defect 1: two best-effort tasks inside segments at once; one ends while no real-time task is
# pending; the other must keep running (the prototype dropped it).
d1() {
t0=$(( $(now) + 2000000000 ))
gpuclient --work 60 --start-at $t0 --tag B1 --report >b1.out & b1=$!
gpuclient --work 20 --start-at $((t0 + 5000000)) --tag B2 --report >b2.out & b2=$!
wait $b1 $b2
cat b1.out b2.out
# precondition: both segments were open at once, B2 the shorter one started second
[ "$(f b2.out begun)" -lt "$(f b1.out end_call)" ] && [ "$(f b1.out begun)" -lt "$(f b2.out begin_call)" ] || return 2
[ "$(f b1.out gpu_end)" -gt "$(f b2.out gpu_end)" ] || fail "B1 should finish after B2"
# B1 shares with B2 until B2 ends, then runs alone: it ends within both works plus switches.
[ $(( $(f b1.out gpu_end) - $(f b1.out gpu_start) )) -le 100000000 ] || fail "B1 delayed after B2 ended"
echo "defect 1: both best-effort segments completed"
}
retry d1

# Defect 2: L (prio 10) holds the GPU, H (prio 50) preempts it, M (prio 30) pends; L ends its
# segment while preempted; H must keep running (the prototype dropped H mid-kernel), then M runs.
d2() {
t0=$(( $(now) + 2000000000 ))
gpuclient --prio 10 --cpu 1 --work 0 --hold-ms 100 --start-at $t0 --tag L --report >l.out & l=$!
gpuclient --prio 50 --cpu 0 --work 150 --start-at $((t0 + 20000000)) --tag H --report >h.out & h=$!
gpuclient --prio 30 --cpu 0 --work 10 --start-at $((t0 + 50000000)) --tag M --report >m.out & m=$!
wait $l $h $m
cat l.out h.out m.out
# precondition: L began first, then H, then M, and L ended while H ran
[ "$(f l.out begun)" -lt "$(f h.out begin_call)" ] && [ "$(f h.out begun)" -lt "$(f m.out begin_call)" ] || return 2
[ "$(f l.out end_call)" -gt "$(f h.out gpu_start)" ] && [ "$(f l.out end_call)" -lt "$(f h.out gpu_end)" ] && [ "$(f m.out begin_call)" -lt "$(f l.out end_call)" ] || return 2
[ "$(f l.out state)" = 1 ] && [ "$(f h.out state)" = 1 ] && [ "$(f m.out state)" = 2 ] || fail "states at begin: want L running, H running, M pending"
[ "$(f h.out preempt)" = 0 ] || fail "H was preempted when L ended"
[ $(( $(f h.out gpu_end) - $(f h.out gpu_start) )) -eq 150000000 ] || fail "H not alone on the GPU"
[ "$(f m.out gpu_start)" -ge "$(f h.out gpu_end)" ] || fail "M ran before H finished"
echo "defect 2: H kept the GPU when the preempted L ended; M ran after H"
}
retry d2

# Defect 3: the driver changes the runlist underneath (random rebuilds every ~2 ms, TSGs of
# other processes opened and closed) while real-time segments come and go: no needed update is
# skipped (each segment runs alone: from its submit, its work, plus theta unless its context
# was still loaded, exactly) and nothing sticks.
gpuclient --no-gcaps --hog --work 3 --tag N --report >n.out & n=$!
( for i in 1 2 3 4; do gpuclient --no-gcaps --work 1 --tag C$i >/dev/null; done ) & churn=$!
gpuclient --prio 50 --cpu 0 --work 10 --segments 10 --gap-ms 40 --tag RT --report >rt.out
wait $churn
kill -9 $n; wait $n 2>/dev/null || true
cat rt.out
[ "$(grep -c '^SEG ' rt.out)" = 10 ] || fail "segments missing"
awk '/^SEG / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      d = v["gpu_end"] - v["gpu_submit"]
      if (d != 10000000 && d != 10200000) { print "segment not alone: " $0; bad = 1 } }
     END { exit bad }' rt.out || fail "a real-time segment shared the GPU"
awk 'FNR == NR && /^SEG / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                            n++; b[n] = v["begun"]; e[n] = v["end_call"]; next }
     /^ITEM / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                for (j = 1; j <= n; j++)
                  if ((v["gpu_start"] > b[j] && v["gpu_start"] < e[j]) || (v["gpu_end"] > b[j] && v["gpu_end"] < e[j])) { print "hog ran in segment " j ": " $0; bad = 1 } }
     END { exit bad }' rt.out n.out || fail "a non-gcaps TSG ran inside a real-time segment"
echo "defect 3: $(stat random_rebuilds) random rebuilds, TSG churn; every segment ran alone"
[ "$(stat decode_errors)" = 0 ] || fail "engine decode errors"
[ "$(stat num_tsgs)" = 0 ] || fail "TSGs left"
gpu_unload
echo "gpu failure scenarios: ok"
