// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ring_drain.c - ring_drain() against a fake control page and data
 * area in plain memory: empty and full rings, records across the end of the
 * area and across the 64-bit position wrap, and a kernel that publishes
 * nonsense (impossible producer positions, malformed records, random
 * bytes). The data area is malloc'ed at exactly its size, so under ASan any
 * read outside it fails the test run.
 *
 * Each scenario runs for several area sizes (like kselftest variants).
 */
#include <errno.h>
#include <stdlib.h>

#include "fxt_write.h"
#include "ring_drain.h"
#include "tap.h"

/* A fake ring: what the kernel would map, plus a producer for it. */
struct fake {
	struct fxtrace_ctrl *ctrl;
	uint8_t *data;
	uint64_t size;
	struct ring ring;
};

/* What the sink saw. */
struct capture {
	uint8_t *bytes;
	size_t len, cap;
	unsigned int writes;
	uint64_t tids[4096];
	unsigned int ntids;
	int fail_with;		/* make write() fail with this errno */
};

static const uint64_t sizes[] = { 64, 256, 64 << 10 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void fake_init(struct fake *f, uint64_t size, uint64_t start)
{
	f->ctrl = calloc(1, sizeof(*f->ctrl));
	f->data = malloc(size);
	memset(f->data, 0xee, size);	/* nothing zero by accident */
	f->size = size;
	f->ctrl->version = FXTRACE_CTRL_VERSION;
	f->ctrl->buf_size = size;
	f->ctrl->producer_pos = start;
	f->ctrl->consumer_pos = start;
	ring_init(&f->ring, f->ctrl, f->data, size);
}

static void fake_free(struct fake *f)
{
	free(f->ctrl);
	free(f->data);
}

/* The producer side: copy @len bytes at producer_pos, wrapping, publish. */
static void produce(struct fake *f, const void *rec, size_t len)
{
	const uint8_t *p = rec;
	uint64_t pos = f->ctrl->producer_pos;
	size_t i;

	for (i = 0; i < len; i++)
		f->data[(pos + i) & (f->size - 1)] = p[i];
	__atomic_store_n(&f->ctrl->producer_pos, pos + len, __ATOMIC_RELEASE);
}

static int capture_write(void *ctx, const void *buf, size_t len)
{
	struct capture *c = ctx;

	if (c->fail_with)
		return -c->fail_with;
	if (c->len + len > c->cap) {
		c->cap = (c->len + len) * 2;
		c->bytes = realloc(c->bytes, c->cap);
	}
	memcpy(c->bytes + c->len, buf, len);
	c->len += len;
	c->writes++;
	return 0;
}

static void capture_tid(void *ctx, uint64_t tid)
{
	struct capture *c = ctx;

	if (c->ntids < sizeof(c->tids) / sizeof(c->tids[0]))
		c->tids[c->ntids++] = tid;
}

static struct ring_sink sink_for(struct capture *c)
{
	struct ring_sink s = { capture_write, capture_tid, c };

	return s;
}

/* A context switch exactly as the kernel writes it: 7 words. */
static size_t kernel_switch(uint64_t *out, uint64_t ts, uint64_t prev,
			    uint64_t next)
{
	struct fxt_arg args[3] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_INCOMING_WEIGHT), 120),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_OUTGOING_WEIGHT), 120),
		fxt_arg_uint32(fxt_str_index(FXTRACE_STR_LINUX_STATE), 1),
	};
	struct fxt_context_switch cs = {
		.cpu = 1, .outgoing_state = FXT_THREAD_STATE_BLOCKED,
		.timestamp = ts, .outgoing_tid = prev, .incoming_tid = next,
	};
	struct fxt_writer w;

	fxt_writer_init(&w, out, 16);
	fxt_write_context_switch(&w, &cs, args, 3);
	return fxt_writer_bytes(&w);
}

/* A wakeup as the kernel writes it: 6 words with a waker, 4 without. */
static size_t kernel_wakeup(uint64_t *out, uint64_t ts, uint64_t woken,
			    uint64_t waker)
{
	struct fxt_arg args[2] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_WEIGHT), 120),
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), waker),
	};
	struct fxt_wakeup wk = { .cpu = 0, .timestamp = ts, .woken_tid = woken };
	struct fxt_writer w;

	fxt_writer_init(&w, out, 16);
	fxt_write_wakeup(&w, &wk, args, waker ? 2 : 1);
	return fxt_writer_bytes(&w);
}

