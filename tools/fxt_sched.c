/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fxt-sched - scheduler latency answers straight from an FXT trace.
 * See fxt-sched.1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "fxt_read.h"
#include "fxt_release.h"

static const char *prog = "fxt-sched";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s latency|top|summary FILE [options]\n"
"  latency   wakeup-to-run and preemption-to-run latency: percentiles and\n"
"            log2 histograms (-P per process, -T per thread: -n N, the N\n"
"            with the longest waits; text default 20, JSON and CSV all;\n"
"            --intervals: every interval, by end time, as CSV or --json)\n"
"  top       the worst latencies with what ran on that CPU meanwhile\n"
"            (-n N, default 10)\n"
"  summary   per-CPU busy/idle (and unknown: in holes), per-thread\n"
"            runtime/switches/migrations, time span, dropped and lost\n"
"            records (-n N: at most N threads)\n"
"Filters: --pid LIST, --tid LIST (comma separated; pid 0: threads whose\n"
"         process is unknown), --comm PATTERN (glob; not empty),\n"
"         --from T, --to T (time since the trace's start, its first\n"
"         scheduling record, as the text prints times: 3.935938727s;\n"
"         T is a number with an optional unit ns, us, ms, s; default ns)\n"
"Output:  --json, --csv (default text, where a duration has a unit: 350ns,\n"
"         2.65ms, 1.20s, 3 significant digits; --ns: durations and times\n"
"         in exact ns)\n"
"Input:   --reorder-window T (a unit is required: ns, us, ms, s; default 2s),\n"
"         -v, --verbose (throughput and memory to stderr)\n"
"         -h, --help (this text)\n"
"         -V, --version (the release)\n"
"FILE may be - for stdin. Records out of order by more than the window are\n"
"read again with a window that fits them (stderr says so); a window given\n"
"with --reorder-window is kept, bounding memory. See fxt-sched(1).\n"
"Exit status: 0 success; 1 the input cannot be read or is not a whole trace\n"
"(empty, not FXT, or malformed: the results cover the records before it),\n"
"a write error, out of memory, or a failed temporary file; 2 bad command\n"
"line; 3 results printed, but records beyond --reorder-window were left out\n"
"(or holes applied late; stderr says how many).\n"
"\nEXAMPLES\n"
"  %s latency sched.fxt -T --comm 'ping*'\n"
"  %s latency sched.fxt --intervals --pid 1234 --from 1s --to 2s\n"
"  %s top sched.fxt -n 5 --json\n", prog, prog, prog, prog);
}

/*
 * After a usage error, its message and a pointer to --help, as fxt-collect
 * and fxt-dump do: the whole text would bury the message.
 */
static void usage_hint(void)
{
	fputs("Try 'fxt-sched --help' for more information.\n", stderr);
}

/*
 * Did everything printed reach stdout (a full disk, a closed pipe with
 * SIGPIPE ignored)? Return @ret, or 1 after saying what failed.
 */
static int check_stdout(int ret)
{
	int err = fxt_flush_error(stdout, EIO);

	if (!err)
		return ret;
	fprintf(stderr, "%s: writing the output failed: %s\n", prog,
		strerror(err));
	return 1;
}

/*
 * --version: the release alone, without the module ABI version that
 * fxt-collect shows: fxt-sched reads files, never the module. Returns as
 * check_stdout() does.
 */
static int print_version(void)
{
	puts("fxt-sched " FXT_RELEASE);
	return check_stdout(0);
}

/* --from or --to @opt's value: 0, or -1 after saying what is wrong. */
static int parse_time(const char *opt, const char *s, uint64_t *out)
{
	const char *why = sc_parse_time(s, 1, out);
	char last = *s ? s[strlen(s) - 1] : '\0';

	/*
	 * No unit is ns, as in the records; but fxt-collect's -d counts
	 * seconds, and --from 3 --to 5 is then a window with nothing in it.
	 */
	if (!why && *out && ((last >= '0' && last <= '9') || last == '.'))
		fprintf(stderr, "%s: note: %s %s has no unit: taken as %" PRIu64 " ns (a unit says which: %ss, %sms, %sus or %sns)\n",
			prog, opt, s, *out, s, s, s, s);
	if (!why)
		return 0;
	fprintf(stderr, "%s: invalid value '%s' for %s: %s: a time since the first scheduling record, a number from 0 with an optional unit ns, us, ms or s (at most 18000000000s)\n",
		prog, s, opt, why);
	return -1;
}

