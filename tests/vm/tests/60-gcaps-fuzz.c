// SPDX-License-Identifier: GPL-2.0
/*
 * gcaps.ko under fire: an ioctl fuzzer (vmtest-timeout=240).
 *
 * With gcaps_simgpu loaded and two GPU clients (gpuclient, with gcaps) running segments, 2
 * processes x 4 threads (8 in parallel; one thread SCHED_FIFO) make FUZZ_CALLS ioctl calls in
 * all on a few shared /dev/gcaps fds, with fixed seeds: random command numbers (ours, STATS with
 * and without reset, TRACE_READ and SET_ALWAYS included, with every
 * direction/size encoding, unknown numbers of our magic, other magics), random sizes, flags,
 * priorities and reserved fields, argument pointers that are NULL, unmapped, kernel addresses,
 * read-only, misaligned, or a struct straddling into an unmapped page; begin/end misuse comes
 * for free (threads share the fds). A churn thread per process meanwhile closes, reopens and
 * dups the fds and forks children that call ioctls on the inherited fds.
 *
 * Every call's result is checked against the errno classes of uapi/linux/gcaps.h (computed
 * from the command, the argument bytes and the pointer kind):
 *   foreign fd (forked child)             EPERM, always
 *   other magic / unknown number          ENOTTY
 *   NULL, unmapped, kernel pointer        EFAULT
 *   size < VER0                           EINVAL
 *   size > ours, non-zero tail            E2BIG (EFAULT if the tail is unreadable)
 *   flags / reserved non-zero             EINVAL
 *   BEGIN: priority outside 0..99         EINVAL;  1..99 from a best-effort thread: EPERM
 *   BEGIN / END valid                     0 or EALREADY / 0 or ENOENT (threads share the fd)
 *   read-only struct (passes the checks)  EFAULT, also for BEGIN/END: the reply is checked
 *                                         writable before anything happens
 *   LIST with an unwritable array         EFAULT (or 0 when that array gets no entries)
 *   TRACE_READ: event_size < VER0         EINVAL; unwritable array: EFAULT or 0 (no event
 *                                         to copy); else 0 (the fuzzer runs as root)
 *   SET_ALWAYS: on > 1, tsgid >= 1024     EINVAL; else 0 or ENOENT (the TSG exists or not;
 *                                         the fuzzer runs as root)
 *   fd closed under the call by churn     EBADF (only then)
 * Afterwards (fuzzers gone, GPU clients finished) LIST shows one client (this process), no open
 * segment, no real-time segment. kernel-health checks KASAN/UBSAN/lockdep/kmemleak.
 * Prints the calls, the rejects per errno and calls/s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

#define PROCS 2
#define THREADS 4
#define FUZZ_CALLS 120000
#define CALLS_PER_THREAD (FUZZ_CALLS / (PROCS * THREADS))
#define NFDS 4
#define PAGE 4096

static atomic_int fds[NFDS];
static atomic_uint fdgen[NFDS];	/* odd while the slot is being replaced */
static atomic_int fuzz_failures;
static atomic_long rejected[140];
static atomic_long calls;
static char *rw_page;		/* two pages: RW then unmapped */
static char *ro_page;		/* RO_SIZE read-only bytes, holds valid-looking structs */
#define RO_STRIDE 2752		/* >= the largest struct (gcaps_stats VER3: 2736) */
#define RO_SIZE (5 * PAGE)	/* 7 strides, then SET_ALWAYS */
#define NCMDS 8			/* the 8th, SET_ALWAYS (32 bytes), fits after the 7 strides */
#define WR_SIZE 3072		/* zeroed bytes of a writable struct: the largest + 200 fit */
_Static_assert(sizeof(struct gcaps_stats) + 201 + 8 <= WR_SIZE && WR_SIZE + 8 <= PAGE,
	       "writable struct layout");
