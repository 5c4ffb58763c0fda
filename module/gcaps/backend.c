// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps's half of the backend contract (module/include/gcaps_backend.h): the published
 * eligible snapshot (a seqcount) and the TSG ids released since gcaps last applied them, the
 * per-TSG event table (a raw spinlock) and the work item that applies it, the binding of one
 * backend (gcaps_glue_be_*), gcaps_backend_register() with its table and string checks, and
 * the calls table it hands out. The device (device.rs) drives it through gcaps_glue.h; it
 * calls back into the device with gcaps_rust_bind/unbind/work.
 *
 * Written only against the primitives backend_prims.h lists, so that the contract host
 * (tests/contract/host) compiles this same file in a user process against a shim of them:
 * the contract suite then runs gcaps.ko's own code. No policy logic lives here.
 */
#include "backend_prims.h"
#include "../include/gcaps_backend.h"
#include "../../uapi/linux/gcaps.h"
#include "gcaps_glue.h"
#include "backend.h"

/* The device's state (gcaps_backend_start() to _stop()): NULL while gcaps is not loaded. */
static void *gcaps_ctx;
/* The eligibility mechanism gcaps was loaded with (GCAPS_BE_MECH_*), set by _start(). */
static u32 gcaps_mech = GCAPS_BE_MECH_RELOAD;

void *gcaps_backend_ctx(void)
{
	return READ_ONCE(gcaps_ctx);
}

/* ------------------------------------------------------------------ published decision */

/*
 * The eligible snapshot the driver reads under its runlist lock (calls->eligible()); its
 * `gate` is the mechanism's, written once by gcaps_backend_start(). Written
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
	gcaps_assert_update_lock_held();
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

	gcaps_assert_update_lock_held();
	raw_spin_lock_irqsave(&gcaps_snap_wlock, flags);
	for (i = 0; i < ARRAY_SIZE(gcaps_snap.bits); i++)
		words[i] = gcaps_snap_released[i];
	bitmap_zero(gcaps_snap_released, GCAPS_BE_MAX_TSGS);
	raw_spin_unlock_irqrestore(&gcaps_snap_wlock, flags);
}

void gcaps_backend_snapshot(struct gcaps_be_eligible *out)
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

/* For the device and the files: something is left for the work item (any context). */
void gcaps_glue_work_kick(void)
{
	mod_delayed_work(system_highpri_wq, &gcaps_work, 0);
}

