// SPDX-License-Identifier: GPL-2.0
/*
 * What an error leaves changed (issue 17, point 3), and the exact segment balance of STATS.
 * vmtest-timeout=60
 *
 *   - SEG_BEGIN / SEG_END whose struct is readable but not writable: EFAULT and nothing
 *     happened (the segment is not open / still open; no counter moved), for a best-effort
 *     and a real-time caller. Before the fix the begin opened the segment and the end closed
 *     it, both returning EFAULT.
 *   - STATS with GCAPS_STATS_RESET on a read-only struct: EFAULT and nothing was reset.
 *   - A reset resets exactly the counters within the caller's size: a VER0 (56-byte) reset
 *     keeps every VER1 counter; a 104-byte reset zeroes rejected[0] and keeps rejected[1];
 *     a VER1 reset keeps nothing of VER1 but the current counts in clients/tsgs_max.
 *   - open_at_reset + begins == ends + ends_by_close + segments_open after every step, with a
 *     reset taken while a segment is open (open_at_reset 1), its end after the reset, and a
 *     segment ended by close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

static const char *volatile phase = "start";
static char *ro;	/* a read-only page holding valid structs */

#define RO_BEGIN 0
#define RO_END 512
#define RO_STATS 1024

static struct gcaps_stats stats_sized(int fd, uint32_t size, uint32_t flags)
{
	struct gcaps_stats s;

	/* Beyond the caller's size: a pattern, so that anything the kernel wrote there shows. */
	memset(&s, 0, sizeof(s));
	if (size < sizeof(s))
		memset((char *)&s + size, 0xa5, sizeof(s) - size);
	s.size = size;
	s.flags = flags;
	if (ioctl(fd, GCAPS_IOC_STATS, &s))
		printf("FAIL: STATS size %u flags %u: %s\n", size, flags, strerror(errno)), exit(1);
	return s;
}

static struct gcaps_stats stats(int fd)
{
	return stats_sized(fd, sizeof(struct gcaps_stats), 0);
}

static void check_balance(int fd, const char *when)
{
	struct gcaps_stats s = stats(fd);

	CHECK(s.open_at_reset + s.begins == s.ends + s.ends_by_close + s.segments_open,
	      "%s: open_at_reset %llu + begins %llu != ends %llu + ends_by_close %llu + open %llu",
	      when, (unsigned long long)s.open_at_reset, (unsigned long long)s.begins,
	      (unsigned long long)s.ends, (unsigned long long)s.ends_by_close,
	      (unsigned long long)s.segments_open);
}

static uint32_t state(int fd)
{
	struct gcaps_status s = { .size = sizeof(s) };

	if (ioctl(fd, GCAPS_IOC_STATUS, &s))
		printf("FAIL: STATUS: %s\n", strerror(errno)), exit(1);
	return s.self.state;
}

