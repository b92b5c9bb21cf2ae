// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt_read.c - decode and validate FXT records (see fxt_read.h).
 *
 * Safety argument, in one place: fxt_reader_next() first checks that the
 * whole record (its size field) lies inside the buffer. After that every
 * field is read through a struct cursor bounded by the record's size, and
 * every argument through a cursor bounded by the argument's size, so no
 * read can leave the record, and the record cannot leave the buffer. Every
 * length read from the data is compared against the words left before it
 * is used, never added to a pointer first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt_read.h"

/*
 * A hostile file could name millions of providers, each with its own string
 * and thread tables; real archives have a handful. Refuse past this many,
 * not counting the anonymous provider 0 every reader starts with (so that
 * "more than 256 providers" is what the file named).
 */
#define MAX_PROVIDERS		256

#define NS_PER_SECOND		1000000000ULL

/* Bits [lo..hi] set. */
#define BITS(lo, hi)	((~0ULL >> (63 - (hi))) & (~0ULL << (lo)))

struct string_slot {
	const char *text;	/* NULL: not defined */
	uint16_t len;
};

/*
 * A provider's string table, allocated sparsely: chunks of 64 slots (1 KiB)
 * as indices are defined. A String record (16 bytes at least) costs at most
 * one chunk, so a small file cannot make a reader allocate much: with a
 * flat table up to the largest index, 254 providers with a string at index
 * 0x7fff each took 128 MiB from 10 KiB.
 */
#define STRING_CHUNK_BITS	6
#define STRING_CHUNK		(1u << STRING_CHUNK_BITS)
#define STRING_CHUNKS		((FXT_MAX_STRING_INDEX + 1) / STRING_CHUNK)

struct thread_slot {
	bool defined;
	uint64_t pid;
	uint64_t tid;
};

/* What the format says readers keep per provider. */
struct provider {
	uint32_t id;
	bool announced;		/* named by a provider info record */
	struct fxt_str name;
	uint64_t ticks_per_second;
	struct string_slot *strings[STRING_CHUNKS];	/* NULL: none defined */
	struct thread_slot threads[FXT_MAX_THREAD_INDEX + 1];
};

struct fxt_reader {
	const uint8_t *buf;
	size_t len;
	size_t pos;		/* offset of the next record */
	unsigned int flags;
	int state;		/* 1 reading, 0 end, -1 error */
	struct fxt_error error;
	struct provider **providers;
	size_t nproviders;
	struct provider *current;
};

/*
 * A bounded view of the record (or argument) being decoded: @words words
 * at @base, @at words consumed. @what names the record for messages.
 */
struct cursor {
	struct fxt_reader *r;
	const uint8_t *base;
	size_t words;
	size_t at;
	const char *what;
};

static bool strict(const struct cursor *c)
{
	return c->r->flags & FXT_READ_STRICT;
}

__attribute__((format(printf, 3, 4)))
static bool fail_at(struct fxt_reader *r, size_t offset, const char *fmt, ...)
{
	va_list ap;

	r->state = -1;
	r->error.offset = offset;
	va_start(ap, fmt);
	vsnprintf(r->error.message, sizeof(r->error.message), fmt, ap);
	va_end(ap);
	return false;
}

/* Errors inside a record are reported at the record's offset. */
#define fail(c, fmt, ...) \
	fail_at((c)->r, (c)->r->pos, "%s: " fmt, (c)->what, __VA_ARGS__)

static uint64_t load_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));	/* the buffer need not be aligned */
	return w;
}

static __attribute__((noinline, cold)) bool cur_word_missing(struct cursor *c,
							     const char *field)
{
	return fail(c, "ends before its %s (size %zu words)", field, c->words);
}

/* Inlined: a few loads and a compare, on every word of every record. */
static inline __attribute__((always_inline)) bool
cur_word(struct cursor *c, const char *field, uint64_t *out)
{
	*out = 0;	/* never read on failure; keeps -Wmaybe-uninitialized quiet */
	if (__builtin_expect(c->at >= c->words, 0))
		return cur_word_missing(c, field);
	*out = load_word(c->base + 8 * c->at);
	c->at++;
	return true;
}

/*
 * Whether @ticks, at @tps ticks a second, is 2^63 ns or more: past the
 * int64 nanoseconds Perfetto keeps. Without 128-bit arithmetic (32-bit
 * builds): whole seconds, then the rest of one.
 */
static bool ns_overflows_int64(uint64_t ticks, uint64_t tps)
{
	uint64_t secs, ns;

	if (tps == NS_PER_SECOND || tps == 0)
		return ticks > (uint64_t)INT64_MAX;
	secs = ticks / tps;
	if (secs > (uint64_t)INT64_MAX / NS_PER_SECOND)
		return true;
	ns = secs * NS_PER_SECOND +
	     (uint64_t)((double)(ticks % tps) * (double)NS_PER_SECOND / (double)tps);
	return ns > (uint64_t)INT64_MAX;
}

/*
 * A record's timestamp. Strict: one Perfetto can place. Its trace_processor
 * keeps timestamps as int64 nanoseconds; a record at 2^63 ns or later it
 * drops, counting it in its stats as fuchsia_timestamp_overflow (measured:
 * v55.3, 10^9 ticks a second, context switches and counter events).
 */
