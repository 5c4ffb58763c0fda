// SPDX-License-Identifier: GPL-2.0
/*
 * Static userspace client for the fixture module (test-only).
 *   vmfixture_ctl query N   ioctl QUERY with input N; checks output, pid; prints calls
 *   vmfixture_ctl badcmd    an unknown ioctl must fail with ENOTTY
 *   vmfixture_ctl knob K    self-test knob: warn | lockdep | kasan | ubsan | list |
 *                           hung | leak | panic; prints rc/errno
 * Exit status 0 on success, 1 on any mismatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../modules/vmfixture.h"

static int usage(void)
{
	fprintf(stderr, "usage: vmfixture_ctl query N | badcmd | "
		"knob warn|lockdep|kasan|ubsan|list|hung|leak|panic\n");
	return 2;
}

int main(int argc, char **argv)
{
	int fd, rc;

	if (argc < 2)
		return usage();
	fd = open(VMFIXTURE_DEVICE, O_RDWR);
	if (fd < 0) {
		printf("vmfixture_ctl: open %s: %s\n", VMFIXTURE_DEVICE, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "query") && argc == 3) {
		struct vmfixture_msg m;

		memset(&m, 0, sizeof(m));
		m.input = strtoull(argv[2], NULL, 0);
		if (ioctl(fd, VMFIXTURE_IOC_QUERY, &m) < 0) {
			printf("vmfixture_ctl: QUERY: %s\n", strerror(errno));
			return 1;
		}
		printf("vmfixture_ctl: input=%llu output=%llu calls=%llu pid=%d getpid=%d\n",
		       (unsigned long long)m.input, (unsigned long long)m.output,
		       (unsigned long long)m.calls, m.pid, getpid());
		return (m.output == m.input * 2 + 1 && m.pid == getpid() && m.calls > 0) ? 0 : 1;
	}
	if (!strcmp(argv[1], "badcmd")) {
		rc = ioctl(fd, _IO(VMFIXTURE_IOC_MAGIC, 99), 0);
		printf("vmfixture_ctl: unknown ioctl rc=%d errno=%s\n", rc, strerror(errno));
		return (rc < 0 && errno == ENOTTY) ? 0 : 1;
	}
	if (!strcmp(argv[1], "knob") && argc == 3) {
		unsigned long k;

		if (!strcmp(argv[2], "warn"))
			k = VMFIXTURE_KNOB_WARN;
		else if (!strcmp(argv[2], "lockdep"))
			k = VMFIXTURE_KNOB_LOCKDEP;
		else if (!strcmp(argv[2], "kasan"))
			k = VMFIXTURE_KNOB_KASAN;
		else if (!strcmp(argv[2], "ubsan"))
			k = VMFIXTURE_KNOB_UBSAN;
		else if (!strcmp(argv[2], "list"))
			k = VMFIXTURE_KNOB_LIST;
		else if (!strcmp(argv[2], "hung"))
			k = VMFIXTURE_KNOB_HUNG;
		else if (!strcmp(argv[2], "leak"))
			k = VMFIXTURE_KNOB_LEAK;
		else if (!strcmp(argv[2], "panic"))
			k = VMFIXTURE_KNOB_PANIC;
		else
			return usage();
		rc = ioctl(fd, VMFIXTURE_IOC_KNOB, k);
		printf("vmfixture_ctl: knob %s rc=%d errno=%s\n", argv[2], rc,
		       rc < 0 ? strerror(errno) : "0");
		return rc < 0 ? 1 : 0;
	}
	return usage();
}
