// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt_write.c - encode FXT records (see fxt_write.h, and the format's
 * specification: fuchsia.dev/fuchsia-src/reference/tracing/trace-format).
 *
 * Each record is built by a small "record in progress" (struct rec) that
 * remembers where the record started and the first error. Fields are pushed
 * in wire order; rec_end() patches the size into the header or, on error,
 * rewinds the writer to where the record started. That keeps every encoder
 * a flat list of pushes with no error handling of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_write.h"

void fxt_writer_init(struct fxt_writer *w, uint64_t *words, size_t cap_words)
{
	w->words = words;
	w->cap = cap_words;
	w->len = 0;
	w->dynamic = false;
}

void fxt_writer_init_dynamic(struct fxt_writer *w)
{
	w->words = NULL;
	w->cap = 0;
	w->len = 0;
	w->dynamic = true;
}

void fxt_writer_free(struct fxt_writer *w)
{
	if (w->dynamic)
		free(w->words);
	w->words = NULL;
	w->cap = 0;
	w->len = 0;
}

/* Make room for @n more words. */
static int reserve(struct fxt_writer *w, size_t n)
{
	size_t cap;
	uint64_t *words;

	if (n <= w->cap - w->len)
		return 0;
	if (!w->dynamic)
		return -ENOSPC;
	cap = w->cap ? w->cap : 512;
	while (n > cap - w->len) {
		if (cap > SIZE_MAX / 16)
			return -ENOMEM;
		cap *= 2;
	}
	words = realloc(w->words, cap * sizeof(*words));
	if (!words)
		return -ENOMEM;
	w->words = words;
	w->cap = cap;
	return 0;
}

/* A record being built: where it starts and the first error seen. */
struct rec {
	struct fxt_writer *w;
	size_t start;
	int err;
};

static void rec_word(struct rec *r, uint64_t word)
{
	if (r->err)
		return;
	r->err = reserve(r->w, 1);
	if (!r->err)
		r->w->words[r->w->len++] = word;
}

/* Bytes padded with zeros to the next word boundary (an FXT "stream"). */
static void rec_stream(struct rec *r, const void *data, size_t len)
{
	size_t words = (len + 7) / 8;
	uint64_t *dst;

	if (r->err || !len)
		return;
	r->err = reserve(r->w, words);
	if (r->err)
		return;
	dst = r->w->words + r->w->len;
	dst[words - 1] = 0;	/* the padding */
	memcpy(dst, data, len);
	r->w->len += words;
}

static void rec_begin(struct rec *r, struct fxt_writer *w)
{
	r->w = w;
	r->start = w->len;
	r->err = 0;
	rec_word(r, 0);		/* header, patched by rec_end() */
}

/* Record an error found by an encoder (first one wins). */
static void rec_fail(struct rec *r, int err)
{
	if (!r->err)
		r->err = err;
}

/* Finish a normal record: header gets its size in bits [4..15]. */
static int rec_end(struct rec *r, uint64_t header)
{
	size_t words = r->w->len - r->start;

	if (!r->err && words > FXT_MAX_RECORD_WORDS)
		r->err = -E2BIG;
	if (r->err) {
		r->w->len = r->start;
		return r->err;
	}
	r->w->words[r->start] = header | ((uint64_t)words << FXT_HDR_SIZE_SHIFT);
	return 0;
}

/* Finish a large record: size in bits [4..35]. */
static int rec_end_large(struct rec *r, uint64_t header)
{
	uint64_t words = r->w->len - r->start;

	if (!r->err && words > FXT_MAX_LARGE_WORDS)
		r->err = -E2BIG;
	if (r->err) {
		r->w->len = r->start;
		return r->err;
	}
	r->w->words[r->start] = header | (words << 4);
	return 0;
}

/* The 16-bit string ref for @s, or -EINVAL via rec_fail(). */
static uint64_t str_ref(struct rec *r, const struct fxt_str *s)
{
	if (s->index) {
		if (s->index > FXT_MAX_STRING_INDEX)
			rec_fail(r, -EINVAL);
		return s->index;
	}
	if (!s->len)
		return 0;
	if (s->len > FXT_MAX_INLINE_STRING || !s->text) {
		rec_fail(r, -EINVAL);
		return 0;
	}
	return FXT_STRING_REF_INLINE | s->len;
}

/* The inline stream of @s, if it is inline (follows the ref's record order). */
static void rec_str(struct rec *r, const struct fxt_str *s)
{
	if (!s->index && s->len)
		rec_stream(r, s->text, s->len);
}

static void rec_thread(struct rec *r, const struct fxt_thread_ref *t)
{
	if (t->index)
		return;
	rec_word(r, t->pid);
	rec_word(r, t->tid);
}

