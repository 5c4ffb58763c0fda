#!/bin/bash
# Build everything needed and run the VM tests; prints the report, exits non-zero on any failure.
#
# Environment:
#   VM_KERNEL=debug|fast|rt|debug510|oot kernel variant (default debug: lockdep + KASAN; rt:
#                           PREEMPT_RT; debug510: Linux 5.10, GCC, no Rust; oot: 6.12 arm64,
#                           GCC, no Rust, for NVIDIA's R36 drivers)
#   VM_ARCH=x86_64|arm64    target architecture (arm64: debug (6.12 + Rust), debug510 or oot,
#                           TCG, qemu -M virt)
#   VM_ACCEL=auto|tcg|kvm   auto: KVM only if a short probe boot works, else TCG (default auto)
#   VM_TESTS="paths..."     tests to run (default: tests/vm/tests/*); *.c are built statically
#   VM_TEST_TIMEOUT=120     default per-test timeout (s); a test can set "vmtest-timeout=<s>"
#   VM_TIMEOUT_SCALE=4      each per-test timeout is its figure times this (see below)
#   VM_TIMEOUT=<s>          whole-VM hard timeout (default: 180 + sum of the per-test figures)
#   VM_RUN_NAME=vm-test     name of the run (work dir target/vm/runs/<name>-<variant>/)
#   VM_KVM_PROBE_TIMEOUT=20 seconds allowed for the KVM probe boot
#   VM_KMEMLEAK=1           0: skip the kmemleak scans after the suite (harness self-test only)
#   VM_MODULES=<dir>        use these prebuilt .ko files (built for VM_KERNEL) instead of building
#   VM_MECHANISM=reload|gate gcaps.ko's eligibility mechanism for the suite (default reload): every
#                           insmod of gcaps.ko in the VM gets mechanism=<it> unless it names one
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

variant=${VM_KERNEL:-debug}
accel=${VM_ACCEL:-auto}
deftmo=${VM_TEST_TIMEOUT:-120}
run_name=${VM_RUN_NAME:-vm-test}
# A per-test timeout detects a hang; it is not a speed check. A test's figure bounds its run
# on a quiet TCG VM with margin; two VMs side by side on two cores, or a VM beside
# `stress-ng --cpu 2`, run a guest up to about 4 times slower (measured: 32-gcaps-observe over
# 200 s on the arm64 VM beside another VM and two builds, 26 s on a quiet x86_64 VM), so the
# timeout is the figure times VM_TIMEOUT_SCALE. The whole-VM timeout stays the sum of the
# figures: a hung VM costs no more than before.
scale=${VM_TIMEOUT_SCALE:-4}
[[ "$scale" =~ ^[1-9][0-9]?$ ]] || die "VM_TIMEOUT_SCALE must be a whole number from 1 to 99 (got '$scale')"
case "$accel" in auto|tcg|kvm) ;; *) die "VM_ACCEL must be auto, tcg or kvm (got '$accel')" ;; esac
mechanism=${VM_MECHANISM:-reload}
case "$mechanism" in reload|gate) ;; *) die "VM_MECHANISM must be reload or gate (got '$mechanism')" ;; esac
variant_series "$variant" >/dev/null   # unknown variant or wrong VM_ARCH: stop here
if [ "$VM_ARCH" = arm64 ] && [ "$accel" = kvm ]; then die "VM_ACCEL=kvm: no KVM for an arm64 guest on this host (use tcg)"; fi
name=$(kernel_build_name "$variant")

"$VM_DIR/build-kernel.sh" "$variant"
kb=$(kernel_build_dir "$variant")
kimage=$(kernel_image "$kb")

work=$VMWORK/runs/$run_name-$name
rm -rf "$work"
mkdir -p "$work/bin" "$work/tests"

if [ -n "${VM_MODULES:-}" ]; then   # prebuilt for this variant (the self-test builds them once)
  mkdir -p "$work/modules"; cp "$VM_MODULES"/*.ko "$work/modules/"
else
  "$VM_DIR/build-modules.sh" "$variant" "$work/modules"
fi

# Static userspace: helper programs (progs/*.c -> /bin/<name>) and the tests themselves
# (arm64: cross-compiled with aarch64-linux-gnu-gcc).
vmcc=$(vm_cc)
cc_static() { "$vmcc" -static -O2 -Wall -Wextra -Werror -o "$1" "$2"; }
t0=$(now)
for c in "$VM_DIR"/progs/*.c; do
  [ -e "$c" ] || continue
  b=${c##*/}; cc_static "$work/bin/${b%.c}" "$c"
