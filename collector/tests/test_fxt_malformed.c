// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_fxt_malformed.c - malformed traces are refused cleanly.
 *
 *	test_fxt_malformed [FXT_DUMP [CORPUS_DIR [RELEASE]]]
 *
 * Builds a corpus of broken traces (size 0, truncated, trailing bytes,
 * reserved bits, undefined refs, missing magic, oversized fields, ...) and
 * one valid trace with every record kind. Each broken trace must be refused
 * by the strict reader at the right byte offset with the right reason, and,
 * when FXT_DUMP is given, `fxt-dump --check` must exit 1 (not crash) naming
 * that offset; `fxt-dump` without --check must not crash either. Random
 * mutations of the valid trace then hammer the reader in both modes.
 * fxt-dump's exit status is 1 for anything but a bad command line (2):
 * input it cannot read, a directory, output it cannot write (/dev/full).
 * --summary's time span must follow the trace's tick rates and take in
 * every timestamp, its per-CPU and thread totals both kinds of context
 * switch, its processes each koid once, and it must report every loss the
 * trace records (drop counters, records_lost and bytes_skipped markers).
 * Undefined thread refs print as such. A file that shrinks while fxt-dump
 * reads it is input it cannot read (exit 1), not a SIGBUS.
 * CORPUS_DIR keeps the files (the valgrind test reuses them). RELEASE is
 * the top-level VERSION file's, which fxt-dump --version must show.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive_meta.h"
#include "fxt_read.h"
#include "fxt_write.h"
#include "kernel_record_builders.h"
#include "tap.h"

#define MAX_WORDS	8192	/* room for a large record of 4096 words */

static const char *fxt_dump;	/* path of the fxt-dump binary, or NULL */
static const char *release;	/* what --version must name, or NULL */
static char corpus_dir[4096];

struct trace {
	uint64_t words[MAX_WORDS];
	struct fxt_writer w;
	size_t extra;		/* bytes appended after the last word */
	uint8_t extra_bytes[8];
};

/* Magic, provider 1, initialization, strings 1..2: a valid start. */
static void start(struct trace *t)
{
	fxt_writer_init(&t->w, t->words, MAX_WORDS);
	t->extra = 0;
	fxt_write_magic(&t->w);
	fxt_write_provider_info(&t->w, 1, "fxtrace", 7);
	fxt_write_provider_section(&t->w, 1);
	fxt_write_initialization(&t->w, 1000000000);
	fxt_write_string(&t->w, 1, "incoming_weight", 15);
	fxt_write_string(&t->w, 2, "cat", 3);
}

static size_t here(const struct trace *t)
{
	return fxt_writer_bytes(&t->w);
}

static void raw(struct trace *t, uint64_t word)
{
	t->words[t->w.len++] = word;
}

static size_t bytes_of(const struct trace *t)
{
	return here(t) + t->extra;
}

/* The file image: the words, then any extra (unaligned) bytes. */
static uint8_t *image(const struct trace *t)
{
	uint8_t *buf = malloc(bytes_of(t) + 1);

	memcpy(buf, t->words, here(t));
	memcpy(buf + here(t), t->extra_bytes, t->extra);
	return buf;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (len)
		n = write(fd, data, len);
	close(fd);
	return len && n != (ssize_t)len ? -1 : 0;
}

/* What @fd gives until EOF, NUL-terminated, cut to fit @size. */
static void read_to_end(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
}

/* fxt-dump's exit status, or 128 + the signal that killed it. */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Run fxt-dump with @opt (may be NULL) on @path (may be NULL: no FILE),
 * stdout to @out, standard input closed if @close_stdin; capture stderr.
 * Return the wait status.
 */
static int run_dump_io(const char *opt, const char *path, bool close_stdin,
		       const char *out, char *err, size_t size)
{
	int pipefd[2], status = -1;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int outfd = open(out, O_WRONLY);

		dup2(outfd, STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		if (close_stdin)
			close(STDIN_FILENO);
		if (opt)
			execl(fxt_dump, fxt_dump, opt, path, (char *)NULL);
		else
			execl(fxt_dump, fxt_dump, path, (char *)NULL);
		_exit(126);
	}
	close(pipefd[1]);
	read_to_end(pipefd[0], err, size);
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return status;
}

/* run_dump_io() with standard input as it is. */
static int run_dump_to(const char *opt, const char *path, const char *out,
		       char *err, size_t size)
{
	return run_dump_io(opt, path, false, out, err, size);
}

/* run_dump_to() with the output thrown away. */
static int run_dump(const char *opt, const char *path, char *err, size_t size)
{
	return run_dump_to(opt, path, "/dev/null", err, size);
}

/* The start of the file at @path, NUL-terminated ("" if unreadable). */
static void read_text(const char *path, char *buf, size_t size)
{
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * The trace in @t must be refused at @offset with a message containing
 * @reason: by the strict reader in-process, and by fxt-dump --check.
 */
static void expect_refused(const char *name, const struct trace *t,
			   size_t offset, const char *reason)
{
	uint8_t *buf = image(t);
	struct fxt_reader *r = fxt_reader_new(buf, bytes_of(t), FXT_READ_STRICT);
	struct fxt_record rec;
	char path[4200], err[2048], want[64];
	int ret, status;

	ASSERT(r);
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		;
	EXPECT_EQ(ret, (uint64_t)-1);
	if (ret < 0) {
		EXPECT_EQ(fxt_reader_error(r)->offset, offset);
		EXPECT_CONTAINS(fxt_reader_error(r)->message, reason);
		printf("#   %s: offset %zu: %s\n", name, fxt_reader_error(r)->offset,
		       fxt_reader_error(r)->message);
	}
	fxt_reader_free(r);
	if (fxt_dump) {
		snprintf(path, sizeof(path), "%s/%s.fxt", corpus_dir, name);
		EXPECT(write_file(path, buf, bytes_of(t)) == 0);
		status = run_dump("--check", path, err, sizeof(err));
		EXPECT(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 1);
		snprintf(want, sizeof(want), "offset %zu ", offset);
		EXPECT_CONTAINS(err, want);
		EXPECT_CONTAINS(err, reason);
		status = run_dump(NULL, path, err, sizeof(err));
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
	}
	free(buf);
}

TEST(empty_file)
{
	static struct trace t;

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	t.extra = 0;
	expect_refused("empty", &t, 0, "not an FXT trace (no magic record)");
}

TEST(missing_magic)
{
	static struct trace t;

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	t.extra = 0;
	fxt_write_initialization(&t.w, 1000);
	expect_refused("missing_magic", &t, 0, "not an FXT trace (no magic record)");
}

TEST(big_endian_magic)
{
	static struct trace t;

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	t.extra = 0;
	raw(&t, __builtin_bswap64(FXT_MAGIC_RECORD));
	expect_refused("big_endian", &t, 0, "big-endian");
}

TEST(record_size_zero)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_SCHEDULING | 1ULL << 60);	/* size field 0 */
	raw(&t, 0);
	expect_refused("size_zero", &t, at, "size 0");
}

TEST(record_past_end_of_file)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_SCHEDULING | 7ULL << 4 | 1ULL << 60);
	raw(&t, 123);		/* 2 of 7 words: the file was cut */
	expect_refused("truncated", &t, at, "truncated");
}

TEST(oversized_record_claims_4095_words)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_EVENT | 0xfffULL << 4);
	expect_refused("oversized_4095", &t, at, "4095 words");
}

TEST(large_record_claims_4g_words)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_LARGE | 0xffffffffULL << 4);
	expect_refused("oversized_large", &t, at, "runs past the end of the data");
}

/* Strict reading of @t from its start to its end: 0, or the error. */
static const char *strict_error(const struct trace *t, char *buf, size_t size)
{
	struct fxt_reader *r = fxt_reader_new(t->words, here(t), FXT_READ_STRICT);
	struct fxt_record rec;
	int ret;

	if (!r)
		return "fxt_reader_new() failed";
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		;
	snprintf(buf, size, "%s", ret < 0 ? fxt_reader_error(r)->message : "");
	fxt_reader_free(r);
	return ret < 0 ? buf : NULL;
}

/*
 * Perfetto's trace_processor aborts (PERFETTO_CHECK in its CPU tracker)
 * on a scheduling record whose CPU is 4096 or more, and the module writes
 * a CPU's number as it is: CPU 4095 passes, a context switch on 4096 and a
 * wakeup on 65535 are refused at their offset. Before, both passed.
 */
TEST(cpu_from_4096_is_refused)
{
	static struct trace t;
	struct fxt_arg w = fxt_arg_int32(fxt_str_index(1), 120);
	struct fxt_context_switch cs = { .cpu = 4095, .timestamp = 1,
					 .outgoing_tid = 2, .incoming_tid = 3 };
	struct fxt_wakeup wk = { .cpu = 65535, .timestamp = 2, .woken_tid = 2 };
	char err[512];
	size_t at;

	start(&t);
	fxt_write_context_switch(&t.w, &cs, &w, 1);
	EXPECT(strict_error(&t, err, sizeof(err)) == NULL);
	at = here(&t);
	cs.cpu = 4096;
	fxt_write_context_switch(&t.w, &cs, &w, 1);
	expect_refused("cpu_4096", &t, at,
		       "context switch record: CPU 4096: Perfetto reads CPU numbers below 4096 only");
	start(&t);
	at = here(&t);
	fxt_write_wakeup(&t.w, &wk, NULL, 0);
	expect_refused("cpu_65535", &t, at, "wakeup record: CPU 65535: Perfetto");
}

/*
 * Perfetto's trace_processor keeps timestamps as int64 nanoseconds: a
 * record at 2^63 ns or later it drops (its stats count it as
 * fuchsia_timestamp_overflow), and fxt-dump --check said OK. Measured
 * with its v55.3: at 10^9 ticks a second, a context switch at
 * 2^63 - 1 is kept and one at 2^63 dropped, a counter event too; at 10^6
 * ticks a second, 9223372036854775 ticks (9223372036854775000 ns) kept,
 * 9223372036854776 dropped. Now refused at those records' offsets.
 */
