// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holder boost and the update ceiling against changes of a thread's parameters by the thread
 * itself and by another process (issue 28, item 6; docs/module.md, "Holder boost", the table
 * of paths: the rows named below). vmtest-timeout=240
 *
 * The emulated GPU is stalled (SIMGPU_IOC_TEST_STALL; gcaps_simgpu loaded with
 * submit_timeout_ms=10000), so an update that resubmits waits in its submit, with the update
 * lock held, until the test ends the stall: the test lands its change while /proc/<pid>/stack
 * shows the updater in simgpu_submit_wait (and, for a thread waiting for the lock, once it
 * runs at the ceiling), then ends the stall. Every wait polls an event (a child's record, the
 * kernel stack, the thread's policy), at most 15 s.
 *
 * 1. (row 7, the reported case) X (SCHED_FIFO 10, a TSG of its own) begins the only segment:
 *    its update waits in its submit, at the ceiling; the test sets X to SCHED_FIFO 20; the
 *    stall ends, the update boosts X after its pending wait. After the begin X runs at
 *    SCHED_FIFO boost_prio (it holds the GPU, its own parameters are FIFO 20); after its end at
 *    FIFO 20. With update_prio=50 boost_prio=49 and with the defaults (99, 98). Before the fix
 *    X stayed at boost_prio after its end.
 * 2. (row 4) X changes its own priority while boosted: its end leaves it at the change.
 * 3. (rows 4-5) The test changes X while X is boosted: its end leaves it at the change.
 * 4. (row 13) Y (SCHED_FIFO 30) runs a segment; X (SCHED_FIFO 10) has one pending behind it.
 *    Y's end waits in its submit (it hands the GPU to X; the boost of X follows the pending
 *    wait); X begins a second, lower segment on another client: the lock is taken, so X
 *    raises itself to the ceiling and waits for it; the test sets X to SCHED_FIFO 20 there;
 *    the stall ends: Y's update boosts X over its change, X's begin returns at the boost.
 *    X's end of its first segment hands the GPU to its second (the same thread: still
 *    boosted), its end of the second leaves it at FIFO 20. Before the fix X stayed at
 *    boost_prio for good (its end's ceiling had saved the boost as its own).
 * 5. (row 14) X (SCHED_FIFO 10) holds the GPU, boosted. An administrator's SET_ALWAYS (a
 *    thread of the test, SCHED_FIFO 40) adds a TSG to the eligible set: its update waits in
 *    its submit. X begins a second, lower segment: it raises itself (98 -> 99) and waits for
 *    the lock; Y (SCHED_FIFO 30) begins a higher segment and waits behind it; the test sets X
 *    to SCHED_FIFO 20 (which puts Y's wait first); the stall ends: Y's update takes the GPU
 *    from X and unboosts it; X's begin returns at its FIFO 20, and so do its ends.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "../lib/vmtest.h"
#include "../../../module/simgpu/gcaps_simgpu.h"

static const char *volatile phase = "start";

/* The children's records and steps (shared memory). */
struct rec {
	volatile uint32_t step_x, step_y;		/* set by the test: go to step n */
	volatile uint32_t x_at, y_at;			/* set by a child: n + 1 once step n is done */
	volatile int32_t x_pol[8], x_prio[8];		/* X's policy and priority after step n */
	volatile int32_t y_pol[8], y_prio[8];
	volatile uint32_t x_state[8];			/* begin states */
	volatile int32_t x_err, y_err;			/* first failed call (errno), 0: none */
};

static struct rec *R;

static void set_other(pid_t tid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	CHECK(sched_setscheduler(tid, policy, &sp) == 0, "sched_setscheduler(%d, %d, %d): %s", tid,
	      policy, prio, strerror(errno));
}

static int gpu_open(void)
{
	int g = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR);

	if (g < 0)
		_exit(91);
	return g;
}

static void stall(unsigned int ms)
{
	struct simgpu_test_stall s = { .size = sizeof(s), .stall_ms = ms };
	int c = open("/dev/" SIMGPU_CTL_DEVICE_NAME, O_RDWR);

	CHECK(c >= 0 && ioctl(c, SIMGPU_IOC_TEST_STALL, &s) == 0, "stall %u: %s", ms,
	      strerror(errno));
	if (c >= 0)
		close(c);
}

