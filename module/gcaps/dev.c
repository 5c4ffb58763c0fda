// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/gcaps and gcaps.ko's life cycle (both hosts): the character device (a dynamic major of
 * its own: cdev, class, device node) and its file operations, each open file's wait entry on
 * its owner's struct pid (the owner's exit ends its segment), the list of files handed over at
 * their release, and the glue's part of load and unload (gcaps_glue_init/_exit_dev/_exit_final,
 * with the layout checks of the structs the Rust side shares).
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#include <linux/wait.h>
#include "../include/gcaps_backend.h"
#include "../../uapi/linux/gcaps.h"
#include "gcaps_glue.h"
#include "glue_internal.h"
#include "backend.h"

/* ------------------------------------------------------------------ /dev/gcaps */

/*
 * Per open file: the thread group it belongs to (a counted reference to its TGID struct pid),
 * its client, and a wait entry on that pid's wait_pidfd queue, which the kernel wakes when the
 * whole thread group has exited (do_notify_parent, the pidfd poll). The client's segment must
 * end then, not at the file's last reference: a child that inherited the file, or a process
 * that took it with pidfd_getfd(), may keep the file long after its owner died (and can do
 * nothing with it: every call from another thread group is EPERM).
 */
struct gcaps_file {
	struct pid *tgid;
	struct gcaps_client_ref client;
	struct wait_queue_entry exit_wait;
	struct list_head closed;	/* on gcaps_closed once handed over */
};

/*
 * Files whose release did not take the update lock (a closer below the ceiling found it busy,
 * or a fatal signal ended a real-time closer's wait: see gcaps_rust_release()). Each keeps
 * its pid reference, which its client names, until the work item or the next real-time update
 * has removed the client under the update lock (gcaps_glue_closed_pop(), then _free()).
 */
static LIST_HEAD(gcaps_closed);
static DEFINE_SPINLOCK(gcaps_closed_lock);

/* A hint (no lock): is anything waiting in the TSG event table, or a handed-over file? */
bool gcaps_glue_ev_pending(void)
{
	return gcaps_backend_events_pending() || !list_empty_careful(&gcaps_closed);
}

/* The oldest handed-over file (NULL: none) and its client; free it after removing the client. */
void *gcaps_glue_closed_pop(struct gcaps_client_ref *client)
{
	struct gcaps_file *f;

	spin_lock(&gcaps_closed_lock);
	f = list_first_entry_or_null(&gcaps_closed, struct gcaps_file, closed);
	if (f)
		list_del(&f->closed);
	spin_unlock(&gcaps_closed_lock);
	if (f)
		*client = f->client;
	return f;
}

/* Puts a popped file back at the head of the list (its client is still there). */
void gcaps_glue_closed_unpop(void *file)
{
	struct gcaps_file *f = file;

	spin_lock(&gcaps_closed_lock);
	list_add(&f->closed, &gcaps_closed);
	spin_unlock(&gcaps_closed_lock);
}

/* Drops a popped file's pid reference and frees it (its client is gone). */
void gcaps_glue_closed_free(void *file)
{
	struct gcaps_file *f = file;

	put_pid(f->tgid);
	kfree(f);
}

/*
 * Wake function of exit_wait: called under the pid's wait queue lock, with tasklist_lock held
 * and interrupts off, so it only marks the client (lock-free, in Rust) and kicks the work
 * item; the work item, or any real-time update before it, ends the segment under the update
 * lock after checking that the group really exited. Other wakes of the queue are harmless.
 */
static int gcaps_exit_wake(struct wait_queue_entry *wait, unsigned int mode, int sync, void *key)
{
	struct gcaps_file *f = container_of(wait, struct gcaps_file, exit_wait);
	void *ctx = gcaps_backend_ctx();

	if (ctx) {
		gcaps_rust_owner_exited(ctx, f->client);
		gcaps_glue_work_kick();
	}
	return 0;
}

static int gcaps_open(struct inode *inode, struct file *file)
{
	void *ctx = gcaps_backend_ctx();
	struct gcaps_caller caller;
	struct gcaps_file *f;
	int ret;

	if (!ctx)
		return -ENODEV;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->tgid = get_pid(task_tgid(current));
	gcaps_glue_caller(&caller);
	ret = gcaps_rust_open(ctx, &caller, (uintptr_t)f->tgid, &f->client);
	if (ret) {
		put_pid(f->tgid);
		kfree(f);
		return ret;
	}
	/* The opener is alive (it is in this call), so its group's exit wakes the entry later. */
	init_waitqueue_func_entry(&f->exit_wait, gcaps_exit_wake);
	add_wait_queue(&f->tgid->wait_pidfd, &f->exit_wait);
	file->private_data = f;
	return stream_open(inode, file);
}

/*
 * Last reference to the file gone (close, or the exit of the last process holding it): end the
 * segment and remove the client, unless the owner's exit did that already (the device
 * matches the client id, so a slot reused since is never touched).
 */
static int gcaps_release(struct inode *inode, struct file *file)
{
	struct gcaps_file *f = file->private_data;

	remove_wait_queue(&f->tgid->wait_pidfd, &f->exit_wait);
	if (!gcaps_rust_release(gcaps_backend_ctx(), f->client)) {
		/* Handed over: the work item (kicked) or a real-time update removes the client. */
		spin_lock(&gcaps_closed_lock);
		list_add_tail(&f->closed, &gcaps_closed);
		spin_unlock(&gcaps_closed_lock);
		gcaps_glue_work_kick();
		return 0;
	}
	put_pid(f->tgid);
	kfree(f);
	return 0;
}

