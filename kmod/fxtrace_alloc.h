/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_alloc.h - every allocation the module makes, counted
 *
 * Debian's kernels have no kmemleak, so the module counts its own live
 * allocations and shows the count in debugfs (fxtrace/live_allocations).
 * The selftests check that it returns to zero whenever no session is open.
 * Each wrapper counts only allocations that succeeded; each free wrapper
 * accepts NULL, like the function it wraps.
 */
#ifndef FXTRACE_ALLOC_H
#define FXTRACE_ALLOC_H

#include <linux/atomic.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

extern atomic_t fxtrace_live_allocs;

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
	return fxtrace_counted(kzalloc(size, GFP_KERNEL));
}

static inline void *fxtrace_kzalloc_node(size_t size, int node)
{
	return fxtrace_counted(kzalloc_node(size, GFP_KERNEL, node));
}

static inline void *fxtrace_kcalloc(size_t n, size_t size)
{
	return fxtrace_counted(kcalloc(n, size, GFP_KERNEL));
}

static inline void fxtrace_kfree(const void *p)
{
	fxtrace_uncount(p);
	kfree(p);
}

/* Zeroed, page-aligned, and mappable with remap_vmalloc_range(). */
static inline void *fxtrace_vmalloc_user(unsigned long size)
{
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
