// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * collect_options.c - fxt-collect's command line (see collect_options.h).
 * One flat switch into one struct, as libbpf-tools do.
 */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "collect_options.h"
#include "fxt_release.h"

#define MAX_DURATION_MS	(366ULL * 24 * 3600 * 1000)

/* Room for all of collect_usage() (see --help below). */
static char help_buffer[16384];

void collect_usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-collect [OPTION...] [--] [COMMAND [ARG...]]\n"
"Record every context switch and wakeup on every CPU into a Fuchsia Trace\n"
"Format (.fxt) file, for Perfetto (https://ui.perfetto.dev) or fxt-dump.\n"
"\n"
"Tracing starts once the rings are set up and stops at Ctrl-C (SIGINT) or\n"
"SIGTERM, after -d SECONDS, or, when a COMMAND is given, when it exits (it is\n"
"started after tracing is on). Needs root (CAP_PERFMON or CAP_SYS_ADMIN) and\n"
"the fxtrace module loaded: sudo modprobe fxtrace once installed (make install\n"
"or make dkms), or sudo insmod kmod/fxtrace.ko in the source tree.\n"
"\n"
"A signal stops it at once in every phase. Before tracing has started (e.g.\n"
"while -o names a FIFO no reader has opened): nothing is traced, FILE is left\n"
"as it was, exit 128+N. While a write to the output blocks (a pipe whose\n"
"reader stalls), tracing still stops at the signal; the rest is written if\n"
"the output takes data: after 2 s without, or at one more signal, it is given\n"
"up (said on stderr, a file cut back to its last whole record, exit 3; exit 1\n"
"if not even the trace's start got out: no trace was written).\n"
"\n"
"  -o, --output=FILE       write the trace to FILE; '-' is stdout\n"
"                          (default: " COLLECT_DEFAULT_OUTPUT " in the current directory);\n"
"                          an existing FILE is replaced once tracing has\n"
"                          started, and left as it was if fxt-collect fails\n"
"                          before that\n"
"  -d, --duration=SECONDS  stop after SECONDS: more than 0, at most 366 days,\n"
"                          digits with an optional fraction (e.g. 0.5)\n"
"  -b, --buffer-size=SIZE  per-CPU ring size: a power of two from 64K to 256M,\n"
"                          digits with an optional K or M suffix, e.g. 32M\n"
"                          (default: the module's, 4M)\n"
"  -q, --quiet             print only errors and lost-data warnings (no summary)\n"
"  -D, --device=PATH       device node to open, not empty\n"
"                          (default: " COLLECT_DEFAULT_DEVICE ")\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the release and the module ABI version it\n"
"                          speaks, and exit\n"
"\n"
"With COMMAND: a SIGTERM sent to fxt-collect is passed on to COMMAND (Ctrl-C\n"
"reaches it from the terminal anyway) and tracing goes on until it exits; a\n"
"second signal stops tracing at once and leaves COMMAND running: fxt-collect\n"
"says so, with its pid, and does not wait for it. With -o -, COMMAND's stdout\n"
"goes to stderr so it cannot mix with the trace. -d stops tracing early, but\n"
"fxt-collect still waits for COMMAND. -d is no signal: signals count from\n"
"COMMAND's start, so after -d the first (if none came before) is passed on,\n"
"and the second ends the wait, also while the trace's end is written:\n"
"fxt-collect says that it stopped waiting, COMMAND still running. A signal,\n"
"or the end of -d, before COMMAND has started (while the probes attach):\n"
"COMMAND is not run, the trace ends there. A COMMAND not found in PATH, not\n"
"executable, or a script whose #! interpreter is either, is refused before\n"
"anything is traced (exit 127 or 126, FILE left as it was): the trace's file\n"
"is -o FILE, never the first argument. An empty COMMAND is a usage error.\n"
"\n"
"A summary goes to stderr at the end: duration (from when the probes were\n"
"attached, as -d counts, plus the time attaching them took, whose records are\n"
"in the trace too), records by kind, bytes, and records dropped per CPU (a\n"
"ring was full: use a larger -b), or after a give-up, the ring data not\n"
"written.\n"
"\n"
"Exit status:\n"
"  0    trace written, no records lost\n"
"  1    tracing failed; the message names the step and what to do\n"
"       (on a write error the file is cut back to its last whole record,\n"
"       where it can be, and what became of it is said;\n"
"       also when the trace's start was given up after a stop signal),\n"
"       or writing --help or --version to standard output failed\n"
"  2    bad command line\n"
"  3    trace written, but records were dropped or invalid ring data skipped,\n"
"       or after a stop signal the rest of it was given up (see above)\n"
"  With COMMAND, its own exit status if that was not 0 (128+N if a signal N\n"
"  killed it; 127 if it was not found, 126 if it could not be executed),\n"
"  else one of the above; 128+N if a second signal N (before or after -d)\n"
"  left it running (not COMMAND's status: it had not exited).\n"
"  128+N also when a signal N (SIGINT, SIGTERM) came before tracing started,\n"
"  or before COMMAND started (1 if the -d time was up first).\n"
"\n"
"EXAMPLES:\n"
"    fxt-collect                      # trace until Ctrl-C into ./sched.fxt\n"
"    fxt-collect -d 10 -o idle.fxt    # trace 10 seconds into idle.fxt\n"
"    fxt-collect -b 32M -- make -j2   # trace a build, 32 MiB ring per CPU\n"
"    fxt-collect -q -o - -d 1 | fxt-dump --summary -   # trace to a pipe\n"
"    fxt-collect -o run.fxt -- ./bench; echo $?   # the benchmark's status\n"
"    fxt-dump --check sched.fxt       # then validate the trace\n");
}

