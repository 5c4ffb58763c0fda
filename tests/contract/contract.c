// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gcaps backend contract test suite: the scenarios, written once against the fixture
 * interface of contract.h (tests/contract/README.md lists the rules and the scenarios). Plain
 * C99 with <stdio.h> and <string.h> only, so it builds into a VM test program (simgpu) and into
 * a -fPIC shared object of a host unit framework (nvgpu) alike.
 *
 * The suite keeps its own model of the scenario: owners (with their CPU class) and the TSGs
 * each has open with their channel counts. Each check settles the fixture, reads the TSGs the
 * GPU may run (the runlist the driver last submitted; under mechanism gate those of its TSGs
 * whose channels are enabled) and compares the set of (TSG id, channel entries) with the open
 * TSGs of the owners the contract says may run: every open TSG without a real-time segment,
 * only the running owner's with one. Order is not compared.
 */
#include <stdio.h>
#include <string.h>

#include "contract.h"

#define MAX_OWNERS	8
#define MAX_TSGS	32
#define ALL		(~0u)		/* every open TSG (stock) */
#define MSG		1024

struct owner {
	int handle;		/* the fixture's */
	int prio;		/* CPU priority, 0 best-effort */
	int alive;
};

struct tsg {
	unsigned int id;	/* the driver's */
	unsigned int channels;
	int owner;		/* index into owners */
	int open;
};

struct sc {
	const struct contract_fixture *f;
	char msg[MSG];		/* why the scenario failed or was skipped */
	int skipped;
	struct owner o[MAX_OWNERS];
	int no;
	struct tsg t[MAX_TSGS];
	int nt;
	struct contract_runlist rl;
};

/* ---- small helpers ---- */

static char owner_name(int o)
{
	return (char)('A' + o);
}

/* Append to a bounded string. */
static void cat(char *buf, size_t cap, const char *add)
{
	size_t n = strlen(buf);

	if (n + 1 < cap) {
		strncpy(buf + n, add, cap - n - 1);
		buf[cap - 1] = '\0';
	}
}

static const char *ferror_msg(const struct sc *s)
{
	const char *e = s->f->error ? s->f->error(s->f->ctx) : NULL;

	return e && *e ? e : "(no message)";
}

/* A fixture operation returned rc != OK: the scenario fails (or is retried). */
static int op_failed(struct sc *s, const char *op, int rc)
{
	s->msg[0] = '\0';
	cat(s->msg, sizeof(s->msg), rc == CONTRACT_RETRY ? "fixture asked for a retry in " : "fixture ");
	cat(s->msg, sizeof(s->msg), op);
	cat(s->msg, sizeof(s->msg), rc == CONTRACT_RETRY ? ": " : " failed: ");
	cat(s->msg, sizeof(s->msg), ferror_msg(s));
	return rc == CONTRACT_RETRY ? CONTRACT_RETRY : CONTRACT_ERR;
}

static int fail(struct sc *s, const char *what)
{
	snprintf(s->msg, sizeof(s->msg), "%s", what);
	return CONTRACT_ERR;
}

static int skip(struct sc *s, const char *why)
{
	snprintf(s->msg, sizeof(s->msg), "%s", why);
	s->skipped = 1;
	return CONTRACT_OK;
}

/* ---- the scenario's model, changed through the fixture ---- */

static int owner(struct sc *s, int prio, int *o)
{
	char what[64];
	int rc, h = -1;

	if (s->no >= MAX_OWNERS)
		return fail(s, "suite bug: too many owners");
	rc = s->f->owner_new(s->f->ctx, prio, &h);
	if (rc) {
		snprintf(what, sizeof(what), "owner_new(%s %d)", prio ? "rt" : "best-effort", prio);
		return op_failed(s, what, rc);
	}
	s->o[s->no] = (struct owner){ .handle = h, .prio = prio, .alive = 1 };
	*o = s->no++;
	return CONTRACT_OK;
}

