/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * trace_output.h - the trace file (or stdout) that fxt-collect writes.
 *
 * A reader can use a trace cut off anywhere up to its last whole record, as
 * long as the cut is not in the middle of one. So the writer marks record
 * boundaries (trace_output_commit()) and, when a write fails (disk full,
 * short write, I/O error), trace_output_rollback() truncates a regular file
 * back to the last boundary. Pipes cannot be truncated: there the reader
 * may get a cut last record (TRACE_OUTPUT_CUT_LAST says what readers do).
 *
 * SIGKILL (or any other death the collector cannot catch) in the middle of
 * a write() is the case no code in the collector can handle: the kernel
 * keeps the part of the write it did, page by page, so the file ends at a
 * 4 KiB page boundary of the file, almost never at a record boundary. For a
 * regular file trace_output_start_guard() therefore forks a guard process
 * ("fxt-collect-guard", shown as "fxt-collect-gua" by ps since comm holds
 * 15 characters). It keeps only the output descriptor, a MAP_SHARED page
 * holding the committed offset (trace_output_commit() stores it with
 * release order) and the read end of a close-on-exec pipe whose write end
 * only the collector holds. It blocks in read(). A byte means the
 * collector closed the output itself (trace_output_close()): any failure
 * it met, it has reported, and cut the file back if it could, so the guard
 * exits without a word. EOF means the collector is gone without closing,
 * however it died: if the file is then longer than the committed offset
 * (load-acquire), the guard cuts it back to its last whole record after
 * that offset and says so on stderr.
 *
 * The guard ignores SIGINT, SIGTERM, SIGHUP and SIGQUIT and runs in a
 * process group of its own, so Ctrl-C, `kill -9 -PGID` or `timeout -s KILL`
 * aimed at the collector's group do not take it down with the collector. A
 * SIGKILL sent to the guard itself kills it like anything else (then a
 * SIGKILL of the collector may again leave a cut record). The cut happens
 * a moment after the collector dies: the pipe reaches EOF when the kernel
 * closes the dead process's files, a step before its parent can wait() for
 * it, and the guard needs microseconds from there, while a shell needs a
 * fork and exec to look at the file.
 */
#ifndef TRACE_OUTPUT_H
#define TRACE_OUTPUT_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * struct trace_output - an open trace output
 * @fd:        where the bytes go
 * @path:      the name to print in messages ("stdout" for "-")
 * @regular:   a regular file (can be truncated on error)
 * @owns_fd:   close @fd in trace_output_close()
 * @append:    @fd is O_APPEND (">> FILE"): every write goes to the end
 * @start:     file offset of the trace's first byte: 0 for a new file; for
 *             an output opened by someone else, where it stood (the end of
 *             the file for O_APPEND, as with "-o - >> FILE")
 * @offset:    file offset after the last byte written (@start + bytes
 *             written, for a regular file)
 * @committed: @offset at the last record boundary
 * @records_follow: what was written since @committed is records that a
 *             cut may keep one by one (trace_output_records_follow())
 * @shared_committed: @committed again, in the page shared with the guard,
 *             with TRACE_OUTPUT_RECORDS_FOLLOW for @records_follow (NULL
 *             without a guard)
 * @guard_pid: the guard process, or 0
 * @guard_fd:  the write end of the guard's pipe, or -1
 * @created:   trace_output_open() created the file (it did not exist)
 * @emptied:   trace_output_begin() cut off what the file held after @start
 * @begun:     trace_output_begin() was called: the trace replaces what
 *             the file held, and the guard cuts back to @committed
 * @interrupted: if set, called by trace_output_write() each time a write()
 *             was interrupted by a signal (EINTR, or a short write to a
 *             pipe), after counting what it wrote: 0 to go on writing, or
 *             -errno to give up (trace_output_write() returns it, the rest
 *             of the buffer unwritten). NULL: go on. Set after opening.
 * @interrupted_ctx: its argument
 */
struct trace_output {
	int fd;
	const char *path;
	bool regular;
	bool owns_fd;
	bool append;
	uint64_t start;
	uint64_t offset;
	uint64_t committed;
	bool records_follow;
	_Atomic uint64_t *shared_committed;
	pid_t guard_pid;
	int guard_fd;
	bool created;
	bool emptied;
	bool begun;
	int (*interrupted)(void *ctx);
	void *interrupted_ctx;
};

/* The shared word before trace_output_begin(): the guard leaves the file. */
#define TRACE_OUTPUT_NOT_BEGUN	UINT64_MAX
/* Its top bit otherwise: records follow the commit (offsets are < 2^63). */
#define TRACE_OUTPUT_RECORDS_FOLLOW	(1ULL << 63)

/*
 * The guard reads the shared word from another process: it must be a plain
 * memory word, not a lock-protected object.
 */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2,
	       "the guard needs lock-free 64-bit atomics");

/*
 * What readers do with a trace whose last record is cut (a pipe cannot be
 * cut back, a guard that could not cut): measured, not what the format
 * asks. Perfetto's trace_processor drops it silently; this project's
 * readers report it (fxt-sched(1) ROBUSTNESS). After "a cut last record:".
 */
#define TRACE_OUTPUT_CUT_LAST \
	"Perfetto drops it; fxt-dump, fxt-sched and fxt2json say so and exit 1, their results covering the records before it"

/*
 * Open @path for writing (created 0644 if it does not exist), or stdout for
 * "-". An existing file is not truncated yet: that waits for
 * trace_output_begin(), so a session that fails before it has anything to
 * write leaves the file as it was. A symbolic link to an existing file is
 * that file; a dangling one is refused with -ENOENT (its target is not
 * created). Return 0 or -errno.
 */
int trace_output_open(struct trace_output *out, const char *path);

