/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_compat.h - every difference between supported kernels, in one place
 *
 * Each shim says why it exists. Features are detected, not version numbers
 * compared, so a distribution backport is picked up automatically: a macro
 * by its absence here, anything else by a probe in kmod/Kbuild (which greps
 * the kernel's own headers).
 */
#ifndef FXTRACE_COMPAT_H
#define FXTRACE_COMPAT_H

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

#endif /* FXTRACE_COMPAT_H */
