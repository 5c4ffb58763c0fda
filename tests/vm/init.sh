#!/bin/sh
# /init of the test initramfs (busybox). Runs every /tests/* in a fresh process with a per-test
# timeout and prints the markers that tests/vm/report.sh parses:
#   VMTEST-BOOT ...                  init started
#   VMTEST-BEGIN <name> timeout=<s>  a test starts (its output follows)
#   VMTEST <name> PASS|FAIL ...      a test's result
#   VMTEST-TAINT <n>, VMTEST-LOCKDEP debug_locks=<n>, VMTEST-DMESG-BEGIN/END, VMTEST-DONE
# Kernel command line: vmtest.timeout=<default per-test seconds>, vmtest.probe=1 (accel probe).
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
export PATH=/bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp

cmdline=$(cat /proc/cmdline)
arg() {
  for w in $cmdline; do
    case "$w" in "$1="*) echo "${w#*=}"; return ;; esac
  done
  echo "$2"
}
finish() {
  echo "VMTEST-DONE"
  poweroff -f
  sleep 2
  reboot -f   # fallback; qemu runs with -no-reboot and exits on reset
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

[ "$(arg vmtest.probe 0)" = 1 ] && { echo "VMTEST-PROBE-OK"; finish; }

echo "VMTEST-BOOT kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) uptime=$(uptime_s)"
deftmo=$(arg vmtest.timeout 120)
for t in /tests/*; do
  [ -f "$t" ] || continue
  name=${t##*/}
  name=${name%.*}
  # Per-test timeouts come from run.sh (a "vmtest-timeout=<s>" line in the test's source).
  tmo=$(awk -v f="${t##*/}" '$1 == f { print $2 }' /vmtest-timeouts 2>/dev/null)
  [ -n "$tmo" ] || tmo=$deftmo
  echo "VMTEST-BEGIN $name timeout=${tmo}s"
  start=$(uptime_s)
  (cd /tmp && exec timeout -s KILL "$tmo" "$t") </dev/null 2>&1
  rc=$?
  took=$(awk -v a="$start" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
  # Isolation: unload whatever the test left loaded, so the next test starts clean.
  left=""
  for ko in /modules/*.ko; do
    [ -e "$ko" ] || continue
    m=${ko##*/}; m=$(echo "${m%.ko}" | tr - _)
    if grep -q "^$m " /proc/modules; then rmmod "$m" 2>&1; left="$left $m"; fi
  done
  note=${left:+, unloaded leftover module(s):$left}
  if [ "$rc" = 0 ]; then
    echo "VMTEST $name PASS time=${took}s$note"
  elif [ "$rc" = 137 ] && awk -v t="$took" -v m="$tmo" 'BEGIN { exit !(t + 0.5 >= m) }'; then
    echo "VMTEST $name FAIL timeout after ${tmo}s$note"
  else
    echo "VMTEST $name FAIL rc=$rc time=${took}s$note"
  fi
done

echo "VMTEST-TAINT $(cat /proc/sys/kernel/tainted)"
if [ -e /proc/lockdep_stats ]; then
  echo "VMTEST-LOCKDEP debug_locks=$(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)"
fi
echo "VMTEST-DMESG-BEGIN"
dmesg
echo "VMTEST-DMESG-END"
finish
