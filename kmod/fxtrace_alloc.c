// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_alloc.c - the live-allocation count and its debugfs file
 */
#include <linux/debugfs.h>

#include "fxtrace_alloc.h"

atomic_t fxtrace_live_allocs = ATOMIC_INIT(0);

static struct dentry *fxtrace_debugfs_dir;

/**
 * fxtrace_alloc_debugfs_init() - create <debugfs>/fxtrace/live_allocations
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
