/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * gcaps: GPU context-aware preemptive priority-based scheduling, ioctl interface of /dev/gcaps.
 *
 * This header is the single source of truth for the interface between gcaps.ko and user space
 * (libgcaps, gcapsctl, tests). It follows the kernel's UAPI rules: fixed-width types, explicit
 * padding, no pointers (user addresses travel as __u64), and every argument struct starts with
 * its own size so it can grow:
 *   - `size` is the size of the struct as the caller knows it (sizeof at compile time);
 *   - a caller built against an older, shorter struct is zero-extended by the kernel;
 *   - a caller built against a newer, longer struct gets E2BIG unless every byte the kernel
 *     does not know is zero (copy_struct_from_user semantics);
 *   - `size` below the first version's size (GCAPS_*_SIZE_VER0) is EINVAL.
 * The size encoded in the ioctl number is that of the current version; the kernel dispatches on
 * the type and number only and trusts `size` (checked as above), never _IOC_SIZE.
 * Output fields are written back up to min(size, kernel's size).
 *
 * There is no pid argument anywhere: every call acts for the calling process. A file
 * descriptor of /dev/gcaps belongs to the thread group that opened it; any call on it from
 * another process (a child after fork, a receiver of the fd over a socket or pidfd_getfd)
 * fails with EPERM and changes nothing. When the owning thread group exits (its last thread;
 * kill -9 included) its open segment ends and its client goes, even if another process still
 * holds the file; the file then refuses every call (EPERM) until its last reference is gone.
 *
 * Every errno below means the call changed nothing (the one exception is under EFAULT).
 *
 * Error numbers (negative in the kernel, errno in user space):
 *   ENOTTY   unknown ioctl command
 *   EINVAL   size below the first version, non-zero flags or reserved fields, GPU priority
 *            outside 0..99; SET_ALWAYS: `on` not 0/1, tsgid >= GCAPS_MAX_TSGS
 *   E2BIG    size larger than the kernel's struct with non-zero bytes beyond it
 *   EFAULT   unreadable/unwritable argument or user buffer. SEG_BEGIN, SEG_END and a STATS
 *            reset write their struct back before they act, so EFAULT means nothing changed;
 *            only if another thread unmaps or write-protects the struct during the call can
 *            the final write-back fail after the call took effect (read STATUS/STATS then).
 *            LIST and TRACE_READ may have filled part of the user arrays.
 *   EPERM    the fd belongs to another process; a best-effort (SCHED_OTHER/BATCH/IDLE) caller
 *            asked for an explicit GPU priority; a real-time caller asked for an explicit GPU
 *            priority above its own CPU priority without CAP_SYS_NICE; resetting statistics,
 *            reading the trace or SET_ALWAYS without CAP_SYS_ADMIN
 *   EINTR    a fatal signal arrived while SEG_BEGIN/SEG_END/STATUS/LIST/STATS waited for the
 *            update lock (the caller is dying; nothing changed)
 *   EALREADY SEG_BEGIN while this client's segment is open
 *   ENOENT   SEG_END without an open segment; SET_ALWAYS of a TSG id the bound driver has
 *            not reported (or no driver bound)
 *   EMFILE   open(): the calling user already has GCAPS_MAX_CLIENTS_PER_USER clients
 *   ENOSPC   open(): the client table is full
 */
#ifndef _UAPI_LINUX_GCAPS_H
#define _UAPI_LINUX_GCAPS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define GCAPS_DEVICE_NAME	"gcaps"		/* /dev/gcaps */
#define GCAPS_IOC_MAGIC		0xC5
#define GCAPS_ABI_VERSION	1

/* GPU priority of a segment: inherit the caller's CPU priority, or 1..99 explicit. */
#define GCAPS_GPU_PRIO_INHERIT	0
#define GCAPS_GPU_PRIO_MIN	1
#define GCAPS_GPU_PRIO_MAX	99

/* CPU class of a client as read from the task at its last begin (never from the caller). */
#define GCAPS_CLASS_OTHER	0	/* SCHED_OTHER, SCHED_BATCH, SCHED_IDLE: best-effort */
#define GCAPS_CLASS_FIFO	1	/* SCHED_FIFO: real-time */
#define GCAPS_CLASS_RR		2	/* SCHED_RR: real-time */

/* Segment state of a client. */
#define GCAPS_STATE_IDLE	0	/* no open segment */
#define GCAPS_STATE_RUNNING	1	/* open segment, its TSGs are eligible */
#define GCAPS_STATE_PENDING	2	/* open segment, waiting for a higher/earlier one */

/* TSG ids: 0 .. GCAPS_MAX_TSGS - 1 (the backend contract's GCAPS_BE_MAX_TSGS). */
#define GCAPS_MAX_TSGS		1024

/*
 * GCAPS_IOC_VERSION: module and backend versions, and which backend is bound. VER1 added
 * backend_runlists, backend_flags and backend_detail (a VER0 caller gets the first four fields).
 */
struct gcaps_version {
	__u32 size;			/* in */
	__u32 abi_version;		/* out: GCAPS_ABI_VERSION */
	__u32 module_version;		/* out: major << 16 | minor << 8 | patch */
	__u32 backend_abi;		/* out: backend contract version, 0 = no backend bound */
	char backend_name[32];		/* out: NUL-terminated, "" = no backend bound; short driver
					 * name, e.g. "nvgpu", "simgpu" */
	/* VER1 */
	__u32 backend_runlists;		/* out: bit i: the backend filters hardware runlist i
					 * (0 = no backend bound) */
	__u32 backend_flags;		/* out: GCAPS_BACKEND_* (0 = no backend bound) */
	char backend_detail[64];	/* out: NUL-terminated: the driver's line and chip, e.g.
					 * "r36.4.2 ga10b", "emulated gv11b"; "" if none */
};
/*
 * The bound backend's runlists are stock: every TSG is listed whatever gcaps decides, because
 * the driver's own scheduler owns them (e.g. nvgpu on R36 while a GSP user scheduling domain
 * exists). gcaps still takes and publishes its decisions (segments, stats, trace as usual), but
 * the GPU does not apply them until the bit clears. (The field was `reserved`, always 0, before.)
 */
#define GCAPS_BACKEND_STOCK	(1u << 0)
#define GCAPS_VERSION_SIZE_VER0		48
#define GCAPS_VERSION_SIZE_VER1		120

/*
 * GCAPS_IOC_SEG_BEGIN: open a GPU segment (gcapsGpuSegBegin). On EPERM (and only then) the
 * module writes `refused` and `cpu_priority` back (VER1 callers): which permission rule
 * refused, so a library never has to guess it.
 *
 * Holder boost (module parameter boost=1, the default): the *thread* that calls SEG_BEGIN of a
 * real-time segment is the segment's owner. The module keeps a counted reference to that
 * thread from the begin until the segment ends (SEG_END, the close of the file, or the exit
 * of the process) and, whenever the segment is the running one (state RUNNING), runs that
 * thread at SCHED_FIFO boost_prio (default 98; STATUS reports it) and restores the thread's
 * own policy and priority, at the tail of its level, when it stops running. In a
 * multi-threaded process only that thread is boosted, whichever thread ends the segment. A
 * thread at or above boost_prio, or not SCHED_FIFO/SCHED_RR when its segment starts to run, is
 * left alone; a change of the thread's own scheduling parameters while it is boosted stays (it
 * is not boosted again until the segment becomes the running one anew). Best-effort segments
 * are never boosted.
 */
struct gcaps_seg_begin {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__s32 gpu_priority;		/* in: GCAPS_GPU_PRIO_INHERIT or 1..99 */
	__u32 state;			/* out: GCAPS_STATE_RUNNING or GCAPS_STATE_PENDING */
	__u64 generation;		/* out: eligible-set generation after the call */
	/* VER1 */
	__u32 refused;			/* out, on EPERM: GCAPS_REFUSED_* */
	__s32 cpu_priority;		/* out, on EPERM: the caller's rt_priority as judged (0: not
					 * SCHED_FIFO/SCHED_RR) */
};
#define GCAPS_SEG_BEGIN_SIZE_VER0	24
#define GCAPS_SEG_BEGIN_SIZE_VER1	32

/* The permission rules of a begin (struct gcaps_seg_begin.refused). */
#define GCAPS_REFUSED_NOT_OWNER		1	/* the file belongs to another thread group */
#define GCAPS_REFUSED_NEEDS_REALTIME	2	/* an explicit GPU priority from a caller that is not
						 * SCHED_FIFO/SCHED_RR */
#define GCAPS_REFUSED_ABOVE_OWN		3	/* a GPU priority above the caller's own rt_priority,
						 * without RLIMIT_RTPRIO or CAP_SYS_NICE to raise it */

/* GCAPS_IOC_SEG_END: close the caller's open GPU segment (gcapsGpuSegEnd). */
struct gcaps_seg_end {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u64 generation;		/* out */
};
#define GCAPS_SEG_END_SIZE_VER0		16

/* One client, as GCAPS_IOC_STATUS and GCAPS_IOC_LIST report it. */
struct gcaps_client_info {
	__u64 client_id;		/* never reused while the system runs */
	__u32 tgid;			/* thread group (process) id, in the reader's pid namespace */
	__u32 cpu_class;		/* GCAPS_CLASS_*, at the last begin */
	__s32 cpu_priority;		/* rt_priority at the last begin, 0 for best-effort */
	__s32 gpu_priority;		/* effective GPU priority of the open segment, 0 if none or
					 * best-effort */
	__u32 state;			/* GCAPS_STATE_* */
	__u32 num_tsgs;			/* TSGs this client owns */
	char comm[16];			/* command name, NUL-terminated */
};

/*
 * GCAPS_IOC_STATUS: the caller's own client and the global decision. VER1 added the module's
 * priorities: the holder boost's setting and the update ceiling (a VER0 caller gets neither).
 */
struct gcaps_status {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	struct gcaps_client_info self;	/* out */
	__u64 generation;		/* out: eligible-set generation */
	__u32 rt_active;		/* out: 1 if any real-time segment is open */
	__u32 num_clients;		/* out */
	/* VER1 */
	__u32 boost;			/* out: GCAPS_BOOST_* */
	__s32 boost_prio;		/* out: SCHED_FIFO priority of a running segment's owner
					 * thread (module parameter boost_prio; analysed task
					 * priorities must stay below it while boost is on) */
	__s32 update_prio;		/* out: SCHED_FIFO priority of every real-time update
					 * (the ceiling, module parameter update_prio) */
	__u32 mechanism;		/* out: GCAPS_MECH_* (module parameter mechanism); the
					 * field was `reserved`, always 0 (reload), before */
};
#define GCAPS_STATUS_SIZE_VER0		72
#define GCAPS_STATUS_SIZE_VER1		88
#define GCAPS_BOOST_ON		(1u << 0)	/* holder boost on (module parameter boost=1) */
#define GCAPS_BOOST_SELF	(1u << 1)	/* the caller's segment runs and its owner thread is
						 * boosted now */
/*
 * The eligibility mechanism: how the GPU driver keeps the TSGs that are not eligible off the
 * GPU (docs/module.md).
 */
#define GCAPS_MECH_RELOAD	0	/* the runlist lists only the eligible TSGs; each change is a
					 * runlist rebuild, submit and pending wait */
#define GCAPS_MECH_GATE		1	/* the runlist lists every TSG; only the eligible TSGs'
					 * channels are enabled; a begin that takes the GPU from a
					 * running TSG preempts it, an end hands over without a
					 * runlist submit */

/* One TSG, as GCAPS_IOC_LIST reports it. */
struct gcaps_tsg_info {
	__u32 tsgid;
	__u32 flags;			/* GCAPS_TSG_* */
	__u64 owner_client_id;		/* 0: the owner process has no /dev/gcaps client */
	__u32 owner_tgid;
	__u32 timeslice_us;
};
#define GCAPS_TSG_ELIGIBLE	(1u << 0)	/* on the runlist by the current decision */
#define GCAPS_TSG_ALWAYS	(1u << 1)	/* always eligible (= ALWAYS_DRIVER | ALWAYS_ADMIN) */
#define GCAPS_TSG_ALWAYS_DRIVER	(1u << 2)	/* ... because the driver flagged it driver-internal */
#define GCAPS_TSG_ALWAYS_ADMIN	(1u << 3)	/* ... because an administrator marked it
						 * (GCAPS_IOC_SET_ALWAYS) */

/*
 * GCAPS_IOC_SET_ALWAYS: an administrator (CAP_SYS_ADMIN, else EPERM) marks a TSG always
 * eligible (on = 1) or removes that mark (on = 0): it stays on the runlist during every
 * real-time segment, e.g. the display compositor's. A TSG has two independent reasons to be
 * always eligible, each with one owner: the driver's flag (driver-internal TSG, reported with
 * the TSG; the administrator cannot clear it) and this mark. It is always eligible while
 * either is set; `reasons` says which are set after the call. The mark belongs to the TSG's
 * incarnation: it goes when the driver releases the TSG (a reused id starts unmarked).
 * Pending TSG events are applied first, so a TSG the driver has just reported can be marked.
 * If the decision changes, the module publishes it and has the driver resubmit before it
 * returns (like a segment begin or end; traced as GCAPS_TRACE_TSG_ALWAYS).
 * Errors: EINVAL (flags/reserved not 0, on > 1, tsgid >= GCAPS_MAX_TSGS), EPERM, ENOENT (no
 * such TSG), EINTR.
 */
struct gcaps_set_always {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u32 tsgid;			/* in */
	__u32 on;			/* in: 1 mark, 0 unmark */
	__u32 reasons;			/* out: GCAPS_TSG_ALWAYS_DRIVER | GCAPS_TSG_ALWAYS_ADMIN after
					 * the call */
	__u32 reserved;			/* in: must be 0 */
	__u64 generation;		/* out: eligible-set generation after the call */
};
#define GCAPS_SET_ALWAYS_SIZE_VER0	32

/*
 * GCAPS_IOC_LIST: every client and every TSG (for tools; any caller may read it, like ps).
 * The kernel writes at most *_cap entries to the user arrays and reports the full counts, so a
 * caller whose arrays were too small retries with larger ones. One consistent snapshot.
 */
struct gcaps_list {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u64 clients_ptr;		/* in: user address of struct gcaps_client_info[clients_cap] */
	__u64 tsgs_ptr;			/* in: user address of struct gcaps_tsg_info[tsgs_cap] */
	__u32 clients_cap;		/* in */
	__u32 tsgs_cap;			/* in */
	__u32 clients_count;		/* out: number of clients (may exceed clients_cap) */
	__u32 tsgs_count;		/* out: number of TSGs (may exceed tsgs_cap) */
	__u64 generation;		/* out */
	__u32 rt_active;		/* out */
	__u32 reserved;			/* in: must be 0 */
};
#define GCAPS_LIST_SIZE_VER0		56

/*
 * Rejected-call classes: index into gcaps_stats.rejected[] by the errno a call of /dev/gcaps
 * (open or ioctl) returned. GCAPS_REJ_OTHER counts any errno not listed.
 */
#define GCAPS_REJ_EPERM		0
#define GCAPS_REJ_ENOENT	1
#define GCAPS_REJ_EINTR		2
#define GCAPS_REJ_E2BIG		3
#define GCAPS_REJ_EFAULT	4
#define GCAPS_REJ_EINVAL	5
#define GCAPS_REJ_EMFILE	6
#define GCAPS_REJ_ENOTTY	7
#define GCAPS_REJ_ENOSPC	8
#define GCAPS_REJ_EALREADY	9
#define GCAPS_REJ_OTHER		10
#define GCAPS_REJ_NR		16	/* length of rejected[] (room to grow) */

/*
 * Update-delay histogram: the delay of one update is the time from the entry of a real-time
 * caller's successful SEG_BEGIN/SEG_END ioctl to the end of its update (after the runlist
 * submit is no longer pending, or after the decision if nothing was submitted): the
 * epsilon of the analysis (the paper's Fig. 12). Best-effort calls never update the runlist
 * and are not sampled. Log2 buckets in ns:
 *   bucket 0: delay < 2^10 ns (about 1 us);
 *   bucket b (1..GCAPS_DELAY_BUCKETS-2): 2^(9+b) <= delay < 2^(10+b) ns;
 *   bucket GCAPS_DELAY_BUCKETS-1: delay >= 2^40 ns.
 */
#define GCAPS_DELAY_BUCKETS	32
#define GCAPS_DELAY_BUCKET0_SHIFT 10

/*
 * Update costs per kind (STATS VER3): the calibration figures of the analysis's platform
 * (epsilon, epsilon_fast, epsilon_cpu). Every update of a real-time caller (SEG_BEGIN,
 * SEG_END, SET_ALWAYS, the release of its file), successful or not, is one sample of exactly
 * one kind:
 *   GCAPS_UPDATE_SUBMIT   mechanism reload: it had the driver resubmit its runlist (at least
 *                         once);
 *   GCAPS_UPDATE_FAST     it did not change what the driver applies (the non-preemptive fast
 *                         path, and any update at the ceiling whose decision did not change);
 *   GCAPS_UPDATE_PREEMPT  mechanism gate: it changed the channels' enable state and the driver
 *                         preempted a TSG that lost the GPU while it ran (a begin that takes
 *                         the GPU from running work, an end whose owner still had work on it);
 *   GCAPS_UPDATE_HANDOVER mechanism gate: it changed the enable state only (no preempt, no
 *                         runlist submit, no wait: an end whose owner was idle).
 * An update that applied several times counts as its costliest: PREEMPT, SUBMIT, HANDOVER.
 * Wall time: from the moment the update holds the update lock to its release and the
 * caller's return from the ceiling, plus the raise to the ceiling before the lock request
 * (the lock wait itself is not included: the analysis bounds it separately). On-CPU time:
 * the caller's CPU time in the same window (the growth of its scheduler runtime, the sum of
 * task_cputime_adjusted's user and system time; at most the wall time); the rest it slept in
 * the submit's pending wait or the preempt's completion wait. The fast path runs with
 * preemption disabled and never sleeps: its on-CPU time is its wall time. Both histograms use the update-delay buckets above.
 */
#define GCAPS_UPDATE_SUBMIT	0
#define GCAPS_UPDATE_FAST	1
#define GCAPS_UPDATE_PREEMPT	2
#define GCAPS_UPDATE_HANDOVER	3
#define GCAPS_UPDATE_KINDS	4

struct gcaps_update_cost {
	__u64 count;			/* out: updates of this kind */
	__u64 wall_max_ns;		/* out: longest wall time */
	__u64 wall_sum_ns;		/* out: sum of the wall times */
	__u64 cpu_max_ns;		/* out: longest on-CPU time */
	__u64 cpu_sum_ns;		/* out: sum of the on-CPU times */
	__u64 wall_buckets[GCAPS_DELAY_BUCKETS];	/* out: wall times per log2 bucket */
	__u64 cpu_buckets[GCAPS_DELAY_BUCKETS];		/* out: on-CPU times per log2 bucket */
};
#define GCAPS_UPDATE_COST_SIZE	552

/*
 * GCAPS_IOC_STATS: counters since load or the last reset (any caller may read them, like LIST).
 * The fields after clients_max came with GCAPS_STATS_SIZE_VER1, open_at_reset and
 * segments_open with GCAPS_STATS_SIZE_VER2, updates[] with GCAPS_STATS_SIZE_VER3; a caller
 * gets the fields that fit in its size.
 *
 * GCAPS_STATS_RESET in flags (needs CAP_SYS_ADMIN, EPERM otherwise) resets, after they are
 * read and written back, exactly the counters the caller's struct holds whole: each field (and
 * each rejected[] element) that lies entirely within `size`; the delay histogram
 * (delay_count .. delay_buckets) is one unit, reset only if all of it fits, and so is each
 * updates[] element (struct gcaps_update_cost). Resetting sets a
 * counter to 0, clients_max and tsgs_max to the current counts. begins, ends and
 * ends_by_close (VER0) are therefore reset by every reset, together, and open_at_reset then
 * records the segments open at that moment (also when the caller's struct is too short to
 * read it). A caller that passes a shorter struct never loses counters it cannot see.
 *
 * Every segment begun ends exactly once, by SEG_END or when its client goes (close of the
 * file's last reference, or the exit of the owning process): at any moment,
 *   open_at_reset + begins == ends + ends_by_close + segments_open
 * in one reply (all read under the update lock).
 */
struct gcaps_stats {
	__u32 size;			/* in */
	__u32 flags;			/* in: 0 or GCAPS_STATS_RESET */
	__u64 begins;			/* out: successful SEG_BEGIN */
	__u64 ends;			/* out: successful SEG_END */
	__u64 ends_by_close;		/* out: open segments ended because their client went:
					 * close of the file's last reference, or the exit (or
					 * kill) of the owning process */
	__u64 submits;			/* out: runlist resubmits asked of the backend */
	__u64 submit_errors;		/* out: of which the backend refused or timed out */
	__u32 clients_now;		/* out */
	__u32 clients_max;		/* out: most clients at once */
	/* VER1 */
	__u64 preemptions;		/* out: a real-time segment went from running to pending
					 * because a higher-priority one began */
	__u64 resumes;			/* out: a pending segment became running (the one ahead
					 * of it ended or was closed) */
	__u64 submit_timeouts;		/* out: resubmits that stayed pending until the driver's
					 * timeout and recovery (-ETIMEDOUT; in submit_errors) */
	__u64 recoveries;		/* out: recoveries the driver reported */
	__u32 tsgs_now;			/* out: TSGs the bound driver reported */
	__u32 tsgs_max;			/* out: most TSGs at once */
	__u64 rejected[GCAPS_REJ_NR];	/* out: failed open/ioctl calls per GCAPS_REJ_* */
	__u64 delay_count;		/* out: update delays sampled (see the histogram above) */
	__u64 delay_sum_ns;		/* out: their sum (mean = sum / count) */
	__u64 delay_min_ns;		/* out: 0 if delay_count is 0 */
	__u64 delay_max_ns;		/* out */
	__u64 delay_buckets[GCAPS_DELAY_BUCKETS];	/* out: counts per log2 bucket */
	/* VER2 */
	__u64 open_at_reset;		/* out: segments open when begins/ends were last reset
					 * (0 since load) */
	__u64 segments_open;		/* out: segments open now (real-time and best-effort) */
	/* VER3 */
	struct gcaps_update_cost updates[GCAPS_UPDATE_KINDS];	/* out: per GCAPS_UPDATE_* kind;
					 * recorded after the update lock's release, lock-free
					 * (like rejected[]), so not read under it with the rest */
};
#define GCAPS_STATS_SIZE_VER0		56
#define GCAPS_STATS_SIZE_VER1		512
#define GCAPS_STATS_SIZE_VER2		528
#define GCAPS_STATS_SIZE_VER3		2736
#define GCAPS_STATS_RESET	(1u << 0)

/*
 * Trace ring: the last trace_size events (module parameter, allocated at load; 0 disables
 * tracing) in the order they happened, each with a sequence number (1, 2, 3, ... never reused
 * while the module is loaded). Events are recorded under the update lock, so their order is
 * the order of the decisions. Reading needs CAP_SYS_ADMIN (the events show other processes'
 * pids and timing).
 */
#define GCAPS_TRACE_OPEN	1	/* a client registered (open of /dev/gcaps) */
#define GCAPS_TRACE_CLOSE	2	/* a client left (close, exit, kill); flags: ENDED if it
					 * had an open segment */
#define GCAPS_TRACE_BEGIN	3	/* SEG_BEGIN; flags: PENDING if the segment waits */
#define GCAPS_TRACE_END		4	/* SEG_END */
#define GCAPS_TRACE_PREEMPT	5	/* client_id's running segment became pending (the
					 * BEGIN just before it is the cause) */
