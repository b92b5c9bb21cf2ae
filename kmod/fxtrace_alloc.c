// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_alloc.c - the live-allocation count, the allocation fault
 * injection, and their debugfs files
 */
#include <linux/debugfs.h>

#include "fxtrace_alloc.h"

atomic_t fxtrace_live_allocs = ATOMIC_INIT(0);
/* 0: no allocation is made to fail (fxtrace_alloc_fails()). */
atomic_t fxtrace_fail_nth = ATOMIC_INIT(0);

static struct dentry *fxtrace_debugfs_dir;

/**
 * fxtrace_alloc_debugfs_init() - create <debugfs>/fxtrace/live_allocations
 * and <debugfs>/fxtrace/fail_nth_allocation
 *
 * debugfs is a debugging aid: a kernel without it (or a failure to create
 * the files) does not stop the module from loading, and the debugfs calls
 * accept the error pointers they return.
 */
void fxtrace_alloc_debugfs_init(void)
{
	fxtrace_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_atomic_t("live_allocations", 0400, fxtrace_debugfs_dir,
				&fxtrace_live_allocs);
	debugfs_create_atomic_t("fail_nth_allocation", 0600,
				fxtrace_debugfs_dir, &fxtrace_fail_nth);
}

/**
 * fxtrace_alloc_debugfs_exit() - remove the debugfs files at module unload
 *
 * Also the last check of the count: with no session left, every area the
 * module allocated must have been freed, or one leaked.
 */
void fxtrace_alloc_debugfs_exit(void)
{
	debugfs_remove(fxtrace_debugfs_dir);
	/* No session can exist at unload, so everything must be freed. */
	WARN_ON_ONCE(atomic_read(&fxtrace_live_allocs));
}
