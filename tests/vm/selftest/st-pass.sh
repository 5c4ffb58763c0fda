#!/bin/sh
# Harness self-test: a trivially passing test (control). It also logs a benign kernel line full
# of words that unanchored patterns would take for a kernel report ("stall", "WARNING:", ...):
# kernel-health must still pass. It leaves a file in its directory, which no later test may
# see (st-survivors).
echo "st-pass: benign kernel line: install stall; Call Trace: WARNING: BUG: UBSAN: mid-line" >/dev/kmsg
echo stale >left.out
echo "st-pass: ok"
