// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_ring_drain.c - ring_drain() against a hostile "kernel": any ring
 * size, any starting consumer position, any sequence of producer positions,
 * any data, and a sink that may fail.
 *
 * Input layout (little-endian, missing bytes read as 0):
 *   u8  ring size: 8 << (b % 14), i.e. 8 B .. 64 KiB
 *   u64 consumer_pos left by an earlier session (ring_init() starts there)
 *   u8  number of drains, 1 + b % 4; then for each drain:
 *       u8  flags: bit 0 the producer moves by the u64 (masked to 4 ring
 *           sizes, rounded to 8 bytes) instead of jumping to it, so that
 *           plausible windows are common; bit 1 the sink's write fails
 *           with -EIO on call number (flags >> 2) & 1
 *       u64 producer position or step
 *   the rest: the data area's bytes from offset 0 (zero beyond the input)
 *
 * The data area is its own malloc() of exactly the ring size and the
 * control page its own struct, so any access outside them is an ASan
 * report. Each drain is checked against a model written independently of
 * ring_drain.c: the window is copied out linearly (no masking), walked as
 * FXT frames, and the sink must have received exactly the whole-record
 * prefix of it, in at most two chunks, with consumer_pos published at the
 * producer position (or left alone when the sink failed).
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

struct world {
	struct fxtrace_ctrl *ctrl;
	uint8_t *area;
	uint64_t size;
	struct ring ring;
	uint8_t *win;		/* the window, copied linearly */
	struct sink_state sink;
};

static void check_drain(struct world *w, uint64_t head, int fail_call)
{
	struct ring before = w->ring;
	struct ring_sink sink = { sink_write, NULL, &w->sink };
	struct ring_drain_result res;
	uint64_t tail = w->ring.tail, avail = head - tail, i, good;
	uint64_t consumer = w->ctrl->consumer_pos;
	int err;

	__atomic_store_n(&w->ctrl->producer_pos, head, __ATOMIC_RELEASE);
	FUZZ_ASSERT(ring_pending(&w->ring) == avail, "pending");
	w->sink.len = 0;
	w->sink.calls = 0;
	w->sink.fail_call = fail_call;
	w->sink.cap = avail <= w->size ? (size_t)avail : 0;
	memset(&res, 0xa5, sizeof(res));
	err = ring_drain(&w->ring, &sink, &res);

	if (avail == 0) {
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_OK && !res.bytes &&
			    !res.chunks && !w->sink.calls, "empty ring did something");
		FUZZ_ASSERT(w->ctrl->consumer_pos == consumer,
			    "empty ring moved the consumer");
		return;
	}
	if ((avail > w->size || avail % 8 || head % 8) &&
	    (int64_t)(head - before.read_to) < 0) {
		/* Behind what was copied: not followed, nothing skipped. */
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_PRODUCER_BEHIND &&
			    !res.bytes && !w->sink.calls,
			    "producer %llu behind %llu not refused",
			    (unsigned long long)head,
			    (unsigned long long)before.read_to);
		FUZZ_ASSERT(w->ring.tail == tail && w->ctrl->consumer_pos == consumer &&
			    w->ring.producer_behind == before.producer_behind + 1 &&
			    w->ring.bad_producer == before.bad_producer,
			    "followed a producer behind what was read");
		return;
	}
	if (avail > w->size || avail % 8 || head % 8) {
		FUZZ_ASSERT(!err && res.status == RING_DRAIN_BAD_PRODUCER &&
			    !res.bytes && !w->sink.calls,
			    "bad producer %llu (tail %llu) not refused",
			    (unsigned long long)head, (unsigned long long)tail);
		FUZZ_ASSERT(w->ring.tail == head && w->ctrl->consumer_pos == head &&
			    w->ring.bad_producer == before.bad_producer + 1,
			    "no resync after a bad producer");
		return;
	}

	for (i = 0; i < avail; i++)
		w->win[i] = w->area[(tail + i) % w->size];
	good = model_good_prefix(w->win, (size_t)avail);
	if (err) {
		FUZZ_ASSERT(err == -EIO && fail_call >= 0, "error %d", err);
		FUZZ_ASSERT(w->ring.tail == tail && w->ctrl->consumer_pos == tail &&
			    w->ring.bytes == before.bytes &&
			    w->ring.corrupt == before.corrupt,
			    "a failed sink consumed data");
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
	FUZZ_ASSERT(w->ring.tail == head && w->ctrl->consumer_pos == head,
		    "consumer not at the producer after a drain");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };
	struct world w;
	unsigned int shift, drains, i;
	uint8_t flags[4];
	uint64_t consumer0, head, val[4];
	size_t rest;

	memset(&w, 0, sizeof(w));
	shift = (unsigned int)(fuzz_take(&in, 1) % (MAX_SHIFT + 1));
	w.size = 8ULL << shift;
	consumer0 = fuzz_take(&in, 8);
	drains = 1 + (unsigned int)(fuzz_take(&in, 1) % 4);
	w.ctrl = calloc(1, sizeof(*w.ctrl));
	w.area = calloc(1, (size_t)w.size);
	w.win = malloc((size_t)w.size);
	w.sink.got = malloc((size_t)w.size);
	FUZZ_ASSERT(w.ctrl && w.area && w.win && w.sink.got, "out of memory");
	w.ctrl->consumer_pos = consumer0;
	w.ctrl->producer_pos = consumer0;
	FUZZ_ASSERT(ring_init(&w.ring, w.ctrl, w.area, w.size) == 0, "ring_init");
	FUZZ_ASSERT(w.ring.tail == consumer0, "ring_init did not start at consumer_pos");

	/* Parameters first, data area last: the data is the bulk of the input. */
	for (i = 0; i < drains; i++) {
		flags[i] = (uint8_t)fuzz_take(&in, 1);
		val[i] = fuzz_take(&in, 8);
	}
	rest = in.size - in.at;
	if (rest)
		memcpy(w.area, in.data + in.at, rest < w.size ? rest : (size_t)w.size);
	for (i = 0; i < drains; i++) {
		if (flags[i] & 1)
			head = w.ring.tail + (val[i] % (4 * w.size) & ~7ULL);
		else
			head = val[i];
		check_drain(&w, head, flags[i] & 2 ? (int)(flags[i] >> 2 & 1) : -1);
	}
	free(w.ctrl);
	free(w.area);
	free(w.win);
	free(w.sink.got);
	return 0;
}