static void print_version(void)
{
	printf("fxt-collect " FXT_RELEASE " (fxtrace ABI version %d)\n",
	       FXTRACE_ABI_VERSION);
}

/* Multiplier for a size suffix, 0 if @s is not one. */
static uint64_t size_suffix(const char *s)
{
	static const struct {
		char letter;
		uint64_t mult;
	} units[] = { { 'k', 1ULL << 10 }, { 'm', 1ULL << 20 }, { 'g', 1ULL << 30 } };
	size_t i;

	if (!*s)
		return 1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if ((s[0] | 0x20) != units[i].letter)
			continue;
		if (!s[1] || !strcasecmp(s + 1, "b") || !strcasecmp(s + 1, "ib"))
			return units[i].mult;
	}
	if (!strcasecmp(s, "b"))
		return 1;
	return 0;
}

int parse_buffer_size(const char *text, uint64_t *bytes, char *why,
		      size_t why_size)
{
	/* Digits first: strtoull() alone would take blanks and a sign. */
	bool digit_first = *text >= '0' && *text <= '9';
	unsigned long long v;
	uint64_t mult;
	char *end;

	errno = 0;
	v = digit_first ? strtoull(text, &end, 10) : 0;
	mult = digit_first ? size_suffix(end) : 0;
	if (errno || !mult) {
		snprintf(why, why_size,
			 "'%s' is not a size: give digits with an optional K or M suffix, e.g. 4M",
			 text);
		return -EINVAL;
	}
	if (v > FXTRACE_BUF_SIZE_MAX / mult || v * mult < FXTRACE_BUF_SIZE_MIN ||
	    v * mult > FXTRACE_BUF_SIZE_MAX || ((v * mult) & (v * mult - 1))) {
		snprintf(why, why_size,
			 "'%s': the per-CPU buffer size must be a power of two from 64K to 256M (64K, 128K, ..., 4M, ..., 256M)",
			 text);
		return -EINVAL;
	}
	*bytes = v * mult;
	return 0;
}

/*
 * True if @s is digits with at most one '.' among or after them, and at
 * least one digit: "5", "0.5", ".5", "5.". strtod() alone would also take
 * blanks before the number, hex ("0x10" is 16 s), exponents and "inf".
 */
static bool plain_decimal(const char *s)
{
	bool digit = false, point = false;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && !point)
			point = true;
		else
			return false;
	}
	return digit;
}

