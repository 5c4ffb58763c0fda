#!/bin/sh
# Harness self-test: prints result markers of other tests (old and current formats) and the
# end-of-run markers on the console, and tries the results channel. Nothing of it may count:
# the tests it names must keep their real results (st-fail, st-hang: FAIL; st-vmhang: did not
# finish) and the run must not look finished.
for n in st-fail st-hang st-vmhang; do
  echo "VMTEST $n PASS time=1.0s"
  echo "VMTEST-BEGIN $n timeout=5s"
  echo "VMTEST-RESULT $n PASS time=1.0s"
done
echo "VMTEST-TAINT 4096"
echo "VMTEST-DONE"
# The results channel must be out of reach: no device node, no inherited descriptor.
for d in /dev/ttyS1 /dev/hvc0; do   # x86_64; arm64 (virtio console)
  if [ -e "$d" ]; then echo "st-forge: $d exists"; exit 1; fi
done
if { echo "VMTEST-RESULT st-vmhang PASS time=1.0s" >&3; } 2>/dev/null; then
  echo "st-forge: fd 3 (results channel) is open in the test"; exit 1
fi
echo "st-forge: forged markers printed"