static bool cur_timestamp(struct cursor *c, uint64_t *out)
{
	if (!cur_word(c, "timestamp", out))
		return false;
	if (!strict(c) || !ns_overflows_int64(*out, c->r->current->ticks_per_second))
		return true;
	return fail(c, "timestamp %llu: Perfetto keeps timestamps as int64 nanoseconds and drops a record at 2^63 ns or later",
		    (unsigned long long)*out);
}

/* A stream of @len bytes padded to a word; strict mode checks the padding. */
static bool cur_stream(struct cursor *c, const char *field, uint64_t len,
		       const uint8_t **out)
{
	size_t left = c->words - c->at;
	const uint8_t *p = c->base + 8 * c->at;
	size_t words, i;

	if (len > (uint64_t)left * 8)
		return fail(c, "%s of %llu bytes runs past the end of the record (%zu bytes left)",
			    field, (unsigned long long)len, left * 8);
	words = (size_t)((len + 7) / 8);
	for (i = (size_t)len; strict(c) && i < words * 8; i++)
		if (p[i])
			return fail(c, "%s: padding byte %zu is not zero",
				    field, i);
	*out = p;
	c->at += words;
	return true;
}

static bool check_reserved(struct cursor *c, uint64_t word, uint64_t mask,
			   const char *field)
{
	if (!strict(c) || !(word & mask))
		return true;
	return fail(c, "reserved bits set in the %s (0x%016llx)",
		    field, (unsigned long long)(word & mask));
}

static struct provider *find_provider(struct fxt_reader *r, uint32_t id)
{
	size_t i;

	for (i = 0; i < r->nproviders; i++)
		if (r->providers[i]->id == id)
			return r->providers[i];
	return NULL;
}

static struct provider *add_provider(struct fxt_reader *r, uint32_t id)
{
	struct provider **list, *p;

	/* providers[0] is provider 0, the reader's own (fxt_reader_new()) */
	if (r->nproviders > MAX_PROVIDERS)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	list = realloc(r->providers, (r->nproviders + 1) * sizeof(*list));
	if (!list) {
		free(p);
		return NULL;
	}
	p->id = id;
	p->ticks_per_second = NS_PER_SECOND;
	r->providers = list;
	r->providers[r->nproviders++] = p;
	return p;
}

/*
 * A provider info record for a provider already seen begins it anew, as in
 * Perfetto and Fuchsia's own reader (a second trace appended to a first,
 * say): no strings, no threads, 10^9 ticks a second until its own
 * initialization record. Text already decoded points into the buffer and
 * stays valid.
 */
static void reset_provider(struct provider *p)
{
	unsigned int k;

	for (k = 0; k < STRING_CHUNKS; k++) {
		free(p->strings[k]);
		p->strings[k] = NULL;
	}
	memset(p->threads, 0, sizeof(p->threads));
	p->ticks_per_second = NS_PER_SECOND;
}

static bool get_provider(struct cursor *c, uint32_t id, struct provider **out)
{
	*out = find_provider(c->r, id);
	if (*out)
		return true;
	*out = add_provider(c->r, id);
	if (*out)
		return true;
	return fail(c, "cannot track provider %u (more than %d providers, or out of memory)",
		    id, MAX_PROVIDERS);
}

/* String @index of @p, or NULL if it is not defined. */
static const struct string_slot *find_string(const struct provider *p,
					     uint64_t index)
{
	const struct string_slot *chunk;

	if (index > FXT_MAX_STRING_INDEX)
		return NULL;
	chunk = p->strings[index >> STRING_CHUNK_BITS];
	if (!chunk || !chunk[index & (STRING_CHUNK - 1)].text)
		return NULL;
	return &chunk[index & (STRING_CHUNK - 1)];
}

static bool define_string(struct cursor *c, uint16_t index,
			  const char *text, uint16_t len)
{
	struct provider *p = c->r->current;
	struct string_slot **chunk, *slot;

	if (index > FXT_MAX_STRING_INDEX)
		return fail(c, "string index %u is above %u", index,
			    FXT_MAX_STRING_INDEX);
	chunk = &p->strings[index >> STRING_CHUNK_BITS];
	if (!*chunk) {
		*chunk = calloc(STRING_CHUNK, sizeof(**chunk));
		if (!*chunk)
			return fail(c, "out of memory for string %u", index);
	}
	slot = &(*chunk)[index & (STRING_CHUNK - 1)];
	/* Empty strings still need a non-NULL text to count as defined. */
	slot->text = text ? text : "";
	slot->len = len;
	return true;
}

/*
 * Decode a string ref; an inline string's bytes are read from the cursor,
 * so callers must call this at the point where the stream sits in the
 * record.
 */
static bool cur_string_ref(struct cursor *c, uint64_t ref, const char *field,
			   struct fxt_str *out)
{
	const struct provider *p = c->r->current;
	const struct string_slot *slot;
	const uint8_t *text;

	out->index = 0;
	out->text = "";
	out->len = 0;
	if (ref == 0)
		return true;
	if (ref & FXT_STRING_REF_INLINE) {
		out->len = ref & FXT_MAX_INLINE_STRING;
		if (!cur_stream(c, field, out->len, &text))
			return false;
		out->text = (const char *)text;
		return true;
	}
	out->index = (uint16_t)ref;
	slot = find_string(p, ref);
	if (slot) {
		out->text = slot->text;
		out->len = slot->len;
		return true;
	}
	out->text = NULL;
	if (strict(c))
		return fail(c, "%s uses string ref %llu before any String record defined it",
			    field, (unsigned long long)ref);
	return true;
}

