#!/bin/sh
# Stock runlists (backend contract ABI 2, calls->stock): a driver whose own scheduler owns its
# runlists (nvgpu on R36 while a GSP user scheduling domain exists) lists every TSG whatever
# gcaps decides and says so; gcaps reports it (GCAPS_IOC_VERSION's backend_flags,
# GCAPS_BACKEND_STOCK) and gcapsctl shows it. On the emulated GPU (test knob
# `simgpuctl stock on|off`: the driver calls calls->stock under its runlist lock, rebuilds and
# returns once the engine took the runlist), during a real-time segment of another process:
#  - before: the status backend line has no STOCK, JSON backend_stock false, check's backend
#    row ok; a best-effort TSG is off the runlist;
#  - stock on: STOCK in the backend line, backend_stock true, check's backend row WARN with the
#    explanation (exit 0: a warning), and the best-effort TSG is listed (every TSG);
#  - stock off: all of that back, the TSG off the runlist again;
#  - per binding: gcaps unloads and reloads under the stock driver; the driver reports stock
#    again right after registering, and status shows it.
# Every step is synchronous (the knob returns after the call and the submit; insmod returns
# after the bind): no sleeps.
# vmtest-timeout=120
# vmtest-needs=gpu-lib vmtest-needs=libgcaps
. /vmtest/gpu.sh   # set -eu, fail, expect_error, field, waitline, stat, gpu_load, gpu_unload

STOCK="STOCK: the driver's own scheduler owns its runlists; gcaps's decision is not applied"
gpu_load
# listed T: TSG T may run now: on the runlist the engine executes, with its channels enabled
# (under mechanism gate every TSG is listed and the enable state carries the decision)
listed() { simgpuctl runlist mayrun >rl.out || { cat rl.out; fail "runlist does not decode"; }; grep -qE "^MAYRUN( [0-9]+)* $1( |\$)" rl.out; }
checkrow() { awk '$1 == "backend" && $2 != "" { print $2; exit }' check.txt; }
# stock yes|no: what status (table and JSON) and check say now
stock() {
  gcapsctl status >st.txt; gcapsctl status --format json >st.json
  gcapsctl check >check.txt || { cat check.txt; fail "check failed (warnings alone must not fail it)"; }
  head -n 1 st.txt
  if [ "$1" = yes ]; then
    head -n 1 st.txt | grep -qF "backend simgpu (emulated gv11b, contract 3, runlists 0, $STOCK)" \
      || fail "status: no STOCK in the backend line"
    grep -q '"backend_stock": true' st.json || fail "status JSON: backend_stock not true"
    [ "$(checkrow)" = WARN ] || { cat check.txt; fail "check: backend not WARN while stock"; }
    grep -qF "$STOCK" check.txt || fail "check: no explanation"
  else
    head -n 1 st.txt | grep -qF "backend simgpu (emulated gv11b, contract 3, runlists 0)," \
      || fail "status: backend line with STOCK"
    grep -q '"backend_stock": false' st.json || fail "status JSON: backend_stock not false"
    [ "$(checkrow)" = ok ] || { cat check.txt; fail "check: backend not ok"; }
  fi
}

# --- a best-effort hog that never opens /dev/gcaps, a real-time segment of another process
gpuclient --no-gcaps --hog --work 2 --depth 32 --tag B --report >b.out & b=$!
waitline b.out STARTED
tb=$(field b.out STARTED tsg)
gpuclient --no-gpu --prio 50 --cpu 1 --end-on-go --tag S --report >s.out & s=$!
waitline s.out STARTED
[ "$(field s.out STARTED state)" = 1 ] || fail "the real-time segment is not running"
stock no
listed "$tb" && fail "TSG $tb listed during the real-time segment"

# --- the driver's runlists go stock: said, and every TSG listed
simgpuctl stock on >/dev/null
stock yes
listed "$tb" || fail "TSG $tb not listed while the runlists are stock"
cat check.txt

# --- filtered again
simgpuctl stock off >/dev/null
stock no
listed "$tb" && fail "TSG $tb listed after stock off"

# --- per binding: gcaps reloads under a stock driver, which reports it again
kill -USR1 $s; wait $s
simgpuctl stock on >/dev/null
rmmod gcaps
[ "$(stat bound)" = 0 ] || fail "simgpu still bound after gcaps unloaded"
insmod /modules/gcaps.ko
[ "$(stat bound)" = 1 ] || fail "simgpu did not bind to the reloaded gcaps"
stock yes
simgpuctl stock off >/dev/null
stock no

kill -9 $b; wait $b 2>/dev/null || true
gpu_unload
echo "stock: ok"
