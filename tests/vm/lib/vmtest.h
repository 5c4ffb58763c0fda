/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the C VM tests (tests/vm/tests/NN-*.c). A test includes it as
 * "../lib/vmtest.h": run.sh compiles every test with `gcc -static` from its place in the repo,
 * so the relative include resolves there and each run recompiles against the current header.
 * Everything is static (inline), so a test pays only for what it uses.
 *
 *   failures, CHECK(cond, fmt, ...)  a failed check prints "FAIL file:line: <message>" and
 *                                    counts in `failures` (the test decides its exit status)
 *   VMTEST_FATAL()                   what sh() and open_dev() do after their FAIL line:
 *                                    exit(1), unless the test defines it before the include
 *                                    (62-gcaps-scale: bail(), which also kills its children)
 *   sh(cmd)                          system(cmd); fatal unless it exits 0
 *   GCAPS_DEV, open_dev()            /dev/gcaps opened O_RDWR; fatal if that fails
 *   set_fifo(prio)                   this thread SCHED_FIFO prio (0: SCHED_OTHER); exit(1) if refused
 *   vt_seg_begin(fd, prio, &state)   GCAPS_IOC_SEG_BEGIN at GPU priority prio: 0 or the errno;
 *                                    the reply's state in *state (NULL: not wanted)
 *   vt_seg_end(fd)                   GCAPS_IOC_SEG_END: 0 or the errno
 *   stack_shows(tid, fn)             thread tid's kernel stack (/proc/<tid>/stack) names
 *                                    function fn (e.g. where it sleeps); 0 if unreadable
 *   rnd(&seed)                       xorshift64*: deterministic pseudo-random numbers per seed
 *   now(), now_ns()                  CLOCK_MONOTONIC in seconds (double) and ns (uint64_t)
 *   start_watchdog(s, &phase, hook)  a SCHED_FIFO 95 thread that, s seconds after the call,
 *                                    prints the test's current `phase`, runs `hook` (or
 *                                    nothing if NULL) and ends the process with _exit(1)
 *   only_self_left(fd, &l, after)    LIST once a test's processes are gone: this process is the
 *                                    only client, idle, no real-time segment (FAIL lines;
 *                                    returns their count, -1 if LIST itself failed)
 */
#ifndef VMTEST_H
#define VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"

#define GCAPS_DEV "/dev/" GCAPS_DEVICE_NAME

static int failures __attribute__((unused));

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);            \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
			failures++;                                            \
		}                                                              \
	} while (0)

#ifndef VMTEST_FATAL
#define VMTEST_FATAL() exit(1)
#endif

static inline void sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc != 0) {
		printf("FAIL: '%s' exited with %d\n", cmd, rc);
		VMTEST_FATAL();
	}
}

static inline int open_dev(void)
{
	int fd = open(GCAPS_DEV, O_RDWR);

	if (fd < 0) {
		printf("FAIL: open %s: %s\n", GCAPS_DEV, strerror(errno));
		VMTEST_FATAL();
	}
	return fd;
}

static inline int vt_seg_begin(int fd, int prio, uint32_t *state)
{
	struct gcaps_seg_begin b = { .size = sizeof(b), .gpu_priority = prio };
	int r = ioctl(fd, GCAPS_IOC_SEG_BEGIN, &b) ? errno : 0;

	if (state)
		*state = b.state;
	return r;
}

static inline int vt_seg_end(int fd)
{
	struct gcaps_seg_end e = { .size = sizeof(e) };

	return ioctl(fd, GCAPS_IOC_SEG_END, &e) ? errno : 0;
}

static inline void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, prio ? SCHED_FIFO : SCHED_OTHER, &sp) != 0) {
		printf("FAIL: sched_setscheduler(%d): %s\n", prio, strerror(errno));
		exit(1);
	}
}

/* The policy and priority of thread `tid` (0: the caller). */
static inline void sched_of(pid_t tid, int *policy, int *prio)
{
	struct sched_param sp = { 0 };

	*policy = sched_getscheduler(tid);
	sched_getparam(tid, &sp);
	*prio = sp.sched_priority;
}

/* Whether thread `tid` runs at `policy` `prio`. */
static inline int sched_is(pid_t tid, int policy, int prio)
{
	int p, q;

	sched_of(tid, &p, &q);
	return p == policy && q == prio;
}

/* Whether thread `tid`'s kernel stack (/proc/<tid>/stack, root only) names function `fn`. */
static inline int stack_shows(pid_t tid, const char *fn)
{
	char path[64], buf[4096];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	f = open(path, O_RDONLY);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, fn) != NULL;
}

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct vmtest_watchdog {
	int seconds;
	const char *volatile *phase;
	void (*hook)(void);
};

/*
 * A call into a module that never returns (a deadlock) would only meet the harness's timeout:
 * this thread (SCHED_FIFO 95, so busy real-time processes cannot starve it; the test kernels
 * have no POSIX timers, so no alarm()) names the phase instead and fails the test.
 */
static inline void *vmtest_watchdog_thread(void *arg)
{
	const struct vmtest_watchdog *w = arg;
	struct timespec ts = { .tv_sec = w->seconds };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	dprintf(1, "FAIL: watchdog: still in phase '%s' %d s into the test: a call into gcaps or "
		"gcaps_simgpu does not return\n", *w->phase, w->seconds);
	if (w->hook)
		w->hook();
	_exit(1);
}

static inline void start_watchdog(int seconds, const char *volatile *phase, void (*hook)(void))
{
	static struct vmtest_watchdog w;
	struct sched_param sp = { .sched_priority = 95 };
	pthread_attr_t a;
	pthread_t t;
	int e;

	w = (struct vmtest_watchdog){ .seconds = seconds, .phase = phase, .hook = hook };
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	e = pthread_create(&t, &a, vmtest_watchdog_thread, &w);
	if (e) {
		printf("FAIL: watchdog thread: %s\n", strerror(e));
		exit(1);
	}
	pthread_attr_destroy(&a);
}

/*
 * LIST after the test's other processes are gone (`after` names what they did, for the FAIL
 * lines): this process is the only client, every listed client is idle and rt_active is 0.
 * `l` brings the arrays: clients_ptr/clients_cap (at least 1 entry), and tsgs_ptr/tsgs_cap if
 * the caller checks the TSGs itself afterwards. Returns the number of FAIL lines printed, or -1
 * (one FAIL line) if fd is not open or LIST fails.
 */
static inline int only_self_left(int fd, struct gcaps_list *l, const char *after)
{
	const struct gcaps_client_info *ci = (const void *)(uintptr_t)l->clients_ptr;
	unsigned int i;
	int bad = 0;

	if (fd < 0 || ioctl(fd, GCAPS_IOC_LIST, l)) {
		printf("FAIL: LIST after the %s: %s\n", after, strerror(errno));
		return -1;
	}
	if (l->clients_count != 1 || ci[0].tgid != (unsigned int)getpid()) {
		printf("FAIL: %u clients left after the %s (want only this process)\n",
		       l->clients_count, after);
		bad++;
	}
	for (i = 0; i < l->clients_count && i < l->clients_cap; i++)
		if (ci[i].state != GCAPS_STATE_IDLE) {
			printf("FAIL: client %u (%.16s) state %u after the %s\n", ci[i].tgid, ci[i].comm,
			       ci[i].state, after);
			bad++;
		}
	if (l->rt_active) {
		printf("FAIL: rt_active after the %s\n", after);
		bad++;
	}
	return bad;
}

#endif /* VMTEST_H */