/* The watchdog's last act: a stalled engine would keep the children in their updates. */
static void unstall(void)
{
	stall(0);
}

/* Polls `cond(arg)` (0.2 ms apart, at most 15 s). */
static int poll_for(int (*cond)(pid_t, int), pid_t p, int a, const char *what)
{
	uint64_t end = now_ns() + 15000000000ull;

	while (!cond(p, a)) {
		if (now_ns() > end) {
			CHECK(0, "%s: not within 15 s", what);
			return 0;
		}
		usleep(200);
	}
	return 1;
}

/* The update of thread `tid` waits in the emulated GPU's submit. */
static int in_submit(pid_t tid, int unused)
{
	(void)unused;
	return stack_shows(tid, "simgpu_submit_wait");
}

static int at_fifo(pid_t tid, int prio)
{
	return sched_is(tid, SCHED_FIFO, prio);
}

static int done_x(pid_t unused, int n)
{
	(void)unused;
	return R->x_at > (uint32_t)n || R->x_err;
}

static int done_y(pid_t unused, int n)
{
	(void)unused;
	return R->y_at > (uint32_t)n || R->y_err;
}

/* A child's step n: wait for the test's go, then report. */
static void child_wait(volatile uint32_t *step, uint32_t n)
{
	uint64_t end = now_ns() + 30000000000ull;

	while (*step < n) {
		if (now_ns() > end)
			_exit(80);
		usleep(200);
	}
}

static void x_done(uint32_t n)
{
	int p, q;

	sched_of(0, &p, &q);
	R->x_pol[n] = p;
	R->x_prio[n] = q;
	R->x_at = n + 1;
}

static void y_done(uint32_t n)
{
	int p, q;

	sched_of(0, &p, &q);
	R->y_pol[n] = p;
	R->y_prio[n] = q;
	R->y_at = n + 1;
}

static void x_fail(int e)
{
	if (!R->x_err)
		R->x_err = e ? e : -1;
	_exit(81);
}

static void y_fail(int e)
{
	if (!R->y_err)
		R->y_err = e ? e : -1;
	_exit(82);
}

/*
 * mechanism=reload whatever the suite's: every step lands while an update waits in its runlist
 * submit (under gate an update submits nothing, and waits only for a preempt).
 */
static void load(const char *gcaps_params)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "insmod /modules/gcaps.ko mechanism=reload %s", gcaps_params);
	sh(cmd);
	sh("insmod /modules/gcaps_simgpu.ko submit_timeout_ms=10000");
}

static void unload(void)
{
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
}

static void reap(pid_t p, const char *who)
{
	int st = 0;
	uint64_t end = now_ns() + 30000000000ull;
	pid_t r;

	while ((r = waitpid(p, &st, WNOHANG)) == 0 && now_ns() < end)
		usleep(1000);
	if (r == 0) {
		CHECK(0, "%s (pid %d) still runs after 30 s", who, p);
		kill(p, SIGKILL);
		waitpid(p, &st, 0);
		return;
	}
	CHECK(r == p && WIFEXITED(st) && !WEXITSTATUS(st), "%s (pid %d) failed: status %#x", who,
	      p, st);
}

static void reset(void)
{
	memset((void *)R, 0, sizeof(*R));
}

/* ---------------------------------------------------------------- 1: the reported case */

/* X: SCHED_FIFO 10, a TSG; step 1 begin, step 2 end (own change to FIFO `own_to` first, if any). */
static pid_t child_x_simple(int own_to)
{
	pid_t p = fork();
	int fd, g;

	if (p)
		return p;
	set_fifo(10);
	fd = open_dev();
	g = gpu_open();
	(void)g;
	x_done(0);
	child_wait(&R->step_x, 1);
	if (vt_seg_begin(fd, 0, (uint32_t *)&R->x_state[1]))
		x_fail(errno);
	x_done(1);
	child_wait(&R->step_x, 2);
	if (own_to)
		set_fifo(own_to);
	if (vt_seg_end(fd))
		x_fail(errno);
	x_done(2);
	child_wait(&R->step_x, 3);
	_exit(0);
}

