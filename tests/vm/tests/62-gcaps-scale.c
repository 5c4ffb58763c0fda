// SPDX-License-Identifier: GPL-2.0
/*
 * gcaps.ko at scale, and at every capacity (issue 11; vmtest-timeout=180).
 *
 * gcaps.ko (max_clients_per_user=PER_USER) with gcaps_simgpu.ko (max_tsgs=MAX_TSGS = 1024: the
 * largest the emulated GPU allows, the backend contract's GCAPS_BE_MAX_TSGS and gcaps's own TSG
 * capacity). NPROC processes, each with its own /dev/gcaps client and TSGS_PER TSGs
 * of the emulated GPU (each an open file of /dev/gcaps_simgpu), driven by this process over
 * pipes (every wait bounded, REPLY_MS). Checked with LIST, STATUS and the runlist the engine
 * executes (SIMGPU_IOC_RUNLIST on the control device, decoded here; "on the runlist" below is
 * the TSGs the GPU may run: listed with their channels enabled, which under gcaps's mechanism
 * gate, where every TSG is listed, is the eligible ones):
 *
 * 1. Registration: NPROC + 1 clients (the children and this process), NTSG TSGs, each TSG
 *    owned by the child that opened it (owner tgid and owner client id), each child owning
 *    TSGS_PER TSGs, every TSG eligible and on the runlist, no real-time segment.
 * 2. Scheduling at scale: every child begins a segment, in a random order (fixed seed), with a
 *    random SCHED_FIFO priority (1..40, ties likely) or best-effort (one in ten); after each
 *    begin the winner (highest priority, first come among equals) is the only RUNNING client
 *    and exactly its TSGs are eligible and on the runlist; then segments end (mostly the
 *    winner, which hands over to the next; every fourth a pending one, which changes nothing,
 *    generation included) until all are idle and every TSG is eligible again.
 * 3. Capacities, with three real-time segments open (a winner and two pending): the per-user
 *    limit (EMFILE), the client table (ENOSPC, 128 clients: 18 clients of uid 1000 fill it, uid
 *    1001 is refused), the TSG capacity (the children open TSGs until all MAX_TSGS ids are
 *    taken, LIST shows all 1024 with their owners, the winner's are exactly the eligible ones;
 *    one more open of /dev/gcaps_simgpu: ENOSPC).
 *    Each refusal leaves LIST and the engine's runlist byte for byte as before, a later
 *    begin/end (a higher priority preempts, ends, hands back) works, and freeing one slot lets
 *    exactly one more in. The freed TSG is the winner's and its id goes to another process (the
 *    only free id): the new owner is listed and the TSG is not eligible.
 * Finally every segment ends (all TSGs eligible), STATS adds up, every process exits, both
 * modules unload. Every wait is bounded with its own message: a child's answer (REPLY_MS), LIST
 * polls (SETTLE_MS), the children's exit; a watchdog thread names the phase if a call into a
 * module never returns (WATCHDOG_S).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../../../module/simgpu/gcaps_simgpu.h"

/* A failed sh() gives up like too many failures do: the children are killed first. */
static void bail(void);
#define VMTEST_FATAL() bail()
#include "../lib/vmtest.h"

#define NPROC 100
#define TSGS_PER 2
#define NTSG (NPROC * TSGS_PER)	/* TSGs of the registration and scheduling phases */
#define MAX_TSGS 1024		/* max_tsgs of gcaps_simgpu = GCAPS_BE_MAX_TSGS */
#define PER_USER 110		/* max_clients_per_user of gcaps */
#define TABLE 128		/* gcaps's client table (docs/module.md) */
#define CHANNELS 2		/* gcaps_simgpu's default */
#define REPLY_MS 30000		/* every wait for a child's answer */
#define SETTLE_MS 30000		/* every bounded poll of LIST */
#define MAXT 16			/* TSG fds a child may hold */
#define MAXC 32			/* extra /dev/gcaps fds a child may hold */
#define NCHILD (NPROC + 2)	/* + two client holders of uid 1000 and 1001 */
#define WATCHDOG_S 150		/* below the harness's timeout: name the phase that hangs */
#define H1 NPROC
#define H2 (NPROC + 1)

enum { OP_BEGIN = 1, OP_END, OP_TSG_OPEN, OP_TSG_CLOSE, OP_GC_OPEN, OP_GC_CLOSE, OP_EXIT };
static const char *const op_name[] = { "", "begin", "end", "open TSG", "close TSG",
				       "open /dev/gcaps", "close /dev/gcaps", "exit" };

struct cmd {
	int op, arg;
};

struct rep {
	int rc, err, val[TSGS_PER];
};

