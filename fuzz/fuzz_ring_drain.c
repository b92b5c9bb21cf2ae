// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_ring_drain.c - ring_drain() against a hostile "kernel": any ring
 * size, any starting consumer position, any sequence of producer positions,
 * any data, a control page that others write to between drains, and a sink
 * that may fail.
 *
 * Input layout (little-endian, missing bytes read as 0):
 *   u8  ring size: 8 << (b % 14), i.e. 8 B .. 64 KiB
 *   u64 consumer_pos left by an earlier session (ring_init() starts there)
 *   u8  number of drains, 1 + b % 4; consumer_errors at ring_init() is
 *       0 - (b >> 2), so that a rise can wrap the counter
 *   then for each drain:
 *       u8  flags:
 *           bit 0: the producer moves forward by the u64 (masked to 4 ring
 *             sizes, rounded to 8 bytes) instead of jumping to it, so that
 *             plausible windows are common
 *           bit 1: the sink's write fails with -EIO on call number bit 2
 *           bits 3-4: the kernel raises consumer_errors by this much (0-3)
 *             before the drain, as it does for each record it drops
 *             against a consumer_pos out of range
 *           bits 5-6: someone else stores consumer_pos before the drain:
 *             1 the consumer's position + 2^32 (a store torn into 32-bit
 *             halves), 2 the producer position + 8 (ahead of the kernel,
 *             which then drops every record), 3 the producer position
 *             (the kernel sees nothing unread; the same value as the
 *             consumer's when the ring is empty)
 *           bit 7: the producer moves back by the step instead (bit 0 is
 *             then ignored): a position behind what was read, in the last
 *             window or before it
 *       u64 producer position or step
 *   the rest: the data area's bytes from offset 0 (zero beyond the input)
 *
 * Bits 2-7 of the count byte and 3-7 of the flags were unused before the
 * control page was fuzzed: inputs written with them 0 (gen_seeds') mean
 * what they meant then.
 *
 * The data area is its own malloc() of exactly the ring size and the
 * control page its own struct, so any access outside them is an ASan
 * report. Each drain is checked against a model written from the contract
 * in ring_drain.h and <linux/fxtrace.h>, independently of ring_drain.c:
 * the model keeps its own consumer position, read window and the
 * consumer_errors seen at the last store of consumer_pos, and decides the
 * drain's status from them. A possible window is copied out linearly (no
 * masking) and walked as FXT frames: the sink must have received exactly
 * the whole-record prefix of it, in at most two chunks. After every drain
 * consumer_pos holds the consumer's own position, whatever someone else
 * stored there.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_target.h"
#include "ring_drain.h"

#define MAX_SHIFT	13	/* 8 << 13 = 64 KiB */

struct sink_state {
	uint8_t *got;		/* bytes the sink received */
	size_t len, cap;
	unsigned int calls;
	int fail_call;		/* -1: never fail */
};

static int sink_write(void *ctx, const void *buf, size_t len)
{
	struct sink_state *s = ctx;

	FUZZ_ASSERT(len > 0, "empty chunk");
	FUZZ_ASSERT(s->len + len <= s->cap, "%zu bytes more than the window",
		    s->len + len - s->cap);
	if ((int)s->calls++ == s->fail_call)
		return -EIO;
	memcpy(s->got + s->len, buf, len);
	s->len += len;
	return 0;
}

/* The whole-record prefix of a linear window, as ring_drain.h defines it. */
static size_t model_good_prefix(const uint8_t *win, size_t len)
{
	size_t pos = 0;
	uint64_t h, words;
	unsigned int type;

	while (pos < len) {
		memcpy(&h, win + pos, 8);
		type = h & 0xf;
		words = h >> 4 & 0xfff;
		if (words == 0 || words > (len - pos) / 8 ||
		    type == FXT_RECORD_METADATA || type == FXT_RECORD_LARGE)
			break;
		pos += words * 8;
	}
	return pos;
}

/*
 * What the consumer must have done so far, by the contract (ring_drain.h,
 * uapi "Ring protocol"), kept apart from struct ring.
 * @tail:      the consumer's position: what it stores as consumer_pos
 * @read_from, @read_to: the last possible window drained (or skipped as
 *             corrupt); a producer position behind @read_to is not
 *             followed, unless the kernel counted a consumer error since
 *             @errors_seen: then the position followed last was ahead of
 *             the kernel's, which is not below @read_from
 * @errors_seen: ctrl->consumer_errors when consumer_pos was last stored
 */
struct model {
	uint64_t tail;
	uint64_t read_from;
	uint64_t read_to;
	uint64_t errors_seen;
	uint64_t bad_producer;
	uint64_t producer_behind;
};

struct world {
	struct fxtrace_ctrl *ctrl;
	uint8_t *area;
	uint64_t size;
	struct ring ring;
	struct model m;
	uint8_t *win;		/* the window, copied linearly */
	struct sink_state sink;
};

/* What someone else stores in consumer_pos before a drain (flags bits 5-6). */
enum overwrite { KEEP, TORN, AHEAD, AT_PRODUCER };

/* The consumer stores consumer_pos: the model's position and error count. */
static void model_store(struct world *w, uint64_t pos)
{
	w->m.tail = pos;
	w->m.errors_seen = w->ctrl->consumer_errors;
}

/* Whatever the drain did: the ring agrees with the model. */
static void check_state(const struct world *w, const char *what)
{
	FUZZ_ASSERT(w->ring.tail == w->m.tail && w->ctrl->consumer_pos == w->m.tail,
		    "%s: consumer at %llu, consumer_pos %llu, model %llu", what,
		    (unsigned long long)w->ring.tail,
		    (unsigned long long)w->ctrl->consumer_pos,
		    (unsigned long long)w->m.tail);
	FUZZ_ASSERT(w->ring.read_from == w->m.read_from &&
		    w->ring.read_to == w->m.read_to,
		    "%s: read [%llu, %llu), model [%llu, %llu)", what,
		    (unsigned long long)w->ring.read_from,
		    (unsigned long long)w->ring.read_to,
		    (unsigned long long)w->m.read_from,
		    (unsigned long long)w->m.read_to);
	FUZZ_ASSERT(w->ring.consumer_errors == w->m.errors_seen,
		    "%s: consumer_errors taken as %llu, stored at %llu", what,
		    (unsigned long long)w->ring.consumer_errors,
		    (unsigned long long)w->m.errors_seen);
	FUZZ_ASSERT(w->ring.bad_producer == w->m.bad_producer &&
		    w->ring.producer_behind == w->m.producer_behind,
		    "%s: bad_producer %llu (model %llu), producer_behind %llu (model %llu)",
		    what, (unsigned long long)w->ring.bad_producer,
		    (unsigned long long)w->m.bad_producer,
		    (unsigned long long)w->ring.producer_behind,
		    (unsigned long long)w->m.producer_behind);
}

/* A skip of an impossible position: the hole grew by the ring's size. */
static void check_skip_hole(const struct world *w, const struct ring *before)
{
	uint64_t bytes = before->hole_open ? before->hole.bytes : 0;
	uint64_t bad = before->hole_open ? before->hole.bad_producer : 0;

	FUZZ_ASSERT(w->ring.hole_open && w->ring.hole.bytes == bytes + w->size &&
		    w->ring.hole.bad_producer == bad + 1,
		    "a skip did not grow the hole by the ring size");
}

static void check_drain(struct world *w, uint64_t head, int fail_call,
			unsigned int rise, enum overwrite overwrite)
{
	struct ring before = w->ring;
	struct ring_sink sink = { sink_write, NULL, &w->sink };
	struct ring_drain_result res;
	uint64_t tail = w->m.tail, avail = head - tail, i, good, errors;
	uint64_t consumer;
	int64_t risen;
	bool behind, impossible, stored_by_other;
	int err;

	/* The fake kernel, and someone else writing to the control page. */
	__atomic_store_n(&w->ctrl->producer_pos, head, __ATOMIC_RELEASE);
	w->ctrl->consumer_errors += rise;
	if (overwrite == TORN)
		w->ctrl->consumer_pos = tail + (1ULL << 32);
	else if (overwrite == AHEAD)
		w->ctrl->consumer_pos = head + 8;
	else if (overwrite == AT_PRODUCER)
		w->ctrl->consumer_pos = head;
	consumer = w->ctrl->consumer_pos;
	errors = w->ctrl->consumer_errors;
	FUZZ_ASSERT(ring_pending(&w->ring) == avail, "pending");
	w->sink.len = 0;
	w->sink.calls = 0;
	w->sink.fail_call = fail_call;
	w->sink.cap = avail <= w->size ? (size_t)avail : 0;
	memset(&res, 0xa5, sizeof(res));
	err = ring_drain(&w->ring, &sink, &res);

	FUZZ_ASSERT(w->ctrl->producer_pos == head && w->ctrl->consumer_errors == errors,
		    "the consumer wrote the producer's line");
	behind = (int64_t)(head - w->m.read_to) < 0;
	impossible = avail > w->size || avail % 8 || head % 8;
	risen = (int64_t)(errors - w->m.errors_seen);
	/*
	 * Behind what was read, on a word, and the kernel has found
	 * consumer_pos out of range since it was stored: the position
	 * followed last was ahead of the kernel's, which is this one. It is
	 * inside the last window (the kernel was not behind that window's
	 * start, the consumer_pos it had); before that window only if the
	 * count rose by 2 or more (one error can come late: the reserve that
	 * loaded the consumer_pos replaced by the store). Go back to it.
	 */
	if (behind && head % 8 == 0 && risen > 0 &&
	    ((int64_t)(head - w->m.read_from) >= 0 || risen >= 2)) {
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_BAD_PRODUCER &&
			    !res.bytes && !res.chunks && !w->sink.calls,
			    "producer %llu behind %llu after %lld consumer errors: "
			    "status %d, %llu bytes, %u writes (read from %llu)",
			    (unsigned long long)head,
			    (unsigned long long)w->m.read_to, (long long)risen,
			    res.status, (unsigned long long)res.bytes,
			    w->sink.calls, (unsigned long long)w->m.read_from);
		w->m.bad_producer++;
		w->m.read_from = head;
		w->m.read_to = head;
		model_store(w, head);
		check_state(w, "going back to the kernel's position");
		check_skip_hole(w, &before);
		return;
	}
	/* Someone else's value in consumer_pos: ours again, whatever follows. */
	stored_by_other = consumer != tail;
	if (stored_by_other)
		model_store(w, tail);

	if (avail == 0) {
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_OK && !res.bytes &&
			    !res.chunks && !w->sink.calls, "empty ring did something");
		check_state(w, stored_by_other ? "empty ring, consumer_pos overwritten"
						: "empty ring");
		return;
	}
	if (impossible && behind) {
		/* Behind what was copied: not followed, nothing skipped. */
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_PRODUCER_BEHIND &&
			    !res.bytes && !w->sink.calls,
			    "producer %llu behind %llu not refused (status %d, %lld errors)",
			    (unsigned long long)head,
			    (unsigned long long)w->m.read_to, res.status,
			    (long long)risen);
		w->m.producer_behind++;
		check_state(w, "producer behind");
		return;
	}
	if (impossible) {
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_BAD_PRODUCER &&
			    !res.bytes && !w->sink.calls,
			    "bad producer %llu (tail %llu) not refused",
			    (unsigned long long)head, (unsigned long long)tail);
		/* The window is not read: read_from and read_to stay. */
		w->m.bad_producer++;
		model_store(w, head);
		check_state(w, "bad producer");
		check_skip_hole(w, &before);
		return;
	}

	for (i = 0; i < avail; i++)
		w->win[i] = w->area[(tail + i) % w->size];
	good = model_good_prefix(w->win, (size_t)avail);
	if (err) {
		FUZZ_ASSERT(err == -EIO && fail_call >= 0, "error %d", err);
		FUZZ_ASSERT(w->ring.bytes == before.bytes &&
			    w->ring.corrupt == before.corrupt,
			    "a failed sink consumed data");
		check_state(w, "failed sink");
		return;
	}
	FUZZ_ASSERT(res.bytes == good && w->sink.len == good,
		    "copied %llu (sink got %zu), model says %llu of %llu",
		    (unsigned long long)res.bytes, w->sink.len,
		    (unsigned long long)good, (unsigned long long)avail);
	FUZZ_ASSERT(!memcmp(w->sink.got, w->win, (size_t)good), "wrong bytes");
	FUZZ_ASSERT(res.chunks == w->sink.calls && res.chunks <= 2 &&
		    (good == 0 || res.chunks >= 1) &&
		    (res.chunks == 2) == (good > 0 && tail % w->size + good > w->size),
		    "%u chunks for %llu bytes from offset %llu", res.chunks,
		    (unsigned long long)good, (unsigned long long)(tail % w->size));
	FUZZ_ASSERT((res.status == RING_DRAIN_OK) == (good == avail) &&
		    (res.status == RING_DRAIN_OK || res.status == RING_DRAIN_CORRUPT),
		    "status %d with %llu of %llu good", res.status,
		    (unsigned long long)good, (unsigned long long)avail);
	FUZZ_ASSERT(w->ring.bytes_skipped - before.bytes_skipped == avail - good &&
		    w->ring.bytes - before.bytes == good,
		    "counters");
	w->m.read_from = tail;
	w->m.read_to = head;
	model_store(w, head);
	check_state(w, "drain");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };
	struct world w;
	unsigned int shift, count, drains, i;
	uint8_t flags[4];
	uint64_t consumer0, errors0, head, step, val[4];
	size_t rest;

	memset(&w, 0, sizeof(w));
	shift = (unsigned int)(fuzz_take(&in, 1) % (MAX_SHIFT + 1));
	w.size = 8ULL << shift;
	consumer0 = fuzz_take(&in, 8);
	count = (unsigned int)fuzz_take(&in, 1);
	drains = 1 + count % 4;
	errors0 = 0 - (uint64_t)(count >> 2);
	w.ctrl = calloc(1, sizeof(*w.ctrl));
	w.area = calloc(1, (size_t)w.size);
	w.win = malloc((size_t)w.size);
	w.sink.got = malloc((size_t)w.size);
	FUZZ_ASSERT(w.ctrl && w.area && w.win && w.sink.got, "out of memory");
	w.ctrl->consumer_pos = consumer0;
	w.ctrl->producer_pos = consumer0;
	w.ctrl->consumer_errors = errors0;
	FUZZ_ASSERT(ring_init(&w.ring, w.ctrl, w.area, w.size) == 0, "ring_init");
	/* ring_init() takes the consumer's position and the error count. */
	w.m.tail = w.m.read_from = w.m.read_to = consumer0;
	w.m.errors_seen = errors0;
	check_state(&w, "ring_init");

	/* Parameters first, data area last: the data is the bulk of the input. */
	for (i = 0; i < drains; i++) {
		flags[i] = (uint8_t)fuzz_take(&in, 1);
		val[i] = fuzz_take(&in, 8);
	}
	rest = in.size - in.at;
	if (rest)
		memcpy(w.area, in.data + in.at, rest < w.size ? rest : (size_t)w.size);
	for (i = 0; i < drains; i++) {
		step = val[i] % (4 * w.size) & ~7ULL;
		if (flags[i] & 0x80)
			head = w.m.tail - step;
		else if (flags[i] & 1)
			head = w.m.tail + step;
		else
			head = val[i];
		check_drain(&w, head, flags[i] & 2 ? (int)(flags[i] >> 2 & 1) : -1,
			    flags[i] >> 3 & 3, (enum overwrite)(flags[i] >> 5 & 3));
	}
	free(w.ctrl);
	free(w.area);
	free(w.win);
	free(w.sink.got);
	return 0;
}
