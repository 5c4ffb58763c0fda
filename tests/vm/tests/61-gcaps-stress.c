// SPDX-License-Identifier: GPL-2.0
/*
 * gcaps.ko under stress (vmtest-timeout=240).
 *
 * gcaps_simgpu loaded with its own random runlist rebuilds (rebuild_interval_ms=3); GPU work
 * from three gpuclients (a best-effort hog without gcaps, a best-effort and a SCHED_FIFO one with
 * gcaps segments); meanwhile PROCS processes, each with a random CPU class (SCHED_OTHER or
 * SCHED_FIFO 1..25, below the FIFO 30 gpuclient, fixed seeds) open /dev/gcaps and run begin/end segments with random GPU
 * priorities (inherit, or explicit 1..99 for the real-time ones), SEGMENTS (5,000, as issue 11
 * asks) each; STRESS_SECONDS bounds the run under a slow TCG host (a note is printed when a
 * survivor stops below SEGMENTS; measured under TCG: all 11 survivors reach 5,000 in 12-35 s). KILLS of them, chosen by
 * seed, are killed with SIGKILL at random times, while LIST shows them inside a segment when
 * possible. Every begin/end must succeed (0) in the survivors.
 *
 * Afterwards (all processes gone, the gcaps GPU clients finished, the hog still running): LIST
 * shows one client (this process), no open segment, rt_active 0, and every TSG eligible.
 *
 * Every wait is bounded and fails with its own message well inside the harness's timeout: the
 * workers must exit within WORKER_GRACE s of the stress bound, the gpuclients within
 * GPUCLIENT_GRACE s of the workers, a killed process within KILL_GRACE s, and LIST must show
 * nothing left (polled) within SETTLE_GRACE s. A process that overruns its wait is named with its
 * state (/proc), LIST's open segments are printed, and it is killed so the rest still runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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

#define PROCS 16
#define SEGMENTS 5000
#define STRESS_SECONDS 40
#define KILLS 5
#define WORKER_GRACE 30		/* s after the stress bound for every worker to exit */
#define GPUCLIENT_GRACE 60	/* s after the workers for the gpuclients to finish */
#define KILL_GRACE 10		/* s for a SIGKILLed process to be reaped */
#define SETTLE_GRACE 10		/* s for LIST to show nothing left */
#define WATCHDOG_S 225		/* below the harness's 240 s: name the phase that hangs */

struct shared {
	volatile long segs[PROCS];
	volatile int failed[PROCS];
	volatile int opened;		/* workers that have their client */
	volatile int go;		/* set once all have: the stress starts */
	volatile double deadline;	/* the stress bound, set before go */
};

static struct shared *sh_mem;
static double test_start;
static const char *volatile phase = "loading the modules";

static void worker(int id)
{
	double deadline;
	uint64_t s = 0xabcdef12345ull * (id + 1);
	int rt = rnd(&s) % 3 != 0, fd, k;
	int cpu = rt ? 1 + rnd(&s) % 25 : 0;
	struct sched_param sp = { .sched_priority = cpu };

	if (rt && sched_setscheduler(0, SCHED_FIFO, &sp)) {
		printf("FAIL worker %d: SCHED_FIFO %d: %s\n", id, cpu, strerror(errno));
		_exit(1);
	}
	fd = open(GCAPS_DEV, O_RDWR);
	if (fd < 0) {
		printf("FAIL worker %d: open: %s\n", id, strerror(errno));
		_exit(1);
	}
	/*
	 * Every worker opens before any starts its segments: an open waits for the update lock at
	 * the opener's own priority (the ceiling is for begin/end), behind every real-time updater,
	 * so a low-priority open among workers already hammering begin/end could wait for seconds
	 * (holding the misc layer's mutex, which the hung-task detector reports on PREEMPT_RT).
	 */
	__sync_fetch_and_add(&sh_mem->opened, 1);
	while (!sh_mem->go)
		usleep(1000);
	deadline = sh_mem->deadline;
	for (k = 0; k < SEGMENTS && now() < deadline; k++) {
		struct gcaps_seg_begin b = { .size = sizeof(b) };
		struct gcaps_seg_end e = { .size = sizeof(e) };
		volatile int spin;

		b.gpu_priority = rt && rnd(&s) % 2 ? 1 + rnd(&s) % 99 : GCAPS_GPU_PRIO_INHERIT;
		if (ioctl(fd, GCAPS_IOC_SEG_BEGIN, &b)) {
			printf("FAIL worker %d (%s %d) segment %d: begin(gpu %d): %s\n", id,
			       rt ? "FIFO" : "OTHER", cpu, k, b.gpu_priority, strerror(errno));
			sh_mem->failed[id] = 1;
			_exit(1);
		}
		for (spin = 0; spin < 2000; spin++)
			;
		if (ioctl(fd, GCAPS_IOC_SEG_END, &e)) {
			printf("FAIL worker %d segment %d: end: %s\n", id, k, strerror(errno));
			sh_mem->failed[id] = 1;
			_exit(1);
		}
		sh_mem->segs[id] = k + 1;
		/*
		 * Real-time workers leave the CPU after every segment, as the tasks of an analysed
		 * set do: best-effort work (a SCHED_OTHER worker's close when it is killed, the
		 * kworker) waits for the update lock behind real-time updaters by design, and
		 * real-time workers that never pause (they used to sleep every 8th segment) kept a
		 * killed best-effort worker in its close for over 10 s on a loaded host (the
		 * hung-task detector's report).
		 */
		if (rt)
			usleep(300);
	}
	_exit(0);
}

