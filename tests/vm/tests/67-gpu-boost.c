// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holder boost (issue 20), with real processes on the emulated GPU. vmtest-timeout=300
 *
 * 1. The D4 scenario, with gcaps.ko loaded with boost=0 and then boost=1 (both printed):
 *    L (CPU 0, SCHED_FIFO 20, GPU priority 20) has the running segment and does HOLD ms of
 *    its own CPU work inside it (time it runs, measured by L itself: spinning on the clock,
 *    a step above GAP_NS is time it did not run) before its GPU work (W_L ms, busy-waited);
 *    T (CPU 1, SCHED_FIFO 30, GPU priority 10, lower than L's) begins once L's begin returned
 *    and LIST shows L RUNNING, so T's segment is pending behind L's; once T's begin returned
 *    and LIST shows T PENDING, the CPU hog H (CPU 0, SCHED_FIFO 50: above L, below
 *    boost_prio 98) wakes and spins HOG ms. T's GPU wait is T's GPU start minus its begin
 *    call.
 *    - boost=0: H preempts L inside its segment, so T's wait includes H's run: it must be at
 *      least L's remaining own work + HOG, and H's run must lie inside T's wait and be L's
 *      longest time off the CPU.
 *    - boost=1: L runs at SCHED_FIFO 98 while its segment runs, so H waits for L's end call.
 *      T's wait is bounded by L's own remaining work + L's lost time + 2 eps + theta + tol:
 *      L's own remaining work is its CPU work still to do at T's begin call (its 1 ms marks)
 *      + its GPU work as the emulated GPU ran it; its lost time is what of its segment after
 *      T's begin was not its work (L not running in its CPU work, its submit and the GPU's
 *      switch to it, the poll that saw the work done: with the boost, stalls of its vCPU by
 *      the loaded host and interrupts, measured and added), in which no single stop of L may
 *      last HOG / 2 = 200 ms (a preemption by the hog is one stop of at least HOG: it fails
 *      this check, however the host stalls); eps is the largest update delay STATS sampled in the run,
 *      theta the emulated GPU's switch time, tol = 1 ms (the marks' resolution) + 10 ms (the
 *      emulated GPU's timer under TCG), or + the longest stall the host gave L's vCPU if
 *      that was longer (a stall can hit the hand-over to T as well). H must start after L's end call (with the tail rule
 *      it runs before that call returns: L leaves the ceiling for FIFO 20 behind it).
 *    Every step waits for an event (the children's records, LIST states, a pipe); a run whose
 *    precondition failed (H woke after L's CPU work was done) is retried, at most 3 times.
 * 2. Composition and the thread rules (boost=1): a boosted owner's end returns it to its own
 *    FIFO 10 (not 98); a SCHED_RR owner returns to SCHED_RR; a thread that changes its own
 *    priority while boosted keeps it (STATUS no longer says boosted) and its end leaves it;
 *    in a multi-threaded process only the thread that began is boosted, and another thread's
 *    end unboosts it; STATUS VER1 reports boost, boost_prio and update_prio; the trace holds
 *    BOOST/UNBOOST with the thread ids and priorities.
 * 3. kill -9 of a boosted owner: the pending segment's owner (another process) is boosted as
 *    its segment becomes the running one, and returns to its own priority at its end; the
 *    killed owner's client is gone (LIST).
 * 4. The tail rule (tail_rule(), below): with boost=1 a thread that loses the boost returns
 *    to its own level behind a ready thread of that level; with boost=0, at the head.
 * 5. Priority inheritance (inheritance(), below): an owner holding a PI mutex (a futex, the
 *    same rt_mutex code as the update lock's) that a SCHED_FIFO 99 thread waits for runs at
 *    99 whatever gcaps does to its own priority: its end (unboost to its own 10, through the
 *    tail rule's step below) and its next begin (boost to 98) change its own priority and
 *    leave the inherited one; the unlock leaves it at the boost, the end at its own 10.
 *    The effective priority is /proc's (stat field 18), the own one sched_getparam's.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "../lib/vmtest.h"
#include "../../../module/simgpu/gcaps_simgpu.h"

#define HOLD_MS 300
#define HOG_MS 400
#define GAP_NS 200000ull	/* a step of L's clock above this: L did not run */
#define STOP_MAX_NS (HOG_MS * 1000000ull / 2)	/* L's longest stop with the boost */
#define WL_MS 40
#define WT_MS 10
#define THETA_US 200
#define TOL_NS (1000000ull + 10000000ull)

static const char *volatile phase = "start";

struct rec {
	volatile uint64_t l_begun, l_cpu_done, l_gpu_start, l_gpu_end, l_end_call, l_ended;
	volatile uint64_t l_mark[HOLD_MS + 1];	/* wall time when L's own work reached i ms */
	volatile uint64_t l_lost[HOLD_MS + 1];	/* L's time off the CPU until mark i */
	volatile uint64_t l_lost_total, l_longest, l_longest_at;	/* ... in all its CPU work */
	volatile uint64_t t_begin_call, t_begun, t_gpu_start, t_gpu_end, t_ended;
	volatile uint32_t t_state, l_state, t_ready, h_ready;
	volatile uint64_t h_start, h_end;
};

static struct rec *R;

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s))
		_exit(90);
}

/*
 * `ms` of this thread's own work: it spins reading CLOCK_MONOTONIC, and a step between two
 * reads above GAP_NS is time it did not run (preempted, or its vCPU stalled by the host), not
 * its work (the kernel's thread CPU clock is no measure here: under TCG it ran far ahead of
 * the wall clock). marks[i]: the wall time at i ms of own work; gaps: the intervals it did not
 * run. (The kernel's CPU time is not used: on the TCG debug kernel it advanced 500 ms in 0.6 ms.)
 */
static void spin_own(int ms, volatile uint64_t *marks, int rec, uint64_t from)
{
	uint64_t prev = from ? from : now_ns(), w0 = prev, own = 0, lost = 0;
	int i = 0;

	for (;;) {
		uint64_t t = now_ns(), d = t - prev;

		if (d > GAP_NS) {
			lost += d;
			if (rec && d > R->l_longest) {
				R->l_longest = d;
				R->l_longest_at = prev;
			}
		} else {
			own += d;
		}
		prev = t;
		while (marks && i <= ms && own >= (uint64_t)i * 1000000ull) {
			if (rec)
				R->l_lost[i] = lost;
			marks[i++] = t;
		}
		if (own >= (uint64_t)ms * 1000000ull) {
			if (rec)
				R->l_lost_total = lost;
			return;
		}
		if (t - w0 > 20000000000ull) {
			printf("FAIL: %d ms of own work not done in 20 s\n", ms);
			_exit(89);
		}
	}
}

static int gpu_open(void)
{
	int g = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR);

	if (g < 0)
		_exit(91);
	return g;
}