_Static_assert(sizeof(struct gcaps_stats) <= RO_STRIDE &&
		       7 * RO_STRIDE + sizeof(struct gcaps_set_always) <= RO_SIZE, "ro_page layout");
static volatile int stop_churn;

#define FAILF(...)                                                             \
	do {                                                                   \
		printf("FAIL pid %d: ", getpid());                             \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		fflush(stdout);                                                \
		if (atomic_fetch_add(&fuzz_failures, 1) > 20)                       \
			_exit(1);                                              \
	} while (0)

static unsigned ksize(unsigned nr)
{
	switch (nr) {
	case 0: return sizeof(struct gcaps_version);
	case 1: return sizeof(struct gcaps_seg_begin);
	case 2: return sizeof(struct gcaps_seg_end);
	case 3: return sizeof(struct gcaps_status);
	case 4: return sizeof(struct gcaps_list);
	case 5: return sizeof(struct gcaps_stats);
	case 7: return sizeof(struct gcaps_set_always);
	default: return sizeof(struct gcaps_trace_read);
	}
}

static unsigned ver0(unsigned nr)
{
	switch (nr) {
	case 0: return GCAPS_VERSION_SIZE_VER0;
	case 1: return GCAPS_SEG_BEGIN_SIZE_VER0;
	case 2: return GCAPS_SEG_END_SIZE_VER0;
	case 3: return GCAPS_STATUS_SIZE_VER0;
	case 4: return GCAPS_LIST_SIZE_VER0;
	case 5: return GCAPS_STATS_SIZE_VER0;
	case 7: return GCAPS_SET_ALWAYS_SIZE_VER0;
	default: return GCAPS_TRACE_READ_SIZE_VER0;
	}
}

#define BIT(e) (1ull << ((e) == EALREADY ? 63 : (e) & 63)) /* errnos here are < 63 but EALREADY */

static const char *ptr_kinds[] = { "struct", "NULL", "unmapped", "kernel", "read-only",
				   "straddling" };

/*
 * Builds a random argument for command `nr` (0..4: number 0..4; 5: GCAPS_IOC_STATS; 6:
 * GCAPS_IOC_TRACE_READ; 7: GCAPS_IOC_SET_ALWAYS, number 5) and returns it with the set of
 * acceptable results (bit 0 = success) in *ok.
 */
