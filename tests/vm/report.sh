#!/bin/bash
# Usage: report.sh <results.log> <console.log> <tests.list> <header text> [label]
# Turns a VM test run into a report: one line per test, a kernel-health pseudo-test, and a final
# line "<label>: N passed, M failed". Exit status 1 on any failure.
#
# Results come only from <results.log>, the second serial port that only init.sh writes (see
# init.sh): a test's result counts only as the line "VMTEST-RESULT <name> PASS|FAIL ..." after
# its own "VMTEST-BEGIN <name> ..." line and before the next test's BEGIN. Nothing a test prints
# on the console can make anything pass.
#
# kernel-health fails on any kernel report line (KERNEL_BAD below; kernel log lines of the
# console and of the dmesg dump in <results.log>), on any kmemleak report, on a taint other than
# out-of-tree modules (4096), on lockdep having switched itself off, and when the VM did not
# finish cleanly.
set -euo pipefail
results=${1:?results log}; console=${2:?console log}; list=${3:?tests list}
header=${4:-}; label=${5:-vm-test}

# Kernel report lines, anchored: each pattern must match the start of the message (after the
# "[    1.234567] " timestamp), as the kernel prints it; ordinary words ("install", "stall")
# anywhere else never match.
KERNEL_BAD='^(WARNING: |BUG: |kernel BUG at |Oops: |Kernel panic - |general protection fault|UBSAN: |refcount_t: |list_(add|del) corruption|DEBUG_LOCKS_WARN_ON[(]|INFO: task .* blocked for more than |rcu: INFO: .*stall|watchdog: BUG: |Watchdog detected hard LOCKUP|Call Trace:$)'
EXPECTED_TAINT=4096   # TAINT_OOT_MODULE: loading our out-of-tree modules

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
res=$tmp/results; con=$tmp/console
if [ -f "$results" ]; then tr -d '\r' <"$results" >"$res"; else : >"$res"; fi
if [ -f "$console" ]; then tr -d '\r' <"$console" >"$con"; else echo "(no console log: $console)" >"$con"; fi

# Per test: its result (if any) from the results channel, and whether it began.
# shellcheck disable=SC2016
awk '
  $1 == "VMTEST-BEGIN" && NF >= 2 { cur = $2; begun[cur] = 1; next }
  $1 == "VMTEST-RESULT" && NF >= 3 && $2 == cur && ($3 == "PASS" || $3 == "FAIL") && !(cur in r) {
    s = $0; sub(/^VMTEST-RESULT [^ ]+ /, "", s); r[cur] = s; cur = ""; next }
  $1 ~ /^VMTEST-/ { cur = "" }
  END { for (n in begun) print n "\t" (n in r ? r[n] : "-") }' "$res" >"$tmp/parsed"

passed=0; failed=0; incomplete=0
echo "$header"
while IFS= read -r name; do
  res_line=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$tmp/parsed")
  case "$res_line" in
    PASS*) passed=$((passed + 1)); printf 'PASS  %s (%s)\n' "$name" "${res_line#PASS }"; continue ;;
    FAIL*) detail=${res_line#FAIL } ;;
    -) incomplete=1; detail="did not finish (VM stopped or timed out)" ;;
    *) incomplete=1; detail="never started (VM stopped or timed out)" ;;
  esac
  failed=$((failed + 1))
  printf 'FAIL  %s (%s)\n' "$name" "$detail"
  # Its output on the console (for reading only): from its last output-begin line to the
  # following output-end line (or the end of the log), last 30 lines.
  awk -v b="VMTEST-OUTPUT-BEGIN $name" -v e="VMTEST-OUTPUT-END $name" '
    $0 == b { n = 0; on = 1; next } on && $0 == e { on = 0; done = 1; next }
    on && !done { out[++n] = $0 } END { for (i = (n > 30 ? n - 29 : 1); i <= n; i++) print out[i] }' \
    "$con" | sed 's/^/      | /'