static long gcaps_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gcaps_file *f = file->private_data;

	/*
	 * Nobody acts for somebody else: the fd belongs to the thread group that opened it (the
	 * device refuses a foreign caller with EPERM and counts it). Once that group has exited
	 * every caller is foreign.
	 */
	return gcaps_rust_ioctl(gcaps_backend_ctx(), f->client, cmd, arg, task_tgid(current) != f->tgid);
}

static const struct file_operations gcaps_fops = {
	.owner		= THIS_MODULE,	/* an open file pins the module: rmmod is refused */
	.open		= gcaps_open,
	.release	= gcaps_release,
	.unlocked_ioctl	= gcaps_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/*
 * /dev/gcaps is a character device of its own (a dynamic major, one minor), not a misc device:
 * the misc layer calls every misc device's open with its global misc_mtx held
 * (drivers/char/misc.c, misc_open(), in 5.10 and 6.12 alike), and gcaps's open waits for the
 * update lock, behind real-time updaters for as long as they keep it busy: as a misc device,
 * that wait would hold misc_mtx and delay every other misc device's open (and misc_register())
 * with it. chrdev_open() calls the open with no lock held, so the wait delays only its caller.
 */
static dev_t gcaps_devt;
static struct cdev gcaps_cdev;
static struct class *gcaps_class;

/* devtmpfs: /dev/gcaps for everyone (what the misc device's .mode = 0666 gave). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static char *gcaps_devnode(const struct device *dev, umode_t *mode)
#else
static char *gcaps_devnode(struct device *dev, umode_t *mode)
#endif
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static int gcaps_chrdev_register(void)
{
	struct device *dev;
	int ret;

	ret = alloc_chrdev_region(&gcaps_devt, 0, 1, GCAPS_DEVICE_NAME);
	if (ret)
		return ret;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	gcaps_class = class_create(GCAPS_DEVICE_NAME);
#else
	gcaps_class = class_create(THIS_MODULE, GCAPS_DEVICE_NAME);
#endif
	if (IS_ERR(gcaps_class)) {
		ret = PTR_ERR(gcaps_class);
		goto out_region;
	}
	gcaps_class->devnode = gcaps_devnode;
	cdev_init(&gcaps_cdev, &gcaps_fops);
	gcaps_cdev.owner = THIS_MODULE;
	ret = cdev_add(&gcaps_cdev, gcaps_devt, 1);
	if (ret)
		goto out_class;
	dev = device_create(gcaps_class, NULL, gcaps_devt, NULL, GCAPS_DEVICE_NAME);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_cdev;
	}
	return 0;
out_cdev:
	cdev_del(&gcaps_cdev);
out_class:
	class_destroy(gcaps_class);
out_region:
	unregister_chrdev_region(gcaps_devt, 1);
	return ret;
}

static void gcaps_chrdev_unregister(void)
{
	device_destroy(gcaps_class, gcaps_devt);
	cdev_del(&gcaps_cdev);
	class_destroy(gcaps_class);
	unregister_chrdev_region(gcaps_devt, 1);
}

int gcaps_glue_init(void *ctx, u32 mechanism)
{
	int ret;

	ret = gcaps_sched_resolve();
	if (ret)
		return ret;
	BUILD_BUG_ON(sizeof(struct gcaps_caller) != 40);
	BUILD_BUG_ON(sizeof(struct gcaps_ev) != 32);
	BUILD_BUG_ON(sizeof(struct gcaps_client_ref) != 16);
	BUILD_BUG_ON(sizeof(struct gcaps_version) != GCAPS_VERSION_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_set_always) != GCAPS_SET_ALWAYS_SIZE_VER0);
	BUILD_BUG_ON(GCAPS_MAX_TSGS != GCAPS_BE_MAX_TSGS);
	BUILD_BUG_ON(sizeof(struct gcaps_seg_begin) != GCAPS_SEG_BEGIN_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_seg_end) != GCAPS_SEG_END_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct gcaps_status) != GCAPS_STATUS_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_list) != GCAPS_LIST_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct gcaps_stats) != GCAPS_STATS_SIZE_VER3);
	BUILD_BUG_ON(offsetof(struct gcaps_stats, updates) != GCAPS_STATS_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct gcaps_update_cost) != GCAPS_UPDATE_COST_SIZE);
	BUILD_BUG_ON(GCAPS_STATS_SIZE_VER3 !=
		     GCAPS_STATS_SIZE_VER2 + GCAPS_UPDATE_KINDS * GCAPS_UPDATE_COST_SIZE);
	BUILD_BUG_ON(sizeof(struct gcaps_trace_event) != GCAPS_TRACE_EVENT_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct gcaps_trace_read) != GCAPS_TRACE_READ_SIZE_VER0);
	BUILD_BUG_ON(GCAPS_REJ_NR != 16 || GCAPS_DELAY_BUCKETS != 32);
	BUILD_BUG_ON(sizeof(struct gcaps_client_info) != 48);
	BUILD_BUG_ON(sizeof(struct gcaps_tsg_info) != 24);
	gcaps_backend_start(ctx, mechanism == GCAPS_MECH_GATE ? GCAPS_BE_MECH_GATE
							     : GCAPS_BE_MECH_RELOAD);
	ret = gcaps_chrdev_register();
	if (ret)
		gcaps_backend_stop();
	return ret;
}

/* First step of unloading: no new opens (no file can be open: the module refcount says so). */
void gcaps_glue_exit_dev(void)
{
	gcaps_chrdev_unregister();
}

/* Last step of unloading, after the backend was detached: no work item runs any more. */
void gcaps_glue_exit_final(void)
{
	gcaps_backend_stop();
}
