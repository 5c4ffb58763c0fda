// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpuclient: a GPU task on the emulated GPU (/dev/gcaps_simgpu), for the VM tests and by hand.
 *
 *   gpuclient [--prio P] [--gpu-prio G] [--cpu N] [--no-gcaps] [--busy|--suspend]
 *             [--work MS] [--split N] [--segments K] [--gap-ms MS] [--delay-ms MS]
 *             [--start-at NS] [--timeslice US] [--hold-ms MS] [--tag NAME] [--report] [--hog]
 *             [--depth N] [--full-fifo FIFO]
 *             [--wait-go] [--go PID] [--end-on-go] [--begin-after FIFO]
 *   gpuclient --bench N [--prio P]   N begin+end round trips without GPU work, and N getppid()
 *                            calls: "BENCH syscall_ns= roundtrip_ns= (means) roundtrip_max_ns="
 *   gpuclient --now          print CLOCK_MONOTONIC in ns
 *   gpuclient --sleep-until NS   sleep until CLOCK_MONOTONIC NS (for test scripts)
 *   gpuclient --kill PID     kill(PID, SIGKILL), then poll /proc/PID/stat until it is a zombie
 *                            (its files are closed): "KILL at=<ns before kill> exited=<ns>"
 *
 * --prio P: SCHED_FIFO priority P (1..99); 0 (default) stays SCHED_OTHER (best-effort).
 * Each segment: GCAPS_IOC_SEG_BEGIN (unless --no-gcaps), --hold-ms of CPU spinning, the work of
 * --work ms submitted as --split pieces (each waited for before the next), GCAPS_IOC_SEG_END;
 * --gap-ms of sleep between segments. --work 0: a segment without GPU work (only --hold-ms);
 * --no-gpu: do not open the GPU at all (a /dev/gcaps client without TSGs; implies --work 0). --busy waits by polling (SIMGPU_WAIT_POLL in a loop),
 * --suspend (default) by blocking. --hog: endless best-effort work (--depth items of --work ms in
 * flight, default 2, at most 32, so the TSG always has work unless the hog gets no CPU while
 * depth - 1 items run), one ITEM line per finished item with --report.
 *
 * Segments that need the hogs' queues full when they begin (a precondition decided by events,
 * not by the CPU share a hog gets): a hog with --full-fifo FIFO writes one byte to FIFO (a
 * named pipe; never blocks, a full pipe drops it) each time all its --depth items are queued
 * and none has finished (the engine's record, not the hog's view: it polls the oldest). A
 * client with --begin-after FIFO, before each segment's begin, discards the bytes already in
 * FIFO and waits for a new one (30 s at most, else it fails): some hog writing to FIFO had
 * --depth items queued after the previous segment ended, the instant before this one begins.
 *
 * Synchronisation on events instead of start times (a "go" is SIGUSR1; the two waiting options
 * block it from the start, so a go that comes early is kept; signals do not queue: one go per
 * wait; a client without them dies of a go):
 *   --wait-go     after the CLIENT line (and --start-at), wait for SIGUSR1, then --delay-ms
 *   --go PID      send SIGUSR1 to PID at the STARTED line (below)
 *   --end-on-go   in each segment, after its work and --hold-ms, wait for SIGUSR1 before SEG_END
 * Start the receiving client first and wait for its CLIENT line before starting the sender.
 *
 * Output (--report), one line per segment, times in CLOCK_MONOTONIC ns:
 *   SEG tag= pid= tsg= k= prio= begin_call= begun= state= gpu_submit= gpu_start= gpu_end= done=
 *       end_call= ended= preempt= work=
 *   (begin_call/begun: around SEG_BEGIN; gpu_submit/gpu_start: when the first piece was
 *   queued/started on the GPU, gpu_end: the last piece's GPU end; done: when the wait returned; end_call/ended: around SEG_END)
 * and a first line "CLIENT tag= pid= tsg= prio= gcaps=0|1". Always (not with --bench), once:
 * when the first segment has begun and its first work item is queued (after the begin and
 * --hold-ms if it has no GPU work; a hog: when all its --depth items are queued) a line
 * "STARTED tag= pid= tsg= begun= state= submit=" (begun, state: of the begin, 0 without gcaps;
 * submit: GPU-side time the item was queued, 0 if none).
 * ITEM lines (--hog --report): "ITEM tag= pid= tsg= seq= submit= gpu_start= gpu_end= preempt=".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../../uapi/linux/gcaps.h"
#include "../../../module/simgpu/gcaps_simgpu.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "gpuclient[%d]: %s: %s\n", getpid(), what, strerror(errno));
	exit(1);
}

