#!/bin/sh
# /init of the test initramfs (busybox). Runs every /tests/* with a per-test timeout and reports
# on a results channel the tests cannot write: the second serial port (/dev/ttyS1, QEMU's second
# -serial; on arm64 a virtio console, /dev/hvc0, named by vmtest.results=hvc0), opened here as
# fd 3 before any test runs; its device node is then removed and fd 3 is closed for every test. tests/vm/report.sh reads it (one marker per line, nothing else on it):
#   VMTEST-BOOT ...                    init started
#   VMTEST-BEGIN <name> timeout=<s>s   a test starts
#   VMTEST-RESULT <name> PASS|FAIL ... its result (only after its own BEGIN counts)
#   VMTEST-TAINT <n>, VMTEST-LOCKDEP debug_locks=<n>
#   VMTEST-KMEMLEAK-BEGIN/END          the kmemleak report after the suite (debug kernels)
#   VMTEST-DMESG-BEGIN/END, VMTEST-DONE
# The console (ttyS0) carries the kernel log and the tests' output, framed for readers by
# "VMTEST-OUTPUT-BEGIN/END <name>" lines; no result is ever taken from it.
# Each test runs in its own session and process group, in its own new directory /tmp/<name>; on
# timeout the whole group is killed.
# After each test every process it left behind is killed (and the test fails), and so is every
# module it left loaded (the test fails too).
# Kernel command line: vmtest.timeout=<default per-test seconds>, vmtest.probe=1 (accel probe),
# vmtest.kmemleak=0 (skip the kmemleak scans, ~15 s under TCG), vmtest.results=<tty> (the
# results channel's device, default ttyS1), vmtest.mechanism=reload|gate (gcaps.ko's mechanism
# for the suite, default reload: /bin/insmod is a wrapper that adds mechanism=<it> to every
# insmod of gcaps.ko that names none).
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
  res "VMTEST-DONE"
  exec 3>&-   # last close of the tty: waits until its output has drained
  poweroff -f
  sleep 2
  reboot -f   # fallback; qemu runs with -no-reboot and exits on reset
}
# (builtins only where it runs per test: every fork costs under TCG)
uptime_s() { read -r up _ </proc/uptime; }   # sets $up

if [ "$(arg vmtest.probe 0)" = 1 ]; then echo "VMTEST-PROBE-OK"; poweroff -f; fi

# The suite's mechanism: every insmod of gcaps.ko (a test script's, a C test's system(), a Rust
# test binary's) finds this wrapper first in PATH; a call that names a mechanism keeps it.
mechanism=$(arg vmtest.mechanism reload)
rm -f /bin/insmod
printf '%s\n' '#!/bin/sh' \
  "# insmod of the tests: gcaps.ko gets mechanism=$mechanism unless the call names a mechanism" \
  'case "$1" in */gcaps.ko|gcaps.ko)' \
  "  case \" \$* \" in *\" mechanism=\"*) ;; *) set -- \"\$@\" mechanism=$mechanism ;; esac ;;" \
  'esac' 'exec /bin/busybox insmod "$@"' >/bin/insmod
chmod 755 /bin/insmod

# The results channel.
resdev=/dev/$(arg vmtest.results ttyS1)
if ! exec 3>"$resdev"; then
  echo "VMTEST-ERROR: no results channel ($resdev)"
  poweroff -f
fi
stty -F "$resdev" raw -echo 2>/dev/null
rm -f "$resdev"
res() { echo "$*" >&3; }

