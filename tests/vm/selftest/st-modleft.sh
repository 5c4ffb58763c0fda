#!/bin/sh
# Harness self-test: exits 0 but leaves a module loaded; the test must FAIL and the module be
# unloaded before the next test (st-survivors).
set -eu
insmod /modules/vmfixture.ko
echo "st-modleft: leaving vmfixture loaded"