static void usage(const char *why)
{
	fprintf(stderr, "gpuclient: %s (see the comment at the top of gpuclient.c)\n", why);
	exit(2);
}

static double num_arg(const char *opt, const char *v)
{
	char *end;
	double d;

	if (!v)
		usage("option needs a value");
	d = strtod(v, &end);
	if (*end || end == v || d < 0) {
		fprintf(stderr, "gpuclient: %s: not a non-negative number: '%s'\n", opt, v);
		exit(2);
	}
	return d;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static int gpu = -1, busy;
static sigset_t go_set;		/* SIGUSR1 */

static uint64_t submit(uint64_t exec_ns, uint64_t *submit_ns)
{
	struct simgpu_submit s = { .size = sizeof(s), .exec_ns = exec_ns };

	if (ioctl(gpu, SIMGPU_IOC_SUBMIT, &s))
		die("SIMGPU_IOC_SUBMIT");
	if (submit_ns)
		*submit_ns = s.submit_ns;
	return s.seqno;
}

static void wait_go(void)
{
	int sig;

	errno = sigwait(&go_set, &sig);
	if (errno)
		die("sigwait(SIGUSR1)");
}

/* The STARTED line, and the go to the next client. */
static void started(const char *tag, uint32_t tsg, uint64_t begun, unsigned int state,
		    uint64_t submit_ns, pid_t go_pid)
{
	printf("STARTED tag=%s pid=%d tsg=%u begun=%llu state=%u submit=%llu\n", tag, getpid(), tsg,
	       (unsigned long long)begun, state, (unsigned long long)submit_ns);
	if (go_pid > 0 && kill(go_pid, SIGUSR1))
		die("kill(--go PID, SIGUSR1)");
}

/* --full-fifo, --begin-after: FIFO opened read-write, so it always has a reader and a writer. */
static int open_fifo(const char *opt, const char *path)
{
	int fd;

	if (!path)
		usage("option needs a FIFO");
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gpuclient[%d]: %s: open '%s': %s\n", getpid(), opt, path,
			strerror(errno));
		exit(1);
	}
	return fd;
}

/* A hog with --full-fifo: all its items are queued and unfinished. */
static void tell_full(int fifo)
{
	char b = 'F';

	if (fifo >= 0 && write(fifo, &b, 1) < 0 && errno != EAGAIN)
		die("write(--full-fifo)");
}

