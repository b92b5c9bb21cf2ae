// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ring_drain.c - drain one fxtrace ring (see ring_drain.h and the protocol
 * comment in <linux/fxtrace.h>).
 *
 * Positions are free-running 64-bit byte counts and are only ever compared
 * by subtraction, so the wrap of the 64-bit counter itself is harmless.
 * Every read of the data area goes through ring_word(), which masks the
 * position into the area: nothing the kernel publishes can make us read
 * outside the mapping.
 */
#include <errno.h>
#include <string.h>

#include "fxt_types.h"
#include "ring_drain.h"

int ring_init(struct ring *ring, struct fxtrace_ctrl *ctrl, const void *data,
	      uint64_t size)
{
	if (size < 8 || (size & (size - 1)))
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->ctrl = ctrl;
	ring->data = data;
	ring->size = size;
	/* Only we write consumer_pos; start where the last consumer stopped. */
	ring->tail = __atomic_load_n(&ctrl->consumer_pos, __ATOMIC_RELAXED);
	return 0;
}

uint64_t ring_pending(const struct ring *ring)
{
	return __atomic_load_n(&ring->ctrl->producer_pos, __ATOMIC_ACQUIRE) -
	       ring->tail;
}

/* The 8-byte word at position @pos (a multiple of 8). */
static uint64_t ring_word(const struct ring *ring, uint64_t pos)
{
	uint64_t w;

	memcpy(&w, ring->data + (pos & (ring->size - 1)), sizeof(w));
	return w;
}

/*
 * Per-drain record counts and the running last_ts, added to the ring's
 * state only once the records are copied (a failed write rescans them).
 */
struct scan {
	uint64_t switches;
	uint64_t wakeups;
	uint64_t names;
	uint64_t loss_markers;
	uint64_t other;
	uint64_t last_ts;
	ring_name_fn name;	/* may be NULL */
};

static void report_tid(const struct ring_sink *sink, uint64_t tid)
{
	if (sink->tid)
		sink->tid(sink->ctx, tid);
}

/*
 * A wakeup's "waker" koid argument, if present. Arguments that do not fit
 * the record end the search: the frame is still whole, so the record is
 * copied, and fxt-dump --check will name the problem.
 */
static void scan_waker(const struct ring *ring, uint64_t rec, uint64_t words,
		       const struct ring_sink *sink)
{
	uint64_t h = ring_word(ring, rec);
	unsigned int nargs = h >> FXT_SCHED_ARGC_SHIFT & 0xf;
	uint64_t at = 3;	/* header, timestamp, woken tid */
	uint64_t ah, asize;

	while (nargs-- && at < words) {
		ah = ring_word(ring, rec + 8 * at);
		asize = ah >> FXT_ARG_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		if (asize == 0 || asize > words - at)
			return;
		if ((ah & 0xf) == FXT_ARG_KOID && asize >= 2 &&
		    (ah >> FXT_ARG_NAME_SHIFT & 0xffff) == FXTRACE_STR_WAKER)
			report_tid(sink, ring_word(ring, rec + 8 * (at + 1)));
		at += asize;
	}
}

/*
 * Why the names carry after_ts.
 *
 * Kernel object records have no timestamp, and a reader applies names per
 * koid in file order, last wins. Within one ring, file order is time order.
 * Across rings it is not: every drain cycle copies CPU 0's ring, then CPU
 * 1's, ..., so a thread forked on CPU 1 (record: the inherited name) that
 * renames itself on CPU 0 lands in the file rename first, fork second, and
 * the stale name wins.
 *
 * A record's true time lies after the timestamped record before it in the
 * same ring (the probes write records in the order they run on that CPU),
 * so that timestamp, after_ts, is a lower bound of when the name was given.
 * It is enough to order the names that matter. Fork on CPU A, rename by the
 * new thread on CPU B:
 *   fork.after_ts <= fork time < wakeup_new timestamp (ring A, written
 *   after the fork record) < the child's first switch-in, on B (it cannot
 *   run before it is woken) <= rename.after_ts (that switch-in, or a later
 *   record of ring B, precedes the rename record in ring B).
 * So the newer name has the larger after_ts; name_order.c keeps, per koid,
 * the name with the largest one and has it written again when an older
 * name came later in the file. Equal after_ts: file order decides, which
 * is right within one ring.
 */

