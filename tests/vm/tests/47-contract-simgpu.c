// SPDX-License-Identifier: GPL-2.0-only
/*
 * The backend contract suite (tests/contract/) on the emulated GPU: gcaps.ko + gcaps_simgpu.ko
 * with real processes. vmtest-timeout=400
 *
 * Fixture (tests/contract/contract.h):
 *   owner       a forked child ("puppet") with its own /dev/gcaps client, at SCHED_FIFO prio or
 *               SCHED_OTHER, driven over a pair of pipes: each command is one syscall of the
 *               puppet (open/close of /dev/gcaps_simgpu, SEG_BEGIN/SEG_END, close of its gcaps
 *               file, exit), each reply its result; a reply that does not come within
 *               PUPPET_DEADLINE_MS fails the scenario (e.g. an open that does not complete)
 *   TSG         an open file of /dev/gcaps_simgpu in the puppet; its id and channel count from
 *               SIMGPU_IOC_INFO. simgpu has a fixed number of channels per TSG: no
 *               channel_add/channel_remove (the channel scenario is SKIP)
 *   exit        the puppet _exit()s; reaped with waitpid
 *   recover     SIMGPU_IOC_TEST_STALL for 2.5 submit timeouts, then a driver-initiated rebuild
 *               (SIMGPU_IOC_TEST_EXCLUDE "include" of id 0, which changes nothing else): the
 *               submit times out twice, each time the recovery clears the engine, the engine is
 *               left empty and the driver reports calls->recovered(); gcaps's resubmit is taken
 *               when the stall ends. If the engine took the submit instead (the submitter woke
 *               after the stall), no recovery happened: CONTRACT_RETRY
 *   detach      every puppet closes its /dev/gcaps file (gcaps cannot unload with clients),
 *               then rmmod gcaps (ops->detach); reset() loads it again (simgpu rebinds through
 *               its module notifier)
 *   settle      gcaps applies TSG events, exits and recoveries under its update lock, in the
 *               same hold as the resubmit they cause. So: poll GCAPS_IOC_LIST and
 *               GCAPS_IOC_STATS (both take the update lock) until gcaps's TSG mirror is exactly
 *               the set of open TSGs (id and owner), no client of a puppet that exited or
 *               dropped its client is left, and the recoveries gcaps counted reach those
 *               caused; the update that made it so has then submitted its runlist and the
 *               submit was taken. Without gcaps (detached) every driver path submits
 *               synchronously: nothing to wait for. The deadline (SETTLE_DEADLINE_MS) only
 *               bounds a failure
 *   runlist     the TSGs the GPU may run: SIMGPU_IOC_RUNLIST on /dev/gcaps_simgpu_ctl (the
 *               runlist the engine took, decoded from the Volta 16-byte entries, format
 *               checked), each listed TSG reported only while its channels are enabled. Under
 *               mechanism reload every open TSG's channels are enabled, so that is the runlist;
 *               under gate the runlist lists every open TSG and the enable state carries
 *               gcaps's decision
 *
 * Four passes, each loading gcaps.ko and gcaps_simgpu.ko afresh: simgpu's defaults (2 channels
 * per TSG, no random rebuilds), then 3 channels per TSG with driver-initiated random rebuilds
 * every ~2 ms racing every scenario; each under gcaps.ko's mechanism reload and gate (each pass
 * checks that the binding has the mechanism). An argument runs only the scenarios whose name
 * contains it.
 *
 * contract.c is compiled into this program (#include below): run.sh builds each C test from its
 * one file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../uapi/linux/gcaps.h"
#include "../../../module/simgpu/gcaps_simgpu.h"
#include "../lib/vmtest.h"
#include "../../contract/contract.c"

#define MAX_PUPPETS		16
#define MAX_OPEN		64
#define PUPPET_DEADLINE_MS	20000	/* a puppet's reply: bounds a failure only */
#define SUBMIT_TIMEOUT_MS	100	/* gcaps_simgpu's submit_timeout_ms (default) */
/*
 * settle: gcaps's work item retries every jiffy while the update lock is taken; an update
 * waits at most two submit timeouts (recovery) plus a stall; 10 s on top for a loaded TCG VM.
 */
