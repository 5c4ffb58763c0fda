// SPDX-License-Identifier: GPL-2.0
/*
 * The update ceiling treats SCHED_RR like SCHED_FIFO (issue 17, point 2). vmtest-timeout=90
 *
 * gcaps with update_prio=50 and the emulated GPU with its engine stalled, so the runlist
 * submit of a begin that opens the first real-time segment stays pending for STALL_MS: the
 * caller is inside its update (holding the update lock, at the ceiling if it was raised) for
 * that long. A sampler thread on the other CPU reads the caller's policy and priority
 * (sched_getscheduler/sched_getparam of its tid) all that time:
 *   - SCHED_RR 70 and SCHED_FIFO 70 (above the ceiling) and SCHED_RR 50 (at it) are never
 *     touched: every sample shows the caller's own policy and priority (before the fix an RR
 *     caller was seen at SCHED_FIFO 50 in every sample);
 *   - SCHED_RR 10 and SCHED_FIFO 10 are raised to SCHED_FIFO 50 (the ceiling the analysis
 *     relies on) and return to their own policy and priority afterwards (RR stays RR).
 * The window is proven, not assumed: the begin must have taken at least STALL_MS / 2 and the
 * sampler must have read the caller inside it.
 *
 * With the holder boost (on by default; boost_prio=40 here, below the ceiling) the begin makes
 * the caller's segment the running one, so the callers below 40 leave the ceiling for
 * SCHED_FIFO 40 (the boost, applied at the return from the ceiling) and return to their own
 * policy and priority at the end; 70 and RR 50 (at or above the boost) are never touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

#define CEILING 50
#define BOOST 40
#define STALL_MS 300
#define STR_(x) #x
#define STR(x) STR_(x)

static const char *volatile phase = "start";
/*
 * `mu` orders the sampler's samples against the cases: the sampler takes a sample, classifies
 * it and counts it with `mu` held and `in_call` set, and the caller resets the counters and
 * flips `in_call` only with `mu` held, so no sample of one case lands in the next case's
 * counters however long either thread is descheduled (a VM's vCPU can be, for any time).
 */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int in_call, caller_tid, stop;
static volatile int inside, off_own, at_ceiling;
/*
 * The raised case, exactly: the caller is at its own priority until the raise, at the ceiling
 * until the restore, and at its own priority after it, so the samples at the ceiling form one
 * run. `back_at_ceiling` counts ceiling samples after an own-priority sample that followed the
 * run (0 unless the ceiling was dropped and taken again inside one call), `neither` samples at
 * neither priority; the run's first and last sample times give its length.
 */
static volatile int back_at_ceiling, neither, after_run;
static volatile double run_first, run_last;
static volatile int want_policy, want_prio, after_policy, after_prio;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		printf("FAIL: affinity %d: %s\n", cpu, strerror(errno)), exit(1);
}

/* SCHED_FIFO 90 on CPU 1: reads the caller's scheduling state while it is inside its call. */
static void *sampler(void *arg)
{
	struct sched_param sp = { .sched_priority = 90 };

	(void)arg;
	pin(1);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		printf("FAIL: sampler FIFO 90: %s\n", strerror(errno)), exit(1);
	while (!stop) {
		struct sched_param cp;
		int pol, pr;

		pthread_mutex_lock(&mu);
		if (!in_call) {
			pthread_mutex_unlock(&mu);
			usleep(200);
			continue;
		}
		pol = sched_getscheduler(caller_tid);
		pr = sched_getparam(caller_tid, &cp) ? -1 : cp.sched_priority;
		/*
		 * Policy and priority are two reads: a raise or restore between them (each changes
		 * the policy for the RR callers) would pair one state's policy with the other's
		 * priority. Such a sample is dropped (the second policy read differs).
		 */
		if (sched_getscheduler(caller_tid) != pol) {
			pthread_mutex_unlock(&mu);
			continue;
		}
		inside++;
		if (pol != want_policy || pr != want_prio)
			off_own++;
		if (pol == SCHED_FIFO && pr == CEILING) {
			if (after_run)
				back_at_ceiling++;
			if (!at_ceiling)
				run_first = now();
			run_last = now();
			at_ceiling++;
		} else if ((pol == want_policy && pr == want_prio) ||
			   (pol == after_policy && pr == after_prio)) {
			if (at_ceiling)
				after_run = 1;
		} else {
			neither++;
		}
		pthread_mutex_unlock(&mu);
		usleep(500);
	}
	return NULL;
}

