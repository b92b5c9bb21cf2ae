/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_alloc.h - every allocation the module makes, counted
 *
 * Debian's kernels have no kmemleak, so the module counts its own live
 * allocations and shows the count in debugfs (fxtrace/live_allocations).
 * The selftests check that it returns to zero whenever no session is open.
 * Each wrapper counts only allocations that succeeded; each free wrapper
 * accepts NULL, like the function it wraps.
 *
 * Nor do they have fault injection, so the wrappers bring their own: a
 * number N written to debugfs (fxtrace/fail_nth_allocation) makes the Nth
 * allocation from then on fail, once, as if memory had run out. Attaching
 * a probe to a tracepoint counts as one (the kernel allocates the
 * tracepoint's probe array; fxtrace_probe_register()). The selftests use
 * it to reach each ENOMEM path; it costs one atomic read per allocation,
 * and no allocation is on a probe's path.
 */
#ifndef FXTRACE_ALLOC_H
#define FXTRACE_ALLOC_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

extern atomic_t fxtrace_live_allocs;
extern atomic_t fxtrace_fail_nth;

/*
 * True for the one allocation fail_nth_allocation chose, which brings the
 * count to 0 (two allocations racing past 1 can take it to -1: no harm,
 * nothing else fails until the next write).
 */
static inline bool fxtrace_alloc_fails(void)
{
	return atomic_read(&fxtrace_fail_nth) > 0 &&
	       atomic_dec_and_test(&fxtrace_fail_nth);
}

static inline void *fxtrace_counted(void *p)
{
	if (p)
		atomic_inc(&fxtrace_live_allocs);
	return p;
}

static inline void fxtrace_uncount(const void *p)
{
	if (p)
		WARN_ON_ONCE(atomic_dec_return(&fxtrace_live_allocs) < 0);
}

static inline void *fxtrace_kzalloc(size_t size)
{
	if (fxtrace_alloc_fails())
		return NULL;
	return fxtrace_counted(kzalloc(size, GFP_KERNEL));
}

static inline void fxtrace_kfree(const void *p)
{
	fxtrace_uncount(p);
	kfree(p);
}

/*
 * Zeroed; one copy per possible CPU, each in that CPU's per-CPU area. The
 * count looks only at whether the pointer is NULL, whatever its address
 * space.
 */
static inline void __percpu *fxtrace_alloc_percpu(size_t size, size_t align)
{
	void __percpu *p;

	if (fxtrace_alloc_fails())
		return NULL;
	p = __alloc_percpu(size, align);
	fxtrace_counted((void __force *)p);
	return p;
}

static inline void fxtrace_free_percpu(void __percpu *p)
{
	fxtrace_uncount((const void __force *)p);
	free_percpu(p);
}

/* Zeroed, page-aligned, and mappable with remap_vmalloc_range(). */
static inline void *fxtrace_vmalloc_user(unsigned long size)
{
	if (fxtrace_alloc_fails())
		return NULL;
	return fxtrace_counted(vmalloc_user(size));
}

static inline void fxtrace_vfree(const void *p)
{
	fxtrace_uncount(p);
	vfree(p);
}

void fxtrace_alloc_debugfs_init(void);
void fxtrace_alloc_debugfs_exit(void);

#endif /* FXTRACE_ALLOC_H */
