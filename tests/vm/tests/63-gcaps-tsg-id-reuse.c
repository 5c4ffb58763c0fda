// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test of a defect found by the scale work (fixed: calls->tsg_release clears the
 * id's bit in the published snapshot at once). vmtest-timeout=60
 *
 * Before the fix, a TSG id freed by the winner of a real-time segment and reused at once by
 * another process stayed eligible (its bit in the published snapshot) until gcaps's event work
 * item applied the release; the driver listed the new owner's TSG, and its GPU work ran, inside
 * the winner's segment. The work item is a kworker (system_highpri_wq, SCHED_OTHER): real-time
 * tasks that keep the CPUs busy delay it for as long as they run.
 *
 * gcaps_simgpu with max_tsgs=3: W (SCHED_FIFO 50, CPU 0, a gcaps client) owns TSGs 0 and 1 and
 * opens a segment (eligible: exactly {0, 1}); B (SCHED_FIFO 40, CPU 1, no gcaps client) owns
 * TSG 2. W closes TSG 0 and keeps CPU 0 busy for 300 ms; B then opens a TSG (id 0, the only
 * free id), reads the runlist and submits 5 ms of GPU work, polling for its completion (keeping
 * CPU 1 busy). Expected (rule 2 of docs/policy.md): TSG 0 is not listed and B's work does not
 * run before W's segment ends. With the bug: listed, and B's work completes inside W's segment.
 *
 * Second part (the other side of the same mechanism): the winner itself closes its only TSG and
 * at once opens a new one, which gets the same id, before gcaps has applied the release (its
 * kworker is queued behind the winner on CPU 0). The new TSG is the winner's, so it must become
 * eligible and its work must run inside the segment (within 1 s).
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../../../module/simgpu/gcaps_simgpu.h"
#include "../lib/vmtest.h"

struct shared {
	volatile int b_ready, go, w_done, result;
	volatile uint64_t w_end_ns;
};
static struct shared *shm;

static void rt(int cpu, int prio)
{
	cpu_set_t set;
	struct sched_param sp = { .sched_priority = prio };

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		printf("FAIL: cpu %d / FIFO %d: %s\n", cpu, prio, strerror(errno));
		_exit(1);
	}
}

static int tsg(int *id)
{
	struct simgpu_tsg_info ti = { .size = sizeof(ti) };
	int fd = open("/dev/gcaps_simgpu", O_RDWR);

	if (fd < 0 || ioctl(fd, SIMGPU_IOC_INFO, &ti)) {
		printf("FAIL: TSG open: %s\n", strerror(errno));
		_exit(1);
	}
	*id = ti.tsgid;
	return fd;
}

/*
 * May the GPU run TSG `id`: is it on the runlist the engine executes, with its channels enabled
 * (under mechanism gate every TSG is listed and the enable state carries the decision)?
 */
static int listed(int fd, uint32_t id)
{
	static uint32_t w[3 * 3 * 4];
	static uint64_t en[1];
	struct simgpu_runlist rl = { .size = sizeof(rl), .words_ptr = (uintptr_t)w,
				     .words_cap = 36, .enabled_ptr = (uintptr_t)en,
				     .enabled_cap = 1 };
	uint32_t i = 0;

	if (ioctl(fd, SIMGPU_IOC_RUNLIST, &rl))
		return -1;
	while (i < rl.entries && i < 9) {
		if (w[i * 4 + 2] == id)
			return (int)(en[0] >> id & 1);
		i += 1 + w[i * 4 + 1];
	}
	return 0;
}

static void proc_w(void)
{
	struct gcaps_seg_begin b = { .size = sizeof(b) };
	struct gcaps_seg_end e = { .size = sizeof(e) };
	int g, t0, t1, id0, id1;
	uint64_t until;

	rt(0, 50);
	g = open("/dev/gcaps", O_RDWR);
	t0 = tsg(&id0);
	t1 = tsg(&id1);
	while (!shm->b_ready)
		usleep(1000);
	usleep(100000);		/* gcaps applied the TSG events */
	if (g < 0 || ioctl(g, GCAPS_IOC_SEG_BEGIN, &b) || b.state != GCAPS_STATE_RUNNING) {
		printf("FAIL: W's begin: %s, state %u\n", strerror(errno), b.state);
		_exit(1);
	}
	printf("W: segment open with TSGs %d and %d; closing TSG %d\n", id0, id1, id0);
	close(t0);
	shm->go = 1;
	until = now_ns() + 300000000ull;	/* CPU 0 busy: the kworker queued here waits */
	while (now_ns() < until)
		;
	shm->w_end_ns = now_ns();
	if (ioctl(g, GCAPS_IOC_SEG_END, &e))
		printf("FAIL: W's end: %s\n", strerror(errno));
	close(t1);
	close(g);
	_exit(0);
}