#define FAIL(...)                                                              \
	do {                                                                   \
		printf("FAIL: " __VA_ARGS__);                                  \
		printf("\n");                                                  \
		if (++failures > 20)                                           \
			bail();                                                \
	} while (0)

/* The children, as this process sees them. */
static struct child {
	pid_t pid;
	int cmd_w, rep_r;
	int ntsg, tsg[MAXT];		/* TSG ids it holds */
	int prio;			/* open segment: -1 none, 0 best-effort, 1..98 SCHED_FIFO */
	uint64_t arrival;		/* begin order of the open segment */
	uint64_t client_id;		/* from LIST */
} ch[NCHILD];

static uint64_t arrivals;
static int gfd, ctlfd;
static const char *volatile phase = "loading the modules";

/* The watchdog's hook, and bail()'s: SIGKILL every child still there. */
static void kill_children(void)
{
	int i;

	for (i = 0; i < NCHILD; i++)
		if (ch[i].pid > 0)
			kill(ch[i].pid, SIGKILL);
}

static void bail(void)
{
	printf("FAIL: giving up (%d failures)\n", failures);
	kill_children();
	exit(1);
}

/* ------------------------------------------------------------------ child side */

static void reply(int fd, int rc, int err, int v0, int v1)
{
	struct rep r = { .rc = rc, .err = err, .val = { v0, v1 } };

	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
}

static int tsg_open(int *tsgid)
{
	struct simgpu_tsg_info ti = { .size = sizeof(ti) };
	int fd = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR);

	if (fd < 0)
		return -1;
	if (ioctl(fd, SIMGPU_IOC_INFO, &ti)) {
		close(fd);
		return -1;
	}
	*tsgid = ti.tsgid;
	return fd;
}

/*
 * A child: `uid` 0 opens its client and TSGS_PER TSGs at once and answers with their ids; a
 * holder (uid != 0) drops to that uid and holds only what it is told to open.
 */
static void child_main(int idx, int uid, int cmd_r, int rep_w)
{
	int tfd[MAXT], tid[MAXT], cfd[MAXC], nt = 0, nc = 0, gc = -1, k;
	struct cmd c;

	if (uid && setresuid(uid, uid, uid))
		_exit(2);
	if (!uid) {
		gc = open("/dev/gcaps", O_RDWR);
		if (gc < 0) {
			reply(rep_w, -1, errno, 0, 0);
			_exit(1);
		}
		for (nt = 0; nt < TSGS_PER; nt++) {
			tfd[nt] = tsg_open(&tid[nt]);
			if (tfd[nt] < 0) {
				reply(rep_w, -1, errno, 0, 0);
				_exit(1);
			}
		}
		reply(rep_w, 0, 0, tid[0], tid[1]);
	} else {
		reply(rep_w, 0, 0, 0, 0);
	}
	for (;;) {
		ssize_t n = read(cmd_r, &c, sizeof(c));
		int rc = 0, err = 0, v = 0;

		if (n != sizeof(c))
			_exit(n == 0 ? 0 : 4);	/* EOF: the parent is gone */
		switch (c.op) {
		case OP_BEGIN: {
			struct gcaps_seg_begin b = { .size = sizeof(b) };
			struct sched_param sp = { .sched_priority = c.arg };

			if (sched_setscheduler(0, c.arg ? SCHED_FIFO : SCHED_OTHER, &sp)) {
				rc = -1, err = errno;
				break;
			}
			rc = ioctl(gc, GCAPS_IOC_SEG_BEGIN, &b);
			err = rc ? errno : 0;
			v = b.state;
			break;
		}
		case OP_END: {
			struct gcaps_seg_end e = { .size = sizeof(e) };

			rc = ioctl(gc, GCAPS_IOC_SEG_END, &e);
			err = rc ? errno : 0;
			break;
		}
		case OP_TSG_OPEN:
			if (nt == MAXT) {
				rc = -1, err = EOVERFLOW;
				break;
			}
			tfd[nt] = tsg_open(&tid[nt]);
			if (tfd[nt] < 0) {
				rc = -1, err = errno;
				break;
			}
			v = tid[nt++];
			break;
		case OP_TSG_CLOSE:
			for (k = 0; k < nt && tid[k] != c.arg; k++)
				;
			if (k == nt) {
				rc = -1, err = ENOENT;
				break;
			}
			close(tfd[k]);
			tfd[k] = tfd[--nt];
			tid[k] = tid[nt];
			break;
		case OP_GC_OPEN:
			if (nc == MAXC) {
				rc = -1, err = EOVERFLOW;
				break;
			}
			cfd[nc] = open("/dev/gcaps", O_RDWR);
			if (cfd[nc] < 0)
				rc = -1, err = errno;
			else
				nc++;
			break;
		case OP_GC_CLOSE:
			if (!nc) {
				rc = -1, err = ENOENT;
				break;
			}
			close(cfd[--nc]);
			break;
		case OP_EXIT:
			_exit(0);
		default:
			_exit(5);
		}
		reply(rep_w, rc, err, v, idx);
	}
}