/*
 * A whole number in decimal digits only, at most @max: no sign, no
 * blanks, no base prefix (strtoull() would take "-1" for 2^64-1 and " 5"
 * for 5). NULL and the number in *@out, or what is wrong with @s.
 */
static const char *parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;
	const char *p;

	if (*s == '-' && s[1] >= '0' && s[1] <= '9')
		return "negative";
	if (!*s)
		return "empty";
	for (p = s; *p; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (d > 9)
			return "not a whole number in decimal digits";
		if (x > (max - d) / 10)
			return "too large";
		x = x * 10 + d;
	}
	*out = x;
	return NULL;
}

/* Append the ids of @s to *@v. 0; 1 if @s holds no id at all ("", ","),
 * which must not mean "no filter"; -1 if not a list or out of memory,
 * with *@bad and *@why naming the first bad id and what is wrong with it
 * (*@bad NULL: out of memory). *@bad is malloc'd. */
static int parse_list(const char *s, uint64_t **v, size_t *n, char **bad,
		      const char **why)
{
	char *copy = strdup(s), *tok, *save = NULL;
	size_t n0 = *n;

	*bad = NULL;
	*why = "out of memory";
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t x;
		uint64_t *nv;

		*why = parse_uint(tok, UINT64_MAX, &x);
		if (*why) {
			*bad = strdup(tok);
			free(copy);
			return -1;
		}
		nv = realloc(*v, (*n + 1) * sizeof(**v));
		if (!nv) {
			*why = "out of memory";
			free(copy);
			return -1;
		}
		*v = nv;
		(*v)[(*n)++] = x;
	}
	free(copy);
	return *n == n0;
}

/* --pid or --tid @opt's value: 0, or a usage error (2) with a message. */
static int filter_list(const char *opt, const char *what, const char *s,
		       uint64_t **v, size_t *n)
{
	const char *why;
	char *bad;
	int r = parse_list(s, v, n, &bad, &why);

	if (r > 0)
		fprintf(stderr, "%s: %s '%s': no %s id in the list (to select every one, leave %s out)\n",
			prog, opt, s, what, opt);
	else if (r && bad)
		fprintf(stderr, "%s: invalid value '%s' for %s: '%s' is %s: a comma-separated list of %s ids, whole numbers from 0 to %" PRIu64 "\n",
			prog, s, opt, bad, why, what, UINT64_MAX);
	else if (r)
		fprintf(stderr, "%s: %s '%s': %s\n", prog, opt, s, why);
	free(bad);
	return r ? 2 : 0;
}

/*
 * latency -P/-T's list: -n N, the N with the longest waits; without it, in
 * the text, LATENCY_TEXT_LIMIT (a histogram pair is 20-odd lines: 446
 * threads made 9,659), in JSON and CSV all of them. 0: all.
 */
#define LATENCY_TEXT_LIMIT	20

static unsigned int latency_limit(enum lat_group group, enum out_format fmt,
				  bool n_given, uint64_t n)
{
	if (group == GROUP_NONE)
		return 0;
	if (n_given)
		return (unsigned int)n;
	return fmt == OUT_TEXT ? LATENCY_TEXT_LIMIT : 0;
}

