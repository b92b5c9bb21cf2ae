// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-pingpong - a known scheduler workload for the end-to-end tests
 *
 * One process ("fxt-pingpong") with two named threads, "ping" and "pong",
 * each pinned to its own CPU, passing one byte back and forth over two pipes.
 * Every round trip is two wakeups and at least two blocking context switches.
 * It writes what a trace of it must contain (pid, tids, names, CPUs) as JSON,
 * for the in-VM checker and for Perfetto's trace_processor on the host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "cpu_pin.h"

struct player {
	const char *name;
	int cpu;
	int in, out;		/* read from in, write to out */
	int serves;		/* ping writes first */
	long rounds;
	pid_t tid;
	pthread_t thread;
};

static void die(const char *what)
{
	fprintf(stderr, "fxt-pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *play(void *arg)
{
	struct player *p = arg;
	char c = 0;
	long i;

	p->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_SET_NAME, p->name);
	if (pin_to_cpu(0, p->cpu))
		die("sched_setaffinity");
	for (i = 0; i < p->rounds; i++) {
		if (p->serves && write(p->out, &c, 1) != 1)
			die("write");
		if (read(p->in, &c, 1) != 1)
			die("read");
		if (!p->serves && write(p->out, &c, 1) != 1)
			die("write");
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-pingpong [--rounds N] [--cpus A,B] [--expect FILE]\n"
"\n"
"Two threads, \"ping\" on CPU A and \"pong\" on CPU B, pass a byte back and\n"
"forth N times over pipes (defaults: 2000 rounds, CPUs 0,1; with one CPU\n"
"both run on CPU 0). --expect writes the pid, tids, names and CPUs as JSON.\n"
"\n"
"EXAMPLES\n"
"  fxt-collect -o sched.fxt -- fxt-pingpong --expect expect.json\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "expect", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int a = 0, b = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	struct player ping = { .name = "ping", .serves = 1 };
	struct player pong = { .name = "pong" };
	const char *expect = NULL;
	long rounds = 2000;
	int p2q[2], q2p[2], opt;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "r:c:e:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			rounds = cli_long("fxt-pingpong", "--rounds", optarg, 1,
					  100000000);
			break;
		case 'c':
			if (sscanf(optarg, "%d,%d", &a, &b) != 2 || a < 0 || b < 0) {
				fprintf(stderr, "fxt-pingpong: --cpus takes A,B\n");
				return 2;
			}
			break;
		case 'e':
			expect = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	cli_no_operands("fxt-pingpong", argc, argv, optind);
	prctl(PR_SET_NAME, "fxt-pingpong");
	if (pipe(p2q) || pipe(q2p))
		die("pipe");
	ping.cpu = a;
	ping.out = p2q[1];
	ping.in = q2p[0];
	pong.cpu = b;
	pong.in = p2q[0];
	pong.out = q2p[1];
	ping.rounds = pong.rounds = rounds;
	errno = pthread_create(&pong.thread, NULL, play, &pong);
	if (errno)
		die("pthread_create");
	errno = pthread_create(&ping.thread, NULL, play, &ping);
	if (errno)
		die("pthread_create");
	pthread_join(ping.thread, NULL);
	pthread_join(pong.thread, NULL);

	if (!expect)
		return 0;
	f = fopen(expect, "w");
	if (!f)
		die(expect);
	fprintf(f, "{\"pid\": %d, \"comm\": \"fxt-pingpong\", \"rounds\": %ld, "
		"\"min_switches\": %ld, \"threads\": ["
		"{\"tid\": %d, \"name\": \"ping\", \"cpu\": %d}, "
		"{\"tid\": %d, \"name\": \"pong\", \"cpu\": %d}]}\n",
		getpid(), rounds, rounds / 2, ping.tid, ping.cpu,
		pong.tid, pong.cpu);
	if (fclose(f))
		die(expect);
	return 0;
}
