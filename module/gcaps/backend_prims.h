/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The primitives backend.c (gcaps's half of the backend contract) is written against, and
 * nothing else: in the kernel they are the kernel's own; in a user process (the contract host,
 * tests/contract/host) a shim provides the same names (GCAPS_BACKEND_USER: the host's build
 * puts tests/contract/host/shim first on the include path), so the host runs this same file.
 *
 *   types:      u32, u64, s32, bool, size_t, uintptr_t; __used; BITS_PER_LONG; ARRAY_SIZE;
 *               BUILD_BUG_ON; ERR_PTR; EBUSY, EAGAIN, ENODEV, EINVAL
 *   memory:     READ_ONCE, WRITE_ONCE, xchg; strnlen, strscpy
 *   spinlock:   DEFINE_RAW_SPINLOCK, raw_spin_lock_irqsave, raw_spin_unlock_irqrestore
 *   seqcount:   seqcount_raw_spinlock_t, SEQCNT_RAW_SPINLOCK_ZERO, write_seqcount_begin/_end,
 *               read_seqcount_begin/_retry
 *   bitmap:     DECLARE_BITMAP, __set_bit, __clear_bit, test_bit, find_first_bit,
 *               bitmap_zero, bitmap_empty
 *   work item:  struct work_struct, DECLARE_DELAYED_WORK, mod_delayed_work,
 *               queue_delayed_work, cancel_delayed_work_sync, system_highpri_wq
 *   gcaps's:    gcaps_assert_update_lock_held() (lockdep on the update lock),
 *               gcaps_may_not_sleep() (a non-preemptible caller, warned once),
 *               gcaps_module_get()/gcaps_module_put() (a reference that fails once gcaps is
 *               unloading), pr_err(), gcaps_be_misuse() (one rate-limited warning for a
 *               driver's breach of the contract), EXPORT_SYMBOL_GPL
 */
#ifndef GCAPS_BACKEND_PRIMS_H
#define GCAPS_BACKEND_PRIMS_H

#ifdef GCAPS_BACKEND_USER
#include "backend_prims_user.h"
#else
#include <linux/bitmap.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rtmutex.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/* The update lock (gcaps_glue.c): every decision and submission is taken under it. */
extern struct rt_mutex gcaps_update_lock;

#define gcaps_assert_update_lock_held() lockdep_assert_held(&gcaps_update_lock)
#define gcaps_may_not_sleep() (IS_ENABLED(CONFIG_PREEMPT_COUNT) && WARN_ON_ONCE(!preemptible()))
#define gcaps_module_get() try_module_get(THIS_MODULE)
#define gcaps_module_put() module_put(THIS_MODULE)
#define gcaps_be_misuse(fmt, ...) pr_warn_ratelimited("gcaps: " fmt "\n", ##__VA_ARGS__)
#endif

#endif /* GCAPS_BACKEND_PRIMS_H */
