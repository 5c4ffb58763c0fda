#!/bin/sh
# Always-eligible TSGs (issue 19 items 2 and 5), on the emulated GPU loaded with
# setup_work_us=1000 (every open first runs 1 ms of setup work on the driver's own TSG, flagged
# driver-internal, and waits for it, as nvgpu does for a context's setup): while a real-time
# segment of another process is open,
#  - the driver's own TSG stays on the runlist, and a best-effort process that creates a GPU
#    context (opens /dev/gcaps_simgpu) finishes (without the flag its setup work would wait
#    for the end of the segment: the open fails after simgpu's 5 s bound);
#  - a TSG the driver flags driver-internal (backend ABI 2, GCAPS_BE_TSG_ALWAYS; test knob
#    `simgpuctl internal T`) goes onto the runlist the engine executes and its work runs; when
#    the driver clears the flag it leaves the runlist again;
#  - an administrator's mark (`gcapsctl always-eligible T on|off`, GCAPS_IOC_SET_ALWAYS) puts
#    a TSG on and off the runlist before the call returns; a caller without CAP_SYS_ADMIN gets
#    EPERM (one line, exit 1) and changes nothing; the administrator cannot clear the driver's
#    reason; an unknown TSG is ENOENT;
#  - gcapsctl status names the bound backend (simgpu, "emulated gv11b", contract 3, runlist 0)
#    and marks the always-eligible TSGs with their reasons (table and JSON); the trace holds
#    the four reason changes.
# Every wait is for an event: a STARTED/ITEM line, or the runlist the engine executes changing
# (polled, at most 15 s): no fixed sleeps.
# vmtest-timeout=240
# vmtest-needs=gpu-lib vmtest-needs=libgcaps
. /vmtest/gpu.sh   # set -eu, fail, expect_error, field, waitfor, waitline, stat, gpu_load, gpu_unload

gpu_load setup_work_us=1000
# listed T: TSG T may run now: on the runlist the engine executes, with its channels enabled
# (under mechanism gate every TSG is listed and the enable state carries the decision)
listed() { simgpuctl runlist mayrun >rl.out || { cat rl.out; fail "runlist does not decode"; }; grep -qE "^MAYRUN( [0-9]+)* $1( |\$)" rl.out; }
# until_listed T yes|no: wait (15 s at most) until the engine's runlist has (yes) or lacks T
until_listed() {
  i=0
  while :; do
    if listed "$1"; then [ "$2" = yes ] && return 0; else [ "$2" = no ] && return 0; fi
    i=$((i + 1)); [ $i -lt 300 ] || { cat rl.out; fail "TSG $1 listed: want $2 (15 s)"; }
    sleep 0.05
  done
}

# --- the backend as gcapsctl shows it
gcapsctl status >st.txt; gcapsctl status --format json >st.json
cat st.txt
head -n 1 st.txt | grep -q "backend simgpu (emulated gv11b, contract 3, runlists 0)" || fail "status: backend line"
grep -q '"backend": "simgpu"' st.json && grep -q '"backend_detail": "emulated gv11b"' st.json \
  && grep -q '"backend_abi": 3' st.json || fail "status JSON: backend"
tr -d ' \n' <st.json | grep -q '"runlists":\[0\]' || fail "status JSON: runlists"
# the driver's own TSG (the first id, no process) is always eligible for the driver's reason
ti=0
grep -q "^always-eligible TSGs: $ti (driver, pid 0)$" st.txt || fail "status: the driver's own TSG"
tr -d ' \n' <st.json | grep -q "\"always_eligible_tsgs\":\[{\"tsgid\":$ti,\"pid\":0,\"driver\":true,\"admin\":false}\]" \
  || fail "status JSON: the driver's own TSG"

# --- two best-effort GPU hogs that never open /dev/gcaps (D: to be flagged driver-internal)
gpuclient --no-gcaps --hog --work 2 --depth 32 --tag D --report >d.out & d=$!
gpuclient --no-gcaps --hog --work 2 --depth 32 --tag B --report >b.out & b=$!
waitline d.out STARTED; waitline b.out STARTED
td=$(field d.out STARTED tsg) tb=$(field b.out STARTED tsg)
echo "driver-internal candidate TSG $td (pid $d), other TSG $tb (pid $b)"

# --- a real-time segment of a third process (no TSG of its own), held open until SIGUSR1
gpuclient --no-gpu --prio 50 --cpu 1 --end-on-go --tag S --report >s.out & s=$!
waitline s.out STARTED
[ "$(field s.out STARTED state)" = 1 ] || fail "the real-time segment is not running"
# its begin returned after the resubmit: neither hog is listed, the driver's own TSG is
listed "$ti" || fail "the driver's own TSG $ti is not listed during the real-time segment"
listed "$td" && fail "TSG $td listed during the real-time segment"
listed "$tb" && fail "TSG $tb listed during the real-time segment"

