/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What backend.c offers gcaps.ko's other C files (and the contract host, which compiles
 * backend.c in a user process) beyond gcaps_glue.h, whose backend functions (publish,
 * take_released, ev_next, ev_take_recovered, work_kick, be_*) it also defines.
 */
#ifndef GCAPS_BACKEND_INTERNAL_H
#define GCAPS_BACKEND_INTERNAL_H

struct gcaps_be_eligible;

/*
 * Module load, once the device exists: backends may bind, the work item may run; mech is the
 * eligibility mechanism (GCAPS_BE_MECH_RELOAD or _GATE) for as long as gcaps is loaded.
 */
void gcaps_backend_start(void *ctx, u32 mech);
/* Module exit, after the backend was detached: no work item runs afterwards. */
void gcaps_backend_stop(void);
/* The device's ctx between start and stop, else NULL (any context). */
void *gcaps_backend_ctx(void);
/* A hint (no lock): a TSG event or a recovery waits in the table. */
bool gcaps_backend_events_pending(void);
/* A copy of the published snapshot (what calls->eligible() copies; any context). */
void gcaps_backend_snapshot(struct gcaps_be_eligible *out);

#endif /* GCAPS_BACKEND_INTERNAL_H */