static unsigned long make_arg(uint64_t *s, unsigned nr, char *buf, int rt, uint64_t *ok, int *kind)
{
	unsigned ks = ksize(nr), v0 = ver0(nr), size;
	int k = rnd(s) % 16;
	uint32_t flags = 0;

	*kind = k < 9 ? 0 : k < 10 ? 1 : k < 11 ? 2 : k < 12 ? 3 : k < 14 ? 4 : 5;
	switch (*kind) {
	case 1: *ok = BIT(EFAULT); return 0;
	case 2: *ok = BIT(EFAULT); return (unsigned long)(rw_page + PAGE + rnd(s) % 64);
	case 3: *ok = BIT(EFAULT); return 0xffff888000000000ul + (rnd(s) % 4096) * 8;
	case 4: {
		/* Pre-filled valid structs (size = ours, zero elsewhere) at ro_page + nr*RO_STRIDE. */
		*ok = BIT(EFAULT) | (nr == 6 ? BIT(EINVAL) : 0); /* TRACE_READ: event_size 0 */
		return (unsigned long)(ro_page + nr * RO_STRIDE);
	}
	case 5: {
		/*
		 * Size field readable (set at start), the struct runs into the unmapped page.
		 * SET_ALWAYS (32 bytes at PAGE - 32) fits before it: its `flags` is the next
		 * command's size field (64), so EINVAL.
		 */
		*ok = nr == 7 ? BIT(EINVAL) : BIT(EFAULT);
		return (unsigned long)(rw_page + PAGE - 4 * (nr + 1));
	}
	}
	/* A writable struct at a random (often misaligned) offset of the page. */
	buf += rnd(s) % 8;
	memset(buf, 0, WR_SIZE);
	switch (rnd(s) % 8) {
	case 0: size = rnd(s) % v0; break;			/* too small */
	case 1: size = ks + 1 + rnd(s) % 200; break;		/* too large */
	case 2: size = rnd(s) & 1 ? 0xffffffffu : 1u << 20; break;
	default: size = v0 + rnd(s) % (ks - v0 + 1); break;	/* VER0..ours */
	}
	*(uint32_t *)buf = size;
	if (size < v0) {
		*ok = BIT(EINVAL);
		return (unsigned long)buf;
	}
	if (size > WR_SIZE) {
		*ok = BIT(E2BIG) | BIT(EFAULT);
		if (rnd(s) & 1)
			buf[ks + rnd(s) % 64] = 1;
		return (unsigned long)buf;
	}
	if (size > ks && rnd(s) % 2) {
		buf[ks + rnd(s) % (size - ks)] = 1 + rnd(s) % 255;
		*ok = BIT(E2BIG);
		return (unsigned long)buf;
	}
	/* Up to the kernel's struct: flags and the command's fields. */
	if (nr != 0 && rnd(s) % 6 == 0)
		flags = 1u << (rnd(s) % 32);
	if (nr != 0)
		memcpy(buf + 4, &flags, 4);
	*ok = 0;
	if (nr == 5 && (rnd(s) % 4 == 0 || flags == GCAPS_STATS_RESET)) {
		/* Reading and resetting the statistics (root may reset). */
		flags = GCAPS_STATS_RESET;
		memcpy(buf + 4, &flags, 4);
		*ok = BIT(0);
		return (unsigned long)buf;
	}
	if (flags && size >= 8) {
		*ok = BIT(EINVAL);
		return (unsigned long)buf;
	}
	switch (nr) {
	case 0: case 3: case 5: *ok = BIT(0); break;
	case 1: {
		int32_t prio;

		switch (rnd(s) % 4) {
		case 0: prio = (int32_t)rnd(s); break;
		case 1: prio = 1 + rnd(s) % 99; break;
		default: prio = 0; break;
		}
		if (size < 12)
			prio = 0;
		memcpy(buf + 8, &prio, 4);
		if (prio < 0 || prio > 99)
			*ok = BIT(EINVAL);
		else if (prio > 0 && !rt)
			*ok = BIT(EPERM);
		else
			*ok = BIT(0) | BIT(EALREADY);
		break;
	}
	case 2: *ok = BIT(0) | BIT(ENOENT); break;
	case 7: {
		struct gcaps_set_always a;

		memcpy(&a, buf, sizeof(a));
		a.tsgid = rnd(s) % 4 ? rnd(s) % 8 : (uint32_t)rnd(s);
		a.on = rnd(s) % 4 ? rnd(s) % 2 : (uint32_t)rnd(s);
		a.reserved = rnd(s) % 8 == 0;
		memcpy(buf + 8, (char *)&a + 8, sizeof(a) - 8);
		if (a.on > 1 || a.tsgid >= GCAPS_MAX_TSGS || a.reserved)
			*ok = BIT(EINVAL);
		else
			*ok = BIT(0) | BIT(ENOENT);
		break;
	}
	case 6: {
		struct gcaps_trace_read t;
		unsigned long ptrs[5] = { 0, (unsigned long)(rw_page + PAGE),
					  0xffffffff81000000ul, (unsigned long)ro_page,
					  (unsigned long)(buf + 1024) };
		int pb = rnd(s) % 5;

		memcpy(&t, buf, sizeof(t));
		t.events_ptr = ptrs[pb];
		t.events_cap = rnd(s) % 3 ? rnd(s) % 4 : (uint32_t)rnd(s);
		t.event_size = rnd(s) % 4 ? GCAPS_TRACE_EVENT_SIZE_VER0 + rnd(s) % 64 : rnd(s) % 100;
		t.from_seq = rnd(s) % 2 ? 0 : rnd(s) % 3 ? rnd(s) % 100000 : rnd(s);
		if (pb == 4 && (uint64_t)t.events_cap * t.event_size > PAGE - 1024 - 8)
			t.events_cap = 2;
		memcpy(buf + 8, (char *)&t + 8, sizeof(t) - 8);
		if (t.event_size < GCAPS_TRACE_EVENT_SIZE_VER0)
			*ok = BIT(EINVAL);
		else if (pb == 4 || t.events_cap == 0)
			*ok = BIT(0);
		else
			*ok = BIT(0) | BIT(EFAULT);
		break;
	}
	case 4: {
		struct gcaps_list l;
		unsigned long ptrs[5] = { 0, (unsigned long)(rw_page + PAGE),
					  0xffffffff81000000ul, (unsigned long)ro_page,
					  (unsigned long)(buf + 256) };
		int cb = rnd(s) % 5, tb = rnd(s) % 5;

		memcpy(&l, buf, sizeof(l));
		l.clients_ptr = ptrs[cb];
		l.tsgs_ptr = ptrs[tb];
		l.clients_cap = rnd(s) % 3 ? rnd(s) % 4 : (uint32_t)rnd(s);
		l.tsgs_cap = rnd(s) % 3 ? rnd(s) % 4 : (uint32_t)rnd(s);
		if (cb == 4 || tb == 4)
			l.clients_cap = l.tsgs_cap = 0;
		l.reserved = rnd(s) % 8 == 0;
		memcpy(buf + 8, (char *)&l + 8, (size < ks ? size : ks) - 8);
		if (size >= GCAPS_LIST_SIZE_VER0 && l.reserved) {
			*ok = BIT(EINVAL);
		} else {
			*ok = BIT(0);
			/* This process is a client: a non-empty clients array gets an entry. */
			if (cb != 4 && l.clients_cap)
				*ok = BIT(EFAULT);
			if (tb != 4 && l.tsgs_cap)
				*ok |= BIT(EFAULT);	/* 0 if no TSG exists right now */
		}
		break;
	}
	}
	return (unsigned long)buf;
}

