/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between the fixture's glue (vmfixture_glue.c) and its host
 * (vmfixture_main.rs, Rust; vmfixture_host_c.c, C). Test-only.
 */
#ifndef VMFIXTURE_GLUE_H
#define VMFIXTURE_GLUE_H

#include <linux/types.h>

/* Implemented by the host: every unlocked_ioctl of the misc device, with the
 * ctx given to vmfixture_glue_register(). */
long vmfixture_host_ioctl(void *ctx, unsigned int cmd, unsigned long arg);

/* The misc device: ioctls reach vmfixture_host_ioctl(ctx, ...) from the
 * successful return of register until unregister returns. */
int vmfixture_glue_register(void *ctx);
void vmfixture_glue_unregister(void);
/* Whether the module was loaded with selftest_knobs=1. */
bool vmfixture_glue_knobs_enabled(void);
/* The deliberate bugs, one per detector (see vmfixture.h's knobs). */
void vmfixture_glue_warn(void);
int vmfixture_glue_kasan_oob(void);
int vmfixture_glue_ubsan_oob(void);
void vmfixture_glue_list_corrupt(void);
void vmfixture_glue_hung(void);
int vmfixture_glue_leak(void);
void vmfixture_glue_panic(void);	/* from a work item; sleeps 10 s meanwhile */

#endif /* VMFIXTURE_GLUE_H */
