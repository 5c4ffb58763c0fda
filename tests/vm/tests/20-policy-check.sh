#!/bin/sh
# The gcaps-policy crate, compiled into a kernel module with #[path], runs a
# preemption / resume / client-gone scenario at load time; init fails (and so
# insmod fails) if any decision is wrong.
set -eu
insmod /modules/policy_check.ko
dmesg | grep -q 'policy check passed'
rmmod policy_check
if grep -q '^policy_check ' /proc/modules; then echo "still loaded after rmmod"; exit 1; fi
