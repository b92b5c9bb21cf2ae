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
 * A test running longer than HARNESS_TIMEOUT_S is killed and fails; one
 * still there HARNESS_REAP_S after that SIGKILL is stuck in the kernel: its
 * kernel stack is printed and the run bails out (the tests after it would
 * meet the same stuck device, and the VM's time is better spent on the
 * next step than on waiting).
 * The child leads a process group of its own: when the test ends, however
 * it ends, whatever it started and left running in that group is killed
 * (SIGKILL) and waited for before the next test starts (the runner is
 * the subreaper of what the test leaves orphaned), and so it is killed
 * when the runner is sent SIGINT, SIGTERM or SIGHUP.
 * Output is TAP 13; the exit status follows kselftest: 0 pass, 1 fail, 4 skip.
 * As kselftest_harness.h's, the program takes -t NAME (again for more) to
 * run only the tests named, in the file's order, and -l to list them.
 */
#ifndef FXTRACE_HARNESS_H
#define FXTRACE_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Longest any one test may run (then it is killed), unless set before. */
#ifndef HARNESS_TIMEOUT_S
#define HARNESS_TIMEOUT_S	300
#endif

/*
 * A test that runs at least this long says how long (before its result
 * line): where a VM run's time goes, when the host is slow.
 */
#define HARNESS_REPORT_S	5

/*
 * How long the runner waits for the processes of a test's group to be
 * gone once they are killed (a SIGKILLed process may still be freeing
 * a large allocation), unless set before; one still there, which left
 * the group, fails the test and is killed.
 */
#ifndef HARNESS_REAP_S
#define HARNESS_REAP_S		30
#endif

/*
 * The signal that ends a test out of time. Only harness_sample.c changes
 * it, to one its test survives: a test that does not die of it stands for
 * one stuck in the kernel, which SIGKILL does not end either.
 */
#ifndef HARNESS_TIMEOUT_SIGNAL
#define HARNESS_TIMEOUT_SIGNAL	SIGKILL
#endif

/* harness_run_one()'s result for a test its SIGKILL did not end. */
#define HARNESS_STUCK		(-1)

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
	void (*cleanup)(void);	/* in the runner, after the test; or NULL */
	int selected;		/* named by -t */
	struct harness_test *next;
};

extern struct harness_test *harness_tests;
extern int harness_failed;

/*
 * A test whose @cleanup_fn the runner calls once the test's processes are
 * gone, however it ended (an ASSERT's _exit(), a crash, the timeout's
 * kill), unless it is stuck in the kernel: for what the test sets up
 * outside itself (a kprobe event, a trace instance), which its own last
 * lines undo only when it gets there. It runs in the runner's process,
 * so it must neither fail the run nor exit.
 */
#define TEST_WITH_CLEANUP(test_name, cleanup_fn)			\
	static void test_name(void);					\
	static struct harness_test harness_##test_name = {		\
		.name = #test_name, .fn = test_name,			\
		.cleanup = cleanup_fn,					\
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

#define TEST(test_name)	TEST_WITH_CLEANUP(test_name, NULL)

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
	int main(int argc, char **argv) { return harness_main(argc, argv); }

/*
 * The process group of the test running now (its child's pid), 0 between
 * tests; and whether the timeout killed it.
 */
static volatile sig_atomic_t harness_pgrp, harness_timed_out;

/* SIGALRM: the test ran out of time; it and its group are killed. */
static void harness_on_alarm(int sig)
{
	(void)sig;
	if (harness_pgrp > 0) {
		harness_timed_out = 1;
		kill(-harness_pgrp, HARNESS_TIMEOUT_SIGNAL);
	}
}

