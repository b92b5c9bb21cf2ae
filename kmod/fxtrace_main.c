// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_main.c - /dev/fxtrace: one tracing session, its ioctls and mmaps
 *
 * A session is an open file of /dev/fxtrace. Only one exists at a time. It
 * owns one ring per possible CPU (fxtrace_ring.c), attaches the scheduler
 * probes while started (fxtrace_probes.c) and lets userspace map each ring's
 * control page read-write and its data area read-only. The ABI is described
 * in uapi/linux/fxtrace.h.
 *
 * Locking: two mutexes per session, taken in this order.
 *   - session->lock serializes the ioctls and release. START and STOP
 *     hold it while they attach and detach the probes, which takes
 *     cpus_read_lock() (static keys and static calls). It is never taken
 *     under mmap_lock: the kernel already orders cpu_hotplug_lock before
 *     mmap_lock (cpuset_attach() rebinds a moving task's memory policy),
 *     so mmap_lock -> session->lock -> cpu_hotplug_lock would close a cycle.
 *   - session->buf_lock guards the buffers (rings, buf_size, watermark, and
 *     nr_maps against CONFIGURE). ->mmap takes it under mmap_lock, so
 *     nothing holding it may touch user memory or take session->lock or
 *     cpus_read_lock(): ioctl arguments are copied in before and out after.
 * Whatever changes the buffers holds both; whatever reads them holds either.
 * The one exception is the first mmap of a session without buffers (never
 * configured, or after a CONFIGURE that failed with ENOMEM), which
 * allocates them holding buf_lock only, so code holding only
 * session->lock takes buf_lock too before it looks at a NULL @rings.
 * poll() and GET_INFO take buf_lock alone, so that they never wait for
 * another thread's START or STOP (attaching or detaching the probes takes
 * tens of ms, a grace period and more), and read @tracing, which START and
 * STOP write under session->lock, with READ_ONCE(). While @tracing is true
 * the rings exist: CONFIGURE refuses to replace them and release stops
 * first, both under session->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/oom.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/fxtrace.h>

#include "fxtrace_alloc.h"
#include "fxtrace_compat.h"
#include "fxtrace_probes.h"
#include "fxtrace_ring.h"

/* mmap offsets: CPU n's region starts at n << 32; control page, then data. */
#define FXTRACE_CPU_STRIDE_SHIFT	32
#define FXTRACE_CPU_STRIDE		BIT_ULL(FXTRACE_CPU_STRIDE_SHIFT)

/**
 * struct fxtrace_session - the state of one open /dev/fxtrace
 * @lock: serializes ioctls and release; held across attach and detach
 *	(see "Locking" at the top of this file)
 * @buf_lock: guards the buffers; the only lock ->mmap, poll() and
 *	GET_INFO take
 * @rings: one ring per possible CPU (per-CPU memory: the probes take
 *	theirs with this_cpu_ptr()); NULL until the buffers are allocated
 * @buf_size: data bytes of each present CPU's ring, configured or the
 *	default (fxtrace_planned_ring_size())
 * @watermark: pending bytes in such a ring that make poll() readable
 * @tracing: probes attached; written under @lock, read by poll() and
 *	GET_INFO under @buf_lock only
 * @nr_maps: live mappings of any ring; the buffers cannot be replaced while
 *	this is non-zero
 * @wq: poll() waiters, woken by the rings' irq_work and by STOP
 * @owner_tgid: the opener's process: loss markers are drawn on its track
 * @owner_tid: the opener's thread
 */
struct fxtrace_session {
	struct mutex lock;	/* see "Locking" at the top of this file */
	struct mutex buf_lock;
	struct fxtrace_ring __percpu *rings;
	u64 buf_size;
	u64 watermark;
	bool tracing;
	atomic_t nr_maps;
	wait_queue_head_t wq;
	u32 owner_tgid;
	u32 owner_tid;
};

/* Bit 0 set while a session exists: one tracing session at a time. */
static unsigned long fxtrace_busy;

/* Free rings whose wakeups can no longer run (or never could). */
static void fxtrace_destroy_rings(struct fxtrace_session *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		fxtrace_ring_destroy(per_cpu_ptr(s->rings, cpu));
	fxtrace_free_percpu(s->rings);
	s->rings = NULL;
}