TEST(init_rejects_sizes_that_are_not_powers_of_two)
{
	struct fxtrace_ctrl ctrl;
	uint8_t data[96] = { 0 };
	struct ring r;

	memset(&ctrl, 0, sizeof(ctrl));
	EXPECT_EQ(ring_init(&r, &ctrl, data, 96), (uint64_t)-EINVAL);
	EXPECT_EQ(ring_init(&r, &ctrl, data, 4), (uint64_t)-EINVAL);
	EXPECT_EQ(ring_init(&r, &ctrl, data, 0), (uint64_t)-EINVAL);
	EXPECT_EQ(ring_init(&r, &ctrl, data, 64), 0);
}

TEST(empty_ring_copies_nothing)
{
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i;

	for (i = 0; i < NSIZES; i++) {
		fake_init(&f, sizes[i], 4096);
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_OK);
		EXPECT_EQ(res.bytes, 0);
		EXPECT_EQ(res.chunks, 0);
		EXPECT_EQ(c.writes, 0);
		EXPECT_EQ(f.ctrl->consumer_pos, 4096);
		fake_free(&f);
	}
}

TEST(records_are_copied_verbatim_and_tids_found)
{
	uint64_t rec[16], all[64];
	size_t n, len = 0;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 256, 0);
	n = kernel_switch(rec, 10, 100, 200);
	produce(&f, rec, n);
	memcpy((uint8_t *)all + len, rec, n);
	len += n;
	n = kernel_wakeup(rec, 11, 300, 400);
	produce(&f, rec, n);
	memcpy((uint8_t *)all + len, rec, n);
	len += n;
	n = kernel_wakeup(rec, 12, 500, 0);	/* from an interrupt: no waker */
	produce(&f, rec, n);
	memcpy((uint8_t *)all + len, rec, n);
	len += n;
	EXPECT_EQ(len, (7 + 6 + 4) * 8);

	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT_EQ(res.chunks, 1);
	EXPECT_EQ(res.bytes, len);
	EXPECT(c.len == len && !memcmp(c.bytes, all, len));
	EXPECT_EQ(f.ctrl->consumer_pos, len);
	ASSERT(c.ntids == 5);
	EXPECT_EQ(c.tids[0], 100);
	EXPECT_EQ(c.tids[1], 200);
	EXPECT_EQ(c.tids[2], 300);
	EXPECT_EQ(c.tids[3], 400);
	EXPECT_EQ(c.tids[4], 500);
	EXPECT_EQ(f.ring.switches, 1);
	EXPECT_EQ(f.ring.wakeups, 2);
	EXPECT_EQ(f.ring.bytes, len);
	fake_free(&f);
	free(c.bytes);
}

/* A record split by the end of the area: two chunks, tids still found. */
TEST(record_across_the_end_of_the_area)
{
	uint64_t rec[16];
	size_t n;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i;

	for (i = 0; i < NSIZES; i++) {
		c.len = c.writes = c.ntids = 0;
		/* Start 3 words before the end: the 7-word record wraps. */
		fake_init(&f, sizes[i], 5 * sizes[i] - 24);
		n = kernel_switch(rec, 1, 0x1111, 0x2222);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.chunks, 2);
		EXPECT(c.len == n && !memcmp(c.bytes, rec, n));
		EXPECT(c.ntids == 2 && c.tids[0] == 0x1111 && c.tids[1] == 0x2222);
		EXPECT_EQ(f.ctrl->consumer_pos, 5 * sizes[i] - 24 + n);
		fake_free(&f);
	}
	free(c.bytes);
}

/* Positions near UINT64_MAX: the drain crosses 2^64 without noticing. */
TEST(positions_across_the_64bit_wrap)
{
	uint64_t rec[16];
	size_t n, total = 0;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i, k;

	for (i = 0; i < NSIZES; i++) {
		c.len = c.writes = c.ntids = 0;
		total = 0;
		fake_init(&f, sizes[i], UINT64_MAX - 31);	/* 2^64 - 32 */
		for (k = 0; k < 3 && total + 56 <= sizes[i]; k++) {
			n = kernel_wakeup(rec, k, 10 + k, 20 + k);
			produce(&f, rec, n);
			total += n;
		}
		EXPECT(f.ctrl->producer_pos < 4096);	/* it did wrap */
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_OK);
		EXPECT_EQ(res.bytes, total);
		EXPECT(res.chunks >= 1 && res.chunks <= 2);
		EXPECT_EQ(f.ctrl->consumer_pos, f.ctrl->producer_pos);
		EXPECT_EQ(c.ntids, 2 * k);
		fake_free(&f);
	}
	free(c.bytes);
}

