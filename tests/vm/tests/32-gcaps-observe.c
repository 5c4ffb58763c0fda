// SPDX-License-Identifier: GPL-2.0
/*
 * gcaps.ko statistics and trace ring match what the test did (issue 11), vmtest-timeout=120:
 *  - a scripted scenario (low segment, higher one preempts it, ends, low resumes and ends, a
 *    best-effort segment, every class of rejected call) gives exactly these counters (begins,
 *    ends, preemptions, resumes, rejected per errno, delay samples) and exactly this event
 *    sequence (kinds, clients, tgids, priorities, flags, running client, contiguous sequence
 *    numbers, non-decreasing timestamps);
 *  - the histogram equals the one recomputed from the trace's delays (buckets, min, max, sum);
 *  - a ring smaller than the event count: the reader is told how many events it missed
 *    (dropped) and what was overwritten; event_size strides; trace_size=0 records nothing;
 *  - reading the trace and resetting the statistics need CAP_SYS_ADMIN (EPERM as uid 65534);
 *  - with the emulated GPU bound: TSG_NEW/TSG_GONE with the owner, BEGIN/END with SUBMIT,
 *    submits and TSG counts in the statistics; the TSG id in tsgid for a VER1 reader and in
 *    cpu_priority for a VER0 one (event_size 96).
 * The cost of these calls is measured by tests/vm/bench/ioctl-cost.c (make vm-bench).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

#define RING 64

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

static struct gcaps_stats stats(int fd, int reset)
{
	struct gcaps_stats s = { .size = sizeof(s), .flags = reset ? GCAPS_STATS_RESET : 0 };

	CHECK(xioctl(fd, GCAPS_IOC_STATS, &s) == 0, "STATS: %s", strerror(errno));
	return s;
}

static uint64_t client_id(int fd)
{
	struct gcaps_status s = { .size = sizeof(s) };

	CHECK(xioctl(fd, GCAPS_IOC_STATUS, &s) == 0, "STATUS: %s", strerror(errno));
	return s.self.client_id;
}

/* Reads up to `cap` events from `from` with stride sizeof(event). */
static struct gcaps_trace_read trace(int fd, uint64_t from, struct gcaps_trace_event *ev,
				     unsigned int cap)
{
	struct gcaps_trace_read r = {
		.size = sizeof(r), .events_ptr = (uintptr_t)ev, .events_cap = cap,
		.event_size = sizeof(*ev), .from_seq = from,
	};

	CHECK(xioctl(fd, GCAPS_IOC_TRACE_READ, &r) == 0, "TRACE_READ: %s", strerror(errno));
	return r;
}

/* The sequence number the next event will get. */
static uint64_t trace_head(int fd)
{
	return trace(fd, UINT64_MAX, NULL, 0).next_seq;
}

static const char *kind_name(unsigned int k)
{
	static const char *n[] = { "?", "OPEN", "CLOSE", "BEGIN", "END", "PREEMPT", "RESUME",
				   "RECOVERY", "TSG_NEW", "TSG_GONE", "TSG_ALWAYS", "BOOST",
				   "UNBOOST" };

	return k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}

static void dump(const struct gcaps_trace_event *ev, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		printf("  seq=%llu %s client=%llu tgid=%u prio=%d/%d/%d flags=%#x running=%llu "
		       "gen=%llu delay=%llu\n",
		       (unsigned long long)ev[i].seq, kind_name(ev[i].kind),
		       (unsigned long long)ev[i].client_id, ev[i].tgid, ev[i].cpu_priority,
		       ev[i].requested_priority, ev[i].effective_priority, ev[i].flags,
		       (unsigned long long)ev[i].running_client_id,
		       (unsigned long long)ev[i].generation, (unsigned long long)ev[i].delay_ns);
}