done <"$list"

# kernel-health. Kernel lines: timestamped lines of the console and of the dmesg dump.
{
  grep -aE '^\[ *[0-9]+\.[0-9]+\] ' "$con" || true
  sed -n '/^VMTEST-DMESG-BEGIN$/,/^VMTEST-DMESG-END$/p' "$res" | grep -aE '^\[ *[0-9]+\.[0-9]+\] ' || true
} >"$tmp/klines"
problems=$tmp/problems
# One line per report (a line repeated with other numbers, e.g. "blocked for more than 11
# seconds", is the same report).
# A WARN's own message is the line before its "WARNING: CPU: ..." line: shown with it.
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$tmp/klines" | awk -v re="$KERNEL_BAD" '
    $0 ~ re { l = $0; if (l ~ /^WARNING: CPU: / && prev != "" && prev !~ /cut here/) l = l " (message: " prev ")"
              k = l; gsub(/[0-9]+/, "#", k); if (!seen[k]++) print l }
    { prev = $0 }' | head -n 40 >"$problems"
# kmemleak: every unreferenced object fails the run (attribution: see tests/vm/README.md).
sed -n '/^VMTEST-KMEMLEAK-BEGIN$/,/^VMTEST-KMEMLEAK-END$/p' "$res" | sed '1d;$d' >"$tmp/kmemleak"
# One line per object: address, size, allocating task, the first 16 bytes as text.
if grep -q '^unreferenced object' "$tmp/kmemleak"; then
  echo "kmemleak: $(grep -c '^unreferenced object' "$tmp/kmemleak") unreferenced object(s) (backtraces: $results):" >>"$problems"
  awk '/^unreferenced object/ { if (l != "") print l; l = $0; sub(/:$/, "", l); hex = 0; next }
       /^ +comm / { c = $0; sub(/^ +/, "", c); l = l ", " c; next }
       /hex dump/ { hex = 1; next }
       hex == 1 { a = $0; sub(/^ *([0-9a-f][0-9a-f] )+ /, "", a); l = l ", data \"" a "\""; hex = 0 }
       END { if (l != "") print l }' "$tmp/kmemleak" | head -n 20 | sed 's/^/  /' >>"$problems"
fi
taint=$(sed -n 's/^VMTEST-TAINT \([0-9][0-9]*\)$/\1/p' "$res" | tail -n 1)
if [ -n "$taint" ] && [ $((taint & ~EXPECTED_TAINT)) -ne 0 ]; then
  echo "unexpected kernel taint $taint (only $EXPECTED_TAINT, out-of-tree module, is expected)" >>"$problems"
fi
if grep -aqx 'VMTEST-LOCKDEP debug_locks=0' "$res"; then
  echo "lockdep switched itself off (debug_locks=0): it reported a problem or ran out of resources" >>"$problems"
fi
if ! grep -aqx 'VMTEST-DONE' "$res"; then
  incomplete=1
  echo "the VM did not finish the run (no VMTEST-DONE on the results channel): crash, panic or timeout" >>"$problems"
fi
if [ -s "$problems" ]; then
  failed=$((failed + 1))
  echo "FAIL  kernel-health"
  sed 's/^/      | /' "$problems"
  # The first kernel report in context (its message line often comes just before the match).
  awk -v re="$KERNEL_BAD" '
    { line[NR] = $0; m = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", m) }
    m ~ re && !first { first = NR }
    END { if (first) { print "first report:"; s = first > 3 ? first - 3 : 1
          for (i = s; i <= NR && i < first + 30; i++) print "  " line[i] } }' "$tmp/klines" \
    | sed 's/^/      | /'
else
  passed=$((passed + 1))
  echo "PASS  kernel-health (no kernel warnings, taint ${taint:-?})"
fi

if [ "$incomplete" = 1 ]; then
  echo "---- console tail ----"
  tail -n 40 "$con" | sed 's/^/      | /'
fi
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
