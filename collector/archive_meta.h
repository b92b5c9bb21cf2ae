/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * archive_meta.h - the records fxt-collect adds around the ring data.
 *
 * The kernel writes scheduling records, name records (kernel objects, at
 * fork, exec and rename) and loss markers (uapi header, "Records").
 * Everything else a reader needs is written here, as the Fuchsia trace
 * manager would:
 *
 *   preamble: magic, provider info (1, "fxtrace"), provider section (1),
 *             initialization (1e9 ticks/s: timestamps are nanoseconds),
 *             String records for the kernel's argument names
 *             (FXTRACE_STRING_TABLE) and for the collector's own strings
 *   objects:  a process kernel object (obj type 1, koid = pid, name) per
 *             process and a thread kernel object (obj type 2, koid = tid,
 *             name, koid argument "process" = pid) per thread: at the start
 *             for every task in /proc, while tracing again in time order
 *             when a kernel name record reached the file late, from /proc
 *             for a thread no kernel record named, and at the end for
 *             every tid seen
 *             (readers take the last record for a koid)
 *   markers:  records-dropped markers whenever a ring lost records,
 *             bytes-skipped markers where the collector skipped invalid
 *             ring data, and the kernel's own records-lost markers for
 *             what a ring lost after its last record (the kernel marks a
 *             loss only with the next record that fits)
 *
 * All functions append whole records to a struct fxt_writer and return 0
 * or a negative errno from it.
 */
#ifndef ARCHIVE_META_H
#define ARCHIVE_META_H

#include "fxt_write.h"
#include "tid_set.h"

#define ARCHIVE_PROVIDER_ID	1
#define ARCHIVE_PROVIDER_NAME	"fxtrace"
#define ARCHIVE_TICKS_PER_SECOND 1000000000ULL	/* CLOCK_BOOTTIME ns */

/* String indices the collector adds after the kernel's (FXTRACE_STR_COUNT). */
#define ARCHIVE_STR_CATEGORY		(FXTRACE_STR_COUNT + 0)	/* "fxtrace" */
#define ARCHIVE_STR_RECORDS_DROPPED	(FXTRACE_STR_COUNT + 1)	/* "records_dropped" */
#define ARCHIVE_STR_BYTES_SKIPPED	(FXTRACE_STR_COUNT + 2)	/* "bytes_skipped" */

/*
 * An index of the kernel's reused here would be redefined by the preamble
 * (a later String record wins), renaming that argument in every kernel
 * record after it; two of ours sharing one would lose a name. The
 * definitions above make this true; this keeps it true if either side is
 * renumbered. A test cannot catch it: the preamble would still write each
 * text once, under the index it was given.
 */
_Static_assert(ARCHIVE_STR_CATEGORY >= FXTRACE_STR_COUNT &&
	       ARCHIVE_STR_RECORDS_DROPPED >= FXTRACE_STR_COUNT &&
	       ARCHIVE_STR_BYTES_SKIPPED >= FXTRACE_STR_COUNT &&
	       ARCHIVE_STR_CATEGORY != ARCHIVE_STR_RECORDS_DROPPED &&
	       ARCHIVE_STR_CATEGORY != ARCHIVE_STR_BYTES_SKIPPED &&
	       ARCHIVE_STR_RECORDS_DROPPED != ARCHIVE_STR_BYTES_SKIPPED &&
	       ARCHIVE_STR_RECORDS_DROPPED <= FXT_MAX_STRING_INDEX &&
	       ARCHIVE_STR_BYTES_SKIPPED <= FXT_MAX_STRING_INDEX &&
	       ARCHIVE_STR_CATEGORY <= FXT_MAX_STRING_INDEX,
	       "the collector's string indices must be its own, after the kernel's, and fit 15 bits");

/* Magic, provider info/section, initialization, string table. */
int archive_write_preamble(struct fxt_writer *w);

/* One process kernel object. */
int archive_write_process(struct fxt_writer *w, uint64_t pid,
			  const char *name);

/* One thread kernel object with its "process" koid argument. */
int archive_write_thread(struct fxt_writer *w, uint64_t tid, uint64_t pid,
			 const char *name);

/**
 * archive_write_all_tasks() - objects for every process and thread now in
 * @proc_root; each thread's tid goes into @threads and each process's pid
 * into @processes (either may be NULL).
 * Return: 0 or a negative errno.
 */
int archive_write_all_tasks(struct fxt_writer *w, const char *proc_root,
			    struct tid_set *threads, struct tid_set *processes);

/**
 * archive_write_new_task() - name a thread the first time it shows up in
 * the ring data, while it is still alive (short-lived threads are gone by
 * the end of the trace). Adds @tid to @threads; writes the process object
 * too unless @processes already has its pid.
 * Return: 1 if written, 0 if the thread has already exited, or -errno.
 */