TEST(timestamps_from_2_63_ns_are_refused)
{
	static struct trace t;
	struct fxt_arg w = fxt_arg_int32(fxt_str_index(1), 120);
	struct fxt_context_switch cs = { .cpu = 1, .timestamp = INT64_MAX,
					 .outgoing_tid = 2, .incoming_tid = 3 };
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .thread = { .pid = 1, .tid = 1 },
		.category = fxt_str_index(2), .name = fxt_str_index(2),
		.timestamp = (uint64_t)INT64_MAX + 1,
	};
	char err[512];
	size_t at;

	start(&t);
	fxt_write_context_switch(&t.w, &cs, &w, 1);
	EXPECT(strict_error(&t, err, sizeof(err)) == NULL);
	at = here(&t);
	cs.timestamp = (uint64_t)INT64_MAX + 1;
	fxt_write_context_switch(&t.w, &cs, &w, 1);
	expect_refused("timestamp_2_63", &t, at,
		       "context switch record: timestamp 9223372036854775808: Perfetto keeps timestamps as int64 nanoseconds");
	start(&t);
	at = here(&t);
	fxt_write_event(&t.w, &ev, NULL, 0);
	expect_refused("event_timestamp_2_63", &t, at,
		       "event record: timestamp 9223372036854775808: Perfetto");

	/* 10^6 ticks a second: the limit is in nanoseconds. */
	start(&t);
	fxt_write_initialization(&t.w, 1000000);
	cs.timestamp = 9223372036854775ULL;
	fxt_write_context_switch(&t.w, &cs, &w, 1);
	EXPECT(strict_error(&t, err, sizeof(err)) == NULL);
	at = here(&t);
	cs.timestamp++;
	fxt_write_context_switch(&t.w, &cs, &w, 1);
	expect_refused("timestamp_2_63_ns_at_1mhz", &t, at,
		       "context switch record: timestamp 9223372036854776: Perfetto");
}

/*
 * Perfetto frames every record by its header's bits [4..15], a large
 * record's too, whose own size field is 32 bits: one of 4096 words or more
 * it misreads (at 4096 exactly it reads size 0 and rejects the trace;
 * above, it takes the payload for records and loses what follows, with no
 * error). A large blob of 4095 words passes, one of 4096 is refused.
 * Before, both passed.
 */
TEST(large_record_over_4095_words_is_refused)
{
	static struct trace t;
	static uint8_t payload[4092 * 8];
	/* header, format header, inline name, size word: 4 words */
	struct fxt_large_blob lb = { .format = FXT_LARGE_BLOB_NO_METADATA,
				     .category = fxt_str_index(2),
				     .name = fxt_str_c("lb"), .data = payload,
				     .size = 4091 * 8 };
	char err[512];
	size_t at;

	start(&t);
	at = here(&t);
	ASSERT(fxt_write_large_blob(&t.w, &lb, NULL, 0) == 0);
	EXPECT_EQ((here(&t) - at) / 8, 4095);
	EXPECT(strict_error(&t, err, sizeof(err)) == NULL);
	start(&t);
	at = here(&t);
	lb.size = 4092 * 8;
	ASSERT(fxt_write_large_blob(&t.w, &lb, NULL, 0) == 0);
	EXPECT_EQ((here(&t) - at) / 8, 4096);
	expect_refused("large_4096", &t, at,
		       "large record: 4096 words: Perfetto reads a record's size from bits 4-15");
}

TEST(length_not_a_multiple_of_8)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	t.extra = 5;
	memcpy(t.extra_bytes, "\x10\x00\x04\x46\x78", 5);
	expect_refused("misaligned_length", &t, at, "not a whole 8-byte word");
}

TEST(reserved_bits_in_initialization)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_INITIALIZATION | 2 << 4 | 1ULL << 40);
	raw(&t, 1000);
	expect_refused("reserved_init", &t, at, "reserved bits");
}

TEST(reserved_bits_in_context_switch)
{
	static struct trace t;
	struct fxt_context_switch cs = { .cpu = 0, .timestamp = 1 };
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_context_switch(&t.w, &cs, NULL, 0);
	t.words[at / 8] |= 1ULL << 45;	/* in [40..59] */
	expect_refused("reserved_switch", &t, at, "reserved bits");
	/* Only --check looks at reserved bits: printing reads the file to
	 * its end, exit 0, as fxt-dump(1) says. */
	if (fxt_dump) {
		char path[4200], err[2048];
		int status;

		snprintf(path, sizeof(path), "%s/reserved_switch.fxt", corpus_dir);
		status = run_dump(NULL, path, err, sizeof(err));
		EXPECT(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 0);
		status = run_dump("--summary", path, err, sizeof(err));
		EXPECT(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 0);
	}
}

TEST(reserved_bits_in_argument)
{
	static struct trace t;
	struct fxt_arg arg = fxt_arg_koid(fxt_str_index(1), 5);
	struct fxt_wakeup wk = { .timestamp = 1, .woken_tid = 2 };
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_wakeup(&t.w, &wk, &arg, 1);
	t.words[at / 8 + 3] |= 1ULL << 40;	/* koid header [32..63] */
	expect_refused("reserved_arg", &t, at, "reserved bits");
}

TEST(string_padding_not_zero)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_string(&t.w, 3, "abc", 3);
	t.words[at / 8 + 1] |= 0xffULL << 56;
	expect_refused("bad_padding", &t, at, "padding");
}

TEST(undefined_string_ref)
{
	static struct trace t;
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT,
		.category = fxt_str_index(9),
		.name = fxt_str_index(2),
	};
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_event(&t.w, &ev, NULL, 0);
	expect_refused("undefined_string", &t, at, "string ref 9");
}

TEST(undefined_thread_ref)
{
	static struct trace t;
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT,
		.thread = { .index = 3 },
		.category = fxt_str_index(2),
		.name = fxt_str_index(2),
	};
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_event(&t.w, &ev, NULL, 0);
	expect_refused("undefined_thread", &t, at, "thread ref 3");
}

TEST(argument_runs_past_its_record)
{
	static struct trace t;
	struct fxt_arg arg = fxt_arg_int32(fxt_str_index(1), 120);
	struct fxt_context_switch cs = { .timestamp = 1 };
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_context_switch(&t.w, &cs, &arg, 1);
	t.words[at / 8 + 4] |= 9ULL << 4;	/* arg size 1 -> 9 words */
	raw(&t, 0);			/* more file after it, so not EOF */
	raw(&t, 0);
	expect_refused("oversized_arg", &t, at, "runs past the end of the record");
}

TEST(argument_size_zero)
{
	static struct trace t;
	struct fxt_arg arg = fxt_arg_int32(fxt_str_index(1), 120);
	struct fxt_context_switch cs = { .timestamp = 1 };
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_context_switch(&t.w, &cs, &arg, 1);
	t.words[at / 8 + 4] &= ~(0xfffULL << 4);
	expect_refused("arg_size_zero", &t, at, "size 0");
}

TEST(inline_string_longer_than_its_record)
{
	static struct trace t;
	struct fxt_kernel_object ko = {
		.obj_type = FXT_OBJ_TYPE_PROCESS,
		.name = fxt_str_c("init"),
		.koid = 1,
	};
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_kernel_object(&t.w, &ko, NULL, 0);
	t.words[at / 8] |= 0x7000ULL << 24;	/* inline length 4 -> 0x7004 */
	expect_refused("inline_too_long", &t, at, "runs past the end of the record");
}

/*
 * The same two, by the least: an argument one word longer than what is
 * left of its record, an inline name one byte longer than its words (the
 * next word is another record's). Each refused at its record; before,
 * one word or byte too many were not counted.
 */
TEST(fields_just_past_their_record_are_refused)
{
	static struct trace t;
	struct fxt_arg arg = fxt_arg_int32(fxt_str_index(1), 120);
	struct fxt_context_switch cs = { .timestamp = 1 };
	struct fxt_kernel_object ko = {
		.obj_type = FXT_OBJ_TYPE_PROCESS,
		.name = fxt_str_c("init"),
		.koid = 1,
	};
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_context_switch(&t.w, &cs, &arg, 1);
	t.words[at / 8 + 4] += 1ULL << 4;	/* arg size 1 -> 2 words */
	raw(&t, 0);
	raw(&t, 0);
	expect_refused("arg_one_word_past", &t, at,
		       "argument 1 of 1 (2 words) runs past the end of the record (1 words left)");

	start(&t);
	at = here(&t);
	fxt_write_kernel_object(&t.w, &ko, NULL, 0);
	t.words[at / 8] += 5ULL << 24;		/* inline length 4 -> 9 */
	fxt_write_kernel_object(&t.w, &ko, NULL, 0);
	expect_refused("inline_one_byte_past", &t, at,
		       "name of 9 bytes runs past the end of the record (8 bytes left)");
}

/* A bool argument's value is bit 32 alone: bit 33 is reserved. */
TEST(reserved_bit_33_in_a_bool_argument)
{
	static struct trace t;
	struct fxt_arg arg = fxt_arg_bool(fxt_str_index(1), true);
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .thread = { .pid = 1, .tid = 1 },
		.category = fxt_str_index(2), .name = fxt_str_index(2),
		.timestamp = 1,
	};
	char err[512];
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_event(&t.w, &ev, &arg, 1);
	EXPECT(strict_error(&t, err, sizeof(err)) == NULL);
	t.words[at / 8 + 4] |= 1ULL << 33;	/* header, ts, pid, tid, arg */
	expect_refused("reserved_bool", &t, at,
		       "event record: reserved bits set in the bool argument (0x0000000200000000)");
}

TEST(record_too_short_for_its_fields)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_SCHEDULING | 3ULL << 4 | 1ULL << 60);
	raw(&t, 1);
	raw(&t, 2);
	expect_refused("short_switch", &t, at, "incoming thread koid");
}

TEST(section_for_unannounced_provider)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_provider_section(&t.w, 5);
	expect_refused("unknown_provider", &t, at, "provider 5");
}

/*
 * Arguments Perfetto reads by name must have the type it reads: another
 * type makes it drop the whole record (its fuchsia_invalid_event stat). A
 * switch whose incoming_weight is int64, a wakeup whose weight is uint32,
 * a thread whose process is a uint64: each refused, at its offset.
 */
