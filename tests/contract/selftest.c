// SPDX-License-Identifier: GPL-2.0-only
/*
 * The suite's own check (tests/contract/check.sh): a toy backend in one process, with a
 * synchronous host, linked against libcontract.so (contract.c built -fPIC -shared). It shows
 * how a host fixture (the nvgpu unit one) implements the interface, and proves each scenario
 * can fail: `selftest MUTATION` breaks the toy driver or the toy gcaps in one way and the
 * named scenarios must FAIL.
 *
 * The toy gcaps: owners with a CPU priority (0 best-effort), segments; the running segment is
 * the real-time one of the highest priority, the earliest begin among equals; TSG events (open,
 * close, channel change) and recoveries are queued by the driver and applied only in settle()
 * (gcaps's work item on a synchronous host), where gcaps also resubmits. The toy driver: a TSG
 * table with channel counts, a runlist built from it filtered by the published set, rebuilt on
 * its own paths (open, close, channel change, recovery, detach). Not gcaps's real policy: only
 * the rules the contract suite checks.
 */
#include <stdio.h>
#include <string.h>

#include "contract.h"

#define NO 16
#define NT 64

static const char *mutation = "";
#define MUT(m) (strcmp(mutation, (m)) == 0)

static struct {
	int used, prio, alive, seg;
	unsigned long since;	/* begin order */
} ow[NO];
static struct {
	int used, owner, ch;
	int known;		/* gcaps applied its open (in its mirror) */
} ts[NT];
static unsigned long seq;
static int bound = 1;		/* gcaps bound to the driver */
static int events;		/* unapplied driver events */
static int recovered;		/* the driver reported a recovery */
static int running = -1;	/* the owner whose real-time segment runs */
static int elig_all = 1;	/* the published set */
static int elig[NT];
static struct contract_runlist last;	/* what the driver last submitted */
static char err[256];

/* The driver: build and submit, filtered by the published set. */
static void drv_submit(void)
{
	int t;

	last.n = 0;
	for (t = 0; t < NT; t++) {
		if (!ts[t].used)
			continue;
		if (bound && !elig_all && !elig[t] && !MUT("ignore-eligible"))
			continue;
		last.tsg[last.n].id = (unsigned int)t;
		last.tsg[last.n].channels = (unsigned int)ts[t].ch;
		last.n++;
		if (MUT("interleave")) {	/* not a defect: listed twice, like nvgpu's levels */
			last.tsg[last.n] = last.tsg[last.n - 1];
			last.n++;
		}
	}
}

/* gcaps: the decision, published; the driver resubmits if the set changed (or forced). */
static void gcaps_decide(int force)
{
	int o, run = -1, t, changed, old_all = elig_all, nt[NT];

	for (o = 0; o < NO; o++)
		if (ow[o].used && ow[o].alive && ow[o].seg && ow[o].prio > 0 &&
		    (run < 0 || (MUT("latest-wins") ? ow[o].since > ow[run].since :
				 ow[o].prio > ow[run].prio ||
				 (ow[o].prio == ow[run].prio && ow[o].since < ow[run].since))))
			run = o;
	running = run;
	elig_all = run < 0;
	for (t = 0; t < NT; t++)
		nt[t] = ts[t].used && ts[t].known && ts[t].owner == run;
	changed = old_all != elig_all || (!elig_all && memcmp(nt, elig, sizeof(nt)));
	memcpy(elig, nt, sizeof(nt));
	if ((changed || force) && bound)
		drv_submit();
}

static int f_reset(void *c)
{
	(void)c;
	memset(ow, 0, sizeof(ow));
	memset(ts, 0, sizeof(ts));
	bound = 1;
	events = recovered = 0;
	gcaps_decide(1);
	return CONTRACT_OK;
}

static int f_owner_new(void *c, int prio, int *o)
{
	int i;

	(void)c;
	for (i = 0; i < NO && ow[i].used; i++)
		;
	if (i == NO)
		return CONTRACT_ERR;
	ow[i].used = ow[i].alive = 1;
	ow[i].prio = prio;
	*o = i;
	return CONTRACT_OK;
}

