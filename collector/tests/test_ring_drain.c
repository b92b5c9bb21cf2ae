// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ring_drain.c - ring_drain() against a fake control page and data
 * area in plain memory: empty and full rings, records across the end of the
 * area and across the 64-bit position wrap, and a kernel that publishes
 * nonsense (impossible producer positions, malformed records, random
 * bytes). The data area is malloc'ed at exactly its size, so under ASan any
 * read outside it fails the test run.
 *
 * The cache of reported tids: a tid is passed on once until another tid
 * takes its slot, tid 0 never, and fxt-collect's set of seen tids still
 * gets every tid. The walk reads records in place and copies the one that
 * crosses the end of the area: the same answers wherever the window lies.
 *
 * Also the kernel's name records (ring_drain_names()): what is reported,
 * with which after_ts, what is skipped, and, together with name_order.c and
 * archive_meta.c as fxt-collect combines them, that the newest name of a
 * thread ends up last in the file whatever order the rings are copied in.
 *
 * Each scenario runs for several area sizes (like kselftest variants).
 */
#include <errno.h>
#include <stdlib.h>

#include "archive_meta.h"
#include "fxt_read.h"
#include "fxt_write.h"
#include "kernel_record_builders.h"
#include "name_order.h"
#include "ring_drain.h"
#include "tap.h"
#include "tid_set.h"

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
	struct ring_name names[64];
	unsigned int nnames;
	int fail_with;		/* make write() fail with this errno */
	size_t takes_at_most;	/* then take this much in all, and fail */
	struct name_order *order;	/* note every name here, if set */
	struct ring_hole holes[8];
	size_t len_at_hole[8];	/* bytes written before each hole came */
	unsigned int nholes;
	int hole_fails_with;	/* make the hole callback fail with this */
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
	if (c->takes_at_most && c->len + len > c->takes_at_most) {
		/* A pipe whose reader went away in the middle of a write. */
		size_t part = c->takes_at_most - c->len;

		c->takes_at_most = 0;
		capture_write(ctx, buf, part);
		c->fail_with = EPIPE;
		return -EPIPE;
	}
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

/*
 * Did the sink get exactly the tids @want (@n of them) from its @from'th
 * on, and no more? Prints the first difference. Use with TIDS().
 */
static bool got_tids(const struct capture *c, size_t from,
		     const uint64_t *want, size_t n)
{
	size_t i;

	if (c->ntids != from + n) {
		printf("#   %u tids reported, expected %zu\n", c->ntids, from + n);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (c->tids[from + i] != want[i]) {
			printf("#   tid %zu is %" PRIu64 ", expected %" PRIu64 "\n",
			       from + i, c->tids[from + i], want[i]);
			return false;
		}
	}
	return true;
}

/* got_tids()'s @want and @n from a list of tids. */
#define TIDS(...)							\
	(const uint64_t[]){ __VA_ARGS__ },				\
	sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)

/* Names, as fxt-collect's sink_name() takes them. */
static void capture_name(void *ctx, const struct ring_name *n)
{
	struct capture *c = ctx;

	if (c->nnames < sizeof(c->names) / sizeof(c->names[0]))
		c->names[c->nnames++] = *n;
	if (c->order)
		name_order_note(c->order, n);
}

/* Holes, as fxt-collect's sink_hole() takes them. */
static int capture_hole(void *ctx, const struct ring_hole *h)
{
	struct capture *c = ctx;

	if (c->hole_fails_with)
		return -c->hole_fails_with;
	if (c->nholes < sizeof(c->holes) / sizeof(c->holes[0])) {
		c->len_at_hole[c->nholes] = c->len;
		c->holes[c->nholes++] = *h;
	}
	return 0;
}

static struct ring_sink sink_for(struct capture *c)
{
	struct ring_sink s = { capture_write, capture_tid, c };

	return s;
}

/*
 * A context switch as the kernel writes it (on CPU 1, blocked): incoming
 * weight, then outgoing_weight if @out_weight (the CPU's last switch did
 * not say it), then the raw @linux_state unless the FXT state implies it
 * (blocked, TASK_INTERRUPTIBLE): 5 to 7 words.
 */
static size_t kernel_switch_args(uint64_t *out, uint64_t ts, uint64_t prev,
				 uint64_t next, bool out_weight,
				 uint32_t linux_state)
{
	const struct kernel_switch s = {
		.cpu = 1, .state = FXT_THREAD_STATE_BLOCKED, .ts = ts,
		.prev = prev, .next = next, .in_weight = 120,
		.out_weight = 125, .with_out_weight = out_weight,
		.linux_state = linux_state, .with_linux_state = linux_state != 1,
	};

	return kernel_switch_record(out, &s);
}

/* A switch without outgoing_weight: 6 words with linux_state, else 5. */
static size_t kernel_switch_state(uint64_t *out, uint64_t ts, uint64_t prev,
				  uint64_t next, uint32_t linux_state)
{
	return kernel_switch_args(out, ts, prev, next, false, linux_state);
}

/* The usual switch: a sleep in TASK_INTERRUPTIBLE, 5 words. */
static size_t kernel_switch(uint64_t *out, uint64_t ts, uint64_t prev,
			    uint64_t next)
{
	return kernel_switch_state(out, ts, prev, next, 1);
}

/* A wakeup (targeting CPU 0): 5 words with a waker, 3 without. */
static size_t kernel_wakeup(uint64_t *out, uint64_t ts, uint64_t woken,
			    uint64_t waker)
{
	return kernel_wakeup_record(out, 0, ts, woken, waker);
}

static size_t kernel_process(uint64_t *out, uint64_t tgid, const char *name)
{
	return kernel_name_record(out, FXT_OBJ_TYPE_PROCESS, tgid, 0, name);
}

static size_t kernel_thread(uint64_t *out, uint64_t tid, uint64_t tgid,
			    const char *name)
{
	return kernel_name_record(out, FXT_OBJ_TYPE_THREAD, tid, tgid, name);
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
	/* The smallest ring: one word (ring_drain.h: a power of two >= 8). */
	EXPECT_EQ(ring_init(&r, &ctrl, data, 8), 0);
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
	n = kernel_switch_state(rec, 10, 600, 700, 2);	/* D: linux_state */
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
	EXPECT_EQ(len, (5 + 6 + 5 + 3) * 8);

	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT_EQ(res.chunks, 1);
	EXPECT_EQ(res.bytes, len);
	EXPECT(c.len == len && !memcmp(c.bytes, all, len));
	EXPECT_EQ(f.ctrl->consumer_pos, len);
	EXPECT(got_tids(&c, 0, TIDS(100, 200, 600, 700, 300, 400, 500)));
	EXPECT_EQ(f.ring.switches, 2);
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
		/* Start 3 words before the end: the 5-word record wraps. */
		fake_init(&f, sizes[i], 5 * sizes[i] - 24);
		n = kernel_switch(rec, 1, 0x1111, 0x2222);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.chunks, 2);
		EXPECT(c.len == n && !memcmp(c.bytes, rec, n));
		EXPECT(got_tids(&c, 0, TIDS(0x1111, 0x2222)));
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
			/*
			 * Pairs of wakeups, 3 words without a waker and 5 with
			 * one, fill any power-of-two size >= 64.
			 */
			while (f.ctrl->producer_pos - f.ctrl->consumer_pos < f.size) {
				n = kernel_wakeup(rec, 1, 2, 0);
				produce(&f, rec, n);
				n = kernel_wakeup(rec, 1, 2, 3);
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

/* producer_pos ahead by more than the size, or unaligned. */
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
			start + (1ULL << 63) - 8,	/* far ahead */
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
			/*
			 * What the ring held unread is unknown: not counted
			 * as bytes, which are exact (the summary says so).
			 */
			EXPECT_EQ(f.ring.bytes_skipped, 0);
			EXPECT_EQ(f.ring.corrupt, 0);
			/* Resynchronised: the next drain is a normal empty one. */
			EXPECT_EQ(f.ctrl->consumer_pos, heads[k]);
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			fake_free(&f);
		}
	}
}

/*
 * producer_pos behind what was already copied (overwritten: the kernel
 * never goes back): following it would copy those bytes again. It is not
 * followed and nothing is skipped; once the kernel stores its real
 * position, the next drain copies exactly the new record.
 */
TEST(a_producer_position_behind_what_was_read_is_not_followed)
{
	const uint64_t start = UINT64_MAX - 63;
	uint64_t rec[16], tail;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i, k;
	size_t n, before;

	for (i = 0; i < NSIZES; i++) {
		for (k = 0; k < 3; k++) {
			const uint64_t back[] = { 8, 16, sizes[i] };

			c.len = c.writes = 0;
			fake_init(&f, sizes[i], start);
			n = kernel_wakeup(rec, 100, 7, 0);
			produce(&f, rec, n);
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.bytes, n);
			tail = f.ctrl->consumer_pos;
			before = c.len;

			f.ctrl->producer_pos = tail - back[k];
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_PRODUCER_BEHIND);
			EXPECT_EQ(res.bytes, 0);
			EXPECT_EQ(c.len, before);
			EXPECT_EQ(f.ctrl->consumer_pos, tail);
			EXPECT_EQ(f.ring.producer_behind, 1);
			EXPECT_EQ(f.ring.bad_producer, 0);
			EXPECT(!f.ring.hole_open);

			/* The kernel's next store: its real position. */
			f.ctrl->producer_pos = tail;
			n = kernel_wakeup(rec, 200, 8, 0);
			produce(&f, rec, n);
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			EXPECT_EQ(res.bytes, n);
			EXPECT_EQ(c.len, before + n);
			EXPECT_EQ(f.ring.wakeups, 2);
			fake_free(&f);
		}
	}
	free(c.bytes);
}

/*
 * A skip to a position too far ahead leaves consumer_pos ahead of the
 * kernel's, which then drops every record and stores its real position
 * again: behind the consumer, but not behind what was read. That one is
 * followed back, and the ring works again.
 */