#define SETTLE_DEADLINE_MS	(4 * SUBMIT_TIMEOUT_MS + 10000)
#define STALL_MS		(SUBMIT_TIMEOUT_MS * 5 / 2)
#define RL_WORDS		(1024 * 9 * 4)
#define CAP			256

enum { P_READY, P_OPEN, P_CLOSE, P_BEGIN, P_END, P_DROP_GCAPS, P_EXIT };

struct pcmd {
	int op;
	int arg;
	unsigned int tsgid;
};

struct prep {
	int rc;			/* 0 or -errno */
	unsigned int tsgid;
	unsigned int channels;
	int state;
};

static struct puppet {
	pid_t pid;
	int to, from;		/* pipes: commands to it, replies from it */
	int alive;
	int gcaps;		/* holds its /dev/gcaps client */
} pp[MAX_PUPPETS];
static int npp;

static struct open_tsg {
	unsigned int id;
	pid_t tgid;
	int open;
} ot[MAX_OPEN];
static int nopen;

static int ctl = -1;
static int gcaps_loaded;
static uint64_t want_recoveries;
static char err[768];
static const char *volatile phase = "start";
static uint32_t words[RL_WORDS];
static uint64_t enabled[1024 / 64];
static const char *gcaps_insmod;	/* this pass's insmod of gcaps.ko */
static struct gcaps_client_info lci[CAP];
static struct gcaps_tsg_info lti[CAP];

static int ferr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ferr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, sizeof(err), fmt, ap);
	va_end(ap);
	return CONTRACT_ERR;
}

static int msleep1(void)
{
	struct timespec ts = { 0, 1000000 };

	return nanosleep(&ts, NULL);
}

/* ---- the puppet ---- */

static void puppet(int in, int out, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	static int tsg[1024];
	struct pcmd c;
	struct prep r;
	int g;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&r, 0, sizeof(r));
	if (sched_setscheduler(0, prio ? SCHED_FIFO : SCHED_OTHER, &sp))
		r.rc = -errno;
	g = open(GCAPS_DEV, O_RDWR);
	if (g < 0 && !r.rc)
		r.rc = -errno;
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	for (;;) {
		struct simgpu_tsg_info info = { .size = sizeof(info) };
		struct gcaps_seg_begin b = { .size = sizeof(b) };
		struct gcaps_seg_end e = { .size = sizeof(e) };
		int fd;

		if (read(in, &c, sizeof(c)) != sizeof(c))
			_exit(0);
		memset(&r, 0, sizeof(r));
		switch (c.op) {
		case P_OPEN:
			fd = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR);
			if (fd < 0) {
				r.rc = -errno;
				break;
			}
			if (ioctl(fd, SIMGPU_IOC_INFO, &info) || info.tsgid >= 1024) {
				r.rc = -errno;
				close(fd);
				break;
			}
			tsg[info.tsgid] = fd;
			r.tsgid = info.tsgid;
			r.channels = info.num_channels;
			break;
		case P_CLOSE:
			if (c.tsgid >= 1024 || !tsg[c.tsgid] || close(tsg[c.tsgid]))
				r.rc = -EBADF;
			else
				tsg[c.tsgid] = 0;
			break;
		case P_BEGIN:
			b.gpu_priority = c.arg;
			if (ioctl(g, GCAPS_IOC_SEG_BEGIN, &b))
				r.rc = -errno;
			r.state = (int)b.state;
			break;
		case P_END:
			if (ioctl(g, GCAPS_IOC_SEG_END, &e))
				r.rc = -errno;
			break;
		case P_DROP_GCAPS:
			if (close(g))
				r.rc = -errno;
			g = -1;
			break;
		case P_EXIT:
			_exit(0);
		default:
			r.rc = -EINVAL;
		}
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
}

