// SPDX-License-Identifier: GPL-2.0-only
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
 * every TSG is listed (stock round robin). docs/simgpu.md describes the model.
 *
 * Locks, outermost first (the order of ../include/gcaps_backend.h extended by the driver's own):
 *
 *   sg.bind_lock (mutex)      serialises binding to and unbinding from gcaps (module init and
 *                             exit, module notifier). Held across gcaps_backend_register() and
 *                             calls->unregister(), never across anything that takes it again.
 *   gcaps update lock         gcaps.ko's rt_mutex; gcaps holds it around ops->resubmit/detach.
 *   sg.rl_lock (rt_mutex)     the runlist lock: the runlist buffers, building and submitting
 *                             (held across the wait until the submit is no longer pending), the
 *                             TSG table (writers also hold eng.lock), each TSG's timeslice, the
 *                             gcaps binding (sg.be, sg.calls), the test exclusions. Priority
 *                             inheritance: an updater at the gcaps ceiling that waits for it
 *                             boosts a best-effort holder (open, close, random rebuild).
 *   gcaps event spinlock,     taken inside calls->tsg_update/tsg_release/recovered/eligible,
 *   snapshot seqcount         which the driver calls only under rl_lock (so detach, which takes
 *                             rl_lock, waits for calls in flight).
 *   eng.lock (raw spinlock,   the engine: its clock, active and pending runlist, current TSG,
 *             irqs off)       counters, and every TSG's work items. Taken by the hrtimer and by
 *                             process context. Under it only the hrtimer base lock and completion
 *                             wake-ups (both raw) are taken; nothing is allocated or freed.
 */
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

static unsigned int timeslice_us = 1024;
module_param(timeslice_us, uint, 0444);
MODULE_PARM_DESC(timeslice_us, "Default TSG timeslice in us (1000..50000, default 1024)");

static unsigned int theta_us = 200;
module_param(theta_us, uint, 0444);
MODULE_PARM_DESC(theta_us, "Context-switch cost between TSGs in us (0..10000, default 200)");

static unsigned int channels = 2;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Channels per TSG (1..8, default 2)");

static unsigned int max_tsgs = 64;
module_param(max_tsgs, uint, 0444);
MODULE_PARM_DESC(max_tsgs, "TSG ids 0..max_tsgs-1 (1..1024, default 64)");

static unsigned int submit_timeout_ms = 100;
module_param(submit_timeout_ms, uint, 0444);
MODULE_PARM_DESC(submit_timeout_ms, "Wait for a submit to leave pending before recovery (60..10000 ms, default 100)");

static unsigned int rebuild_interval_ms;
module_param(rebuild_interval_ms, uint, 0444);
MODULE_PARM_DESC(rebuild_interval_ms, "Mean interval of driver-initiated random rebuilds in ms (0 = off)");

static ulong rebuild_seed = 1;
module_param(rebuild_seed, ulong, 0444);
MODULE_PARM_DESC(rebuild_seed, "Seed of the random rebuild intervals");

static unsigned int setup_work_us;
module_param(setup_work_us, uint, 0444);
MODULE_PARM_DESC(setup_work_us, "GPU work (us) every open of a TSG runs first on the driver's own driver-internal TSG and waits for (context setup, as nvgpu's channel setup); 0 = off (no internal TSG), at most 100000");

#define SETUP_TIMEOUT_MS	5000	/* an open whose setup work did not run by then fails */

#define ENTRY_WORDS	4		/* 16-byte runlist entry */
#define HW_ID_MASK	0xfffu		/* 12-bit TSG and channel ids */
#define MAX_TSG_LEN	128		/* channel entries after one TSG entry */
#define INST_BASE	0x100000000ULL	/* made-up instance blocks: 4 KiB each from 4 GiB */
#define USERD_BASE	0x80000000ULL	/* made-up USERD: 512 bytes each from 2 GiB */
#define MIN_SLICE_NS	1024ULL		/* a decoded timeslice of 0 runs one timer unit */
#define ADVANCE_LIMIT	100000		/* engine events per catch-up (a bug guard) */

static_assert(sizeof(struct simgpu_channel_info) == 32);
static_assert(sizeof(struct simgpu_tsg_info) == SIMGPU_TSG_INFO_SIZE_VER0);
static_assert(sizeof(struct simgpu_submit) == SIMGPU_SUBMIT_SIZE_VER0);
static_assert(sizeof(struct simgpu_wait) == SIMGPU_WAIT_SIZE_VER0);
static_assert(sizeof(struct simgpu_timeslice) == SIMGPU_TIMESLICE_SIZE_VER0);
static_assert(sizeof(struct simgpu_runlist) == SIMGPU_RUNLIST_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_exclude) == SIMGPU_TEST_EXCLUDE_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_stall) == SIMGPU_TEST_STALL_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_hold) == SIMGPU_TEST_HOLD_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_internal) == SIMGPU_TEST_INTERNAL_SIZE_VER0);

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
};

/* The engine. Everything here is protected by lock. */
static struct simgpu_engine {
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
	/* Counters (SIMGPU_IOC_RUNLIST). */
	u64 submits, takes, timeouts, recoveries, random_rebuilds;
	u64 switches, preemptions, decode_errors;
} eng;

/* The driver. */
static struct simgpu {
	struct mutex bind_lock;		/* see the lock list at the top */
	struct rt_mutex rl_lock;	/* see the lock list at the top */
	struct gcaps_backend *be;	/* rl_lock: bound gcaps handle, NULL when unbound */
	const struct gcaps_be_calls *calls;	/* rl_lock: gcaps's table, NULL when unbound */
	struct completion detached;	/* ops->detach ran (for an exit racing gcaps's exit) */
	struct gcaps_be_eligible elig;	/* rl_lock: scratch copy of gcaps's decision */
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
} sg;

/* ---- Runlist entry encoding (the policy crate's runlist.rs is the reference) ---- */

/* timeout << scale units of 1024 ns; nvgpu passes the timeslice in us as the unit count. */
static void simgpu_encode_timeslice(u64 units, u32 *timeout, u32 *scale)
{
	u32 s = 0;

	while (units > 255 && s < 15) {
		units >>= 1;
		s++;
	}
	*timeout = units > 255 ? 255 : (u32)units;
	*scale = s;
}

static void simgpu_encode_tsg_entry(__le32 *e, u32 tsgid, u64 units, u32 nch)
{
	u32 timeout, scale;

	simgpu_encode_timeslice(units, &timeout, &scale);
	e[0] = cpu_to_le32(1 | scale << 16 | timeout << 24);
	e[1] = cpu_to_le32(nch);
	e[2] = cpu_to_le32(tsgid & HW_ID_MASK);
	e[3] = 0;
}

