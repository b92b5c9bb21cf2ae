/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched_core.h"

uint64_t sc_ticks_to_ns(uint64_t ticks, uint64_t tps)
{
	if (tps == 1000000000ULL || tps == 0)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / tps);
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

static uint64_t record_ts(const struct fxt_record *rec, uint64_t tps)
{
	switch (rec->type) {
	case FXT_RECORD_EVENT:
		return sc_ticks_to_ns(rec->event.timestamp, tps);
	case FXT_RECORD_LOG:
		return sc_ticks_to_ns(rec->log.timestamp, tps);
	default:
		return 0;
	}
}

struct input {
	const uint8_t *buf;
	size_t len;
	bool mapped;
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
		in->len = (size_t)sb.st_size;
		if (in->len == 0) {
			in->buf = (const uint8_t *)"";
		} else {
			void *p = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE, fd, 0);

			if (p == MAP_FAILED)
				goto fail;
			madvise(p, in->len, MADV_SEQUENTIAL);
			in->buf = p;
			in->mapped = true;
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
	if (in->mapped)
		munmap((void *)in->buf, in->len);
	else if (in->len)
		free((void *)in->buf);
}

/* Give back the pages of a mapped file behind the reader (they are file
 * backed and read-only: touching them again just reads them back), so the
 * resident set does not grow with the file. */
#define RELEASE_STEP	(16u << 20)

static void release_behind(struct input *in, size_t upto, size_t *released)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t end;

	if (!in->mapped || upto < *released + RELEASE_STEP)
		return;
	end = upto & ~((size_t)pg - 1);
	madvise((void *)(in->buf + *released), end - *released, MADV_DONTNEED);
	*released = end;
}

int sc_run(const char *path, const struct sc_opts *opts,
	   const struct sc_handler *h, struct sc_stats *st)
{
	uint64_t window = opts && opts->reorder_window_ns ?
			  opts->reorder_window_ns : SC_DEFAULT_WINDOW_NS;
	struct heap heap = { 0 };
	struct fxt_reader *r;
	struct fxt_record *rec;
	struct input in;
	struct sc_event e, out;
	uint64_t max_ts = 0, last_out = 0, seq = 0;
	bool any_out = false;
	size_t released = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	if (open_input(path, &in))
		return -1;
	st->bytes = in.len;
	rec = malloc(sizeof(*rec));
	r = fxt_reader_new(in.buf, in.len, 0);
	if (!r || !rec) {
		free(rec);
		fxt_reader_free(r);
		close_input(&in);
		errno = ENOMEM;
		return -1;
	}
	while ((ret = fxt_reader_next(r, rec)) > 0) {
		uint64_t tps = fxt_reader_ticks_per_second(r);

		st->records++;
		if (!rec->decoded) {
			st->skipped++;
			continue;
		}
		if (!to_event(rec, tps, &e)) {
			if (h->record)
				h->record(h->ctx, rec, record_ts(rec, tps));
			continue;
		}
		if (e.kind == SC_SWITCH)
			st->switches++;
		else
			st->wakeups++;
		if (any_out && e.ts < last_out) {
			if (!st->late)
				st->first_late_offset = rec->offset;
			st->late++;
			if (last_out - e.ts > st->max_late_ns)
				st->max_late_ns = last_out - e.ts;
			continue;
		}
		e.seq = seq++;
		if (heap_push(&heap, &e)) {
			/* out of memory: hand on what we have, in order */
			while (heap.n) {
				heap_pop(&heap, &out);
				h->sched(h->ctx, &out);
				last_out = out.ts;
				any_out = true;
			}
			if (heap_push(&heap, &e))
				h->sched(h->ctx, &e);
		}
		if (heap.n > st->max_buffered)
			st->max_buffered = heap.n;
		if (e.ts > max_ts)
			max_ts = e.ts;
		while (heap.n && max_ts - heap.v[0].ts > window) {
			heap_pop(&heap, &out);
			h->sched(h->ctx, &out);
			last_out = out.ts;
			any_out = true;
		}
		release_behind(&in, rec->offset, &released);
	}
	if (ret < 0) {
		st->malformed = true;
		st->error = *fxt_reader_error(r);
	}
	while (heap.n) {
		heap_pop(&heap, &out);
		h->sched(h->ctx, &out);
	}
	free(heap.v);
	free(rec);
	fxt_reader_free(r);
	close_input(&in);
	return 0;
}
