/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * archive_meta.h - the records fxt-collect adds around the ring data.
 *
 * The kernel writes only scheduling records. Everything else a reader needs
 * is written here, as the Fuchsia trace manager would:
 *
 *   preamble: magic, provider info (1, "fxtrace"), provider section (1),
 *             initialization (1e9 ticks/s: timestamps are nanoseconds),
 *             String records for the kernel's argument names
 *             (FXTRACE_STRING_TABLE) and for the collector's own strings
 *   objects:  a process kernel object (obj type 1, koid = pid, name) per
 *             process and a thread kernel object (obj type 2, koid = tid,
 *             name, koid argument "process" = pid) per thread: at the start
 *             for every task in /proc, while tracing for each thread the
 *             first time it appears, and at the end for every tid seen
 *             (readers take the last record for a koid)
 *   markers:  records-dropped markers whenever a ring lost records
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

/**
 * archive_write_drop_marker() - mark that @cpu's ring has lost records
 * @dropped_total: the ring's cumulative records_dropped
 * @timestamp:     when (ctrl->last_drop_ns), in ns
 *
 * Writes a provider event "buffer filled up" (metadata type 3, event 0),
 * which the format defines but Perfetto ignores, and a counter event that
 * Perfetto shows as the track "records_dropped:cpuN" (category "fxtrace",
 * pid 0 / tid 0 inline, one uint64 argument "cpuN" = @dropped_total).
 * This is the one place to change if a better marker is found.
 */
int archive_write_drop_marker(struct fxt_writer *w, unsigned int cpu,
			      uint64_t dropped_total, uint64_t timestamp);

#endif /* ARCHIVE_META_H */