struct want {
	unsigned int kind;
	uint64_t client;	/* expected client_id */
	int cpu, req, eff;	/* cpu_priority, requested, effective */
	unsigned int flags;
	uint64_t running;	/* expected running_client_id */
	int rt;			/* delay sampled (1) or 0 */
};

static unsigned int bucket_of(uint64_t ns)
{
	unsigned int bits = ns ? 64 - __builtin_clzll(ns) : 0;
	unsigned int b = bits > GCAPS_DELAY_BUCKET0_SHIFT ? bits - GCAPS_DELAY_BUCKET0_SHIFT : 0;

	return b < GCAPS_DELAY_BUCKETS ? b : GCAPS_DELAY_BUCKETS - 1;
}

/* The scripted scenario without a backend; checks counters, histogram and the event list. */
static void test_scenario(void)
{
	struct gcaps_trace_event ev[32];
	struct gcaps_trace_read r;
	struct gcaps_stats s;
	struct gcaps_seg_begin bad_begin = { .size = sizeof(bad_begin), .flags = 1 };
	struct gcaps_seg_end big_end[2];
	uint64_t head, lo, hi, be, hist[GCAPS_DELAY_BUCKETS] = { 0 }, dmin = UINT64_MAX, dmax = 0,
				       dsum = 0, dcount = 0;
	int fl, fh, fb, st;
	unsigned int i;
	pid_t c;
	char comm[17] = "";
	FILE *cf = fopen("/proc/self/comm", "r");

	if (!cf || !fgets(comm, sizeof(comm), cf)) {
		printf("FAIL: /proc/self/comm\n");
		exit(1);
	}
	fclose(cf);
	comm[strcspn(comm, "\n")] = '\0';

	fl = open_dev();
	fh = open_dev();
	fb = open_dev();
	lo = client_id(fl);
	hi = client_id(fh);
	be = client_id(fb);
	stats(fl, 1);
	head = trace_head(fl);

	/* Low (FIFO 10, inherit) runs; high (explicit 20) preempts it, ends; low resumes, ends. */
	set_fifo(10);
	CHECK(vt_seg_begin(fl, 0, NULL) == 0, "low begin");
	CHECK(vt_seg_begin(fh, 20, NULL) == 0, "high begin");
	CHECK(vt_seg_end(fh) == 0, "high end");
	CHECK(vt_seg_end(fl) == 0, "low end");
	set_fifo(0);
	/* Best-effort segment: no delay sample, no preemption. */
	CHECK(vt_seg_begin(fb, 0, NULL) == 0, "be begin");
	CHECK(vt_seg_end(fb) == 0, "be end");

	/* One rejected call per class (each also leaves no event). */
	CHECK(vt_seg_end(fb) == ENOENT, "end without begin");
	CHECK(vt_seg_begin(fb, 0, NULL) == 0 && vt_seg_begin(fb, 0, NULL) == EALREADY, "begin twice");
	CHECK(vt_seg_end(fb) == 0, "be end 2");
	CHECK(xioctl(fb, GCAPS_IOC_SEG_BEGIN, &bad_begin) == EINVAL, "bad flags");
	CHECK(xioctl(fb, _IO(GCAPS_IOC_MAGIC, 0x3f), NULL) == ENOTTY, "unknown command");
	CHECK(xioctl(fb, GCAPS_IOC_SEG_END, (void *)16) == EFAULT, "bad pointer");
	memset(big_end, 0xff, sizeof(big_end));
	big_end[0].size = sizeof(big_end);
	big_end[0].flags = 0;
	CHECK(xioctl(fb, GCAPS_IOC_SEG_END, big_end) == E2BIG, "oversized struct");
	CHECK(vt_seg_begin(fb, 5, NULL) == EPERM, "best-effort explicit priority");
	c = fork();
	if (c == 0)
		_exit(vt_seg_begin(fb, 0, NULL) == EPERM ? 0 : 1); /* the parent's fd: EPERM */
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child using the parent's fd: not EPERM");

	s = stats(fl, 0);
	CHECK(s.begins == 4 && s.ends == 4 && s.ends_by_close == 0,
	      "begins %llu ends %llu by close %llu, want 4 4 0", (unsigned long long)s.begins,
	      (unsigned long long)s.ends, (unsigned long long)s.ends_by_close);
	CHECK(s.preemptions == 1 && s.resumes == 1, "preemptions %llu resumes %llu, want 1 1",
	      (unsigned long long)s.preemptions, (unsigned long long)s.resumes);
	CHECK(s.delay_count == 4, "delay samples %llu, want 4 (real-time begin/end only)",
	      (unsigned long long)s.delay_count);
	CHECK(s.clients_now == 3 && s.tsgs_now == 0 && s.submits == 0,
	      "clients %u tsgs %u submits %llu", s.clients_now, s.tsgs_now,
	      (unsigned long long)s.submits);
	for (i = 0; i < GCAPS_REJ_NR; i++) {
		uint64_t want = (i == GCAPS_REJ_ENOENT || i == GCAPS_REJ_EALREADY ||
				 i == GCAPS_REJ_EINVAL || i == GCAPS_REJ_ENOTTY ||
				 i == GCAPS_REJ_EFAULT || i == GCAPS_REJ_E2BIG) ? 1 :
				i == GCAPS_REJ_EPERM ? 2 : 0;

		CHECK(s.rejected[i] == want, "rejected[%u] = %llu, want %llu", i,
		      (unsigned long long)s.rejected[i], (unsigned long long)want);
	}

	r = trace(fl, head, ev, 32);
	CHECK(r.ring_size == RING && r.dropped == 0, "ring %u dropped %llu", r.ring_size,
	      (unsigned long long)r.dropped);
	{
		const struct want w[] = {
			{ GCAPS_TRACE_BEGIN, lo, 10, 0, 10, 0, lo, 1 },
			/* holder boost (on by default): this thread runs at 98 while lo runs */
			{ GCAPS_TRACE_BOOST, lo, 98, 10, 10, 0, lo, 0 },
			/* hi's owner is the same thread: it stays boosted, no event */
			{ GCAPS_TRACE_BEGIN, hi, 10, 20, 20, 0, hi, 1 },
			{ GCAPS_TRACE_PREEMPT, lo, 0, 0, 10, 0, hi, 0 },
			{ GCAPS_TRACE_END, hi, 0, 0, 0, 0, lo, 1 },
			{ GCAPS_TRACE_RESUME, lo, 0, 0, 10, 0, lo, 0 },
			{ GCAPS_TRACE_END, lo, 0, 0, 0, 0, 0, 1 },
			/* back to its own FIFO 10 (from the ceiling of its end) */
			{ GCAPS_TRACE_UNBOOST, lo, 10, 10, 10, 0, 0, 0 },
			{ GCAPS_TRACE_BEGIN, be, 0, 0, 0, 0, 0, 0 },
			{ GCAPS_TRACE_END, be, 0, 0, 0, 0, 0, 0 },
			{ GCAPS_TRACE_BEGIN, be, 0, 0, 0, 0, 0, 0 },
			{ GCAPS_TRACE_END, be, 0, 0, 0, 0, 0, 0 },
		};
		unsigned int n = sizeof(w) / sizeof(w[0]);
		int bad = 0;

		CHECK(r.events_count == n && r.next_seq == head + n,
		      "%u events (next %llu), want %u from %llu", r.events_count,
		      (unsigned long long)r.next_seq, n, (unsigned long long)head);
		for (i = 0; i < n && i < r.events_count; i++) {
			const struct gcaps_trace_event *e = &ev[i];
			int ok = e->seq == head + i && e->kind == w[i].kind &&
				 e->client_id == w[i].client && e->tgid == (unsigned)getpid() &&
				 e->cpu_priority == w[i].cpu &&
				 e->requested_priority == w[i].req &&
				 e->effective_priority == w[i].eff && e->flags == w[i].flags &&
				 e->running_client_id == w[i].running &&
				 e->running_tgid == (w[i].running ? (unsigned)getpid() : 0) &&
				 (w[i].rt ? e->delay_ns > 0 : e->delay_ns == 0) &&
				 (i == 0 || e->time_ns >= ev[i - 1].time_ns) &&
				 e->tid == ((e->kind == GCAPS_TRACE_BOOST ||
					     e->kind == GCAPS_TRACE_UNBOOST) ? (unsigned)gettid() : 0) &&
				 strncmp(e->comm, comm, sizeof(e->comm)) == 0 &&
				 /* PREEMPT/RESUME/BOOST/UNBOOST carry their cause's time */
				 ((e->kind != GCAPS_TRACE_PREEMPT && e->kind != GCAPS_TRACE_RESUME &&
				   e->kind != GCAPS_TRACE_BOOST && e->kind != GCAPS_TRACE_UNBOOST) ||
				  e->time_ns == ev[i - 1].time_ns);

			CHECK(ok, "event %u (seq %llu): got %s client %llu, want %s client %llu "
			      "(cpu %d req %d eff %d flags %#x running %llu)", i,
			      (unsigned long long)e->seq, kind_name(e->kind),
			      (unsigned long long)e->client_id, kind_name(w[i].kind),
			      (unsigned long long)w[i].client, w[i].cpu, w[i].req, w[i].eff,
			      w[i].flags, (unsigned long long)w[i].running);
			bad |= !ok;
			if (e->delay_ns) {
				hist[bucket_of(e->delay_ns)]++;
				dcount++;
				dsum += e->delay_ns;
				dmin = e->delay_ns < dmin ? e->delay_ns : dmin;
				dmax = e->delay_ns > dmax ? e->delay_ns : dmax;
			}
		}
		/* No TSGs: only the switches between "all" and "a real-time segment" show. */
		CHECK(ev[2].generation == ev[0].generation && ev[5].generation == ev[0].generation &&
		      ev[6].generation == ev[0].generation + 1,
		      "generations %llu %llu %llu %llu", (unsigned long long)ev[0].generation,
		      (unsigned long long)ev[2].generation, (unsigned long long)ev[5].generation,
		      (unsigned long long)ev[6].generation);
		if (bad || r.events_count != n)
			dump(ev, r.events_count);
	}
	/* The histogram is the trace's delays, bucketed. */
	CHECK(s.delay_count == dcount && s.delay_sum_ns == dsum && s.delay_min_ns == dmin &&
	      s.delay_max_ns == dmax,
	      "histogram count/sum/min/max %llu/%llu/%llu/%llu, trace %llu/%llu/%llu/%llu",
	      (unsigned long long)s.delay_count, (unsigned long long)s.delay_sum_ns,
	      (unsigned long long)s.delay_min_ns, (unsigned long long)s.delay_max_ns,
	      (unsigned long long)dcount, (unsigned long long)dsum, (unsigned long long)dmin,
	      (unsigned long long)dmax);
	for (i = 0; i < GCAPS_DELAY_BUCKETS; i++)
		CHECK(s.delay_buckets[i] == hist[i], "bucket %u: %llu, trace gives %llu", i,
		      (unsigned long long)s.delay_buckets[i], (unsigned long long)hist[i]);
	printf("scenario: update delays (ns) min %llu max %llu mean %llu\n",
	       (unsigned long long)dmin, (unsigned long long)dmax,
	       (unsigned long long)(dcount ? dsum / dcount : 0));

	/* Close with an open segment: CLOSE with ENDED; the other two plain CLOSE. */
	head = trace_head(fl);
	CHECK(vt_seg_begin(fb, 0, NULL) == 0, "be begin before close");
	close(fb);
	close(fh);
	r = trace(fl, head, ev, 32);
	CHECK(r.events_count == 3 && ev[0].kind == GCAPS_TRACE_BEGIN &&
	      ev[1].kind == GCAPS_TRACE_CLOSE && ev[1].client_id == be &&
	      ev[1].flags == GCAPS_TRACE_F_ENDED && ev[2].kind == GCAPS_TRACE_CLOSE &&
	      ev[2].client_id == hi && ev[2].flags == 0,
	      "close events wrong (%u events)", r.events_count);
	s = stats(fl, 0);
	CHECK(s.ends_by_close == 1 && s.clients_now == 1 && s.clients_max == 3,
	      "ends_by_close %llu clients %u max %u", (unsigned long long)s.ends_by_close,
	      s.clients_now, s.clients_max);

	/*
	 * Closing the running segment hands the GPU back to the one it preempted: CLOSE (ENDED,
	 * low now runs), then RESUME low. Low is the module's first client, so its policy handle
	 * is 0, the value a freed slot holds: the module must not mistake the freed slot for it.
	 */
	fh = open_dev();
	hi = client_id(fh);
	head = trace_head(fl);
	set_fifo(10);
	CHECK(vt_seg_begin(fl, 0, NULL) == 0 && vt_seg_begin(fh, 20, NULL) == 0, "low, then high begin");
	close(fh);
	CHECK(vt_seg_end(fl) == 0, "low end after high's close");
	set_fifo(0);
	r = trace(fl, head, ev, 32);
	/* (with the holder boost's BOOST after the first BEGIN and UNBOOST after the last END) */
	CHECK(r.events_count == 8 && ev[1].kind == GCAPS_TRACE_BOOST && ev[1].client_id == lo &&
	      ev[3].kind == GCAPS_TRACE_PREEMPT && ev[3].client_id == lo &&
	      ev[4].kind == GCAPS_TRACE_CLOSE && ev[4].client_id == hi &&
	      ev[4].flags == GCAPS_TRACE_F_ENDED && ev[4].running_client_id == lo &&
	      ev[5].kind == GCAPS_TRACE_RESUME && ev[5].client_id == lo &&
	      ev[5].running_client_id == lo && ev[6].kind == GCAPS_TRACE_END &&
	      ev[6].client_id == lo && ev[6].running_client_id == 0 &&
	      ev[7].kind == GCAPS_TRACE_UNBOOST && ev[7].cpu_priority == 10,
	      "close of the running segment: events wrong (%u events)", r.events_count);
	if (r.events_count != 8 || ev[5].kind != GCAPS_TRACE_RESUME)
		dump(ev, r.events_count);
	s = stats(fl, 0);
	CHECK(s.preemptions == 2 && s.resumes == 2 && s.ends_by_close == 2,
	      "preemptions %llu resumes %llu ends_by_close %llu, want 2 2 2",
	      (unsigned long long)s.preemptions, (unsigned long long)s.resumes,
	      (unsigned long long)s.ends_by_close);
	close(fl);
}

