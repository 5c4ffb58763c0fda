// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_simgpu user interface: the ioctls of /dev/gcaps_simgpu (a TSG: INFO, SUBMIT, WAIT,
 * SET_TIMESLICE, RUNLIST) and /dev/gcaps_simgpu_ctl (RUNLIST and the CAP_SYS_ADMIN test knobs),
 * with the size-first argument rules of gcaps_simgpu.h, and the two misc devices.
 */
#include "simgpu.h"

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
	u32 usize, words = 0, id;
	u64 *en;
	__le32 *copy;
	int ret;

	ret = simgpu_copy_in(&a, sizeof(a), SIMGPU_RUNLIST_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	copy = kvmalloc_array(sg.buf_cap, ENTRY_WORDS * sizeof(__le32), GFP_KERNEL);
	en = kcalloc(BITS_TO_U64(max_tsgs), sizeof(u64), GFP_KERNEL);
	if (!copy || !en) {
		kvfree(copy);
		kfree(en);
		return -ENOMEM;
	}
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
	a.gates = eng.gates;
	a.gate_preempts = eng.gate_preempts;
	a.preempt_timeouts = eng.preempt_timeouts;
	for (id = 0; id < max_tsgs; id++)
		if (sg.tsgs[id] && sg.tsgs[id]->ch_en)
			en[id / 64] |= 1ULL << (id % 64);
	raw_spin_unlock_irqrestore(&eng.lock, flags);
	a.gate = sg.gated;
	if (a.entries)
		memcpy(copy, sg.buf[a.active_buffer], (size_t)a.entries * ENTRY_WORDS * sizeof(__le32));
	rt_mutex_unlock(&sg.rl_lock);
	a.theta_us = theta_us;
	words = min_t(u32, a.words_cap, a.entries * ENTRY_WORDS);
	ret = 0;
	if (words && copy_to_user(u64_to_user_ptr(a.words_ptr), copy, words * sizeof(__le32)))
		ret = -EFAULT;
	words = min_t(u32, a.enabled_cap, BITS_TO_U64(max_tsgs));
	if (words && copy_to_user(u64_to_user_ptr(a.enabled_ptr), en, words * sizeof(u64)))
		ret = -EFAULT;
	kvfree(copy);
	kfree(en);
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

struct miscdevice simgpu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = SIMGPU_DEVICE_NAME,
	.fops = &simgpu_fops,
	.mode = 0666,
};

struct miscdevice simgpu_ctl_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = SIMGPU_CTL_DEVICE_NAME,
	.fops = &simgpu_ctl_fops,
	.mode = 0600,
};
