// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mechanism gate (issue 31) with real processes on the emulated GPU: gcaps.ko is loaded with
 * mechanism=gate whatever the suite's VM_MECHANISM, gcaps_simgpu.ko with theta_us=THETA_US.
 * vmtest-timeout=120
 *
 * Each process below is a forked "puppet" at SCHED_FIFO with its own /dev/gcaps client and
 * TSG, driven over pipes: the parent orders every step by the replies (each reply comes after
 * the puppet's syscall returned), never by sleeping. GPU times are the emulated GPU's model
 * time (CLOCK_MONOTONIC ns), exact whatever the load; theta is the switch cost.
 *
 * 1. Hand-over at an end. L (GPU priority 20) begins (RUNNING), runs one item to its end and
 *    waits for it (its TSG is idle); W (GPU priority 10) begins (PENDING) and queues one item,
 *    which does not start (W's channels are disabled: the engine skips W). L's end hands the
 *    GPU to W without a runlist submit: simgpu's `submits` is unchanged across the end, its
 *    `gates` +1, gcaps's STATS HANDOVER +1 and PREEMPT +0; W's item starts at or after L's end
 *    call + theta and at most theta after L's end returned (ops->gate enables W's channels
 *    inside the end call and the idle engine then switches to W in theta); while W's segment runs, W's TSG
 *    is enabled and L's disabled (simgpuctl's bitmap), and after W's end both are enabled.
 * 2. A begin preempts. L (GPU priority 10) begins and queues a 3 s item; H (GPU priority 20)
 *    begins while L's item runs (checked afterwards on L's GPU times: else the section is
 *    rerun): H's begin preempts L's TSG: gcaps's PREEMPT +1, simgpu's gate_preempts +1,
 *    `submits` unchanged. H's item, queued after its begin returned, starts exactly theta after
 *    its submit (the engine was idle: L's context saved, nothing else enabled). H's end (H
 *    idle) is a HANDOVER; L's item resumes and finishes, preempted at least once.
 * 3. An end with work running preempts. A (GPU priority 20) begins and queues a 3 s item; B
 *    (GPU priority 10) begins (PENDING) and queues an item; A ends without waiting for its work
 *    (checked on A's GPU times: its item still ran at A's end call, else rerun): the end
 *    preempts A's TSG (PREEMPT +1, gate_preempts +1, no submit) and B's item starts no earlier
 *    than 2 theta after A's end call (the preempt saves A's context in theta, then ops->gate
 *    enables B and the switch to B takes theta) and at most theta after A's end returned (B is
 *    enabled inside the end call). After B's end A's item finishes, preempted at least once
 *    if it had started before A's end call.
 * 4. A preempt that does not complete. L (GPU priority 10) runs a 3 s item; the engine is
 *    stalled (SIMGPU_IOC_TEST_STALL: a hung engine acknowledges no preempt); H (GPU priority 20)
 *    begins: its gate preempts L, waits submit_timeout_ms (100 ms), runs the recovery (engine
 *    cleared, runlist rebuilt and submitted); once H's stack shows that submit waiting, the
 *    test ends the stall. H's begin returns RUNNING; simgpu counts preempt_timeouts +1,
 *    recoveries +1, gate_preempts +1, one submit (the recovery's), no submit timeout; gcaps
 *    counts the -ETIMEDOUT (submit_timeouts +1) and a PREEMPT; H's channels are enabled and L's
 *    disabled, H's item runs (theta after its submit), L's finishes after H's end.
 *
 * Mutations seen failing it: ops->gate submitting the runlist (1: submits +1), ops->gate never
 * preempting (2, 3: PREEMPT +0), ops->gate not letting an idle engine pick (1: W's item does not
 * start: its wait times out), ops->gate's preempt wait without its timeout (4: H never reaches the
 * recovery's submit).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "../lib/vmtest.h"
#include "../../../module/simgpu/gcaps_simgpu.h"

#define THETA_US	500
#define THETA_NS	(THETA_US * 1000ull)
#define LONG_MS		3000		/* an item that runs on while the next step happens */
#define SHORT_MS	10
#define REPLY_MS	30000		/* a puppet's reply: bounds a failure only */
#define WAIT_NS		20000000000ull	/* a GPU wait: bounds a failure only */

static const char *volatile phase = "start";

enum { P_BEGIN, P_END, P_SUBMIT, P_WAIT, P_EXIT };

struct pcmd {
	int op;
	int arg;
	uint64_t seqno;
};

struct prep {
	int rc;				/* 0 or errno */
	uint32_t state;			/* BEGIN: the reply's state */
	uint64_t call, ret;		/* CLOCK_MONOTONIC around the syscall */
	uint64_t seqno, submit_ns;	/* SUBMIT */
	struct simgpu_completion done;	/* WAIT */
};

struct puppet {
	pid_t pid;
	int to, from;
	uint32_t tsgid;
	const char *name;
};

static struct puppet pp[2];
static int ctl;

static void kill_all(void)
{
	for (int i = 0; i < 2; i++)
		if (pp[i].pid > 0)
			kill(pp[i].pid, SIGKILL);
}

/* Fatal: "FAIL: <message>", the puppets killed, exit(1). */
static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	kill_all();
	exit(1);
}

