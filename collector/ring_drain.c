// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ring_drain.c - drain one fxtrace ring (see ring_drain.h and the protocol
 * comment in <linux/fxtrace.h>).
 *
 * Positions are free-running 64-bit byte counts and are only ever compared
 * by subtraction, so the wrap of the 64-bit counter itself is harmless.
 * Reads of the data area stay inside the window [tail, head), once that is
 * known to be at most the area's size, and each position is masked into
 * the area before use: nothing the kernel publishes can make us read
 * outside the mapping.
 *
 * The walk is the collector's per-record cost (docs/performance.md), so it
 * reads records in place and keeps the common path free of calls: see
 * scan_window().
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
	ring->read_to = ring->tail;
	ring->read_from = ring->tail;
	ring->dropped_base = __atomic_load_n(&ctrl->records_dropped,
					     __ATOMIC_RELAXED);
	ring->consumer_errors = __atomic_load_n(&ctrl->consumer_errors,
						__ATOMIC_RELAXED);
	return 0;
}

uint64_t ring_unmarked_loss(const struct ring *ring)
{
	uint64_t dropped = __atomic_load_n(&ring->ctrl->records_dropped,
					   __ATOMIC_RELAXED) - ring->dropped_base;

	/* Compared by subtraction: the counter comes from the kernel. */
	if ((int64_t)(dropped - ring->lost_marked) <= 0)
		return 0;
	return dropped - ring->lost_marked;
}

uint64_t ring_pending(const struct ring *ring)
{
	return __atomic_load_n(&ring->ctrl->producer_pos, __ATOMIC_ACQUIRE) -
	       ring->tail;
}