TEST(a_skip_too_far_ahead_is_undone_by_the_real_position)
{
	uint64_t rec[16], real;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i;
	size_t n, before;

	for (i = 0; i < NSIZES; i++) {
		c.len = c.writes = 0;
		fake_init(&f, sizes[i], 4096);
		n = kernel_wakeup(rec, 100, 7, 0);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		real = f.ctrl->producer_pos;

		f.ctrl->producer_pos = real + sizes[i] + 8;
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
		EXPECT_EQ(f.ctrl->consumer_pos, real + sizes[i] + 8);

		/* The kernel's drop stores its real position again. */
		f.ctrl->producer_pos = real;
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
		EXPECT_EQ(f.ctrl->consumer_pos, real);
		EXPECT_EQ(f.ring.producer_behind, 0);

		before = c.len;
		n = kernel_wakeup(rec, 300, 8, 0);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_OK);
		EXPECT_EQ(c.len, before + n);
		fake_free(&f);
	}
	free(c.bytes);
}

/*
 * The kernel's side, as kmod/fxtrace_ring.h has it (fxtrace_ring_reserve(),
 * _commit(), _drop()): its own head, never read back from producer_pos;
 * consumer_pos loaded at every record, one out of range (behind by more
 * than the size, or ahead) counted in consumer_errors and the record
 * dropped; every drop stores the real head in producer_pos again; the
 * first record that fits after drops brings the pair of loss markers.
 */
struct kernel {
	struct fake *f;
	uint64_t head, lost, dropped, errors, first_lost_ts;
};

#define KERNEL_MARKERS_BYTES	(2 * 7 * 8)

static void kernel_init(struct kernel *k, struct fake *f)
{
	memset(k, 0, sizeof(*k));
	k->f = f;
	k->head = f->ctrl->producer_pos;
}

/* Write @len bytes at @pos, wrapping, publishing nothing. */
static uint64_t kernel_write(struct kernel *k, uint64_t pos, const void *rec,
			     size_t len)
{
	const uint8_t *p = rec;
	size_t i;

	for (i = 0; i < len; i++)
		k->f->data[(pos + i) & (k->f->size - 1)] = p[i];
	return pos + len;
}

static void kernel_drop(struct kernel *k, uint64_t ts)
{
	if (!k->lost)
		k->first_lost_ts = ts;
	k->lost++;
	k->f->ctrl->records_dropped = ++k->dropped;
	__atomic_store_n(&k->f->ctrl->producer_pos, k->head, __ATOMIC_RELEASE);
}

/* Try to write the record @rec of @len bytes, of time @ts: false if dropped. */
static bool kernel_put(struct kernel *k, const void *rec, size_t len,
		       uint64_t ts)
{
	struct fxtrace_ctrl *ctrl = k->f->ctrl;
	uint64_t cons = __atomic_load_n(&ctrl->consumer_pos, __ATOMIC_ACQUIRE);
	uint64_t used = k->head - cons, need = len, m[16];
	uint64_t head = k->head;

	if (used > k->f->size) {
		ctrl->consumer_errors = ++k->errors;
		kernel_drop(k, ts);
		return false;
	}
	if (k->lost)
		need += KERNEL_MARKERS_BYTES;
	if (k->f->size - used < need) {
		kernel_drop(k, ts);
		return false;
	}
	if (k->lost) {
		head = kernel_write(k, head, m, kernel_loss_marker(m,
				    k->first_lost_ts, 1, (int64_t)k->lost, 77, 78));
		head = kernel_write(k, head, m, kernel_loss_marker(m, ts, 1, 0,
								   77, 78));
		k->lost = 0;
	}
	k->head = kernel_write(k, head, rec, len);
	__atomic_store_n(&ctrl->producer_pos, k->head, __ATOMIC_RELEASE);
	return true;
}

/*
 * A fresh ring of @size from position @start, its kernel, and one wakeup
 * (time 100), built in @rec, put and drained; the capture emptied first.
 * Returns the record's size.
 */
static size_t ring_after_one_wakeup(struct fake *f, struct kernel *k,
				    struct capture *c,
				    const struct ring_sink *s, uint64_t size,
				    uint64_t start, uint64_t *rec)
{
	struct ring_drain_result res;
	size_t n;

	c->len = c->writes = c->ntids = c->nholes = 0;
	fake_init(f, size, start);
	kernel_init(k, f);
	n = kernel_wakeup(rec, 100, 7, 0);
	EXPECT(kernel_put(k, rec, n, 100));
	EXPECT_EQ(ring_drain(&f->ring, s, &res), 0);
	EXPECT_EQ(res.bytes, n);
	return n;
}

/*
 * producer_pos overwritten with a position ahead of the kernel's but
 * within a ring of the consumer's looks like any other: the drain copies
 * up to it (here the previous lap's records, copied again, or bytes that
 * are no records, skipped) and publishes it as consumer_pos. The kernel
 * finds that ahead of its own: it drops every record, counting each in
 * consumer_errors, and stores its real position again, behind what was
 * read. That one is followed back (the position followed was impossible
 * after all: counted, and a hole), and the ring works again: the kernel's
 * next record comes with the loss markers of its drops. (A producer_pos
 * behind with no consumer error is not followed: see above.)
 */
TEST(a_followed_position_ahead_of_the_kernels_is_gone_back_from)
{
	static const uint64_t starts[] = { 4096, UINT64_MAX - 63 };
	uint64_t rec[16], real, bogus, pos, ts;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct kernel k;
	struct fake f;
	unsigned int i, j, stale, m;
	size_t n, before;

	for (i = 1; i < NSIZES; i++) {	/* 64 bytes: no room for markers */
		for (j = 0; j < 2 * 2; j++) {
			stale = j & 1;
			ring_after_one_wakeup(&f, &k, &c, &s, sizes[i],
					      starts[j / 2], rec);
			real = k.head;

			/* Past the kernel's position: an earlier lap's bytes. */
			pos = real;
			for (m = 0; stale && m < 3; m++)
				pos = kernel_write(&k, pos, rec,
						   kernel_wakeup(rec, 10 + m, 5, 0));
			bogus = real + 3 * 24;
			f.ctrl->producer_pos = bogus;
			EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole,
						   &res), 0);
			EXPECT_EQ(res.status, stale ? RING_DRAIN_OK : RING_DRAIN_CORRUPT);
			EXPECT_EQ(f.ctrl->consumer_pos, bogus);

			/* Every record the kernel tries is dropped... */
			for (ts = 200; ts < 205; ts++)
				EXPECT(!kernel_put(&k, rec, kernel_wakeup(rec, ts, 8, 0),
						   ts));
			EXPECT_EQ(f.ctrl->consumer_errors, 5);
			EXPECT_EQ(f.ctrl->producer_pos, real);

			/* ...until the drain goes back to its position. */
			before = c.len;
			EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole,
						   &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
			EXPECT_EQ(res.bytes, 0);
			EXPECT_EQ(c.len, before);
			EXPECT_EQ(f.ctrl->consumer_pos, real);
			EXPECT_EQ(f.ring.bad_producer, 1);
			EXPECT_EQ(f.ring.producer_behind, 0);
			EXPECT(f.ring.hole_open);

			/* Loss markers, then records: each copied once. */
			for (ts = 300; ts < 303; ts++) {
				n = kernel_wakeup(rec, ts, 9, 0);
				EXPECT(kernel_put(&k, rec, n, ts));
				before = c.len;
				EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL,
							   capture_hole, &res), 0);
				EXPECT_EQ(res.status, RING_DRAIN_OK);
				EXPECT_EQ(c.len - before,
					  n + (ts == 300 ? KERNEL_MARKERS_BYTES : 0));
				EXPECT_EQ(f.ctrl->consumer_pos, k.head);
			}
			EXPECT_EQ(f.ctrl->consumer_errors, 5);
			EXPECT_EQ(f.ring.loss_markers, 2);
			EXPECT_EQ(f.ring.lost_marked, 5);
			EXPECT_EQ(ring_unmarked_loss(&f.ring), 0);
			EXPECT_EQ(f.ring.bad_producer, 1);
			/* One hole, up to the first drop (the first marker). */
			EXPECT_EQ(c.nholes, 1);
			EXPECT_EQ(c.holes[0].to_ts, 200);
			EXPECT_EQ(c.holes[0].bad_producer, 1);
			EXPECT_EQ(c.holes[0].corrupt, !stale);
			EXPECT_EQ(c.holes[0].bytes, f.size + (stale ? 0 : 3 * 24));
			fake_free(&f);
		}
	}
	free(c.bytes);
}

/*
 * A producer_pos behind what was read is gone back to only as a position
 * followed ahead: consumer_errors risen since consumer_pos was stored, and
 * the position inside the window last read. Not when the control page is
 * put back from an older copy after a consumer error (the count fell),
 * nor when the count rose but the position is below that window (no
 * window ending ahead of the kernel's position would have it):
 * nothing is copied twice, and the kernel's next record is copied once.
 */
TEST(a_position_behind_is_gone_back_to_only_inside_the_last_window)
{
	uint64_t rec[16], read_from, read_to;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct kernel k;
	struct fake f;
	unsigned int i, v;
	size_t n, before;

	for (i = 1; i < NSIZES; i++) {	/* room for 4 wakeups */
		for (v = 0; v < 2; v++) {
			n = ring_after_one_wakeup(&f, &k, &c, &s, sizes[i], 0,
						  rec);
			read_from = k.head;
			/* An error counted between the two drains. */
			f.ctrl->consumer_errors = k.errors = 1;
			EXPECT(kernel_put(&k, rec, n, 101));
			EXPECT(kernel_put(&k, rec, n, 102));
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(c.len, 3 * n);
			read_to = k.head;

			if (v == 0) {
				/*
				 * A copy of the page from between the drains
				 * put back: a position inside the last
				 * window, and the count falls.
				 */
				f.ctrl->producer_pos = read_from;
				f.ctrl->consumer_pos = read_from;
				f.ctrl->consumer_errors = 0;
			} else {
				/* Below the last window, and a count risen. */
				f.ctrl->producer_pos = read_from - 8;
				f.ctrl->consumer_errors = k.errors = 2;
			}
			EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole,
						   &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_PRODUCER_BEHIND);
			EXPECT_EQ(f.ctrl->consumer_pos, read_to);
			EXPECT_EQ(f.ring.bad_producer, 0);

			EXPECT(kernel_put(&k, rec, n, 103));
			before = c.len;
			EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole,
						   &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			EXPECT_EQ(c.len - before, n);
			EXPECT_EQ(f.ctrl->consumer_pos, k.head);
			EXPECT_EQ(f.ring.bad_producer, 0);
			EXPECT_EQ(c.nholes, 0);
			fake_free(&f);
		}
	}
	free(c.bytes);
}