static void check_field(struct rec *r, uint64_t value, uint64_t max)
{
	if (value > max)
		rec_fail(r, -EINVAL);
}

/* Encode one argument: header, name stream, then the value if not inline. */
static void rec_arg(struct rec *r, const struct fxt_arg *a)
{
	size_t start = r->w->len;
	uint64_t name = str_ref(r, &a->name);
	uint64_t value = 0;	/* header bits [32..63] */
	uint64_t words;

	rec_word(r, 0);		/* argument header, patched below */
	rec_str(r, &a->name);
	switch (a->type) {
	case FXT_ARG_NULL:
		break;
	case FXT_ARG_INT32:
		value = (uint32_t)a->v.i32;
		break;
	case FXT_ARG_UINT32:
		value = a->v.u32;
		break;
	case FXT_ARG_INT64:
		rec_word(r, (uint64_t)a->v.i64);
		break;
	case FXT_ARG_UINT64:
		rec_word(r, a->v.u64);
		break;
	case FXT_ARG_DOUBLE: {
		uint64_t bits;

		memcpy(&bits, &a->v.f64, sizeof(bits));
		rec_word(r, bits);
		break;
	}
	case FXT_ARG_STRING:
		value = str_ref(r, &a->v.string);
		rec_str(r, &a->v.string);
		break;
	case FXT_ARG_POINTER:
		rec_word(r, a->v.pointer);
		break;
	case FXT_ARG_KOID:
		rec_word(r, a->v.koid);
		break;
	case FXT_ARG_BOOL:
		value = a->v.boolean ? 1 : 0;
		break;
	case FXT_ARG_BLOB:
		value = a->v.blob.size;
		if (a->v.blob.size && !a->v.blob.data)
			rec_fail(r, -EINVAL);
		else
			rec_stream(r, a->v.blob.data, a->v.blob.size);
		break;
	default:
		rec_fail(r, -EINVAL);
		break;
	}
	if (r->err)
		return;
	words = r->w->len - start;
	if (words > FXT_HDR_SIZE_MASK) {
		rec_fail(r, -E2BIG);
		return;
	}
	r->w->words[start] = (uint64_t)a->type << FXT_ARG_TYPE_SHIFT |
			     words << FXT_ARG_SIZE_SHIFT |
			     name << FXT_ARG_NAME_SHIFT |
			     value << FXT_ARG_VALUE_SHIFT;
}

static void rec_args(struct rec *r, const struct fxt_arg *args,
		     unsigned int nargs)
{
	unsigned int i;

	check_field(r, nargs, FXT_MAX_ARGS);
	for (i = 0; i < nargs && !r->err; i++)
		rec_arg(r, &args[i]);
}

static uint64_t metadata_header(unsigned int type, uint32_t provider_id)
{
	return (uint64_t)FXT_RECORD_METADATA |
	       (uint64_t)type << 16 | (uint64_t)provider_id << 20;
}

int fxt_write_magic(struct fxt_writer *w)
{
	struct rec r;

	rec_begin(&r, w);
	/* The magic word already holds its own size (1) in bits [4..15]. */
	return rec_end(&r, FXT_MAGIC_RECORD & ~(FXT_HDR_SIZE_MASK << 4));
}

int fxt_write_provider_info(struct fxt_writer *w, uint32_t provider_id,
			    const char *name, size_t len)
{
	struct rec r;

	rec_begin(&r, w);
	check_field(&r, len, 0xff);
	rec_stream(&r, name, len);
	return rec_end(&r, metadata_header(FXT_META_PROVIDER_INFO, provider_id) |
			   (uint64_t)len << 52);
}

int fxt_write_provider_section(struct fxt_writer *w, uint32_t provider_id)
{
	struct rec r;

	rec_begin(&r, w);
	return rec_end(&r, metadata_header(FXT_META_PROVIDER_SECTION,
					   provider_id));
}

int fxt_write_provider_event(struct fxt_writer *w, uint32_t provider_id,
			     unsigned int event_id)
{
	struct rec r;

	rec_begin(&r, w);
	check_field(&r, event_id, 0xf);
	return rec_end(&r, metadata_header(FXT_META_PROVIDER_EVENT, provider_id) |
			   (uint64_t)(event_id & 0xf) << 52);
}

int fxt_write_initialization(struct fxt_writer *w, uint64_t ticks_per_second)
{
	struct rec r;

	rec_begin(&r, w);
	rec_word(&r, ticks_per_second);
	return rec_end(&r, FXT_RECORD_INITIALIZATION);
}

