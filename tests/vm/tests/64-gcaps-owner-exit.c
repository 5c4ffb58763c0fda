// SPDX-License-Identifier: GPL-2.0
/*
 * A dead process never holds or blocks the GPU (issue 17, point 1). vmtest-timeout=120
 *
 * The owner P of a /dev/gcaps file opens a SCHED_FIFO 50 segment and is killed with SIGKILL
 * while another process still holds the file: a child forked after the open (with and without
 * O_CLOEXEC: fork without exec keeps both), or a process that took the fd with pidfd_getfd().
 * Before the fix the segment stayed RUNNING until that holder exited (the end came only with
 * the file's last reference). Now it ends when P's thread group has exited:
 *   - through gcaps's work item (nothing else happens: LIST polled until the client is gone;
 *     the deadline only bounds a failure),
 *   - or at the latest by the next real-time update (a FIFO 10 begin right after waitpid()
 *     reaped P must be RUNNING: the kernel woke gcaps before P became reapable);
 * the holder's calls on the file are EPERM, the client never comes back while the holder lives
 * on for seconds, the CLOSE event says ENDED, STATS counts it once in ends_by_close (and stays
 * balanced), and the holder's exit later (a release with a stale client) leaves the client
 * that reused the slot alone.
 * A multi-threaded owner: the leader thread exits early while the thread that began the
 * segment lives on; the segment stays RUNNING (the group is alive) until that thread exits.
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define CAP 128
#define DEADLINE_S 20.0	/* only bounds a failure: the checks wait for events */

static const char *volatile phase = "start";
static struct gcaps_client_info ci[CAP];

static int begin(int fd, int prio)
{
	struct gcaps_seg_begin b = { .size = sizeof(b), .gpu_priority = prio };

	return ioctl(fd, GCAPS_IOC_SEG_BEGIN, &b) < 0 ? -errno : (int)b.state;
}

static int end(int fd)
{
	struct gcaps_seg_end e = { .size = sizeof(e) };

	return ioctl(fd, GCAPS_IOC_SEG_END, &e) < 0 ? -errno : 0;
}

static struct gcaps_list list(int fd)
{
	struct gcaps_list l = { .size = sizeof(l), .clients_ptr = (uintptr_t)ci, .clients_cap = CAP };

	if (ioctl(fd, GCAPS_IOC_LIST, &l))
		printf("FAIL: LIST: %s\n", strerror(errno)), exit(1);
	return l;
}

/* The client of process `tgid` in the last list(), or NULL. */
static const struct gcaps_client_info *client_of(const struct gcaps_list *l, pid_t tgid)
{
	for (unsigned int i = 0; i < l->clients_count && i < CAP; i++)
		if (ci[i].tgid == (uint32_t)tgid)
			return &ci[i];
	return NULL;
}

static struct gcaps_stats stats(int fd)
{
	struct gcaps_stats s = { .size = sizeof(s) };

	if (ioctl(fd, GCAPS_IOC_STATS, &s))
		printf("FAIL: STATS: %s\n", strerror(errno)), exit(1);
	return s;
}

static int balanced(const struct gcaps_stats *s)
{
	return s->open_at_reset + s->begins == s->ends + s->ends_by_close + s->segments_open;
}

/* Sequence number the next trace event gets. */
static uint64_t trace_head(int fd)
{
	struct gcaps_trace_read r = { .size = sizeof(r), .event_size = sizeof(struct gcaps_trace_event),
				      .from_seq = ~0ull };

	if (ioctl(fd, GCAPS_IOC_TRACE_READ, &r))
		printf("FAIL: TRACE_READ: %s\n", strerror(errno)), exit(1);
	return r.next_seq;
}

/* CLOSE events of client `id` from `from` on; *ended: how many had ENDED. */
static int closes(int fd, uint64_t from, uint64_t id, int *ended)
{
	static struct gcaps_trace_event ev[256];
	struct gcaps_trace_read r = { .size = sizeof(r), .events_ptr = (uintptr_t)ev,
				      .events_cap = 256, .event_size = sizeof(ev[0]), .from_seq = from };
	int n = 0;

	*ended = 0;
	if (ioctl(fd, GCAPS_IOC_TRACE_READ, &r))
		printf("FAIL: TRACE_READ: %s\n", strerror(errno)), exit(1);
	for (unsigned int i = 0; i < r.events_count; i++)
		if (ev[i].kind == GCAPS_TRACE_CLOSE && ev[i].client_id == id) {
			n++;
			*ended += !!(ev[i].flags & GCAPS_TRACE_F_ENDED);
		}
	return n;
}

