/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loads a shared object built from scenario.c and libgcaps_contract_host.a with dlopen (as
 * nvgpu's unit runner loads its unit modules) and runs the scenario in it.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h, *reg;
	int (*scenario)(void);
	int line;

	if (argc != 2)
		return 2;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	reg = dlsym(h, "gcaps_backend_register");
	*(void **)&scenario = dlsym(h, "gcaps_c_scenario");
	if (!reg || !scenario) {
		printf("dlsym: gcaps_backend_register %p, gcaps_c_scenario %p\n", reg,
		       *(void **)&scenario);
		return 1;
	}
	line = scenario();
	if (line) {
		printf("scenario failed at scenario.c:%d\n", line);
		return 1;
	}
	printf("shared object: ok\n");
	return dlclose(h);
}
