/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * trace_output.h - the trace file (or stdout) that fxt-collect writes.
 *
 * A reader can use a trace cut off anywhere up to its last whole record, as
 * long as the cut is not in the middle of one. So the writer marks record
 * boundaries (trace_output_commit()) and, when a write fails (disk full,
 * short write, I/O error), trace_output_rollback() truncates a regular file
 * back to the last boundary. Pipes cannot be truncated: there the reader
 * sees a truncated last record, which the format tells it to drop.
 */
#ifndef TRACE_OUTPUT_H
#define TRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct trace_output - an open trace output
 * @fd:        where the bytes go
 * @path:      the name to print in messages ("stdout" for "-")
 * @regular:   a regular file (can be truncated on error)
 * @offset:    bytes written so far
 * @committed: @offset at the last record boundary
 */
struct trace_output {
	int fd;
	const char *path;
	bool regular;
	bool owns_fd;
	uint64_t offset;
	uint64_t committed;
};

/* Open (create/truncate, 0644) @path, or stdout for "-". Return 0 or -errno. */
int trace_output_open(struct trace_output *out, const char *path);

/* Adopt an already-open descriptor (for tests). */
void trace_output_from_fd(struct trace_output *out, int fd, const char *name);

/*
 * Write all of @buf. A short write followed by no error is reported as
 * -ENOSPC (what a full disk looks like to write()). Return 0 or -errno.
 */
int trace_output_write(struct trace_output *out, const void *buf, size_t len);

/* Everything written so far ends on a record boundary. */
static inline void trace_output_commit(struct trace_output *out)
{
	out->committed = out->offset;
}

/*
 * Drop everything after the last commit: truncate a regular file there.
 * Return 0, -ESPIPE for non-regular outputs (nothing to do), or -errno.
 */
int trace_output_rollback(struct trace_output *out);

/* Close (flushing errors from the kernel, e.g. NFS). Return 0 or -errno. */
int trace_output_close(struct trace_output *out);

#endif /* TRACE_OUTPUT_H */