static void put(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		printf("FAIL: pipe write: %s\n", strerror(errno)), exit(1);
}

static char get(int fd)
{
	char c = 0;

	if (read(fd, &c, 1) != 1)
		return 0;
	return c;
}

/*
 * The holder of a file whose owner dies: sends its pid on `ans`, then waits for commands on
 * `cmd`: 'c' checks that every call on `gfd` is EPERM and answers '1' (all EPERM) or '0' on
 * `ans`; 'q' (or EOF) exits.
 */
static void holder(int gfd, int cmd, int ans)
{
	pid_t me = getpid();

	if (write(ans, &me, sizeof(me)) != sizeof(me))
		_exit(5);
	for (;;) {
		char c = get(cmd);

		if (c == 'c') {
			struct gcaps_status s = { .size = sizeof(s) };
			struct gcaps_list l = { .size = sizeof(l) };
			int ok = ioctl(gfd, GCAPS_IOC_STATUS, &s) < 0 && errno == EPERM;

			ok &= end(gfd) == -EPERM && begin(gfd, 0) == -EPERM;
			ok &= ioctl(gfd, GCAPS_IOC_LIST, &l) < 0 && errno == EPERM;
			put(ans, ok ? '1' : '0');
		} else {
			_exit(0);
		}
	}
}

/* The owner: opens the device (oflags), maybe forks the holder, begins at FIFO 50, reports. */
struct owner_pipes {
	int ready[2];	/* owner -> test: state byte after the begin, then the fd number */
	int cmd[2];	/* test -> holder */
	int ans[2];	/* holder -> test */
};

static pid_t spawn_owner(struct owner_pipes *p, int oflags, int fork_holder)
{
	pid_t o = fork();

	if (o == 0) {
		int gfd = open(GCAPS_DEV, O_RDWR | oflags);
		int st;

		if (gfd < 0)
			_exit(3);
		if (fork_holder && fork() == 0)
			holder(gfd, p->cmd[0], p->ans[1]);
		set_fifo(50);
		st = begin(gfd, 0);
		put(p->ready[1], st == GCAPS_STATE_RUNNING ? 'R' : 'x');
		put(p->ready[1], (char)gfd);
		for (;;)
			pause();
	}
	return o;
}

/*
 * After the owner (tgid `o`, client `id`) was killed and reaped: the exit is applied by the
 * work item (`via_rt` 0: LIST polled) or by the next real-time update (`via_rt` 1: a FIFO 10
 * begin of `fd` must run at once). Then the holder's calls are EPERM, the client stays gone
 * while the holder lives on, the counters and the trace say it ended once, and the holder's
 * exit leaves the slot's next client alone.
 */
