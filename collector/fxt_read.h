/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fxt_read.h - a streaming decoder and validator for FXT traces in memory.
 *
 * The reader walks a byte buffer record by record. Each call to
 * fxt_reader_next() decodes one record (fields, resolved strings and
 * threads, arguments) or reports why the bytes at the current offset are not
 * a well-formed record. It never reads outside the buffer, whatever the
 * buffer holds, and it keeps the per-provider string and thread tables that
 * later records refer to.
 *
 * Example (count context switches, stop at the first malformed record):
 *
 *	struct fxt_reader *r = fxt_reader_new(buf, len, FXT_READ_STRICT);
 *	struct fxt_record rec;
 *	int ret;
 *
 *	if (!r)
 *		return -ENOMEM;
 *	while ((ret = fxt_reader_next(r, &rec)) > 0) {
 *		if (rec.type == FXT_RECORD_SCHEDULING &&
 *		    rec.kind == FXT_SCHED_KIND_CONTEXT_SWITCH)
 *			switches++;
 *	}
 *	if (ret < 0)
 *		fprintf(stderr, "offset %zu: %s\n",
 *			fxt_reader_error(r)->offset, fxt_reader_error(r)->message);
 *	fxt_reader_free(r);
 *
 * Lifetimes: the buffer must outlive the reader. Text in a record (inline
 * strings, provider names, blob payloads) points into the buffer; text of
 * indexed strings points into the buffer too (where the String record was),
 * so it stays valid even after the table entry is replaced.
 *
 * Link with libfxt.a (see collector/Makefile) and add -I collector and
 * -I uapi to the include path.
 */
#ifndef FXT_READ_H
#define FXT_READ_H

#include <stdio.h>

#include "fxt_types.h"

/*
 * Flags for fxt_reader_new().
 *
 * Without FXT_READ_STRICT the reader is lenient in the way the format asks
 * of readers: it only fails when records cannot be framed or decoded (size
 * 0, record past the end of the buffer, fields that run past the end of
 * their record, trailing bytes that are not a whole word), or name more
 * providers than it keeps tables for (256, besides the anonymous provider 0
 * of records before any provider record). Undefined string and thread refs
 * resolve to "unknown" (text NULL, koids 0: fxt_reader_lookup_thread()
 * tells such a thread ref from one defined as 0/0), reserved bits are
 * ignored, and records of unknown types are returned undecoded.
 *
 * FXT_READ_STRICT additionally requires what a trace written by fxtrace
 * must satisfy (fxt-dump --check):
 *   - the first record is the magic number record;
 *   - every reserved bit and stream padding byte is zero;
 *   - every string and thread ref is defined by an earlier String/Thread
 *     record of the same provider;
 *   - provider section/event records name a provider announced by a
 *     provider info record; the initialization record's tick rate is non-zero.
 */
#define FXT_READ_STRICT		(1u << 0)

/*
 * FXT_READ_MAGIC requires only the first of those: the data starts with the
 * magic number record. Empty data, and data that is not FXT at all (a text
 * file, the wrong file), then fail at offset 0 ("empty: not an FXT trace
 * (no magic record)", "not an FXT trace (no magic record): ...") instead of
 * reading as an empty trace or as a record of garbage. Otherwise lenient.
 * Every tool that reads a trace (fxt-dump, fxt-sched, fxt2json) uses it.
 * FXT_READ_STRICT implies it.
 */
#define FXT_READ_MAGIC		(1u << 1)

/**
 * struct fxt_error - why the reader stopped
 * @offset:  byte offset in the buffer of the malformed record (or of the
 *           trailing bytes)
 * @message: one line, no trailing newline, e.g.
 *           "string record: reserved bits set (0x0000800000000000)"
 */
struct fxt_error {
	size_t offset;
	char message[192];
};

