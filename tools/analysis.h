/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * analysis.h - scheduler statistics from an ordered stream of scheduling
 * records (sched_core.h): latencies, top latencies with their context,
 * per-CPU and per-thread summaries. Memory grows with the number of
 * threads and CPUs, not with the number of records.
 *
 * A "thread" here is one incarnation of a tid: a kernel object record that
 * gives a tid a different process, or a different name after the tid died,
 * starts a new one (tids are reused). Rows are never removed; the tid index
 * points at the newest incarnation.
 *
 * Incomplete periods: before the trace's first context switch (wakeups
 * recorded while switches are not: other producers, and fxtrace versions
 * that attached sched_switch last; fxtrace now attaches it first, so its
 * traces begin with switches and no wakeups instead) and, per CPU, between
 * the two records_lost markers of a hole. A latency clock started in one,
 * or still running when a hole begins, may have missed its end: the
 * interval is not counted (but counted as such in @skipped_*). The thread
 * running on a CPU when its hole begins may block in it unseen: its state
 * is unknown from then on. A thread not running on a complete CPU while a
 * hole is open may be woken in it unseen (and run, and be preempted), and
 * so may one first seen after a hole (it may have been there) or a new
 * thread that took a dead one's tid there: until it is next seen
 * switching, a wakeup of it may not start its wait, and the interval is
 * not counted either (@thread.unseen).
 */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drop_samples.h"
#include "qdist.h"
#include "sched_core.h"

enum { LAT_WAKEUP = 0, LAT_PREEMPT = 1, LAT_KINDS = 2 };

#define TOP_CTX		8	/* tasks listed per top entry */
#define CPU_HISTORY	1024	/* run segments kept per CPU for `top` */
#define NAME_MAX_LEN	64
#define NO_ROW		UINT32_MAX	/* no thread row */

struct ctx_task {
	uint64_t tid;
	uint32_t row;			/* thread row (NO_ROW for idle) */
	bool idle;
	uint64_t ns;
	uint32_t slices;
};

struct top_entry {
	int kind;
	uint64_t tid;
	uint32_t row, waker_row;	/* thread rows (waker: NO_ROW if unknown) */
	uint64_t latency, start, end;	/* ns */
	uint32_t cpu, wake_cpu;
	uint64_t waker;
	bool has_waker;
	struct ctx_task ctx[TOP_CTX];
	unsigned int nctx;
	uint64_t other_ns;		/* the tasks beyond the TOP_CTX
					 * largest: their time, */
	uint32_t other_slices;		/* and their slices */
	bool truncated;			/* history did not reach @start, or
					 * has a hole inside the interval */
	uint64_t lost_ns;		/* of it in a records_lost hole: what
					 * ran then is not known */
};

struct thread {
	uint64_t tid, pid;
	bool pid_known;
	char name[NAME_MAX_LEN];
	bool named;			/* a kernel object record named it */
	bool dead;			/* switched out dying/dead since */
	bool gone;			/* switched out dead (not dying: a
					 * zombie is still in /proc) since */
	/* scheduling state */
	uint8_t st;
	bool tainted;			/* the clock started in, or ran into,
					 * an incomplete period */
	bool before_start;		/* the clock started before the
					 * trace's first context switch */
	bool unseen;			/* a hole has been open since it was
					 * last seen switching while it was not
					 * running on a complete CPU (or it was
					 * first seen after a hole): it may
					 * have been woken, run and been
					 * preempted there unseen, so a wakeup
					 * seen now may not start its wait */
	/* the holes begun since @analysis.hole_starts was @holes_applied
	 * are applied to @tainted and @unseen when the row is next looked
	 * at (analysis.c apply_holes()), and to every row before
	 * analysis_run() returns */
	uint64_t holes_applied;
	int64_t last_cpu;		/* -1: never seen running */
	uint64_t since;			/* start of the current wait */
	uint32_t wait_cpu;
	uint64_t waker;
	uint32_t waker_row;
	bool has_waker;
	/* a wakeup seen while it ran, at @woken_at: when records of two CPUs
	 * share a timestamp their file order is arbitrary, and a switch-out
	 * blocked at that same time means the wakeup came after it (a thread
	 * woken while still on the runqueue is made runnable, and does not
	 * block): switch_out() then starts the wait at @woken_at */
	bool woken_running;
	uint64_t woken_at, woken_waker;
	uint32_t woken_cpu;
	bool woken_has_waker;
	/* switched in at @in_unwoken_at on @in_unwoken_cpu with no wakeup
	 * seen, asleep (or never seen): a sleeping thread runs only once
	 * woken, so a wakeup at that same time, later in the file, came
	 * first: do_wakeup() counts its wait (0 ns) as switch_in() would
	 * have, or (@in_unwoken_first: the trace's first switch) as begun
	 * before it */
	bool in_unwoken, in_unwoken_first;
	uint64_t in_unwoken_at;
	uint32_t in_unwoken_cpu;
	/* statistics (inside the time window) */
	uint64_t runtime, switches, voluntary, involuntary, migrations;
	uint64_t wakeups;
	uint32_t running_at_end;	/* of @runtime, slices with no switch
					 * to end them, counted up to the
					 * trace's end, inside the window
					 * (close_at_end()) */
	struct qdist lat[LAT_KINDS];
};