static void fxtrace_free_rings(struct fxtrace_session *s)
{
	lockdep_assert_held(&s->buf_lock);
	if (!s->rings)
		return;
	fxtrace_rings_sync_wakeups(s->rings);
	fxtrace_destroy_rings(s);
}

/*
 * The data bytes of @cpu's ring: the session's size for a CPU that is
 * present, FXTRACE_BUF_SIZE_MIN for one that is only possible. Firmware
 * often declares far more possible CPUs than the machine has (hot-plug
 * slots: a VM may have 2 CPUs and 128 possible), and a full-size ring
 * for each would take most of the memory for rings no CPU writes to. A
 * CPU plugged in later still gets a ring, only a small one: what does
 * not fit is dropped and counted like any other drop, never lost
 * silently. The rings' own sizes, once allocated, are what counts
 * (fxtrace_ring_size()): the present CPUs may have changed since.
 */
static u64 fxtrace_planned_ring_size(const struct fxtrace_session *s,
				     unsigned int cpu)
{
	return cpu_present(cpu) ? s->buf_size : FXTRACE_BUF_SIZE_MIN;
}

/* The watermark of a ring of @size bytes: the session's, or a quarter. */
static u64 fxtrace_ring_watermark(const struct fxtrace_session *s, u64 size)
{
	return size == s->buf_size ? s->watermark : min(s->watermark, size / 4);
}

/*
 * Refuse rings that would not fit in the memory available now, as ftrace's
 * ring buffer does, rather than let vmalloc() wake the OOM killer against
 * unrelated processes. Every possible CPU gets a ring, present or not
 * (fxtrace_planned_ring_size()).
 */
static int fxtrace_check_memory(const struct fxtrace_session *s)
{
	unsigned int n = num_possible_cpus();
	unsigned int present = 0, cpu;
	long avail = si_mem_available();
	u64 total = 0;

	for_each_possible_cpu(cpu) {
		present += cpu_present(cpu);
		total += (PAGE_SIZE + fxtrace_planned_ring_size(s, cpu)) >>
			 PAGE_SHIFT;
	}
	/* In pages, at most 2^16 + 1 a ring: no overflow. */
	if (total <= (u64)max(avail, 0L))
		return 0;
	if (present == n)
		pr_warn_ratelimited("%u rings of %llu KiB (one per possible CPU) need more than the %ld MiB of memory available: configure a smaller buf_size\n",
				    n, s->buf_size >> 10,
				    avail >> (20 - PAGE_SHIFT));
	else
		pr_warn_ratelimited("%u rings of %llu KiB (one per present CPU) and %u of %llu KiB (possible CPUs not present) need more than the %ld MiB of memory available: configure a smaller buf_size\n",
				    present, s->buf_size >> 10, n - present,
				    FXTRACE_BUF_SIZE_MIN >> 10,
				    avail >> (20 - PAGE_SHIFT));
	return -ENOMEM;
}

static int fxtrace_alloc_rings(struct fxtrace_session *s)
{
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&s->buf_lock);
	ret = fxtrace_check_memory(s);
	if (ret)
		return ret;
	s->rings = fxtrace_alloc_percpu(sizeof(struct fxtrace_ring),
					__alignof__(struct fxtrace_ring));
	if (!s->rings)
		return -ENOMEM;
	/*
	 * The check above is an estimate, and other tasks may take memory
	 * while the rings are filled. Should the OOM killer wake meanwhile,
	 * whoever woke it, make it take this task, as ftrace's ring buffer
	 * does: the rings are the cause, and as vmalloc() memory they show in
	 * no task's RSS, so it would otherwise take the largest bystander.
	 * vmalloc() gives up once a fatal signal is pending; so does the loop.
	 */
	set_current_oom_origin();
	for_each_possible_cpu(cpu) {
		u64 size = fxtrace_planned_ring_size(s, cpu);

		ret = fxtrace_ring_init(per_cpu_ptr(s->rings, cpu), cpu, size,
					fxtrace_ring_watermark(s, size), &s->wq,
					s->owner_tgid, s->owner_tid);
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		if (ret)
			goto out_clear_oom_origin;
	}
	clear_current_oom_origin();
	return 0;

