// SPDX-License-Identifier: GPL-2.0
/*
 * gcaps.ko ioctl semantics, without a GPU backend (vmtest-timeout=240):
 * version, status, list; every misuse returns its specific errno and changes nothing (end
 * without begin, begin twice, bad sizes, bad flags and priorities, unknown commands, another
 * process using the fd (fork child, fd passed over a unix socket), priority escalation without
 * CAP_SYS_NICE, best-effort asking for a GPU priority); the ceiling boost is undone; kill -9
 * inside a segment frees the client; per-user and table limits; rmmod refused while a file is
 * open; STATS read by anyone, reset only with CAP_SYS_ADMIN (EPERM as uid 65534), bad flags
 * and sizes EINVAL; VERSION VER1 (backend runlists and detail; a VER0 caller gets 48 bytes);
 * SET_ALWAYS: bad arguments EINVAL, no such TSG (no backend) ENOENT, EPERM without
 * CAP_SYS_ADMIN, nothing changed. (The begin+end benchmark is 32-gcaps-observe's.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include "../../../uapi/linux/gcaps.h"
#include "../lib/vmtest.h"

#define MAX_PER_USER 8
#define TABLE 128

/* ioctl expecting failure with `err` (0: expecting success). */
#define EXPECT(fd, cmd, arg, err)                                              \
	do {                                                                   \
		int rc_ = ioctl(fd, cmd, arg);                                 \
		int e_ = rc_ < 0 ? errno : 0;                                  \
		CHECK(e_ == (err), "%s: got %s, want %s", #cmd " " #arg,       \
		      e_ ? strerror(e_) : "success",                           \
		      (err) ? strerror(err) : "success");                      \
	} while (0)

/* The mechanism gcaps.ko was loaded with (its parameter; VM_MECHANISM's by default). */
static uint32_t loaded_mechanism(void)
{
	char m[16] = "";
	FILE *f = fopen("/sys/module/gcaps/parameters/mechanism", "r");

	if (f) {
		if (!fgets(m, sizeof(m), f))
			m[0] = '\0';
		fclose(f);
	}
	return strncmp(m, "gate", 4) ? GCAPS_MECH_RELOAD : GCAPS_MECH_GATE;
}

static struct gcaps_status status(int fd)
{
	struct gcaps_status s = { .size = sizeof(s) };

	CHECK(ioctl(fd, GCAPS_IOC_STATUS, &s) == 0, "STATUS: %s", strerror(errno));
	return s;
}

/* Compares what misuse must not change (the client's state and the global decision). */
static void same_status(int fd, const struct gcaps_status *before, const char *what)
{
	struct gcaps_status now = status(fd);

	CHECK(now.self.state == before->self.state && now.generation == before->generation &&
		      now.rt_active == before->rt_active && now.num_clients == before->num_clients &&
		      now.self.gpu_priority == before->self.gpu_priority,
	      "%s changed the state (state %u->%u, gen %llu->%llu, rt %u->%u, clients %u->%u)", what,
	      before->self.state, now.self.state, (unsigned long long)before->generation,
	      (unsigned long long)now.generation, before->rt_active, now.rt_active,
	      before->num_clients, now.num_clients);
}

static int seg_begin(int fd, int prio, struct gcaps_seg_begin *out)
{
	struct gcaps_seg_begin b = { .size = sizeof(b), .gpu_priority = prio };
	int rc = ioctl(fd, GCAPS_IOC_SEG_BEGIN, &b);

	if (out)
		*out = b;
	return rc < 0 ? errno : 0;
}

static int seg_end(int fd)
{
	struct gcaps_seg_end e = { .size = sizeof(e) };

	return ioctl(fd, GCAPS_IOC_SEG_END, &e) < 0 ? errno : 0;
}

static void check_sched(int policy, int prio, const char *what)
{
	struct sched_param sp;
	int p = sched_getscheduler(0);

	sched_getparam(0, &sp);
	CHECK(p == policy && sp.sched_priority == prio,
	      "%s: policy %d prio %d after the call, want %d/%d (ceiling or boost not undone)", what, p,
	      sp.sched_priority, policy, prio);
}

