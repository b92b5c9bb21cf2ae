/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * sched_core.h - read an FXT file once and hand its scheduling records to a
 * consumer in timestamp order, in bounded memory.
 *
 * Why a reorder window: FXT does not promise timestamp order, and fxtrace's
 * files are per-CPU ring chunks appended drain by drain (a wakeup sits in
 * the ring of the CPU that executed it, which may be drained before or
 * after the ring holding the woken thread's switch-in). Sorting the whole
 * file would cost memory per record. Instead every scheduling record goes
 * into a min-heap keyed by (timestamp, file position) and leaves it once
 * the newest timestamp seen is more than @reorder_window_ns ahead of it.
 * If the disorder in the file never exceeds the window, the consumer sees
 * exactly the fully sorted order (ties keep file order). A record older
 * than something already handed on ("late") is counted and skipped, never
 * misapplied; the first late record's offset is reported. Memory is the
 * number of scheduling records per window of trace time (56 bytes each),
 * independent of the file size.
 *
 * Two kinds of non-scheduling records go through the same buffer, because
 * where they fall in time matters:
 *   - thread and process kernel objects (names; SC_NAME). They carry no
 *     timestamp. fxtrace's kernel writes one into the forking/exec'ing/
 *     renaming CPU's ring just before the task's next scheduling record, so
 *     a kernel object takes the timestamp of the next timestamped record in
 *     the file (and sorts before it); before the first timestamped record
 *     (fxt-collect's names for the tasks alive at the start), 0; at the
 *     end of the file, the newest timestamp. A name thus takes effect "from that point of the trace",
 *     which is what makes a reused tid get its new name from then on.
 *   - kernel loss markers (SC_LOST): the counter events "records_lost"
 *     (counter id = CPU, int64 argument "cpu" = records lost, then 0), see
 *     uapi/linux/fxtrace.h; and fxt-collect's "bytes_skipped" pairs of the
 *     same shape (SC_LOST with SC_SKIPPED: ring data it skipped as
 *     invalid, in bytes, decision 7), a hole in that CPU's records alike.
 *     The pair is written when a record fits again, the first marker with
 *     the time of the first record lost: a hole longer than the window
 *     puts it behind. Like names, a marker is never skipped as late but
 *     applied at the earliest time still possible; one that opens a hole
 *     and comes late is counted (@late_holes): its hole is applied from
 *     later than it began, and what was handed on in between was taken
 *     as complete.
 *     They are also handed to @record at once, like every other event.
 * Every other record (other events, metadata, logs) is passed on at once,
 * in file order.
 */
#ifndef SCHED_CORE_H
#define SCHED_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt_read.h"

#define SC_SWITCH	1
#define SC_WAKEUP	2
#define SC_NAME		3	/* thread or process kernel object */
#define SC_LOST		4	/* kernel loss marker */

#define SC_OUT_IDLE	0x01	/* switch: the outgoing side is the idle task */
#define SC_IN_IDLE	0x02	/* switch: the incoming side is the idle task */
#define SC_HAS_WAKER	0x04	/* wakeup: @waker is set */
#define SC_HAS_PID	0x08	/* name (thread): @b, the process koid, is set */
#define SC_SKIPPED	0x10	/* lost: fxt-collect's bytes_skipped marker,
				 * @a in bytes, not records */
#define SC_NEW_TASK	0x20	/* name (thread): the thread begins here
				 * (new_task = 1, from ABI 5) */

/* One record of the ordered stream, timestamps in nanoseconds. */
struct sc_event {
	uint64_t ts;
	uint64_t seq;		/* file position order (tie breaker) */
	uint64_t a;		/* switch: outgoing tid; wakeup: woken tid;
				 * name: koid; lost: records lost (0 = the
				 * hole ends here) */
	uint64_t b;		/* switch: incoming tid; name: process koid */
	union {
		uint64_t waker;	/* wakeup: waking tid (SC_HAS_WAKER) */
		const char *name; /* name: the text (not NUL-terminated; NULL
				   * if unresolved), valid during sc_run() */
	};
	uint32_t cpu;		/* switch, wakeup: CPU; lost: the counter id */
	uint8_t kind;		/* SC_SWITCH, SC_WAKEUP, SC_NAME, SC_LOST */
	uint8_t state;		/* switch: outgoing FXT thread state;
				 * name: FXT_OBJ_TYPE_THREAD or _PROCESS */
	uint8_t flags;
	int32_t in_prio;	/* switch: incoming_weight (0 if absent) */
	uint32_t name_len;	/* name: bytes at @name */
};

struct sc_handler {
	void *ctx;
	/* Scheduling records, names and loss markers, in timestamp order. */
	void (*sched)(void *ctx, const struct sc_event *ev);
	/* Every other decoded record (loss markers too), in file order;
	 * @ts_ns is the record's timestamp converted to ns when it has one,
	 * else 0; @tps its provider's ticks per second, for other tick
	 * values in it (a complete event's end). */
	void (*record)(void *ctx, const struct fxt_record *rec, uint64_t ts_ns,
		       uint64_t tps);
	/* Forget everything handed on: the pass is read again (with
	 * @sc_opts.widen; NULL: the pass is never read again). */
	void (*reset)(void *ctx);
};

struct sc_stats {
	uint64_t bytes;			/* file size */
	uint64_t records;		/* records read */
	uint64_t switches, wakeups;	/* scheduling records read */
	uint64_t names, lost_markers;	/* SC_NAME, SC_LOST records read */
	uint64_t skipped;		/* records not decoded (unknown types) */
	uint64_t late;			/* arrived after their window: skipped */
	size_t first_late_offset;
	uint64_t max_late_ns;		/* how far behind the worst one was */
	uint64_t late_holes;		/* loss markers opening a hole that
					 * arrived after their window: applied
					 * from the last time handed on, not
					 * from their own (see run_input()) */
	size_t first_late_hole_offset;
	uint64_t max_late_hole_ns;
	uint64_t max_disorder_ns;	/* the most a scheduling record or loss
					 * marker lagged the newest timestamp
					 * before it: a window above this
					 * leaves nothing late */
	uint64_t window_ns;		/* the reorder window this pass used */
	uint64_t widened_from_ns;	/* not 0: the input was read again
					 * with @window_ns instead of this
					 * (see sc_opts.widen) */
	size_t max_buffered;		/* peak reorder-buffer entries */
	uint64_t reorder_oom;		/* times the reorder buffer could not
					 * grow: what it held was handed on
					 * early, so newer records may then
					 * count as late (see push()) */
	size_t reorder_oom_at;		/* what it held the first time */
	bool malformed;			/* reading stopped at a bad record */
	struct fxt_error error;
};

struct sc_opts {
	uint64_t reorder_window_ns;	/* 0: SC_DEFAULT_WINDOW_NS */
	unsigned int read_flags;	/* fxt_reader_new()'s: fxt-sched and
					 * fxt2json pass FXT_READ_MAGIC, so an
					 * empty or non-FXT input is malformed
					 * at offset 0 with no records read */
	/*
	 * When the first pass found records late (or a hole late) and its
	 * handler has @reset: reset it and read the input again, once, with
	 * the window just above the input's largest disorder
	 * (@max_disorder_ns), which leaves nothing late; a second pass
	 * (sc_run_twice()) uses that window too. Memory then grows with the
	 * disorder instead of being bounded by @reorder_window_ns: fxt-sched
	 * and fxt2json widen only when no --reorder-window was given.
	 */
	bool widen;
};

#define SC_DEFAULT_WINDOW_NS	2000000000ULL

/*
 * sc_run() - read @path ("-" = stdin) and feed @h.
 * Return: 0 (also when the file ends in a malformed or truncated record,
 * or, with FXT_READ_MAGIC, is empty or not FXT: see @st->malformed), or -1
 * with errno set when the file cannot be read.
 */
int sc_run(const char *path, const struct sc_opts *opts,
	   const struct sc_handler *h, struct sc_stats *st);

/*
 * sc_run_twice() - sc_run() twice over the same input, which is opened
 * (and, from a pipe, read) once: @first into @st1, then @between(@ctx),
 * then, unless @between returned false, @second into @st2. Return as
 * sc_run(); on -1 @between may not have been called. With @opts->widen,
 * @first may be read twice itself before @between (see sc_opts).
 */
int sc_run_twice(const char *path, const struct sc_opts *opts,
		 const struct sc_handler *first, struct sc_stats *st1,
		 bool (*between)(void *ctx), void *ctx,
		 const struct sc_handler *second, struct sc_stats *st2);

/*
 * sc_parse_time() - "1.5s", "200ms", ".5us", "1e3ns", or a bare number in
 * units of @unit_ns, to nanoseconds in *@out. The number is decimal: digits
 * with an optional fraction and exponent, starting with a digit or '.': no
 * sign, blank, hex, "p" exponent, inf or nan, all of which strtod() takes.
 * Return: NULL, or what is wrong with @s: "a blank", "a sign" (+, or -
 * before a zero), "negative", "out of range" or "not a time".
 */
const char *sc_parse_time(const char *s, uint64_t unit_ns, uint64_t *out);

/*
 * sc_parse_window() - the value of --reorder-window, shared by fxt-sched
 * and fxt2json so that it means the same in both: a number with a unit
 * ns, us, ms or s, required (a bare "2" was 2 ns in one tool and 2 s in
 * the other); more than 0.
 * Return: NULL and the window in *@out, or why @s is refused (one phrase,
 * e.g. "a unit is required: ns, us, ms or s (e.g. 2s)").
 */
const char *sc_parse_window(const char *s, uint64_t *out);

/*
 * sc_take_reorder_oom() - @st reports the reorder buffer running out of
 * memory in an @earlier pass over the same input, if its own did not: the
 * later pass's stats are the ones printed. sc_run_twice() does it for its
 * second pass. Both passes use the same window, so a size limit fails
 * both alike (the tests cannot tell this apart); real memory pressure
 * need not.
 */
void sc_take_reorder_oom(struct sc_stats *st, const struct sc_stats *earlier);

/* Where late records are when the reorder buffer ran out of memory (not
 * beyond the window: the buffer handed on newer ones before their time). */
#define SC_OOM_LATE "behind newer records the reorder buffer, out of memory, handed on early"

/* Where @st's late records and holes are: SC_OOM_LATE, or "beyond the
 * reorder window". */
const char *sc_late_where(const struct sc_stats *st);

/*
 * sc_late_advice() - the end of the warning about late records or holes:
 * the smallest --reorder-window above the input's largest disorder, in ns
 * as the option takes it (so it can be pasted), or none, that @does_it
 * ("takes them in"); or, when the reorder buffer ran out of memory (which
 * is what made them late), that a wider window is no cure.
 * Return: @buf.
 */
const char *sc_late_advice(char *buf, size_t len, const struct sc_stats *st,
			   const char *does_it);

/*
 * sc_print_input_notes() - what fxt-sched and fxt2json (@prog) both say on
 * @err about the input @path as @st read it: that it held no scheduling
 * record, that memory ran out in the reorder buffer, and that it was read
 * again with a wider window (sc_opts.widen).
 */
void sc_print_input_notes(FILE *err, const char *prog, const char *path,
			  const struct sc_stats *st);

/* @one if @n is 1, else @many: a count's noun in the text fxt-sched and
 * fxt2json print ("1 interval", "0 intervals", "2 context switches"). */
static inline const char *sc_plural(uint64_t n, const char *one,
				    const char *many)
{
	return n == 1 ? one : many;
}

/* Convert ticks at @tps per second to nanoseconds, UINT64_MAX if past it. */
uint64_t sc_ticks_to_ns(uint64_t ticks, uint64_t tps);

#endif /* SCHED_CORE_H */