/* The 8-byte word at @p: records are word-aligned, but say so to no one. */
static inline uint64_t word_at(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/*
 * One walk: per-drain record counts and the running last_ts, added to the
 * ring's state only once the records are copied (a failed write rescans
 * them), and where the walk reports. A local of scan_window() whose address
 * never leaves it, so the compiler may keep it in registers: the rare paths
 * (names, tids not in the cache) get what they need as arguments.
 */
struct scan {
	uint64_t switches;
	uint64_t wakeups;
	uint64_t names;
	uint64_t loss_markers;
	uint64_t lost_marked;
	uint64_t other;
	uint64_t last_ts;
	uint64_t *tid_seen;	/* struct ring's, RING_TID_SLOTS */
	const struct ring_sink *sink;
	ring_name_fn name;	/* may be NULL */
};

/* A tid not in its slot: remember it there, and pass it on (ring_drain.h). */
static __attribute__((noinline)) void new_tid(uint64_t *tid_seen,
					      const struct ring_sink *sink,
					      uint64_t tid)
{
	if (tid == 0)
		return;		/* the idle tasks, never named */
	tid_seen[tid % RING_TID_SLOTS] = tid;
	if (sink->tid)
		sink->tid(sink->ctx, tid);
}

static inline void see_tid(uint64_t *tid_seen, const struct ring_sink *sink,
			   uint64_t tid)
{
	if (__builtin_expect(tid_seen[tid % RING_TID_SLOTS] != tid, 0))
		new_tid(tid_seen, sink, tid);
}

/*
 * Where in @rec (a record of @words words) the next of its arguments, from
 * word *@at on and at most *@nargs of them, of type @type and name @name
 * is, with two words or more (exactly @size if @size is not 0): the word
 * index of its header, its value in the word after. 0 if there is none, or
 * an argument before it does not fit the record. *@at and *@nargs are left
 * after the argument found, so that a second call finds the one after it.
 */
static inline uint64_t find_arg(const uint8_t *rec, uint64_t words,
				uint64_t *at, unsigned int *nargs,
				unsigned int type, unsigned int name,
				uint64_t size)
{
	uint64_t ah, asize, found;

	while (*nargs && *at < words) {
		ah = word_at(rec + 8 * *at);
		asize = ah >> FXT_ARG_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		if (asize == 0 || asize > words - *at)
			return 0;
		found = *at;
		*at += asize;
		--*nargs;
		if ((ah & 0xf) == type && asize >= 2 && (!size || asize == size) &&
		    (ah >> FXT_ARG_NAME_SHIFT & 0xffff) == name)
			return found;
	}
	return 0;
}

/*
 * A wakeup's "waker" koid arguments (name by string index
 * FXTRACE_STR_WAKER), for any layout of the arguments (scan_record()
 * reads the kernel's own layout inline). The kernel writes one. A record
 * with more has every one reported: fxt-sched and fxt-dump take the first
 * argument named "waker", but another reader may take another, and a name
 * too many costs a record in the file. Arguments that do not fit the
 * record end the search: the frame is still whole, so the record is
 * copied, and fxt-dump --check will name the problem.
 */
static __attribute__((noinline)) void scan_waker(const uint8_t *rec,
						 uint64_t h, uint64_t words,
						 uint64_t *tid_seen,
						 const struct ring_sink *sink)
{
	/* After the header, the timestamp and the woken tid. */
	uint64_t at = 3, found;
	unsigned int nargs = h >> FXT_SCHED_ARGC_SHIFT & 0xf;

	while ((found = find_arg(rec, words, &at, &nargs, FXT_ARG_KOID,
				 FXTRACE_STR_WAKER, 0)))
		see_tid(tid_seen, sink, word_at(rec + 8 * (found + 1)));
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
 *
 * Known limit: a tid reused within one drain cycle, across rings. A fork
 * record's after_ts is the forking task's previous record on its CPU,
 * which can be long before the fork (a task that runs without switching
 * or waking anyone writes nothing). Incarnation 1 of tid T renames itself
 * on CPU B (after_ts 250) and dies; incarnation 2 is forked on CPU A by a
 * task switched in at 100, its name record followed by its wakeup_new at
 * 500. After_ts says 100 < 250: the dead incarnation's name is kept as
 * the newest and, ring B being copied after ring A, is the last in the
 * file until the trailer names T again from /proc (if it still runs).
 * The timestamp of the next record in the same ring (an upper bound: for
 * a fork its wakeup_new, for a task's own rename or exec at the latest its
 * next switch-out there) would order this case and the fork/rename one
 * above; it is not used because that record may be in the next drain
 * (the name's report, and so fxt-collect's /proc fallback, would have to
 * wait for it) and finding it costs the walk a check on every record.
 */

/*
 * A kernel object record naming a process or a thread, as the kernel
 * writes it (uapi "Names"): header, koid, inline name of at most
 * RING_NAME_MAX bytes zero-padded to a word, then arguments (a thread's
 * koid "process"). Return false for anything else, or anything that does
 * not fit: such a record is still copied, just not reported.
 */
static bool parse_name(const uint8_t *rec, uint64_t h, uint64_t words,
		       struct ring_name *n)
{
	unsigned int ref = h >> FXT_KOBJ_NAME_SHIFT & 0xffff;
	unsigned int nargs = h >> FXT_KOBJ_ARGC_SHIFT & 0xf;
	uint64_t nwords, at, ah, asize;

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
	n->koid = word_at(rec + 8);
	memcpy(n->name, rec + 16, 8 * nwords);
	n->name[n->len] = '\0';
	if (memchr(n->name, '\0', n->len))
		return false;
	for (at = 2 + nwords; nargs--; at += asize) {
		if (at >= words)
			return false;
		ah = word_at(rec + 8 * at);
		asize = ah >> FXT_ARG_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		if (asize == 0 || asize > words - at)
			return false;
		if (n->obj_type == FXT_OBJ_TYPE_THREAD &&
		    (ah & 0xf) == FXT_ARG_KOID && asize >= 2 &&
		    (ah >> FXT_ARG_NAME_SHIFT & 0xffff) == FXTRACE_STR_PROCESS)
			n->process = word_at(rec + 8 * (at + 1));
	}
	return true;
}

/* Report a name record; return whether it was one (else: other record). */
static __attribute__((noinline)) bool scan_name(const uint8_t *rec, uint64_t h,
						uint64_t words, uint64_t last_ts,
						const struct ring_sink *sink,
						ring_name_fn name)
{
	struct ring_name n;

	if (!parse_name(rec, h, words, &n))
		return false;
	n.after_ts = last_ts;
	if (name)
		name(sink->ctx, &n);
	return true;
}

/* The kernel's loss markers: counter "records_lost", category "fxtrace". */
static bool is_loss_marker(uint64_t h)
{
	return (h >> FXT_EVENT_TYPE_SHIFT & 0xf) == FXT_EVENT_COUNTER &&
	       (h >> FXT_EVENT_CATEGORY_SHIFT & 0xffff) == FXTRACE_STR_FXTRACE &&
	       (h >> FXT_EVENT_NAME_SHIFT & 0xffff) == FXTRACE_STR_RECORDS_LOST;
}

/*
 * The records a loss marker says were lost: its int64 argument "cpu"
 * (uapi "Loss markers"), for any layout of the arguments; 0 for the marker
 * that ends a hole, and for one without that argument or with one that
 * does not fit the record (it is copied, but accounts for no record, so
 * the loss is marked again at the end: see ring_unmarked_loss()).
 */
static __attribute__((noinline)) uint64_t marker_lost(const uint8_t *rec,
						      uint64_t h,
						      uint64_t words)
{
	/* After the header and timestamp, an inline thread's pid and tid. */
	uint64_t at = (h >> FXT_EVENT_THREAD_SHIFT & 0xff) ? 2 : 4;
	unsigned int nargs = h >> FXT_EVENT_ARGC_SHIFT & 0xf;
	uint64_t found = find_arg(rec, words, &at, &nargs, FXT_ARG_INT64,
				  FXTRACE_STR_CPU, 2);
	uint64_t value = found ? word_at(rec + 8 * (found + 1)) : 0;

	return (int64_t)value > 0 ? value : 0;
}

/*
 * The exact headers of the records the kernel writes all the time
 * (uapi "Records"): record type, size, argument count and kind. A header
 * masked with SHAPE_MASK equal to one of these is that record, whatever
 * its CPU and thread state; scan_record() decides it with one compare.
 */
#define SHAPE_MASK	(0xfULL << FXT_SCHED_KIND_SHIFT |			\
			 0xfULL << FXT_SCHED_ARGC_SHIFT |			\
			 FXT_HDR_SIZE_MASK << FXT_HDR_SIZE_SHIFT | 0xfULL)
#define SHAPE(kind, words, argc)						\
	((uint64_t)(kind) << FXT_SCHED_KIND_SHIFT |				\
	 (uint64_t)(argc) << FXT_SCHED_ARGC_SHIFT |				\
	 (uint64_t)(words) << FXT_HDR_SIZE_SHIFT | FXT_RECORD_SCHEDULING)
/* A context switch: incoming_weight, then outgoing_weight or linux_state or both. */
#define SHAPE_SWITCH_SHORT SHAPE(FXT_SCHED_KIND_CONTEXT_SWITCH, 5, 1)
#define SHAPE_SWITCH_ONE_MORE SHAPE(FXT_SCHED_KIND_CONTEXT_SWITCH, 6, 2)
#define SHAPE_SWITCH_LONG SHAPE(FXT_SCHED_KIND_CONTEXT_SWITCH, 7, 3)
#define SHAPE_WAKEUP	SHAPE(FXT_SCHED_KIND_WAKEUP, 5, 1)	/* with waker */
#define SHAPE_WAKEUP_IRQ SHAPE(FXT_SCHED_KIND_WAKEUP, 3, 0)	/* without */

/* A wakeup's second argument as the kernel writes it: koid "waker". */
#define WAKER_ARG	((uint64_t)FXT_ARG_KOID << FXT_ARG_TYPE_SHIFT |		\
			 2ULL << FXT_ARG_SIZE_SHIFT |				\
			 (uint64_t)FXTRACE_STR_WAKER << FXT_ARG_NAME_SHIFT)