static void drop_cap_sys_nice(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	struct rlimit rl = { 0, 0 };

	if (syscall(SYS_capget, &h, d) != 0)
		exit(1);
	d[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].permitted &= ~(1u << (CAP_SYS_NICE % 32));
	if (syscall(SYS_capset, &h, d) != 0) {
		printf("FAIL: capset: %s\n", strerror(errno));
		exit(1);
	}
	setrlimit(RLIMIT_RTPRIO, &rl);
}

/* STATS: anyone reads; only CAP_SYS_ADMIN resets (a child as uid 65534 has no capability). */
static void test_stats_permission(void)
{
	pid_t c = fork();
	int st;

	if (c == 0) {
		struct gcaps_stats gs = { .size = sizeof(gs) };
		int fd, bad = 0;

		if (setuid(65534))
			_exit(2);
		fd = open_dev();
		bad |= ioctl(fd, GCAPS_IOC_STATS, &gs) != 0;
		bad |= gs.clients_now < 2;
		gs.flags = GCAPS_STATS_RESET;
		bad |= !(ioctl(fd, GCAPS_IOC_STATS, &gs) < 0 && errno == EPERM) << 1;
		gs.flags = 2;
		bad |= !(ioctl(fd, GCAPS_IOC_STATS, &gs) < 0 && errno == EINVAL) << 2;
		gs.flags = 0;
		gs.size = GCAPS_STATS_SIZE_VER0 - 1;
		bad |= !(ioctl(fd, GCAPS_IOC_STATS, &gs) < 0 && errno == EINVAL) << 3;
		_exit(bad);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "STATS as uid 65534 (bits: 1 read failed, 2 reset not EPERM, 4 flags not EINVAL, 8 "
	      "size not EINVAL): status %#x", st);
}

/*
 * SET_ALWAYS without a backend: argument errors are EINVAL (before the permission), every
 * TSG id is unknown (ENOENT), a caller without CAP_SYS_ADMIN gets EPERM; nothing changes.
 */
static void test_set_always(int fd)
{
	struct gcaps_status before = status(fd);
	struct gcaps_set_always a = { .size = sizeof(a), .tsgid = 3, .on = 1 };
	pid_t c;
	int st;

	CHECK(sizeof(a) == GCAPS_SET_ALWAYS_SIZE_VER0, "struct gcaps_set_always: %zu bytes",
	      sizeof(a));
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, ENOENT);
	a.on = 0;
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, ENOENT);
	a.on = 2;
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, EINVAL);
	a.on = 1;
	a.tsgid = GCAPS_MAX_TSGS;
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, EINVAL);
	a.tsgid = 3;
	a.flags = 1;
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, EINVAL);
	a.flags = 0;
	a.reserved = 1;
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, EINVAL);
	a.reserved = 0;
	a.size = GCAPS_SET_ALWAYS_SIZE_VER0 - 1;
	EXPECT(fd, GCAPS_IOC_SET_ALWAYS, &a, EINVAL);
	same_status(fd, &before, "SET_ALWAYS misuse");
	c = fork();
	if (c == 0) {
		struct gcaps_set_always ca = { .size = sizeof(ca), .tsgid = 3, .on = 1 };
		int cfd, bad = 0;

		if (setuid(65534))
			_exit(2);
		cfd = open_dev();
		bad |= !(ioctl(cfd, GCAPS_IOC_SET_ALWAYS, &ca) < 0 && errno == EPERM);
		ca.on = 2;	/* argument errors come first */
		bad |= !(ioctl(cfd, GCAPS_IOC_SET_ALWAYS, &ca) < 0 && errno == EINVAL) << 1;
		_exit(bad);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "SET_ALWAYS as uid 65534 (bits: 1 not EPERM, 2 bad argument not EINVAL): status %#x",
	      st);
	same_status(fd, &before, "SET_ALWAYS without CAP_SYS_ADMIN");
}