static void simgpu_encode_channel_entry(__le32 *e, const struct simgpu_channel_info *c)
{
	e[0] = cpu_to_le32((c->runqueue & 1) << 1 | (c->inst_aperture & 3) << 4 |
			   (c->userd_aperture & 3) << 6 | (lower_32_bits(c->userd_addr) & 0xffffff00));
	e[1] = cpu_to_le32(upper_32_bits(c->userd_addr));
	e[2] = cpu_to_le32((c->chid & HW_ID_MASK) | (lower_32_bits(c->inst_addr) & 0xfffff000));
	e[3] = cpu_to_le32(upper_32_bits(c->inst_addr));
}

static bool simgpu_aperture_ok(u32 code)
{
	return code == SIMGPU_APERTURE_VIDMEM || code == SIMGPU_APERTURE_SYS_COH ||
	       code == SIMGPU_APERTURE_SYS_NONCOH;
}

/*
 * The engine's fetch: decode @entries entries of @buf into TSGs (id, timeslice). Checks what
 * the hardware format fixes: TSG entry first, reserved bits zero, 1..128 channel entries of
 * type 0 with valid apertures after each TSG entry, TSG ids inside the table. -EINVAL on a
 * malformed runlist.
 */
static int simgpu_decode_runlist(const __le32 *buf, u32 entries, struct simgpu_rl_tsg *out,
				 u32 cap, u32 *n)
{
	u32 i = 0, k = 0, j;

	while (i < entries) {
		const __le32 *e = buf + (size_t)i * ENTRY_WORDS;
		u32 w0 = le32_to_cpu(e[0]), w1 = le32_to_cpu(e[1]);
		u32 w2 = le32_to_cpu(e[2]), w3 = le32_to_cpu(e[3]);
		u32 timeout = w0 >> 24, scale = (w0 >> 16) & 15;

		if (!(w0 & 1) || (w0 & 0x00f0fffe) || (w1 & ~0xffu) || (w2 & ~HW_ID_MASK) || w3)
			return -EINVAL;
		if (w1 == 0 || w1 > MAX_TSG_LEN || w1 > entries - i - 1 || w2 >= max_tsgs || k >= cap)
			return -EINVAL;
		for (j = 1; j <= w1; j++) {
			u32 c0 = le32_to_cpu(e[j * ENTRY_WORDS]);

			if ((c0 & 1) || (c0 & 0x8) || !simgpu_aperture_ok((c0 >> 4) & 3) ||
			    !simgpu_aperture_ok((c0 >> 6) & 3))
				return -EINVAL;
		}
		out[k].tsgid = w2;
		out[k].slice_ns = max(((u64)timeout << scale) << 10, MIN_SLICE_NS);
		k++;
		i += 1 + w1;
	}
	*n = k;
	return 0;
}

/* Known answers: the worked examples of shared/facts/nvgpu-runlist.md (also runlist.rs tests). */
static int simgpu_selfcheck(void)
{
	static const u32 tsg5[4] = { 0x80030001, 0x00000002, 0x00000005, 0x00000000 };
	static const u32 ch17[4] = { 0x800002a0, 0x00000000, 0x23456011, 0x00000001 };
	static const u32 ch18[4] = { 0x800003a0, 0x00000000, 0x23457012, 0x00000001 };
	static const struct { u64 units; u32 timeout, scale; } ts[] = {
		{ 0, 0, 0 }, { 255, 255, 0 }, { 256, 128, 1 }, { 1024, 128, 3 },
		{ 50000, 195, 8 }, { 255ULL << 15, 255, 15 }, { U64_MAX, 255, 15 },
	};
	struct simgpu_channel_info c = {
		.chid = 17, .inst_addr = 0x123456000ULL, .userd_addr = 0x80000200ULL,
		.inst_aperture = SIMGPU_APERTURE_SYS_COH, .userd_aperture = SIMGPU_APERTURE_SYS_COH,
	};
	__le32 rl[3][ENTRY_WORDS];
	struct simgpu_rl_tsg out[1];
	u32 i, n, timeout, scale;

	simgpu_encode_tsg_entry(rl[0], 5, 1024, 2);
	simgpu_encode_channel_entry(rl[1], &c);
	c.chid = 18;
	c.inst_addr = 0x123457000ULL;
	c.userd_addr = 0x80000300ULL;
	simgpu_encode_channel_entry(rl[2], &c);
	for (i = 0; i < 4; i++) {
		if (le32_to_cpu(rl[0][i]) != tsg5[i] || le32_to_cpu(rl[1][i]) != ch17[i] ||
		    le32_to_cpu(rl[2][i]) != ch18[i])
			return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		simgpu_encode_timeslice(ts[i].units, &timeout, &scale);
		if (timeout != ts[i].timeout || scale != ts[i].scale)
			return -EINVAL;
	}
	/* The engine's decoder reads the example back (TSG 5 needs max_tsgs > 5 to be valid). */
	if (max_tsgs > 5 &&
	    (simgpu_decode_runlist(&rl[0][0], 3, out, 1, &n) || n != 1 || out[0].tsgid != 5 ||
	     out[0].slice_ns != 1024ULL * 1024))
		return -EINVAL;
	/* A channel entry where a TSG entry must be is rejected. */
	if (!simgpu_decode_runlist(&rl[1][0], 2, out, 1, &n))
		return -EINVAL;
	return 0;
}

/* ---- The engine (all under eng.lock) ---- */

static struct simgpu_tsg *eng_tsg(int id)
{
	return id >= 0 ? sg.tsgs[id] : NULL;
}

static struct simgpu_item *eng_head(struct simgpu_tsg *t)
{
	return t ? list_first_entry_or_null(&t->queue, struct simgpu_item, node) : NULL;
}

static int eng_index(const struct simgpu_rl_tsg *rl, u32 n, int id)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (rl[i].tsgid == id)
			return i;
	return -1;
}

static bool eng_stalled(u64 t)
{
	return eng.stall_until && t < eng.stall_until;
}

/* When the engine's next event is due (U64_MAX: none). */
static u64 eng_next_event(void)
{
	u64 t = eng.stall_until ? eng.stall_until : U64_MAX;
	struct simgpu_item *it;

	switch (eng.state) {
	case ENG_SWITCHING:
		return min(t, eng.switch_end);
	case ENG_RUNNING:
		it = eng_head(eng_tsg(eng.cur));
		if (!it)	/* cannot happen: RUNNING means cur has a head item */
			return eng.clock;
		return min3(t, eng.slice_end, eng.clock + it->remaining_ns);
	default:
		return t;
	}
}