/*
 * The trace is about to be written (tracing has started): truncate a
 * regular file to @start, dropping what it held from there on (all of a
 * file trace_output_open() opened; for stdout, "-o - 1<> FILE", the tail
 * the trace would not overwrite; nothing when appending), and let the
 * guard cut back to the last commit from now on (until then it leaves the
 * file alone). Return 0 or -errno (of the truncation).
 */
int trace_output_begin(struct trace_output *out);

/*
 * Nothing was written and nothing will be (trace_output_begin() was never
 * called): a file trace_output_open() created is removed again, an
 * existing one was not touched. Put what became of it in @buf ("no trace
 * was written: FILE was left as it was", "... was removed"), or "" when
 * there is nothing to say (stdout, a device, a FIFO). Before
 * trace_output_close().
 */
void trace_output_untouched(struct trace_output *out, char *buf, size_t size);

/*
 * Adopt an already-open descriptor (stdout for "-", and tests). The trace
 * starts where the descriptor stands; for O_APPEND that is the end of the
 * file, wherever its position says.
 */
void trace_output_from_fd(struct trace_output *out, int fd, const char *name);

/*
 * Write all of @buf (the first write calls trace_output_begin() if no one
 * did). A short write followed by no error is reported as -ENOSPC (what a
 * full disk looks like to write()). A write() interrupted by a signal is
 * retried, unless @out->interrupted says to give up. On a non-blocking
 * output (EAGAIN) it waits for room, as a blocking write() does, and a
 * signal interrupts that wait the same way. Return 0 or -errno.
 */
int trace_output_write(struct trace_output *out, const void *buf, size_t len);

/*
 * Everything written so far ends on a record boundary. The release store
 * orders it after the write()s it covers, for the guard. What is written
 * after it is all or nothing (a marker pair, a batch of names): a failed
 * write cuts back to here, until trace_output_records_follow().
 */
static inline void trace_output_commit(struct trace_output *out)
{
	out->committed = out->offset;
	out->records_follow = false;
	if (out->shared_committed)
		atomic_store_explicit(out->shared_committed, out->committed,
				      memory_order_release);
}

/*
 * Until the next commit, records are written that stand each on its own
 * (ring data): a write cut in the middle of one keeps those before it
 * (trace_output_rollback(), and the guard). Release: the guard sees it
 * before any byte written after it.
 */
static inline void trace_output_records_follow(struct trace_output *out)
{
	if (out->records_follow)
		return;
	out->records_follow = true;
	if (out->shared_committed)
		atomic_store_explicit(out->shared_committed,
				      out->committed | TRACE_OUTPUT_RECORDS_FOLLOW,
				      memory_order_release);
}

/*
 * Drop what a failed write left: truncate a regular file back to the last
 * commit, which stays the commit; or, when records follow it
 * (trace_output_records_follow()), after the last whole one of them (read
 * back from the file by trace_output_whole_end()), which becomes the
 * commit. Not within the preamble (nothing committed since the trace's
 * start): an incomplete preamble is no trace. Return 0, -ESPIPE for
 * non-regular outputs (nothing to do), or -errno.
 */
int trace_output_rollback(struct trace_output *out);

/*
 * Whether @out, a regular file, really ends at @out->offset after
 * trace_output_rollback() said it cut it there: false if a byte past it
 * can be read back. Some files that stat calls regular are no storage
 * (/proc/version, to root): ftruncate() there succeeds and changes
 * nothing. True if it cannot be read (a write-only file: nothing to say
 * otherwise).
 */
bool trace_output_ends_at_offset(const struct trace_output *out);

/*
 * The end of the last whole record in [@from, @to) of the file behind @fd:
 * what the collector wrote after a commit is whole records up to the one a
 * failed write (or a death in the middle of one) cut, so walking their
 * headers from @from finds where that one begins. The file is read through
 * a descriptor of its own (/proc/self/fd): the output's may be write-only.
 * @from if it cannot be read.
 */
uint64_t trace_output_whole_end(int fd, uint64_t from, uint64_t to);

/*
 * What a cut back to @end, the trace's start, left of @out: "no trace was
 * written: FILE was cut back to ..." (where the trace was to start, or 0
 * bytes), for fxt-collect and its guard to say alike.
 */
void trace_output_no_trace(const struct trace_output *out, uint64_t end,
			   char *buf, size_t size);
/* Room for that sentence: an openable path (< PATH_MAX) and the words. */
#define TRACE_OUTPUT_NO_TRACE_SIZE	(PATH_MAX + 160)

/*
 * Start the guard (see above) for a regular file; for other outputs there
 * is nothing to cut back, and nothing is started. Call it before starting
 * threads and before forking anything else: the guard closes every other
 * descriptor, but memory mappings (e.g. a device's rings, which keep the
 * device open) come with fork() and stay until the guard exits.
 * Returns once the guard is set up (named, in its own process group,
 * ignoring SIGINT/SIGTERM/SIGHUP/SIGQUIT), so no signal can reach it half
 * ready. Return 0, or -errno if it could not be started (the trace still
 * works, unguarded).
 */
int trace_output_start_guard(struct trace_output *out);

/*
 * In a child forked to exec something else: close the guard's pipe, so
 * only the collector holds it and the guard sees EOF when the collector
 * dies even if the child outlives it. (The pipe is close-on-exec too; this
 * covers the moment between fork() and exec().)
 */
void trace_output_drop_guard(struct trace_output *out);

/*
 * Close (flushing errors from the kernel, e.g. NFS), then let the guard go:
 * tell it this was no death (one byte down its pipe), close the pipe and
 * reap it, waiting at most about two seconds. Return 0
 * or -errno (of the close).
 */
int trace_output_close(struct trace_output *out);

#endif /* TRACE_OUTPUT_H */
