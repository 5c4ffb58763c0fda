/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gcaps_simgpu: an emulated Tegra GPU (one engine, one runlist) for the gcaps test VM.
 *
 * It stands in for nvgpu: processes open /dev/gcaps_simgpu to get a TSG with channels, submit
 * work items (a GPU execution time) and wait for them (gcaps_simgpu.h). The driver part builds
 * runlists in the Volta/Ampere 16-byte entry format into one of two buffers and submits them;
 * the engine part (an hrtimer state machine in hard-irq context) fetches and decodes a submitted
 * runlist at its next scheduling point and executes it: round robin over the listed TSGs that
 * have work, each for its encoded timeslice, with a context-switch cost theta on every switch
 * between TSGs. It implements the gcaps backend contract (../include/gcaps_backend.h): every
 * runlist it builds is filtered by gcaps's eligible set when gcaps.ko is loaded; without gcaps
 * every TSG is listed (stock round robin). Under gcaps's mechanism gate the runlist lists every TSG
 * and the decision is applied to the channels' enable state instead: the engine skips a TSG whose
 * channels are all disabled, and ops->gate preempts a TSG that lost the GPU while on the engine.
 * docs/simgpu.md describes the model.
 *
 * This header is the module's internal interface: the module parameters, the TSG, work item,
 * engine and driver state shared by its files, the lock order, and each file's entry points.
 * The files, by concept:
 *
 *   main.c     module parameters, init and exit, the driver-internal TSG
 *   runlist.c  runlist entry encoding, the engine's decoder, the known-answer self-check
 *   engine.c   the engine: the hrtimer state machine that executes the submitted runlist
 *   driver.c   runlist building and submission, channel enable state, TSG preempt, recovery,
 *              the gcaps binding (backend ops, bind/unbind), random driver-initiated rebuilds
 *   tsg.c      TSG lifecycle (open and release of /dev/gcaps_simgpu) and queueing work items
 *   ioctl.c    the ioctls of /dev/gcaps_simgpu and /dev/gcaps_simgpu_ctl, the misc devices
 *
 * Locks, outermost first (the order of ../include/gcaps_backend.h extended by the driver's own):
 *
 *   sg.bind_lock (mutex)      serialises binding to and unbinding from gcaps (module init and
 *                             exit, module notifier). Held across gcaps_backend_register() and
 *                             calls->unregister(), never across anything that takes it again.
 *   gcaps update lock         gcaps.ko's rt_mutex; gcaps holds it around ops->resubmit/gate/
 *                             detach.
 *   sg.rl_lock (rt_mutex)     the runlist lock: the runlist buffers, building and submitting
 *                             (held across the wait until the submit is no longer pending, and
 *                             across ops->gate's preempt wait), the decision last read (sg.elig),
 *                             the TSG table (writers also hold eng.lock), each TSG's timeslice, the
 *                             gcaps binding (sg.be, sg.calls), the test exclusions. Priority
 *                             inheritance: an updater at the gcaps ceiling that waits for it
 *                             boosts a best-effort holder (open, close, random rebuild).
 *   gcaps event spinlock,     taken inside calls->tsg_update/tsg_release/recovered/eligible,
 *   snapshot seqcount         which the driver calls only under rl_lock (so detach, which takes
 *                             rl_lock, waits for calls in flight).
 *   eng.lock (raw spinlock,   the engine: its clock, active and pending runlist, current TSG,
 *             irqs off)       the TSG preempt, counters, every TSG's work items and channel
 *                             enable bits (hardware state). Taken by the hrtimer and by
 *                             process context. Under it only the hrtimer base lock and completion
 *                             wake-ups (both raw) are taken; nothing is allocated or freed.
 */
#ifndef GCAPS_SIMGPU_INTERNAL_H
#define GCAPS_SIMGPU_INTERNAL_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>		/* kvmalloc_array, kvcalloc, kvfree: mm.h on 5.10, slab.h later */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/prandom.h>
#include <linux/rtmutex.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "../include/gcaps_backend.h"
#include "gcaps_simgpu.h"

/* Module parameters (main.c), checked at load and constant afterwards. */
extern unsigned int timeslice_us;
extern unsigned int theta_us;
extern unsigned int channels;
extern unsigned int max_tsgs;
extern unsigned int submit_timeout_ms;
extern unsigned int rebuild_interval_ms;
extern ulong rebuild_seed;
extern unsigned int setup_work_us;

#define SETUP_TIMEOUT_MS	5000	/* an open whose setup work did not run by then fails */

#define ENTRY_WORDS	4		/* 16-byte runlist entry */
#define HW_ID_MASK	0xfffu		/* 12-bit TSG and channel ids */
#define MAX_TSG_LEN	128		/* channel entries after one TSG entry */
#define INST_BASE	0x100000000ULL	/* made-up instance blocks: 4 KiB each from 4 GiB */
#define USERD_BASE	0x80000000ULL	/* made-up USERD: 512 bytes each from 2 GiB */
#define MIN_SLICE_NS	1024ULL		/* a decoded timeslice of 0 runs one timer unit */
#define ADVANCE_LIMIT	100000		/* engine events per catch-up (a bug guard) */

/* One work item. Lives on its TSG's queue (unfinished) or done list (finished, not collected). */
struct simgpu_item {
	struct list_head node;		/* eng.lock */
	struct completion finished_cmp;	/* completed once by the engine when it finishes */
	u64 seqno;
	u64 exec_ns;
	u64 submit_ns;
	u64 start_ns;			/* eng.lock, from here down */
	u64 end_ns;
	u64 remaining_ns;
	u32 preemptions;
	bool started;
	bool finished;
	bool waited;			/* a blocking waiter owns it: nobody else collects it */
};

/* One TSG = one open file. */
struct simgpu_tsg {
	u32 id;				/* constant while open */
	pid_t tgid;			/* opener's thread group (init namespace), constant */
	struct pid *tgid_pid;		/* reference held, for the reader's pid namespace */
	u64 owner_start;		/* opener's group leader start_boottime, constant */
	u32 timeslice_us;		/* rl_lock */
	bool internal;			/* rl_lock: test knob, driver-internal (GCAPS_BE_TSG_ALWAYS) */
	struct simgpu_channel_info ch[SIMGPU_MAX_CHANNELS];	/* constant */
	__le32 ch_words[SIMGPU_MAX_CHANNELS][ENTRY_WORDS];	/* encoded once at open */
	struct list_head queue;		/* eng.lock: unfinished items, FIFO; head = executing */
	struct list_head done;		/* eng.lock: finished items not yet collected */
	u32 ch_en;			/* eng.lock: channel k enabled (bit k); the engine skips the
					 * TSG while all are disabled */
	u32 nitems;			/* eng.lock: on both lists */
	u64 last_seqno;			/* eng.lock */
};

/* A TSG of the active (or pending) runlist as the engine decoded it. */
struct simgpu_rl_tsg {
	u32 tsgid;
	u64 slice_ns;
};

enum simgpu_eng_state {
	ENG_IDLE,			/* nothing to run */
	ENG_SWITCHING,			/* loading cur's context until switch_end (theta) */
	ENG_RUNNING,			/* executing the head item of cur until its slice ends */
	ENG_PREEMPTING,			/* saving cur's context until preempt_end (theta); then the
					 * preempt completes and the engine picks as after idle */
};

/* The engine (engine.c). Everything here is protected by lock. */
struct simgpu_engine {
	raw_spinlock_t lock;
	struct hrtimer timer;
	bool stopped;			/* module exit: never re-arm the timer */
	u64 clock;			/* model time the state has been advanced to (ns) */
	/* Runlists: buffer indexes into sg.buf, -1 none. Decoded when submitted (fetch). */
	int active;
	int pending;
	u32 active_entries;
	u32 pending_entries;
	struct simgpu_rl_tsg *rl;	/* decoded active runlist, rl_n TSGs */
	struct simgpu_rl_tsg *rl_next;	/* decoded pending runlist, rl_next_n TSGs */
	u32 rl_n;
	u32 rl_next_n;
	struct completion taken;	/* the pending runlist was taken (pending cleared) */
	u64 stall_until;		/* test knob: no runlist is taken before this time; 0 off */
	bool held;			/* test knob: run nothing (work queues, runlists are taken) */
	/* Execution. */
	enum simgpu_eng_state state;
	int cur;			/* TSG switching in or running, -1 when idle */
	int last_ctx;			/* TSG whose context is loaded, -1 none */
	u64 switch_end;
	u64 slice_end;
	u64 slice_ns;			/* cur's timeslice as listed */
	u64 preempt_end;
	struct completion preempted;	/* the TSG preempt in progress completed (or was cleared) */
	/* Counters (SIMGPU_IOC_RUNLIST). */
	u64 submits, takes, timeouts, recoveries, random_rebuilds;
	u64 switches, preemptions, decode_errors;
	u64 gates, gate_preempts, preempt_timeouts;
};

extern struct simgpu_engine eng;

/* The driver (driver.c, tsg.c, ioctl.c). */
struct simgpu {
	struct mutex bind_lock;		/* see the lock list at the top */
	struct rt_mutex rl_lock;	/* see the lock list at the top */
	struct gcaps_backend *be;	/* rl_lock: bound gcaps handle, NULL when unbound */
	const struct gcaps_be_calls *calls;	/* rl_lock: gcaps's table, NULL when unbound */
	struct completion detached;	/* ops->detach ran (for an exit racing gcaps's exit) */
	struct gcaps_be_eligible elig;	/* rl_lock: gcaps's decision as simgpu_decision read it */
	bool gated;			/* rl_lock: that decision is applied by channel enables
					 * (bound, mechanism gate, runlists not stock) */
	bool rl_lost;			/* rl_lock: a recovery left the engine without a runlist */
	unsigned long *excluded;	/* rl_lock: test knob, TSG ids kept off every runlist */
	bool stock;			/* rl_lock: test knob, runlists stock (every TSG listed) */
	__le32 *buf[2];			/* runlist buffers; rl_lock; never the one the engine reads */
	u32 buf_cap;			/* entries per buffer */
	struct simgpu_tsg **tsgs;	/* TSG table by id: written under rl_lock and eng.lock */
	struct simgpu_tsg *internal;	/* the driver's own TSG (setup_work_us), constant; NULL */
	u32 num_tsgs;			/* rl_lock and eng.lock, like tsgs */
	u32 next_id;			/* rl_lock: ids are handed out cyclically */
	struct ida ids;
	struct delayed_work rebuild_work;	/* random rebuilds */
	struct rnd_state rnd;		/* rebuild_work only */
	bool stopping;			/* module exit began (READ_ONCE/WRITE_ONCE) */
	struct notifier_block module_nb;
};

extern struct simgpu sg;

/* runlist.c */
void simgpu_encode_tsg_entry(__le32 *e, u32 tsgid, u64 units, u32 nch);
void simgpu_encode_channel_entry(__le32 *e, const struct simgpu_channel_info *c);
int simgpu_decode_runlist(const __le32 *buf, u32 entries, struct simgpu_rl_tsg *out,
			  u32 cap, u32 *n);
int simgpu_selfcheck(void);

/* engine.c: all under eng.lock but eng_timer_fn */
struct simgpu_item *eng_head(struct simgpu_tsg *t);
bool eng_stalled(u64 t);
void eng_preempt_cur(void);
void eng_sched(u64 t, bool slice_over);
bool eng_submit_is_point(void);
bool eng_on_engine(int id);
void eng_preempt_start(void);
void eng_preempt_clear(void);
void eng_advance(u64 now);
void eng_arm(void);
enum hrtimer_restart eng_timer_fn(struct hrtimer *timer);

/* driver.c */
void simgpu_tsg_desc(const struct simgpu_tsg *t, struct gcaps_be_tsg *d);
void simgpu_decision(void);
u32 simgpu_ch_want(u32 id);
int simgpu_submit_locked(bool tell_gcaps);
void simgpu_bind(void);
void simgpu_unbind(void);
int simgpu_module_notify(struct notifier_block *nb, unsigned long action, void *data);
unsigned long simgpu_rebuild_delay(void);
void simgpu_rebuild_fn(struct work_struct *work);

/* tsg.c */
void simgpu_tsg_channels(struct simgpu_tsg *t, u32 id);
int simgpu_queue(struct simgpu_tsg *t, struct simgpu_item *it, u64 *seqno, u64 *submit_ns);
int simgpu_open(struct inode *inode, struct file *file);
int simgpu_release(struct inode *inode, struct file *file);

/* ioctl.c */
extern struct miscdevice simgpu_misc;
extern struct miscdevice simgpu_ctl_misc;

#endif /* GCAPS_SIMGPU_INTERNAL_H */