/* Submits `ms` of GPU work and waits (busy: polling), returning its completion. */
static struct simgpu_completion gpu_work(int g, int ms, int busy)
{
	struct simgpu_submit s = { .size = sizeof(s), .exec_ns = (uint64_t)ms * 1000000ull };
	struct simgpu_wait w = { .size = sizeof(w) };

	if (ioctl(g, SIMGPU_IOC_SUBMIT, &s))
		_exit(92);
	w.seqno = s.seqno;
	w.flags = busy ? SIMGPU_WAIT_POLL : 0;
	while (ioctl(g, SIMGPU_IOC_WAIT, &w))
		if (errno != EAGAIN && errno != EINTR)
			_exit(93);
	return w.done;
}

static struct gcaps_status status(int fd)
{
	struct gcaps_status s = { .size = sizeof(s) };

	CHECK(ioctl(fd, GCAPS_IOC_STATUS, &s) == 0, "STATUS: %s", strerror(errno));
	return s;
}

/* The LIST state of the client of process `pid` (-1: none). */
static int list_state(int fd, pid_t pid)
{
	struct gcaps_client_info c[64];
	struct gcaps_list l = { .size = sizeof(l), .clients_ptr = (uintptr_t)c, .clients_cap = 64 };
	unsigned int i;

	if (ioctl(fd, GCAPS_IOC_LIST, &l))
		return -2;
	for (i = 0; i < l.clients_count && i < 64; i++)
		if (c[i].tgid == (uint32_t)pid)
			return (int)c[i].state;
	return -1;
}

/* Polls LIST (1 ms apart, at most 20 s) until `pid`'s client is in `state`. */
static int wait_state(int fd, pid_t pid, int state, const char *what)
{
	uint64_t end = now_ns() + 20000000000ull;

	while (now_ns() < end) {
		if (list_state(fd, pid) == state)
			return 1;
		usleep(1000);
	}
	CHECK(0, "%s: LIST never showed pid %d in state %d", what, pid, state);
	return 0;
}

/* Polls (at most 5 s) until thread `tid` runs at `policy` `prio`. */
static int wait_sched(pid_t tid, int policy, int prio)
{
	uint64_t end = now_ns() + 5000000000ull;

	while (!sched_is(tid, policy, prio)) {
		if (now_ns() > end)
			return 0;
		usleep(500);
	}
	return 1;
}

