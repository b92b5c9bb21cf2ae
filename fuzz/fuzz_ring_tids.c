// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_ring_tids.c - the collector's record walker: the part of
 * ring_drain() that frames the drained bytes as FXT records, counts them
 * and reports every thread id in them (fxt-collect names those threads).
 *
 * The input is raw ring content: whole-word FXT records as the kernel
 * writes them (see the seeds). It is placed in a ring of the next power of
 * two so that the window wraps around the end of the data area (and around
 * 2^64) in its middle, with a valid producer position: every execution
 * goes to the record walker, none is refused on its positions (that is
 * fuzz_ring_drain.c's job).
 *
 * Oracle: fxt_read.c, a separate decoder, reads the bytes the sink got.
 * For the records it decodes, the tids and the counts must be what the
 * walker reported: the outgoing and incoming tids of each context switch,
 * the woken tid of each wakeup and the value of every koid argument whose
 * name is the string index FXTRACE_STR_WAKER. Where fxt_read stops at a
 * malformed record (the walker only frames records and copies them whole;
 * fxt-dump --check names such a record), what it read must be a prefix of
 * what the walker reported.
 */
#include <string.h>

#include "fuzz_target.h"
#include "fxt_read.h"
#include "ring_drain.h"

struct collected {
	uint8_t *bytes;
	size_t len, cap;
	uint64_t *tids;
	size_t ntids, cap_tids;
};

static int sink_write(void *ctx, const void *buf, size_t len)
{
	struct collected *c = ctx;

	FUZZ_ASSERT(c->len + len <= c->cap, "more bytes than the window");
	memcpy(c->bytes + c->len, buf, len);
	c->len += len;
	return 0;
}

static void sink_tid(void *ctx, uint64_t tid)
{
	struct collected *c = ctx;

	/* At most 4 tids per 16 bytes of window, so this cannot overflow. */
	FUZZ_ASSERT(c->ntids < c->cap_tids, "more tids than the window can hold");
	c->tids[c->ntids++] = tid;
}

struct expect {
	const struct collected *got;
	size_t at;		/* tids matched so far */
	uint64_t switches, wakeups, other;
};

static void expect_tid(struct expect *e, uint64_t tid, size_t offset)
{
	FUZZ_ASSERT(e->at < e->got->ntids && e->got->tids[e->at] == tid,
		    "record at %zu: tid %llu expected as number %zu, walker reported %llu of %zu",
		    offset, (unsigned long long)tid, e->at,
		    e->at < e->got->ntids ? (unsigned long long)e->got->tids[e->at] : 0ULL,
		    e->got->ntids);
	e->at++;
}

static void expect_record(struct expect *e, const struct fxt_record *rec)
{
	unsigned int i;

	if (rec->type != FXT_RECORD_SCHEDULING || !rec->decoded ||
	    rec->kind == FXT_SCHED_KIND_LEGACY_SWITCH) {
		e->other++;
		return;
	}
	if (rec->kind == FXT_SCHED_KIND_CONTEXT_SWITCH) {
		e->switches++;
		expect_tid(e, rec->context_switch.outgoing_tid, rec->offset);
		expect_tid(e, rec->context_switch.incoming_tid, rec->offset);
		return;
	}
	e->wakeups++;
	expect_tid(e, rec->wakeup.woken_tid, rec->offset);
	for (i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_ARG_KOID &&
		    rec->args[i].name.index == FXTRACE_STR_WAKER)
			expect_tid(e, rec->args[i].v.koid, rec->offset);
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = 8;

	while (p < n)
		p *= 2;
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size & ~(size_t)7;
	uint64_t ring_size = pow2_at_least(len), start, i;
	struct fxtrace_ctrl ctrl;
	struct ring ring;
	struct collected got = { 0 };
	struct ring_sink sink = { sink_write, sink_tid, &got };
	struct ring_drain_result res;
	struct expect e = { &got, 0, 0, 0, 0 };
	struct fxt_reader *r;
	struct fxt_record rec;
	uint8_t *area;
	int ret;

	/*
	 * Start half a window before the end of the area, which is also half
	 * a window before 2^64: the window wraps both the data area and the
	 * free-running positions at the same byte.
	 */
	start = (uint64_t)0 - ((len / 2) & ~(size_t)7);
	area = malloc(ring_size);
	got.cap = len;
	got.bytes = malloc(len ? len : 1);
	got.cap_tids = len / 4 + 1;
	got.tids = malloc(got.cap_tids * sizeof(*got.tids));
	FUZZ_ASSERT(area && got.bytes && got.tids, "out of memory");
	memset(area, 0, ring_size);
	for (i = 0; i < len; i++)
		area[(start + i) & (ring_size - 1)] = data[i];

	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.consumer_pos = start;
	ctrl.producer_pos = start + len;
	FUZZ_ASSERT(ring_init(&ring, &ctrl, area, ring_size) == 0, "ring_init");
	FUZZ_ASSERT(ring_drain(&ring, &sink, &res) == 0, "ring_drain failed");
	FUZZ_ASSERT(res.status != RING_DRAIN_BAD_PRODUCER, "valid window refused");
	FUZZ_ASSERT(got.len == res.bytes && !memcmp(got.bytes, data, got.len),
		    "the sink did not get the window's first %llu bytes",
		    (unsigned long long)res.bytes);

	r = fxt_reader_new(got.bytes, got.len, 0);
	FUZZ_ASSERT(r, "fxt_reader_new failed");
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		expect_record(&e, &rec);
	if (ret == 0) {
		FUZZ_ASSERT(e.at == got.ntids, "walker reported %zu tids, fxt_read found %zu",
			    got.ntids, e.at);
		FUZZ_ASSERT(e.switches == ring.switches && e.wakeups == ring.wakeups &&
			    e.other == ring.other_records,
			    "counts: walker %llu/%llu/%llu, fxt_read %llu/%llu/%llu",
			    (unsigned long long)ring.switches,
			    (unsigned long long)ring.wakeups,
			    (unsigned long long)ring.other_records,
			    (unsigned long long)e.switches,
			    (unsigned long long)e.wakeups,
			    (unsigned long long)e.other);
	} else {
		FUZZ_ASSERT(e.switches <= ring.switches && e.wakeups <= ring.wakeups,
			    "fxt_read decoded more scheduling records than the walker counted");
	}
	fxt_reader_free(r);
	free(area);
	free(got.bytes);
	free(got.tids);
	return 0;
}