/*
 * Two positions followed ahead before the kernel's next record: the real
 * one is below the window last read, and the first drop (one error, maybe
 * a late one) does not send the drain back; the second proves the kernel
 * finds the current consumer_pos out of range, and it goes back then.
 */
TEST(two_positions_followed_ahead_are_gone_back_from_at_the_second_drop)
{
	uint64_t rec[16], real, ts;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct kernel k;
	struct fake f;
	unsigned int i;
	size_t n, before;

	for (i = 1; i < NSIZES; i++) {	/* 64 bytes: no room for markers */
		n = ring_after_one_wakeup(&f, &k, &c, &s, sizes[i], 0, rec);
		real = k.head;

		f.ctrl->producer_pos = real + n;
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		f.ctrl->producer_pos = real + 2 * n;
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(f.ctrl->consumer_pos, real + 2 * n);

		EXPECT(!kernel_put(&k, rec, n, 200));
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_PRODUCER_BEHIND);
		EXPECT(!kernel_put(&k, rec, n, 201));
		EXPECT_EQ(f.ctrl->consumer_errors, 2);
		EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
		EXPECT_EQ(f.ctrl->consumer_pos, real);

		for (ts = 300; ts < 302; ts++) {
			EXPECT(kernel_put(&k, rec, n, ts));
			before = c.len;
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			EXPECT_EQ(c.len - before,
				  n + (ts == 300 ? KERNEL_MARKERS_BYTES : 0));
		}
		EXPECT_EQ(f.ring.lost_marked, 2);
		EXPECT_EQ(ring_unmarked_loss(&f.ring), 0);
		fake_free(&f);
	}
	free(c.bytes);
}

/*
 * consumer_pos is the consumer's alone, but the page is writable. Another
 * value stored there makes the kernel drop every record: out of range
 * (counted in consumer_errors), or in range behind, as a full ring. It
 * stores its real position in producer_pos again, but that is the one
 * already drained: with nothing to copy, nothing would be published. The
 * drain stores its own position again, and the ring works again.
 */
TEST(an_overwritten_consumer_position_is_stored_again)
{
	uint64_t rec[16], real, ts;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct kernel k;
	struct fake f;
	unsigned int i, v;
	size_t n, before;

	for (i = 1; i < NSIZES; i++) {	/* 64 bytes: no room for markers */
		const struct {
			int64_t by;	/* consumer_pos overwritten: real + by */
			uint64_t errors;
		} bad[] = {
			{ 8, 3 },				/* ahead */
			{ -2 * (int64_t)sizes[i], 3 },		/* far behind */
			{ -(int64_t)sizes[i], 0 },		/* a full ring */
		};

		for (v = 0; v < sizeof(bad) / sizeof(bad[0]); v++) {
			c.len = c.writes = c.ntids = c.nholes = 0;
			fake_init(&f, sizes[i], 1ULL << 40);
			kernel_init(&k, &f);
			n = kernel_switch(rec, 100, 7, 8);
			EXPECT(kernel_put(&k, rec, n, 100));
			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			real = k.head;

			f.ctrl->consumer_pos = real + (uint64_t)bad[v].by;
			for (ts = 200; ts < 203; ts++)
				EXPECT(!kernel_put(&k, rec, kernel_wakeup(rec, ts, 8, 0),
						   ts));
			EXPECT_EQ(f.ctrl->consumer_errors, bad[v].errors);
			EXPECT_EQ(f.ctrl->producer_pos, real);

			EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			EXPECT_EQ(res.bytes, 0);
			EXPECT_EQ(f.ctrl->consumer_pos, real);

			n = kernel_wakeup(rec, 300, 9, 0);
			EXPECT(kernel_put(&k, rec, n, 300));
			before = c.len;
			EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole,
						   &res), 0);
			EXPECT_EQ(res.status, RING_DRAIN_OK);
			EXPECT_EQ(c.len - before, KERNEL_MARKERS_BYTES + n);
			EXPECT_EQ(f.ctrl->consumer_pos, k.head);
			EXPECT_EQ(f.ring.lost_marked, 3);
			EXPECT_EQ(ring_unmarked_loss(&f.ring), 0);
			/* The kernel marked its drops: nothing skipped here. */
			EXPECT_EQ(f.ring.bad_producer + f.ring.corrupt +
				  f.ring.producer_behind, 0);
			EXPECT_EQ(c.nholes, 0);
			fake_free(&f);
		}
	}
	free(c.bytes);
}

/*
 * Decision 7 for what the drain skips: each hole is reported once, when
 * the first timestamped record after it is about to be written (so a
 * marker lands in the file right there), spanning from the last record
 * before it to that one. Skips with no record between are one hole, an
 * impossible producer position counts the ring's size, and a failed
 * callback leaves the hole open and the consumer where it was.
 */
TEST(skipped_data_is_one_hole_reported_before_the_next_record)
{
	uint64_t rec[16], zero = 0, tail;
	size_t n, before;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i;

	for (i = 1; i < NSIZES; i++) {	/* 64 bytes: too small for this */
		c.len = c.writes = c.ntids = c.nholes = 0;
		fake_init(&f, sizes[i], 4096);
		n = kernel_switch(rec, 100, 7, 8);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(c.nholes, 0);

		/* Malformed: a size-0 header after a good record (ts 150). */
		n = kernel_wakeup(rec, 150, 9, 0);
		produce(&f, rec, n);
		produce(&f, &zero, 8);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_CORRUPT);
		EXPECT_EQ(c.nholes, 0);		/* its end is not known yet */
		EXPECT(f.ring.hole_open);

		/* Then an impossible (but aligned) producer position. */
		tail = f.ctrl->consumer_pos;
		f.ctrl->producer_pos = tail + f.size + 8;
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
		EXPECT_EQ(c.nholes, 0);

		/* An untimestamped name record does not end it... */
		n = kernel_thread(rec, 9, 9, "t");
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(c.nholes, 0);

		/* ...a timestamped record does, but a failed marker keeps it. */
		n = kernel_wakeup(rec, 300, 10, 0);
		produce(&f, rec, n);
		tail = f.ctrl->consumer_pos;
		before = c.len;
		c.hole_fails_with = EIO;
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res),
			  (uint64_t)-EIO);
		EXPECT_EQ(f.ctrl->consumer_pos, tail);
		EXPECT_EQ(c.len, before);
		EXPECT(f.ring.hole_open);
		c.hole_fails_with = 0;
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(c.nholes, 1);
		EXPECT_EQ(c.holes[0].from_ts, 150);
		EXPECT_EQ(c.holes[0].to_ts, 300);
		EXPECT_EQ(c.holes[0].bytes, 8 + f.size);
		EXPECT_EQ(c.holes[0].corrupt, 1);
		EXPECT_EQ(c.holes[0].bad_producer, 1);
		EXPECT_EQ(c.len_at_hole[0], before);	/* before the window */
		EXPECT(!f.ring.hole_open);

		/* The next record starts no hole of its own. */
		n = kernel_wakeup(rec, 310, 10, 0);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(c.nholes, 1);

		/* At the end of a session: ended by the caller, clamped. */
		produce(&f, &zero, 8);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(ring_end_hole(&f.ring, 200, capture_hole, &c), 0);
		EXPECT_EQ(c.nholes, 2);
		EXPECT_EQ(c.holes[1].from_ts, 310);
		EXPECT_EQ(c.holes[1].to_ts, 310);	/* not before from_ts */
		EXPECT_EQ(c.holes[1].bytes, 8);
		EXPECT_EQ(ring_end_hole(&f.ring, 400, capture_hole, &c), 0);
		EXPECT_EQ(c.nholes, 2);			/* none open */
		fake_free(&f);

		/* A ring whose first bytes are bad: from_ts 0 (no record yet). */
		c.nholes = 0;
		fake_init(&f, sizes[i], 0);
		produce(&f, &zero, 8);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		n = kernel_switch(rec, 500, 7, 8);
		produce(&f, rec, n);
		EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
		EXPECT_EQ(c.nholes, 1);
		EXPECT_EQ(c.holes[0].from_ts, 0);
		EXPECT_EQ(c.holes[0].to_ts, 500);
		fake_free(&f);
	}
	free(c.bytes);
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
	EXPECT(got_tids(&c, 0, TIDS(5)));
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

/*
 * A drain whose sink took part of the window and failed (a pipe that
 * keeps what it took): ring_count_written() counts the whole records of
 * that part, and no cut one, also when the part is in both chunks of a
 * window across the end of the area.
 */
