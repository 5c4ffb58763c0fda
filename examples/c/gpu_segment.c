// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu_segment: a periodic GPU task as an application writes it with libgcaps (C).
 *
 * Each job runs one GPU segment on the emulated GPU of the test VM (gcaps_simgpu): between
 * gcapsGpuSegBegin() and gcapsGpuSegEnd() it submits a work item of EXEC_MS milliseconds and
 * waits for it (self-suspension). On a Jetson the segment would hold CUDA calls instead.
 *
 *   gpu_segment EXEC_MS [JOBS [PERIOD_MS]]
 *
 * Start it with the priorities it should have, e.g.
 *   gcapsctl run --priority 50 --gpu-priority 50 -- gpu_segment 20 10 100
 * One line per job: job=N pid=P submit=NS start=NS end=NS preemptions=K (GPU timestamps,
 * CLOCK_MONOTONIC ns).
 *
 * Build: cc gpu_segment.c $(pkg-config --cflags --libs gcaps) -I<dir of gcaps_simgpu.h>
 */
#include <gcaps.h>
#include <gcaps_simgpu.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "gpu_segment: %s '%s' is not an integer in %ld..%ld\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

/* One work item of exec_ns on our TSG, waited for by blocking. */
static int gpu_work(int gpu, unsigned long long exec_ns, struct simgpu_completion *done)
{
	struct simgpu_submit sub = { .size = sizeof(sub), .exec_ns = exec_ns };
	struct simgpu_wait w = { .size = sizeof(w) };

	if (ioctl(gpu, SIMGPU_IOC_SUBMIT, &sub) < 0)
		return -errno;
	w.seqno = sub.seqno;
	if (ioctl(gpu, SIMGPU_IOC_WAIT, &w) < 0)
		return -errno;
	*done = w.done;
	return 0;
}

int main(int argc, char **argv)
{
	long exec_ms, jobs = 1, period_ms = 0;
	struct timespec next;
	int gcaps, gpu, err;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: gpu_segment EXEC_MS [JOBS [PERIOD_MS]]\n");
		return 2;
	}
	exec_ms = arg(argv[1], "EXEC_MS", 1, 10000);
	if (argc > 2)
		jobs = arg(argv[2], "JOBS", 1, 1000000);
	if (argc > 3)
		period_ms = arg(argv[3], "PERIOD_MS", 0, 100000);

	gcaps = gcaps_open();
	if (gcaps < 0) {
		fprintf(stderr, "gpu_segment: %s\n", gcaps_strerror(gcaps));
		return 1;
	}
	gpu = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR | O_CLOEXEC); /* our TSG */
	if (gpu < 0) {
		fprintf(stderr, "gpu_segment: /dev/" SIMGPU_DEVICE_NAME ": %s\n", strerror(errno));
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long j = 0; j < jobs; j++) {
		struct simgpu_completion done = { 0 };

		/* GPU segment: the paper's macros (the pid is accepted and ignored). */
		err = gcapsGpuSegBegin(gcaps, getpid());
		if (err < 0) {
			fprintf(stderr, "gpu_segment: begin: %s\n", gcaps_strerror(err));
			return 1;
		}
		err = gpu_work(gpu, (unsigned long long)exec_ms * 1000000ULL, &done);
		gcapsGpuSegEnd(gcaps, getpid());
		if (err < 0) {
			fprintf(stderr, "gpu_segment: GPU work: %s\n", strerror(-err));
			return 1;
		}
		printf("job=%ld pid=%d submit=%llu start=%llu end=%llu preemptions=%u\n", j, getpid(),
		       (unsigned long long)done.submit_ns, (unsigned long long)done.start_ns,
		       (unsigned long long)done.end_ns, done.preemptions);
		fflush(stdout);

		next.tv_nsec += period_ms * 1000000L;
		next.tv_sec += next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	close(gpu);
	gcaps_close(gcaps);
	return 0;
}