/* Decode a thread ref; an inline thread's two koid words come from @c. */
static bool cur_thread_ref(struct cursor *c, uint64_t ref, const char *field,
			   struct fxt_thread_ref *out)
{
	const struct thread_slot *slot;

	out->index = (uint8_t)ref;
	out->pid = 0;
	out->tid = 0;
	if (ref == 0)
		return cur_word(c, "inline process koid", &out->pid) &&
		       cur_word(c, "inline thread koid", &out->tid);
	slot = &c->r->current->threads[ref];
	if (slot->defined) {
		out->pid = slot->pid;
		out->tid = slot->tid;
		return true;
	}
	if (strict(c))
		return fail(c, "%s uses thread ref %llu before any Thread record defined it",
			    field, (unsigned long long)ref);
	return true;
}

/* Decode the value of one argument from its own bounded cursor @ac. */
static bool arg_value(struct cursor *ac, uint64_t h, struct fxt_arg *a)
{
	uint64_t word;

	switch (a->type) {
	case FXT_ARG_NULL:
		return check_reserved(ac, h, BITS(32, 63), "null argument");
	case FXT_ARG_INT32:
		a->v.i32 = (int32_t)(uint32_t)(h >> 32);
		return true;
	case FXT_ARG_UINT32:
		a->v.u32 = (uint32_t)(h >> 32);
		return true;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		if (!check_reserved(ac, h, BITS(32, 63), "argument header") ||
		    !cur_word(ac, "argument value", &word))
			return false;
		/* All five members are 64 bits wide: copy the bits as they are. */
		memcpy(&a->v, &word, sizeof(word));
		return true;
	case FXT_ARG_BOOL:
		a->v.boolean = h >> 32 & 1;
		return check_reserved(ac, h, BITS(33, 63), "bool argument");
	case FXT_ARG_STRING:
		return check_reserved(ac, h, BITS(48, 63), "string argument") &&
		       cur_string_ref(ac, h >> 32 & 0xffff, "string argument value",
				      &a->v.string);
	case FXT_ARG_BLOB: {
		const uint8_t *data;

		a->v.blob.size = (uint32_t)(h >> 32);
		if (!cur_stream(ac, "blob argument payload", a->v.blob.size, &data))
			return false;
		a->v.blob.data = data;
		return true;
	}
	default:
		return true;	/* unknown type: skipped by its size */
	}
}

static bool cur_args(struct cursor *c, unsigned int nargs,
		     struct fxt_record *rec)
{
	unsigned int i;
	uint64_t h, size;
	struct fxt_arg *a;
	struct cursor ac;

	for (i = 0; i < nargs; i++) {
		a = &rec->args[i];
		memset(a, 0, sizeof(*a));
		a->offset = (size_t)(c->base - c->r->buf) + 8 * c->at;
		if (!cur_word(c, "argument header", &h))
			return false;
		size = h >> FXT_ARG_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		if (size == 0)
			return fail(c, "argument %u of %u has size 0", i + 1, nargs);
		if (size - 1 > c->words - c->at)
			return fail(c, "argument %u of %u (%llu words) runs past the end of the record (%zu words left)",
				    i + 1, nargs, (unsigned long long)size,
				    c->words - c->at + 1);
		ac = *c;
		ac.base = c->base + 8 * (c->at - 1);
		ac.words = (size_t)size;
		ac.at = 1;
		a->type = h & 0xf;
		if (!cur_string_ref(&ac, h >> FXT_ARG_NAME_SHIFT & 0xffff,
				    "argument name", &a->name) ||
		    !arg_value(&ac, h, a))
			return false;
		c->at += (size_t)size - 1;
		rec->nargs = i + 1;
	}
	return true;
}

static bool decode_metadata(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	uint32_t id = (uint32_t)(h >> 20);
	struct provider *p;
	const uint8_t *name;

	rec->meta.provider_id = id;
	switch (rec->kind) {
	case FXT_META_PROVIDER_INFO:
		c->what = "provider info record";
		if (!check_reserved(c, h, BITS(60, 63), "header") ||
		    !cur_stream(c, "provider name", h >> 52 & 0xff, &name))
			return false;
		p = find_provider(c->r, id);
		if (p)
			reset_provider(p);
		else if (!get_provider(c, id, &p))
			return false;
		rec->meta.name.text = (const char *)name;
		rec->meta.name.len = h >> 52 & 0xff;
		p->announced = true;
		p->name = rec->meta.name;
		c->r->current = p;
		return true;
	case FXT_META_PROVIDER_SECTION:
		c->what = "provider section record";
		if (!check_reserved(c, h, BITS(52, 63), "header"))
			return false;
		p = find_provider(c->r, id);
		if (strict(c) && (!p || !p->announced))
			return fail(c, "provider %u has no provider info record before it", id);
		if (!p && !get_provider(c, id, &p))
			return false;
		c->r->current = p;
		return true;
	case FXT_META_PROVIDER_EVENT:
		c->what = "provider event record";
		rec->meta.event_id = h >> 52 & 0xf;
		if (!check_reserved(c, h, BITS(56, 63), "header"))
			return false;
		p = find_provider(c->r, id);
		if (strict(c) && (!p || !p->announced))
			return fail(c, "provider %u has no provider info record before it", id);
		return true;
	case FXT_META_TRACE_INFO:
		c->what = "trace info record";
		rec->meta.provider_id = 0;
		rec->meta.trace_info_type = h >> 20 & 0xf;
		if (rec->meta.trace_info_type == FXT_TRACE_INFO_MAGIC &&
		    strict(c) && h != FXT_MAGIC_RECORD)
			return fail(c, "magic record is 0x%016llx, expected 0x%016llx",
				    (unsigned long long)h,
				    (unsigned long long)FXT_MAGIC_RECORD);
		return true;
	default:
		rec->decoded = false;
		return true;
	}
}