/* A ring of RING events, a reader far behind: dropped/overwritten, contiguous sequence. */
static void test_overwrite(void)
{
	struct gcaps_trace_event ev[RING + 8];
	struct {
		struct gcaps_trace_event e;
		uint64_t canary;
	} wide[4];
	struct gcaps_trace_read r;
	uint64_t head;
	int fd = open_dev(), i;

	head = trace_head(fd);
	for (i = 0; i < RING; i++) { /* 2 events each */
		CHECK(vt_seg_begin(fd, 0, NULL) == 0, "begin");
		CHECK(vt_seg_end(fd) == 0, "end");
	}
	r = trace(fd, head, ev, RING + 8);
	CHECK(r.dropped == RING && r.events_count == RING && ev[0].seq == head + RING &&
	      ev[RING - 1].seq == head + 2 * RING - 1 && r.next_seq == head + 2 * RING,
	      "reader %d events behind a ring of %d: dropped %llu count %u first %llu next %llu",
	      2 * RING, RING, (unsigned long long)r.dropped, r.events_count,
	      (unsigned long long)ev[0].seq, (unsigned long long)r.next_seq);
	CHECK(r.overwritten == r.next_seq - 1 - RING, "overwritten %llu, want %llu",
	      (unsigned long long)r.overwritten, (unsigned long long)(r.next_seq - 1 - RING));
	for (i = 1; i < (int)r.events_count; i++)
		CHECK(ev[i].seq == ev[i - 1].seq + 1, "sequence gap at %d", i);
	/* Oldest (from_seq 0), in small pieces: contiguous, then caught up. */
	r = trace(fd, 0, ev, 5);
	CHECK(r.events_count == 5 && r.dropped == 0 && ev[0].seq == head + RING &&
	      r.next_seq == ev[4].seq + 1, "from 0: count %u first %llu", r.events_count,
	      (unsigned long long)ev[0].seq);
	r = trace(fd, r.next_seq, ev, RING);
	CHECK(r.events_count == RING - 5 && r.next_seq == head + 2 * RING, "rest: count %u",
	      r.events_count);
	r = trace(fd, r.next_seq, ev, RING);
	CHECK(r.events_count == 0 && r.next_seq == head + 2 * RING, "caught up: count %u",
	      r.events_count);
	/* A caller with a larger event struct: stride honoured, bytes beyond ours untouched. */
	memset(wide, 0xab, sizeof(wide));
	{
		struct gcaps_trace_read w = {
			.size = sizeof(w), .events_ptr = (uintptr_t)wide, .events_cap = 4,
			.event_size = sizeof(wide[0]), .from_seq = head + 2 * RING - 4,
		};

		CHECK(xioctl(fd, GCAPS_IOC_TRACE_READ, &w) == 0 && w.events_count == 4,
		      "wide read: %s", strerror(errno));
		for (i = 0; i < 4; i++)
			CHECK(wide[i].e.seq == head + 2 * RING - 4 + i &&
			      wide[i].canary == 0xababababababababull,
			      "wide element %d: seq %llu canary %llx", i,
			      (unsigned long long)wide[i].e.seq,
			      (unsigned long long)wide[i].canary);
		w.event_size = GCAPS_TRACE_EVENT_SIZE_VER0 - 1;
		CHECK(xioctl(fd, GCAPS_IOC_TRACE_READ, &w) == EINVAL, "event_size 79: not EINVAL");
		w.event_size = sizeof(wide[0]);
		w.flags = 1;
		CHECK(xioctl(fd, GCAPS_IOC_TRACE_READ, &w) == EINVAL, "flags 1: not EINVAL");
		w.flags = 0;
		w.events_ptr = 8;
		w.from_seq = 0;
		CHECK(xioctl(fd, GCAPS_IOC_TRACE_READ, &w) == EFAULT, "bad array: not EFAULT");
	}
	close(fd);
}