/*
 * Metadata records belong to the trace manager (us), and large records
 * have a different size field: neither may come from the kernel.
 */
#define BAD_TYPES	(1u << FXT_RECORD_METADATA | 1u << FXT_RECORD_LARGE)

static inline bool bad_frame(uint64_t h, uint64_t words)
{
	return words == 0 || (BAD_TYPES >> (h & 0xf) & 1);
}

/* A context switch: count it, see its outgoing and incoming tids. */
static inline __attribute__((always_inline)) void
scan_switch(const uint8_t *rec, struct scan *scan)
{
	scan->switches++;
	see_tid(scan->tid_seen, scan->sink, word_at(rec + 16));
	see_tid(scan->tid_seen, scan->sink, word_at(rec + 24));
}

/* A wakeup: count it, see the woken tid (the caller finds the waker). */
static inline __attribute__((always_inline)) void
scan_wakeup(const uint8_t *rec, struct scan *scan)
{
	scan->wakeups++;
	see_tid(scan->tid_seen, scan->sink, word_at(rec + 16));
}

/*
 * The general path of scan_record(), with every check: any record but the
 * kernel's usual shapes (for those it gives the same answers).
 */
static inline __attribute__((always_inline)) bool
scan_other_record(const uint8_t *rec, uint64_t h, uint64_t words,
		  struct scan *scan)
{
	unsigned int kind = h >> FXT_SCHED_KIND_SHIFT & 0xf;