/* Wait for the puppet's reply (bounded). */
static int reply(struct puppet *p, struct prep *r, const char *what)
{
	struct pollfd pf = { .fd = p->from, .events = POLLIN };
	uint64_t deadline = now_ns() + PUPPET_DEADLINE_MS * 1000000ull;
	ssize_t n;

	for (;;) {
		uint64_t t = now_ns();
		int rc;

		if (t >= deadline)
			return ferr("%s: no reply from puppet %d within %d ms (the call does not return)",
				    what, p->pid, PUPPET_DEADLINE_MS);
		rc = poll(&pf, 1, (int)((deadline - t) / 1000000 + 1));
		if (rc > 0)
			break;
		if (rc < 0 && errno != EINTR)
			return ferr("%s: poll: %s", what, strerror(errno));
	}
	n = read(p->from, r, sizeof(*r));
	if (n != sizeof(*r))
		return ferr("%s: puppet %d died (read %zd)", what, p->pid, n);
	if (r->rc)
		return ferr("%s: %s", what, strerror(-r->rc));
	return CONTRACT_OK;
}

static int cmd(int owner, int op, int arg, unsigned int tsgid, struct prep *r, const char *what)
{
	struct pcmd c = { .op = op, .arg = arg, .tsgid = tsgid };
	struct puppet *p;

	if (owner < 0 || owner >= npp || !pp[owner].alive)
		return ferr("%s: no such owner %d", what, owner);
	p = &pp[owner];
	if (write(p->to, &c, sizeof(c)) != sizeof(c))
		return ferr("%s: write to puppet %d: %s", what, p->pid, strerror(errno));
	return reply(p, r, what);
}

/* Reap an exiting puppet (bounded). */
static int reap(struct puppet *p)
{
	uint64_t deadline = now_ns() + PUPPET_DEADLINE_MS * 1000000ull;
	int st;

	for (;;) {
		pid_t w = waitpid(p->pid, &st, WNOHANG);

		if (w == p->pid)
			break;
		if (w < 0)
			return ferr("waitpid %d: %s", p->pid, strerror(errno));
		if (now_ns() > deadline)
			return ferr("puppet %d did not exit within %d ms", p->pid, PUPPET_DEADLINE_MS);
		msleep1();
	}
	close(p->to);
	close(p->from);
	p->alive = 0;
	p->gcaps = 0;
	return CONTRACT_OK;
}

static void kill_puppets(void)
{
	for (int i = 0; i < npp; i++)
		if (pp[i].alive)
			kill(pp[i].pid, SIGKILL);
}

/* ---- gcaps and simgpu observations ---- */

static int runlist_raw(struct simgpu_runlist *rl)
{
	memset(rl, 0, sizeof(*rl));
	rl->size = sizeof(*rl);
	rl->words_ptr = (uintptr_t)words;
	rl->words_cap = RL_WORDS;
	rl->enabled_ptr = (uintptr_t)enabled;
	rl->enabled_cap = sizeof(enabled) / sizeof(enabled[0]);
	if (ioctl(ctl, SIMGPU_IOC_RUNLIST, rl))
		return ferr("SIMGPU_IOC_RUNLIST: %s", strerror(errno));
	if (rl->entries * 4 > RL_WORDS)
		return ferr("runlist of %u entries exceeds %u", rl->entries, RL_WORDS / 4);
	return CONTRACT_OK;
}

static int gcaps_state(struct gcaps_list *l, struct gcaps_stats *s)
{
	int fd = open(GCAPS_DEV, O_RDWR), rc = CONTRACT_OK;

	if (fd < 0)
		return ferr("open %s: %s", GCAPS_DEV, strerror(errno));
	*l = (struct gcaps_list){ .size = sizeof(*l), .clients_ptr = (uintptr_t)lci,
				  .tsgs_ptr = (uintptr_t)lti, .clients_cap = CAP, .tsgs_cap = CAP };
	*s = (struct gcaps_stats){ .size = sizeof(*s) };
	if (ioctl(fd, GCAPS_IOC_LIST, l))
		rc = ferr("GCAPS_IOC_LIST: %s", strerror(errno));
	else if (ioctl(fd, GCAPS_IOC_STATS, s))
		rc = ferr("GCAPS_IOC_STATS: %s", strerror(errno));
	close(fd);
	return rc;
}