#define GCAPS_TRACE_RESUME	6	/* client_id's pending segment became running */
#define GCAPS_TRACE_RECOVERY	7	/* the driver reported a recovery */
#define GCAPS_TRACE_TSG_NEW	8	/* the driver reported a new TSG (its id in tsgid) */
#define GCAPS_TRACE_TSG_GONE	9	/* a TSG was released */
#define GCAPS_TRACE_TSG_ALWAYS	10	/* a TSG's always-eligible reasons changed (its id in
					 * tsgid, the reasons after the event,
					 * GCAPS_TSG_ALWAYS_*, in requested_priority); client_id
					 * is 0 for the driver's flag, the administrator's client
					 * for SET_ALWAYS */
#define GCAPS_TRACE_BOOST	11	/* holder boost: client_id's segment became the running
					 * one and its owner thread `tid` runs at SCHED_FIFO
					 * cpu_priority (boost_prio) from now on (at the end of
					 * its own update if it is inside one); its own priority
					 * at the begin in requested_priority. Right after the
					 * BEGIN/END/CLOSE (and PREEMPT/RESUME) that caused it */
#define GCAPS_TRACE_UNBOOST	12	/* the boost of thread `tid` ended (its segment ended or
					 * was preempted): cpu_priority is the rt priority it
					 * returns to, at the tail of its level, or -1 if gcaps
					 * left its parameters alone (they were changed while it
					 * was boosted, or it was never raised) */