/* ------------------------------------------------------------------ parent side */

/* Bounded wait for child i's answer (REPLY_MS), with a message naming what it was doing. */
static struct rep await(int i, const char *what)
{
	struct pollfd p = { .fd = ch[i].rep_r, .events = POLLIN };
	struct rep r = { .rc = -1, .err = 0 };
	int n = poll(&p, 1, REPLY_MS);

	if (n != 1 || read(ch[i].rep_r, &r, sizeof(r)) != sizeof(r)) {
		printf("FAIL: child %d (pid %d) did not answer '%s' within %d ms%s\n", i, ch[i].pid,
		       what, REPLY_MS, n == 1 ? " (it died)" : "");
		bail();
	}
	return r;
}

static struct rep call(int i, int op, int arg)
{
	struct cmd c = { .op = op, .arg = arg };

	if (write(ch[i].cmd_w, &c, sizeof(c)) != sizeof(c)) {
		printf("FAIL: child %d (pid %d): cannot send '%s': %s\n", i, ch[i].pid, op_name[op],
		       strerror(errno));
		bail();
	}
	return await(i, op_name[op]);
}

static void spawn(int i, int uid)
{
	int cp[2], rp[2], j;

	if (pipe(cp) || pipe(rp)) {
		printf("FAIL: pipe: %s\n", strerror(errno));
		bail();
	}
	ch[i].pid = fork();
	if (ch[i].pid == 0) {
		/* Keep no other child's pipes (EOF must mean the parent is gone). */
		for (j = 0; j < i; j++) {
			close(ch[j].cmd_w);
			close(ch[j].rep_r);
		}
		close(cp[1]);
		close(rp[0]);
		child_main(i, uid, cp[0], rp[1]);
	}
	close(cp[0]);
	close(rp[1]);
	ch[i].cmd_w = cp[1];
	ch[i].rep_r = rp[0];
	ch[i].prio = -1;
}

struct snap {
	struct gcaps_list l;
	struct gcaps_client_info ci[TABLE + 8];
	struct gcaps_tsg_info ti[1024];
	struct simgpu_runlist rl;
	uint32_t words[1024 * (1 + CHANNELS) * 4];
	uint64_t enabled[1024 / 64];	/* TSG ids whose channels are enabled */
	int listed[1024];		/* TSG ids the GPU may run: on the engine's runlist with
					 * their channels enabled (under mechanism gate every TSG
					 * is listed and the enable state carries the decision) */
	int nlisted;
};

static struct snap cur, before;

static int take(struct snap *s)
{
	uint32_t i = 0;

	memset(&s->l, 0, sizeof(s->l));
	s->l.size = sizeof(s->l);
	s->l.clients_ptr = (uintptr_t)s->ci;
	s->l.clients_cap = TABLE + 8;
	s->l.tsgs_ptr = (uintptr_t)s->ti;
	s->l.tsgs_cap = 1024;
	if (ioctl(gfd, GCAPS_IOC_LIST, &s->l)) {
		FAIL("LIST: %s", strerror(errno));
		return -1;
	}
	memset(&s->rl, 0, sizeof(s->rl));
	s->rl.size = sizeof(s->rl);
	s->rl.words_ptr = (uintptr_t)s->words;
	s->rl.words_cap = sizeof(s->words) / 4;
	s->rl.enabled_ptr = (uintptr_t)s->enabled;
	s->rl.enabled_cap = 1024 / 64;
	if (ioctl(ctlfd, SIMGPU_IOC_RUNLIST, &s->rl)) {
		FAIL("SIMGPU_IOC_RUNLIST: %s", strerror(errno));
		return -1;
	}
	/* TSG entry: word 1 = its channel count, word 2 = the TSG id (simgpuctl decodes the
	 * same format in full; 40-simgpu-engine checks every field). */
	s->nlisted = 0;
	while (i < s->rl.entries && s->nlisted < 1024) {
		uint32_t *w = &s->words[i * 4];

		if (!(w[0] & 1) || w[1] < 1 || w[1] > 128) {
			FAIL("runlist entry %u is not a TSG entry", i);
			return -1;
		}
		if (s->enabled[(w[2] & 0xfff) / 64] >> (w[2] % 64) & 1)
			s->listed[s->nlisted++] = w[2] & 0xfff;
		i += 1 + w[1];
	}
	if (s->l.clients_count > TABLE + 8 || s->l.tsgs_count > 1024) {
		FAIL("LIST counts %u clients, %u TSGs: beyond any capacity", s->l.clients_count,
		     s->l.tsgs_count);
		return -1;
	}
	return 0;
}

