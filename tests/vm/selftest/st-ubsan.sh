#!/bin/sh
# Harness self-test: the fixture triggers a deliberate ubsan report; the test itself passes,
# the run must still fail (kernel-health).
set -eu
insmod /modules/vmfixture.ko selftest_knobs=1
vmfixture_ctl knob ubsan
rmmod vmfixture
