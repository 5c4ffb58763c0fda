// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C glue of gcaps.ko: the kernel services the device (device.rs, Rust without the kernel
 * crate) uses, the same in both hosts (host_rust.rs on Rust-for-Linux kernels, host_c.c on
 * kernels without Rust). The character device and its file operations, memory and the kernel log,
 * the update lock (an rt_mutex) and the LIST mutex, the caller's identity and scheduling
 * state, the update ceiling (U1/U2), user copies, the published eligible snapshot (seqcount),
 * the per-TSG event table (raw spinlock) and its work item, and the backend entry point
 * gcaps_backend_register() with the function table it hands out. No policy logic lives here:
 * every decision is taken by the core (module/core) through device.rs, which calls these.
 * Module init/exit are the hosts'; this file must not define them.
 */
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/rtmutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/sched/types.h>
#include "../include/gcaps_backend.h"
#include "../../uapi/linux/gcaps.h"
#include "gcaps_glue.h"

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
static DEFINE_RT_MUTEX(gcaps_update_lock);

/*
 * Takes `lock`: 0, or the error to return, -EINTR for a fatal signal (the caller is dying).
 * Only for a caller that has changed nothing yet. An uninterruptible wait would do, but a
 * caller may wait behind real-time callers of higher priority for long (by design: an
 * rt_mutex goes by priority), and the hung-task detector reports such a wait.
 */
static int gcaps_rt_mutex_lock_killable(struct rt_mutex *lock)
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

#define assert_update_lock_held() lockdep_assert_held(&gcaps_update_lock)

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

/* ------------------------------------------------------------------ the calling task */

void gcaps_glue_caller(struct gcaps_caller *out)
{
	struct task_struct *p = current;

	memset(out, 0, sizeof(*out));
	out->tgid = p->tgid;
	out->start = p->group_leader->start_boottime;
	out->uid = __kuid_val(current_uid());
	gcaps_glue_current_sched(&out->policy, &out->rt_priority);
	__get_task_comm(out->comm, sizeof(out->comm), p);
}

void gcaps_glue_current_sched(s32 *policy, s32 *rt_priority)
{
	*policy = READ_ONCE(current->policy);
	*rt_priority = READ_ONCE(current->rt_priority);
}

/* The rule sched_setscheduler applies to raising an RT priority: RLIMIT_RTPRIO or CAP_SYS_NICE. */
bool gcaps_glue_may_raise_rt_prio(int prio)
{
	return prio <= task_rlimit(current, RLIMIT_RTPRIO) || capable(CAP_SYS_NICE);
}

/* Resetting the statistics is an administrator's act. */
bool gcaps_glue_capable_admin(void)
{
	return capable(CAP_SYS_ADMIN);
}

/* Whether the calling thread is exiting (its exit closes its files). */
bool gcaps_glue_current_exiting(void)
{
	return current->flags & PF_EXITING;
}

u32 gcaps_glue_pid_vnr(uintptr_t pid_token)
{
	return pid_vnr((struct pid *)pid_token);
}

/*
 * Whether every thread of the thread group whose (TGID) struct pid the token holds has exited:
 * its leader is gone or a zombie without other threads (the test pidfd_poll() makes). A
 * leader that exited early while other threads still run does not count.
 */
bool gcaps_glue_pid_group_exited(uintptr_t pid_token)
{
	struct task_struct *leader;
	bool exited;

	rcu_read_lock();
	leader = pid_task((struct pid *)pid_token, PIDTYPE_PID);
	exited = !leader || (READ_ONCE(leader->exit_state) && thread_group_empty(leader));
	rcu_read_unlock();
	return exited;
}

/* ------------------------------------------------------------------ update ceiling */

