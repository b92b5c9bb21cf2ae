// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-threads - threads born and gone during a trace, each with its own name
 *
 * Starts --count threads (default 200), --batch at a time. Each one renames
 * itself ("thr-NNN", so the name it is born with is not the one it must
 * end up with), sleeps briefly a few times so it has scheduling records,
 * and exits. Each lives a few milliseconds, far less than fxt-collect's
 * drain interval, so only the kernel's own name records (task_rename,
 * sched_wakeup_new) can name it. --expect writes the pid and every
 * thread's tid and name as JSON for scripts/perfetto/check-names.mjs.
 *
 * --reuse N then reuses tids on purpose, N times: a thread "old-K" exits,
 * /proc/sys/kernel/ns_last_pid is set so that the next thread, "new-K",
 * gets the same tid, and the pair goes into the JSON ("reused"). The trace
 * must name that tid "new-K" from the second thread's birth on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define NAP_NS		200000	/* 0.2 ms: one sleep and one wakeup */
#define NAPS		3
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"
#define REUSE_TRIES	5	/* another task may take the tid first */

struct worker {
	pthread_t thread;
	pid_t tid;
	char name[16];
};

static void die(const char *what, int err)
{
	fprintf(stderr, "fxt-threads: %s: %s\n", what, strerror(err));
	exit(1);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct timespec nap = { 0, NAP_NS };
	int i;

	w->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_SET_NAME, w->name);
	for (i = 0; i < NAPS; i++)
		nanosleep(&nap, NULL);
	return NULL;
}

static void run_one(struct worker *w)
{
	int err = pthread_create(&w->thread, NULL, work, w);

	if (err)
		die("pthread_create", err);
	err = pthread_join(w->thread, NULL);
	if (err)
		die("pthread_join", err);
}

/* Make the next new task get @tid, if nothing else forks first. */
static void set_next_tid(pid_t tid)
{
	FILE *f = fopen(NS_LAST_PID, "w");

	if (!f)
		die(NS_LAST_PID, errno);
	fprintf(f, "%d\n", tid - 1);
	if (fclose(f))
		die(NS_LAST_PID, errno);
}

/* Threads old-K then new-K with the same tid; 0 if the tid was taken. */
static int reuse_tid(struct worker *old, struct worker *new, int k)
{
	int try;

	for (try = 0; try < REUSE_TRIES; try++) {
		snprintf(old->name, sizeof(old->name), "old-%03d", k);
		snprintf(new->name, sizeof(new->name), "new-%03d", k);
		run_one(old);
		set_next_tid(old->tid);
		run_one(new);
		if (new->tid == old->tid)
			return 1;
	}
	fprintf(stderr, "fxt-threads: tid %d was not reused in %d tries\n",
		old->tid, REUSE_TRIES);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-threads [--count N] [--batch B] [--reuse R] [--expect FILE]\n"
"\n"
"Start N short-lived threads (default 200), B at a time (default 10). Each\n"
"names itself thr-NNN, naps %d times for %d us and exits. --expect writes\n"
"{\"pid\": P, \"threads\": [{\"tid\": T, \"name\": \"thr-000\"}, ...],\n"
" \"reused\": [{\"tid\": T, \"old\": \"old-000\", \"new\": \"new-000\"}, ...]}.\n"
"--reuse R then makes R pairs of threads old-K, new-K share a tid (root:\n"
"it writes " NS_LAST_PID "); exit 1 if a tid could not be reused.\n"
"\n"
"EXAMPLE\n"
"  fxt-collect -o names.fxt -- fxt-threads --expect names.json\n",
		NAPS, NAP_NS / 1000);
}

static void write_expect(const char *file, const struct worker *w, int n,
			 const struct worker *reused, int nreused)
{
	FILE *f = fopen(file, "w");
	int i;

	if (!f)
		die(file, errno);
	fprintf(f, "{\"pid\": %d, \"threads\": [", getpid());
	for (i = 0; i < n; i++)
		fprintf(f, "%s{\"tid\": %d, \"name\": \"%s\"}", i ? ", " : "",
			w[i].tid, w[i].name);
	fprintf(f, "], \"reused\": [");
	for (i = 0; i < nreused; i++)
		fprintf(f, "%s{\"tid\": %d, \"old\": \"%s\", \"new\": \"%s\"}",
			i ? ", " : "", reused[2 * i].tid, reused[2 * i].name,
			reused[2 * i + 1].name);
	fprintf(f, "]}\n");
	if (fclose(f))
		die(file, errno);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'b' },
		{ "expect", required_argument, NULL, 'e' },
		{ "reuse", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *expect = NULL;
	int count = 200, batch = 10, reuse = 0, nreused = 0, opt, i, j, err;
	struct worker *w, *pairs = NULL;

	while ((opt = getopt_long(argc, argv, "n:b:e:r:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			count = (int)cli_long("fxt-threads", "--count", optarg, 1, 100000);
			break;
		case 'b':
			batch = (int)cli_long("fxt-threads", "--batch", optarg, 1, 100000);
			break;
		case 'e':
			expect = optarg;
			break;
		case 'r':
			reuse = (int)cli_long("fxt-threads", "--reuse", optarg, 1, 100000);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	cli_no_operands("fxt-threads", argc, argv, optind);

	w = calloc(count, sizeof(*w));
	if (!w)
		die("calloc", ENOMEM);
	for (i = 0; i < count; i += batch) {
		for (j = i; j < count && j < i + batch; j++) {
			snprintf(w[j].name, sizeof(w[j].name), "thr-%03d", j);
			err = pthread_create(&w[j].thread, NULL, work, &w[j]);
			if (err)
				die("pthread_create", err);
		}
		for (j = i; j < count && j < i + batch; j++) {
			err = pthread_join(w[j].thread, NULL);
			if (err)
				die("pthread_join", err);
		}
	}
	if (reuse) {
		pairs = calloc(2 * (size_t)reuse, sizeof(*pairs));
		if (!pairs)
			die("calloc", ENOMEM);
		for (i = 0; i < reuse; i++)
			nreused += reuse_tid(&pairs[2 * nreused],
					     &pairs[2 * nreused + 1], i);
	}
	if (expect)
		write_expect(expect, w, count, pairs, nreused);
	free(w);
	free(pairs);
	return nreused == reuse ? 0 : 1;
}
