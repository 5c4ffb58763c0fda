#!/bin/sh
# Fixture module: load, exercise through ioctls (also concurrently), unload, reload.
# (Harness proof until the real module has its own VM tests; test-only.)
set -eu
ko=/modules/vmfixture.ko

insmod "$ko"
grep -q '^vmfixture ' /proc/modules
test -c /dev/gcaps-vmfixture
vmfixture_ctl query 20
vmfixture_ctl badcmd

# The self-test knobs must be refused unless loaded with selftest_knobs=1.
if vmfixture_ctl knob warn; then echo "knob accepted without selftest_knobs=1"; exit 1; fi

# Concurrent callers.
pids=""
for i in 1 2 3 4 5 6 7 8; do
  vmfixture_ctl query "$i" >/dev/null &
  pids="$pids $!"
done
for p in $pids; do wait "$p"; done

rmmod vmfixture
if grep -q '^vmfixture ' /proc/modules; then echo "still loaded after rmmod"; exit 1; fi
test ! -e /dev/gcaps-vmfixture

# Second load/use/unload cycle (misc re-registration, lock class reuse after unload).
insmod "$ko"
vmfixture_ctl query 1
rmmod vmfixture
echo "vmfixture: ok"
