// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt_dump.c - fxt-dump: print, validate or summarize an FXT trace.
 *
 * All decoding is fxt_read.c's; fxt-dump only chooses the reader's mode,
 * counts and prints. The whole input is read into memory (mmap for
 * files), which is what the reader wants and is fine for traces of a few
 * GiB.
 *
 * main() is the whole run: options -> load the input -> run(): every
 * record read (strictly with --check), counted, and printed unless
 * --check or --summary -> the summary (--summary) or the OK line
 * (--check) -> the output checked, the exit status.
 *
 * Each job is in a file of its own. This one keeps main(), the command
 * line and --help, loading the input, and run() with the reading loop,
 * guarded against a mapped file that shrinks under it:
 *   dump_print.c  every record printed, one line each (the default mode)
 *   dump_stats.c  every record counted into struct stats; the summary,
 *                 and the counts by type of --check's OK line
 * They call each other only through dump.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "fxt_read.h"
#include "fxt_release.h"
#include "tid_set.h"

/*
 * The three trace readers (fxt-dump, fxt-sched, fxt2json) agree: 1 when the
 * input is not a whole trace or cannot be read, the output cannot be
 * written, or memory ran out; 2 only for a bad command line.
 */
#define EXIT_FAILED	1	/* malformed, unreadable, unwritable, no memory */
#define EXIT_USAGE	2	/* a bad command line, and nothing else */

struct dump_options {
	bool check;
	bool summary;
	const char *path;
};

/* The input, either mmap()ed or malloc()ed. */
struct input {
	const uint8_t *data;
	size_t len;
	bool mapped;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-dump [--check] [--summary] FILE\n"
"Print every record of a Fuchsia Trace Format (.fxt) file, one per line, or\n"
"validate it, or summarize it. FILE '-' reads standard input.\n"
"\n"
"  -c, --check     validate instead of printing: magic record first, record\n"
"                  sizes non-zero and inside the file, whole 8-byte words,\n"
"                  reserved bits and padding zero, string and thread refs\n"
"                  defined before use (never index 0), the weights and a\n"
"                  thread's process of the types Perfetto reads (int32,\n"
"                  koid). Stops at the first problem and names its byte\n"
"                  offset; otherwise prints one OK line with the records\n"
"                  counted by type\n"
"  -s, --summary   print totals instead of records: records by type, context\n"
"                  switches and wakeups per CPU, time span, threads seen and\n"
"                  named, processes named, and every loss the trace records:\n"
"                  fxt-collect's records_dropped counters and buffer-full\n"
"                  events, per CPU the records lost by the kernel's\n"
"                  records_lost markers and the bytes fxt-collect skipped as\n"
"                  invalid by its bytes_skipped markers, each with its number\n"
"                  of holes and of those still open where the trace ends\n"
"  -h, --help      show this help and exit\n"
"  -V, --version   show the release and exit\n"
"\n"
"Each printed line is: byte offset, record kind, decoded fields, then the\n"
"arguments as name:type=value with string refs resolved. Without --check,\n"
"undefined refs print as <undefined #N> instead of failing. In every mode\n"
"the input must start with the magic record: an empty file, or one that is\n"
"not FXT, is malformed (exit 1).\n"
"\n"
"Exit status: 0 read to its end (well formed with --check; without it,\n"
"reserved bits and the like are not looked at); 1 malformed, empty or not\n"
"FXT (the message names the offset and what is wrong; records before it\n"
"were printed), the input cannot be read (missing, a directory, too large\n"
"for memory, a file that shrank while being read), writing the output\n"
"failed, or out of memory; 2 bad command line.\n"
"\n"
"EXAMPLES:\n"
"    fxt-dump sched.fxt | less              # every record\n"
"    fxt-dump sched.fxt | grep wakeup       # just the wakeups\n"
"    fxt-dump --check sched.fxt && echo ok  # validate (CI, selftests)\n"
"    fxt-dump --summary sched.fxt           # what is in it\n"
"    fxt-collect -q -o - -d 1 | fxt-dump --check -   # validate a stream\n");
}

/*
 * The errno of the first failed write to stdout, if run() saw one: stdio
 * keeps only a flag. (A static rather than a parameter of run(), which
 * fuzz/fuzz_fxt_dump.c calls as it is.)
 */
static int output_errno;

/*
 * Did everything printed reach stdout? A full disk, a closed pipe (with
 * SIGPIPE ignored) or an I/O error leaves the output incomplete; the
 * status must say so, not 0. Return @status, or EXIT_FAILED after saying
 * what failed.
 */
static int check_output(int status)
{
	/* This flush may have had nothing left: the earlier failure's errno. */
	int err = fxt_flush_error(stdout, output_errno ? output_errno : EIO);

	if (!err)
		return status;
	fprintf(stderr, "fxt-dump: writing the output failed: %s\n", strerror(err));
	return EXIT_FAILED;
}