enum { OPT_PID = 256, OPT_TID, OPT_COMM, OPT_FROM, OPT_TO, OPT_JSON,
       OPT_CSV, OPT_WINDOW, OPT_INTERVALS, OPT_NS };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "reorder-window", required_argument, NULL, OPT_WINDOW },
		{ "intervals", no_argument, NULL, OPT_INTERVALS },
		{ "ns", no_argument, NULL, OPT_NS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct analysis an;
	/* Without --reorder-window the window grows to what the file needs */
	struct sc_opts sopts = { .widen = true };
	enum out_format fmt = OUT_TEXT;
	enum lat_group group = GROUP_NONE;
	const char *cmd, *path = NULL, *from_arg = NULL, *to_arg = NULL;
	uint64_t n = 0;
	bool verbose = false, intervals = false, n_given = false;
	struct timespec t_start, t_end;
	int c, ret = 0;

	/* Past a file size limit (ulimit -f), a write fails with EFBIG and
	 * check_stdout() says so, instead of a kill that leaves the output
	 * cut without a word. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		fprintf(stderr, "%s: missing command (latency, top or summary)\n",
			prog);
		usage_hint();
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return check_stdout(0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return print_version();
	cmd = argv[1];
	if (strcmp(cmd, "latency") && strcmp(cmd, "top") && strcmp(cmd, "summary")) {
		size_t len = strlen(cmd);
		bool file = access(cmd, F_OK) == 0 ||
			    (len > 4 && !strcmp(cmd + len - 4, ".fxt"));

		/* A FILE first ("fxt-sched sched.fxt latency"): say the order. */
		fprintf(stderr, "%s: unknown command '%s'%s%s%s\n", prog, cmd,
			file ? ": the command comes first, then FILE: e.g. " : "",
			file ? prog : "", file ? " latency FILE" : "");
		usage_hint();
		return 2;
	}
	analysis_init(&an);
	argv++;
	argc--;
	/* getopt's messages start with argv[0]: "fxt-sched:", not "top:" */
	argv[0] = (char *)prog;
	while ((c = getopt_long(argc, argv, "PTn:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PID:
			if (filter_list("--pid", "process", optarg,
					&an.f.pids, &an.f.npids))
				goto usage_err;
			break;
		case OPT_TID:
			if (filter_list("--tid", "thread", optarg,
					&an.f.tids, &an.f.ntids))
				goto usage_err;
			break;
		case OPT_COMM:
			/* as --pid ,, is: an unset shell variable's value,
			 * not a wish to see only the threads with no name
			 * (all '' would match) */
			if (!*optarg) {
				fprintf(stderr, "%s: --comm '': no pattern (an empty one would select only the threads with no name); to select every thread, leave --comm out, or give a glob such as 'ping*'\n",
					prog);
				goto usage_err;
			}
			an.f.comm = optarg;
			break;
		case OPT_FROM:
			if (parse_time("--from", optarg, &an.f.from))
				goto usage_err;
			an.f.has_from = true;
			from_arg = optarg;
			break;
		case OPT_TO:
			if (parse_time("--to", optarg, &an.f.to))
				goto usage_err;
			an.f.has_to = true;
			to_arg = optarg;
			break;
		case OPT_JSON:
		case OPT_CSV: {
			enum out_format f = c == OPT_JSON ? OUT_JSON : OUT_CSV;

			if (fmt != OUT_TEXT && fmt != f) {
				fprintf(stderr, "%s: --json and --csv together: choose one output format\n",
					prog);
				goto usage_err;
			}
			fmt = f;
			break;
		}
		case OPT_WINDOW: {
			const char *why = sc_parse_window(optarg,
							  &sopts.reorder_window_ns);

			if (why) {
				fprintf(stderr, "%s: --reorder-window '%s': %s\n",
					prog, optarg, why);
				goto usage_err;
			}
			sopts.widen = false;
			break;
		}
		case OPT_INTERVALS:
			intervals = true;
			break;
		case OPT_NS:
			an.text_ns = true;
			break;
		case 'P':
		case 'T': {
			enum lat_group g = c == 'P' ? GROUP_PROCESS : GROUP_THREAD;

			if (group != GROUP_NONE && group != g) {
				fprintf(stderr, "%s: -P and -T together: choose per process or per thread\n",
					prog);
				goto usage_err;
			}
			group = g;
			break;
		}
		case 'n': {
			const char *why = parse_uint(optarg, 100000, &n);

			if (!why && !n)
				why = "zero";
			if (why) {
				fprintf(stderr, "%s: invalid value '%s' for -n: %s: a whole number from 1 to 100000\n",
					prog, optarg, why);
				goto usage_err;
			}
			n_given = true;
			break;
		}
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			ret = check_stdout(0);
			goto out;
		case 'V':
			ret = print_version();
			goto out;
		default:
			goto usage_err;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "%s: missing FILE (use - for stdin)\n", prog);
		goto usage_err;
	}
	if (optind < argc - 1) {
		const char *extra = argv[optind + 1];
		bool unit = !strcmp(extra, "ns") || !strcmp(extra, "us") ||
			    !strcmp(extra, "ms") || !strcmp(extra, "s");

		/* "--from 1 s" leaves the unit as an operand */
		fprintf(stderr, "%s: only one FILE, please: '%s' is another%s\n",
			prog, extra,
			unit ? " (a unit goes with its number, no blank: --from 1s, not --from 1 s)" : "");
		goto usage_err;
	}
	path = argv[optind];
	if (fxt_stdout_is_input(prog, path, ""))
		goto bad_cmdline;
	/* --from is 0 when not given: --to 0 leaves nothing either */
	if (an.f.has_to && an.f.to <= (an.f.has_from ? an.f.from : 0)) {
		if (an.f.has_from)
			fprintf(stderr, "%s: --from %s is not before --to %s: the window [from, to) is empty\n",
				prog, from_arg, to_arg);
		else
			fprintf(stderr, "%s: --to %s is not after the start of the trace (--from is 0 when not given): the window [from, to) is empty\n",
				prog, to_arg);
		goto usage_err;
	}
	if (!strcmp(cmd, "top"))
		an.top_n = n_given ? (unsigned int)n : 10;
	if (n_given && intervals) {
		fprintf(stderr, "%s: --intervals lists every interval: it does not go with -n\n",
			prog);
		goto usage_err;
	}
	if (n_given && !strcmp(cmd, "latency") && group == GROUP_NONE) {
		fprintf(stderr, "%s: -n goes with latency -T or -P (the N threads or processes with the longest waits), top and summary: add -T or -P\n",
			prog);
		goto usage_err;
	}
	if (group != GROUP_NONE && strcmp(cmd, "latency")) {
		fprintf(stderr, "%s: %s goes with latency, not %s\n", prog,
			group == GROUP_PROCESS ? "-P" : "-T", cmd);
		goto usage_err;
	}
	if (intervals && group != GROUP_NONE) {
		fprintf(stderr, "%s: --intervals lists every interval: it does not go with %s\n",
			prog, group == GROUP_PROCESS ? "-P" : "-T");
		goto usage_err;
	}
	/* JSON, CSV and --intervals (CSV) give every duration in ns already */
	if (an.text_ns && (fmt != OUT_TEXT || intervals)) {
		fprintf(stderr, "%s: --ns is for the text output: %s gives every time in ns already\n",
			prog, fmt == OUT_JSON ? "--json" :
			fmt == OUT_CSV ? "--csv" : "--intervals");
		goto usage_err;
	}
	if (intervals) {
		if (strcmp(cmd, "latency")) {
			fprintf(stderr, "%s: --intervals goes with latency, not %s\n",
				prog, cmd);
			goto usage_err;
		}
		/* the filters are applied at the end (names may come last) */
		if (analysis_spool_intervals(&an)) {
			fprintf(stderr, "%s: --intervals: cannot create a temporary file in %s: %s (set TMPDIR to a writable directory)\n",
				prog, analysis_tmpdir(), strerror(errno));
			ret = 1;
			goto out;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	sopts.read_flags = FXT_READ_MAGIC;
	if (analysis_run(&an, path, &sopts)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		ret = 1;
		goto out;
	}
	if (an.io.malformed && !an.io.records) {
		/* empty, or not FXT at all: there is nothing to report */
		fprintf(stderr, "%s: %s: %s\n", prog, path, an.io.error.message);
		ret = 1;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t_end);
	if (!strcmp(cmd, "latency")) {
		if (intervals)
			print_intervals(&an, stdout, fmt);
		else
			print_latency(&an, stdout, fmt, group,
				      latency_limit(group, fmt, n_given, n));
	} else if (!strcmp(cmd, "top")) {
		print_top(&an, stdout, fmt);
	} else {
		print_summary(&an, stdout, fmt, n_given ? (unsigned int)n : 0);
	}
	print_input_warnings(&an, path, stderr);
	/*
	 * summary lists the holes in its output; latency and top print only
	 * the waits they counted, the worst of which may be among those left
	 * out for spanning a hole: say so where it is read. With none left
	 * out, a wait whose switch-in fell inside a hole in the window may
	 * still be missing unseen (counted nowhere); with no hole in the
	 * window, none is, and the holes do not touch the results.
	 */
	if (strcmp(cmd, "summary") && an.holes + an.skip_holes) {
		uint64_t holes = an.holes + an.skip_holes;
		bool outside = !an.hole_in_window &&
			       (an.f.has_from || an.f.has_to);

		fprintf(stderr, "%s: %s: %s: records are missing from %" PRIu64 " hole%s (records_lost or bytes_skipped markers; summary lists them by CPU)%s: %" PRIu64 " wait%s spanning one %s not counted%s\n",
			prog, outside && !an.skipped_hole ? "note" : "warning",
			path, holes,
			holes == 1 ? "" : "s",
			outside ? ", none of them in the window" : "",
			an.skipped_hole, an.skipped_hole == 1 ? "" : "s",
			an.skipped_hole == 1 ? "was" : "were",
			an.skipped_hole ? ", and the longest waits may be among them" :
			outside ? "" :
			", but a wait that ended inside a hole would not be seen at all");
	}
	if (an.f.has_from && an.started && an.f.from > an.t_end - an.t0) {
		char span[DUR_LEN];

		fprintf(stderr, "%s: warning: %s: --from %s is after the end of the trace (its scheduling records span %s): nothing is in the window\n",
			prog, path, from_arg,
			fmt_time(span, an.t_end - an.t0, false));
	}
	if (verbose) {
		double secs = (double)(t_end.tv_sec - t_start.tv_sec) +
			      (double)(t_end.tv_nsec - t_start.tv_nsec) / 1e9;
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "%s: %" PRIu64 " %s, %" PRIu64 " %s in %.3f s: %.1f MB/s, %.0f records/s; peak RSS %ld KiB; reorder buffer peak %zu %s; %zu %s%s\n",
			prog, an.io.bytes,
			sc_plural(an.io.bytes, "byte", "bytes"), an.io.records,
			sc_plural(an.io.records, "record", "records"), secs,
			secs > 0 ? (double)an.io.bytes / 1e6 / secs : 0.0,
			secs > 0 ? (double)an.io.records / secs : 0.0,
			ru.ru_maxrss, an.io.max_buffered,
			sc_plural(an.io.max_buffered, "record", "records"),
			an.nthreads, sc_plural(an.nthreads, "thread", "threads"),
			an.passes < 2 ? "" :
			analysis_top_filtered(&an) ?
			"; read twice (top with --pid or --comm)" :
			"; read twice (cut short: to end where its first CPU's records do)");
	}
	if (check_stdout(0))
		ret = 1;
	if (an.oom || an.io.reorder_oom || an.spool_error || an.io.malformed)
		ret = 1;
	else if (ret == 0 && (an.io.late || an.io.late_holes))
		ret = 3;	/* the results leave records out: say so */
out:
	free(an.f.pids);
	free(an.f.tids);
	analysis_free(&an);
	return ret;
usage_err:
	usage_hint();
bad_cmdline:
	free(an.f.pids);
	free(an.f.tids);
	analysis_free(&an);
	return 2;
}