static void change_in_begin(const char *params, int ceiling, int boost)
{
	pid_t x;

	reset();
	load(params);
	x = child_x_simple(0);
	poll_for(done_x, 0, 0, "X ready");
	stall(10000);
	R->step_x = 1;
	if (poll_for(in_submit, x, 0, "X's begin in its submit")) {
		CHECK(sched_is(x, SCHED_FIFO, ceiling), "X not at the ceiling %d in its update", ceiling);
		set_other(x, SCHED_FIFO, 20);
	}
	stall(0);
	poll_for(done_x, 0, 1, "X's begin");
	CHECK(R->x_state[1] == GCAPS_STATE_RUNNING, "X's begin: state %u, want RUNNING",
	      R->x_state[1]);
	CHECK(R->x_pol[1] == SCHED_FIFO && R->x_prio[1] == boost,
	      "%s: after the begin X at %d/%d, want SCHED_FIFO %d (the boost over its FIFO 20)",
	      params, R->x_pol[1], R->x_prio[1], boost);
	R->step_x = 2;
	poll_for(done_x, 0, 2, "X's end");
	CHECK(R->x_pol[2] == SCHED_FIFO && R->x_prio[2] == 20,
	      "%s: after the end X at %d/%d, want SCHED_FIFO 20 (the last thing asked for it)",
	      params, R->x_pol[2], R->x_prio[2]);
	R->step_x = 3;
	reap(x, "X");
	unload();
	printf("change in the begin's update (%s): ok if no FAIL above\n", params);
}

/* ---------------------------------------------------------------- 2, 3: while boosted */

static void change_while_boosted(int by_itself)
{
	pid_t x;

	reset();
	load("");
	x = child_x_simple(by_itself ? 20 : 0);
	poll_for(done_x, 0, 0, "X ready");
	R->step_x = 1;
	poll_for(done_x, 0, 1, "X's begin");
	CHECK(R->x_pol[1] == SCHED_FIFO && R->x_prio[1] == 98, "X not boosted: %d/%d",
	      R->x_pol[1], R->x_prio[1]);
	if (!by_itself)
		set_other(x, SCHED_FIFO, 20);
	R->step_x = 2;
	poll_for(done_x, 0, 2, "X's end");
	CHECK(R->x_pol[2] == SCHED_FIFO && R->x_prio[2] == 20,
	      "change %s while boosted: after the end X at %d/%d, want SCHED_FIFO 20",
	      by_itself ? "by itself" : "by another process", R->x_pol[2], R->x_prio[2]);
	R->step_x = 3;
	reap(x, "X");
	unload();
}

/* ---------------------------------------------------------------- 4: at the ceiling */

/* Y: SCHED_FIFO 30, a TSG; begins (GPU priority 20) at once, step 1: end. */
static pid_t child_y(void)
{
	pid_t p = fork();
	int fd, g;

	if (p)
		return p;
	set_fifo(30);
	fd = open_dev();
	g = gpu_open();
	(void)g;
	if (vt_seg_begin(fd, 20, NULL))
		y_fail(errno);
	y_done(0);
	child_wait(&R->step_y, 1);
	if (vt_seg_end(fd))
		y_fail(errno);
	y_done(1);
	child_wait(&R->step_y, 2);
	_exit(0);
}

/*
 * X: SCHED_FIFO 10, a TSG, two clients; begins on the first (GPU priority 10, pending behind
 * Y) at once; step 1: begins on the second (GPU priority 5); 2: ends the first; 3: the second.
 */
static pid_t child_x_two(void)
{
	pid_t p = fork();
	int fd1, fd2, g;

	if (p)
		return p;
	set_fifo(10);
	fd1 = open_dev();
	fd2 = open_dev();
	g = gpu_open();
	(void)g;
	if (vt_seg_begin(fd1, 10, (uint32_t *)&R->x_state[0]))
		x_fail(errno);
	x_done(0);
	child_wait(&R->step_x, 1);
	if (vt_seg_begin(fd2, 5, (uint32_t *)&R->x_state[1]))
		x_fail(errno);
	x_done(1);
	child_wait(&R->step_x, 2);
	if (vt_seg_end(fd1))
		x_fail(errno);
	x_done(2);
	child_wait(&R->step_x, 3);
	if (vt_seg_end(fd2))
		x_fail(errno);
	x_done(3);
	child_wait(&R->step_x, 4);
	_exit(0);
}

