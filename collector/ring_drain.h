/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ring_drain.h - the consumer side of one fxtrace per-CPU ring.
 *
 * ring_drain() implements the userspace half of the protocol described in
 * <linux/fxtrace.h>: load-acquire producer_pos (C), copy the bytes
 * [consumer, producer) to a sink in at most two chunks (before and after the
 * end of the data area), store-release consumer_pos (D).
 *
 * It works on plain memory: a struct fxtrace_ctrl and a data area, which is
 * what the mmap()ed device gives, and what the unit tests fake with malloc.
 *
 * It does not trust the kernel: the bytes it copies are first walked as FXT
 * records (which is also how it finds the thread ids the collector must
 * name later, and the kernel's own name records with the time bound that
 * orders them, see ring_drain.c), and every read stays inside the data
 * area: only bytes of the checked window [consumer, producer) are read,
 * in place up to the end of the area, and a record that crosses the end is
 * read from a copy of its two pieces.
 *   - producer_pos ahead of the consumer by more than the area size, behind
 *     it, or not a multiple of 8: nothing is copied, the consumer jumps to
 *     producer_pos (RING_DRAIN_BAD_PRODUCER); but not back to one behind
 *     what was already copied (RING_DRAIN_PRODUCER_BEHIND), unless the
 *     kernel has found consumer_pos out of range since it was stored
 *     (consumer_errors rose): then the position followed last was ahead of
 *     the kernel's own, and the consumer goes back to the real one
 *     (RING_DRAIN_BAD_PRODUCER, see ring_drain.c).
 *   - a record of size 0, of metadata or large type, or one that runs past
 *     producer_pos: the whole records before it are copied, the rest of the
 *     window is skipped (RING_DRAIN_CORRUPT).
 * Either way the ring keeps working, the loss is counted, and the hole it
 * leaves is placed in time for the caller to mark in the file
 * (ring_drain_holes(), decision 7: loss is never silent).
 *
 * consumer_pos is ours alone, but the page is writable: a drain that finds
 * another value there stores its own again. The kernel measures room
 * against whatever is there, and against another value may drop every
 * record while the ring gives the drain nothing to copy, and so nothing
 * to publish.
 */
#ifndef RING_DRAIN_H
#define RING_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fxtrace.h>

/* Longest inline name the kernel writes (TASK_COMM_LEN - 1). */
#define RING_NAME_MAX	15

/*
 * Slots of a ring's cache of reported thread ids (struct ring, @tid_seen):
 * tid t lives in slot t % RING_TID_SLOTS. Tids are handed out in order, so
 * the threads active at one time mostly fall in different slots. 1024
 * (8 KiB a ring): in drain-bench, 1000 threads spread over 2 rings cost
 * 32 instructions a record, as 20 do; with 256 slots they cost 132.
 */
#define RING_TID_SLOTS	1024

/**
 * struct ring_name - a name found in a kernel object record
 * @obj_type: FXT_OBJ_TYPE_PROCESS or FXT_OBJ_TYPE_THREAD
 * @koid:     the tgid (process) or tid (thread)
 * @process:  thread records: the "process" koid argument (the tgid); 0 if
 *            absent, and always 0 for process records
 * @after_ts: the timestamp of the last timestamped record before this one
 *            in the same ring (0 if none yet): the name was given at or
 *            after this time (see ring_drain.c for why that orders names)
 * @len:      bytes in @name, at most RING_NAME_MAX (0 is a valid, empty name)
 * @name:     the name, NUL-terminated; never holds a NUL inside @len
 */
struct ring_name {
	unsigned int obj_type;
	uint64_t koid;
	uint64_t process;
	uint64_t after_ts;
	size_t len;
	char name[RING_NAME_MAX + 1];
};

/**
 * struct ring_sink - where drained bytes go
 * @write: copy @len bytes; return 0 or a negative errno (the drain then
 *         stops without publishing consumer_pos)
 * @tid:   called for the thread ids found in the copied records (context
 *         switch outgoing/incoming, wakeup woken, every "waker" koid
 *         argument of a wakeup),
 *         in record order, except tid 0 (the idle tasks) and a tid that is
 *         already in its slot of the ring's @tid_seen cache. So every other
 *         tid is passed on the first time the ring holds it, and again only
 *         after a tid of the same slot took its place; a tid seen again and
 *         again costs the drain a compare, not a call. May be NULL (the
 *         cache is then still kept).
 * @ctx:   passed to both, and to the name callback of ring_drain_names()
 */
struct ring_sink {
	int (*write)(void *ctx, const void *buf, size_t len);
	void (*tid)(void *ctx, uint64_t tid);
	void *ctx;
};

