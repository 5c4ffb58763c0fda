# shellcheck shell=sh
# Shared preamble of the shell VM tests. Packed into the initramfs as /vmtest/common.sh by
# initramfs-hooks/40-shell-lib.sh when a selected test has the line "vmtest-needs=common-lib"
# (or "vmtest-needs=gpu-lib": /vmtest/gpu.sh sources it); a test sources it (busybox sh):
#
#     . /vmtest/common.sh        # set -eu, fail, expect_error, field, f, waitfor, waitline
set -eu
fail() { echo "FAIL: $*"; exit 1; }
# expect_error CODE PATTERN CMD...: CMD exits with CODE, prints one stderr line matching PATTERN
expect_error() {
  code=$1 pat=$2; shift 2
  rc=0; "$@" >/tmp/out 2>/tmp/err || rc=$?
  [ "$rc" = "$code" ] || fail "$*: exit $rc, want $code ($(cat /tmp/err))"
  [ "$(wc -l </tmp/err)" = 1 ] || fail "$*: not one line: $(cat /tmp/err)"
  grep -q -- "$pat" /tmp/err || fail "$*: '$(cat /tmp/err)' lacks '$pat'"
  echo "ok: $* -> $(cat /tmp/err)"
}
# field <file> <line prefix> <key>: value of key= on the first line starting with prefix
field() { awk -v p="$2" -v k="$3" 'index($0, p) == 1 { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }' "$1"; }
# f <file> <key>: key= of the first SEG line (gpuclient --report)
f() { field "$1" SEG "$2"; }
# waitfor <message> <command...>: run the command every 50 ms until it succeeds; after 15 s,
# fail with the message
waitfor() { waitfor_msg=$1; shift; i=0; until "$@"; do i=$((i + 1)); [ $i -lt 300 ] || fail "$waitfor_msg"; sleep 0.05; done; }
# waitline <file> <prefix>: wait (15 s at most) for a line starting with prefix
waitline() { waitfor "no $2 line in $1" grep -qs "^$2" "$1"; }