TEST(weights_and_process_of_the_wrong_type)
{
	static struct trace t;
	struct fxt_arg w64 = fxt_arg_int64(fxt_str_index(1), 120);
	struct fxt_arg wu32 = fxt_arg_uint32(fxt_str_c("weight"), 120);
	struct fxt_arg proc = fxt_arg_uint64(fxt_str_c("process"), 7);
	struct fxt_context_switch cs = { .timestamp = 1 };
	struct fxt_wakeup wk = { .timestamp = 1, .woken_tid = 9 };
	struct fxt_kernel_object ko = {
		.obj_type = FXT_OBJ_TYPE_THREAD,
		.name = fxt_str_c("worker"),
		.koid = 9,
	};
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_context_switch(&t.w, &cs, &w64, 1);
	expect_refused("weight_int64", &t, at,
		       "incoming_weight is int64, not int32: Perfetto drops the record");
	start(&t);
	at = here(&t);
	fxt_write_wakeup(&t.w, &wk, &wu32, 1);
	expect_refused("wakeup_weight_uint32", &t, at, "weight is uint32, not int32");
	start(&t);
	at = here(&t);
	fxt_write_kernel_object(&t.w, &ko, &proc, 1);
	expect_refused("thread_process_uint64", &t, at, "process is uint64, not koid");
}

/*
 * Index 0 is the empty string and the inline thread: a String or Thread
 * record defining it is ignored by readers, and refused by the check (no
 * writer may write one; Fuchsia's reader reports it).
 */
TEST(string_and_thread_index_0)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_STRING | 2ULL << 4 | 4ULL << 32);	/* index 0, "zero" */
	raw(&t, 0x6f72657aULL);
	expect_refused("string_index_0", &t, at, "index 0 is the empty string's");
	start(&t);
	at = here(&t);
	raw(&t, FXT_RECORD_THREAD | 3ULL << 4);			/* index 0 */
	raw(&t, 1);
	raw(&t, 2);
	expect_refused("thread_index_0", &t, at, "index 0 is for inline threads");
}

/*
 * A provider info record for a provider already seen begins it anew, as
 * Perfetto and Fuchsia's reader do: its strings are gone (a ref to one is
 * undefined), its threads too, and its tick rate is 10^9 until its next
 * initialization record. Before, the old tables stayed, and --check took
 * refs that Perfetto reads as empty.
 */
TEST(provider_announced_again_starts_empty)
{
	static struct trace t;
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT,
		.category = fxt_str_index(2),
		.name = fxt_str_index(2),
	};
	struct fxt_event on_thread = {
		.type = FXT_EVENT_INSTANT,
		.thread = { .index = 1 },
		.category = fxt_str_c("c"),
		.name = fxt_str_c("n"),
	};
	struct fxt_reader *r;
	struct fxt_record rec;
	uint8_t *buf;
	size_t at;

	start(&t);
	fxt_write_provider_info(&t.w, 1, "again", 5);
	at = here(&t);
	fxt_write_event(&t.w, &ev, NULL, 0);
	expect_refused("provider_again_string", &t, at, "string ref 2");
	start(&t);
	fxt_write_thread(&t.w, 1, 10, 11);
	fxt_write_provider_info(&t.w, 1, "again", 5);
	at = here(&t);
	fxt_write_event(&t.w, &on_thread, NULL, 0);
	expect_refused("provider_again_thread", &t, at, "thread ref 1");

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	t.extra = 0;
	fxt_write_magic(&t.w);
	fxt_write_provider_info(&t.w, 1, "fxtrace", 7);
	fxt_write_provider_section(&t.w, 1);
	fxt_write_initialization(&t.w, 1000);
	fxt_write_provider_info(&t.w, 1, "again", 5);
	buf = image(&t);
	r = fxt_reader_new(buf, bytes_of(&t), FXT_READ_STRICT);
	ASSERT(r);
	while (fxt_reader_next(r, &rec) > 0)
		if (rec.type == FXT_RECORD_INITIALIZATION)
			EXPECT_EQ(fxt_reader_ticks_per_second(r), 1000);
	EXPECT(!fxt_reader_error(r));
	EXPECT_EQ(fxt_reader_ticks_per_second(r), 1000000000);
	fxt_reader_free(r);
	free(buf);
}

/*
 * A small hostile file: 255 providers, each with one String record at the
 * largest index (0x7fff). A string table allocated up to its largest index
 * took 512 KiB per provider, 128 MiB in all, from 20 KiB. Read in a child,
 * whose peak RSS may grow by less than 32 MiB.
 */
TEST(string_tables_stay_small_for_high_indices)
{
	static struct trace t;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct rusage ru0, ru1;
	uint32_t id;
	uint8_t *buf;
	long grown;
	int status, n = 0, ret = -1;
	pid_t pid;

	start(&t);
	for (id = 2; id <= 256; id++) {	/* with provider 1: MAX_PROVIDERS */
		fxt_write_provider_info(&t.w, id, "p", 1);
		fxt_write_provider_section(&t.w, id);
		fxt_write_string(&t.w, FXT_MAX_STRING_INDEX, "x", 1);
	}
	buf = image(&t);
	ASSERT(buf);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		getrusage(RUSAGE_SELF, &ru0);
		r = fxt_reader_new(buf, bytes_of(&t), FXT_READ_STRICT);
		while (r && (ret = fxt_reader_next(r, &rec)) > 0)
			n++;
		getrusage(RUSAGE_SELF, &ru1);
		grown = (ru1.ru_maxrss - ru0.ru_maxrss) / 1024;	/* MiB */
		printf("#   %d records, %zu bytes: peak RSS grew by %ld MiB\n",
		       n, bytes_of(&t), grown);
		fflush(stdout);
		/* _exit: no leak check of what the child did not free */
		_exit(!r || ret != 0 || n < 3 * 255 ? 2 : grown >= 32 ? 3 : 0);
	}
	ASSERT(waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	free(buf);
}

/*
 * The reader keeps the tables of 256 providers besides provider 0, its own
 * for records before any provider record: provider 0 took one of the 256
 * slots, so the 256th provider a file named was refused with "more than
 * 256 providers". Now 256 are read, and the 257th is refused, in every
 * mode (lenient printing too: fxt-dump(1) says so), naming the limit.
 */
TEST(provider_limit_does_not_count_provider_0)
{
	static struct trace t;
	struct fxt_record rec;
	struct fxt_reader *r;
	char path[4200], err[2048];
	uint32_t id;
	size_t at;
	int ret, status;

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	t.extra = 0;
	fxt_write_magic(&t.w);
	for (id = 1; id <= 256; id++)
		fxt_write_provider_info(&t.w, id, "p", 1);
	r = fxt_reader_new(t.words, here(&t), FXT_READ_STRICT);
	ASSERT(r);
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		;
	EXPECT_EQ(ret, 0);
	if (ret < 0)
		printf("#   offset %zu: %s\n", fxt_reader_error(r)->offset,
		       fxt_reader_error(r)->message);
	fxt_reader_free(r);
	at = here(&t);
	fxt_write_provider_info(&t.w, 257, "p", 1);
	expect_refused("provider_257", &t, at,
		       "cannot track provider 257 (more than 256 providers");
	if (!fxt_dump)
		return;
	snprintf(path, sizeof(path), "%s/provider_257.fxt", corpus_dir);
	status = run_dump(NULL, path, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	EXPECT_CONTAINS(err, "cannot track provider 257 (more than 256 providers");
}

TEST(zero_tick_rate)
{
	static struct trace t;
	size_t at;

	start(&t);
	at = here(&t);
	fxt_write_initialization(&t.w, 0);
	expect_refused("zero_ticks", &t, at, "ticks per second is 0");
}

TEST(corrupted_magic_word)
{
	static struct trace t;

	start(&t);
	t.words[0] |= 1ULL << 58;	/* still metadata/trace info type 0 */
	expect_refused("bad_magic", &t, 0, "not an FXT trace (no magic record)");
}

/*
 * Data that is not FXT at all, or nothing, is not a trace in any mode:
 * FXT_READ_MAGIC refuses it at offset 0 (the lenient reader returns an
 * empty trace or frames garbage), and fxt-dump, fxt-dump --summary and
 * --check all exit 1 naming the file, with no summary of "0 records".
 */
TEST(not_fxt_is_refused_in_every_mode)
{
	static const struct { const char *name, *data, *reason; } cases[] = {
		{ "empty", "", "empty: not an FXT trace (no magic record)" },
		{ "short", "abc", "not an FXT trace (no magic record): the data is only 3 bytes" },
		{ "text", "hello, this is a text file\n",
		  "not an FXT trace (no magic record): the first word is" },
	};
	static const char *const opts[] = { NULL, "--summary", "--check" };
	static struct trace t;
	struct fxt_reader *r;
	struct fxt_record rec;
	char path[4200], outpath[4200], err[2048], out[256];
	unsigned int i, j;
	int ret, n, status;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].data);

		r = fxt_reader_new(cases[i].data, len, FXT_READ_MAGIC);
		ASSERT(r);
		ret = fxt_reader_next(r, &rec);
		EXPECT_EQ(ret, (uint64_t)-1);
		if (ret < 0) {
			EXPECT_EQ(fxt_reader_error(r)->offset, 0);
			EXPECT_CONTAINS(fxt_reader_error(r)->message, cases[i].reason);
		}
		fxt_reader_free(r);
		if (!fxt_dump)
			continue;
		snprintf(path, sizeof(path), "%s/not-fxt-%s.fxt", corpus_dir, cases[i].name);
		snprintf(outpath, sizeof(outpath), "%s/not-fxt.out", corpus_dir);
		EXPECT(write_file(path, cases[i].data, len) == 0);
		for (j = 0; j < sizeof(opts) / sizeof(opts[0]); j++) {
			EXPECT(write_file(outpath, "", 0) == 0);
			status = run_dump_to(opts[j], path, outpath, err, sizeof(err));
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
				printf("#   fxt-dump %s %s: status 0x%x\n",
				       opts[j] ? opts[j] : "", cases[i].name, status);
			EXPECT(WIFEXITED(status));
			EXPECT_EQ(WEXITSTATUS(status), 1);
			EXPECT_CONTAINS(err, "fxt-dump: ");
			EXPECT_CONTAINS(err, path);
			EXPECT_CONTAINS(err, cases[i].reason);
			read_text(outpath, out, sizeof(out));
			EXPECT_STREQ(out, "");
		}
		unlink(path);
		unlink(outpath);
	}
	/* A trace, even one with nothing but the magic record, is one. */
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	fxt_write_magic(&t.w);
	r = fxt_reader_new(t.words, here(&t), FXT_READ_MAGIC);
	ASSERT(r);
	n = 0;
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		n++;
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(n, 1);
	fxt_reader_free(r);
}