/*
 * A kernel object record naming a process or a thread, as the kernel
 * writes it (uapi "Names"): header, koid, inline name of at most
 * RING_NAME_MAX bytes zero-padded to a word, then arguments (a thread's
 * koid "process"). Return false for anything else, or anything that does
 * not fit: such a record is still copied, just not reported.
 */
static bool parse_name(const struct ring *ring, uint64_t rec, uint64_t h,
		       uint64_t words, struct ring_name *n)
{
	unsigned int ref = h >> FXT_KOBJ_NAME_SHIFT & 0xffff;
	unsigned int nargs = h >> FXT_KOBJ_ARGC_SHIFT & 0xf;
	uint64_t nwords, at, ah, asize, w;

	memset(n, 0, sizeof(*n));
	n->obj_type = h >> FXT_KOBJ_TYPE_SHIFT & 0xff;
	if (n->obj_type != FXT_OBJ_TYPE_PROCESS &&
	    n->obj_type != FXT_OBJ_TYPE_THREAD)
		return false;
	if (ref && !(ref & FXT_STRING_REF_INLINE))
		return false;	/* a string-table index: not the kernel's */
	n->len = ref & ~FXT_STRING_REF_INLINE;
	nwords = (n->len + 7) / 8;
	if (n->len > RING_NAME_MAX || words < 2 + nwords)
		return false;
	n->koid = ring_word(ring, rec + 8);
	for (at = 0; at < nwords; at++) {
		w = ring_word(ring, rec + 8 * (2 + at));
		memcpy(n->name + 8 * at, &w, 8);
	}
	n->name[n->len] = '\0';
	if (memchr(n->name, '\0', n->len))
		return false;
	for (at = 2 + nwords; nargs--; at += asize) {
		if (at >= words)
			return false;
		ah = ring_word(ring, rec + 8 * at);
		asize = ah >> FXT_ARG_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		if (asize == 0 || asize > words - at)
			return false;
		if (n->obj_type == FXT_OBJ_TYPE_THREAD &&
		    (ah & 0xf) == FXT_ARG_KOID && asize >= 2 &&
		    (ah >> FXT_ARG_NAME_SHIFT & 0xffff) == FXTRACE_STR_PROCESS)
			n->process = ring_word(ring, rec + 8 * (at + 1));
	}
	return true;
}

static void scan_name(const struct ring *ring, uint64_t rec, uint64_t h,
		      uint64_t words, const struct ring_sink *sink,
		      struct scan *scan)
{
	struct ring_name n;

	if (!parse_name(ring, rec, h, words, &n)) {
		scan->other++;
		return;
	}
	scan->names++;
	n.after_ts = scan->last_ts;
	if (scan->name)
		scan->name(sink->ctx, &n);
}

/* The kernel's loss markers: counter "records_lost", category "fxtrace". */
static bool is_loss_marker(uint64_t h)
{
	return (h >> FXT_EVENT_TYPE_SHIFT & 0xf) == FXT_EVENT_COUNTER &&
	       (h >> FXT_EVENT_CATEGORY_SHIFT & 0xffff) == FXTRACE_STR_FXTRACE &&
	       (h >> FXT_EVENT_NAME_SHIFT & 0xffff) == FXTRACE_STR_RECORDS_LOST;
}

static void scan_sched(const struct ring *ring, uint64_t rec, uint64_t h,
		       uint64_t words, const struct ring_sink *sink,
		       struct scan *scan)
{
	unsigned int kind = h >> FXT_SCHED_KIND_SHIFT & 0xf;

	if (kind == FXT_SCHED_KIND_CONTEXT_SWITCH && words >= 4) {
		scan->switches++;
		report_tid(sink, ring_word(ring, rec + 16));
		report_tid(sink, ring_word(ring, rec + 24));
	} else if (kind == FXT_SCHED_KIND_WAKEUP && words >= 3) {
		scan->wakeups++;
		report_tid(sink, ring_word(ring, rec + 16));
		scan_waker(ring, rec, words, sink);
	} else {
		scan->other++;
	}
}

