// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gen_seeds - write seed inputs for the fuzz targets (make-corpus.sh runs
 * it; the results are committed in corpus/, so this only matters when the
 * corpus is rebuilt).
 *
 *   gen_seeds head TRACE MAX OUT        the whole records at the start of
 *                                       TRACE, at most MAX bytes
 *   gen_seeds ring TRACE MAX OUT        ring content: the whole records from
 *                                       TRACE's first scheduling record on,
 *                                       at most MAX bytes (what the kernel
 *                                       wrote, with the collector's thread
 *                                       names in between)
 *   gen_seeds drain RING SHIFT CONSUMER0 OUT [FLAGS:VALUE]...
 *                                       a fuzz_ring_drain input: the ring
 *                                       parameters, one drain per
 *                                       FLAGS:VALUE, then RING's bytes
 *   gen_seeds info NCPU BUFSIZE OUT     a fuzz_collect_info input: the
 *                                       GET_INFO answer and CPU 0's control
 *                                       page as fxtrace.ko fills them
 *
 * Numbers may be decimal or 0x hex.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_read.h"

__attribute__((noreturn))
static void die(const char *what, const char *path)
{
	fprintf(stderr, "gen_seeds: %s %s: %s\n", what, path,
		errno ? strerror(errno) : "bad input");
	exit(1);
}

static uint64_t number(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "gen_seeds: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		die("cannot read", path);
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		die("cannot read", path);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

static void spill(const char *path, const void *a, size_t alen,
		  const void *b, size_t blen)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(a, 1, alen, f) != alen ||
	    (blen && fwrite(b, 1, blen, f) != blen) || fclose(f))
		die("cannot write", path);
}

/* [from, to) of TRACE in whole records, at most @max bytes. */
static void cut(const char *trace, size_t max, const char *out, bool ring)
{
	size_t len, from = 0, to = 0;
	uint8_t *buf = slurp(trace, &len);
	struct fxt_reader *r = fxt_reader_new(buf, len, 0);
	struct fxt_record rec;
	bool started = !ring;

	if (!r)
		die("out of memory reading", trace);
	while (fxt_reader_next(r, &rec) > 0) {
		if (!started && rec.type == FXT_RECORD_SCHEDULING) {
			started = true;
			from = to = rec.offset;
		}
		if (!started)
			continue;
		if (rec.offset + rec.size - from > max)
			break;
		to = rec.offset + rec.size;
	}
	fxt_reader_free(r);
	if (to == from) {
		errno = 0;
		die("no whole records to cut from", trace);
	}
	spill(out, buf + from, to - from, NULL, 0);
	free(buf);
}

static size_t put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return bytes;
}

/* The layout fuzz_ring_drain.c reads; see its header comment. */
static void drain(int argc, char **argv)
{
	uint8_t head[1 + 8 + 1 + 4 * 9];
	size_t len, n = 0;
	uint8_t *ring = slurp(argv[2], &len);
	int i, drains = argc - 6;
	char *colon;

	if (drains < 1 || drains > 4) {
		fprintf(stderr, "gen_seeds: drain takes 1 to 4 FLAGS:VALUE\n");
		exit(2);
	}
	n += put_le(head + n, number(argv[3]), 1);
	n += put_le(head + n, number(argv[4]), 8);
	n += put_le(head + n, (uint64_t)drains - 1, 1);
	for (i = 6; i < argc; i++) {
		colon = strchr(argv[i], ':');
		if (!colon) {
			fprintf(stderr, "gen_seeds: '%s' is not FLAGS:VALUE\n", argv[i]);
			exit(2);
		}
		*colon = '\0';
		n += put_le(head + n, number(argv[i]), 1);
		n += put_le(head + n, number(colon + 1), 8);
	}
	spill(argv[5], head, n, ring, len);
	free(ring);
}

/* What fxtrace.ko's GET_INFO and a fresh control page hold (uapi). */
static void info(uint64_t ncpu, uint64_t buf_size, const char *out)
{
	struct fxtrace_info in;
	struct fxtrace_ctrl ctrl;
	uint8_t cpu0[2] = { 0, 0 };
	uint8_t buf[sizeof(in) + sizeof(ctrl) + sizeof(cpu0)];

	memset(&in, 0, sizeof(in));
	in.abi_version = FXTRACE_ABI_VERSION;
	in.info_size = sizeof(in);
	in.nr_cpu_ids = (uint32_t)ncpu;
	in.page_size = 4096;
	in.buf_size = buf_size;
	in.cpu_stride = 1ULL << 32;
	in.ctrl_offset = 0;
	in.data_offset = 4096;
	in.ctrl_size = 4096;
	in.clock_id = FXTRACE_CLOCK_ID;
	in.state = FXTRACE_STATE_READY;
	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.version = FXTRACE_CTRL_VERSION;
	ctrl.size = sizeof(ctrl);
	ctrl.buf_size = buf_size;
	memcpy(buf, &in, sizeof(in));
	memcpy(buf + sizeof(in), &ctrl, sizeof(ctrl));
	memcpy(buf + sizeof(in) + sizeof(ctrl), cpu0, sizeof(cpu0));
	spill(out, buf, sizeof(buf), NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "head"))
		cut(argv[2], (size_t)number(argv[3]), argv[4], false);
	else if (argc == 5 && !strcmp(argv[1], "ring"))
		cut(argv[2], (size_t)number(argv[3]), argv[4], true);
	else if (argc >= 7 && !strcmp(argv[1], "drain"))
		drain(argc, argv);
	else if (argc == 5 && !strcmp(argv[1], "info"))
		info(number(argv[2]), number(argv[3]), argv[4]);
	else {
		fprintf(stderr, "usage: see the comment at the top of gen_seeds.c\n");
		return 2;
	}
	return 0;
}