static void test_version_status(int fd)
{
	/* backend_flags is out only (it was `reserved`, out 0): the caller's value is overwritten */
	struct gcaps_version v = { .size = sizeof(v), .backend_flags = ~0u };
	struct gcaps_status s;

	EXPECT(fd, GCAPS_IOC_VERSION, &v, 0);
	CHECK(v.abi_version == GCAPS_ABI_VERSION, "abi %u", v.abi_version);
	CHECK(v.module_version != 0, "module_version 0");
	CHECK(v.backend_abi == 0 && v.backend_name[0] == '\0', "backend bound without simgpu: %u '%s'",
	      v.backend_abi, v.backend_name);
	CHECK(v.backend_runlists == 0 && v.backend_detail[0] == '\0' &&
	      v.backend_flags == 0,
	      "VER1 without a backend: runlists %#x flags %#x detail '%.64s'", v.backend_runlists,
	      v.backend_flags, v.backend_detail);
	{
		/* A VER0 caller (48 bytes) gets the VER0 fields and nothing beyond. */
		struct gcaps_version v0;
		unsigned char *tail = (unsigned char *)&v0 + GCAPS_VERSION_SIZE_VER0;

		memset(&v0, 0, sizeof(v0));
		memset(tail, 0xa5, sizeof(v0) - GCAPS_VERSION_SIZE_VER0);
		v0.size = GCAPS_VERSION_SIZE_VER0;
		EXPECT(fd, GCAPS_IOC_VERSION, &v0, 0);
		CHECK(v0.abi_version == GCAPS_ABI_VERSION && v0.module_version == v.module_version,
		      "VER0 version: abi %u module %#x", v0.abi_version, v0.module_version);
		CHECK(tail[0] == 0xa5 && tail[sizeof(v0) - GCAPS_VERSION_SIZE_VER0 - 1] == 0xa5,
		      "a VER0 VERSION wrote past its struct");
	}
	s = status(fd);
	CHECK(s.self.tgid == (unsigned)getpid(), "tgid %u, pid %d", s.self.tgid, getpid());
	CHECK(s.self.state == GCAPS_STATE_IDLE, "state %u", s.self.state);
	CHECK(s.self.cpu_class == GCAPS_CLASS_OTHER, "class %u", s.self.cpu_class);
	CHECK(s.self.client_id != 0, "client id 0");
	CHECK(s.rt_active == 0 && s.num_clients == 1, "rt_active %u clients %u", s.rt_active,
	      s.num_clients);
	CHECK(strncmp(s.self.comm, "30-gcaps-uapi", 13) == 0, "comm '%.16s'", s.self.comm);
	printf("version: abi %u module %#x; client %llu\n", v.abi_version, v.module_version,
	       (unsigned long long)s.self.client_id);
}