static int parse_args(int argc, char **argv, struct dump_options *opts)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(opts, 0, sizeof(*opts));
	/* getopt's messages start with argv[0]: "fxt-dump:", not a path */
	argv[0] = (char *)"fxt-dump";
	while ((c = getopt_long(argc, argv, "cshV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			opts->check = true;
			break;
		case 's':
			opts->summary = true;
			break;
		case 'h':
			usage(stdout);
			exit(check_output(0));
		case 'V':
			/* No module ABI version (fxt-collect's): it reads files */
			puts("fxt-dump " FXT_RELEASE);
			exit(check_output(0));
		default:
			fprintf(stderr, "Try 'fxt-dump --help' for more information.\n");
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fxt-dump: %s\nTry 'fxt-dump --help' for more information.\n",
			optind == argc ? "missing FILE (use - for stdin)" :
					 "only one FILE, please");
		return -1;
	}
	opts->path = argv[optind];
	if (fxt_stdout_is_input("fxt-dump", opts->path, ""))
		return -1;
	return 0;
}

/* ---- input ------------------------------------------------------------ */

static int read_all(int fd, struct input *in)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap), *bigger;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	in->data = buf;
	in->len = len;
	in->mapped = false;
	return 0;
}

static int load_input(const char *path, struct input *in)
{
	struct stat st;
	void *p;
	int fd, err;

	if (!strcmp(path, "-"))
		return read_all(STDIN_FILENO, in);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			in->data = p;
			in->len = (size_t)st.st_size;
			in->mapped = true;
			return 0;
		}
	}
	err = read_all(fd, in);
	close(fd);
	return err;
}

static void free_input(struct input *in)
{
	if (in->mapped)
		munmap((void *)in->data, in->len);
	else
		free((void *)in->data);
}

/*
 * A mapped file that shrinks while it is read has pages past its new end,
 * and the first load from one of them is a SIGBUS; so is one from a page
 * the disk failed to read. fxt-collect -o truncates an existing file in
 * place, so running it again on the file fxt-dump reads killed fxt-dump
 * (exit 135, the output cut without a word). Instead, on_sigbus() jumps
 * back to read_guarded(), and fxt-dump says so and exits 1, as for any
 * input it cannot read. Only a fault inside the mapping, while the records
 * are read, jumps; any other SIGBUS keeps the default action.
 *
 * The jump can leave a function mid-way: the reader, note_record() or
 * stdio (print_name() hands fwrite() the mapped bytes), never at a point
 * that leaves them inconsistent: the fault is a load of the input, and
 * they change their state only after those loads (note_drop_counter()
 * copies a name only once it would be freed), glibc's fwrite() too (its
 * buffer pointer moves after the copy). The record being read is left
 * half counted, so no summary is printed for such a file. One case ends
 * otherwise: a name longer than stdout's buffer, which glibc hands to
 * write(2) from the mapping; the kernel fails that with EFAULT instead of
 * a SIGBUS, and fxt-dump says "writing the output failed: Bad address"
 * (exit 1 as well).
 *
 * The signal is synchronous, raised by a load in read_records(), so the
 * handler reads guard_data and guard_len as they were set before it; the
 * fences keep those loads between the two stores to guarding.
 */
static sigjmp_buf input_fault;
static volatile sig_atomic_t guarding;
static const uint8_t *guard_data;
static size_t guard_len;

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	uintptr_t addr = (uintptr_t)si->si_addr;

	(void)context;
	/* si_code > 0: raised by a fault, not sent (kill(), sigqueue()) */
	if (guarding && si->si_code > 0 &&
	    addr - (uintptr_t)guard_data < guard_len)
		siglongjmp(input_fault, 1);
	/*
	 * Not the input's: the default action, when a faulting load is
	 * retried; a sent one is raised again (blocked until we return).
	 */
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

/* ---- main ------------------------------------------------------------- */

/* read_guarded(): the mapped input lost a page (on_sigbus()). */
#define READ_FAULT	(-2)

/* Every record of @r into @st, and printed: fxt_reader_next()'s 0 or -1. */
static int read_records(const struct dump_options *opts, struct fxt_reader *r,
			struct stats *st)
{
	struct fxt_record rec;
	int ret;

	while ((ret = fxt_reader_next(r, &rec)) > 0) {
		note_record(st, r, &rec);
		if (!opts->check && !opts->summary) {
			print_record(r, &rec);
			/* The output is broken (main() says so): stop. */
			if (ferror(stdout)) {
				output_errno = errno;
				break;
			}
		}
	}
	return ret;
}

