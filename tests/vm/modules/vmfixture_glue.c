// SPDX-License-Identifier: GPL-2.0
/*
 * C half of the VM-harness fixture module: the misc device (Linux 6.12 has no
 * kernel::miscdevice), the self-test module parameter, and the deliberate
 * WARN / KASAN bugs used by the harness self-test. Module init/exit live in
 * the Rust half (vmfixture_main.rs); this file must not define them.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "vmfixture.h"

/* Implemented in vmfixture_main.rs. */
long vmfixture_rust_ioctl(void *ctx, unsigned int cmd, unsigned long arg);

int vmfixture_glue_register(void *ctx);
void vmfixture_glue_unregister(void);
bool vmfixture_glue_knobs_enabled(void);
void vmfixture_glue_warn(void);
int vmfixture_glue_kasan_oob(void);

static bool selftest_knobs;
module_param(selftest_knobs, bool, 0444);
MODULE_PARM_DESC(selftest_knobs, "Allow the harness self-test knobs (WARN, lockdep, KASAN bugs)");

static void *vmfixture_ctx;

static long vmfixture_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return vmfixture_rust_ioctl(vmfixture_ctx, cmd, arg);
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