/*
 * Called for every well-formed process or thread kernel object record
 * with an inline name, in ring order. Malformed ones are copied but not
 * reported.
 *
 * Not a fourth member of struct ring_sink: with -Wextra (all our builds)
 * a positional { write, tid, ctx } initializer that leaves a member out is
 * a -Wmissing-field-initializers error, and fuzz/ and bench/ use those.
 */
typedef void (*ring_name_fn)(void *ctx, const struct ring_name *n);

/**
 * struct ring_hole - ring data a drain skipped, placed in time
 * @from_ts:      the timestamp of the last record copied from the ring
 *                before the skip (the ring's @last_ts then); 0 if it had
 *                none yet (the caller knows when its session started)
 * @to_ts:        the timestamp of the first record copied after it, or
 *                what ring_end_hole() was given; never below @from_ts
 * @bytes:        bytes skipped: malformed records exactly, plus the ring's
 *                size for each impossible producer position (the most the
 *                ring can have held unread; the true amount is unknown)
 * @corrupt:      drains in the hole that found malformed records
 * @bad_producer: drains in the hole that found an impossible producer_pos
 *
 * Skips with no timestamped record between them are one hole: nothing in
 * the file can tell them apart in time.
 */
struct ring_hole {
	uint64_t from_ts;
	uint64_t to_ts;
	uint64_t bytes;
	uint64_t corrupt;
	uint64_t bad_producer;
};

/*
 * Called once per hole, when it ends: just before the bytes that hold the
 * first timestamped record after it go to @sink->write (so a marker written
 * here lands in the file where the hole is, as the kernel's loss markers
 * do), or from ring_end_hole(). Return 0 or a negative errno (the drain
 * then stops without publishing consumer_pos, and the hole stays open).
 */
typedef int (*ring_hole_fn)(void *ctx, const struct ring_hole *hole);

enum ring_drain_status {
	RING_DRAIN_OK = 0,
	RING_DRAIN_BAD_PRODUCER,	/* impossible producer_pos, skipped */
	RING_DRAIN_CORRUPT,		/* malformed records, rest skipped */
	RING_DRAIN_PRODUCER_BEHIND,	/* producer_pos behind what was read */
};

/**
 * struct ring - one ring and what has been drained from it
 * @ctrl:     the shared control page
 * @data:     the shared data area (read-only)
 * @size:     bytes in the data area, a power of two >= 8
 * @tail:     our private copy of consumer_pos (what we have consumed)
 * @read_to:  where the last drain of a possible window ended: no record
 *            below it is copied again. @tail is above it only after a
 *            skip to an impossible producer position, and comes back to
 *            the kernel's real one, which is never below @read_to, unless
 *            that window ended at an overwritten producer_pos: then both
 *            go back to the real one (see @consumer_errors).
 * @read_from: where that window began: after one position followed ahead,
 *            the real one is not below it
 * @last_ts:  timestamp of the last copied record that has one (scheduling
 *            and event records), kept across drains; the @after_ts of the
 *            next name record
 * @tid_seen: per slot, the last tid passed to the sink's @tid (0: none),
 *            kept across drains (see struct ring_sink)
 * @hole:     the skipped data not yet followed by a timestamped record,
 *            if @hole_open (see struct ring_hole)
 * @dropped_base: ctrl->records_dropped at ring_init() (see
 *            ring_unmarked_loss())
 * @consumer_errors: ctrl->consumer_errors just after consumer_pos was
 *            last stored (or at ring_init()): more since, and the kernel
 *            has found it out of range
 *
 * Cumulative counters, updated by ring_drain():
 * @bytes:          bytes handed to the sink
 * @switches:       context switch records copied
 * @wakeups:        wakeup records copied
 * @names:          process and thread name records copied (and reported)
 * @loss_markers:   loss-marker counter events copied (uapi "Loss markers")
 * @lost_marked:    the records those markers say were lost (the sum of
 *                  their "cpu" arguments)
 * @other_records:  other records copied
 * @bad_producer:   drains that found an impossible producer_pos; each
 *                  skipped what the ring held unread, an amount nothing
 *                  can tell (the bad position is what would have said),
 *                  at most @size, and not in @bytes_skipped. Also those
 *                  that went back from a position followed ahead of the
 *                  kernel's: impossible too, found out later
 * @producer_behind: drains that found producer_pos behind @read_to
 *                  (RING_DRAIN_PRODUCER_BEHIND): not followed, nothing
 *                  skipped
 * @corrupt:        drains that found malformed records
 * @bytes_skipped:  bytes skipped because they were not whole records
 *                  (RING_DRAIN_CORRUPT), counted exactly
 */