/* Advance the model clock to @t, charging the running item. */
static void eng_elapse(u64 t)
{
	struct simgpu_item *it;

	if (t <= eng.clock)
		return;
	if (eng.state == ENG_RUNNING) {
		it = eng_head(eng_tsg(eng.cur));
		if (it)
			it->remaining_ns -= min(it->remaining_ns, t - eng.clock);
	}
	eng.clock = t;
}

/* Take the pending runlist (a scheduling point); false if none or stalled. */
static bool eng_take(u64 t)
{
	if (eng.pending < 0 || eng_stalled(t))
		return false;
	swap(eng.rl, eng.rl_next);
	swap(eng.rl_n, eng.rl_next_n);
	eng.active = eng.pending;
	eng.active_entries = eng.pending_entries;
	eng.pending = -1;
	eng.takes++;
	complete(&eng.taken);
	return true;
}

/* The current TSG's unfinished started item loses the engine. */
static void eng_preempt_cur(void)
{
	struct simgpu_item *it;

	if (eng.state != ENG_RUNNING)
		return;
	it = eng_head(eng_tsg(eng.cur));
	if (it && it->started && it->remaining_ns) {
		it->preemptions++;
		eng.preemptions++;
	}
}

/* cur's context is loaded: it runs a fresh slice from @t. */
static void eng_run(u64 t)
{
	struct simgpu_item *it = eng_head(eng_tsg(eng.cur));

	eng.state = ENG_RUNNING;
	eng.last_ctx = eng.cur;
	eng.slice_end = t + eng.slice_ns;
	if (it && !it->started) {
		it->started = true;
		it->start_ns = t;
	}
}

/* Round robin: the first listed TSG with work after TSG id @after (wrapping), -1 none. */
static int eng_pick(int after)
{
	u32 start = 0, k, i;

	if (after >= 0) {
		while (start < eng.rl_n && eng.rl[start].tsgid <= after)
			start++;
	}
	for (k = 0; k < eng.rl_n; k++) {
		i = (start + k) % eng.rl_n;
		if (eng_head(eng_tsg(eng.rl[i].tsgid)))
			return i;
	}
	return -1;
}

/* A scheduling point at @t: take a pending runlist, then keep cur or switch round robin. */
static void eng_sched(u64 t, bool slice_over)
{
	struct simgpu_tsg *c;
	struct simgpu_item *it;
	int i, cur_i;

	eng_take(t);
	c = eng_tsg(eng.cur);
	it = eng_head(c);
	cur_i = eng_index(eng.rl, eng.rl_n, eng.cur);
	if (it && cur_i >= 0 && !eng.held) {
		if (eng.state == ENG_SWITCHING)
			return;			/* still loading a listed TSG with work */
		if (eng.state == ENG_RUNNING && !slice_over) {
			if (!it->started) {	/* its next item starts at once */
				it->started = true;
				it->start_ns = t;
			}
			return;
		}
	}
	i = eng.held ? -1 : eng_pick(eng.cur >= 0 ? eng.cur : eng.last_ctx);
	if (i < 0) {
		eng_preempt_cur();
		if (eng.state == ENG_SWITCHING)
			eng.last_ctx = -1;	/* a half-loaded context */
		eng.state = ENG_IDLE;
		eng.cur = -1;
		return;
	}
	if (eng.rl[i].tsgid == eng.cur && eng.state == ENG_RUNNING) {
		eng.slice_ns = eng.rl[i].slice_ns;	/* alone with work: a fresh slice */
		eng_run(t);
		return;
	}
	eng_preempt_cur();
	if (eng.state == ENG_SWITCHING)
		eng.last_ctx = -1;
	eng.cur = eng.rl[i].tsgid;
	eng.slice_ns = eng.rl[i].slice_ns;
	if (eng.cur == eng.last_ctx) {
		eng_run(t);
		return;
	}
	eng.switches++;
	if (!theta_us) {
		eng_run(t);
		return;
	}
	eng.state = ENG_SWITCHING;
	eng.last_ctx = -1;
	eng.switch_end = t + (u64)theta_us * NSEC_PER_USEC;
}

/* A submitted runlist is a scheduling point at once if the engine is idle or cur is dropped. */
static bool eng_submit_is_point(void)
{
	return eng.state == ENG_IDLE || eng_index(eng.rl_next, eng.rl_next_n, eng.cur) < 0;
}

/* Handle the event due at @t. */
static void eng_step(u64 t)
{
	struct simgpu_item *it;

	eng_elapse(t);
	if (eng.stall_until && t >= eng.stall_until) {
		eng.stall_until = 0;
		if (eng.pending >= 0 && eng_submit_is_point()) {
			eng_sched(t, false);
			return;
		}
	}
	switch (eng.state) {
	case ENG_SWITCHING:
		if (t >= eng.switch_end) {
			eng_run(t);
			eng_sched(t, false);
		}
		break;
	case ENG_RUNNING:
		it = eng_head(eng_tsg(eng.cur));
		if (!it || !it->remaining_ns) {
			if (it) {
				it->finished = true;
				it->end_ns = t;
				list_move_tail(&it->node, &eng_tsg(eng.cur)->done);
				complete(&it->finished_cmp);
			}
			eng_sched(t, false);
		} else if (t >= eng.slice_end) {
			eng_sched(t, true);
		}
		break;
	default:
		break;
	}
}

/* Catch the model up with @now: every event due until then, in order, at its own time. */
static void eng_advance(u64 now)
{
	unsigned int n = 0;
	u64 t;

	for (;;) {
		t = eng_next_event();
		if (t > now)
			break;
		if (++n > ADVANCE_LIMIT) {
			pr_err_once("engine made no progress at %llu ns\n", now);
			break;
		}
		eng_step(max(t, eng.clock));
	}
	eng_elapse(now);
}

static void eng_arm(void)
{
	u64 t = eng_next_event();

	if (t != U64_MAX && !eng.stopped)
		hrtimer_start(&eng.timer, ns_to_ktime(t), HRTIMER_MODE_ABS_HARD);
}

static enum hrtimer_restart eng_timer_fn(struct hrtimer *timer)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	return HRTIMER_NORESTART;
}

/* ---- The driver: runlist building and submission (rl_lock) ---- */

static void simgpu_tsg_desc(const struct simgpu_tsg *t, struct gcaps_be_tsg *d)
{
	d->tsgid = t->id;
	d->tgid = t->tgid;
	d->owner_start = t->owner_start;
	d->timeslice_us = t->timeslice_us;
	d->num_channels = channels;
	d->flags = t->internal ? GCAPS_BE_TSG_ALWAYS : 0;
	d->reserved = 0;
}

/*
 * Build the runlist of every open TSG that gcaps lets on (all without gcaps, or while the
 * runlists are stock: the test knob's nvgpu-R36-with-a-GSP-user-domain) into buffer @b.
 */
