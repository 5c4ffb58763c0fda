/* SPDX-License-Identifier: GPL-2.0-only */
/* What gcaps.ko's C files share with each other and not with the Rust side (kernel only). */
#ifndef GCAPS_GLUE_INTERNAL_H
#define GCAPS_GLUE_INTERNAL_H

struct rt_mutex;

/* gcaps_glue.c: the update lock, and an rt_mutex taken killably (-EINTR, 5.10 -ERESTARTSYS). */
extern struct rt_mutex gcaps_update_lock;
int gcaps_rt_mutex_lock_killable(struct rt_mutex *lock);

/* task.c: finds sched_setattr_nocheck() where Linux does not export it (at load). */
int gcaps_sched_resolve(void);

#endif /* GCAPS_GLUE_INTERNAL_H */
