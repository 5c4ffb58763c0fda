#!/bin/sh
# Harness self-test: a deliberately failing test; the report must show it as FAIL.
echo "st-fail: failing on purpose"
exit 1
