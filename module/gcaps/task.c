// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calling task and threads' scheduling parameters (gcaps.ko, both hosts): the caller's
 * identity, scheduling state and permissions, its thread group's pid and exit, task
 * references, and the one way gcaps changes a thread's policy (sched_setattr_nocheck(), found
 * with a kprobe before Linux 5.15) under the sched lock: the update ceiling (U1/U2) and the
 * holder boost with its tail rule. Which thread gets which parameters is the core's decision
 * (module/core/src/boost.rs); this file only applies it.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/pid.h>
#include <linux/rtmutex.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/version.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/sched/types.h>
#include "gcaps_glue.h"
#include "glue_internal.h"

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

/*
 * The calling thread's CPU time in ns: user + system time as task_cputime_adjusted() gives it
 * (EXPORT_SYMBOL_GPL on 5.10, 5.15 and 6.12), which sum to its scheduler runtime
 * (se.sum_exec_runtime, or task_sched_runtime() under full dynticks). The runtime is brought
 * up to date at every scheduler event of the thread (tick, switch, a change of its policy),
 * not continuously: a read lags by the time the thread ran since the last one.
 */
u64 gcaps_glue_current_cputime_ns(void)
{
	u64 ut, st;

	task_cputime_adjusted(current, &ut, &st);
	return ut + st;
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
int gcaps_sched_resolve(void)
{
	return 0;
}

static int gcaps_setattr(struct task_struct *p, const struct sched_attr *attr)
{
	return sched_setattr_nocheck(p, attr);
}
#else
static int (*gcaps_setattr_fn)(struct task_struct *p, const struct sched_attr *attr);

int gcaps_sched_resolve(void)
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
