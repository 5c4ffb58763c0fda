#!/bin/sh
# The emulated GPU alone (stock round robin, no gcaps.ko): runlist format, exact engine
# accounting (work, timeslice, theta), preemption by a runlist change, random driver rebuilds,
# submit timeout + recovery, module refcount. Every scenario is set up by events (the engine
# held while work is queued, STARTED lines), not by start times. vmtest-timeout=150
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, stat, waitfor, waitline (gcaps.ko is not loaded here)
ko=/modules/gcaps_simgpu.ko
theta_ns=500000

insmod "$ko" theta_us=$((theta_ns / 1000))
dmesg | grep -q 'runlist encoder known answers ok' || fail "no known-answer line"
test -c /dev/gcaps_simgpu && test -c /dev/gcaps_simgpu_ctl

# 1. A lone client runs exactly its work, unpreempted; blocking and polling agree.
for mode in --suspend --busy; do
  gpuclient --no-gcaps $mode --work 10 --report >lone.out
  s=$(field lone.out SEG gpu_start); e=$(field lone.out SEG gpu_end)
  [ $((e - s)) -eq 10000000 ] || fail "lone $mode: GPU time $((e - s)) ns, want 10000000"
  [ "$(field lone.out SEG preempt)" = 0 ] || fail "lone $mode: preempted"
done
echo "lone client: exact 10 ms, not preempted (blocking and polling)"

# 2. Runlist: two open TSGs, real entry format, decoded independently by simgpuctl.
gpuclient --no-gcaps --hog --work 5 --tag H1 >h1.out & h1=$!
gpuclient --no-gcaps --hog --work 5 --tag H2 >h2.out & h2=$!
waitline h1.out STARTED; waitline h2.out STARTED	# both TSGs open, with work queued
simgpuctl runlist >rl.out || { cat rl.out; fail "runlist does not decode"; }
cat rl.out
[ "$(grep -c '^TSG ' rl.out)" = 2 ] || fail "want 2 TSG entries"
for h in h1 h2; do
  t=$(field $h.out CLIENT tsg)
  grep -q "^TSG id=$t timeout=128 scale=3 slice_ns=1048576 channels=2$" rl.out || fail "TSG $t entry"
done
awk '/^CH / { split($2, c, "="); chid = c[2];
       want_inst = sprintf("inst=0x1%08x", chid * 4096);
       want_userd = sprintf("userd=0x8%07x", chid * 512);
       if ($4 != want_inst || $6 != want_userd || $5 != "inst_ap=2" || $7 != "userd_ap=2" || $3 != "runqueue=0") { print "bad channel: " $0; bad = 1 } }
     END { exit bad }' rl.out || fail "channel entries"
# rmmod is refused while TSG files are open.
if rmmod gcaps_simgpu 2>/dev/null; then fail "rmmod succeeded with open TSGs"; fi
grep -q '^gcaps_simgpu ' /proc/modules || fail "module gone"
kill -9 $h1 $h2; wait $h1 $h2 2>/dev/null || true
[ "$(stat num_tsgs)" = 0 ] || fail "TSGs left after kill -9"
echo "runlist: 2 TSG entries, channel entries valid; rmmod refused while open"

# 3. Round robin: A (60 ms) and B (20 ms) share the engine; while both have work, the span is
# their work plus theta per switch, exactly (the engine never idles). By events: the engine is
# held while A and then B queue their work (STARTED lines), then released, so both have work
# from the first start on, however slowly the processes start.
rr() { # rr <out prefix> [timeslice of B]
  tsb=${2:-}
  sw0=$(stat switches)
  simgpuctl hold >$1hold.out
  gpuclient --no-gcaps --tag A --work 60 --report >$1a.out & a=$!
  waitline $1a.out STARTED
  gpuclient --no-gcaps --tag B --work 20 ${tsb:+--timeslice $tsb} --report >$1b.out & b=$!
  waitline $1b.out STARTED
  simgpuctl release >>$1hold.out
  wait $a $b
  sw=$(( $(stat switches) - sw0 ))
  as=$(field $1a.out SEG gpu_start); ae=$(field $1a.out SEG gpu_end)
  bs=$(field $1b.out SEG gpu_start); be=$(field $1b.out SEG gpu_end)
  ap=$(field $1a.out SEG preempt); bp=$(field $1b.out SEG preempt)
  rel=$(field $1hold.out "CALL cmd=release" call)
  [ "$(field $1a.out SEG gpu_submit)" -lt "$rel" ] && [ "$(field $1b.out SEG gpu_submit)" -lt "$rel" ] \
    || fail "rr: work queued after the release"
  [ $bs -lt $ae ] && [ $as -lt $be ] || { cat $1a.out $1b.out; fail "rr: A and B did not overlap"; }
  first=$as; [ $bs -lt $first ] && first=$bs
  last=$ae; [ $be -gt $last ] && last=$be
  span=$((last - first)); want=$((80000000 + (sw - 1) * theta_ns))
  echo "rr${tsb:+ (B timeslice $tsb us)}: A preempt=$ap B preempt=$bp switches=$sw span=${span}ns want=${want}ns"
  [ $span -eq $want ] || { cat $1a.out $1b.out; fail "round robin span $span, want $want"; }
}
rr rr1
[ "$bp" -ge 10 ] || fail "B with 1 ms slices: $bp preemptions, want >= 10"
rr rr2 4000
[ "$bp" -le 5 ] && [ "$bp" -ge 1 ] || fail "B with 4 ms slices: $bp preemptions, want 1..5"
echo "round robin: exact theta accounting; timeslice honoured"