/* State of the client of `pid` in LIST (-1: none). */
static int client_state(int fd, pid_t pid)
{
	struct gcaps_client_info ci[64];
	struct gcaps_list l = { .size = sizeof(l), .clients_ptr = (unsigned long)ci,
				.clients_cap = 64 };
	unsigned i;

	if (ioctl(fd, GCAPS_IOC_LIST, &l))
		return -1;
	for (i = 0; i < l.clients_count && i < 64; i++)
		if (ci[i].tgid == (unsigned)pid)
			return ci[i].state;
	return -1;
}

/* Clients inside a segment, as LIST shows them (for the messages of a failed wait). */
static void print_open_segments(int fd)
{
	struct gcaps_client_info ci[64];
	struct gcaps_list l = { .size = sizeof(l), .clients_ptr = (unsigned long)ci,
				.clients_cap = 64 };
	unsigned i, n = 0;

	if (ioctl(fd, GCAPS_IOC_LIST, &l)) {
		printf("  LIST: %s\n", strerror(errno));
		return;
	}
	for (i = 0; i < l.clients_count && i < 64; i++)
		if (ci[i].state != GCAPS_STATE_IDLE) {
			printf("  LIST: client %llu of pid %u (%.16s) %s, class %u prio %d, GPU prio %d, "
			       "%u TSGs\n", (unsigned long long)ci[i].client_id, ci[i].tgid, ci[i].comm,
			       ci[i].state == GCAPS_STATE_RUNNING ? "RUNNING" : "PENDING",
			       ci[i].cpu_class, ci[i].cpu_priority, ci[i].gpu_priority, ci[i].num_tsgs);
			n++;
		}
	printf("  LIST: %u clients, %u inside a segment, rt_active %u\n", l.clients_count, n,
	       l.rt_active);
}

/* "state wchan" of a process from /proc, for the messages of a failed wait. */
static const char *proc_state(pid_t pid)
{
	static char out[128];
	char path[64], buf[512] = "", wchan[64] = "?", *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			strcpy(wchan, "?");
		fclose(f);
	}
	p = strrchr(buf, ')');
	snprintf(out, sizeof(out), "state %c, wchan %s", p && p[1] && p[2] ? p[2] : '?',
		 wchan[0] && strcmp(wchan, "0") ? wchan : "-");
	return out;
}

/*
 * waitpid with a deadline (CLOCK_MONOTONIC s). On time: 0 and the status in *st. Overrun: a
 * FAIL line naming `who` and `what it should have done`, the process's state and LIST's open
 * segments; then the process is killed and reaped (KILL_GRACE s; if even that fails, the test
 * ends here: something is stuck in the kernel) and -1 is returned.
 */
static int wait_bounded(pid_t pid, int *st, double deadline, const char *who, const char *what,
			int fd)
{
	double t0 = now(), t1;
	pid_t r;

	while ((r = waitpid(pid, st, WNOHANG)) == 0 && now() < deadline)
		usleep(10000);
	if (r == pid)
		return 0;
	if (r < 0) {
		printf("FAIL: waitpid(%s, pid %d): %s\n", who, pid, strerror(errno));
		return -1;
	}
	printf("FAIL: %s (pid %d) %s: still running %.1f s into the test, after %.1f s of "
	       "waiting (%s)\n", who, pid, what, now() - test_start, now() - t0, proc_state(pid));
	print_open_segments(fd);
	kill(pid, SIGKILL);
	t1 = now();
	while ((r = waitpid(pid, st, WNOHANG)) == 0 && now() < t1 + KILL_GRACE)
		usleep(10000);
	if (r != pid) {
		printf("FAIL: %s (pid %d) not reaped %d s after SIGKILL (%s): stuck in the kernel; "
		       "giving up\n", who, pid, KILL_GRACE, proc_state(pid));
		exit(1);
	}
	return -1;
}

