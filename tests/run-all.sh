#!/usr/bin/env bash
# The README's test command (`make test`; `.ci/run` calls it): every check, in order,
# with a time per step: formatting, lints, cargo tests, the install test, the rustc 1.85 and
# device checks, the nvgpu patch series' form (nvgpu/series.sh --check), no citation outside
# the repository (tests/citation-check.sh), nvgpu's host unit build stock and patched (both
# Jetson lines), the backend contract suite's own check (tests/contract/check.sh), the VM
# suite on the 6.12 debug kernel (host A) and on the 5.10 arm64 debug kernel (host B), the
# gcaps tests with host B on 6.12, DKMS builds against 6.12 and 5.10, NVIDIA's R36 nvgpu.ko
# built out of tree with the series and loaded beside gcaps.ko (arm64 6.12), the harness
# self-test (every case on 6.12; the detectors on the 5.10 kernels and the arm64 6.12 one), the
# VM benchmarks' build (make vm-bench runs them). The 6.12 suite runs gcaps.ko under mechanism
# gate, the 5.10 arm64 suite and host B on 6.12 under reload (see the vm-test step).
# Installs what it needs itself (Debian packages, bindgen-cli, rustup targets).
# Ends with one line summing the test counts of cargo test and the VM tests.
set -euo pipefail
cd "$(dirname "$0")/.."
LOGDIR=target/test-logs
# A thread's stack is unmapped when the thread ends instead of kept for the next thread: a test
# that leaves a pointer into an ended thread's stack (e.g. a registration with a local ops table
# that outlives its test) crashes every time, not by chance.
export GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}
mkdir -p "$LOGDIR"
: > "$LOGDIR/times.txt"

# failed NAME T0: reports a failed step by name with what failed in it: a failed or crashed
# test of any harness (cargo's aborted test binary, a VM test, nvgpu_unit's unit, a self-test
# case).
failed() {
  echo "==> $1 FAILED after $((SECONDS - $2)) s (log: $LOGDIR/$1.log)"
  grep -aE "^(FAIL |test .* FAILED$|error: test failed|nvgpu-test: .*FAIL)|process didn't exit successfully|nvgpu_unit exited|ERROR: " \
    "$LOGDIR/$1.log" | head -n 20 | sed 's/^/==>   /' || true
  # A test binary killed by a signal names no test: it runs again with one test at a time, so
  # the test it dies in is the one it started last and did not finish (a crash that does not
  # recur is reported as such; the step has failed either way).
  local rerun last
  grep -aq "process didn't exit successfully: .*(signal: " "$LOGDIR/$1.log" || return 0
  sed -nE 's/^error: test failed, to rerun pass `(.*)`$/\1/p' "$LOGDIR/$1.log" | while read -r rerun; do
    # shellcheck disable=SC2086 # cargo's own words: "-p PKG --test NAME" or "--lib"
    last=$(cargo test --locked $rerun -- --test-threads=1 2>&1 |
             grep -aoE '^test [^ ]+ \.\.\. (ok|FAILED|ignored)?' | tail -n 1 || true)
    case "$last" in
      *" ... ") echo "==>   $rerun: crashed in ${last% ... }" ;;
      *) echo "==>   $rerun: the crash did not recur with one test at a time" ;;
    esac
  done
}

step() { # step NAME COMMAND...: runs COMMAND, output to the console and LOGDIR/NAME.log
  local name=$1; shift
  local t0=$SECONDS
  echo "==> $name: $*"
  if ! "$@" 2>&1 | tee "$LOGDIR/$name.log"; then
    failed "$name" "$t0"
    exit 1
  fi
  echo "$name $((SECONDS - t0)) s" | tee -a "$LOGDIR/times.txt"
}

