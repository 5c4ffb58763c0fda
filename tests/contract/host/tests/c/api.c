/* SPDX-License-Identifier: GPL-2.0-only */
/* The C API's layouts as the C compiler sees them, and the scenario of scenario.c. */
#include <stddef.h>
#include <stdio.h>

#include "gcaps_host.h"

int gcaps_c_scenario(void);

#define F(s, f) printf(" %s=%zu", #f, offsetof(struct s, f))

int main(void)
{
	int line;

	printf("counters size=%zu", sizeof(struct gcaps_host_counters));
	F(gcaps_host_counters, resubmits);
	F(gcaps_host_counters, resubmit_errors);
	F(gcaps_host_counters, resubmit_timeouts);
	F(gcaps_host_counters, recoveries);
	F(gcaps_host_counters, events);
	F(gcaps_host_counters, begins);
	F(gcaps_host_counters, ends);
	F(gcaps_host_counters, ends_by_close);
	F(gcaps_host_counters, preemptions);
	F(gcaps_host_counters, resumes);
	F(gcaps_host_counters, publishes);
	F(gcaps_host_counters, generation);
	F(gcaps_host_counters, detaches);
	F(gcaps_host_counters, registrations);
	F(gcaps_host_counters, unregistrations);
	F(gcaps_host_counters, violations);
	F(gcaps_host_counters, warnings);
	F(gcaps_host_counters, trace_events);
	F(gcaps_host_counters, bound);
	F(gcaps_host_counters, loaded);
	F(gcaps_host_counters, clients);
	F(gcaps_host_counters, tsgs);
	F(gcaps_host_counters, gate_preempts);
	F(gcaps_host_counters, gate_handovers);
	printf("\ndecision size=%zu", sizeof(struct gcaps_host_decision));
	F(gcaps_host_decision, generation);
	F(gcaps_host_decision, all);
	F(gcaps_host_decision, pad);
	F(gcaps_host_decision, bits);
	printf("\nstates %d %d %d words %d\n", GCAPS_HOST_IDLE, GCAPS_HOST_RUNNING,
	       GCAPS_HOST_PENDING, GCAPS_HOST_TSG_WORDS);
	line = gcaps_c_scenario();
	if (line) {
		printf("scenario failed at scenario.c:%d\n", line);
		return 1;
	}
	printf("gcaps_host.h: ok\n");
	return 0;
}