static u32 simgpu_build(int b)
{
	__le32 *e = sg.buf[b];
	bool all = true;
	u32 id, n = 0, k;

	lockdep_assert_held(&sg.rl_lock);
	if (sg.calls && !sg.stock) {
		sg.calls->eligible(sg.be, &sg.elig);
		all = sg.elig.all;
	}
	for (id = 0; id < max_tsgs; id++) {
		struct simgpu_tsg *t = sg.tsgs[id];

		if (!t || test_bit(id, sg.excluded) || (!all && !test_bit(id, sg.elig.bits)))
			continue;
		if (n + 1 + channels > sg.buf_cap)	/* cannot happen: sized for every TSG */
			break;
		simgpu_encode_tsg_entry(e + (size_t)n * ENTRY_WORDS, id, t->timeslice_us, channels);
		for (k = 0; k < channels; k++)
			memcpy(e + (size_t)(n + 1 + k) * ENTRY_WORDS, t->ch_words[k],
			       sizeof(t->ch_words[k]));
		n += 1 + channels;
	}
	return n;
}

/* Submit buffer @b (@n entries) and wait until it is no longer pending. */
static int simgpu_submit_wait(int b, u32 n)
{
	unsigned long flags;
	int ret = 0;
	u64 now;

	raw_spin_lock_irqsave(&eng.lock, flags);
	now = ktime_get_ns();
	eng_advance(now);
	reinit_completion(&eng.taken);
	eng.submits++;
	eng.pending = b;
	eng.pending_entries = n;
	if (simgpu_decode_runlist(sg.buf[b], n, eng.rl_next, max_tsgs, &eng.rl_next_n)) {
		eng.decode_errors++;	/* the engine faults: it runs nothing from this runlist */
		eng.rl_next_n = 0;
	}
	if (!eng_stalled(now) && eng_submit_is_point())
		eng_sched(now, false);
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);

	if (wait_for_completion_timeout(&eng.taken, msecs_to_jiffies(submit_timeout_ms)))
		return 0;
	raw_spin_lock_irqsave(&eng.lock, flags);
	if (eng.pending >= 0) {
		eng.timeouts++;
		ret = -ETIMEDOUT;
	}
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	return ret;
}

/* Recovery: clear the engine's runlists (preempting whatever runs). */
static void simgpu_engine_clear(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	eng.pending = -1;
	eng.active = -1;
	eng.active_entries = 0;
	eng.rl_n = 0;
	eng.recoveries++;
	eng_sched(eng.clock, false);
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
}

/*
 * Rebuild the runlist into the free buffer, submit it and wait until it is taken. On a timeout
 * the recovery clears the engine and submits a fresh build once more; @tell_gcaps: report the
 * recovery to gcaps (driver-initiated paths; gcaps's own resubmit gets -ETIMEDOUT instead).
 */
static int simgpu_submit_locked(bool tell_gcaps)
{
	unsigned long flags;
	int b, ret;

	lockdep_assert_held(&sg.rl_lock);
	raw_spin_lock_irqsave(&eng.lock, flags);
	b = eng.active == 0 ? 1 : 0;	/* pending is -1 under rl_lock: only active is in use */
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	ret = simgpu_submit_wait(b, simgpu_build(b));
	if (ret != -ETIMEDOUT)
		return ret;
	pr_warn("runlist submit still pending after %u ms: recovery\n", submit_timeout_ms);
	simgpu_engine_clear();
	if (simgpu_submit_wait(0, simgpu_build(0)) == -ETIMEDOUT)
		simgpu_engine_clear();	/* still hung: leave it empty; the next submit retries */
	if (tell_gcaps && sg.calls)
		sg.calls->recovered(sg.be);
	return -ETIMEDOUT;
}

/* ---- Backend operations (called by gcaps holding its update lock) ---- */

static int simgpu_op_resubmit(void *drv)
{
	int ret;

	rt_mutex_lock(&sg.rl_lock);
	ret = simgpu_submit_locked(false);
	rt_mutex_unlock(&sg.rl_lock);
	return ret;
}

static void simgpu_op_detach(void *drv)
{
	rt_mutex_lock(&sg.rl_lock);
	sg.be = NULL;
	sg.calls = NULL;
	simgpu_submit_locked(false);	/* stock: every TSG */
	rt_mutex_unlock(&sg.rl_lock);
	complete_all(&sg.detached);
	pr_info("detached from gcaps\n");
}

static const struct gcaps_backend_ops simgpu_ops = {
	.name = "simgpu",
	.abi = GCAPS_BACKEND_ABI,
	.detail = "emulated gv11b",
	.runlists = BIT(0),		/* one engine, one runlist */
	.resubmit = simgpu_op_resubmit,
	.detach = simgpu_op_detach,
};

/* Bind to gcaps if it is loaded and we are not bound (init, and every module coming live). */
static void simgpu_bind(void)
{
	typeof(&gcaps_backend_register) reg;
	const struct gcaps_be_calls *calls;
	struct gcaps_backend *be;
	struct gcaps_be_tsg d;
	bool bound;
	u32 id;

	mutex_lock(&sg.bind_lock);
	rt_mutex_lock(&sg.rl_lock);
	bound = sg.be;
	rt_mutex_unlock(&sg.rl_lock);
	if (bound || READ_ONCE(sg.stopping))
		goto out;
	/* Holds a reference on gcaps until the TSGs are reported: it cannot unload meanwhile. */
	reg = symbol_get(gcaps_backend_register);
	if (!reg)
		goto out;
	be = reg(&simgpu_ops, &sg, &calls);
	if (IS_ERR(be)) {
		pr_warn("gcaps_backend_register failed: %ld\n", PTR_ERR(be));
		goto put;
	}
	rt_mutex_lock(&sg.rl_lock);
	reinit_completion(&sg.detached);
	sg.be = be;
	sg.calls = calls;
	for (id = 0; id < max_tsgs; id++) {
		if (sg.tsgs[id]) {
			simgpu_tsg_desc(sg.tsgs[id], &d);
			calls->tsg_update(be, &d);
		}
	}
	/* The state is per binding (off at registration): report stock runlists again. */
	if (sg.stock)
		calls->stock(be, true);
	/* A resubmit gcaps asked for before sg.calls was set listed every TSG: rebuild now. */
	simgpu_submit_locked(true);
	rt_mutex_unlock(&sg.rl_lock);
	pr_info("bound to gcaps\n");
put:
	symbol_put(gcaps_backend_register);
out:
	mutex_unlock(&sg.bind_lock);
}