#define GCAPS_TRACE_F_PENDING	(1u << 0)	/* BEGIN: the new segment is pending */
#define GCAPS_TRACE_F_ENDED	(1u << 1)	/* CLOSE: an open segment ended with the client */
#define GCAPS_TRACE_F_SUBMIT	(1u << 2)	/* the event's update resubmitted the runlist */
#define GCAPS_TRACE_F_SUBMIT_FAILED (1u << 3)	/* ... and the backend refused or timed out */

struct gcaps_trace_event {
	__u64 seq;			/* 1, 2, 3, ... */
	__u64 time_ns;			/* CLOCK_MONOTONIC when the event was recorded (at the
					 * end of its update; time_ns - delay_ns is a begin/end
					 * call's entry); PREEMPT/RESUME carry the time of the
					 * BEGIN/END/CLOSE that caused them. Never decreases
					 * along seq. */
	__u64 client_id;		/* the client the event is about, 0 for driver events */
	__u64 running_client_id;	/* decision after the event: the client whose real-time
					 * segment runs, 0 = none (every TSG eligible) */
	__u64 generation;		/* eligible-set generation after the event */
	__u64 delay_ns;			/* BEGIN/END of a real-time caller: its update delay
					 * (see the histogram); 0 otherwise */
	__u32 tgid;			/* client_id's (or the TSG owner's) process id, in the
					 * initial pid namespace */
	__u32 kind;			/* GCAPS_TRACE_* */
	__s32 cpu_priority;		/* BEGIN: the caller's rt_priority (0 best-effort);
					 * BOOST/UNBOOST: see there; TSG_NEW/TSG_GONE/
					 * TSG_ALWAYS: 0, but the tsgid for a reader whose
					 * event_size is below GCAPS_TRACE_EVENT_SIZE_VER1 */
	__s32 requested_priority;	/* BEGIN: the gpu_priority asked (0 = inherit) */
	__s32 effective_priority;	/* BEGIN/PREEMPT/RESUME: the segment's GPU priority
					 * (0: best-effort) */
	__u32 flags;			/* GCAPS_TRACE_F_* */
	__u32 running_tgid;		/* process id of running_client_id, 0 if none */
	__u32 tid;			/* BOOST/UNBOOST: the owner thread's id (initial pid
					 * namespace); 0 otherwise (was `reserved`, always 0) */
	char comm[16];			/* client_id's (or the TSG owner's client's) command name,
					 * NUL-terminated; "" if none */
	/* VER1 */
	__u32 tsgid;			/* TSG_NEW/TSG_GONE/TSG_ALWAYS: the TSG's id; 0 otherwise */
	__u32 reserved;			/* 0 */
};
#define GCAPS_TRACE_EVENT_SIZE_VER0	96
#define GCAPS_TRACE_EVENT_SIZE_VER1	104

