/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gcaps backend contract: what a GPU driver implements so that gcaps.ko decides which TSGs are
 * on its runlist. Implemented by the nvgpu patch on a Jetson (nvgpu/README.md; the nvgpu facts
 * it rests on: docs/nvgpu-facts.md) and by gcaps_simgpu.ko, the emulated GPU of the test VM.
 *
 * Principles
 *  - The driver is the single writer of runlist memory and registers. It builds every runlist
 *    itself (its own entry encoder, its own TSG and channel state), on every path (gcaps's
 *    request, TSG open/close, parameter setters, resume, recovery), and filters TSGs through
 *    gcaps's published eligible set. There is no copy of "what is on the hardware" anywhere.
 *  - gcaps never needs the driver's runlist lock to publish a decision, and the driver never
 *    needs gcaps's update lock (an rt_mutex) to build a runlist: the eligible set is published
 *    as a seqcount-protected snapshot (calls->eligible()).
 *  - Neither module depends on the other's symbols at load time. gcaps.ko exports exactly one
 *    symbol, gcaps_backend_register(); the driver looks it up with symbol_get() when it loads
 *    and, if gcaps is not loaded yet, again when gcaps comes up (module notifier), calls it,
 *    and drops the symbol reference at once (symbol_put). Every other call into gcaps goes
 *    through the function table gcaps returns (struct gcaps_be_calls), valid until unbinding.
 *    Without gcaps the driver schedules every TSG (stock round robin). Either module can be
 *    unloaded and reloaded while the other stays loaded (see "Unbinding").
 *
 * Lock order (documented in docs/module.md):
 *    gcaps update lock (rt_mutex)  ->  driver runlist lock  ->  gcaps event spinlock
 *                                                          ->  snapshot seqcount (read)
 *  gcaps calls ->resubmit() and ->gate() holding its update lock; the driver calls the calls->* functions
 *  in any process context, also while holding its runlist lock (they take only a spinlock or
 *  read a seqcount; they never sleep and never take the update lock).
 *
 * Unbinding
 *  - Driver unload: the driver calls calls->unregister(be) (may sleep; takes gcaps's update
 *    lock, so never with the runlist lock held). After it returns gcaps makes no more calls
 *    into the driver, the handle is freed, and the driver must not use `calls` again.
 *  - gcaps unload: gcaps calls ops->detach(drv) holding its update lock. The driver stops
 *    calling into gcaps (it must wait for calls in flight, e.g. with SRCU or its runlist lock),
 *    forgets `calls` and the handle, and rebuilds and submits its runlist with every TSG
 *    (stock behaviour) before returning. gcaps then frees the handle. The two paths race
 *    safely: whichever takes gcaps's update lock first unbinds; the other finds nothing to do.
 */
#ifndef _GCAPS_BACKEND_H
#define _GCAPS_BACKEND_H

#include <linux/types.h>

/*
 * Contract version. gcaps.ko accepts exactly this version (-EINVAL otherwise).
 *   1: first version.
 *   2: struct gcaps_be_tsg gains `flags` (GCAPS_BE_TSG_ALWAYS: driver-internal TSG);
 *      struct gcaps_backend_ops gains `detail` and `runlists` (shown by gcapsctl status);
 *      struct gcaps_be_calls gains `stock` (the driver's runlists are stock: its own scheduler
 *      owns them; GCAPS_IOC_VERSION's backend_flags, gcapsctl status).
 *   3: the eligibility mechanism: struct gcaps_backend_ops gains `mechanisms` and `gate`;
 *      struct gcaps_be_eligible gains `gate` (the binding's mechanism is GATE).
 */
#define GCAPS_BACKEND_ABI	3
/* TSG ids a backend may use: 0 .. GCAPS_BE_MAX_TSGS - 1 (the policy crate's capacity). */
#define GCAPS_BE_MAX_TSGS	1024

struct gcaps_backend;	/* opaque handle owned by gcaps */

/* A TSG as the driver describes it. */
struct gcaps_be_tsg {
	u32 tsgid;		/* < GCAPS_BE_MAX_TSGS */
	pid_t tgid;		/* owner: current->tgid of the process that opened the TSG */
	u64 owner_start;	/* owner's group leader start_boottime (ns): with tgid an identity
				 * that is never reused while the system runs */
	u32 timeslice_us;	/* the TSG's timeslice */
	u32 num_channels;	/* channels bound and runnable (0: not on any runlist) */
	/* ABI 2 */
	u32 flags;		/* GCAPS_BE_TSG_*; unknown bits are ignored */
	u32 reserved;		/* 0 */
};