# --- a best-effort process creates a context (and a gcaps client) during the segment
gpuclient --work 0 --segments 1 --tag C --report >c.out || fail "context creation during a real-time segment failed"
grep -q "^SEG " c.out || fail "no SEG line of the context-creating process: $(cat c.out)"
echo "context created and closed during the real-time segment"

# --- the driver flags D's TSG driver-internal: on the runlist, and its work runs
t_flag=$(now)
simgpuctl internal "$td" >/dev/null
until_listed "$td" yes
listed "$tb" && fail "TSG $tb listed with $td's flag"
# an item of D runs on the GPU after the flag, inside the segment (S is still open)
waitfor "no work of the driver-internal TSG ran during the segment" \
  awk -v t=$t_flag '/^ITEM / { for (k = 1; k <= NF; k++) if (index($k, "gpu_start=") == 1 && substr($k, 11) + 0 > t) f = 1 } END { exit !f }' d.out
grep -q "^SEG " s.out && fail "the real-time segment ended early"
gcapsctl status >st.txt; cat st.txt
grep -q "^always-eligible TSGs: $ti (driver, pid 0), $td (driver, pid $d)$" st.txt || fail "status: driver-internal TSG not marked"
grep -q "^eligible TSGs: $ti,$td$" st.txt || fail "status: eligible set"

# --- the administrator's mark: synchronous (listed when the call returns)
gcapsctl always-eligible "$tb" on >out.txt || fail "always-eligible on failed"
grep -q "^TSG $tb is always eligible (reasons: admin)$" out.txt || fail "reply: $(cat out.txt)"
listed "$tb" || fail "TSG $tb not listed after the administrator's mark"
# without CAP_SYS_ADMIN: EPERM, one line, nothing changed
expect_error 1 "GCAPS_IOC_SET_ALWAYS failed: permission denied: marking a TSG always eligible needs CAP_SYS_ADMIN" \
  runas 1000 gcapsctl always-eligible "$tb" off
listed "$tb" || fail "a refused unmark changed the runlist"
# the driver's reason stays
gcapsctl always-eligible "$td" off >out.txt || fail "always-eligible off of a driver TSG failed"
grep -q "^TSG $td stays always eligible: the driver flagged it driver-internal (reasons: driver)$" out.txt \
  || fail "reply: $(cat out.txt)"
listed "$td" || fail "the administrator cleared the driver's reason"
expect_error 1 "no TSG 1023" gcapsctl always-eligible 1023 on
expect_error 2 "" gcapsctl always-eligible 1024 on
gcapsctl status --format json >st.json; cat st.json
tr -d ' \n' <st.json | grep -q "\"always_eligible_tsgs\":\[[^]]*{\"tsgid\":$tb,\"pid\":$b,\"driver\":false,\"admin\":true}" \
  || fail "status JSON: admin mark"
tr -d ' \n' <st.json | grep -q "{\"tsgid\":$td,\"pid\":$d,\"driver\":true,\"admin\":false}" \
  || fail "status JSON: driver flag"
gcapsctl always-eligible "$tb" off >out.txt || fail "always-eligible off failed"
grep -q "^TSG $tb is not always eligible$" out.txt || fail "reply: $(cat out.txt)"
listed "$tb" && fail "TSG $tb still listed after the unmark"

# --- the driver clears its flag: off the runlist
simgpuctl external "$td" >/dev/null
until_listed "$td" no
gcapsctl status | grep -q "^always-eligible TSGs: $ti (driver, pid 0)$" || fail "status: always-eligible TSGs after the clear"

# --- the segment ends: every TSG again
kill -USR1 $s; wait $s
until_listed "$tb" yes
listed "$td" || fail "TSG $td not listed after the segment"

# --- the trace: the driver's own TSG at bind, then driver on, admin on, admin off, driver off
# (TSG_ALWAYS, kind 10)
gcapsctl trace >tr.txt
grep " tsg_always " tr.txt
[ "$(grep -c " tsg_always " tr.txt)" = 5 ] || fail "trace: $(grep -c " tsg_always " tr.txt) tsg_always events, want 5"
grep " tsg_always " tr.txt | grep "tsg=$tb" | grep -q "submit" || fail "trace: the administrator's mark did not resubmit"

kill -9 $d $b; wait $d $b 2>/dev/null || true
gpu_unload
echo "always-eligible: ok"
