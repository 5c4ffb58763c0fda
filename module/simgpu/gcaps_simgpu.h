/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * gcaps_simgpu: the emulated Tegra GPU of the gcaps test VM, ioctl interface of
 * /dev/gcaps_simgpu (docs/simgpu.md). Shared by the module, the test programs and examples.
 *
 * Every open file of /dev/gcaps_simgpu is one TSG (time-slice group) of the opening process with
 * `channels` channels (module parameter). The process submits work items (a GPU execution time
 * in ns) and waits for their completion, either blocking (self-suspension: SIMGPU_IOC_WAIT) or
 * polling (busy waiting: SIMGPU_IOC_WAIT with SIMGPU_WAIT_POLL, which never sleeps and returns
 * EAGAIN while the item is not finished). Completions carry GPU-side timestamps
 * (CLOCK_MONOTONIC ns, the clock of clock_gettime(CLOCK_MONOTONIC) and ktime_get_ns()).
 *
 * UAPI rules as in uapi/linux/gcaps.h: fixed-width types, explicit padding, no pointers (user
 * addresses travel as __u64), every argument struct starts with its size (a shorter struct of
 * an older caller is zero-extended, a longer one must be zero beyond the kernel's: else E2BIG;
 * a size below the first version is EINVAL); outputs are written up to min(size, kernel size).
 *
 * Errors: ENOTTY unknown command; EINVAL bad size, non-zero flags/reserved fields, value out of
 * range; E2BIG see above; EFAULT bad user memory; ENOENT no such work item / TSG; EBUSY too
 * many uncollected work items (SIMGPU_MAX_ITEMS), or another thread already waits for the item;
 * EAGAIN (poll) not finished yet; ETIMEDOUT (blocking wait) timeout; EINTR interrupted by a
 * signal; EPERM test knobs without CAP_SYS_ADMIN; ENOSPC open of /dev/gcaps_simgpu with all
 * max_tsgs TSG ids taken. TSG ioctls go to /dev/gcaps_simgpu, the
 * test knobs to /dev/gcaps_simgpu_ctl; SIMGPU_IOC_RUNLIST works on both (ENOTTY elsewhere).
 */
#ifndef _UAPI_GCAPS_SIMGPU_H
#define _UAPI_GCAPS_SIMGPU_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* /dev/gcaps_simgpu: open = one TSG. /dev/gcaps_simgpu_ctl: root only, no TSG; for
 * SIMGPU_IOC_RUNLIST and the test knobs.
 */
#define SIMGPU_DEVICE_NAME	"gcaps_simgpu"
#define SIMGPU_CTL_DEVICE_NAME	"gcaps_simgpu_ctl"
#define SIMGPU_IOC_MAGIC	0xC6

#define SIMGPU_MAX_CHANNELS	8	/* channels per TSG (module parameter `channels`) */
#define SIMGPU_MAX_ITEMS	64	/* queued + finished-but-uncollected items per TSG */
#define SIMGPU_MAX_EXEC_NS	10000000000ULL	/* 10 s per work item */
#define SIMGPU_TIMESLICE_MIN_US	1000	/* nvgpu's bounds for a TSG timeslice */
#define SIMGPU_TIMESLICE_MAX_US	50000

/* Aperture codes of the runlist channel entry. */
#define SIMGPU_APERTURE_VIDMEM		0
#define SIMGPU_APERTURE_SYS_COH		2
#define SIMGPU_APERTURE_SYS_NONCOH	3

struct simgpu_channel_info {
	__u32 chid;
	__u32 runqueue;		/* runqueue selector, 0 */
	__u64 inst_addr;	/* instance block address, 4 KiB aligned */
	__u64 userd_addr;	/* USERD address, 256-byte aligned */
	__u32 inst_aperture;	/* SIMGPU_APERTURE_* */
	__u32 userd_aperture;
};

/* SIMGPU_IOC_INFO: the caller's TSG. */
struct simgpu_tsg_info {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u32 tsgid;			/* out */
	__u32 owner_tgid;		/* out: opener's thread group, in the reader's pid namespace */
	__u64 owner_start_ns;		/* out: opener's group leader start (boottime ns) */
	__u32 timeslice_us;		/* out */
	__u32 num_channels;		/* out */
	struct simgpu_channel_info channels[SIMGPU_MAX_CHANNELS];	/* out: num_channels valid */
};
#define SIMGPU_TSG_INFO_SIZE_VER0	288

