#!/bin/bash
# Harness self-test (`make vm-selftest`): runs the real VM harness on deliberately bad tests and
# fixture-module bugs, and passes only if the harness caught every one of them. Cases that do not
# influence each other share a boot:
#   clean      a passing test that logs a benign kernel line full of report-like words
#              -> run passes (kernel-health patterns are anchored)
#   tests      a failing test, a hung test with a background child, a test leaving two children
#              running (one escaped into its own session), a test leaving a module loaded, a
#              test printing forged result markers, and a checker running after them
#              -> each bad one FAILs with its reason, nothing survives into the checker, the
#                 forged markers count for nothing
#   detectors  the fixture WARNs, inverts a lock order, reads out of bounds (KASAN), indexes
#              out of bounds (UBSAN), corrupts a list, sleeps 13 s uninterruptibly (hung task)
#              and leaks memory (kmemleak); each test passes
#              -> kernel-health FAIL naming each report (those the kernel variant has), and
#                 every leak kmemleak reports is one of the fixture's (kmemleak-attribution)
#   vmdies     the kernel panics in the middle of a test (the VM dies)
#              -> that test FAILs "did not finish" with its output, the next "never started",
#                 kernel-health names the panic, run fails
#   vmhang     forged PASS markers for a test that then outlives the whole-VM timeout
#              -> it FAILs "did not finish" with the console tail, run fails
# Every kernel of `make test` runs it: the fixture vmfixture has a Rust host (6.12) and a C
# host (5.10) over one glue. The detectors and their report formats are the kernel's, so every
# kernel runs `clean` and `detectors`; `tests`, `vmdies` and `vmhang` check the harness's own logic
# (init.sh, run.sh, report.sh), which is the same on every kernel, and run where
# SELFTEST_CASES asks for them (make test: on the 6.12 debug kernel).
# Environment: as run.sh (VM_KERNEL, VM_ARCH, VM_ACCEL); SELFTEST_CASES="clean tests ..." to
# pick cases (default: all five).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

variant=${VM_KERNEL:-debug}
variant_series "$variant" >/dev/null   # unknown variant or wrong VM_ARCH: stop here
st=$VM_DIR/selftest
cases=${SELFTEST_CASES:-clean tests detectors vmdies vmhang}
passed=0; failed=0
kname=$(kernel_build_name "$variant")
outdir=$VMWORK/runs/selftest-$kname; mkdir -p "$outdir"