/*
 * Setting an arbitrary real-time priority from a module takes sched_setattr_nocheck(), which
 * Linux exports since 5.15 (for cppc_cpufreq). On older kernels (JetPack 5's 5.10 exports
 * only sched_set_fifo*() at fixed priorities) the module finds it at load with a kprobe:
 * registering one on a symbol resolves its address, and the probe is removed at once. A
 * kernel without CONFIG_KPROBES cannot load gcaps.ko then (docs/jetson.md).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 15, 0)
static int gcaps_sched_resolve(void)
{
	return 0;
}

static int gcaps_setattr(struct task_struct *p, const struct sched_attr *attr)
{
	return sched_setattr_nocheck(p, attr);
}
#else
static int (*gcaps_setattr_fn)(struct task_struct *p, const struct sched_attr *attr);

static int gcaps_sched_resolve(void)
{
#ifdef CONFIG_KPROBES
	struct kprobe kp = { .symbol_name = "sched_setattr_nocheck" };
	int ret = register_kprobe(&kp);

	if (ret) {
		pr_err("gcaps: cannot find sched_setattr_nocheck() (unexported before Linux 5.15) with a kprobe: error %d\n",
		       ret);
		return ret;
	}
	gcaps_setattr_fn = (void *)kp.addr;
	unregister_kprobe(&kp);
	return 0;
#else
	pr_err("gcaps: this kernel exports no way to set a real-time priority (sched_setattr_nocheck() is exported since Linux 5.15) and has no kprobes (CONFIG_KPROBES) to find it\n");
	return -EOPNOTSUPP;
#endif
}

static int gcaps_setattr(struct task_struct *p, const struct sched_attr *attr)
{
	return gcaps_setattr_fn(p, attr);
}
#endif

/*
 * The one owner of a thread's scheduling parameters while gcaps has changed them (the update
 * ceiling and the holder boost): the decisions are the core's (module/core/src/boost.rs,
 * `Holder`), taken and applied under this lock, which serialises every change gcaps makes to
 * any thread's parameters. An rt_mutex: a real-time caller raising itself holds it briefly
 * before the update lock, an update (under the update lock) to boost or unboost another
 * thread; lock order: update lock -> sched lock. Only taken with boost=1 (with boost=0 the
 * ceiling is the calling thread's own business, as before) and never on the fast path.
 */
static DEFINE_RT_MUTEX(gcaps_sched_lock);

void gcaps_glue_sched_lock(void)
{
	rt_mutex_lock(&gcaps_sched_lock);
}

/*
 * The sched lock, by a real-time caller raising itself to the ceiling before its update (it
 * has changed nothing yet): the raisers of higher priority take it at every update (the 5.10
 * arm64 stress run under TCG waited 10 s, uninterruptibly then).
 */
int gcaps_glue_sched_lock_killable(void)
{
	return gcaps_rt_mutex_lock_killable(&gcaps_sched_lock);
}

void gcaps_glue_sched_unlock(void)
{
	rt_mutex_unlock(&gcaps_sched_lock);
}

/* The calling thread, without a reference (only compared with tokens that hold one). */
uintptr_t gcaps_glue_task_self(void)
{
	return (uintptr_t)current;
}

/* A counted reference to the calling thread (dropped with gcaps_glue_task_put()). */
uintptr_t gcaps_glue_task_self_get(void)
{
	return (uintptr_t)get_task_struct(current);
}

void gcaps_glue_task_get(uintptr_t t)
{
	get_task_struct((struct task_struct *)t);
}

/* May free the task: process context, or non-preemptible (put_task_struct() defers then). */
void gcaps_glue_task_put(uintptr_t t)
{
	put_task_struct((struct task_struct *)t);
}

u32 gcaps_glue_task_tid(uintptr_t t)
{
	return task_pid_nr((struct task_struct *)t);
}

void gcaps_glue_task_params(uintptr_t t, s32 *policy, s32 *prio, bool *reset_on_fork)
{
	struct task_struct *p = (struct task_struct *)t;

	*policy = READ_ONCE(p->policy);
	*prio = READ_ONCE(p->rt_priority);
	*reset_on_fork = p->sched_reset_on_fork;
}

static bool gcaps_rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static int gcaps_set(struct task_struct *p, int policy, int prio, bool rof)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		.sched_priority = gcaps_rt_policy(policy) ? prio : 0,
		.sched_nice = gcaps_rt_policy(policy) ? 0 : task_nice(p),
		.sched_flags = rof ? SCHED_FLAG_RESET_ON_FORK : 0,
	};

	return gcaps_setattr(p, &attr);
}

/*
 * Sets thread t (current or another; a reference held) to `policy` `prio` with
 * sched_setattr_nocheck(): the change is the module's (the ceiling, the holder boost, or their
 * undoing), so the thread needs no CAP_SYS_NICE for it. An exited thread is left alone.
 *
 * `tail` (the tail rule of the holder boost): Linux enqueues a thread whose priority is lowered
 * at the head of its new level, and one whose priority is raised at the tail
 * (__sched_setscheduler(): ENQUEUE_HEAD only when the priority drops; the same in 5.10 and
 * 6.12). So the thread is first set one step below its level (SCHED_OTHER below priority 1),
 * then raised to it: it ends at the tail of its level, behind every ready thread of that
 * priority, on either kernel and whether it runs (a running thread set below a ready thread of
 * its level is preempted by it at once, and need_resched stays set across the raise), is ready
 * or sleeps. Both steps happen under the sched lock (no other decision of gcaps sees the
 * intermediate step); a thread that holds a PI lock keeps its inherited priority throughout.
 */
