/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The backend contract suite (tests/contract/contract.c) on gcaps's real core hosted in this
 * process (libgcaps_contract_host.a) with a small synchronous C driver: the "synchronous host"
 * fixture of tests/contract/README.md, with the toy gcaps of selftest.c replaced by the real
 * one. The driver keeps TSGs with channels, reports every change (calls->tsg_update/
 * tsg_release), rebuilds its runlist on each of its own paths filtered by calls->eligible(),
 * and on ops->resubmit; settle() runs gcaps's work item until nothing is pending.
 *
 * The driver implements both mechanisms. $SUITE_MECHANISM=gate loads gcaps with
 * mechanism=gate: the runlist lists every open TSG, gcaps applies its decisions with
 * ops->gate, and what the fixture reports is the set the GPU may run: the listed TSGs whose
 * channels are enabled (the driver enables exactly the eligible ones, on ops->gate and on
 * each of its own paths).
 *
 * Usage: suite [mutation [only]]. Mutations of the driver (each must fail scenarios):
 *   ignore-eligible   the driver lists (enables) every TSG whatever gcaps decided
 *   no-recovered      the recovery is not reported (calls->recovered)
 *   no-open-report    a TSG's open is not reported (calls->tsg_update)
 *   gate-ignored      ops->gate changes no enable state
 */
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gcaps_backend_user.h"
#include "gcaps_host.h"
#include "contract.h"

#define NT	64	/* TSG ids the driver hands out: 0 .. NT - 1, lowest free first */
#define NO	64	/* owners per scenario */

static const char *mutation = "";
#define MUT(m) (strcmp(mutation, (m)) == 0)

static struct {
	int open;
	int owner;
	unsigned int channels;
} ts[NT];

static struct {
	int32_t tgid;
	uint64_t start;
	int64_t client;
} ow[NO];
static int nowners;
static int32_t next_tgid = 1000;	/* identities are never reused, across scenarios too */

static const struct gcaps_be_calls *calls;
static struct gcaps_backend *be;
static struct contract_runlist last;
static uint32_t mechanism = GCAPS_BE_MECH_RELOAD;
static char err[256];
static unsigned long long violations;	/* summed over scenarios (a load resets gcaps's) */

static void count_violations(void)
{
	struct gcaps_host_counters cnt;

	if (gcaps_host_counters(&cnt) == 0)
		violations += cnt.violations;
}

/* ---- the driver ---- */

static int eligible(const struct gcaps_be_eligible *e, unsigned int t)
{
	return e->all || ((e->bits[t / BITS_PER_LONG] >> (t % BITS_PER_LONG)) & 1);
}

/*
 * Build and "submit" the runlist: every open TSG with channels that gcaps allows (reload), or
 * set the enable state of every open TSG to gcaps's decision (gate); `last` is what the GPU
 * may run either way.
 */
static void rebuild(void)
{
	struct gcaps_be_eligible e;
	unsigned int t;

	memset(&e, 0, sizeof(e));
	e.all = true;
	if (calls && !MUT("ignore-eligible"))
		calls->eligible(be, &e);
	last.n = 0;
	for (t = 0; t < NT; t++)
		if (ts[t].open && ts[t].channels && eligible(&e, t)) {
			last.tsg[last.n].id = t;
			last.tsg[last.n].channels = ts[t].channels;
			last.n++;
		}
}

static void report(unsigned int t)
{
	struct gcaps_be_tsg x;

	if (!calls)
		return;
	memset(&x, 0, sizeof(x));
	x.tsgid = t;
	x.tgid = ow[ts[t].owner].tgid;
	x.owner_start = ow[ts[t].owner].start;
	x.timeslice_us = 1024;
	x.num_channels = ts[t].channels;
	calls->tsg_update(be, &x);
}

static int drv_resubmit(void *drv)
{
	(void)drv;
	rebuild();
	return 0;
}

/* Synchronous: nothing runs on an engine, so nothing is ever preempted. */
static int drv_gate(void *drv)
{
	(void)drv;
	if (!MUT("gate-ignored"))
		rebuild();
	return GCAPS_BE_GATE_HANDOVER;
}

static void drv_detach(void *drv)
{
	(void)drv;
	calls = NULL;
	be = NULL;
	rebuild();	/* stock */
}

static const struct gcaps_backend_ops ops = {
	.name = "contract-c",
	.abi = GCAPS_BACKEND_ABI,
#ifdef GCAPS_BE_DETAIL_MAX	/* ABI 2 */
	.detail = "synchronous C driver",
	.runlists = 1,
#endif
	.resubmit = drv_resubmit,
	.detach = drv_detach,
	.mechanisms = GCAPS_BE_MECH_RELOAD | GCAPS_BE_MECH_GATE,
	.gate = drv_gate,
};

/* ---- the fixture ---- */

static int fail(const char *what, long rc)
{
	snprintf(err, sizeof(err), "%s: %ld", what, rc);
	return CONTRACT_ERR;
}

