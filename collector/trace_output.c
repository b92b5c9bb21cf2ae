// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trace_output.c - write the trace, keep it cut at record boundaries
 * (see trace_output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_output.h"

void trace_output_from_fd(struct trace_output *out, int fd, const char *name)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->fd = fd;
	out->path = name;
	out->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	/* Appending to a regular stdout (">> file") must not rewind it. */
	if (out->regular) {
		off_t pos = lseek(fd, 0, SEEK_CUR);

		out->offset = pos > 0 ? (uint64_t)pos : 0;
		out->committed = out->offset;
	}
}

int trace_output_open(struct trace_output *out, const char *path)
{
	int fd;

	if (!strcmp(path, "-")) {
		trace_output_from_fd(out, STDOUT_FILENO, "stdout");
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	trace_output_from_fd(out, fd, path);
	out->owns_fd = true;
	return 0;
}

int trace_output_write(struct trace_output *out, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(out->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
		out->offset += (uint64_t)n;
	}
	return 0;
}

int trace_output_rollback(struct trace_output *out)
{
	if (!out->regular)
		return -ESPIPE;
	if (ftruncate(out->fd, (off_t)out->committed) < 0)
		return -errno;
	if (lseek(out->fd, (off_t)out->committed, SEEK_SET) < 0)
		return -errno;
	out->offset = out->committed;
	return 0;
}

int trace_output_close(struct trace_output *out)
{
	int err = 0;

	if (out->fd < 0)
		return 0;
	if (out->owns_fd && close(out->fd) < 0)
		err = -errno;
	out->fd = -1;
	return err;
}