/* One record of every kind, all refs defined: --check must say OK. */
static void build_valid(struct trace *t)
{
	static const uint8_t blob[3] = { 1, 2, 3 };
	struct fxt_arg args[3] = {
		fxt_arg_int32(fxt_str_index(1), 120),
		fxt_arg_string(fxt_str_c("s"), fxt_str_index(2)),
		fxt_arg_blob(fxt_str_c("b"), blob, 3),
	};
	struct fxt_event ev = { .type = FXT_EVENT_COUNTER, .thread = { .index = 1 },
				.category = fxt_str_index(2), .name = fxt_str_c("n"),
				.timestamp = 5, .data = 1 };
	struct fxt_blob b = { .name = fxt_str_c("blob"), .blob_type = 1,
			      .data = blob, .size = 3 };
	struct fxt_userspace_object uo = { .process = { .pid = 1 },
					   .name = fxt_str_c("obj"), .pointer = 8 };
	struct fxt_kernel_object ko = { .obj_type = FXT_OBJ_TYPE_THREAD,
					.name = fxt_str_c("t"), .koid = 2 };
	struct fxt_context_switch cs = { .cpu = 1, .timestamp = 6,
					 .outgoing_tid = 2, .incoming_tid = 0 };
	struct fxt_wakeup wk = { .cpu = 1, .timestamp = 7, .woken_tid = 2 };
	struct fxt_legacy_switch ls = { .timestamp = 8, .outgoing = { .index = 1 } };
	struct fxt_log log = { .thread = { .index = 1 }, .timestamp = 9,
			       .message = "log", .len = 3 };
	struct fxt_large_blob lb = { .format = 0, .category = fxt_str_index(2),
				     .name = fxt_str_c("lb"), .timestamp = 10,
				     .data = blob, .size = 3 };

	start(t);
	fxt_write_thread(&t->w, 1, 1, 2);
	fxt_write_provider_event(&t->w, 1, 0);
	fxt_write_event(&t->w, &ev, args, 3);
	fxt_write_blob(&t->w, &b);
	fxt_write_userspace_object(&t->w, &uo, args, 1);
	fxt_write_kernel_object(&t->w, &ko, args, 2);
	fxt_write_context_switch(&t->w, &cs, args, 1);
	fxt_write_wakeup(&t->w, &wk, args, 1);
	fxt_write_legacy_context_switch(&t->w, &ls);
	fxt_write_log(&t->w, &log);
	fxt_write_large_blob(&t->w, &lb, args, 1);
}

