// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C glue's kernel services that belong to no other file (gcaps.ko, both hosts: host_rust.rs
 * on Rust-for-Linux kernels, host_c.c on kernels without Rust): the module parameters, memory,
 * the kernel log and the clock, the build-time agreement of the TSG capacity with the Rust
 * side, the locks (the update lock, an rt_mutex with its non-preemptive fast path; the LIST
 * mutex; the trace ring's raw spinlock) and user copies. The other C files: task.c (the
 * calling task, the update ceiling and the holder boost), backend.c (gcaps's half of the
 * backend contract), dev.c (/dev/gcaps, its files, load and unload). No policy logic lives
 * here: every decision is taken by the core (module/core) through device.rs, which calls these.
 * Module init/exit are the hosts'; no C file defines them.
 */
#include <linux/lockdep.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/rtmutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include "../include/gcaps_backend.h"
#include "../../uapi/linux/gcaps.h"
#include "gcaps_glue.h"
#include "glue_internal.h"

/* ------------------------------------------------------------------ parameters */

static int update_prio = 99;
module_param(update_prio, int, 0444);
MODULE_PARM_DESC(update_prio, "SCHED_FIFO priority of every real-time update (U2 ceiling), 1..99");

static unsigned int max_clients_per_user = 16;
module_param(max_clients_per_user, uint, 0444);
MODULE_PARM_DESC(max_clients_per_user, "Open /dev/gcaps files one user may hold (EMFILE beyond)");

static unsigned int trace_size = 4096;
module_param(trace_size, uint, 0444);
MODULE_PARM_DESC(trace_size, "Events the trace ring holds (allocated at load; 0 disables tracing), at most 1048576");

static bool boost = true;
module_param(boost, bool, 0444);
MODULE_PARM_DESC(boost, "Holder boost: the running real-time segment's owner thread runs at SCHED_FIFO boost_prio (default on)");

static int boost_prio = 98;
module_param(boost_prio, int, 0444);
MODULE_PARM_DESC(boost_prio, "SCHED_FIFO priority of the running segment's owner thread with boost=1, 1..update_prio-1 (default 98)");

static char *mechanism = "reload";
module_param(mechanism, charp, 0444);
MODULE_PARM_DESC(mechanism, "Eligibility mechanism: reload (the runlist lists only the eligible TSGs; default) or gate (every TSG listed, channels enabled by the decision; an end hands over without a runlist reload); the backend must implement it");

int gcaps_glue_mechanism(void)
{
	if (!mechanism || !strcmp(mechanism, "reload"))
		return GCAPS_MECH_RELOAD;
	if (!strcmp(mechanism, "gate"))
		return GCAPS_MECH_GATE;
	pr_err("gcaps: mechanism=\"%*pE\" is neither reload nor gate\n",
	       (int)strnlen(mechanism, 64), mechanism);
	return -EINVAL;
}

bool gcaps_glue_boost_on(void)
{
	return boost;
}

int gcaps_glue_boost_prio(void)
{
	return boost_prio;
}

unsigned int gcaps_glue_trace_size(void)
{
	return trace_size;
}

int gcaps_glue_update_prio(void)
{
	return update_prio;
}

unsigned int gcaps_glue_max_clients_per_user(void)
{
	return max_clients_per_user;
}

/* ------------------------------------------------------------------ memory, log, time */

void *gcaps_glue_kvzalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void gcaps_glue_kvfree(void *ptr)
{
	kvfree(ptr);
}

void gcaps_glue_log(int level, const char *msg, size_t len)
{
	int n = (int)min_t(size_t, len, 1024);

	switch (level) {
	case 3:
		pr_err("gcaps: %.*s\n", n, msg);
		break;
	case 4:
		pr_warn("gcaps: %.*s\n", n, msg);
		break;
	default:
		pr_info("gcaps: %.*s\n", n, msg);
		break;
	}
}

void gcaps_glue_bug(const char *msg, size_t len)
{
	pr_emerg("gcaps: %.*s\n", (int)min_t(size_t, len, 1024), msg);
	BUG();
}

u64 gcaps_glue_now_ns(void)
{
	return ktime_get_ns();
}

/*
 * Build-time agreement of the TSG capacity with the Rust side (glue.rs defines
 * gcaps_rust_max_tsgs_<its capacity>): another GCAPS_BE_MAX_TSGS names a symbol nobody
 * defines, and modpost fails the build.
 */
#define GCAPS_CAP_SYM_(n) gcaps_rust_max_tsgs_##n
#define GCAPS_CAP_SYM(n) GCAPS_CAP_SYM_(n)
extern const u8 GCAPS_CAP_SYM(GCAPS_BE_MAX_TSGS);
static const u8 *const gcaps_cap_check __used = &GCAPS_CAP_SYM(GCAPS_BE_MAX_TSGS);

/* ------------------------------------------------------------------ LIST lock */

