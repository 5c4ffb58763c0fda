#!/bin/bash
# Harness self-test (`make vm-selftest`): runs the real VM harness on deliberately bad tests and
# fixture-module bugs, and passes only if the harness caught every one of them:
#   clean    a passing test                     -> run passes
#   tests    a failing and a hung test          -> both FAIL (hung one by the per-test timeout,
#                                                  with its output), the passing one PASS
#   warn     the fixture WARNs                  -> kernel-health FAIL, run fails
#   lockdep  the fixture inverts a lock order   -> kernel-health FAIL, run fails (debug kernel)
#   kasan    the fixture reads out of bounds    -> kernel-health FAIL, run fails (debug kernel)
#   vmhang   a test outlives the VM timeout     -> FAIL with the console tail, run fails
# Environment: as run.sh (VM_KERNEL, VM_ACCEL); SELFTEST_CASES="clean tests ..." to pick cases.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

variant=${VM_KERNEL:-debug}
st=$VM_DIR/selftest
cases=${SELFTEST_CASES:-clean tests warn lockdep kasan vmhang}
passed=0; failed=0
outdir=$VMWORK/runs/selftest; mkdir -p "$outdir"

# check <case> <expected exit: 0|nonzero> <fixed string that must appear in the report>...
check() {
  local name=$1 want=$2 out=$outdir/$1.report rc=0 missing=() s
  shift 2
  (VM_RUN_NAME=selftest-$name "$VM_DIR/run.sh") >"$out" 2>"$outdir/$name.stderr" || rc=$?
  if [ "$want" = 0 ] && [ "$rc" != 0 ]; then missing+=("exit status 0 (got $rc)"); fi
  if [ "$want" != 0 ] && [ "$rc" = 0 ]; then missing+=("a non-zero exit status"); fi
  for s in "$@"; do grep -qF -- "$s" "$out" || missing+=("'$s'"); done
  if [ ${#missing[@]} -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS  selftest-$name"
  else
    failed=$((failed + 1)); echo "FAIL  selftest-$name: report lacks ${missing[*]}"
    sed 's/^/      | /' "$out"; tail -n 20 "$outdir/$name.stderr" | sed 's/^/      ! /'
  fi
}

for c in $cases; do
  case "$c" in
    clean) VM_TESTS="$st/st-pass.sh" check clean 0 \
             "PASS  st-pass" "PASS  kernel-health" "vm-test: 2 passed, 0 failed" "accelerator: " ;;
    tests) VM_TESTS="$st/st-pass.sh $st/st-fail.sh $st/st-hang.sh" check tests 1 \
             "PASS  st-pass" "FAIL  st-fail (rc=1" "| st-fail: failing on purpose" \
             "FAIL  st-hang (timeout after 5s)" "| st-hang: hanging on purpose" \
             "PASS  kernel-health" "vm-test: 2 passed, 2 failed" ;;
    warn) VM_TESTS="$st/st-warn.sh" check warn 1 \
             "PASS  st-warn" "FAIL  kernel-health" "WARNING:" "deliberate WARN" \
             "unexpected kernel taint" "vm-test: 1 passed, 1 failed" ;;
    lockdep|kasan)
      if [ "$variant" != debug ]; then
        echo "SKIP  selftest-$c (needs the debug kernel)"; continue
      fi
      if [ "$c" = lockdep ]; then
        VM_TESTS="$st/st-lockdep.sh" check lockdep 1 \
          "PASS  st-lockdep" "FAIL  kernel-health" "circular locking dependency" \
          "vm-test: 1 passed, 1 failed"
      else
        VM_TESTS="$st/st-kasan.sh" check kasan 1 \
          "PASS  st-kasan" "FAIL  kernel-health" "BUG: KASAN: slab-out-of-bounds" \
          "vm-test: 1 passed, 1 failed"
      fi ;;
    vmhang) VM_TESTS="$st/st-vmhang.sh" VM_TEST_TIMEOUT=3600 VM_TIMEOUT=${SELFTEST_VM_TIMEOUT:-90} \
             check vmhang 1 "FAIL  st-vmhang (did not finish" "qemu: timeout after" \
             "---- console tail ----" "| st-vmhang: hanging on purpose" "FAIL  kernel-health" \
             "vm-test: 0 passed, 2 failed" ;;
    *) die "unknown self-test case '$c'" ;;
  esac
done
echo "vm-selftest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
