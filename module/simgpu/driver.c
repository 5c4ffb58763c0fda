// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_simgpu driver: building the runlist of the open TSGs gcaps lets on (every TSG without
 * gcaps, or under gcaps's mechanism gate) into the free buffer, submitting it and waiting until
 * the engine took it, recovery on a submit timeout; the channels' enable state (under gate: the
 * eligible TSGs' channels enabled, the others' disabled; otherwise all enabled), written on every
 * submit and by ops->gate, which also preempts a TSG that lost the GPU while on the engine; the
 * gcaps binding: the backend ops gcaps calls (resubmit, gate, detach), binding at load and
 * whenever a module comes live (the open TSGs replayed), unbinding at exit; and the random
 * driver-initiated rebuilds (rebuild_interval_ms).
 */
#include "simgpu.h"

void simgpu_tsg_desc(const struct simgpu_tsg *t, struct gcaps_be_tsg *d)
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
 * Read gcaps's decision into sg.elig (rl_lock): every TSG eligible without gcaps or while the
 * runlists are stock (the test knob's nvgpu-R36-with-a-GSP-user-domain); sg.gated says whether
 * it is applied through the channels' enable state (mechanism gate) or the runlist (reload).
 */
void simgpu_decision(void)
{
	lockdep_assert_held(&sg.rl_lock);
	sg.gated = false;
	sg.elig.all = true;
	if (sg.calls && !sg.stock) {
		sg.calls->eligible(sg.be, &sg.elig);
		sg.gated = sg.elig.gate;
	}
}

/* The channel enable bits the decision read last gives TSG @id (rl_lock): all, or none. */
u32 simgpu_ch_want(u32 id)
{
	if (sg.gated && !sg.elig.all && !test_bit(id, sg.elig.bits))
		return 0;
	return GENMASK(channels - 1, 0);
}

/*
 * Write every open TSG's channel enable bits from the decision read last (rl_lock and
 * eng.lock): disables and enables land together, before the engine's next scheduling point.
 */
static void simgpu_ch_apply(void)
{
	u32 id;

	for (id = 0; id < max_tsgs; id++)
		if (sg.tsgs[id])
			sg.tsgs[id]->ch_en = simgpu_ch_want(id);
}

/*
 * Build the runlist into buffer @b: every open TSG not excluded by the test knob; under reload
 * only those gcaps lets on (all without gcaps or while stock), under gate every one of them
 * (the decision goes to the channels' enable state, written when the runlist is submitted).
 */
static u32 simgpu_build(int b)
{
	__le32 *e = sg.buf[b];
	bool all;
	u32 id, n = 0, k;

	lockdep_assert_held(&sg.rl_lock);
	simgpu_decision();
	all = sg.elig.all || sg.gated;
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
	simgpu_ch_apply();	/* the enable state of the decision the build read */
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

	if (wait_for_completion_timeout(&eng.taken, msecs_to_jiffies(submit_timeout_ms))) {
		sg.rl_lost = false;
		return 0;
	}
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
	eng_preempt_clear();	/* a TSG preempt in progress ends with the engine's reset */
	eng_sched(eng.clock, false);
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
}

/*
 * Rebuild the runlist into the free buffer, submit it and wait until it is taken. On a timeout
 * the recovery clears the engine and submits a fresh build once more; @tell_gcaps: report the
 * recovery to gcaps (driver-initiated paths; gcaps's own resubmit gets -ETIMEDOUT instead).
 */
int simgpu_submit_locked(bool tell_gcaps)
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
	if (simgpu_submit_wait(0, simgpu_build(0)) == -ETIMEDOUT) {
		simgpu_engine_clear();	/* still hung: leave it empty; the next submit retries */
		sg.rl_lost = true;
	}
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

/*
 * Mechanism gate: apply gcaps's decision to the channels' enable state, the runlist untouched.
 * (1) disable the channels of every TSG that is not eligible; (2) if one of them is on the
 * engine (switching in or running work), preempt it and wait until the preempt completed
 * (theta_us; bounded by submit_timeout_ms, then the recovery of a hung submit); (3) enable the
 * eligible TSGs' channels; an idle engine picks at once (the enabled TSG's work starts after a
 * context switch, theta_us). No runlist is submitted and nothing waits for a pending bit, unless
 * a recovery left the engine without a runlist (rl_lost), which is rebuilt first.
 */
static int simgpu_op_gate(void *drv)
{
	unsigned long flags;
	bool preempt;
	int ret = GCAPS_BE_GATE_HANDOVER;
	u32 id;

	rt_mutex_lock(&sg.rl_lock);
	if (sg.rl_lost && simgpu_submit_locked(false) == -ETIMEDOUT) {
		rt_mutex_unlock(&sg.rl_lock);
		return -ETIMEDOUT;
	}
	simgpu_decision();
	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	eng.gates++;
	for (id = 0; id < max_tsgs; id++)
		if (sg.tsgs[id] && !simgpu_ch_want(id))
			sg.tsgs[id]->ch_en = 0;
	preempt = eng.cur >= 0 && eng_on_engine(eng.cur) && !simgpu_ch_want(eng.cur);
	if (preempt) {
		eng.gate_preempts++;
		eng_preempt_start();
		eng_arm();
	}
	raw_spin_unlock_irqrestore(&eng.lock, flags);

	if (preempt) {
		ret = GCAPS_BE_GATE_PREEMPTED;
		if (!wait_for_completion_timeout(&eng.preempted,
						 msecs_to_jiffies(submit_timeout_ms))) {
			raw_spin_lock_irqsave(&eng.lock, flags);
			eng_advance(ktime_get_ns());
			preempt = eng.state == ENG_PREEMPTING;
			if (preempt)
				eng.preempt_timeouts++;
			raw_spin_unlock_irqrestore(&eng.lock, flags);
			if (preempt) {
				pr_warn("TSG preempt not complete after %u ms: recovery\n",
					submit_timeout_ms);
				simgpu_engine_clear();
				simgpu_submit_locked(false);	/* rebuilt; enables written */
				rt_mutex_unlock(&sg.rl_lock);
				return -ETIMEDOUT;
			}
		}
	}

	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	simgpu_ch_apply();
	if (eng.state == ENG_IDLE)
		eng_sched(eng.clock, false);
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
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
	.mechanisms = GCAPS_BE_MECH_RELOAD | GCAPS_BE_MECH_GATE,
	.gate = simgpu_op_gate,
};

/* Bind to gcaps if it is loaded and we are not bound (init, and every module coming live). */
void simgpu_bind(void)
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
void simgpu_unbind(void)
{
	const struct gcaps_be_calls *calls;
	struct gcaps_backend *be;
	unsigned long flags;
	bool pinned;

	mutex_lock(&sg.bind_lock);
	rt_mutex_lock(&sg.rl_lock);
	be = sg.be;
	calls = sg.calls;
	/* While gcaps is live and pinned it cannot detach us; if it is going, it will. */
	pinned = be && symbol_get(gcaps_backend_register);
	if (pinned) {
		/*
		 * Forgotten before the unregister: no call of ours carries the handle once gcaps
		 * has let it go (a resubmit meanwhile builds the stock runlist).
		 */
		sg.be = NULL;
		sg.calls = NULL;
	}
	rt_mutex_unlock(&sg.rl_lock);
	if (pinned) {
		calls->unregister(be);
		symbol_put(gcaps_backend_register);
		/* Stock: every channel enabled (the next submit rebuilds the runlist). */
		rt_mutex_lock(&sg.rl_lock);
		simgpu_decision();
		raw_spin_lock_irqsave(&eng.lock, flags);
		simgpu_ch_apply();
		raw_spin_unlock_irqrestore(&eng.lock, flags);
		rt_mutex_unlock(&sg.rl_lock);
		pr_info("unregistered from gcaps\n");
	} else if (be) {
		wait_for_completion(&sg.detached);
	}
	mutex_unlock(&sg.bind_lock);
}

int simgpu_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	if (action == MODULE_STATE_LIVE)
		simgpu_bind();
	return NOTIFY_DONE;
}

/* ---- Random driver-initiated rebuilds ---- */

unsigned long simgpu_rebuild_delay(void)
{
	u64 us = (u64)rebuild_interval_ms * 2000;	/* uniform in [0, 2 * mean] */

	return usecs_to_jiffies(prandom_u32_state(&sg.rnd) % (us + 1));
}

void simgpu_rebuild_fn(struct work_struct *work)
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
