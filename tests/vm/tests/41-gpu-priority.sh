#!/bin/sh
# gcaps.ko + gcaps_simgpu.ko end to end (issue 9): a SCHED_FIFO task's GPU segment with three
# best-effort GPU hogs finishes within its work + 2 update delays + theta (+ tolerance), and
# without gcaps shows the round-robin inflation; processes that never open /dev/gcaps are served
# only while no real-time segment is open. Every check is meaningful only if the hogs had work
# while the segments ran: each segment begins only once a hog reported its queue full (32 items)
# after the previous segment (--full-fifo/--begin-after), and the hogs' work items show it held
# (covered); the task runs again only if they show it did not.
# vmtest-timeout=200
# vmtest-needs=gpu-lib
. /vmtest/gpu.sh   # set -eu, fail, field, f, stat, waitline, now, us, loaded, updmax, covered, waitpast, retry, gpu_load
theta_ns=200000
tol_ns=10000000   # tolerance: TCG timer and wake-up jitter of the loaded VM (stated, printed)
work_ms=20

gpu_load theta_us=$((theta_ns / 1000))

mkfifo full.fifo
for i in 1 2 3; do
  gpuclient --no-gcaps --hog --work $hog_ms --depth 32 --full-fifo full.fifo --tag H$i --report >h$i.out &
  eval h$i=$!
done
for i in 1 2 3; do waitline h$i.out ITEM; done

# The real-time task: 4 segments through gcaps, then 2 without (stock round robin). Precondition:
# some hog had work queued throughout every segment.
run() {
  gpuclient --prio 50 --cpu 0 --work $work_ms --segments 4 --gap-ms 40 --begin-after full.fifo --tag RT --report >rt.out || fail "RT failed"
  gpuclient --prio 50 --cpu 0 --work $work_ms --segments 2 --gap-ms 40 --begin-after full.fifo --tag RR --no-gcaps --report >rr.out || fail "RR failed"
  cat rt.out rr.out
  for h in h1 h2 h3; do waitpast $h.out rr.out; done
  covered rt.out h1.out h2.out h3.out && covered rr.out h1.out h2.out h3.out || return 2
}
retry run
kill -9 $h1 $h2 $h3; wait $h1 $h2 $h3 2>/dev/null || true

# Update delay U: the longest begin or end call (boost, lock, decision, rebuild, submit, wait
# until the engine took the runlist).
U=$(updmax rt.out)
echo "update delay (max over begin/end calls): $(us $U) us"
work_ns=$((work_ms * 1000000))
bound=$((work_ns + 2 * U + theta_ns + tol_ns))
worst=0
for k in 0 1 2 3; do
  grep "^SEG .* k=$k " rt.out >seg.txt
  bc=$(field seg.txt SEG begin_call); sub=$(field seg.txt SEG gpu_submit); ge=$(field seg.txt SEG gpu_end)
  [ "$(field seg.txt SEG state)" = 1 ] || fail "segment $k not running at once"
  # Alone on the GPU: from its submission, theta (switch in, unless its context is still
  # loaded) + its work, exactly.
  d=$((ge - sub))
  [ $d -eq $((theta_ns + work_ns)) ] || [ $d -eq $work_ns ] || fail "segment $k: GPU time from submit $d ns, want $((theta_ns + work_ns))"
  r=$((ge - bc)); [ $r -gt $worst ] && worst=$r
done
rr_worst=0 rr_gpu=
for k in 0 1; do
  grep "^SEG .* k=$k " rr.out >seg.txt
  r=$(( $(field seg.txt SEG gpu_end) - $(field seg.txt SEG begin_call) )); [ $r -gt $rr_worst ] && rr_worst=$r
  g=$(( $(field seg.txt SEG gpu_end) - $(field seg.txt SEG gpu_start) )); [ -z "$rr_gpu" ] || [ $g -lt $rr_gpu ] && rr_gpu=$g
done
echo "FIGURE priority: work $(us $work_ns) us, with gcaps worst response $(us $worst) us (bound work + 2U + theta + tol = $(us $bound) us, tol $(us $tol_ns) us); without gcaps (round robin with 3 hogs) worst $(us $rr_worst) us"
[ $worst -le $bound ] || fail "gcaps response $worst > bound $bound"
# Round robin with at least one hog with work throughout: the segment's slices alternate with
# the hog's, so from its GPU start to its end it takes more than twice its work (engine record).
echo "without gcaps: shortest GPU time from start to end $(us $rr_gpu) us for $(us $work_ns) us of work"
[ $rr_gpu -gt $((2 * work_ns)) ] || fail "no round-robin inflation without gcaps ($rr_gpu ns from GPU start to end)"

# Hogs (never opened /dev/gcaps) ran no GPU work inside a real-time segment, and ran between.
awk 'FNR == NR && /^SEG / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                            n++; b[n] = v["begun"]; e[n] = v["end_call"]; next }
     /^ITEM / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                for (j = 1; j <= n; j++) {
                  if ((v["gpu_start"] > b[j] && v["gpu_start"] < e[j]) || (v["gpu_end"] > b[j] && v["gpu_end"] < e[j])) { print "hog ran in segment " j ": " $0; bad = 1 }
                  if (j > 1 && v["gpu_start"] > e[j - 1] && v["gpu_start"] < b[j]) gap++
                } }
     END { print "hog items started between real-time segments: " gap + 0; exit bad || gap == 0 }' rt.out h1.out h2.out h3.out || fail "non-gcaps processes served during a real-time segment, or never between"
[ "$(stat decode_errors)" = 0 ] || fail "engine decode errors"
gpu_unload
echo "gpu priority: ok"