static pid_t spawn(char *const argv[])
{
	pid_t p = fork();

	if (p == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return p;
}

int main(void)
{
	pid_t pids[PROCS], hog, g1, g2;
	int killed[PROCS] = { 0 };
	uint64_t s = 42;
	int i, n, st, bad = 0, fd, kills = 0, mid = 0, inel = 0;
	long total = 0, minseg = -1;
	double t0, t1, deadline;
	struct gcaps_client_info ci[16];
	struct gcaps_tsg_info ti[16];
	struct gcaps_list l = { .size = sizeof(l) };
	char *hog_argv[] = { "/bin/gpuclient", "--no-gcaps", "--hog", "--work", "2", NULL };
	char *g1_argv[] = { "/bin/gpuclient", "--work", "3", "--segments", "50", "--gap-ms",
			    "20", NULL };
	char *g2_argv[] = { "/bin/gpuclient", "--prio", "30", "--work", "2", "--segments",
			    "100", "--gap-ms", "30", NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_start = now();
	start_watchdog(WATCHDOG_S, &phase, NULL);
	sh_mem = mmap(NULL, sizeof(*sh_mem), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (sh_mem == MAP_FAILED)
		return 1;
	sh("insmod /modules/gcaps.ko max_clients_per_user=64");
	sh("insmod /modules/gcaps_simgpu.ko rebuild_interval_ms=3 rebuild_seed=5");
	fd = open(GCAPS_DEV, O_RDWR);
	if (fd < 0) {
		printf("FAIL: open: %s\n", strerror(errno));
		return 1;
	}
	phase = "starting the GPU clients and the workers";
	hog = spawn(hog_argv);
	g1 = spawn(g1_argv);
	g2 = spawn(g2_argv);
	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i);
	}
	phase = "the workers' opens";
	t0 = now();
	while (sh_mem->opened < PROCS && now() - t0 < WORKER_GRACE)
		usleep(1000);
	if (sh_mem->opened < PROCS) {
		printf("FAIL: only %d of %d workers opened %s within %d s\n", sh_mem->opened, PROCS,
		       GCAPS_DEV, WORKER_GRACE);
		bad++;
	}
	phase = "the stress (workers running, kills)";
	t0 = now();
	deadline = t0 + STRESS_SECONDS;
	sh_mem->deadline = deadline;
	__sync_synchronize();
	sh_mem->go = 1;
	/* Above the workers, so that kills and LIST are on time. */
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 90 }))
		printf("FAIL: SCHED_FIFO 90: %s\n", strerror(errno));
	/* KILLS random workers, 0.1-0.5 s apart from the start, each while inside a segment if
	 * LIST shows it there within 500 polls. */
	while (kills < KILLS) {
		int v = rnd(&s) % PROCS, tries;

		usleep(100000 + rnd(&s) % 400000);
		if (killed[v])
			continue;
		for (tries = 0; tries < 500 && client_state(fd, pids[v]) == GCAPS_STATE_IDLE; tries++)
			;
		if (client_state(fd, pids[v]) > GCAPS_STATE_IDLE)
			mid++;
		kill(pids[v], SIGKILL);
		killed[v] = 1;
		kills++;
	}
	phase = "waiting for the workers";
	for (i = 0; i < PROCS; i++) {
		char who[32];

		snprintf(who, sizeof(who), "worker %d", i);
		if (wait_bounded(pids[i], &st, deadline + WORKER_GRACE, who,
				 killed[i] ? "killed with SIGKILL" :
					     "should have ended at the stress bound", fd))
			bad++;
		else if (killed[i] ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) &&
					     !(WIFEXITED(st) && WEXITSTATUS(st) == 0)
				   : !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			printf("FAIL: worker %d exited with %#x\n", i, st);
			bad++;
		}
		total += sh_mem->segs[i];
		if (!killed[i] && (minseg < 0 || sh_mem->segs[i] < minseg))
			minseg = sh_mem->segs[i];
	}
	printf("stress: %d processes, %ld segments in %.1f s (%.0f/s), fewest in a survivor %ld, "
	       "%d killed with SIGKILL (%d seen inside a segment by LIST just before)\n",
	       PROCS, total, now() - t0, total / (now() - t0), minseg, kills, mid);
	if (minseg < SEGMENTS)
		printf("note: survivors stopped at the %d s bound, below %d segments\n",
		       STRESS_SECONDS, SEGMENTS);
	phase = "waiting for the gpuclients";
	t1 = now() + GPUCLIENT_GRACE;
	if (wait_bounded(g1, &st, t1, "gpuclient (best-effort)", "should have run 50 segments",
			 fd))
		bad++;
	else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("FAIL: gpuclient (best-effort) exited with %#x\n", st);
		bad++;
	}
	if (wait_bounded(g2, &st, t1, "gpuclient (FIFO 30)", "should have run 100 segments", fd))
		bad++;
	else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("FAIL: gpuclient (FIFO 30) exited with %#x\n", st);
		bad++;
	}
	phase = "checking that nothing is left (LIST, STATS)";
	/* Bounded poll: every other client gone, no segment open (releases finished at exit). */
	for (t1 = now();; usleep(10000)) {
		struct gcaps_list q = { .size = sizeof(q) };

		if (ioctl(fd, GCAPS_IOC_LIST, &q) == 0 && q.clients_count == 1 && !q.rt_active &&
		    client_state(fd, getpid()) == GCAPS_STATE_IDLE)
			break;
		if (now() - t1 > SETTLE_GRACE) {
			printf("FAIL: %d s after every process ended, LIST still shows %u clients "
			       "(want 1: this process), rt_active %u\n", SETTLE_GRACE,
			       q.clients_count, q.rt_active);
			print_open_segments(fd);
			bad++;
			break;
		}
	}
	/* The statistics add up: every segment begun ended, by SEG_END or by the kill. */
	{
		struct gcaps_stats gs = { .size = sizeof(gs) };

		if (ioctl(fd, GCAPS_IOC_STATS, &gs)) {
			printf("FAIL: STATS: %s\n", strerror(errno));
			bad++;
		} else {
			printf("stats: begins %llu ends %llu ends_by_close %llu submits %llu (%llu "
			       "failed) clients now %u max %u\n",
			       (unsigned long long)gs.begins, (unsigned long long)gs.ends,
			       (unsigned long long)gs.ends_by_close, (unsigned long long)gs.submits,
			       (unsigned long long)gs.submit_errors, gs.clients_now, gs.clients_max);
			if (gs.begins != gs.ends + gs.ends_by_close || gs.begins < (unsigned long long)total ||
			    gs.clients_now != 1 || gs.clients_max < 2 ||
			    gs.clients_max > PROCS + 3) {	/* workers, the test, 2 gpuclients */
				printf("FAIL: statistics do not add up\n");
				bad++;
			}
			gs.flags = GCAPS_STATS_RESET;
			if (ioctl(fd, GCAPS_IOC_STATS, &gs) || (gs.flags = 0, ioctl(fd, GCAPS_IOC_STATS, &gs)) ||
			    gs.begins || gs.ends || gs.ends_by_close || gs.clients_max != 1) {
				printf("FAIL: STATS reset by root: %s, begins %llu max %u\n",
				       strerror(errno), (unsigned long long)gs.begins, gs.clients_max);
				bad++;
			}
		}
	}
	/* Nothing left behind; the hog's TSG (no gcaps client) is eligible. */
	l.clients_ptr = (unsigned long)ci;
	l.clients_cap = 16;
	l.tsgs_ptr = (unsigned long)ti;
	l.tsgs_cap = 16;
	n = only_self_left(fd, &l, "stress");
	if (n < 0) {
		bad++;
	} else {
		bad += n;
		if (l.tsgs_count < 1) {
			printf("FAIL: no TSG (the hog's) listed\n");
			bad++;
		}
		for (i = 0; i < (int)l.tsgs_count && i < 16; i++)
			if (!(ti[i].flags & GCAPS_TSG_ELIGIBLE)) {
				printf("FAIL: TSG %u (owner %u) not eligible after the stress\n",
				       ti[i].tsgid, ti[i].owner_tgid);
				bad++;
				inel++;
			}
		printf("after: %u clients, %u TSGs, all eligible: %s\n", l.clients_count,
		       l.tsgs_count, inel ? "no" : "yes");
	}
	phase = "ending the hog, unloading the modules";
	kill(hog, SIGKILL);
	if (wait_bounded(hog, &st, now() + KILL_GRACE, "the hog", "killed with SIGKILL", fd))
		bad++;
	close(fd);
	sh("rmmod gcaps_simgpu");
	sh("rmmod gcaps");
	return bad ? 1 : 0;
}