TEST(valid_trace_with_every_kind_passes)
{
	static struct trace t;
	struct fxt_reader *r;
	struct fxt_record rec;
	char path[4200], err[2048];
	int ret, n = 0, status;

	build_valid(&t);
	r = fxt_reader_new(t.words, here(&t), FXT_READ_STRICT);
	ASSERT(r);
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		n++;
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(n, 17);
	fxt_reader_free(r);
	if (!fxt_dump)
		return;
	snprintf(path, sizeof(path), "%s/valid.fxt", corpus_dir);
	EXPECT(write_file(path, t.words, here(&t)) == 0);
	status = run_dump("--check", path, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	status = run_dump(NULL, path, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	status = run_dump("--summary", path, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Output that cannot be written (/dev/full: ENOSPC) is an error in every
 * mode, --help and --version too, said on stderr: exit 1, as for a
 * malformed file (it was 2, the status of a bad command line, which the
 * three trace readers keep for that alone).
 */
TEST(unwritable_output_is_an_error)
{
	static const char *const opts[] = {
		NULL, "--check", "--summary", "--help", "--version", "-V",
	};
	static struct trace t;
	char valid[4200], bad[4200], err[2048];
	uint8_t *buf;
	unsigned int i;
	int status;

	if (!fxt_dump) {
		tap_skip("unwritable_output_is_an_error", "no FXT_DUMP argument");
		return;
	}
	build_valid(&t);
	snprintf(valid, sizeof(valid), "%s/valid-for-output.fxt", corpus_dir);
	ASSERT(write_file(valid, t.words, here(&t)) == 0);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		status = run_dump_to(opts[i], valid, "/dev/full", err, sizeof(err));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
			printf("#   fxt-dump %s > /dev/full\n", opts[i] ? opts[i] : "");
		EXPECT(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 1);
		EXPECT_CONTAINS(err, "fxt-dump: writing the output failed: ");
		EXPECT_CONTAINS(err, strerror(ENOSPC));
	}
	/* Records, then a size-0 one: 1, and the write error said. */
	raw(&t, FXT_RECORD_SCHEDULING);
	buf = image(&t);
	snprintf(bad, sizeof(bad), "%s/bad-for-output.fxt", corpus_dir);
	EXPECT(write_file(bad, buf, bytes_of(&t)) == 0);
	free(buf);
	status = run_dump_to(NULL, bad, "/dev/full", err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	EXPECT_CONTAINS(err, "writing the output failed");
	/* And the same files to /dev/null: 0 and 1, no complaint. */
	status = run_dump(NULL, valid, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	status = run_dump(NULL, bad, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	EXPECT(!strstr(err, "writing the output failed"));
	unlink(valid);
	unlink(bad);
}

/*
 * Standard output on the trace being read (fxt-dump F 1<>F, or >>F): refused,
 * exit 2, before a byte is written; the trace is left as it was. (Before,
 * the listing overwrote the trace here, or was appended to it.)
 */
TEST(output_to_the_trace_being_read_is_refused)
{
	static struct trace t;
	char path[4200], err[2048];
	uint8_t *was, *now;
	size_t len;
	int status;

	if (!fxt_dump) {
		tap_skip("output_to_the_trace_being_read_is_refused", "no FXT_DUMP argument");
		return;
	}
	build_valid(&t);
	len = here(&t);
	snprintf(path, sizeof(path), "%s/output-is-input.fxt", corpus_dir);
	ASSERT(write_file(path, t.words, len) == 0);
	status = run_dump_to(NULL, path, path, err, sizeof(err));
	EXPECT_EQ(exit_code(status), 2);
	EXPECT_CONTAINS(err, "fxt-dump: standard output is the trace being read (");
	EXPECT_CONTAINS(err, "the output would overwrite it; redirect the output to another file");
	was = (uint8_t *)t.words;
	now = malloc(len + 1);
	ASSERT(now);
	{
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, now, len + 1) : -1;

		if (fd >= 0)
			close(fd);
		EXPECT_EQ(n, (ssize_t)len);
		EXPECT(n == (ssize_t)len && memcmp(was, now, len) == 0);
	}
	free(now);
	/* Another file as the output: read as before. */
	status = run_dump(NULL, path, err, sizeof(err));
	EXPECT_EQ(exit_code(status), 0);
	unlink(path);
}

/*
 * --version and -V print "fxt-dump RELEASE", the release of the VERSION
 * file (as fxt-collect's, without its module ABI version), exit 0 and say
 * nothing else; no FILE is needed, as for --help.
 */
TEST(version_names_the_release)
{
	static const char *const opts[] = { "--version", "-V" };
	char outpath[4200], err[2048], out[256], want[256];
	unsigned int i;
	int status;

	if (!fxt_dump || !release) {
		tap_skip("version_names_the_release", "no FXT_DUMP or RELEASE argument");
		return;
	}
	snprintf(want, sizeof(want), "fxt-dump %s\n", release);
	snprintf(outpath, sizeof(outpath), "%s/version.out", corpus_dir);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		EXPECT(write_file(outpath, "", 0) == 0);
		status = run_dump_to(opts[i], NULL, outpath, err, sizeof(err));
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		EXPECT_STREQ(err, "");
		read_text(outpath, out, sizeof(out));
		EXPECT_STREQ(out, want);
	}
	unlink(outpath);
}

/*
 * Past a file size limit (RLIMIT_FSIZE, ulimit -f) a write fails with
 * EFBIG, said on stderr, exit 1: fxt-dump ignores SIGXFSZ, which would
 * otherwise kill it (exit 128 + 25) and leave the output cut without a word.
 * The limit is set here and inherited by the child; this process writes
 * nothing while it is in force.
 */
TEST(file_size_limit_is_a_write_error)
{
	static struct trace t;
	char valid[4200], outpath[4200], err[2048];
	struct rlimit old, lim;
	int status, fd;

	if (!fxt_dump) {
		tap_skip("file_size_limit_is_a_write_error", "no FXT_DUMP argument");
		return;
	}
	build_valid(&t);
	snprintf(valid, sizeof(valid), "%s/valid-for-fsize.fxt", corpus_dir);
	snprintf(outpath, sizeof(outpath), "%s/fsize-out.txt", corpus_dir);
	ASSERT(write_file(valid, t.words, here(&t)) == 0);
	fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT(fd >= 0);
	close(fd);
	ASSERT(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = 64;	/* bytes: far less than the printed records */
	ASSERT(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	status = run_dump_to(NULL, valid, outpath, err, sizeof(err));
	ASSERT(setrlimit(RLIMIT_FSIZE, &old) == 0);
	EXPECT(WIFEXITED(status));
	EXPECT_EQ(exit_code(status), 1);
	EXPECT_CONTAINS(err, "fxt-dump: writing the output failed: ");
	EXPECT_CONTAINS(err, strerror(EFBIG));
	unlink(valid);
	unlink(outpath);
}

/*
 * Input that cannot be read is not a whole trace: exit 1 in every mode,
 * stderr naming the path and why, nothing on stdout (it was 2, the status
 * of a bad command line). A missing file, a directory (open() succeeds,
 * read() fails with EISDIR), and standard input closed. A bad command
 * line still gives 2.
 */
TEST(unreadable_input_exits_1)
{
	static const char *const opts[] = { NULL, "--check", "--summary" };
	char missing[4200], outpath[4200], err[2048], out[256], want[4400];
	const char *paths[2];
	unsigned int i, j;
	int status;

	if (!fxt_dump) {
		tap_skip("unreadable_input_exits_1", "no FXT_DUMP argument");
		return;
	}
	snprintf(missing, sizeof(missing), "%s/no-such-file.fxt", corpus_dir);
	snprintf(outpath, sizeof(outpath), "%s/unreadable.out", corpus_dir);
	unlink(missing);
	paths[0] = missing;
	paths[1] = corpus_dir;		/* a directory */
	for (i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "fxt-dump: reading %s failed: %s\n",
			 paths[i], strerror(i ? EISDIR : ENOENT));
		for (j = 0; j < sizeof(opts) / sizeof(opts[0]); j++) {
			EXPECT(write_file(outpath, "", 0) == 0);
			status = run_dump_to(opts[j], paths[i], outpath, err, sizeof(err));
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
				printf("#   fxt-dump %s %s: status 0x%x\n",
				       opts[j] ? opts[j] : "", paths[i], status);
			EXPECT(WIFEXITED(status));
			EXPECT_EQ(WEXITSTATUS(status), 1);
			EXPECT_STREQ(err, want);
			read_text(outpath, out, sizeof(out));
			EXPECT_STREQ(out, "");
		}
	}
	/* "-" with standard input closed: read() fails with EBADF. */
	status = run_dump_io("--check", "-", true, "/dev/null", err, sizeof(err));
	EXPECT(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 1);
	EXPECT_CONTAINS(err, "fxt-dump: reading - failed: ");
	/* Only the command line gives 2: no FILE, or two. */
	status = run_dump_to("--check", NULL, "/dev/null", err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	EXPECT_CONTAINS(err, "missing FILE");
	status = run_dump_to(missing, missing, "/dev/null", err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	EXPECT_CONTAINS(err, "only one FILE");
	unlink(outpath);
}

/*
 * getopt's own errors start with "fxt-dump:", as every other message, not
 * with the path fxt-dump was run by (a full path, here).
 */
TEST(getopt_errors_start_with_fxt_dump)
{
	static const char *const cases[][2] = {
		{ "--bogus", "fxt-dump: unrecognized option '--bogus'\n" },
		{ "-Z", "fxt-dump: invalid option -- 'Z'\n" },
	};
	char valid[4200], err[2048], want[256];
	static struct trace t;
	unsigned int i;
	int status;

	if (!fxt_dump) {
		tap_skip("getopt_errors_start_with_fxt_dump", "no FXT_DUMP argument");
		return;
	}
	build_valid(&t);
	snprintf(valid, sizeof(valid), "%s/valid-for-getopt.fxt", corpus_dir);
	ASSERT(write_file(valid, t.words, here(&t)) == 0);
	ASSERT(setenv("LC_ALL", "C", 1) == 0);	/* getopt's words, untranslated */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(want, sizeof(want), "%sTry 'fxt-dump --help' for more information.\n",
			 cases[i][1]);
		status = run_dump(cases[i][0], valid, err, sizeof(err));
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
		EXPECT_STREQ(err, want);
	}
	unsetenv("LC_ALL");
	unlink(valid);
}

/* Run fxt-dump @opt on @t; its stdout in @out (NUL-terminated). */
static void dump_stdout(const char *opt, const struct trace *t, const char *name,
			char *out, size_t size)
{
	char path[4200], outpath[4200], err[2048];
	int status;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s.fxt", corpus_dir, name);
	snprintf(outpath, sizeof(outpath), "%s/%s.out", corpus_dir, name);
	EXPECT(write_file(path, t->words, here(t)) == 0);
	EXPECT(write_file(outpath, "", 0) == 0);
	status = run_dump_to(opt, path, outpath, err, sizeof(err));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	read_text(outpath, out, size);
	unlink(path);
	unlink(outpath);
}

static void switch_at(struct trace *t, uint64_t ts)
{
	struct fxt_context_switch cs = { .cpu = 0, .timestamp = ts,
					 .outgoing_tid = 2, .incoming_tid = 3 };

	fxt_write_context_switch(&t->w, &cs, NULL, 0);
}

/*
 * The start of a --summary test's trace: the preamble and one context
 * switch at 100. False if the test is skipped (no fxt-dump to run) or the
 * preamble could not be written (a failure, reported).
 */
static bool summary_trace_start(struct trace *t, const char *test)
{
	if (!fxt_dump) {
		tap_skip(test, "no FXT_DUMP argument");
		return false;
	}
	fxt_writer_init(&t->w, t->words, MAX_WORDS);
	if (archive_write_preamble(&t->w)) {
		TAP_FAIL_HERE("archive_write_preamble() failed");
		return false;
	}
	switch_at(t, 100);
	return true;
}

/*
 * --summary's time span is in the trace's ticks: the initialization
 * record's rate, per provider, not nanoseconds. With two rates, the
 * earliest and latest are found in seconds (1.5e9 ticks of a 1e9 rate
 * are before 2e6 ticks of a 1e6 rate).
 */
TEST(summary_time_span_in_the_trace_s_ticks)
{
	static struct trace t;
	char out[4096];

	if (!fxt_dump) {
		tap_skip("summary_time_span_in_the_trace_s_ticks", "no FXT_DUMP argument");
		return;
	}
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	fxt_write_magic(&t.w);
	fxt_write_provider_info(&t.w, 1, "micro", 5);
	fxt_write_provider_section(&t.w, 1);
	fxt_write_initialization(&t.w, 1000000);
	switch_at(&t, 0);
	switch_at(&t, 2000000);
	dump_stdout("--summary", &t, "ticks", out, sizeof(out));
	EXPECT_CONTAINS(out, "  time span: 2.000000000 s (timestamps 0 .. 2000000, 1000000 ticks/s)\n");

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	fxt_write_magic(&t.w);
	fxt_write_provider_info(&t.w, 1, "micro", 5);
	fxt_write_provider_section(&t.w, 1);
	fxt_write_initialization(&t.w, 1000000);
	switch_at(&t, 500000);			/* 0.5 s */
	switch_at(&t, 2000000);			/* 2 s: the latest */
	fxt_write_provider_info(&t.w, 2, "nano", 4);
	fxt_write_provider_section(&t.w, 2);
	fxt_write_initialization(&t.w, 1000000000);
	switch_at(&t, 1500000000);		/* 1.5 s */
	switch_at(&t, 250000000);		/* 0.25 s: the earliest */
	dump_stdout("--summary", &t, "mixed-ticks", out, sizeof(out));
	EXPECT_CONTAINS(out, "  time span: 1.750000000 s (0.250000000 .. 2.000000000 s: providers with different tick rates)\n");
}

/*
 * fxt-dump --summary of a trace that is the magic record and one
 * records_dropped counter event with the two arguments @a, into @out.
 */
static void summary_of_drop_counters(struct fxt_arg a[2], const char *label,
				     char *out, size_t size)
{
	static struct trace t;
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = { .index = 0, .pid = 5, .tid = 5 },
		.category = fxt_str_c("fxtrace"),
		.name = fxt_str_c("records_dropped"),
		.timestamp = 1000,
	};

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	fxt_write_magic(&t.w);
	fxt_write_event(&t.w, &ev, a, 2);
	dump_stdout("--summary", &t, label, out, size);
}

/*
 * --summary lists the records_dropped counters by argument name. A name
 * is bytes from the file: printed as the record lines print argument
 * names (quoted and escaped unless a plain identifier), so no escape
 * sequence reaches the terminal and no newline splits the summary line.
 */
TEST(summary_escapes_drop_counter_names)
{
	struct fxt_arg a[2] = {
		fxt_arg_int64(fxt_str_c("cpu0\x1b[31m\nX"), 3),
		fxt_arg_int64(fxt_str_c("cpu1"), 5),
	};
	char out[4096];

	if (!fxt_dump) {
		tap_skip("summary_escapes_drop_counter_names", "no FXT_DUMP argument");
		return;
	}
	summary_of_drop_counters(a, "drop-names", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: 0 buffer-full events; \"cpu0\\x1b[31m\\nX\" 3 cpu1 5\n");
	EXPECT(!strchr(out, '\x1b'));
}

/*
 * Counter names are kept whole: two names that agree in their first 40
 * bytes are two counters (a name was once cut at 31 bytes, and these two
 * became one, showing only the larger value under the shared prefix).
 */
TEST(summary_keeps_long_drop_counter_names_apart)
{
	struct fxt_arg a[2] = {
		fxt_arg_int64(fxt_str_c("a_counter_name_longer_than_forty_bytes_one"), 3),
		fxt_arg_int64(fxt_str_c("a_counter_name_longer_than_forty_bytes_two"), 5),
	};
	char out[4096];

	if (!fxt_dump) {
		tap_skip("summary_keeps_long_drop_counter_names_apart", "no FXT_DUMP argument");
		return;
	}
	summary_of_drop_counters(a, "drop-long-names", out, sizeof(out));
	EXPECT_CONTAINS(out, "; a_counter_name_longer_than_forty_bytes_one 3 a_counter_name_longer_than_forty_bytes_two 5\n");
}

/*
 * fxt-collect samples every CPU's records_dropped counter at the start, all
 * zero, as archive_write_drop_counters() writes it: on a machine of more
 * than 64 CPUs the names after the 64th must still be counted, or a drop
 * on such a CPU never shows. 100 CPUs, cpu99 drops 7 later. The file stays
 * in the corpus: test_valgrind.sh runs --summary on it (counters past the
 * first allocation, each initialized).
 */
TEST(summary_counts_drops_of_every_cpu)
{
	static struct drop_count counts[100];
	static struct trace t;
	struct drop_count late = { 99, 7 };
	char out[8192], path[4200];
	unsigned int i;

	if (!fxt_dump) {
		tap_skip("summary_counts_drops_of_every_cpu", "no FXT_DUMP argument");
		return;
	}
	for (i = 0; i < 100; i++)
		counts[i] = (struct drop_count){ i, 0 };
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	ASSERT(archive_write_preamble(&t.w) == 0);
	ASSERT(archive_write_drop_counters(&t.w, 5, 5, 1000, counts, 100) == 0);
	ASSERT(archive_write_drop_marker(&t.w, 5, 5, 99, 7, 2000) == 0);
	ASSERT(archive_write_drop_counters(&t.w, 5, 5, 3000, &late, 1) == 0);
	dump_stdout("--summary", &t, "drops-100-cpus", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: 1 buffer-full events; cpu0 0 cpu1 0 ");
	EXPECT_CONTAINS(out, " cpu63 0 cpu64 0 ");
	EXPECT_CONTAINS(out, " cpu98 0 cpu99 7\n");
	EXPECT(!strstr(out, "cpu100"));
	EXPECT(!strstr(out, "out of memory"));
	snprintf(path, sizeof(path), "%s/drops-100-cpus.fxt", corpus_dir);
	EXPECT(write_file(path, t.words, here(&t)) == 0);
}

/*
 * 1000 counters, so the summary's table of names grows and is rehashed
 * four times (it is looked up by name: a search of a list for each of a
 * file's counter arguments took time quadratic in the names, 0.7 s for
 * 20000 of them and hours for a hostile 50 MB file). Later samples of
 * cpu500 and cpu999 raise those two; every CPU is listed once, in order.
 */
TEST(summary_counts_drops_of_1000_cpus)
{
	static struct drop_count counts[1000];
	static struct trace t;
	static char out[32768];
	struct drop_count late[2] = { { 500, 3 }, { 999, 7 } };
	char want[64];
	const char *p;
	unsigned int i, listed = 0;

	if (!fxt_dump) {
		tap_skip("summary_counts_drops_of_1000_cpus", "no FXT_DUMP argument");
		return;
	}
	for (i = 0; i < 1000; i++)
		counts[i] = (struct drop_count){ i, 0 };
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	ASSERT(archive_write_preamble(&t.w) == 0);
	ASSERT(archive_write_drop_counters(&t.w, 5, 5, 1000, counts, 1000) == 0);
	ASSERT(archive_write_drop_counters(&t.w, 5, 5, 3000, late, 2) == 0);
	dump_stdout("--summary", &t, "drops-1000-cpus", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: 0 buffer-full events; cpu0 0 cpu1 0 ");
	EXPECT_CONTAINS(out, " cpu499 0 cpu500 3 cpu501 0 ");
	EXPECT_CONTAINS(out, " cpu998 0 cpu999 7\n");
	for (i = 0; i < 1000; i++) {
		snprintf(want, sizeof(want), " cpu%u ", i);
		p = strstr(out, want);
		if (p && !strstr(p + 1, want))
			listed++;
	}
	EXPECT_EQ(listed, 1000);
	EXPECT(!strstr(out, "out of memory"));
}

/* One kernel loss marker (7 words) at the end of @t. */
static void loss_marker(struct trace *t, uint64_t ts, unsigned int cpu,
			int64_t lost)
{
	t->w.len += kernel_loss_marker(t->words + t->w.len, ts, cpu, lost,
				       5, 5) / 8;
}

/* A counter event named @name with one argument @arg, counter id @id. */
static void counter(struct trace *t, const char *name, uint64_t id,
		    struct fxt_arg arg)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = { .index = 0, .pid = 5, .tid = 5 },
		.category = fxt_str_index(FXTRACE_STR_FXTRACE),
		.name = fxt_str_c(name),
		.timestamp = 1000,
		.data = id,
	};

	fxt_write_event(&t->w, &ev, &arg, 1);
}

/*
 * The kernel's loss markers (records_lost pairs, uapi "Loss markers") are
 * losses --summary reports, per CPU with their holes, even with no
 * records_dropped counter in the trace (a trace cut before fxt-collect's
 * samples, or another producer's): it said "records dropped: none
 * reported" and nothing of them. fxt-collect's own records_lost pair for
 * drops after a ring's last record (archive_write_lost_marker()) counts
 * the same. Counters that are not markers (no "cpu" argument, a negative
 * one, a counter id that is no CPU) are not counted. A trace without any
 * loss says "none" on each line.
 */
TEST(summary_reports_records_lost_markers)
{
	static struct trace t;
	char out[4096], path[4200];

	if (!summary_trace_start(&t, "summary_reports_records_lost_markers"))
		return;
	loss_marker(&t, 200, 0, 7);
	loss_marker(&t, 300, 0, 0);
	loss_marker(&t, 400, 2, 3);
	loss_marker(&t, 500, 2, 0);
	switch_at(&t, 600);
	ASSERT(archive_write_lost_marker(&t.w, 5, 5, 2, 2, 700, 800) == 0);
	counter(&t, "records_lost", 1, fxt_arg_int64(fxt_str_c("other"), 50));
	counter(&t, "records_lost", 1, fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), -4));
	counter(&t, "records_lost", 70000, fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), 9));
	counter(&t, "not_a_marker", 1, fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), 9));
	dump_stdout("--summary", &t, "records-lost", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: no records_dropped counter or buffer-full event\n"
			"  records lost (records_lost markers): 12 in 3 holes; cpu0 7 (1 hole) cpu2 5 (2 holes)\n"
			"  bytes skipped (fxt-collect's bytes_skipped markers): none\n");
	EXPECT(!strstr(out, "none reported"));
	EXPECT(!strstr(out, "cpu1 "));
	/* Kept: test_valgrind.sh runs --summary on it (the per-CPU holes). */
	snprintf(path, sizeof(path), "%s/records-lost.fxt", corpus_dir);
	EXPECT(write_file(path, t.words, here(&t)) == 0);

	/* With fxt-collect's zero samples too: the counters, then the holes. */
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	ASSERT(archive_write_preamble(&t.w) == 0);
	{
		struct drop_count zero[2] = { { 0, 0 }, { 1, 0 } };

		ASSERT(archive_write_drop_counters(&t.w, 5, 5, 50, zero, 2) == 0);
	}
	loss_marker(&t, 200, 1, 1);
	loss_marker(&t, 300, 1, 0);
	dump_stdout("--summary", &t, "records-lost-and-counters", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: 0 buffer-full events; cpu0 0 cpu1 0\n"
			"  records lost (records_lost markers): 1 in 1 hole; cpu1 1 (1 hole)\n"
			"  bytes skipped (fxt-collect's bytes_skipped markers): none\n");

	/* No loss of any kind. */
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	ASSERT(archive_write_preamble(&t.w) == 0);
	switch_at(&t, 100);
	dump_stdout("--summary", &t, "no-loss", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: none reported\n"
			"  records lost (records_lost markers): none\n"
			"  bytes skipped (fxt-collect's bytes_skipped markers): none\n");
}

