/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interface between the C glue (gcaps_glue.c) and the device (device.rs, Rust) of gcaps.ko.
 * The Rust side is generated from this file by bindgen (module/gcaps/bindings.sh writes
 * glue/bindings.rs; the device's build fails when this file differs from the one it was
 * generated from, and the device checks its gcaps_rust_* definitions against those
 * declarations); the C file checks the struct sizes, and the link checks the TSG capacity.
 *
 * Everything marked "update lock held" may only be called while the caller holds the update
 * lock (gcaps_glue_lock*), which lockdep checks in the debug kernel.
 */
#ifndef GCAPS_GLUE_H
#define GCAPS_GLUE_H

#include <linux/types.h>

/* Identity and scheduling state of the calling task (read from the task, never from the caller). */
struct gcaps_caller {
	u64 start;		/* group leader's start_boottime (ns) */
	u32 tgid;		/* current->tgid (initial pid namespace) */
	u32 uid;		/* real uid (kuid value) */
	s32 policy;		/* SCHED_* */
	s32 rt_priority;	/* 0 for non-RT policies */
	char comm[16];		/* NUL-terminated */
};

/* One TSG event as drained from the per-TSG table (the latest state of that TSG). */
struct gcaps_ev {
	u64 start;		/* owner's start_boottime */
	u32 tsgid;
	s32 tgid;
	u32 timeslice_us;
	u32 num_channels;
	u32 present;		/* 1: exists (tsg_update), 0: released */
	u32 flags;		/* GCAPS_BE_TSG_* of the last tsg_update */
};

/*
 * An open file's client: its slot in the core's client table and its id (never reused), so a
 * file whose client is gone (its owner exited) never reaches the client that reuses the slot.
 */
struct gcaps_client_ref {
	u64 id;
	u32 slot;
	u32 pad;
};

/* Implemented in Rust (device.rs). `ctx` is the pointer given to gcaps_glue_init(). */
int gcaps_rust_open(void *ctx, const struct gcaps_caller *caller, uintptr_t pid_token,
		    struct gcaps_client_ref *client);
/*
 * The file's last reference is gone. False: the client could not be removed now (the update
 * lock was not taken: see device.rs) and the caller keeps the file's record, whose pid
 * reference the client names, on the handed-over list (gcaps_glue_closed_pop()).
 */
bool gcaps_rust_release(void *ctx, struct gcaps_client_ref client);
long gcaps_rust_ioctl(void *ctx, struct gcaps_client_ref client, unsigned int cmd,
		      unsigned long arg, bool foreign);
/* Any context (lock-free): the client's owner may have exited; kick the work item after. */
void gcaps_rust_owner_exited(void *ctx, struct gcaps_client_ref client);
int gcaps_rust_bind(void *ctx, const void *ops, void *drv);
void gcaps_rust_unbind(void *ctx);
/* The work item: false if it must run again (the update lock was taken and work is pending). */
bool gcaps_rust_work(void *ctx);

/* Memory (zeroed; kvfree), the kernel log (level 3 err, 4 warn, else info; "gcaps: " prefix),
 * BUG() with a message (never returns), CLOCK_MONOTONIC in ns. */
void *gcaps_glue_kvzalloc(size_t size);
void gcaps_glue_kvfree(void *ptr);
void gcaps_glue_log(int level, const char *msg, size_t len);
void __noreturn gcaps_glue_bug(const char *msg, size_t len);
u64 gcaps_glue_now_ns(void);

/* The LIST buffer's mutex. */
void gcaps_glue_list_lock(void);
void gcaps_glue_list_unlock(void);

/* Module parameters. */
int gcaps_glue_update_prio(void);
unsigned int gcaps_glue_trace_size(void);

/* The trace ring's raw spinlock (process context; never sleeps). */
void gcaps_glue_trace_lock(void);
void gcaps_glue_trace_unlock(void);
unsigned int gcaps_glue_max_clients_per_user(void);

/* Life cycle: publish ctx (backends bind with mechanism GCAPS_MECH_*) and register /dev/gcaps; undo. */
int gcaps_glue_init(void *ctx, u32 mechanism);
void gcaps_glue_exit_dev(void);
void gcaps_glue_exit_final(void);