/* SIMGPU_IOC_SUBMIT: queue one work item on the caller's TSG. */
struct simgpu_submit {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u64 exec_ns;			/* in: GPU execution time, 1 .. SIMGPU_MAX_EXEC_NS */
	__u64 seqno;			/* out: the item's number (1, 2, ... per TSG) */
	__u64 submit_ns;		/* out: CLOCK_MONOTONIC when it was queued */
};
#define SIMGPU_SUBMIT_SIZE_VER0		32

/* A finished work item. */
struct simgpu_completion {
	__u64 seqno;
	__u64 exec_ns;			/* as submitted */
	__u64 submit_ns;		/* queued */
	__u64 start_ns;			/* first instant the engine executed it */
	__u64 end_ns;			/* the instant it finished */
	__u32 preemptions;		/* times the engine switched away from it before it finished */
	__u32 reserved;
};

/*
 * SIMGPU_IOC_WAIT: wait for (blocking) or query (SIMGPU_WAIT_POLL) one work item; on success
 * the item is collected (its number cannot be waited for again).
 */
#define SIMGPU_WAIT_POLL	(1u << 0)	/* never sleep: EAGAIN if not finished */
struct simgpu_wait {
	__u32 size;			/* in */
	__u32 flags;			/* in: 0 or SIMGPU_WAIT_POLL */
	__u64 seqno;			/* in */
	__u64 timeout_ns;		/* in: blocking only; 0 = no timeout */
	struct simgpu_completion done;	/* out */
};
#define SIMGPU_WAIT_SIZE_VER0		72

/* SIMGPU_IOC_SET_TIMESLICE: the caller's TSG timeslice (rebuilds the runlist). */
struct simgpu_timeslice {
	__u32 size;			/* in */
	__u32 timeslice_us;		/* in: SIMGPU_TIMESLICE_MIN_US .. SIMGPU_TIMESLICE_MAX_US */
};
#define SIMGPU_TIMESLICE_SIZE_VER0	8

/*
 * SIMGPU_IOC_RUNLIST: the runlist the engine executes (raw little-endian words as the engine
 * read them, 4 per entry) and the engine's counters. Any caller may read it. The kernel writes
 * at most words_cap words and reports the full entry count. Since VER1 also the channels'
 * enable state (the engine skips a TSG whose channels are all disabled; the driver writes a
 * TSG's channels together) as a bitmap of TSG ids, at most enabled_cap 64-bit words (bit i of
 * word i / 64: TSG i is open and its channels are enabled), and gcaps's mechanism gate's
 * counters. Under mechanism gate a change of gcaps's decision is a gate, not a submit.
 */
struct simgpu_runlist {
	__u32 size;			/* in */
	__u32 flags;			/* in: must be 0 */
	__u64 words_ptr;		/* in: user address of __u32[words_cap] */
	__u32 words_cap;		/* in */
	__u32 entries;			/* out: entries of the active runlist */
	__s32 active_buffer;		/* out: buffer the engine reads (0/1), -1 none */
	__u32 bound;			/* out: 1 if bound to gcaps.ko */
	__u64 submits;			/* out: runlists submitted */
	__u64 takes;			/* out: submits the engine took (pending cleared) */
	__u64 timeouts;			/* out: submits that stayed pending past submit_timeout_ms */
	__u64 recoveries;		/* out: engine recoveries (runlist cleared + rebuilt) */
	__u64 random_rebuilds;		/* out: driver-initiated rebuilds (rebuild_interval_ms) */
	__u64 switches;			/* out: context switches between TSGs (each costs theta) */
	__u64 preemptions;		/* out: switches away from an unfinished started item */
	__u64 decode_errors;		/* out: malformed runlists seen by the engine (must stay 0) */
	__u32 theta_us;			/* out: module parameter */
	__u32 num_tsgs;			/* out: open TSGs */
	/* VER1 */
	__u64 gates;			/* out: ops->gate calls (enable state written, no submit) */
	__u64 gate_preempts;		/* out: gates that preempted a TSG on the engine */
	__u64 preempt_timeouts;		/* out: TSG preempts not complete within
					 * submit_timeout_ms (recovery ran) */
	__u64 enabled_ptr;		/* in: user address of __u64[enabled_cap] */
	__u32 enabled_cap;		/* in: 64-bit words at enabled_ptr (0: none written) */
	__u32 gate;			/* out: 1 if bound to gcaps with mechanism gate */
};
#define SIMGPU_RUNLIST_SIZE_VER0	104
#define SIMGPU_RUNLIST_SIZE_VER1	144

/*
 * SIMGPU_IOC_TEST_EXCLUDE (test knob, CAP_SYS_ADMIN): keep a TSG off (or put it back on) every
 * runlist the driver builds, whatever gcaps decides; returns once the engine took the runlist.
 */
