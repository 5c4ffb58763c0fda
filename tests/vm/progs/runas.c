// SPDX-License-Identifier: GPL-2.0-only
/* runas UID CMD [ARGS...]: run CMD as user and group UID with no supplementary groups and no
 * capabilities (busybox has no su without a user database). Used by the libgcaps VM tests. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID CMD [ARGS...]\n");
		return 2;
	}
	uid = strtol(argv[1], &end, 10);
	if (*end || uid <= 0 || uid > 65535) {
		fprintf(stderr, "runas: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid)) {
		perror("runas");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
