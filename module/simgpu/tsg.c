// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_simgpu TSGs: one per open file of /dev/gcaps_simgpu. Open (the context setup work on
 * the driver-internal TSG, an id, channels with made-up addresses enabled as gcaps's decision
 * says, the event to gcaps, a rebuild), release (its work items dropped, the engine moved on,
 * the event to gcaps, a rebuild), and queueing a work item on a TSG.
 */
#include "simgpu.h"

/* TSG @id's channels: chid, made-up addresses, entries encoded once. */
void simgpu_tsg_channels(struct simgpu_tsg *t, u32 id)
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
int simgpu_queue(struct simgpu_tsg *t, struct simgpu_item *it, u64 *seqno, u64 *submit_ns)
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

int simgpu_open(struct inode *inode, struct file *file)
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
	simgpu_decision();
	raw_spin_lock_irqsave(&eng.lock, flags);
	/* Enabled as the decision says: under gate a new TSG starts disabled unless eligible. */
	t->ch_en = simgpu_ch_want(id);
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

int simgpu_release(struct inode *inode, struct file *file)
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