static int tsg_open(struct sc *s, int o, int *ti)
{
	unsigned int id = 0, ch = 0;
	char what[64];
	int rc, i;

	if (s->nt >= MAX_TSGS)
		return fail(s, "suite bug: too many TSGs");
	rc = s->f->tsg_open(s->f->ctx, s->o[o].handle, &id, &ch);
	snprintf(what, sizeof(what), "tsg_open(owner %c)", owner_name(o));
	if (rc)
		return op_failed(s, what, rc);
	for (i = 0; i < s->nt; i++)
		if (s->t[i].open && s->t[i].id == id) {
			snprintf(s->msg, sizeof(s->msg), "%s returned TSG %u, which is open already",
				 what, id);
			return CONTRACT_ERR;
		}
	if (ch < 1) {
		snprintf(s->msg, sizeof(s->msg), "%s: TSG %u has no channels", what, id);
		return CONTRACT_ERR;
	}
	s->t[s->nt] = (struct tsg){ .id = id, .channels = ch, .owner = o, .open = 1 };
	if (ti)
		*ti = s->nt;
	s->nt++;
	return CONTRACT_OK;
}

static int tsg_close(struct sc *s, int ti)
{
	char what[64];
	int rc;

	rc = s->f->tsg_close(s->f->ctx, s->o[s->t[ti].owner].handle, s->t[ti].id);
	snprintf(what, sizeof(what), "tsg_close(TSG %u of %c)", s->t[ti].id,
		 owner_name(s->t[ti].owner));
	if (rc)
		return op_failed(s, what, rc);
	s->t[ti].open = 0;
	return CONTRACT_OK;
}

static int channel(struct sc *s, int ti, int add)
{
	char what[64];
	int rc;

	if (add)
		rc = s->f->channel_add(s->f->ctx, s->o[s->t[ti].owner].handle, s->t[ti].id);
	else
		rc = s->f->channel_remove(s->f->ctx, s->o[s->t[ti].owner].handle, s->t[ti].id);
	snprintf(what, sizeof(what), "channel_%s(TSG %u)", add ? "add" : "remove", s->t[ti].id);
	if (rc)
		return op_failed(s, what, rc);
	if (add)
		s->t[ti].channels++;
	else
		s->t[ti].channels--;
	return CONTRACT_OK;
}

/* want: 0 running, 1 pending, -1 either */
static int begin(struct sc *s, int o, int want)
{
	char what[64];
	int rc, pending = -1;

	rc = s->f->seg_begin(s->f->ctx, s->o[o].handle, 0, &pending);
	snprintf(what, sizeof(what), "seg_begin(%c)", owner_name(o));
	if (rc)
		return op_failed(s, what, rc);
	if (want >= 0 && pending != want) {
		snprintf(s->msg, sizeof(s->msg), "%s (prio %d): expected state %s, got %s", what,
			 s->o[o].prio, want ? "pending" : "running", pending ? "pending" : "running");
		return CONTRACT_ERR;
	}
	return CONTRACT_OK;
}

static int end(struct sc *s, int o)
{
	char what[64];
	int rc;

	rc = s->f->seg_end(s->f->ctx, s->o[o].handle);
	snprintf(what, sizeof(what), "seg_end(%c)", owner_name(o));
	return rc ? op_failed(s, what, rc) : CONTRACT_OK;
}

static int owner_exit(struct sc *s, int o)
{
	char what[64];
	int rc, i;

	rc = s->f->owner_exit(s->f->ctx, s->o[o].handle);
	snprintf(what, sizeof(what), "owner_exit(%c)", owner_name(o));
	if (rc)
		return op_failed(s, what, rc);
	s->o[o].alive = 0;
	for (i = 0; i < s->nt; i++)
		if (s->t[i].owner == o)
			s->t[i].open = 0;
	return CONTRACT_OK;
}

/* ---- the check ---- */

