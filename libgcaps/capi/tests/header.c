/* Compiled as C and as C++ by tests/header.rs, linked against libgcaps.a, run without the
 * module: every function and both arities of the paper's macros. */
#include <gcaps.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			return 1;                                                     \
		}                                                                     \
	} while (0)

int main(void)
{
	int fd = gcaps_open();
	/* No gcaps module on the build machine. */
	CHECK(fd == -ENOENT);
	CHECK(strstr(gcaps_strerror(fd), "modprobe gcaps") != NULL);
	CHECK(gcaps_seg_begin(-1, 0) == -EBADF);
	CHECK(gcaps_seg_begin(0, 100) == -EINVAL);
	CHECK(strstr(gcaps_strerror(-EINVAL), "invalid GPU priority 100") != NULL);
	CHECK(gcapsGpuSegBegin(-1, getpid()) == -EBADF);
	CHECK(gcapsGpuSegBegin(-1, getpid(), 50) == -EBADF);
	CHECK(gcapsGpuSegEnd(-1, getpid()) == -EBADF);
	CHECK(gcapsGpuSegEnd(-1, getpid(), 50) == -EBADF);
	CHECK(gcaps_seg_end(-1) == -EBADF);
	CHECK(gcaps_close(-1) == -EBADF);
	puts("gcaps.h: ok");
	return 0;
}
