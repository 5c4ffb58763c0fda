// SPDX-License-Identifier: GPL-2.0-only
/*
 * The out-of-line part of the user-space shim (backend_prims_user.h): the work item the host
 * runs, the module reference, the log. The host's Rust (src/lib.rs) calls the gcaps_shim_*
 * functions below and provides gcaps_host_update_held() and gcaps_host_violation().
 */
#include <stdarg.h>
#include "backend_prims_user.h"
#include "../include/gcaps_backend_user.h"
#include "../../../../module/gcaps/backend.h"

void gcaps_host_violation(const char *msg);

static struct delayed_work *gcaps_shim_work;
static bool gcaps_shim_unloading;

/* gcaps starts loaded (the host's gcaps_host_unload/_load stop and start it again). */
static void __attribute__((constructor)) gcaps_shim_load(void)
{
	gcaps_backend_start(&gcaps_shim_unloading, GCAPS_BE_MECH_RELOAD);
}

void gcaps_shim_work_register(struct delayed_work *w)
{
	gcaps_shim_work = w;
}

/* Runs the work item once, kicked or not (the test decides when it runs). */
void gcaps_shim_run_work(void)
{
	if (!gcaps_shim_work)
		abort();
	__atomic_store_n(&gcaps_shim_work->pending, false, __ATOMIC_RELAXED);
	gcaps_shim_work->fn(&gcaps_shim_work->work);
}

/* Whether the work item was kicked (or asked to retry) since it last ran. */
bool gcaps_shim_work_pending(void)
{
	return gcaps_shim_work && __atomic_load_n(&gcaps_shim_work->pending, __ATOMIC_RELAXED);
}

/* gcaps is unloading: module references fail (try_module_get() during module exit). */
void gcaps_shim_set_unloading(bool on)
{
	__atomic_store_n(&gcaps_shim_unloading, on, __ATOMIC_RELAXED);
}

bool gcaps_shim_module_get(void)
{
	return !__atomic_load_n(&gcaps_shim_unloading, __ATOMIC_RELAXED);
}

void gcaps_shim_log(int violation, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	if (violation)
		gcaps_host_violation(buf);
	else
		fprintf(stderr, "%s\n", buf);
}
