/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gcaps.h: the C interface of libgcaps (libgcaps.so / libgcaps.a, pkg-config gcaps).
 *
 * Wrap every GPU segment (from the first GPU call to the last synchronisation) between
 * gcaps_seg_begin() and gcaps_seg_end() so gcaps.ko can schedule the GPU by priority:
 *
 *	int fd = gcaps_open();
 *	if (fd < 0) { fprintf(stderr, "%s\n", gcaps_strerror(fd)); exit(1); }
 *	gcaps_seg_begin(fd, 0);      // 0: default GPU priority (inherit the CPU priority)
 *	... cudaMemcpyAsync, kernel launches, cudaStreamSynchronize ...
 *	gcaps_seg_end(fd);
 *	gcaps_close(fd);
 *
 * Every function returns a non-negative value on success and -errno on failure; all calls act
 * for the calling process (a descriptor inherited over fork() is refused with -EPERM).
 */
#ifndef GCAPS_H
#define GCAPS_H

#ifdef __cplusplus
extern "C" {
#endif

/* GPU priority argument of gcaps_seg_begin(): 0 is the process default, which is
 * $GCAPS_GPU_PRIORITY when set (gcapsctl run --gpu-priority) and else the caller's CPU
 * priority; 1..99 ask for an explicit level (higher is more urgent). */
#define GCAPS_GPU_PRIO_DEFAULT 0
#define GCAPS_GPU_PRIO_LOWEST 1
#define GCAPS_GPU_PRIO_HIGHEST 99

/* Opens /dev/gcaps: a descriptor (>= 0), or -ENOENT when gcaps.ko is not loaded, -EACCES,
 * -EMFILE, -ENOSPC, -EINVAL when $GCAPS_GPU_PRIORITY is malformed. */
int gcaps_open(void);

/* Opens a GPU segment with GPU priority gpu_prio (0 or 1..99): 0 or -errno (-EALREADY: a
 * segment is open; -EPERM: a permission rule, see gcaps_strerror; -EINVAL: bad priority). */
int gcaps_seg_begin(int fd, int gpu_prio);

/* Ends the open GPU segment: 0 or -errno (-ENOENT: no segment is open). */
int gcaps_seg_end(int fd);

/* Closes the descriptor (an open segment ends): 0 or -errno. */
int gcaps_close(int fd);

/* A one-line description of err (a negative return value of the functions above). When err is
 * the result of this thread's last failed gcaps call, the text names what went wrong and what
 * to do (which permission rule, module not loaded, ...). The string is valid until the next
 * gcaps call of this thread. */
const char *gcaps_strerror(int err);

/*
 * The macros of the published GCAPS prototype (Wang et al., ECRTS 2024, Listing 1):
 * gcapsGpuSegBegin(fd, pid) / gcapsGpuSegBegin(fd, pid, gprio), and the same for
 * gcapsGpuSegEnd. The pid argument is evaluated and ignored (the kernel knows the caller);
 * gprio of gcapsGpuSegEnd is ignored too.
 */
#define GCAPS__PICK3(a1, a2, a3, name, ...) name
#define GCAPS__BEGIN2(fd, pid) gcaps_seg_begin((fd), ((void)(pid), GCAPS_GPU_PRIO_DEFAULT))
#define GCAPS__BEGIN3(fd, pid, gprio) gcaps_seg_begin((fd), ((void)(pid), (gprio)))
#define GCAPS__END2(fd, pid) ((void)(pid), gcaps_seg_end(fd))
#define GCAPS__END3(fd, pid, gprio) ((void)(pid), (void)(gprio), gcaps_seg_end(fd))
#define gcapsGpuSegBegin(...) \
	GCAPS__PICK3(__VA_ARGS__, GCAPS__BEGIN3, GCAPS__BEGIN2, gcapsGpuSegBegin_takes_2_or_3_args)(__VA_ARGS__)
#define gcapsGpuSegEnd(...) \
	GCAPS__PICK3(__VA_ARGS__, GCAPS__END3, GCAPS__END2, gcapsGpuSegEnd_takes_2_or_3_args)(__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* GCAPS_H */
