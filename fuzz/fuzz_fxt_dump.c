// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_fxt_dump.c - fxt-dump's whole decode path on arbitrary file bytes.
 *
 * fxt_dump.c is included, not linked, so this runs fxt-dump's own static
 * code (run(): every record read, in --check's strict mode or not) on the
 * input held in memory, without a file and without exec. The files it
 * calls into are linked (fuzz/Makefile), as in fxt-dump: dump_print.c,
 * printing every record, and dump_stats.c, --summary's statistics.
 * libFuzzer hands us an exactly sized heap copy of the input, so any read
 * past the end of the "file" is an ASan report.
 *
 * Besides "does not crash", each input checks what the reader promises in
 * fxt_read.h:
 *   - records are contiguous, non-empty, inside the buffer, and every text,
 *     blob and argument they point at lies inside the record or the buffer;
 *   - after 0 or -1 every further call returns the same; an error names an
 *     offset inside the data, at the record where reading stopped;
 *   - strict mode only adds rules: a file it accepts, lenient mode accepts
 *     with the same records.
 */
#include "fuzz_target.h"

/* fxt-dump's main() becomes an ordinary function we never call. */
int fxt_dump_main(int argc, char **argv);
#define main fxt_dump_main
#include "fxt_dump.c"
#undef main

struct walk {
	const uint8_t *buf;
	size_t len;
	unsigned long records;
	int end;		/* fxt_reader_next()'s final 0 or -1 */
	size_t end_offset;
};

static bool inside(const struct walk *w, const void *p, size_t len)
{
	const uint8_t *b = p;

	return b >= w->buf && b <= w->buf + w->len &&
	       len <= (size_t)(w->buf + w->len - b);
}

/*
 * Text of a resolved string: inside the buffer, or the reader's static ""
 * for empty strings and ref 0. NULL is "undefined", allowed when lenient.
 */
static void check_str(const struct walk *w, const struct fxt_str *s,
		      const char *what)
{
	if (!s->text || s->len == 0)
		return;
	FUZZ_ASSERT(inside(w, s->text, s->len),
		    "%s: %zu bytes of text outside the buffer", what, s->len);
}

static void check_args(const struct walk *w, const struct fxt_record *rec)
{
	const struct fxt_arg *a;
	unsigned int i;

	FUZZ_ASSERT(rec->nargs <= FXT_MAX_ARGS, "%u args", rec->nargs);
	for (i = 0; i < rec->nargs; i++) {
		a = &rec->args[i];
		FUZZ_ASSERT(a->offset >= rec->offset + 8 &&
			    a->offset + 8 <= rec->offset + rec->size,
			    "arg %u at %zu outside record [%zu, +%zu)", i,
			    a->offset, rec->offset, rec->size);
		check_str(w, &a->name, "argument name");
		if (a->type == FXT_ARG_STRING)
			check_str(w, &a->v.string, "string argument");
		if (a->type == FXT_ARG_BLOB)
			FUZZ_ASSERT(inside(w, a->v.blob.data, a->v.blob.size),
				    "blob argument of %u bytes outside the buffer",
				    a->v.blob.size);
	}
}

static void check_record(const struct walk *w, const struct fxt_record *rec)
{
	FUZZ_ASSERT(rec->size >= 8 && rec->size % 8 == 0, "size %zu", rec->size);
	FUZZ_ASSERT(rec->data == w->buf + rec->offset, "data pointer");
	FUZZ_ASSERT(inside(w, rec->data, rec->size), "record outside the buffer");
	FUZZ_ASSERT(rec->type < 16, "type %u", rec->type);
	if (!rec->decoded)
		return;
	check_args(w, rec);
	switch (rec->type) {
	case FXT_RECORD_METADATA:
		if (rec->kind == FXT_META_PROVIDER_INFO)
			check_str(w, &rec->meta.name, "provider name");
		break;
	case FXT_RECORD_STRING:
		check_str(w, &rec->string.value, "string record");
		break;
	case FXT_RECORD_EVENT:
		check_str(w, &rec->event.category, "event category");
		check_str(w, &rec->event.name, "event name");
		break;
	case FXT_RECORD_BLOB:
		FUZZ_ASSERT(inside(w, rec->blob.data, rec->blob.size), "blob payload");
		break;
	case FXT_RECORD_KERNEL_OBJECT:
		check_str(w, &rec->kobj.name, "kernel object name");
		break;
	case FXT_RECORD_LOG:
		FUZZ_ASSERT(inside(w, rec->log.message, rec->log.len), "log message");
		break;
	case FXT_RECORD_LARGE:
		FUZZ_ASSERT(inside(w, rec->large_blob.data,
				   (size_t)rec->large_blob.size), "large blob payload");
		break;
	}
}

/* Read the whole buffer in one mode, checking every record on the way. */
static void walk(struct walk *w, unsigned int flags)
{
	struct fxt_reader *r = fxt_reader_new(w->buf, w->len, flags);
	struct fxt_record rec;
	size_t next = 0;
	int ret;

	FUZZ_ASSERT(r, "fxt_reader_new failed");
	w->records = 0;
	while ((ret = fxt_reader_next(r, &rec)) > 0) {
		FUZZ_ASSERT(rec.offset == next, "record at %zu, expected %zu",
			    rec.offset, next);
		check_record(w, &rec);
		next = rec.offset + rec.size;
		FUZZ_ASSERT(fxt_reader_offset(r) == next, "offset after a record");
		w->records++;
	}
	FUZZ_ASSERT(ret == 0 || ret == -1, "fxt_reader_next returned %d", ret);
	FUZZ_ASSERT((ret < 0) == (fxt_reader_error(r) != NULL), "error iff -1");
	if (ret < 0) {
		const struct fxt_error *e = fxt_reader_error(r);

		FUZZ_ASSERT(e->offset == next && e->offset <= w->len,
			    "error at %zu, reading stopped at %zu", e->offset, next);
		FUZZ_ASSERT(memchr(e->message, '\0', sizeof(e->message)) &&
			    e->message[0], "error message empty or unterminated");
	} else {
		FUZZ_ASSERT(next == w->len, "end at %zu of %zu", next, w->len);
	}
	FUZZ_ASSERT(fxt_reader_next(r, &rec) == ret, "state not sticky");
	w->end = ret;
	w->end_offset = next;
	fxt_reader_free(r);
}

/* fxt-dump FILE (printing) and --summary, then --check, as main() does. */
static void run_fxt_dump(const struct input *in)
{
	struct dump_options print = { false, false, "fuzz" };
	struct dump_options check = { true, false, "fuzz" };
	struct stats st;

	memset(&st, 0, sizeof(st));
	tid_set_init(&st.seen_tids);
	tid_set_init(&st.named_tids);
	run(&print, in, &st);
	print_summary(&st, "fuzz", in->len);
	free_stats(&st);

	memset(&st, 0, sizeof(st));
	tid_set_init(&st.seen_tids);
	tid_set_init(&st.named_tids);
	if (run(&check, in, &st) == 0)
		print_counts(stdout, &st);
	free_stats(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size, false };
	struct walk lenient = { data, size, 0, 0, 0 };
	struct walk strict_walk = { data, size, 0, 0, 0 };

	run_fxt_dump(&in);
	walk(&lenient, 0);
	walk(&strict_walk, FXT_READ_STRICT);
	if (strict_walk.end == 0)
		FUZZ_ASSERT(lenient.end == 0 && lenient.records == strict_walk.records,
			    "strict read %lu records and accepted, lenient read %lu and returned %d",
			    strict_walk.records, lenient.records, lenient.end);
	else
		FUZZ_ASSERT(strict_walk.end_offset <= lenient.end_offset ||
			    lenient.end == 0,
			    "strict stopped at %zu, after lenient's error at %zu",
			    strict_walk.end_offset, lenient.end_offset);
	return 0;
}