done
if [ -n "${VM_TESTS:-}" ]; then read -r -a tests <<<"$VM_TESTS"; else tests=("$VM_DIR"/tests/*); fi
# Every module a test loads (/modules/<name>.ko in its source, or in the shell library its
# vmtest-needs=gpu-lib|common-lib line names) must have been built for this kernel: a missing
# one is a build bug and fails the run (every module builds on every kernel).
: >"$work/tests.list"; : >"$work/timeouts"
for t in "${tests[@]}"; do
  [ -f "$t" ] || die "no such test: $t"
  b=${t##*/}; tname=${b%.*}
  [[ "$b" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || die "test file name '$b' must be letters, digits, '.', '_', '-'"
  grep -qxF "$tname" "$work/tests.list" && die "duplicate test name $tname"
  srcs=("$t")
  grep -aq 'vmtest-needs=gpu-lib' "$t" && srcs+=("$VM_DIR/lib/gpu.sh" "$VM_DIR/lib/common.sh")
  grep -aq 'vmtest-needs=common-lib' "$t" && srcs+=("$VM_DIR/lib/common.sh")
  missing=$({ grep -aho '/modules/[A-Za-z0-9_-]*\.ko' "${srcs[@]}" || true; } | sort -u | while read -r m; do
              [ -e "$work/modules/${m#/modules/}" ] || printf ' %s' "${m#/modules/}"; done)
  [ -z "$missing" ] || die "test $tname needs$missing, which was not built for the $name kernel"
  case "$b" in
    *.c) cc_static "$work/tests/$b" "$t"; chmod +x "$work/tests/$b" ;;
    *) [ -x "$t" ] || die "test $t is not executable"; cp "$t" "$work/tests/$b" ;;
  esac
  echo "$tname" >>"$work/tests.list"
  # Per-test timeout: a line of the test's source containing "vmtest-timeout=<seconds>".
  tmo=$(grep -a -o 'vmtest-timeout=[0-9][0-9]*' "$t" | head -n 1 | cut -d= -f2 || true)
  echo "$b $(( ${tmo:-$deftmo} * scale )) ${tmo:-$deftmo}" >>"$work/timeouts"
done
[ -s "$work/tests.list" ] || die "no tests to run"
sort -o "$work/tests.list" "$work/tests.list"   # init runs /tests/* in glob (sorted) order
record_time userspace-build "$(elapsed "$t0")"