/* SIGINT, SIGTERM, SIGHUP: take the running test's group along, then die. */
static void harness_on_stop(int sig)
{
	if (harness_pgrp > 0)
		kill(-harness_pgrp, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int harness_stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * Catch the signals above; one ignored when we started stays ignored.
 * SIGALRM interrupts the runner's wait for the test (no SA_RESTART), so
 * that the wait after the test was killed can be bounded.
 */
static inline void harness_catch_signals(void)
{
	struct sigaction sa = { .sa_flags = 0 };
	size_t i;

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = harness_on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(harness_stop_signals) / sizeof(int); i++) {
		struct sigaction old;

		sigaction(harness_stop_signals[i], NULL, &old);
		if (old.sa_handler == SIG_IGN)
			continue;
		sa.sa_handler = harness_on_stop;
		sigaction(harness_stop_signals[i], &sa, NULL);
	}
}

/* In the test's child: the dispositions the runner had before it caught. */
static inline void harness_uncatch_signals(void)
{
	size_t i;

	signal(SIGALRM, SIG_DFL);
	for (i = 0; i < sizeof(harness_stop_signals) / sizeof(int); i++) {
		struct sigaction old;

		sigaction(harness_stop_signals[i], NULL, &old);
		if (old.sa_handler == harness_on_stop)
			signal(harness_stop_signals[i], SIG_DFL);
	}
}

/*
 * After the test's group was killed and the test reaped: wait until the
 * runner has no child left, so that nothing of the test still holds the
 * device, or memory, when the next test starts (killed is not yet gone).
 * The runner is the subreaper of the processes the test left orphaned
 * (harness_run()), so they are its children now. 0, or -1 if some are
 * still there after HARNESS_REAP_S: they left the group, so no kill
 * reached them.
 */
static inline int harness_reap_rest(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	double end = now_s() + HARNESS_REAP_S;
	pid_t w;

	for (;;) {
		w = waitpid(-1, NULL, WNOHANG);
		if (w > 0 || (w < 0 && errno == EINTR))
			continue;
		if (w < 0)
			return 0;	/* ECHILD: all gone */
		if (now_s() >= end)
			return -1;
		nanosleep(&tick, NULL);
	}
}

/*
 * SIGKILL every child the runner has: after harness_reap_rest() failed,
 * those the test started that left its group, so that they do not hold up
 * the next tests too. Needs CONFIG_PROC_CHILDREN (Debian's kernels).
 */
static inline void harness_kill_children(void)
{
	char path[64];
	long child;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	f = fopen(path, "r");
	if (!f)
		return;
	while (fscanf(f, "%ld", &child) == 1)
		kill((pid_t)child, SIGKILL);
	fclose(f);
}

/*
 * After the timeout's SIGKILL: wait up to HARNESS_REAP_S for test @pid to
 * end (leaving it a zombie, as the caller's wait does). 0 once it has,
 * -1 if it is still there: stuck in the kernel, where SIGKILL waits.
 */
static inline int harness_wait_killed(pid_t pid)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	double end = now_s() + HARNESS_REAP_S;
	siginfo_t info;

	for (;;) {
		info.si_pid = 0;
		if (waitid(P_PID, pid, &info, WEXITED | WNOWAIT | WNOHANG) < 0 &&
		    errno != EINTR)
			return 0;	/* nothing to wait for: not stuck */
		if (info.si_pid == pid)
			return 0;
		if (now_s() >= end)
			return -1;
		nanosleep(&tick, NULL);
	}
}

/*
 * Where each thread of the stuck test @pid waits in the kernel: its wchan
 * and kernel stack (the stack needs root, which the VM's run has).
 */
static inline void harness_print_stuck(pid_t pid)
{
	char path[80], line[256];
	struct dirent *d;
	DIR *tasks;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	if (!tasks) {
		printf("#     %s: %s\n", path, strerror(errno));
		return;
	}
	while ((d = readdir(tasks))) {
		long tid = strtol(d->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/wchan",
			 (int)pid, tid);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f))
			printf("#     thread %ld waits in %s\n", tid, line);
		else
			printf("#     thread %ld: %s unreadable\n", tid, path);
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/stack",
			 (int)pid, tid);
		f = fopen(path, "r");
		if (!f) {
			printf("#     %s: %s\n", path, strerror(errno));
			continue;
		}
		while (fgets(line, sizeof(line), f))
			printf("#     %s", line);
		fclose(f);
	}
	closedir(tasks);
}

/*
 * Run @t in a child; a skip's reason (if any) lands in @why. Returns the
 * kselftest status, or HARNESS_STUCK.
 */