/* The same clients, TSGs, decision and runlist, byte for byte. */
static int same(const struct snap *a, const struct snap *b)
{
	return a->l.clients_count == b->l.clients_count && a->l.tsgs_count == b->l.tsgs_count &&
	       a->l.generation == b->l.generation && a->l.rt_active == b->l.rt_active &&
	       !memcmp(a->ci, b->ci, a->l.clients_count * sizeof(a->ci[0])) &&
	       !memcmp(a->ti, b->ti, a->l.tsgs_count * sizeof(a->ti[0])) &&
	       a->rl.entries == b->rl.entries &&
	       !memcmp(a->words, b->words, a->rl.entries * 16);
}

static int child_of_tgid(uint32_t tgid)
{
	int i;

	for (i = 0; i < NCHILD; i++)
		if (ch[i].pid == (pid_t)tgid)
			return i;
	return -1;
}

static int tsgs_held(void)
{
	int i, n = 0;

	for (i = 0; i < NCHILD; i++)
		n += ch[i].ntsg;
	return n;
}

/* The expected winner: highest SCHED_FIFO priority, first come among equals; -1 if none. */
static int winner(void)
{
	int i, w = -1;

	for (i = 0; i < NCHILD; i++)
		if (ch[i].prio > 0 && (w < 0 || ch[i].prio > ch[w].prio ||
				       (ch[i].prio == ch[w].prio && ch[i].arrival < ch[w].arrival)))
			w = i;
	return w;
}

static uint32_t expected_state(int i, int w)
{
	if (ch[i].prio < 0)
		return GCAPS_STATE_IDLE;
	return (w < 0 || w == i) ? GCAPS_STATE_RUNNING : GCAPS_STATE_PENDING;
}

/*
 * LIST and the engine's runlist match the model: every child's client with its state and TSG
 * count, every TSG with its owner (tgid and client id), eligible exactly when no real-time
 * segment is open or its owner is the winner, and the runlist listing exactly those.
 */
static int check(const char *when)
{
	int w = winner(), i, bad = 0, seen[NCHILD] = { 0 };
	uint32_t k, n_elig = 0;
	int elig[1024] = { 0 };

	if (take(&cur))
		return -1;
	if (cur.l.rt_active != (w >= 0)) {
		FAIL("%s: rt_active %u, want %d", when, cur.l.rt_active, w >= 0);
		bad++;
	}
	for (k = 0; k < cur.l.clients_count; k++) {
		struct gcaps_client_info *c = &cur.ci[k];
		int i = child_of_tgid(c->tgid);

		if (c->tgid == (uint32_t)getpid()) {
			if (c->state != GCAPS_STATE_IDLE || c->num_tsgs) {
				FAIL("%s: the test's own client: state %u, %u TSGs", when, c->state,
				     c->num_tsgs);
				bad++;
			}
			continue;
		}
		if (i < 0) {
			FAIL("%s: client %llu of unknown tgid %u", when,
			     (unsigned long long)c->client_id, c->tgid);
			bad++;
			continue;
		}
		seen[i]++;
		if (i >= NPROC)
			continue;	/* a holder's clients: idle, no TSGs (checked by count) */
		ch[i].client_id = c->client_id;
		if (c->state != expected_state(i, w) || c->num_tsgs != (uint32_t)ch[i].ntsg) {
			FAIL("%s: child %d (pid %d, prio %d): state %u with %u TSGs, want %u with %d "
			     "(winner: child %d)", when, i, ch[i].pid, ch[i].prio, c->state,
			     c->num_tsgs, expected_state(i, w), ch[i].ntsg, w);
			bad++;
		}
	}
	for (i = 0; i < NPROC; i++)
		if (seen[i] != 1) {
			FAIL("%s: child %d (pid %d) has %d clients in LIST, want 1", when, i,
			     ch[i].pid, seen[i]);
			bad++;
		}
	if (cur.l.tsgs_count != (uint32_t)tsgs_held()) {
		FAIL("%s: LIST has %u TSGs, the children hold %d", when, cur.l.tsgs_count,
		     tsgs_held());
		bad++;
	}
	for (k = 0; k < cur.l.tsgs_count; k++) {
		struct gcaps_tsg_info *t = &cur.ti[k];
		int i = child_of_tgid(t->owner_tgid), j, holds = 0, want;

		for (j = 0; i >= 0 && j < ch[i].ntsg; j++)
			holds |= ch[i].tsg[j] == (int)t->tsgid;
		if (i < 0 || !holds || t->owner_client_id != ch[i].client_id) {
			FAIL("%s: TSG %u: owner tgid %u client %llu, not a child holding it", when,
			     t->tsgid, t->owner_tgid, (unsigned long long)t->owner_client_id);
			bad++;
			continue;
		}
		want = w < 0 || i == w;
		if (!!(t->flags & GCAPS_TSG_ELIGIBLE) != want || (t->flags & GCAPS_TSG_ALWAYS)) {
			FAIL("%s: TSG %u of child %d: flags %#x, want eligible %d (winner child %d)",
			     when, t->tsgid, i, t->flags, want, w);
			bad++;
		}
		if (want && t->tsgid < 1024) {
			elig[t->tsgid] = 1;
			n_elig++;
		}
	}
	if ((uint32_t)cur.nlisted != n_elig) {
		FAIL("%s: the GPU may run %d TSGs (listed, enabled), %u are eligible", when, cur.nlisted,
		     n_elig);
		bad++;
	}
	for (i = 0; i < cur.nlisted; i++)
		if (!elig[cur.listed[i]]) {
			FAIL("%s: the GPU may run TSG %d but it is not eligible (winner child %d)",
			     when, cur.listed[i], w);
			bad++;
		}
	return bad ? -1 : 0;
}