TEST(what_a_failed_write_kept_is_counted)
{
	uint64_t rec[16];
	size_t sw, wk, nm;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 256, 3 * 256 - 48);	/* the second record wraps */
	sw = kernel_switch(rec, 100, 1, 2);
	produce(&f, rec, sw);
	wk = kernel_wakeup(rec, 200, 2, 1);
	produce(&f, rec, wk);
	nm = kernel_thread(rec, 2, 2, "two");
	produce(&f, rec, nm);
	produce(&f, rec, kernel_loss_marker(rec, 300, 1, 4, 77, 78));
	c.takes_at_most = sw + wk + nm + 3;	/* a cut loss marker */
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), (uint64_t)-EPIPE);
	EXPECT_EQ(c.len, sw + wk + nm + 3);
	EXPECT_EQ(f.ring.switches + f.ring.wakeups + f.ring.names, 0);
	ring_count_written(&f.ring, c.len);
	EXPECT_EQ(f.ring.switches, 1);
	EXPECT_EQ(f.ring.wakeups, 1);
	EXPECT_EQ(f.ring.names, 1);
	EXPECT_EQ(f.ring.loss_markers, 0);
	EXPECT_EQ(f.ring.lost_marked, 0);
	EXPECT_EQ(f.ring.bytes, sw + wk + nm);
	EXPECT_EQ(f.ring.tail, 3 * 256 - 48);	/* nothing consumed */
	EXPECT_EQ(f.ctrl->consumer_pos, 3 * 256 - 48);
	fake_free(&f);
	free(c.bytes);

	/* Inside the first record: nothing; more than the window: all. */
	memset(&c, 0, sizeof(c));
	fake_init(&f, 256, 0);
	produce(&f, rec, kernel_switch(rec, 100, 1, 2));
	produce(&f, rec, kernel_loss_marker(rec, 110, 1, 4, 77, 78));
	c.takes_at_most = 7;
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), (uint64_t)-EPIPE);
	ring_count_written(&f.ring, c.len);
	EXPECT_EQ(f.ring.switches + f.ring.bytes, 0);
	ring_count_written(&f.ring, 4096);
	EXPECT_EQ(f.ring.switches, 1);
	EXPECT_EQ(f.ring.loss_markers, 1);
	EXPECT_EQ(f.ring.lost_marked, 4);
	EXPECT_EQ(f.ring.bytes, sw + 56);
	fake_free(&f);
	free(c.bytes);
}

/* Append @n bytes of @rec to the ring and to the expected stream @all. */
static void put(struct fake *f, uint8_t *all, size_t *len, const uint64_t *rec,
		size_t n)
{
	produce(f, rec, n);
	memcpy(all + *len, rec, n);
	*len += n;
}

static void expect_name(const struct ring_name *n, unsigned int type,
			uint64_t koid, uint64_t process, const char *name,
			uint64_t after_ts)
{
	EXPECT_EQ(n->obj_type, type);
	EXPECT_EQ(n->koid, koid);
	EXPECT_EQ(n->process, process);
	EXPECT_STREQ(n->name, name);
	EXPECT_EQ(n->len, strlen(name));
	EXPECT_EQ(n->after_ts, after_ts);
}

/*
 * The cache of reported tids: every tid once, until a tid of the same slot
 * takes its place, then again; never tid 0; kept across drains and failed
 * writes (the sink had the tids).
 */
TEST(tids_are_reported_once_until_evicted)
{
	const uint64_t a = 100, b = 200, a2 = 100 + RING_TID_SLOTS;
	uint64_t rec[16];
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int k;

	fake_init(&f, 1024, 0);
	for (k = 0; k < 3; k++) {
		produce(&f, rec, kernel_switch(rec, 10 * k, a, b));
		produce(&f, rec, kernel_wakeup(rec, 10 * k + 1, a, b));
		produce(&f, rec, kernel_switch(rec, 10 * k + 2, b, 0));
		produce(&f, rec, kernel_wakeup(rec, 10 * k + 3, b, 0));
	}
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	ASSERT(got_tids(&c, 0, TIDS(a, b)));
	EXPECT_EQ(f.ring.switches, 6);
	EXPECT_EQ(f.ring.wakeups, 6);
	EXPECT_EQ(f.ring.tid_seen[a % RING_TID_SLOTS], a);

	/* The next drain remembers them. */
	produce(&f, rec, kernel_switch(rec, 50, b, a));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(c.ntids, 2);

	/* a2 takes a's slot: both are reported on each return. */
	produce(&f, rec, kernel_switch(rec, 60, a, a2));
	produce(&f, rec, kernel_wakeup(rec, 61, a, a2));
	produce(&f, rec, kernel_switch(rec, 62, a2, b));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	ASSERT(got_tids(&c, 2, TIDS(a2, a, a2)));
	EXPECT_EQ(f.ring.tid_seen[a % RING_TID_SLOTS], a2);

	/* Reported in a drain whose write failed: not again on the retry. */
	produce(&f, rec, kernel_switch(rec, 70, 7, 8));
	c.fail_with = EIO;
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), (uint64_t)-EIO);
	ASSERT(got_tids(&c, 5, TIDS(7, 8)));
	c.fail_with = 0;
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(c.ntids, 7);
	EXPECT_EQ(f.ring.switches, 6 + 1 + 2 + 1);

	/* Another ring has its own cache. */
	fake_free(&f);
	fake_init(&f, 1024, 0);
	produce(&f, rec, kernel_switch(rec, 80, a, b));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(c.ntids, 9);
	fake_free(&f);
	free(c.bytes);
}

