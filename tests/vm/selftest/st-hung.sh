#!/bin/sh
# Harness self-test: the fixture sleeps uninterruptibly for 13 s, past the hung-task timeout
# (10 s); the test itself passes, the run must still fail (kernel-health: hung task).
# vmtest-timeout=60
set -eu
insmod /modules/vmfixture.ko selftest_knobs=1
vmfixture_ctl knob hung
rmmod vmfixture