static void fmt_set(char *buf, size_t cap, const struct contract_rl_tsg *v, unsigned int n)
{
	char one[32];
	unsigned int i;

	buf[0] = '\0';
	cat(buf, cap, "{");
	for (i = 0; i < n; i++) {
		snprintf(one, sizeof(one), "%s%u:%u", i ? " " : "", v[i].id, v[i].channels);
		cat(buf, cap, one);
	}
	cat(buf, cap, "}");
}

static void sort(struct contract_rl_tsg *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1].id > v[j].id; j--) {
			struct contract_rl_tsg x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
}

/*
 * Settle, read the runlist and compare it with the open TSGs of the owners in `mask` (bit o:
 * owner o; ALL: every open TSG). `when` names the moment for the failure line.
 */
static int expect(struct sc *s, const char *when, unsigned int mask)
{
	static struct contract_rl_tsg want[MAX_TSGS];
	static struct contract_rl_tsg got[CONTRACT_RL_MAX];
	static char ws[MSG / 2], gs[MSG / 2];
	char who[64];
	unsigned int nw = 0, ng, i;
	int rc, o, same;

	rc = s->f->settle(s->f->ctx);
	if (rc)
		return op_failed(s, "settle", rc);
	memset(&s->rl, 0, sizeof(s->rl));
	rc = s->f->runlist(s->f->ctx, &s->rl);
	if (rc)
		return op_failed(s, "runlist", rc);
	ng = s->rl.n > CONTRACT_RL_MAX ? CONTRACT_RL_MAX : s->rl.n;
	memcpy(got, s->rl.tsg, ng * sizeof(got[0]));
	sort(got, ng);
	/* A set: an interleaved runlist lists a TSG more than once, always with all its channels. */
	for (i = 1, nw = ng ? 1 : 0; i < ng; i++) {
		if (got[i].id != got[nw - 1].id) {
			got[nw++] = got[i];
		} else if (got[i].channels != got[nw - 1].channels) {
			snprintf(s->msg, sizeof(s->msg), "%.200s: TSG %u listed twice, with %u and %u "
				 "channel entries", when, got[i].id, got[nw - 1].channels, got[i].channels);
			return CONTRACT_ERR;
		}
	}
	ng = nw;
	nw = 0;
	for (i = 0; i < (unsigned int)s->nt; i++)
		if (s->t[i].open && (mask == ALL || (mask >> s->t[i].owner) & 1)) {
			want[nw].id = s->t[i].id;
			want[nw].channels = s->t[i].channels;
			nw++;
		}
	sort(want, nw);
	same = nw == ng;
	for (i = 0; same && i < nw; i++)
		same = want[i].id == got[i].id && want[i].channels == got[i].channels;
	if (same)
		return CONTRACT_OK;
	if (mask == ALL) {
		snprintf(who, sizeof(who), "every open TSG");
	} else {
		who[0] = '\0';
		cat(who, sizeof(who), "the TSGs of");
		for (o = 0; o < s->no; o++)
			if ((mask >> o) & 1) {
				char n[4] = { ' ', owner_name(o), '\0', '\0' };

				cat(who, sizeof(who), n);
			}
	}
	fmt_set(ws, sizeof(ws), want, nw);
	fmt_set(gs, sizeof(gs), got, ng);
	s->msg[0] = '\0';
	cat(s->msg, sizeof(s->msg), when);
	cat(s->msg, sizeof(s->msg), ": expected ");
	cat(s->msg, sizeof(s->msg), who);
	cat(s->msg, sizeof(s->msg), " ");
	cat(s->msg, sizeof(s->msg), ws);
	cat(s->msg, sizeof(s->msg), " (id:channels), got ");
	cat(s->msg, sizeof(s->msg), gs);
	return CONTRACT_ERR;
}

#define M(o)		(1u << (o))
#define TRY(x)		do { int rc_ = (x); if (rc_) return rc_; } while (0)

/* ---- the scenarios ---- */