static void change_at_the_ceiling(void)
{
	pid_t x, y;

	reset();
	load("");
	y = child_y();
	poll_for(done_y, 0, 0, "Y's begin");
	x = child_x_two();
	poll_for(done_x, 0, 0, "X's first begin");
	CHECK(R->x_state[0] == GCAPS_STATE_PENDING, "X's first begin: state %u, want PENDING",
	      R->x_state[0]);
	stall(10000);
	R->step_y = 1;
	if (poll_for(in_submit, y, 0, "Y's end in its submit")) {
		R->step_x = 1;
		if (poll_for(at_fifo, x, 99, "X at the ceiling for its second begin")) {
			CHECK(!done_x(0, 1), "X's second begin returned while Y's update held the lock");
			set_other(x, SCHED_FIFO, 20);
		}
	}
	stall(0);
	poll_for(done_y, 0, 1, "Y's end");
	CHECK(R->y_pol[1] == SCHED_FIFO && R->y_prio[1] == 30, "Y after its end at %d/%d, want FIFO 30",
	      R->y_pol[1], R->y_prio[1]);
	poll_for(done_x, 0, 1, "X's second begin");
	CHECK(R->x_state[1] == GCAPS_STATE_PENDING, "X's second begin: state %u, want PENDING",
	      R->x_state[1]);
	CHECK(R->x_pol[1] == SCHED_FIFO && R->x_prio[1] == 98,
	      "X holds the GPU after its second begin: at %d/%d, want SCHED_FIFO 98", R->x_pol[1],
	      R->x_prio[1]);
	R->step_x = 2;
	poll_for(done_x, 0, 2, "X's first end");
	CHECK(R->x_pol[2] == SCHED_FIFO && R->x_prio[2] == 98,
	      "X's second segment runs after its first end: X at %d/%d, want SCHED_FIFO 98",
	      R->x_pol[2], R->x_prio[2]);
	R->step_x = 3;
	poll_for(done_x, 0, 3, "X's second end");
	CHECK(R->x_pol[3] == SCHED_FIFO && R->x_prio[3] == 20,
	      "changed at the ceiling, then boosted: after its ends X at %d/%d, want SCHED_FIFO 20",
	      R->x_pol[3], R->x_prio[3]);
	R->step_x = 4;
	R->step_y = 2;
	reap(x, "X");
	reap(y, "Y");
	unload();
}

/* ---------------------------------------------------------------- 5: unboosted at the ceiling */

/* X: SCHED_FIFO 10, a TSG, two clients; begins on the first (GPU priority 10) at once; step 1:
 * begins on the second (GPU priority 5); 2: ends both. */
static pid_t child_x_holder(void)
{
	pid_t p = fork();
	int fd1, fd2, g;

	if (p)
		return p;
	set_fifo(10);
	fd1 = open_dev();
	fd2 = open_dev();
	g = gpu_open();
	(void)g;
	if (vt_seg_begin(fd1, 10, (uint32_t *)&R->x_state[0]))
		x_fail(errno);
	x_done(0);
	child_wait(&R->step_x, 1);
	if (vt_seg_begin(fd2, 5, (uint32_t *)&R->x_state[1]))
		x_fail(errno);
	x_done(1);
	child_wait(&R->step_x, 2);
	if (vt_seg_end(fd2) || vt_seg_end(fd1))
		x_fail(errno);
	x_done(2);
	child_wait(&R->step_x, 3);
	_exit(0);
}

/* Y: SCHED_FIFO 30, a TSG; step 1: begins (GPU priority 20); 2: ends. */
static pid_t child_y_late(void)
{
	pid_t p = fork();
	int fd, g;

	if (p)
		return p;
	set_fifo(30);
	fd = open_dev();
	g = gpu_open();
	(void)g;
	y_done(0);
	child_wait(&R->step_y, 1);
	if (vt_seg_begin(fd, 20, NULL))
		y_fail(errno);
	y_done(1);
	child_wait(&R->step_y, 2);
	if (vt_seg_end(fd))
		y_fail(errno);
	y_done(2);
	child_wait(&R->step_y, 3);
	_exit(0);
}

static int always_fd, always_tsg;
static volatile pid_t always_tid;
static volatile int always_done, always_err;

