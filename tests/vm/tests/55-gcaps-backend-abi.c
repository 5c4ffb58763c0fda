// SPDX-License-Identifier: GPL-2.0
/*
 * Backend contract ABI 3: gcaps_backend_register() refuses a bad ops table with -EINVAL and
 * one log line naming the problem (the fixture gcaps_badbackend.ko registers at load, so its
 * insmod fails with gcaps's error and nothing is bound), and binds a valid one, which
 * GCAPS_IOC_VERSION then reports (name, detail, runlists, ABI 3; a VER0 caller gets the name
 * only). The mechanism: gcaps refuses a bad mechanism= with one escaped line, a gcaps loaded
 * with mechanism=gate refuses a driver without GATE (-EOPNOTSUPP) and binds one with it, and
 * STATUS reports the mechanism. Every kernel (the fixture is C).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/vmtest.h"

static struct gcaps_version version(int fd)
{
	struct gcaps_version v = { .size = sizeof(v) };

	CHECK(ioctl(fd, GCAPS_IOC_VERSION, &v) == 0, "VERSION: %s", strerror(errno));
	return v;
}

/*
 * Loading the fixture with bad=@what fails, and gcaps logged @text (once per registration:
 * busybox's insmod may try the load twice, finit_module and init_module, so it is counted
 * against the refused registrations, not against 1).
 */
static void refused_as(int fd, const char *what, const char *text, const char *err)
{
	char cmd[512];
	struct gcaps_version v;
	int rc;

	sh("dmesg -c >/dev/null");
	snprintf(cmd, sizeof(cmd),
		 "insmod /modules/gcaps_badbackend.ko bad=%s 2>/tmp/err; rc=$?; cat /tmp/err; "
		 "[ $rc != 0 ] && grep -q '%s' /tmp/err", what, err);
	rc = system(cmd);
	CHECK(rc == 0, "bad=%s: the load did not fail with '%s'", what, err);
	snprintf(cmd, sizeof(cmd),
		 "n=$(dmesg | grep -c 'gcaps: .*%s'); all=$(dmesg | grep -c 'gcaps: '); "
		 "dmesg | grep 'gcaps: '; [ $n -ge 1 ] && [ $n = $all ]", text);
	CHECK(system(cmd) == 0, "bad=%s: gcaps logged no line with '%s', or other lines", what, text);
	v = version(fd);
	CHECK(v.backend_abi == 0 && v.backend_name[0] == '\0', "bad=%s: bound anyway ('%s')", what,
	      v.backend_name);
}

static void refused(int fd, const char *what, const char *text)
{
	refused_as(fd, what, text, "Invalid argument");
}

/* STATUS's mechanism (GCAPS_MECH_*). */
static unsigned int mechanism(int fd)
{
	struct gcaps_status s = { .size = sizeof(s) };

	CHECK(ioctl(fd, GCAPS_IOC_STATUS, &s) == 0, "STATUS: %s", strerror(errno));
	return s.mechanism;
}

int main(void)
{
	struct gcaps_version v, v0;
	unsigned char *tail;
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* A mechanism gcaps does not know: the load fails, the text escaped in one line. */
	sh("dmesg -c >/dev/null");
	CHECK(system("insmod /modules/gcaps.ko 'mechanism=fa\001st' 2>/dev/null") != 0,
	      "mechanism=fa<SOH>st loaded");
	CHECK(system("dmesg | grep -q 'gcaps: mechanism=\"fa\\\\001st\" is neither reload nor gate'") == 0,
	      "no escaped one-line error for mechanism=fa<SOH>st");
	sh("insmod /modules/gcaps.ko mechanism=reload");
	fd = open_dev();
	CHECK(mechanism(fd) == GCAPS_MECH_RELOAD, "STATUS mechanism %u, want reload", mechanism(fd));
	refused(fd, "abi2", "backend contract ABI 2, this gcaps accepts exactly ABI 3");
	refused(fd, "nomech", "backend badbackend: mechanisms 0x0 (RELOAD is required");
	refused(fd, "nogatefn", "backend badbackend: gate() missing but mechanisms has GATE");
	refused(fd, "noresubmit", "backend ops table without resubmit or detach");
	refused(fd, "noname", "backend name missing, empty, longer than 31 characters or not printable");
	refused(fd, "emptyname", "backend name missing, empty");
	refused(fd, "longname", "backend name missing, empty");
	refused(fd, "badname", "backend name missing, empty");
	refused(fd, "nodetail", "backend badbackend: detail missing, longer than 63 characters or not printable");
	refused(fd, "longdetail", "backend badbackend: detail missing");
	refused(fd, "norunlists", "backend badbackend: runlists is 0");

	sh("insmod /modules/gcaps_badbackend.ko bad=none");
	v = version(fd);
	CHECK(v.backend_abi == 3 && !strcmp(v.backend_name, "badbackend") &&
		      !strcmp(v.backend_detail, "test fixture") && v.backend_runlists == 1,
	      "bound: abi %u name '%s' detail '%.64s' runlists %#x", v.backend_abi, v.backend_name,
	      v.backend_detail, v.backend_runlists);
	/* A VER0 caller: the name, nothing written beyond its 48 bytes. */
	memset(&v0, 0xa5, sizeof(v0));
	v0.size = GCAPS_VERSION_SIZE_VER0;
	CHECK(ioctl(fd, GCAPS_IOC_VERSION, &v0) == 0, "VER0 VERSION: %s", strerror(errno));
	tail = (unsigned char *)&v0 + GCAPS_VERSION_SIZE_VER0;
	CHECK(v0.backend_abi == 3 && !strcmp(v0.backend_name, "badbackend") && tail[0] == 0xa5,
	      "VER0: abi %u name '%.32s' tail %#x", v0.backend_abi, v0.backend_name, tail[0]);
	sh("rmmod gcaps_badbackend");
	v = version(fd);
	CHECK(v.backend_abi == 0 && v.backend_name[0] == '\0' && v.backend_detail[0] == '\0' &&
		      v.backend_runlists == 0,
	      "after unregister: abi %u name '%s'", v.backend_abi, v.backend_name);
	close(fd);
	sh("rmmod gcaps");

	/* Under gate: a driver without GATE is refused, one with it binds. */
	sh("insmod /modules/gcaps.ko mechanism=gate");
	fd = open_dev();
	CHECK(mechanism(fd) == GCAPS_MECH_GATE, "STATUS mechanism %u, want gate", mechanism(fd));
	refused_as(fd, "reloadonly", "backend badbackend does not implement mechanism=gate",
		   "Operation not supported");
	sh("insmod /modules/gcaps_badbackend.ko bad=none");
	v = version(fd);
	CHECK(v.backend_abi == 3 && !strcmp(v.backend_name, "badbackend"),
	      "gate: bound abi %u name '%s'", v.backend_abi, v.backend_name);
	sh("rmmod gcaps_badbackend");
	close(fd);
	sh("rmmod gcaps");
	if (failures) {
		printf("backend ABI: %d failure(s)\n", failures);
		return 1;
	}
	printf("backend ABI: ok\n");
	return 0;
}