static void load(int boost)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "insmod /modules/gcaps.ko boost=%d", boost);
	sh(cmd);
	snprintf(cmd, sizeof(cmd), "insmod /modules/gcaps_simgpu.ko theta_us=%d", THETA_US);
	sh(cmd);
}

static void unload(void)
{
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
}

static pid_t child_l(void)
{
	pid_t p = fork();

	if (p)
		return p;
	pin(0);
	set_fifo(20);
	{
		int fd = open_dev(), g = gpu_open();
		uint32_t st;
		struct simgpu_completion c;

		if (vt_seg_begin(fd, 0, &st))
			_exit(94);
		R->l_state = st;
		R->l_begun = now_ns();
		/* from its begin's return on: a preemption before the loop counts too */
		spin_own(HOLD_MS, R->l_mark, 1, R->l_begun);
		R->l_cpu_done = now_ns();
		c = gpu_work(g, WL_MS, 1);
		R->l_gpu_start = c.start_ns;
		R->l_gpu_end = c.end_ns;
		R->l_end_call = now_ns();
		if (vt_seg_end(fd))
			_exit(95);
		R->l_ended = now_ns();
	}
	_exit(0);
}

static pid_t child_t(int go)
{
	pid_t p = fork();

	if (p)
		return p;
	pin(1);
	set_fifo(30);
	{
		int fd = open_dev(), g = gpu_open();
		uint32_t st;
		char b;
		struct simgpu_completion c;

		R->t_ready = 1;
		if (read(go, &b, 1) != 1)
			_exit(96);
		R->t_begin_call = now_ns();
		if (vt_seg_begin(fd, 10, &st))
			_exit(97);
		R->t_begun = now_ns();
		R->t_state = st;
		c = gpu_work(g, WT_MS, 0);
		R->t_gpu_start = c.start_ns;
		R->t_gpu_end = c.end_ns;
		if (vt_seg_end(fd))
			_exit(98);
		R->t_ended = now_ns();
	}
	_exit(0);
}

static pid_t child_h(int go)
{
	pid_t p = fork();
	char b;

	if (p)
		return p;
	pin(0);
	set_fifo(50);
	R->h_ready = 1;
	if (read(go, &b, 1) != 1)
		_exit(96);
	R->h_start = now_ns();
	spin_own(HOG_MS, NULL, 0, 0);
	R->h_end = now_ns();
	_exit(0);
}

static int reap(pid_t p, const char *who)
{
	int st = 0;
	uint64_t end = now_ns() + 30000000000ull;
	pid_t r;

	while ((r = waitpid(p, &st, WNOHANG)) == 0 && now_ns() < end)
		usleep(2000);
	if (r == 0) {
		char cmd[160];

		printf("FAIL: %s (pid %d) still runs after 30 s; L begun %llu cpu_done %llu ended "
		       "%llu, T begun %llu ended %llu, H start %llu end %llu\n", who, p,
		       (unsigned long long)R->l_begun, (unsigned long long)R->l_cpu_done,
		       (unsigned long long)R->l_ended, (unsigned long long)R->t_begun,
		       (unsigned long long)R->t_ended, (unsigned long long)R->h_start,
		       (unsigned long long)R->h_end);
		snprintf(cmd, sizeof(cmd), "cat /proc/%d/stat /proc/%d/wchan; echo", p, p);
		system(cmd);
		kill(p, SIGKILL);
		waitpid(p, &st, 0);
		failures++;
		return 0;
	}
	if (r != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
		CHECK(0, "%s (pid %d) failed: status %#x", who, p, st);
		return 0;
	}
	return 1;
}

/* Waits (at most 20 s) for a child's record to become non-zero; fails if the child died. */
static int wait_any(volatile uint64_t *f64, volatile uint32_t *f32, pid_t who, const char *what)
{
	uint64_t end = now_ns() + 20000000000ull;
	int st;

	while (!(f64 ? *f64 : *f32)) {
		if (waitpid(who, &st, WNOHANG) == who || now_ns() > end) {
			CHECK(0, "%s: never came (child %d %s)", what, who,
			      now_ns() > end ? "still runs" : "exited");
			return 0;
		}
		usleep(100);
	}
	return 1;
}

static int wait_flag(volatile uint32_t *f, pid_t who, const char *what)
{
	return wait_any(NULL, f, who, what);
}

static int wait_flag64(volatile uint64_t *f, pid_t who, const char *what)
{
	return wait_any(f, NULL, who, what);
}