static unsigned random_cmd(uint64_t *s, unsigned *nr, int *ours)
{
	static const unsigned dirs[4] = { _IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE };
	unsigned dir = dirs[rnd(s) % 4], size = rnd(s) % 3 ? ksize(rnd(s) % NCMDS) : rnd(s) % 16384;
	unsigned type = GCAPS_IOC_MAGIC, n = rnd(s) % NCMDS;
	unsigned num = n == 5 ? 0x10 : n == 6 ? 0x11 : n == 7 ? 0x05 : n;
	int r = rnd(s) % 10;

	*ours = 1;
	if (r == 0) {
		num = 6 + rnd(s) % 250;		/* unknown number, our magic */
		if (num == 0x10 || num == 0x11)	/* GCAPS_IOC_STATS, GCAPS_IOC_TRACE_READ */
			num = 0x12;
		n = num;
		*ours = 0;
	} else if (r == 1) {
		/* Another magic (not those the VFS itself answers on any file). */
		do
			type = rnd(s) % 256;
		while (type == GCAPS_IOC_MAGIC || type == 0 || type == 0x15 || type == 'T' ||
		       type == 'X' || type == 'f' || type == 0x94);
		*ours = 0;
	}
	*nr = n;
	return _IOC(dir, type, num, size);
}

struct worker {
	int id, rt;
	uint64_t seed;
};