/* A ring filled to the last byte drains completely. */
TEST(full_ring)
{
	uint64_t rec[16];
	size_t n;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i;
	uint64_t start;

	for (i = 0; i < NSIZES; i++) {
		for (start = 0; start < 64; start += 40) {
			c.len = c.writes = c.ntids = 0;
			fake_init(&f, sizes[i], start);
			/* 4-word wakeups fill any power-of-two size >= 32. */
			while (f.ctrl->producer_pos - f.ctrl->consumer_pos < f.size) {
				n = kernel_wakeup(rec, 1, 2, 0);
				produce(&f, rec, n);
			}
			EXPECT_EQ(f.ctrl->producer_pos - f.ctrl->consumer_pos, f.size);
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			EXPECT_EQ(res.bytes, f.size);
			EXPECT_EQ(res.chunks, start % f.size ? 2 : 1);
			EXPECT_EQ(f.ring.wakeups, f.size / 32);
			fake_free(&f);
		}
	}
	free(c.bytes);
}

/* producer_pos ahead by more than the size, behind, or unaligned. */
TEST(bogus_producer_positions_are_not_trusted)
{
	const uint64_t start = UINT64_MAX - 63;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i, k;

	for (i = 0; i < NSIZES; i++) {
		const uint64_t heads[] = {
			start + sizes[i] + 8,	/* ahead by more than the area */
			start + (1ULL << 63),	/* far ahead */
			start - 8,		/* behind the consumer */
			start - 4096,
			start + 4,		/* not a whole word */
			start + 1,
		};

		for (k = 0; k < sizeof(heads) / sizeof(heads[0]); k++) {
			fake_init(&f, sizes[i], start);
			f.ctrl->producer_pos = heads[k];
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
			EXPECT_EQ(res.bytes, 0);
			EXPECT_EQ(c.writes, 0);
			EXPECT_EQ(f.ring.bad_producer, 1);
			/* Resynchronised: the next drain is a normal empty one. */
			EXPECT_EQ(f.ctrl->consumer_pos, heads[k]);
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			fake_free(&f);
		}
	}
}

/* Whole records before a malformed one are kept; the rest is skipped. */
TEST(malformed_records_end_the_copy)
{
	static const struct {
		const char *what;
		uint64_t header;
	} bad[] = {
		{ "size 0", FXT_RECORD_SCHEDULING },
		{ "metadata", FXT_RECORD_METADATA | 1 << 4 },
		{ "large", FXT_RECORD_LARGE | 1 << 4 },
		{ "past producer", FXT_RECORD_SCHEDULING | 40ULL << 4 },
	};
	uint64_t rec[16], junk[4] = { 0, 0, 0, 0 };
	size_t n;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		c.len = c.writes = c.ntids = 0;
		fake_init(&f, 256, 200);
		n = kernel_switch(rec, 1, 7, 8);
		produce(&f, rec, n);
		junk[0] = bad[k].header;
		produce(&f, junk, sizeof(junk));
		produce(&f, rec, n);	/* unreachable: framing is lost */
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		if (res.status != RING_DRAIN_CORRUPT)
			printf("#   case: %s\n", bad[k].what);
		EXPECT_EQ(res.status, RING_DRAIN_CORRUPT);
		EXPECT(c.len == n && !memcmp(c.bytes, rec, n));
		EXPECT_EQ(f.ring.bytes_skipped, sizeof(junk) + n);
		EXPECT_EQ(f.ctrl->consumer_pos, f.ctrl->producer_pos);
		EXPECT_EQ(c.ntids, 2);
		fake_free(&f);
	}
	free(c.bytes);
}

/* A wakeup whose argument sizes lie: the record is kept, no wild reads. */
TEST(lying_argument_sizes_stop_the_waker_search)
{
	uint64_t rec[16];
	size_t n;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 64, 0);
	n = kernel_wakeup(rec, 1, 5, 6);
	rec[3] |= 0xfffULL << 4;	/* first argument claims 4095 words */
	produce(&f, rec, n);
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT(c.ntids == 1 && c.tids[0] == 5);
	fake_free(&f);
	free(c.bytes);
}