static void test_segments_misuse(int fd)
{
	struct gcaps_status before = status(fd);
	struct gcaps_seg_begin b;

	CHECK(seg_end(fd) == ENOENT, "end without begin");
	same_status(fd, &before, "end without begin");
	/* Best-effort segment: running (no RT segment), changes no decision. */
	CHECK(seg_begin(fd, GCAPS_GPU_PRIO_INHERIT, &b) == 0, "BE begin");
	CHECK(b.state == GCAPS_STATE_RUNNING, "BE begin state %u", b.state);
	CHECK(b.generation == before.generation, "BE begin changed the generation");
	before = status(fd);
	CHECK(before.self.state == GCAPS_STATE_RUNNING && before.rt_active == 0, "BE status");
	CHECK(seg_begin(fd, GCAPS_GPU_PRIO_INHERIT, NULL) == EALREADY, "begin twice");
	same_status(fd, &before, "begin twice");
	/* Best-effort asking for a GPU priority. */
	CHECK(seg_end(fd) == 0, "BE end");
	before = status(fd);
	CHECK(seg_begin(fd, 5, &b) == EPERM, "BE with explicit GPU priority");
	CHECK(b.refused == GCAPS_REFUSED_NEEDS_REALTIME && b.cpu_priority == 0,
	      "BE explicit: refused %u, cpu_priority %d", b.refused, b.cpu_priority);
	same_status(fd, &before, "BE with explicit GPU priority");
	{
		/* A VER0 caller gets no refusal fields: the bytes after its struct stay. */
		struct gcaps_seg_begin v0 = { .size = GCAPS_SEG_BEGIN_SIZE_VER0, .gpu_priority = 5,
					      .refused = 0, .cpu_priority = 0 };
		unsigned char *tail = (unsigned char *)&v0 + GCAPS_SEG_BEGIN_SIZE_VER0;

		memset(tail, 0xa5, sizeof(v0) - GCAPS_SEG_BEGIN_SIZE_VER0);
		CHECK(ioctl(fd, GCAPS_IOC_SEG_BEGIN, &v0) < 0 && errno == EPERM, "VER0 BE explicit");
		CHECK(tail[0] == 0xa5 && tail[7] == 0xa5, "a VER0 refusal wrote past its struct");
	}
	/* Granted begins leave the refusal fields zero. */
	CHECK(seg_begin(fd, GCAPS_GPU_PRIO_INHERIT, &b) == 0 && b.refused == 0, "granted begin");
	CHECK(seg_end(fd) == 0, "BE end");
	CHECK(seg_begin(fd, 100, NULL) == EINVAL, "GPU priority 100");
	CHECK(seg_begin(fd, -1, NULL) == EINVAL, "GPU priority -1");
	same_status(fd, &before, "bad GPU priority");
}

static void test_sizes_flags_cmds(int fd)
{
	struct gcaps_status before = status(fd);
	struct {
		struct gcaps_seg_begin b;
		uint64_t tail;
	} big;
	struct gcaps_seg_end e;
	struct gcaps_status s;
	struct gcaps_list l;
	uint32_t sz;

	/* Too small. */
	memset(&big, 0, sizeof(big));
	big.b.size = GCAPS_SEG_BEGIN_SIZE_VER0 - 1;
	EXPECT(fd, GCAPS_IOC_SEG_BEGIN, &big, EINVAL);
	big.b.size = 0;
	EXPECT(fd, GCAPS_IOC_SEG_BEGIN, &big, EINVAL);
	sz = 4;
	EXPECT(fd, GCAPS_IOC_STATUS, &sz, EINVAL);
	/* Larger with a non-zero tail: E2BIG; with a zero tail: fine. */
	big.b.size = sizeof(big);
	big.tail = 1;
	EXPECT(fd, GCAPS_IOC_SEG_BEGIN, &big, E2BIG);
	same_status(fd, &before, "E2BIG begin");
	big.tail = 0;
	EXPECT(fd, GCAPS_IOC_SEG_BEGIN, &big, 0);
	CHECK(big.b.state == GCAPS_STATE_RUNNING, "begin with a larger struct: state %u", big.b.state);
	CHECK(big.tail == 0, "kernel wrote beyond its struct");
	CHECK(seg_end(fd) == 0, "end after larger begin");
	/* Bad flags / reserved fields. */
	memset(&big, 0, sizeof(big));
	big.b.size = sizeof(big.b);
	big.b.flags = 1;
	EXPECT(fd, GCAPS_IOC_SEG_BEGIN, &big.b, EINVAL);
	e = (struct gcaps_seg_end){ .size = sizeof(e), .flags = 0x80000000u };
	EXPECT(fd, GCAPS_IOC_SEG_END, &e, EINVAL);
	s = (struct gcaps_status){ .size = sizeof(s), .flags = 2 };
	EXPECT(fd, GCAPS_IOC_STATUS, &s, EINVAL);
	l = (struct gcaps_list){ .size = sizeof(l), .reserved = 1 };
	EXPECT(fd, GCAPS_IOC_LIST, &l, EINVAL);
	/* Unknown commands. */
	EXPECT(fd, _IOWR(GCAPS_IOC_MAGIC, 0x06, struct gcaps_status), &s, ENOTTY);
	EXPECT(fd, _IOWR(GCAPS_IOC_MAGIC, 0x12, struct gcaps_status), &s, ENOTTY);
	EXPECT(fd, _IOWR('v', 0x01, struct gcaps_status), &s, ENOTTY);
	EXPECT(fd, _IO(GCAPS_IOC_MAGIC, 0xff), 0, ENOTTY);
	/* Unreadable argument. */
	EXPECT(fd, GCAPS_IOC_SEG_BEGIN, (void *)8, EFAULT);
	same_status(fd, &before, "size/flag/command misuse");
}

