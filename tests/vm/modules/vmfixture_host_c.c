// SPDX-License-Identifier: GPL-2.0
/*
 * C host of the VM-harness fixture module (test-only, not part of the
 * product), for kernels without CONFIG_RUST (the 5.10 test kernels): the same
 * module, ABI (vmfixture.h) and self-test knobs as the Rust host
 * vmfixture_main.rs, over the same glue (vmfixture_glue.c), so the harness
 * and its self-test prove the same things on every kernel. Kbuild builds
 * exactly one of the two hosts into vmfixture.ko.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "vmfixture.h"
#include "vmfixture_glue.h"

struct vmfixture_state {
	struct mutex calls_lock;
	u64 calls;		/* QUERY ioctls so far, under calls_lock */
	/* Two locks that the lockdep knob takes in both orders. */
	struct mutex lock_a;
	struct mutex lock_b;
};

static struct vmfixture_state *vmfixture_state;

static long vmfixture_query(struct vmfixture_state *s, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct vmfixture_msg msg;

	if (copy_from_user(&msg, uarg, sizeof(msg)))
		return -EFAULT;
	if (msg.pad != 0)
		return -EINVAL;
	mutex_lock(&s->calls_lock);
	msg.calls = ++s->calls;
	mutex_unlock(&s->calls_lock);
	msg.output = msg.input * 2 + 1;	/* u64: wraps like the Rust host's */
	msg.pid = task_pid_nr(current);
	if (copy_to_user(uarg, &msg, sizeof(msg)))
		return -EFAULT;
	return 0;
}

static long vmfixture_knob(struct vmfixture_state *s, unsigned long knob)
{
	if (!vmfixture_glue_knobs_enabled())
		return -EPERM;
	pr_warn("self-test knob %lu (deliberate bug)\n", knob);
	switch (knob) {
	case VMFIXTURE_KNOB_WARN:
		vmfixture_glue_warn();
		return 0;
	case VMFIXTURE_KNOB_LOCKDEP:
		/*
		 * A -> B, then B -> A: single-threaded, so no real deadlock,
		 * but lockdep must report a possible circular locking
		 * dependency.
		 */
		mutex_lock(&s->lock_a);
		mutex_lock(&s->lock_b);
		mutex_unlock(&s->lock_b);
		mutex_unlock(&s->lock_a);
		mutex_lock(&s->lock_b);
		mutex_lock(&s->lock_a);
		mutex_unlock(&s->lock_a);
		mutex_unlock(&s->lock_b);
		return 0;
	case VMFIXTURE_KNOB_KASAN:
		return vmfixture_glue_kasan_oob();
	case VMFIXTURE_KNOB_UBSAN:
		return vmfixture_glue_ubsan_oob();
	case VMFIXTURE_KNOB_LIST:
		vmfixture_glue_list_corrupt();
		return 0;
	case VMFIXTURE_KNOB_HUNG:
		vmfixture_glue_hung();
		return 0;
	case VMFIXTURE_KNOB_LEAK:
		return vmfixture_glue_leak();
	case VMFIXTURE_KNOB_PANIC:
		vmfixture_glue_panic();
		return 0;
	default:
		return -EINVAL;
	}
}

long vmfixture_host_ioctl(void *ctx, unsigned int cmd, unsigned long arg)
{
	struct vmfixture_state *s = ctx;

	if (!s)
		return -ENODEV;
	switch (cmd) {
	case VMFIXTURE_IOC_QUERY:
		return vmfixture_query(s, arg);
	case VMFIXTURE_IOC_KNOB:
		return vmfixture_knob(s, arg);
	default:
		return -ENOTTY;
	}
}

static int __init vmfixture_init(void)
{
	struct vmfixture_state *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return -ENOMEM;
	mutex_init(&s->calls_lock);
	mutex_init(&s->lock_a);
	mutex_init(&s->lock_b);
	ret = vmfixture_glue_register(s);
	if (ret) {
		kfree(s);
		return ret;
	}
	vmfixture_state = s;
	pr_info("loaded\n");
	return 0;
}

static void __exit vmfixture_exit(void)
{
	struct vmfixture_state *s = vmfixture_state;

	/* Once this returns no ioctl can reach s. */
	vmfixture_glue_unregister();
	pr_info("unloaded after %llu query ioctl(s)\n", s->calls);
	mutex_destroy(&s->lock_b);
	mutex_destroy(&s->lock_a);
	mutex_destroy(&s->calls_lock);
	kfree(s);
}

module_init(vmfixture_init);
module_exit(vmfixture_exit);
MODULE_AUTHOR("gcaps");
MODULE_DESCRIPTION("gcaps VM test harness fixture (test-only, C host)");
MODULE_LICENSE("GPL");