static bool decode_initialization(struct cursor *c, struct fxt_record *rec)
{
	c->what = "initialization record";
	if (!check_reserved(c, rec->header, BITS(16, 63), "header") ||
	    !cur_word(c, "ticks per second", &rec->ticks_per_second))
		return false;
	if (strict(c) && rec->ticks_per_second == 0)
		return fail(c, "%s", "ticks per second is 0");
	if (rec->ticks_per_second)
		c->r->current->ticks_per_second = rec->ticks_per_second;
	return true;
}

static bool decode_string(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	uint16_t len = h >> 32 & 0x7fff;
	const uint8_t *text;

	c->what = "string record";
	rec->string.index = h >> 16 & 0x7fff;
	if (!check_reserved(c, h, BITS(31, 31) | BITS(47, 63), "header") ||
	    !cur_stream(c, "text", len, &text))
		return false;
	rec->string.value.index = rec->string.index;
	rec->string.value.text = (const char *)text;
	rec->string.value.len = len;
	/*
	 * Index 0 is the empty string: the format says to ignore such records
	 * (so does Perfetto), and no writer should write one (Fuchsia's own
	 * reader reports it).
	 */
	if (!rec->string.index)
		return !strict(c) || fail(c, "index %u is the empty string's: it cannot be defined",
						 rec->string.index);
	return define_string(c, rec->string.index, (const char *)text, len);
}

static bool decode_thread(struct cursor *c, struct fxt_record *rec)
{
	struct thread_slot *slot;

	c->what = "thread record";
	rec->thread.index = rec->header >> 16 & 0xff;
	if (!check_reserved(c, rec->header, BITS(24, 63), "header") ||
	    !cur_word(c, "process koid", &rec->thread.pid) ||
	    !cur_word(c, "thread koid", &rec->thread.tid))
		return false;
	/* Reserved for inline threads: ignored, as by string index 0. */
	if (!rec->thread.index)
		return !strict(c) || fail(c, "index %u is for inline threads: it cannot be defined",
						 rec->thread.index);
	slot = &c->r->current->threads[rec->thread.index];
	slot->defined = true;
	slot->pid = rec->thread.pid;
	slot->tid = rec->thread.tid;
	return true;
}

static bool decode_event(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	struct fxt_event *ev = &rec->event;

	c->what = "event record";
	ev->type = rec->kind;
	if (!cur_timestamp(c, &ev->timestamp) ||
	    !cur_thread_ref(c, h >> 24 & 0xff, "thread", &ev->thread) ||
	    !cur_string_ref(c, h >> 32 & 0xffff, "category", &ev->category) ||
	    !cur_string_ref(c, h >> 48 & 0xffff, "name", &ev->name) ||
	    !cur_args(c, h >> 20 & 0xf, rec))
		return false;
	if (fxt_event_has_data_word(ev->type))
		return cur_word(c, "event data word", &ev->data);
	return true;
}

static bool decode_blob(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	struct fxt_blob *b = &rec->blob;
	const uint8_t *data;

	c->what = "blob record";
	b->blob_type = h >> 48 & 0xff;
	b->size = h >> 32 & 0x7fff;
	if (!check_reserved(c, h, BITS(47, 47) | BITS(56, 63), "header") ||
	    !cur_string_ref(c, h >> 16 & 0xffff, "name", &b->name) ||
	    !cur_stream(c, "payload", b->size, &data))
		return false;
	b->data = data;
	return true;
}

static bool decode_userspace_object(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	struct fxt_userspace_object *o = &rec->uobj;
	uint64_t ref = h >> 16 & 0xff;

	c->what = "userspace object record";
	if (!check_reserved(c, h, BITS(44, 63), "header") ||
	    !cur_word(c, "pointer", &o->pointer))
		return false;
	if (ref == 0) {
		/* An inline process is a single koid word here. */
		o->process.index = 0;
		o->process.tid = 0;
		if (!cur_word(c, "process koid", &o->process.pid))
			return false;
	} else if (!cur_thread_ref(c, ref, "process", &o->process)) {
		return false;
	}
	return cur_string_ref(c, h >> 24 & 0xffff, "name", &o->name) &&
	       cur_args(c, h >> 40 & 0xf, rec);
}

/*
 * Strict: every argument named @name in @rec has type @type. Perfetto reads
 * these by name and drops the whole record (its fuchsia_invalid_event
 * stat) when one has another type: a switch, a wakeup, a thread's name.
 */