static void test_rt_and_permissions(int fd)
{
	struct gcaps_status before, s;
	struct gcaps_seg_begin b;
	pid_t pid;
	int st;

	set_fifo(10);
	before = status(fd);
	CHECK(seg_begin(fd, GCAPS_GPU_PRIO_INHERIT, &b) == 0, "RT begin");
	/* its segment runs: the holder boost (default on) runs this thread at SCHED_FIFO 98 */
	check_sched(SCHED_FIFO, 98, "RT begin");
	CHECK(b.state == GCAPS_STATE_RUNNING, "RT begin state %u", b.state);
	CHECK(b.generation == before.generation + 1, "RT begin: generation %llu, before %llu",
	      (unsigned long long)b.generation, (unsigned long long)before.generation);
	s = status(fd);
	CHECK(s.rt_active == 1 && s.self.cpu_class == GCAPS_CLASS_FIFO && s.self.cpu_priority == 10 &&
		      s.self.gpu_priority == 10,
	      "RT status: rt %u class %u cpu %d gpu %d", s.rt_active, s.self.cpu_class,
	      s.self.cpu_priority, s.self.gpu_priority);
	CHECK(s.boost == (GCAPS_BOOST_ON | GCAPS_BOOST_SELF) && s.boost_prio == 98 &&
		      s.update_prio == 99 && s.mechanism == loaded_mechanism(),
	      "RT status: boost %#x boost_prio %d update_prio %d mechanism %u (loaded: %u)",
	      s.boost, s.boost_prio, s.update_prio, s.mechanism, loaded_mechanism());
	CHECK(seg_end(fd) == 0, "RT end");
	check_sched(SCHED_FIFO, 10, "RT end");
	CHECK(status(fd).rt_active == 0, "rt_active after end");
	/* Explicit below and (as root, CAP_SYS_NICE) above the own priority. */
	CHECK(seg_begin(fd, 5, NULL) == 0, "explicit below own");
	CHECK(status(fd).self.gpu_priority == 5, "gpu prio 5");
	CHECK(seg_end(fd) == 0, "end");
	CHECK(seg_begin(fd, 50, NULL) == 0, "explicit above own with CAP_SYS_NICE");
	CHECK(seg_end(fd) == 0, "end");
	/* SCHED_RR is real-time too. */
	{
		struct sched_param sp = { .sched_priority = 20 };

		sched_setscheduler(0, SCHED_RR, &sp);
		CHECK(seg_begin(fd, 0, NULL) == 0, "RR begin");
		s = status(fd);
		CHECK(s.self.cpu_class == GCAPS_CLASS_RR && s.self.gpu_priority == 20, "RR status");
		check_sched(SCHED_FIFO, 98, "RR begin");
		CHECK(seg_end(fd) == 0, "RR end");
		check_sched(SCHED_RR, 20, "RR end");
	}
	set_fifo(10);
	/* Without CAP_SYS_NICE (and RLIMIT_RTPRIO 0): only up to the own priority. */
	pid = fork();
	if (pid == 0) {
		int cfd = open_dev(), bad = 0;
		struct gcaps_status cb;

		failures = 0;
		drop_cap_sys_nice();
		cb = status(cfd);
		struct gcaps_seg_begin rb;

		if (seg_begin(cfd, 50, &rb) != EPERM) {
			printf("FAIL: escalation without CAP_SYS_NICE not refused\n");
			bad = 1;
		} else if (rb.refused != GCAPS_REFUSED_ABOVE_OWN || rb.cpu_priority != 10) {
			printf("FAIL: escalation: refused %u, cpu_priority %d (want %u, 10)\n",
			       rb.refused, rb.cpu_priority, GCAPS_REFUSED_ABOVE_OWN);
			bad = 1;
		}
		same_status(cfd, &cb, "escalation without CAP_SYS_NICE");
		if (seg_begin(cfd, 10, NULL) != 0 || seg_end(cfd) != 0 || seg_begin(cfd, 3, NULL) != 0 ||
		    seg_end(cfd) != 0) {
			printf("FAIL: explicit <= own priority refused without CAP_SYS_NICE\n");
			bad = 1;
		}
		_exit(bad || failures);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "CAP_SYS_NICE child failed");
	set_fifo(0);
}

