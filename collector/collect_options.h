/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * collect_options.h - fxt-collect's command line, parsed into one struct.
 */
#ifndef COLLECT_OPTIONS_H
#define COLLECT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/fxtrace.h>

#define COLLECT_DEFAULT_OUTPUT	"sched.fxt"
#define COLLECT_DEFAULT_DEVICE	"/dev/" FXTRACE_DEVICE_NAME

/* fxt-collect exit statuses (also listed in --help). */
#define EXIT_TRACE_OK		0	/* trace written, nothing lost */
#define EXIT_TRACE_FAILED	1	/* a step failed; the message says which */
#define EXIT_USAGE		2	/* bad command line */
#define EXIT_DATA_LOST		3	/* trace written, records were lost */
#define EXIT_CMD_NOT_FOUND	127	/* COMMAND could not be found */
#define EXIT_CMD_NOT_EXEC	126	/* COMMAND could not be executed */

/**
 * struct collect_options - everything the command line can say
 * @output:      trace file, "-" for stdout
 * @output_given: -o was given (else @output is the default)
 * @device:      the fxtrace device node
 * @buf_size:    per-CPU ring bytes; 0 = the module's default
 * @duration_ms: stop after this long; 0 = no limit
 * @quiet:       only print errors
 * @command:     argv of COMMAND (NULL-terminated), or NULL
 */
struct collect_options {
	const char *output;
	bool output_given;
	const char *device;
	uint64_t buf_size;
	uint64_t duration_ms;
	bool quiet;
	char **command;
};

enum collect_parse_result {
	COLLECT_PARSE_OK,	/* go ahead */
	COLLECT_PARSE_EXIT_OK,	/* --help or --version was printed */
	COLLECT_PARSE_USAGE,	/* an error was printed; exit EXIT_USAGE */
};

/*
 * Parse argv (getopt_long: messages go to stderr, starting with
 * "fxt-collect:", which becomes argv[0]).
 */
enum collect_parse_result collect_parse_args(int argc, char **argv,
					     struct collect_options *opts);

/**
 * parse_buffer_size() - "64K", "4M", "1048576" into bytes
 * @why: on failure, a sentence saying what is wrong and what is accepted
 *
 * Accepts decimal digits with an optional K, M or G suffix (powers of
 * 1024, upper or lower case, an optional trailing "B" or "iB"); the result
 * must be a power of two in [FXTRACE_BUF_SIZE_MIN, FXTRACE_BUF_SIZE_MAX].
 * G is read but never in range (the maximum is 256M): what is said and
 * documented is K or M, and "1G" gets the range, not "not a size".
 * Return: 0, or -EINVAL with @why filled in.
 */
int parse_buffer_size(const char *text, uint64_t *bytes, char *why,
		      size_t why_size);

/**
 * parse_duration() - "10", "0.5", "2.25" seconds into milliseconds
 * Return: 0, or -EINVAL with @why filled in (must be > 0 and at most 366 days; @why says which was broken).
 */
int parse_duration(const char *text, uint64_t *ms, char *why, size_t why_size);

void collect_usage(FILE *f);

#endif /* COLLECT_OPTIONS_H */
