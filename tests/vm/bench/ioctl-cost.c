// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark (reports, asserts nothing; make vm-bench): the cost of gcaps.ko's begin+end round
 * trip when it changes nothing on the runlist, against a trivial syscall (getppid) and against
 * the floor of any ioctl on /dev/gcaps (an unknown command), best of 5 rounds; with the trace
 * on and off, and with the holder boost off and on. docs/module.md ("Benchmark") has figures.
 * vmtest-timeout=600
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

/* Mean ns per call of `what` (one of the B_* loops below): the best of 5 rounds. */
enum { B_GETPPID, B_NOTTY, B_STATUS, B_BEGIN_END };

static double best_of_5(int fd, int what, int n)
{
	struct gcaps_status gs = { .size = sizeof(gs) };
	double best = 1e18;

	for (int r = 0; r < 5; r++) {
		double t0 = now_ns(), t;

		for (int i = 0; i < n; i++) {
			switch (what) {
			case B_GETPPID: syscall(SYS_getppid); break;
			case B_NOTTY: ioctl(fd, _IO(GCAPS_IOC_MAGIC, 0x3f), NULL); break;
			case B_STATUS: ioctl(fd, GCAPS_IOC_STATUS, &gs); break;
			default: vt_seg_begin(fd, 0, NULL); vt_seg_end(fd); break;
			}
		}
		t = (now_ns() - t0) / n;
		best = t < best ? t : best;
	}
	return best;
}

/*
 * The higher segment of the pending benchmark, held by another thread of this process (with
 * the holder boost that thread runs at 98; the pending caller is an ordinary FIFO 10 thread,
 * as a pending task of another process would be).
 */
static volatile int hi_state;

static void *hold_high(void *arg)
{
	int hi = *(int *)arg;

	set_fifo(10);
	hi_state = vt_seg_begin(hi, 90, NULL) == 0 ? 1 : -1;
	while (hi_state == 1)
		usleep(1000);
	hi_state = vt_seg_end(hi) == 0 ? 3 : -1;
	return NULL;
}

static void bench(const char *label)
{
	const int n = 4000;
	int fd = open_dev(), hi = open_dev();
	double sys, notty, st, be, pend, rt;
	pthread_t th;

	sys = best_of_5(fd, B_GETPPID, n);
	notty = best_of_5(fd, B_NOTTY, n);
	st = best_of_5(fd, B_STATUS, n);
	be = best_of_5(fd, B_BEGIN_END, n);
	set_fifo(10);
	rt = best_of_5(fd, B_BEGIN_END, n / 4);
	hi_state = 0;
	pthread_create(&th, NULL, hold_high, &hi);
	while (hi_state == 0)
		usleep(1000);
	CHECK(hi_state == 1, "bench: high segment");
	pend = best_of_5(fd, B_BEGIN_END, n / 4);
	hi_state = 2;
	pthread_join(th, NULL);
	CHECK(hi_state == 3, "bench: high segment end");
	set_fifo(0);
	close(hi);
	close(fd);
	printf("bench (%s): getppid %.0f ns, unknown ioctl %.0f ns, STATUS %.0f ns; begin+end: "
	       "best-effort %.0f ns (%.1fx getppid, %.1fx two unknown ioctls), SCHED_FIFO pending "
	       "behind a higher segment %.0f ns (%.1fx, %.1fx), SCHED_FIFO alone (decision changes "
	       "twice, no backend) %.0f ns (%.1fx, %.1fx)\n",
	       label, sys, notty, st, be, be / sys, be / (2 * notty), pend, pend / sys,
	       pend / (2 * notty), rt, rt / sys, rt / (2 * notty));
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	sh("insmod /modules/gcaps.ko trace_size=64");
	bench("trace on");
	sh("rmmod gcaps");
	sh("insmod /modules/gcaps.ko trace_size=0");
	bench("trace off");
	sh("rmmod gcaps");
	sh("insmod /modules/gcaps.ko boost=0");
	bench("trace on, boost off");
	sh("rmmod gcaps");
	sh("insmod /modules/gcaps.ko");
	bench("trace on, boost on");
	sh("rmmod gcaps");
	if (failures)
		printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
