/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The backend contract (module/include/gcaps_backend.h) for a 64-bit userspace build: defines
 * what the kernel header expects from <linux/types.h> and the kernel (u32, u64, bool, pid_t,
 * BITS_PER_LONG), then includes it. Used by build.rs (bindgen: the Rust side of
 * gcaps-contract-host takes every struct layout from here) and by C tests playing a driver.
 *
 * A translation unit that already has the kernel-style u32/u64 typedefs (nvgpu's headers do)
 * defines GCAPS_HAVE_KERNEL_TYPES before including this file.
 */
#ifndef GCAPS_BACKEND_USER_H
#define GCAPS_BACKEND_USER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#if !defined(__SIZEOF_LONG__) || __SIZEOF_LONG__ != 8
#error "gcaps_backend_user.h: 64-bit userspace only (gcaps.ko requires BITS_PER_LONG == 64)"
#endif

#ifndef GCAPS_HAVE_KERNEL_TYPES
typedef uint32_t u32;
typedef uint64_t u64;
#endif

#ifndef BITS_PER_LONG
#define BITS_PER_LONG 64
#endif

#include "../../../../module/include/gcaps_backend.h"

#endif /* GCAPS_BACKEND_USER_H */