# check <case> <expected exit: 0|nonzero> <fixed string that must appear in the report>...
check() {
  local name=$1 want=$2 out=$outdir/$1.report rc=0 missing=() s
  shift 2
  (VM_RUN_NAME=selftest-$name "$VM_DIR/run.sh") >"$out" 2>"$outdir/$name.stderr" || rc=$?
  if [ "$want" = 0 ] && [ "$rc" != 0 ]; then missing+=("exit status 0 (got $rc)"); fi
  if [ "$want" != 0 ] && [ "$rc" = 0 ]; then missing+=("a non-zero exit status"); fi
  for s in "$@"; do grep -qF -- "$s" "$out" || missing+=("'$s'"); done
  if [ ${#missing[@]} -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS  selftest-$name ($kname)"
  else
    failed=$((failed + 1)); echo "FAIL  selftest-$name ($kname): report lacks ${missing[*]}"
    sed 's/^/      | /' "$out"; tail -n 20 "$outdir/$name.stderr" | sed 's/^/      ! /'
  fi
}

# Which detectors the variant's kernel has (the fast kernel has none of the debug ones).
"$VM_DIR/build-kernel.sh" "$variant" >&2
kconfig=$(kernel_build_dir "$variant")/.config
has() { grep -qx "CONFIG_$1=y" "$kconfig"; }
# The modules once for all cases.
"$VM_DIR/build-modules.sh" "$variant" "$outdir/modules" >&2
export VM_MODULES=$outdir/modules
# The cases name exact timeouts ("timeout after 5s"); their margins are their own.
export VM_TIMEOUT_SCALE=1

for c in $cases; do
  case "$c" in
    # (kmemleak's scans take ~15-30 s under TCG: only the detectors case needs them; its
    # "1 unreferenced object" also proves that a clean boot reports none)
    clean) VM_KMEMLEAK=0 VM_TESTS="$st/st-pass.sh" check clean 0 \
             "PASS  st-pass" "PASS  kernel-health" "vm-test: 2 passed, 0 failed" "accelerator: " ;;
    tests)
      tests="$st/st-pass.sh $st/st-fail.sh $st/st-hang.sh $st/st-bgchild.sh $st/st-modleft.sh"
      VM_KMEMLEAK=0 VM_TESTS="$tests $st/st-forge.sh $st/st-survivors.sh" check tests 1 \
        "PASS  st-pass" "FAIL  st-fail (rc=1" "| st-fail: failing on purpose" \
        "FAIL  st-hang (timeout after 5s)" "| st-hang: hanging on purpose" \
        "FAIL  st-bgchild (left running: " "| st-bgchild: leaving two children running" \
        "FAIL  st-modleft (left loaded: vmfixture)" "PASS  st-forge" "PASS  st-survivors" \
        "PASS  kernel-health" "vm-test: 4 passed, 4 failed" ;;
    detectors)
      tests="$st/st-warn.sh"; want=("PASS  st-warn" "WARNING:" "deliberate WARN" "unexpected kernel taint")
      if has PROVE_LOCKING; then
        # (named to run first: any taint, e.g. by a WARN or KASAN, switches lockdep off)
        tests+=" $st/st-circular-locks.sh"
        want+=("PASS  st-circular-locks" "WARNING: possible circular locking dependency")
      fi
      if has KASAN; then
        tests+=" $st/st-kasan.sh"; want+=("PASS  st-kasan" "BUG: KASAN: slab-out-of-bounds")
      fi
      if has UBSAN_BOUNDS; then
        tests+=" $st/st-ubsan.sh"; want+=("PASS  st-ubsan" "UBSAN: array-index-out-of-bounds in ")
      fi
      if has DEBUG_LIST; then
        tests+=" $st/st-list.sh"; want+=("PASS  st-list" "list_add corruption. next->prev should be prev")
      fi
      if has DETECT_HUNG_TASK; then
        tests+=" $st/st-hung.sh"
        want+=("PASS  st-hung" "INFO: task vmfixture_ctl:" "blocked for more than 10 seconds")
      fi
      if has DEBUG_KMEMLEAK; then
        tests+=" $st/st-leak.sh"
        want+=("PASS  st-leak" "unreferenced object(s)" 'data "vmfixture: delib"')
      fi
      n=$(wc -w <<<"$tests")
      echo "      (detectors on $variant:$(for t in $tests; do b=${t##*/st-}; printf ' %s' "${b%.sh}"; done))"
      VM_TESTS=$tests check detectors 1 "${want[@]}" "FAIL  kernel-health" \
        "vm-test: $n passed, 1 failed"
      # Every leak kmemleak reports is one of the fixture's (so a clean boot reports none).
      if has DEBUG_KMEMLEAK; then
        all=$(grep -c 'unreferenced object 0x' "$outdir/detectors.report" || true)
        ours=$(grep -c 'unreferenced object 0x.*data "vmfixture: delib"' "$outdir/detectors.report" || true)
        if [ "$all" -ge 1 ] && [ "$all" = "$ours" ]; then
          passed=$((passed + 1)); echo "PASS  selftest-kmemleak-attribution ($kname: $ours of the fixture's leaks reported, nothing else)"
        else
          failed=$((failed + 1)); echo "FAIL  selftest-kmemleak-attribution ($kname): $all reported, $ours of them the fixture's"
        fi
      fi ;;
    vmdies) VM_KMEMLEAK=0 VM_TESTS="$st/st-panic.sh $st/st-survivors.sh" \
             check vmdies 1 "FAIL  st-panic (did not finish" \
             "| st-panic: panicking on purpose" "FAIL  st-survivors (never started" \
             "Kernel panic - not syncing: vmfixture: deliberate panic" "FAIL  kernel-health" \
             "no VMTEST-DONE on the results channel" "vm-test: 0 passed, 3 failed" ;;
    vmhang) VM_KMEMLEAK=0 VM_TESTS="$st/st-forge.sh $st/st-vmhang.sh" VM_TEST_TIMEOUT=3600 \
             VM_TIMEOUT=${SELFTEST_VM_TIMEOUT:-150} \
             check vmhang 1 "PASS  st-forge" "FAIL  st-vmhang (did not finish" "qemu: timeout after" \
             "---- console tail ----" "| st-vmhang: hanging on purpose" "FAIL  kernel-health" \
             "no VMTEST-DONE on the results channel" "vm-test: 1 passed, 2 failed" ;;
    *) die "unknown self-test case '$c'" ;;
  esac
done
echo "vm-selftest: $passed passed, $failed failed ($kname)"
[ "$failed" -eq 0 ]