static bool check_arg_type(struct cursor *c, const struct fxt_record *rec,
			   const char *name, unsigned int type)
{
	unsigned int i;

	if (!strict(c))
		return true;
	for (i = 0; i < rec->nargs; i++)
		if (fxt_str_eq(&rec->args[i].name, name) &&
		    rec->args[i].type != type)
			return fail(c, "argument %s is %s, not %s: Perfetto drops the record",
				    name, fxt_arg_type_name(rec->args[i].type),
				    fxt_arg_type_name(type));
	return true;
}

static bool decode_kernel_object(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	struct fxt_kernel_object *o = &rec->kobj;

	c->what = "kernel object record";
	o->obj_type = h >> 16 & 0xff;
	return check_reserved(c, h, BITS(44, 63), "header") &&
	       cur_word(c, "koid", &o->koid) &&
	       cur_string_ref(c, h >> 24 & 0xffff, "name", &o->name) &&
	       cur_args(c, h >> 40 & 0xf, rec) &&
	       (o->obj_type != FXT_OBJ_TYPE_THREAD ||
		check_arg_type(c, rec, "process", FXT_ARG_KOID));
}

/* Strict: a scheduling record's CPU is one Perfetto can read. */
static bool check_cpu(struct cursor *c, unsigned int cpu)
{
	if (!strict(c) || cpu < FXT_PERFETTO_MAX_CPUS)
		return true;
	return fail(c, "CPU %u: Perfetto reads CPU numbers below %u only (its trace_processor aborts on this record)",
		    cpu, FXT_PERFETTO_MAX_CPUS);
}

static bool decode_scheduling(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	unsigned int nargs = h >> FXT_SCHED_ARGC_SHIFT & 0xf;
	unsigned int cpu = h >> FXT_SCHED_CPU_SHIFT & FXT_SCHED_CPU_MASK;
	struct fxt_context_switch *cs = &rec->context_switch;
	struct fxt_wakeup *wk = &rec->wakeup;
	struct fxt_legacy_switch *ls = &rec->legacy_switch;

	switch (rec->kind) {
	case FXT_SCHED_KIND_CONTEXT_SWITCH:
		c->what = "context switch record";
		cs->cpu = cpu;
		cs->outgoing_state = h >> FXT_SCHED_STATE_SHIFT & 0xf;
		return check_reserved(c, h, BITS(40, 59), "header") &&
		       check_cpu(c, cpu) &&
		       cur_timestamp(c, &cs->timestamp) &&
		       cur_word(c, "outgoing thread koid", &cs->outgoing_tid) &&
		       cur_word(c, "incoming thread koid", &cs->incoming_tid) &&
		       cur_args(c, nargs, rec) &&
		       check_arg_type(c, rec, "incoming_weight", FXT_ARG_INT32) &&
		       check_arg_type(c, rec, "outgoing_weight", FXT_ARG_INT32);
	case FXT_SCHED_KIND_WAKEUP:
		c->what = "wakeup record";
		wk->cpu = cpu;
		return check_reserved(c, h, BITS(36, 59), "header") &&
		       check_cpu(c, cpu) &&
		       cur_timestamp(c, &wk->timestamp) &&
		       cur_word(c, "woken thread koid", &wk->woken_tid) &&
		       cur_args(c, nargs, rec) &&
		       check_arg_type(c, rec, "weight", FXT_ARG_INT32);
	case FXT_SCHED_KIND_LEGACY_SWITCH:
		c->what = "legacy context switch record";
		ls->cpu = h >> 16 & 0xff;
		ls->outgoing_state = h >> 24 & 0xf;
		ls->outgoing_priority = h >> 44 & 0xff;
		ls->incoming_priority = h >> 52 & 0xff;
		return cur_timestamp(c, &ls->timestamp) &&
		       cur_thread_ref(c, h >> 28 & 0xff, "outgoing thread",
				      &ls->outgoing) &&
		       cur_thread_ref(c, h >> 36 & 0xff, "incoming thread",
				      &ls->incoming);
	default:
		rec->decoded = false;
		return true;
	}
}

static bool decode_log(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	struct fxt_log *log = &rec->log;
	const uint8_t *msg;

	c->what = "log record";
	log->len = h >> 16 & 0x7fff;
	if (!check_reserved(c, h, BITS(31, 31) | BITS(40, 63), "header") ||
	    !cur_timestamp(c, &log->timestamp) ||
	    !cur_thread_ref(c, h >> 32 & 0xff, "thread", &log->thread) ||
	    !cur_stream(c, "message", log->len, &msg))
		return false;
	log->message = (const char *)msg;
	return true;
}

static bool decode_large(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header, fh;
	struct fxt_large_blob *lb = &rec->large_blob;
	const uint8_t *data;
	bool meta;

	c->what = "large record";
	/* Before its kind: Perfetto misframes any large record this long. */
	if (strict(c) && c->words > FXT_PERFETTO_MAX_WORDS)
		return fail(c, "%zu words: Perfetto reads a record's size from bits 4-15 of its header only, large records too (at most %llu words), so it misreads this record and what follows",
			    c->words, (unsigned long long)FXT_PERFETTO_MAX_WORDS);
	c->what = "large blob record";
	lb->format = h >> 40 & 0xf;
	meta = lb->format == FXT_LARGE_BLOB_WITH_METADATA;
	if (rec->kind != FXT_LARGE_BLOB || lb->format > FXT_LARGE_BLOB_NO_METADATA) {
		rec->decoded = false;
		return true;
	}
	if (!check_reserved(c, h, BITS(44, 63), "header") ||
	    !cur_word(c, "format header", &fh) ||
	    !check_reserved(c, fh, meta ? BITS(44, 63) : BITS(32, 63),
			    "format header") ||
	    !cur_string_ref(c, fh & 0xffff, "category", &lb->category) ||
	    !cur_string_ref(c, fh >> 16 & 0xffff, "name", &lb->name))
		return false;
	if (meta && (!cur_timestamp(c, &lb->timestamp) ||
		     !cur_thread_ref(c, fh >> 36 & 0xff, "thread", &lb->thread) ||
		     !cur_args(c, fh >> 32 & 0xf, rec)))
		return false;
	if (!cur_word(c, "blob size", &lb->size) ||
	    !cur_stream(c, "payload", lb->size, &data))
		return false;
	lb->data = data;
	return true;
}