static void after_owner_death(const char *what, int fd, pid_t o, uint64_t id, uint64_t head,
			      const struct gcaps_stats *before, struct owner_pipes *p, pid_t h,
			      int via_rt)
{
	struct gcaps_list l;
	struct gcaps_stats s;
	int st, n, ended, fd2;
	double t0 = now();

	if (via_rt) {
		phase = "real-time begin after the owner died";
		set_fifo(10);
		st = begin(fd, 0);
		CHECK(st == GCAPS_STATE_RUNNING,
		      "%s: a FIFO 10 begin after the FIFO 50 owner was reaped is %d, want RUNNING "
		      "(the dead process still holds the GPU)", what, st);
		CHECK(end(fd) == 0, "%s: end", what);
		set_fifo(0);
		l = list(fd);
		CHECK(!client_of(&l, o), "%s: the dead owner's client is still listed", what);
	} else {
		phase = "waiting for the work item to remove the dead owner's client";
		do {
			l = list(fd);
			if (!client_of(&l, o))
				break;
			usleep(2000);
		} while (now() - t0 < DEADLINE_S);
		CHECK(!client_of(&l, o) && !l.rt_active,
		      "%s: %.0f s after the owner was reaped its client is still listed (state %u), "
		      "rt_active %u", what, DEADLINE_S, client_of(&l, o) ? client_of(&l, o)->state : 0,
		      l.rt_active);
		printf("%s: client removed %.1f ms after the owner was reaped (work item)\n", what,
		       (now() - t0) * 1e3);
	}

	phase = "the holder's calls";
	put(p->cmd[1], 'c');
	CHECK(get(p->ans[0]) == '1', "%s: a call of the holder on the dead owner's file was not "
	      "EPERM", what);

	phase = "the holder outlives the owner";
	sleep(2);
	l = list(fd);
	CHECK(!client_of(&l, o) && !l.rt_active && l.clients_count == 1,
	      "%s: 2 s later: owner listed %d, rt_active %u, %u clients", what, !!client_of(&l, o),
	      l.rt_active, l.clients_count);
	s = stats(fd);
	CHECK(s.ends_by_close == before->ends_by_close + 1 && s.segments_open == 0 && balanced(&s),
	      "%s: ends_by_close %llu -> %llu, segments_open %llu, balanced %d", what,
	      (unsigned long long)before->ends_by_close, (unsigned long long)s.ends_by_close,
	      (unsigned long long)s.segments_open, balanced(&s));

	/* A new client takes the freed slot; the holder's exit must not remove it. */
	phase = "the holder exits";
	fd2 = open_dev();
	put(p->cmd[1], 'q');
	CHECK(waitpid(h, &st, 0) == h && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "%s: holder status %#x", what, st);
	l = list(fd);
	CHECK(l.clients_count == 2, "%s: %u clients after the holder's exit, want 2 (this test's)",
	      what, l.clients_count);
	{
		struct gcaps_status ss = { .size = sizeof(ss) };

		CHECK(ioctl(fd2, GCAPS_IOC_STATUS, &ss) == 0,
		      "%s: the client in the reused slot is gone after the stale file's release: %s",
		      what, strerror(errno));
	}
	close(fd2);
	n = closes(fd, head, id, &ended);
	CHECK(n == 1 && ended == 1, "%s: %d CLOSE events for the owner (%d ENDED), want 1 ENDED",
	      what, n, ended);
	s = stats(fd);
	CHECK(s.ends_by_close == before->ends_by_close + 1 && balanced(&s),
	      "%s: ends_by_close %llu after the holder's exit", what,
	      (unsigned long long)s.ends_by_close);
}

static void pipes(struct owner_pipes *p)
{
	if (pipe(p->ready) || pipe(p->cmd) || pipe(p->ans))
		printf("FAIL: pipe\n"), exit(1);
}

static void close_pipes(struct owner_pipes *p)
{
	close(p->ready[0]), close(p->ready[1]), close(p->cmd[0]), close(p->cmd[1]);
	close(p->ans[0]), close(p->ans[1]);
}

/* Checks the owner's client is RUNNING at 50 and returns its id. */
static uint64_t owner_running(int fd, pid_t o, const char *what)
{
	struct gcaps_list l = list(fd);
	const struct gcaps_client_info *c = client_of(&l, o);

	CHECK(c && c->state == GCAPS_STATE_RUNNING && c->gpu_priority == 50 && l.rt_active,
	      "%s: owner not RUNNING at 50 before the kill", what);
	return c ? c->client_id : 0;
}

/* The owner forks the holder (it inherits the file), then is killed. */
static void scenario_fork(int fd, int oflags, int via_rt)
{
	const char *what = oflags ? "fork, O_CLOEXEC" : "fork";
	struct owner_pipes p;
	struct gcaps_stats before;
	uint64_t id, head;
	pid_t o, h;
	int st;

	phase = what;
	pipes(&p);
	before = stats(fd);
	head = trace_head(fd);
	o = spawn_owner(&p, oflags, 1);
	CHECK(get(p.ready[0]) == 'R', "%s: the owner's begin did not run", what);
	get(p.ready[0]);
	id = owner_running(fd, o, what);
	kill(o, SIGKILL);
	CHECK(waitpid(o, &st, 0) == o && WIFSIGNALED(st), "%s: owner status %#x", what, st);
	/* The holder was reparented to this process (a child subreaper). */
	CHECK(read(p.ans[0], &h, sizeof(h)) == sizeof(h) && h > 0, "%s: no holder pid", what);
	after_owner_death(what, fd, o, id, head, &before, &p, h, via_rt);
	close_pipes(&p);
}

