// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulated GPU's own ioctl interface (module/simgpu/gcaps_simgpu.h): every misuse returns
 * its errno and changes nothing; polling and timeouts; the per-TSG item limit; a held engine
 * runs nothing until released; test knobs need CAP_SYS_ADMIN. vmtest-timeout=60
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../module/simgpu/gcaps_simgpu.h"

static int failures;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			printf("FAIL line %d: ", __LINE__);                   \
			printf(__VA_ARGS__);                                  \
			printf(" (errno %d %s)\n", errno, strerror(errno));   \
			failures++;                                           \
		}                                                             \
	} while (0)

/* ioctl that must fail with errno e */
#define EXPECT_ERR(fd, req, arg, e) \
	CHECK(ioctl(fd, req, arg) == -1 && errno == (e), #req " want " #e)

int main(void)
{
	struct simgpu_submit s = { .size = sizeof(s), .exec_ns = 1000000 };
	struct simgpu_wait w = { .size = sizeof(w) };
	struct simgpu_timeslice ts = { .size = sizeof(ts) };
	struct simgpu_tsg_info info = { .size = sizeof(info) };
	struct simgpu_test_exclude x = { .size = sizeof(x) };
	struct simgpu_test_hold hd = { .size = sizeof(hd) };
	struct simgpu_runlist rl = { .size = sizeof(rl) };
	unsigned char big[sizeof(struct simgpu_submit) + 8];
	uint64_t seqs[SIMGPU_MAX_ITEMS], rel;
	struct timespec t;
	int gpu, ctl, i;

	if (system("insmod /modules/gcaps_simgpu.ko"))
		return 1;
	gpu = open("/dev/" SIMGPU_DEVICE_NAME, O_RDWR);
	ctl = open("/dev/" SIMGPU_CTL_DEVICE_NAME, O_RDWR);
	CHECK(gpu >= 0 && ctl >= 0, "open");

	CHECK(ioctl(gpu, SIMGPU_IOC_INFO, &info) == 0, "INFO");
	CHECK(info.num_channels == 2 && info.timeslice_us == 1024, "INFO values");
	CHECK(info.owner_tgid == (uint32_t)getpid(), "INFO owner");

	/* Sizes, flags, values, commands. */
	s.size = SIMGPU_SUBMIT_SIZE_VER0 - 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, &s, EINVAL);
	memset(big, 0, sizeof(big));
	s.size = sizeof(big);
	memcpy(big, &s, sizeof(s));
	big[sizeof(big) - 1] = 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, big, E2BIG);
	s.size = sizeof(s);
	s.flags = 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, &s, EINVAL);
	s.flags = 0;
	s.exec_ns = 0;
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, &s, EINVAL);
	s.exec_ns = SIMGPU_MAX_EXEC_NS + 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, &s, EINVAL);
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, (void *)8, EFAULT);
	EXPECT_ERR(gpu, _IOWR(SIMGPU_IOC_MAGIC, 0x3f, struct simgpu_submit), &s, ENOTTY);
	EXPECT_ERR(gpu, _IOWR(0xC5, 0x01, struct simgpu_submit), &s, ENOTTY);
	EXPECT_ERR(ctl, SIMGPU_IOC_SUBMIT, &s, ENOTTY);	/* no TSG on the control device */
	EXPECT_ERR(gpu, SIMGPU_IOC_TEST_EXCLUDE, &x, ENOTTY);	/* knobs only on ctl */
	ts.timeslice_us = SIMGPU_TIMESLICE_MIN_US - 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_SET_TIMESLICE, &ts, EINVAL);
	ts.timeslice_us = SIMGPU_TIMESLICE_MAX_US + 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_SET_TIMESLICE, &ts, EINVAL);
	w.seqno = 12345;
	EXPECT_ERR(gpu, SIMGPU_IOC_WAIT, &w, ENOENT);
	w.flags = 2;
	EXPECT_ERR(gpu, SIMGPU_IOC_WAIT, &w, EINVAL);
	x.tsgid = 100000;
	EXPECT_ERR(ctl, SIMGPU_IOC_TEST_EXCLUDE, &x, EINVAL);
	hd.hold = 2;
	EXPECT_ERR(ctl, SIMGPU_IOC_TEST_HOLD, &hd, EINVAL);
	EXPECT_ERR(gpu, SIMGPU_IOC_TEST_HOLD, &hd, ENOTTY);
	/* Nothing was queued by the failed calls: the first real item is number 1. */
	s.exec_ns = 50000000;
	CHECK(ioctl(gpu, SIMGPU_IOC_SUBMIT, &s) == 0 && s.seqno == 1, "first seqno");

	/* Polling, timeout, collection. */
	w.flags = SIMGPU_WAIT_POLL;
	w.seqno = 1;
	EXPECT_ERR(gpu, SIMGPU_IOC_WAIT, &w, EAGAIN);
	w.flags = 0;
	w.timeout_ns = 1000000;
	EXPECT_ERR(gpu, SIMGPU_IOC_WAIT, &w, ETIMEDOUT);
	w.timeout_ns = 0;
	CHECK(ioctl(gpu, SIMGPU_IOC_WAIT, &w) == 0, "blocking wait");
	CHECK(w.done.seqno == 1 && w.done.end_ns - w.done.start_ns == 50000000 &&
	      w.done.start_ns >= w.done.submit_ns && w.done.preemptions == 0, "completion record");
	EXPECT_ERR(gpu, SIMGPU_IOC_WAIT, &w, ENOENT);	/* collected */

	/* Hold: the queued item does not start until the release, then runs its 1 ms. */
	hd.hold = 1;
	CHECK(ioctl(ctl, SIMGPU_IOC_TEST_HOLD, &hd) == 0, "hold");
	s.exec_ns = 1000000;
	CHECK(ioctl(gpu, SIMGPU_IOC_SUBMIT, &s) == 0, "submit while held");
	w.seqno = s.seqno;
	w.timeout_ns = 20000000;
	EXPECT_ERR(gpu, SIMGPU_IOC_WAIT, &w, ETIMEDOUT);
	hd.hold = 0;
	clock_gettime(CLOCK_MONOTONIC, &t);
	CHECK(ioctl(ctl, SIMGPU_IOC_TEST_HOLD, &hd) == 0, "release");
	w.timeout_ns = 0;
	CHECK(ioctl(gpu, SIMGPU_IOC_WAIT, &w) == 0, "wait after the release");
	rel = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
	CHECK(w.done.start_ns >= rel && w.done.end_ns - w.done.start_ns == 1000000,
	      "held item: started %lld ns after the release call, ran %llu ns",
	      (long long)(w.done.start_ns - rel),
	      (unsigned long long)(w.done.end_ns - w.done.start_ns));

	/* The item limit: SIMGPU_MAX_ITEMS queued or uncollected, then EBUSY. */
	s.exec_ns = 1000;
	for (i = 0; i < SIMGPU_MAX_ITEMS; i++) {
		CHECK(ioctl(gpu, SIMGPU_IOC_SUBMIT, &s) == 0, "submit %d", i);
		seqs[i] = s.seqno;
	}
	EXPECT_ERR(gpu, SIMGPU_IOC_SUBMIT, &s, EBUSY);
	for (i = 0; i < SIMGPU_MAX_ITEMS; i++) {
		w.seqno = seqs[i];
		CHECK(ioctl(gpu, SIMGPU_IOC_WAIT, &w) == 0, "collect %d", i);
	}
	CHECK(ioctl(gpu, SIMGPU_IOC_SUBMIT, &s) == 0, "submit after collecting");

	/* Runlist readable on both devices; knobs need CAP_SYS_ADMIN. */
	CHECK(ioctl(gpu, SIMGPU_IOC_RUNLIST, &rl) == 0 && rl.entries == 3 && rl.num_tsgs == 1,
	      "RUNLIST");
	/*
	 * VER1: the enable bitmap (no gcaps: every open TSG enabled) and gate counters; a VER0
	 * caller (104 bytes) still gets its fields and nothing is written beyond them.
	 */
	{
		uint64_t en[2] = { 0, ~0ull };
		unsigned char old[SIMGPU_RUNLIST_SIZE_VER1] __attribute__((aligned(8)));
		struct simgpu_runlist *o = (struct simgpu_runlist *)old;

		rl.enabled_ptr = (uintptr_t)en;
		rl.enabled_cap = 1;	/* max_tsgs 64: one word; en[1] must stay untouched */
		CHECK(ioctl(ctl, SIMGPU_IOC_RUNLIST, &rl) == 0 && en[0] == 1ull << info.tsgid &&
			      en[1] == ~0ull && !rl.gate && !rl.gates && !rl.gate_preempts &&
			      !rl.preempt_timeouts,
		      "RUNLIST VER1: enabled %#llx %#llx gate %u gates %llu", (unsigned long long)en[0],
		      (unsigned long long)en[1], rl.gate, (unsigned long long)rl.gates);
		memset(old, 0xa5, sizeof(old));
		memset(old, 0, SIMGPU_RUNLIST_SIZE_VER0);
		o->size = SIMGPU_RUNLIST_SIZE_VER0;
		CHECK(ioctl(ctl, SIMGPU_IOC_RUNLIST, old) == 0 && o->entries == 3 &&
			      old[SIMGPU_RUNLIST_SIZE_VER0] == 0xa5 && old[sizeof(old) - 1] == 0xa5,
		      "RUNLIST VER0 caller");
		o->size = SIMGPU_RUNLIST_SIZE_VER0 - 1;
		EXPECT_ERR(ctl, SIMGPU_IOC_RUNLIST, old, EINVAL);
		rl.enabled_ptr = 0;
		rl.enabled_cap = 0;
	}
	x.tsgid = info.tsgid;
	x.exclude = 2;
	EXPECT_ERR(ctl, SIMGPU_IOC_TEST_EXCLUDE, &x, EINVAL);
	pid_t child = fork();

	if (child == 0) {
		if (setuid(65534))
			_exit(2);
		x.exclude = 1;
		if (ioctl(ctl, SIMGPU_IOC_TEST_EXCLUDE, &x) != -1 || errno != EPERM)
			_exit(1);
		if (ioctl(ctl, SIMGPU_IOC_RUNLIST, &rl) || rl.entries != 3)
			_exit(1);	/* still listed after the refused knob */
		_exit(0);
	}
	CHECK(child > 0 && waitpid(child, &i, 0) == child && WIFEXITED(i) && WEXITSTATUS(i) == 0,
	      "test knob without CAP_SYS_ADMIN: want EPERM and no change");
	close(gpu);
	close(ctl);
	CHECK(system("rmmod gcaps_simgpu") == 0, "rmmod");
	if (failures)
		return 1;
	printf("simgpu uapi: ok\n");
	return 0;
}
