# shellcheck shell=sh
# Shared preamble of the end-to-end GPU tests (tests/vm/tests/4x-gpu-*.sh): gcaps.ko on the
# emulated GPU. Packed into the initramfs as /vmtest/gpu.sh (with /vmtest/common.sh, which it
# sources) by initramfs-hooks/40-shell-lib.sh when a selected test has the line
# "vmtest-needs=gpu-lib"; a test sources it (busybox sh):
#
#     . /vmtest/gpu.sh
#     gpu_load theta_us=200      # gcaps.ko, then gcaps_simgpu.ko with these parameters; bound?
#     ...
#     gpu_unload                 # rmmod gcaps_simgpu, then gcaps
# shellcheck source=tests/vm/lib/common.sh
. /vmtest/common.sh   # set -eu, fail, expect_error, field, f, waitfor, waitline
# stat <key>: a counter of the emulated GPU (simgpuctl stats)
stat() { simgpuctl stats | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
now() { gpuclient --now; }
us() { echo $(( $1 / 1000 )); }
loaded() { grep -q "^$1 " /proc/modules; }
# updmax <files>: longest begin/end call of the SEG lines (the update delay U)
updmax() { awk '/^SEG / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           d = v["begun"] - v["begin_call"]; e = v["ended"] - v["end_call"]
           if (d > m) m = d; if (e > m) m = e } END { print m + 0 }' "$@"; }
# hog_ms: the length of a hog's work items with --full-fifo (41, 43, 44). A hog keeps its queue
# full only if it collects and resubmits each finished item before the next one finishes, within
# one item's time of the engine's model clock. Beside stress-ng --cpu 2 a hog's loop (wake-up,
# poll ioctl, ITEM line, submit ioctl) on the 5.10 arm64 debug VM took longer than 10 ms: its
# queue was never full again, and 43's real-time task saw no full queue for 30 s. 50 ms items
# give it five times that.
hog_ms=50
# covered <SEG file> <hog files>: for every segment of the SEG file (gpuclient --report), some hog
# (gpuclient --hog --report) had work queued throughout it, from its gpu_submit to its gpu_end:
# the hog's ITEM lines (each queued from submit= to gpu_end=, in order) cover that window.
# Prints the windows no hog covered; false if there is one.
covered() { awk 'function kv(  i, p) { for (i = 1; i <= NF; i++) { split($i, p, "="); v[p[1]] = p[2] } }
  FNR == 1 { f++ }
  f == 1 { if (/^SEG /) { kv(); n++; a[n] = v["gpu_submit"] + 0; b[n] = v["gpu_end"] + 0 }; next }
  /^ITEM / { kv(); m++; is[m] = v["submit"] + 0; ie[m] = v["gpu_end"] + 0; il[m] = $0
             for (j = 1; j <= n; j++) { k = f ":" j; if (!(k in c)) c[k] = a[j]
             if (v["submit"] + 0 <= c[k] && v["gpu_end"] + 0 > c[k]) c[k] = v["gpu_end"] + 0 } }
  END { for (j = 1; j <= n; j++) { ok = 0; for (g = 2; g <= f; g++) if (c[g ":" j] >= b[j]) ok = 1
          if (!ok) { print "no hog had work queued throughout the segment " a[j] ".." b[j]; bad = 1
                     for (i = 1; i <= m; i++) if (ie[i] > a[j] - 30000000 && is[i] < b[j] + 30000000) print "  near it: " il[i] } }
        exit bad }' "$@"; }
# waitpast <hog file> <SEG file>: wait (15 s at most) until the hog reported an item that ended
# after the last gpu_end of the SEG file (so its ITEM lines cover the segments, see covered)
waitpast() { waitfor "$1: no item ended after the segments of $2" \
               awk 'FNR == NR { if (/^SEG /) for (i = 1; i <= NF; i++) if (index($i, "gpu_end=") == 1 && substr($i, 9) + 0 > t) t = substr($i, 9) + 0; next }
                    /^ITEM / { for (i = 1; i <= NF; i++) if (index($i, "gpu_end=") == 1 && substr($i, 9) + 0 > t) f = 1 }
                    END { exit !f }' "$2" "$1"; }
# retry <function>: sections whose timing precondition can miss in a loaded TCG VM (a process
# woke too late) return 2 and are retried, up to 3 times; every other failure fails at once.
retry() { for attempt in 1 2 3; do rc=0; "$@" || rc=$?; [ $rc = 2 ] || return $rc; echo "(retry: the VM was too slow for the timing precondition)"; done; fail "$1: the VM was too slow 3 times"; }
# gpu_load [gcaps_simgpu parameters]: load both modules; the emulated GPU must bind to gcaps.
gpu_load() {
  insmod /modules/gcaps.ko
  insmod /modules/gcaps_simgpu.ko "$@"
  [ "$(stat bound)" = 1 ] || fail "simgpu did not bind to gcaps"
}
gpu_unload() { rmmod gcaps_simgpu; rmmod gcaps; }