static void *always_thread(void *arg)
{
	struct gcaps_set_always a = { .size = sizeof(a), .tsgid = always_tsg, .on = 1 };

	(void)arg;
	set_fifo(40);
	always_tid = gettid();
	always_err = ioctl(always_fd, GCAPS_IOC_SET_ALWAYS, &a) ? errno : 0;
	always_done = 1;
	return NULL;
}

static void change_then_unboost(void)
{
	struct simgpu_tsg_info ti = { .size = sizeof(ti) };
	pthread_t th;
	pid_t x, y;
	int g;

	reset();
	load("");
	always_done = 0;
	always_tid = 0;
	always_fd = open_dev();
	g = gpu_open();
	CHECK(ioctl(g, SIMGPU_IOC_INFO, &ti) == 0, "SIMGPU_IOC_INFO: %s", strerror(errno));
	always_tsg = (int)ti.tsgid;
	y = child_y_late();
	poll_for(done_y, 0, 0, "Y ready");
	x = child_x_holder();
	poll_for(done_x, 0, 0, "X's first begin");
	CHECK(R->x_state[0] == GCAPS_STATE_RUNNING && sched_is(x, SCHED_FIFO, 98),
	      "X's first begin: state %u, want RUNNING and boosted", R->x_state[0]);
	stall(10000);
	pthread_create(&th, NULL, always_thread, NULL);
	while (!always_tid)
		usleep(200);
	if (poll_for(in_submit, always_tid, 0, "SET_ALWAYS in its submit")) {
		R->step_x = 1;
		if (poll_for(at_fifo, x, 99, "X at the ceiling for its second begin")) {
			R->step_y = 1;
			if (poll_for(at_fifo, y, 99, "Y at the ceiling for its begin"))
				set_other(x, SCHED_FIFO, 20);
		}
		CHECK(!done_x(0, 1) && !done_y(0, 1), "a begin returned while the lock was held");
	}
	stall(0);
	pthread_join(th, NULL);
	CHECK(always_err == 0, "SET_ALWAYS: %s", strerror(always_err));
	poll_for(done_y, 0, 1, "Y's begin");
	poll_for(done_x, 0, 1, "X's second begin");
	CHECK(R->x_state[1] == GCAPS_STATE_PENDING, "X's second begin: state %u, want PENDING",
	      R->x_state[1]);
	CHECK(R->x_pol[1] == SCHED_FIFO && R->x_prio[1] == 20,
	      "changed at the ceiling, then unboosted: after its begin X at %d/%d, want FIFO 20",
	      R->x_pol[1], R->x_prio[1]);
	R->step_x = 2;
	poll_for(done_x, 0, 2, "X's ends");
	CHECK(R->x_pol[2] == SCHED_FIFO && R->x_prio[2] == 20,
	      "after its ends X at %d/%d, want FIFO 20", R->x_pol[2], R->x_prio[2]);
	R->step_y = 2;
	poll_for(done_y, 0, 2, "Y's end");
	CHECK(R->y_pol[2] == SCHED_FIFO && R->y_prio[2] == 30, "Y after its end at %d/%d",
	      R->y_pol[2], R->y_prio[2]);
	R->step_x = 3;
	R->step_y = 3;
	reap(x, "X");
	reap(y, "Y");
	close(g);
	close(always_fd);
	unload();
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	start_watchdog(220, &phase, unstall);
	R = mmap(NULL, sizeof(*R), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (R == MAP_FAILED)
		return 1;
	phase = "1: change in the begin's update, 50/49";
	change_in_begin("update_prio=50 boost_prio=49", 50, 49);
	phase = "1: change in the begin's update, 99/98";
	change_in_begin("update_prio=99 boost_prio=98", 99, 98);
	phase = "2: own change while boosted";
	change_while_boosted(1);
	phase = "3: another's change while boosted";
	change_while_boosted(0);
	phase = "4: change at the ceiling, then a remote boost";
	change_at_the_ceiling();
	phase = "5: change at the ceiling, then a remote unboost";
	change_then_unboost();
	if (R->x_err || R->y_err)
		CHECK(0, "a child's call failed: X errno %d, Y errno %d", R->x_err, R->y_err);
	if (failures)
		return 1;
	printf("boost and parameter changes: ok\n");
	return 0;
}