# Initramfs: the kernel's gen_init_cpio needs no root and no mknod.
busybox=/bin/busybox; [ "$VM_ARCH" = arm64 ] && busybox=$BUSYBOX_ARM64
gen=$KCACHE/tools/gen_init_cpio
[ -x "$gen" ] || { mkdir -p "${gen%/*}"; gcc -O2 -o "$gen" "$KSRC/usr/gen_init_cpio.c"; }
{
  for d in /dev /proc /sys /tmp /bin /modules /tests; do echo "dir $d 0755 0 0"; done
  echo "nod /dev/console 0600 0 0 c 5 1"
  echo "nod /dev/null 0666 0 0 c 1 3"
  echo "file /bin/busybox $busybox 0755 0 0"
  echo "slink /bin/sh busybox 0777 0 0"
  echo "file /init $VM_DIR/init.sh 0755 0 0"
  echo "file /vmtest-timeouts $work/timeouts 0644 0 0"
  for f in "$work"/modules/*.ko; do echo "file /modules/${f##*/} $f 0644 0 0"; done
  for f in "$work"/bin/*; do [ -e "$f" ] && echo "file /bin/${f##*/} $f 0755 0 0"; done
  for f in "$work"/tests/*; do echo "file /tests/${f##*/} $f 0755 0 0"; done
  # Optional extra content: each executable tests/vm/initramfs-hooks/*.sh gets the work dir and
  # prints gen_init_cpio lines (e.g. shared libraries for dynamically linked programs; README).
  for h in "$VM_DIR"/initramfs-hooks/*.sh; do
    [ -x "$h" ] || continue
    "$h" "$work" || die "initramfs hook ${h#"$REPO_ROOT"/} failed"
  done
} >"$work/initramfs.list"
"$gen" "$work/initramfs.list" | gzip -1 >"$work/initramfs.cpio.gz"

# Hard timeout for the whole VM: boot allowance + every test's figure (unscaled).
if [ -z "${VM_TIMEOUT:-}" ]; then
  VM_TIMEOUT=$(awk '{ s += $3 + 5 } END { print s + 180 }' "$work/timeouts")
fi

# Two serial ports: ttyS0 = console (kernel log, test output), ttyS1 = results channel (written
# only by init.sh; see there). arm64 (-M virt has one PL011): console ttyAMA0, results channel a
# virtio console (hvc0; init.sh finds it on the command line: vmtest.results=hvc0).
qemu() { # qemu <accel> <timeout> <console log> <results log> <extra kernel args>
  local acc_args
  if [ "$VM_ARCH" = arm64 ]; then
    timeout -k 10 "$2" qemu-system-aarch64 -M virt -accel tcg -cpu cortex-a57 -smp 2 -m 1G \
      -nodefaults -display none -no-reboot -serial "file:$3" \
      -device virtio-serial-device -chardev "file,id=results,path=$4" -device virtconsole,chardev=results \
      -kernel "$kimage" -initrd "$work/initramfs.cpio.gz" \
      -append "console=ttyAMA0 panic=-1 oops=panic vmtest.results=hvc0 $5" </dev/null >>"$work/qemu.log" 2>&1
    return
  fi
  # la57=off: with 5-level paging, a timer interrupt that lands while identify_boot_cpu() has
  # cleared the CPU feature bits (LA57 included) makes KASAN take every direct-map address for
  # a wild access ("BUG: KASAN: wild-memory-access in do_raw_spin_lock" at ~0.01 s, seen in 2
  # of ~16 loaded TCG boots): a kernel bug outside our code, avoided with 4-level paging.
  if [ "$1" = kvm ]; then acc_args=(-accel kvm -cpu host); else acc_args=(-accel tcg -cpu max,la57=off); fi
  timeout -k 10 "$2" qemu-system-x86_64 "${acc_args[@]}" -smp 2 -m 1G \
    -nodefaults -display none -no-reboot -serial "file:$3" -serial "file:$4" \
    -kernel "$kimage" -initrd "$work/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 oops=panic $5" </dev/null >>"$work/qemu.log" 2>&1
}

if [ "$accel" = auto ]; then
  accel=tcg
  if [ "$VM_ARCH" = x86_64 ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    log "probing KVM (${VM_KVM_PROBE_TIMEOUT:-20} s max)"
    # (in a subshell: QEMU aborts on a broken KVM and bash would report that on stderr)
    if (qemu kvm "${VM_KVM_PROBE_TIMEOUT:-20}" "$work/kvm-probe.log" /dev/null vmtest.probe=1) 2>/dev/null \
       && grep -aq VMTEST-PROBE-OK "$work/kvm-probe.log"; then
      accel=kvm
    else
      log "KVM probe failed; falling back to TCG"
    fi
  fi
fi

log "booting $(cat "$kb/include/config/kernel.release") under $accel ($(wc -l <"$work/tests.list") tests, mechanism $mechanism, VM timeout ${VM_TIMEOUT}s)"
t0=$(now)
qrc=0
qemu "$accel" "$VM_TIMEOUT" "$work/console.log" "$work/results.log" \
  "vmtest.timeout=$((deftmo * scale)) vmtest.kmemleak=${VM_KMEMLEAK:-1} vmtest.mechanism=$mechanism" || qrc=$?
vm_time=$(elapsed "$t0")
record_time "vm-run-$name-$accel" "$vm_time"
case "$qrc" in
  0) qstatus=ok ;;
  124|137) qstatus="timeout after ${VM_TIMEOUT}s" ;;
  *) qstatus="qemu exit $qrc: $(tail -n 3 "$work/qemu.log" | tr '\n' ' ')" ;;
esac

"$VM_DIR/report.sh" "$work/results.log" "$work/console.log" "$work/tests.list" \
  "accelerator: $accel, kernel: $name ($(cat "$kb/include/config/kernel.release")), mechanism: $mechanism, vm: ${vm_time}s, qemu: $qstatus" \
  vm-test