/* A process that is not the owner's child takes the file with pidfd_getfd(). */
static void scenario_pidfd_getfd(int fd, int via_rt)
{
	const char *what = "pidfd_getfd";
	struct owner_pipes p;
	struct gcaps_stats before;
	uint64_t id, head;
	pid_t o, h;
	int st, ofd;

	phase = what;
	pipes(&p);
	before = stats(fd);
	head = trace_head(fd);
	o = spawn_owner(&p, 0, 0);
	CHECK(get(p.ready[0]) == 'R', "%s: the owner's begin did not run", what);
	ofd = get(p.ready[0]);
	id = owner_running(fd, o, what);
	h = fork();
	if (h == 0) {
		int pfd = syscall(SYS_pidfd_open, o, 0);
		int gfd = pfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pfd, ofd, 0);

		put(p.ans[1], gfd >= 0 ? 'g' : 'n');
		if (gfd < 0)
			_exit(4);
		holder(gfd, p.cmd[0], p.ans[1]);
	}
	CHECK(get(p.ans[0]) == 'g', "%s: pidfd_getfd failed", what);
	CHECK(read(p.ans[0], &st, sizeof(st)) == sizeof(st) && st == h, "%s: holder pid", what);
	kill(o, SIGKILL);
	CHECK(waitpid(o, &st, 0) == o && WIFSIGNALED(st), "%s: owner status %#x", what, st);
	after_owner_death(what, fd, o, id, head, &before, &p, h, via_rt);
	close_pipes(&p);
}

/* Multi-threaded owner: the segment's thread outlives the leader. */
static int mt_gfd, mt_ready, mt_quit;

static void *mt_thread(void *arg)
{
	(void)arg;
	set_fifo(50);
	put(mt_ready, begin(mt_gfd, 0) == GCAPS_STATE_RUNNING ? 'R' : 'x');
	get(mt_quit);
	syscall(SYS_exit, 0);	/* this thread only: the group ends with it */
	return NULL;
}

static char proc_state(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void scenario_threads(int fd)
{
	const char *what = "leader exits first";
	int ready[2], quit[2], st;
	struct gcaps_list l;
	double t0;
	pid_t o;

	phase = what;
	if (pipe(ready) || pipe(quit))
		printf("FAIL: pipe\n"), exit(1);
	o = fork();
	if (o == 0) {
		pthread_t t;

		mt_gfd = open(GCAPS_DEV, O_RDWR);
		mt_ready = ready[1];
		mt_quit = quit[0];
		if (mt_gfd < 0 || pthread_create(&t, NULL, mt_thread, NULL))
			_exit(3);
		syscall(SYS_exit, 0);	/* the leader thread only */
	}
	CHECK(get(ready[0]) == 'R', "%s: the thread's begin did not run", what);
	t0 = now();
	while (proc_state(o) != 'Z' && now() - t0 < DEADLINE_S)
		usleep(1000);
	CHECK(proc_state(o) == 'Z', "%s: the leader did not become a zombie", what);
	/* A real-time update now applies any exit: the group is alive, nothing may end. */
	set_fifo(10);
	st = begin(fd, 0);
	CHECK(st == GCAPS_STATE_PENDING, "%s: FIFO 10 begin is %d while the FIFO 50 thread's "
	      "segment is open, want PENDING", what, st);
	l = list(fd);
	CHECK(client_of(&l, o) && client_of(&l, o)->state == GCAPS_STATE_RUNNING,
	      "%s: the live thread's segment ended with the leader", what);
	put(quit[1], 'q');
	CHECK(waitpid(o, &st, 0) == o && WIFEXITED(st), "%s: owner status %#x", what, st);
	/* Our pending segment must now run: an end of it would be wrong; poll our state. */
	t0 = now();
	do {
		struct gcaps_status s = { .size = sizeof(s) };

		if (ioctl(fd, GCAPS_IOC_STATUS, &s) == 0 && s.self.state == GCAPS_STATE_RUNNING)
			break;
		usleep(2000);
	} while (now() - t0 < DEADLINE_S);
	l = list(fd);
	CHECK(!client_of(&l, o), "%s: the owner's client is listed after its last thread exited",
	      what);
	CHECK(end(fd) == 0, "%s: end", what);
	set_fifo(0);
	close(ready[0]), close(ready[1]), close(quit[0]), close(quit[1]);
}

int main(void)
{
	struct gcaps_list l;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog(100, &phase, NULL);
	sh("insmod /modules/gcaps.ko");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		printf("FAIL: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno)), exit(1);
	fd = open_dev();

	scenario_fork(fd, 0, 0);
	scenario_fork(fd, O_CLOEXEC, 1);
	scenario_pidfd_getfd(fd, 0);
	scenario_threads(fd);

	phase = "end";
	l = (struct gcaps_list){ .size = sizeof(l), .clients_ptr = (uintptr_t)ci, .clients_cap = CAP };
	only_self_left(fd, &l, "owner exit scenarios");
	close(fd);
	sh("rmmod gcaps");
	printf("owner exit: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