	if (bad_frame(h, words))
		return false;
	switch (h & 0xf) {
	case FXT_RECORD_SCHEDULING:
		if (kind == FXT_SCHED_KIND_CONTEXT_SWITCH && words >= 4) {
			scan_switch(rec, scan);
		} else if (kind == FXT_SCHED_KIND_WAKEUP && words >= 3) {
			scan_wakeup(rec, scan);
			scan_waker(rec, h, words, scan->tid_seen, scan->sink);
		} else {
			scan->other++;
		}
		break;
	case FXT_RECORD_EVENT:
		if (is_loss_marker(h)) {
			scan->loss_markers++;
			scan->lost_marked += marker_lost(rec, h, words);
		} else {
			scan->other++;
		}
		break;
	case FXT_RECORD_KERNEL_OBJECT:
		if (scan_name(rec, h, words, scan->last_ts, scan->sink,
			      scan->name))
			scan->names++;
		else
			scan->other++;
		return true;	/* no timestamp */
	default:
		scan->other++;
		return true;
	}
	/* Scheduling and event records: word 1 is the timestamp. */
	if (words >= 2)
		scan->last_ts = word_at(rec + 8);
	return true;
}

/*
 * Count the record of @words words at @rec, contiguous in memory, and
 * report the thread ids and names in it. Return false, having done
 * nothing, if it is no frame the kernel may write (size 0, bad type): the
 * walk stops there.
 *
 * Inlined in both places of scan_window(): the kernel's switch and wakeup
 * records are recognised by their shape and cost a few loads and compares,
 * no call; everything else takes the general path, which gives the same
 * answers for them.
 */
static inline __attribute__((always_inline)) bool
scan_record(const uint8_t *rec, uint64_t h, uint64_t words,
	    struct scan *scan)
{
	uint64_t shape = h & SHAPE_MASK;

	if (shape == SHAPE_SWITCH_SHORT || shape == SHAPE_SWITCH_ONE_MORE ||
	    shape == SHAPE_SWITCH_LONG) {
		scan_switch(rec, scan);
	} else if (shape == SHAPE_WAKEUP) {
		scan_wakeup(rec, scan);
		/* The one argument is the waker: what the general loop finds. */
		if ((uint32_t)word_at(rec + 24) == WAKER_ARG)
			see_tid(scan->tid_seen, scan->sink, word_at(rec + 32));
		else
			scan_waker(rec, h, words, scan->tid_seen, scan->sink);
	} else if (shape == SHAPE_WAKEUP_IRQ) {
		/* No arguments. */
		scan_wakeup(rec, scan);
	} else {
		return scan_other_record(rec, h, words, scan);
	}
	scan->last_ts = word_at(rec + 8);
	return true;
}