/* Module exit: unbind through calls->unregister, or wait for a detach already under way. */
static void simgpu_unbind(void)
{
	const struct gcaps_be_calls *calls;
	struct gcaps_backend *be;
	bool pinned;

	mutex_lock(&sg.bind_lock);
	rt_mutex_lock(&sg.rl_lock);
	be = sg.be;
	calls = sg.calls;
	/* While gcaps is live and pinned it cannot detach us; if it is going, it will. */
	pinned = be && symbol_get(gcaps_backend_register);
	rt_mutex_unlock(&sg.rl_lock);
	if (pinned) {
		calls->unregister(be);
		rt_mutex_lock(&sg.rl_lock);
		sg.be = NULL;
		sg.calls = NULL;
		rt_mutex_unlock(&sg.rl_lock);
		symbol_put(gcaps_backend_register);
		pr_info("unregistered from gcaps\n");
	} else if (be) {
		wait_for_completion(&sg.detached);
	}
	mutex_unlock(&sg.bind_lock);
}

static int simgpu_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	if (action == MODULE_STATE_LIVE)
		simgpu_bind();
	return NOTIFY_DONE;
}

/* ---- Random driver-initiated rebuilds ---- */

static unsigned long simgpu_rebuild_delay(void)
{
	u64 us = (u64)rebuild_interval_ms * 2000;	/* uniform in [0, 2 * mean] */

	return usecs_to_jiffies(prandom_u32_state(&sg.rnd) % (us + 1));
}

static void simgpu_rebuild_fn(struct work_struct *work)
{
	unsigned long flags;

	rt_mutex_lock(&sg.rl_lock);
	simgpu_submit_locked(true);
	rt_mutex_unlock(&sg.rl_lock);
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng.random_rebuilds++;
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	if (!READ_ONCE(sg.stopping))
		schedule_delayed_work(&sg.rebuild_work, simgpu_rebuild_delay());
}

/* ---- /dev/gcaps_simgpu ---- */

/* TSG @id's channels: chid, made-up addresses, entries encoded once. */
static void simgpu_tsg_channels(struct simgpu_tsg *t, u32 id)
{
	u32 k;

	t->id = id;
	for (k = 0; k < channels; k++) {
		struct simgpu_channel_info *c = &t->ch[k];

		c->chid = id * channels + k;
		c->runqueue = 0;
		c->inst_addr = INST_BASE + (u64)c->chid * SZ_4K;
		c->userd_addr = USERD_BASE + (u64)c->chid * 512;
		c->inst_aperture = SIMGPU_APERTURE_SYS_COH;
		c->userd_aperture = SIMGPU_APERTURE_SYS_COH;
		simgpu_encode_channel_entry(t->ch_words[k], c);
	}
}

/*
 * Queue work item @it (exec_ns and remaining_ns set) on TSG @t; -EBUSY if @t has too many.
 * Its number and submit time are returned in @seqno/@submit_ns (read under eng.lock: once
 * queued, another thread may collect and free it).
 */
static int simgpu_queue(struct simgpu_tsg *t, struct simgpu_item *it, u64 *seqno, u64 *submit_ns)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&eng.lock, flags);
	if (t->nitems >= SIMGPU_MAX_ITEMS) {
		raw_spin_unlock_irqrestore(&eng.lock, flags);
		return -EBUSY;
	}
	it->seqno = ++t->last_seqno;
	it->submit_ns = ktime_get_ns();
	eng_advance(it->submit_ns);
	list_add_tail(&it->node, &t->queue);
	t->nitems++;
	if (eng.state == ENG_IDLE)
		eng_sched(eng.clock, false);
	eng_arm();
	*seqno = it->seqno;
	*submit_ns = it->submit_ns;
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	return 0;
}

/*
 * The context setup of an open (setup_work_us > 0): setup_work_us of GPU work on the driver's
 * own TSG, waited for (no lock held), as nvgpu waits for the work it submits on its own
 * channels while it sets up a context. The internal TSG is flagged driver-internal
 * (GCAPS_BE_TSG_ALWAYS), so gcaps keeps it eligible during real-time segments; without the
 * flag the wait lasts until no real-time segment is open. Bounded: after SETUP_TIMEOUT_MS the
 * item is taken back and the open fails with -ETIMEDOUT.
 */
static int simgpu_setup_work(void)
{
	struct simgpu_tsg *t = sg.internal;
	struct simgpu_item *it;
	unsigned long flags;
	u64 seqno, submit_ns;
	int ret;

	if (!t)
		return 0;
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return -ENOMEM;
	init_completion(&it->finished_cmp);
	it->exec_ns = (u64)setup_work_us * NSEC_PER_USEC;
	it->remaining_ns = it->exec_ns;
	ret = simgpu_queue(t, it, &seqno, &submit_ns);
	if (ret) {
		kfree(it);
		return ret;
	}
	wait_for_completion_timeout(&it->finished_cmp, msecs_to_jiffies(SETUP_TIMEOUT_MS));
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	if (!it->finished) {
		bool head = eng_head(t) == it;

		ret = -ETIMEDOUT;
		if (head && eng.cur == (int)t->id)
			eng_preempt_cur();
		list_del(&it->node);
		t->nitems--;
		if (head && eng.cur == (int)t->id)
			eng_sched(eng.clock, true);
		eng_arm();
	} else {
		list_del(&it->node);
		t->nitems--;
	}
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	kfree(it);
	if (ret)
		pr_warn_ratelimited("context setup work did not run within %u ms (is the driver-internal TSG %u on the runlist?)\n",
				    SETUP_TIMEOUT_MS, t->id);
	return ret;
}

static int simgpu_open(struct inode *inode, struct file *file)
{
	struct simgpu_tsg *t;
	struct gcaps_be_tsg d;
	unsigned long flags;
	int id;

	id = simgpu_setup_work();
	if (id)
		return id;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	INIT_LIST_HEAD(&t->queue);
	INIT_LIST_HEAD(&t->done);
	t->tgid = current->tgid;
	t->tgid_pid = get_task_pid(current, PIDTYPE_TGID);
	t->owner_start = current->group_leader->start_boottime;
	t->timeslice_us = timeslice_us;

	rt_mutex_lock(&sg.rl_lock);
	id = ida_alloc_range(&sg.ids, sg.next_id, max_tsgs - 1, GFP_KERNEL);
	if (id == -ENOSPC && sg.next_id)
		id = ida_alloc_range(&sg.ids, 0, max_tsgs - 1, GFP_KERNEL);
	if (id < 0) {
		rt_mutex_unlock(&sg.rl_lock);
		put_pid(t->tgid_pid);
		kfree(t);
		return id;
	}
	sg.next_id = (id + 1) % max_tsgs;
	simgpu_tsg_channels(t, id);
	raw_spin_lock_irqsave(&eng.lock, flags);
	sg.tsgs[id] = t;
	sg.num_tsgs++;
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	if (sg.calls) {
		simgpu_tsg_desc(t, &d);
		sg.calls->tsg_update(sg.be, &d);
	}
	simgpu_submit_locked(true);
	rt_mutex_unlock(&sg.rl_lock);
	file->private_data = t;
	return 0;
}