/* xorshift for the tests below, apart from rnd() further down. */
static uint64_t rnd_u64(void)
{
	static uint64_t state = 0x2545f4914f6cdd1dULL;

	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* fxt-collect's sink_tid(): the collector's set of tids seen. */
struct seen_sink {
	struct tid_set seen;
	unsigned int calls;
};

static int seen_write(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static void seen_tid(void *ctx, uint64_t tid)
{
	struct seen_sink *ss = ctx;

	ss->calls++;
	tid_set_add(&ss->seen, tid);
}

/*
 * However tids collide in the cache (here 8 tids per slot, in 4 slots),
 * across rings and drains, every tid in the ring data reaches the set the
 * collector names threads from, and only those.
 */
TEST(every_tid_reaches_the_collectors_set_whatever_the_cache_evicts)
{
	struct seen_sink ss = { .calls = 0 };
	struct ring_sink s = { seen_write, seen_tid, &ss };
	struct tid_set expect;
	struct fake rings[2];
	uint64_t rec[16], t1, t2, *got = NULL, *want = NULL;
	unsigned int step, i, occurrences = 0;
	long ngot, nwant;
	size_t n;

	tid_set_init(&ss.seen);
	tid_set_init(&expect);
	fake_init(&rings[0], 1024, 0 - 512);
	fake_init(&rings[1], 256, 40);
	for (step = 0; step < 5000; step++) {
		struct fake *f = &rings[rnd_u64() % 2];

		t1 = (rnd_u64() % 4) + RING_TID_SLOTS * (rnd_u64() % 8);
		t2 = (rnd_u64() % 4) + RING_TID_SLOTS * (rnd_u64() % 8);
		switch (rnd_u64() % 4) {
		case 0:
			n = kernel_switch(rec, step, t1, t2);
			break;
		case 1:
			n = kernel_switch_state(rec, step, t1, t2, 0x402);
			break;
		case 2:
			n = kernel_switch_args(rec, step, t1, t2, true,
					       rnd_u64() % 2 ? 1 : 0x402);
			break;
		default:
			n = kernel_wakeup(rec, step, t1, t2);
		}
		if (f->ctrl->producer_pos + n - f->ring.tail > f->size)
			EXPECT_EQ(ring_drain(&f->ring, &s, NULL), 0);
		produce(f, rec, n);
		if (t1)
			tid_set_add(&expect, t1);
		if (t2)
			tid_set_add(&expect, t2);
		occurrences += 2;
		if (rnd_u64() % 8 == 0)
			EXPECT_EQ(ring_drain(&f->ring, &s, NULL), 0);
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(ring_drain(&rings[i].ring, &s, NULL), 0);
	ngot = tid_set_sorted(&ss.seen, &got);
	nwant = tid_set_sorted(&expect, &want);
	ASSERT(ngot > 0 && nwant == 31);	/* tid 0 is never passed on */
	EXPECT(ngot == nwant && !memcmp(got, want, (size_t)nwant * sizeof(*got)));
	/* Evictions report again, but far from every occurrence. */
	EXPECT(ss.calls > (unsigned int)nwant && ss.calls < occurrences);
	printf("#   %u sink calls for %u tid occurrences of %ld tids\n",
	       ss.calls, occurrences, nwant);
	free(got);
	free(want);
	tid_set_free(&ss.seen);
	tid_set_free(&expect);
	fake_free(&rings[0]);
	fake_free(&rings[1]);
}

/* Every counter and report of one drain, to compare two walks. */
struct walk_result {
	struct capture c;
	uint64_t switches, wakeups, names, loss_markers, other, last_ts, bytes;
	enum ring_drain_status status;
};

static void walk_at(uint64_t size, uint64_t start, const uint8_t *win,
		    size_t len, struct walk_result *w)
{
	struct ring_sink s = sink_for(&w->c);
	struct ring_drain_result res;
	struct fake f;

	free(w->c.bytes);
	memset(w, 0, sizeof(*w));
	fake_init(&f, size, start);
	produce(&f, win, len);
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, &res), 0);
	w->status = res.status;
	w->switches = f.ring.switches;
	w->wakeups = f.ring.wakeups;
	w->names = f.ring.names;
	w->loss_markers = f.ring.loss_markers;
	w->other = f.ring.other_records;
	w->last_ts = f.ring.last_ts;
	w->bytes = f.ring.bytes;
	EXPECT_EQ(f.ctrl->consumer_pos, start + len);
	fake_free(&f);
}

static bool same_walk(const struct walk_result *a, const struct walk_result *b)
{
	unsigned int i;

	if (a->status != b->status || a->switches != b->switches ||
	    a->wakeups != b->wakeups || a->names != b->names ||
	    a->loss_markers != b->loss_markers || a->other != b->other ||
	    a->last_ts != b->last_ts || a->bytes != b->bytes ||
	    a->c.len != b->c.len || memcmp(a->c.bytes, b->c.bytes, a->c.len) ||
	    a->c.ntids != b->c.ntids || a->c.nnames != b->c.nnames ||
	    memcmp(a->c.tids, b->c.tids, a->c.ntids * sizeof(a->c.tids[0])))
		return false;
	for (i = 0; i < a->c.nnames; i++)
		if (a->c.names[i].koid != b->c.names[i].koid ||
		    a->c.names[i].process != b->c.names[i].process ||
		    a->c.names[i].after_ts != b->c.names[i].after_ts ||
		    strcmp(a->c.names[i].name, b->c.names[i].name))
			return false;
	return true;
}

/*
 * Records of every kind the walk knows, the kernel's and others, in a
 * window that starts at every word of the area in turn: whichever record
 * crosses the end, and at whichever word, the walk gives what it gives in
 * one piece. A malformed record at the end of the window stops it at the
 * same place too.
 */
TEST(records_across_the_end_walk_as_in_one_piece)
{
	const uint64_t size = 512;
	uint64_t rec[16], other[3];
	uint8_t win[512];
	size_t len = 0, good;
	static struct walk_result ref, w;	/* 70 KiB: not on the stack */
	struct fake f;
	uint64_t start;
	unsigned int bad, mismatches = 0, walks = 0;

	fake_init(&f, 4096, 0);		/* only to build the window with put() */
	put(&f, win, &len, rec, kernel_switch(rec, 10, 1, 2));
	put(&f, win, &len, rec, kernel_process(rec, 60, "proc"));
	put(&f, win, &len, rec, kernel_wakeup(rec, 20, 3, 4));
	put(&f, win, &len, rec, kernel_thread(rec, 61, 60, "fifteen-bytes!!"));
	put(&f, win, &len, rec, kernel_wakeup(rec, 30, 5, 0));
	put(&f, win, &len, rec, kernel_loss_marker(rec, 40, 1, 3, 77, 78));
	other[0] = FXT_RECORD_SCHEDULING | 3ULL << FXT_HDR_SIZE_SHIFT;	/* legacy */
	other[1] = 50;
	other[2] = 6;
	put(&f, win, &len, other, 24);
	put(&f, win, &len, rec, kernel_thread(rec, 62, 60, "x"));
	put(&f, win, &len, rec,
	    kernel_switch_state(rec, 60, 7, 1 + RING_TID_SLOTS, 2));
	good = len;
	fake_free(&f);
	ASSERT(len + 32 <= size);

	for (bad = 0; bad < 5; bad++) {
		static const uint64_t bad_header[] = {
			0,				/* none: all good */
			FXT_RECORD_SCHEDULING,		/* size 0 */
			FXT_RECORD_METADATA | 4 << 4,
			FXT_RECORD_LARGE | 4 << 4,
			FXT_RECORD_SCHEDULING | 5 << 4,	/* past producer */
		};
		uint64_t junk[4] = { bad_header[bad], 1, 2, 3 };

		len = good;
		if (bad) {
			memcpy(win + len, junk, sizeof(junk));
			len += sizeof(junk);
		}
		walk_at(4096, 0, win, len, &ref);
		EXPECT_EQ(ref.bytes, good);
		EXPECT_EQ(ref.status, bad ? RING_DRAIN_CORRUPT : RING_DRAIN_OK);
		for (start = 0; start < size; start += 8) {
			walk_at(size, 0 - 4 * size + start, win, len, &w);
			walks++;
			if (!same_walk(&ref, &w)) {
				mismatches++;
				printf("#   bad record %u, window at %" PRIu64 "\n",
				       bad, start);
			}
		}
	}
	EXPECT_EQ(ref.switches, 2);
	EXPECT_EQ(ref.wakeups, 2);
	EXPECT_EQ(ref.names, 3);
	EXPECT_EQ(ref.loss_markers, 1);
	EXPECT_EQ(ref.other, 1);
	EXPECT_EQ(ref.last_ts, 60);
	EXPECT_EQ(ref.c.ntids, 7);	/* 1, 2, 3, 4, 5, 7, 1 + RING_TID_SLOTS */
	EXPECT_EQ(mismatches, 0);
	printf("#   %u walks, %u differ from the one in one piece\n", walks,
	       mismatches);
	free(ref.c.bytes);
	free(w.c.bytes);
}

/* A wakeup (CPU 0) of @woken at @ts with @args, written by fxt_write.c. */
static void produce_wakeup(struct fake *f, uint64_t ts, uint64_t woken,
			   const struct fxt_arg *args, unsigned int nargs)
{
	uint64_t rec[16];
	struct fxt_wakeup wk = { .cpu = 0, .timestamp = ts, .woken_tid = woken };
	struct fxt_writer w;

	fxt_writer_init(&w, rec, sizeof(rec) / sizeof(rec[0]));
	EXPECT_EQ(fxt_write_wakeup(&w, &wk, args, nargs), 0);
	produce(f, rec, fxt_writer_bytes(&w));
}

/*
 * Records of the kernel's sizes and argument counts whose arguments are
 * laid out otherwise: the same answers as the general argument walk.
 */
TEST(wakeups_in_another_layout_still_report_their_waker)
{
	uint64_t rec[16];
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	struct fxt_arg weight = fxt_arg_int32(fxt_str_index(FXTRACE_STR_WEIGHT), 120);
	struct fxt_arg waker_first[2] = {
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), 66), weight,
	};
	struct fxt_arg waker_second[2] = {
		weight, fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), 10),
	};
	struct fxt_arg two_wakers[3] = {
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), 13), weight,
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), 14),
	};

	fake_init(&f, 256, 0);
	/* Waker first (words 3-4), then a one-word argument: 6 words. */
	produce_wakeup(&f, 1, 5, waker_first, 2);
	/* The kernel's layout, but the koid argument has another name. */
	kernel_wakeup(rec, 2, 7, 8);
	rec[3] = (rec[3] & ~(0xffffULL << FXT_ARG_NAME_SHIFT)) |
		 (uint64_t)FXTRACE_STR_PROCESS << FXT_ARG_NAME_SHIFT;
	produce(&f, rec, 40);
	/* ABI 3's layout: a weight, then the waker (words 4-5). */
	produce_wakeup(&f, 3, 9, waker_second, 2);
	/* The kernel's size, but the argument claims three words. */
	kernel_wakeup(rec, 4, 11, 12);
	rec[3] += 1ULL << FXT_ARG_SIZE_SHIFT;
	produce(&f, rec, 40);
	/*
	 * Two waker arguments (the kernel writes one): both tids reported,
	 * the second after a one-word argument (found by the fuzz target).
	 */
	produce_wakeup(&f, 5, 15, two_wakers, 3);
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT(got_tids(&c, 0, TIDS(5, 66, 7, 9, 10, 11, 15, 13, 14)));
	EXPECT_EQ(f.ring.wakeups, 5);
	EXPECT_EQ(f.ring.last_ts, 5);
	fake_free(&f);
	free(c.bytes);
}

/*
 * Names as the kernel writes them (fork, exec, rename) between scheduling
 * records and loss markers: each reported in ring order with the timestamp
 * of the record before it, and counted apart from other records.
 */
TEST(names_are_reported_with_the_time_before_them)
{
	uint64_t rec[16];
	uint8_t all[1024];
	size_t len = 0;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 1024, 0);
	put(&f, all, &len, rec, kernel_process(rec, 50, "first"));
	put(&f, all, &len, rec, kernel_switch(rec, 100, 1, 2));
	put(&f, all, &len, rec, kernel_process(rec, 50, "proc"));
	put(&f, all, &len, rec, kernel_thread(rec, 51, 50, "thr"));
	put(&f, all, &len, rec, kernel_wakeup(rec, 200, 51, 0));
	put(&f, all, &len, rec, kernel_thread(rec, 51, 50, "fifteen-bytes!!"));
	put(&f, all, &len, rec, kernel_loss_marker(rec, 300, 1, 5, 77, 78));
	put(&f, all, &len, rec, kernel_thread(rec, 51, 50, ""));
	/* a thread created now: new_task after process (ABI 5) */
	put(&f, all, &len, rec, kernel_new_thread_record(rec, 53, 50, "new"));

	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT(c.len == len && !memcmp(c.bytes, all, len));
	ASSERT(c.nnames == 6);
	expect_name(&c.names[0], FXT_OBJ_TYPE_PROCESS, 50, 0, "first", 0);
	expect_name(&c.names[1], FXT_OBJ_TYPE_PROCESS, 50, 0, "proc", 100);
	expect_name(&c.names[2], FXT_OBJ_TYPE_THREAD, 51, 50, "thr", 100);
	expect_name(&c.names[3], FXT_OBJ_TYPE_THREAD, 51, 50, "fifteen-bytes!!", 200);
	expect_name(&c.names[4], FXT_OBJ_TYPE_THREAD, 51, 50, "", 300);
	expect_name(&c.names[5], FXT_OBJ_TYPE_THREAD, 53, 50, "new", 300);
	EXPECT_EQ(f.ring.names, 6);
	EXPECT_EQ(f.ring.loss_markers, 1);
	EXPECT_EQ(f.ring.switches, 1);
	EXPECT_EQ(f.ring.wakeups, 1);
	EXPECT_EQ(f.ring.other_records, 0);
	EXPECT_EQ(f.ring.last_ts, 300);

	/* ring_drain() counts the same records but reports no name. */
	c.nnames = 0;
	put(&f, all, &len, rec, kernel_thread(rec, 52, 50, "quiet"));
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(c.nnames, 0);
	EXPECT_EQ(f.ring.names, 7);
	fake_free(&f);
	free(c.bytes);
}

/*
 * after_ts comes from the last timestamp of the ring, also when that was
 * in an earlier drain; a failed write reports the names again, with the
 * same after_ts; a name record across the end of the area is read whole.
 */
TEST(after_ts_survives_drains_and_failed_writes)
{
	uint64_t rec[16];
	size_t n;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	/* The switch ends 16 bytes before the end: the name record wraps. */
	fake_init(&f, 256, 5 * 256 - 56 - 16);
	produce(&f, rec, kernel_switch(rec, 500, 1, 2));
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, NULL), 0);
	EXPECT_EQ(f.ring.last_ts, 500);

	n = kernel_thread(rec, 9, 8, "abcdefghijk");
	produce(&f, rec, n);
	c.fail_with = ENOSPC;
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, NULL), (uint64_t)-ENOSPC);
	EXPECT_EQ(f.ring.names, 0);
	c.fail_with = 0;
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, NULL), 0);
	ASSERT(c.nnames == 2);
	expect_name(&c.names[0], FXT_OBJ_TYPE_THREAD, 9, 8, "abcdefghijk", 500);
	expect_name(&c.names[1], FXT_OBJ_TYPE_THREAD, 9, 8, "abcdefghijk", 500);
	EXPECT_EQ(f.ring.names, 1);
	EXPECT(c.len >= n && !memcmp(c.bytes + c.len - n, rec, n));

	produce(&f, rec, kernel_wakeup(rec, 600, 9, 0));
	produce(&f, rec, kernel_thread(rec, 9, 8, "later"));
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, NULL), 0);
	ASSERT(c.nnames == 3);
	expect_name(&c.names[2], FXT_OBJ_TYPE_THREAD, 9, 8, "later", 600);
	fake_free(&f);
	free(c.bytes);
}