/* --begin-after: discard what is in the FIFO, then wait for a new byte (a hog full now). */
static void wait_full(int fifo)
{
	struct pollfd p = { .fd = fifo, .events = POLLIN };
	char buf[256];
	ssize_t n;
	int r;

	while ((n = read(fifo, buf, sizeof(buf))) > 0)
		;
	if (n < 0 && errno != EAGAIN)
		die("read(--begin-after)");
	for (;;) {
		r = poll(&p, 1, 30000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll(--begin-after)");
		if (r == 0) {
			fprintf(stderr, "gpuclient[%d]: --begin-after: no hog reported a full queue in 30 s\n",
				getpid());
			exit(1);
		}
		n = read(fifo, buf, 1);
		if (n == 1)
			return;
		if (n < 0 && errno != EAGAIN)
			die("read(--begin-after)");
	}
}

/* Collect item @seqno if it has finished: 1, else 0. */
static int poll_item(uint64_t seqno, struct simgpu_completion *c)
{
	struct simgpu_wait w = { .size = sizeof(w), .flags = SIMGPU_WAIT_POLL, .seqno = seqno };

	if (ioctl(gpu, SIMGPU_IOC_WAIT, &w)) {
		if (errno != EAGAIN)
			die("SIMGPU_IOC_WAIT (poll)");
		return 0;
	}
	*c = w.done;
	return 1;
}

static void wait_item(uint64_t seqno, struct simgpu_completion *c)
{
	struct simgpu_wait w = { .size = sizeof(w), .seqno = seqno };

	if (busy) {
		while (!poll_item(seqno, c))
			;
		return;
	}
	while (ioctl(gpu, SIMGPU_IOC_WAIT, &w)) {
		if (errno != EINTR)
			die("SIMGPU_IOC_WAIT");
	}
	*c = w.done;
}

int main(int argc, char **argv)
{
	int prio = 0, gpu_prio = 0, cpu = -1, use_gcaps = 1, split = 1, segments = 1, report = 0;
	int hog = 0, depth = 2, gcaps = -1, bench = 0, use_gpu = 1, wait_go_start = 0, end_on_go = 0;
	int k, i, full_fifo = -1, begin_fifo = -1;
	pid_t go_pid = 0;
	double work_ms = 10, gap_ms = 0, delay_ms = 0, hold_ms = 0;
	unsigned int timeslice = 0;
	uint64_t start_at = 0;
	const char *tag = "-";
	struct simgpu_tsg_info info = { .size = sizeof(info) };

	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--now")) {
			printf("%llu\n", (unsigned long long)now_ns());
			return 0;
		} else if (!strcmp(o, "--kill")) {
			pid_t pid = (pid_t)num_arg(o, v);
			uint64_t t = now_ns();

			char path[64], buf[256], *p;
			FILE *f;

			if (kill(pid, SIGKILL))
				die("kill");
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			for (;;) {
				f = fopen(path, "r");
				if (!f)
					break;
				p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
				fclose(f);
				if (!p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X')
					break;
				usleep(100);
			}
			printf("KILL at=%llu exited=%llu\n", (unsigned long long)t,
			       (unsigned long long)now_ns());
			return 0;
		} else if (!strcmp(o, "--sleep-until")) {
			sleep_until((uint64_t)num_arg(o, v));
			return 0;
		} else if (!strcmp(o, "--prio")) {
			prio = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--gpu-prio")) {
			gpu_prio = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--cpu")) {
			cpu = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--work")) {
			work_ms = num_arg(o, v); i++;
		} else if (!strcmp(o, "--split")) {
			split = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--bench")) {
			bench = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--segments")) {
			segments = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--gap-ms")) {
			gap_ms = num_arg(o, v); i++;
		} else if (!strcmp(o, "--delay-ms")) {
			delay_ms = num_arg(o, v); i++;
		} else if (!strcmp(o, "--hold-ms")) {
			hold_ms = num_arg(o, v); i++;
		} else if (!strcmp(o, "--start-at")) {
			start_at = (uint64_t)num_arg(o, v); i++;
		} else if (!strcmp(o, "--timeslice")) {
			timeslice = (unsigned int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--tag")) {
			if (!v)
				usage("--tag needs a value");
			tag = v; i++;
		} else if (!strcmp(o, "--no-gpu")) {
			use_gpu = 0;
		} else if (!strcmp(o, "--no-gcaps")) {
			use_gcaps = 0;
		} else if (!strcmp(o, "--busy")) {
			busy = 1;
		} else if (!strcmp(o, "--suspend")) {
			busy = 0;
		} else if (!strcmp(o, "--report")) {
			report = 1;
		} else if (!strcmp(o, "--hog")) {
			hog = 1;
		} else if (!strcmp(o, "--depth")) {
			depth = (int)num_arg(o, v); i++;
		} else if (!strcmp(o, "--wait-go")) {
			wait_go_start = 1;
		} else if (!strcmp(o, "--end-on-go")) {
			end_on_go = 1;
		} else if (!strcmp(o, "--full-fifo")) {
			full_fifo = open_fifo(o, v); i++;
		} else if (!strcmp(o, "--begin-after")) {
			begin_fifo = open_fifo(o, v); i++;
		} else if (!strcmp(o, "--go")) {
			go_pid = (pid_t)num_arg(o, v); i++;
		} else {
			fprintf(stderr, "gpuclient: unknown option '%s'\n", o);
			return 2;
		}
	}
	if (split < 1 || segments < 0 || (hog && work_ms <= 0) || depth < 1 || depth > 32)
		usage("--split must be >= 1, a hog's --work > 0 and --depth 1..32");
	if ((full_fifo >= 0 && !hog) || (begin_fifo >= 0 && hog))
		usage("--full-fifo is for a hog, --begin-after for a client with segments");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&go_set);
	sigaddset(&go_set, SIGUSR1);
	if ((wait_go_start || end_on_go) && sigprocmask(SIG_BLOCK, &go_set, NULL))
		die("sigprocmask");

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die("sched_setscheduler(SCHED_FIFO)");
	}
	if (!use_gpu && hog)
		usage("--hog needs the GPU");
	if (!use_gpu)
		work_ms = 0;
	gpu = use_gpu ? open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR | O_CLOEXEC) : -2;
	if (gpu == -1)
		die("open /dev/" SIMGPU_DEVICE_NAME);
	if (use_gcaps) {
		gcaps = open("/dev/" GCAPS_DEVICE_NAME, O_RDWR | O_CLOEXEC);
		if (gcaps < 0)
			die("open /dev/" GCAPS_DEVICE_NAME);
	}
	if (use_gpu && ioctl(gpu, SIMGPU_IOC_INFO, &info))
		die("SIMGPU_IOC_INFO");
	if (timeslice && use_gpu) {
		struct simgpu_timeslice ts = { .size = sizeof(ts), .timeslice_us = timeslice };

		if (ioctl(gpu, SIMGPU_IOC_SET_TIMESLICE, &ts))
			die("SIMGPU_IOC_SET_TIMESLICE");
	}
	printf("CLIENT tag=%s pid=%d tsg=%u prio=%d gcaps=%d\n", tag, getpid(), info.tsgid, prio,
	       use_gcaps);
	if (start_at)
		sleep_until(start_at);
	if (wait_go_start)
		wait_go();
	if (delay_ms > 0)
		sleep_until(now_ns() + (uint64_t)(delay_ms * 1e6));

	if (bench) {
		struct gcaps_seg_begin b = { .size = sizeof(b), .gpu_priority = gpu_prio };
		struct gcaps_seg_end e = { .size = sizeof(e) };
		uint64_t t0, t1, max = 0, sum = 0;

		if (gcaps < 0)
			usage("--bench needs /dev/gcaps");
		t0 = now_ns();
		for (k = 0; k < bench; k++)
			getppid();
		t1 = now_ns();
		for (k = 0; k < bench; k++) {
			uint64_t a = now_ns(), d;

			if (ioctl(gcaps, GCAPS_IOC_SEG_BEGIN, &b))
				die("GCAPS_IOC_SEG_BEGIN");
			if (ioctl(gcaps, GCAPS_IOC_SEG_END, &e))
				die("GCAPS_IOC_SEG_END");
			d = now_ns() - a;
			sum += d;
			max = d > max ? d : max;
		}
		printf("BENCH tag=%s prio=%d n=%d syscall_ns=%llu roundtrip_ns=%llu roundtrip_max_ns=%llu\n",
		       tag, prio, bench, (unsigned long long)((t1 - t0) / bench),
		       (unsigned long long)(sum / bench), (unsigned long long)max);
		return 0;
	}
	if (hog) {
		uint64_t item = (uint64_t)(work_ms * 1e6), q[32], sub;
		struct simgpu_completion c;

		q[0] = submit(item, &sub);
		for (k = 1; k < depth; k++)
			q[k] = submit(item, NULL);
		started(tag, info.tsgid, 0, 0, sub, go_pid);
		for (k = 0;; k = (k + 1) % depth) {	/* q[k]: the oldest item in flight */
			/*
			 * Items finish in order: q[k] unfinished means all depth items are, so
			 * the queue is full (finished but uncollected items are not queued work).
			 */
			if (!poll_item(q[k], &c)) {
				tell_full(full_fifo);
				wait_item(q[k], &c);
			}
			if (report)
				printf("ITEM tag=%s pid=%d tsg=%u seq=%llu submit=%llu gpu_start=%llu gpu_end=%llu preempt=%u\n",
				       tag, getpid(), info.tsgid, (unsigned long long)c.seqno,
				       (unsigned long long)c.submit_ns, (unsigned long long)c.start_ns,
				       (unsigned long long)c.end_ns, c.preemptions);
			q[k] = submit(item, NULL);
		}
	}

	for (k = 0; k < segments; k++) {
		uint64_t t_begin, t_begun, t_done, t_end, t_ended, gsub = 0, gstart = 0, gend = 0, left;
		uint64_t total = (uint64_t)(work_ms * 1e6);
		struct gcaps_seg_begin b = { .size = sizeof(b), .gpu_priority = gpu_prio };
		struct gcaps_seg_end e = { .size = sizeof(e) };
		struct simgpu_completion c;
		unsigned int preempt = 0;

		if (begin_fifo >= 0)
			wait_full(begin_fifo);
		t_begin = now_ns();
		if (gcaps >= 0 && ioctl(gcaps, GCAPS_IOC_SEG_BEGIN, &b))
			die("GCAPS_IOC_SEG_BEGIN");
		t_begun = now_ns();
		if (hold_ms > 0)
			spin_ns((uint64_t)(hold_ms * 1e6));
		if (k == 0 && !total)
			started(tag, info.tsgid, gcaps >= 0 ? t_begun : 0, b.state, 0, go_pid);
		left = total;
		for (i = 0; i < split && total; i++) {
			uint64_t piece = i == split - 1 ? left : total / split, seq, sub;

			left -= piece;
			seq = submit(piece ? piece : 1, &sub);
			if (k == 0 && i == 0)
				started(tag, info.tsgid, gcaps >= 0 ? t_begun : 0, b.state, sub, go_pid);
			wait_item(seq, &c);
			if (i == 0) {
				gsub = c.submit_ns;
				gstart = c.start_ns;
			}
			gend = c.end_ns;
			preempt += c.preemptions;
		}
		t_done = now_ns();
		if (end_on_go)
			wait_go();
		t_end = now_ns();
		if (gcaps >= 0 && ioctl(gcaps, GCAPS_IOC_SEG_END, &e))
			die("GCAPS_IOC_SEG_END");
		t_ended = now_ns();
		if (report)
			printf("SEG tag=%s pid=%d tsg=%u k=%d prio=%d begin_call=%llu begun=%llu state=%u gpu_submit=%llu gpu_start=%llu gpu_end=%llu done=%llu end_call=%llu ended=%llu preempt=%u work=%llu\n",
			       tag, getpid(), info.tsgid, k, prio, (unsigned long long)t_begin,
			       (unsigned long long)t_begun, b.state, (unsigned long long)gsub,
			       (unsigned long long)gstart,
			       (unsigned long long)gend, (unsigned long long)t_done,
			       (unsigned long long)t_end, (unsigned long long)t_ended, preempt,
			       (unsigned long long)total);
		if (gap_ms > 0 && k + 1 < segments)
			sleep_until(now_ns() + (uint64_t)(gap_ms * 1e6));
	}
	return 0;
}