struct d4res {
	uint64_t wait, bound, rem_l, eps, gaps, longest, lstart, tol;
};

/* One D4 run: T's GPU wait and what bounds it (wait 0: precondition failed, retry). */
static struct d4res d4_once(int boost, int fd)
{
	int pt[2], ph[2], ok = 1;
	pid_t l, t, h;
	uint64_t wake, consumed = 0;
	struct gcaps_stats s = { .size = sizeof(s), .flags = GCAPS_STATS_RESET };
	struct d4res x = { 0 };
	unsigned int i;

	memset((void *)R, 0, sizeof(*R));
	CHECK(ioctl(fd, GCAPS_IOC_STATS, &s) == 0, "STATS reset: %s", strerror(errno));
	if (pipe(pt) || pipe(ph))
		exit(1);
	h = child_h(ph[0]);
	t = child_t(pt[0]);
	phase = "D4: T and H get ready";
	if (!wait_flag(&R->t_ready, t, "T ready") || !wait_flag(&R->h_ready, h, "H ready"))
		exit(1);
	phase = "D4: L begins";
	l = child_l();
	/* L's begin returned (its record), and LIST agrees: L's segment runs */
	ok &= wait_flag64(&R->l_begun, l, "L's begin");
	ok &= wait_state(fd, l, GCAPS_STATE_RUNNING, "L's segment");
	phase = "D4: T begins";
	if (write(pt[1], "g", 1) != 1)
		exit(1);
	ok &= wait_flag64(&R->t_begun, t, "T's begin");
	ok &= wait_state(fd, t, GCAPS_STATE_PENDING, "T's segment");
	phase = "D4: the hog wakes";
	wake = now_ns();
	if (write(ph[1], "g", 1) != 1)
		exit(1);
	phase = "D4: waiting for L, T, H";
	ok &= reap(l, "L");
	ok &= reap(t, "T");
	ok &= reap(h, "H");
	close(pt[0]); close(pt[1]); close(ph[0]); close(ph[1]);
	s.flags = 0;
	CHECK(ioctl(fd, GCAPS_IOC_STATS, &s) == 0, "STATS: %s", strerror(errno));
	x.eps = s.delay_max_ns;
	if (!ok)
		return x;
	CHECK(R->l_state == GCAPS_STATE_RUNNING && R->t_state == GCAPS_STATE_PENDING,
	      "L state %u, T state %u: want running, pending", R->l_state, R->t_state);
	if (wake >= R->l_cpu_done) {
		printf("boost=%d: the hog woke after L's CPU work was done (it took %llu us, the "
		       "wake came %llu us after L's begin); again\n", boost,
		       (unsigned long long)(R->l_cpu_done - R->l_begun) / 1000,
		       (unsigned long long)(wake - R->l_begun) / 1000);
		return x;
	}
	for (i = 0; i <= HOLD_MS; i++)
		if (R->l_mark[i] && R->l_mark[i] <= R->t_begin_call)
			consumed = i;
	/* L's own remaining work: its CPU work still to do, its GPU work as the GPU ran it */
	x.rem_l = (uint64_t)(HOLD_MS - consumed) * 1000000ull + (R->l_gpu_end - R->l_gpu_start);
	/*
	 * Time inside L's segment after T's begin that is not L's work: L not running in its CPU
	 * work, its submit and the GPU's switch to it, the poll that saw its work done. With the
	 * boost only stalls of L's vCPU and interrupts can put time here (bounded by the budget,
	 * far below the hog's run); without it, the hog.
	 */
	x.gaps = R->l_lost_total - R->l_lost[consumed] +
		 (R->l_gpu_start - R->l_cpu_done) + (R->l_end_call - R->l_gpu_end);
	x.longest = R->l_longest;
	x.lstart = R->l_longest_at > R->t_begin_call ? R->l_longest_at : R->t_begin_call;
	x.wait = R->t_gpu_start - R->t_begin_call;
	/* tol: the marks' resolution + TOL_NS, or the longest stall the host gave L's vCPU */
	x.tol = TOL_NS + (boost && x.longest > TOL_NS - 1000000ull && x.longest < STOP_MAX_NS ?
			  x.longest - (TOL_NS - 1000000ull) : 0);
	x.bound = x.rem_l + 2 * x.eps + THETA_US * 1000ull + x.tol +
		  (boost && x.longest < STOP_MAX_NS ? x.gaps : 0);
	printf("boost=%d: T's GPU wait %llu us; L's remaining own work at T's begin %llu us "
	       "(%llu of %d ms CPU work done, then %d ms GPU); not L's work in its segment after "
	       "T's begin %llu us (longest stop %llu us, from %llu us); eps %llu us, theta %d us, tol %llu us; "
	       "the hog ran %llu..%llu us after T's begin call; L's segment ended %llu us after "
	       "it\n", boost, (unsigned long long)x.wait / 1000,
	       (unsigned long long)x.rem_l / 1000, (unsigned long long)consumed, HOLD_MS, WL_MS,
	       (unsigned long long)x.gaps / 1000, (unsigned long long)x.longest / 1000,
	       (unsigned long long)(x.lstart - R->t_begin_call) / 1000,
	       (unsigned long long)x.eps / 1000, THETA_US, (unsigned long long)x.tol / 1000,
	       (unsigned long long)(R->h_start - R->t_begin_call) / 1000,
	       (unsigned long long)(R->h_end - R->t_begin_call) / 1000,
	       (unsigned long long)(R->l_ended - R->t_begin_call) / 1000);
	return x;
}