static void gcaps_ev_put(u32 tsgid, const struct gcaps_be_tsg *tsg, bool present)
{
	unsigned long flags;

	if (tsgid >= GCAPS_BE_MAX_TSGS) {
		gcaps_be_misuse("backend reported TSG id %u >= %u, ignored", tsgid,
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
	gcaps_glue_work_kick();
}

bool gcaps_glue_ev_next(struct gcaps_ev *out)
{
	unsigned long flags;
	unsigned long t;
	struct gcaps_ev_slot *s;

	gcaps_assert_update_lock_held();
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
	gcaps_assert_update_lock_held();
	return xchg(&gcaps_ev_recovered, false);
}

bool gcaps_backend_events_pending(void)
{
	return !bitmap_empty(gcaps_ev_dirty, GCAPS_BE_MAX_TSGS) || READ_ONCE(gcaps_ev_recovered);
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

/*
 * The handle of the bound backend; ops != NULL iff bound. Written under the update lock
 * (WRITE_ONCE), read without it by the calls' checks.
 */
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
	gcaps_assert_update_lock_held();
	if (gcaps_be.ops)
		return -EBUSY;
	gcaps_ev_clear();
	WRITE_ONCE(gcaps_be_stock_on, false);
	gcaps_be.drv = drv;
	WRITE_ONCE(gcaps_be.ops, ops);
	return 0;
}

/* The driver unbinds (calls->unregister): forget it. Returns whether it was bound. */
bool gcaps_glue_be_forget(void)
{
	gcaps_assert_update_lock_held();
	if (!gcaps_be.ops)
		return false;
	WRITE_ONCE(gcaps_be.ops, NULL);
	gcaps_be.drv = NULL;
	WRITE_ONCE(gcaps_be_stock_on, false);
	gcaps_ev_clear();
	return true;
}

/* gcaps unloads: tell the driver (ops->detach), then forget it. Returns whether it was bound. */
bool gcaps_glue_be_detach(void)
{
	gcaps_assert_update_lock_held();
	if (!gcaps_be.ops)
		return false;
	gcaps_be.ops->detach(gcaps_be.drv);
	return gcaps_glue_be_forget();
}

/*
 * Has the bound driver apply the published decision with the loaded mechanism: RELOAD
 * ops->resubmit (returns GCAPS_UPDATE_SUBMIT), GATE ops->gate (GCAPS_UPDATE_PREEMPT or
 * GCAPS_UPDATE_HANDOVER, as the driver reports what it did); or -errno.
 */
int gcaps_glue_be_apply(void)
{
	int ret;

	gcaps_assert_update_lock_held();
	if (!gcaps_be.ops)
		return -ENODEV;
	/* The fast path never gets here (its events keep the decision); if it did, don't sleep. */
	if (gcaps_may_not_sleep())
		return -EAGAIN;
	if (gcaps_mech == GCAPS_BE_MECH_RELOAD) {
		ret = gcaps_be.ops->resubmit(gcaps_be.drv);
		return ret < 0 ? ret : GCAPS_UPDATE_SUBMIT;
	}
	ret = gcaps_be.ops->gate(gcaps_be.drv);
	if (ret < 0)
		return ret;
	if (ret == GCAPS_BE_GATE_PREEMPTED)
		return GCAPS_UPDATE_PREEMPT;
	if (ret != GCAPS_BE_GATE_HANDOVER)
		gcaps_be_misuse("backend contract violation: gate() returned %d", ret);
	return GCAPS_UPDATE_HANDOVER;
}

u32 gcaps_glue_be_info(char *name, size_t name_len, char *detail, size_t detail_len,
		       u32 *runlists, u32 *flags)
{
	gcaps_assert_update_lock_held();
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
 * Whether a call through the table comes with the handle gcaps handed out while it is bound.
 * Otherwise the driver breaks the contract (a call after unregister or detach, or a handle of
 * its own): one warning, and the call does nothing.
 */
static bool gcaps_be_live(struct gcaps_backend *be, const char *what)
{
	if (be != &gcaps_be) {
		gcaps_be_misuse("backend contract violation: %s() with a handle gcaps did not hand out",
				what);
		return false;
	}
	if (!READ_ONCE(gcaps_be.ops)) {
		gcaps_be_misuse("backend contract violation: %s() while no backend is bound", what);
		return false;
	}
	return true;
}

static void gcaps_be_tsg_update(struct gcaps_backend *be, const struct gcaps_be_tsg *tsg)
{
	if (!gcaps_be_live(be, "tsg_update"))
		return;
	if (!tsg) {
		gcaps_be_misuse("backend contract violation: tsg_update() with a NULL TSG");
		return;
	}
	gcaps_ev_put(tsg->tsgid, tsg, true);
}

static void gcaps_be_tsg_release(struct gcaps_backend *be, u32 tsgid)
{
	if (!gcaps_be_live(be, "tsg_release"))
		return;
	/* The event first, then the mark (see gcaps_glue_take_released()). */
	gcaps_ev_put(tsgid, NULL, false);
	if (tsgid < GCAPS_BE_MAX_TSGS)
		gcaps_snap_forget_tsg(tsgid);
}

static void gcaps_be_recovered(struct gcaps_backend *be)
{
	if (!gcaps_be_live(be, "recovered"))
		return;
	WRITE_ONCE(gcaps_ev_recovered, true);
	gcaps_glue_work_kick();
}

/* Copies the snapshot whatever the handle (the check only reports misuse). */
static void gcaps_be_eligible(struct gcaps_backend *be, struct gcaps_be_eligible *out)
{
	gcaps_be_live(be, "eligible");
	if (!out) {
		gcaps_be_misuse("backend contract violation: eligible() with a NULL result");
		return;
	}
	gcaps_backend_snapshot(out);
}

/*
 * calls->unregister. The module reference keeps gcaps's text and state alive while the call
 * waits for the update lock; once gcaps is unloading (the reference fails) gcaps's exit
 * detaches the driver itself, so there is nothing left to do (the driver's detach waits for
 * this call to return, see gcaps_backend.h "Unbinding").
 */
static void gcaps_be_unregister(struct gcaps_backend *be)
{
	void *ctx;

	if (be != &gcaps_be) {
		gcaps_be_misuse("backend contract violation: unregister() with a handle gcaps did not hand out");
		return;
	}
	if (!gcaps_module_get())
		return;
	ctx = READ_ONCE(gcaps_ctx);
	if (ctx)
		gcaps_rust_unbind(ctx);
	gcaps_module_put();
}

/* calls->stock: only recorded (VERSION reports it); never sleeps, takes no lock. */
static void gcaps_be_stock(struct gcaps_backend *be, bool on)
{
	if (gcaps_be_live(be, "stock"))
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

/* The name of one GCAPS_BE_MECH_* bit (log lines). */
static const char *gcaps_mech_name(u32 mech)
{
	return mech == GCAPS_BE_MECH_GATE ? "gate" : "reload";
}

/*
 * The checks of an ops table, with one log line naming what is wrong. The ABI first: the
 * fields a later ABI added are read only from a table that says it has them.
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
	if (!(ops->mechanisms & GCAPS_BE_MECH_RELOAD) ||
	    (ops->mechanisms & ~(GCAPS_BE_MECH_RELOAD | GCAPS_BE_MECH_GATE))) {
		pr_err("gcaps: backend %s: mechanisms 0x%x (RELOAD is required; GATE the only other bit)\n",
		       ops->name, ops->mechanisms);
		return -EINVAL;
	}
	if (!!(ops->mechanisms & GCAPS_BE_MECH_GATE) != !!ops->gate) {
		pr_err("gcaps: backend %s: gate() %s but mechanisms %s GATE\n", ops->name,
		       ops->gate ? "set" : "missing", ops->gate ? "lacks" : "has");
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
	if (!(ops->mechanisms & gcaps_mech)) {
		pr_err("gcaps: backend %s does not implement mechanism=%s, which gcaps was loaded with: not bound\n",
		       ops->name, gcaps_mech_name(gcaps_mech));
		return ERR_PTR(-EOPNOTSUPP);
	}
	ret = gcaps_rust_bind(ctx, ops, drv);
	if (ret)
		return ERR_PTR(ret);
	*calls = &gcaps_calls;
	return &gcaps_be;
}
EXPORT_SYMBOL_GPL(gcaps_backend_register);

/* ------------------------------------------------------------------ life cycle */

void gcaps_backend_start(void *ctx, u32 mech)
{
	unsigned long flags;

	gcaps_mech = mech;
	raw_spin_lock_irqsave(&gcaps_snap_wlock, flags);
	write_seqcount_begin(&gcaps_snap_seq);
	gcaps_snap.gate = mech == GCAPS_BE_MECH_GATE;
	write_seqcount_end(&gcaps_snap_seq);
	raw_spin_unlock_irqrestore(&gcaps_snap_wlock, flags);
	WRITE_ONCE(gcaps_ctx, ctx);
}

void gcaps_backend_stop(void)
{
	cancel_delayed_work_sync(&gcaps_work);
	WRITE_ONCE(gcaps_ctx, NULL);
}