struct simgpu_test_exclude {
	__u32 size;			/* in */
	__u32 tsgid;			/* in */
	__u32 exclude;			/* in: 1 exclude, 0 include */
	__u32 reserved;			/* in: must be 0 */
};
#define SIMGPU_TEST_EXCLUDE_SIZE_VER0	16

/*
 * SIMGPU_IOC_TEST_STALL (test knob, CAP_SYS_ADMIN): the engine ignores submitted runlists for
 * stall_ms (a hung runlist fetch), so submits time out and the driver's recovery runs; 0 ends
 * a stall now (a pending runlist is taken as when the stall runs out).
 */
struct simgpu_test_stall {
	__u32 size;			/* in */
	__u32 stall_ms;			/* in: 0 .. 10000 */
};
#define SIMGPU_TEST_STALL_SIZE_VER0	8

/*
 * SIMGPU_IOC_TEST_HOLD (test knob, CAP_SYS_ADMIN): hold = 1: the engine runs nothing (it goes
 * idle at once, preempting whatever runs); work is still queued and runlists are still taken.
 * hold = 0: the engine resumes at once (a scheduling point). A test holds the engine, lets
 * several TSGs queue work and releases it: the TSGs had work at the same instant.
 */
struct simgpu_test_hold {
	__u32 size;			/* in */
	__u32 hold;			/* in: 1 hold, 0 release */
};
#define SIMGPU_TEST_HOLD_SIZE_VER0	8

/*
 * SIMGPU_IOC_TEST_INTERNAL (test knob, CAP_SYS_ADMIN): flag an open TSG as driver-internal
 * (internal = 1: the driver's own work, reported to gcaps with GCAPS_BE_TSG_ALWAYS) or clear
 * the flag (0), as a driver does for its copy/setup TSGs. Reported to gcaps at once (a
 * tsg_update); gcaps applies it and resubmits if its decision changes. ENOENT: no open TSG
 * with that id.
 */
struct simgpu_test_internal {
	__u32 size;			/* in */
	__u32 tsgid;			/* in */
	__u32 internal;			/* in: 1 flag, 0 clear */
	__u32 reserved;			/* in: must be 0 */
};
#define SIMGPU_TEST_INTERNAL_SIZE_VER0	16

/*
 * SIMGPU_IOC_TEST_STOCK (test knob, CAP_SYS_ADMIN): stock = 1: the emulated driver's runlists
 * are stock, as nvgpu's on R36 while a GSP user scheduling domain exists: it tells gcaps
 * (calls->stock(be, true), under its runlist lock) and lists every open TSG (not excluded)
 * whatever gcaps's eligible set; stock = 0: calls->stock(be, false) and filters again. Each
 * call rebuilds and submits the runlist and returns once it is taken. While unbound it only
 * sets the state, which the driver reports right after its next registration.
 */
struct simgpu_test_stock {
	__u32 size;			/* in */
	__u32 stock;			/* in: 1 stock, 0 filtered */
};
#define SIMGPU_TEST_STOCK_SIZE_VER0	8

#define SIMGPU_IOC_INFO		_IOWR(SIMGPU_IOC_MAGIC, 0x00, struct simgpu_tsg_info)
#define SIMGPU_IOC_SUBMIT	_IOWR(SIMGPU_IOC_MAGIC, 0x01, struct simgpu_submit)
#define SIMGPU_IOC_WAIT		_IOWR(SIMGPU_IOC_MAGIC, 0x02, struct simgpu_wait)
#define SIMGPU_IOC_SET_TIMESLICE _IOW(SIMGPU_IOC_MAGIC, 0x03, struct simgpu_timeslice)
#define SIMGPU_IOC_RUNLIST	_IOWR(SIMGPU_IOC_MAGIC, 0x04, struct simgpu_runlist)
#define SIMGPU_IOC_TEST_EXCLUDE	_IOW(SIMGPU_IOC_MAGIC, 0x10, struct simgpu_test_exclude)
#define SIMGPU_IOC_TEST_STALL	_IOW(SIMGPU_IOC_MAGIC, 0x11, struct simgpu_test_stall)
#define SIMGPU_IOC_TEST_HOLD	_IOW(SIMGPU_IOC_MAGIC, 0x12, struct simgpu_test_hold)
#define SIMGPU_IOC_TEST_INTERNAL _IOW(SIMGPU_IOC_MAGIC, 0x13, struct simgpu_test_internal)
#define SIMGPU_IOC_TEST_STOCK	_IOW(SIMGPU_IOC_MAGIC, 0x14, struct simgpu_test_stock)

#endif /* _UAPI_GCAPS_SIMGPU_H */
