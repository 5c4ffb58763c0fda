/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space shim of the primitives module/gcaps/backend_prims.h lists, so that the
 * contract host compiles gcaps.ko's own module/gcaps/backend.c in a process (in the way
 * nvgpu's POSIX framework hosts kernel C). Only what backend.c uses, with the kernel's names:
 *   raw spinlock  a pthread mutex (irqsave: flags unused);
 *   seqcount      a counter, odd while a write is under way (atomic builtins; the readers
 *                 retry like the kernel's);
 *   bitmap        unsigned long words;
 *   work item     one delayed work, kicked (pending) and run when the test runs the work item
 *                 (gcaps_shim_run_work(), shim.c): nothing runs behind the test's back;
 *   update lock   gcaps_host_update_held() of the host (Rust): the assertion aborts without it;
 *   module ref    fails while the host unloads (gcaps_shim_set_unloading());
 *   log           stderr; gcaps_be_misuse() is also counted as a contract violation.
 * 64-bit only, like gcaps.ko's backend half (BITS_PER_LONG == 64).
 */
#ifndef GCAPS_BACKEND_PRIMS_USER_H
#define GCAPS_BACKEND_PRIMS_USER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#if !defined(__SIZEOF_LONG__) || __SIZEOF_LONG__ != 8
#error "the backend shim is 64-bit only"
#endif

/* ---- types */
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
#define BITS_PER_LONG 64
#define __used __attribute__((__used__))
#define __noreturn __attribute__((__noreturn__))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)
#define ERR_PTR(e) ((void *)(long)(e))
#define EBUSY 16
#define EAGAIN 11
#define ENODEV 19
#define EINVAL 22
#define EOPNOTSUPP 95

/* ---- memory */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

/* strscpy(): copies at most n - 1 characters and a NUL (n > 0); the copy's length. */
static inline long strscpy(char *dst, const char *src, size_t n)
{
	size_t len;

	if (!n)
		return -7; /* -E2BIG */
	len = strnlen(src, n - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
	return src[len] ? -7 : (long)len;
}

/* ---- raw spinlock */
typedef pthread_mutex_t raw_spinlock_t;
#define DEFINE_RAW_SPINLOCK(n) raw_spinlock_t n = PTHREAD_MUTEX_INITIALIZER
#define raw_spin_lock_irqsave(l, f) \
	do {                        \
		(f) = 0;            \
		pthread_mutex_lock(l); \
	} while (0)
#define raw_spin_unlock_irqrestore(l, f) \
	do {                             \
		(void)(f);               \
		pthread_mutex_unlock(l); \
	} while (0)

/* ---- seqcount (its writers hold the lock it names, as in the kernel) */
typedef struct {
	unsigned int seq;
} seqcount_raw_spinlock_t;
#define SEQCNT_RAW_SPINLOCK_ZERO(name, lock) { 0 }
static inline void write_seqcount_begin(seqcount_raw_spinlock_t *s)
{
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
}
static inline void write_seqcount_end(seqcount_raw_spinlock_t *s)
{
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
}
static inline unsigned int read_seqcount_begin(const seqcount_raw_spinlock_t *s)
{
	unsigned int v;

	while ((v = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE)) & 1)
		;
	return v;
}
static inline bool read_seqcount_retry(const seqcount_raw_spinlock_t *s, unsigned int v)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->seq, __ATOMIC_RELAXED) != v;
}

/* ---- bitmap */
#define DECLARE_BITMAP(n, bits) unsigned long n[((bits) + BITS_PER_LONG - 1) / BITS_PER_LONG]
static inline void __set_bit(unsigned long nr, unsigned long *b)
{
	b[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}
static inline void __clear_bit(unsigned long nr, unsigned long *b)
{
	b[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}
static inline bool test_bit(unsigned long nr, const unsigned long *b)
{
	return (b[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}
/* The first set bit, or `size` if none (size a multiple of BITS_PER_LONG). */
static inline unsigned long find_first_bit(const unsigned long *b, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size / BITS_PER_LONG; i++)
		if (b[i])
			return i * BITS_PER_LONG + (unsigned long)__builtin_ctzl(b[i]);
	return size;
}
static inline void bitmap_zero(unsigned long *b, unsigned long size)
{
	memset(b, 0, size / 8);
}
static inline bool bitmap_empty(const unsigned long *b, unsigned long size)
{
	return find_first_bit(b, size) == size;
}

/* ---- work item */
struct work_struct {
	int unused;
};
struct delayed_work {
	struct work_struct work;
	void (*fn)(struct work_struct *work);
	bool pending;
};
struct workqueue_struct;
#define system_highpri_wq ((struct workqueue_struct *)0)
void gcaps_shim_work_register(struct delayed_work *w);
/* One delayed work per file, registered at program start (the host runs it). */
#define DECLARE_DELAYED_WORK(n, f)                                                   \
	struct delayed_work n = { .fn = (f) };                                       \
	static void __attribute__((constructor)) gcaps_shim_register_##n(void)       \
	{                                                                            \
		gcaps_shim_work_register(&n);                                        \
	}                                                                            \
	struct gcaps_shim_semicolon_##n
static inline bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *w,
				    unsigned long delay)
{
	(void)wq;
	(void)delay;
	__atomic_store_n(&w->pending, true, __ATOMIC_RELAXED);
	return true;
}
#define queue_delayed_work mod_delayed_work
static inline bool cancel_delayed_work_sync(struct delayed_work *w)
{
	return __atomic_exchange_n(&w->pending, false, __ATOMIC_RELAXED);
}

/* ---- gcaps's own */
bool gcaps_host_update_held(void);
#define gcaps_assert_update_lock_held()                                                  \
	do {                                                                             \
		if (!gcaps_host_update_held()) {                                         \
			fprintf(stderr, "gcaps-contract-host: %s without the update lock\n", \
				__func__);                                               \
			abort();                                                         \
		}                                                                        \
	} while (0)
#define gcaps_may_not_sleep() false
bool gcaps_shim_module_get(void);
#define gcaps_module_get() gcaps_shim_module_get()
#define gcaps_module_put() ((void)0)
void gcaps_shim_log(int violation, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
#define pr_err(...) gcaps_shim_log(0, __VA_ARGS__)
#define gcaps_be_misuse(fmt, ...) gcaps_shim_log(1, "gcaps: " fmt "\n", ##__VA_ARGS__)
#define EXPORT_SYMBOL_GPL(sym) extern __typeof__(sym) sym __attribute__((visibility("default")))

#endif /* GCAPS_BACKEND_PRIMS_USER_H */
