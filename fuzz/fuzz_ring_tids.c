// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_ring_tids.c - the collector's record walker: the part of
 * ring_drain_names() that frames the drained bytes as FXT records, counts
 * them, reports every thread id (fxt-collect names those threads) and
 * every name record of the kernel; and name_order.c, which keeps the
 * newest of those names per koid.
 *
 * The input is raw ring content: whole-word FXT records as the kernel
 * writes them (see the seeds). It is placed in a ring of the next power of
 * two so that the window wraps around the end of the data area (and around
 * 2^64) in its middle, with a valid producer position: every execution
 * goes to the record walker, none is refused on its positions (that is
 * fuzz_ring_drain.c's job).
 *
 * Oracle: fxt_read.c, a separate decoder, reads the bytes the sink got.
 * For the records it decodes, the walker must have reported:
 *   - tids: the outgoing and incoming tids of each context switch, the
 *     woken tid of each wakeup and the value of every koid argument whose
 *     name is the string index FXTRACE_STR_WAKER, in record order, less
 *     tid 0 and those the ring's cache says were reported already: a
 *     direct-mapped cache of RING_TID_SLOTS slots (tid % RING_TID_SLOTS),
 *     modelled here on its own, which must also end up equal to the
 *     ring's tid_seen;
 *   - names: each process or thread kernel object whose name is empty or
 *     inline, at most RING_NAME_MAX bytes, without a NUL: its type, koid,
 *     name, the last "process" koid argument (threads), and after_ts, the
 *     timestamp (word 1) of the last scheduling or event record before it;
 *   - counts of switches, wakeups, names, loss markers (counter events
 *     "records_lost" in category "fxtrace", by string index) and others.
 * Where fxt_read stops at a malformed record (the walker only frames
 * records and copies them whole; fxt-dump --check names such a record),
 * what it read must be a prefix of what the walker reported.
 * The reported names then go through name_order_note() and
 * name_order_take_marked(), checked against a plain list of entries.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_target.h"
#include "fxt_read.h"
#include "name_order.h"
#include "ring_drain.h"

struct collected {
	uint8_t *bytes;
	size_t len, cap;
	uint64_t *tids;
	size_t ntids, cap_tids;
	struct ring_name *names;
	size_t nnames, cap_names;
};

static int sink_write(void *ctx, const void *buf, size_t len)
{
	struct collected *c = ctx;

	FUZZ_ASSERT(c->len + len <= c->cap, "more bytes than the window");
	memcpy(c->bytes + c->len, buf, len);
	c->len += len;
	return 0;
}

static void sink_tid(void *ctx, uint64_t tid)
{
	struct collected *c = ctx;

	/* A tid takes at least 8 bytes of window: this cannot overflow. */
	FUZZ_ASSERT(c->ntids < c->cap_tids, "more tids than the window can hold");
	c->tids[c->ntids++] = tid;
}

static void sink_name(void *ctx, const struct ring_name *n)
{
	struct collected *c = ctx;

	/* A name record is at least 2 words. */
	FUZZ_ASSERT(c->nnames < c->cap_names, "more names than the window can hold");
	FUZZ_ASSERT(n->len <= RING_NAME_MAX && n->name[n->len] == '\0' &&
		    !memchr(n->name, '\0', n->len), "name of %zu bytes", n->len);
	c->names[c->nnames++] = *n;
}

/* What fxt_read says the walker should have reported so far. */
struct expect {
	const struct collected *got;
	uint64_t tid_seen[RING_TID_SLOTS];	/* the cache, as ring_drain.h says */
	size_t tid_at, name_at;
	uint64_t switches, wakeups, names, loss_markers, other;
	uint64_t last_ts;
};

static void expect_tid(struct expect *e, uint64_t tid, size_t offset)
{
	const struct collected *g = e->got;
	uint64_t *slot = &e->tid_seen[tid % RING_TID_SLOTS];

	if (tid == 0 || *slot == tid)
		return;		/* not passed on */
	*slot = tid;

	FUZZ_ASSERT(e->tid_at < g->ntids && g->tids[e->tid_at] == tid,
		    "record at %zu: tid %llu expected as number %zu, walker reported %llu of %zu",
		    offset, (unsigned long long)tid, e->tid_at,
		    e->tid_at < g->ntids ? (unsigned long long)g->tids[e->tid_at] : 0ULL,
		    g->ntids);
	e->tid_at++;
}

static void expect_sched(struct expect *e, const struct fxt_record *rec)
{
	unsigned int i;

	if (!rec->decoded || rec->kind == FXT_SCHED_KIND_LEGACY_SWITCH) {
		e->other++;
		return;
	}
	if (rec->kind == FXT_SCHED_KIND_CONTEXT_SWITCH) {
		e->switches++;
		expect_tid(e, rec->context_switch.outgoing_tid, rec->offset);
		expect_tid(e, rec->context_switch.incoming_tid, rec->offset);
		return;
	}
	e->wakeups++;
	expect_tid(e, rec->wakeup.woken_tid, rec->offset);
	for (i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_ARG_KOID &&
		    rec->args[i].name.index == FXTRACE_STR_WAKER)
			expect_tid(e, rec->args[i].v.koid, rec->offset);
}

/* A kernel object record as the kernel writes names (uapi "Names"). */
static void expect_name(struct expect *e, const struct fxt_record *rec)
{
	const struct fxt_kernel_object *o = &rec->kobj;
	const struct ring_name *got;
	uint64_t process = 0;
	unsigned int i;

	if ((o->obj_type != FXT_OBJ_TYPE_PROCESS &&
	     o->obj_type != FXT_OBJ_TYPE_THREAD) ||
	    o->name.index || !o->name.text || o->name.len > RING_NAME_MAX ||
	    memchr(o->name.text, '\0', o->name.len)) {
		e->other++;
		return;
	}
	for (i = 0; i < rec->nargs && o->obj_type == FXT_OBJ_TYPE_THREAD; i++)
		if (rec->args[i].type == FXT_ARG_KOID &&
		    rec->args[i].name.index == FXTRACE_STR_PROCESS)
			process = rec->args[i].v.koid;
	FUZZ_ASSERT(e->name_at < e->got->nnames,
		    "record at %zu: name not reported", rec->offset);
	got = &e->got->names[e->name_at++];
	FUZZ_ASSERT(got->obj_type == o->obj_type && got->koid == o->koid &&
		    got->process == process && got->after_ts == e->last_ts &&
		    got->len == o->name.len &&
		    !memcmp(got->name, o->name.text, o->name.len),
		    "record at %zu: name reported as type %u koid %llu process %llu after %llu",
		    rec->offset, got->obj_type, (unsigned long long)got->koid,
		    (unsigned long long)got->process,
		    (unsigned long long)got->after_ts);
	e->names++;
}

static void expect_record(struct expect *e, const struct fxt_record *rec)
{
	uint64_t h = rec->header;

	switch (rec->type) {
	case FXT_RECORD_SCHEDULING:
		expect_sched(e, rec);
		break;
	case FXT_RECORD_EVENT:
		if ((h >> FXT_EVENT_TYPE_SHIFT & 0xf) == FXT_EVENT_COUNTER &&
		    (h >> FXT_EVENT_CATEGORY_SHIFT & 0xffff) == FXTRACE_STR_FXTRACE &&
		    (h >> FXT_EVENT_NAME_SHIFT & 0xffff) == FXTRACE_STR_RECORDS_LOST)
			e->loss_markers++;
		else
			e->other++;
		break;
	case FXT_RECORD_KERNEL_OBJECT:
		expect_name(e, rec);
		return;
	default:
		e->other++;
		return;
	}
	if (rec->size >= 16)
		memcpy(&e->last_ts, rec->data + 8, 8);
}

/* ---- name_order against a list ------------------------------------------ */

struct model_entry {
	struct ring_name n;
	bool marked, seen;
};

struct marked_walk {
	struct model_entry *m;
	size_t nm;
	unsigned int obj_type;
	size_t visited;
};

static struct model_entry *model_find(struct model_entry *m, size_t nm,
				      unsigned int obj_type, uint64_t koid)
{
	size_t i;

	for (i = 0; i < nm; i++)
		if (m[i].n.obj_type == obj_type && m[i].n.koid == koid)
			return &m[i];
	return NULL;
}

static int visit_marked(void *ctx, const struct name_entry *ne)
{
	struct marked_walk *w = ctx;
	struct model_entry *me = model_find(w->m, w->nm, ne->obj_type, ne->koid);

	FUZZ_ASSERT(ne->obj_type == w->obj_type, "type %u in a walk of type %u",
		    ne->obj_type, w->obj_type);
	FUZZ_ASSERT(me && me->marked && !me->seen && !ne->marked,
		    "koid %llu visited: unknown, not marked, twice or still marked",
		    (unsigned long long)ne->koid);
	FUZZ_ASSERT(ne->after_ts == me->n.after_ts && ne->process == me->n.process &&
		    !strcmp(ne->name, me->n.name),
		    "koid %llu: kept name is not the newest", (unsigned long long)ne->koid);
	me->seen = true;
	w->visited++;
	return 0;
}

static void check_name_order(const struct collected *got)
{
	struct model_entry *m = calloc(got->nnames + 1, sizeof(*m));
	struct marked_walk w = { m, 0, 0, 0 };
	struct name_order no;
	struct model_entry *me;
	const struct ring_name *n;
	size_t i, nmarked = 0;
	int ret;
	unsigned int type;

	FUZZ_ASSERT(m, "out of memory");
	name_order_init(&no);
	for (i = 0; i < got->nnames; i++) {
		n = &got->names[i];
		ret = name_order_note(&no, n);
		me = model_find(m, w.nm, n->obj_type, n->koid);
		if (me && n->after_ts < me->n.after_ts) {
			FUZZ_ASSERT(ret == 1, "stale name (after %llu < %llu) returned %d",
				    (unsigned long long)n->after_ts,
				    (unsigned long long)me->n.after_ts, ret);
			me->marked = true;
			continue;
		}
		FUZZ_ASSERT(ret == 0, "newest name returned %d", ret);
		if (!me)
			me = &m[w.nm++];
		me->n = *n;
		me->marked = false;
	}
	for (i = 0; i < w.nm; i++)
		nmarked += m[i].marked;
	FUZZ_ASSERT(no.count == w.nm && no.marked == nmarked,
		    "%zu entries, %zu marked; expected %zu, %zu",
		    no.count, no.marked, w.nm, nmarked);
	for (type = FXT_OBJ_TYPE_PROCESS; ; type = FXT_OBJ_TYPE_THREAD) {
		w.obj_type = type;
		FUZZ_ASSERT(name_order_take_marked(&no, type, visit_marked, &w) == 0,
			    "take_marked failed");
		if (type == FXT_OBJ_TYPE_THREAD)
			break;
	}
	FUZZ_ASSERT(w.visited == nmarked && no.marked == 0,
		    "visited %zu of %zu marked, %zu still marked",
		    w.visited, nmarked, no.marked);
	name_order_free(&no);
	free(m);
}

/* ---- the target ---------------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 8;

	while (p < n)
		p *= 2;
	return p;
}

static void check_counts(const struct expect *e, const struct ring *ring,
			 bool whole)
{
	if (whole) {
		FUZZ_ASSERT(e->tid_at == e->got->ntids && e->name_at == e->got->nnames,
			    "walker reported %zu tids and %zu names, fxt_read found %zu and %zu",
			    e->got->ntids, e->got->nnames, e->tid_at, e->name_at);
		FUZZ_ASSERT(e->switches == ring->switches && e->wakeups == ring->wakeups &&
			    e->names == ring->names &&
			    e->loss_markers == ring->loss_markers &&
			    e->other == ring->other_records,
			    "counts switch/wakeup/name/loss/other: walker %llu/%llu/%llu/%llu/%llu, fxt_read %llu/%llu/%llu/%llu/%llu",
			    (unsigned long long)ring->switches,
			    (unsigned long long)ring->wakeups,
			    (unsigned long long)ring->names,
			    (unsigned long long)ring->loss_markers,
			    (unsigned long long)ring->other_records,
			    (unsigned long long)e->switches,
			    (unsigned long long)e->wakeups,
			    (unsigned long long)e->names,
			    (unsigned long long)e->loss_markers,
			    (unsigned long long)e->other);
		return;
	}
	FUZZ_ASSERT(e->switches <= ring->switches && e->wakeups <= ring->wakeups &&
		    e->names <= ring->names && e->loss_markers <= ring->loss_markers,
		    "fxt_read decoded more records of a kind than the walker counted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size & ~(size_t)7;
	uint64_t ring_size = pow2_at_least(len), start, i;
	struct fxtrace_ctrl ctrl;
	struct ring ring;
	struct collected got = { 0 };
	struct ring_sink sink = { sink_write, sink_tid, &got };
	struct ring_drain_result res;
	struct expect e = { .got = &got };
	struct fxt_reader *r;
	struct fxt_record rec;
	uint8_t *area;
	int ret;

	/*
	 * Start half a window before the end of the area, which is also half
	 * a window before 2^64: the window wraps both the data area and the
	 * free-running positions at the same byte.
	 */
	start = (uint64_t)0 - ((len / 2) & ~(size_t)7);
	area = malloc(ring_size);
	got.cap = len;
	got.bytes = malloc(len ? len : 1);
	got.cap_tids = len / 8 + 1;
	got.tids = malloc(got.cap_tids * sizeof(*got.tids));
	got.cap_names = len / 16 + 1;
	got.names = malloc(got.cap_names * sizeof(*got.names));
	FUZZ_ASSERT(area && got.bytes && got.tids && got.names, "out of memory");
	memset(area, 0, ring_size);
	for (i = 0; i < len; i++)
		area[(start + i) & (ring_size - 1)] = data[i];

	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.consumer_pos = start;
	ctrl.producer_pos = start + len;
	FUZZ_ASSERT(ring_init(&ring, &ctrl, area, ring_size) == 0, "ring_init");
	FUZZ_ASSERT(ring_drain_names(&ring, &sink, sink_name, &res) == 0,
		    "ring_drain_names failed");
	FUZZ_ASSERT(res.status != RING_DRAIN_BAD_PRODUCER, "valid window refused");
	FUZZ_ASSERT(got.len == res.bytes && !memcmp(got.bytes, data, got.len),
		    "the sink did not get the window's first %llu bytes",
		    (unsigned long long)res.bytes);

	r = fxt_reader_new(got.bytes, got.len, 0);
	FUZZ_ASSERT(r, "fxt_reader_new failed");
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		expect_record(&e, &rec);
	check_counts(&e, &ring, ret == 0);
	if (ret == 0) {
		FUZZ_ASSERT(ring.last_ts == e.last_ts, "last_ts %llu, expected %llu",
			    (unsigned long long)ring.last_ts,
			    (unsigned long long)e.last_ts);
		FUZZ_ASSERT(!memcmp(ring.tid_seen, e.tid_seen, sizeof(e.tid_seen)),
			    "the ring's tid cache differs from the model");
	}
	fxt_reader_free(r);
	check_name_order(&got);
	free(area);
	free(got.bytes);
	free(got.tids);
	free(got.names);
	return 0;
}
