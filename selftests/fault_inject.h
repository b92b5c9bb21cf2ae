/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault_inject.h - make the module's Nth allocation fail, to reach each of
 * its ENOMEM paths (Debian's kernels have no fault injection of their own;
 * kmod/fxtrace_alloc.h has the module's).
 */
#ifndef FXTRACE_FAULT_INJECT_H
#define FXTRACE_FAULT_INJECT_H

#include "fxtrace_dev.h"

#define FXTRACE_FAIL_NTH_PATH "/sys/kernel/debug/fxtrace/fail_nth_allocation"

/* Read the knob: -1 when it is absent. */
static inline long long fail_nth_allocation_left(void)
{
	FILE *f = fopen(FXTRACE_FAIL_NTH_PATH, "r");
	long long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -2;
	fclose(f);
	return n;
}

/*
 * The @nth allocation the module makes from now on fails (1: the next);
 * 0 disarms. Skips the test where the knob is missing (debugfs not mounted,
 * or a module without it).
 */
static inline void fail_nth_allocation(int nth)
{
	FILE *f;

	if (access(FXTRACE_FAIL_NTH_PATH, F_OK))
		SKIP("%s missing: mount debugfs (mount -t debugfs none /sys/kernel/debug), and load a module that has it",
		     FXTRACE_FAIL_NTH_PATH);
	f = fopen(FXTRACE_FAIL_NTH_PATH, "w");
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fprintf(f, "%d\n", nth) > 0);
	ASSERT_EQ(0, fclose(f));
}

/* The armed failure happened: the knob counted down to 0. */
static inline void expect_injected_failure_used(void)
{
	EXPECT_EQ(0, fail_nth_allocation_left());
}

#endif /* FXTRACE_FAULT_INJECT_H */
