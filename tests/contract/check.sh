#!/bin/bash
# The contract suite's own check, on the build machine (no VM, a few seconds): contract.c builds
# as a -fPIC shared object with gcc (and clang) under -std=c99 -pedantic -Werror, the toy
# backend of selftest.c (a synchronous host) passes every scenario (also when it lists every TSG
# twice, as an interleaved runlist does), and each of its mutations fails the scenarios it must.
# Prints one line per case; exit 1 on any miss.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${CONTRACT_OUT:-$here/../../target/contract}
mkdir -p "$out"
flags=(-std=c99 -pedantic -Wall -Wextra -Werror -O2)
gcc "${flags[@]}" -fPIC -shared -o "$out/libcontract.so" "$here/contract.c"
if command -v clang-14 >/dev/null; then clang-14 "${flags[@]}" -fPIC -c -o "$out/contract-clang.o" "$here/contract.c"; fi
gcc "${flags[@]}" -o "$out/selftest" "$here/selftest.c" -L"$out" -lcontract -Wl,-rpath,"$out"
bad=0 cases=0
# case: mutation, then the scenarios that must FAIL (all others must PASS; SKIPs as listed)
check() {
  local m=$1; shift
  local log="$out/selftest-${m:-clean}.log" rc=0 want got
  "$out/selftest" "$m" >"$log" 2>&1 || rc=$?
  want=; [ $# = 0 ] || want=$(printf "%s\n" "$@" | sort | tr "\n" " ")
  got=$(awk '$1 == "FAIL" { sub(":", "", $2); print $2 }' "$log" | sort | tr '\n' ' ')
  cases=$((cases + 1))
  if [ "$want" != "$got" ] || { [ -z "$want" ] && [ $rc != 0 ]; } || { [ -n "$want" ] && [ $rc = 0 ]; }; then
    echo "MISS ${m:-clean}: want FAIL [${want% }], got FAIL [${got% }] (rc=$rc)"; cat "$log"; bad=$((bad + 1))
  else
    echo "ok   ${m:-clean}: $(tail -n 1 "$log")${want:+ (failed: ${want% })}"
  fi
}
check ""
check ignore-eligible rt-segment-owner-only higher-preempts lower-begin-waits end-hands-over last-end-all \
  owner-open-joins be-open-during-segment pending-open-waits owner-close-leaves other-close-during-segment owner-exit-handover \
  owner-exit-all recovery-during-segment detach-all channels-during-segment
check latest-wins lower-begin-waits end-hands-over last-end-all pending-open-waits owner-exit-handover
check no-recovered recovery-during-segment
check no-detach-rebuild detach-all
check no-close-rebuild owner-close-leaves
check stale-channels channels-during-segment
check no-channel-ops
check interleave
check retry-once
cases=$((cases + 3))   # the RETRY and SKIP line checks below
grep -q '^RETRY recovery-during-segment (attempt 1): fixture asked for a retry in recover: toy: no recovery happened' \
  "$out/selftest-retry-once.log" || { echo "MISS retry-once: no RETRY line"; bad=$((bad + 1)); }
check retry-always recovery-during-segment
[ "$(grep -c '^RETRY recovery-during-segment' "$out/selftest-retry-always.log")" = 2 ] \
  || { echo "MISS retry-always: want 2 RETRY lines before the FAIL"; bad=$((bad + 1)); }
grep -q '^SKIP channels-during-segment: ' "$out/selftest-no-channel-ops.log" || { echo "MISS no-channel-ops: no SKIP line"; bad=$((bad + 1)); }
echo "contract-check: $((cases - bad)) passed, $bad failed (toy cases; the suite has $(grep -c '^PASS' "$out/selftest-clean.log") scenarios)"
[ "$bad" = 0 ]