/* What settle still waits for ("" when settled). */
static void unsettled(const struct gcaps_list *l, const struct gcaps_stats *s, char *why, size_t cap)
{
	unsigned int i, j, n = 0;

	why[0] = '\0';
	for (i = 0; i < (unsigned int)nopen; i++) {
		int found = 0;

		if (!ot[i].open)
			continue;
		n++;
		for (j = 0; j < l->tsgs_count && j < CAP; j++)
			found |= lti[j].tsgid == ot[i].id && lti[j].owner_tgid == (uint32_t)ot[i].tgid;
		if (!found) {
			snprintf(why, cap, "TSG %u of %d not in gcaps's mirror", ot[i].id, ot[i].tgid);
			return;
		}
	}
	if (l->tsgs_count != n) {
		snprintf(why, cap, "gcaps's mirror has %u TSGs, %u are open", l->tsgs_count, n);
		return;
	}
	for (j = 0; j < l->clients_count && j < CAP; j++) {
		int ok = lci[j].tgid == (uint32_t)getpid();

		for (i = 0; i < (unsigned int)npp; i++)
			ok |= pp[i].alive && pp[i].gcaps && lci[j].tgid == (uint32_t)pp[i].pid;
		if (!ok) {
			snprintf(why, cap, "client of process %u still listed", lci[j].tgid);
			return;
		}
	}
	if (s->recoveries < want_recoveries)
		snprintf(why, cap, "gcaps counted %llu driver recoveries, %llu happened",
			 (unsigned long long)s->recoveries, (unsigned long long)want_recoveries);
}

/* ---- the fixture ---- */

static int sg_runlist(void *ctx, struct contract_runlist *out);

static int sg_settle(void *ctx)
{
	uint64_t deadline = now_ns() + SETTLE_DEADLINE_MS * 1000000ull;
	struct gcaps_list l;
	struct gcaps_stats s;
	char why[256];

	(void)ctx;
	phase = "settle";
	if (!gcaps_loaded)
		return CONTRACT_OK;	/* stock driver: every path submits synchronously */
	for (;;) {
		if (gcaps_state(&l, &s))
			return CONTRACT_ERR;
		unsettled(&l, &s, why, sizeof(why));
		if (!why[0])
			return CONTRACT_OK;
		if (now_ns() > deadline) {
			static struct contract_runlist crl;
			char ids[160] = "", one[16];
			unsigned int i;

			if (sg_runlist(ctx, &crl))
				snprintf(ids, sizeof(ids), "unreadable");
			for (i = 0; i < crl.n && strlen(ids) + 12 < sizeof(ids); i++) {
				snprintf(one, sizeof(one), "%s%u:%u", i ? " " : "", crl.tsg[i].id,
					 crl.tsg[i].channels);
				strcat(ids, one);
			}
			return ferr("not settled after %d ms: %s (runlist now {%s})", SETTLE_DEADLINE_MS,
				    why, ids);
		}
		msleep1();
	}
}

