// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench-rusage - run a command, then print its wall time, CPU time and peak
 * resident memory (from wait4()), so the host benchmarks need no GNU time.
 *
 *   bench-rusage [-l LABEL] [-o FILE] [-b BYTES] [-r RECORDS] -- COMMAND [ARG...]
 *
 * With -b and -r it also prints rates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + tv->tv_usec / 1e6;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: bench-rusage [-l LABEL] [-o FILE] [-b BYTES] [-r RECORDS] -- COMMAND [ARG...]\n"
"Run COMMAND (with -o, its stdout goes to FILE), then print on stdout\n"
"  result what=LABEL wall_s=... user_s=... sys_s=... peak_rss_kb=...\n"
"and with -b / -r also the rates MB_per_s_cpu, records_per_s_cpu over the\n"
"CPU time (user + sys: one core's work, whatever else the machine does) and\n"
"MB_per_s_wall over the wall time.\n"
"Exit status: COMMAND's (128+N if signal N killed it), 125 if it could not\n"
"be started, 2 on a bad command line.\n"
"\n"
"EXAMPLES\n"
"  bench-rusage -l check -o /dev/null -b $(stat -c %%s big.fxt) -- fxt-dump --check big.fxt\n");
}

int main(int argc, char **argv)
{
	const char *label = "command", *output = NULL;
	double bytes = 0, records = 0, t0, wall, cpu;
	struct rusage ru;
	int c, status;
	pid_t pid;

	while ((c = getopt(argc, argv, "+l:o:b:r:h")) != -1) {
		switch (c) {
		case 'l': label = optarg; break;
		case 'o': output = optarg; break;
		case 'b': bytes = strtod(optarg, NULL); break;
		case 'r': records = strtod(optarg, NULL); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench-rusage: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		if (output) {
			int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
				fprintf(stderr, "bench-rusage: cannot write to %s: %s\n",
					output, strerror(errno));
				_exit(125);
			}
			close(fd);
		}
		execvp(argv[optind], &argv[optind]);
		fprintf(stderr, "bench-rusage: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(125);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		fprintf(stderr, "bench-rusage: wait4: %s\n", strerror(errno));
		return 125;
	}
	wall = now_s() - t0;
	cpu = tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime);
	printf("result what=%s wall_s=%.3f user_s=%.3f sys_s=%.3f peak_rss_kb=%ld",
		label, wall, tv_s(&ru.ru_utime), tv_s(&ru.ru_stime), ru.ru_maxrss);
	if (bytes > 0 && cpu > 0)
		printf(" MB_per_s_cpu=%.1f MB_per_s_wall=%.1f",
			bytes / 1e6 / cpu, bytes / 1e6 / wall);
	if (records > 0 && cpu > 0)
		printf(" records_per_s_cpu=%.0f", records / cpu);
	printf("\n");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