out_clear_oom_origin:
	clear_current_oom_origin();
	/*
	 * Never given to the probes, so no wakeup was ever queued: nothing
	 * to sync, and no grace period to wait for, which on PREEMPT_RT
	 * fxtrace_free_rings() would, here under mmap_lock when the first
	 * mmap() allocates.
	 */
	fxtrace_destroy_rings(s);
	return ret;
}

static int fxtrace_ensure_rings(struct fxtrace_session *s)
{
	return s->rings ? 0 : fxtrace_alloc_rings(s);
}

/* @cpu's data bytes: its ring's, or what fxtrace_alloc_rings() will give. */
static u64 fxtrace_data_size(const struct fxtrace_session *s, unsigned int cpu)
{
	lockdep_assert_held(&s->buf_lock);
	if (s->rings)
		return fxtrace_ring_size(per_cpu_ptr(s->rings, cpu));
	return fxtrace_planned_ring_size(s, cpu);
}

static void fxtrace_stop(struct fxtrace_session *s)
{
	lockdep_assert_held(&s->lock);
	fxtrace_probes_detach(s->rings);
	WRITE_ONCE(s->tracing, false);
	/*
	 * Readers blocked in poll() now see whatever is left to drain. The
	 * wait queue's lock orders the store above before this wakeup's look
	 * at the queue; pairs with fxtrace_poll()'s poll_wait() and (F): a
	 * poller either is on the queue already, and is woken, or queues
	 * itself after this and reads @tracing false.
	 */
	wake_up_interruptible(&s->wq);
}

static int fxtrace_open(struct inode *inode, struct file *file)
{
	struct fxtrace_session *s;

	if (!perfmon_capable())
		return -EPERM;
	if (test_and_set_bit_lock(0, &fxtrace_busy))
		return -EBUSY;

	s = fxtrace_kzalloc(sizeof(*s));
	if (!s)
		goto out_clear_busy;
	mutex_init(&s->lock);
	mutex_init(&s->buf_lock);
	init_waitqueue_head(&s->wq);
	atomic_set(&s->nr_maps, 0);
	s->buf_size = FXTRACE_BUF_SIZE_DEFAULT;
	s->watermark = s->buf_size / 4;
	s->owner_tgid = task_tgid_nr(current);
	s->owner_tid = task_pid_nr(current);
	file->private_data = s;
	return nonseekable_open(inode, file);

out_clear_busy:
	clear_bit_unlock(0, &fxtrace_busy);
	return -ENOMEM;
}

/* Called once the last fd and the last mapping of the session are gone. */
static int fxtrace_release(struct inode *inode, struct file *file)
{
	struct fxtrace_session *s = file->private_data;

	mutex_lock(&s->lock);
	if (s->tracing)
		fxtrace_stop(s);
	mutex_lock(&s->buf_lock);
	fxtrace_free_rings(s);
	mutex_unlock(&s->buf_lock);
	mutex_unlock(&s->lock);
	mutex_destroy(&s->buf_lock);
	mutex_destroy(&s->lock);
	fxtrace_kfree(s);
	clear_bit_unlock(0, &fxtrace_busy);
	return 0;
}

static void fxtrace_fill_info(struct fxtrace_session *s,
			      struct fxtrace_info *info)
{
	lockdep_assert_held(&s->buf_lock);
	memset(info, 0, sizeof(*info));
	info->abi_version = FXTRACE_ABI_VERSION;
	info->info_size = sizeof(*info);
	info->nr_cpu_ids = nr_cpu_ids;
	info->page_size = PAGE_SIZE;
	info->buf_size = s->buf_size;
	info->cpu_stride = FXTRACE_CPU_STRIDE;
	info->ctrl_offset = 0;
	info->data_offset = PAGE_SIZE;
	info->ctrl_size = PAGE_SIZE;
	info->clock_id = FXTRACE_CLOCK_ID;
	if (READ_ONCE(s->tracing))
		info->state = FXTRACE_STATE_TRACING;
	else if (s->rings)
		info->state = FXTRACE_STATE_READY;
	else
		info->state = FXTRACE_STATE_EMPTY;
}