static int simgpu_release(struct inode *inode, struct file *file)
{
	struct simgpu_tsg *t = file->private_data;
	struct simgpu_item *it, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	rt_mutex_lock(&sg.rl_lock);
	if (sg.calls)
		sg.calls->tsg_release(sg.be, t->id);
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	list_splice_init(&t->queue, &gone);
	list_splice_init(&t->done, &gone);
	t->nitems = 0;
	sg.tsgs[t->id] = NULL;
	sg.num_tsgs--;
	if (eng.last_ctx == t->id)
		eng.last_ctx = -1;
	if (eng.cur == t->id) {
		/* Its items are gone: the engine moves on (nothing to count as preempted). */
		eng_sched(eng.clock, true);
	}
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	clear_bit(t->id, sg.excluded);
	simgpu_submit_locked(true);
	ida_free(&sg.ids, t->id);
	rt_mutex_unlock(&sg.rl_lock);

	list_for_each_entry_safe(it, tmp, &gone, node)
		kfree(it);
	put_pid(t->tgid_pid);
	kfree(t);
	return 0;
}

/* Copy in a size-first argument struct (the rules of gcaps_simgpu.h). */
static int simgpu_copy_in(void *karg, size_t ksize, size_t ver0, unsigned long uarg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize < ver0)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, (const void __user *)uarg, *usize);
}

static int simgpu_copy_out(unsigned long uarg, const void *karg, size_t ksize, u32 usize)
{
	return copy_to_user((void __user *)uarg, karg, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

static long simgpu_ioc_info(struct simgpu_tsg *t, unsigned long uarg)
{
	struct simgpu_tsg_info a;
	u32 usize;
	int ret;

	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TSG_INFO_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	a.tsgid = t->id;
	a.owner_tgid = pid_vnr(t->tgid_pid);
	a.owner_start_ns = t->owner_start;
	rt_mutex_lock(&sg.rl_lock);
	a.timeslice_us = t->timeslice_us;
	rt_mutex_unlock(&sg.rl_lock);
	a.num_channels = channels;
	memset(a.channels, 0, sizeof(a.channels));
	memcpy(a.channels, t->ch, sizeof(t->ch[0]) * channels);
	return simgpu_copy_out(uarg, &a, sizeof(a), usize);
}

static long simgpu_ioc_submit(struct simgpu_tsg *t, unsigned long uarg)
{
	struct simgpu_submit a;
	struct simgpu_item *it;
	u32 usize;
	int ret;

	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_SUBMIT_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags || !a.exec_ns || a.exec_ns > SIMGPU_MAX_EXEC_NS)
		return -EINVAL;
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return -ENOMEM;
	init_completion(&it->finished_cmp);
	it->exec_ns = a.exec_ns;
	it->remaining_ns = a.exec_ns;

	ret = simgpu_queue(t, it, &a.seqno, &a.submit_ns);
	if (ret) {
		kfree(it);
		return ret;
	}
	return simgpu_copy_out(uarg, &a, sizeof(a), usize);
}

static struct simgpu_item *simgpu_find(struct simgpu_tsg *t, u64 seqno)
{
	struct simgpu_item *it;

	list_for_each_entry(it, &t->done, node)
		if (it->seqno == seqno)
			return it;
	list_for_each_entry(it, &t->queue, node)
		if (it->seqno == seqno)
			return it;
	return NULL;
}

/* Take a finished item off its TSG (eng.lock held); the caller frees it. */
static void simgpu_collect(struct simgpu_tsg *t, struct simgpu_item *it, struct simgpu_completion *c)
{
	list_del(&it->node);
	t->nitems--;
	c->seqno = it->seqno;
	c->exec_ns = it->exec_ns;
	c->submit_ns = it->submit_ns;
	c->start_ns = it->start_ns;
	c->end_ns = it->end_ns;
	c->preemptions = it->preemptions;
	c->reserved = 0;
}

static long simgpu_ioc_wait(struct simgpu_tsg *t, unsigned long uarg)
{
	struct simgpu_item *it;
	struct simgpu_wait a;
	unsigned long flags;
	long left;
	u32 usize;
	int ret;

	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_WAIT_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags & ~SIMGPU_WAIT_POLL)
		return -EINVAL;

	raw_spin_lock_irqsave(&eng.lock, flags);
	it = simgpu_find(t, a.seqno);
	if (!it || it->waited) {
		raw_spin_unlock_irqrestore(&eng.lock, flags);
		return it ? -EBUSY : -ENOENT;
	}
	if (!it->finished && (a.flags & SIMGPU_WAIT_POLL)) {
		raw_spin_unlock_irqrestore(&eng.lock, flags);
		return -EAGAIN;
	}
	if (!it->finished) {
		/*
		 * Self-suspension. The item stays ours: `waited` keeps other collectors off and
		 * release cannot run while this ioctl holds the file.
		 */
		it->waited = true;
		raw_spin_unlock_irqrestore(&eng.lock, flags);
		left = wait_for_completion_interruptible_timeout(&it->finished_cmp,
				a.timeout_ns ? nsecs_to_jiffies(a.timeout_ns) + 1 : MAX_SCHEDULE_TIMEOUT);
		raw_spin_lock_irqsave(&eng.lock, flags);
		it->waited = false;
		if (!it->finished) {
			raw_spin_unlock_irqrestore(&eng.lock, flags);
			return left == 0 ? -ETIMEDOUT : -EINTR;
		}
	}
	simgpu_collect(t, it, &a.done);
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	kfree(it);
	return simgpu_copy_out(uarg, &a, sizeof(a), usize);
}

static long simgpu_ioc_timeslice(struct simgpu_tsg *t, unsigned long uarg)
{
	struct simgpu_timeslice a;
	struct gcaps_be_tsg d;
	u32 usize;
	int ret;

	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TIMESLICE_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.timeslice_us < SIMGPU_TIMESLICE_MIN_US || a.timeslice_us > SIMGPU_TIMESLICE_MAX_US)
		return -EINVAL;
	rt_mutex_lock(&sg.rl_lock);
	t->timeslice_us = a.timeslice_us;
	if (sg.calls) {
		simgpu_tsg_desc(t, &d);
		sg.calls->tsg_update(sg.be, &d);
	}
	simgpu_submit_locked(true);
	rt_mutex_unlock(&sg.rl_lock);
	return 0;
}

