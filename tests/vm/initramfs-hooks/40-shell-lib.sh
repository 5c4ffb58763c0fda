#!/bin/sh
# Initramfs hook (tests/vm/initramfs-hooks/, run by run.sh): the shared shell preambles of the
# VM tests, tests/vm/lib/*.sh, as /vmtest/*.sh: common.sh (fail, expect_error, field, f) and
# gpu.sh (the end-to-end GPU tests' helpers; it sources common.sh). Only when a selected test
# has the line "vmtest-needs=common-lib" or "vmtest-needs=gpu-lib".
# Usage: 40-shell-lib.sh WORKDIR; prints gen_init_cpio lines.
set -eu
work=$1
lib=$(cd "$(dirname "$0")/../lib" && pwd)
grep -qs -e 'vmtest-needs=common-lib' -e 'vmtest-needs=gpu-lib' "$work"/tests/* || exit 0
echo "dir /vmtest 0755 0 0"
echo "file /vmtest/common.sh $lib/common.sh 0644 0 0"
echo "file /vmtest/gpu.sh $lib/gpu.sh 0644 0 0"