/* uid 65534: reads statistics, but neither resets them nor reads the trace. */
static void test_permissions(void)
{
	pid_t c = fork();
	int st;

	if (c == 0) {
		struct gcaps_stats s = { .size = sizeof(s) };
		struct gcaps_trace_event ev[2];
		struct gcaps_trace_read r = {
			.size = sizeof(r), .events_ptr = (uintptr_t)ev, .events_cap = 2,
			.event_size = sizeof(ev[0]),
		};
		int fd, bad = 0;

		if (setuid(65534))
			_exit(2);
		fd = open_dev();
		bad |= xioctl(fd, GCAPS_IOC_STATS, &s) != 0;
		bad |= (xioctl(fd, GCAPS_IOC_TRACE_READ, &r) != EPERM) << 1;
		s.flags = GCAPS_STATS_RESET;
		bad |= (xioctl(fd, GCAPS_IOC_STATS, &s) != EPERM) << 2;
		_exit(bad);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "as uid 65534 (bits: 1 stats read failed, 2 trace not EPERM, 4 reset not EPERM): "
	      "status %#x", st);
}

/* Runs one gpuclient (two submitting segments); its pid, and its TSG's id in *tsg. Waits for
 * the TSG's release, which reaches gcaps through the work item (bounded). */
static int run_gpuclient(int fd, unsigned int *tsg)
{
	int pid = 0, i;
	FILE *p;
	char line[256];

	*tsg = 0;
	p = popen("gpuclient --prio 50 --work 2 --segments 2 --gap-ms 5 --tag G --report", "r");
	CHECK(p != NULL, "gpuclient");
	while (p && fgets(line, sizeof(line), p))
		sscanf(line, "CLIENT tag=G pid=%d tsg=%u", &pid, tsg);
	CHECK(p && pclose(p) == 0 && pid > 0, "gpuclient failed (pid %d)", pid);
	for (i = 0; i < 200 && stats(fd, 0).tsgs_now != 0; i++)
		usleep(10000);
	return pid;
}