static uint64_t d4(int boost)
{
	struct d4res x = { 0 };
	int fd, k;

	load(boost);
	fd = open_dev();
	{
		struct gcaps_status st = status(fd);

		CHECK(!!(st.boost & GCAPS_BOOST_ON) == boost && st.update_prio == 99 &&
		      st.boost_prio == (boost ? 98 : 0),
		      "STATUS boost %#x boost_prio %d update_prio %d (boost=%d)", st.boost,
		      st.boost_prio, st.update_prio, boost);
	}
	for (k = 0; k < 3 && !x.wait; k++)
		x = d4_once(boost, fd);
	CHECK(x.wait, "boost=%d: no valid run in 3 tries", boost);
	if (x.wait && boost) {
		/* L ran its CPU work unpreempted: only its vCPU's stalls, bounded, are allowed */
		CHECK(x.longest < STOP_MAX_NS,
		      "boost=1: L stopped for %llu us in one stretch inside its segment (%llu us in "
		      "all after T's begin): preempted while boosted",
		      (unsigned long long)x.longest / 1000, (unsigned long long)x.gaps / 1000);
		CHECK(x.wait <= x.bound,
		      "boost=1: T's GPU wait %llu us above L's remaining work + its lost time + 2 eps + "
		      "theta + tol = %llu us", (unsigned long long)x.wait / 1000,
		      (unsigned long long)x.bound / 1000);
		/*
		 * The hog runs only once L's end call is in (its update ends the boost; L returns
		 * from the ceiling at the tail of FIFO 20, so the hog runs before L's call returns)
		 */
		CHECK(R->h_start >= R->l_end_call,
		      "boost=1: the hog ran %lld us before L's end call",
		      (long long)(R->l_end_call - R->h_start) / 1000);
	} else if (x.wait) {
		CHECK(x.wait >= x.rem_l + HOG_MS * 1000000ull - 1000000ull,
		      "boost=0: T's GPU wait %llu us, want at least L's remaining work + the hog = "
		      "%llu us", (unsigned long long)x.wait / 1000,
		      (unsigned long long)(x.rem_l + HOG_MS * 1000000ull) / 1000);
		CHECK(R->h_start >= R->t_begin_call && R->h_end <= R->t_gpu_start &&
		      x.longest >= HOG_MS * 1000000ull,
		      "boost=0: the hog's run is not inside T's wait and L's segment");
	}
	close(fd);
	unload();
	return x.wait;
}

/* --------------------------------------------------------------- thread rules */

struct thr {
	int fd;
	volatile pid_t tid;
	volatile int step, done;
};

static void *began_thread(void *arg)
{
	struct thr *a = arg;

	set_fifo(10);
	a->tid = gettid();
	CHECK(vt_seg_begin(a->fd, 0, NULL) == 0, "thread's begin");
	a->done = 1;
	while (a->step == 0)
		usleep(1000);
	return NULL;
}