/* Bounded poll of LIST until it shows `tsgs` TSGs and `clients` clients (TSG events are
 * applied by gcaps's work item, after the driver's open/close returned). */
static void settle(uint32_t clients, uint32_t tsgs, const char *when)
{
	double t0 = now();

	while (!take(&cur) && (cur.l.clients_count != clients || cur.l.tsgs_count != tsgs)) {
		if (now() - t0 > SETTLE_MS / 1000.0) {
			FAIL("%s: LIST still shows %u clients and %u TSGs after %d ms, want %u and %u",
			     when, cur.l.clients_count, cur.l.tsgs_count, SETTLE_MS, clients, tsgs);
			bail();
		}
		usleep(2000);
	}
}

static void begin(int i, int prio, const char *when)
{
	struct rep r = call(i, OP_BEGIN, prio);
	int w;

	if (r.rc) {
		FAIL("%s: child %d begin (prio %d): %s", when, i, prio, strerror(r.err));
		return;
	}
	ch[i].prio = prio;
	ch[i].arrival = ++arrivals;
	w = winner();
	if ((uint32_t)r.val[0] != expected_state(i, w))
		FAIL("%s: child %d begin (prio %d) returned state %d, want %u (winner child %d)",
		     when, i, prio, r.val[0], expected_state(i, w), w);
}

static void end(int i, const char *when)
{
	struct rep r = call(i, OP_END, 0);

	if (r.rc)
		FAIL("%s: child %d end: %s", when, i, strerror(r.err));
	ch[i].prio = -1;
}

/* A refused call changed nothing: the same snapshot (after the event work item had time to
 * run), and a higher priority still preempts and hands back. */
static void unchanged_and_alive(const char *what)
{
	char when[96];

	usleep(100000);
	if (take(&cur) || !same(&before, &cur))
		FAIL("%s changed LIST or the runlist (clients %u -> %u, TSGs %u -> %u, generation "
		     "%llu -> %llu)", what, before.l.clients_count, cur.l.clients_count,
		     before.l.tsgs_count, cur.l.tsgs_count,
		     (unsigned long long)before.l.generation, (unsigned long long)cur.l.generation);
	snprintf(when, sizeof(when), "after %s: preempting begin", what);
	begin(3, 60, when);
	check(when);
	snprintf(when, sizeof(when), "after %s: its end", what);
	end(3, when);
	check(when);
}

