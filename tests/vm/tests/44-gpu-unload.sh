#!/bin/sh
# gcaps.ko + gcaps_simgpu.ko end to end (issue 9): rmmod of either module with clients active
# (refused while their files are open: no oops, leak or stuck process), gcaps unloading under
# a bound simgpu (detach: stock round robin), gcaps reloading (simgpu binds through its module
# notifier), simgpu unloading and reloading while gcaps stays loaded with a real-time segment
# open (unregister; the reloaded driver lists only what gcaps allows). Every step synchronises on
# the clients' STARTED lines (segment begun, work queued) and decides from the engine's record
# (work items' GPU timestamps), never from start times or sleeps. vmtest-timeout=200
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, covered, waitpast, retry, gpu_load

gpu_load

# 1. Clients active: a real-time task inside a segment, a best-effort hog.
gpuclient --prio 50 --cpu 0 --work 8000 --tag A --report >a.out & a=$!
gpuclient --no-gcaps --hog --work 5 --tag N --report >n.out & n=$!
waitline a.out STARTED; waitline n.out STARTED	# A inside its segment with work queued; N queued
[ "$(field a.out STARTED state)" = 1 ] || fail "A not running at begin"
kill -0 $a && kill -0 $n || { cat a.out n.out; fail "a client ended early"; }
if rmmod gcaps 2>/dev/null; then fail "rmmod gcaps succeeded with a client inside a segment"; fi
if rmmod gcaps_simgpu 2>/dev/null; then fail "rmmod gcaps_simgpu succeeded with TSGs open"; fi
loaded gcaps && loaded gcaps_simgpu || fail "a module went away"
kill -0 $a || { cat a.out; fail "A ended early"; }
kill -9 $a $n; wait $a $n 2>/dev/null || true
echo "rmmod refused while clients were active; clients killed"

# 2. gcaps unloads under a bound simgpu: detach, stock round robin. The engine is held while
# both clients queue their 20 ms, so both TSGs have work when it is released; then they must
# run in turns (1 ms slices): each starts before the other ends, and both are preempted.
rmmod gcaps
[ "$(stat bound)" = 0 ] || fail "simgpu still bound after gcaps unloaded"
dmesg | grep -q 'gcaps_simgpu: detached from gcaps' || fail "no detach"
simgpuctl hold >hold.out
gpuclient --no-gcaps --work 20 --tag S1 --report >s1.out & s1=$!
gpuclient --no-gcaps --work 20 --tag S2 --report >s2.out & s2=$!
waitline s1.out STARTED; waitline s2.out STARTED
simgpuctl release >>hold.out
wait $s1 $s2
cat hold.out s1.out s2.out
rel=$(field hold.out "CALL cmd=release" call)
[ "$(f s1.out gpu_submit)" -lt "$rel" ] && [ "$(f s2.out gpu_submit)" -lt "$rel" ] || fail "work queued after the release"
[ "$(f s1.out gpu_start)" -lt "$(f s2.out gpu_end)" ] && [ "$(f s2.out gpu_start)" -lt "$(f s1.out gpu_end)" ] \
  || fail "no round robin after detach: one TSG ran to the end before the other started"
[ "$(f s1.out preempt)" -ge 1 ] && [ "$(f s2.out preempt)" -ge 1 ] || fail "no round robin after detach: not both preempted"
echo "after gcaps unloaded: stock round robin (preemptions $(f s1.out preempt) and $(f s2.out preempt))"

# 3. gcaps reloads: simgpu binds through its module notifier; a segment runs alone although a
# hog (32 items of hog_ms each in flight) has work queued throughout it: the segment begins once the
# hog reported its queue full (--full-fifo/--begin-after), checked on its items.
insmod /modules/gcaps.ko
[ "$(stat bound)" = 1 ] || fail "simgpu did not bind to the reloaded gcaps"
s3() {
  rm -f n2.out full.fifo; mkfifo full.fifo   # new files for every attempt (tests/vm/README.md)
  gpuclient --no-gcaps --hog --work $hog_ms --depth 32 --full-fifo full.fifo --tag N2 --report >n2.out & n2=$!
  gpuclient --prio 50 --work 10 --begin-after full.fifo --tag B --report >b.out || fail "B failed"
  waitpast n2.out b.out
  kill -9 $n2; wait $n2 2>/dev/null || true
  cat b.out
  covered b.out n2.out || return 2	# the hog ran dry
  [ $(( $(f b.out gpu_end) - $(f b.out gpu_submit) )) -eq 10200000 ] || fail "segment not alone after rebinding"
}
retry s3
echo "gcaps reloaded: simgpu bound again, segment ran alone beside a hog with work"

# 4. simgpu unloads and reloads while gcaps stays, with a real-time segment open (a gcaps
# client without TSGs holding its segment until told): the reloaded driver binds at init and
# lists no TSG of other processes until the segment ends. The segment ends only after the hog
# has queued work on the reloaded driver.
gpuclient --no-gpu --prio 50 --cpu 1 --end-on-go --tag S --report >s.out & s=$!
waitline s.out STARTED
rmmod gcaps_simgpu
dmesg | grep -q 'gcaps_simgpu: unregistered from gcaps' || fail "no unregister"
insmod /modules/gcaps_simgpu.ko
[ "$(stat bound)" = 1 ] || fail "reloaded simgpu did not bind"
gpuclient --no-gcaps --hog --work 2 --tag N3 --report >n3.out & n3=$!
waitline n3.out STARTED
kill -USR1 $s
wait $s
waitline n3.out ITEM
kill -9 $n3; wait $n3 2>/dev/null || true
cat s.out; head -n 3 n3.out
[ "$(field n3.out STARTED submit)" -lt "$(f s.out end_call)" ] || fail "the hog queued no work inside the segment"
first=$(field n3.out ITEM gpu_start)
[ "$first" -gt "$(f s.out end_call)" ] || fail "a non-gcaps TSG ran while a real-time segment was open"
echo "simgpu reloaded under an open segment: the hog, queued $(us $(( $(f s.out end_call) - $(field n3.out STARTED submit) ))) us before the segment ended, started $(us $(( first - $(f s.out end_call) ))) us after it"

[ "$(stat num_tsgs)" = 0 ] || fail "TSGs left"
gpu_unload
loaded gcaps || loaded gcaps_simgpu && fail "modules left"
echo "gpu unload: ok"
