// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_simgpu engine: the hrtimer state machine (hard-irq context) that fetches the submitted
 * runlist at a scheduling point and executes it round robin over the listed TSGs with work and
 * an enabled channel, each for its encoded timeslice, with the context-switch cost theta_us
 * between TSGs; and the TSG preempt (theta_us to save the context, then a completion). Everything
 * here runs under eng.lock (simgpu.h: the lock order); every entry first catches the model up
 * with real time (eng_advance), so each event happens at its own time.
 */
#include "simgpu.h"

static struct simgpu_tsg *eng_tsg(int id)
{
	return id >= 0 ? sg.tsgs[id] : NULL;
}

struct simgpu_item *eng_head(struct simgpu_tsg *t)
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

/* The host scheduler considers a TSG only while one of its channels is enabled. */
static bool eng_enabled(const struct simgpu_tsg *t)
{
	return t && t->ch_en;
}

bool eng_stalled(u64 t)
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
	case ENG_PREEMPTING:	/* a hung engine (stall) acknowledges no preempt */
		return min(t, eng_stalled(eng.clock) ? max(eng.preempt_end, t) : eng.preempt_end);
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
void eng_preempt_cur(void)
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
		struct simgpu_tsg *t;

		i = (start + k) % eng.rl_n;
		t = eng_tsg(eng.rl[i].tsgid);
		if (eng_head(t) && eng_enabled(t))
			return i;
	}
	return -1;
}

/* A scheduling point at @t: take a pending runlist, then keep cur or switch round robin. */
void eng_sched(u64 t, bool slice_over)
{
	struct simgpu_tsg *c;
	struct simgpu_item *it;
	int i, cur_i;

	eng_take(t);
	if (eng.state == ENG_PREEMPTING)
		return;			/* the preempt's end is the next scheduling point */
	c = eng_tsg(eng.cur);
	it = eng_head(c);
	cur_i = eng_index(eng.rl, eng.rl_n, eng.cur);
	if (it && cur_i >= 0 && eng_enabled(c) && !eng.held) {
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
bool eng_submit_is_point(void)
{
	return eng.state == ENG_IDLE || eng_index(eng.rl_next, eng.rl_next_n, eng.cur) < 0;
}

/* TSG @id is on the engine: switching in, running work, or being preempted. */
bool eng_on_engine(int id)
{
	return eng.state != ENG_IDLE && eng.cur == id;
}

/*
 * The TSG preempt of cur (on the engine): its running item loses the engine at once, saving
 * its context takes theta_us; then eng.preempted completes and the engine picks as after idle.
 * Called when cur is switching in or running; a preempt already in progress goes on.
 */
void eng_preempt_start(void)
{
	if (eng.state == ENG_PREEMPTING)
		return;
	eng_preempt_cur();
	reinit_completion(&eng.preempted);
	eng.state = ENG_PREEMPTING;
	eng.last_ctx = -1;
	eng.preempt_end = eng.clock + (u64)theta_us * NSEC_PER_USEC;
}

/* The preempt in progress ends (its context is saved, or a recovery cleared the engine). */
void eng_preempt_clear(void)
{
	if (eng.state != ENG_PREEMPTING)
		return;
	eng.state = ENG_IDLE;
	eng.cur = -1;
	eng.last_ctx = -1;
	complete(&eng.preempted);
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
	case ENG_PREEMPTING:
		if (t >= eng.preempt_end && !eng_stalled(t)) {
			eng_preempt_clear();
			eng_sched(t, false);
		}
		break;
	case ENG_SWITCHING:
		if (t >= eng.switch_end) {
			if (eng_enabled(eng_tsg(eng.cur))) {
				eng_run(t);
			} else {	/* disabled while switching in: it runs nothing */
				eng.state = ENG_IDLE;
				eng.cur = -1;
			}
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
void eng_advance(u64 now)
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

void eng_arm(void)
{
	u64 t = eng_next_event();

	if (t != U64_MAX && !eng.stopped)
		hrtimer_start(&eng.timer, ns_to_ktime(t), HRTIMER_MODE_ABS_HARD);
}

enum hrtimer_restart eng_timer_fn(struct hrtimer *timer)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&eng.lock, flags);
	eng_advance(ktime_get_ns());
	eng_arm();
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	return HRTIMER_NORESTART;
}
