/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * sched_core.c - one pass over an FXT file, scheduling records handed on
 * in timestamp order through a bounded reorder window (why, and what goes
 * through it, in sched_core.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched_core.h"

uint64_t sc_ticks_to_ns(uint64_t ticks, uint64_t tps)
{
	unsigned __int128 ns;

	if (tps == 1000000000ULL || tps == 0)
		return ticks;
	/* A slow tick can name a time past 2^64 ns: keep it last, not wrapped. */
	ns = (unsigned __int128)ticks * 1000000000ULL / tps;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* The length of the decimal number @s starts with: digits with at most one
 * '.' (a digit on at least one side), then maybe an exponent (e or E, an
 * optional sign, digits). 0 if it does not start with one. */
static size_t decimal_len(const char *s)
{
	size_t i = 0, digits = 0, e;

	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		e = i + 1;
		if (s[e] == '+' || s[e] == '-')
			e++;
		if (s[e] >= '0' && s[e] <= '9') {
			while (s[e] >= '0' && s[e] <= '9')
				e++;
			i = e;
		}
	}
	return i;
}

/* The most a time may be: 18000000000 s (fxt-sched(1)), in ns. */
#define TIME_MAX_NS	18000000000000000000ULL

/*
 * The @len bytes of @s, digits with at most one '.', times @mul ns,
 * exactly (not through a double, whose 53 bits cannot hold every ns past
 * 104 days), rounded to the nearest ns, a half up. false if above
 * TIME_MAX_NS. Fraction digits past the 20th are below 10^-11 ns here.
 */
static bool exact_decimal_ns(const char *s, size_t len, uint64_t mul,
			     uint64_t *out)
{
	unsigned __int128 whole = 0, num = 0, den = 1, ns;
	size_t i = 0, frac_digits = 0;

	for (; i < len && s[i] != '.'; i++) {
		whole = whole * 10 + (unsigned int)(s[i] - '0');
		if (whole > TIME_MAX_NS)
			return false;
	}
	for (i++; i < len; i++) {
		if (frac_digits++ == 20)
			break;
		num = num * 10 + (unsigned int)(s[i] - '0');
		den *= 10;
	}
	ns = whole * mul + (2 * num * mul + den) / (2 * den);
	if (ns > TIME_MAX_NS)
		return false;
	*out = (uint64_t)ns;
	return true;
}

/* @s, a decimal number and an optional unit, in ns; NULL or what is wrong */
static const char *parse_unsigned_time(const char *s, uint64_t unit_ns,
				       uint64_t *out)
{
	size_t len = decimal_len(s);
	const char *unit = s + len;
	char *end;
	double v, mul;

	if (!len)
		return "not a time";
	if (!*unit)
		mul = (double)unit_ns;
	else if (!strcmp(unit, "ns"))
		mul = 1;
	else if (!strcmp(unit, "us"))
		mul = 1e3;
	else if (!strcmp(unit, "ms"))
		mul = 1e6;
	else if (!strcmp(unit, "s"))
		mul = 1e9;
	else
		return "not a time";
	/* Without an exponent, exactly; @mul is at most 1e9 (callers give
	 * unit_ns 1). */
	if (!memchr(s, 'e', len) && !memchr(s, 'E', len) && mul <= 1e9)
		return exact_decimal_ns(s, len, (uint64_t)mul, out) ?
		       NULL : "out of range";
	/* strtod() reads the same digits (a decimal number is a prefix it
	 * takes whole); ERANGE: too large, or too small to be told from 0 */
	errno = 0;
	v = strtod(s, &end);
	if (end != unit || (errno && v != 0) || !(v >= 0) || v * mul > 1.8e19)
		return "out of range";
	*out = (uint64_t)(v * mul + 0.5);
	return NULL;
}

const char *sc_parse_time(const char *s, uint64_t unit_ns, uint64_t *out)
{
	uint64_t v;

	if (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		return "a blank";
	if (*s == '+' || *s == '-') {
		const char *why = parse_unsigned_time(s + 1, unit_ns, &v);

		if (why)
			return why;
		return *s == '-' && v ? "negative" : "a sign";
	}
	return parse_unsigned_time(s, unit_ns, out);
}

const char *sc_parse_window(const char *s, uint64_t *out)
{
	size_t len = decimal_len(s);
	const char *why;
	uint64_t v;

	if (len && !s[len])
		return "a unit is required: ns, us, ms or s (e.g. 2s)";
	why = sc_parse_time(s, 1, &v);
	if (why && !strcmp(why, "negative"))
		return "negative: it must be more than 0";
	if (why)
		return "not a duration: a number with a unit ns, us, ms or s (e.g. 2s)";
	if (!v)
		return "it must be more than 0";
	*out = v;
	return NULL;
}

struct heap {
	struct sc_event *v;
	size_t n, cap;
};

static bool before(const struct sc_event *x, const struct sc_event *y)
{
	return x->ts < y->ts || (x->ts == y->ts && x->seq < y->seq);
}

static int heap_push(struct heap *h, const struct sc_event *e)
{
	size_t i, p;

	if (h->n == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 1024;
		struct sc_event *nv = realloc(h->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		h->v = nv;
		h->cap = ncap;
	}
	i = h->n++;
	while (i > 0) {
		p = (i - 1) / 2;
		if (!before(e, &h->v[p]))
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = *e;
	return 0;
}

static void heap_pop(struct heap *h, struct sc_event *out)
{
	struct sc_event last;
	size_t i = 0, c;

	*out = h->v[0];
	last = h->v[--h->n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

static int32_t weight_arg(const struct fxt_record *rec, const char *name,
			  bool *found)
{
	const struct fxt_arg *a = fxt_record_find_arg(rec, name);

	*found = a && a->type == FXT_ARG_INT32;
	return *found ? a->v.i32 : 0;
}

/* Is this side the idle task? INT32_MIN weight (fxtrace, Perfetto's
 * convention); without a weight argument, tid 0. */
static bool is_idle(bool found, int32_t w, uint64_t tid)
{
	return found ? w == INT32_MIN : tid == 0;
}

/* Decode a scheduling record into @e. Return false if it is not one. */
static bool to_event(const struct fxt_record *rec, uint64_t tps,
		     struct sc_event *e)
{
	bool fi, fo;
	int32_t wi, wo;

	memset(e, 0, sizeof(*e));
	if (rec->type != FXT_RECORD_SCHEDULING || !rec->decoded)
		return false;
	switch (rec->kind) {
	case FXT_SCHED_KIND_CONTEXT_SWITCH:
		e->kind = SC_SWITCH;
		e->ts = sc_ticks_to_ns(rec->context_switch.timestamp, tps);
		e->cpu = rec->context_switch.cpu;
		e->state = (uint8_t)rec->context_switch.outgoing_state;
		e->a = rec->context_switch.outgoing_tid;
		e->b = rec->context_switch.incoming_tid;
		wi = weight_arg(rec, "incoming_weight", &fi);
		wo = weight_arg(rec, "outgoing_weight", &fo);
		break;
	case FXT_SCHED_KIND_LEGACY_SWITCH:
		e->kind = SC_SWITCH;
		e->ts = sc_ticks_to_ns(rec->legacy_switch.timestamp, tps);
		e->cpu = rec->legacy_switch.cpu;
		e->state = (uint8_t)rec->legacy_switch.outgoing_state;
		e->a = rec->legacy_switch.outgoing.tid;
		e->b = rec->legacy_switch.incoming.tid;
		fi = fo = false;
		wi = (int32_t)rec->legacy_switch.incoming_priority;
		wo = 0;
		break;
	case FXT_SCHED_KIND_WAKEUP: {
		const struct fxt_arg *w = fxt_record_find_arg(rec, "waker");

		e->kind = SC_WAKEUP;
		e->ts = sc_ticks_to_ns(rec->wakeup.timestamp, tps);
		e->cpu = rec->wakeup.cpu;
		e->a = rec->wakeup.woken_tid;
		if (w && w->type == FXT_ARG_KOID) {
			e->waker = w->v.koid;
			e->flags |= SC_HAS_WAKER;
		}
		return true;
	}
	default:
		return false;
	}
	if (is_idle(fo, wo, e->a))
		e->flags |= SC_OUT_IDLE;
	if (is_idle(fi, wi, e->b))
		e->flags |= SC_IN_IDLE;
	e->in_prio = wi;
	return true;
}

static uint64_t record_ts(const struct fxt_record *rec, uint64_t tps,
			  bool *has)
{
	*has = true;
	switch (rec->type) {
	case FXT_RECORD_EVENT:
		return sc_ticks_to_ns(rec->event.timestamp, tps);
	case FXT_RECORD_LOG:
		return sc_ticks_to_ns(rec->log.timestamp, tps);
	default:
		*has = false;
		return 0;
	}
}

/* A thread or process kernel object as an SC_NAME event (no timestamp yet). */
static bool to_name(const struct fxt_record *rec, struct sc_event *e)
{
	const struct fxt_arg *p;

	memset(e, 0, sizeof(*e));
	if (rec->type != FXT_RECORD_KERNEL_OBJECT || !rec->decoded ||
	    (rec->kobj.obj_type != FXT_OBJ_TYPE_THREAD &&
	     rec->kobj.obj_type != FXT_OBJ_TYPE_PROCESS))
		return false;
	e->kind = SC_NAME;
	e->state = (uint8_t)rec->kobj.obj_type;
	e->a = rec->kobj.koid;
	e->name = rec->kobj.name.text;
	e->name_len = e->name && rec->kobj.name.len < UINT32_MAX ?
		      (uint32_t)rec->kobj.name.len : 0;
	p = fxt_record_find_arg(rec, "process");
	if (rec->kobj.obj_type == FXT_OBJ_TYPE_THREAD && p &&
	    p->type == FXT_ARG_KOID) {
		e->b = p->v.koid;
		e->flags |= SC_HAS_PID;
	}
	p = fxt_record_find_arg(rec, "new_task");
	if (rec->kobj.obj_type == FXT_OBJ_TYPE_THREAD && p &&
	    p->type == FXT_ARG_INT32 && p->v.i32 == 1)
		e->flags |= SC_NEW_TASK;
	return true;
}

/* A loss marker (fxt_loss_marker(): the kernel's records_lost, or
 * fxt-collect's bytes_skipped, SC_SKIPPED, since its hole is as much a
 * hole) as an SC_LOST event. */
static bool to_lost(const struct fxt_record *rec, uint64_t ts,
		    struct sc_event *e)
{
	uint64_t amount;
	uint32_t cpu;
	bool skipped;

	if (!fxt_loss_marker(rec, &cpu, &amount, &skipped))
		return false;
	memset(e, 0, sizeof(*e));
	e->kind = SC_LOST;
	e->ts = ts;
	e->cpu = cpu;
	e->a = amount;
	if (skipped)
		e->flags = SC_SKIPPED;
	return true;
}

struct input {
	const uint8_t *buf;
	size_t len;
	void *map;		/* the mapping @buf points into, or NULL */
	size_t map_len;
	bool allocated;		/* @buf is malloc'd (a pipe), even if empty */
};

static int open_input(const char *path, struct input *in)
{
	struct stat sb;
	int fd, saved;

	memset(in, 0, sizeof(*in));
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* The input starts at the file offset, as read() and cat see
		 * it: standard input may be a file of which the shell or a
		 * parent already read or skipped some bytes
		 * ({ dd bs=8 count=1 of=/dev/null; fxt-sched summary -; } <f).
		 * The mapping starts at the page that holds it. */
		off_t off = lseek(fd, 0, SEEK_CUR), base;

		if (off < 0)
			goto fail;
		if (off >= sb.st_size) {
			in->buf = (const uint8_t *)"";
		} else {
			void *p;

			base = off - off % sysconf(_SC_PAGESIZE);
			in->len = (size_t)(sb.st_size - off);
			in->map_len = (size_t)(sb.st_size - base);
			p = mmap(NULL, in->map_len, PROT_READ, MAP_PRIVATE,
				 fd, base);
			if (p == MAP_FAILED)
				goto fail;
			madvise(p, in->map_len, MADV_SEQUENTIAL);
			in->map = p;
			in->buf = (const uint8_t *)p + (off - base);
		}
	} else {
		/* a pipe: read it all (memory = file size, documented) */
		size_t cap = 1 << 20;
		uint8_t *b = malloc(cap), *nb;
		ssize_t n;

		if (!b)
			goto fail;
		for (;;) {
			if (in->len == cap) {
				nb = realloc(b, cap * 2);
				if (!nb) {
					free(b);
					errno = ENOMEM;
					goto fail;
				}
				b = nb;
				cap *= 2;
			}
			n = read(fd, b + in->len, cap - in->len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				free(b);
				goto fail;
			}
			if (n == 0)
				break;
			in->len += (size_t)n;
		}
		in->buf = b;
		in->allocated = true;
	}
	if (fd > 0)
		close(fd);
	return 0;
fail:
	saved = errno;
	if (fd > 0)
		close(fd);
	errno = saved;
	return -1;
}

static void close_input(struct input *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	else if (in->allocated)
		free((void *)in->buf);
}

/* Give back the pages of a mapped file behind the reader (they are file
 * backed and read-only: touching them again just reads them back), so the
 * resident set does not grow with the file. */
#define RELEASE_STEP	(16u << 20)

static void release_behind(struct input *in, size_t upto, size_t *released)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), end;

	if (!in->map || upto < *released + RELEASE_STEP)
		return;
	/* @upto counts from @buf, *released from the mapping's start. */
	end = ((size_t)(in->buf - (const uint8_t *)in->map) + upto) & ~(pg - 1);
	madvise((uint8_t *)in->map + *released, end - *released, MADV_DONTNEED);
	*released = end;
}

/* The reorder state of one sc_run(). */
struct run {
	const struct sc_handler *h;
	struct sc_stats *st;
	struct heap heap;
	uint64_t window, max_ts, last_out, seq;
	bool any_out;
	bool any_ts;			/* a timestamped record was read */
	struct sc_event *pending;	/* names waiting for a timestamp */
	size_t npending, cap_pending;
};

/* Is @ts behind what was handed on already (too late to be in order)? */
static bool behind(const struct run *r, uint64_t ts)
{
	return r->any_out && ts < r->last_out;
}

static void emit(struct run *r, const struct sc_event *e)
{
	r->h->sched(r->h->ctx, e);
	r->last_out = e->ts;
	r->any_out = true;
}

/*
 * Into the reorder buffer; on allocation failure hand on what is buffered,
 * in order, and then @e. Unless what was handed on is newer than @e: then
 * @e is not taken, and false says it is late (the caller skips or clamps
 * it, as for any record behind what was handed on).
 */
static bool push(struct run *r, const struct sc_event *e)
{
	struct sc_event out;

	if (heap_push(&r->heap, e)) {
		/* Once per hand-on; a buffer that cannot be allocated at all
		 * (nothing held) fails every push: counted once. */
		if (!r->st->reorder_oom)
			r->st->reorder_oom_at = r->heap.n;
		if (!r->st->reorder_oom || r->heap.n)
			r->st->reorder_oom++;
		while (r->heap.n) {
			heap_pop(&r->heap, &out);
			emit(r, &out);
		}
		if (behind(r, e->ts))
			return false;
		if (heap_push(&r->heap, e))
			emit(r, e);
	}
	if (r->heap.n > r->st->max_buffered)
		r->st->max_buffered = r->heap.n;
	if (e->ts > r->max_ts)
		r->max_ts = e->ts;
	while (r->heap.n && r->max_ts - r->heap.v[0].ts > r->window) {
		heap_pop(&r->heap, &out);
		emit(r, &out);
	}
	return true;
}

/* How far a record at @ts lags the newest timestamp before it, before a
 * late one is skipped or clamped: what a window must exceed. */
static void note_disorder(struct run *r, uint64_t ts)
{
	if (ts < r->max_ts && r->max_ts - ts > r->st->max_disorder_ns)
		r->st->max_disorder_ns = r->max_ts - ts;
}

/* Names and loss markers are never skipped as late: they are applied at
 * the earliest time still possible (loss markers: add_lost()). */
static void push_clamped(struct run *r, struct sc_event *e)
{
	/* Again if push() handed on newer ones for want of memory. */
	do {
		if (behind(r, e->ts))
			e->ts = r->last_out;
	} while (!push(r, e));
}

/* A loss marker (read at @offset): a late one is applied late, but one
 * that opens a hole is counted, since the hole began earlier than it can
 * be applied. */
static void add_lost(struct run *r, struct sc_event *e, size_t offset)
{
	struct sc_stats *st = r->st;

	note_disorder(r, e->ts);
	if (e->a && behind(r, e->ts)) {
		if (!st->late_holes)
			st->first_late_hole_offset = offset;
		st->late_holes++;
		if (r->last_out - e->ts > st->max_late_hole_ns)
			st->max_late_hole_ns = r->last_out - e->ts;
	}
	push_clamped(r, e);
}

/* The pending names take effect at @ts (they sort before the record that
 * has it: their seq is smaller). Names before the first timestamped record
 * (fxt-collect's, for the tasks alive when tracing started) describe the
 * start: they take effect at 0. */
static void flush_names(struct run *r, uint64_t ts)
{
	size_t i;

	if (!r->any_ts) {
		r->any_ts = true;
		ts = 0;
	}
	for (i = 0; i < r->npending; i++) {
		r->pending[i].ts = ts;
		push_clamped(r, &r->pending[i]);
	}
	r->npending = 0;
}

static void add_name(struct run *r, struct sc_event *e)
{
	if (r->npending == r->cap_pending) {
		size_t ncap = r->cap_pending ? r->cap_pending * 2 : 64;
		struct sc_event *n = realloc(r->pending, ncap * sizeof(*n));

		if (!n) {
			/* out of memory: the name applies now */
			e->ts = r->max_ts;
			push_clamped(r, e);
			return;
		}
		r->pending = n;
		r->cap_pending = ncap;
	}
	r->pending[r->npending++] = *e;
}

/* A scheduling record behind what was handed on: counted, skipped. */
static void skip_late(struct run *r, const struct sc_event *e, size_t offset)
{
	struct sc_stats *st = r->st;

	if (!st->late)
		st->first_late_offset = offset;
	st->late++;
	if (r->last_out - e->ts > st->max_late_ns)
		st->max_late_ns = r->last_out - e->ts;
}

/* A scheduling record; one that comes too late is counted and skipped. */
static void add_sched(struct run *r, struct sc_event *e, size_t offset)
{
	struct sc_stats *st = r->st;

	if (e->kind == SC_SWITCH)
		st->switches++;
	else
		st->wakeups++;
	note_disorder(r, e->ts);
	if (behind(r, e->ts) || !push(r, e))
		skip_late(r, e, offset);
}

/* One pass over @in. 0, or -1 with errno (out of memory). */
static int run_input(struct input *in, const struct sc_opts *opts,
		     const struct sc_handler *h, struct sc_stats *st)
{
	struct run r = {
		.h = h, .st = st,
		.window = opts && opts->reorder_window_ns ?
			  opts->reorder_window_ns : SC_DEFAULT_WINDOW_NS,
	};
	struct fxt_reader *rd;
	struct fxt_record *rec;
	struct sc_event e, out;
	size_t released = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	st->bytes = in->len;
	st->window_ns = r.window;
	rec = malloc(sizeof(*rec));
	rd = fxt_reader_new(in->buf, in->len, opts ? opts->read_flags : 0);
	if (!rd || !rec) {
		free(rec);
		fxt_reader_free(rd);
		errno = ENOMEM;
		return -1;
	}
	while ((ret = fxt_reader_next(rd, rec)) > 0) {
		uint64_t tps = fxt_reader_ticks_per_second(rd), ts;
		bool has_ts;

		st->records++;
		if (!rec->decoded) {
			st->skipped++;
			continue;
		}
		if (to_event(rec, tps, &e)) {
			flush_names(&r, e.ts);
			e.seq = r.seq++;
			add_sched(&r, &e, rec->offset);
		} else if (to_name(rec, &e)) {
			st->names++;
			e.seq = r.seq++;
			add_name(&r, &e);
		} else {
			ts = record_ts(rec, tps, &has_ts);
			if (has_ts)
				flush_names(&r, ts);
			if (h->record)
				h->record(h->ctx, rec, ts, tps);
			if (to_lost(rec, ts, &e)) {
				st->lost_markers++;
				e.seq = r.seq++;
				add_lost(&r, &e, rec->offset);
			}
		}
		release_behind(in, rec->offset, &released);
	}
	if (ret < 0) {
		st->malformed = true;
		st->error = *fxt_reader_error(rd);
	}
	flush_names(&r, r.max_ts);
	while (r.heap.n) {
		heap_pop(&r.heap, &out);
		emit(&r, &out);
	}
	free(r.heap.v);
	free(r.pending);
	free(rec);
	fxt_reader_free(rd);
	return 0;
}

void sc_print_input_notes(FILE *err, const char *prog, const char *path,
			  const struct sc_stats *st)
{
	char times[32];

	if (!st->switches && !st->wakeups && !st->malformed)
		fprintf(err, "%s: warning: %s: no context switch or wakeup records: a trace of something other than the scheduler, or fxt-collect stopped before any were written\n",
			prog, path);
	if (st->reorder_oom && !st->reorder_oom_at) {
		fprintf(err, "%s: warning: %s: out of memory for the reorder buffer: every record was handed on as read, in file order, so those out of order may be counted late below; the results are incomplete\n",
			prog, path);
	} else if (st->reorder_oom) {
		if (st->reorder_oom == 1)
			snprintf(times, sizeof(times), "once");
		else
			snprintf(times, sizeof(times), "%" PRIu64 " times",
				 st->reorder_oom);
		fprintf(err, "%s: warning: %s: out of memory holding %zu %s in the reorder buffer: what it held was handed on early (%s), so records after that may be counted late below; the results are incomplete (a smaller --reorder-window needs less memory)\n",
			prog, path, st->reorder_oom_at,
			sc_plural(st->reorder_oom_at, "record", "records"),
			times);
	}
	if (st->widened_from_ns)
		fprintf(err, "%s: note: %s: records up to %.9f s out of order, more than the %.9f s reorder window: read again with a window of %.9f s (memory grows with it; --reorder-window keeps a fixed one)\n",
			prog, path, (double)st->max_disorder_ns / 1e9,
			(double)st->widened_from_ns / 1e9,
			(double)st->window_ns / 1e9);
}

const char *sc_late_where(const struct sc_stats *st)
{
	return st->reorder_oom ? SC_OOM_LATE : "beyond the reorder window";
}

const char *sc_late_advice(char *buf, size_t len, const struct sc_stats *st,
			   const char *does_it)
{
	if (st->reorder_oom)
		snprintf(buf, len, "memory ran out (see above), not the window: a wider --reorder-window would need more of it");
	else
		snprintf(buf, len, "--reorder-window %" PRIu64 "ns or more, or none, %s",
			 st->max_disorder_ns + 1, does_it);
	return buf;
}

void sc_take_reorder_oom(struct sc_stats *st, const struct sc_stats *earlier)
{
	if (!st->reorder_oom) {
		st->reorder_oom = earlier->reorder_oom;
		st->reorder_oom_at = earlier->reorder_oom_at;
	}
}

int sc_run(const char *path, const struct sc_opts *opts,
	   const struct sc_handler *h, struct sc_stats *st)
{
	return sc_run_twice(path, opts, h, st, NULL, NULL, NULL, NULL);
}

int sc_run_twice(const char *path, const struct sc_opts *opts,
		 const struct sc_handler *first, struct sc_stats *st1,
		 bool (*between)(void *ctx), void *ctx,
		 const struct sc_handler *second, struct sc_stats *st2)
{
	struct input in;
	struct sc_opts wide;
	uint64_t from = 0;
	int ret, err;

	memset(st1, 0, sizeof(*st1));
	if (open_input(path, &in))
		return -1;
	ret = run_input(&in, opts, first, st1);
	/* (Not when memory ran out: a wider window needs more of it.) */
	if (!ret && opts && opts->widen && first->reset &&
	    !st1->reorder_oom && (st1->late || st1->late_holes)) {
		/* The same records in the same order: above the largest
		 * disorder nothing can be late this time. */
		wide = *opts;
		wide.reorder_window_ns = st1->max_disorder_ns < UINT64_MAX ?
					 st1->max_disorder_ns + 1 : UINT64_MAX;
		from = st1->window_ns;
		opts = &wide;
		first->reset(first->ctx);
		ret = run_input(&in, opts, first, st1);
		st1->widened_from_ns = from;
	}
	if (!ret && second && (!between || between(ctx))) {
		ret = run_input(&in, opts, second, st2);
		st2->widened_from_ns = from;
		sc_take_reorder_oom(st2, st1);
	}
	err = errno;
	close_input(&in);
	errno = err;
	return ret;
}
