// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_simgpu module: its parameters (checked at load), init and exit (buffers, the engine's
 * timer, the misc devices, the module notifier, binding to gcaps), the driver-internal TSG
 * (setup_work_us), and the engine and driver state (simgpu.h). simgpu.h lists the other files
 * and the lock order.
 */
#include "simgpu.h"

struct simgpu_engine eng;
struct simgpu sg;

unsigned int timeslice_us = 1024;
module_param(timeslice_us, uint, 0444);
MODULE_PARM_DESC(timeslice_us, "Default TSG timeslice in us (1000..50000, default 1024)");

unsigned int theta_us = 200;
module_param(theta_us, uint, 0444);
MODULE_PARM_DESC(theta_us, "Context-switch cost between TSGs in us (0..10000, default 200)");

unsigned int channels = 2;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Channels per TSG (1..8, default 2)");

unsigned int max_tsgs = 64;
module_param(max_tsgs, uint, 0444);
MODULE_PARM_DESC(max_tsgs, "TSG ids 0..max_tsgs-1 (1..1024, default 64)");

unsigned int submit_timeout_ms = 100;
module_param(submit_timeout_ms, uint, 0444);
MODULE_PARM_DESC(submit_timeout_ms, "Wait for a submit to leave pending before recovery (60..10000 ms, default 100)");

unsigned int rebuild_interval_ms;
module_param(rebuild_interval_ms, uint, 0444);
MODULE_PARM_DESC(rebuild_interval_ms, "Mean interval of driver-initiated random rebuilds in ms (0 = off)");

ulong rebuild_seed = 1;
module_param(rebuild_seed, ulong, 0444);
MODULE_PARM_DESC(rebuild_seed, "Seed of the random rebuild intervals");

unsigned int setup_work_us;
module_param(setup_work_us, uint, 0444);
MODULE_PARM_DESC(setup_work_us, "GPU work (us) every open of a TSG runs first on the driver's own driver-internal TSG and waits for (context setup, as nvgpu's channel setup); 0 = off (no internal TSG), at most 100000");

static_assert(sizeof(struct simgpu_channel_info) == 32);
static_assert(sizeof(struct simgpu_tsg_info) == SIMGPU_TSG_INFO_SIZE_VER0);
static_assert(sizeof(struct simgpu_submit) == SIMGPU_SUBMIT_SIZE_VER0);
static_assert(sizeof(struct simgpu_wait) == SIMGPU_WAIT_SIZE_VER0);
static_assert(sizeof(struct simgpu_timeslice) == SIMGPU_TIMESLICE_SIZE_VER0);
static_assert(sizeof(struct simgpu_runlist) == SIMGPU_RUNLIST_SIZE_VER1);
static_assert(sizeof(struct simgpu_test_exclude) == SIMGPU_TEST_EXCLUDE_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_stall) == SIMGPU_TEST_STALL_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_hold) == SIMGPU_TEST_HOLD_SIZE_VER0);
static_assert(sizeof(struct simgpu_test_internal) == SIMGPU_TEST_INTERNAL_SIZE_VER0);

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
	t->ch_en = GENMASK(channels - 1, 0);	/* no gcaps bound yet: stock */
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
	init_completion(&eng.preempted);
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