static int begin(int fd)
{
	struct gcaps_seg_begin b = { .size = sizeof(b) };

	return ioctl(fd, GCAPS_IOC_SEG_BEGIN, &b) < 0 ? -errno : (int)b.state;
}

/*
 * One case: the caller (this thread, CPU 0) at `policy`/`prio` begins (first real-time
 * segment: the decision changes, the stalled submit keeps it inside for STALL_MS), then ends.
 * `raised`: whether the ceiling must apply.
 */
static void one(int fd, int policy, int prio, int raised)
{
	const char *name = policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO";
	struct sched_param sp = { .sched_priority = prio };
	double t0, took;
	int st, pol;

	phase = name;
	if (sched_setscheduler(0, policy, &sp))
		printf("FAIL: %s %d: %s\n", name, prio, strerror(errno)), exit(1);
	sh("simgpuctl stall " STR(STALL_MS));
	pthread_mutex_lock(&mu);
	want_policy = policy;
	want_prio = prio;
	/* the caller's segment runs after the begin: boosted if below the boost */
	after_policy = raised ? SCHED_FIFO : policy;
	after_prio = raised ? BOOST : prio;
	inside = off_own = at_ceiling = back_at_ceiling = neither = after_run = 0;
	run_first = run_last = 0;
	in_call = 1;
	pthread_mutex_unlock(&mu);
	t0 = now();
	st = begin(fd);
	took = now() - t0;
	pthread_mutex_lock(&mu);
	in_call = 0;
	pthread_mutex_unlock(&mu);
	CHECK(st == GCAPS_STATE_RUNNING, "%s %d: begin %d", name, prio, st);
	CHECK(took >= STALL_MS / 2e3, "%s %d: the begin took %.1f ms: the stalled submit did not "
	      "keep it inside (precondition)", name, prio, took * 1e3);
	CHECK(inside >= 10, "%s %d: only %d samples inside the call (precondition)", name, prio,
	      inside);
	/*
	 * Raised: one run of ceiling samples covering the stalled submit (the samples before the
	 * raise and after the restore are at the caller's own priority; under load the caller can
	 * be preempted there for any time, so their number is not bounded).
	 */
	if (raised)
		CHECK(back_at_ceiling == 0 && neither == 0 && at_ceiling >= 10 &&
		      run_last - run_first >= STALL_MS / 2e3,
		      "%s %d: %d of %d samples at SCHED_FIFO %d over %.0f ms, %d back at the ceiling "
		      "after its own priority, %d at neither", name, prio, at_ceiling, inside, CEILING,
		      (run_last - run_first) * 1e3, back_at_ceiling, neither);
	else
		CHECK(off_own == 0, "%s %d (at or above the ceiling %d): %d of %d samples not at "
		      "its own policy and priority", name, prio, CEILING, off_own, inside);
	pol = sched_getscheduler(0);
	CHECK(pol == after_policy && sched_getparam(0, &sp) == 0 && sp.sched_priority == after_prio,
	      "%s %d: after the begin policy %d prio %d, want %d/%d", name, prio, pol,
	      sp.sched_priority, after_policy, after_prio);
	CHECK(ioctl(fd, GCAPS_IOC_SEG_END, &(struct gcaps_seg_end){ .size = sizeof(struct gcaps_seg_end) }) == 0,
	      "%s %d: end: %s", name, prio, strerror(errno));
	pol = sched_getscheduler(0);
	CHECK(pol == policy && sched_getparam(0, &sp) == 0 && sp.sched_priority == prio,
	      "%s %d: after the end policy %d prio %d", name, prio, pol, sp.sched_priority);
	printf("%s %d: begin %.0f ms, %d samples inside, %d at the ceiling, %d off its own\n",
	       name, prio, took * 1e3, inside, at_ceiling, off_own);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
}

int main(void)
{
	pthread_t t;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog(80, &phase, NULL);
	sh("insmod /modules/gcaps.ko update_prio=" STR(CEILING) " boost_prio=" STR(BOOST));
	sh("insmod /modules/gcaps_simgpu.ko submit_timeout_ms=3000");
	fd = open_dev();
	pin(0);
	caller_tid = syscall(SYS_gettid);
	pthread_create(&t, NULL, sampler, NULL);

	one(fd, SCHED_RR, 70, 0);
	one(fd, SCHED_FIFO, 70, 0);
	one(fd, SCHED_RR, CEILING, 0);
	one(fd, SCHED_RR, 10, 1);
	one(fd, SCHED_FIFO, 10, 1);

	stop = 1;
	pthread_join(t, NULL);
	close(fd);
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
	printf("ceiling rr: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