# Detectors: report a hung task within 1 s of its timeout; debugfs for kmemleak, whose own
# scan thread is stopped: init scans after the suite, and a scan takes over 10 s under a loaded
# TCG, so the thread waiting for init's scan would be reported as a hung task.
[ -w /proc/sys/kernel/hung_task_check_interval_secs ] && echo 1 >/proc/sys/kernel/hung_task_check_interval_secs
[ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off >/sys/kernel/debug/kmemleak

# leftovers [pgrp to ignore]: sets $pids and $procs ("pid(comm) ...") to the live userspace
# processes other than init. Runs in this shell (no subshell, which would list itself).
leftovers() {
  pids=""; procs=""
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = 1 ] && continue
    read -r st 2>/dev/null <"$d/stat" || continue
    comm=${st#*\(}; comm=${comm%\)*}
    # shellcheck disable=SC2086  # split "state ppid pgrp ..."
    set -- ${st##*\) }
    [ "$1" = Z ] && continue                         # zombie: already dead
    [ "$p" = 2 ] || [ "$2" = 2 ] && continue         # kthreadd and kernel threads
    [ -n "${ign:-}" ] && [ "$3" = "$ign" ] && continue
    pids="$pids $p"; procs="$procs $p($comm)"
  done
}

uptime_s
res "VMTEST-BOOT kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) uptime=$up mechanism=$mechanism"
deftmo=$(arg vmtest.timeout 120)
for t in /tests/*; do
  [ -f "$t" ] || continue
  name=${t##*/}
  name=${name%.*}
  # Per-test timeouts come from run.sh (a "vmtest-timeout=<s>" line in the test's source).
  tmo=$deftmo
  while read -r f s _; do [ "$f" = "${t##*/}" ] && tmo=$s; done </vmtest-timeouts
  res "VMTEST-BEGIN $name timeout=${tmo}s"
  echo "VMTEST-OUTPUT-BEGIN $name"
  uptime_s; start=$up
  # Own session and process group (pgid = its pid: init's children are not group leaders, so
  # busybox setsid does not fork); a watchdog in its own group kills the whole group on timeout.
  # Its cwd is a new empty directory, /tmp/<name> (names are unique: run.sh): no file of an
  # earlier test is there (a background "cmd >x.out &" truncates x.out only once the child
  # runs, so a waitline on a stale x.out of another test would match at once; CI saw it).
  setsid sh -c 'mkdir -m 1777 "/tmp/$1" && cd "/tmp/$1" && exec "$0"' "$t" "$name" </dev/null 2>&1 3>&- &
  pid=$!
  setsid sh -c 'sleep "$0"; kill -KILL -- "-$1"' "$tmo" "$pid" </dev/null >/dev/null 2>&1 3>&- &
  wd=$!
  wait "$pid"
  rc=$?
  uptime_s
  # shellcheck disable=SC2046  # "<took> <ran over the timeout: 0|1>"
  set -- $(awk -v a="$start" -v b="$up" -v m="$tmo" 'BEGIN { printf "%.1f %d", b - a, (b - a + 0.5 >= m) }')
  took=$1; over=$2
  kill -KILL -- "-$wd" 2>/dev/null
  wait "$wd" 2>/dev/null
  echo "VMTEST-OUTPUT-END $name"
  timed_out=0
  [ "$rc" = 137 ] && [ "$over" = 1 ] && timed_out=1

  # Isolation 1: processes. A timed-out test's group was killed already (not its fault twice);
  # anything else still running was left behind by the test: kill it, fail the test.
  ign=$wd; [ "$timed_out" = 1 ] && ign=$pid
  leftovers
  ign=$wd
  left_procs=$procs
  kill -KILL -- "-$pid" 2>/dev/null
  n=0
  while [ -n "$pids" ] && [ "$n" -lt 50 ]; do
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    sleep 0.1; n=$((n + 1))
    leftovers
  done
  [ -n "$pids" ] && left_procs="$left_procs (unkillable:$procs)"

  # Isolation 2: modules, unloaded so the next test starts clean; the test fails.
  left_mods=""; loaded=" "
  while read -r m _; do loaded="$loaded$m "; done </proc/modules
  for ko in /modules/*.ko; do
    [ -e "$ko" ] || continue
    m=${ko##*/}; m=${m%.ko}; m=${m//-/_}
    case "$loaded" in *" $m "*) rmmod "$m" 2>&1; left_mods="$left_mods $m" ;; esac
  done

  why=""
  if [ "$timed_out" = 1 ]; then why="timeout after ${tmo}s"
  elif [ "$rc" != 0 ]; then why="rc=$rc time=${took}s"
  fi
  [ -n "$left_procs" ] && why="${why:+$why, }left running:$left_procs"
  [ -n "$left_mods" ] && why="${why:+$why, }left loaded:$left_mods"
  if [ -z "$why" ]; then
    res "VMTEST-RESULT $name PASS time=${took}s"
  else
    res "VMTEST-RESULT $name FAIL $why"
  fi
done

res "VMTEST-TAINT $(cat /proc/sys/kernel/tainted)"
if [ -e /proc/lockdep_stats ]; then
  res "VMTEST-LOCKDEP debug_locks=$(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)"
fi
# kmemleak: an object is reported once two scans found it unreferenced with unchanged content,
# and at least 5 s old; so scan, wait, scan.
kml=/sys/kernel/debug/kmemleak
if [ -w "$kml" ] && [ "$(arg vmtest.kmemleak 1)" = 1 ]; then
  echo scan >"$kml"; sleep 5; echo scan >"$kml"
  res "VMTEST-KMEMLEAK-BEGIN"
  cat "$kml" >&3
  res "VMTEST-KMEMLEAK-END"
fi
res "VMTEST-DMESG-BEGIN"
dmesg >&3
res "VMTEST-DMESG-END"
finish
