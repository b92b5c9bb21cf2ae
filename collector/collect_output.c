// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * collect_output.c - what fxt-collect writes to the trace file, and when:
 * the preamble with every task in /proc (built before START, written
 * after it), each drain cycle's ring data and the records the collector
 * adds around it (records-dropped, bytes-skipped and records-lost
 * markers; thread and process names, put back in time order), the thread
 * names at the end; and what a write that blocks or fails does (a stop
 * meanwhile, the rest given up after a stop signal, the file cut back to
 * its last whole record).
 *
 * The ring bytes are copied to the file verbatim (ring_drain.c); this file
 * only adds the metadata around them (archive_meta.c).
 *
 * A file of its own because fxt_collect.c decides when something is
 * written (the steps of main(), the loop's drain cycles) and this what
 * goes out and how a write may end. trace_output.c is the file itself:
 * opened, committed, cut back, watched by the guard process.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "archive_meta.h"
#include "collect_session.h"
#include "collect_signals.h"
#include "fxt_write.h"
#include "name_order.h"
#include "ring_drain.h"
#include "tid_set.h"
#include "trace_output.h"

/*
 * After a stop signal, the output must take data: if none for this long,
 * the rest is given up (a stalled pipe reader, a FIFO nobody reads).
 */
#define STOP_PATIENCE_MS	2000

/* ---- stopping while writing ------------------------------------------ */

/*
 * Stop signals are acted upon: from now on the output has to take data, at
 * least once every STOP_PATIENCE_MS, and one more signal gives up the rest.
 */
void note_stop(struct session *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	s->stop_count = stop_signals;
	clock_gettime(CLOCK_MONOTONIC, &s->progress_at);
	s->progress_offset = s->out.offset;
}

/*
 * A write() to the output was interrupted: by a signal, or by the kick
 * timer while it was stuck. A stop signal, the -d deadline or COMMAND's
 * exit stops tracing right away (the trace ends now, not when the output
 * takes the data again: a reader that stalls would otherwise stretch the
 * trace past its end, and fill the rings until they drop); the data
 * already taken from the rings is still written. 0: go on writing; -EINTR
 * (one more signal) or -ETIMEDOUT (nothing taken for STOP_PATIENCE_MS
 * after a stop signal): give up the rest. After -d or COMMAND's exit the
 * output may take as long as it needs, as for a reader that is just slow.
 */
static int output_interrupted(void *ctx)
{
	struct session *s = ctx;
	struct timespec now;

	reap_child(s);
	forward_signal(s);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (own_stop_signals(s) > 0)
		note_stop(s);
	if (s->tracing && (s->stopping || deadline_passed(s, &now) ||
			   (s->child && !s->child_running)))
		stop_tracing(s);
	if (!s->stopping)
		return 0;
	if (stop_signals > s->stop_count)
		return -EINTR;
	if (s->out.offset != s->progress_offset) {
		s->progress_offset = s->out.offset;
		s->progress_at = now;
		return 0;
	}
	if (seconds_between(&s->progress_at, &now) * 1000 >= STOP_PATIENCE_MS)
		return -ETIMEDOUT;
	return 0;
}

/*
 * Every write to the output. Only a pipe, FIFO, socket or terminal can
 * block for long (a write() to a regular file is not interrupted): for
 * those, the kick timer runs while the write does.
 */
static int out_write(struct session *s, const void *buf, size_t len)
{
	int err;

	if (s->out.regular)
		return trace_output_write(&s->out, buf, len);
	kick_timer(true);
	err = trace_output_write(&s->out, buf, len);
	kick_timer(false);
	return err;
}

/* ---- output ----------------------------------------------------------- */

int open_output(struct session *s)
{
	char step[300];
	struct stat st;
	int err;

	/*
	 * A FIFO nobody opened for reading yet: a stop signal ends the wait
	 * (EINTR). One handled just before open() began would not: the kick
	 * timer interrupts the wait, and each time no stop came, open again.
	 */
	kick_timer(true);
	do
		err = trace_output_open(&s->out, s->opts.output);
	while (err == -EINTR && !stop_signals);
	kick_timer(false);
	if (err == -EINTR && stopped_early(s))
		return -1;
	if (!err) {
		s->out_open = true;
		s->out.interrupted = output_interrupted;
		s->out.interrupted_ctx = s;
		/* Without it the trace still works; only SIGKILL is uncovered. */
		err = trace_output_start_guard(&s->out);
		if (err)
			msg("warning: starting the guard process failed (%s): if fxt-collect is killed by SIGKILL, %s may end in a cut last record: " TRACE_OUTPUT_CUT_LAST,
			    strerror(-err), s->out.path);
		return 0;
	}
	if (err == -ENOENT && lstat(s->opts.output, &st) == 0 &&
	    S_ISLNK(st.st_mode)) {
		msg("%s is a symbolic link to a file that does not exist: fxt-collect does not create a file through a link",
		    s->opts.output);
		msg("give the file's own path with -o, or create it first");
		s->failed = true;
		return -1;
	}
	snprintf(step, sizeof(step), "creating the trace file %s", s->opts.output);
	return step_failed(s, step, -err,
			   "choose a writable location with -o FILE (or -o - for stdout)");
}

/*
 * A write failed: cut the file back to its last whole record (what the
 * cut took off in s->cut_bytes; a marker, or a batch of names, is cut
 * whole: write_meta()), say so, and write nothing more.
 */
static int output_failed(struct session *s, int err, const char *what)
{
	char step[300], none[TRACE_OUTPUT_NO_TRACE_SIZE], unread[32];
	uint64_t pending = 0, before;
	unsigned int i;
	bool no_trace, storage;
	int rb;

	s->write_failed = true;
	if (s->stopping && (err == -EINTR || err == -ETIMEDOUT)) {
		/* Given up after a stop signal (output_interrupted()). */
		for (i = 0; i < s->nrings; i++)
			pending += ring_pending(&s->rings[i].ring);
		s->gave_up_bytes = pending;
		human_bytes(pending, unread, sizeof(unread));
		s->gave_up = err == -EINTR ? "another signal came" :
			     "it took no data";
		if (err == -EINTR)
			msg("stopping: another signal came while writing %s to %s: gave up the rest",
			    what, s->out.path);
		else
			msg("stopping: %s took no data for %d s (a reader that does not read?): gave up the rest",
			    s->out.path, STOP_PATIENCE_MS / 1000);
		msg("not written: the rest of %s, %s the rings still held, and the thread names at the end",
		    what, unread);
	} else {
		snprintf(step, sizeof(step), "writing %s to %s", what, s->out.path);
		step_failed(s, step, -err,
			    err == -ENOSPC || err == -EDQUOT || err == -EFBIG ?
			    "the disk is full (or a size limit was hit): free space or write elsewhere with -o" :
			    err == -EPIPE ? "the reader of the output went away" : NULL);
	}
	before = s->out.offset;
	rb = trace_output_rollback(&s->out);
	s->cut_bytes = before - s->out.offset;
	/*
	 * Not even the preamble went out whole (commits come after it): no
	 * trace, however the writing ended, so no "trace written" exit 3
	 * after a give-up either.
	 */
	no_trace = s->out.committed < s->preamble_end;
	if (no_trace)
		s->failed = true;
	/*
	 * Said as it happened, not as the cut's success claims: on a file
	 * that stat calls regular but that is no storage (/proc/version, to
	 * root), ftruncate() succeeds and changes nothing. Not one byte of
	 * the trace went out, and nothing was cut off what the file held:
	 * it is as it was, whatever it is.
	 */
	storage = rb != 0 || trace_output_ends_at_offset(&s->out);
	if (rb == 0 && before == s->out.start && !s->out.emptied &&
	    !s->out.created) {
		msg("no trace was written: none of it got into %s, which was left as it was%s",
		    s->out.path, storage ? "" :
		    " (it reads back what it held: not a file a trace can be written to; write elsewhere with -o)");
	} else if (!storage) {
		msg("%s could not be cut back to %llu bytes: it still holds more (not a file a trace can be written to; write elsewhere with -o), and is no valid trace",
		    s->out.path, (unsigned long long)s->out.offset);
	} else if (rb == 0 && no_trace) {
		trace_output_no_trace(&s->out, s->out.committed, none,
				      sizeof(none));
		msg("%s", none);
	} else if (rb == -ESPIPE && no_trace) {
		msg("no trace was written: the reader of %s got %llu bytes of the trace's start (its preamble), and no record of the kernel's",
		    s->out.path,
		    (unsigned long long)(before - s->out.start));
	} else if (rb == 0)
		msg("%s was cut back to its last whole record (%llu bytes); it is still a valid trace",
		    s->out.path, (unsigned long long)s->out.committed);
	else if (rb != -ESPIPE)
		msg("cutting %s back to its last whole record failed: %s",
		    s->out.path, strerror(-rb));
	else if (s->gave_up && s->out.offset != s->out.committed)
		msg("%s cannot be cut back: its reader may get a cut last record: " TRACE_OUTPUT_CUT_LAST,
		    s->out.path);
	return -1;
}

/*
 * Write out and forget the records collected in s->meta, all or nothing:
 * committed before and after, so a write cut in the middle is cut whole
 * (a marker pair without its second record, a hole's start without its
 * end, would tell a reader something the summary does not). What was
 * written before is whole records. Return 0 or -errno.
 */
static int write_meta(struct session *s)
{
	int err;

	trace_output_commit(&s->out);
	err = out_write(s, fxt_writer_data(&s->meta),
			fxt_writer_bytes(&s->meta));
	fxt_writer_reset(&s->meta);
	if (!err)
		trace_output_commit(&s->out);
	return err;
}

/* write_meta(), or on failure cut back and say so (output_failed()). */
static int flush_meta(struct session *s, const char *what)
{
	int err;

	if (s->write_failed)
		return -1;
	err = write_meta(s);
	return err ? output_failed(s, err, what) : 0;
}

/*
 * The preamble and every task in /proc, in s->meta: listed before START,
 * written once tracing is on (write_preamble()).
 */
int build_preamble(struct session *s)
{
	int err = archive_write_preamble(&s->meta);

	if (err)
		return step_failed(s, "building the trace preamble", -err, NULL);
	s->preamble_end = s->out.offset + fxt_writer_bytes(&s->meta);
	err = archive_write_all_tasks(&s->meta, PROC_ROOT, &s->named_threads,
				      &s->named_processes);
	if (err == -ENOMEM)
		return step_failed(s, "naming the running threads", ENOMEM, NULL);
	/*
	 * A /proc that is missing, empty or masked (a locked-down container)
	 * names no thread, now or at the end: only the kernel's records
	 * will. fxt-collect itself is a task: a /proc without it shows none.
	 */
	s->proc_blind = err || access(PROC_ROOT "/self/stat", F_OK) != 0;
	if (err)
		msg("warning: listing %s failed (%s): only threads the kernel names while tracing (created, renamed or exec'd then) will have names",
		    PROC_ROOT, strerror(-err));
	else if (s->proc_blind)
		msg("warning: %s lists no tasks, not even fxt-collect (empty, or masked): only threads the kernel names while tracing (created, renamed or exec'd then) will have names",
		    PROC_ROOT);
	return 0;
}

/*
 * Tracing is on: only now is an existing output file replaced (emptied),
 * so a session that fails before leaves it as it was.
 */
int write_preamble(struct session *s)
{
	char step[300];
	int err = trace_output_begin(&s->out);

	if (err) {
		s->write_failed = true;
		if (s->out.start)
			snprintf(step, sizeof(step), "cutting %s back to %llu bytes, where the new trace starts",
				 s->out.path, (unsigned long long)s->out.start);
		else
			snprintf(step, sizeof(step), "emptying %s for the new trace",
				 s->out.path);
		return step_failed(s, step, -err, NULL);
	}
	return flush_meta(s, "the trace preamble");
}

/* ---- draining the rings ----------------------------------------------- */

/* Ring data, counted as the output takes it (also when a write fails). */
static int sink_write(void *ctx, const void *buf, size_t len)
{
	struct session *s = ctx;
	uint64_t before = s->out.offset;
	int err;

	/* A record of a ring stands on its own: a cut keeps those before. */
	trace_output_records_follow(&s->out);
	err = out_write(s, buf, len);

	s->ring_bytes_out += s->out.offset - before;
	return err;
}

/*
 * Remember a tid from the ring data; queue it for naming if it is new. The
 * drain passes a tid on the first time a ring holds it and again only once
 * its slot in the ring's cache was taken (ring_drain.h), so this runs about
 * once per thread and CPU, not per record: the set makes repeats harmless.
 */
static void sink_tid(void *ctx, uint64_t tid)
{
	struct session *s = ctx;
	uint64_t *grown;
	int added;

	if (tid == 0)		/* the idle tasks */
		return;
	added = tid_set_add(&s->tids, tid);
	if (added < 0)
		s->tids_incomplete = true;
	if (added <= 0 || tid_set_contains(&s->named_threads, tid))
		return;
	if (s->nnew == s->new_cap) {
		grown = realloc(s->new_tids, (s->new_cap * 2 + 64) * sizeof(*grown));
		if (!grown) {
			s->tids_incomplete = true;
			return;
		}
		s->new_tids = grown;
		s->new_cap = s->new_cap * 2 + 64;
	}
	s->new_tids[s->nnew++] = tid;
}

/*
 * A name record from the kernel (ring_drain_names()): keep the newest per
 * koid, and never read /proc for a task the kernel has named.
 */
static void sink_name(void *ctx, const struct ring_name *n)
{
	struct session *s = ctx;
	struct tid_set *named = n->obj_type == FXT_OBJ_TYPE_THREAD ?
				&s->named_threads : &s->named_processes;

	if (name_order_note(&s->names, n) < 0)
		s->names_incomplete = true;
	if (tid_set_add(named, n->koid) < 0)
		s->tids_incomplete = true;
}

static int rewrite_process(void *ctx, const struct name_entry *e)
{
	struct session *s = ctx;

	s->names_rewritten++;
	return archive_write_process(&s->meta, e->koid, e->name);
}

static int rewrite_thread(void *ctx, const struct name_entry *e)
{
	struct session *s = ctx;

	s->names_rewritten++;
	return archive_write_thread(&s->meta, e->koid, e->process, e->name);
}

/*
 * After a drain cycle: a name older than the one already in the file for
 * its koid came later in the file (the rings are copied one after the
 * other, see ring_drain.c). Write the newest name again, after all of this
 * cycle's ring data, so that last-wins in file order gives it. Processes
 * first, as everywhere else in the file.
 */
static int rewrite_stale_names(struct session *s)
{
	int err;

	err = name_order_take_marked(&s->names, FXT_OBJ_TYPE_PROCESS,
				     rewrite_process, s);
	if (!err)
		err = name_order_take_marked(&s->names, FXT_OBJ_TYPE_THREAD,
					     rewrite_thread, s);
	if (err) {
		fxt_writer_reset(&s->meta);
		return step_failed(s, "writing names again in time order", -err, NULL);
	}
	return fxt_writer_bytes(&s->meta) ? flush_meta(s, "thread names") : 0;
}

/*
 * Name from /proc the threads the kernel did not name, while they still
 * exist: a short-lived thread (or a COMMAND's worker) is gone by the time
 * the trace ends. A tid first seen in drain cycle k is read at the end of
 * cycle k+1, not k: the kernel writes a thread's name record before the
 * thread's first scheduling record, but maybe into another ring, one this
 * cycle had already copied. Every ring is copied again in cycle k+1, after
 * that scheduling record was, so by then the name record has been seen if
 * there is one. At the @final drain nothing comes later: name them all.
 */
static int name_new_threads(struct session *s, bool final)
{
	size_t i, n = final ? s->nnew : s->nready;
	int ret = 0;

	for (i = 0; i < n && ret >= 0; i++)
		if (!tid_set_contains(&s->named_threads, s->new_tids[i]))
			ret = archive_write_new_task(&s->meta, PROC_ROOT,
						     s->new_tids[i],
						     &s->named_threads,
						     &s->named_processes);
	/* n == 0 may be with new_tids still NULL: memmove() must not see it. */
	if (n)
		memmove(s->new_tids, s->new_tids + n,
			(s->nnew - n) * sizeof(*s->new_tids));
	s->nnew -= n;
	s->nready = s->nnew;
	if (ret < 0) {
		fxt_writer_reset(&s->meta);
		return step_failed(s, "naming new threads", -ret, NULL);
	}
	return fxt_writer_bytes(&s->meta) ? flush_meta(s, "thread names") : 0;
}

/* New drops on this ring since the last look: leave a marker in the trace. */
static int mark_drops(struct session *s, struct cpu_ring *r)
{
	uint64_t dropped = __atomic_load_n(&r->ctrl->records_dropped,
					   __ATOMIC_RELAXED);
	uint64_t when = __atomic_load_n(&r->ctrl->last_drop_ns,
					__ATOMIC_RELAXED);
	int err;

	if ((int64_t)(dropped - r->dropped_seen) <= 0)
		return 0;
	r->dropped_seen = dropped;
	err = archive_write_drop_marker(&s->meta, s->self_pid, s->self_pid,
					r->cpu, dropped,
					when ? when : boottime_ns());
	if (err) {
		/* A record it did build must not go out with a later flush. */
		fxt_writer_reset(&s->meta);
		return step_failed(s, "building a records-dropped marker", -err, NULL);
	}
	return flush_meta(s, "a records-dropped marker");
}

/*
 * Sample every CPU's records_dropped into the trace: at the start (a flat
 * zero line in Perfetto says "nothing lost" as clearly as a step says
 * "lost here") and once more at the end.
 */
int sample_drop_counters(struct session *s)
{
	struct drop_count *counts = calloc(s->nrings, sizeof(*counts));
	unsigned int i;
	int err;

	if (!counts)
		return step_failed(s, "sampling the records-dropped counters", ENOMEM, NULL);
	for (i = 0; i < s->nrings; i++) {
		counts[i].cpu = s->rings[i].cpu;
		counts[i].dropped = __atomic_load_n(&s->rings[i].ctrl->records_dropped,
						    __ATOMIC_RELAXED);
	}
	err = archive_write_drop_counters(&s->meta, s->self_pid, s->self_pid,
					  boottime_ns(), counts, s->nrings);
	free(counts);
	if (err) {
		fxt_writer_reset(&s->meta);
		return step_failed(s, "sampling the records-dropped counters", -err, NULL);
	}
	return flush_meta(s, "the records-dropped counters");
}

/*
 * A marker pair the drain writes itself (@err: whether building it in
 * s->meta failed), straight to the output between the drain's writes; on
 * failure, @what names it for the error message (drain_all()).
 */
static int put_marker(struct session *s, int err, const char *what)
{
	if (err)
		fxt_writer_reset(&s->meta);
	else
		err = write_meta(s);
	if (err)
		s->marker_failed = what;
	return err;
}

/*
 * The drain of @ctx's current ring skipped invalid data, and the hole ends
 * here (ring_drain_holes() calls this just before the first record after
 * it goes out): mark it in the file, as the kernel marks the records a
 * ring dropped (decision 7). Written straight to the output, between the
 * drain's writes.
 */
static int sink_hole(void *ctx, const struct ring_hole *h)
{
	struct session *s = ctx;
	/* A ring with no record before the hole: it began after START. */
	uint64_t from = h->from_ts ? h->from_ts : s->attach_ns;
	uint64_t to = h->to_ts > from ? h->to_ts : from;
	int err;

	err = archive_write_skip_marker(&s->meta, s->self_pid, s->self_pid,
					s->draining_cpu, h->bytes, from, to);
	err = put_marker(s, err, "a bytes-skipped marker");
	if (!err)
		s->skip_markers++;
	return err;
}

/*
 * After STOP, once the last drain has copied all of @r's ring: the records
 * it dropped after its last record, which the module never marked (it
 * marks a loss only with the next record that fits, uapi "Loss markers").
 * Mark them as the module would have (decision 7): its pair of
 * records_lost samples, on its owner's track (the opener of the device:
 * us, and fxt-collect runs in one thread, so tid = pid), from the ring's
 * last record (the drops all came after it) to its last drop, or to now
 * (after STOP) if the ring says nothing usable. Written straight to the
 * output after the ring's data, where the module's pair would have been,
 * before the next ring's.
 */
static int mark_tail_loss(struct session *s, struct cpu_ring *r)
{
	uint64_t lost = ring_unmarked_loss(&r->ring);
	uint64_t from = r->ring.last_ts ? r->ring.last_ts : s->attach_ns;
	uint64_t last_drop = __atomic_load_n(&r->ctrl->last_drop_ns,
					     __ATOMIC_RELAXED);
	uint64_t to = last_drop && last_drop >= from ? last_drop : boottime_ns();
	int err;

	if (!lost)
		return 0;
	if (to < from)		/* the kernel's clock is not ours to trust */
		to = from;
	err = archive_write_lost_marker(&s->meta, s->self_pid, s->self_pid,
					r->cpu, lost, from, to);
	err = put_marker(s, err, "a records-lost marker");
	if (err)
		return err;
	s->tail_loss_markers++;
	s->tail_lost += lost;
	return 0;
}

static void warn_invalid_data(struct session *s, struct cpu_ring *r,
			      enum ring_drain_status status)
{
	if (r->warned || s->opts.quiet)
		return;
	r->warned = true;
	msg("warning: CPU %u's ring %s (a module bug? counted in the summary)",
	    r->cpu, status == RING_DRAIN_BAD_PRODUCER ?
	    "published an impossible producer position; skipped to it, and whatever the ring held unread with it" :
	    status == RING_DRAIN_PRODUCER_BEHIND ?
	    "published a producer position behind the data already read; not followed, nothing skipped" :
	    "held bytes that are not whole FXT records; skipped the bad bytes");
}

/*
 * One drain cycle: copy every ring's new records to the output, then put
 * the names in order. @final: the last one, after STOP. Return bytes, or -1.
 */
long long drain_all(struct session *s, bool final)
{
	const struct ring_sink sink = { sink_write, sink_tid, s };
	struct ring_drain_result res;
	long long total = 0;
	uint64_t kept;
	unsigned int i;
	int err;

	for (i = 0; i < s->nrings && !s->write_failed; i++) {
		struct cpu_ring *r = &s->rings[i];

		s->draining_cpu = r->cpu;
		s->ring_bytes_out = 0;
		s->marker_failed = NULL;
		err = ring_drain_holes(&r->ring, &sink, sink_name, sink_hole,
				       &res);
		if (err) {
			output_failed(s, err, s->marker_failed ?
				      s->marker_failed : "ring data");
			/*
			 * What the output took of this drain's data and kept:
			 * its whole records are in the trace, so in the
			 * summary. A file cut back lost only what was written
			 * since the last commit: a failed marker (committed
			 * before it), or else ring data.
			 */
			kept = s->ring_bytes_out;
			if (!s->marker_failed)
				kept -= s->cut_bytes < kept ? s->cut_bytes : kept;
			ring_count_written(&r->ring, kept);
			return -1;
		}
		/*
		 * The drain counted these records: commit them, so that a
		 * failure after them cuts the file back no further (the
		 * markers below commit again around themselves).
		 */
		trace_output_commit(&s->out);
		/*
		 * After STOP nothing follows a hole still open: it ends now,
		 * after every record the ring can hold. Nor a loss: mark it.
		 */
		if (final)
			err = ring_end_hole(&r->ring, boottime_ns(), sink_hole,
					    s);
		if (!err && final)
			err = mark_tail_loss(s, r);
		if (err) {
			output_failed(s, err, s->marker_failed ?
				      s->marker_failed : "an end-of-trace marker");
			return -1;
		}
		total += (long long)res.bytes;
		if (res.status != RING_DRAIN_OK)
			warn_invalid_data(s, r, res.status);
		if (mark_drops(s, r))
			return -1;
	}
	if (!s->write_failed &&
	    (rewrite_stale_names(s) || name_new_threads(s, final)))
		return -1;
	return s->write_failed ? -1 : total;
}

/* ---- the end ---------------------------------------------------------- */

void write_trailer(struct session *s)
{
	int err;

	if (s->write_failed)
		return;
	err = archive_write_seen_tasks(&s->meta, PROC_ROOT, &s->tids,
				       &s->named_threads, &s->threads_gone);
	if (err) {
		step_failed(s, "naming the traced threads", -err, NULL);
		fxt_writer_reset(&s->meta);
		return;
	}
	flush_meta(s, "the thread names");
}

void close_output(struct session *s)
{
	char none[TRACE_OUTPUT_NO_TRACE_SIZE];
	int err;

	if (!s->out_open)
		return;
	s->out_open = false;
	/* Failed before tracing: the file as it was, and say so. */
	trace_output_untouched(&s->out, none, sizeof(none));
	if (none[0])
		msg("%s", none);
	err = trace_output_close(&s->out);
	if (err)
		step_failed(s, "closing the trace file", -err,
			    "the trace may be incomplete: check the disk and rerun");
}
