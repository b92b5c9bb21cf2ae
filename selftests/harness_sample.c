// SPDX-License-Identifier: GPL-2.0
/*
 * harness_sample.c - tests whose outcomes are known, for harness_check.sh
 *
 * Built once for each HARNESS_SET; harness_check.sh compares each
 * program's TAP and exit status with what harness.h must print:
 *
 *	1  every outcome: pass, EXPECT failure, ASSERT failure, SKIP, SKIP
 *	   after a failed EXPECT, a crash, a timeout (exit 1)
 *	2  passes only (exit 0)
 *	3  skips only (exit 4)
 *	4  a pass and a skip (exit 0)
 *	5  a skip after a failed EXPECT, alone (exit 1, not 4)
 *	6  a timeout, a skip and a pass, each test leaving behind a helper
 *	   it forked without exec (so holding the skip-reason pipe) that
 *	   would sleep HELPER_S: each test must end within the timeout, the
 *	   skip keep its reason, and every helper be killed with its test
 *	   and gone (not even a zombie) before the next test starts, as a
 *	   fourth test checks (exit 1)
 *	7  a test and its helper, both asleep, until the runner is sent
 *	   SIGTERM: both must die with it
 *	8  a test whose helper leaves its process group, so the group's
 *	   kill misses it: the test fails once the runner has waited
 *	   HARNESS_REAP_S for it, the runner kills it, and the next test
 *	   passes without waiting (exit 1)
 *	9  a test that survives the timeout's signal (SIGCONT here, where
 *	   the real harness sends SIGKILL), as a test stuck in the kernel
 *	   survives SIGKILL: once the runner has waited HARNESS_REAP_S for
 *	   it, it says so, prints where the test's threads wait, and bails
 *	   out without running the next test (exit 1); its cleanup is
 *	   not run
 *	10 tests with a cleanup, ended by an ASSERT, a crash, the timeout
 *	   and their end: the runner calls each cleanup once, in its own
 *	   process, before the test's result line; then a test without
 *	   one (exit 1)
 */
#define _GNU_SOURCE
#if HARNESS_SET == 7
#define HARNESS_TIMEOUT_S	60	/* SIGTERM ends it, not the timeout */
#else
#define HARNESS_TIMEOUT_S	1
#endif
#define HARNESS_REAP_S		1
#if HARNESS_SET == 9
#define HARNESS_TIMEOUT_SIGNAL	SIGCONT
#endif
#include "harness.h"

#if HARNESS_SET == 1 || HARNESS_SET == 2 || HARNESS_SET == 4
TEST(passes)
{
	EXPECT_EQ(1, 1);
	ASSERT_EQ(2, 2);
	EXPECT_LE(-1, 0U);	/* a negative int is below any unsigned */
	printf("# passes: reached its end\n");
}
#endif

#if HARNESS_SET == 1
TEST(fails_by_expect)
{
	EXPECT_EQ(1, 2);
	printf("# fails_by_expect: went on after the EXPECT\n");
}

TEST(fails_by_assert)
{
	ASSERT_EQ(3, 4);
	printf("# fails_by_assert: went on after the ASSERT\n");
}
#endif

#if HARNESS_SET == 1 || HARNESS_SET == 3 || HARNESS_SET == 4
TEST(skips)
{
	SKIP("no %s here", "device");
	printf("# skips: went on after the SKIP\n");
}
#endif

#if HARNESS_SET == 3
TEST(skips_too)
{
	EXPECT_EQ(5, 5);	/* a passed EXPECT does not undo the skip */
	SKIP("nothing either");
}
#endif

#if HARNESS_SET == 1 || HARNESS_SET == 5
TEST(fails_by_expect_then_skips)
{
	EXPECT_EQ(6, 7);
	SKIP("skipped after a failure");
}
#endif

#if HARNESS_SET == 6 || HARNESS_SET == 7
#define HELPER_S	8

#include <sys/mman.h>

/* The helpers' pids, shared by every test's process (set 6's last reads). */
static pid_t *helpers;
static int helpers_max = 16;

__attribute__((constructor))
static void helpers_map(void)
{
	void *p = mmap(NULL, helpers_max * sizeof(*helpers),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	helpers = p == MAP_FAILED ? NULL : p;
}

/*
 * A helper forked without exec: it inherits the skip-reason pipe and
 * would outlive its test by HELPER_S. Prints its pid for harness_check.sh.
 */
static void fork_helper(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		sleep(HELPER_S);
		_exit(0);
	}
	printf("# helper %d\n", (int)pid);
	ASSERT_TRUE(helpers != NULL);
	for (int i = 0; i < helpers_max; i++)
		if (__sync_bool_compare_and_swap(&helpers[i], 0, pid))
			break;
}
#endif

#if HARNESS_SET == 6
TEST(times_out_leaving_a_helper)
{
	fork_helper();
	pause();
}

TEST(skips_leaving_a_helper)
{
	fork_helper();
	SKIP("a helper is still running");
}

TEST(passes_leaving_a_helper)
{
	fork_helper();
}

/* Not there at all: kill() finds a zombie too. */
TEST(earlier_tests_helpers_are_gone)
{
	int i, n = 0;

	ASSERT_TRUE(helpers != NULL);
	for (i = 0; i < helpers_max && helpers[i]; i++) {
		n++;
		EXPECT_TRUE(kill(helpers[i], 0) == -1 && errno == ESRCH);
	}
	EXPECT_EQ(3, n);
}
#endif

#if HARNESS_SET == 7
TEST(sleeps_with_a_helper)
{
	printf("# test %d\n", (int)getpid());
	fork_helper();
	sleep(HELPER_S);
}
#endif

#if HARNESS_SET == 8
/* A helper in a process group of its own, asleep for 8 s. */
TEST(leaves_a_helper_outside_its_group)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		sleep(8);
		_exit(0);
	}
	/* Both sides: out of the group before the test ends. */
	setpgid(pid, pid);
}

TEST(passes_after_it)
{
	printf("# passes_after_it: ran\n");
}
#endif

#if HARNESS_SET == 9 || HARNESS_SET == 10
static pid_t runner_pid;

__attribute__((constructor))
static void runner_pid_note(void)
{
	runner_pid = getpid();
}

/* Says where it runs: harness_check.sh wants the runner, every time. */
static void cleanup_note(void)
{
	printf("# cleanup: %s\n", getpid() == runner_pid ?
	       "in the runner" : "NOT in the runner");
}
#endif

#if HARNESS_SET == 9
TEST_WITH_CLEANUP(survives_its_kill, cleanup_note)
{
	printf("# test %d\n", (int)getpid());
	for (;;)
		pause();
}

TEST(not_run_after_it)
{
	printf("# not_run_after_it: ran\n");
}
#endif

#if HARNESS_SET == 1
TEST(crashes)
{
	raise(SIGSEGV);
}

TEST(times_out)
{
	pause();
}
#endif

#if HARNESS_SET == 10
TEST_WITH_CLEANUP(fails_by_assert_with_cleanup, cleanup_note)
{
	ASSERT_EQ(3, 4);
}

TEST_WITH_CLEANUP(crashes_with_cleanup, cleanup_note)
{
	raise(SIGSEGV);
}

TEST_WITH_CLEANUP(times_out_with_cleanup, cleanup_note)
{
	pause();
}

TEST_WITH_CLEANUP(passes_with_cleanup, cleanup_note)
{
	printf("# passes_with_cleanup: reached its end\n");
}

TEST(passes_without_cleanup)
{
	printf("# passes_without_cleanup: reached its end\n");
}
#endif

TEST_MAIN()