static long simgpu_ioc_runlist(unsigned long uarg)
{
	struct simgpu_runlist a;
	unsigned long flags;
	u32 usize, words = 0;
	__le32 *copy;
	int ret;

	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_RUNLIST_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	copy = kvmalloc_array(sg.buf_cap, ENTRY_WORDS * sizeof(__le32), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	/* Under rl_lock nothing is pending, so the active buffer cannot change or be written. */
	rt_mutex_lock(&sg.rl_lock);
	a.bound = !!sg.calls;
	raw_spin_lock_irqsave(&eng.lock, flags);
	a.entries = eng.active >= 0 ? eng.active_entries : 0;
	a.active_buffer = eng.active;
	a.submits = eng.submits;
	a.takes = eng.takes;
	a.timeouts = eng.timeouts;
	a.recoveries = eng.recoveries;
	a.random_rebuilds = eng.random_rebuilds;
	a.switches = eng.switches;
	a.preemptions = eng.preemptions;
	a.decode_errors = eng.decode_errors;
	a.num_tsgs = sg.num_tsgs;
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	if (a.entries)
		memcpy(copy, sg.buf[a.active_buffer], (size_t)a.entries * ENTRY_WORDS * sizeof(__le32));
	rt_mutex_unlock(&sg.rl_lock);
	a.theta_us = theta_us;
	words = min_t(u32, a.words_cap, a.entries * ENTRY_WORDS);
	ret = 0;
	if (words && copy_to_user(u64_to_user_ptr(a.words_ptr), copy, words * sizeof(__le32)))
		ret = -EFAULT;
	kvfree(copy);
	return ret ? ret : simgpu_copy_out(uarg, &a, sizeof(a), usize);
}

static long simgpu_ioc_exclude(unsigned long uarg)
{
	struct simgpu_test_exclude a;
	u32 usize;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TEST_EXCLUDE_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.tsgid >= max_tsgs || a.exclude > 1 || a.reserved)
		return -EINVAL;
	rt_mutex_lock(&sg.rl_lock);
	assign_bit(a.tsgid, sg.excluded, a.exclude);
	simgpu_submit_locked(true);
	rt_mutex_unlock(&sg.rl_lock);
	return 0;
}

static long simgpu_ioc_stall(unsigned long uarg)
{
	struct simgpu_test_stall a;
	unsigned long flags;
	u32 usize;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TEST_STALL_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.stall_ms > 10000)
		return -EINVAL;
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	eng.stall_until = a.stall_ms ? eng.clock + (u64)a.stall_ms * NSEC_PER_MSEC : 0;
	/* 0 ends a stall now: a pending runlist is taken as when the stall runs out */
	if (!a.stall_ms && eng.pending >= 0 && eng_submit_is_point())
		eng_sched(eng.clock, false);
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	return 0;
}

static long simgpu_ioc_hold(unsigned long uarg)
{
	struct simgpu_test_hold a;
	unsigned long flags;
	u32 usize;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TEST_HOLD_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.hold > 1)
		return -EINVAL;
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	eng.held = a.hold;
	eng_sched(eng.clock, false);	/* held: go idle at once; released: pick at once */
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	return 0;
}

static long simgpu_ioc_internal(unsigned long uarg)
{
	struct simgpu_test_internal a;
	struct gcaps_be_tsg d;
	struct simgpu_tsg *t;
	u32 usize;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TEST_INTERNAL_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.tsgid >= max_tsgs || a.internal > 1 || a.reserved)
		return -EINVAL;
	rt_mutex_lock(&sg.rl_lock);
	t = sg.tsgs[a.tsgid];
	if (!t) {
		rt_mutex_unlock(&sg.rl_lock);
		return -ENOENT;
	}
	t->internal = a.internal;
	if (sg.calls) {
		simgpu_tsg_desc(t, &d);
		sg.calls->tsg_update(sg.be, &d);
	}
	rt_mutex_unlock(&sg.rl_lock);
	return 0;
}

static long simgpu_ioc_stock(unsigned long uarg)
{
	struct simgpu_test_stock a;
	u32 usize;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_TEST_STOCK_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.stock > 1)
		return -EINVAL;
	rt_mutex_lock(&sg.rl_lock);
	sg.stock = a.stock;
	/* As nvgpu's R36 builder: told under the runlist lock, on each change. */
	if (sg.calls)
		sg.calls->stock(sg.be, sg.stock);
	simgpu_submit_locked(true);
	rt_mutex_unlock(&sg.rl_lock);
	return 0;
}

static long simgpu_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	struct simgpu_tsg *t = file->private_data;

	/* Dispatch on type and number; the size is the struct's own first field. */
	if (_IOC_TYPE(cmd) != SIMGPU_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(SIMGPU_IOC_INFO):
		return simgpu_ioc_info(t, uarg);
	case _IOC_NR(SIMGPU_IOC_SUBMIT):
		return simgpu_ioc_submit(t, uarg);
	case _IOC_NR(SIMGPU_IOC_WAIT):
		return simgpu_ioc_wait(t, uarg);
	case _IOC_NR(SIMGPU_IOC_SET_TIMESLICE):
		return simgpu_ioc_timeslice(t, uarg);
	case _IOC_NR(SIMGPU_IOC_RUNLIST):
		return simgpu_ioc_runlist(uarg);
	default:
		return -ENOTTY;
	}
}