/* No segment: the driver lists every TSG (stock), whoever owns it. */
static int sc_no_segment(struct sc *s)
{
	int a, b;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	return expect(s, "no segment open", ALL);
}

/* A best-effort segment never filters. */
static int sc_be_segment(struct sc *s)
{
	int a, b;

	TRY(owner(s, 0, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "best-effort A inside its segment", ALL));
	TRY(end(s, a));
	return expect(s, "after A's end", ALL);
}

/* A real-time segment opens: only its owner's TSGs. */
static int sc_rt_segment(struct sc *s)
{
	int a, b, c;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(owner(s, 30, &c));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(tsg_open(s, c, NULL));
	TRY(expect(s, "before A's begin", ALL));
	TRY(begin(s, a, 0));
	return expect(s, "A (rt 50) inside its segment", M(a));
}

/* A higher priority begins: it preempts the running one. */
static int sc_preempt(struct sc *s)
{
	int l, h, b;

	TRY(owner(s, 10, &l));
	TRY(owner(s, 50, &h));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, l, NULL));
	TRY(tsg_open(s, h, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, l, 0));
	TRY(expect(s, "A (rt 10) inside its segment", M(l)));
	TRY(begin(s, h, 0));
	return expect(s, "after B (rt 50) began inside A's segment", M(h));
}

/* A lower priority begins: it waits (pending) and the runlist does not change. */
static int sc_lower_waits(struct sc *s)
{
	int h, l;

	TRY(owner(s, 50, &h));
	TRY(owner(s, 10, &l));
	TRY(tsg_open(s, h, NULL));
	TRY(tsg_open(s, l, NULL));
	TRY(begin(s, h, 0));
	TRY(expect(s, "A (rt 50) inside its segment", M(h)));
	TRY(begin(s, l, 1));
	return expect(s, "after B (rt 10) began inside A's segment", M(h));
}

/* The running segment ends: the waiting one gets the GPU. */
static int sc_handover(struct sc *s)
{
	int h, l, b;

	TRY(owner(s, 50, &h));
	TRY(owner(s, 10, &l));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, h, NULL));
	TRY(tsg_open(s, l, NULL));
	TRY(tsg_open(s, l, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, h, 0));
	TRY(begin(s, l, 1));
	TRY(expect(s, "A (rt 50) running, B (rt 10) pending", M(h)));
	TRY(end(s, h));
	return expect(s, "after A's end with B pending", M(l));
}

/* The last real-time segment ends: every TSG again. */
static int sc_last_end(struct sc *s)
{
	int h, l, b;

	TRY(owner(s, 50, &h));
	TRY(owner(s, 10, &l));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, h, NULL));
	TRY(tsg_open(s, l, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, h, 0));
	TRY(begin(s, l, 1));
	TRY(end(s, h));
	TRY(expect(s, "after A's end with B pending", M(l)));
	TRY(end(s, l));
	return expect(s, "after the last real-time end", ALL);
}

/* The running owner opens another TSG inside its segment: it joins the runlist. */
static int sc_owner_open(struct sc *s)
{
	int a, b;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	TRY(tsg_open(s, a, NULL));
	return expect(s, "after A opened a TSG inside its segment", M(a));
}

/*
 * A best-effort process creates a context inside a real-time segment: its open completes (the
 * fixture returns), its TSG is not listed until the segment ends, then it is.
 */
