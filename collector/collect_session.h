/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * collect_session.h - what fxt-collect's source files share: the one
 * struct session that main() runs from start to exit, a struct cpu_ring
 * per mapped CPU, and the functions one file calls in another.
 *
 * fxt-collect is one lifecycle (fxt_collect.c, whose opening comment says
 * which file holds which step), split by job into files that all work on
 * the session. A function only its own file uses stays static there, so
 * what is declared here (and in collect_signals.h) is the whole of what
 * the files ask of each other.
 */
#ifndef COLLECT_SESSION_H
#define COLLECT_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/fxtrace.h>

#include "collect_options.h"
#include "fxt_write.h"
#include "name_order.h"
#include "ring_drain.h"
#include "tid_set.h"
#include "trace_output.h"

/* Where the names of running and traced threads are read. */
#define PROC_ROOT		"/proc"

/**
 * struct cpu_ring - one CPU's mapped ring
 * @cpu:          the CPU number
 * @ctrl:         the control page mapping
 * @data:         the data area mapping (read-only)
 * @size:         its bytes: info.buf_size, or FXTRACE_BUF_SIZE_MIN for a
 *                CPU the module found possible but not present
 * @absent:       that CPU: @size is FXTRACE_BUF_SIZE_MIN, not -b's
 * @ring:         the consumer state (ring_drain.h)
 * @dropped_seen: ctrl->records_dropped when we last emitted a drop marker
 * @warned:       we already warned about invalid data on this ring
 */
struct cpu_ring {
	unsigned int cpu;
	struct fxtrace_ctrl *ctrl;
	void *data;
	uint64_t size;
	bool absent;
	struct ring ring;
	uint64_t dropped_seen;
	bool warned;
};

struct session {
	struct collect_options opts;
	int fd;
	struct fxtrace_info info;
	struct cpu_ring *rings;
	unsigned int nrings;
	struct trace_output out;
	bool out_open;
	struct fxt_writer meta;		/* scratch for collector records */
	uint64_t self_pid;		/* owner of the drop counter track */
	struct tid_set tids;		/* every tid seen in ring data */
	struct tid_set named_threads;	/* tids with a thread object */
	struct tid_set named_processes;	/* pids with a process object */
	struct name_order names;	/* the kernel's newest name per koid */
	uint64_t names_rewritten;	/* names written again, in time order */
	bool names_incomplete;		/* out of memory while noting a name */
	/*
	 * Tids not named yet, in the order they were first seen: the first
	 * nready were seen in an earlier drain cycle than the rest.
	 */
	uint64_t *new_tids;
	size_t nnew, nready, new_cap;
	bool tids_incomplete;		/* out of memory while adding */
	bool proc_blind;		/* PROC_ROOT lists no task (not us) */
	bool tracing;
	bool traced;			/* START succeeded at some point */
	bool failed;			/* a step failed: exit status 1 */
	bool write_failed;		/* the output is broken: write no more */
	/*
	 * Output offset where the fixed preamble (magic, provider, tick
	 * rate, strings) ends: a file cut back to before it holds no trace.
	 */
	uint64_t preamble_end;
	/*
	 * START asked for (the first probe attaches, and records start,
	 * before START returns), START returned (-d counts from here),
	 * STOP returned.
	 */
	struct timespec attaching, started, stopped;
	/*
	 * CLOCK_BOOTTIME just before START: every record of the session is
	 * later. Where a hole in a ring that had no record yet begins.
	 */
	uint64_t attach_ns;
	uint64_t skip_markers;		/* bytes-skipped pairs written */
	uint64_t tail_loss_markers;	/* records-lost pairs we wrote */
	uint64_t tail_lost;		/* the records they mark */
	unsigned int draining_cpu;	/* the ring drain_all() is at */
	uint64_t ring_bytes_out;	/* of its data, what the output took */
	const char *marker_failed;	/* the marker a drain failed writing */
	uint64_t cut_bytes;		/* what output_failed() cut off */
	uint64_t threads_gone;		/* seen, but exited before naming */
	sigset_t saved_mask;
	sigset_t ignored_at_start;	/* of handled_signals[], for COMMAND */

	pid_t child;			/* COMMAND, or 0 */
	bool child_running;
	int child_status;		/* waitpid() status once it exited */
	int exec_errno;			/* COMMAND could not be started */
	bool command_not_run;		/* a stop or -d came first */
	bool child_abandoned;		/* stopped by a second signal */
	/* stop_signals when COMMAND was found exited (own_stop_signals()) */
	int command_signals;

	/* -d: when tracing stops (CLOCK_MONOTONIC) */
	struct timespec deadline;
	/* A stop signal came before START: nothing traced, exit 128+N. */
	bool interrupted_early;
	/*
	 * A stop by signal was acted upon, with @stop_count signals counted
	 * then: one more, or @patience_ms with no byte taken by the output
	 * since @progress_at (at @progress_offset), gives up the rest.
	 */
	bool stopping;
	int stop_count;
	struct timespec progress_at;
	uint64_t progress_offset;
	const char *gave_up;		/* why the rest was not written */
	uint64_t gave_up_bytes;		/* what the rings held unwritten then */
};

/*
 * fxt_collect.c: a message on stderr ("fxt-collect: ..."), a step that
 * failed (its error, what to do, the session marked failed), and time.
 */
__attribute__((format(printf, 1, 2)))
void msg(const char *fmt, ...);
int step_failed(struct session *s, const char *step, int err,
		const char *hint);
double seconds_between(const struct timespec *a, const struct timespec *b);
uint64_t boottime_ns(void);

/* fxt_collect.c: the -d deadline, a stop before START, and STOP. */
bool deadline_passed(const struct session *s, const struct timespec *now);
int stopped_early(struct session *s);
void stop_tracing(struct session *s);

/* collect_device.c: the device, from open() to the mapped rings. */
int open_device(struct session *s);
int get_info(struct session *s);
int configure(struct session *s);
int map_rings(struct session *s);

/* collect_command.c: COMMAND, and which stop signals are its. */
int own_stop_signals(const struct session *s);
void reap_child(struct session *s);
void forward_signal(struct session *s);
int check_command(struct session *s);
int start_command(struct session *s);
void wait_for_command(struct session *s);
void report_command_status(const struct session *s);

/* collect_output.c: the trace file's content, and how its writes end. */
int open_output(struct session *s);
int build_preamble(struct session *s);
int write_preamble(struct session *s);
int sample_drop_counters(struct session *s);
long long drain_all(struct session *s, bool final);
void note_stop(struct session *s);
void write_trailer(struct session *s);
void close_output(struct session *s);

/* collect_summary.c: the end's report, and sizes as it writes them. */
void human_bytes(uint64_t bytes, char *buf, size_t size);
void print_summary(struct session *s);
int exit_status(const struct session *s);

#endif /* COLLECT_SESSION_H */
