/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * analysis.h - scheduler statistics from an ordered stream of scheduling
 * records (sched_core.h): latencies, top latencies with their context,
 * per-CPU and per-thread summaries. Memory grows with the number of
 * threads and CPUs, not with the number of records.
 */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include <stdio.h>

#include "qdist.h"
#include "sched_core.h"

enum { LAT_WAKEUP = 0, LAT_PREEMPT = 1, LAT_KINDS = 2 };

#define TOP_CTX		8	/* tasks listed per top entry */
#define CPU_HISTORY	1024	/* run segments kept per CPU for `top` */
#define NAME_MAX_LEN	64

struct ctx_task {
	uint64_t tid;
	bool idle;
	uint64_t ns;
	uint32_t slices;
};

struct top_entry {
	int kind;
	uint64_t tid;
	uint64_t latency, start, end;	/* ns */
	uint32_t cpu, wake_cpu;
	uint64_t waker;
	bool has_waker;
	struct ctx_task ctx[TOP_CTX];
	unsigned int nctx;
	uint64_t other_ns;		/* tasks beyond TOP_CTX */
	uint32_t other_tasks;
	bool truncated;			/* history did not reach @start */
};

struct thread {
	uint64_t tid, pid;
	bool pid_known;
	char name[NAME_MAX_LEN];
	/* scheduling state */
	uint8_t st;
	int64_t last_cpu;		/* -1: never seen running */
	uint64_t since;			/* start of the current wait */
	uint32_t wait_cpu;
	uint64_t waker;
	bool has_waker;
	/* statistics (inside the time window) */
	uint64_t runtime, switches, voluntary, involuntary, migrations;
	uint64_t wakeups;
	struct qdist lat[LAT_KINDS];
	struct top_entry *top;		/* per-thread worst, top mode only */
	unsigned int ntop;
};

struct seg {
	uint64_t tid, start, end;
	bool idle;
};

struct cpu {
	bool seen, known;
	uint64_t cur;
	bool cur_idle;
	uint64_t since;
	uint64_t first_ts, last_ts;
	uint64_t busy, idle, switches;
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

struct analysis {
	/* options */
	unsigned int top_n;		/* >0: keep the worst latencies */
	struct filter f;
	FILE *intervals;		/* stream every latency interval (CSV) */
	/* state */
	bool started;
	uint64_t t0, t_end;		/* first and last scheduling ts */
	uint64_t win_from, win_to;	/* absolute window */
	struct thread *threads;
	size_t nthreads, cap_threads;
	uint32_t *tindex;		/* open addressing: index + 1 */
	size_t tindex_cap;
	struct cpu *cpus;
	uint32_t ncpus;
	struct name_entry *procs;
	size_t nprocs, cap_procs;
	/* metadata */
	uint64_t drop_events;		/* provider "buffer full" events */
	uint64_t *cpu_dropped;		/* latest records_dropped counter per CPU */
	uint32_t ncpu_dropped;
	bool oom;
	struct sc_stats io;
};

void analysis_init(struct analysis *an);
void analysis_free(struct analysis *an);
/* Read @path through sched_core into @an. 0, or -1 with errno. */
int analysis_run(struct analysis *an, const char *path,
		 const struct sc_opts *opts);

/* Handlers (exposed for tests that feed events directly). */
void analysis_sched(void *ctx, const struct sc_event *ev);
void analysis_record(void *ctx, const struct fxt_record *rec, uint64_t ts);

struct thread *analysis_find(struct analysis *an, uint64_t tid);
bool analysis_selected(const struct analysis *an, const struct thread *t);
const char *analysis_proc_name(const struct analysis *an, uint64_t pid);

enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV };
enum lat_group { GROUP_NONE, GROUP_PROCESS, GROUP_THREAD };

void json_write_string(FILE *out, const char *s, size_t len);
void print_latency(struct analysis *an, FILE *out, enum out_format fmt,
		   enum lat_group group);
void print_top(struct analysis *an, FILE *out, enum out_format fmt);
void print_summary(struct analysis *an, FILE *out, enum out_format fmt,
		   unsigned int limit);
/* stderr: late/malformed/unknown-record warnings. */
void print_input_warnings(const struct analysis *an, const char *path,
			  FILE *err);

#endif /* ANALYSIS_H */