/*
 * ring_unmarked_loss(): records_dropped since ring_init(), less what the
 * loss markers copied from the ring say (their "cpu" argument, in any
 * layout); a marker without one accounts for nothing; markers not yet
 * copied do not count.
 */
TEST(drops_no_copied_marker_accounts_for_are_unmarked)
{
	uint64_t rec[16];
	struct fxt_writer w;
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER, .thread = { .index = 3 },
		.category = fxt_str_index(FXTRACE_STR_FXTRACE),
		.name = fxt_str_index(FXTRACE_STR_RECORDS_LOST),
		.timestamp = 250, .data = 1,
	};
	struct fxt_arg args[2] = {
		fxt_arg_uint32(fxt_str_index(FXTRACE_STR_LINUX_STATE), 9),
		fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), 4),
	};
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	/* Drops before ring_init() belong to no one's session. */
	fake_init(&f, 1024, 0);
	f.ctrl->records_dropped = 6;
	ring_init(&f.ring, f.ctrl, f.data, f.size);
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 0);

	produce(&f, rec, kernel_switch(rec, 100, 1, 2));
	f.ctrl->records_dropped += 3;
	produce(&f, rec, kernel_loss_marker(rec, 110, 1, 3, 77, 78));
	produce(&f, rec, kernel_loss_marker(rec, 200, 1, 0, 77, 78));
	produce(&f, rec, kernel_switch(rec, 200, 2, 1));
	f.ctrl->records_dropped += 7;	/* after the last record: no marker */
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 10);	/* nothing copied yet */
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(f.ring.loss_markers, 2);
	EXPECT_EQ(f.ring.lost_marked, 3);
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 7);
	EXPECT_EQ(f.ring.last_ts, 200);	/* where the unmarked hole begins */

	/* An indexed thread and another argument first: still 4. */
	fxt_writer_init(&w, rec, 16);
	ASSERT(fxt_write_event(&w, &ev, args, 2) == 0);
	produce(&f, rec, fxt_writer_bytes(&w));
	/* No "cpu" argument: a marker, but of no records. */
	fxt_writer_init(&w, rec, 16);
	ASSERT(fxt_write_event(&w, &ev, args, 1) == 0);
	produce(&f, rec, fxt_writer_bytes(&w));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(f.ring.loss_markers, 4);
	EXPECT_EQ(f.ring.lost_marked, 7);
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 3);

	/* Markers for more than records_dropped says: none unmarked. */
	produce(&f, rec, kernel_loss_marker(rec, 300, 1, 50, 77, 78));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 0);
	fake_free(&f);
	free(c.bytes);
}

/*
 * Kernel object records the kernel does not write: copied (the frame is
 * whole, fxt-dump --check names the problem), counted as other records,
 * never reported as names, and the record after them still is.
 */
TEST(malformed_name_records_are_copied_not_reported)
{
	static const char *const what[] = {
		"name of 16 bytes", "indexed name", "object type 3",
		"NUL inside the name", "name past the record",
		"argument past the record", "fewer arguments than argc",
		"name one byte past the record",
	};
	uint64_t bad[16], good[16], name_word;
	size_t nbad, ngood;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int k;

	ngood = kernel_thread(good, 7, 6, "ok");
	for (k = 0; k < sizeof(what) / sizeof(what[0]); k++) {
		c.len = c.nnames = 0;
		/* 6 words: header, koid, 2 name words, arg header, arg value. */
		nbad = kernel_thread(bad, 5, 4, "0123456789abcde");
		switch (k) {
		case 0:
			bad[0] += 1ULL << FXT_KOBJ_NAME_SHIFT;	/* length 16 */
			break;
		case 1:
			bad[0] &= ~(0xffffULL << FXT_KOBJ_NAME_SHIFT);
			bad[0] |= (uint64_t)FXTRACE_STR_LINUX_STATE << FXT_KOBJ_NAME_SHIFT;
			break;
		case 2:
			bad[0] += 1ULL << FXT_KOBJ_TYPE_SHIFT;
			break;
		case 3:
			memcpy(&name_word, &bad[2], 8);
			name_word &= ~(0xffULL << 16);		/* byte 2 = NUL */
			memcpy(&bad[2], &name_word, 8);
			break;
		case 4:
			/* header and koid only, the name claims 15 bytes */
			bad[0] = (bad[0] & ~(FXT_HDR_SIZE_MASK << FXT_HDR_SIZE_SHIFT) &
				  ~(0xfULL << FXT_KOBJ_ARGC_SHIFT)) |
				 2ULL << FXT_HDR_SIZE_SHIFT;
			nbad = 16;
			break;
		case 5:
			bad[4] += 1ULL << FXT_ARG_SIZE_SHIFT;	/* 3 words, 2 left */
			break;
		case 6:
			bad[0] += 1ULL << FXT_KOBJ_ARGC_SHIFT;	/* 2 arguments */
			break;
		case 7:
			/*
			 * 3 words: header, koid, one name word, but the name
			 * claims 9 bytes: its ninth would be the next record's
			 * first byte (0x57, 'W', not a NUL).
			 */
			nbad = kernel_thread(bad, 5, 4, "123456789");
			bad[0] = (bad[0] & ~(FXT_HDR_SIZE_MASK << FXT_HDR_SIZE_SHIFT) &
				  ~(0xfULL << FXT_KOBJ_ARGC_SHIFT)) |
				 3ULL << FXT_HDR_SIZE_SHIFT;
			nbad = 24;
			break;
		}
		fake_init(&f, 256, 64);
		produce(&f, bad, nbad);
		produce(&f, good, ngood);
		EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, &res), 0);
		if (c.nnames != 1)
			printf("#   case: %s\n", what[k]);
		EXPECT_EQ(res.status, RING_DRAIN_OK);
		EXPECT(c.len == nbad + ngood && !memcmp(c.bytes, bad, nbad));
		EXPECT(c.nnames == 1 && !strcmp(c.names[0].name, "ok"));
		EXPECT_EQ(f.ring.names, 1);
		EXPECT_EQ(f.ring.other_records, 1);
		fake_free(&f);
	}

	/* Without its "process" argument a thread is still named. */
	c.len = c.nnames = 0;
	fake_init(&f, 256, 0);
	bad[0] = (uint64_t)FXT_RECORD_KERNEL_OBJECT | 3ULL << FXT_HDR_SIZE_SHIFT |
		 (uint64_t)FXT_OBJ_TYPE_THREAD << FXT_KOBJ_TYPE_SHIFT |
		 (uint64_t)(FXT_STRING_REF_INLINE | 2) << FXT_KOBJ_NAME_SHIFT;
	bad[1] = 33;
	bad[2] = 'h' | 'i' << 8;
	produce(&f, bad, 24);
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, &res), 0);
	ASSERT(c.nnames == 1);
	expect_name(&c.names[0], FXT_OBJ_TYPE_THREAD, 33, 0, "hi", 0);
	fake_free(&f);
	free(c.bytes);
}

/* Names written again after a cycle, as fxt-collect does. */
struct rewrite {
	struct fxt_writer w;
	unsigned int count;
};

static int rewrite_process(void *ctx, const struct name_entry *e)
{
	struct rewrite *rw = ctx;

	rw->count++;
	return archive_write_process(&rw->w, e->koid, e->name);
}

static int rewrite_thread(void *ctx, const struct name_entry *e)
{
	struct rewrite *rw = ctx;

	rw->count++;
	return archive_write_thread(&rw->w, e->koid, e->process, e->name);
}

/* fxt-collect's drain cycle, on fake rings: see drain_all() there. */
static unsigned int collect_cycle(struct fake *rings, unsigned int n,
				  struct capture *c)
{
	struct ring_sink s = sink_for(c);
	struct rewrite rw;
	unsigned int i;

	for (i = 0; i < n; i++)
		EXPECT_EQ(ring_drain_names(&rings[i].ring, &s, capture_name, NULL), 0);
	fxt_writer_init_dynamic(&rw.w);
	rw.count = 0;
	EXPECT_EQ(name_order_take_marked(c->order, FXT_OBJ_TYPE_PROCESS,
					 rewrite_process, &rw), 0);
	EXPECT_EQ(name_order_take_marked(c->order, FXT_OBJ_TYPE_THREAD,
					 rewrite_thread, &rw), 0);
	if (fxt_writer_bytes(&rw.w))
		capture_write(c, fxt_writer_data(&rw.w), fxt_writer_bytes(&rw.w));
	fxt_writer_free(&rw.w);
	return rw.count;
}

/*
 * The last name record for a koid in the captured stream, as a reader
 * applying names in file order would end up with; "" if none. *@at is its
 * offset.
 */
static const char *last_name(const struct capture *c, unsigned int type,
			     uint64_t koid, char *buf, size_t *at)
{
	struct fxt_reader *r = fxt_reader_new(c->bytes, c->len, 0);
	struct fxt_record rec;
	size_t len;

	buf[0] = '\0';
	*at = 0;
	while (r && fxt_reader_next(r, &rec) > 0) {
		if (rec.type != FXT_RECORD_KERNEL_OBJECT ||
		    rec.kobj.obj_type != type || rec.kobj.koid != koid)
			continue;
		len = rec.kobj.name.len < 15 ? rec.kobj.name.len : 15;
		memcpy(buf, rec.kobj.name.text, len);
		buf[len] = '\0';
		*at = rec.offset;
	}
	fxt_reader_free(r);
	return buf;
}

/*
 * The bug this all exists for: thread 61 forked on CPU 1 (the inherited
 * name "fxt-threads"), woken there, ran on CPU 0 and renamed itself
 * "thr-050"; its leader 60 exec'd on CPU 0 after an old name on CPU 1.
 * Ring 0 is copied first, so the ring data alone has the stale names last.
 */