int fxt_write_string(struct fxt_writer *w, uint16_t index,
		     const char *text, size_t len)
{
	struct rec r;

	rec_begin(&r, w);
	if (index == 0 || index > FXT_MAX_STRING_INDEX ||
	    len > FXT_MAX_INLINE_STRING || (len && !text))
		rec_fail(&r, -EINVAL);
	rec_stream(&r, text, len);
	return rec_end(&r, (uint64_t)FXT_RECORD_STRING |
			   (uint64_t)index << 16 | (uint64_t)len << 32);
}

int fxt_write_thread(struct fxt_writer *w, uint8_t index,
		     uint64_t pid, uint64_t tid)
{
	struct rec r;

	rec_begin(&r, w);
	if (index == 0)
		rec_fail(&r, -EINVAL);
	rec_word(&r, pid);
	rec_word(&r, tid);
	return rec_end(&r, (uint64_t)FXT_RECORD_THREAD | (uint64_t)index << 16);
}

int fxt_write_event(struct fxt_writer *w, const struct fxt_event *ev,
		    const struct fxt_arg *args, unsigned int nargs)
{
	struct rec r;
	uint64_t category, name;

	rec_begin(&r, w);
	check_field(&r, ev->type, 0xf);
	category = str_ref(&r, &ev->category);
	name = str_ref(&r, &ev->name);
	rec_word(&r, ev->timestamp);
	rec_thread(&r, &ev->thread);
	rec_str(&r, &ev->category);
	rec_str(&r, &ev->name);
	rec_args(&r, args, nargs);
	if (fxt_event_has_data_word(ev->type))
		rec_word(&r, ev->data);
	return rec_end(&r, (uint64_t)FXT_RECORD_EVENT |
			   (uint64_t)(ev->type & 0xf) << 16 |
			   (uint64_t)(nargs & 0xf) << 20 |
			   (uint64_t)ev->thread.index << 24 |
			   category << 32 | name << 48);
}

int fxt_write_blob(struct fxt_writer *w, const struct fxt_blob *blob)
{
	struct rec r;
	uint64_t name;

	rec_begin(&r, w);
	name = str_ref(&r, &blob->name);
	check_field(&r, blob->size, 0x7fff);
	check_field(&r, blob->blob_type, 0xff);
	if (blob->size && !blob->data)
		rec_fail(&r, -EINVAL);
	rec_str(&r, &blob->name);
	rec_stream(&r, blob->data, blob->size);
	return rec_end(&r, (uint64_t)FXT_RECORD_BLOB | name << 16 |
			   (uint64_t)(blob->size & 0x7fff) << 32 |
			   (uint64_t)(blob->blob_type & 0xff) << 48);
}

int fxt_write_userspace_object(struct fxt_writer *w,
			       const struct fxt_userspace_object *obj,
			       const struct fxt_arg *args, unsigned int nargs)
{
	struct rec r;
	uint64_t name;

	rec_begin(&r, w);
	name = str_ref(&r, &obj->name);
	rec_word(&r, obj->pointer);
	if (!obj->process.index)	/* an inline process is one koid word */
		rec_word(&r, obj->process.pid);
	rec_str(&r, &obj->name);
	rec_args(&r, args, nargs);
	return rec_end(&r, (uint64_t)FXT_RECORD_USERSPACE_OBJECT |
			   (uint64_t)obj->process.index << 16 | name << 24 |
			   (uint64_t)(nargs & 0xf) << 40);
}

int fxt_write_kernel_object(struct fxt_writer *w,
			    const struct fxt_kernel_object *obj,
			    const struct fxt_arg *args, unsigned int nargs)
{
	struct rec r;
	uint64_t name;

	rec_begin(&r, w);
	check_field(&r, obj->obj_type, 0xff);
	name = str_ref(&r, &obj->name);
	rec_word(&r, obj->koid);
	rec_str(&r, &obj->name);
	rec_args(&r, args, nargs);
	return rec_end(&r, (uint64_t)FXT_RECORD_KERNEL_OBJECT |
			   (uint64_t)(obj->obj_type & 0xff) << 16 | name << 24 |
			   (uint64_t)(nargs & 0xf) << 40);
}

static uint64_t sched_header(unsigned int kind, unsigned int nargs,
			     unsigned int cpu)
{
	return (uint64_t)FXT_RECORD_SCHEDULING |
	       (uint64_t)(nargs & 0xf) << FXT_SCHED_ARGC_SHIFT |
	       (uint64_t)(cpu & FXT_SCHED_CPU_MASK) << FXT_SCHED_CPU_SHIFT |
	       (uint64_t)kind << FXT_SCHED_KIND_SHIFT;
}

