/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fuzz_target.h - what every fuzz target in this folder shares: the
 * libFuzzer entry points (declared here so -Wmissing-prototypes holds),
 * FUZZ_ASSERT, which turns a broken invariant into a crash that libFuzzer
 * records as an artifact just like a sanitizer report, a reader of
 * little-endian integers for targets whose input starts with parameters,
 * a memfd file for code that reads (or writes) a path, and the plain
 * fxt_read pass the trace targets check their program against.
 */
#ifndef FUZZ_TARGET_H
#define FUZZ_TARGET_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

#include "fxt_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Not assert(): it must stay on under -DNDEBUG, and the reason has to reach
 * the report. The targets run with -close_fd_mask=3 (fxt-dump prints a
 * line per malformed input), which sends our stderr to /dev/null; the
 * sanitizer report channel is the one libFuzzer keeps open, so the message
 * goes there, then abort() makes libFuzzer save the input as an artifact.
 */
#define FUZZ_ASSERT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
		}							\
	} while (0)

__attribute__((format(printf, 4, 5), noreturn))
static inline void fuzz_fail(const char *file, int line, const char *cond,
			     const char *fmt, ...)
{
	char why[512], msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "%s:%d: invariant broken: %s: %s",
		 file, line, cond, why);
	__sanitizer_report_error_summary(msg);
	abort();
}

/* Little-endian integers from the front of the input, 0 past its end. */
struct fuzz_input {
	const uint8_t *data;
	size_t size;
	size_t at;
};

static inline uint64_t fuzz_take(struct fuzz_input *in, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && in->at < in->size; i++)
		v |= (uint64_t)in->data[in->at++] << (8 * i);
	return v;
}

/*
 * A file in memory for code that takes a path (fxt-sched's sc_run(),
 * fxt2json's main()): a memfd, opened through /proc/self/fd/N as a regular
 * file of its own (a new open file description: offset 0, its own flags),
 * which stat() and mmap() see as a file would be. Made once, in
 * LLVMFuzzerInitialize(): a target cannot run without it.
 */
struct fuzz_file {
	int fd;
	char path[64];		/* "/proc/self/fd/N" */
};

/* @name: the memfd's (/proc/PID/fd shows it), and the error message's */
static inline void fuzz_file_init(struct fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0) {
		fprintf(stderr, "%s: memfd_create: %s\n", name, strerror(errno));
		exit(1);
	}
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

/* The file's contents become @size bytes at @data (none: empty). */
static inline void fuzz_file_load(const struct fuzz_file *f,
				  const uint8_t *data, size_t size)
{
	size_t done = 0;
	ssize_t n;

	FUZZ_ASSERT(ftruncate(f->fd, 0) == 0, "ftruncate");
	while (done < size) {
		n = pwrite(f->fd, data + done, size - done, (off_t)done);
		FUZZ_ASSERT(n > 0, "pwrite to the memfd");
		done += (size_t)n;
	}
}

/*
 * What a plain read of the bytes finds, with fxt_reader_new()'s @flags:
 * the records read, and whether it stopped at an error.
 */
static inline void fuzz_fxt_count(const uint8_t *data, size_t size,
				  unsigned int flags, uint64_t *records,
				  bool *malformed)
{
	struct fxt_reader *r = fxt_reader_new(data, size, flags);
	struct fxt_record *rec = malloc(sizeof(*rec));
	int ret;

	FUZZ_ASSERT(r && rec, "out of memory");
	*records = 0;
	while ((ret = fxt_reader_next(r, rec)) > 0)
		(*records)++;
	*malformed = ret < 0;
	fxt_reader_free(r);
	free(rec);
}

#endif /* FUZZ_TARGET_H */