TEST(fork_and_rename_on_two_rings_end_with_the_newest_name)
{
	struct name_order order;
	struct capture c = { 0 };
	struct fake rings[2];
	uint64_t rec[16];
	char name[16];
	size_t ring_bytes, proc_at, thr_at;

	name_order_init(&order);
	c.order = &order;
	fake_init(&rings[0], 1024, 0);
	fake_init(&rings[1], 1024, 0);
	produce(&rings[1], rec, kernel_switch(rec, 100, 1, 60));
	produce(&rings[1], rec, kernel_process(rec, 60, "launcher"));
	produce(&rings[1], rec, kernel_thread(rec, 61, 60, "fxt-threads"));
	produce(&rings[1], rec, kernel_wakeup(rec, 150, 61, 60));
	produce(&rings[0], rec, kernel_switch(rec, 300, 0, 61));
	produce(&rings[0], rec, kernel_thread(rec, 61, 60, "thr-050"));
	produce(&rings[0], rec, kernel_switch(rec, 400, 61, 60));
	produce(&rings[0], rec, kernel_process(rec, 60, "fxt-threads"));

	EXPECT_EQ(collect_cycle(rings, 2, &c), 2);
	ring_bytes = rings[0].ring.bytes + rings[1].ring.bytes;
	ASSERT(c.len > ring_bytes);
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_THREAD, 61, name, &thr_at), "thr-050");
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_PROCESS, 60, name, &proc_at), "fxt-threads");
	EXPECT(thr_at >= ring_bytes && proc_at >= ring_bytes);
	EXPECT(proc_at < thr_at);	/* processes first */

	/* Without the names written again, the stale ones would win. */
	c.len = ring_bytes;
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_THREAD, 61, name, &thr_at), "fxt-threads");
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_PROCESS, 60, name, &proc_at), "launcher");

	/* Nothing new, nothing written again. */
	c.len = 0;
	EXPECT_EQ(collect_cycle(rings, 2, &c), 0);
	EXPECT_EQ(c.len, 0);
	fake_free(&rings[0]);
	fake_free(&rings[1]);
	name_order_free(&order);
	free(c.bytes);
}

/* The stale record may come a whole cycle later: it is fixed then. */
TEST(a_stale_name_in_a_later_cycle_is_fixed_in_that_cycle)
{
	struct name_order order;
	struct capture c = { 0 };
	struct fake rings[2];
	uint64_t rec[16];
	char name[16];
	size_t at;

	name_order_init(&order);
	c.order = &order;
	fake_init(&rings[0], 1024, 0);
	fake_init(&rings[1], 1024, 0);
	produce(&rings[0], rec, kernel_switch(rec, 300, 0, 61));
	produce(&rings[0], rec, kernel_thread(rec, 61, 60, "new"));
	EXPECT_EQ(collect_cycle(rings, 2, &c), 0);
	produce(&rings[1], rec, kernel_switch(rec, 100, 1, 60));
	produce(&rings[1], rec, kernel_thread(rec, 61, 60, "old"));
	EXPECT_EQ(collect_cycle(rings, 2, &c), 1);
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_THREAD, 61, name, &at), "new");
	fake_free(&rings[0]);
	fake_free(&rings[1]);
	name_order_free(&order);
	free(c.bytes);
}

/*
 * In one ring, file order is time order: fork then renames, with and
 * without timestamps between them, is left alone and the last rename wins.
 */
TEST(names_in_one_ring_keep_their_order)
{
	struct name_order order;
	struct capture c = { 0 };
	struct fake rings[1];
	uint64_t rec[16];
	char name[16];
	size_t at;

	name_order_init(&order);
	c.order = &order;
	fake_init(&rings[0], 1024, 0);
	produce(&rings[0], rec, kernel_switch(rec, 100, 1, 60));
	produce(&rings[0], rec, kernel_thread(rec, 61, 60, "fxt-threads"));
	produce(&rings[0], rec, kernel_thread(rec, 61, 60, "thr-001"));	/* same after_ts */
	EXPECT_EQ(collect_cycle(rings, 1, &c), 0);
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_THREAD, 61, name, &at), "thr-001");
	produce(&rings[0], rec, kernel_switch(rec, 200, 60, 61));
	produce(&rings[0], rec, kernel_thread(rec, 61, 60, "thr-002"));
	produce(&rings[0], rec, kernel_thread(rec, 61, 60, "thr-003"));
	EXPECT_EQ(collect_cycle(rings, 1, &c), 0);
	EXPECT_STREQ(last_name(&c, FXT_OBJ_TYPE_THREAD, 61, name, &at), "thr-003");
	EXPECT_EQ(c.len, rings[0].ring.bytes);	/* nothing was added */
	fake_free(&rings[0]);
	name_order_free(&order);
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
 * read outside the area (ASan), whatever is copied must be whole frames,
 * and every name reported must be one the kernel could have written.
 */
TEST(random_garbage_is_survived)
{
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	unsigned int i, step, j, names = 0, bad_names = 0;
	uint64_t k, pos, h, copied = 0;
	size_t off;

	for (i = 0; i < NSIZES; i++) {
		fake_init(&f, sizes[i], rnd() & ~7ULL);
		for (step = 0; step < 3000; step++) {
			for (k = 0; k < 8; k++)
				f.data[rnd() % f.size] = (uint8_t)rnd();
			/* Plausible headers now and then, so framing gets exercised. */
			pos = f.ring.tail + (rnd() % 2 ? 0 : 8 * (rnd() % (f.size / 8)));
			if (rnd() % 3)
				h = FXT_RECORD_SCHEDULING | (1 + rnd() % 8) << 4 |
				    (rnd() % 3) << 60 | (rnd() % 4) << 16;
			else	/* a name record, maybe a lying one */
				h = FXT_RECORD_KERNEL_OBJECT | (1 + rnd() % 8) << 4 |
				    (1 + rnd() % 2) << FXT_KOBJ_TYPE_SHIFT |
				    (FXT_STRING_REF_INLINE | rnd() % 18) << FXT_KOBJ_NAME_SHIFT |
				    (rnd() % 2 ? 0 : rnd() % 3) << FXT_KOBJ_ARGC_SHIFT;
			memcpy(f.data + (pos & (f.size - 1) & ~7ULL), &h, 8);
			f.ctrl->producer_pos = rnd() % 4 ? f.ring.tail + (rnd() % (f.size + 16)) :
							   rnd();
			c.len = c.nnames = 0;
			EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, &res), 0);
			for (j = 0; j < c.nnames; j++)
				bad_names += c.names[j].len > RING_NAME_MAX ||
					     strlen(c.names[j].name) != c.names[j].len ||
					     (c.names[j].obj_type != FXT_OBJ_TYPE_PROCESS &&
					      c.names[j].obj_type != FXT_OBJ_TYPE_THREAD);
			names += c.nnames;
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
	EXPECT(names > 0);	/* nor the name check */
	EXPECT_EQ(bad_names, 0);
	printf("#   %" PRIu64 " bytes of plausible frames copied, %u names reported\n",
	       copied, names);
	free(c.bytes);
}

/* @h with its size field set to @words. */
static uint64_t with_words(uint64_t h, uint64_t words)
{
	return (h & ~(FXT_HDR_SIZE_MASK << FXT_HDR_SIZE_SHIFT)) |
	       words << FXT_HDR_SIZE_SHIFT;
}

/*
 * An argument of one word has no value word: a koid "waker" of size 1 is
 * no waker, and the word after its header (here the record's last) is
 * not reported as a tid.
 */
TEST(a_one_word_waker_argument_is_no_waker)
{
	uint64_t rec[16];
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 64, 0);
	kernel_wakeup(rec, 1, 5, 6);
	rec[3] -= 1ULL << FXT_ARG_SIZE_SHIFT;	/* the waker claims 1 word */
	produce(&f, rec, 40);
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT_EQ(res.bytes, 40);
	EXPECT_EQ(f.ring.wakeups, 1);
	EXPECT(got_tids(&c, 0, TIDS(5)));	/* not 6 */
	fake_free(&f);
	free(c.bytes);
}

/*
 * Records too short for what their kind holds: a 3-word context switch
 * has no incoming tid (it is another record, and its tids are not read,
 * the third word past it least of all); a 1-word event has no timestamp
 * (the name after it keeps the switch's time as its after_ts, not the
 * name record's header read as one).
 */
TEST(records_too_short_for_their_kind_are_other_records)
{
	uint64_t rec[16], ev;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 256, 0);
	produce(&f, rec, kernel_switch(rec, 100, 1, 2));
	kernel_switch(rec, 150, 3, 4);
	rec[0] = with_words(rec[0], 3) & ~(0xfULL << FXT_SCHED_ARGC_SHIFT);
	produce(&f, rec, 24);
	ev = with_words(FXT_RECORD_EVENT, 1);
	produce(&f, &ev, 8);
	produce(&f, rec, kernel_thread(rec, 9, 9, "nine"));
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT_EQ(f.ring.switches, 1);
	EXPECT_EQ(f.ring.other_records, 2);
	EXPECT_EQ(f.ring.names, 1);
	EXPECT(got_tids(&c, 0, TIDS(1, 2)));
	/* The 3-word switch has a timestamp (150); the event none. */
	EXPECT_EQ(f.ring.last_ts, 150);
	ASSERT(c.nnames == 1);
	expect_name(&c.names[0], FXT_OBJ_TYPE_THREAD, 9, 9, "nine", 150);
	fake_free(&f);
	free(c.bytes);
}

/*
 * A loss marker accounts for records only with its "cpu" argument as the
 * kernel writes it: an int64 of exactly 2 words, above 0. One of 3 words,
 * or a negative count, accounts for none. And markers that say one record
 * more than records_dropped rose leave none unmarked (not 2^64 - 1).
 */
