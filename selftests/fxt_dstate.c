// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-dstate - keep one task in uninterruptible sleep (state D) until it is
 * killed, for scripts/test-vm-timeout.sh: the guest's watchdog must bring
 * back the kernel's dump of blocked tasks (sysrq w), which lists only such
 * tasks, and a busybox shell can make none.
 *
 * The task is this process: it creates a child with CLONE_VFORK, which
 * makes it wait in the kernel (killable, so D) until the child execs or
 * exits, and the child never does. The child runs on a stack of its own,
 * not on the parent's as after vfork().
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli.h"

#define CHILD_STACK_BYTES	(64 * 1024)

static int child(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "fxt-dstate-kid");
	/* Its parent is blocked, so it says what the parent cannot. */
	printf("fxt-dstate: pid %d waits in state D until killed\n",
	       (int)getppid());
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-dstate\n"
"\n"
"Wait in uninterruptible sleep (ps state D) until killed (SIGKILL or\n"
"SIGTERM: the wait is killable), for tests of the kernel's blocked-task\n"
"dump (sysrq w). Its child, named fxt-dstate-kid, sleeps in pause() and\n"
"outlives it; killing the child ends the wait. Prints \"fxt-dstate: pid N\n"
"waits in state D until killed\".\n"
"Exit status: 1 if the child could not be created or is gone, 2 usage.\n"
"\n"
"EXAMPLES\n"
"  fxt-dstate & sleep 1; echo w >/proc/sysrq-trigger; dmesg | grep -A9 'task:fxt-dstate '\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *stack;
	int opt, pid;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	cli_no_operands("fxt-dstate", argc, argv, optind);
	prctl(PR_SET_NAME, "fxt-dstate");
	stack = malloc(CHILD_STACK_BYTES);
	if (!stack) {
		perror("fxt-dstate: malloc");
		return 1;
	}
	/* Returns once the child is gone, or if it could not be created. */
	pid = clone(child, stack + CHILD_STACK_BYTES,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (pid < 0)
		perror("fxt-dstate: clone");
	else
		fprintf(stderr, "fxt-dstate: the child (pid %d) is gone: no longer waiting\n",
			pid);
	free(stack);
	return 1;
}