/*
 * fxt-collect's bytes_skipped markers (ring data skipped as invalid, in
 * bytes; archive_write_skip_marker()) are reported apart from the kernel's
 * records: bytes are no count of records. With only those, the records
 * dropped line says no counter, not "none reported".
 */
TEST(summary_reports_bytes_skipped_markers)
{
	static struct trace t;
	char out[4096];

	if (!summary_trace_start(&t, "summary_reports_bytes_skipped_markers"))
		return;
	ASSERT(archive_write_skip_marker(&t.w, 5, 5, 1, 4194304, 200, 300) == 0);
	ASSERT(archive_write_skip_marker(&t.w, 5, 5, 0, 24, 400, 500) == 0);
	ASSERT(archive_write_skip_marker(&t.w, 5, 5, 1, 4194304, 600, 700) == 0);
	dump_stdout("--summary", &t, "bytes-skipped", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: no records_dropped counter or buffer-full event\n"
			"  records lost (records_lost markers): none\n"
			"  bytes skipped (fxt-collect's bytes_skipped markers): 8388632 in 3 holes; cpu0 24 (1 hole) cpu1 8388608 (2 holes)\n");
	EXPECT(!strstr(out, "none reported"));
}

/*
 * A hole whose second marker never came (the trace ends inside it: cut
 * short, e.g. fxt-collect killed) is said to be open at the end, in all
 * and on its CPU, and only then: --summary counted it like any other and
 * said nothing of it. A CPU is in one hole or none, as in fxt-sched: a 0
 * of either kind ends it (cpu3), a second non-zero sample inside one is
 * one more hole but not a second open one (cpu4), and a 0 on a CPU never
 * in a hole changes nothing (cpu5).
 */
TEST(summary_reports_holes_still_open)
{
	static struct trace t;
	char out[4096];

	if (!summary_trace_start(&t, "summary_reports_holes_still_open"))
		return;
	loss_marker(&t, 200, 0, 7);
	loss_marker(&t, 300, 0, 0);
	counter(&t, "bytes_skipped", 3, fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), 16));
	loss_marker(&t, 400, 3, 0);
	loss_marker(&t, 450, 5, 0);
	loss_marker(&t, 500, 4, 2);
	loss_marker(&t, 600, 4, 1);
	loss_marker(&t, 700, 2, 3);
	counter(&t, "bytes_skipped", 1, fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), 24));
	dump_stdout("--summary", &t, "holes-open", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records lost (records_lost markers): 13 in 4 holes, 2 still open at the end; cpu0 7 (1 hole) cpu2 3 (1 hole, 1 still open at the end) cpu4 3 (2 holes, 1 still open at the end)\n"
			"  bytes skipped (fxt-collect's bytes_skipped markers): 40 in 2 holes, 1 still open at the end; cpu1 24 (1 hole, 1 still open at the end) cpu3 16 (1 hole)\n");
	EXPECT(!strstr(out, "cpu5"));

	/* Every hole closed, the last one after its CPU's second sample:
	 * the lines read as they did before open holes were said. */
	loss_marker(&t, 800, 4, 0);
	loss_marker(&t, 900, 2, 0);
	counter(&t, "bytes_skipped", 1, fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), 0));
	dump_stdout("--summary", &t, "holes-closed", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records lost (records_lost markers): 13 in 4 holes; cpu0 7 (1 hole) cpu2 3 (1 hole) cpu4 3 (2 holes)\n"
			"  bytes skipped (fxt-collect's bytes_skipped markers): 40 in 2 holes; cpu1 24 (1 hole) cpu3 16 (1 hole)\n");
	EXPECT(!strstr(out, "still open"));
}

/*
 * Without --check, a thread ref no Thread record defined prints as
 * <undefined #N>, as fxt-dump(1) and --help say, in every record that has
 * one (event, log, legacy switch, large blob, a userspace object's
 * process, which printed as pid=0): it printed as 0/0(#N), the
 * koids of the idle task. fxt_reader_lookup_thread() tells them apart,
 * asked right after the record was read. A defined ref, and an inline
 * thread, print their koids as before.
 */