static void *fuzz_thread(void *p)
{
	struct worker *w = p;
	uint64_t s = w->seed;
	char *buf = malloc(PAGE);
	long i;

	if (w->rt) {
		struct sched_param sp = { .sched_priority = 10 };

		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
			FAILF("SCHED_FIFO for thread %d", w->id);
	}
	for (i = 0; i < CALLS_PER_THREAD; i++) {
		unsigned nr, slot = rnd(&s) % NFDS, g0, g1;
		int ours, kind, fd, rc, e;
		unsigned cmd = random_cmd(&s, &nr, &ours);
		uint64_t ok = BIT(ENOTTY);
		unsigned long arg = rnd(&s) % 4 ? 0 : (unsigned long)rnd(&s);

		if (ours)
			arg = make_arg(&s, nr, buf, w->rt, &ok, &kind);
		else
			kind = 0;
		g0 = atomic_load(&fdgen[slot]);
		fd = atomic_load(&fds[slot]);
		rc = ioctl(fd, cmd, arg);
		e = rc < 0 ? errno : 0;
		g1 = atomic_load(&fdgen[slot]);
		atomic_fetch_add(&calls, 1);
		if (e < 140)
			atomic_fetch_add(&rejected[e], 1);
		if (e == EBADF && (g0 != g1 || (g0 & 1)))
			continue;
		if ((e >= 63 && e != EALREADY) || !(ok & BIT(e)))
			FAILF("thread %d call %ld: cmd %#x (nr %u, %s) arg %s %#lx size %u: %s (%d) not "
			      "in the documented set %#llx",
			      w->id, i, cmd, nr, ours ? "ours" : "unknown", ptr_kinds[kind], arg,
			      kind == 0 && ours ? *(uint32_t *)arg : 0, e ? strerror(e) : "success", e,
			      (unsigned long long)ok);
		if (w->rt && i % 32 == 0)
			usleep(200);
	}
	free(buf);
	return NULL;
}

/* A forked child: every call on an inherited fd is EPERM, whatever the command. */
static void foreign_calls(uint64_t seed)
{
	uint64_t s = seed;
	char buf[512] = { 0 };
	int i, j;

	for (i = 0; i < 100; i++) {
		unsigned nr;
		int ours, fd = atomic_load(&fds[i % NFDS]);
		unsigned cmd = random_cmd(&s, &nr, &ours);
		int rc;

		*(uint32_t *)buf = ksize(nr);
		rc = ioctl(fd, cmd, buf);
		if (rc == 0 || (errno != EPERM && errno != EBADF)) {
			printf("FAIL child %d: cmd %#x on an inherited fd: %s, want EPERM\n", getpid(),
			       cmd, rc ? strerror(errno) : "success");
			_exit(1);
		}
	}
	/* And its own fd works. */
	j = open(GCAPS_DEV, O_RDWR);
	if (j < 0 || ioctl(j, GCAPS_IOC_STATUS, &(struct gcaps_status){ .size = sizeof(struct gcaps_status) })) {
		printf("FAIL child %d: own fd: %s\n", getpid(), strerror(errno));
		_exit(1);
	}
	_exit(0);
}

static void *churn_thread(void *p)
{
	uint64_t s = *(uint64_t *)p;
	int forks = 0, n = 0;

	while (!stop_churn) {
		unsigned slot = 1 + rnd(&s) % (NFDS - 1);	/* slot 0 stays */
		int nfd, old, st;

		usleep(2000 + rnd(&s) % 3000);
		atomic_fetch_add(&fdgen[slot], 1);
		old = atomic_load(&fds[slot]);
		switch (rnd(&s) % 4) {
		case 0: nfd = dup(atomic_load(&fds[0])); break;
		case 1: nfd = dup(old); break;
		default: nfd = open(GCAPS_DEV, O_RDWR); break;
		}
		if (nfd < 0) {
			FAILF("churn: reopen: %s", strerror(errno));
			nfd = dup(atomic_load(&fds[0]));
		}
		atomic_store(&fds[slot], nfd);
		close(old);
		atomic_fetch_add(&fdgen[slot], 1);
		n++;
		if (n % 8 == 0 && forks < 12) {
			pid_t c = fork();

			if (c == 0)
				foreign_calls(rnd(&s));
			forks++;
			if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
				FAILF("foreign child failed (%#x)", st);
		}
	}
	printf("churn %d: %d replacements, %d forks\n", getpid(), n, forks);
	return NULL;
}

