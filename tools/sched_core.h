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
 * number of scheduling records per window of trace time (48 bytes each),
 * independent of the file size.
 *
 * Other records (kernel objects, events, metadata) are passed on at once,
 * in file order: names and pids are "last one wins" by file position.
 */
#ifndef SCHED_CORE_H
#define SCHED_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt_read.h"

#define SC_SWITCH	1
#define SC_WAKEUP	2

#define SC_OUT_IDLE	0x01	/* switch: the outgoing side is the idle task */
#define SC_IN_IDLE	0x02	/* switch: the incoming side is the idle task */
#define SC_HAS_WAKER	0x04	/* wakeup: @waker is set */

/* One scheduling record, timestamps in nanoseconds. */
struct sc_event {
	uint64_t ts;
	uint64_t seq;		/* file position order (tie breaker) */
	uint64_t a;		/* switch: outgoing tid; wakeup: woken tid */
	uint64_t b;		/* switch: incoming tid */
	uint64_t waker;		/* wakeup: waking tid (SC_HAS_WAKER) */
	uint32_t cpu;
	uint8_t kind;		/* SC_SWITCH or SC_WAKEUP */
	uint8_t state;		/* switch: outgoing FXT thread state */
	uint8_t flags;
	int32_t in_prio;	/* switch: incoming_weight (0 if absent) */
};

struct sc_handler {
	void *ctx;
	/* Scheduling records, in timestamp order. */
	void (*sched)(void *ctx, const struct sc_event *ev);
	/* Every other decoded record, in file order; @ts_ns is the record's
	 * timestamp converted to ns when it has one, else 0. */
	void (*record)(void *ctx, const struct fxt_record *rec, uint64_t ts_ns);
};

struct sc_stats {
	uint64_t bytes;			/* file size */
	uint64_t records;		/* records read */
	uint64_t switches, wakeups;	/* scheduling records read */
	uint64_t skipped;		/* records not decoded (unknown types) */
	uint64_t late;			/* arrived after their window: skipped */
	size_t first_late_offset;
	uint64_t max_late_ns;		/* how far behind the worst one was */
	size_t max_buffered;		/* peak reorder-buffer entries */
	bool malformed;			/* reading stopped at a bad record */
	struct fxt_error error;
};

struct sc_opts {
	uint64_t reorder_window_ns;	/* 0: SC_DEFAULT_WINDOW_NS */
};

#define SC_DEFAULT_WINDOW_NS	2000000000ULL

/*
 * sc_run() - read @path ("-" = stdin) and feed @h.
 * Return: 0 (also when the file ends in a malformed or truncated record:
 * see @st->malformed), or -1 with errno set when the file cannot be read.
 */
int sc_run(const char *path, const struct sc_opts *opts,
	   const struct sc_handler *h, struct sc_stats *st);

/* Convert ticks at @tps per second to nanoseconds. */
uint64_t sc_ticks_to_ns(uint64_t ticks, uint64_t tps);

#endif /* SCHED_CORE_H */