TEST(undefined_thread_refs_print_as_undefined)
{
	static struct trace t;
	static const uint8_t blob[3] = { 1, 2, 3 };
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .timestamp = 10,
		.thread = { .index = 5 },
		.category = fxt_str_c("c"), .name = fxt_str_c("n"),
	};
	struct fxt_event defined = {
		.type = FXT_EVENT_INSTANT, .timestamp = 11,
		.thread = { .index = 1 },
		.category = fxt_str_c("c"), .name = fxt_str_c("n"),
	};
	struct fxt_log log = { .thread = { .index = 9 }, .timestamp = 12,
			       .message = "hi", .len = 2 };
	struct fxt_legacy_switch ls = {
		.cpu = 2, .timestamp = 13, .outgoing = { .index = 7 },
		.incoming = { .index = 0, .pid = 0, .tid = 0 },
	};
	struct fxt_large_blob lb = {
		.format = FXT_LARGE_BLOB_WITH_METADATA,
		.category = fxt_str_c("c"), .name = fxt_str_c("lb"),
		.timestamp = 14, .thread = { .index = 8 },
		.data = blob, .size = 3,
	};
	struct fxt_userspace_object uo = {
		.pointer = 0x1234, .process = { .index = 6 },
		.name = fxt_str_c("uo"),
	};
	struct fxt_userspace_object uo_defined = {
		.pointer = 0x5678, .process = { .index = 1 },
		.name = fxt_str_c("ud"),
	};
	struct fxt_reader *r;
	struct fxt_record rec;
	char out[4096];
	uint64_t pid, tid;
	unsigned int undefined = 0, defined_refs = 0, i;
	uint8_t refs[2];

	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	t.extra = 0;
	fxt_write_magic(&t.w);
	fxt_write_thread(&t.w, 1, 10, 11);
	fxt_write_event(&t.w, &ev, NULL, 0);
	fxt_write_event(&t.w, &defined, NULL, 0);
	fxt_write_log(&t.w, &log);
	fxt_write_legacy_context_switch(&t.w, &ls);
	fxt_write_large_blob(&t.w, &lb, NULL, 0);
	fxt_write_userspace_object(&t.w, &uo, NULL, 0);
	fxt_write_userspace_object(&t.w, &uo_defined, NULL, 0);
	r = fxt_reader_new(t.words, here(&t), 0);
	ASSERT(r);
	while (fxt_reader_next(r, &rec) > 0) {
		refs[0] = rec.type == FXT_RECORD_EVENT ? rec.event.thread.index :
			  rec.type == FXT_RECORD_LOG ? rec.log.thread.index :
			  rec.type == FXT_RECORD_SCHEDULING ? rec.legacy_switch.outgoing.index :
			  rec.type == FXT_RECORD_LARGE ? rec.large_blob.thread.index :
			  rec.type == FXT_RECORD_USERSPACE_OBJECT ? rec.uobj.process.index : 0;
		refs[1] = rec.type == FXT_RECORD_SCHEDULING ?
			  rec.legacy_switch.incoming.index : 0;
		for (i = 0; i < 2; i++) {
			if (!refs[i])
				continue;
			if (fxt_reader_lookup_thread(r, refs[i], &pid, &tid))
				defined_refs++;
			else
				undefined++;
		}
	}
	EXPECT(!fxt_reader_error(r));
	fxt_reader_free(r);
	EXPECT_EQ(undefined, 5);
	EXPECT_EQ(defined_refs, 2);
	if (!fxt_dump) {
		tap_skip("undefined_thread_refs_print_as_undefined (fxt-dump)",
			 "no FXT_DUMP argument");
		return;
	}
	dump_stdout(NULL, &t, "undefined-threads", out, sizeof(out));
	EXPECT_CONTAINS(out, " event instant ts=10 thread=<undefined #5> category=");
	EXPECT_CONTAINS(out, " event instant ts=11 thread=10/11(#1) category=");
	EXPECT_CONTAINS(out, " log ts=12 thread=<undefined #9> \"hi\"\n");
	EXPECT_CONTAINS(out, " legacy_context_switch ts=13 cpu=2 out=<undefined #7> (new) out_prio=0 in=0/0 in_prio=0\n");
	EXPECT_CONTAINS(out, " ts=14 thread=<undefined #8> size=3 ");
	EXPECT_CONTAINS(out, " userspace_object pointer=0x1234 pid=<undefined #6> name=\"uo\"");
	EXPECT_CONTAINS(out, " userspace_object pointer=0x5678 pid=10 name=\"ud\"");
	EXPECT(!strstr(out, "0/0(#"));
}

/*
 * Processes are counted as threads are, by koid: a process named twice
 * (its exec, say) is one process, not two "process objects".
 */
TEST(summary_counts_processes_by_koid)
{
	static struct trace t;
	struct fxt_kernel_object proc = {
		.obj_type = FXT_OBJ_TYPE_PROCESS, .name = fxt_str_c("bash"),
		.koid = 100,
	};
	struct fxt_kernel_object thread = {
		.obj_type = FXT_OBJ_TYPE_THREAD, .name = fxt_str_c("bash"),
		.koid = 100,
	};
	struct fxt_arg process = fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS), 100);
	char out[4096];

	if (!summary_trace_start(&t, "summary_counts_processes_by_koid"))
		return;
	fxt_write_kernel_object(&t.w, &proc, NULL, 0);
	fxt_write_kernel_object(&t.w, &thread, &process, 1);
	proc.name = thread.name = fxt_str_c("make");
	fxt_write_kernel_object(&t.w, &proc, NULL, 0);
	fxt_write_kernel_object(&t.w, &thread, &process, 1);
	proc.koid = 200;
	fxt_write_kernel_object(&t.w, &proc, NULL, 0);
	dump_stdout("--summary", &t, "processes-by-koid", out, sizeof(out));
	EXPECT_CONTAINS(out, "  threads: 2 seen in scheduling records (tid 0 = idle included), 1 named, 2 seen but unnamed; processes: 2 named\n");
}

/*
 * The time span takes every timestamp the reader decodes: it took only
 * events' start and kind 1 and 2 scheduling records', so a duration
 * complete's end, a log, a legacy switch or a large blob before or after
 * all of those was left out. The switch at 100, then each in turn.
 */
TEST(summary_time_span_counts_every_timestamp)
{
	static struct trace t;
	static const uint8_t blob[3] = { 1, 2, 3 };
	struct fxt_event dc = {
		.type = FXT_EVENT_DURATION_COMPLETE, .timestamp = 300,
		.thread = { .index = 0, .pid = 5, .tid = 5 },
		.category = fxt_str_c("c"), .name = fxt_str_c("n"), .data = 5000,
	};
	struct fxt_log log = { .thread = { .index = 0, .pid = 5, .tid = 5 },
			       .timestamp = 9000, .message = "hi", .len = 2 };
	struct fxt_legacy_switch ls = {
		.timestamp = 50,
		.outgoing = { .index = 0, .pid = 5, .tid = 5 },
		.incoming = { .index = 0, .pid = 0, .tid = 0 },
	};
	struct fxt_large_blob lb = {
		.format = FXT_LARGE_BLOB_WITH_METADATA,
		.category = fxt_str_c("c"), .name = fxt_str_c("lb"),
		.timestamp = 12000, .thread = { .index = 0, .pid = 5, .tid = 5 },
		.data = blob, .size = 3,
	};
	char out[4096];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (!summary_trace_start(&t, "summary_time_span_counts_every_timestamp"))
			return;
		if (i == 0)
			fxt_write_event(&t.w, &dc, NULL, 0);
		else if (i == 1)
			fxt_write_log(&t.w, &log);
		else if (i == 2)
			fxt_write_legacy_context_switch(&t.w, &ls);
		else
			fxt_write_large_blob(&t.w, &lb, NULL, 0);
		dump_stdout("--summary", &t, "span-every-timestamp", out, sizeof(out));
		EXPECT_CONTAINS(out, i == 0 ? "(timestamps 100 .. 5000, " :
				     i == 1 ? "(timestamps 100 .. 9000, " :
				     i == 2 ? "(timestamps 50 .. 100, " :
					      "(timestamps 100 .. 12000, ");
	}
}

/*
 * Legacy context switches (scheduling kind 0, thread refs) count as
 * switches of their CPU, and their threads as seen in scheduling records,
 * as kind 1 switches: they were left out of both. A ref no Thread record
 * defined has no tid to count (not 0, the idle task's).
 */
TEST(summary_counts_legacy_switches)
{
	static struct trace t;
	struct fxt_legacy_switch ls = {
		.cpu = 3, .timestamp = 100,
		.outgoing = { .index = 1 },
		.incoming = { .index = 0, .pid = 1, .tid = 12 },
	};
	char out[4096];

	if (!fxt_dump) {
		tap_skip("summary_counts_legacy_switches", "no FXT_DUMP argument");
		return;
	}
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	fxt_write_magic(&t.w);
	fxt_write_thread(&t.w, 1, 1, 10);
	fxt_write_legacy_context_switch(&t.w, &ls);
	ls.timestamp = 200;
	ls.outgoing = ls.incoming;
	ls.incoming = (struct fxt_thread_ref){ .index = 2 };	/* undefined */
	fxt_write_legacy_context_switch(&t.w, &ls);
	dump_stdout("--summary", &t, "legacy-switches", out, sizeof(out));
	EXPECT_CONTAINS(out, "  cpu3: 2 context switches, 0 wakeups\n");
	EXPECT_CONTAINS(out, "  threads: 2 seen in scheduling records (tid 0 = idle included), 0 named, 2 seen but unnamed;");
}

/*
 * A records_dropped counter's value is its last sample, as fxt-dump(1)
 * says, not its largest: a trace appended after the module was reloaded
 * counts from 0 again, 7 and then 3 is 3.
 */