/* Serialises LIST calls, which share one output buffer (lock order: before the update lock). */
static DEFINE_MUTEX(gcaps_list_lock);

void gcaps_glue_list_lock(void)
{
	mutex_lock(&gcaps_list_lock);
}

void gcaps_glue_list_unlock(void)
{
	mutex_unlock(&gcaps_list_lock);
}

/* ------------------------------------------------------------------ update lock */

/*
 * Serialises every decision and runlist submission. An rt_mutex: priority inheritance, and
 * waiters of equal RT priority are granted in FIFO order without stealing (U3).
 */
DEFINE_RT_MUTEX(gcaps_update_lock);

/*
 * Takes `lock`: 0, or the error to return, -EINTR for a fatal signal (the caller is dying).
 * Only for a caller that has changed nothing yet. An uninterruptible wait would do, but a
 * caller may wait behind real-time callers of higher priority for long (by design: an
 * rt_mutex goes by priority), and the hung-task detector reports such a wait.
 */
int gcaps_rt_mutex_lock_killable(struct rt_mutex *lock)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 15, 0)
	return rt_mutex_lock_killable(lock);
#else
	/*
	 * 5.10 has no rt_mutex_lock_killable(): wait interruptibly, and after any signal have
	 * the system call restarted once the handler ran (-ERESTARTSYS: EINTR only for a
	 * handler without SA_RESTART).
	 */
	return rt_mutex_lock_interruptible(lock) ? -ERESTARTSYS : 0;
#endif
}

/* The update lock, by a caller that has changed nothing yet (a best-effort one included). */
int gcaps_glue_lock_killable(void)
{
	return gcaps_rt_mutex_lock_killable(&gcaps_update_lock);
}

void gcaps_glue_lock(void)
{
	rt_mutex_lock(&gcaps_update_lock);
}

void gcaps_glue_unlock(void)
{
	rt_mutex_unlock(&gcaps_update_lock);
}

/*
 * One try, only for a lock that nobody owns or waits for (never a steal): the fast path's
 * (below, with preemption off) and the work item's.
 */
bool gcaps_glue_trylock_free(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 15, 0)
	return !rt_mutex_base_is_locked(&gcaps_update_lock.rtmutex) &&
#else
	/* 5.10: no rt_mutex_base; rt_mutex_is_locked() tests the same owner word */
	return !rt_mutex_is_locked(&gcaps_update_lock) &&
#endif
	       rt_mutex_trylock(&gcaps_update_lock);
}

/*
 * The fast path of a real-time update that cannot change the decision (device.rs,
 * State::update): preemption off first, then one try for the lock, and only if it is entirely
 * free. The caller then runs the whole update non-preemptively (at least as strong as the
 * ceiling, U2) without the two sched_setattr calls. It never waits and never overtakes a
 * waiter: the owner word is non-NULL whenever the lock is owned *or* has waiters (also during
 * a hand-over to a woken waiter, when it holds RT_MUTEX_HAS_WAITERS alone), so with anyone
 * queued, of any priority, the caller takes the ordinary path (at the ceiling, FIFO). Without
 * that check a stream of fast-path updates could steal the lock from a woken lower-priority
 * waiter (rt_mutex_steal()) again and again (the event work item hung for 10 s in the stress
 * test). On failure preemption is on again and the caller takes the ordinary path.
 */
bool gcaps_glue_trylock_nopreempt(void)
{
	preempt_disable();
	if (gcaps_glue_trylock_free())
		return true;
	preempt_enable();
	return false;
}

void gcaps_glue_unlock_nopreempt(void)
{
	rt_mutex_unlock(&gcaps_update_lock);
	preempt_enable();
}

/* ------------------------------------------------------------------ trace ring lock */

/*
 * Guards the trace ring (trace.rs): recorded under the update lock, read by tools without it.
 * Raw: recording must not sleep (also on PREEMPT_RT) and a reader holds it only to copy one
 * event. Process context only, so no irqsave.
 */
static DEFINE_RAW_SPINLOCK(gcaps_trace_lock);

void gcaps_glue_trace_lock(void)
{
	raw_spin_lock(&gcaps_trace_lock);
}

void gcaps_glue_trace_unlock(void)
{
	raw_spin_unlock(&gcaps_trace_lock);
}

/* ------------------------------------------------------------------ user memory */

int gcaps_glue_get_user_u32(unsigned long src, u32 *out)
{
	return get_user(*out, (const u32 __user *)src) ? -EFAULT : 0;
}

int gcaps_glue_copy_to_user(unsigned long dst, const void *src, size_t n)
{
	return copy_to_user((void __user *)dst, src, n) ? -EFAULT : 0;
}

int gcaps_glue_copy_struct_from_user(void *dst, size_t ksize, unsigned long src, size_t usize)
{
	return copy_struct_from_user(dst, ksize, (const void __user *)src, usize);
}
