// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpuctl: observe and poke the emulated GPU through /dev/gcaps_simgpu_ctl (root).
 *
 *   simgpuctl runlist       the runlist the engine executes, decoded here from the raw words
 *                           (independently of the module): one line per entry
 *                             TSG id= timeout= scale= slice_ns= channels=
 *                             CH chid= runqueue= inst=0x.. inst_ap= userd=0x.. userd_ap=
 *                           after a line "RUNLIST entries= active= bound=". Exit 1 if the
 *                           words break the Volta/Ampere format (reserved bits, lengths).
 *   simgpuctl words         the raw words, one entry (4 words, hex) per line
 *   simgpuctl stats         "STATS submits= takes= ... num_tsgs= bound= gate= gates=
 *                           gate_preempts= preempt_timeouts="
 *   simgpuctl mayrun        "MAYRUN <ids>": the TSGs the GPU may run: listed on the runlist the
 *                           engine executes and with their channels enabled, in runlist order
 *                           ("MAYRUN -" if none; under reload the runlist, under gate the
 *                           eligible TSGs, every open one being listed)
 *   simgpuctl enabled       "ENABLED <ids>": the open TSGs whose channels are enabled, in id
 *                           order ("ENABLED -" if none; under gcaps's mechanism gate the
 *                           eligible ones, otherwise every open TSG)
 *   simgpuctl exclude T     test knob: keep TSG T off every runlist (returns once taken)
 *   simgpuctl include T     undo
 *   simgpuctl internal T    test knob: flag TSG T driver-internal (GCAPS_BE_TSG_ALWAYS to gcaps)
 *   simgpuctl external T    undo
 *   simgpuctl stall MS      test knob: the engine takes no runlist for MS ms (0: ends a stall now)
 *   simgpuctl hold          test knob: the engine runs nothing (work queues up) until
 *   simgpuctl release       release: then it picks at once among the TSGs with work
 *   simgpuctl stock on|off  test knob: the driver's runlists are stock (it tells gcaps with
 *                           calls->stock and lists every TSG), or filtered again
 *
 * Several commands may follow each other in one call (e.g. "stall 150 exclude 3"), and
 * "--at NS" first sleeps until CLOCK_MONOTONIC NS. Each knob prints
 * "CALL cmd=<cmd> call=<ns> ret=<ns>" (the ioctl's duration, without process start-up).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../../module/simgpu/gcaps_simgpu.h"

#define MAX_WORDS (1024 * 9 * 4)

static int fd;

static void die(const char *what)
{
	fprintf(stderr, "simgpuctl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint32_t num(const char *s)
{
	char *end;
	unsigned long v;

	if (!s) {
		fprintf(stderr, "simgpuctl: missing number\n");
		exit(2);
	}
	v = strtoul(s, &end, 0);
	if (*end || end == s || v > 0xffffffffUL) {
		fprintf(stderr, "simgpuctl: not a number: '%s'\n", s);
		exit(2);
	}
	return (uint32_t)v;
}

static struct simgpu_runlist rl = { .size = sizeof(rl) };
static uint32_t words[MAX_WORDS];
static uint64_t enabled[1024 / 64];

static void fetch(void)
{
	rl.words_ptr = (uintptr_t)words;
	rl.words_cap = MAX_WORDS;
	if (ioctl(fd, SIMGPU_IOC_RUNLIST, &rl))
		die("SIMGPU_IOC_RUNLIST");
	if (rl.entries * 4 > MAX_WORDS) {
		fprintf(stderr, "simgpuctl: runlist of %u entries exceeds %u\n", rl.entries,
			MAX_WORDS / 4);
		exit(1);
	}
}

static int bad(uint32_t i, const char *why)
{
	fprintf(stderr, "simgpuctl: entry %u: %s\n", i, why);
	return 1;
}

static int decode(void)
{
	uint32_t i = 0, j;

	printf("RUNLIST entries=%u active=%d bound=%u\n", rl.entries, rl.active_buffer, rl.bound);
	while (i < rl.entries) {
		uint32_t *w = &words[i * 4], n = w[1];
		uint32_t timeout = w[0] >> 24, scale = (w[0] >> 16) & 15;

		if (!(w[0] & 1))
			return bad(i, "channel entry where a TSG entry must be");
		if ((w[0] & 0x00f0fffe) || (w[1] & ~0xffu) || (w[2] & ~0xfffu) || w[3])
			return bad(i, "reserved bits set in a TSG entry");
		if (n < 1 || n > 128 || i + n >= rl.entries)
			return bad(i, "TSG length out of range");
		printf("TSG id=%u timeout=%u scale=%u slice_ns=%llu channels=%u\n", w[2], timeout,
		       scale, ((unsigned long long)timeout << scale) * 1024, n);
		for (j = 1; j <= n; j++) {
			uint32_t *c = &words[(i + j) * 4];
			uint32_t ia = (c[0] >> 4) & 3, ua = (c[0] >> 6) & 3;

			if ((c[0] & 1) || (c[0] & 8))
				return bad(i + j, "not a channel entry");
			if (ia == 1 || ua == 1)
				return bad(i + j, "invalid aperture");
			printf("CH chid=%u runqueue=%u inst=0x%llx inst_ap=%u userd=0x%llx userd_ap=%u\n",
			       c[2] & 0xfff, (c[0] >> 1) & 1,
			       ((unsigned long long)c[3] << 32) | (c[2] & 0xfffff000), ia,
			       ((unsigned long long)c[1] << 32) | (c[0] & 0xffffff00), ua);
		}
		i += 1 + n;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void knob(const char *cmd, unsigned long req, void *arg)
{
	uint64_t t0 = now_ns(), t1;

	if (ioctl(fd, req, arg))
		die(cmd);
	t1 = now_ns();
	printf("CALL cmd=%s call=%llu ret=%llu\n", cmd, (unsigned long long)t0,
	       (unsigned long long)t1);
}

int main(int argc, char **argv)
{
	int a = 1;
	uint32_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/" SIMGPU_CTL_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/" SIMGPU_CTL_DEVICE_NAME);
	if (a + 1 < argc && !strcmp(argv[a], "--at")) {
		unsigned long long t = strtoull(argv[a + 1], NULL, 0);
		struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		a += 2;
	}
	if (a >= argc) {
		fprintf(stderr, "simgpuctl: no command (runlist|words|stats|mayrun|enabled|exclude T|include T|internal T|external T|stall MS|hold|release|stock on|off)\n");
		return 2;
	}
	for (; a < argc; a++) {
		const char *cmd = argv[a];

		if (!strcmp(cmd, "runlist")) {
			fetch();
			if (decode())
				return 1;
		} else if (!strcmp(cmd, "words")) {
			fetch();
			for (i = 0; i < rl.entries; i++)
				printf("%08x %08x %08x %08x\n", words[4 * i], words[4 * i + 1],
				       words[4 * i + 2], words[4 * i + 3]);
		} else if (!strcmp(cmd, "stats")) {
			rl.words_cap = 0;
			if (ioctl(fd, SIMGPU_IOC_RUNLIST, &rl))
				die("SIMGPU_IOC_RUNLIST");
			printf("STATS submits=%llu takes=%llu timeouts=%llu recoveries=%llu random_rebuilds=%llu switches=%llu preemptions=%llu decode_errors=%llu theta_us=%u num_tsgs=%u bound=%u entries=%u gate=%u gates=%llu gate_preempts=%llu preempt_timeouts=%llu\n",
			       (unsigned long long)rl.submits, (unsigned long long)rl.takes,
			       (unsigned long long)rl.timeouts, (unsigned long long)rl.recoveries,
			       (unsigned long long)rl.random_rebuilds, (unsigned long long)rl.switches,
			       (unsigned long long)rl.preemptions, (unsigned long long)rl.decode_errors,
			       rl.theta_us, rl.num_tsgs, rl.bound, rl.entries, rl.gate,
			       (unsigned long long)rl.gates, (unsigned long long)rl.gate_preempts,
			       (unsigned long long)rl.preempt_timeouts);
		} else if (!strcmp(cmd, "mayrun")) {
			int any = 0;

			rl.enabled_ptr = (uintptr_t)enabled;
			rl.enabled_cap = sizeof(enabled) / sizeof(enabled[0]);
			fetch();
			printf("MAYRUN");
			for (i = 0; i < rl.entries; i += 1 + words[4 * i + 1]) {
				uint32_t id = words[4 * i + 2] & 0xfff;

				if (!(words[4 * i] & 1) || !words[4 * i + 1])
					return bad(i, "not a TSG entry");
				if (id < 1024 && enabled[id / 64] >> (id % 64) & 1) {
					printf(" %u", id);
					any = 1;
				}
			}
			printf("%s\n", any ? "" : " -");
		} else if (!strcmp(cmd, "enabled")) {
			int any = 0;

			rl.words_cap = 0;
			rl.enabled_ptr = (uintptr_t)enabled;
			rl.enabled_cap = sizeof(enabled) / sizeof(enabled[0]);
			if (ioctl(fd, SIMGPU_IOC_RUNLIST, &rl))
				die("SIMGPU_IOC_RUNLIST");
			printf("ENABLED");
			for (i = 0; i < 1024; i++)
				if (enabled[i / 64] >> (i % 64) & 1) {
					printf(" %u", i);
					any = 1;
				}
			printf("%s\n", any ? "" : " -");
		} else if (!strcmp(cmd, "exclude") || !strcmp(cmd, "include")) {
			struct simgpu_test_exclude x = {
				.size = sizeof(x), .tsgid = num(argv[a + 1]), .exclude = cmd[0] == 'e',
			};

			a++;
			knob(cmd, SIMGPU_IOC_TEST_EXCLUDE, &x);
		} else if (!strcmp(cmd, "internal") || !strcmp(cmd, "external")) {
			struct simgpu_test_internal x = {
				.size = sizeof(x), .tsgid = num(argv[a + 1]), .internal = cmd[0] == 'i',
			};

			a++;
			knob(cmd, SIMGPU_IOC_TEST_INTERNAL, &x);
		} else if (!strcmp(cmd, "stall")) {
			struct simgpu_test_stall st = { .size = sizeof(st), .stall_ms = num(argv[a + 1]) };

			a++;
			knob(cmd, SIMGPU_IOC_TEST_STALL, &st);
		} else if (!strcmp(cmd, "hold") || !strcmp(cmd, "release")) {
			struct simgpu_test_hold h = { .size = sizeof(h), .hold = cmd[0] == 'h' };

			knob(cmd, SIMGPU_IOC_TEST_HOLD, &h);
		} else if (!strcmp(cmd, "stock")) {
			const char *v = argv[a + 1];
			struct simgpu_test_stock st = { .size = sizeof(st) };

			if (!v || (strcmp(v, "on") && strcmp(v, "off"))) {
				fprintf(stderr, "simgpuctl: stock on|off\n");
				return 2;
			}
			st.stock = !strcmp(v, "on");
			a++;
			knob(cmd, SIMGPU_IOC_TEST_STOCK, &st);
		} else {
			fprintf(stderr, "simgpuctl: unknown command '%s' (runlist|words|stats|mayrun|enabled|exclude T|include T|internal T|external T|stall MS|hold|release|stock on|off)\n",
				cmd);
			return 2;
		}
	}
	return 0;
}