/*
 * Walk the records in [tail, head) (at most the area's size, word-aligned).
 * Return the end of the last whole record: head when every record is well
 * formed.
 *
 * The window is at most two runs of memory: up to the end of the area,
 * then from its start. Records inside a run are read in place, with plain
 * loads; the one record that may cross the end is read from a copy.
 */
static uint64_t scan_window(const struct ring *ring, uint64_t tail,
			    uint64_t head, struct scan *ring_scan)
{
	struct scan scan = *ring_scan;
	uint64_t pos = tail, h, bytes, off, run, left;
	const uint8_t *p;
	uint8_t split[FXT_HDR_SIZE_MASK * 8];	/* a record across the end */

	while (pos != head) {
		off = pos & (ring->size - 1);
		run = ring->size - off;
		if (run > head - pos)
			run = head - pos;
		p = ring->data + off;
		/* The size field in bytes, and the bytes left in this run. */
		for (left = run; left; left -= bytes, p += bytes) {
			h = word_at(p);
			bytes = h >> (FXT_HDR_SIZE_SHIFT - 3) & FXT_HDR_SIZE_MASK << 3;
			if (bytes > left)
				break;	/* past head, or across the end */
			if (__builtin_expect(!scan_record(p, h, bytes / 8, &scan), 0))
				goto stop;
		}
		pos += run - left;
		if (!left)
			continue;
		if (bytes > head - pos)
			break;	/* runs past head: not whole */
		/* Across the end, @left bytes away: scan a copy of its two pieces. */
		memcpy(split, p, (size_t)left);
		memcpy(split + left, ring->data, (size_t)(bytes - left));
		if (!scan_record(split, h, bytes / 8, &scan))
			break;
		pos += bytes;
	}
	*ring_scan = scan;
	return pos;
stop:
	*ring_scan = scan;
	return pos + run - left;
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
	/*
	 * The count to compare with later (followed_ahead()). An error the
	 * kernel counts against the position this one replaces, after this
	 * load, still makes the count rise once: the go-back also needs
	 * @head inside the window last read, or a rise of 2, so one such
	 * late error alone never sends us back. One load of the producer's
	 * line, which the next drain loads anyway.
	 */
	ring->consumer_errors = __atomic_load_n(&ring->ctrl->consumer_errors,
						__ATOMIC_RELAXED);
}

/*
 * Whether @head, behind what was already read, is where the kernel really
 * is: the window the last drain read ended at an overwritten producer_pos
 * ahead of the kernel's own, but within a ring of our position (nothing
 * tells such a one from a real one), and we published it as consumer_pos.
 * The real position is then inside that window: not below its start,
 * which was the kernel's consumer_pos, and so not above its own; or,
 * after more than one such window, in an earlier one.
 * The kernel finds a consumer_pos ahead of its own position out of range
 * (kmod/fxtrace_ring.h, fxtrace_ring_reserve()): it drops the record,
 * counts it in consumer_errors and stores its own position in producer_pos
 * again (fxtrace_ring_drop()), and does so for every record from then on.
 * Only going back to that position ends it.
 *
 * A producer_pos merely overwritten with one behind leaves consumer_errors
 * alone, and the kernel's next record or drop stores the real one, which
 * is not behind: that one is not followed. The kernel stores
 * consumer_errors before the producer_pos of the same drop, and @head was
 * loaded with (C), so the count of the drop that stored @head is seen
 * here. Its positions are whole words: one that is not is no kernel's.
 */
static bool followed_ahead(const struct ring *ring, uint64_t head)
{
	uint64_t errors = __atomic_load_n(&ring->ctrl->consumer_errors,
					  __ATOMIC_RELAXED);
	int64_t rise = (int64_t)(errors - ring->consumer_errors);

	/*
	 * Outside the last window, the real position is behind a window
	 * before it: two positions followed ahead before the kernel's next
	 * record, or one found at ring_init(). Then a rise of 2 or more
	 * tells: only one error can come late, from the one reserve that
	 * loaded the replaced consumer_pos (a CPU reserves one record at a
	 * time, interrupts off), so a second was counted against ours.
	 */
	return !(head & 7) && rise > 0 &&
	       ((int64_t)(head - ring->read_from) >= 0 || rise >= 2);
}

