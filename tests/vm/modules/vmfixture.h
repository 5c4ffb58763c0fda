/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABI of the VM-harness fixture module (tests/vm/modules/), shared by its C
 * host vmfixture_host_c.c, its Rust host vmfixture_main.rs (mirrored by hand)
 * and the static userspace client tests/vm/progs/vmfixture_ctl.c.
 *
 * Test-only: proves the harness (build, load, ioctl, unload, kernel-health
 * checks). It is not part of the product (module/).
 */
#ifndef VMFIXTURE_H
#define VMFIXTURE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define VMFIXTURE_DEVICE "/dev/gcaps-vmfixture"

struct vmfixture_msg {
	__u64 input;	/* in:  any value */
	__u64 output;	/* out: input * 2 + 1 */
	__u64 calls;	/* out: QUERY ioctls so far, counted under a Rust Mutex */
	__s32 pid;	/* out: caller pid as seen by the kernel */
	__u32 pad;	/* must be zero */
};

/* Self-test knobs, for the harness self-test only (`make vm-selftest`).
 * Refused with EPERM unless the module was loaded with selftest_knobs=1. */
enum vmfixture_knob {
	VMFIXTURE_KNOB_WARN = 1,	/* WARN_ON(1) */
	VMFIXTURE_KNOB_LOCKDEP = 2,	/* take two Rust Mutexes in both orders */
	VMFIXTURE_KNOB_KASAN = 3,	/* 1-byte heap out-of-bounds read */
	VMFIXTURE_KNOB_UBSAN = 4,	/* array index out of bounds (inside its struct) */
	VMFIXTURE_KNOB_LIST = 5,	/* list_add on a corrupted list_head */
	VMFIXTURE_KNOB_HUNG = 6,	/* sleep uninterruptibly for 13 s (hung-task report) */
	VMFIXTURE_KNOB_LEAK = 7,	/* kmalloc VMFIXTURE_LEAKS objects, lose them (kmemleak) */
	VMFIXTURE_KNOB_PANIC = 8,	/* panic(): the VM dies in the middle of a test */
};

#define VMFIXTURE_LEAKS 8	/* objects the leak knob leaks, 64 bytes each */

#define VMFIXTURE_IOC_MAGIC 'v'
#define VMFIXTURE_IOC_QUERY _IOWR(VMFIXTURE_IOC_MAGIC, 1, struct vmfixture_msg)
#define VMFIXTURE_IOC_KNOB _IO(VMFIXTURE_IOC_MAGIC, 2)	/* arg: enum vmfixture_knob */

#endif /* VMFIXTURE_H */