/* Count one whole record at @rec and report the thread ids and names in it. */
static void scan_record(const struct ring *ring, uint64_t rec, uint64_t h,
			uint64_t words, const struct ring_sink *sink,
			struct scan *scan)
{
	switch (h & 0xf) {
	case FXT_RECORD_SCHEDULING:
		scan_sched(ring, rec, h, words, sink, scan);
		break;
	case FXT_RECORD_EVENT:
		if (is_loss_marker(h))
			scan->loss_markers++;
		else
			scan->other++;
		break;
	case FXT_RECORD_KERNEL_OBJECT:
		scan_name(ring, rec, h, words, sink, scan);
		return;		/* no timestamp */
	default:
		scan->other++;
		return;
	}
	/* Scheduling and event records: word 1 is the timestamp. */
	if (words >= 2)
		scan->last_ts = ring_word(ring, rec + 8);
}

/*
 * Walk the records in [tail, head). Return the end of the last whole
 * record: head when every record is well formed.
 */
static uint64_t scan_window(const struct ring *ring, uint64_t tail,
			    uint64_t head, const struct ring_sink *sink,
			    struct scan *scan)
{
	uint64_t pos = tail, h, words;
	unsigned int type;

	while (pos != head) {
		h = ring_word(ring, pos);
		type = h & 0xf;
		words = h >> FXT_HDR_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		/*
		 * Metadata records belong to the trace manager (us), and
		 * large records have a different size field: neither may
		 * come from the kernel.
		 */
		if (words == 0 || words * 8 > head - pos ||
		    type == FXT_RECORD_METADATA || type == FXT_RECORD_LARGE)
			break;
		scan_record(ring, pos, h, words, sink, scan);
		pos += words * 8;
	}
	return pos;
}

/* Hand [from, to) to the sink: one chunk, or two if it wraps the area. */
static int copy_out(struct ring *ring, uint64_t from, uint64_t to,
		    const struct ring_sink *sink, struct ring_drain_result *res)
{
	uint64_t len = to - from;
	uint64_t off = from & (ring->size - 1);
	uint64_t first = len < ring->size - off ? len : ring->size - off;
	int err;

	if (!len)
		return 0;
	err = sink->write(sink->ctx, ring->data + off, (size_t)first);
	if (err)
		return err;
	res->chunks++;
	if (len > first) {
		err = sink->write(sink->ctx, ring->data, (size_t)(len - first));
		if (err)
			return err;
		res->chunks++;
	}
	res->bytes = len;
	return 0;
}

static void publish_consumer(struct ring *ring, uint64_t pos)
{
	ring->tail = pos;
	/* (D), pairs with (B): we are done reading every byte below pos. */
	__atomic_store_n(&ring->ctrl->consumer_pos, pos, __ATOMIC_RELEASE);
}

int ring_drain(struct ring *ring, const struct ring_sink *sink,
	       struct ring_drain_result *res)
{
	return ring_drain_names(ring, sink, NULL, res);
}

int ring_drain_names(struct ring *ring, const struct ring_sink *sink,
		     ring_name_fn name, struct ring_drain_result *res)
{
	struct ring_drain_result local;
	struct scan scan = { .last_ts = ring->last_ts, .name = name };
	uint64_t head, tail = ring->tail, avail, good;
	int err;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	/* (C), pairs with (A): the bytes below head are written before we look. */
	head = __atomic_load_n(&ring->ctrl->producer_pos, __ATOMIC_ACQUIRE);
	avail = head - tail;
	if (avail == 0)
		return 0;
	if (avail > ring->size || (avail & 7) || (head & 7)) {
		/* Nothing in there can be trusted; resynchronise. */
		res->status = RING_DRAIN_BAD_PRODUCER;
		ring->bad_producer++;
		publish_consumer(ring, head);
		return 0;
	}
	good = scan_window(ring, tail, head, sink, &scan);
	err = copy_out(ring, tail, good, sink, res);
	if (err)
		return err;
	if (good != head) {
		res->status = RING_DRAIN_CORRUPT;
		ring->corrupt++;
		ring->bytes_skipped += head - good;
	}
	ring->bytes += res->bytes;
	ring->switches += scan.switches;
	ring->wakeups += scan.wakeups;
	ring->names += scan.names;
	ring->loss_markers += scan.loss_markers;
	ring->other_records += scan.other;
	ring->last_ts = scan.last_ts;
	publish_consumer(ring, head);
	return 0;
}