int gcaps_glue_task_set(uintptr_t t, s32 policy, s32 prio, bool reset_on_fork, bool tail)
{
	struct task_struct *p = (struct task_struct *)t;
	int ret;

	if (READ_ONCE(p->exit_state))
		return 0;
	if (tail && gcaps_rt_policy(policy)) {
		if (prio > 1)
			ret = gcaps_set(p, policy, prio - 1, reset_on_fork);
		else
			ret = gcaps_set(p, SCHED_NORMAL, 0, reset_on_fork);
		if (ret)
			return ret;
	}
	ret = gcaps_set(p, policy, prio, reset_on_fork);
	if (ret)
		pr_warn_ratelimited("gcaps: setting the policy of %d failed (%d)\n", p->pid, ret);
	return ret;
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

/* ------------------------------------------------------------------ published decision */

/*
 * The eligible snapshot the driver reads under its runlist lock (calls->eligible()). Written
 * only under the update lock; the raw spinlock serialises nothing else but makes the write
 * side non-preemptible (also on PREEMPT_RT) and irq-safe, so a reader in any context never
 * spins on a preempted writer.
 */
static DEFINE_RAW_SPINLOCK(gcaps_snap_wlock);
static seqcount_raw_spinlock_t gcaps_snap_seq = SEQCNT_RAW_SPINLOCK_ZERO(gcaps_snap_seq,
									 &gcaps_snap_wlock);
static struct gcaps_be_eligible gcaps_snap = { .all = true };
/*
 * TSG ids released since gcaps last applied the TSG events (under gcaps_snap_wlock). They are
 * kept off the published set until then, whatever a publish in between says: the update
 * lock's decision may still count the released TSG as its old owner's.
 */
static DECLARE_BITMAP(gcaps_snap_released, GCAPS_BE_MAX_TSGS);

void gcaps_glue_publish(u64 generation, bool all, const u64 *words)
{
	unsigned long flags;
	unsigned int i;

	BUILD_BUG_ON(BITS_PER_LONG != 64);
	assert_update_lock_held();
	raw_spin_lock_irqsave(&gcaps_snap_wlock, flags);
	write_seqcount_begin(&gcaps_snap_seq);
	gcaps_snap.generation = generation;
	gcaps_snap.all = all;
	for (i = 0; i < ARRAY_SIZE(gcaps_snap.bits); i++)
		gcaps_snap.bits[i] = words[i] & ~gcaps_snap_released[i];
	write_seqcount_end(&gcaps_snap_seq);
	raw_spin_unlock_irqrestore(&gcaps_snap_wlock, flags);
}

/*
 * A TSG was released: its id stops being eligible now, not when gcaps applies the event. The
 * driver may hand the id to another process's new TSG before then, and that TSG must not
 * inherit the old one's place on the runlist (policy rule 2). The id stays off every publish
 * until gcaps_glue_take_released() hands it to the update lock's holder, which applies the
 * release (and then knows the published set lacks it). Only clears a bit, so the generation
 * stays: nothing the decision allows becomes eligible. Any context (the driver's runlist lock
 * may be held).
 */
static void gcaps_snap_forget_tsg(u32 tsgid)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&gcaps_snap_wlock, flags);
	__set_bit(tsgid, gcaps_snap_released);
	if (!gcaps_snap.all && test_bit(tsgid, gcaps_snap.bits)) {
		write_seqcount_begin(&gcaps_snap_seq);
		__clear_bit(tsgid, gcaps_snap.bits);
		write_seqcount_end(&gcaps_snap_seq);
	}
	raw_spin_unlock_irqrestore(&gcaps_snap_wlock, flags);
}

/*
 * The ids released since the last call, into `words` (GCAPS_BE_MAX_TSGS / 64 entries), and
 * forgets them. Called with the update lock held *before* draining the TSG event table: a
 * release is put in the table before its id is marked here, so every id taken here has its
 * event drained right after.
 */
void gcaps_glue_take_released(u64 *words)
{
	unsigned long flags;
	unsigned int i;

	assert_update_lock_held();
	raw_spin_lock_irqsave(&gcaps_snap_wlock, flags);
	for (i = 0; i < ARRAY_SIZE(gcaps_snap.bits); i++)
		words[i] = gcaps_snap_released[i];
	bitmap_zero(gcaps_snap_released, GCAPS_BE_MAX_TSGS);
	raw_spin_unlock_irqrestore(&gcaps_snap_wlock, flags);
}

