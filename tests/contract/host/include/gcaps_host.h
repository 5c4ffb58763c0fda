/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gcaps_host.h: gcaps (gcaps.ko's decision core, gcaps-core) hosted in a user process, for a
 * GPU driver's tests. Link libgcaps_contract_host.a (tests/contract/host/README.md).
 *
 * The library exports gcaps_backend_register() exactly as module/include/gcaps_backend.h
 * declares it (include "gcaps_backend_user.h" for the contract's types in userspace): the
 * driver under test binds to it and gets gcaps's struct gcaps_be_calls table. This header is
 * the other side: the test plays gcaps's users (processes opening /dev/gcaps and bracketing
 * GPU segments) and gcaps.ko's work item, and reads what gcaps decided.
 *
 * Semantics are gcaps.ko's (module/gcaps/device.rs; gcaps's half of the contract is gcaps.ko's own
 * module/gcaps/backend.c, compiled into this library), with three differences:
 *  - Nothing runs by itself: TSG events, releases, recoveries and owner exits the driver or the
 *    test reports are recorded, and applied when the test calls gcaps_host_run_work() (the work
 *    item) or a real-time client begins, ends or closes (gcaps.ko's update path drains them).
 *  - Processes are explicit identities (tgid, owner_start), the same pair the driver reports
 *    in struct gcaps_be_tsg; the test's processes may raise their GPU priority (CAP_SYS_NICE).
 *  - Time is a test clock (gcaps_host_set_time_ns), starting at 0.
 *
 * Errors are -errno (Linux numbers). Every call that needs gcaps's update lock fails with
 * -EDEADLK when made from inside the driver's ops->resubmit() or ops->detach() (gcaps holds
 * the lock there; gcaps.ko would deadlock), gcaps_host_run_work() with -EAGAIN. The driver's
 * calls->eligible(), tsg_update(), tsg_release(), recovered() and stock() work from inside
 * ops->resubmit(): they are recorded, never applied re-entrantly.
 *
 * Threads: every call is safe from any thread (locks like gcaps.ko's), but scenarios are meant
 * for one thread (nvgpu's unit runner: --num-threads 1); the state is process-global.
 */
#ifndef GCAPS_HOST_H
#define GCAPS_HOST_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Words of a TSG bit set (GCAPS_BE_MAX_TSGS / 64). */
#define GCAPS_HOST_TSG_WORDS	16

/* A client's state (gcaps_host_begin, gcaps_host_client_state). */
#define GCAPS_HOST_IDLE		0	/* no open segment */
#define GCAPS_HOST_RUNNING	1	/* its segment runs: its process's TSGs are eligible */
#define GCAPS_HOST_PENDING	2	/* its segment waits for a higher-priority one */

/* ---- gcaps_backend_register()'s ERR_PTR results (the kernel's IS_ERR/PTR_ERR work too) ---- */

/* Whether ptr encodes an error: ERR_PTR(-errno), errno 1..4095. */
bool gcaps_host_is_err(const void *ptr);
/* The -errno ptr encodes, 0 for a valid pointer. */
long gcaps_host_ptr_err(const void *ptr);

/* ---- gcaps itself ---- */

/*
 * gcaps.ko's module exit: with a driver bound, calls ops->detach(drv) holding the update lock,
 * then forgets the driver. Every client is closed (segments ended); later calls fail with
 * -ENODEV and gcaps_backend_register() with ERR_PTR(-ENODEV) until gcaps_host_load().
 * Counters stay readable. Returns 1 if a driver was detached, 0 if none was bound (or not loaded).
 */
int gcaps_host_unload(void);
/*
 * gcaps.ko loaded afresh: no clients, no TSGs, every TSG eligible, generation 0, counters 0.
 * gcaps starts loaded: -EEXIST while loaded. Tests start each scenario with
 * gcaps_host_unload(); gcaps_host_load();
 */
int gcaps_host_load(void);
/*
 * gcaps_host_load() with the eligibility mechanism gcaps.ko's module parameter mechanism=
 * selects: GCAPS_BE_MECH_RELOAD (what gcaps_host_load() and the first load use) or
 * GCAPS_BE_MECH_GATE (gcaps calls ops->gate instead of ops->resubmit, publishes the snapshot
 * with gate set, and refuses a driver without GATE with ERR_PTR(-EOPNOTSUPP)). -EINVAL for
 * another value, -EEXIST while loaded.
 */
int gcaps_host_load_mechanism(uint32_t mechanism);

/* ---- gcaps's users ---- */

/*
 * Process (tgid, owner_start) opens /dev/gcaps: a new client. realtime: SCHED_FIFO at cpu_prio
 * (1..99); otherwise SCHED_OTHER and cpu_prio 0. Returns the client handle (> 0), or -EINVAL,
 * -ESRCH (that process exited), -ENOSPC (128 clients), -ENODEV, -EDEADLK.
 */
int64_t gcaps_host_client_open(int32_t tgid, uint64_t owner_start, bool realtime,
			       int32_t cpu_prio);
/*
 * GCAPS_IOC_SEG_BEGIN with gpu_prio (0: the CPU priority; 1..99: explicit, real-time only).
 * A resubmit (ops->resubmit) follows if the decision changed. Returns GCAPS_HOST_RUNNING or
 * GCAPS_HOST_PENDING, or -EINVAL (gpu_prio out of range), -EPERM (explicit priority from a
 * best-effort client, or the owner exited), -EALREADY (segment open), -EBADF, -ENODEV,
 * -EDEADLK. A failed resubmit is counted, not returned.
 */
int gcaps_host_begin(int64_t client, int32_t gpu_prio);
/* GCAPS_IOC_SEG_END. 0, or -ENOENT (no open segment), -EPERM, -EBADF, -ENODEV, -EDEADLK. */
int gcaps_host_end(int64_t client);
/*
 * The file's last reference is gone: ends an open segment and removes the client; the handle
 * is invalid afterwards. 0, or -EBADF, -ENODEV, -EDEADLK.
 */
int gcaps_host_client_close(int64_t client);
/*
 * Process (tgid, owner_start) exited: its clients are marked and removed (segments ended) by
 * the next gcaps_host_run_work() or real-time update; calls on their handles are -EPERM, close
 * them to free the handles. Returns the number of clients marked, or -ESRCH, -ENODEV, -EDEADLK.
 */
int gcaps_host_owner_exit(int32_t tgid, uint64_t owner_start);
/* A client's GCAPS_HOST_IDLE/_RUNNING/_PENDING, or -EPERM (owner exited), -EBADF, ... */
int gcaps_host_client_state(int64_t client);

/* ---- gcaps.ko's work item ---- */

/*
 * Under the update lock: applies owner exits, released TSG ids, every pending TSG event and a
 * reported recovery; publishes and resubmits if the decision changed (always after a
 * recovery). 0, or -EAGAIN from inside ops->resubmit/detach (gcaps.ko's work item would retry
 * later), -ENODEV.
 */
int gcaps_host_run_work(void);
/* 1 if events, a recovery or exits wait for the work item, 0 if not, or -errno. */
int gcaps_host_work_pending(void);

/* ---- the clock ---- */

void gcaps_host_set_time_ns(uint64_t ns);
uint64_t gcaps_host_time_ns(void);

/* ---- observations ---- */

struct gcaps_host_counters {
	uint64_t resubmits;		/* applications gcaps asked for: ops->resubmit calls
					 * (mechanism reload) or ops->gate calls (gate) */
	uint64_t resubmit_errors;	/* of those, non-zero returns */
	uint64_t resubmit_timeouts;	/* of those, -ETIMEDOUT */
	uint64_t recoveries;		/* calls->recovered() applied */
	uint64_t events;		/* TSG events applied (latest state per id) */
	uint64_t begins;
	uint64_t ends;
	uint64_t ends_by_close;		/* segments ended by a close or the owner's exit */
	uint64_t preemptions;
	uint64_t resumes;
	uint64_t publishes;		/* decisions written to the snapshot */
	uint64_t generation;		/* the published decision's generation */
	uint64_t detaches;		/* ops->detach calls */
	uint64_t registrations;		/* successful gcaps_backend_register() */
	uint64_t unregistrations;	/* calls->unregister() that unbound */
	uint64_t violations;		/* contract violations by the driver (also on stderr) */
	uint64_t warnings;		/* the first failed resubmit */
	uint64_t trace_events;		/* events gcaps's trace would hold */
	uint32_t bound;			/* 1: a driver is bound */
	uint32_t loaded;		/* 1: gcaps is loaded */
	uint32_t clients;		/* clients now */
	uint32_t tsgs;			/* TSGs gcaps knows (applied) now */
	uint64_t gate_preempts;		/* ops->gate calls that returned GCAPS_BE_GATE_PREEMPTED */
	uint64_t gate_handovers;	/* ops->gate calls that returned GCAPS_BE_GATE_HANDOVER */
};
/* 0, or -EINVAL (NULL), -EDEADLK. Also after gcaps_host_unload(). */
int gcaps_host_counters(struct gcaps_host_counters *out);

struct gcaps_host_decision {
	uint64_t generation;
	uint32_t all;		/* 1: every TSG is eligible (no real-time segment open) */
	uint32_t pad;
	uint64_t bits[GCAPS_HOST_TSG_WORDS];	/* eligible ids when !all: bit t%64 of word t/64 */
};
/* The policy's current decision. 0, or -EINVAL, -EDEADLK. */
int gcaps_host_decision(struct gcaps_host_decision *out);
/*
 * 1 if a driver is bound and its last calls->stock() said its runlists are stock (gcaps.ko's
 * GCAPS_IOC_VERSION reports it as GCAPS_BACKEND_STOCK in backend_flags), else 0 (also after
 * registration and unbinding, which clear it). No update lock: works from inside
 * ops->resubmit.
 */
int gcaps_host_backend_stock(void);
/*
 * The snapshot calls->eligible() copies (released ids already off). No update lock: works
 * from inside ops->resubmit. 0, or -EINVAL.
 */
int gcaps_host_published(struct gcaps_host_decision *out);

#ifdef __cplusplus
}
#endif

#endif /* GCAPS_HOST_H */
