// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-vhost - a vhost worker born and gone during a trace
 *
 * Opens /dev/vhost-net and calls VHOST_SET_OWNER, which starts the device's
 * worker, named "vhost-<our pid>". On 6.12 it is a thread of this process,
 * made by vhost_task_create() with copy_process() alone: no
 * sched_process_fork and no task_rename, its name set inside
 * copy_process(); only sched_wakeup_new sees it born. On 6.1 it is a
 * kthread, named by task_rename. The worker's tid is found in
 * /proc/self/task (6.12) or /proc (6.1), printed as "tid=N name=vhost-P"
 * and written to --expect FILE as "N vhost-P". Then the device is closed,
 * which stops the worker, and the program waits until the tid is gone, so
 * the worker lives a few milliseconds: fxt-collect's /proc fallback (at
 * drains, 100 ms apart) cannot name it, only the kernel's name records.
 *
 * Exit status: 0 done, 1 failure, 2 usage, 4 (kselftest SKIP) no vhost-net
 * device here.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/vhost.h>

#include "cli.h"

#define PROG		"fxt-vhost"
#define VHOST_NET	"/dev/vhost-net"
#define KSFT_SKIP	4
#define GONE_WAIT_MS	10000

/* The comm of /proc/<dir>/comm into @comm (newline cut), or -1. */
static int read_comm(const char *dir, char *comm, size_t size)
{
	char path[300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/comm", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, comm, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return 0;
}

/*
 * The tid of the first task under @root (a /proc or /proc/self/task
 * directory) whose comm is @name, or 0.
 */
static pid_t find_task(const char *root, const char *name)
{
	char dir[280], comm[64];
	struct dirent *d;
	pid_t tid = 0;
	DIR *dp;

	dp = opendir(root);
	if (!dp)
		return 0;
	while (!tid && (d = readdir(dp))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, d->d_name);
		if (!read_comm(dir, comm, sizeof(comm)) && !strcmp(comm, name))
			tid = (pid_t)atol(d->d_name);
	}
	closedir(dp);
	return tid;
}

/* Whether task @tid still exists (a thread is found by /proc/<tid> too). */
static int task_exists(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	return access(path, F_OK) == 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [--expect FILE]\n"
"Start a vhost-net worker (VHOST_SET_OWNER on " VHOST_NET "), print its tid\n"
"and name (\"tid=N name=vhost-PID\"), stop it and wait until it is gone.\n"
"  --expect FILE   also write \"TID NAME\" to FILE\n"
"Exit status: 0 done, 1 failure, 2 usage, 4 no vhost-net device (SKIP).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct timespec nap = { 0, 1000000 };	/* 1 ms */
	const char *expect = NULL;
	char name[32];
	pid_t tid;
	FILE *f;
	int c, fd, ms;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
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
	cli_no_operands(PROG, argc, argv, optind);

	fd = open(VHOST_NET, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		printf("SKIP: %s: %s (vhost_net not loaded?)\n", VHOST_NET,
		       strerror(err));
		return err == ENOENT || err == ENODEV || err == ENXIO ?
			KSFT_SKIP : 1;
	}
	if (ioctl(fd, VHOST_SET_OWNER, NULL)) {
		fprintf(stderr, PROG ": VHOST_SET_OWNER: %s\n", strerror(errno));
		return 1;
	}
	snprintf(name, sizeof(name), "vhost-%d", (int)getpid());
	/* 6.12: our own thread; 6.1: a kthread. */
	tid = find_task("/proc/self/task", name);
	if (!tid)
		tid = find_task("/proc", name);
	if (!tid) {
		fprintf(stderr, PROG ": no task named %s after VHOST_SET_OWNER\n",
			name);
		return 1;
	}
	close(fd);	/* vhost_dev_cleanup() stops the worker */
	printf("tid=%d name=%s\n", (int)tid, name);
	fflush(stdout);
	if (expect) {
		f = fopen(expect, "w");
		if (!f || fprintf(f, "%d %s\n", (int)tid, name) < 0 ||
		    fclose(f)) {
			fprintf(stderr, PROG ": %s: %s\n", expect,
				strerror(errno));
			return 1;
		}
	}

	for (ms = 0; task_exists(tid); ms++) {
		if (ms >= GONE_WAIT_MS) {
			fprintf(stderr, PROG ": %s (tid %d) still there %d ms after close\n",
				name, (int)tid, GONE_WAIT_MS);
			return 1;
		}
		nanosleep(&nap, NULL);
	}
	printf("worker gone %d ms after close\n", ms);
	return 0;
}