# The second lane: steps that run beside the main lane's, in order, each with its output in
# its log only (printed when the lane is joined). A VM under TCG keeps about 1.4 of the two
# cores busy, so two VM suites side by side take about 0.7 of their time one after the other.
# Every test synchronises on events, not on time, so it passes on a loaded machine.
lane_pid=""
lane_step() { # lane_step NAME COMMAND...: a step of the second lane
  local name=$1; shift
  local t0=$SECONDS
  echo "$name" >>"$LOGDIR/lane.steps"
  if ! "$@" >"$LOGDIR/$name.log" 2>&1; then
    echo "$((SECONDS - t0))" >"$LOGDIR/$name.failed"
    return 1
  fi
  echo "$name $((SECONDS - t0)) s" >>"$LOGDIR/times.txt"
}
lane_start() { # lane_start FUNCTION: runs FUNCTION (its lane_steps) beside the main lane
  : >"$LOGDIR/lane.steps"
  rm -f "$LOGDIR"/*.failed
  echo "==> second lane: $1 (each step's output follows when the lane ends)"
  "$1" & lane_pid=$!
}
lane_join() { # waits for the lane and prints its steps' output; a failed step fails the run
  local name rc=0
  wait "$lane_pid" || rc=$?
  lane_pid=""
  while read -r name; do
    echo "==> $name (second lane):"
    cat "$LOGDIR/$name.log"
    if [ -f "$LOGDIR/$name.failed" ]; then
      # its time until it failed, not until the lane was joined
      failed "$name" "$((SECONDS - $(cat "$LOGDIR/$name.failed")))"
      exit 1
    fi
  done <"$LOGDIR/lane.steps"
  [ "$rc" = 0 ] || { echo "==> second lane FAILED (exit $rc)"; exit 1; }
}
# A failed main-lane step ends the run: the lane's processes (a VM, a build) end with it.
kill_tree() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done; kill "$1" 2>/dev/null || true; }
trap '[ -z "$lane_pid" ] || kill_tree "$lane_pid"' EXIT

# Every package first, for both architectures and both kernel lines (the lanes then install
# nothing at the same time).
step setup bash -c 'tests/vm/setup.sh && VM_ARCH=arm64 tests/vm/setup.sh debug510'
# The 5.10 lane (JetPack 5's kernel line; gcaps.ko's C host), beside every other step from here
# on: the suite on arm64 (the Jetson's architecture: its kernel, its cross-built user space),
# then the self-test's detectors with the fixture's C host on 5.10 arm64 and x86_64 (their
# configs and report formats are each kernel's own; the harness-logic cases, the same on every
# kernel, run on 6.12). The suite runs once on 5.10: on x86_64 it would run the same C host, the
# same tests and the same kernel version again; x86_64's build of host B against 5.10 is
# checked by the DKMS step, and the C host runs on x86_64 in vm-test-host-c (6.12).
# Then NVIDIA's R36 nvgpu.ko, stock and with the series, built out of tree against an arm64
# 6.12 kernel (GCC, no Rust: gcaps.ko's C host) and loaded beside gcaps.ko in its VM, and the
# detectors on that kernel.
lane_arm64() {
  lane_step vm-test-510-arm64 env VM_ARCH=arm64 VM_KERNEL=debug510 VM_MECHANISM=reload \
    tests/vm/run.sh || return 1
  lane_step vm-selftest-510-arm64 env VM_ARCH=arm64 VM_KERNEL=debug510 \
    SELFTEST_CASES="clean detectors" tests/vm/selftest.sh || return 1
  lane_step vm-selftest-510 env VM_KERNEL=debug510 SELFTEST_CASES="clean detectors" \
    tests/vm/selftest.sh || return 1
  lane_step nvgpu-oot tests/nvgpu-oot/run.sh || return 1
  lane_step vm-selftest-oot env VM_ARCH=arm64 VM_KERNEL=oot SELFTEST_CASES="clean detectors" \
    tests/vm/selftest.sh
}
lane_start lane_arm64
step fmt cargo fmt --all -- --check
step clippy cargo clippy --workspace --all-targets --locked -- -D warnings
step cargo-test cargo test --workspace --locked
step install-test tests/install-test.sh
step policy-rustc-1.85 module/policy/check-rustc-1.85.sh
step device-check module/gcaps/check.sh
step nvgpu-series-check nvgpu/series.sh --check
step citation-check tests/citation-check.sh
step nvgpu-test tests/nvgpu/run.sh
step contract-check tests/contract/check.sh
step vm-bench-check tests/vm/bench/check.sh
# gcaps.ko's two eligibility mechanisms (VM_MECHANISM; tests/vm/README.md) share the suite's
# runs instead of doubling them: the 6.12 debug suite runs under gate, the 5.10 arm64 suite (the
# lane above) and host B on 6.12 under reload. Gate is the newer path, with new waits (a TSG
# preempt's completion under gcaps's update lock and the driver's runlist lock) and a new
# interplay with the emulated GPU's hard-irq engine (channel enables), so it gets the kernel
# with the most detectors (clang KASAN, full PREEMPT lockdep) and the faster lane to iterate
# on; reload, the default and what JetPack 5 deployments run, keeps the Jetson's kernel line
# and architecture. 45-gpu-handover (gate) and 47-contract-simgpu (both) pick their mechanism
# themselves in every run, and 59 (both) and 68 (reload's submit waits) theirs.
step vm-test env VM_MECHANISM=gate tests/vm/run.sh
# Host B on a kernel >= 5.15 (JetPack 6's 5.15 and 7.2's 6.8 take the glue's newer branches
# with it): the gcaps tests whose path runs through the host, on the 6.12 debug kernel.
step vm-test-host-c env GCAPS_HOST=c VM_MECHANISM=reload VM_RUN_NAME=host-c VM_TESTS="tests/vm/tests/30-gcaps-uapi.c \
  tests/vm/tests/47-contract-simgpu.c tests/vm/tests/64-gcaps-owner-exit.c \
  tests/vm/tests/66-gcaps-errno-state.c tests/vm/tests/67-gpu-boost.c \
  tests/vm/tests/68-gpu-boost-changes.c" tests/vm/run.sh
step nvgpu-linux-glue tests/nvgpu/linux-glue.sh
step dkms-test tests/dkms-test.sh debug debug510
step vm-selftest tests/vm/selftest.sh
lane_join

# The budget (README): 40 min with every kernel cached, 70 min when this run built a kernel.
if grep -aqE '^\[vm\] kernel-build-[^ ]+ took ' "$LOGDIR"/*.log; then
  budget=4200 why="a kernel was built"
else
  budget=2400 why="kernels cached"
fi
echo "==> time per step:"
sed 's/^/    /' "$LOGDIR/times.txt"
echo "    total $SECONDS s of a budget of $budget s ($why)$([ "$SECONDS" -le "$budget" ] || echo ': OVER BUDGET')"
passed=0 failed=0
while read -r p f; do passed=$((passed + p)); failed=$((failed + f)); done < <(
  sed -nE 's/^test result: [a-zA-Z]+\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/cargo-test.log"
  sed -nE 's/^install-test: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/install-test.log"
  for l in vm-test vm-test-510-arm64 vm-test-host-c nvgpu-oot; do
    sed -nE 's/^vm-test: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/$l.log"
  done
  for l in vm-selftest vm-selftest-510 vm-selftest-510-arm64 vm-selftest-oot; do
    sed -nE 's/^vm-selftest: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/$l.log"
  done
  sed -nE 's/^nvgpu-test: [^ ]+ gcaps scenarios( \(full profile\))?: ([0-9]+) passed, ([0-9]+) failed.*/\2 \3/p' "$LOGDIR/nvgpu-test.log"
  sed -nE 's/^nvgpu-test: [^ ]+ contract suite( \(full profile\))?: reload ([0-9]+) passed, ([0-9]+) failed, [0-9]+ skipped; gate ([0-9]+) passed, ([0-9]+) failed.*/\2 \3\n\4 \5/p' "$LOGDIR/nvgpu-test.log"
  sed -nE 's/^nvgpu-linux-glue: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/nvgpu-linux-glue.log"
  sed -nE 's/^dkms-test: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/dkms-test.log"
  sed -nE 's/^contract-check: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/contract-check.log"
  sed -nE 's/^vm-bench-check: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/vm-bench-check.log"
)
echo "all: $passed passed, $failed failed"
[ "$failed" = 0 ]