static void proc_b(void)
{
	struct simgpu_submit s = { .size = sizeof(s), .exec_ns = 5000000 };
	struct simgpu_wait w = { .size = sizeof(w), .flags = SIMGPU_WAIT_POLL };
	int t2, t, id2, id, on, done = 0;
	uint64_t t_open, t_gone = 0, deadline;

	rt(1, 40);
	t2 = tsg(&id2);
	shm->b_ready = 1;
	while (!shm->go)
		;
	t = tsg(&id);
	t_open = now_ns();
	on = listed(t, id);
	printf("B: reopened TSG id %d (its other TSG: %d); on the runlist right after: %s\n", id,
	       id2, on ? "yes" : "no");
	if (ioctl(t, SIMGPU_IOC_SUBMIT, &s)) {
		printf("FAIL: submit: %s\n", strerror(errno));
		_exit(1);
	}
	w.seqno = s.seqno;
	deadline = t_open + 2000000000ull;
	/* Poll (sleeping 100 us between polls: RUNLIST takes the driver's runlist lock, which a
	 * SCHED_FIFO caller polling without pause would keep from gcaps's kworker) until the work
	 * finished and the TSG left the runlist, 2 s at most. */
	while (now_ns() < deadline && !(done && t_gone)) {
		if (!done && !(ioctl(t, SIMGPU_IOC_WAIT, &w) && errno == EAGAIN))
			done = 1;
		if (!t_gone && listed(t, id) == 0)
			t_gone = now_ns();
		usleep(100);
	}
	printf("B: TSG %d left the runlist %.1f ms after its open; B's 5 ms of GPU work ran "
	       "%.1f..%.1f ms after its open; W's segment %s\n", id,
	       t_gone ? (t_gone - t_open) / 1e6 : -1.0, (w.done.start_ns - t_open) / 1e6,
	       (w.done.end_ns - t_open) / 1e6,
	       shm->w_end_ns ? "ended meanwhile" : "still open when B's work finished");
	shm->result = on || (w.done.end_ns && !shm->w_end_ns) ||
		     (shm->w_end_ns && w.done.start_ns < shm->w_end_ns);
	close(t);
	close(t2);
	_exit(0);
}

/* The winner closes and reopens its only TSG (same id, same owner) inside its segment. */
static int winner_reopens(void)
{
	struct gcaps_seg_begin b = { .size = sizeof(b) };
	struct gcaps_seg_end e = { .size = sizeof(e) };
	struct simgpu_submit s = { .size = sizeof(s), .exec_ns = 2000000 };
	struct simgpu_wait w = { .size = sizeof(w), .flags = SIMGPU_WAIT_POLL };
	uint64_t t_open, deadline;
	int g, t, id, id2, done = 0;

	rt(0, 50);
	g = open("/dev/gcaps", O_RDWR);
	t = tsg(&id);
	usleep(100000);		/* gcaps applied the TSG event */
	if (g < 0 || ioctl(g, GCAPS_IOC_SEG_BEGIN, &b) || b.state != GCAPS_STATE_RUNNING) {
		printf("FAIL: the winner's begin: %s, state %u\n", strerror(errno), b.state);
		return 1;
	}
	close(t);		/* no sleep in between: the kworker on CPU 0 waits behind us */
	t = tsg(&id2);
	t_open = now_ns();
	if (id2 != id || ioctl(t, SIMGPU_IOC_SUBMIT, &s)) {
		printf("FAIL: reopened TSG id %d (was %d), submit: %s\n", id2, id, strerror(errno));
		return 1;
	}
	w.seqno = s.seqno;
	deadline = t_open + 1000000000ull;
	while (now_ns() < deadline && !done) {
		if (!(ioctl(t, SIMGPU_IOC_WAIT, &w) && errno == EAGAIN))
			done = 1;
		usleep(100);
	}
	printf("winner: reopened TSG %d; its 2 ms of work %s\n", id2,
	       done ? "ran inside its segment" : "did not run within 1 s");
	if (ioctl(g, GCAPS_IOC_SEG_END, &e))
		printf("FAIL: the winner's end: %s\n", strerror(errno));
	close(t);
	close(g);
	return done ? 0 : 1;
}

int main(void)
{
	pid_t pw, pb;
	int st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED || system("insmod /modules/gcaps.ko") ||
	    system("insmod /modules/gcaps_simgpu.ko max_tsgs=3"))
		return 1;
	pw = fork();
	if (pw == 0)
		proc_w();
	usleep(200000);		/* W has TSGs 0 and 1 */
	pb = fork();
	if (pb == 0)
		proc_b();
	waitpid(pb, &st, 0);
	waitpid(pw, &st, 0);
	if (system("rmmod gcaps_simgpu") || system("rmmod gcaps"))
		return 1;
	if (shm->result) {
		printf("FAIL: another process's TSG was listed (and ran) inside W's real-time "
		       "segment\n");
		return 1;
	}
	printf("ok: the reused id was not eligible inside W's segment\n");
	if (system("insmod /modules/gcaps.ko") || system("insmod /modules/gcaps_simgpu.ko max_tsgs=1"))
		return 1;
	pw = fork();
	if (pw == 0)
		_exit(winner_reopens());
	if (waitpid(pw, &st, 0) != pw || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("FAIL: the winner's reopened TSG did not become eligible in its segment\n");
		system("rmmod gcaps_simgpu; rmmod gcaps");
		return 1;
	}
	if (system("rmmod gcaps_simgpu") || system("rmmod gcaps"))
		return 1;
	printf("ok: the winner's reopened TSG ran inside its segment\n");
	return 0;
}
