// SPDX-License-Identifier: GPL-2.0
/*
 * Glue of the VM-harness fixture module, shared by its two hosts: the misc
 * device (Linux 6.12 has no kernel::miscdevice), the self-test module
 * parameter, and the deliberate bugs used by the harness self-test (WARN,
 * KASAN, UBSAN, list corruption, hung task, memory leak): each needs a C
 * construct or API that 6.12's Rust abstractions do not offer. Module
 * init/exit and the ioctl logic live in the host: vmfixture_main.rs (Rust,
 * kernels with CONFIG_RUST) or vmfixture_host_c.c (C, every kernel; Kbuild
 * picks one); this file must not define them.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "vmfixture.h"

#include "vmfixture_glue.h"

static bool selftest_knobs;
module_param(selftest_knobs, bool, 0444);
MODULE_PARM_DESC(selftest_knobs, "Allow the harness self-test knobs (deliberate kernel bugs)");

static void *vmfixture_ctx;

static long vmfixture_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return vmfixture_host_ioctl(vmfixture_ctx, cmd, arg);
}

static const struct file_operations vmfixture_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vmfixture_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice vmfixture_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gcaps-vmfixture",
	.fops	= &vmfixture_fops,
	.mode	= 0666,
};

int vmfixture_glue_register(void *ctx)
{
	vmfixture_ctx = ctx;
	return misc_register(&vmfixture_misc);
}

void vmfixture_glue_unregister(void)
{
	misc_deregister(&vmfixture_misc);
	vmfixture_ctx = NULL;
}

bool vmfixture_glue_knobs_enabled(void)
{
	return selftest_knobs;
}

void vmfixture_glue_warn(void)
{
	WARN(1, "vmfixture: deliberate WARN for the harness self-test\n");
}

int vmfixture_glue_kasan_oob(void)
{
	char *p = kmalloc(13, GFP_KERNEL);
	int v;

	if (!p)
		return -ENOMEM;
	/* Deliberate 1-byte out-of-bounds read: KASAN must report it. */
	v = READ_ONCE(p[13]);
	kfree(p);
	return v & 1;
}

int vmfixture_glue_ubsan_oob(void)
{
	struct {
		int a[4];
		int after;
	} s = { { 1, 2, 3, 4 }, 5 };
	size_t i = ARRAY_SIZE(s.a);

	/* The compiler must not see the index: UBSAN checks it at run time. */
	OPTIMIZER_HIDE_VAR(i);
	/*
	 * Deliberate out-of-bounds index: UBSAN must report it. The memory read
	 * is s.after, inside s, so KASAN stays silent and the report is UBSAN's.
	 */
	return s.a[i];
}

void vmfixture_glue_list_corrupt(void)
{
	LIST_HEAD(head);
	struct list_head a, b, c;

	list_add(&a, &head);
	/* Deliberate corruption: a.prev must point back at head. */
	WRITE_ONCE(a.prev, &b);
	/* DEBUG_LIST must refuse this add (no write happens) and report it. */
	list_add(&c, &head);
}

void vmfixture_glue_hung(void)
{
	/*
	 * Uninterruptible sleep beyond the hung-task timeout (10 s in the test
	 * kernels, checked every second by init.sh).
	 */
	msleep(13000);
}

/* Zeroes the 768 bytes below the caller's frame (see vmfixture_scrub_stack()). */
static noinline void vmfixture_zero_frame(void)
{
	char buf[768];

	memzero_explicit(buf, sizeof(buf));
}

/*
 * Zeroes this task's whole stack below the caller's frame. kmemleak scans task
 * stacks whole, and the allocator's dead frames there hold copies of the
 * leaked pointer, which would keep kmemleak from reporting it (and the page
 * may live on as another task's stack). The memset stops 512 bytes short of
 * the current frame (room for memset's own calls); vmfixture_zero_frame() then
 * covers that gap.
 */
static noinline void vmfixture_scrub_stack(void)
{
	unsigned long low = (unsigned long)(end_of_stack(current) + 1);
	unsigned long sp = current_stack_pointer;

	if (sp > low + 512)
		memset((void *)low, 0, sp - 512 - low);
	vmfixture_zero_frame();
}

/* Allocates one 64-byte object, fills it with text and drops the pointer. */
static noinline int vmfixture_leak_one(void)
{
	static const char text[] = "vmfixture: deliberate leak";
	char *p = kzalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memcpy(p, text, sizeof(text));
	/* The text must reach memory (the report shows it): not a dead store. */
	barrier_data(p);
	return 0;
}

int vmfixture_glue_leak(void)
{
	int i, ret = 0;

	/*
	 * Deliberate leaks. Several objects: a stale copy of a pointer (in a
	 * register saved on some stack, or a dangling pointer elsewhere to a
	 * freed object that had the same address) hides that object from
	 * kmemleak; it cannot hide them all.
	 */
	for (i = 0; i < VMFIXTURE_LEAKS && !ret; i++)
		ret = vmfixture_leak_one();
	vmfixture_scrub_stack();
	return ret;
}

static void vmfixture_panic_fn(struct work_struct *work)
{
	panic("vmfixture: deliberate panic for the harness self-test\n");
}

static DECLARE_WORK(vmfixture_panic_work, vmfixture_panic_fn);

/*
 * Panics from a work item while the caller sleeps, so the calling test is
 * still running when the VM dies. (Not panic() here: a function that never
 * returns, called from Rust, needs an annotation objtool cannot be given.)
 */
void vmfixture_glue_panic(void)
{
	schedule_work(&vmfixture_panic_work);
	msleep(10000);
}
