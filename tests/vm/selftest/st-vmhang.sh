#!/bin/sh
# Harness self-test: a test that outlives the whole-VM timeout (run with a short VM_TIMEOUT and
# a long per-test timeout); the report must show it as FAIL with the console tail.
echo "st-vmhang: hanging on purpose"
while :; do sleep 1; done
