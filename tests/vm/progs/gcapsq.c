// SPDX-License-Identifier: GPL-2.0
/*
 * gcapsq: a /dev/gcaps client that keeps its file open and answers queries read from stdin,
 * one a line, so that a VM test can ask with a file opened before something else happened:
 *
 *   list    GCAPS_IOC_LIST    prints "LIST n=<clients> pids=<tgid>,<tgid>,..." (sorted)
 *   status  GCAPS_IOC_STATUS  prints "STATUS clients=<num_clients> rt_active=<0|1>"
 *   stats   GCAPS_IOC_STATS   prints "STATS clients=<clients_now> ended_by_close=<n>"
 *
 * It prints "READY pid=<pid>" once the device is open and exits 0 at the end of its input.
 * A failed call prints "ERROR <query> <errno text>" and exits 1. Output is line-buffered.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../../uapi/linux/gcaps.h"

#define CAP 128

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int fail(const char *q)
{
	printf("ERROR %s %s\n", q, strerror(errno));
	return 1;
}

int main(void)
{
	static struct gcaps_client_info info[CAP];
	uint32_t pids[CAP];
	char line[64];
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/gcaps", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("open");
	printf("READY pid=%d\n", getpid());
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, "list")) {
			struct gcaps_list l = {
				.size = sizeof(l),
				.clients_ptr = (uintptr_t)info,
				.clients_cap = CAP,
			};
			uint32_t i, n;

			if (ioctl(fd, GCAPS_IOC_LIST, &l))
				return fail(line);
			n = l.clients_count < CAP ? l.clients_count : CAP;
			for (i = 0; i < n; i++)
				pids[i] = info[i].tgid;
			qsort(pids, n, sizeof(pids[0]), cmp_u32);
			printf("LIST n=%u pids=", l.clients_count);
			for (i = 0; i < n; i++)
				printf("%s%u", i ? "," : "", pids[i]);
			printf("\n");
		} else if (!strcmp(line, "status")) {
			struct gcaps_status s = { .size = sizeof(s) };

			if (ioctl(fd, GCAPS_IOC_STATUS, &s))
				return fail(line);
			printf("STATUS clients=%u rt_active=%u\n", s.num_clients, s.rt_active);
		} else if (!strcmp(line, "stats")) {
			struct gcaps_stats s = { .size = sizeof(s) };

			if (ioctl(fd, GCAPS_IOC_STATS, &s))
				return fail(line);
			printf("STATS clients=%u ended_by_close=%llu\n", s.clients_now,
			       (unsigned long long)s.ends_by_close);
		} else if (line[0]) {
			printf("ERROR %s unknown query\n", line);
			return 1;
		}
	}
	return 0;
}
