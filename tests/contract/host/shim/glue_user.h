/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gcaps.ko's C interface as the contract host sees it (build.rs runs bindgen on this file):
 * gcaps_glue.h (the device's glue interface: backend.c's functions and the gcaps_rust_*
 * callbacks it calls), backend.h (backend.c's own) and the shim's functions, with the types
 * the shim defines for a user process.
 */
#ifndef GCAPS_GLUE_USER_H
#define GCAPS_GLUE_USER_H

#include "backend_prims_user.h"
#include "../../../../module/include/gcaps_backend.h"
#include "../../../../uapi/linux/gcaps.h"
#include "../../../../module/gcaps/gcaps_glue.h"
#include "../../../../module/gcaps/backend.h"

/* shim.c */
void gcaps_shim_run_work(void);
bool gcaps_shim_work_pending(void);
void gcaps_shim_set_unloading(bool on);

#endif /* GCAPS_GLUE_USER_H */
