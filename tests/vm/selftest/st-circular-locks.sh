#!/bin/sh
# Harness self-test: the fixture takes two locks in both orders; lockdep must report a possible
# circular locking dependency. The test itself passes, the run must still fail (kernel-health).
# (Named to run before the other detector tests: a taint switches lockdep off.)
set -eu
insmod /modules/vmfixture.ko selftest_knobs=1
vmfixture_ctl knob lockdep
rmmod vmfixture