TEST(sink_errors_leave_the_consumer_where_it_was)
{
	uint64_t rec[16];
	size_t n;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 64, 40);	/* the record wraps: fail either chunk */
	n = kernel_switch(rec, 1, 2, 3);
	produce(&f, rec, n);
	c.fail_with = ENOSPC;
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), (uint64_t)-ENOSPC);
	EXPECT_EQ(f.ctrl->consumer_pos, 40);
	EXPECT_EQ(f.ring.tail, 40);
	c.fail_with = 0;
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT(c.len == n && !memcmp(c.bytes, rec, n));
	fake_free(&f);
	free(c.bytes);
}

/* xorshift: reproducible randomness without libc state. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Producer and consumer interleaved at random, positions starting just
 * below 2^64 in small areas: the output must be exactly the records that
 * fit, in order, and no drain may use more than two chunks.
 */
TEST(random_interleaving_preserves_the_stream)
{
	uint64_t rec[16];
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	uint8_t *expect = malloc(1 << 22);
	size_t n, elen = 0;
	struct fake f;
	unsigned int i, step, dropped = 0, maxchunks = 0;

	for (i = 0; i < NSIZES; i++) {
		c.len = c.writes = c.ntids = 0;
		elen = 0;
		fake_init(&f, sizes[i], 0 - 8 * (1 + rnd() % 64));
		for (step = 0; step < 20000; step++) {
			if (rnd() % 3) {
				n = rnd() % 2 ? kernel_switch(rec, step, step, step + 1) :
						kernel_wakeup(rec, step, step, rnd() % 2 ? step : 0);
				/* The kernel's rule: drop the new record when full. */
				if (f.ctrl->producer_pos + n - f.ctrl->consumer_pos > f.size) {
					dropped++;
					continue;
				}
				produce(&f, rec, n);
				if (elen + n <= (1 << 22)) {
					memcpy(expect + elen, rec, n);
					elen += n;
				}
			} else {
				EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
				if (res.chunks > maxchunks)
					maxchunks = res.chunks;
			}
		}
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT(c.len == elen && !memcmp(c.bytes, expect, elen));
		EXPECT_EQ(f.ring.corrupt + f.ring.bad_producer, 0);
		fake_free(&f);
	}
	EXPECT(maxchunks <= 2);
	printf("#   %u records dropped as full, at most %u chunks per drain\n",
	       dropped, maxchunks);
	free(expect);
	free(c.bytes);
}

/*
 * A hostile kernel: random bytes and random positions. Nothing may crash or
 * read outside the area (ASan), and whatever is copied must be whole frames.
 */
TEST(random_garbage_is_survived)
{
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i, step;
	uint64_t k, pos, h, copied = 0;
	size_t off;

	for (i = 0; i < NSIZES; i++) {
		fake_init(&f, sizes[i], rnd() & ~7ULL);
		for (step = 0; step < 3000; step++) {
			for (k = 0; k < 8; k++)
				f.data[rnd() % f.size] = (uint8_t)rnd();
			/* Plausible headers now and then, so framing gets exercised. */
			pos = f.ring.tail + 8 * (rnd() % (f.size / 8));
			h = FXT_RECORD_SCHEDULING | (1 + rnd() % 8) << 4 |
			    (rnd() % 3) << 60 | (rnd() % 4) << 16;
			memcpy(f.data + (pos & (f.size - 1) & ~7ULL), &h, 8);
			f.ctrl->producer_pos = rnd() % 4 ? f.ring.tail + (rnd() % (f.size + 16)) :
							   rnd();
			c.len = 0;
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			for (off = 0; off + 8 <= c.len; off += ((h >> 4) & 0xfff) * 8) {
				memcpy(&h, c.bytes + off, 8);
				if (!((h >> 4) & 0xfff))
					break;
			}
			EXPECT_EQ(off, c.len);
			copied += c.len;
		}
		fake_free(&f);
	}
	EXPECT(copied > 0);	/* the frame check above was not vacuous */
	printf("#   %" PRIu64 " bytes of plausible frames copied\n", copied);
	free(c.bytes);
}

int main(void)
{
	RUN(init_rejects_sizes_that_are_not_powers_of_two);
	RUN(empty_ring_copies_nothing);
	RUN(records_are_copied_verbatim_and_tids_found);
	RUN(record_across_the_end_of_the_area);
	RUN(positions_across_the_64bit_wrap);
	RUN(full_ring);
	RUN(bogus_producer_positions_are_not_trusted);
	RUN(malformed_records_end_the_copy);
	RUN(lying_argument_sizes_stop_the_waker_search);
	RUN(sink_errors_leave_the_consumer_where_it_was);
	RUN(random_interleaving_preserves_the_stream);
	RUN(random_garbage_is_survived);
	return tap_exit();
}