static void rules(void)
{
	int fd, pol, pr;
	struct gcaps_status st;
	pid_t me = gettid();

	load(1);
	fd = open_dev();

	/* A boosted owner's end (98 -> ceiling 99 -> its own 10, not 98). */
	set_fifo(10);
	CHECK(vt_seg_begin(fd, 0, NULL) == 0, "begin");
	CHECK(sched_is(me, SCHED_FIFO, 98), "running owner not at SCHED_FIFO 98");
	st = status(fd);
	CHECK(st.boost == (GCAPS_BOOST_ON | GCAPS_BOOST_SELF), "STATUS boost %#x, want ON|SELF",
	      st.boost);
	CHECK(vt_seg_end(fd) == 0, "end");
	sched_of(me, &pol, &pr);
	CHECK(pol == SCHED_FIFO && pr == 10, "after the end: policy %d prio %d, want FIFO 10", pol,
	      pr);
	CHECK(status(fd).boost == GCAPS_BOOST_ON, "STATUS after the end: boost %#x", status(fd).boost);

	/* SCHED_RR returns to SCHED_RR. */
	{
		struct sched_param sp = { .sched_priority = 15 };

		CHECK(sched_setscheduler(0, SCHED_RR, &sp) == 0, "SCHED_RR 15");
	}
	CHECK(vt_seg_begin(fd, 0, NULL) == 0 && sched_is(me, SCHED_FIFO, 98), "RR owner not boosted");
	CHECK(vt_seg_end(fd) == 0 && sched_is(me, SCHED_RR, 15), "RR owner not back at SCHED_RR 15");

	/* The owner changes its own priority while boosted: it stays. */
	set_fifo(10);
	CHECK(vt_seg_begin(fd, 0, NULL) == 0 && sched_is(me, SCHED_FIFO, 98), "owner not boosted (2)");
	set_fifo(20);
	CHECK(!(status(fd).boost & GCAPS_BOOST_SELF), "STATUS still says boosted after the change");
	CHECK(vt_seg_end(fd) == 0, "end (2)");
	sched_of(me, &pol, &pr);
	CHECK(pol == SCHED_FIFO && pr == 20, "after a change while boosted: policy %d prio %d, want "
	      "the FIFO 20 it asked for", pol, pr);

	/* Multi-threaded owner: only the thread that began is boosted; another thread ends. */
	set_fifo(5);
	{
		struct thr a = { .fd = fd };
		pthread_t th;

		pthread_create(&th, NULL, began_thread, &a);
		while (!a.done)
			usleep(1000);
		CHECK(sched_is(a.tid, SCHED_FIFO, 98), "the thread that began is not boosted");
		CHECK(sched_is(me, SCHED_FIFO, 5), "another thread of the owner was boosted");
		CHECK(vt_seg_end(fd) == 0, "end by another thread");
		CHECK(sched_is(a.tid, SCHED_FIFO, 10), "the thread that began is still boosted after the end");
		CHECK(sched_is(me, SCHED_FIFO, 5), "the ending thread's priority changed");
		a.step = 1;
		pthread_join(th, NULL);
	}

	/* The trace: BOOST/UNBOOST with the thread and the priorities. */
	{
		struct gcaps_trace_event ev[64];
		struct gcaps_trace_read r = { .size = sizeof(r), .events_ptr = (uintptr_t)ev,
					      .events_cap = 64, .event_size = sizeof(ev[0]) };
		unsigned int i, boosts = 0, unboosts = 0, own10 = 0, left = 0;

		CHECK(ioctl(fd, GCAPS_IOC_TRACE_READ, &r) == 0, "TRACE_READ: %s", strerror(errno));
		for (i = 0; i < r.events_count; i++) {
			if (ev[i].kind == GCAPS_TRACE_BOOST) {
				boosts++;
				CHECK(ev[i].cpu_priority == 98 && ev[i].tid != 0, "BOOST prio %d tid %u",
				      ev[i].cpu_priority, ev[i].tid);
			} else if (ev[i].kind == GCAPS_TRACE_UNBOOST) {
				unboosts++;
				own10 += ev[i].cpu_priority == 10;
				left += ev[i].cpu_priority == -1;
			}
		}
		CHECK(boosts == 4 && unboosts == 4 && own10 >= 2 && left == 1,
		      "trace: %u BOOST, %u UNBOOST (%u to 10, %u left alone), want 4, 4 (>= 2, 1)",
		      boosts, unboosts, own10, left);
	}
	set_fifo(0);
	close(fd);
	unload();
}

/* --------------------------------------------------------------- tail rule */

/*
 * A (FIFO 10, CPU 0) runs the only segment; it wakes B (FIFO 10, CPU 0), which is ready
 * behind it from then on, spins 20 ms and ends. With the boost A returns from its end's
 * ceiling (and loses the boost) at the tail of FIFO 10, behind B: B runs before A's end call
 * returns. Without it (boost=0: Linux's head of the level, the module before issue 20) A
 * goes on and returns first.
 */
static int tail_fd, tail_pipe[2];
static volatile uint64_t a_end_call, a_end_ret, b_start;

