/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - a small test harness in the style of kselftest_harness.h
 *
 *	TEST(name) { ASSERT_EQ(0, f()); EXPECT_EQ(1, g()); }
 *	TEST_MAIN()
 *
 * Every test runs in its own child process, so a failed ASSERT_* ends only
 * that test and every file descriptor (our one /dev/fxtrace session) is
 * closed before the next test starts. ASSERT_* stops the test, EXPECT_*
 * records the failure and goes on, SKIP() ends it as skipped with a reason.
 * A test running longer than HARNESS_TIMEOUT_S is killed and fails.
 * Output is TAP 13; the exit status follows kselftest: 0 pass, 1 fail, 4 skip.
 */
#ifndef FXTRACE_HARNESS_H
#define FXTRACE_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Longest any one test may run (SIGALRM ends it), unless set before. */
#ifndef HARNESS_TIMEOUT_S
#define HARNESS_TIMEOUT_S	300
#endif

/* Seconds on CLOCK_MONOTONIC, for tests that time what they do. */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

struct harness_test {
	const char *name;
	void (*fn)(void);
	struct harness_test *next;
};

extern struct harness_test *harness_tests;
extern int harness_failed;

#define TEST(test_name)							\
	static void test_name(void);					\
	static struct harness_test harness_##test_name = {		\
		.name = #test_name, .fn = test_name,			\
	};								\
	__attribute__((constructor))					\
	static void harness_register_##test_name(void)			\
	{								\
		struct harness_test **p = &harness_tests;		\
		while (*p)						\
			p = &(*p)->next;				\
		*p = &harness_##test_name;				\
	}								\
	static void test_name(void)

#define HARNESS_CHECK(cond, fatal, fmt, ...) do {			\
	if (!(cond)) {							\
		printf("#   %s:%d: " fmt "\n", __FILE__, __LINE__,	\
		       ##__VA_ARGS__);					\
		fflush(stdout);						\
		harness_failed = 1;					\
		if (fatal)						\
			_exit(KSFT_FAIL);				\
	}								\
} while (0)

/*
 * The comparisons compare values, whatever the operands' types: a wrapped
 * u64 difference is huge (not negative), a negative int is below any u64.
 */
#define HARNESS_SIGNED(x)						\
	_Generic((x) + 0, int: 1, long: 1, long long: 1, default: 0)

/* -1, 0 or 1: @a (negative if @a_neg) is below, equal to or above @b. */
static inline int harness_cmp(unsigned long long a, int a_neg,
			      unsigned long long b, int b_neg)
{
	if (a_neg != b_neg)
		return a_neg ? -1 : 1;
	return a < b ? -1 : a > b;
}

#define HARNESS_CMP(exp, got, op, fatal) do {				\
	unsigned long long _e = (unsigned long long)(exp);		\
	unsigned long long _g = (unsigned long long)(got);		\
	int _en = HARNESS_SIGNED(exp) && (long long)_e < 0;		\
	int _gn = HARNESS_SIGNED(got) && (long long)_g < 0;		\
									\
	HARNESS_CHECK(harness_cmp(_e, _en, _g, _gn) op 0, fatal,	\
		      "expected %s (%s%llu) " #op " %s (%s%llu)",	\
		      #exp, _en ? "-" : "", _en ? -_e : _e,		\
		      #got, _gn ? "-" : "", _gn ? -_g : _g);		\
} while (0)

#define ASSERT_EQ(exp, got)	HARNESS_CMP(exp, got, ==, 1)
#define ASSERT_NE(exp, got)	HARNESS_CMP(exp, got, !=, 1)
#define ASSERT_LE(exp, got)	HARNESS_CMP(exp, got, <=, 1)
#define ASSERT_GE(exp, got)	HARNESS_CMP(exp, got, >=, 1)
#define ASSERT_TRUE(c)		HARNESS_CHECK(c, 1, "%s is false", #c)
#define EXPECT_EQ(exp, got)	HARNESS_CMP(exp, got, ==, 0)
#define EXPECT_NE(exp, got)	HARNESS_CMP(exp, got, !=, 0)
#define EXPECT_LE(exp, got)	HARNESS_CMP(exp, got, <=, 0)
#define EXPECT_GE(exp, got)	HARNESS_CMP(exp, got, >=, 0)
#define EXPECT_TRUE(c)		HARNESS_CHECK(c, 0, "%s is false", #c)

