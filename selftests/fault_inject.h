/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault_inject.h - make the module's Nth allocation fail, to reach each of
 * its ENOMEM paths (Debian's kernels have no fault injection of their own;
 * kmod/fxtrace_alloc.h has the module's)
 *
 *	ASSERT_ENOMEM_AT(2, ioctl(fd, FXTRACE_IOC_CONFIGURE, &cfg));
 *
 * arms the knob, makes the call, disarms the knob whatever happened, and
 * then checks that the call failed with ENOMEM and used the failure: an
 * armed knob is never left behind for the next test's open().
 */
#ifndef FXTRACE_FAULT_INJECT_H
#define FXTRACE_FAULT_INJECT_H

#include "fxtrace_dev.h"

#define FXTRACE_FAIL_NTH_PATH "/sys/kernel/debug/fxtrace/fail_nth_allocation"

/*
 * Write @nth to the knob (0 disarms). Without the knob (debugfs not
 * mounted, or a module without it) the test is skipped, but fails in the
 * test VM (FXTRACE_VM=1), where the module under test has it and
 * vm-run.sh mounts debugfs: there, every ENOMEM test must run.
 */
static inline void fail_nth_allocation(int nth)
{
	const char *vm = getenv("FXTRACE_VM");
	FILE *f;

	if (access(FXTRACE_FAIL_NTH_PATH, F_OK)) {
		HARNESS_CHECK(!vm || strcmp(vm, "1"), 1,
			      "%s missing in the test VM (FXTRACE_VM=1)",
			      FXTRACE_FAIL_NTH_PATH);
		SKIP("%s missing: mount debugfs (mount -t debugfs none /sys/kernel/debug), and load a module that has it",
		     FXTRACE_FAIL_NTH_PATH);
	}
	f = fopen(FXTRACE_FAIL_NTH_PATH, "w");
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fprintf(f, "%d\n", nth) > 0);
	ASSERT_EQ(0, fclose(f));
}

/* Disarm the knob; return what was left of its count (0: it fired). */
static inline long long fail_nth_allocation_disarm(void)
{
	long long left = debugfs_number(FXTRACE_FAIL_NTH_PATH);

	fail_nth_allocation(0);
	return left;
}

/* @call, with the module's @nth allocation from now failing: ENOMEM. */
#define ASSERT_ENOMEM_AT(nth, call) do {				\
	long _r;							\
	int _e;								\
	long long _left;						\
									\
	fail_nth_allocation(nth);					\
	errno = 0;							\
	_r = (long)(call);						\
	_e = errno;							\
	_left = fail_nth_allocation_disarm();				\
	HARNESS_CHECK(_left == 0, 1,					\
		      "%s: allocation %d was never made (%lld left)",	\
		      #call, (int)(nth), _left);			\
	HARNESS_CHECK(_r == -1 && _e == ENOMEM, 1,			\
		      "%s returned %ld errno %d (%s), expected ENOMEM",	\
		      #call, _r, _e, strerror(_e));			\
} while (0)

#endif /* FXTRACE_FAULT_INJECT_H */
