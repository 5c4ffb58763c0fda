/* SPDX-License-Identifier: MIT */
/*
 * The FIFO setup every gcaps unit module starts with, on nvgpu's fake GPU
 * (docs/nvgpu-facts.md, "nvgpu's host unit framework"; tests/nvgpu/README.md). Included by
 * nvgpu-gcaps.c and ../gcaps-contract/nvgpu-gcaps-contract.c; a static function so that each
 * module (a shared object of its own) keeps its copy.
 */
#ifndef GCAPS_FIFO_SETUP_H
#define GCAPS_FIFO_SETUP_H

#include <unit/unit.h>
#include <nvgpu/gk20a.h>
#include <nvgpu/enabled.h>
#include <nvgpu/runlist.h>
#include <nvgpu/posix/mock-regs.h>
#ifdef MOCK_REGS_RUNLIST		/* R36 (see tests/nvgpu/mock-registers.c) */
#include <nvgpu/nvs.h>
#endif

#include "../fifo/nvgpu-fifo-common.h"

/* FIFO init and what nvgpu's runlist code needs on the host; 0 or -1 (logged). */
static inline int gcaps_fifo_setup(struct unit_module *m, struct gk20a *g)
{
#ifdef CONFIG_NVGPU_DGPU
	/* Full profile: host memory is the GPU's memory (no vidmem, no PRAMIN accesses). */
	nvgpu_set_enabled(g, NVGPU_MM_UNIFIED_MEMORY, true);
#endif
	if (test_fifo_init_support(m, g, NULL) != UNIT_SUCCESS) {
		unit_err(m, "FIFO init failed\n");
		return -1;
	}
	g->ptimer_src_freq = 31250000U;	/* else every TSG append fails (-E2BIG) */
#ifdef MOCK_REGS_RUNLIST
	/* R36: NVS (g->scheduler), without the worker thread (it cannot find the fake GPU). */
	nvgpu_set_enabled(g, NVGPU_SUPPORT_KMD_SCHEDULING_WORKER_THREAD, false);
	nvgpu_set_enabled(g, NVGPU_SUPPORT_NVS, true);
	{
		int err = nvgpu_nvs_init(g);

		if (err != 0) {
			unit_err(m, "nvgpu_nvs_init: %d\n", err);
			return -1;
		}
	}
#endif
	g->poll_timeout_default = 100U;	/* 0 times out at the first PENDING read */
	g->runlist_interleave = true;	/* as Linux's driver_common.c */
	return 0;
}

/*
 * What recovery does to a runlist (gv11b_fifo_locked_abort_runlist_active_tsgs): clear its
 * active domain's buffer under every runlist lock, without submitting it. 0 or -errno.
 */
static inline int gcaps_clear_runlist(struct gk20a *g, struct nvgpu_runlist *rl)
{
	int err;

	nvgpu_runlist_lock_active_runlists(g);
	err = nvgpu_runlist_update_locked(g, rl, rl->domain, NULL, false, false);
	nvgpu_runlist_unlock_active_runlists(g);
	return err;
}

#endif /* GCAPS_FIFO_SETUP_H */
