/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_compat.h - every difference between supported kernels, in one place
 *
 * Each shim says why it exists. Features are detected by the probes in
 * kmod/Kbuild (which grep the kernel's own headers), not by version numbers,
 * so a distribution backport is picked up automatically.
 */
#ifndef FXTRACE_COMPAT_H
#define FXTRACE_COMPAT_H

#include <linux/mm.h>

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