static void puppet_main(int in, int out, int prio)
{
	struct simgpu_tsg_info info = { .size = sizeof(info) };
	int g, gpu;
	struct pcmd c;
	struct prep r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	set_fifo(prio);
	g = open_dev();
	gpu = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR);
	memset(&r, 0, sizeof(r));
	if (gpu < 0 || ioctl(gpu, SIMGPU_IOC_INFO, &info))
		r.rc = errno;
	r.seqno = info.tsgid;
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	for (;;) {
		struct simgpu_submit s = { .size = sizeof(s) };
		struct simgpu_wait w = { .size = sizeof(w), .timeout_ns = WAIT_NS };

		if (read(in, &c, sizeof(c)) != sizeof(c))
			_exit(0);
		memset(&r, 0, sizeof(r));
		r.call = now_ns();
		switch (c.op) {
		case P_BEGIN:
			r.rc = vt_seg_begin(g, c.arg, &r.state);
			break;
		case P_END:
			r.rc = vt_seg_end(g);
			break;
		case P_SUBMIT:
			s.exec_ns = (uint64_t)c.arg * 1000000ull;
			if (ioctl(gpu, SIMGPU_IOC_SUBMIT, &s))
				r.rc = errno;
			r.seqno = s.seqno;
			r.submit_ns = s.submit_ns;
			break;
		case P_WAIT:
			w.seqno = c.seqno;
			if (ioctl(gpu, SIMGPU_IOC_WAIT, &w))
				r.rc = errno;
			r.done = w.done;
			break;
		default:
			_exit(0);
		}
		r.ret = now_ns();
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
}

/* The puppet's reply to its last command; fatal if it does not come or reports an error. */
static struct prep reply(struct puppet *p, const char *what)
{
	struct pollfd pf = { .fd = p->from, .events = POLLIN };
	struct prep r;

	if (poll(&pf, 1, REPLY_MS) != 1 || read(p->from, &r, sizeof(r)) != sizeof(r))
		die("%s %s: no reply within %d ms", p->name, what, REPLY_MS);
	if (r.rc)
		die("%s %s: %s", p->name, what, strerror(r.rc));
	return r;
}

static struct prep cmd(struct puppet *p, int op, int arg, uint64_t seqno, const char *what)
{
	struct pcmd c = { .op = op, .arg = arg, .seqno = seqno };

	if (write(p->to, &c, sizeof(c)) != sizeof(c))
		die("%s %s: write: %s", p->name, what, strerror(errno));
	return reply(p, what);
}