/* The calling task. */
void gcaps_glue_caller(struct gcaps_caller *out);
void gcaps_glue_current_sched(s32 *policy, s32 *rt_priority);
u64 gcaps_glue_current_cputime_ns(void);
bool gcaps_glue_may_raise_rt_prio(int prio);
bool gcaps_glue_capable_admin(void);
bool gcaps_glue_current_exiting(void);
u32 gcaps_glue_pid_vnr(uintptr_t pid_token);
bool gcaps_glue_pid_group_exited(uintptr_t pid_token);

/*
 * Threads' scheduling parameters (the update ceiling U1/U2 and the holder boost; decided by the
 * core's boost::Holder under the sched lock). Tokens are struct task_struct pointers; a token
 * from task_self_get/task_get holds a reference until task_put.
 */
/* The mechanism parameter as GCAPS_MECH_*, or -EINVAL (logged, the text escaped). */
int gcaps_glue_mechanism(void);
bool gcaps_glue_boost_on(void);
int gcaps_glue_boost_prio(void);
void gcaps_glue_sched_lock(void);
int gcaps_glue_sched_lock_killable(void);
void gcaps_glue_sched_unlock(void);
uintptr_t gcaps_glue_task_self(void);
uintptr_t gcaps_glue_task_self_get(void);
void gcaps_glue_task_get(uintptr_t t);
void gcaps_glue_task_put(uintptr_t t);
u32 gcaps_glue_task_tid(uintptr_t t);
void gcaps_glue_task_params(uintptr_t t, s32 *policy, s32 *prio, bool *reset_on_fork);
int gcaps_glue_task_set(uintptr_t t, s32 policy, s32 prio, bool reset_on_fork, bool tail);

/* The update lock (rt_mutex). */
int gcaps_glue_lock_killable(void);
void gcaps_glue_lock(void);
void gcaps_glue_unlock(void);
bool gcaps_glue_trylock_nopreempt(void);
bool gcaps_glue_trylock_free(void);
void gcaps_glue_unlock_nopreempt(void);

/* User memory: 0 or -EFAULT (copy_struct_from_user's errors for the last). */
int gcaps_glue_get_user_u32(unsigned long src, u32 *out);
int gcaps_glue_copy_to_user(unsigned long dst, const void *src, size_t n);
int gcaps_glue_copy_struct_from_user(void *dst, size_t ksize, unsigned long src, size_t usize);

/* Published decision (update lock held). `words` has GCAPS_BE_MAX_TSGS / 64 entries. */
void gcaps_glue_publish(u64 generation, bool all, const u64 *words);
/* TSG ids released since the last call (kept off every publish until taken); update lock held. */
void gcaps_glue_take_released(u64 *words);

/* TSG event table. */
bool gcaps_glue_ev_next(struct gcaps_ev *out);
bool gcaps_glue_ev_take_recovered(void);
/* Whether TSG events or handed-over files wait (a lock-free hint). */
bool gcaps_glue_ev_pending(void);
/* Handed-over files (gcaps_rust_release() returned false), update lock held: the oldest and
 * its client (NULL: none); free it once the client is removed. */
void *gcaps_glue_closed_pop(struct gcaps_client_ref *client);
void gcaps_glue_closed_free(void *file);
/* Puts a popped file back at the head (its client is still there), update lock held. */
void gcaps_glue_closed_unpop(void *file);
/* Kicks the work item (any context). */
void gcaps_glue_work_kick(void);

/* Backend binding (update lock held). */
int gcaps_glue_be_attach(const void *ops, void *drv);
bool gcaps_glue_be_forget(void);
bool gcaps_glue_be_detach(void);
/* ops->resubmit or ops->gate by the mechanism: GCAPS_UPDATE_SUBMIT/_PREEMPT/_HANDOVER or -errno. */
int gcaps_glue_be_apply(void);
/*
 * The bound backend's name, detail (NUL-terminated, "" if none), runlists and flags
 * (GCAPS_BACKEND_STOCK: it called calls->stock(be, true) last); returns its ABI.
 */
u32 gcaps_glue_be_info(char *name, size_t name_len, char *detail, size_t detail_len,
		       u32 *runlists, u32 *flags);

#endif /* GCAPS_GLUE_H */