/**
 * struct fxt_record - one decoded record
 * @offset:      byte offset of the record in the buffer
 * @data:        the record's bytes (inside the buffer)
 * @size:        record size in bytes (8 * words)
 * @header:      the raw header word
 * @type:        FXT_RECORD_* (0..15)
 * @kind:        the subtype: metadata type (type 0), event type (type 4),
 *               scheduling kind FXT_SCHED_KIND_* (type 8), large record type
 *               (type 15); 0 for other types
 * @provider_id: the provider whose section this record is in (0 before the
 *               first provider info/section record)
 * @decoded:     false for record types, metadata types, scheduling kinds
 *               and large types this reader does not know: only the fields
 *               above are set, and the record was skipped by its size
 * @nargs:       number of entries in @args
 * @args:        decoded arguments (events, objects, scheduling, large blob)
 *
 * Exactly one member of the union is valid, chosen by @type (and @kind):
 *   type 0: @meta                  type 6: @uobj
 *   type 1: @ticks_per_second      type 7: @kobj
 *   type 2: @string                type 8: @context_switch, @wakeup or
 *   type 3: @thread                        @legacy_switch (by @kind)
 *   type 4: @event                 type 9: @log
 *   type 5: @blob                  type 15: @large_blob
 */
struct fxt_record {
	size_t offset;
	const uint8_t *data;
	size_t size;
	uint64_t header;
	unsigned int type;
	unsigned int kind;
	uint32_t provider_id;
	bool decoded;
	union {
		struct {
			uint32_t provider_id;	/* types 1, 2, 3 */
			struct fxt_str name;	/* provider info */
			unsigned int event_id;	/* provider event */
			unsigned int trace_info_type;	/* trace info */
		} meta;
		uint64_t ticks_per_second;
		struct {
			uint16_t index;	/* 0: ignored, as the format says */
			struct fxt_str value;
		} string;
		struct {
			uint8_t index;	/* 0: ignored, as the format says */
			uint64_t pid;
			uint64_t tid;
		} thread;
		struct fxt_event event;
		struct fxt_blob blob;
		struct fxt_userspace_object uobj;
		struct fxt_kernel_object kobj;
		struct fxt_context_switch context_switch;
		struct fxt_wakeup wakeup;
		struct fxt_legacy_switch legacy_switch;
		struct fxt_log log;
		struct fxt_large_blob large_blob;
	};
	unsigned int nargs;
	struct fxt_arg args[FXT_MAX_ARGS];
};

struct fxt_reader;

/**
 * fxt_reader_new() - start reading @len bytes at @buf
 * @flags: 0 (lenient), FXT_READ_MAGIC or FXT_READ_STRICT
 *
 * Return: a reader, or NULL when out of memory.
 */
struct fxt_reader *fxt_reader_new(const void *buf, size_t len,
				  unsigned int flags);

/** fxt_reader_free() - free a reader (NULL is fine). */
void fxt_reader_free(struct fxt_reader *r);

/**
 * fxt_reader_next() - decode the next record
 * @rec: filled in on success
 *
 * Return: 1 and a record in @rec; 0 at the end of the buffer; -1 when the
 * bytes at the current offset are not a well-formed record (see
 * fxt_reader_error()). After 0 or -1 every further call returns the same.
 */
int fxt_reader_next(struct fxt_reader *r, struct fxt_record *rec);

/** fxt_reader_error() - why fxt_reader_next() returned -1 (else NULL). */
const struct fxt_error *fxt_reader_error(const struct fxt_reader *r);

/** fxt_reader_offset() - byte offset of the next record to be read. */
size_t fxt_reader_offset(const struct fxt_reader *r);

/**
 * fxt_reader_lookup_string() - the current provider's string @index
 * Return: true and the text in @out if the index is defined.
 */
bool fxt_reader_lookup_string(const struct fxt_reader *r, uint16_t index,
			      struct fxt_str *out);

/**
 * fxt_reader_lookup_thread() - the current provider's thread @index
 * Asked right after fxt_reader_next() returned a record, it answers for
 * that record's thread refs: was the ref defined, or (lenient mode) is
 * it one whose koids read as 0/0 only because no Thread record defined it?
 * Return: true and the koids in @pid/@tid if the index is defined.
 */
bool fxt_reader_lookup_thread(const struct fxt_reader *r, uint8_t index,
			      uint64_t *pid, uint64_t *tid);

/**
 * fxt_reader_ticks_per_second() - the current provider's tick rate
 * (from its initialization record; 1000000000 if it had none).
 */
uint64_t fxt_reader_ticks_per_second(const struct fxt_reader *r);

/**
 * fxt_record_find_arg() - the first argument of @rec named @name
 * Return: the argument, or NULL. Only resolved names can match.
 */
const struct fxt_arg *fxt_record_find_arg(const struct fxt_record *rec,
					  const char *name);