/* Every command from another process fails with EPERM and changes nothing. */
static int other_process_checks(int fd)
{
	struct gcaps_version v = { .size = sizeof(v) };
	struct gcaps_status s = { .size = sizeof(s) };
	struct gcaps_list l = { .size = sizeof(l) };
	int bad = 0;

	errno = 0;
	bad |= !(ioctl(fd, GCAPS_IOC_STATUS, &s) < 0 && errno == EPERM);
	bad |= !(ioctl(fd, GCAPS_IOC_VERSION, &v) < 0 && errno == EPERM);
	bad |= !(ioctl(fd, GCAPS_IOC_LIST, &l) < 0 && errno == EPERM);
	struct gcaps_seg_begin b;

	bad |= seg_begin(fd, 0, &b) != EPERM;
	bad |= b.refused != GCAPS_REFUSED_NOT_OWNER;
	bad |= seg_end(fd) != EPERM;
	bad |= !(ioctl(fd, _IO(GCAPS_IOC_MAGIC, 0x7f), 0) < 0 && errno == EPERM);
	return bad;
}

/* The receiver: gets an fd opened by its parent after the fork, runs the checks. */
static void pass_fd_over_socket(int sv[2])
{
	struct gcaps_status b2;
	int st, pfd;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		char c;
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec io = { .iov_base = &c, .iov_len = 1 };
		struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		int rfd;

		close(sv[0]);
		if (recvmsg(sv[1], &m, 0) != 1)
			_exit(2);
		cm = CMSG_FIRSTHDR(&m);
		if (!cm || cm->cmsg_type != SCM_RIGHTS)
			_exit(3);
		memcpy(&rfd, CMSG_DATA(cm), sizeof(int));
		_exit(other_process_checks(rfd));
	}
	close(sv[1]);
	pfd = open_dev();
	b2 = status(pfd);
	{
		char c = 'x';
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec io = { .iov_base = &c, .iov_len = 1 };
		struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pfd, sizeof(int));
		CHECK(sendmsg(sv[0], &m, 0) == 1, "sendmsg");
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "receiver of the fd over a unix socket was not refused (status %#x)", st);
	same_status(pfd, &b2, "ioctls of the fd's receiver");
	close(pfd);
	close(sv[0]);
	printf("fd passed over a unix socket: EPERM\n");
}

static void pass_fd_with_pidfd_getfd(void)
{
	struct gcaps_status b2;
	int p[2], st, pfd;
	pid_t pid;

	CHECK(pipe(p) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		int num, pidfd, rfd;

		if (read(p[0], &num, sizeof(num)) != sizeof(num))
			_exit(2);
		pidfd = syscall(SYS_pidfd_open, getppid(), 0);
		if (pidfd < 0)
			_exit(3);
		rfd = syscall(SYS_pidfd_getfd, pidfd, num, 0);
		if (rfd < 0)
			_exit(4);
		_exit(other_process_checks(rfd));
	}
	pfd = open_dev();
	b2 = status(pfd);
	CHECK(write(p[1], &pfd, sizeof(pfd)) == sizeof(pfd), "pipe write");
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "receiver of the fd (pidfd_getfd) was not refused (status %#x)", st);
	same_status(pfd, &b2, "ioctls of the fd's receiver");
	close(pfd);
	close(p[0]);
	close(p[1]);
	printf("fd taken with pidfd_getfd (no CONFIG_UNIX): EPERM\n");
}

