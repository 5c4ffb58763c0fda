#!/bin/sh
# gcapsctl stats and gcapsctl trace on the live system (issue 11): a low-priority real-time
# segment (SCHED_FIFO 10) is preempted by a high one (FIFO 50), which ends, then the low one
# resumes and ends. The statistics (reset just before) count exactly that; the trace holds
# BEGIN low, BEGIN high, PREEMPT low, END high, RESUME low, END low; the Perfetto file parses
# and holds the segments, low's GPU wait and the runlist track; gcapsctl status names the bound
# backend (simgpu, its detail, contract 3, runlist 0, not stock) (checked by gcapsctl-observe,
# tools/gcapsctl/tests/observe.rs). A non-root caller gets the CAP_SYS_ADMIN message for the
# trace and for a reset, and may read the statistics.
# vmtest-needs=libgcaps vmtest-needs=common-lib  vmtest-timeout=240
. /vmtest/common.sh   # set -eu, fail, expect_error, field, f, waitfor, waitline

insmod /modules/gcaps.ko trace_size=4096
insmod /modules/gcaps_simgpu.ko
mkdir -p obs

# The scenario, by events: L's segment stays open (--end-on-go) until H has run its whole
# segment, so H begins while L's segment is open and ends before L's end, however slowly the
# processes start.
gcapsctl stats --reset >/dev/null
gpuclient --prio 10 --cpu 1 --work 300 --end-on-go --tag L --report >l.out & l=$!
waitline l.out STARTED
gpuclient --prio 50 --cpu 0 --work 20 --tag H --report >h.out & h=$!
wait $h || fail "H failed"
kill -USR1 $l
wait $l || fail "L failed"
cat l.out h.out
[ "$(f l.out begun)" -lt "$(f h.out begin_call)" ] && [ "$(f h.out ended)" -lt "$(f l.out end_call)" ] \
  || fail "not in order: L began, H began, H ended, L ended"
echo "$l" >obs/low; echo "$h" >obs/high

gcapsctl stats --format json >obs/stats.json
gcapsctl stats --svg obs/delay.svg >obs/stats.txt
gcapsctl trace --format json >obs/trace.json
gcapsctl trace >obs/trace.txt
gcapsctl trace --perfetto obs/perfetto.json
gcapsctl status --format json >obs/status.json
cat obs/stats.txt obs/trace.txt
OBSERVE_DIR=obs OBSERVE_LOW=$(cat obs/low) OBSERVE_HIGH=$(cat obs/high) \
  gcapsctl-observe --ignored --test-threads=1 || fail "gcapsctl-observe"

# the table a person reads, and the figure
grep -q "^preemption   preemptions 1  resumes 1$" obs/stats.txt || fail "stats table: preemptions"
grep -q "^update delay 4 samples " obs/stats.txt || fail "stats table: samples"
grep -q "^<svg " obs/delay.svg && grep -q "4 updates" obs/delay.svg && grep -q "</svg>" obs/delay.svg \
  || fail "the SVG histogram"
# the text dump has the same six events for the two processes, in order
low=$(cat obs/low) high=$(cat obs/high)
order=$(awk -v l=$low -v h=$high '$5 == l || $5 == h { if ($3 ~ /^(begin|end|preempt|resume)$/) printf "%s/%s ", $3, ($5 == l ? "low" : "high") }' obs/trace.txt)
[ "$order" = "begin/low begin/high preempt/low end/high resume/low end/low " ] || fail "text dump order: $order"

# --follow streams events as they come (F: one more real-time segment while it follows)
gcapsctl trace --follow --interval 20 >obs/follow.txt & fpid=$!
header() { grep -qs "^ *SEQ " obs/follow.txt; }
waitfor "--follow printed no header" header
gpuclient --prio 20 --work 5 --tag F --report >f.out
fp=$(f f.out pid)
i=0; until awk -v p=$fp '$5 == p && $3 == "end" { ok = 1 } END { exit !ok }' obs/follow.txt; do
  i=$((i + 1)); [ $i -lt 100 ] || { kill $fpid; fail "--follow did not show F's end: $(cat obs/follow.txt)"; }; sleep 0.1
done
kill $fpid; wait $fpid 2>/dev/null || true
awk -v p=$fp '$5 == p && $3 == "begin"' obs/follow.txt | grep -q . || fail "--follow: no begin of F ($fp)"
# under the header, the events it printed first are the dump's (it starts at the oldest held)
sed -n 1p obs/follow.txt | grep -q "^ *SEQ " || fail "--follow: no header"
sed -n 2,4p obs/follow.txt | awk '{ print $1 }' >a
awk '$1 ~ /^[0-9]+$/ { print $1 }' obs/trace.txt | head -n 3 >b
cmp -s a b || fail "--follow did not start at the oldest event"

# --- without CAP_SYS_ADMIN (uid 1000): reading the statistics is allowed, the trace and a reset are not
eperm_before=$(gcapsctl stats --format json | awk -F'[:,]' '/"EPERM"/ { print $2 + 0 }')
runas 1000 gcapsctl stats >out || fail "a non-root caller may read the statistics"
expect_error 1 "GCAPS_IOC_TRACE_READ failed: permission denied: reading the gcaps trace needs CAP_SYS_ADMIN" runas 1000 gcapsctl trace
expect_error 1 "needs CAP_SYS_ADMIN" runas 1000 gcapsctl trace --perfetto /tmp/x.json
expect_error 1 "resetting the gcaps statistics needs CAP_SYS_ADMIN" runas 1000 gcapsctl stats --reset
[ ! -e /tmp/x.json ] || fail "--perfetto wrote a file without permission"
eperm_after=$(gcapsctl stats --format json | awk -F'[:,]' '/"EPERM"/ { print $2 + 0 }')
[ $((eperm_after - eperm_before)) = 3 ] || fail "rejected EPERM went from $eperm_before to $eperm_after, want +3"
# the refused reset changed nothing
gcapsctl stats | grep -q "^update delay 6 samples " || fail "statistics changed by a refused reset"

rmmod gcaps_simgpu
rmmod gcaps
echo "gcapsctl observe: ok"
