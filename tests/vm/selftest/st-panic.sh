#!/bin/sh
# Harness self-test: the kernel panics in the middle of this test (the fixture's panic knob);
# the VM dies at once (panic=-1, -no-reboot), so the report must show this test as FAIL
# "did not finish" and the run as failed (no VMTEST-DONE, the panic in kernel-health).
set -eu
insmod /modules/vmfixture.ko selftest_knobs=1
echo "st-panic: panicking on purpose"
vmfixture_ctl knob panic
echo "st-panic: still alive after the panic knob"