static int sc_be_open(struct sc *s)
{
	int a, b;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	TRY(tsg_open(s, b, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(expect(s, "after best-effort B opened two TSGs inside A's segment", M(a)));
	TRY(end(s, a));
	return expect(s, "after A's end", ALL);
}

/* A pending owner opens a TSG: not listed while it waits, listed once it runs. */
static int sc_pending_open(struct sc *s)
{
	int h, l;

	TRY(owner(s, 50, &h));
	TRY(owner(s, 10, &l));
	TRY(tsg_open(s, h, NULL));
	TRY(tsg_open(s, l, NULL));
	TRY(begin(s, h, 0));
	TRY(begin(s, l, 1));
	TRY(tsg_open(s, l, NULL));
	TRY(expect(s, "after pending B (rt 10) opened a TSG inside A's segment", M(h)));
	TRY(end(s, h));
	return expect(s, "after A's end handed over to B", M(l));
}

/* The running owner closes one of its TSGs inside its segment: it leaves the runlist. */
static int sc_owner_close(struct sc *s)
{
	int a, b, t;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, &t));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	TRY(tsg_close(s, t));
	return expect(s, "after A closed a TSG inside its segment", M(a));
}

/* Another process closes its (unlisted) TSG inside a segment: nothing changes. */
static int sc_other_close(struct sc *s)
{
	int a, b, t;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, &t));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, a, 0));
	TRY(tsg_close(s, t));
	TRY(expect(s, "after best-effort B closed a TSG inside A's segment", M(a)));
	TRY(end(s, a));
	return expect(s, "after A's end", ALL);
}

/* The running owner exits inside its segment: the pending one gets the GPU. */
static int sc_exit_handover(struct sc *s)
{
	int h, l, b;

	TRY(owner(s, 50, &h));
	TRY(owner(s, 10, &l));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, h, NULL));
	TRY(tsg_open(s, l, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, h, 0));
	TRY(begin(s, l, 1));
	TRY(expect(s, "A (rt 50) running, B (rt 10) pending", M(h)));
	TRY(owner_exit(s, h));
	return expect(s, "after A exited inside its segment with B pending", M(l));
}