/*
 * GCAPS_IOC_TRACE_READ: copy events with seq >= from_seq (0: the oldest held) into the user
 * array, oldest first, at most events_cap of them, with a stride of event_size bytes (the
 * caller's sizeof(struct gcaps_trace_event); below GCAPS_TRACE_EVENT_SIZE_VER0 is EINVAL; the
 * kernel writes min(event_size, its own size) bytes of each; an event_size below
 * GCAPS_TRACE_EVENT_SIZE_VER1 gets VER0's events, with a TSG event's id in cpu_priority). Nothing is consumed: a reader
 * keeps its position in next_seq, so several readers can follow the ring at once. If the
 * events from from_seq on were overwritten before this read, `dropped` says how many the
 * reader missed. EPERM without CAP_SYS_ADMIN.
 */
struct gcaps_trace_read {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u64 events_ptr;		/* in: user address of the event array */
	__u32 events_cap;		/* in: number of array elements */
	__u32 event_size;		/* in: size of one element */
	__u64 from_seq;			/* in: first sequence number wanted, 0 = oldest held */
	__u32 events_count;		/* out: events written */
	__u32 ring_size;		/* out: capacity of the ring (0: tracing disabled) */
	__u64 next_seq;			/* out: pass as from_seq to continue (last written + 1,
					 * or the next event to come) */
	__u64 dropped;			/* out: events from from_seq on that were overwritten
					 * before this read (lost to this reader) */
	__u64 overwritten;		/* out: events overwritten since load (for everyone) */
};
#define GCAPS_TRACE_READ_SIZE_VER0	64

#define GCAPS_IOC_VERSION	_IOWR(GCAPS_IOC_MAGIC, 0x00, struct gcaps_version)
#define GCAPS_IOC_SEG_BEGIN	_IOWR(GCAPS_IOC_MAGIC, 0x01, struct gcaps_seg_begin)
#define GCAPS_IOC_SEG_END	_IOWR(GCAPS_IOC_MAGIC, 0x02, struct gcaps_seg_end)
#define GCAPS_IOC_STATUS	_IOWR(GCAPS_IOC_MAGIC, 0x03, struct gcaps_status)
#define GCAPS_IOC_LIST		_IOWR(GCAPS_IOC_MAGIC, 0x04, struct gcaps_list)
#define GCAPS_IOC_SET_ALWAYS	_IOWR(GCAPS_IOC_MAGIC, 0x05, struct gcaps_set_always)
#define GCAPS_IOC_STATS		_IOWR(GCAPS_IOC_MAGIC, 0x10, struct gcaps_stats)
#define GCAPS_IOC_TRACE_READ	_IOWR(GCAPS_IOC_MAGIC, 0x11, struct gcaps_trace_read)

#endif /* _UAPI_LINUX_GCAPS_H */
