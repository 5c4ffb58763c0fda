// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps.ko, host B: the module on kernels without Rust (the Jetson kernels: 5.10 for JetPack 5,
 * 5.15 for JetPack 6, 6.8 for JetPack 7.2). Module init and exit only: the device is the same
 * Rust as host A's (device.rs), built by cargo as a freestanding object (object.sh) and linked
 * here with the C glue (gcaps_glue.c). docs/ARCHITECTURE.md describes the two hosts.
 */
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/printk.h>
#include "gcaps_glue.h"

/* Implemented in Rust (device.rs, with --cfg gcaps_host_c). */
int gcaps_rust_load(void **ctx);
void gcaps_rust_unload(void *ctx);

static void *gcaps_device;

static int __init gcaps_init(void)
{
	return gcaps_rust_load(&gcaps_device);
}

static void __exit gcaps_exit(void)
{
	gcaps_rust_unload(gcaps_device);
}

module_init(gcaps_init);
module_exit(gcaps_exit);
MODULE_AUTHOR("gcaps");
MODULE_DESCRIPTION("GCAPS: GPU context-aware preemptive priority-based scheduling");
MODULE_LICENSE("GPL");