/* /dev/gcaps_simgpu_ctl: observation and test knobs without a TSG of one's own. */
static long simgpu_ctl_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	if (_IOC_TYPE(cmd) != SIMGPU_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(SIMGPU_IOC_RUNLIST):
		return simgpu_ioc_runlist(uarg);
	case _IOC_NR(SIMGPU_IOC_TEST_EXCLUDE):
		return simgpu_ioc_exclude(uarg);
	case _IOC_NR(SIMGPU_IOC_TEST_STALL):
		return simgpu_ioc_stall(uarg);
	case _IOC_NR(SIMGPU_IOC_TEST_HOLD):
		return simgpu_ioc_hold(uarg);
	case _IOC_NR(SIMGPU_IOC_TEST_INTERNAL):
		return simgpu_ioc_internal(uarg);
	case _IOC_NR(SIMGPU_IOC_TEST_STOCK):
		return simgpu_ioc_stock(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations simgpu_fops = {
	.owner = THIS_MODULE,	/* open files pin the module: rmmod is refused while TSGs exist */
	.open = simgpu_open,
	.release = simgpu_release,
	.unlocked_ioctl = simgpu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static const struct file_operations simgpu_ctl_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = simgpu_ctl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice simgpu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = SIMGPU_DEVICE_NAME,
	.fops = &simgpu_fops,
	.mode = 0666,
};

static struct miscdevice simgpu_ctl_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = SIMGPU_CTL_DEVICE_NAME,
	.fops = &simgpu_ctl_fops,
	.mode = 0600,
};

/* ---- Module init and exit ---- */

static int simgpu_check_params(void)
{
	if (timeslice_us < SIMGPU_TIMESLICE_MIN_US || timeslice_us > SIMGPU_TIMESLICE_MAX_US ||
	    theta_us > 10000 || channels < 1 || channels > SIMGPU_MAX_CHANNELS ||
	    max_tsgs < 1 || max_tsgs > GCAPS_BE_MAX_TSGS || max_tsgs * channels > HW_ID_MASK + 1 ||
	    submit_timeout_ms < 60 || submit_timeout_ms > 10000 || rebuild_interval_ms > 60000 ||
	    setup_work_us > 100000) {
		pr_err("bad parameters: timeslice_us %u (1000..50000), theta_us %u (0..10000), channels %u (1..8), max_tsgs %u (1..1024, max_tsgs * channels <= 4096), submit_timeout_ms %u (60..10000), rebuild_interval_ms %u (0..60000), setup_work_us %u (0..100000)\n",
		       timeslice_us, theta_us, channels, max_tsgs, submit_timeout_ms,
		       rebuild_interval_ms, setup_work_us);
		return -EINVAL;
	}
	return 0;
}

/*
 * The driver's own TSG (setup_work_us > 0), made at load before anything can see the table:
 * no process owns it (tgid 0), it is flagged driver-internal and reported to gcaps like every
 * TSG when the driver binds.
 */
static int simgpu_internal_create(void)
{
	struct simgpu_tsg *t;
	int id;

	if (!setup_work_us)
		return 0;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	INIT_LIST_HEAD(&t->queue);
	INIT_LIST_HEAD(&t->done);
	t->timeslice_us = timeslice_us;
	t->internal = true;
	id = ida_alloc_range(&sg.ids, 0, max_tsgs - 1, GFP_KERNEL);
	if (id < 0) {
		kfree(t);
		return id;
	}
	simgpu_tsg_channels(t, id);
	sg.next_id = (id + 1) % max_tsgs;
	sg.tsgs[id] = t;
	sg.num_tsgs = 1;
	sg.internal = t;
	return 0;
}

/* Module exit or a failed init: nothing runs any more (no open, no engine timer). */
static void simgpu_internal_free(void)
{
	struct simgpu_tsg *t = sg.internal;

	if (!t)
		return;
	sg.tsgs[t->id] = NULL;
	sg.num_tsgs--;
	ida_free(&sg.ids, t->id);
	sg.internal = NULL;
	kfree(t);
}

static void simgpu_free(void)
{
	kvfree(sg.buf[0]);
	kvfree(sg.buf[1]);
	kfree(eng.rl);
	kfree(eng.rl_next);
	kfree(sg.tsgs);
	bitmap_free(sg.excluded);
}

static int __init simgpu_init(void)
{
	int ret;

	ret = simgpu_check_params();
	if (ret)
		return ret;
	if (simgpu_selfcheck()) {
		pr_err("runlist encoder known-answer check failed\n");
		return -EINVAL;
	}
	mutex_init(&sg.bind_lock);
	rt_mutex_init(&sg.rl_lock);
	init_completion(&sg.detached);
	ida_init(&sg.ids);
	INIT_DELAYED_WORK(&sg.rebuild_work, simgpu_rebuild_fn);
	prandom_seed_state(&sg.rnd, rebuild_seed);
	sg.buf_cap = max_tsgs * (1 + channels);
	sg.buf[0] = kvcalloc(sg.buf_cap, ENTRY_WORDS * sizeof(__le32), GFP_KERNEL);
	sg.buf[1] = kvcalloc(sg.buf_cap, ENTRY_WORDS * sizeof(__le32), GFP_KERNEL);
	sg.tsgs = kcalloc(max_tsgs, sizeof(*sg.tsgs), GFP_KERNEL);
	sg.excluded = bitmap_zalloc(max_tsgs, GFP_KERNEL);
	eng.rl = kcalloc(max_tsgs, sizeof(*eng.rl), GFP_KERNEL);
	eng.rl_next = kcalloc(max_tsgs, sizeof(*eng.rl_next), GFP_KERNEL);
	if (!sg.buf[0] || !sg.buf[1] || !sg.tsgs || !sg.excluded || !eng.rl || !eng.rl_next) {
		simgpu_free();
		return -ENOMEM;
	}

	raw_spin_lock_init(&eng.lock);
	hrtimer_init(&eng.timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	eng.timer.function = eng_timer_fn;
	init_completion(&eng.taken);
	eng.clock = ktime_get_ns();
	eng.active = -1;
	eng.pending = -1;
	eng.cur = -1;
	eng.last_ctx = -1;
	eng.state = ENG_IDLE;
	ret = simgpu_internal_create();
	if (ret)
		goto err_free;

	ret = misc_register(&simgpu_misc);
	if (ret)
		goto err_free;
	ret = misc_register(&simgpu_ctl_misc);
	if (ret)
		goto err_misc;
	sg.module_nb.notifier_call = simgpu_module_notify;
	ret = register_module_notifier(&sg.module_nb);
	if (ret)
		goto err_ctl;
	simgpu_bind();
	if (rebuild_interval_ms)
		schedule_delayed_work(&sg.rebuild_work, simgpu_rebuild_delay());
	pr_info("emulated GPU ready: timeslice %u us, theta %u us, %u channels/TSG, %u TSGs, runlist encoder known answers ok\n",
		timeslice_us, theta_us, channels, max_tsgs);
	return 0;

err_ctl:
	misc_deregister(&simgpu_ctl_misc);
err_misc:
	misc_deregister(&simgpu_misc);
err_free:
	simgpu_internal_free();
	simgpu_free();
	return ret;
}

static void __exit simgpu_exit(void)
{
	unsigned long flags;

	unregister_module_notifier(&sg.module_nb);
	WRITE_ONCE(sg.stopping, true);
	cancel_delayed_work_sync(&sg.rebuild_work);
	simgpu_unbind();
	misc_deregister(&simgpu_ctl_misc);
	misc_deregister(&simgpu_misc);
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng.stopped = true;
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	hrtimer_cancel(&eng.timer);
	simgpu_internal_free();
	ida_destroy(&sg.ids);
	simgpu_free();
}

module_init(simgpu_init);
module_exit(simgpu_exit);
MODULE_DESCRIPTION("gcaps emulated Tegra GPU (runlist engine) for tests");
MODULE_LICENSE("GPL");
