/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * dump.h - what fxt-dump's source files share: struct stats, which every
 * record read is counted into, and the functions one file calls in
 * another.
 *
 * fxt-dump is one run (fxt_dump.c, whose opening comment says which file
 * holds which job), split by job into files. A function only its own
 * file uses stays static there, so what is declared here is the whole of
 * what the files ask of each other.
 */
#ifndef DUMP_H
#define DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "drop_samples.h"
#include "fxt_read.h"
#include "tid_set.h"

/* Named counter values seen in "records_dropped" markers. */
struct drop_counter {
	char *name;		/* a copy of the file's bytes: print_name() */
	size_t len;
	uint64_t value;
};

/*
 * The holes one CPU's data has, by their markers: pairs of counter events
 * (counter id = the CPU, int64 argument "cpu": the amount at the hole's
 * start, then 0 where the CPU's records resume). "records_lost": the
 * kernel's loss markers, records lost because the ring was full (uapi
 * "Loss markers"; fxt-collect writes the same pair for records dropped
 * after a ring's last record). "bytes_skipped": fxt-collect's, ring data
 * it skipped as invalid, in bytes. Recognised by fxt_loss_marker(), as
 * fxt-sched recognises them: each non-zero sample is one hole.
 *
 * A hole whose 0 never comes (the trace ends between the two markers: the
 * collector was killed, or the file cut) is open: its end is not known, so
 * the CPU's records may be missing from its start to the end of the trace,
 * and --summary says so. As in fxt-sched (struct cpu's in_hole), a CPU
 * is in a hole or not: a 0 of either kind ends it, and a non-zero sample
 * inside one counts a hole but opens no second one.
 */
struct hole_count {
	uint64_t amount;	/* records (records_lost) or bytes (bytes_skipped) */
	uint64_t holes;
	uint64_t open;		/* still open: per CPU 0 or 1 */
};

struct cpu_holes {
	struct hole_count lost;		/* records_lost */
	struct hole_count skipped;	/* bytes_skipped */
};

#define SEEN_SLOTS	1024

struct stats {
	uint64_t records;
	uint64_t by_type[16];
	uint64_t meta_by_kind[16];
	uint64_t sched_by_kind[16];
	uint64_t events_by_kind[16];
	uint64_t magic;			/* trace info records of type magic */
	/*
	 * Earliest and latest timestamp. Ticks are per provider (its
	 * initialization record's rate, else 1e9): with timestamps of more
	 * than one rate only seconds compare, and first_s/last_s are kept.
	 */
	uint64_t first_ts, last_ts;
	uint64_t ts_rate;		/* ticks per second of the first one */
	bool mixed_rates;		/* timestamps of more than one rate */
	double first_s, last_s;		/* only with mixed_rates */
	bool have_ts;
	uint64_t *cpu_switches, *cpu_wakeups;	/* indexed by CPU */
	unsigned int ncpus;
	/*
	 * Tids of scheduling records; koids of thread and process objects,
	 * each once (a thread or process may be named again, at its exec).
	 */
	struct tid_set seen_tids, named_tids, named_processes;
	/*
	 * Tids known to be in seen_tids, direct-mapped by tid % SEEN_SLOTS
	 * (0: empty): most records repeat a few tids, and a compare is much
	 * cheaper than a hash-set add (about a tenth of --check's time).
	 */
	uint64_t seen_cache[SEEN_SLOTS];
	uint64_t buffer_full_events;
	struct drop_samples drop_samples;	/* fxt-collect's, cut short? */
	struct drop_counter *drops;	/* one per argument name */
	size_t ndrops, drops_cap;
	/*
	 * drops[] by name: 2 * drops_cap slots of index + 1 (0: empty), open
	 * addressing. A file can name any number of counters: a search of
	 * the array for each would take time quadratic in them.
	 */
	size_t *drop_slots;
	struct cpu_holes *holes;	/* indexed by the markers' CPU */
	unsigned int nhole_cpus;
	struct cpu_holes hole_totals;	/* all CPUs */
	bool oom;
	bool input_lost;	/* the mapped file shrank: no totals to give */
};

/* dump_print.c: a record printed; names and thread refs as it prints them. */
void print_record(const struct fxt_reader *r, const struct fxt_record *rec);
void print_name(const struct fxt_str *s);
bool thread_undefined(const struct fxt_reader *r,
		      const struct fxt_thread_ref *t);

/* dump_stats.c: each record counted; what --check and --summary print. */
void note_record(struct stats *st, const struct fxt_reader *r,
		 const struct fxt_record *rec);
void print_counts(FILE *f, const struct stats *st);
void print_summary(struct stats *st, const char *path, size_t len);
void free_stats(struct stats *st);

#endif /* DUMP_H */