static int f_tsg_open(void *c, int o, unsigned int *id, unsigned int *ch)
{
	int t;

	(void)c;
	for (t = 0; t < NT && ts[t].used; t++)
		;
	if (t == NT)
		return CONTRACT_ERR;
	ts[t].used = 1;
	ts[t].owner = o;
	ts[t].ch = 2;
	ts[t].known = 0;
	events++;		/* calls->tsg_update */
	drv_submit();
	*id = (unsigned int)t;
	*ch = 2;
	return CONTRACT_OK;
}

static int f_tsg_close(void *c, int o, unsigned int id)
{
	(void)c;
	(void)o;
	ts[id].used = 0;
	elig[id] = 0;		/* calls->tsg_release: off the published set at once */
	events++;
	if (!MUT("no-close-rebuild"))
		drv_submit();
	return CONTRACT_OK;
}

static int f_channel(void *c, int o, unsigned int id, int d)
{
	(void)c;
	(void)o;
	ts[id].ch += d;
	events++;		/* calls->tsg_update with the new count */
	if (!MUT("stale-channels"))
		drv_submit();
	return CONTRACT_OK;
}

static int f_channel_add(void *c, int o, unsigned int id)
{
	return f_channel(c, o, id, 1);
}

static int f_channel_remove(void *c, int o, unsigned int id)
{
	return f_channel(c, o, id, -1);
}

static int f_seg_begin(void *c, int o, int prio, int *pending)
{
	(void)c;
	(void)prio;
	ow[o].seg = 1;
	ow[o].since = ++seq;
	gcaps_decide(0);
	*pending = ow[o].prio > 0 && running != o;
	return CONTRACT_OK;
}

static int f_seg_end(void *c, int o)
{
	(void)c;
	ow[o].seg = 0;
	gcaps_decide(0);
	return CONTRACT_OK;
}

static int f_owner_exit(void *c, int o)
{
	int t;

	(void)c;
	for (t = 0; t < NT; t++)
		if (ts[t].used && ts[t].owner == o)
			f_tsg_close(c, o, (unsigned int)t);
	ow[o].alive = 0;
	ow[o].seg = 0;
	events++;		/* the owner's exit, applied by the work item */
	return CONTRACT_OK;
}

static int f_recover(void *c)
{
	static int calls;

	(void)c;
	/* The retry protocol: a fixture precondition missed once (rerun passes) or always (FAIL). */
	if ((MUT("retry-once") && calls++ == 0) || MUT("retry-always")) {
		snprintf(err, sizeof(err), "toy: no recovery happened (%s)", mutation);
		return CONTRACT_RETRY;
	}
	last.n = 0;		/* engines reset, runlist cleared */
	if (!MUT("no-recovered"))
		recovered = 1;	/* calls->recovered: gcaps resubmits */
	return CONTRACT_OK;
}

static int f_detach(void *c)
{
	(void)c;
	bound = 0;
	if (!MUT("no-detach-rebuild"))
		drv_submit();	/* stock: every TSG */
	return CONTRACT_OK;
}

/* Synchronous host: run gcaps's deferred work (apply events, decide, resubmit) until none. */
static int f_settle(void *c)
{
	int t;

	(void)c;
	if (!bound)
		return CONTRACT_OK;
	if (events || recovered) {
		for (t = 0; t < NT; t++)
			ts[t].known = ts[t].used;
		events = 0;
		gcaps_decide(recovered);
		recovered = 0;
	}
	return CONTRACT_OK;
}

static int f_runlist(void *c, struct contract_runlist *out)
{
	(void)c;
	*out = last;
	return CONTRACT_OK;
}

static const char *f_error(void *c)
{
	(void)c;
	return err;
}

int main(int argc, char **argv)
{
	struct contract_fixture f = {
		.name = "toy",
		.reset = f_reset,
		.owner_new = f_owner_new,
		.tsg_open = f_tsg_open,
		.tsg_close = f_tsg_close,
		.channel_add = f_channel_add,
		.channel_remove = f_channel_remove,
		.seg_begin = f_seg_begin,
		.seg_end = f_seg_end,
		.owner_exit = f_owner_exit,
		.recover = f_recover,
		.detach = f_detach,
		.settle = f_settle,
		.runlist = f_runlist,
		.error = f_error,
	};

	if (argc > 1)
		mutation = argv[1];
	if (MUT("no-channel-ops"))
		f.channel_add = f.channel_remove = NULL;
	return contract_run(&f, argc > 2 ? argv[2] : NULL, NULL) ? 1 : 0;
}