static void test_other_process(int fd)
{
	struct gcaps_status before;
	int sv[2], st;
	pid_t pid;

	CHECK(seg_begin(fd, 0, NULL) == 0, "begin before fork");
	before = status(fd);
	/* Inherited by fork. */
	pid = fork();
	if (pid == 0)
		_exit(other_process_checks(fd));
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "forked child was not refused with EPERM");
	same_status(fd, &before, "ioctls of a forked child");
	/*
	 * Passed to a process that did not inherit it: over a unix socket (SCM_RIGHTS) if the
	 * kernel has CONFIG_UNIX, else taken with pidfd_getfd() (the test kernels have no
	 * networking). The receiver is forked before the file is opened.
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0)
		pass_fd_over_socket(sv);
	else
		pass_fd_with_pidfd_getfd();
	CHECK(seg_end(fd) == 0, "end after the other-process checks");
}

static unsigned int list_clients(int fd, struct gcaps_client_info *ci, unsigned int cap,
				 unsigned int *rt_active)
{
	struct gcaps_list l = { .size = sizeof(l), .clients_ptr = (uintptr_t)ci, .clients_cap = cap };

	CHECK(ioctl(fd, GCAPS_IOC_LIST, &l) == 0, "LIST: %s", strerror(errno));
	if (rt_active)
		*rt_active = l.rt_active;
	return l.clients_count;
}

static void test_list(int fd)
{
	struct gcaps_client_info ci[4];
	struct gcaps_list l = { .size = sizeof(l) };
	unsigned int n;

	/* Counts with no arrays. */
	EXPECT(fd, GCAPS_IOC_LIST, &l, 0);
	CHECK(l.clients_count == 1 && l.tsgs_count == 0, "LIST counts %u %u", l.clients_count,
	      l.tsgs_count);
	n = list_clients(fd, ci, 4, NULL);
	CHECK(n == 1 && ci[0].tgid == (unsigned)getpid(), "LIST self: n %u tgid %u", n, ci[0].tgid);
	/* Unwritable array. */
	l = (struct gcaps_list){ .size = sizeof(l), .clients_ptr = 8, .clients_cap = 1 };
	EXPECT(fd, GCAPS_IOC_LIST, &l, EFAULT);
}