static int sg_runlist(void *ctx, struct contract_runlist *out)
{
	struct simgpu_runlist rl;
	uint32_t i = 0;

	(void)ctx;
	if (runlist_raw(&rl))
		return CONTRACT_ERR;
	out->n = 0;
	while (i < rl.entries) {
		uint32_t *w = &words[i * 4], n = w[1], j;

		if (!(w[0] & 1))
			return ferr("runlist entry %u: a channel entry where a TSG entry must be", i);
		if ((w[0] & 0x00f0fffe) || (w[1] & ~0xffu) || (w[2] & ~0xfffu) || w[3])
			return ferr("runlist entry %u: reserved bits set in a TSG entry", i);
		if (n < 1 || n > 128 || i + n >= rl.entries)
			return ferr("runlist entry %u: TSG length %u out of range", i, n);
		for (j = 1; j <= n; j++)
			if (words[(i + j) * 4] & 9)
				return ferr("runlist entry %u: not a channel entry", i + j);
		if (out->n >= CONTRACT_RL_MAX)
			return ferr("runlist has more than %d TSGs", CONTRACT_RL_MAX);
		/* listed with its channels disabled (mechanism gate): the GPU does not run it */
		if (enabled[w[2] / 64] >> (w[2] % 64) & 1) {
			out->tsg[out->n].id = w[2];
			out->tsg[out->n].channels = n;
			out->n++;
		}
		i += 1 + n;
	}
	return CONTRACT_OK;
}

