#!/bin/sh
# Harness self-test: a trivially passing test (control). It also logs a benign kernel line full
# of words that unanchored patterns would take for a kernel report ("stall", "WARNING:", ...):
# kernel-health must still pass.
echo "st-pass: benign kernel line: install stall; Call Trace: WARNING: BUG: UBSAN: mid-line" >/dev/kmsg
echo "st-pass: ok"