/** fxt_str_eq() - does @s hold exactly the NUL-terminated @text? */
bool fxt_str_eq(const struct fxt_str *s, const char *text);

/**
 * fxt_loss_marker() - is @rec a marker of a hole in one CPU's records?
 * A decoded counter event named "records_lost" (the kernel's loss markers,
 * uapi/linux/fxtrace.h: records lost to a full ring; fxt-collect writes the
 * same pair for records dropped after a ring's last record) or
 * "bytes_skipped" (fxt-collect's: ring data it skipped as invalid, in
 * bytes), with counter id = the CPU (16 bits, as in a scheduling record)
 * and a non-negative integer argument "cpu": the amount at the hole's
 * start, then 0 where the CPU's records resume. fxt-sched and fxt-dump
 * read them through this one test.
 * Return: true with *@cpu, *@amount and *@skipped (a bytes_skipped marker)
 * set; false, nothing set, for any other record.
 */
bool fxt_loss_marker(const struct fxt_record *rec, uint32_t *cpu,
		     uint64_t *amount, bool *skipped);

/**
 * fxt_utf8_len() - the well-formed UTF-8 sequence at @s
 * @s: at least one byte
 * @n: bytes at @s
 * @bad: when the sequence is ill-formed, set to the length of its maximal
 *	ill-formed subpart (at least 1): what Unicode's "substitution of
 *	maximal subparts" replaces with one U+FFFD
 * No overlong forms, surrogates or code points past U+10FFFF.
 * Return: its length in bytes (1 for ASCII), or 0 if ill-formed.
 */
size_t fxt_utf8_len(const unsigned char *s, size_t n, size_t *bad);

/**
 * fxt_fput_escaped() - @len bytes of @text (a name or message from a
 * trace: any bytes, as a task's comm may be) to @out, safe for a terminal
 * and on one line: a backslash doubled, @quote (when not 0) after a
 * backslash, a newline as \n, every other byte below 0x20 and 0x7f as
 * \xNN (e.g. ESC as \x1b), and so are the two bytes of a C1 control
 * (U+0080-U+009F, e.g. CSI as \xc2\x9b) and each byte of ill-formed
 * UTF-8; the rest (printable ASCII, well-formed UTF-8) as is.
 * Shared by fxt-dump and fxt-sched's text output. With @out NULL nothing
 * is written: the return value alone measures a column.
 * Return: the number of bytes written (for padding to a column).
 */
size_t fxt_fput_escaped(FILE *out, const char *text, size_t len, int quote);

/**
 * fxt_flush_error() - flush @f and say whether everything written to it
 * arrived (a full disk, a closed pipe with SIGPIPE ignored, an I/O error)
 * @f: the output
 * @fallback: the error to report when stdio kept none (the flush had
 *	nothing left after an earlier failed write): EIO, or the caller's
 *	own record of that earlier failure
 * Shared by every tool that prints, so that none exits 0 on a lost output.
 * Return: 0, or the errno of the failure (@fallback when errno is 0).
 */
int fxt_flush_error(FILE *f, int fallback);

/**
 * fxt_stdout_is_input() - refuse standard output on the trace being read
 * @prog: the tool's name, to begin the message with
 * @path: the trace it is about to read ("-": standard input)
 * @advice: added to the message's "redirect the output to another file"
 *	(e.g. ", or use -o"), or ""
 * A tool's output appended to the trace it reads (fxt-sched summary F >>F)
 * leaves a file that no reader takes past the appended text; each tool
 * that reads a file by name refuses that before it writes anything.
 * Return: false unless both are the same regular file; else true, having
 * said on stderr what the output would do, or has done, to the trace:
 * "the output would be appended to it" (>>), "the output would overwrite
 * it" (1<>), or, for an empty file open write-only, that the shell's >
 * emptied it.
 */
bool fxt_stdout_is_input(const char *prog, const char *path,
			 const char *advice);

/* Names for printing (never NULL; "unknown" for values out of range). */
const char *fxt_record_type_name(unsigned int type);
const char *fxt_metadata_type_name(unsigned int type);
const char *fxt_event_type_name(unsigned int type);
const char *fxt_sched_kind_name(unsigned int kind);
const char *fxt_arg_type_name(unsigned int type);
const char *fxt_thread_state_name(unsigned int state);
const char *fxt_obj_type_name(unsigned int obj_type);

#endif /* FXT_READ_H */