# 4. A runlist change preempts: exclude the running TSG (test knob); the submit that drops it
# is a scheduling point at once, and the engine runs the hog alone until the TSG is included
# again. By events: X's work (600 ms) is queued while the engine is held; one simgpuctl call
# releases the engine (X, the only TSG with work, runs at once) and excludes X; then the hog
# starts; X is included again once the hog has run two whole items after the exclusion.
# items_after <file> <ns>: the ITEM lines whose GPU start is after ns
items_after() { awk -v a="$2" '/^ITEM / { split($6, s, "="); if (s[2] > a) print }' "$1"; }
simgpuctl hold >ctl.out
gpuclient --no-gcaps --tag X --work 600 --report >x.out & x=$!
waitline x.out STARTED
tx=$(field x.out CLIENT tsg)
simgpuctl release exclude "$tx" runlist >>ctl.out
e0=$(field ctl.out "CALL cmd=exclude" call); e1=$(field ctl.out "CALL cmd=exclude" ret)
gpuclient --no-gcaps --tag H --hog --work 2 --report >hx.out & hx=$!
two_items() { [ "$(items_after hx.out "$e1" | wc -l)" -ge 2 ]; }
waitfor "the hog ran no two items while X was excluded" two_items
simgpuctl include "$tx" >>ctl.out
i0=$(field ctl.out "CALL cmd=include" call)
kill -9 $hx; wait $hx 2>/dev/null || true
wait $x
cat ctl.out
grep -q "^TSG id=$tx " ctl.out && fail "excluded TSG still listed"
xs=$(field x.out SEG gpu_start); xe=$(field x.out SEG gpu_end); xp=$(field x.out SEG preempt)
[ "$xs" -lt "$e0" ] || fail "X did not run at the release (start $xs, exclusion $e0)"
echo "exclusion: the submit that dropped X was taken $(( (e1 - e0) / 1000 )) us after the call"
echo "exclusion: X ran $(( (xe - xs) / 1000 )) us for 600000 us of work, preempt=$xp"
[ "$xp" -ge 1 ] || fail "X not counted as preempted"
[ "$xe" -gt "$i0" ] || fail "X finished while excluded"
# The hog alone in X's place: every item that started after the exclusion and ended before the
# inclusion ran whole (2 ms, never preempted: no slice of X between).
items_after hx.out "$e1" | awk -v b="$i0" '{ for (k = 1; k <= NF; k++) { split($k, p, "="); v[p[1]] = p[2] }
  if (v["gpu_end"] + 0 >= b) next; n++
  if (v["gpu_end"] - v["gpu_start"] != 2000000 || v["preempt"] != 0) { print "split item: " $0; bad = 1 } }
  END { print "exclusion: the hog ran " n + 0 " whole items meanwhile"; exit bad || n < 2 }' || fail "X was not held off while excluded"

# 5. Submit timeout and recovery: the engine takes no runlist for 150 ms; the exclusion's submit
# times out (100 ms), the driver clears the engine (preempting R) and resubmits; the work still
# completes. By events, as in 4: R's work (600 ms) queued while the engine is held, then one
# simgpuctl call releases it (R runs at once), stalls it and excludes and includes R.
r0=$(stat recoveries); o0=$(stat timeouts)
simgpuctl hold >knobs.out
gpuclient --no-gcaps --tag R --work 600 --report >r.out & r=$!
waitline r.out STARTED
tr_=$(field r.out CLIENT tsg)
simgpuctl release stall 150 exclude "$tr_" include "$tr_" >>knobs.out
wait $r
cat r.out knobs.out
[ $(( $(stat recoveries) - r0 )) -ge 1 ] || fail "no recovery after a hung submit"
[ $(( $(stat timeouts) - o0 )) -ge 1 ] || fail "no timeout counted"
[ "$(field knobs.out "CALL cmd=exclude" call)" -lt "$(field r.out SEG gpu_end)" ] || fail "R finished before the exclusion"
[ "$(field r.out SEG preempt)" -ge 1 ] || fail "recovery did not preempt R"
echo "recovery: $(( $(stat recoveries) - r0 )) recoveries, work completed"
[ "$(stat decode_errors)" = 0 ] || fail "engine decode errors"
rmmod gcaps_simgpu

# 6. Random driver rebuilds (every ~3 ms): same schedule, nothing lost.
insmod "$ko" theta_us=$((theta_ns / 1000)) rebuild_interval_ms=3 rebuild_seed=7
rr rr3
[ "$(stat random_rebuilds)" -ge 10 ] || fail "too few random rebuilds: $(stat random_rebuilds)"
[ "$(stat decode_errors)" = 0 ] || fail "engine decode errors"
echo "random rebuilds: $(stat random_rebuilds), schedule unchanged"
rmmod gcaps_simgpu
grep -q '^gcaps_simgpu ' /proc/modules && fail "still loaded"
echo "simgpu engine: ok"