int fxt_write_context_switch(struct fxt_writer *w,
			     const struct fxt_context_switch *cs,
			     const struct fxt_arg *args, unsigned int nargs)
{
	struct rec r;

	rec_begin(&r, w);
	check_field(&r, cs->cpu, FXT_SCHED_CPU_MASK);
	check_field(&r, cs->outgoing_state, 0xf);
	rec_word(&r, cs->timestamp);
	rec_word(&r, cs->outgoing_tid);
	rec_word(&r, cs->incoming_tid);
	rec_args(&r, args, nargs);
	return rec_end(&r, sched_header(FXT_SCHED_KIND_CONTEXT_SWITCH, nargs,
					cs->cpu) |
			   (uint64_t)(cs->outgoing_state & 0xf)
				   << FXT_SCHED_STATE_SHIFT);
}

int fxt_write_wakeup(struct fxt_writer *w, const struct fxt_wakeup *wk,
		     const struct fxt_arg *args, unsigned int nargs)
{
	struct rec r;

	rec_begin(&r, w);
	check_field(&r, wk->cpu, FXT_SCHED_CPU_MASK);
	rec_word(&r, wk->timestamp);
	rec_word(&r, wk->woken_tid);
	rec_args(&r, args, nargs);
	return rec_end(&r, sched_header(FXT_SCHED_KIND_WAKEUP, nargs, wk->cpu));
}

int fxt_write_legacy_context_switch(struct fxt_writer *w,
				    const struct fxt_legacy_switch *ls)
{
	struct rec r;

	rec_begin(&r, w);
	check_field(&r, ls->cpu, 0xff);
	check_field(&r, ls->outgoing_state, 0xf);
	check_field(&r, ls->outgoing_priority, 0xff);
	check_field(&r, ls->incoming_priority, 0xff);
	rec_word(&r, ls->timestamp);
	rec_thread(&r, &ls->outgoing);
	rec_thread(&r, &ls->incoming);
	return rec_end(&r, (uint64_t)FXT_RECORD_SCHEDULING |
			   (uint64_t)(ls->cpu & 0xff) << 16 |
			   (uint64_t)(ls->outgoing_state & 0xf) << 24 |
			   (uint64_t)ls->outgoing.index << 28 |
			   (uint64_t)ls->incoming.index << 36 |
			   (uint64_t)(ls->outgoing_priority & 0xff) << 44 |
			   (uint64_t)(ls->incoming_priority & 0xff) << 52 |
			   (uint64_t)FXT_SCHED_KIND_LEGACY_SWITCH
				   << FXT_SCHED_KIND_SHIFT);
}

int fxt_write_log(struct fxt_writer *w, const struct fxt_log *log)
{
	struct rec r;

	rec_begin(&r, w);
	check_field(&r, log->len, 0x7fff);
	if (log->len && !log->message)
		rec_fail(&r, -EINVAL);
	rec_word(&r, log->timestamp);
	rec_thread(&r, &log->thread);
	rec_stream(&r, log->message, log->len);
	return rec_end(&r, (uint64_t)FXT_RECORD_LOG |
			   (uint64_t)(log->len & 0x7fff) << 16 |
			   (uint64_t)log->thread.index << 32);
}

int fxt_write_large_blob(struct fxt_writer *w, const struct fxt_large_blob *lb,
			 const struct fxt_arg *args, unsigned int nargs)
{
	struct rec r;
	uint64_t category, name, format_header;
	bool meta = lb->format == FXT_LARGE_BLOB_WITH_METADATA;

	rec_begin(&r, w);
	check_field(&r, lb->format, FXT_LARGE_BLOB_NO_METADATA);
	if ((!meta && nargs) || (lb->size && !lb->data))
		rec_fail(&r, -EINVAL);
	category = str_ref(&r, &lb->category);
	name = str_ref(&r, &lb->name);
	format_header = category | name << 16;
	if (meta)
		format_header |= (uint64_t)(nargs & 0xf) << 32 |
				 (uint64_t)lb->thread.index << 36;
	rec_word(&r, format_header);
	rec_str(&r, &lb->category);
	rec_str(&r, &lb->name);
	if (meta) {
		rec_word(&r, lb->timestamp);
		rec_thread(&r, &lb->thread);
		rec_args(&r, args, nargs);
	}
	rec_word(&r, lb->size);
	if (lb->size > SIZE_MAX - 8)
		rec_fail(&r, -E2BIG);
	else
		rec_stream(&r, lb->data, (size_t)lb->size);
	return rec_end_large(&r, (uint64_t)FXT_RECORD_LARGE |
				 (uint64_t)FXT_LARGE_BLOB << 36 |
				 (uint64_t)(lb->format & 0xf) << 40);
}