/* A call that must fail with a given errno. */
#define ASSERT_ERRNO(err, call) do {					\
	errno = 0;							\
	long _r = (long)(call);						\
	HARNESS_CHECK(_r == -1 && errno == (err), 1,			\
		      "%s returned %ld errno %d (%s), expected errno %d (%s)", \
		      #call, _r, errno, strerror(errno), err, strerror(err)); \
} while (0)

/*
 * A skipped test's reason goes to the runner through a pipe, so that its
 * TAP line says it ("ok 3 name # SKIP reason"), as kselftest's do.
 */
static int harness_skip_fd = -1;

#define SKIP(fmt, ...) do {						\
	char _why[160];							\
	int _n = snprintf(_why, sizeof(_why), fmt, ##__VA_ARGS__);	\
									\
	printf("#   SKIP: %s\n", _why);					\
	fflush(stdout);							\
	if (harness_skip_fd >= 0 && _n > 0 &&				\
	    write(harness_skip_fd, _why, strlen(_why)) < 0)		\
		printf("#   (the reason did not reach the runner)\n");	\
	/* A skip must not hide an EXPECT that already failed. */	\
	_exit(harness_failed ? KSFT_FAIL : KSFT_SKIP);			\
} while (0)

#define TEST_MAIN()							\
	struct harness_test *harness_tests;				\
	int harness_failed;						\
	int main(void) { return harness_run(); }

/* Run @t in a child; a skip's reason (if any) lands in @why. */
static inline int harness_run_one(struct harness_test *t, char *why,
				  size_t len)
{
	int status, p[2];
	ssize_t n;
	pid_t pid;

	why[0] = '\0';
	/*
	 * Close-on-exec: a program the test started (fxt-stress) may outlive
	 * it, and must not hold the write end, or read() below waits for it.
	 */
	if (pipe2(p, O_CLOEXEC) < 0) {
		printf("#   pipe2: %s\n", strerror(errno));
		return KSFT_FAIL;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("#   fork: %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		return KSFT_FAIL;
	}
	if (pid == 0) {
		close(p[0]);
		harness_skip_fd = p[1];
		/* A hung test fails alone instead of eating the VM's time. */
		alarm(HARNESS_TIMEOUT_S);
		t->fn();
		_exit(harness_failed ? KSFT_FAIL : KSFT_PASS);
	}
	close(p[1]);
	if (waitpid(pid, &status, 0) < 0) {
		close(p[0]);
		return KSFT_FAIL;
	}
	n = read(p[0], why, len - 1);
	why[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		printf("#   timed out after %d s\n", HARNESS_TIMEOUT_S);
		return KSFT_FAIL;
	}
	if (WIFSIGNALED(status)) {
		printf("#   killed by signal %d\n", WTERMSIG(status));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

static inline int harness_run(void)
{
	int n = 0, i = 0, pass = 0, fail = 0, skip = 0;
	struct harness_test *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = harness_tests; t; t = t->next)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	for (t = harness_tests; t; t = t->next) {
		char why[160];
		int r = harness_run_one(t, why, sizeof(why));

		i++;
		if (r == KSFT_PASS) {
			pass++;
			printf("ok %d %s\n", i, t->name);
		} else if (r == KSFT_SKIP) {
			skip++;
			printf("ok %d %s # SKIP %s\n", i, t->name, why);
		} else {
			fail++;
			printf("not ok %d %s\n", i, t->name);
		}
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return pass ? KSFT_PASS : KSFT_SKIP;
}

#endif /* FXTRACE_HARNESS_H */
