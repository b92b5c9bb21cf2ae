/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_compat.h - every difference between supported kernels, in one place
 *
 * Each shim says why it exists. Features are detected, not version numbers
 * compared, so a distribution backport is picked up automatically: a macro
 * by its absence here, anything else by a probe in kmod/Kbuild (which greps
 * the kernel's own headers). A behaviour that follows the kernel's config
 * rather than its version is written here too, beside what depends on it.
 */
#ifndef FXTRACE_COMPAT_H
#define FXTRACE_COMPAT_H

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/sched.h>

/*
 * Linux 6.1 added TASK_FREEZABLE, a modifier of a sleeping state (the
 * freezer may stop the task there) that futex waits, nanosleep and other
 * TASK_INTERRUPTIBLE sleeps carry. It is a macro, so its absence is the
 * feature test; before it there was nothing to mask.
 */
#ifndef TASK_FREEZABLE
#define TASK_FREEZABLE	0
#endif

/*
 * Linux 6.3 made vma->vm_flags read-only and added vm_flags_set() and
 * vm_flags_clear(), which also assert that mmap_lock is held for writing.
 */
#ifdef FXTRACE_HAVE_VM_FLAGS_SET
static inline void fxtrace_vm_flags_set(struct vm_area_struct *vma,
					vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}

static inline void fxtrace_vm_flags_clear(struct vm_area_struct *vma,
					  vm_flags_t flags)
{
	vm_flags_clear(vma, flags);
}
#else /* !FXTRACE_HAVE_VM_FLAGS_SET */
static inline void fxtrace_vm_flags_set(struct vm_area_struct *vma,
					vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void fxtrace_vm_flags_clear(struct vm_area_struct *vma,
					  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif /* FXTRACE_HAVE_VM_FLAGS_SET */

/*
 * Whether irq_work_sync() on a work not marked IRQ_WORK_HARD_IRQ (ours)
 * waits by sleeping (rcuwait) rather than by spinning. These are
 * irq_work_sync()'s own conditions on the kernels supported (6.1 and
 * 6.12): on PREEMPT_RT such a work runs in the CPU's irq_work/N thread,
 * and an architecture that cannot raise an irq_work interrupt runs it from
 * the tick. Only under them does irq_work_single() touch the work after
 * clearing IRQ_WORK_BUSY, which fxtrace_rings_sync_wakeups() must wait out.
 * A config test, not a feature probe: the kernel's behaviour, not its API,
 * is what differs, and a kernel that changes these conditions needs this
 * reviewed with its kernel/irq_work.c.
 */
static inline bool fxtrace_irq_work_sync_sleeps(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) || !arch_irq_work_has_interrupt();
}

#endif /* FXTRACE_COMPAT_H */