int archive_write_new_task(struct fxt_writer *w, const char *proc_root,
			   uint64_t tid, struct tid_set *threads,
			   struct tid_set *processes);

/**
 * archive_write_seen_tasks() - objects for every tid in @tids that is still
 * alive (tid 0, the idle tasks, is skipped), plus a process object for each
 * of their processes, so the last name a thread had wins. Tids neither
 * alive nor in @named (may be NULL) are counted in *@missing (may be NULL).
 */
int archive_write_seen_tasks(struct fxt_writer *w, const char *proc_root,
			     const struct tid_set *tids,
			     const struct tid_set *named, uint64_t *missing);

/* One CPU's cumulative records_dropped, as a counter sample. */
struct drop_count {
	unsigned int cpu;
	uint64_t dropped;
};

/**
 * archive_write_drop_counters() - sample the records-dropped counters
 * @pid, @tid:  the thread the counter belongs to: fxt-collect's own (a
 *              named process; pid 0 would make Perfetto invent one)
 * @timestamp:  when, in ns (CLOCK_BOOTTIME)
 * @counts:     one entry per CPU to sample
 *
 * Counter events (type 4, event type 1, counter id 0), category "fxtrace",
 * name "records_dropped", one int64 argument "cpuN" per CPU (at most 15 per
 * event, so several events for many CPUs). Perfetto shows one step track
 * "records_dropped:cpuN:0" per CPU under the fxt-collect process. The
 * collector samples every CPU at the start (all zero: a lossless trace
 * shows flat tracks) and at the end, and a CPU whenever it lost records.
 */
int archive_write_drop_counters(struct fxt_writer *w, uint64_t pid,
				uint64_t tid, uint64_t timestamp,
				const struct drop_count *counts, size_t n);

/**
 * archive_write_drop_marker() - mark that a ring has just lost records
 *
 * A provider event "buffer filled up" (metadata type 3, event 0; the
 * format's own marker, which Perfetto ignores) followed by a counter sample
 * for that CPU (archive_write_drop_counters()) at @timestamp, the ring's
 * last_drop_ns. This is the one place to change if a better marker is found.
 */
int archive_write_drop_marker(struct fxt_writer *w, uint64_t pid,
			      uint64_t tid, unsigned int cpu,
			      uint64_t dropped_total, uint64_t timestamp);

/**
 * archive_write_skip_marker() - mark a hole left by invalid ring data
 * @pid, @tid: the thread the counter belongs to, as for the drop counters
 * @cpu:       the ring's CPU: the counter id
 * @bytes:     what struct ring_hole says was skipped (> 0)
 * @from, @to: the hole: the last record's timestamp before it, the first
 *             one's after it (or the end of the session)
 *
 * The kernel's loss markers (uapi "Loss markers", decision 7) in shape: a
 * pair of counter events, category "fxtrace", counter id = CPU, one int64
 * argument "cpu": @bytes at @from, then 0 at @to. Named "bytes_skipped",
 * not "records_lost": what was skipped is bytes that were not whole
 * records, or an unknown amount (the ring's size is the bound), never a
 * count of records. Perfetto draws the pair as a block spanning the hole
 * on the counter track "bytes_skipped:cpu:<cpu>", beside the kernel's
 * "records_lost:cpu:<cpu>".
 */
int archive_write_skip_marker(struct fxt_writer *w, uint64_t pid,
			      uint64_t tid, unsigned int cpu, uint64_t bytes,
			      uint64_t from, uint64_t to);

/**
 * archive_write_lost_marker() - mark records a ring lost as the kernel does
 * @pid, @tid: the session opener's process and thread: the kernel's
 *             markers are on its track (uapi "Loss markers")
 * @cpu:       the ring's CPU: the counter id
 * @lost:      records lost (> 0)
 * @from, @to: the hole
 *
 * The module's loss-marker pair, word for word (kmod/fxtrace_ring.c): two
 * 7-word counter events, category FXTRACE_STR_FXTRACE, name
 * FXTRACE_STR_RECORDS_LOST, the inline thread @pid/@tid, one int64
 * argument FXTRACE_STR_CPU: @lost at @from, then 0 at @to. For the records
 * a ring dropped after its last record, which the module cannot mark
 * (ring_unmarked_loss()): Perfetto and fxt-sched see them as one more hole
 * on "records_lost:cpu:<cpu>".
 */
int archive_write_lost_marker(struct fxt_writer *w, uint64_t pid,
			      uint64_t tid, unsigned int cpu, uint64_t lost,
			      uint64_t from, uint64_t to);

#endif /* ARCHIVE_META_H */