struct seg {
	uint64_t tid, start, end;
	uint32_t row;
	bool idle;
	bool lost;			/* not known: a records_lost hole,
					 * from its start to the next switch */
};

#define HOLE_LOST	1	/* struct cpu.in_holes: a records_lost pair */
#define HOLE_SKIPPED	2	/* fxt-collect's bytes_skipped pair */

struct cpu {
	bool seen, known;
	uint8_t in_holes;		/* HOLE_LOST, HOLE_SKIPPED: between a
					 * pair of that kind (they may overlap) */
	bool lost_since;		/* !known since a hole began at @since */
	uint64_t hole_start;		/* where @in_holes last became set */
	uint64_t cur;
	uint32_t cur_row;
	bool cur_idle;
	uint64_t since;
	uint64_t first_ts, last_ts;
	uint64_t busy, idle, switches;
	uint64_t unknown;		/* not known: from a hole's start to
					 * the CPU's next switch (or the
					 * trace's end), clipped to the window;
					 * busy + idle + unknown is the CPU's
					 * time from its first switch */
	bool running_at_end;		/* @busy ends with a thread's slice
					 * with no switch to end it */
	uint64_t lost, holes;		/* kernel loss markers */
	uint64_t skipped, skip_holes;	/* fxt-collect's bytes_skipped */
	struct seg *hist;		/* ring, top mode only */
	unsigned int head, nhist;
};

struct name_entry {
	uint64_t id;
	char name[NAME_MAX_LEN];
};

struct filter {
	uint64_t *pids, *tids;
	size_t npids, ntids;
	const char *comm;		/* fnmatch pattern */
	bool has_from, has_to;
	uint64_t from, to;		/* relative to the trace start, ns */
};

struct ctx_scratch;

struct analysis {
	/* options */
	unsigned int top_n;		/* >0: keep the worst latencies */
	struct filter f;
	FILE *intervals;		/* every latency interval, spooled:
					 * see analysis_spool_intervals() */
	const bool *top_rows;		/* top: rows whose intervals may enter
					 * the list (NULL: every row the --tid
					 * filter wants); see analysis_run() */
	size_t ntop_rows;
	bool text_ns;			/* --ns: durations in the text output
					 * as exact ns (fmt_dur()) */
	/* state */
	unsigned int passes;		/* times the input was read */
	/* top: the top_n worst intervals of the selected threads so far,
	 * in @top (grown as filled, at most top_n), as a min-heap of
	 * indices into it: @top_heap[0] is the one that ranks last */
	struct top_entry *top;
	uint32_t *top_heap;
	unsigned int ntop, cap_top;
	struct ctx_scratch *ctx_scratch; /* for the context of an
					 * interval of top (analysis.c) */
	bool started;
	bool switch_seen;		/* the first context switch was seen */
	unsigned int holes_open;	/* holes open: a CPU inside a records_lost
					 * and a bytes_skipped pair counts 2 */
	uint64_t hole_starts;		/* loss markers that begin or go on
					 * with a hole (records lost or bytes
					 * skipped > 0) */
	uint64_t first_switch;		/* its timestamp */
	uint64_t t0, t_end;		/* first and last scheduling ts */
	uint64_t win_from, win_to;	/* absolute window */
	struct thread *threads;
	size_t nthreads, cap_threads;
	uint32_t *tindex;		/* open addressing: index + 1 */
	size_t tindex_cap;
	struct cpu *cpus;
	uint32_t ncpus;
	struct name_entry *procs;	/* in the order first named */
	size_t nprocs, cap_procs;
	uint32_t *pindex;		/* pid -> procs: open addressing,
					 * index + 1 */
	size_t pindex_cap;
	/* metadata */
	uint64_t drop_events;		/* provider "buffer full" events */
	struct drop_samples drop_samples; /* fxt-collect's records_dropped
					 * samples: one before the rings'
					 * data, one after it */
	uint64_t *cpu_dropped;		/* latest records_dropped counter per CPU */
	uint32_t ncpu_dropped;
	uint64_t lost, holes;		/* records_lost markers, all CPUs */
	uint64_t skipped, skip_holes;	/* fxt-collect's bytes_skipped, all CPUs */
	/* latency intervals not counted (ending inside the window) */
	uint64_t skipped_start;		/* began before the first switch */
	uint64_t skipped_hole;		/* began in or ran into a hole */
	bool hole_in_window;		/* a hole (between its markers, or
					 * from its first to the trace's end)
					 * reaches into the window: a wait
					 * in it may be hidden there whole */
	uint64_t running_at_end;	/* threads' slices with no switch to
					 * end them, counted up to @t_end,
					 * when @win_to is beyond it
					 * (analysis.c close_at_end()) */
	bool oom;
	bool spool_error;		/* the intervals' temporary file failed */
	/* A cut-short trace's results end where its first CPU's records do
	 * (analysis_run(), analysis_cut_end()): @f.has_to and @f.to were
	 * set to that time, the last switch of CPU @cut_cpu. */
	bool cut_to;
	uint32_t cut_cpu;
	struct sc_stats io;
};