/*
 * With the emulated GPU: TSG events, submits. The TSG id of TSG_NEW/TSG_GONE is in tsgid for
 * a VER1 reader (cpu_priority 0) and in cpu_priority for a VER0 reader (event_size 96), whose
 * stride the kernel honours without touching the bytes of a VER1 tail.
 */
static void test_with_gpu(void)
{
	struct gcaps_trace_event ev[64];
	unsigned char v0[64 * GCAPS_TRACE_EVENT_SIZE_VER0 + 8];
	struct gcaps_trace_read r, r0;
	struct gcaps_stats s;
	int fd = open_dev(), pid = 0, news = 0, gones = 0, subs = 0, v1ok = 0, v0ok = 0, k;
	unsigned int i, tsg = 0;
	uint64_t head = 0;

	/* A TSG id 0 would look the same in both versions: the emulated GPU hands ids out in
	 * rotation, so another client gets another one. */
	for (k = 0; k < 3 && (k == 0 || tsg == 0); k++) {
		stats(fd, 1);
		head = trace_head(fd);
		pid = run_gpuclient(fd, &tsg);
	}
	CHECK(tsg != 0, "gpuclient's TSG id stayed 0 over %d clients", k);
	r = trace(fd, head, ev, 64);
	for (i = 0; i < r.events_count; i++) {
		if ((ev[i].kind == GCAPS_TRACE_TSG_NEW || ev[i].kind == GCAPS_TRACE_TSG_GONE) &&
		    ev[i].tgid == (unsigned)pid) {
			news += ev[i].kind == GCAPS_TRACE_TSG_NEW;
			gones += ev[i].kind == GCAPS_TRACE_TSG_GONE;
			v1ok += ev[i].tsgid == tsg && ev[i].cpu_priority == 0 && ev[i].reserved == 0;
		}
		if ((ev[i].kind == GCAPS_TRACE_BEGIN || ev[i].kind == GCAPS_TRACE_END) &&
		    ev[i].tgid == (unsigned)pid && (ev[i].flags & GCAPS_TRACE_F_SUBMIT) &&
		    !(ev[i].flags & GCAPS_TRACE_F_SUBMIT_FAILED) && ev[i].delay_ns > 0)
			subs++;
	}
	/* The same events read by a VER0 caller (event_size 96). */
	memset(v0, 0xab, sizeof(v0));
	r0 = (struct gcaps_trace_read){
		.size = sizeof(r0), .events_ptr = (uintptr_t)v0, .events_cap = 64,
		.event_size = GCAPS_TRACE_EVENT_SIZE_VER0, .from_seq = head,
	};
	CHECK(xioctl(fd, GCAPS_IOC_TRACE_READ, &r0) == 0 && r0.events_count == r.events_count,
	      "VER0 read: %s, %u events, want %u", strerror(errno), r0.events_count,
	      r.events_count);
	for (i = 0; i < r0.events_count && i < 64; i++) {
		struct gcaps_trace_event e;

		memset(&e, 0, sizeof(e));
		memcpy(&e, v0 + i * GCAPS_TRACE_EVENT_SIZE_VER0, GCAPS_TRACE_EVENT_SIZE_VER0);
		CHECK(e.seq == ev[i].seq && e.kind == ev[i].kind, "VER0 event %u: seq %llu kind %u",
		      i, (unsigned long long)e.seq, e.kind);
		if ((e.kind == GCAPS_TRACE_TSG_NEW || e.kind == GCAPS_TRACE_TSG_GONE) &&
		    e.tgid == (unsigned)pid)
			v0ok += e.cpu_priority == (int)tsg;
		else
			CHECK(e.cpu_priority == ev[i].cpu_priority, "VER0 event %u: cpu_priority %d/%d",
			      i, e.cpu_priority, ev[i].cpu_priority);
	}
	CHECK(v0[r0.events_count * GCAPS_TRACE_EVENT_SIZE_VER0] == 0xab,
	      "VER0 read wrote past its last element");
	s = stats(fd, 0);
	CHECK(news == 1 && gones == 1 && subs == 4,
	      "gpuclient %d: TSG_NEW %d TSG_GONE %d submitting BEGIN/END %d, want 1 1 4", pid,
	      news, gones, subs);
	CHECK(v1ok == 2 && v0ok == 2,
	      "TSG %u of gpuclient %d: VER1 tsgid in %d, VER0 cpu_priority in %d of 2 events", tsg,
	      pid, v1ok, v0ok);
	CHECK(s.begins == 2 && s.ends == 2 && s.submits >= 4 && s.submit_errors == 0 &&
	      s.tsgs_max >= 1 && s.tsgs_now == 0 && s.delay_count == 4,
	      "stats: begins %llu ends %llu submits %llu errors %llu tsgs %u/%u samples %llu",
	      (unsigned long long)s.begins, (unsigned long long)s.ends,
	      (unsigned long long)s.submits, (unsigned long long)s.submit_errors, s.tsgs_now,
	      s.tsgs_max, (unsigned long long)s.delay_count);
	if (news != 1 || gones != 1 || subs != 4 || v1ok != 2 || v0ok != 2)
		dump(ev, r.events_count);
	printf("with simgpu: TSG %u; update delays (ns) min %llu max %llu mean %llu\n", tsg,
	       (unsigned long long)s.delay_min_ns, (unsigned long long)s.delay_max_ns,
	       (unsigned long long)(s.delay_count ? s.delay_sum_ns / s.delay_count : 0));
	close(fd);
}

int main(void)
{
	int fd;
	struct gcaps_trace_event ev[4];

	setvbuf(stdout, NULL, _IONBF, 0);
	sh("insmod /modules/gcaps.ko trace_size=64");
	test_scenario();
	test_overwrite();
	test_permissions();
	sh("insmod /modules/gcaps_simgpu.ko");
	test_with_gpu();
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");

	sh("insmod /modules/gcaps.ko trace_size=0");
	fd = open_dev();
	CHECK(vt_seg_begin(fd, 0, NULL) == 0 && vt_seg_end(fd) == 0, "begin/end without a trace");
	{
		struct gcaps_trace_read r = trace(fd, 0, ev, 4);

		CHECK(r.ring_size == 0 && r.events_count == 0 && r.next_seq == 1,
		      "trace_size=0: ring %u count %u next %llu", r.ring_size, r.events_count,
		      (unsigned long long)r.next_seq);
	}
	close(fd);
	sh("rmmod gcaps");
	CHECK(system("insmod /modules/gcaps.ko trace_size=2000000 2>/dev/null") != 0,
	      "trace_size above the limit accepted");
	if (failures)
		printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