static bool decode(struct cursor *c, struct fxt_record *rec)
{
	switch (rec->type) {
	case FXT_RECORD_METADATA:
		return decode_metadata(c, rec);
	case FXT_RECORD_INITIALIZATION:
		return decode_initialization(c, rec);
	case FXT_RECORD_STRING:
		return decode_string(c, rec);
	case FXT_RECORD_THREAD:
		return decode_thread(c, rec);
	case FXT_RECORD_EVENT:
		return decode_event(c, rec);
	case FXT_RECORD_BLOB:
		return decode_blob(c, rec);
	case FXT_RECORD_USERSPACE_OBJECT:
		return decode_userspace_object(c, rec);
	case FXT_RECORD_KERNEL_OBJECT:
		return decode_kernel_object(c, rec);
	case FXT_RECORD_SCHEDULING:
		return decode_scheduling(c, rec);
	case FXT_RECORD_LOG:
		return decode_log(c, rec);
	case FXT_RECORD_LARGE:
		return decode_large(c, rec);
	default:
		rec->decoded = false;	/* unknown type: skipped by its size */
		return true;
	}
}

/* The record's subtype field, wherever this record type keeps it. */
static unsigned int record_kind(unsigned int type, uint64_t h)
{
	switch (type) {
	case FXT_RECORD_METADATA:
	case FXT_RECORD_EVENT:
		return h >> 16 & 0xf;
	case FXT_RECORD_SCHEDULING:
		return h >> FXT_SCHED_KIND_SHIFT & 0xf;
	case FXT_RECORD_LARGE:
		return h >> 36 & 0xf;
	default:
		return 0;
	}
}

/* The check on the very first word (FXT_READ_MAGIC, FXT_READ_STRICT). */
static bool check_magic_first(struct fxt_reader *r)
{
	uint64_t first;

	if (r->len == 0)
		return fail_at(r, 0, "empty: not an FXT trace (no magic record)");
	if (r->len < 8)
		return fail_at(r, 0, "not an FXT trace (no magic record): the data is only %zu bytes long",
			       r->len);
	first = load_word(r->buf);
	if (first == FXT_MAGIC_RECORD)
		return true;
	if (first == __builtin_bswap64(FXT_MAGIC_RECORD))
		return fail_at(r, 0, "big-endian trace (byte-swapped magic record): not supported");
	return fail_at(r, 0, "not an FXT trace (no magic record): the first word is 0x%016llx, expected 0x%016llx",
		       (unsigned long long)first,
		       (unsigned long long)FXT_MAGIC_RECORD);
}

int fxt_reader_next(struct fxt_reader *r, struct fxt_record *rec)
{
	size_t left = r->len - r->pos;
	uint64_t h, words;
	struct cursor c;

	if (r->state != 1)
		return r->state;
	if (r->pos == 0 && (r->flags & (FXT_READ_STRICT | FXT_READ_MAGIC)) &&
	    !check_magic_first(r))
		return -1;
	if (left == 0) {
		r->state = 0;
		return 0;
	}
	if (left < 8) {
		fail_at(r, r->pos, "truncated: %zu trailing bytes are not a whole 8-byte word",
			left);
		return -1;
	}
	h = load_word(r->buf + r->pos);
	memset(rec, 0, offsetof(struct fxt_record, args));
	rec->offset = r->pos;
	rec->header = h;
	rec->type = h & 0xf;
	rec->kind = record_kind(rec->type, h);
	rec->decoded = true;
	rec->provider_id = r->current->id;
	words = fxt_record_words(h);
	if (words == 0) {
		fail_at(r, r->pos, "%s record has size 0 (header 0x%016llx)",
			fxt_record_type_name(rec->type), (unsigned long long)h);
		return -1;
	}
	if (words > left / 8) {
		fail_at(r, r->pos, "truncated: %s record of %llu words (%llu bytes) runs past the end of the data (%zu bytes left)",
			fxt_record_type_name(rec->type),
			(unsigned long long)words,
			(unsigned long long)words * 8, left);
		return -1;
	}
	rec->data = r->buf + r->pos;
	rec->size = (size_t)words * 8;
	c.r = r;
	c.base = rec->data;
	c.words = (size_t)words;
	c.at = 1;
	c.what = fxt_record_type_name(rec->type);
	if (!decode(&c, rec))
		return -1;
	/* Section records switch providers; report the provider after it. */
	rec->provider_id = r->current->id;
	r->pos += rec->size;
	return 1;
}