struct ring {
	struct fxtrace_ctrl *ctrl;
	const uint8_t *data;
	uint64_t size;
	uint64_t tail;
	uint64_t read_to;
	uint64_t read_from;
	uint64_t last_ts;
	uint64_t tid_seen[RING_TID_SLOTS];
	struct ring_hole hole;
	bool hole_open;
	uint64_t dropped_base;
	uint64_t consumer_errors;

	uint64_t bytes;
	uint64_t switches;
	uint64_t wakeups;
	uint64_t names;
	uint64_t loss_markers;
	uint64_t lost_marked;
	uint64_t other_records;
	uint64_t bad_producer;
	uint64_t producer_behind;
	uint64_t corrupt;
	uint64_t bytes_skipped;
};

/**
 * struct ring_drain_result - what one ring_drain() call did
 * @status: enum ring_drain_status
 * @bytes:  bytes handed to the sink
 * @chunks: sink->write() calls (0, 1 or 2)
 */
struct ring_drain_result {
	enum ring_drain_status status;
	uint64_t bytes;
	unsigned int chunks;
};

/**
 * ring_init() - attach to a ring; the consumer starts at ctrl->consumer_pos
 * Return: 0, or -EINVAL if @size is not a power of two >= 8.
 */
int ring_init(struct ring *ring, struct fxtrace_ctrl *ctrl, const void *data,
	      uint64_t size);

/**
 * ring_drain() - copy everything committed so far to @sink
 * @res: may be NULL
 *
 * Return: 0, or the sink's negative errno (consumer_pos is then unchanged).
 */
int ring_drain(struct ring *ring, const struct ring_sink *sink,
	       struct ring_drain_result *res);

/**
 * ring_drain_names() - ring_drain(), also reporting names to @name
 * @name: called with @sink->ctx; may be NULL (that is ring_drain())
 *
 * @sink->tid and @name are called while the window is scanned, before its
 * bytes go to @sink->write; if a write fails, the next drain scans the same
 * records again and reports their names again, with the same after_ts (but
 * not their tids: those are in @tid_seen already, and the sink had them).
 */
int ring_drain_names(struct ring *ring, const struct ring_sink *sink,
		     ring_name_fn name, struct ring_drain_result *res);

/**
 * ring_drain_holes() - ring_drain_names(), also reporting holes to @hole
 * @hole: called with @sink->ctx as each hole ends (struct ring_hole); may
 *        be NULL (that is ring_drain_names(): holes are still tracked)
 */
int ring_drain_holes(struct ring *ring, const struct ring_sink *sink,
		     ring_name_fn name, ring_hole_fn hole,
		     struct ring_drain_result *res);

/**
 * ring_end_hole() - end the ring's open hole, if any, at @to_ts
 *
 * For the end of a session, when no record will follow the hole: @to_ts is
 * then a time after every record the ring can hold (after STOP).
 * Return: 0 (also with no hole open), or @hole's negative errno (the hole
 * then stays open).
 */
int ring_end_hole(struct ring *ring, uint64_t to_ts, ring_hole_fn hole,
		  void *ctx);

/**
 * ring_count_written() - count what a failed drain's sink kept
 * @bytes: the bytes of the ring's window the sink took before it failed
 *
 * A drain whose write fails counts nothing and leaves consumer_pos where
 * it was, for the next drain to copy the same records again. When there
 * will be none, and the sink cannot take back what it took (a pipe: its
 * reader got those bytes), this counts the whole records among the first
 * @bytes of the window (from @tail) as copied: @bytes, @switches,
 * @wakeups, @names, @loss_markers, @lost_marked and @other_records, as
 * ring_drain() would have; a record cut at @bytes is not counted (a reader
 * drops it). The ring must not be drained again: those records would be
 * copied and counted once more.
 */
void ring_count_written(struct ring *ring, uint64_t bytes);

/* Bytes committed by the producer and not yet drained (as published). */
uint64_t ring_pending(const struct ring *ring);

/**
 * ring_unmarked_loss() - records the ring dropped that no copied marker marks
 *
 * The kernel marks a loss with the next record that fits (uapi "Loss
 * markers"); records dropped after a ring's last record, until tracing
 * stopped, have no marker. Once the last drain after STOP has copied
 * everything, this is how many those are: records_dropped since
 * ring_init(), less what the loss markers copied from the ring say were
 * lost (@lost_marked). All of them came after the ring's last record (a
 * drop is followed by drops until a record fits together with the
 * markers), so the caller marks them from @last_ts on (decision 7).
 *
 * Markers in data a drain skipped (RING_DRAIN_BAD_PRODUCER, _CORRUPT) are
 * not counted: the loss they marked is then counted here again, and marked
 * a second time rather than not at all.
 *
 * Return: that number, or 0 if the markers account for every drop.
 */
uint64_t ring_unmarked_loss(const struct ring *ring);

#endif /* RING_DRAIN_H */