/* kill -9 of a task inside a real-time segment ends the segment and removes its client. */
static void test_kill9(int fd)
{
	struct gcaps_client_info ci[4];
	unsigned int rt, n, i;
	int p[2], st;
	pid_t pid;
	char c;

	CHECK(pipe(p) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		int cfd = open_dev();

		set_fifo(30);
		if (seg_begin(cfd, 0, NULL) != 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(read(p[0], &c, 1) == 1, "child did not begin");
	n = list_clients(fd, ci, 4, &rt);
	CHECK(n == 2 && rt == 1, "before kill: %u clients, rt_active %u", n, rt);
	for (i = 0; i < n && i < 4; i++)
		if (ci[i].tgid == (unsigned)pid)
			CHECK(ci[i].state == GCAPS_STATE_RUNNING && ci[i].cpu_priority == 30,
			      "child: state %u prio %d", ci[i].state, ci[i].cpu_priority);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	n = list_clients(fd, ci, 4, &rt);
	CHECK(n == 1 && rt == 0 && ci[0].tgid == (unsigned)getpid(),
	      "after kill -9: %u clients, rt_active %u", n, rt);
	/* And our own segment is free to begin. */
	CHECK(seg_begin(fd, 0, NULL) == 0 && seg_end(fd) == 0, "begin after kill");
	close(p[0]);
	close(p[1]);
}

/* Per-user limit (EMFILE) and table limit (ENOSPC); nothing is left behind. */
static void test_limits(int fd)
{
	int fds[MAX_PER_USER], i, n, st, users, p[2];
	pid_t pids[TABLE / MAX_PER_USER + 1];
	struct gcaps_status s;
	char c;

	/* This process (uid 0) holds fd already: MAX_PER_USER - 1 more. */
	for (i = 0; i < MAX_PER_USER - 1; i++) {
		fds[i] = open(GCAPS_DEV, O_RDWR);
		CHECK(fds[i] >= 0, "open %d: %s", i, strerror(errno));
	}
	errno = 0;
	CHECK(open(GCAPS_DEV, O_RDWR) < 0 && errno == EMFILE, "open beyond the per-user limit: %s",
	      strerror(errno));
	s = status(fd);
	CHECK(s.num_clients == MAX_PER_USER, "%u clients", s.num_clients);
	/* Other users fill the table: each child (its own uid) opens MAX_PER_USER files. */
	users = TABLE / MAX_PER_USER - 1;
	CHECK(pipe(p) == 0, "pipe");
	for (n = 0; n < users; n++) {
		pids[n] = fork();
		if (pids[n] == 0) {
			int k;

			if (setresuid(1000 + n, 1000 + n, 1000 + n) != 0)
				_exit(2);
			for (k = 0; k < MAX_PER_USER; k++)
				if (open(GCAPS_DEV, O_RDWR) < 0)
					_exit(3);
			if (write(p[1], "x", 1) != 1)
				_exit(4);
			pause();
			_exit(0);
		}
		CHECK(read(p[0], &c, 1) == 1, "user %d did not open its files", n);
	}
	CHECK(status(fd).num_clients == TABLE, "table not full: %u", status(fd).num_clients);
	pids[users] = fork();
	if (pids[users] == 0) {
		if (setresuid(2000, 2000, 2000) != 0)
			_exit(2);
		_exit(open(GCAPS_DEV, O_RDWR) < 0 && errno == ENOSPC ? 0 : 1);
	}
	waitpid(pids[users], &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "open with a full table is not ENOSPC (%#x)",
	      st);
	for (n = 0; n < users; n++) {
		kill(pids[n], SIGKILL);
		waitpid(pids[n], &st, 0);
	}
	for (i = 0; i < MAX_PER_USER - 1; i++)
		close(fds[i]);
	CHECK(status(fd).num_clients == 1, "clients left behind: %u", status(fd).num_clients);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	sh("insmod /modules/gcaps.ko max_clients_per_user=8");
	fd = open_dev();
	test_version_status(fd);
	test_stats_permission();
	test_segments_misuse(fd);
	test_sizes_flags_cmds(fd);
	test_set_always(fd);
	test_rt_and_permissions(fd);
	test_other_process(fd);
	test_list(fd);
	test_kill9(fd);
	test_limits(fd);
	/* rmmod is refused while a file is open, and fine after close. */
	CHECK(system("rmmod gcaps 2>/dev/null") != 0, "rmmod succeeded with a client open");
	CHECK(status(fd).num_clients == 1, "client gone after a refused rmmod");
	close(fd);
	sh("rmmod gcaps");
	CHECK(access(GCAPS_DEV, F_OK) != 0, "%s still exists after rmmod", GCAPS_DEV);
	/* Reload works (lock classes, misc device, exported symbol re-registered). */
	sh("insmod /modules/gcaps.ko");
	fd = open_dev();
	CHECK(status(fd).num_clients == 1, "fresh module has stale clients");
	close(fd);
	sh("rmmod gcaps");
	if (failures) {
		printf("gcaps uapi: %d failure(s)\n", failures);
		return 1;
	}
	printf("gcaps uapi: ok\n");
	return 0;
}