struct fxt_reader *fxt_reader_new(const void *buf, size_t len,
				  unsigned int flags)
{
	struct fxt_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->buf = buf;
	r->len = len;
	r->flags = flags;
	r->state = 1;
	/* Records before any provider info belong to an anonymous provider 0. */
	r->current = add_provider(r, 0);
	if (!r->current) {
		free(r);
		return NULL;
	}
	return r;
}

void fxt_reader_free(struct fxt_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nproviders; i++) {
		reset_provider(r->providers[i]);	/* its string chunks */
		free(r->providers[i]);
	}
	free(r->providers);
	free(r);
}

const struct fxt_error *fxt_reader_error(const struct fxt_reader *r)
{
	return r->state < 0 ? &r->error : NULL;
}

size_t fxt_reader_offset(const struct fxt_reader *r)
{
	return r->pos;
}

bool fxt_reader_lookup_string(const struct fxt_reader *r, uint16_t index,
			      struct fxt_str *out)
{
	const struct string_slot *slot = find_string(r->current, index);

	if (index == 0 || !slot)
		return false;
	out->index = index;
	out->text = slot->text;
	out->len = slot->len;
	return true;
}

bool fxt_reader_lookup_thread(const struct fxt_reader *r, uint8_t index,
			      uint64_t *pid, uint64_t *tid)
{
	const struct thread_slot *slot = &r->current->threads[index];

	if (index == 0 || !slot->defined)
		return false;
	*pid = slot->pid;
	*tid = slot->tid;
	return true;
}

uint64_t fxt_reader_ticks_per_second(const struct fxt_reader *r)
{
	return r->current->ticks_per_second;
}

bool fxt_str_eq(const struct fxt_str *s, const char *text)
{
	size_t len = strlen(text);

	if (!s->text)
		return false;
	return s->len == len && memcmp(s->text, text, len) == 0;
}

const struct fxt_arg *fxt_record_find_arg(const struct fxt_record *rec,
					  const char *name)
{
	unsigned int i;

	for (i = 0; i < rec->nargs; i++)
		if (fxt_str_eq(&rec->args[i].name, name))
			return &rec->args[i];
	return NULL;
}

bool fxt_loss_marker(const struct fxt_record *rec, uint32_t *cpu,
		     uint64_t *amount, bool *skipped)
{
	const struct fxt_arg *a;
	bool bytes;

	if (rec->type != FXT_RECORD_EVENT || !rec->decoded ||
	    rec->event.type != FXT_EVENT_COUNTER)
		return false;
	bytes = fxt_str_eq(&rec->event.name, "bytes_skipped");
	if (!bytes && !fxt_str_eq(&rec->event.name, "records_lost"))
		return false;
	a = fxt_record_find_arg(rec, "cpu");
	if (!a || (a->type != FXT_ARG_INT64 && a->type != FXT_ARG_UINT64) ||
	    (a->type == FXT_ARG_INT64 && a->v.i64 < 0) ||
	    rec->event.data > FXT_SCHED_CPU_MASK)
		return false;
	*cpu = (uint32_t)rec->event.data;
	*amount = a->v.u64;
	*skipped = bytes;
	return true;
}

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof((table)[0]) && (table)[i] ? (table)[i] : "unknown")

const char *fxt_record_type_name(unsigned int type)
{
	static const char *const names[] = {
		[FXT_RECORD_METADATA] = "metadata",
		[FXT_RECORD_INITIALIZATION] = "initialization",
		[FXT_RECORD_STRING] = "string",
		[FXT_RECORD_THREAD] = "thread",
		[FXT_RECORD_EVENT] = "event",
		[FXT_RECORD_BLOB] = "blob",
		[FXT_RECORD_USERSPACE_OBJECT] = "userspace_object",
		[FXT_RECORD_KERNEL_OBJECT] = "kernel_object",
		[FXT_RECORD_SCHEDULING] = "scheduling",
		[FXT_RECORD_LOG] = "log",
		[FXT_RECORD_LARGE] = "large",
	};

	return NAME_OF(names, type);
}

const char *fxt_metadata_type_name(unsigned int type)
{
	static const char *const names[] = {
		[FXT_META_PROVIDER_INFO] = "provider_info",
		[FXT_META_PROVIDER_SECTION] = "provider_section",
		[FXT_META_PROVIDER_EVENT] = "provider_event",
		[FXT_META_TRACE_INFO] = "trace_info",
	};

	return NAME_OF(names, type);
}

const char *fxt_event_type_name(unsigned int type)
{
	static const char *const names[] = {
		[FXT_EVENT_INSTANT] = "instant",
		[FXT_EVENT_COUNTER] = "counter",
		[FXT_EVENT_DURATION_BEGIN] = "duration_begin",
		[FXT_EVENT_DURATION_END] = "duration_end",
		[FXT_EVENT_DURATION_COMPLETE] = "duration_complete",
		[FXT_EVENT_ASYNC_BEGIN] = "async_begin",
		[FXT_EVENT_ASYNC_INSTANT] = "async_instant",
		[FXT_EVENT_ASYNC_END] = "async_end",
		[FXT_EVENT_FLOW_BEGIN] = "flow_begin",
		[FXT_EVENT_FLOW_STEP] = "flow_step",
		[FXT_EVENT_FLOW_END] = "flow_end",
	};

	return NAME_OF(names, type);
}