static void gcaps_be_eligible(struct gcaps_backend *be, struct gcaps_be_eligible *out)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&gcaps_snap_seq);
		*out = gcaps_snap;
	} while (read_seqcount_retry(&gcaps_snap_seq, seq));
}

/* ------------------------------------------------------------------ TSG events */

/*
 * The latest state of every TSG the driver reported and gcaps has not applied yet: one slot
 * per TSG id (no allocation, no overflow; a newer report of the same TSG overwrites an older
 * one, which is all the policy needs). Filled under the driver's runlist lock in any context,
 * drained under the update lock by the work item and by real-time updates.
 */
struct gcaps_ev_slot {
	struct gcaps_be_tsg tsg;
	bool present;
};

static DEFINE_RAW_SPINLOCK(gcaps_ev_lock);
static struct gcaps_ev_slot gcaps_ev_table[GCAPS_BE_MAX_TSGS];
static DECLARE_BITMAP(gcaps_ev_dirty, GCAPS_BE_MAX_TSGS);
static bool gcaps_ev_recovered;
static void *gcaps_ctx;

/*
 * The work item applies TSG events, owner exits and handed-over files when no real-time update
 * does. It never waits for the update lock: a kworker (SCHED_OTHER) queued behind a stream of
 * real-time updaters at the ceiling would wait as long as the stream lasts (15 s in the
 * PREEMPT_RT stress test on a loaded host, which the hung-task detector reported). It takes the
 * lock only when nobody owns it or waits for it, and otherwise tries again a jiffy later, but
 * only while something is still pending (gcaps_rust_work() says so): every real-time update
 * drains pending events, exits and files itself, so under a stream of real-time updaters the
 * retries end with the first of them that drains (one failed try per jiffy until then, each a
 * few loads and no sleep). Whatever is added later kicks the work item again.
 */
static void gcaps_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gcaps_work, gcaps_work_fn);

static void gcaps_work_fn(struct work_struct *work)
{
	void *ctx = READ_ONCE(gcaps_ctx);

	if (ctx && !gcaps_rust_work(ctx))
		queue_delayed_work(system_highpri_wq, &gcaps_work, 1);
}

/* Any context (the driver's runlist lock, a pid's wait queue lock with irqs off). */
static void gcaps_ev_kick(void)
{
	mod_delayed_work(system_highpri_wq, &gcaps_work, 0);
}

/* For the device: something is left for the work item (any context). */
void gcaps_glue_work_kick(void)
{
	gcaps_ev_kick();
}

static void gcaps_ev_put(u32 tsgid, const struct gcaps_be_tsg *tsg, bool present)
{
	unsigned long flags;

	if (tsgid >= GCAPS_BE_MAX_TSGS) {
		pr_warn_ratelimited("gcaps: backend reported TSG id %u >= %u, ignored\n", tsgid,
				    GCAPS_BE_MAX_TSGS);
		return;
	}
	raw_spin_lock_irqsave(&gcaps_ev_lock, flags);
	if (tsg)
		gcaps_ev_table[tsgid].tsg = *tsg;
	gcaps_ev_table[tsgid].tsg.tsgid = tsgid;
	gcaps_ev_table[tsgid].present = present;
	__set_bit(tsgid, gcaps_ev_dirty);
	raw_spin_unlock_irqrestore(&gcaps_ev_lock, flags);
	gcaps_ev_kick();
}

static void gcaps_be_tsg_update(struct gcaps_backend *be, const struct gcaps_be_tsg *tsg)
{
	gcaps_ev_put(tsg->tsgid, tsg, true);
}

static void gcaps_be_tsg_release(struct gcaps_backend *be, u32 tsgid)
{
	/* The event first, then the mark (see gcaps_glue_take_released()). */
	gcaps_ev_put(tsgid, NULL, false);
	if (tsgid < GCAPS_BE_MAX_TSGS)
		gcaps_snap_forget_tsg(tsgid);
}

static void gcaps_be_recovered(struct gcaps_backend *be)
{
	WRITE_ONCE(gcaps_ev_recovered, true);
	gcaps_ev_kick();
}