static long fxtrace_ioctl_get_info(struct fxtrace_session *s,
				   void __user *arg)
{
	struct fxtrace_info info;

	/*
	 * Not session->lock: a START or STOP in another thread would hold
	 * this up for as long as attaching or detaching takes. The state
	 * reads TRACING from the moment START has attached the probes until
	 * STOP has detached them.
	 */
	mutex_lock(&s->buf_lock);
	fxtrace_fill_info(s, &info);
	mutex_unlock(&s->buf_lock);
	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static int fxtrace_check_config(const struct fxtrace_config *cfg, u64 size)
{
	unsigned int i;

	if (cfg->flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(cfg->__reserved); i++) {
		if (cfg->__reserved[i])
			return -EINVAL;
	}
	/* MIN is at least a page (fxtrace_check_abi_layout()). */
	if (size < FXTRACE_BUF_SIZE_MIN || size > FXTRACE_BUF_SIZE_MAX ||
	    !is_power_of_2(size))
		return -EINVAL;
	if (cfg->watermark >= size)
		return -EINVAL;
	return 0;
}

static long fxtrace_ioctl_configure(struct fxtrace_session *s,
				    void __user *arg)
{
	struct fxtrace_config cfg;
	u64 size;
	int ret;

	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	size = cfg.buf_size ? cfg.buf_size : FXTRACE_BUF_SIZE_DEFAULT;
	ret = fxtrace_check_config(&cfg, size);
	if (ret)
		return ret;

	mutex_lock(&s->lock);
	mutex_lock(&s->buf_lock);
	if (s->tracing || atomic_read(&s->nr_maps)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	fxtrace_free_rings(s);
	s->buf_size = size;
	s->watermark = cfg.watermark ? cfg.watermark : size / 4;
	ret = fxtrace_alloc_rings(s);
out_unlock:
	mutex_unlock(&s->buf_lock);
	mutex_unlock(&s->lock);
	return ret;
}

static long fxtrace_ioctl_start(struct fxtrace_session *s)
{
	int ret;

	mutex_lock(&s->lock);
	if (s->tracing) {
		ret = -EBUSY;
		goto out_unlock;
	}
	mutex_lock(&s->buf_lock);
	ret = fxtrace_ensure_rings(s);
	mutex_unlock(&s->buf_lock);
	if (ret)
		goto out_unlock;
	/*
	 * Without buf_lock: only CONFIGURE and release replace or free the
	 * rings, and both need session->lock, which is held.
	 */
	ret = fxtrace_probes_attach(s->rings);
	if (!ret)
		WRITE_ONCE(s->tracing, true);
out_unlock:
	mutex_unlock(&s->lock);
	return ret;
}

static long fxtrace_ioctl_stop(struct fxtrace_session *s)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->tracing)
		fxtrace_stop(s);
	else
		ret = -EINVAL;
	mutex_unlock(&s->lock);
	return ret;
}

static long fxtrace_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct fxtrace_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case FXTRACE_IOC_GET_INFO:
		return fxtrace_ioctl_get_info(s, uarg);
	case FXTRACE_IOC_CONFIGURE:
		return fxtrace_ioctl_configure(s, uarg);
	/*
	 * _IO commands take no argument, and callers commonly omit it from
	 * the variadic ioctl(), leaving whatever the register held: ignore it.
	 */
	case FXTRACE_IOC_START:
		return fxtrace_ioctl_start(s);
	case FXTRACE_IOC_STOP:
		return fxtrace_ioctl_stop(s);
	default:
		return -ENOTTY;
	}
}

/* Has some CPU's ring a record to read? With s->buf_lock held. */
static bool fxtrace_any_readable(struct fxtrace_session *s, bool tracing)
{
	unsigned int cpu;

	lockdep_assert_held(&s->buf_lock);
	if (!s->rings)
		return false;
	for_each_possible_cpu(cpu) {
		if (fxtrace_ring_readable(per_cpu_ptr(s->rings, cpu), tracing))
			return true;
	}
	return false;
}

