// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-signal - run a command and send it a signal at a precise moment
 *
 *   fxt-signal [--signal SIG] [--after SECONDS] [--repeat N]
 *              [--interval SECONDS] -- COMMAND [ARG...]
 *
 * For the "collector interrupted at any moment" tests. The shell cannot do
 * this itself: a background job of a non-interactive shell starts with
 * SIGINT ignored (until the program installs a handler, which hides the
 * moment before it does), and busybox timeout only counts whole seconds.
 * Here COMMAND starts with SIGINT, SIGTERM and SIGQUIT at their defaults and
 * nothing blocked, and the signal goes out --after seconds (fractions, down
 * to 0) after the fork, unless COMMAND has ended by then.
 *
 * Exit status: COMMAND's (128+N if signal N killed it), 2 usage, 125 fork or
 * exec failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "time_left.h"

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{ "INT", SIGINT }, { "TERM", SIGTERM }, { "KILL", SIGKILL },
	{ "QUIT", SIGQUIT }, { "HUP", SIGHUP }, { "USR1", SIGUSR1 },
};

static int parse_signal(const char *s)
{
	unsigned int i;
	char *end;
	long n;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (!strcmp(s, signals[i].name))
			return signals[i].sig;
	n = strtol(s, &end, 10);
	return *s && !*end && n > 0 && n < NSIG ? (int)n : -1;
}

static double parse_seconds(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 3600) {
		fprintf(stderr, "fxt-signal: %s takes seconds from 0 to 3600, not '%s'\n",
			opt, s);
		exit(2);
	}
	return v;
}

/*
 * Wait up to @s seconds for the child @pid to exit: true, with its status
 * in @status, if it did. A COMMAND that ends before --after ends
 * fxt-signal then, not at --after (a test may stop COMMAND itself and keep
 * this signal as a late backstop). SIGCHLD is blocked (main()), so it
 * waits for sigtimedwait(); it also comes when the child stops or
 * continues (the tests SIGSTOP the collector): then this waits again.
 */
static bool child_exited_within(pid_t pid, double s, int *status)
{
	struct timespec end, left;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)s;
	end.tv_nsec += (long)((s - (time_t)s) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		if (!time_left(&end, &left))
			return false;
		if (sigtimedwait(&chld, NULL, &left) < 0 && errno == EAGAIN)
			return false;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-signal [--signal SIG] [--after SECONDS] [--repeat N]\n"
"                  [--interval SECONDS] -- COMMAND [ARG...]\n"
"\n"
"Run COMMAND with default signal dispositions and send it SIG (default INT;\n"
"INT, TERM, KILL, QUIT, HUP, USR1 or a number) --after SECONDS (default 0,\n"
"fractions allowed) from the fork, --repeat N times (default 1) --interval\n"
"SECONDS apart (default 0.01); no signal once COMMAND has ended, and\n"
"fxt-signal ends with it. Prints what it sent to stderr.\n"
"Exit status: COMMAND's (128+N if signal N killed it), 2 usage, 125 fork or\n"
"exec failed.\n"
"\n"
"EXAMPLES\n"
"  fxt-signal --after 0.02 -- fxt-collect -o t.fxt   # SIGINT during setup\n"
"  fxt-signal --after 1 --repeat 2 -- fxt-collect -o t.fxt\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "signal", required_argument, NULL, 's' },
		{ "after", required_argument, NULL, 'a' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double after = 0, interval = 0.01;
	int sig = SIGINT, repeat = 1, opt, i, status, sent = 0;
	struct sigaction dfl;
	sigset_t none, chld;
	char *end;
	pid_t pid;

	while ((opt = getopt_long(argc, argv, "+s:a:r:i:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sig = parse_signal(optarg);
			if (sig < 0) {
				fprintf(stderr, "fxt-signal: unknown signal '%s'\n", optarg);
				return 2;
			}
			break;
		case 'a':
			after = parse_seconds("--after", optarg);
			break;
		case 'r':
			repeat = (int)strtol(optarg, &end, 10);
			if (*end || repeat < 1 || repeat > 100) {
				fprintf(stderr, "fxt-signal: --repeat takes 1 to 100, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			interval = parse_seconds("--interval", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "fxt-signal: no COMMAND\n");
		usage(stderr);
		return 2;
	}

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);	/* for child_exited_within() */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fxt-signal: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGQUIT, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "fxt-signal: cannot run %s: %s\n", argv[optind],
			strerror(errno));
		_exit(125);
	}

	if (child_exited_within(pid, after, &status))
		goto reaped;
	for (i = 0; i < repeat; i++) {
		/* Not after it was reaped: that pid may be someone else's. */
		if (i && child_exited_within(pid, interval, &status))
			goto reaped;
		if (waitpid(pid, &status, WNOHANG) == pid)
			goto reaped;
		if (kill(pid, sig) == 0)
			sent++;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
reaped:
	fprintf(stderr, "fxt-signal: sent signal %d %d time(s) to %s (pid %d) from %.3f s\n",
		sig, sent, argv[optind], (int)pid, after);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
