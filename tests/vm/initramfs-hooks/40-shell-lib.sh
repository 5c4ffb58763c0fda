#!/bin/sh
# Initramfs hook (tests/vm/initramfs-hooks/, run by run.sh): the shared shell preamble of the
# end-to-end GPU tests, tests/vm/lib/gpu.sh, as /vmtest/gpu.sh. Only when a selected test has
# the line "vmtest-needs=gpu-lib". Usage: 40-gpu-lib.sh WORKDIR; prints gen_init_cpio lines.
set -eu
work=$1
lib=$(cd "$(dirname "$0")/../lib" && pwd)/gpu.sh
grep -qs 'vmtest-needs=gpu-lib' "$work"/tests/* || exit 0
echo "dir /vmtest 0755 0 0"
echo "file /vmtest/gpu.sh $lib 0644 0 0"
