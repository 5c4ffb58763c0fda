#!/bin/sh
# Harness self-test: a hung test with a background child; the per-test timeout must kill both
# (st-survivors checks the child's ticks stopped) and report FAIL.
# vmtest-timeout=5
(while :; do echo tick >>/tmp/st-hang.ticks; sleep 0.2; done) &
echo "st-hang: hanging on purpose"
while :; do sleep 1; done
