#!/usr/bin/env bash
# The README's test command (`make test`; `.ci/run` calls it): every check, in order,
# with a time per step: formatting, lints, cargo tests, the install test, the rustc 1.85 and
# device checks, nvgpu's host unit build stock and patched (both Jetson lines), the backend
# contract suite's own check (tests/contract/check.sh), the VM suite
# on the 6.12 debug kernel (host A) and on the 5.10 debug kernels for x86_64 and arm64
# (host B), the gcaps tests with host B on 6.12, DKMS builds against 6.12 and 5.10, the harness self-test.
# Installs what it needs itself (Debian packages, bindgen-cli, rustup targets).
# Ends with one line summing the test counts of cargo test and the VM tests.
set -euo pipefail
cd "$(dirname "$0")/.."
LOGDIR=target/test-logs
mkdir -p "$LOGDIR"
: > "$LOGDIR/times.txt"

step() { # step NAME COMMAND...: runs COMMAND, output to the console and LOGDIR/NAME.log
  local name=$1; shift
  local t0=$SECONDS
  echo "==> $name: $*"
  if ! "$@" 2>&1 | tee "$LOGDIR/$name.log"; then
    echo "==> $name FAILED after $((SECONDS - t0)) s (log: $LOGDIR/$name.log)"
    exit 1
  fi
  echo "$name $((SECONDS - t0)) s" | tee -a "$LOGDIR/times.txt"
}

step setup tests/vm/setup.sh
step fmt cargo fmt --all -- --check
step clippy cargo clippy --workspace --all-targets --locked -- -D warnings
step cargo-test cargo test --workspace --locked
step install-test tests/install-test.sh
step policy-rustc-1.85 module/policy/check-rustc-1.85.sh
step device-check module/gcaps/check.sh
step nvgpu-test tests/nvgpu/run.sh
step contract-check tests/contract/check.sh
step vm-test tests/vm/run.sh
step vm-test-510 env VM_KERNEL=debug510 tests/vm/run.sh
step vm-test-510-arm64 env VM_ARCH=arm64 VM_KERNEL=debug510 tests/vm/run.sh
# Host B on a kernel >= 5.15 (JetPack 6's 5.15 and 7.2's 6.8 take the glue's newer branches
# with it): the gcaps tests whose path runs through the host, on the 6.12 debug kernel.
step vm-test-host-c env GCAPS_HOST=c VM_RUN_NAME=host-c VM_TESTS="tests/vm/tests/30-gcaps-uapi.c \
  tests/vm/tests/47-contract-simgpu.c tests/vm/tests/64-gcaps-owner-exit.c \
  tests/vm/tests/66-gcaps-errno-state.c tests/vm/tests/67-gpu-boost.c" tests/vm/run.sh
step nvgpu-linux-glue tests/nvgpu/linux-glue.sh
step dkms-test tests/dkms-test.sh debug debug510
step vm-selftest tests/vm/selftest.sh

echo "==> time per step:"
sed 's/^/    /' "$LOGDIR/times.txt"
echo "    total $SECONDS s"
passed=0 failed=0
while read -r p f; do passed=$((passed + p)); failed=$((failed + f)); done < <(
  sed -nE 's/^test result: [a-zA-Z]+\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/cargo-test.log"
  sed -nE 's/^install-test: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/install-test.log"
  for l in vm-test vm-test-510 vm-test-510-arm64 vm-test-host-c; do
    sed -nE 's/^vm-test: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/$l.log"
  done
  sed -nE 's/^vm-selftest: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/vm-selftest.log"
  sed -nE 's/^nvgpu-test: [^ ]+ (gcaps scenarios|contract suite)( \(full profile\))?: ([0-9]+) passed, ([0-9]+) failed.*/\3 \4/p' "$LOGDIR/nvgpu-test.log"
  sed -nE 's/^nvgpu-linux-glue: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/nvgpu-linux-glue.log"
  sed -nE 's/^dkms-test: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/dkms-test.log"
  sed -nE 's/^contract-check: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$LOGDIR/contract-check.log"
)
echo "all: $passed passed, $failed failed"
[ "$failed" = 0 ]
