#!/bin/sh
# libgcaps and gcapsctl on gcaps.ko + the emulated GPU: permission errors of the library, the
# library's device tests, and two example processes (C example low, Rust example high): the
# high-priority segment preempts the low one (GPU timestamps), and gcapsctl status (table and
# JSON) shows exactly that: low pending, high running, the eligible set = high's TSG.
# vmtest-needs=libgcaps vmtest-needs=common-lib  vmtest-timeout=180
. /vmtest/common.sh   # set -eu, fail, expect_error, field, f, waitfor

insmod /modules/gcaps.ko
insmod /modules/gcaps_simgpu.ko
test -c /dev/gcaps || fail "/dev/gcaps missing"

# --- without permission (uid 1000: no CAP_SYS_NICE, RLIMIT_RTPRIO 0)
# a best-effort task may not ask for a GPU priority (or, if the device is root-only, may not open it)
expect_error 1 "permission denied" runas 1000 env GCAPS_GPU_PRIORITY=50 gpu_segment 5
expect_error 1 "permission denied" runas 1000 env GCAPS_GPU_PRIORITY=50 gpu_segment_rs 5

# --- the library against the module (begin/end, misuse, CAP_SYS_NICE rule, panic, fork)
libgcaps-device --ignored --test-threads=1 || fail "libgcaps device tests"

# --- status with two clients: low (FIFO 10) in a long segment, high (FIFO 50, GPU 60) preempts
# running <pid>: its segment is the running one (gcapsctl status)
running() { gcapsctl status | awk -v p="$1" '$1 == p && $6 == "running" { ok = 1 } END { exit !ok }'; }
gcapsctl run --priority 10 --cpu 0 -- gpu_segment 10000 >low.txt &
low=$!
waitfor "low never showed up running" running $low
gcapsctl run --priority 50 --gpu-priority 60 --cpu 1 -- gpu_segment_rs 8000 >high.txt &
high=$!
# Once high's segment is open, the emulated GPU is held (it runs nothing, so high's 8 s of work
# cannot finish) while both snapshots are taken, however slow the VM; then released.
waitfor "high never showed up running" running $high
simgpuctl hold >hold.out
gcapsctl status >table.txt
gcapsctl status --format json >status.json
simgpuctl release >>hold.out
wait $high; wait $low
cat hold.out
hold=$(field hold.out "CALL cmd=hold" call)
cat table.txt status.json low.txt high.txt

# table: PID COMMAND CLASS PRIO GPU STATE TSGS
row() { awk -v p="$1" '$1 == p' table.txt; }
set -- $(row $low);  [ "$3 $4 $5 $6" = "fifo 10 10 pending" ] || fail "low row: $(row $low)"
lowtsg=$7
set -- $(row $high); [ "$3 $4 $5 $6" = "fifo 50 60 running" ] || fail "high row: $(row $high)"
hightsg=$7
grep -q "^eligible TSGs: $hightsg\$" table.txt || fail "eligible set is not high's TSG $hightsg"
[ "$lowtsg" != "$hightsg" ] && [ "$lowtsg" != - ] || fail "TSGs low=$lowtsg high=$hightsg"

# JSON: the same facts, field by field (one client object per pid)
json_client() { # json_client PID: the client's fields as key=value lines (arrays joined by ,)
  awk -v p="$1" '
    /^    \{/ { obj = ""; next }
    /^    \}/ { if (obj ~ ("\npid=" p "\n")) printf "%s", obj; next }
    /"tsgs": \[\]/ { obj = obj "tsgs=\n"; next }
    /"tsgs": \[/ { arr = 1; list = ""; next }
    arr && /\]/ { arr = 0; obj = obj "tsgs=" list "\n"; next }
    arr { v = $1; sub(",", "", v); list = list (list == "" ? "" : ",") v; next }
    /^      "/ { line = $0; sub(/^ *"/, "", line); k = line; sub(/".*/, "", k)
                 v = line; sub(/^[^:]*: /, "", v); sub(/,$/, "", v); gsub(/"/, "", v)
                 obj = obj "\n" k "=" v "\n" }' status.json | grep -v '^$'
}
json_client $low  | grep -qx "state=pending" || fail "json low: $(json_client $low)"
json_client $low  | grep -qx "class=fifo"    || fail "json low class"
json_client $low  | grep -qx "tsgs=$lowtsg"  || fail "json low tsgs"
json_client $high | grep -qx "state=running" || fail "json high: $(json_client $high)"
json_client $high | grep -qx "priority=50"   || fail "json high priority"
json_client $high | grep -qx "gpu_priority=60" || fail "json high gpu_priority"
json_client $high | grep -qx "comm=gpu_segment_rs" || fail "json high comm"
tr -d ' \n' <status.json | grep -q "\"eligible_tsgs\":\[$hightsg\]" || fail "json eligible_tsgs"

# and the GPU timestamps agree: high ran inside low's work, low was preempted
val() { sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$1"; }
[ "$(val high.txt start)" -gt "$(val low.txt start)" ] || fail "high started before low"
[ "$(val high.txt end)" -lt "$(val low.txt end)" ] || fail "high did not finish first"
[ "$(val high.txt end)" -gt "$hold" ] || fail "high's work ended before the GPU was held: the snapshots may be late"
[ "$(val low.txt preemptions)" -ge 1 ] || fail "low was not preempted"

rmmod gcaps_simgpu
rmmod gcaps
echo "libgcaps: ok"