void analysis_init(struct analysis *an);
void analysis_free(struct analysis *an);
/* An sc_handler's reset for a struct analysis: forget what was read, keep
 * the options (analysis.c). */
void analysis_reset(void *an);
/* top with a --pid or --comm filter: decided by names and pids that may
 * come at the end of the file, so analysis_run() reads the input twice. */
static inline bool analysis_top_filtered(const struct analysis *an)
{
	return an->top_n && (an->f.npids || an->f.comm);
}
/* Read @path through sched_core into @an. 0, or -1 with errno. For a
 * filtered top (analysis_top_filtered()) it reads the input twice: the
 * first pass finds the threads selected; the second keeps the worst
 * intervals of those. Otherwise once, or twice for a trace cut short
 * (analysis_cut_end()). */
int analysis_run(struct analysis *an, const char *path,
		 const struct sc_opts *opts);
/* What analysis_run() does once the input is read: the slices still
 * running at the trace's end counted up to it, and every thread brought up
 * to date with the holes. For a caller (the fuzz target) that drives
 * sched_core with handlers of its own; the reports want it done. */
void analysis_finish(struct analysis *an);

/* A slot in an open-addressing table of @cap (a power of two) slots for
 * the id @id (a tid, a pid), to probe on from linearly. */
size_t hash_id(uint64_t id, size_t cap);

/*
 * An index of @cap (a power of two) slots over an array of entries, each
 * with a uint64_t id (a tid, a pid) @id_off bytes into its @stride bytes:
 * a slot is 0 (empty) or 1 + an entry's number. id_slot() returns the slot
 * that holds @id's entry, or the empty slot where it goes (linear probing
 * from hash_id()). grow_id_index() replaces *@idx with one of twice the
 * slots (@first_cap the first time) holding the first @n entries, in order
 * (of entries with the same id, the later one wins): false if out of
 * memory, *@idx unchanged.
 */
static inline size_t id_slot(const uint32_t *idx, size_t cap, uint64_t id,
			     const void *entries, size_t stride, size_t id_off)
{
	size_t h = hash_id(id, cap);
	uint64_t at;

	while (idx[h]) {
		memcpy(&at, (const char *)entries +
		       (size_t)(idx[h] - 1) * stride + id_off, sizeof(at));
		if (at == id)
			break;
		h = (h + 1) & (cap - 1);
	}
	return h;
}

bool grow_id_index(uint32_t **idx, size_t *cap, size_t first_cap,
		   const void *entries, size_t n, size_t stride, size_t id_off);

/* Handlers (exposed for tests that feed events directly). */
void analysis_sched(void *ctx, const struct sc_event *ev);
void analysis_record(void *ctx, const struct fxt_record *rec, uint64_t ts,
		     uint64_t tps);

