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
 * another process (a child after fork, a receiver of the fd over a socket) fails with EPERM
 * and changes nothing.
 *
 * Error numbers (negative in the kernel, errno in user space):
 *   ENOTTY   unknown ioctl command
 *   EINVAL   size below the first version, non-zero flags or reserved fields, GPU priority
 *            outside 0..99
 *   E2BIG    size larger than the kernel's struct with non-zero bytes beyond it
 *   EFAULT   unreadable/unwritable argument or user buffer
 *   EPERM    the fd belongs to another process; a best-effort (SCHED_OTHER/BATCH/IDLE) caller
 *            asked for an explicit GPU priority; a real-time caller asked for an explicit GPU
 *            priority above its own CPU priority without CAP_SYS_NICE; resetting statistics
 *            without CAP_SYS_ADMIN
 *   EALREADY SEG_BEGIN while this client's segment is open
 *   ENOENT   SEG_END without an open segment
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

/* GCAPS_IOC_VERSION: module and backend versions. */
struct gcaps_version {
	__u32 size;			/* in */
	__u32 abi_version;		/* out: GCAPS_ABI_VERSION */
	__u32 module_version;		/* out: major << 16 | minor << 8 | patch */
	__u32 backend_abi;		/* out: backend contract version, 0 = no backend bound */
	char backend_name[32];		/* out: NUL-terminated, "" = no backend bound */
};
#define GCAPS_VERSION_SIZE_VER0		48

/* GCAPS_IOC_SEG_BEGIN: open a GPU segment (gcapsGpuSegBegin). */
struct gcaps_seg_begin {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__s32 gpu_priority;		/* in: GCAPS_GPU_PRIO_INHERIT or 1..99 */
	__u32 state;			/* out: GCAPS_STATE_RUNNING or GCAPS_STATE_PENDING */
	__u64 generation;		/* out: eligible-set generation after the call */
};
#define GCAPS_SEG_BEGIN_SIZE_VER0	24

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

/* GCAPS_IOC_STATUS: the caller's own client and the global decision. */
struct gcaps_status {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	struct gcaps_client_info self;	/* out */
	__u64 generation;		/* out: eligible-set generation */
	__u32 rt_active;		/* out: 1 if any real-time segment is open */
	__u32 num_clients;		/* out */
};
#define GCAPS_STATUS_SIZE_VER0		72

/* One TSG, as GCAPS_IOC_LIST reports it. */
struct gcaps_tsg_info {
	__u32 tsgid;
	__u32 flags;			/* GCAPS_TSG_* */
	__u64 owner_client_id;		/* 0: the owner process has no /dev/gcaps client */
	__u32 owner_tgid;
	__u32 timeslice_us;
};
#define GCAPS_TSG_ELIGIBLE	(1u << 0)	/* on the runlist by the current decision */
#define GCAPS_TSG_ALWAYS	(1u << 1)	/* always eligible (administrator's choice) */

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
 * GCAPS_IOC_STATS: counters since load or the last reset (any caller may read them, like LIST).
 * GCAPS_STATS_RESET in flags zeroes them after they are read (clients_max becomes clients_now)
 * and needs CAP_SYS_ADMIN (EPERM otherwise). Every segment begun ends exactly once, by SEG_END
 * or by close: with no segment open, begins = ends + ends_by_close.
 */
struct gcaps_stats {
	__u32 size;			/* in */
	__u32 flags;			/* in: 0 or GCAPS_STATS_RESET */
	__u64 begins;			/* out: successful SEG_BEGIN */
	__u64 ends;			/* out: successful SEG_END */
	__u64 ends_by_close;		/* out: open segments ended by close, exit or kill */
	__u64 submits;			/* out: runlist resubmits asked of the backend */
	__u64 submit_errors;		/* out: of which the backend refused */
	__u32 clients_now;		/* out */
	__u32 clients_max;		/* out: most clients at once */
};
#define GCAPS_STATS_SIZE_VER0		56
#define GCAPS_STATS_RESET	(1u << 0)

#define GCAPS_IOC_VERSION	_IOWR(GCAPS_IOC_MAGIC, 0x00, struct gcaps_version)
#define GCAPS_IOC_SEG_BEGIN	_IOWR(GCAPS_IOC_MAGIC, 0x01, struct gcaps_seg_begin)
#define GCAPS_IOC_SEG_END	_IOWR(GCAPS_IOC_MAGIC, 0x02, struct gcaps_seg_end)
#define GCAPS_IOC_STATUS	_IOWR(GCAPS_IOC_MAGIC, 0x03, struct gcaps_status)
#define GCAPS_IOC_LIST		_IOWR(GCAPS_IOC_MAGIC, 0x04, struct gcaps_list)
#define GCAPS_IOC_STATS		_IOWR(GCAPS_IOC_MAGIC, 0x10, struct gcaps_stats)
/* 0x11..0x1f: reserved for the trace ring. */

#endif /* _UAPI_LINUX_GCAPS_H */