static __poll_t fxtrace_poll(struct file *file, poll_table *wait)
{
	struct fxtrace_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, wait);
	/*
	 * (F): pairs with (E) in fxtrace_ring_commit(). The reader stored
	 * consumer_pos before calling poll(), and is now on the wait queue:
	 * either the positions read below include a record that reached the
	 * watermark, or that record's commit saw this consumer_pos and queued
	 * the wakeup.
	 */
	smp_mb();
	/*
	 * buf_lock alone (see "Locking" at the top of this file): the rings
	 * cannot be replaced or freed meanwhile, and a START or STOP in
	 * another thread goes on without us. @tracing may change under us:
	 * read as false while START attaches, a ring is readable with
	 * anything in it, which is only early; read as true while STOP
	 * detaches, STOP's wakeup, after its store, follows (see
	 * fxtrace_stop()).
	 */
	mutex_lock(&s->buf_lock);
	if (fxtrace_any_readable(s, READ_ONCE(s->tracing)))
		mask = EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&s->buf_lock);
	return mask;
}

/* Fork and mremap() copy a mapping: keep nr_maps exact across both. */
static void fxtrace_vma_open(struct vm_area_struct *vma)
{
	struct fxtrace_session *s = vma->vm_file->private_data;

	atomic_inc(&s->nr_maps);
}

static void fxtrace_vma_close(struct vm_area_struct *vma)
{
	struct fxtrace_session *s = vma->vm_file->private_data;

	WARN_ON_ONCE(atomic_dec_return(&s->nr_maps) < 0);
}

static const struct vm_operations_struct fxtrace_vm_ops = {
	.open = fxtrace_vma_open,
	.close = fxtrace_vma_close,
};

/*
 * Map one CPU's control page (read-write) or part of its data area
 * (read-only), never executable. Offsets: uapi header, "mmap layout".
 */
static int fxtrace_mmap_locked(struct fxtrace_session *s,
			       struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 cpu = off >> FXTRACE_CPU_STRIDE_SHIFT;
	unsigned long pgoff = (off & (FXTRACE_CPU_STRIDE - 1)) >> PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	int ret;

	lockdep_assert_held(&s->buf_lock);
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	if (!cpu_possible(cpu))
		return -ENXIO;
	/*
	 * Never executable, now or by mprotect(): the data holds bytes any
	 * task chooses (a name set with prctl(PR_SET_NAME) is copied inline),
	 * and a writable control page must not be W+X. /dev is not always
	 * mounted noexec, which would refuse it before us.
	 */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	fxtrace_vm_flags_clear(vma, VM_MAYEXEC);
	if (pgoff == 0) {
		/* The control page, on its own. */
		if (len != PAGE_SIZE)
			return -EINVAL;
	} else {
		/*
		 * Data pages: read-only now and forever (no mprotect). Checked
		 * here so that a bad range allocates nothing; should the rings
		 * allocated below be sized otherwise (a CPU plugged in or out
		 * meanwhile), remap_vmalloc_range() checks again.
		 */
		if ((u64)(pgoff - 1) * PAGE_SIZE + len > fxtrace_data_size(s, cpu))
			return -EINVAL;
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		fxtrace_vm_flags_clear(vma, VM_MAYWRITE);
	}

	ret = fxtrace_ensure_rings(s);
	if (ret)
		return ret;
	ret = remap_vmalloc_range(vma, per_cpu_ptr(s->rings, cpu)->area, pgoff);
	if (ret)
		return ret;
	fxtrace_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &fxtrace_vm_ops;
	atomic_inc(&s->nr_maps);
	return 0;
}

static int fxtrace_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct fxtrace_session *s = file->private_data;
	int ret;

	/*
	 * VM_MAYSHARE, not VM_SHARED: a MAP_SHARED mapping of a file opened
	 * read-only has only the former, and is still a shared one.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	/* Not session->lock: see "Locking" at the top of this file. */
	mutex_lock(&s->buf_lock);
	ret = fxtrace_mmap_locked(s, vma);
	mutex_unlock(&s->buf_lock);
	return ret;
}

static const struct file_operations fxtrace_fops = {
	.owner = THIS_MODULE,
	.open = fxtrace_open,
	.release = fxtrace_release,
	.unlocked_ioctl = fxtrace_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = fxtrace_mmap,
	.poll = fxtrace_poll,
};

static struct miscdevice fxtrace_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = FXTRACE_DEVICE_NAME,
	.fops = &fxtrace_fops,
	.mode = 0600,
};