bool gcaps_glue_ev_next(struct gcaps_ev *out)
{
	unsigned long flags;
	unsigned long t;
	struct gcaps_ev_slot *s;

	assert_update_lock_held();
	raw_spin_lock_irqsave(&gcaps_ev_lock, flags);
	t = find_first_bit(gcaps_ev_dirty, GCAPS_BE_MAX_TSGS);
	if (t < GCAPS_BE_MAX_TSGS) {
		__clear_bit(t, gcaps_ev_dirty);
		s = &gcaps_ev_table[t];
		out->tsgid = t;
		out->tgid = s->tsg.tgid;
		out->start = s->tsg.owner_start;
		out->timeslice_us = s->tsg.timeslice_us;
		out->num_channels = s->tsg.num_channels;
		out->present = s->present;
		out->flags = s->present ? s->tsg.flags : 0;
	}
	raw_spin_unlock_irqrestore(&gcaps_ev_lock, flags);
	return t < GCAPS_BE_MAX_TSGS;
}

bool gcaps_glue_ev_take_recovered(void)
{
	assert_update_lock_held();
	return xchg(&gcaps_ev_recovered, false);
}

static bool gcaps_closed_pending(void);

/* A hint (no lock): is anything waiting in the table, or a handed-over file? */
bool gcaps_glue_ev_pending(void)
{
	return !bitmap_empty(gcaps_ev_dirty, GCAPS_BE_MAX_TSGS) || READ_ONCE(gcaps_ev_recovered) ||
	       gcaps_closed_pending();
}

static void gcaps_ev_clear(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&gcaps_ev_lock, flags);
	bitmap_zero(gcaps_ev_dirty, GCAPS_BE_MAX_TSGS);
	WRITE_ONCE(gcaps_ev_recovered, false);
	raw_spin_unlock_irqrestore(&gcaps_ev_lock, flags);
}

/* ------------------------------------------------------------------ backend binding */

/* The handle of the bound backend; ops != NULL iff bound. Under the update lock. */
struct gcaps_backend {
	const struct gcaps_backend_ops *ops;
	void *drv;
};

static struct gcaps_backend gcaps_be;
/*
 * calls->stock: the bound driver's runlists are stock (its own scheduler owns them). Written
 * by the driver from any context (WRITE_ONCE), cleared at attach and forget under the update
 * lock, read by VERSION (READ_ONCE); only reported, so no lock orders it against anything.
 */
static bool gcaps_be_stock_on;

int gcaps_glue_be_attach(const void *ops, void *drv)
{
	assert_update_lock_held();
	if (gcaps_be.ops)
		return -EBUSY;
	gcaps_ev_clear();
	WRITE_ONCE(gcaps_be_stock_on, false);
	gcaps_be.ops = ops;
	gcaps_be.drv = drv;
	return 0;
}

/* The driver unbinds (calls->unregister): forget it. Returns whether it was bound. */
bool gcaps_glue_be_forget(void)
{
	assert_update_lock_held();
	if (!gcaps_be.ops)
		return false;
	gcaps_be.ops = NULL;
	gcaps_be.drv = NULL;
	WRITE_ONCE(gcaps_be_stock_on, false);
	gcaps_ev_clear();
	return true;
}

/* gcaps unloads: tell the driver (ops->detach), then forget it. Returns whether it was bound. */
bool gcaps_glue_be_detach(void)
{
	assert_update_lock_held();
	if (!gcaps_be.ops)
		return false;
	gcaps_be.ops->detach(gcaps_be.drv);
	return gcaps_glue_be_forget();
}

int gcaps_glue_be_resubmit(void)
{
	assert_update_lock_held();
	if (!gcaps_be.ops)
		return -ENODEV;
	/* The fast path never gets here (its events keep the decision); if it did, don't sleep. */
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT) && WARN_ON_ONCE(!preemptible()))
		return -EAGAIN;
	return gcaps_be.ops->resubmit(gcaps_be.drv);
}

u32 gcaps_glue_be_info(char *name, size_t name_len, char *detail, size_t detail_len,
		       u32 *runlists, u32 *flags)
{
	assert_update_lock_held();
	*runlists = 0;
	*flags = 0;
	if (name_len)
		name[0] = '\0';
	if (detail_len)
		detail[0] = '\0';
	if (!gcaps_be.ops)
		return 0;
	strscpy(name, gcaps_be.ops->name, name_len);
	strscpy(detail, gcaps_be.ops->detail, detail_len);
	*runlists = gcaps_be.ops->runlists;
	if (READ_ONCE(gcaps_be_stock_on))
		*flags |= GCAPS_BACKEND_STOCK;
	return gcaps_be.ops->abi;
}

/*
 * calls->unregister. The module reference keeps gcaps's text and state alive while the call
 * waits for the update lock; once gcaps is unloading (try_module_get fails) gcaps's exit
 * detaches the driver itself, so there is nothing left to do (the driver's detach waits for
 * this call to return, see gcaps_backend.h "Unbinding").
 */
