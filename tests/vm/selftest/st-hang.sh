#!/bin/sh
# Harness self-test: a hung test; the per-test timeout must kill it and report FAIL.
# vmtest-timeout=5
echo "st-hang: hanging on purpose"
while :; do sleep 1; done
