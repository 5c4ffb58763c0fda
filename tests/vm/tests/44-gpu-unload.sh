#!/bin/sh
# gcaps.ko + gcaps_simgpu.ko end to end (issue 9): rmmod of either module with clients active
# (refused while their files are open: no oops, leak or stuck process), gcaps unloading under
# a bound simgpu (detach: stock round robin), gcaps reloading (simgpu binds through its module
# notifier), simgpu unloading and reloading while gcaps stays loaded with a real-time segment
# open (unregister; the reloaded driver lists only what gcaps allows). vmtest-timeout=200
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, retry, gpu_load

gpu_load

# 1. Clients active: a real-time task inside a segment, a best-effort hog.
gpuclient --prio 50 --cpu 0 --work 8000 --tag A --report >a.out & a=$!
gpuclient --no-gcaps --hog --work 5 --tag N --report >n.out & n=$!
waitline a.out CLIENT; waitline n.out CLIENT
sleep 0.3
kill -0 $a && kill -0 $n || { cat a.out n.out; fail "a client ended early"; }
if rmmod gcaps 2>/dev/null; then fail "rmmod gcaps succeeded with a client inside a segment"; fi
if rmmod gcaps_simgpu 2>/dev/null; then fail "rmmod gcaps_simgpu succeeded with TSGs open"; fi
loaded gcaps && loaded gcaps_simgpu || fail "a module went away"
kill -0 $a || { cat a.out; fail "A ended early"; }
kill -9 $a $n; wait $a $n 2>/dev/null || true
echo "rmmod refused while clients were active; clients killed"

# 2. gcaps unloads under a bound simgpu: detach, stock round robin.
rmmod gcaps
[ "$(stat bound)" = 0 ] || fail "simgpu still bound after gcaps unloaded"
dmesg | grep -q 'gcaps_simgpu: detached from gcaps' || fail "no detach"
t0=$(( $(now) + 1500000000 ))
gpuclient --no-gcaps --work 20 --start-at $t0 --tag S1 --report >s1.out & s1=$!
gpuclient --no-gcaps --work 20 --start-at $t0 --tag S2 --report >s2.out & s2=$!
wait $s1 $s2
[ "$(f s1.out preempt)" -ge 1 ] || [ "$(f s2.out preempt)" -ge 1 ] || fail "no round robin after detach"
echo "after gcaps unloaded: stock round robin"

# 3. gcaps reloads: simgpu binds through its module notifier; a segment runs alone.
insmod /modules/gcaps.ko
[ "$(stat bound)" = 1 ] || fail "simgpu did not bind to the reloaded gcaps"
gpuclient --no-gcaps --hog --work 5 --tag N2 >/dev/null & n2=$!
gpuclient --prio 50 --work 10 --delay-ms 200 --tag B --report >b.out
kill -9 $n2; wait $n2 2>/dev/null || true
[ $(( $(f b.out gpu_end) - $(f b.out gpu_submit) )) -eq 10200000 ] || fail "segment not alone after rebinding"
echo "gcaps reloaded: simgpu bound again, segment ran alone"

# 4. simgpu unloads and reloads while gcaps stays, with a real-time segment open (a gcaps
# client without TSGs holding its segment for 2 s): the reloaded driver binds at init and lists
# no TSG of other processes until the segment ends.
gpuclient --no-gpu --prio 50 --cpu 1 --hold-ms 2000 --tag S --report >s.out & s=$!
waitline s.out CLIENT
sleep 0.2
rmmod gcaps_simgpu
dmesg | grep -q 'gcaps_simgpu: unregistered from gcaps' || fail "no unregister"
insmod /modules/gcaps_simgpu.ko
[ "$(stat bound)" = 1 ] || fail "reloaded simgpu did not bind"
gpuclient --no-gcaps --hog --work 2 --tag N3 --report >n3.out & n3=$!
wait $s
waitline n3.out ITEM
kill -9 $n3; wait $n3 2>/dev/null || true
cat s.out; head -n 3 n3.out
first=$(field n3.out ITEM gpu_start)
[ "$first" -gt "$(f s.out end_call)" ] || fail "a non-gcaps TSG ran while a real-time segment was open"
echo "simgpu reloaded under an open segment: the hog started $(us $(( first - $(f s.out end_call) ))) us after the segment ended"

[ "$(stat num_tsgs)" = 0 ] || fail "TSGs left"
gpu_unload
loaded gcaps || loaded gcaps_simgpu && fail "modules left"
echo "gpu unload: ok"
