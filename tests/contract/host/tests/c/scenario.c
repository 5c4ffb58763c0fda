/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A driver in C against libgcaps_contract_host.a: the backend contract's types from
 * gcaps_backend_user.h (the kernel header), the test API from gcaps_host.h. Linked into a
 * program (api.c) and into a shared object (so_main.c loads it), as nvgpu's unit modules are.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gcaps_backend_user.h"
#include "gcaps_host.h"

static const struct gcaps_be_calls *calls;
static struct gcaps_backend *be;
static int resubmits, detaches;
static struct gcaps_be_eligible last;

static int drv_resubmit(void *drv)
{
	(void)drv;
	resubmits++;
	calls->eligible(be, &last);
	return 0;
}

static void drv_detach(void *drv)
{
	(void)drv;
	detaches++;
	calls = NULL;
	be = NULL;
}

static const struct gcaps_backend_ops ops = {
	.name = "c-driver",
	.abi = GCAPS_BACKEND_ABI,
#ifdef GCAPS_BE_DETAIL_MAX	/* ABI 2 */
	.detail = "c test",
	.runlists = 1,
#endif
	.resubmit = drv_resubmit,
	.detach = drv_detach,
	.mechanisms = GCAPS_BE_MECH_RELOAD,
};

static bool has(const struct gcaps_be_eligible *e, unsigned int t)
{
	return e->all || (e->bits[t / BITS_PER_LONG] >> (t % BITS_PER_LONG)) & 1;
}

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);      \
			return __LINE__;                                               \
		}                                                                      \
	} while (0)

/* 0, or the failing line. */
int gcaps_c_scenario(void)
{
	const struct gcaps_be_calls *c2 = NULL;
	struct gcaps_be_tsg tsg;
	struct gcaps_host_counters cnt;
	struct gcaps_host_decision d;
	struct gcaps_backend *b2;
	int64_t client;

	gcaps_host_unload();
	CHECK(gcaps_host_load() == 0);
	resubmits = detaches = 0;

	be = gcaps_backend_register(&ops, NULL, &calls);
	CHECK(!gcaps_host_is_err(be) && calls);
	b2 = gcaps_backend_register(&ops, NULL, &c2);
	CHECK(gcaps_host_is_err(b2) && gcaps_host_ptr_err(b2) == -EBUSY && !c2);

	/* The replay: TSG 3 of process 100, TSG 200 of process 200. */
	memset(&tsg, 0, sizeof(tsg));
	tsg.tsgid = 3;
	tsg.tgid = 100;
	tsg.owner_start = 1000;
	tsg.timeslice_us = 1024;
	tsg.num_channels = 2;
	calls->tsg_update(be, &tsg);
	tsg.tsgid = 200;
	tsg.tgid = 200;
	tsg.owner_start = 2000;
	calls->tsg_update(be, &tsg);
	CHECK(gcaps_host_work_pending() == 1);
	CHECK(gcaps_host_run_work() == 0);
	CHECK(gcaps_host_work_pending() == 0);
	CHECK(gcaps_host_counters(&cnt) == 0 && cnt.tsgs == 2 && cnt.events == 2);

	client = gcaps_host_client_open(100, 1000, true, 10);
	CHECK(client > 0);
	CHECK(gcaps_host_begin(client, 0) == GCAPS_HOST_RUNNING);
	CHECK(resubmits == 1);
	CHECK(!last.all && has(&last, 3) && !has(&last, 200));
	CHECK(gcaps_host_decision(&d) == 0 && !d.all && d.bits[0] == 1u << 3 &&
	      d.generation == last.generation);
	CHECK(gcaps_host_end(client) == 0);
	CHECK(resubmits == 2 && last.all);

	/* The driver's runlists go stock and back (reported, the decision unchanged). */
	CHECK(gcaps_host_backend_stock() == 0);
	calls->stock(be, true);
	CHECK(gcaps_host_backend_stock() == 1);
	calls->stock(be, false);
	CHECK(gcaps_host_backend_stock() == 0);
	calls->stock(be, true);

	CHECK(gcaps_host_unload() == 1);
	CHECK(detaches == 1);
	CHECK(gcaps_host_backend_stock() == 0);
	CHECK(gcaps_host_counters(&cnt) == 0);
	CHECK(cnt.resubmits == 2 && cnt.detaches == 1 && !cnt.bound && !cnt.loaded &&
	      cnt.violations == 0);
	CHECK(gcaps_host_load() == 0);
	return 0;
}
