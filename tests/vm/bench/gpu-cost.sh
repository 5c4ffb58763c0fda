#!/bin/sh
# Benchmark (make vm-bench; reports, and asserts only that the swap case swapped): begin+end
# round trip of /dev/gcaps against a trivial syscall, without a runlist change (best-effort
# caller; real-time caller alone on the GPU) and with a runlist swap (real-time caller while
# another process has a TSG), and that swap again under mechanism=gate (channel gating, no
# submit: asserted). vmtest-timeout=180
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, retry, gpu_load
n=300
insmod /modules/gcaps.ko mechanism=reload
insmod /modules/gcaps_simgpu.ko
[ "$(stat bound)" = 1 ] || fail "simgpu did not bind to gcaps"
gpuclient --bench $n --tag be-nochange | tee bench.out
gpuclient --bench $n --prio 50 --tag rt-nochange | tee -a bench.out
s0=$(stat submits)
gpuclient --no-gcaps --work 1 --delay-ms 600000 --tag idle >idle.out & idle=$!
waitline idle.out CLIENT
s1=$(stat submits)
gpuclient --bench $n --prio 50 --tag rt-swap | tee -a bench.out
s2=$(stat submits)
kill -9 $idle; wait $idle 2>/dev/null || true
swaps=$((s2 - s1))
echo "runlist submits during the swap benchmark: $swaps (2 per round trip expected: $((2 * n)))"
[ $swaps -ge $((2 * n)) ] || fail "the swap benchmark did not change the runlist"
gpu_unload

# The same swap under mechanism=gate: each begin and end gates the idle TSG's channels (a
# hand-over: no submit, no preempt, its work queue is empty).
insmod /modules/gcaps.ko mechanism=gate
insmod /modules/gcaps_simgpu.ko
gpuclient --no-gcaps --work 1 --delay-ms 600000 --tag idle >idle.out & idle=$!
waitline idle.out CLIENT
s1=$(stat submits) g1=$(stat gates)
gpuclient --bench $n --prio 50 --tag rt-gate-swap | tee -a bench.out
s2=$(stat submits) g2=$(stat gates)
kill -9 $idle; wait $idle 2>/dev/null || true
# The driver's own rebuilds at the bench client's TSG open and close are its only submits (as
# in the reload swap's 2 * n + 2).
echo "during the gate swap benchmark: $((g2 - g1)) gates (2 per round trip expected: $((2 * n))), $((s2 - s1)) runlist submits (2 expected: the client's TSG open and close)"
[ $((g2 - g1)) -ge $((2 * n)) ] || fail "the gate swap benchmark did not gate"
[ $((s2 - s1)) = 2 ] || fail "the gate swap benchmark submitted runlists for its updates"
awk '/^BENCH / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "FIGURE bench %s: getppid %.2f us, begin+end round trip mean %.1f us, max %.1f us\n",
             v["tag"], v["syscall_ns"] / 1000, v["roundtrip_ns"] / 1000, v["roundtrip_max_ns"] / 1000 }' bench.out
gpu_unload
