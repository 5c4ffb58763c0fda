/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gcaps backend contract test suite (tests/contract/README.md): the scenarios of
 * module/include/gcaps_backend.h, written once, run by every backend against a fixture.
 *
 * Plain C99; uses only <stdio.h> and <string.h>; no kernel, nvgpu or VM headers. A backend's
 * test fills a struct contract_fixture with its implementation of the operations below and
 * calls contract_run() (not thread-safe: one run at a time). The suite observes only what every
 * driver has: the set of TSGs the GPU may run, each with its number of channel entries: the
 * TSGs on the runlist the driver last submitted (mechanism reload), or those of them whose
 * channels are enabled (mechanism gate, where the runlist lists every TSG). It never looks at
 * the order of the TSGs, timeslices or anything driver-specific.
 *
 * Return values of the fixture operations:
 *   CONTRACT_OK      done
 *   CONTRACT_ERR     the operation failed (error() says why): the scenario FAILs
 *   CONTRACT_RETRY   a precondition of the fixture itself did not hold (e.g. a loaded VM woke a
 *                    process too late for a timing the fixture needs): the scenario is rerun
 *                    from reset(), at most CONTRACT_RETRIES times, then FAILs
 */
#ifndef GCAPS_CONTRACT_H
#define GCAPS_CONTRACT_H

#include <stdio.h>

#define CONTRACT_OK		0
#define CONTRACT_ERR		(-1)
#define CONTRACT_RETRY		(-2)
#define CONTRACT_RETRIES	3

/* Most TSGs a decoded runlist holds (gcaps_backend.h: GCAPS_BE_MAX_TSGS). */
#define CONTRACT_RL_MAX		1024

/* One TSG of a runlist: its driver id and the channel entries listed after its TSG entry. */
struct contract_rl_tsg {
	unsigned int id;
	unsigned int channels;
};

/*
 * The TSGs the GPU may run: the runlist the driver last submitted, decoded, its TSG entries in
 * any order, each with the channel entries that follow it; under mechanism gate only the listed
 * TSGs whose channels are enabled. A TSG may appear more than once (nvgpu's interleave levels):
 * the suite compares the set, and fails a TSG listed with two different channel counts.
 */
struct contract_runlist {
	unsigned int n;
	struct contract_rl_tsg tsg[CONTRACT_RL_MAX];
};

/*
 * A backend's fixture. `ctx` is passed back to every operation. Owners are small integers the
 * fixture hands out (>= 0); TSGs are named by the id the driver gave them (the id it writes
 * into its runlist's TSG entries).
 */
struct contract_fixture {
	const char *name;	/* e.g. "simgpu", "nvgpu-r36" */
	void *ctx;
	FILE *out;		/* where the result lines go; NULL: stdout */

	/*
	 * Start a scenario from nothing: no owner, no TSG, gcaps loaded and bound to the driver,
	 * every earlier event applied, nothing pending, the runlist submitted empty. Called before
	 * every scenario (also before a rerun). Undoes detach().
	 */
	int (*reset)(void *ctx);
	/*
	 * A new owner: a process identity (tgid and start time, never reused) that is a gcaps
	 * client. rt_prio 1..99: real-time (SCHED_FIFO at that CPU priority); 0: best-effort
	 * (SCHED_OTHER). *owner: its handle.
	 */
	int (*owner_new)(void *ctx, int rt_prio, int *owner);
	/*
	 * The owner opens a TSG (a context) with its channels, as the driver does it on its own
	 * path (the driver reports it with calls->tsg_update). Must return (the open must
	 * complete) whatever gcaps decides. *tsgid: the driver's id; *channels: its runnable
	 * channels (what a runlist lists for it).
	 */
	int (*tsg_open)(void *ctx, int owner, unsigned int *tsgid, unsigned int *channels);
	/* The owner closes a TSG it opened (calls->tsg_release). */
	int (*tsg_close)(void *ctx, int owner, unsigned int tsgid);
	/*
	 * Optional (NULL: scenarios that need them SKIP): bind one more runnable channel to the
	 * TSG / unbind one (each a calls->tsg_update with the new count). The TSG keeps >= 1.
	 */
	int (*channel_add)(void *ctx, int owner, unsigned int tsgid);
	int (*channel_remove)(void *ctx, int owner, unsigned int tsgid);
	/*
	 * GCAPS_IOC_SEG_BEGIN / GCAPS_IOC_SEG_END of the owner (gpu_prio 0: inherit the CPU
	 * priority). *pending: 1 if the new segment waits (GCAPS_STATE_PENDING), 0 if it runs.
	 */
	int (*seg_begin)(void *ctx, int owner, int gpu_prio, int *pending);
	int (*seg_end)(void *ctx, int owner);
	/* The owner's process exits (its thread group is gone; its files and TSGs close). */
	int (*owner_exit)(void *ctx, int owner);
	/*
	 * Optional (NULL: SKIP): the driver recovers: engines reset, its runlist cleared, then
	 * recovered as the driver does it, with calls->recovered(). Returns when the recovery is
	 * over (settle() then waits for gcaps's reaction).
	 */
	int (*recover)(void *ctx);
	/*
	 * Optional (NULL: SKIP): gcaps unbinds from the driver (ops->detach, e.g. gcaps.ko
	 * unloads) and stays away until the next reset(). A fixture whose gcaps can only go
	 * without clients (simgpu: rmmod gcaps needs every /dev/gcaps file closed) makes every
	 * owner drop its gcaps client first; the TSGs stay open. Owners keep existing and may open
	 * more TSGs; no seg_begin/seg_end follows.
	 */
	int (*detach)(void *ctx);
	/*
	 * Wait until gcaps has applied every event caused so far (TSG opens and closes, exits,
	 * recoveries, channel changes) and the driver has submitted the runlist that results
	 * (the submit is no longer pending), then return. Event-synchronised with a bounded
	 * deadline (a failure to settle is CONTRACT_ERR with what was still missing), never a
	 * bare sleep. On a synchronous host (one thread, no work items), it runs gcaps's deferred
	 * work until none is left.
	 */
	int (*settle)(void *ctx);
	/*
	 * The TSGs the GPU may run (struct contract_runlist: the runlist the driver last submitted,
	 * under mechanism gate without the TSGs whose channels are disabled). Called after settle().
	 */
	int (*runlist)(void *ctx, struct contract_runlist *out);
	/* The last failure's message (one line), or NULL. Optional. */
	const char *(*error)(void *ctx);
};

struct contract_result {
	int passed;
	int failed;
	int skipped;
};

/*
 * Run the scenarios (all, or those whose name contains `only`), printing one line each
 * ("PASS|FAIL|SKIP <name>: ...") and "contract: N passed, M failed, K skipped". Returns the
 * number of failed scenarios (0: the backend keeps the contract as far as the suite sees).
 */
int contract_run(const struct contract_fixture *f, const char *only, struct contract_result *r);

/* Number of scenarios and the name of scenario i (for listings). */
int contract_count(void);
const char *contract_name(int i);

#endif /* GCAPS_CONTRACT_H */
