#!/bin/bash
# Usage: report.sh <console.log> <tests.list> <header text> [label]
# Turns the serial console of a VM test run into a report: one line per test, a kernel-health
# pseudo-test, and a final line "<label>: N passed, M failed". Exit status 1 on any failure.
#
# kernel-health fails on any kernel WARNING/BUG/Oops/panic, lockdep or KASAN/UBSAN report,
# refcount or list corruption, hung task or RCU stall, on a taint other than out-of-tree modules
# (4096), on lockdep having switched itself off, and when the VM did not finish cleanly.
set -euo pipefail
log=${1:?console log}; list=${2:?tests list}; header=${3:-}; label=${4:-vm-test}

# Only timestamped kernel lines ("[    1.234567] ...") are scanned, never test output.
KERNEL_BAD='WARNING:|BUG:|Oops|Kernel panic|kernel BUG|general protection fault|Unable to handle|invalid opcode:|double fault|circular locking dependency|recursive locking|inconsistent lock state|lock held when returning|bad unlock balance|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|KASAN:|UBSAN:|refcount_t:|list_(add|del) corruption|Call Trace:|INFO: task .* blocked|rcu: INFO|stall|stack-protector|scheduling while atomic|sleeping function called from invalid context'
EXPECTED_TAINT=4096   # TAINT_OOT_MODULE: loading our out-of-tree modules

clean=$(mktemp); trap 'rm -f "$clean"' EXIT
if [ -f "$log" ]; then tr -d '\r' <"$log" >"$clean"; else echo "(no console log: $log)" >"$clean"; fi

passed=0; failed=0; incomplete=0
echo "$header"
while IFS= read -r name; do
  # The result marker may share a line with unterminated test output or a printk.
  res=$(awk -v n="VMTEST $name " '{ i = index($0, n); if (i) { r = substr($0, i + length(n));
          if (r ~ /^(PASS|FAIL)/) { print r; exit } } }' "$clean")
  begun=$(awk -v n="VMTEST-BEGIN $name timeout=" 'index($0, n) == 1 { c++ } END { print c + 0 }' "$clean")
  case "$res" in
    PASS*) passed=$((passed + 1)); printf 'PASS  %s (%s)\n' "$name" "${res#PASS }"; continue ;;
    FAIL*) detail=${res#FAIL } ;;
    *) incomplete=1
       if [ "$begun" -gt 0 ]; then detail="did not finish (VM stopped or timed out)"
       else detail="never started (VM stopped or timed out)"; fi ;;
  esac
  failed=$((failed + 1))
  printf 'FAIL  %s (%s)\n' "$name" "$detail"
  # Its output: from its BEGIN marker to its result (or the end of the log), last 30 lines.
  awk -v b="VMTEST-BEGIN $name timeout=" -v e="VMTEST $name " '
    index($0, b) == 1 { on = 1; next } on && index($0, e) { exit } on { print }' "$clean" \
    | tail -n 30 | sed 's/^/      | /'
done <"$list"

# kernel-health
problems=$(mktemp); trap 'rm -f "$clean" "$problems"' EXIT
grep -aE '^\[ *[0-9]+\.[0-9]+\]' "$clean" | grep -aE "$KERNEL_BAD" \
  | awk '{ k = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", k); if (!seen[k]++) print }' \
  | head -n 40 >"$problems" || true
taint=$(sed -n 's/.*VMTEST-TAINT \([0-9][0-9]*\).*/\1/p' "$clean" | tail -n 1)
if [ -n "$taint" ] && [ $((taint & ~EXPECTED_TAINT)) -ne 0 ]; then
  echo "unexpected kernel taint $taint (only $EXPECTED_TAINT, out-of-tree module, is expected)" >>"$problems"
fi
if grep -aq 'VMTEST-LOCKDEP debug_locks=0' "$clean"; then
  echo "lockdep switched itself off (debug_locks=0): it reported a problem or ran out of resources" >>"$problems"
fi
if ! grep -aq '^VMTEST-DONE' "$clean"; then
  incomplete=1
  echo "the VM did not finish the run (no VMTEST-DONE): crash, panic or timeout" >>"$problems"
fi
if [ -s "$problems" ]; then
  failed=$((failed + 1))
  echo "FAIL  kernel-health"
  sed 's/^/      | /' "$problems"
  # The first kernel report in context (its message line often comes just before the match).
  { grep -aE '^\[ *[0-9]+\.[0-9]+\]' "$clean" || true; } | awk -v re="$KERNEL_BAD" '
    { line[NR] = $0 } $0 ~ re && !first { first = NR }
    END { if (first) { print "first report:"; s = first > 3 ? first - 3 : 1
          for (i = s; i <= NR && i < first + 30; i++) print "  " line[i] } }' \
    | sed 's/^/      | /'
else
  passed=$((passed + 1))
  echo "PASS  kernel-health (no kernel warnings, taint ${taint:-?})"
fi

if [ "$incomplete" = 1 ]; then
  echo "---- console tail ----"
  tail -n 40 "$clean" | sed 's/^/      | /'
fi
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