/*
 * read_records(), with a mapped input guarded against shrinking under it
 * (on_sigbus()): READ_FAULT when it did. No cost per record: one
 * sigaction() and one sigsetjmp() per file.
 */
static int read_guarded(const struct dump_options *opts, const struct input *in,
			struct fxt_reader *r, struct stats *st)
{
	struct sigaction sa;
	int ret;

	if (!in->mapped)
		return read_records(opts, r, st);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	/* SA_RESTART: no call the handler interrupts fails with EINTR */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);	/* cannot fail: a valid signal */
	guard_data = in->data;
	guard_len = in->len;
	/* 1: the jump out of the handler unblocks SIGBUS again */
	if (sigsetjmp(input_fault, 1)) {
		guarding = 0;
		return READ_FAULT;
	}
	guarding = 1;
	atomic_signal_fence(memory_order_seq_cst);
	ret = read_records(opts, r, st);
	atomic_signal_fence(memory_order_seq_cst);
	guarding = 0;
	return ret;
}

/* Why a mapped file lost a page: it shrank (the usual), or the disk. */
static void read_failed(const char *path, const struct input *in)
{
	struct stat now;

	if (stat(path, &now) == 0 && (uint64_t)now.st_size < in->len)
		fprintf(stderr, "fxt-dump: reading %s failed: the file shrank while being read (from %zu to %jd bytes)\n",
			path, in->len, (intmax_t)now.st_size);
	else
		fprintf(stderr, "fxt-dump: reading %s failed: a page of it could not be read: the file was cut while being read, or an I/O error\n",
			path);
}

static int run(const struct dump_options *opts, const struct input *in,
	       struct stats *st)
{
	struct fxt_reader *r;
	const struct fxt_error *e;
	int ret;

	/* Every mode: data without the magic record is not a trace (an empty
	 * file, a text file, a collector that wrote nothing). */
	r = fxt_reader_new(in->data, in->len,
			   opts->check ? FXT_READ_STRICT : FXT_READ_MAGIC);
	if (!r) {
		fprintf(stderr, "fxt-dump: out of memory\n");
		return EXIT_FAILED;
	}
	ret = read_guarded(opts, in, r, st);
	/* Records before the error message; a failure here is main()'s too. */
	if (fflush(stdout) && !output_errno)
		output_errno = errno;
	if (ret == READ_FAULT) {
		read_failed(opts->path, in);
		st->input_lost = true;
	} else if (ret < 0) {
		e = fxt_reader_error(r);
		fprintf(stderr, "fxt-dump: %s: offset %zu (0x%zx): %s\n",
			opts->path, e->offset, e->offset, e->message);
	}
	fxt_reader_free(r);
	return ret < 0 ? EXIT_FAILED : 0;
}

int main(int argc, char **argv)
{
	struct dump_options opts;
	struct input in;
	struct stats st;
	int status, err;

	/* Past a file size limit (ulimit -f), a write fails with EFBIG and
	 * check_output() says so, instead of a kill that leaves the output
	 * cut without a word. */
	signal(SIGXFSZ, SIG_IGN);
	if (parse_args(argc, argv, &opts))
		return EXIT_USAGE;
	err = load_input(opts.path, &in);
	if (err) {
		fprintf(stderr, "fxt-dump: reading %s failed: %s\n",
			opts.path, strerror(-err));
		return EXIT_FAILED;
	}
	memset(&st, 0, sizeof(st));
	tid_set_init(&st.seen_tids);
	tid_set_init(&st.named_tids);
	tid_set_init(&st.named_processes);
	status = run(&opts, &in, &st);
	/* Not a trace at all: no summary of "0 records" under the error. */
	if (opts.summary && !st.input_lost && (status == 0 || st.records))
		print_summary(&st, opts.path, in.len);
	/* A summary with totals missing is not a success either. */
	if (opts.summary && st.oom) {
		fprintf(stderr, "fxt-dump: out of memory: the summary's totals are incomplete\n");
		if (status == 0)
			status = EXIT_FAILED;
	}
	/*
	 * fxt-collect samples records_dropped once before the rings' data
	 * and once after it: one sample alone, the trace was cut short
	 * (fxt-collect killed, its output full, or the rest given up).
	 */
	if ((opts.check || opts.summary) && status == 0 &&
	    drop_samples_cut_short(&st.drop_samples))
		fprintf(stderr, "fxt-dump: warning: %s: fxt-collect's closing records_dropped sample is missing: the trace was cut short (fxt-collect killed, its output full, or the rest given up), so each CPU's records may stop at a different time\n",
			opts.path);
	if (opts.check && status == 0) {
		printf("%s: OK: %" PRIu64 " records (", opts.path, st.records);
		print_counts(stdout, &st);
		puts(")");
	}
	free_stats(&st);
	free_input(&in);
	return check_output(status);
}
