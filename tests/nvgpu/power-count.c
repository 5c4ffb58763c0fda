// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD for our unit module (run.sh, mutate.sh): counts nvgpu's gk20a_busy() and
 * gk20a_idle() calls and forwards them to nvgpu's own (os/posix/nvgpu.c). In the host safety
 * build both are no-ops (the usage counter is CONFIG_NVGPU_NON_FUSA only), so without this a
 * dropped power reference would not be visible. The runner dlopen()s libnvgpu-drv-igpu.so with
 * RTLD_GLOBAL, so a definition in a unit module cannot interpose; a preloaded one does.
 * The unit reads the counts with dlsym(RTLD_DEFAULT, "gcaps_test_power_counts").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct gk20a;

static unsigned int busy_calls, busy_ok, idle_calls;

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL) {
		fprintf(stderr, "power-count: %s not found after the preload\n", name);
		abort();
	}
	return f;
}

int gk20a_busy(struct gk20a *g)
{
	static int (*busy)(struct gk20a *g);
	int err;

	if (busy == NULL) {
		busy = (int (*)(struct gk20a *))real("gk20a_busy");
	}
	busy_calls++;
	err = busy(g);
	if (err == 0) {
		busy_ok++;
	}
	return err;
}

void gk20a_idle(struct gk20a *g)
{
	static void (*idle)(struct gk20a *g);

	if (idle == NULL) {
		idle = (void (*)(struct gk20a *))real("gk20a_idle");
	}
	idle_calls++;
	idle(g);
}

void gcaps_test_power_counts(unsigned int *busy, unsigned int *ok, unsigned int *idle);
void gcaps_test_power_counts(unsigned int *busy, unsigned int *ok, unsigned int *idle)
{
	*busy = busy_calls;
	*ok = busy_ok;
	*idle = idle_calls;
}