/*
 * The TSG is the driver's own (or the kernel's): no user process owns its work, e.g. copy or
 * CDE work, page-table or channel setup the driver submits and waits for, possibly under its
 * own locks. gcaps keeps it eligible at all times (policy: always-eligible, reason "driver"),
 * so that no real-time segment can keep the driver from finishing work that the segment's
 * own process (or anybody else) waits for. Report it with the TSG's first tsg_update and on
 * every later one (clearing the bit clears the driver's reason). An administrator's mark
 * (GCAPS_IOC_SET_ALWAYS) is a separate reason: the TSG is always eligible if either is set.
 */
#define GCAPS_BE_TSG_ALWAYS	(1u << 0)

/*
 * Eligibility mechanisms: how the driver keeps the TSGs that are not eligible off the GPU.
 * gcaps.ko uses one, its module parameter mechanism=reload|gate, for as long as it is loaded;
 * a backend says which it implements in ops->mechanisms.
 *
 * RELOAD: the runlist lists only the eligible TSGs (and runnable ones). Every build filters
 *   through calls->eligible(); a change of the decision is applied by rebuilding and
 *   resubmitting the runlist (ops->resubmit), waiting until the submit is no longer pending.
 * GATE: the runlist stays complete, exactly as the driver builds it without gcaps; a TSG that
 *   is not eligible stays listed with every channel disabled, and the host scheduler skips a
 *   TSG whose channels are all disabled. A change of the decision is applied through the
 *   channels' enable state (ops->gate): no runlist submit, no pending wait. Every path of the
 *   driver that enables a channel or TSG (user enable, parameter setters, bind, recovery,
 *   resume) leaves the channels of a TSG that is not eligible disabled, remembering that its
 *   user wants them enabled, and ops->gate enables them once the TSG becomes eligible.
 */
#define GCAPS_BE_MECH_RELOAD	(1u << 0)
#define GCAPS_BE_MECH_GATE	(1u << 1)

/* The published decision: which TSGs may run. */
struct gcaps_be_eligible {
	u64 generation;		/* increases on every change of the set */
	bool all;		/* no real-time segment open: every TSG is eligible (stock) */
	/* ABI 3 */
	bool gate;		/* the binding's mechanism is GATE: list every TSG on the runlist
				 * and apply `all`/`bits` to the channels' enable state; RELOAD
				 * (false): list only the eligible TSGs. Constant while bound. */
	unsigned long bits[GCAPS_BE_MAX_TSGS / BITS_PER_LONG];	/* valid when !all */
};

/* ops->gate's results (>= 0). */
#define GCAPS_BE_GATE_HANDOVER	0	/* only enable state was written: no TSG that lost
					 * eligibility was on the engine */
#define GCAPS_BE_GATE_PREEMPTED	1	/* a TSG that lost eligibility was on the engine; it was
					 * preempted and the preempt completed */

/* Limits checked at registration (including the NUL): */
#define GCAPS_BE_NAME_MAX	32	/* ops->name: 1..31 characters */
#define GCAPS_BE_DETAIL_MAX	64	/* ops->detail: 0..63 characters */

struct gcaps_backend_ops {
	const char *name;	/* short driver name, shown by GCAPS_IOC_VERSION, e.g. "simgpu",
				 * "nvgpu": 1..31 printable characters */
	u32 abi;		/* GCAPS_BACKEND_ABI */
	/* ABI 2 */
	const char *detail;	/* the driver's line and chip, e.g. "r36.4.2 ga10b", "emulated
				 * gv11b": 0..63 printable characters (not NULL) */
	u32 runlists;		/* bit i set: the backend filters the builds of hardware runlist i
				 * through calls->eligible() (at least one bit) */
	/*
	 * Rebuild the runlist from the driver's state filtered by calls->eligible(), submit it
	 * and wait until the submit is no longer pending (bounded; the driver's timeout). Called by
	 * gcaps in process context holding its update lock; may sleep. Returns 0, or -ETIMEDOUT
	 * if the submit stayed pending and the driver ran its recovery, or another -errno if
	 * nothing was submitted (e.g. GPU powered off: resume rebuilds anyway).
	 */
	int (*resubmit)(void *drv);
	/* gcaps is unloading: see "Unbinding". Called holding gcaps's update lock; may sleep. */
	void (*detach)(void *drv);
	/* ABI 3 */
	u32 mechanisms;		/* GCAPS_BE_MECH_*: the mechanisms the driver implements (at least
				 * RELOAD; GATE iff `gate` is set). gcaps refuses to bind a driver
				 * that lacks the mechanism it was loaded with. */
	/*
	 * Mechanism GATE: apply calls->eligible() to the channels' enable state, without touching
	 * the runlist. In this order: (1) disable every channel of each TSG that is not eligible;
	 * (2) if such a TSG may still be running work on the engine (the driver's engine status
	 * says it is loaded and busy, or switching in), preempt it with the driver's TSG preempt
	 * and wait for its completion (bounded: the driver's preempt timeout, then its recovery);
	 * (3) enable the channels of each eligible TSG that its user wants enabled. Disabling
	 * first means that nothing which lost eligibility is scheduled again once the preempt
	 * completed; a TSG that is idle at the end of its segment costs no preempt and no wait.
	 * Called by gcaps in process context holding its update lock; may sleep (only in the
	 * preempt wait). Returns GCAPS_BE_GATE_HANDOVER or GCAPS_BE_GATE_PREEMPTED, -ETIMEDOUT if
	 * a preempt did not complete and the driver ran its recovery, or another -errno if nothing
	 * was written (e.g. GPU powered off: resume applies the published set anyway).
	 * detach() and unregister() under GATE leave every channel as its user wants it (stock).
	 */
	int (*gate)(void *drv);
};