static inline int harness_run_one(struct harness_test *t, char *why,
				  size_t len)
{
	sigset_t stop, old;
	int status, p[2];
	siginfo_t info;
	double start, took;
	ssize_t n;
	pid_t pid;
	size_t i;

	why[0] = '\0';
	/*
	 * Close-on-exec: a program the test started (fxt-stress) must not
	 * hold the write end. A process it forked without exec does hold it,
	 * but is killed with the test's group below before the read, and
	 * the read does not wait for writers anyway (O_NONBLOCK): SKIP()
	 * wrote its reason before the test exited.
	 */
	if (pipe2(p, O_CLOEXEC) < 0) {
		printf("#   pipe2: %s\n", strerror(errno));
		return KSFT_FAIL;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fflush(stdout);
	/* No stop signal between fork() and harness_pgrp being set. */
	sigemptyset(&stop);
	for (i = 0; i < sizeof(harness_stop_signals) / sizeof(int); i++)
		sigaddset(&stop, harness_stop_signals[i]);
	sigprocmask(SIG_BLOCK, &stop, &old);
	harness_timed_out = 0;
	start = now_s();
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		printf("#   fork: %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		return KSFT_FAIL;
	}
	if (pid == 0) {
		setpgid(0, 0);
		harness_uncatch_signals();
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(p[0]);
		harness_skip_fd = p[1];
		t->fn();
		_exit(harness_failed ? KSFT_FAIL : KSFT_PASS);
	}
	/* Both sides set the group, so it exists whichever runs first. */
	setpgid(pid, pid);
	harness_pgrp = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	/* A hung test fails alone instead of eating the VM's time. */
	alarm(HARNESS_TIMEOUT_S);
	/*
	 * Wait for the test to end but leave it a zombie, so that its pid,
	 * which names the group, cannot be reused before the group is killed.
	 */
	while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0 &&
	       errno == EINTR) {
		if (harness_timed_out && harness_wait_killed(pid)) {
			alarm(0);
			harness_pgrp = 0;
			printf("#   timed out after %d s, and still there %d s after SIGKILL: stuck in the kernel\n",
			       HARNESS_TIMEOUT_S, HARNESS_REAP_S);
			harness_print_stuck(pid);
			kill(-pid, SIGKILL);
			close(p[0]);
			return HARNESS_STUCK;
		}
	}
	alarm(0);
	kill(-pid, SIGKILL);
	harness_pgrp = 0;
	if (waitpid(pid, &status, 0) < 0) {
		close(p[0]);
		return KSFT_FAIL;
	}
	if (harness_reap_rest()) {
		printf("#   processes the test started still run %d s after it ended, outside its process group: killed\n",
		       HARNESS_REAP_S);
		harness_kill_children();
		if (harness_reap_rest())
			printf("#   and still there %d s later\n",
			       HARNESS_REAP_S);
		close(p[0]);
		return KSFT_FAIL;
	}
	n = read(p[0], why, len - 1);
	why[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (harness_timed_out) {
		printf("#   timed out after %d s\n", HARNESS_TIMEOUT_S);
		return KSFT_FAIL;
	}
	took = now_s() - start;
	if (took >= HARNESS_REPORT_S)
		printf("#   took %.1f s\n", took);
	if (WIFSIGNALED(status)) {
		printf("#   killed by signal %d\n", WTERMSIG(status));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

/* With -t, only the tests it named run, and only they are in the plan. */
static inline int harness_runs(const struct harness_test *t, int filtered)
{
	return !filtered || t->selected;
}

static inline int harness_run(int filtered)
{
	int n = 0, i = 0, pass = 0, fail = 0, skip = 0;
	struct harness_test *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	harness_catch_signals();
	/* What a test leaves orphaned is ours to wait for (Linux >= 3.4). */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		printf("#   PR_SET_CHILD_SUBREAPER: %s (a test's orphans are not waited for)\n",
		       strerror(errno));
	for (t = harness_tests; t; t = t->next)
		n += harness_runs(t, filtered);
	printf("TAP version 13\n1..%d\n", n);
	for (t = harness_tests; t; t = t->next) {
		char why[160];
		int r;

		if (!harness_runs(t, filtered))
			continue;
		r = harness_run_one(t, why, sizeof(why));

		i++;
		/* A stuck test may still hold what the cleanup would undo. */
		if (t->cleanup && r != HARNESS_STUCK) {
			fflush(stdout);
			t->cleanup();
			fflush(stdout);
		}
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
		if (r == HARNESS_STUCK) {
			printf("Bail out! %s is stuck in the kernel; %d test(s) after it not run\n",
			       t->name, n - i);
			break;
		}
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return pass ? KSFT_PASS : KSFT_SKIP;
}

static inline void harness_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t NAME]... [-l]\n"
		"Run this program's tests, each in a process of its own, and print TAP 13.\n"
		"Exit status: 0 all passed, 1 a test failed (or a usage error), 4 all skipped.\n"
		"  -t, --test NAME  run only the test NAME (again for more; in the file's order)\n"
		"  -l, --list       print the tests' names, one a line, and run none\n"
		"  -h, --help       this help\n", prog);
}

static inline int harness_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "test", required_argument, NULL, 't' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct harness_test *t;
	int c, filtered = 0;

	while ((c = getopt_long(argc, argv, "t:lh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			for (t = harness_tests; t && strcmp(t->name, optarg);
			     t = t->next)
				;
			if (!t) {
				fprintf(stderr, "%s: no test named '%s' in this program ('%s -l' lists them)\n",
					argv[0], optarg, argv[0]);
				return KSFT_FAIL;
			}
			t->selected = 1;
			filtered = 1;
			break;
		case 'l':
			for (t = harness_tests; t; t = t->next)
				printf("%s\n", t->name);
			return KSFT_PASS;
		case 'h':
			harness_usage(stdout, argv[0]);
			return KSFT_PASS;
		default:
			harness_usage(stderr, argv[0]);
			return KSFT_FAIL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (a test is named with -t NAME)\n",
			argv[0], argv[optind]);
		return KSFT_FAIL;
	}
	return harness_run(filtered);
}

#endif /* FXTRACE_HARNESS_H */