TEST(loss_markers_count_only_a_positive_two_word_cpu_argument)
{
	uint64_t rec[16];
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 256, 0);
	/* Header, ts, pid, tid, then "cpu" made 3 words (value 4, pad). */
	kernel_loss_marker(rec, 100, 1, 4, 77, 78);
	rec[0] = with_words(rec[0], 7);
	rec[4] += 1ULL << FXT_ARG_SIZE_SHIFT;
	rec[6] = 0;
	produce(&f, rec, 56);
	produce(&f, rec, kernel_loss_marker(rec, 110, 1, -3, 77, 78));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(f.ring.loss_markers, 2);
	EXPECT_EQ(f.ring.lost_marked, 0);
	EXPECT_EQ(f.ring.last_ts, 110);

	f.ctrl->records_dropped = 2;
	produce(&f, rec, kernel_loss_marker(rec, 120, 1, 3, 77, 78));
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), 0);
	EXPECT_EQ(f.ring.lost_marked, 3);
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 0);
	f.ctrl->records_dropped = 4;
	EXPECT_EQ(ring_unmarked_loss(&f.ring), 1);
	fake_free(&f);
	free(c.bytes);
}

/*
 * A hole ends at the first record after it that has a timestamp: a 1-word
 * event record has none (its next word is the next record's header), so
 * the switch after it gives the hole's end.
 */
TEST(a_hole_ends_at_the_first_record_with_a_timestamp)
{
	uint64_t rec[16], zero = 0, ev = with_words(FXT_RECORD_EVENT, 1);
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;

	fake_init(&f, 256, 0);
	produce(&f, rec, kernel_switch(rec, 100, 1, 2));
	produce(&f, &zero, 8);
	EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_CORRUPT);
	produce(&f, &ev, 8);
	produce(&f, rec, kernel_switch(rec, 500, 2, 1));
	EXPECT_EQ(ring_drain_holes(&f.ring, &s, NULL, capture_hole, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	ASSERT(c.nholes == 1);
	EXPECT_EQ(c.holes[0].from_ts, 100);
	EXPECT_EQ(c.holes[0].to_ts, 500);
	EXPECT_EQ(c.holes[0].bytes, 8);
	fake_free(&f);
	free(c.bytes);
}

/* A process record's "process" argument is no process (always 0). */
TEST(a_process_record_has_no_process)
{
	uint64_t rec[16];
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	size_t n;

	fake_init(&f, 256, 0);
	/* A thread's record, its type made process: the argument stays. */
	n = kernel_thread(rec, 12, 11, "proc");
	rec[0] = (rec[0] & ~(0xffULL << FXT_KOBJ_TYPE_SHIFT)) |
		 (uint64_t)FXT_OBJ_TYPE_PROCESS << FXT_KOBJ_TYPE_SHIFT;
	produce(&f, rec, n);
	EXPECT_EQ(ring_drain_names(&f.ring, &s, capture_name, NULL), 0);
	ASSERT(c.nnames == 1);
	expect_name(&c.names[0], FXT_OBJ_TYPE_PROCESS, 12, 0, "proc", 0);
	fake_free(&f);
	free(c.bytes);
}

/*
 * Positions not on a word are no kernel's. A consumer_pos found at
 * ring_init() 4 bytes into a word, with a producer_pos a whole record
 * after it: the window is a whole number of words, but starts on no
 * record; nothing is walked or copied (under ASan a walk from there
 * could read past the area). And one inside the window followed last,
 * with consumer_errors risen, is not gone back to: it is behind.
 */
TEST(positions_off_a_word_are_never_walked_nor_gone_back_to)
{
	uint64_t rec[16], real;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct kernel k;
	struct fake f;
	size_t n;

	fake_init(&f, 64, 4);
	produce(&f, rec, kernel_wakeup(rec, 1, 5, 6));
	EXPECT_EQ(f.ctrl->producer_pos, 4 + 40);
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
	EXPECT_EQ(res.bytes, 0);
	EXPECT_EQ(c.len, 0);
	EXPECT_EQ(c.ntids, 0);
	EXPECT_EQ(f.ring.wakeups, 0);
	fake_free(&f);

	n = ring_after_one_wakeup(&f, &k, &c, &s, 256, 0, rec);
	real = k.head;
	f.ctrl->producer_pos = real + n;	/* followed ahead */
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(f.ctrl->consumer_pos, real + n);
	f.ctrl->consumer_errors = 1;
	f.ctrl->producer_pos = real + 4;
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_PRODUCER_BEHIND);
	EXPECT_EQ(f.ctrl->consumer_pos, real + n);
	EXPECT_EQ(f.ring.bad_producer, 0);
	fake_free(&f);
	free(c.bytes);
}

/*
 * The go-back's edges. One error (rise 1) is enough when the kernel's
 * position is the very start of the window read last (where the kernel
 * was): the drain goes back, and what it read and where from go back
 * too (ring.h: both go back to the real one). But errors already counted
 * when ring_init() ran are no rise, and one error against a position
 * below the first consumer_pos is not enough (a late one); a second is.
 */
TEST(the_go_back_counts_errors_since_the_last_store_only)
{
	uint64_t rec[16], real;
	struct ring_drain_result res;
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct kernel k;
	struct fake f;
	size_t n;

	/* A window [real, real + n) followed ahead, one drop against it. */
	n = ring_after_one_wakeup(&f, &k, &c, &s, 256, 4096, rec);
	real = k.head;
	kernel_write(&k, real, rec, kernel_wakeup(rec, 10, 5, 0));
	f.ctrl->producer_pos = real + n;
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_OK);
	EXPECT(!kernel_put(&k, rec, kernel_wakeup(rec, 200, 8, 0), 200));
	EXPECT_EQ(f.ctrl->consumer_errors, 1);
	EXPECT_EQ(f.ctrl->producer_pos, real);
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
	EXPECT_EQ(f.ctrl->consumer_pos, real);
	EXPECT_EQ(f.ring.read_from, real);
	EXPECT_EQ(f.ring.read_to, real);
	EXPECT_EQ(f.ring.producer_behind, 0);
	fake_free(&f);

	/* Errors from before this consumer: no rise. */
	fake_init(&f, 256, 4096);
	f.ctrl->consumer_errors = 5;
	ring_init(&f.ring, f.ctrl, f.data, f.size);
	f.ctrl->producer_pos = 4096 - 64;
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_PRODUCER_BEHIND);
	EXPECT_EQ(f.ctrl->consumer_pos, 4096);
	/* One more: one error, below the first consumer_pos: still not. */
	f.ctrl->consumer_errors = 6;
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_PRODUCER_BEHIND);
	EXPECT_EQ(f.ctrl->consumer_pos, 4096);
	/* A second: the kernel finds it out of range. */
	f.ctrl->consumer_errors = 7;
	EXPECT_EQ(ring_drain(&f.ring, &s, &res), 0);
	EXPECT_EQ(res.status, RING_DRAIN_BAD_PRODUCER);
	EXPECT_EQ(f.ctrl->consumer_pos, 4096 - 64);
	EXPECT_EQ(f.ring.bad_producer, 1);
	EXPECT_EQ(f.ring.producer_behind, 2);
	fake_free(&f);
	free(c.bytes);
}

/*
 * ring_count_written() counts no further than producer_pos, whatever it
 * is told: a 1-word record just past it (written, not published) is not
 * counted, nor its bytes.
 */
TEST(counting_what_was_written_stops_at_producer_pos)
{
	uint64_t rec[16], ev = with_words(FXT_RECORD_EVENT, 1);
	struct capture c = { 0 };
	struct ring_sink s = sink_for(&c);
	struct fake f;
	size_t n;

	fake_init(&f, 256, 0);
	n = kernel_wakeup(rec, 100, 1, 2);
	produce(&f, rec, n);
	produce(&f, rec, n);
	memcpy(f.data + 2 * n, &ev, 8);
	c.fail_with = EIO;
	EXPECT_EQ(ring_drain(&f.ring, &s, NULL), (uint64_t)-EIO);
	ring_count_written(&f.ring, 2 * n + 8);
	EXPECT_EQ(f.ring.wakeups, 2);
	EXPECT_EQ(f.ring.other_records, 0);
	EXPECT_EQ(f.ring.bytes, 2 * n);
	fake_free(&f);
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
	RUN(a_producer_position_behind_what_was_read_is_not_followed);
	RUN(a_skip_too_far_ahead_is_undone_by_the_real_position);
	RUN(a_followed_position_ahead_of_the_kernels_is_gone_back_from);
	RUN(an_overwritten_consumer_position_is_stored_again);
	RUN(a_position_behind_is_gone_back_to_only_inside_the_last_window);
	RUN(two_positions_followed_ahead_are_gone_back_from_at_the_second_drop);
	RUN(malformed_records_end_the_copy);
	RUN(skipped_data_is_one_hole_reported_before_the_next_record);
	RUN(lying_argument_sizes_stop_the_waker_search);
	RUN(sink_errors_leave_the_consumer_where_it_was);
	RUN(what_a_failed_write_kept_is_counted);
	RUN(tids_are_reported_once_until_evicted);
	RUN(every_tid_reaches_the_collectors_set_whatever_the_cache_evicts);
	RUN(records_across_the_end_walk_as_in_one_piece);
	RUN(wakeups_in_another_layout_still_report_their_waker);
	RUN(names_are_reported_with_the_time_before_them);
	RUN(after_ts_survives_drains_and_failed_writes);
	RUN(malformed_name_records_are_copied_not_reported);
	RUN(drops_no_copied_marker_accounts_for_are_unmarked);
	RUN(fork_and_rename_on_two_rings_end_with_the_newest_name);
	RUN(a_stale_name_in_a_later_cycle_is_fixed_in_that_cycle);
	RUN(names_in_one_ring_keep_their_order);
	RUN(random_interleaving_preserves_the_stream);
	RUN(random_garbage_is_survived);
	RUN(a_one_word_waker_argument_is_no_waker);
	RUN(records_too_short_for_their_kind_are_other_records);
	RUN(loss_markers_count_only_a_positive_two_word_cpu_argument);
	RUN(a_hole_ends_at_the_first_record_with_a_timestamp);
	RUN(a_process_record_has_no_process);
	RUN(positions_off_a_word_are_never_walked_nor_gone_back_to);
	RUN(the_go_back_counts_errors_since_the_last_store_only);
	RUN(counting_what_was_written_stops_at_producer_pos);
	return tap_exit();
}