/*
 * Data was skipped: open a hole after the last record copied, or grow the
 * open one (no timestamped record since: nothing tells the skips apart).
 */
static void skip(struct ring *ring, uint64_t last_ts, uint64_t bytes,
		 enum ring_drain_status status)
{
	if (!ring->hole_open) {
		memset(&ring->hole, 0, sizeof(ring->hole));
		ring->hole.from_ts = last_ts;
		ring->hole_open = true;
	}
	ring->hole.bytes += bytes;
	if (status == RING_DRAIN_CORRUPT)
		ring->hole.corrupt++;
	else
		ring->hole.bad_producer++;
}

int ring_end_hole(struct ring *ring, uint64_t to_ts, ring_hole_fn hole,
		  void *ctx)
{
	int err;

	if (!ring->hole_open)
		return 0;
	/*
	 * Timestamps come from the kernel, which we do not trust: a hole
	 * that ends before it begins would leave a reader's counter at the
	 * skipped amount for ever (the 0 sorts first).
	 */
	ring->hole.to_ts = to_ts > ring->hole.from_ts ? to_ts : ring->hole.from_ts;
	err = hole ? hole(ctx, &ring->hole) : 0;
	if (err)
		return err;
	ring->hole_open = false;
	return 0;
}

/*
 * The timestamp of the first record in [from, to) that has one, as
 * scan_record() takes it (scheduling and event records of 2 words or
 * more). The records are whole (scan_window() said so), and a word never
 * straddles the end of the area (its size is a multiple of 8), so each
 * word is read in place. Only walked while a hole is open: rare.
 */
static bool first_ts(const struct ring *ring, uint64_t from, uint64_t to,
		     uint64_t *ts)
{
	uint64_t mask = ring->size - 1, pos, h, words;
	unsigned int type;

	for (pos = from; pos != to; pos += words * 8) {
		h = word_at(ring->data + (pos & mask));
		words = h >> FXT_HDR_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
		type = h & 0xf;
		if ((type == FXT_RECORD_SCHEDULING || type == FXT_RECORD_EVENT) &&
		    words >= 2) {
			*ts = word_at(ring->data + ((pos + 8) & mask));
			return true;
		}
	}
	return false;
}

/*
 * A producer position no drain can copy up to: more than the ring holds
 * since @tail, or not on a record (word) boundary.
 */
static bool impossible_window(const struct ring *ring, uint64_t head,
			      uint64_t avail)
{
	return avail > ring->size || (avail & 7) || (head & 7);
}

/* A walked window's records, added to the ring's totals. */
static void add_counts(struct ring *ring, const struct scan *scan)
{
	ring->switches += scan->switches;
	ring->wakeups += scan->wakeups;
	ring->names += scan->names;
	ring->loss_markers += scan->loss_markers;
	ring->lost_marked += scan->lost_marked;
	ring->other_records += scan->other;
}

void ring_count_written(struct ring *ring, uint64_t bytes)
{
	/* The records' tids and names went to the sink in the failed drain. */
	static const struct ring_sink quiet = { NULL, NULL, NULL };
	struct scan scan = {
		.last_ts = ring->last_ts, .tid_seen = ring->tid_seen,
		.sink = &quiet,
	};
	uint64_t head = __atomic_load_n(&ring->ctrl->producer_pos,
					__ATOMIC_ACQUIRE);
	uint64_t avail = head - ring->tail, end;

	/* A window the drain could not have copied from: nothing to count. */
	if (impossible_window(ring, head, avail))
		return;
	if (bytes > avail)
		bytes = avail;
	/* The whole records in [tail, tail + bytes): a cut one is not. */
	end = scan_window(ring, ring->tail, ring->tail + (bytes & ~7ULL), &scan);
	ring->bytes += end - ring->tail;
	add_counts(ring, &scan);
}