static int call(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

/* Read-only SEG_BEGIN/SEG_END: EFAULT, nothing happens. `prio`: the caller's FIFO priority. */
static void readonly_begin_end(int fd, int prio)
{
	struct gcaps_seg_begin b = { .size = sizeof(b) };
	struct gcaps_seg_end e = { .size = sizeof(e) };
	struct gcaps_stats s0, s1;
	int rc;

	set_fifo(prio);
	phase = prio ? "read-only begin (real-time)" : "read-only begin (best-effort)";
	s0 = stats(fd);
	rc = call(fd, GCAPS_IOC_SEG_BEGIN, ro + RO_BEGIN);
	CHECK(rc == EFAULT, "%s: %s, want EFAULT", phase, strerror(rc));
	CHECK(state(fd) == GCAPS_STATE_IDLE, "%s: EFAULT but the segment is open", phase);
	s1 = stats(fd);
	CHECK(s1.begins == s0.begins && s1.segments_open == 0, "%s: begins %llu -> %llu", phase,
	      (unsigned long long)s0.begins, (unsigned long long)s1.begins);
	CHECK(call(fd, GCAPS_IOC_SEG_BEGIN, &b) == 0, "%s: a writable begin after it", phase);

	phase = prio ? "read-only end (real-time)" : "read-only end (best-effort)";
	s0 = stats(fd);
	rc = call(fd, GCAPS_IOC_SEG_END, ro + RO_END);
	CHECK(rc == EFAULT, "%s: %s, want EFAULT", phase, strerror(rc));
	CHECK(state(fd) != GCAPS_STATE_IDLE, "%s: EFAULT but the segment ended", phase);
	s1 = stats(fd);
	CHECK(s1.ends == s0.ends && s1.segments_open == 1, "%s: ends %llu -> %llu", phase,
	      (unsigned long long)s0.ends, (unsigned long long)s1.ends);
	CHECK(call(fd, GCAPS_IOC_SEG_END, &e) == 0, "%s: a writable end after it", phase);
	check_balance(fd, phase);
	set_fifo(0);
}

int main(void)
{
	struct gcaps_seg_begin b = { .size = sizeof(b) };
	struct gcaps_seg_end e = { .size = sizeof(e) };
	struct gcaps_stats s0, s1, r;
	int fd, fd2, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog(50, &phase, NULL);
	sh("insmod /modules/gcaps.ko");
	fd = open_dev();

	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		printf("FAIL: mmap\n"), exit(1);
	*(struct gcaps_seg_begin *)(ro + RO_BEGIN) = (struct gcaps_seg_begin){ .size = sizeof(b) };
	*(struct gcaps_seg_end *)(ro + RO_END) = (struct gcaps_seg_end){ .size = sizeof(e) };
	*(struct gcaps_stats *)(ro + RO_STATS) = (struct gcaps_stats){
		.size = sizeof(struct gcaps_stats), .flags = GCAPS_STATS_RESET };
	mprotect(ro, 4096, PROT_READ);

	readonly_begin_end(fd, 0);
	readonly_begin_end(fd, 20);

	/* Some history in every counter class: rejected calls, delay samples, a close-ended one. */
	phase = "history";
	CHECK(call(fd, GCAPS_IOC_SEG_END, &e) == ENOENT, "end without begin");
	CHECK(call(fd, 0xc0ffee, &e) == ENOTTY, "unknown command");
	fd2 = open_dev();
	CHECK(call(fd2, GCAPS_IOC_SEG_BEGIN, &b) == 0, "begin on fd2");
	close(fd2);	/* ends_by_close */
	check_balance(fd, "after a close-ended segment");

	/* A read-only reset: EFAULT, nothing reset. */
	phase = "read-only reset";
	s0 = stats(fd);
	rc = call(fd, GCAPS_IOC_STATS, ro + RO_STATS);
	CHECK(rc == EFAULT, "%s: %s, want EFAULT", phase, strerror(rc));
	s1 = stats(fd);
	CHECK(s1.begins == s0.begins && s1.ends == s0.ends && s1.ends_by_close == s0.ends_by_close &&
	      s1.delay_count == s0.delay_count && s1.begins > 0 && s1.delay_count > 0,
	      "%s: counters reset anyway (begins %llu -> %llu, delay_count %llu -> %llu)", phase,
	      (unsigned long long)s0.begins, (unsigned long long)s1.begins,
	      (unsigned long long)s0.delay_count, (unsigned long long)s1.delay_count);

	/* A segment open across the resets. */
	CHECK(call(fd, GCAPS_IOC_SEG_BEGIN, &b) == 0, "begin before the resets");

	/* VER0 reset: the VER0 counters only; nothing beyond 56 bytes written. */
	phase = "VER0 reset";
	s0 = stats(fd);
	r = stats_sized(fd, GCAPS_STATS_SIZE_VER0, GCAPS_STATS_RESET);
	CHECK(r.begins == s0.begins && r.preemptions == 0xa5a5a5a5a5a5a5a5ull,
	      "%s: reply wrong or written beyond its size", phase);
	s1 = stats(fd);
	CHECK(s1.begins == 0 && s1.ends == 0 && s1.ends_by_close == 0 && s1.submits == 0 &&
	      s1.clients_max == s1.clients_now, "%s: VER0 counters not reset", phase);
	CHECK(s1.delay_count == s0.delay_count && s1.delay_count > 0 &&
	      s1.rejected[GCAPS_REJ_ENOENT] == s0.rejected[GCAPS_REJ_ENOENT] &&
	      s1.rejected[GCAPS_REJ_ENOENT] > 0 && s1.rejected[GCAPS_REJ_EFAULT] > 0 &&
	      s1.rejected[GCAPS_REJ_EFAULT] == s0.rejected[GCAPS_REJ_EFAULT],
	      "%s: reset VER1 counters the caller cannot see (delay_count %llu -> %llu)", phase,
	      (unsigned long long)s0.delay_count, (unsigned long long)s1.delay_count);
	CHECK(s1.open_at_reset == 1 && s1.segments_open == 1,
	      "%s: open_at_reset %llu segments_open %llu, want 1 1", phase,
	      (unsigned long long)s1.open_at_reset, (unsigned long long)s1.segments_open);
	check_balance(fd, "after a reset with a segment open");

	/* 104 bytes: rejected[0] (EPERM, bytes 96..104) is covered, rejected[1] is not. */
	phase = "104-byte reset";
	CHECK(offsetof(struct gcaps_stats, rejected) == 96, "layout");
	CHECK(call(fd, GCAPS_IOC_SEG_BEGIN, &(struct gcaps_seg_begin){ .size = sizeof(b),
						.gpu_priority = 5 }) == EPERM, "EPERM for the count");
	s0 = stats(fd);
	stats_sized(fd, 104, GCAPS_STATS_RESET);
	s1 = stats(fd);
	CHECK(s0.rejected[GCAPS_REJ_EPERM] > 0 && s1.rejected[GCAPS_REJ_EPERM] == 0 &&
	      s1.rejected[GCAPS_REJ_ENOENT] == s0.rejected[GCAPS_REJ_ENOENT] &&
	      s1.delay_count == s0.delay_count,
	      "%s: EPERM %llu -> %llu, ENOENT %llu -> %llu", phase,
	      (unsigned long long)s0.rejected[GCAPS_REJ_EPERM],
	      (unsigned long long)s1.rejected[GCAPS_REJ_EPERM],
	      (unsigned long long)s0.rejected[GCAPS_REJ_ENOENT],
	      (unsigned long long)s1.rejected[GCAPS_REJ_ENOENT]);

	/* The segment open at the reset ends: the balance still holds. */
	CHECK(call(fd, GCAPS_IOC_SEG_END, &e) == 0, "end after the resets");
	s1 = stats(fd);
	CHECK(s1.ends == 1 && s1.begins == 0 && s1.open_at_reset == 1 && s1.segments_open == 0,
	      "after the end: begins %llu ends %llu open_at_reset %llu",
	      (unsigned long long)s1.begins, (unsigned long long)s1.ends,
	      (unsigned long long)s1.open_at_reset);
	check_balance(fd, "after the end of a segment open at the reset");

	/* VER1 reset: every VER1 counter (the histogram whole), nothing of VER2 reported. */
	phase = "VER1 reset";
	r = stats_sized(fd, GCAPS_STATS_SIZE_VER1, GCAPS_STATS_RESET);
	CHECK(r.open_at_reset == 0xa5a5a5a5a5a5a5a5ull, "%s: written beyond its size", phase);
	s1 = stats(fd);
	CHECK(s1.delay_count == 0 && s1.rejected[GCAPS_REJ_ENOENT] == 0 && s1.ends == 0 &&
	      s1.open_at_reset == 0, "%s: VER1 counters not reset", phase);
	check_balance(fd, "after a VER1 reset");

	close(fd);
	sh("rmmod gcaps");
	printf("errno state: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