static void *tail_b(void *arg)
{
	char c;

	(void)arg;
	pin(0);
	set_fifo(10);
	if (read(tail_pipe[0], &c, 1) != 1)
		return NULL;
	b_start = now_ns();
	spin_own(20, NULL, 0, 0);
	return NULL;
}

static void *tail_a(void *arg)
{
	(void)arg;
	pin(0);
	set_fifo(10);
	CHECK(vt_seg_begin(tail_fd, 0, NULL) == 0, "tail: A's begin");
	if (write(tail_pipe[1], "g", 1) != 1)
		return NULL;
	spin_own(20, NULL, 0, 0);
	a_end_call = now_ns();
	CHECK(vt_seg_end(tail_fd) == 0, "tail: A's end");
	a_end_ret = now_ns();
	return NULL;
}

static void tail_rule(int boost)
{
	pthread_t a, b;

	load(boost);
	tail_fd = open_dev();
	if (pipe(tail_pipe))
		exit(1);
	a_end_call = a_end_ret = b_start = 0;
	pthread_create(&b, NULL, tail_b, NULL);
	usleep(20000);	/* B blocks in its read (it is woken by A, whenever it got there) */
	pthread_create(&a, NULL, tail_a, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("tail rule, boost=%d: B (FIFO 10, woken by A inside A's segment) started %lld us "
	       "after A's end call, which returned %lld us after it\n", boost,
	       (long long)(b_start - a_end_call) / 1000, (long long)(a_end_ret - a_end_call) / 1000);
	if (boost)
		CHECK(b_start > a_end_call && b_start < a_end_ret,
		      "tail rule: B did not run before A's end returned (A went back to FIFO 10 at "
		      "the head, not the tail)");
	else
		CHECK(b_start > a_end_ret, "boost=0: B ran before A's end returned (want Linux's "
		      "head of the level for A, as before the holder boost)");
	close(tail_pipe[0]);
	close(tail_pipe[1]);
	close(tail_fd);
	unload();
}

/* --------------------------------------------------------------- kill -9 */

static void killed_owner(void)
{
	int fd, go[2];
	pid_t k, p;
	char b;

	load(1);
	fd = open_dev();
	if (pipe(go))
		exit(1);
	k = fork();
	if (k == 0) {
		int f = open_dev();

		pin(0);
		set_fifo(10);
		if (vt_seg_begin(f, 0, NULL))
			_exit(1);
		for (;;)
			pause();
	}
	wait_state(fd, k, GCAPS_STATE_RUNNING, "K's segment");
	/* K goes to 98 when it leaves the ceiling of its begin, after LIST can show it running */
	CHECK(wait_sched(k, SCHED_FIFO, 98), "K not boosted");
	p = fork();
	if (p == 0) {
		int f = open_dev();
		uint32_t st;

		pin(1);
		set_fifo(5);
		if (vt_seg_begin(f, 0, &st) || st != GCAPS_STATE_PENDING)
			_exit(1);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		if (vt_seg_end(f))
			_exit(3);
		/* back at its own priority, checked by itself */
		_exit(sched_is(gettid(), SCHED_FIFO, 5) ? 0 : 4);
	}
	wait_state(fd, p, GCAPS_STATE_PENDING, "P's segment");
	CHECK(sched_is(p, SCHED_FIFO, 5), "pending P boosted");
	kill(k, SIGKILL);
	CHECK(waitpid(k, NULL, 0) == k, "waitpid K");
	wait_state(fd, p, GCAPS_STATE_RUNNING, "P after K's kill");
	CHECK(list_state(fd, k) == -1, "K's client still listed");
	CHECK(wait_sched(p, SCHED_FIFO, 98), "P not boosted once its segment runs");
	if (write(go[1], "g", 1) != 1)
		exit(1);
	CHECK(reap(p, "P (ends, back at FIFO 5)"), "P");
	CHECK(status(fd).boost == GCAPS_BOOST_ON, "something still boosted");
	close(fd);
	unload();
}

/* --------------------------------------------------------------- priority inheritance */

/*
 * Thread `tid`'s effective priority as /proc shows it (stat field 18: prio - 100, so -1 -
 * rt_priority for a real-time thread), including what it inherits; INT_MIN if unreadable.
 */
static int eff_prio(pid_t tid)
{
	char path[64], buf[512], *p;
	int prio = INT_MIN, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return INT_MIN;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* after ')': field 3 (state) ... field 18 (priority) */
		for (i = 3, p = strtok(p + 1, " "); p && i < 18; i++)
			p = strtok(NULL, " ");
		if (p)
			prio = atoi(p);
	}
	fclose(f);
	return prio;
}