/* What the driver calls in gcaps, through the table gcaps_backend_register() returns. */
struct gcaps_be_calls {
	/* Unbind (driver unload). May sleep; never with the runlist lock held. */
	void (*unregister)(struct gcaps_backend *be);
	/* A TSG was created or changed (channels bound/unbound/runnable, timeslice). Never sleeps. */
	void (*tsg_update)(struct gcaps_backend *be, const struct gcaps_be_tsg *tsg);
	/*
	 * A TSG was released. Its id stops being eligible in the published set at once (before
	 * gcaps applies the event), so the driver may reuse the id for a new TSG right after this
	 * returns: the new TSG is not eligible until gcaps has applied the release and its
	 * tsg_update (then it is, if its owner runs). Never sleeps.
	 */
	void (*tsg_release)(struct gcaps_backend *be, u32 tsgid);
	/* The driver recovered (engines reset, runlist cleared): gcaps resubmits soon. Never sleeps. */
	void (*recovered)(struct gcaps_backend *be);
	/*
	 * Copy the current decision (consistent: retried under a seqcount). Never sleeps. The driver
	 * calls it once per runlist build, under its runlist lock, and lists exactly the TSGs that
	 * are eligible (out->all, or their bit set) and runnable; under out->gate it lists every
	 * runnable TSG and calls it wherever it enables a channel (see GCAPS_BE_MECH_GATE).
	 */
	void (*eligible)(struct gcaps_backend *be, struct gcaps_be_eligible *out);
	/* ABI 2 */
	/*
	 * The driver's runlists are stock whatever the eligible set (its own scheduler owns them,
	 * e.g. nvgpu R36 while a GSP user scheduling domain exists: the firmware owns the
	 * runlists, and the driver lists every TSG): on; filtered through calls->eligible()
	 * again: off. Called on each change, from any context including under the driver's
	 * runlist lock; never sleeps. gcaps only reports it (GCAPS_IOC_VERSION's backend_flags,
	 * GCAPS_BACKEND_STOCK; gcapsctl status and check): its decision is still taken and
	 * published, and applies again once the driver calls stock(be, false). The state is per
	 * binding: off at registration and forgotten at unbinding, so a driver that registers
	 * while its runlists are stock calls stock(be, true) right after registering (with its
	 * tsg_update()s).
	 */
	void (*stock)(struct gcaps_backend *be, bool on);
};

/*
 * Register a backend (the only symbol gcaps.ko exports). At most one backend is bound at a
 * time: ERR_PTR(-EBUSY) otherwise; ERR_PTR(-EINVAL) on a bad ops table or ABI mismatch (abi other
 * than GCAPS_BACKEND_ABI, a NULL function, name empty/too long/not printable, detail NULL/too
 * long/not printable, runlists 0, mechanisms without RELOAD or with unknown bits, `gate` NULL
 * with GATE or set without it), with one log line saying which; ERR_PTR(-EOPNOTSUPP) if the driver lacks
 * the mechanism gcaps was loaded with (one log line). On
 * success *calls points to gcaps's table. The driver must report every existing TSG with
 * calls->tsg_update() right after a successful registration.
 */
struct gcaps_backend *gcaps_backend_register(const struct gcaps_backend_ops *ops, void *drv,
					     const struct gcaps_be_calls **calls);

/*
 * TSG events are recorded in a per-TSG table preallocated at registration (no allocation, no
 * overflow) and applied by gcaps under its update lock (from a work item, or on the next
 * begin/end), followed by a resubmit (RELOAD) or a gate (GATE) if the eligible set changed.
 */

#endif /* _GCAPS_BACKEND_H */
