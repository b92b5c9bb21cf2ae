/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - command-line helpers shared by the selftest workloads
 * (fxt-stress, fxt-pingpong, fxt-threads): a bad argument is a usage error,
 * exit 2, with a message that names the program, the option and the range.
 */
#ifndef FXTRACE_SELFTEST_CLI_H
#define FXTRACE_SELFTEST_CLI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* @s as a number in [@min, @max] for option @opt of @prog, or exit 2. */
static inline long cli_long(const char *prog, const char *opt, const char *s,
			    long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s takes a number from %ld to %ld, not '%s'\n",
			prog, opt, min, max, s);
		exit(2);
	}
	return v;
}

/* These programs take options only: exit 2 on the first operand. */
static inline void cli_no_operands(const char *prog, int argc, char **argv,
				   int optind_now)
{
	if (optind_now < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n",
			prog, argv[optind_now]);
		exit(2);
	}
}

#endif /* FXTRACE_SELFTEST_CLI_H */