static void gcaps_be_unregister(struct gcaps_backend *be)
{
	void *ctx;

	if (be != &gcaps_be || !try_module_get(THIS_MODULE))
		return;
	ctx = READ_ONCE(gcaps_ctx);
	if (ctx)
		gcaps_rust_unbind(ctx);
	module_put(THIS_MODULE);
}

/* calls->stock: only recorded (VERSION reports it); never sleeps, takes no lock. */
static void gcaps_be_stock(struct gcaps_backend *be, bool on)
{
	if (be != &gcaps_be)
		return;
	WRITE_ONCE(gcaps_be_stock_on, on);
}

static const struct gcaps_be_calls gcaps_calls = {
	.unregister	= gcaps_be_unregister,
	.tsg_update	= gcaps_be_tsg_update,
	.tsg_release	= gcaps_be_tsg_release,
	.recovered	= gcaps_be_recovered,
	.eligible	= gcaps_be_eligible,
	.stock		= gcaps_be_stock,
};

/* A string of 1 (or 0 if !nonempty) .. max - 1 printable ASCII characters. */
static bool gcaps_be_string_ok(const char *s, size_t max, bool nonempty)
{
	size_t n;

	if (!s)
		return false;
	n = strnlen(s, max);
	if (n >= max || (nonempty && !n))
		return false;
	while (n--)
		if (s[n] < 0x20 || s[n] > 0x7e)
			return false;
	return true;
}

/*
 * The checks of an ops table, with one log line naming what is wrong. The ABI first: the
 * fields ABI 2 added are read only from a table that says it has them.
 */
static int gcaps_be_check_ops(const struct gcaps_backend_ops *ops,
			      const struct gcaps_be_calls **calls)
{
	if (!ops || !calls) {
		pr_err("gcaps: backend registration without an ops table or calls pointer\n");
		return -EINVAL;
	}
	if (ops->abi != GCAPS_BACKEND_ABI) {
		pr_err("gcaps: backend contract ABI %u, this gcaps accepts exactly ABI %u (gcaps_backend.h)\n",
		       ops->abi, GCAPS_BACKEND_ABI);
		return -EINVAL;
	}
	if (!ops->resubmit || !ops->detach) {
		pr_err("gcaps: backend ops table without resubmit or detach\n");
		return -EINVAL;
	}
	if (!gcaps_be_string_ok(ops->name, GCAPS_BE_NAME_MAX, true)) {
		pr_err("gcaps: backend name missing, empty, longer than %d characters or not printable\n",
		       GCAPS_BE_NAME_MAX - 1);
		return -EINVAL;
	}
	if (!gcaps_be_string_ok(ops->detail, GCAPS_BE_DETAIL_MAX, false)) {
		pr_err("gcaps: backend %s: detail missing, longer than %d characters or not printable\n",
		       ops->name, GCAPS_BE_DETAIL_MAX - 1);
		return -EINVAL;
	}
	if (!ops->runlists) {
		pr_err("gcaps: backend %s: runlists is 0 (the runlists it filters, one bit each)\n",
		       ops->name);
		return -EINVAL;
	}
	return 0;
}

struct gcaps_backend *gcaps_backend_register(const struct gcaps_backend_ops *ops, void *drv,
					     const struct gcaps_be_calls **calls)
{
	void *ctx = READ_ONCE(gcaps_ctx);
	int ret;

	ret = gcaps_be_check_ops(ops, calls);
	if (ret)
		return ERR_PTR(ret);
	if (!ctx)
		return ERR_PTR(-ENODEV);
	ret = gcaps_rust_bind(ctx, ops, drv);
	if (ret)
		return ERR_PTR(ret);
	*calls = &gcaps_calls;
	return &gcaps_be;
}
EXPORT_SYMBOL_GPL(gcaps_backend_register);

/* ------------------------------------------------------------------ /dev/gcaps */

/*
 * Per open file: the thread group it belongs to (a counted reference to its TGID struct pid),
 * its client, and a wait entry on that pid's wait_pidfd queue, which the kernel wakes when the
 * whole thread group has exited (do_notify_parent, the pidfd poll). The client's segment must
 * end then, not at the file's last reference: a child that inherited the file, or a process
 * that took it with pidfd_getfd(), may keep the file long after its owner died (and can do
 * nothing with it: every call from another thread group is EPERM).
 */
struct gcaps_file {
	struct pid *tgid;
	struct gcaps_client_ref client;
	struct wait_queue_entry exit_wait;
	struct list_head closed;	/* on gcaps_closed once handed over */
};