int parse_duration(const char *text, uint64_t *ms, char *why, size_t why_size)
{
	bool negative = text[0] == '-' && plain_decimal(text + 1);
	double s;

	if (!negative && !plain_decimal(text)) {
		snprintf(why, why_size,
			 "'%s' is not a number of seconds: give seconds > 0 as digits with an optional fraction, e.g. 5 or 0.5",
			 text);
		return -EINVAL;
	}
	/*
	 * A plain decimal parses whole. Too many digits overflow to HUGE_VAL
	 * (too long, below); too many zeros after the point underflow to 0
	 * or a denormal, which is a tiny duration: 1 ms, as 0.0001 is.
	 */
	s = negative ? 0 : strtod(text, NULL);
	if (s == 0 && !negative && strpbrk(text, "123456789"))
		s = DBL_MIN;
	if (s <= 0) {
		snprintf(why, why_size,
			 "'%s': the duration must be more than 0 seconds, e.g. 5 or 0.5 (leave out -d to trace until Ctrl-C)",
			 text);
		return -EINVAL;
	}
	if (!isfinite(s) || s * 1000 > (double)MAX_DURATION_MS) {
		snprintf(why, why_size,
			 "'%s' seconds is longer than 366 days (%llu s), the most -d accepts (leave out -d to trace until Ctrl-C)",
			 text, MAX_DURATION_MS / 1000);
		return -EINVAL;
	}
	*ms = (uint64_t)(s * 1000 + 0.5);
	if (!*ms)
		*ms = 1;
	return 0;
}

enum collect_parse_result collect_parse_args(int argc, char **argv,
					     struct collect_options *opts)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char why[256];
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->output = COLLECT_DEFAULT_OUTPUT;
	opts->device = COLLECT_DEFAULT_DEVICE;
	/* getopt's messages start with argv[0]: "fxt-collect:", not a path */
	argv[0] = (char *)"fxt-collect";
	/* '+': stop at COMMAND, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+o:d:b:qD:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opts->output = optarg;
			opts->output_given = true;
			break;
		case 'd':
			if (parse_duration(optarg, &opts->duration_ms, why, sizeof(why)))
				goto usage;
			break;
		case 'b':
			if (parse_buffer_size(optarg, &opts->buf_size, why, sizeof(why)))
				goto usage;
			break;
		case 'q':
			opts->quiet = true;
			break;
		case 'D':
			opts->device = optarg;
			break;
		case 'h':
			/*
			 * The text is over 4 KiB: in stdio's usual buffer a
			 * write() would fail inside fprintf() and its errno be
			 * lost by the time main() flushes and asks. Held
			 * whole, the one write() is main()'s flush.
			 */
			setvbuf(stdout, help_buffer, _IOFBF, sizeof(help_buffer));
			collect_usage(stdout);
			return COLLECT_PARSE_EXIT_OK;
		case 'V':
			print_version();
			return COLLECT_PARSE_EXIT_OK;
		default:	/* getopt_long already said what was wrong */
			fprintf(stderr, "Try 'fxt-collect --help' for more information.\n");
			return COLLECT_PARSE_USAGE;
		}
	}
	if (optind < argc)
		opts->command = argv + optind;
	if (!*opts->output) {
		snprintf(why, sizeof(why), "-o needs a file name (or - for stdout)");
		goto usage;
	}
	/* Empty names: not a file to open or a program to look up and run. */
	if (!*opts->device) {
		snprintf(why, sizeof(why),
			 "-D needs the device's path (or leave it out: the default is " COLLECT_DEFAULT_DEVICE ")");
		goto usage;
	}
	if (opts->command && !*opts->command[0]) {
		snprintf(why, sizeof(why),
			 "COMMAND is an empty word: give the program to run (e.g. -- sleep 1), or leave it out to trace until Ctrl-C or -d");
		goto usage;
	}
	if (!strcmp(opts->output, "-") && isatty(STDOUT_FILENO)) {
		snprintf(why, sizeof(why),
			 "-o - would write a binary trace to the terminal: redirect it (> FILE, | fxt-dump -) or use -o FILE");
		goto usage;
	}
	return COLLECT_PARSE_OK;
usage:
	fprintf(stderr, "fxt-collect: %s\nTry 'fxt-collect --help' for more information.\n",
		why);
	return COLLECT_PARSE_USAGE;
}