static void fuzz_process(int p)
{
	pthread_t t[THREADS], ct;
	struct worker w[THREADS];
	uint64_t cseed = 0x9e3779b97f4a7c15ull * (p + 1);
	int i;

	for (i = 0; i < NFDS; i++) {
		fds[i] = open(GCAPS_DEV, O_RDWR);
		if (fds[i] < 0) {
			printf("FAIL: open %s: %s\n", GCAPS_DEV, strerror(errno));
			_exit(1);
		}
	}
	rw_page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro_page = mmap(NULL, RO_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rw_page == MAP_FAILED || ro_page == MAP_FAILED)
		_exit(1);
	munmap(rw_page + PAGE, PAGE);
	for (i = 0; i < NCMDS; i++) {
		*(uint32_t *)(ro_page + i * RO_STRIDE) = ksize(i);
		*(uint32_t *)(rw_page + PAGE - 4 * (i + 1)) = ksize(i);
	}
	mprotect(ro_page, RO_SIZE, PROT_READ);
	pthread_create(&ct, NULL, churn_thread, &cseed);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .id = p * THREADS + i, .rt = p == 0 && i == 0,
					.seed = 0x1234567ull * (p * THREADS + i + 1) };
		pthread_create(&t[i], NULL, fuzz_thread, &w[i]);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	stop_churn = 1;
	pthread_join(ct, NULL);
	printf("fuzzer %d: %ld calls;", p, atomic_load(&calls));
	for (i = 0; i < 140; i++)
		if (rejected[i])
			printf(" %s=%ld", i ? strerrorname_np(i) : "ok", atomic_load(&rejected[i]));
	printf("\n");
	fflush(stdout);
	_exit(atomic_load(&fuzz_failures) ? 1 : 0);
}

int main(void)
{
	pid_t pids[PROCS], gpu[2];
	struct gcaps_client_info ci[16];
	struct gcaps_list l = { .size = sizeof(l) };
	int i, st, bad = 0, fd, n;
	double t0, t1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sh("insmod /modules/gcaps.ko max_clients_per_user=64");
	sh("insmod /modules/gcaps_simgpu.ko rebuild_interval_ms=5 rebuild_seed=11");
	for (i = 0; i < 2; i++) {
		gpu[i] = fork();
		if (gpu[i] == 0) {
			execl("/bin/gpuclient", "gpuclient", "--prio", i ? "20" : "0", "--work", "2",
			      "--segments", "200", "--gap-ms", "5", NULL);
			_exit(127);
		}
	}
	t0 = now();
	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			fuzz_process(i);
	}
	for (i = 0; i < PROCS; i++)
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	t1 = now();
	printf("fuzz: %d calls in %.1f s (%.0f calls/s), %d processes x %d threads\n",
	       PROCS * THREADS * CALLS_PER_THREAD, t1 - t0,
	       PROCS * THREADS * CALLS_PER_THREAD / (t1 - t0), PROCS, THREADS);
	if (bad)
		printf("FAIL: %d fuzzer processes failed\n", bad);
	for (i = 0; i < 2; i++)
		if (waitpid(gpu[i], &st, 0) != gpu[i] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("FAIL: gpuclient %d exited with %#x\n", i, st);
			bad++;
		}
	/* Nothing left behind: only this process is a client, no open segment. */
	fd = open(GCAPS_DEV, O_RDWR);
	l.clients_ptr = (unsigned long)ci;
	l.clients_cap = 16;
	n = only_self_left(fd, &l, "fuzz");
	bad += n < 0 ? 1 : n;
	close(fd);
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
	return bad ? 1 : 0;
}