/*
 * Files whose release did not take the update lock (a closer below the ceiling found it busy,
 * or a fatal signal ended a real-time closer's wait: see gcaps_rust_release()). Each keeps
 * its pid reference, which its client names, until the work item or the next real-time update
 * has removed the client under the update lock (gcaps_glue_closed_pop(), then _free()).
 */
static LIST_HEAD(gcaps_closed);
static DEFINE_SPINLOCK(gcaps_closed_lock);

/* A lock-free hint, like the TSG events' (the taker holds the update lock). */
static bool gcaps_closed_pending(void)
{
	return !list_empty_careful(&gcaps_closed);
}

/* The oldest handed-over file (NULL: none) and its client; free it after removing the client. */
void *gcaps_glue_closed_pop(struct gcaps_client_ref *client)
{
	struct gcaps_file *f;

	spin_lock(&gcaps_closed_lock);
	f = list_first_entry_or_null(&gcaps_closed, struct gcaps_file, closed);
	if (f)
		list_del(&f->closed);
	spin_unlock(&gcaps_closed_lock);
	if (f)
		*client = f->client;
	return f;
}

/* Puts a popped file back at the head of the list (its client is still there). */
void gcaps_glue_closed_unpop(void *file)
{
	struct gcaps_file *f = file;

	spin_lock(&gcaps_closed_lock);
	list_add(&f->closed, &gcaps_closed);
	spin_unlock(&gcaps_closed_lock);
}

/* Drops a popped file's pid reference and frees it (its client is gone). */
void gcaps_glue_closed_free(void *file)
{
	struct gcaps_file *f = file;

	put_pid(f->tgid);
	kfree(f);
}

/*
 * Wake function of exit_wait: called under the pid's wait queue lock, with tasklist_lock held
 * and interrupts off, so it only marks the client (lock-free, in Rust) and kicks the work
 * item; the work item, or any real-time update before it, ends the segment under the update
 * lock after checking that the group really exited. Other wakes of the queue are harmless.
 */
static int gcaps_exit_wake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct gcaps_file *f = container_of(wait, struct gcaps_file, exit_wait);
	void *ctx = READ_ONCE(gcaps_ctx);

	if (ctx) {
		gcaps_rust_owner_exited(ctx, f->client);
		gcaps_ev_kick();
	}
	return 0;
}

static int gcaps_open(struct inode *inode, struct file *file)
{
	void *ctx = READ_ONCE(gcaps_ctx);
	struct gcaps_caller caller;
	struct gcaps_file *f;
	int ret;

	if (!ctx)
		return -ENODEV;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->tgid = get_pid(task_tgid(current));
	gcaps_glue_caller(&caller);
	ret = gcaps_rust_open(ctx, &caller, (uintptr_t)f->tgid, &f->client);
	if (ret) {
		put_pid(f->tgid);
		kfree(f);
		return ret;
	}
	/* The opener is alive (it is in this call), so its group's exit wakes the entry later. */
	init_waitqueue_func_entry(&f->exit_wait, gcaps_exit_wake);
	add_wait_queue(&f->tgid->wait_pidfd, &f->exit_wait);
	file->private_data = f;
	return stream_open(inode, file);
}

/*
 * Last reference to the file gone (close, or the exit of the last process holding it): end the
 * segment and remove the client, unless the owner's exit did that already (the device
 * matches the client id, so a slot reused since is never touched).
 */
static int gcaps_release(struct inode *inode, struct file *file)
{
	struct gcaps_file *f = file->private_data;

	remove_wait_queue(&f->tgid->wait_pidfd, &f->exit_wait);
	if (!gcaps_rust_release(gcaps_ctx, f->client)) {
		/* Handed over: the work item (kicked) or a real-time update removes the client. */
		spin_lock(&gcaps_closed_lock);
		list_add_tail(&f->closed, &gcaps_closed);
		spin_unlock(&gcaps_closed_lock);
		gcaps_ev_kick();
		return 0;
	}
	put_pid(f->tgid);
	kfree(f);
	return 0;
}

static long gcaps_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gcaps_file *f = file->private_data;

	/*
	 * Nobody acts for somebody else: the fd belongs to the thread group that opened it (the
	 * device refuses a foreign caller with EPERM and counts it). Once that group has exited
	 * every caller is foreign.
	 */
	return gcaps_rust_ioctl(gcaps_ctx, f->client, cmd, arg, task_tgid(current) != f->tgid);
}