const char *fxt_sched_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[FXT_SCHED_KIND_LEGACY_SWITCH] = "legacy_context_switch",
		[FXT_SCHED_KIND_CONTEXT_SWITCH] = "context_switch",
		[FXT_SCHED_KIND_WAKEUP] = "wakeup",
	};

	return NAME_OF(names, kind);
}

const char *fxt_arg_type_name(unsigned int type)
{
	static const char *const names[] = {
		[FXT_ARG_NULL] = "null",
		[FXT_ARG_INT32] = "int32",
		[FXT_ARG_UINT32] = "uint32",
		[FXT_ARG_INT64] = "int64",
		[FXT_ARG_UINT64] = "uint64",
		[FXT_ARG_DOUBLE] = "double",
		[FXT_ARG_STRING] = "string",
		[FXT_ARG_POINTER] = "pointer",
		[FXT_ARG_KOID] = "koid",
		[FXT_ARG_BOOL] = "bool",
		[FXT_ARG_BLOB] = "blob",
	};

	return NAME_OF(names, type);
}

const char *fxt_thread_state_name(unsigned int state)
{
	static const char *const names[] = {
		[FXT_THREAD_STATE_NEW] = "new",
		[FXT_THREAD_STATE_RUNNING] = "running",
		[FXT_THREAD_STATE_SUSPENDED] = "suspended",
		[FXT_THREAD_STATE_BLOCKED] = "blocked",
		[FXT_THREAD_STATE_DYING] = "dying",
		[FXT_THREAD_STATE_DEAD] = "dead",
	};

	return NAME_OF(names, state);
}

int fxt_flush_error(FILE *f, int fallback)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return errno ? errno : fallback;
}

bool fxt_stdout_is_input(const char *prog, const char *path,
			 const char *advice)
{
	struct stat in, out;
	const char *harm;
	int flags;

	if (strcmp(path, "-") ? stat(path, &in) : fstat(STDIN_FILENO, &in))
		return false;
	if (fstat(STDOUT_FILENO, &out) || !S_ISREG(out.st_mode) ||
	    in.st_dev != out.st_dev || in.st_ino != out.st_ino)
		return false;
	flags = fcntl(STDOUT_FILENO, F_GETFL);
	/*
	 * > opens write-only and truncates, before we run; 1<> opens
	 * read-write and does not (an empty file is empty, not emptied).
	 */
	if (flags >= 0 && (flags & O_APPEND))
		harm = "the output would be appended to it";
	else if (flags >= 0 && (flags & O_ACCMODE) == O_WRONLY && !out.st_size)
		harm = "it is empty: the shell's > emptied it before this program ran, and the trace in it is lost";
	else
		harm = "the output would overwrite it";
	fprintf(stderr, "%s: standard output is the trace being read (%s): %s; redirect the output to another file%s\n",
		prog, strcmp(path, "-") ? path : "standard input", harm,
		advice);
	return true;
}

size_t fxt_utf8_len(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		*bad = 1;
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* @n bytes at @p to @out; nothing when @out is NULL (a measure only). */
static void put_bytes(FILE *out, const void *p, size_t n)
{
	if (out)
		fwrite(p, 1, n, out);
}

/* One byte, as put_bytes(): fputc(), the cheap call for the common case. */
static void put_byte(FILE *out, int c)
{
	if (out)
		fputc(c, out);
}

/* @k bytes of @s as \xNN each (to @out if not NULL); how many bytes that is. */
static size_t fput_hex_bytes(FILE *out, const unsigned char *s, size_t k)
{
	size_t i;

	for (i = 0; i < k && out; i++)
		fprintf(out, "\\x%02x", s[i]);
	return 4 * k;
}

size_t fxt_fput_escaped(FILE *out, const char *text, size_t len, int quote)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i, k, bad, n = 0;
	unsigned char ch;

	for (i = 0; i < len; i++) {
		ch = u[i];
		if (ch >= 0x80) {
			/*
			 * A C1 control (U+0080-U+009F: CSI is U+009B) acts
			 * like ESC on some terminals, and so may a lone byte
			 * of them where UTF-8 is not spoken: both as \xNN.
			 */
			k = fxt_utf8_len(u + i, len - i, &bad);
			if (k == 2 && ch == 0xc2 && u[i + 1] < 0xa0) {
				n += fput_hex_bytes(out, u + i, 2);
			} else if (k) {
				put_bytes(out, u + i, k);
				n += k;
			} else {
				n += fput_hex_bytes(out, u + i, bad);
			}
			i += (k ? k : bad) - 1;
		} else if (ch == '\\' || (quote && ch == quote)) {
			put_byte(out, '\\');
			put_byte(out, ch);
			n += 2;
		} else if (ch == '\n') {
			put_bytes(out, "\\n", 2);
			n += 2;
		} else if (ch < 0x20 || ch == 0x7f) {
			n += fput_hex_bytes(out, u + i, 1);
		} else {
			put_byte(out, ch);	/* printable ASCII */
			n++;
		}
	}
	return n;
}

const char *fxt_obj_type_name(unsigned int obj_type)
{
	static const char *const names[] = {
		[FXT_OBJ_TYPE_PROCESS] = "process",
		[FXT_OBJ_TYPE_THREAD] = "thread",
	};

	return NAME_OF(names, obj_type);
}