/* The newest incarnation of @tid, or NULL. */
struct thread *analysis_find(struct analysis *an, uint64_t tid);
/* Thread row @row, or NULL for NO_ROW. */
struct thread *analysis_row(struct analysis *an, uint32_t row);
/* Send every latency interval to a temporary file in analysis_tmpdir(),
 * to be printed (with the filters, which may depend on names at the end of
 * the trace) by print_intervals(). 0, or -1 with errno. */
int analysis_spool_intervals(struct analysis *an);
/* Where the temporary file goes: $TMPDIR, or /tmp if unset or empty. */
const char *analysis_tmpdir(void);
bool analysis_selected(const struct analysis *an, const struct thread *t);
/* Does @x rank before @y in top's list: longer, then ended earlier, then
 * the smaller tid. */
bool top_ranks_before(const struct top_entry *x, const struct top_entry *y);
/* top's entries of the selected threads, worst first (malloc'd; *@n of
 * them, at most top_n), or NULL when out of memory. */
struct top_entry *analysis_top(struct analysis *an, size_t *n);
const char *analysis_proc_name(const struct analysis *an, uint64_t pid);
/* The trace was cut short: fxt-collect's records_dropped sample before
 * the rings' data is there, the one it writes after them is not. */
static inline bool analysis_cut_short(const struct analysis *an)
{
	return drop_samples_cut_short(&an->drop_samples);
}

/*
 * Where the results of a cut-short trace read into @an should end, as
 * --to would say it (ns after the trace's start), and the CPU that sets
 * it in *@cpu; 0 when they need not end early. Each CPU's records in the
 * file are a prefix of what its ring held (fxt-collect copies each ring
 * in order, and a cut keeps whole records), but the prefixes end at
 * different times: past the end of one CPU's records, a thread may have
 * run there unseen, so a wait seen ending later on another CPU may have
 * ended sooner. Up to the earliest CPU's last context switch every CPU's
 * records are whole. Not when --to was given (the user's window stands),
 * nor when the window would be empty (--from at or after that time, or
 * the CPU's last switch the trace's first record): the warning then says
 * to distrust the end. A CPU idle at the end ends early too: the results
 * may end well before the trace does, which the warning says.
 */
uint64_t analysis_cut_end(const struct analysis *an, uint32_t *cpu);

enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV };
enum lat_group { GROUP_NONE, GROUP_PROCESS, GROUP_THREAD };

void json_write_string(FILE *out, const char *s, size_t len);

/* Room for any fmt_dur(): "18446744073709551615ns" and its NUL. */
#define DUR_LEN 24
/*
 * A duration in the text output, a number and its unit with no blank (as
 * --from, --to and --reorder-window take them): below 1 us exact ("0ns",
 * "999ns"); otherwise rounded (half up, in integers) to 3 significant
 * digits in us, ms or s ("1.00us", "2.65ms", "350us", "1.20s"), the unit
 * chosen after rounding (999950 ns is "1.00ms", never "1000us"); from
 * 999.5 s on, whole seconds ("18446744074s"). With @raw (--ns), exact ns
 * ("2650000ns"). Returns @buf, of DUR_LEN bytes.
 */
const char *fmt_dur(char *buf, uint64_t ns, bool raw);
/*
 * A time in the text output, exact, with its unit and no blank, so that it
 * can be given back to --from and --to: seconds and 9 decimals
 * ("2.998519357s"), with @raw (--ns) ns ("2998519357ns"). Returns @buf, of
 * DUR_LEN bytes.
 */
const char *fmt_time(char *buf, uint64_t ns, bool raw);
/* Text output: the trace's start on its own clock, and that the times
 * after it count from it, as --from and --to do (nothing before the
 * first scheduling record). */
void print_trace_start(const struct analysis *an, FILE *out);
/* latency's report. @limit: with @group, list only the @limit threads
 * (processes) with the longest waits, longest first (0: all, by tid, or
 * processes in the order of their first thread). */
void print_latency(struct analysis *an, FILE *out, enum out_format fmt,
		   enum lat_group group, unsigned int limit);
void print_top(struct analysis *an, FILE *out, enum out_format fmt);
void print_summary(struct analysis *an, FILE *out, enum out_format fmt,
		   unsigned int limit);
/* The spooled intervals of the selected threads (CSV for text and csv). */
void print_intervals(struct analysis *an, FILE *out, enum out_format fmt);
/* stderr: late/malformed/unknown-record warnings. */
void print_input_warnings(const struct analysis *an, const char *path,
			  FILE *err);

#endif /* ANALYSIS_H */