/* The only real-time owner exits inside its segment: every remaining TSG again. */
static int sc_exit_all(struct sc *s)
{
	int a, b, c;

	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(owner(s, 20, &c));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(tsg_open(s, c, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	TRY(owner_exit(s, a));
	return expect(s, "after A exited inside its segment", ALL);
}

/* The driver recovers inside a segment: the runlist after the recovery is gcaps's decision. */
static int sc_recovery(struct sc *s)
{
	int a, b, rc;

	if (!s->f->recover)
		return skip(s, "the fixture has no recover()");
	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	rc = s->f->recover(s->f->ctx);
	if (rc)
		return op_failed(s, "recover", rc);
	TRY(expect(s, "after a driver recovery inside A's segment", M(a)));
	TRY(end(s, a));
	return expect(s, "after A's end (following the recovery)", ALL);
}

/* gcaps detaches (unloads): the driver lists every TSG (stock), also TSGs opened later. */
static int sc_detach(struct sc *s)
{
	int a, b, rc;

	if (!s->f->detach)
		return skip(s, "the fixture has no detach()");
	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(tsg_open(s, b, NULL));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	rc = s->f->detach(s->f->ctx);
	if (rc)
		return op_failed(s, "detach", rc);
	TRY(expect(s, "after gcaps detached", ALL));
	TRY(tsg_open(s, b, NULL));
	return expect(s, "after B opened a TSG with gcaps detached", ALL);
}

/* Channels bound or unbound inside a segment change the TSG's channel entries. */
static int sc_channels(struct sc *s)
{
	int a, b, ta, tb;

	if (!s->f->channel_add || !s->f->channel_remove)
		return skip(s, "the fixture has no channel_add/channel_remove (fixed channels per TSG)");
	TRY(owner(s, 50, &a));
	TRY(owner(s, 0, &b));
	TRY(tsg_open(s, a, &ta));
	TRY(tsg_open(s, b, &tb));
	TRY(begin(s, a, 0));
	TRY(expect(s, "A inside its segment", M(a)));
	TRY(channel(s, ta, 1));
	TRY(expect(s, "after a channel was added to A's TSG inside its segment", M(a)));
	TRY(channel(s, tb, 1));
	TRY(expect(s, "after a channel was added to best-effort B's TSG inside A's segment", M(a)));
	TRY(channel(s, ta, 0));
	TRY(expect(s, "after a channel was removed from A's TSG inside its segment", M(a)));
	TRY(end(s, a));
	return expect(s, "after A's end", ALL);
}

static const struct scenario {
	const char *name;
	int (*run)(struct sc *s);
	const char *what;	/* shown on PASS */
} scenarios[] = {
	{ "no-segment-all", sc_no_segment, "no segment: every TSG listed" },
	{ "be-segment-all", sc_be_segment, "a best-effort segment: every TSG listed" },
	{ "rt-segment-owner-only", sc_rt_segment, "a real-time segment: only its owner's TSGs" },
	{ "higher-preempts", sc_preempt, "a higher-priority begin: only its owner's TSGs" },
	{ "lower-begin-waits", sc_lower_waits, "a lower-priority begin pends, runlist unchanged" },
	{ "end-hands-over", sc_handover, "the end hands over to the pending segment" },
	{ "last-end-all", sc_last_end, "the last real-time end: every TSG listed" },
	{ "owner-open-joins", sc_owner_open, "a TSG the running owner opens joins" },
	{ "be-open-during-segment", sc_be_open,
	  "a best-effort open inside a segment completes, listed only after the end" },
	{ "pending-open-waits", sc_pending_open,
	  "a TSG a pending owner opens is listed only once it runs" },
	{ "owner-close-leaves", sc_owner_close, "a TSG the running owner closes leaves" },
	{ "other-close-during-segment", sc_other_close,
	  "an unlisted TSG closed inside a segment: runlist unchanged" },
	{ "owner-exit-handover", sc_exit_handover,
	  "the running owner exits: the pending segment gets the GPU" },
	{ "owner-exit-all", sc_exit_all, "the only real-time owner exits: every TSG listed" },
	{ "recovery-during-segment", sc_recovery,
	  "after a driver recovery the runlist is the decision" },
	{ "detach-all", sc_detach, "gcaps detached: every TSG listed (stock), also new ones" },
	{ "channels-during-segment", sc_channels,
	  "channel add/remove inside a segment changes the entry count" },
};

#define NSCEN ((int)(sizeof(scenarios) / sizeof(scenarios[0])))

int contract_count(void)
{
	return NSCEN;
}

const char *contract_name(int i)
{
	return i >= 0 && i < NSCEN ? scenarios[i].name : NULL;
}

int contract_run(const struct contract_fixture *f, const char *only, struct contract_result *r)
{
	static struct sc s;
	FILE *out = f->out ? f->out : stdout;
	struct contract_result res = { 0, 0, 0 };
	int i, attempt, rc;

	for (i = 0; i < NSCEN; i++) {
		const struct scenario *x = &scenarios[i];

		if (only && *only && !strstr(x->name, only))
			continue;
		for (attempt = 1;; attempt++) {
			memset(&s, 0, sizeof(s));
			s.f = f;
			rc = f->reset(f->ctx);
			if (rc)
				rc = op_failed(&s, "reset", rc);
			else
				rc = x->run(&s);
			if (rc != CONTRACT_RETRY || attempt >= CONTRACT_RETRIES)
				break;
			fprintf(out, "RETRY %s (attempt %d): %s\n", x->name, attempt, s.msg);
			fflush(out);
		}
		if (rc == CONTRACT_OK && s.skipped) {
			fprintf(out, "SKIP %s: %s (fixture %s)\n", x->name, s.msg, f->name);
			res.skipped++;
		} else if (rc == CONTRACT_OK) {
			fprintf(out, "PASS %s: %s\n", x->name, x->what);
			res.passed++;
		} else {
			fprintf(out, "FAIL %s: %s\n", x->name, s.msg);
			res.failed++;
		}
		fflush(out);
	}
	fprintf(out, "contract: %d passed, %d failed, %d skipped\n", res.passed, res.failed,
		res.skipped);
	fflush(out);
	if (r)
		*r = res;
	return res.failed;
}