static int sg_owner_new(void *ctx, int prio, int *owner)
{
	int to[2], from[2];
	struct prep r;
	pid_t pid;

	(void)ctx;
	phase = "owner_new";
	if (npp >= MAX_PUPPETS)
		return ferr("too many puppets");
	if (pipe(to) || pipe(from))
		return ferr("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return ferr("fork: %s", strerror(errno));
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		if (ctl >= 0)
			close(ctl);
		puppet(to[0], from[1], prio);
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	pp[npp] = (struct puppet){ .pid = pid, .to = to[1], .from = from[0], .alive = 1, .gcaps = 1 };
	*owner = npp++;
	return reply(&pp[*owner], &r, "puppet start (sched class, open /dev/gcaps)");
}

static int sg_tsg_open(void *ctx, int owner, unsigned int *tsgid, unsigned int *channels)
{
	struct prep r;

	(void)ctx;
	phase = "tsg_open";
	if (nopen >= MAX_OPEN)
		return ferr("too many TSGs");
	if (cmd(owner, P_OPEN, 0, 0, &r, "open /dev/gcaps_simgpu"))
		return CONTRACT_ERR;
	ot[nopen++] = (struct open_tsg){ .id = r.tsgid, .tgid = pp[owner].pid, .open = 1 };
	*tsgid = r.tsgid;
	*channels = r.channels;
	return CONTRACT_OK;
}

static int sg_tsg_close(void *ctx, int owner, unsigned int tsgid)
{
	struct prep r;
	int i;

	(void)ctx;
	phase = "tsg_close";
	if (cmd(owner, P_CLOSE, 0, tsgid, &r, "close of a TSG file"))
		return CONTRACT_ERR;
	for (i = 0; i < nopen; i++)
		if (ot[i].open && ot[i].id == tsgid)
			ot[i].open = 0;
	return CONTRACT_OK;
}

static int sg_seg_begin(void *ctx, int owner, int gpu_prio, int *pending)
{
	struct prep r;

	(void)ctx;
	phase = "seg_begin";
	if (cmd(owner, P_BEGIN, gpu_prio, 0, &r, "GCAPS_IOC_SEG_BEGIN"))
		return CONTRACT_ERR;
	*pending = r.state == GCAPS_STATE_PENDING;
	return CONTRACT_OK;
}

static int sg_seg_end(void *ctx, int owner)
{
	struct prep r;

	(void)ctx;
	phase = "seg_end";
	return cmd(owner, P_END, 0, 0, &r, "GCAPS_IOC_SEG_END");
}

static int sg_owner_exit(void *ctx, int owner)
{
	struct pcmd c = { .op = P_EXIT };
	int i;

	(void)ctx;
	phase = "owner_exit";
	if (owner < 0 || owner >= npp || !pp[owner].alive)
		return ferr("no such owner %d", owner);
	if (write(pp[owner].to, &c, sizeof(c)) != sizeof(c))
		return ferr("write to puppet %d: %s", pp[owner].pid, strerror(errno));
	if (reap(&pp[owner]))
		return CONTRACT_ERR;
	for (i = 0; i < nopen; i++)
		if (ot[i].tgid == pp[owner].pid)
			ot[i].open = 0;
	return CONTRACT_OK;
}

static int sg_recover(void *ctx)
{
	struct simgpu_test_stall st = { .size = sizeof(st), .stall_ms = STALL_MS };
	struct simgpu_test_exclude x = { .size = sizeof(x), .tsgid = 0, .exclude = 0 };
	struct simgpu_runlist a, b;

	(void)ctx;
	phase = "recover";
	if (runlist_raw(&a))
		return CONTRACT_ERR;
	if (ioctl(ctl, SIMGPU_IOC_TEST_STALL, &st))
		return ferr("SIMGPU_IOC_TEST_STALL: %s", strerror(errno));
	if (ioctl(ctl, SIMGPU_IOC_TEST_EXCLUDE, &x))	/* a driver rebuild: times out, recovers */
		return ferr("SIMGPU_IOC_TEST_EXCLUDE: %s", strerror(errno));
	if (runlist_raw(&b))
		return CONTRACT_ERR;
	if (b.recoveries == a.recoveries) {
		snprintf(err, sizeof(err), "no recovery: the engine took the submit when the %d ms "
			 "stall ended (the submitter woke late)", STALL_MS);
		return CONTRACT_RETRY;
	}
	want_recoveries++;	/* the driver told gcaps once (calls->recovered) */
	printf("recover: %llu engine clear(s) by the driver's recovery (2: its own rebuild timed "
	       "out too and left the engine empty for gcaps's resubmit)\n",
	       (unsigned long long)(b.recoveries - a.recoveries));
	return CONTRACT_OK;
}

static int sg_detach(void *ctx)
{
	struct simgpu_runlist rl;
	struct prep r;
	int i;

	(void)ctx;
	phase = "detach";
	for (i = 0; i < npp; i++)
		if (pp[i].alive && pp[i].gcaps) {
			if (cmd(i, P_DROP_GCAPS, 0, 0, &r, "close of /dev/gcaps"))
				return CONTRACT_ERR;
			pp[i].gcaps = 0;
		}
	if (system("rmmod gcaps"))
		return ferr("rmmod gcaps failed");
	gcaps_loaded = 0;
	if (runlist_raw(&rl))
		return CONTRACT_ERR;
	if (rl.bound)
		return ferr("simgpu still bound after rmmod gcaps");
	return CONTRACT_OK;
}

static int sg_reset(void *ctx)
{
	struct contract_runlist *crl;
	struct simgpu_runlist rl;
	struct gcaps_list l;
	struct gcaps_stats s;
	struct pcmd c = { .op = P_EXIT };
	int i, rc;

	phase = "reset";
	for (i = 0; i < npp; i++)
		if (pp[i].alive) {
			if (write(pp[i].to, &c, sizeof(c)) != sizeof(c))
				kill(pp[i].pid, SIGKILL);
			if (reap(&pp[i]))
				return CONTRACT_ERR;
		}
	npp = 0;
	nopen = 0;
	if (!gcaps_loaded) {
		if (system(gcaps_insmod))
			return ferr("%s failed", gcaps_insmod);
		gcaps_loaded = 1;
		if (runlist_raw(&rl))
			return CONTRACT_ERR;
		if (!rl.bound)
			return ferr("simgpu did not bind to the reloaded gcaps");
	}
	if (gcaps_state(&l, &s))
		return CONTRACT_ERR;
	want_recoveries = s.recoveries;
	rc = sg_settle(ctx);
	if (rc)
		return rc;
	crl = calloc(1, sizeof(*crl));
	if (!crl)
		return ferr("out of memory");
	rc = sg_runlist(ctx, crl);
	if (!rc && crl->n)
		rc = ferr("reset: %u TSGs still on the runlist", crl->n);
	free(crl);
	return rc;
}

static const char *sg_error(void *ctx)
{
	(void)ctx;
	return err;
}

/* Every puppet exits (end of a pass). */
static int exit_all(void)
{
	struct pcmd c = { .op = P_EXIT };
	int i, bad = 0;

	for (i = 0; i < npp; i++)
		if (pp[i].alive && (write(pp[i].to, &c, sizeof(c)) != sizeof(c) || reap(&pp[i]))) {
			printf("FAIL: cleanup: %s\n", err);
			bad++;
		}
	if (bad)
		kill_puppets();
	npp = 0;
	return bad;
}

/*
 * The passes: simgpu's defaults; then 3 channels per TSG with driver-initiated random rebuilds
 * every ~2 ms racing every scenario (the runlist then changes under gcaps's feet all the time:
 * each rebuild must still apply the published set); each under both of gcaps's mechanisms.
 */
static const struct {
	const char *gcaps, *simgpu;
	unsigned int gate;
} passes[] = {
	{ "insmod /modules/gcaps.ko mechanism=reload", "", 0 },
	{ "insmod /modules/gcaps.ko mechanism=gate", "", 1 },
	{ "insmod /modules/gcaps.ko mechanism=reload",
	  "channels=3 rebuild_interval_ms=2 rebuild_seed=7", 0 },
	{ "insmod /modules/gcaps.ko mechanism=gate",
	  "channels=3 rebuild_interval_ms=2 rebuild_seed=7", 1 },
};

int main(int argc, char **argv)
{
	const struct contract_fixture f = {
		.name = "simgpu",
		.reset = sg_reset,
		.owner_new = sg_owner_new,
		.tsg_open = sg_tsg_open,
		.tsg_close = sg_tsg_close,
		.channel_add = NULL,	/* fixed channels per TSG */
		.channel_remove = NULL,
		.seg_begin = sg_seg_begin,
		.seg_end = sg_seg_end,
		.owner_exit = sg_owner_exit,
		.recover = sg_recover,
		.detach = sg_detach,
		.settle = sg_settle,
		.runlist = sg_runlist,
		.error = sg_error,
	};
	struct contract_result r;
	struct simgpu_runlist rl;
	char cmdline[160];
	int failed = 0;
	unsigned int p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog(380, &phase, kill_puppets);
	for (p = 0; p < sizeof(passes) / sizeof(passes[0]); p++) {
		double t0 = now();

		gcaps_insmod = passes[p].gcaps;
		snprintf(cmdline, sizeof(cmdline), "insmod /modules/gcaps_simgpu.ko %s",
			 passes[p].simgpu);
		printf("== pass %u: %s; %s\n", p + 1, gcaps_insmod, cmdline);
		sh(gcaps_insmod);
		gcaps_loaded = 1;
		sh(cmdline);
		ctl = open("/dev/" SIMGPU_CTL_DEVICE_NAME, O_RDWR | O_CLOEXEC);
		if (ctl < 0) {
			printf("FAIL: open /dev/%s: %s\n", SIMGPU_CTL_DEVICE_NAME, strerror(errno));
			return 1;
		}
		if (runlist_raw(&rl) || !rl.bound || rl.gate != passes[p].gate) {
			printf("FAIL: pass %u: simgpu bound %u with gate %u, want bound with gate %u "
			       "(%s)\n", p + 1, rl.bound, rl.gate, passes[p].gate, err);
			failed++;
		} else {
			failed += contract_run(&f, argc > 1 ? argv[1] : NULL, &r);
			if (r.passed == 0)
				failed++;
		}
		printf("pass %u on simgpu: %.1f s\n", p + 1, now() - t0);
		phase = "cleanup";
		failed += exit_all();
		close(ctl);
		ctl = -1;
		sh("rmmod gcaps_simgpu");
		if (gcaps_loaded)
			sh("rmmod gcaps");
		gcaps_loaded = 0;
	}
	return failed ? 1 : 0;
}