/* Polls (at most 5 s) until thread `tid`'s effective priority is `prio` (stat's scale). */
static int wait_eff(pid_t tid, int prio)
{
	uint64_t end = now_ns() + 5000000000ull;

	while (eff_prio(tid) != prio) {
		if (now_ns() > end)
			return 0;
		usleep(500);
	}
	return 1;
}

struct pi_waiter {
	pthread_mutex_t *m;
	volatile int locked;
};

static void *pi_wait(void *arg)
{
	struct pi_waiter *w = arg;

	set_fifo(99);
	pthread_mutex_lock(w->m);
	w->locked = 1;
	pthread_mutex_unlock(w->m);
	return NULL;
}

static void inheritance(void)
{
	pthread_mutexattr_t ma;
	pthread_mutex_t m;
	struct pi_waiter w = { .m = &m };
	pthread_t th;
	pid_t me = gettid();
	int fd;

	pthread_mutexattr_init(&ma);
	CHECK(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) == 0, "PTHREAD_PRIO_INHERIT");
	pthread_mutex_init(&m, &ma);
	load(1);
	fd = open_dev();
	set_fifo(10);

	/* The end unboosts an owner that inherits 99. */
	CHECK(vt_seg_begin(fd, 0, NULL) == 0 && sched_is(me, SCHED_FIFO, 98), "PI: owner not boosted");
	pthread_mutex_lock(&m);
	pthread_create(&th, NULL, pi_wait, &w);
	CHECK(wait_eff(me, -100), "PI: the owner never inherited the waiter's 99 (effective %d)",
	      eff_prio(me));
	CHECK(vt_seg_end(fd) == 0, "PI: end");
	CHECK(sched_is(me, SCHED_FIFO, 10), "PI: after the end the owner's own priority is not FIFO 10");
	CHECK(eff_prio(me) == -100 && !w.locked,
	      "PI: the unboost dropped the inherited 99 (effective %d, waiter %s)", eff_prio(me),
	      w.locked ? "ran" : "waits");

	/* The begin boosts an owner that inherits 99. */
	CHECK(vt_seg_begin(fd, 0, NULL) == 0 && sched_is(me, SCHED_FIFO, 98),
	      "PI: owner not boosted while it inherits");
	CHECK(eff_prio(me) == -100 && !w.locked,
	      "PI: the boost dropped the inherited 99 (effective %d, waiter %s)", eff_prio(me),
	      w.locked ? "ran" : "waits");

	/* The unlock leaves the boost; the end the owner's own priority. */
	pthread_mutex_unlock(&m);
	pthread_join(th, NULL);
	CHECK(w.locked, "PI: the waiter never got the mutex");
	CHECK(eff_prio(me) == -99, "PI: after the unlock the owner is at effective %d, not its "
	      "boost 98 (-99)", eff_prio(me));
	CHECK(vt_seg_end(fd) == 0 && sched_is(me, SCHED_FIFO, 10) && eff_prio(me) == -11,
	      "PI: after the last end the owner is at effective %d, not its own 10 (-11)",
	      eff_prio(me));
	set_fifo(0);
	close(fd);
	unload();
	pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&ma);
}

int main(void)
{
	uint64_t w0, w1;
	FILE *rt;

	setvbuf(stdout, NULL, _IONBF, 0);
	start_watchdog(280, &phase, NULL);
	R = mmap(NULL, sizeof(*R), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (R == MAP_FAILED)
		return 1;
	/* L and H spin up to 640 ms of one second on CPU 0: no RT throttling in the way */
	rt = fopen("/proc/sys/kernel/sched_rt_runtime_us", "w");
	if (rt) {
		fputs("-1", rt);
		fclose(rt);
	}
	pin(1);
	phase = "D4 boost=0";
	w0 = d4(0);
	phase = "D4 boost=1";
	w1 = d4(1);
	printf("FIGURE D4: T's GPU wait boost=0 %llu us, boost=1 %llu us\n",
	       (unsigned long long)w0 / 1000, (unsigned long long)w1 / 1000);
	phase = "thread rules";
	rules();
	phase = "kill -9";
	killed_owner();
	phase = "tail rule";
	tail_rule(0);
	tail_rule(1);
	phase = "priority inheritance";
	inheritance();
	rt = fopen("/proc/sys/kernel/sched_rt_runtime_us", "w");
	if (rt) {
		fputs("950000", rt);
		fclose(rt);
	}
	if (failures)
		return 1;
	printf("holder boost: ok\n");
	return 0;
}