TEST(summary_drop_counter_is_its_last_value)
{
	static struct trace t;
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = { .index = 0, .pid = 5, .tid = 5 },
		.category = fxt_str_c("fxtrace"),
		.name = fxt_str_c("records_dropped"),
		.timestamp = 1000,
	};
	struct fxt_arg a = fxt_arg_uint64(fxt_str_c("cpu0"), 7);
	char out[4096];

	if (!fxt_dump) {
		tap_skip("summary_drop_counter_is_its_last_value", "no FXT_DUMP argument");
		return;
	}
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	fxt_write_magic(&t.w);
	fxt_write_event(&t.w, &ev, &a, 1);
	ev.timestamp = 2000;
	a.v.u64 = 3;
	fxt_write_event(&t.w, &ev, &a, 1);
	dump_stdout("--summary", &t, "drop-last-value", out, sizeof(out));
	EXPECT_CONTAINS(out, "  records dropped: 0 buffer-full events; cpu0 3\n");
}

/* Sleep @ms milliseconds. */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * fxt-dump prints a trace of 1 MiB into a pipe of one page this process
 * does not read yet; once the pipe is full, fxt-dump waits to write with
 * nearly all of the file unread. Then the file is cut to nothing under it
 * (@shrink), or it is sent a SIGBUS; then the pipe is read to its end.
 * fxt-dump's wait status in @wait_status (left alone if a step failed),
 * its stderr in @err.
 */
static void dump_blocked_then(const char *test, bool shrink, char *err,
			      size_t err_size, int *wait_status)
{
	static struct trace t;
	char path[4200], buf[4096];
	int out[2], errpipe[2], status = 0, fd, avail = 0, pipe_size, i;
	size_t len, chunks = 32, printed = 0;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s.fxt", corpus_dir, test);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	ASSERT(archive_write_preamble(&t.w) == 0);
	len = here(&t);
	EXPECT(write(fd, t.words, len) == (ssize_t)len);
	/* then 32 times 32 KiB of context switches (32 bytes each) */
	fxt_writer_init(&t.w, t.words, MAX_WORDS);
	while (here(&t) + 32 <= sizeof(t.words))
		switch_at(&t, 1000 + here(&t));
	for (i = 0; i < (int)chunks; i++)
		EXPECT(write(fd, t.words, here(&t)) == (ssize_t)here(&t));
	close(fd);
	ASSERT(pipe(out) == 0);
	ASSERT(pipe(errpipe) == 0);
	/* One page, if it may (the smallest pipe): fxt-dump soon waits. */
	fcntl(out[0], F_SETPIPE_SZ, 4096);
	pipe_size = fcntl(out[0], F_GETPIPE_SZ);
	ASSERT(pipe_size > 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(errpipe[1], STDERR_FILENO);
		close(out[0]);
		close(out[1]);
		close(errpipe[0]);
		close(errpipe[1]);
		execl(fxt_dump, fxt_dump, path, (char *)NULL);
		_exit(126);
	}
	close(out[1]);
	close(errpipe[1]);
	/* The pipe full: fxt-dump waits in write() (10 s at most). */
	for (i = 0; i < 1000; i++) {
		if (ioctl(out[0], FIONREAD, &avail) == 0 && avail >= pipe_size)
			break;
		sleep_ms(10);
	}
	if (avail < pipe_size)
		printf("#   the pipe holds %d of %d bytes after 10 s\n", avail, pipe_size);
	EXPECT(avail >= pipe_size);
	if (shrink)
		EXPECT(truncate(path, 0) == 0);
	else
		EXPECT(kill(pid, SIGBUS) == 0);
	while ((n = read(out[0], buf, sizeof(buf))) > 0)
		printed += (size_t)n;
	close(out[0]);
	read_to_end(errpipe[0], err, err_size);
	close(errpipe[0]);
	ASSERT(waitpid(pid, &status, 0) == pid);
	*wait_status = status;
	printf("#   %zu bytes printed of a file of %zu\n", printed,
	       len + chunks * here(&t));
	unlink(path);
}

/*
 * A file that shrinks while fxt-dump reads it (fxt-collect -o truncates a
 * file it writes anew, in place) is input fxt-dump cannot read: exit 1,
 * and a message. The file is mapped, and the first load past its new end
 * was a SIGBUS that killed fxt-dump without a word (exit 135).
 */
TEST(input_shrinking_while_read_exits_1)
{
	char err[2048] = "";
	int status = -1;

	if (!fxt_dump) {
		tap_skip("input_shrinking_while_read_exits_1", "no FXT_DUMP argument");
		return;
	}
	dump_blocked_then("shrinking", true, err, sizeof(err), &status);
	EXPECT_EQ(exit_code(status), 1);
	EXPECT_CONTAINS(err, "fxt-dump: reading ");
	EXPECT_CONTAINS(err, "shrinking.fxt");
	EXPECT_CONTAINS(err, " failed: the file shrank while being read (from ");
	EXPECT_CONTAINS(err, " to 0 bytes)\n");
}

/*
 * The guard against a shrinking file takes only the SIGBUS of a load from
 * the file: one sent by kill(1) still kills fxt-dump, as it always did
 * (the guard once swallowed it, and the write() it interrupted failed).
 */
TEST(a_sent_sigbus_still_kills)
{
	char err[2048] = "";
	int status = -1;

	if (!fxt_dump) {
		tap_skip("a_sent_sigbus_still_kills", "no FXT_DUMP argument");
		return;
	}
	dump_blocked_then("sigbus_sent", false, err, sizeof(err), &status);
	EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	EXPECT_EQ(exit_code(status), 128 + SIGBUS);
	EXPECT_EQ(strlen(err), 0);
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Flip bits, overwrite words, cut the file: the reader must stop cleanly
 * with an offset inside the buffer, in both modes. Each mutant is an exact
 * malloc so ASan sees any read past it.
 */
TEST(random_mutations_never_crash)
{
	static struct trace t;
	size_t len, i, k, cut;
	unsigned int refused = 0;
	struct fxt_record rec;
	uint8_t *buf;
	int mode, ret;

	build_valid(&t);
	len = here(&t);
	for (i = 0; i < 20000; i++) {
		cut = rnd() % 8 ? len : rnd() % (len + 1);
		buf = malloc(cut ? cut : 1);
		memcpy(buf, t.words, cut);
		for (k = 0; cut && k < 1 + rnd() % 4; k++) {
			size_t at = rnd() % cut;

			if (rnd() % 2)
				buf[at] ^= (uint8_t)(1u << (rnd() % 8));
			else
				buf[at] = (uint8_t)rnd();
		}
		for (mode = 0; mode < 2; mode++) {
			struct fxt_reader *r = fxt_reader_new(buf, cut,
							      mode ? FXT_READ_STRICT : 0);

			while ((ret = fxt_reader_next(r, &rec)) > 0)
				EXPECT(rec.offset + rec.size <= cut);
			if (ret < 0) {
				EXPECT(fxt_reader_error(r)->offset <= cut);
				refused += mode;
			}
			fxt_reader_free(r);
		}
		free(buf);
	}
	printf("#   %u of 20000 mutants refused by strict mode\n", refused);
	EXPECT(refused > 1000);
}

int main(int argc, char **argv)
{
	fxt_dump = argc > 1 ? argv[1] : NULL;
	if (argc > 2)
		snprintf(corpus_dir, sizeof(corpus_dir), "%s", argv[2]);
	else
		snprintf(corpus_dir, sizeof(corpus_dir), "/tmp/fxt-corpus.%d",
			 (int)getpid());
	release = argc > 3 ? argv[3] : NULL;
	if (fxt_dump && mkdir(corpus_dir, 0755) && errno != EEXIST) {
		printf("# cannot create %s: %s\n", corpus_dir, strerror(errno));
		fxt_dump = NULL;
	}
	RUN(empty_file);
	RUN(missing_magic);
	RUN(big_endian_magic);
	RUN(record_size_zero);
	RUN(record_past_end_of_file);
	RUN(oversized_record_claims_4095_words);
	RUN(large_record_claims_4g_words);
	RUN(cpu_from_4096_is_refused);
	RUN(timestamps_from_2_63_ns_are_refused);
	RUN(fields_just_past_their_record_are_refused);
	RUN(reserved_bit_33_in_a_bool_argument);
	RUN(large_record_over_4095_words_is_refused);
	RUN(length_not_a_multiple_of_8);
	RUN(reserved_bits_in_initialization);
	RUN(reserved_bits_in_context_switch);
	RUN(reserved_bits_in_argument);
	RUN(string_padding_not_zero);
	RUN(undefined_string_ref);
	RUN(undefined_thread_ref);
	RUN(argument_runs_past_its_record);
	RUN(argument_size_zero);
	RUN(inline_string_longer_than_its_record);
	RUN(record_too_short_for_its_fields);
	RUN(section_for_unannounced_provider);
	RUN(weights_and_process_of_the_wrong_type);
	RUN(string_and_thread_index_0);
	RUN(provider_announced_again_starts_empty);
	RUN(string_tables_stay_small_for_high_indices);
	RUN(provider_limit_does_not_count_provider_0);
	RUN(zero_tick_rate);
	RUN(corrupted_magic_word);
	RUN(not_fxt_is_refused_in_every_mode);
	RUN(valid_trace_with_every_kind_passes);
	RUN(output_to_the_trace_being_read_is_refused);
	RUN(unwritable_output_is_an_error);
	RUN(version_names_the_release);
	RUN(file_size_limit_is_a_write_error);
	RUN(unreadable_input_exits_1);
	RUN(getopt_errors_start_with_fxt_dump);
	RUN(summary_time_span_in_the_trace_s_ticks);
	RUN(summary_escapes_drop_counter_names);
	RUN(summary_keeps_long_drop_counter_names_apart);
	RUN(summary_counts_drops_of_every_cpu);
	RUN(summary_counts_drops_of_1000_cpus);
	RUN(summary_reports_records_lost_markers);
	RUN(summary_reports_bytes_skipped_markers);
	RUN(summary_reports_holes_still_open);
	RUN(undefined_thread_refs_print_as_undefined);
	RUN(summary_counts_processes_by_koid);
	RUN(summary_time_span_counts_every_timestamp);
	RUN(summary_counts_legacy_switches);
	RUN(summary_drop_counter_is_its_last_value);
	RUN(input_shrinking_while_read_exits_1);
	RUN(a_sent_sigbus_still_kills);
	RUN(random_mutations_never_crash);
	if (!fxt_dump)
		tap_skip("fxt-dump --check on the corpus", "no FXT_DUMP argument");
	return tap_exit();
}