int ring_drain(struct ring *ring, const struct ring_sink *sink,
	       struct ring_drain_result *res)
{
	return ring_drain_holes(ring, sink, NULL, NULL, res);
}

int ring_drain_names(struct ring *ring, const struct ring_sink *sink,
		     ring_name_fn name, struct ring_drain_result *res)
{
	return ring_drain_holes(ring, sink, name, NULL, res);
}

int ring_drain_holes(struct ring *ring, const struct ring_sink *sink,
		     ring_name_fn name, ring_hole_fn hole,
		     struct ring_drain_result *res)
{
	struct ring_drain_result local;
	struct scan scan = {
		.last_ts = ring->last_ts, .tid_seen = ring->tid_seen,
		.sink = sink, .name = name,
	};
	uint64_t head, tail = ring->tail, avail, good, ts;
	bool behind;
	int err;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	/* (C), pairs with (A): the bytes below head are written before we look. */
	head = __atomic_load_n(&ring->ctrl->producer_pos, __ATOMIC_ACQUIRE);
	avail = head - tail;
	behind = (int64_t)(head - ring->read_to) < 0;
	if (__builtin_expect(behind, 0) && followed_ahead(ring, head)) {
		/*
		 * Go back to the kernel's real position. An impossible
		 * producer position after all, the one we followed, and the
		 * same unknown: what we copied beyond the real one were the
		 * area's older bytes (a previous lap's records, copied
		 * again, or no records, skipped), and records the kernel
		 * committed there meanwhile were missed. The records it
		 * dropped since, it marks itself, with its next record.
		 */
		res->status = RING_DRAIN_BAD_PRODUCER;
		ring->bad_producer++;
		skip(ring, ring->last_ts, ring->size, RING_DRAIN_BAD_PRODUCER);
		ring->read_to = head;
		ring->read_from = head;
		publish_consumer(ring, head);
		return 0;
	}
	/*
	 * Not what we stored: the kernel drops every record against a value
	 * out of range, or fills up against one behind, and may then publish
	 * nothing for us to copy and publish past. Ours again, before
	 * anything returns.
	 */
	if (__builtin_expect(__atomic_load_n(&ring->ctrl->consumer_pos,
					     __ATOMIC_RELAXED) != tail, 0))
		publish_consumer(ring, tail);
	if (avail == 0)
		return 0;
	if (impossible_window(ring, head, avail)) {
		/*
		 * Behind what we already copied: following it back would copy
		 * those bytes again. The kernel stores its real position at
		 * its next record or drop; until then there is nothing to do.
		 */
		if (behind) {
			res->status = RING_DRAIN_PRODUCER_BEHIND;
			ring->producer_behind++;
			return 0;
		}
		/*
		 * Nothing in there can be trusted; resynchronise. A skip too
		 * far ahead is undone when the kernel, dropping everything
		 * against a consumer_pos ahead of its own, stores its real
		 * position: behind @tail, not behind @read_to.
		 */
		res->status = RING_DRAIN_BAD_PRODUCER;
		ring->bad_producer++;
		skip(ring, ring->last_ts, ring->size, RING_DRAIN_BAD_PRODUCER);
		publish_consumer(ring, head);
		return 0;
	}
	good = scan_window(ring, tail, head, &scan);
	/* The hole ends at this window's first timestamp: mark it before. */
	if (ring->hole_open && first_ts(ring, tail, good, &ts)) {
		err = ring_end_hole(ring, ts, hole, sink->ctx);
		if (err)
			return err;
	}
	err = copy_out(ring, tail, good, sink, res);
	if (err)
		return err;
	if (good != head) {
		res->status = RING_DRAIN_CORRUPT;
		ring->corrupt++;
		ring->bytes_skipped += head - good;
		skip(ring, scan.last_ts, head - good, RING_DRAIN_CORRUPT);
	}
	ring->bytes += res->bytes;
	add_counts(ring, &scan);
	ring->last_ts = scan.last_ts;
	ring->read_from = tail;
	ring->read_to = head;
	publish_consumer(ring, head);
	return 0;
}