static void spawn(struct puppet *p, const char *name, int prio)
{
	int to[2], from[2];

	if (pipe(to) || pipe(from))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	p->name = name;
	p->pid = fork();
	if (p->pid == 0) {
		close(to[1]);
		close(from[0]);
		close(ctl);
		puppet_main(to[0], from[1], prio);
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	p->to = to[1];
	p->from = from[0];
	p->tsgid = (uint32_t)reply(p, "start (FIFO, /dev/gcaps, a TSG)").seqno;
}

static void reap(struct puppet *p)
{
	struct pcmd c = { .op = P_EXIT };
	int st;

	if (write(p->to, &c, sizeof(c)) != sizeof(c))
		kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
	close(p->to);
	close(p->from);
	p->pid = 0;
}

/* The emulated GPU's counters and enable bitmap. */
static uint64_t en[1024 / 64];

static struct simgpu_runlist sim(void)
{
	struct simgpu_runlist rl = { .size = sizeof(rl), .enabled_ptr = (uintptr_t)en,
				     .enabled_cap = 1024 / 64 };

	if (ioctl(ctl, SIMGPU_IOC_RUNLIST, &rl))
		die("SIMGPU_IOC_RUNLIST: %s", strerror(errno));
	return rl;
}

static int enabled(uint32_t id)
{
	return en[id / 64] >> (id % 64) & 1;
}

static struct gcaps_stats stats(void)
{
	struct gcaps_stats s = { .size = sizeof(s) };
	int fd = open_dev();

	if (ioctl(fd, GCAPS_IOC_STATS, &s))
		die("GCAPS_IOC_STATS: %s", strerror(errno));
	close(fd);
	return s;
}

#define UPD(s, k) ((s).updates[GCAPS_UPDATE_##k].count)

/*
 * Wait until gcaps's TSG mirror holds both puppets' TSGs (LIST takes the update lock: their
 * opens' events are applied, with any gate they caused), so the counters read next move only
 * with the steps that follow.
 */
static void settle(void)
{
	static struct gcaps_tsg_info ti[64];
	uint64_t deadline = now_ns() + 15000000000ull;
	int fd = open_dev();

	for (;;) {
		struct gcaps_list l = { .size = sizeof(l), .tsgs_ptr = (uintptr_t)ti, .tsgs_cap = 64 };
		int found = 0;

		if (ioctl(fd, GCAPS_IOC_LIST, &l))
			die("GCAPS_IOC_LIST: %s", strerror(errno));
		for (uint32_t i = 0; i < l.tsgs_count && i < 64; i++)
			found += ti[i].tsgid == pp[0].tsgid || ti[i].tsgid == pp[1].tsgid;
		if (found == 2)
			break;
		if (now_ns() > deadline)
			die("the puppets' TSGs not in gcaps's mirror after 15 s");
		usleep(1000);
	}
	close(fd);
}

/* Section @ph: puppets pp[0] (@an) and pp[1] (@bn) at SCHED_FIFO @pa and @pb, settled. */
static void two(const char *ph, const char *an, int pa, const char *bn, int pb)
{
	phase = ph;
	spawn(&pp[0], an, pa);
	spawn(&pp[1], bn, pb);
	settle();
}

static void reap_two(void)
{
	reap(&pp[0]);
	reap(&pp[1]);
}

/* @p begins at GPU priority @prio; its reply's state must be GCAPS_STATE_@st. */
#define BEGIN(p, prio, st) begin(p, prio, GCAPS_STATE_##st, #st)

static struct prep begin(struct puppet *p, int prio, uint32_t want, const char *name)
{
	struct prep b = cmd(p, P_BEGIN, prio, 0, "begin");

	CHECK(b.state == want, "%s's begin: state %u, want %s", p->name, b.state, name);
	return b;
}

/* The emulated GPU's counters and gcaps's STATS, read together. */
static void snap(struct simgpu_runlist *r, struct gcaps_stats *s)
{
	*r = sim();
	*s = stats();
}

/* Between snaps @r0/@s0 and @r1/@s1 @what preempted: PREEMPT +1, gate_preempts +1, no submit. */
static void check_preempted(const char *what, const struct simgpu_runlist *r0,
			    const struct simgpu_runlist *r1, const struct gcaps_stats *s0,
			    const struct gcaps_stats *s1)
{
	CHECK(UPD(*s1, PREEMPT) == UPD(*s0, PREEMPT) + 1, "%s: STATS PREEMPT +%llu, want +1", what,
	      (unsigned long long)(UPD(*s1, PREEMPT) - UPD(*s0, PREEMPT)));
	CHECK(r1->gate_preempts == r0->gate_preempts + 1 && r1->submits == r0->submits,
	      "%s: gate_preempts +%llu (want 1), submits +%llu (want 0)", what,
	      (unsigned long long)(r1->gate_preempts - r0->gate_preempts),
	      (unsigned long long)(r1->submits - r0->submits));
}

/* @p's item submitted @sub started exactly theta after its submit (the engine was idle). */
static void check_theta(struct puppet *p, const struct prep *sub, const struct prep *d)
{
	CHECK(d->done.start_ns == sub->submit_ns + THETA_NS,
	      "%s's item started %lld ns after its submit, want theta %llu exactly", p->name,
	      (long long)(d->done.start_ns - sub->submit_ns), THETA_NS);
}

static void handover(void)
{
	struct puppet *l = &pp[0], *w = &pp[1];
	struct simgpu_runlist r0, r1;
	struct gcaps_stats s0, s1;
	struct prep it, e, d;

	two("1: hand-over at an end", "L", 20, "W", 10);
	BEGIN(l, 20, RUNNING);
	it = cmd(l, P_SUBMIT, SHORT_MS, 0, "submit");
	cmd(l, P_WAIT, 0, it.seqno, "wait");
	BEGIN(w, 10, PENDING);
	it = cmd(w, P_SUBMIT, SHORT_MS, 0, "submit");
	snap(&r0, &s0);
	CHECK(enabled(l->tsgid) && !enabled(w->tsgid),
	      "during L's segment: L's TSG %u enabled %d, W's %u enabled %d (want 1, 0)",
	      l->tsgid, enabled(l->tsgid), w->tsgid, enabled(w->tsgid));
	e = cmd(l, P_END, 0, 0, "end");
	snap(&r1, &s1);
	CHECK(r1.submits == r0.submits, "L's end submitted %llu runlists (a gate submits none)",
	      (unsigned long long)(r1.submits - r0.submits));
	CHECK(r1.gates == r0.gates + 1, "L's end: %llu gates, want 1",
	      (unsigned long long)(r1.gates - r0.gates));
	CHECK(r1.gate_preempts == r0.gate_preempts, "L's end (L idle) preempted");
	CHECK(UPD(s1, HANDOVER) == UPD(s0, HANDOVER) + 1 && UPD(s1, PREEMPT) == UPD(s0, PREEMPT),
	      "L's end: STATS HANDOVER +%llu PREEMPT +%llu, want +1 +0",
	      (unsigned long long)(UPD(s1, HANDOVER) - UPD(s0, HANDOVER)),
	      (unsigned long long)(UPD(s1, PREEMPT) - UPD(s0, PREEMPT)));
	CHECK(enabled(w->tsgid) && !enabled(l->tsgid),
	      "during W's segment: W's TSG enabled %d, L's %d (want 1, 0)", enabled(w->tsgid),
	      enabled(l->tsgid));
	d = cmd(w, P_WAIT, 0, it.seqno, "wait");
	printf("hand-over: L's end call %llu returned +%llu ns; W's item (queued %llu ns before "
	       "the end) started %lld ns after the end returned (bound theta %llu ns)\n",
	       (unsigned long long)e.call, (unsigned long long)(e.ret - e.call),
	       (unsigned long long)(e.call - it.submit_ns),
	       (long long)(d.done.start_ns - e.ret), THETA_NS);
	CHECK(d.done.start_ns >= e.call + THETA_NS,
	      "W's item started %lld ns after L's end call, before a switch (theta %llu)",
	      (long long)(d.done.start_ns - e.call), THETA_NS);
	CHECK(d.done.start_ns <= e.ret + THETA_NS,
	      "W's item started %llu ns after L's end returned, more than theta %llu",
	      (unsigned long long)(d.done.start_ns - e.ret), THETA_NS);
	CHECK(d.done.end_ns - d.done.start_ns == SHORT_MS * 1000000ull && !d.done.preemptions,
	      "W's item ran %llu ns with %u preemptions, want %d ms alone",
	      (unsigned long long)(d.done.end_ns - d.done.start_ns), d.done.preemptions, SHORT_MS);
	cmd(w, P_END, 0, 0, "end");
	sim();
	CHECK(enabled(w->tsgid) && enabled(l->tsgid), "no segment open: W's TSG enabled %d, "
	      "L's %d (want both)", enabled(w->tsgid), enabled(l->tsgid));
	reap_two();
}

/* 2. Returns 2 if L's item was not running at H's begin (rerun). */
static int begin_preempts(void)
{
	struct puppet *l = &pp[0], *h = &pp[1];
	struct simgpu_runlist r0, r1, r2;
	struct gcaps_stats s0, s1, s2;
	struct prep b, itl, ith, d, dl;
	int rc = 0;

	two("2: a begin preempts", "L", 10, "H", 20);
	BEGIN(l, 10, RUNNING);
	itl = cmd(l, P_SUBMIT, LONG_MS, 0, "submit");
	snap(&r0, &s0);
	b = cmd(h, P_BEGIN, 20, 0, "begin");
	snap(&r1, &s1);
	ith = cmd(h, P_SUBMIT, SHORT_MS, 0, "submit");
	d = cmd(h, P_WAIT, 0, ith.seqno, "wait");
	cmd(h, P_END, 0, 0, "end");
	snap(&r2, &s2);
	dl = cmd(l, P_WAIT, 0, itl.seqno, "wait");
	cmd(l, P_END, 0, 0, "end");
	if (dl.done.end_ns <= b.call) {	/* L's work was over: nothing to preempt */
		printf("(L's item ended before H's begin call: the VM was too slow)\n");
		rc = 2;
		goto out;
	}
	CHECK(b.state == GCAPS_STATE_RUNNING, "H's begin: state %u, want RUNNING", b.state);
	check_preempted("H's begin over L's running work", &r0, &r1, &s0, &s1);
	check_theta(h, &ith, &d);
	CHECK(UPD(s2, HANDOVER) == UPD(s1, HANDOVER) + 1 && UPD(s2, PREEMPT) == UPD(s1, PREEMPT),
	      "H's end (H idle): STATS HANDOVER +%llu PREEMPT +%llu, want +1 +0",
	      (unsigned long long)(UPD(s2, HANDOVER) - UPD(s1, HANDOVER)),
	      (unsigned long long)(UPD(s2, PREEMPT) - UPD(s1, PREEMPT)));
	CHECK(r2.submits == r0.submits, "H's segment submitted %llu runlists",
	      (unsigned long long)(r2.submits - r0.submits));
	/* (an item still switching in at H's begin had not started: nothing of it to preempt) */
	CHECK(dl.done.preemptions >= 1 || dl.done.start_ns > b.call,
	      "L's item started %lld ns before H's begin and was never preempted",
	      (long long)(b.call - dl.done.start_ns));
	printf("begin preempts: H's begin call took %llu ns; H's item started theta after its "
	       "submit; L's item preempted %u time(s)\n", (unsigned long long)(b.ret - b.call),
	       dl.done.preemptions);
out:
	reap_two();
	return rc;
}

/* 3. Returns 2 if A's item was not running at A's end call (rerun). */
static int async_end(void)
{
	struct puppet *a = &pp[0], *b = &pp[1];
	struct simgpu_runlist r0, r1;
	struct gcaps_stats s0, s1;
	struct prep ita, itb, e, db, da;
	int rc = 0;

	two("3: an end with work running preempts", "A", 20, "B", 10);
	BEGIN(a, 20, RUNNING);
	ita = cmd(a, P_SUBMIT, LONG_MS, 0, "submit");
	BEGIN(b, 10, PENDING);
	itb = cmd(b, P_SUBMIT, SHORT_MS, 0, "submit");
	snap(&r0, &s0);
	e = cmd(a, P_END, 0, 0, "end (its work still queued)");
	snap(&r1, &s1);
	db = cmd(b, P_WAIT, 0, itb.seqno, "wait");
	cmd(b, P_END, 0, 0, "end");
	da = cmd(a, P_WAIT, 0, ita.seqno, "wait");
	if (da.done.end_ns <= e.call) {
		printf("(A's item ended before A's end call: the VM was too slow)\n");
		rc = 2;
		goto out;
	}
	check_preempted("A's end with its work running", &r0, &r1, &s0, &s1);
	CHECK(db.done.start_ns >= e.call + 2 * THETA_NS && db.done.start_ns <= e.ret + THETA_NS,
	      "B's item started %lld ns after A's end call, %lld after it returned: want at "
	      "least 2 theta after the call, at most theta (%llu) after the return",
	      (long long)(db.done.start_ns - e.call), (long long)(db.done.start_ns - e.ret),
	      THETA_NS);
	CHECK(da.done.preemptions >= 1 || da.done.start_ns > e.call,
	      "A's item started before A's end and was never preempted");
	printf("async end: B's item started %lld ns after A's end returned (bound theta); A's "
	       "item preempted %u time(s)\n", (long long)(db.done.start_ns - e.ret),
	       da.done.preemptions);
out:
	reap_two();
	return rc;
}

static void stall(uint32_t ms)
{
	struct simgpu_test_stall st = { .size = sizeof(st), .stall_ms = ms };

	if (ioctl(ctl, SIMGPU_IOC_TEST_STALL, &st))
		die("SIMGPU_IOC_TEST_STALL %u: %s", ms, strerror(errno));
}

static void preempt_timeout(void)
{
	struct puppet *l = &pp[0], *h = &pp[1];
	struct pcmd c = { .op = P_BEGIN, .arg = 20 };
	struct simgpu_runlist r0, r1;
	struct gcaps_stats s0, s1;
	struct prep b, itl, ith, d, dl;
	uint64_t deadline;

	two("4: a preempt that does not complete", "L", 10, "H", 20);
	BEGIN(l, 10, RUNNING);
	itl = cmd(l, P_SUBMIT, LONG_MS, 0, "submit");
	snap(&r0, &s0);
	stall(10000);
	if (write(h->to, &c, sizeof(c)) != sizeof(c))
		die("H begin: write: %s", strerror(errno));
	/* H's gate waits for L's preempt, gives up after 100 ms and recovers: its submit waits. */
	deadline = now_ns() + 15000000000ull;
	while (!stack_shows(h->pid, "simgpu_submit_wait")) {
		if (now_ns() > deadline) {
			stall(0);
			die("H's begin did not reach the recovery's runlist submit in 15 s");
		}
		usleep(1000);
	}
	stall(0);
	b = reply(h, "begin (its preempt timed out)");
	snap(&r1, &s1);
	CHECK(b.state == GCAPS_STATE_RUNNING, "H's begin: state %u, want RUNNING", b.state);
	CHECK(r1.preempt_timeouts == r0.preempt_timeouts + 1 && r1.recoveries == r0.recoveries + 1 &&
		      r1.gate_preempts == r0.gate_preempts + 1 && r1.submits == r0.submits + 1 &&
		      r1.timeouts == r0.timeouts,
	      "H's begin: simgpu preempt_timeouts +%llu recoveries +%llu gate_preempts +%llu "
	      "submits +%llu submit timeouts +%llu, want +1 +1 +1 +1 +0",
	      (unsigned long long)(r1.preempt_timeouts - r0.preempt_timeouts),
	      (unsigned long long)(r1.recoveries - r0.recoveries),
	      (unsigned long long)(r1.gate_preempts - r0.gate_preempts),
	      (unsigned long long)(r1.submits - r0.submits),
	      (unsigned long long)(r1.timeouts - r0.timeouts));
	CHECK(s1.submit_timeouts == s0.submit_timeouts + 1 && UPD(s1, PREEMPT) == UPD(s0, PREEMPT) + 1,
	      "H's begin: gcaps submit_timeouts +%llu PREEMPT +%llu, want +1 +1",
	      (unsigned long long)(s1.submit_timeouts - s0.submit_timeouts),
	      (unsigned long long)(UPD(s1, PREEMPT) - UPD(s0, PREEMPT)));
	CHECK(enabled(h->tsgid) && !enabled(l->tsgid),
	      "after the recovery: H's TSG enabled %d, L's %d (want 1, 0)", enabled(h->tsgid),
	      enabled(l->tsgid));
	ith = cmd(h, P_SUBMIT, SHORT_MS, 0, "submit");
	d = cmd(h, P_WAIT, 0, ith.seqno, "wait");
	check_theta(h, &ith, &d);
	cmd(h, P_END, 0, 0, "end");
	dl = cmd(l, P_WAIT, 0, itl.seqno, "wait");
	CHECK(dl.done.end_ns > d.done.end_ns, "L's item ended before H's");
	cmd(l, P_END, 0, 0, "end");
	printf("preempt timeout: H's begin took %llu ns (a 100 ms preempt wait, the recovery, "
	       "the stall's end)\n", (unsigned long long)(b.ret - b.call));
	reap_two();
}

static void retry(int (*fn)(void), const char *name)
{
	for (int i = 0; i < 3; i++)
		if (fn() != 2)
			return;
	printf("FAIL: %s: the VM was too slow 3 times\n", name);
	failures++;
}

int main(void)
{
	struct simgpu_runlist rl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog(110, &phase, kill_all);
	sh("insmod /modules/gcaps.ko mechanism=gate");
	sh("insmod /modules/gcaps_simgpu.ko theta_us=500");	/* THETA_US */
	ctl = open("/dev/" SIMGPU_CTL_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("FAIL: open /dev/%s: %s\n", SIMGPU_CTL_DEVICE_NAME, strerror(errno));
		return 1;
	}
	rl = sim();
	if (!rl.bound || !rl.gate || rl.theta_us != THETA_US) {
		printf("FAIL: simgpu bound %u, gate %u, theta %u us (want 1, 1, %d)\n", rl.bound,
		       rl.gate, rl.theta_us, THETA_US);
		return 1;
	}
	handover();
	retry(begin_preempts, "begin preempts");
	retry(async_end, "async end");
	preempt_timeout();
	phase = "cleanup";
	close(ctl);
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