static int gc_open_errno(void)
{
	int fd = open("/dev/gcaps", O_RDWR);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

static void waitall(void)
{
	double t0 = now();
	int i, st, left = 0;

	for (i = 0; i < NCHILD; i++) {
		close(ch[i].cmd_w);	/* EOF: the child exits */
		close(ch[i].rep_r);
	}
	for (i = 0; i < NCHILD; i++) {
		pid_t p;

		while ((p = waitpid(ch[i].pid, &st, WNOHANG)) == 0 && now() - t0 < REPLY_MS / 1000.0)
			usleep(5000);
		if (p != ch[i].pid) {
			printf("FAIL: child %d (pid %d) did not exit within %d ms of its pipe's EOF\n",
			       i, ch[i].pid, REPLY_MS);
			kill(ch[i].pid, SIGKILL);
			waitpid(ch[i].pid, &st, 0);
			left++;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("FAIL: child %d exited with %#x\n", i, st);
			left++;
		}
		ch[i].pid = 0;
	}
	failures += left;
}

int main(void)
{
	uint64_t s = 62;
	int order[NPROC], i, j, k, n, f0, extra[PER_USER], nextra = 0, w, x, err;
	double t0 = now(), t;
	char cmdline[128];
	struct rep r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog(WATCHDOG_S, &phase, kill_children);
	snprintf(cmdline, sizeof(cmdline), "insmod /modules/gcaps.ko max_clients_per_user=%d",
		 PER_USER);
	sh(cmdline);
	snprintf(cmdline, sizeof(cmdline), "insmod /modules/gcaps_simgpu.ko max_tsgs=%d channels=%d",
		 MAX_TSGS, CHANNELS);
	sh(cmdline);
	ctlfd = open("/dev/" SIMGPU_CTL_DEVICE_NAME, O_RDWR);
	if (ctlfd < 0) {
		printf("FAIL: open /dev/%s: %s\n", SIMGPU_CTL_DEVICE_NAME, strerror(errno));
		return 1;
	}

	phase = "registration";
	/* 1. Registration. The children first: none of them may inherit a /dev/gcaps file. */
	for (i = 0; i < NPROC; i++) {
		spawn(i, 0);
		r = await(i, "start: open /dev/gcaps and its TSGs");
		if (r.rc) {
			printf("FAIL: child %d could not open its client/TSGs: %s\n", i,
			       strerror(r.err));
			bail();
		}
		ch[i].ntsg = TSGS_PER;
		ch[i].tsg[0] = r.val[0];
		ch[i].tsg[1] = r.val[1];
	}
	spawn(H1, 1000);
	spawn(H2, 1001);
	await(H1, "start as uid 1000");
	await(H2, "start as uid 1001");
	gfd = open("/dev/gcaps", O_RDWR);
	if (gfd < 0) {
		printf("FAIL: open /dev/gcaps: %s\n", strerror(errno));
		bail();
	}
	t = now();
	settle(NPROC + 1, NTSG, "registration");
	if (check("registration") == 0)
		printf("registered: %u clients, %u TSGs (%d processes x %d), every TSG owned by its "
		       "opener and on the runlist (%u entries); %.1f s to start, LIST settled in "
		       "%.3f s\n", cur.l.clients_count, cur.l.tsgs_count, NPROC, TSGS_PER,
		       cur.rl.entries, t - t0, now() - t);
	{
		struct gcaps_status st = { .size = sizeof(st) };

		if (ioctl(gfd, GCAPS_IOC_STATUS, &st) || st.num_clients != NPROC + 1 ||
		    st.rt_active || st.self.tgid != (uint32_t)getpid())
			FAIL("STATUS: %s, %u clients, rt_active %u", strerror(errno),
			     st.num_clients, st.rt_active);
	}
	if (failures)
		bail();

	phase = "scheduling at scale";
	/* 2. Scheduling at scale: all NPROC begin, random order and priorities; then end. */
	t = now();
	for (i = 0; i < NPROC; i++)
		order[i] = i;
	for (i = NPROC - 1; i > 0; i--) {
		j = rnd(&s) % (i + 1);
		k = order[i], order[i] = order[j], order[j] = k;
	}
	for (n = 0; n < NPROC; n++) {
		char when[64];

		i = order[n];
		snprintf(when, sizeof(when), "begin %d of %d (child %d)", n + 1, NPROC, i);
		begin(i, i % 10 == 9 ? 0 : 1 + (int)(rnd(&s) % 40), when);
		check(when);
	}
	printf("all %d segments open: winner child %d (prio %d), %d TSGs on the runlist\n", NPROC,
	       winner(), ch[winner()].prio, cur.nlisted);
	for (n = 0; ; n++) {
		char when[64];
		int open_n = 0, pick = -1;

		for (i = 0; i < NPROC; i++)
			open_n += ch[i].prio >= 0;
		if (!open_n)
			break;
		w = winner();
		if (w < 0 || n % 4 == 3) {	/* a pending (or, without real-time, any) one */
			k = rnd(&s) % open_n;
			for (i = 0; i < NPROC; i++)
				if (ch[i].prio >= 0 && i != w && k-- == 0)
					pick = i;
			if (pick < 0)
				for (i = 0; i < NPROC; i++)
					if (ch[i].prio >= 0)
						pick = i;
		} else {
			pick = w;
		}
		before = cur;
		snprintf(when, sizeof(when), "end %d (child %d, %s)", n + 1, pick,
			 pick == w ? "the winner" : "pending");
		end(pick, when);
		check(when);
		if (pick != w && w >= 0 && cur.l.generation != before.l.generation)
			FAIL("%s: generation %llu -> %llu, the decision did not change", when,
			     (unsigned long long)before.l.generation,
			     (unsigned long long)cur.l.generation);
	}
	printf("scheduling at scale: %d begins and %d ends, each checked against LIST and the "
	       "engine's runlist, in %.1f s\n", NPROC, n, now() - t);
	if (failures)
		bail();

	phase = "capacity setup";
	/* 3. Capacities, with a winner and two pending real-time segments. */
	begin(0, 50, "capacity setup");
	begin(1, 40, "capacity setup");
	begin(2, 30, "capacity setup");
	if (check("capacity setup"))
		bail();

	f0 = failures;
	phase = "per-user limit (EMFILE)";
	/* 3a. Per-user limit: uid 0 holds NPROC + 1 clients; fill up to PER_USER, one more. */
	while (NPROC + 1 + nextra < PER_USER) {
		extra[nextra] = open("/dev/gcaps", O_RDWR);
		if (extra[nextra] < 0) {
			printf("FAIL: open of root's client %d: %s\n", NPROC + 2 + nextra,
			       strerror(errno));
			bail();
		}
		nextra++;
	}
	settle(PER_USER, NTSG, "per-user limit reached");
	take(&before);
	err = gc_open_errno();
	if (err != EMFILE)
		FAIL("open beyond the per-user limit (%d): %s, want EMFILE", PER_USER,
		     strerror(err));
	unchanged_and_alive("EMFILE");
	close(extra[--nextra]);
	extra[nextra] = open("/dev/gcaps", O_RDWR);
	if (extra[nextra] < 0)
		FAIL("open after freeing one of root's clients: %s", strerror(errno));
	else
		nextra++;
	err = gc_open_errno();
	if (err != EMFILE)
		FAIL("open beyond the per-user limit after refilling: %s, want EMFILE",
		     strerror(err));
	check("per-user limit");
	if (failures == f0)
		printf("per-user limit: client %d of uid 0 refused with EMFILE, nothing changed, "
		       "a freed slot let exactly one in\n", PER_USER + 1);

	f0 = failures;
	phase = "client table (ENOSPC)";
	/* 3b. Client table: uid 1000 fills it to TABLE; uid 1001 is refused. */
	for (k = PER_USER; k < TABLE; k++) {
		r = call(H1, OP_GC_OPEN, 0);
		if (r.rc) {
			printf("FAIL: uid 1000's client %d (table %d of %d): %s\n", k - PER_USER + 1,
			       k + 1, TABLE, strerror(r.err));
			bail();
		}
	}
	settle(TABLE, NTSG, "table filled");
	take(&before);
	r = call(H2, OP_GC_OPEN, 0);
	if (!r.rc || r.err != ENOSPC)
		FAIL("open with a full table (%d clients) by uid 1001: %s, want ENOSPC", TABLE,
		     r.rc ? strerror(r.err) : "success");
	err = gc_open_errno();
	if (err != EMFILE)	/* root is at its own limit too: that is checked first */
		FAIL("open by root (at its limit) with a full table: %s, want EMFILE",
		     strerror(err));
	unchanged_and_alive("ENOSPC (clients)");
	if (call(H1, OP_GC_CLOSE, 0).rc)
		FAIL("uid 1000 could not close a client");
	settle(TABLE - 1, NTSG, "one client of uid 1000 closed");
	r = call(H2, OP_GC_OPEN, 0);
	if (r.rc)
		FAIL("open by uid 1001 after a slot was freed: %s", strerror(r.err));
	r = call(H2, OP_GC_OPEN, 0);
	if (!r.rc || r.err != ENOSPC)
		FAIL("second open by uid 1001 (table full again): %s, want ENOSPC",
		     r.rc ? strerror(r.err) : "success");
	settle(TABLE, NTSG, "uid 1001 took the freed slot");
	check("client table");
	if (failures == f0)
		printf("client table: client %d refused with ENOSPC (uid 1001), nothing changed, "
		       "a freed slot let exactly one in\n", TABLE + 1);

	f0 = failures;
	phase = "TSG capacity (ENOSPC)";
	/* 3c. TSG capacity: the children take every id (round robin over them), then one more. */
	t = now();
	for (n = NTSG, i = 0; n < MAX_TSGS; n++, i = (i + 1) % NPROC) {
		r = call(i, OP_TSG_OPEN, 0);
		if (r.rc) {
			printf("FAIL: TSG %d of %d (child %d): %s\n", n + 1, MAX_TSGS, i,
			       strerror(r.err));
			bail();
		}
		ch[i].tsg[ch[i].ntsg++] = r.val[0];
	}
	settle(TABLE, MAX_TSGS, "every TSG id taken");
	if (check("every TSG id taken") == 0 && failures == f0)
		printf("%d TSGs (%d opened in %.1f s), each listed with its owner; the winner's %d "
		       "eligible and alone on the runlist\n", MAX_TSGS, MAX_TSGS - NTSG, now() - t,
		       cur.nlisted);
	take(&before);
	r = call(5, OP_TSG_OPEN, 0);
	if (!r.rc || r.err != ENOSPC)
		FAIL("TSG %d (max_tsgs %d): %s, want ENOSPC", MAX_TSGS + 1, MAX_TSGS,
		     r.rc ? strerror(r.err) : "success");
	if (!r.rc)
		ch[5].tsg[ch[5].ntsg++] = r.val[0];
	unchanged_and_alive("ENOSPC (TSGs)");
	/* Free one of the winner's TSGs; its id is the only free one, so it goes to child 5. */
	w = winner();
	x = ch[w].tsg[0];
	if (call(w, OP_TSG_CLOSE, x).rc)
		FAIL("child %d could not close TSG %d", w, x);
	ch[w].tsg[0] = ch[w].tsg[--ch[w].ntsg];
	settle(TABLE, MAX_TSGS - 1, "the winner closed a TSG");
	check("the winner closed a TSG");
	r = call(5, OP_TSG_OPEN, 0);
	if (r.rc) {
		FAIL("TSG open after one was freed: %s", strerror(r.err));
	} else {
		ch[5].tsg[ch[5].ntsg++] = r.val[0];
		if (r.val[0] != x)
			FAIL("the new TSG got id %d, the only free id is %d", r.val[0], x);
		/* The driver listed it at open, before gcaps applied the owner change: the id's
		 * release was applied (settled above), so it must not be on the runlist. */
		if (!take(&cur))
			for (k = 0; k < cur.nlisted; k++)
				if (cur.listed[k] == x)
					FAIL("TSG %d of child 5 on the runlist right after its open, "
					     "while child %d's segment is the winner", x, w);
	}
	{	/* Bounded poll until gcaps applied the owner change of that id. */
		double t1 = now();
		int owner = -1;

		do {
			if (owner >= 0)
				usleep(2000);
			owner = -2;
			if (take(&cur))
				break;
			for (k = 0; k < (int)cur.l.tsgs_count; k++)
				if ((int)cur.ti[k].tsgid == x)
					owner = child_of_tgid(cur.ti[k].owner_tgid);
		} while (owner != 5 && now() - t1 < SETTLE_MS / 1000.0);
		if (owner != 5)
			FAIL("TSG %d still not owned by child 5 after %d ms", x, SETTLE_MS);
	}
	check("TSG id reused by another process");
	r = call(6, OP_TSG_OPEN, 0);
	if (!r.rc || r.err != ENOSPC)
		FAIL("TSG open with all ids taken again: %s, want ENOSPC",
		     r.rc ? strerror(r.err) : "success");
	if (failures == f0)
		printf("TSG capacity: TSG %d refused with ENOSPC, nothing changed; the winner's "
		       "freed TSG id %d went to another process, listed as its and not eligible\n",
		       MAX_TSGS + 1, x);

	phase = "final ends and exit";
	/* The end: every segment ends, every TSG eligible, the statistics add up. */
	for (i = 0; i < NPROC; i++)
		if (ch[i].prio >= 0)
			end(i, "final ends");
	check("final");
	{
		struct gcaps_stats gs = { .size = sizeof(gs) };

		if (ioctl(gfd, GCAPS_IOC_STATS, &gs))
			FAIL("STATS: %s", strerror(errno));
		else if (gs.begins != gs.ends || gs.ends_by_close || gs.clients_max != TABLE ||
			 gs.clients_now != TABLE)
			FAIL("STATS: begins %llu ends %llu by close %llu, clients now %u max %u",
			     (unsigned long long)gs.begins, (unsigned long long)gs.ends,
			     (unsigned long long)gs.ends_by_close, gs.clients_now, gs.clients_max);
		else
			printf("stats: begins %llu = ends %llu, submits %llu, clients max %u\n",
			       (unsigned long long)gs.begins, (unsigned long long)gs.ends,
			       (unsigned long long)gs.submits, gs.clients_max);
	}
	while (nextra)
		close(extra[--nextra]);
	waitall();
	close(gfd);
	close(ctlfd);
	phase = "unloading the modules";
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
	printf("scale: %s in %.1f s\n", failures ? "FAILED" : "ok", now() - t0);
	return failures ? 1 : 0;
}