static int f_reset(void *c)
{
	(void)c;
	count_violations();
	gcaps_host_unload();
	memset(ts, 0, sizeof(ts));
	nowners = 0;
	if (gcaps_host_load_mechanism(mechanism))
		return fail("gcaps_host_load_mechanism", -1);
	be = gcaps_backend_register(&ops, NULL, &calls);
	if (gcaps_host_is_err(be)) {
		calls = NULL;
		return fail("gcaps_backend_register", gcaps_host_ptr_err(be));
	}
	rebuild();
	return CONTRACT_OK;
}

static int f_owner_new(void *c, int rt_prio, int *o)
{
	(void)c;
	if (nowners == NO)
		return fail("owners", NO);
	ow[nowners].tgid = next_tgid++;
	ow[nowners].start = (uint64_t)ow[nowners].tgid * 10;
	ow[nowners].client = gcaps_host_client_open(ow[nowners].tgid, ow[nowners].start,
						    rt_prio > 0, rt_prio);
	if (ow[nowners].client <= 0)
		return fail("gcaps_host_client_open", (long)ow[nowners].client);
	*o = nowners++;
	return CONTRACT_OK;
}

static int f_tsg_open(void *c, int o, unsigned int *tsgid, unsigned int *channels)
{
	unsigned int t;

	(void)c;
	for (t = 0; t < NT && ts[t].open; t++)
		;
	if (t == NT)
		return fail("TSG ids", NT);
	ts[t].open = 1;
	ts[t].owner = o;
	ts[t].channels = 2;
	if (!MUT("no-open-report"))
		report(t);
	rebuild();
	*tsgid = t;
	*channels = ts[t].channels;
	return CONTRACT_OK;
}

static int f_tsg_close(void *c, int o, unsigned int t)
{
	(void)c;
	if (t >= NT || !ts[t].open || ts[t].owner != o)
		return fail("no such TSG", (long)t);
	ts[t].open = 0;
	if (calls)
		calls->tsg_release(be, t);
	rebuild();
	return CONTRACT_OK;
}

static int channels(int o, unsigned int t, int d)
{
	if (t >= NT || !ts[t].open || ts[t].owner != o)
		return fail("no such TSG", (long)t);
	ts[t].channels += d;
	report(t);
	rebuild();
	return CONTRACT_OK;
}

static int f_channel_add(void *c, int o, unsigned int t)
{
	(void)c;
	return channels(o, t, 1);
}

static int f_channel_remove(void *c, int o, unsigned int t)
{
	(void)c;
	return channels(o, t, -1);
}

static int f_seg_begin(void *c, int o, int gpu_prio, int *pending)
{
	int rc = gcaps_host_begin(ow[o].client, gpu_prio);

	(void)c;
	if (rc < 0)
		return fail("gcaps_host_begin", rc);
	*pending = rc == GCAPS_HOST_PENDING;
	return CONTRACT_OK;
}

static int f_seg_end(void *c, int o)
{
	int rc = gcaps_host_end(ow[o].client);

	(void)c;
	return rc < 0 ? fail("gcaps_host_end", rc) : CONTRACT_OK;
}

/* The process exits: its TSGs close (driver), then gcaps sees its thread group gone. */
static int f_owner_exit(void *c, int o)
{
	unsigned int t;
	int rc;

	for (t = 0; t < NT; t++)
		if (ts[t].open && ts[t].owner == o)
			f_tsg_close(c, o, t);
	rc = gcaps_host_owner_exit(ow[o].tgid, ow[o].start);
	return rc < 0 ? fail("gcaps_host_owner_exit", rc) : CONTRACT_OK;
}

static int f_recover(void *c)
{
	(void)c;
	last.n = 0;	/* engines reset, runlist cleared */
	if (calls && !MUT("no-recovered"))
		calls->recovered(be);
	return CONTRACT_OK;
}

static int f_detach(void *c)
{
	int rc = gcaps_host_unload();

	(void)c;
	return rc == 1 ? CONTRACT_OK : fail("gcaps_host_unload (1: detached)", rc);
}

/* The synchronous host: run gcaps's work item until nothing is pending (bounded). */
static int f_settle(void *c)
{
	int round, pending = 0;

	(void)c;
	for (round = 0; round < 16; round++) {
		pending = gcaps_host_work_pending();
		if (pending <= 0)	/* 0, or -ENODEV: gcaps detached, nothing to wait for */
			return CONTRACT_OK;
		if (gcaps_host_run_work())
			return fail("gcaps_host_run_work", -1);
	}
	return fail("work still pending after 16 runs", pending);
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
	static const struct contract_fixture f = {
		.name = "gcaps-contract-host",
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
	int failed;

	if (argc > 1)
		mutation = argv[1];
	if (getenv("SUITE_MECHANISM") && !strcmp(getenv("SUITE_MECHANISM"), "gate"))
		mechanism = GCAPS_BE_MECH_GATE;
	failed = contract_run(&f, argc > 2 ? argv[2] : NULL, NULL);
	/* Contract violations the hosted gcaps saw (the driver misused the calls table). */
	count_violations();
	printf("gcaps-contract-host: %llu contract violations\n", violations);
	if (violations)
		failed++;
	return failed ? 1 : 0;
}