static const struct file_operations gcaps_fops = {
	.owner		= THIS_MODULE,	/* an open file pins the module: rmmod is refused */
	.open		= gcaps_open,
	.release	= gcaps_release,
	.unlocked_ioctl	= gcaps_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/*
 * /dev/gcaps is a character device of its own (a dynamic major, one minor), not a misc device:
 * the misc layer calls every misc device's open with its global misc_mtx held
 * (drivers/char/misc.c, misc_open(), in 5.10 and 6.12 alike), and gcaps's open waits for the
 * update lock, behind real-time updaters for as long as they keep it busy: as a misc device,
 * that wait would hold misc_mtx and delay every other misc device's open (and misc_register())
 * with it. chrdev_open() calls the open with no lock held, so the wait delays only its caller.
 */
static dev_t gcaps_devt;
static struct cdev gcaps_cdev;
static struct class *gcaps_class;

/* devtmpfs: /dev/gcaps for everyone (what the misc device's .mode = 0666 gave). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static char *gcaps_devnode(const struct device *dev, umode_t *mode)
#else
static char *gcaps_devnode(struct device *dev, umode_t *mode)
#endif
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static int gcaps_chrdev_register(void)
{
	struct device *dev;
	int ret;

	ret = alloc_chrdev_region(&gcaps_devt, 0, 1, GCAPS_DEVICE_NAME);
	if (ret)
		return ret;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	gcaps_class = class_create(GCAPS_DEVICE_NAME);
#else
	gcaps_class = class_create(THIS_MODULE, GCAPS_DEVICE_NAME);
#endif
	if (IS_ERR(gcaps_class)) {
		ret = PTR_ERR(gcaps_class);
		goto out_region;
	}
	gcaps_class->devnode = gcaps_devnode;
	cdev_init(&gcaps_cdev, &gcaps_fops);
	gcaps_cdev.owner = THIS_MODULE;
	ret = cdev_add(&gcaps_cdev, gcaps_devt, 1);
	if (ret)
		goto out_class;
	dev = device_create(gcaps_class, NULL, gcaps_devt, NULL, GCAPS_DEVICE_NAME);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_cdev;
	}
	return 0;
out_cdev:
	cdev_del(&gcaps_cdev);
out_class:
	class_destroy(gcaps_class);
out_region:
	unregister_chrdev_region(gcaps_devt, 1);
	return ret;
}

static void gcaps_chrdev_unregister(void)
{
	device_destroy(gcaps_class, gcaps_devt);
	cdev_del(&gcaps_cdev);
	class_destroy(gcaps_class);
	unregister_chrdev_region(gcaps_devt, 1);
}

int gcaps_glue_init(void *ctx)
{
	int ret;

	ret = gcaps_sched_resolve();
	if (ret)
		return ret;
	BUILD_BUG_ON(sizeof(struct gcaps_caller) != 40);
	BUILD_BUG_ON(sizeof(struct gcaps_ev) != 32);
	BUILD_BUG_ON(sizeof(struct gcaps_client_ref) != 16);
	BUILD_BUG_ON(sizeof(struct gcaps_version) != GCAPS_VERSION_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_set_always) != GCAPS_SET_ALWAYS_SIZE_VER0);
	BUILD_BUG_ON(GCAPS_MAX_TSGS != GCAPS_BE_MAX_TSGS);
	BUILD_BUG_ON(sizeof(struct gcaps_seg_begin) != GCAPS_SEG_BEGIN_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_seg_end) != GCAPS_SEG_END_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct gcaps_status) != GCAPS_STATUS_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_list) != GCAPS_LIST_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct gcaps_stats) != GCAPS_STATS_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct gcaps_trace_event) != GCAPS_TRACE_EVENT_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct gcaps_trace_read) != GCAPS_TRACE_READ_SIZE_VER0);
	BUILD_BUG_ON(GCAPS_REJ_NR != 16 || GCAPS_DELAY_BUCKETS != 32);
	BUILD_BUG_ON(sizeof(struct gcaps_client_info) != 48);
	BUILD_BUG_ON(sizeof(struct gcaps_tsg_info) != 24);
	WRITE_ONCE(gcaps_ctx, ctx);
	ret = gcaps_chrdev_register();
	if (ret)
		WRITE_ONCE(gcaps_ctx, NULL);
	return ret;
}

/* First step of unloading: no new opens (no file can be open: the module refcount says so). */
void gcaps_glue_exit_dev(void)
{
	gcaps_chrdev_unregister();
}

/* Last step of unloading, after the backend was detached: no work item runs any more. */
void gcaps_glue_exit_final(void)
{
	cancel_delayed_work_sync(&gcaps_work);
	WRITE_ONCE(gcaps_ctx, NULL);
}