#define FXTRACE_CHECK_OFFSET(type, field, offset) \
	BUILD_BUG_ON(offsetof(struct type, field) != (offset))

/*
 * The uapi layout is a contract: any change here must bump the version.
 * Every field's offset, not only the sizes: two fields of one size swapped
 * would keep every size and break every reader.
 */
static void __init fxtrace_check_abi_layout(void)
{
	BUILD_BUG_ON(sizeof(struct fxtrace_info) != 96);
	FXTRACE_CHECK_OFFSET(fxtrace_info, abi_version, 0);
	FXTRACE_CHECK_OFFSET(fxtrace_info, info_size, 4);
	FXTRACE_CHECK_OFFSET(fxtrace_info, nr_cpu_ids, 8);
	FXTRACE_CHECK_OFFSET(fxtrace_info, page_size, 12);
	FXTRACE_CHECK_OFFSET(fxtrace_info, buf_size, 16);
	FXTRACE_CHECK_OFFSET(fxtrace_info, cpu_stride, 24);
	FXTRACE_CHECK_OFFSET(fxtrace_info, ctrl_offset, 32);
	FXTRACE_CHECK_OFFSET(fxtrace_info, data_offset, 40);
	FXTRACE_CHECK_OFFSET(fxtrace_info, ctrl_size, 48);
	FXTRACE_CHECK_OFFSET(fxtrace_info, clock_id, 52);
	FXTRACE_CHECK_OFFSET(fxtrace_info, state, 56);
	FXTRACE_CHECK_OFFSET(fxtrace_info, __pad, 60);
	FXTRACE_CHECK_OFFSET(fxtrace_info, __reserved, 64);

	BUILD_BUG_ON(sizeof(struct fxtrace_config) != 64);
	FXTRACE_CHECK_OFFSET(fxtrace_config, buf_size, 0);
	FXTRACE_CHECK_OFFSET(fxtrace_config, watermark, 8);
	FXTRACE_CHECK_OFFSET(fxtrace_config, flags, 12);
	FXTRACE_CHECK_OFFSET(fxtrace_config, __reserved, 16);

	BUILD_BUG_ON(sizeof(struct fxtrace_ctrl) != 192);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, version, 0);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, size, 4);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, cpu, 8);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, __pad, 12);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, buf_size, 16);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, __reserved0, 24);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, producer_pos, 64);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, records_written, 72);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, records_dropped, 80);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, tracepoint_hits, 88);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, last_drop_ns, 96);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, consumer_errors, 104);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, markers_written, 112);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, __reserved1, 120);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, consumer_pos, 128);
	FXTRACE_CHECK_OFFSET(fxtrace_ctrl, __reserved2, 136);
	BUILD_BUG_ON(sizeof(struct fxtrace_ctrl) > PAGE_SIZE);
	BUILD_BUG_ON(FXTRACE_BUF_SIZE_MAX + PAGE_SIZE > FXTRACE_CPU_STRIDE);
	BUILD_BUG_ON(FXTRACE_BUF_SIZE_MIN < PAGE_SIZE);
}

static int __init fxtrace_init(void)
{
	int ret;

	fxtrace_check_abi_layout();
	ret = fxtrace_probes_init();
	if (ret)
		return ret;
	fxtrace_alloc_debugfs_init();
	ret = misc_register(&fxtrace_miscdev);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", FXTRACE_DEVICE_NAME, ret);
		goto out_remove_debugfs;
	}
	pr_info("ready: /dev/%s, ABI %d\n", FXTRACE_DEVICE_NAME,
		FXTRACE_ABI_VERSION);
	return 0;

out_remove_debugfs:
	fxtrace_alloc_debugfs_exit();
	return ret;
}

/*
 * An open session pins the module (fops.owner), and its release detaches the
 * probes and waits for them, so nothing of ours can still be running here.
 */
static void __exit fxtrace_exit(void)
{
	misc_deregister(&fxtrace_miscdev);
	WARN_ON_ONCE(test_bit(0, &fxtrace_busy));
	fxtrace_alloc_debugfs_exit();
}

module_init(fxtrace_init);
module_exit(fxtrace_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("System-wide scheduler tracing in the Fuchsia Trace Format");
MODULE_AUTHOR("fxtrace developers");
