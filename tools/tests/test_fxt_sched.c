/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * test_fxt_sched.c - fxt-sched's statistics on small synthetic traces whose
 * answers are computed by hand (in the comments next to each check).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "fxt_write.h"
#include "tests/tap.h"
#include "fixtures.h"

static char tmpdir[] = "/tmp/fxt-sched-test.XXXXXX";
static int file_no;

/* Write @len bytes of @t to a new file; return its path (static buffer). */
static const char *tb_file_n(struct tb *t, size_t len)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/t%d.fxt", tmpdir, file_no++);
	f = fopen(path, "w");
	if (f) {
		fwrite(fxt_writer_data(&t->w), 1, len, f);
		fclose(f);
	}
	return path;
}

static const char *tb_file(struct tb *t)
{
	return tb_file_n(t, fxt_writer_bytes(&t->w));
}

static int run(struct analysis *an, struct tb *t, uint64_t window)
{
	struct sc_opts o = { .reorder_window_ns = window,
			     .read_flags = FXT_READ_MAGIC };	/* as the tools read */
	int ret = analysis_run(an, tb_file(t), &o);

	fxt_writer_free(&t->w);
	return ret;
}

static char *render(struct analysis *an, int what, enum out_format fmt,
		    enum lat_group g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (what == 0)
		print_latency(an, f, fmt, g, 0);
	else if (what == 1)
		print_top(an, f, fmt);
	else if (what == 2)
		print_summary(an, f, fmt, 0);
	else
		print_intervals(an, f, fmt);
	fclose(f);
	return buf;
}

/* ---- qdist ---- */

TEST(nearest_rank_percentiles)
{
	struct qdist q;
	uint64_t v;

	qd_init(&q);
	for (v = 100; v >= 1; v--)	/* 1..100, unsorted input */
		qd_add(&q, v);
	EXPECT_EQ(q.count, 100);
	EXPECT_EQ(qd_percentile(&q, 50, 100), 50);	/* rank ceil(50) */
	EXPECT_EQ(qd_percentile(&q, 90, 100), 90);
	EXPECT_EQ(qd_percentile(&q, 99, 100), 99);
	EXPECT_EQ(qd_percentile(&q, 999, 1000), 100);	/* ceil(99.9) = 100 */
	EXPECT_EQ(q.max, 100);
	EXPECT(qd_is_exact(&q));
	qd_free(&q);

	qd_init(&q);
	qd_add(&q, 40); qd_add(&q, 10); qd_add(&q, 30); qd_add(&q, 20);
	EXPECT_EQ(qd_percentile(&q, 50, 100), 20);	/* ceil(2.0) = 2nd */
	EXPECT_EQ(qd_percentile(&q, 90, 100), 40);	/* ceil(3.6) = 4th */
	EXPECT_EQ(qd_percentile(&q, 1, 100), 10);	/* ceil(0.04) = 1st */
	qd_free(&q);

	qd_init(&q);
	EXPECT_EQ(qd_percentile(&q, 50, 100), 0);	/* empty */
	qd_free(&q);
}

/*
 * A duration in the text output: exact below 1 us, then 3 significant
 * digits, the unit chosen after rounding (999.95 us is 1.00ms, never
 * "1000us" or "1000.0 us"); --ns: exact.
 */
TEST(text_durations_have_a_unit_and_3_digits)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} v[] = {
		{ 0, "0ns" }, { 1, "1ns" }, { 999, "999ns" },
		{ 1000, "1.00us" }, { 1004, "1.00us" }, { 1005, "1.01us" },
		{ 1023, "1.02us" }, { 9994, "9.99us" }, { 9995, "10.0us" },
		{ 99949, "99.9us" }, { 99950, "100us" }, { 350000, "350us" },
		{ 999499, "999us" }, { 999500, "1.00ms" }, { 999950, "1.00ms" },
		{ 999999, "1.00ms" }, { 1000000, "1.00ms" },
		{ 2650000, "2.65ms" }, { 2654999, "2.65ms" },
		{ 2655000, "2.66ms" }, { 17563647, "17.6ms" },
		{ 999499999, "999ms" }, { 999500000, "1.00s" },
		{ 1000000000, "1.00s" }, { 1200000000, "1.20s" },
		{ 59990000000ULL, "60.0s" }, { 999499999999ULL, "999s" },
		{ 999500000000ULL, "1000s" }, { 3600000000000ULL, "3600s" },
		{ 18446744073709551615ULL, "18446744074s" },
	};
	char buf[DUR_LEN];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		EXPECT_STREQ(fmt_dur(buf, v[i].ns, false), v[i].want);
	EXPECT_STREQ(fmt_dur(buf, 0, true), "0ns");
	EXPECT_STREQ(fmt_dur(buf, 999950, true), "999950ns");
	EXPECT_STREQ(fmt_dur(buf, UINT64_MAX, true), "18446744073709551615ns");
}

TEST(log2_buckets)
{
	struct qdist q;

	qd_init(&q);
	qd_add(&q, 0); qd_add(&q, 1); qd_add(&q, 2); qd_add(&q, 3);
	qd_add(&q, 700);
	EXPECT_EQ(q.log2[0], 2);	/* 0 -> 1 */
	EXPECT_EQ(q.log2[1], 2);	/* 2 -> 3 */
	EXPECT_EQ(q.log2[9], 1);	/* 512 -> 1023 */
	EXPECT_EQ(qd_log2_low(9), 512);
	EXPECT_EQ(qd_log2_high(9), 1023);
	EXPECT_EQ(qd_log2_low(0), 0);
	EXPECT_EQ(qd_log2_high(0), 1);
	EXPECT_EQ(qd_log2_high(63), UINT64_MAX);
	EXPECT_EQ(qd_log2_high(62), (UINT64_C(1) << 63) - 1);	/* not the last */
	qd_free(&q);
}

TEST(bucketed_percentiles_bounded_error)
{
	struct qdist q, m;
	uint64_t i, p50, p99;

	qd_init(&q);
	/* 5000 values 1000, 2000, ..., 5,000,000 (beyond the exact limit) */
	for (i = 1; i <= 5000; i++)
		qd_add(&q, i * 1000);
	EXPECT(!qd_is_exact(&q));
	p50 = qd_percentile(&q, 50, 100);	/* true: 2,500,000 */
	p99 = qd_percentile(&q, 99, 100);	/* true: 4,950,000 */
	EXPECT(p50 >= 2500000 && p50 <= 2500000 + 2500000 / 256);
	EXPECT(p99 >= 4950000 && p99 <= 4950000 + 4950000 / 256);
	EXPECT_EQ(qd_percentile(&q, 1000, 1000), 5000000);
	/* small values stay exact in buckets */
	qd_init(&m);
	for (i = 0; i < 2000; i++)
		qd_add(&m, i % 500);	/* each of 0..499 four times */
	EXPECT_EQ(qd_percentile(&m, 50, 100), 249);	/* rank 1000 */
	qd_merge(&m, &q);
	EXPECT_EQ(m.count, 7000);
	EXPECT_EQ(m.max, 5000000);
	EXPECT_EQ(m.min, 0);
	qd_free(&m);
	qd_free(&q);
}

/*
 * The edges of qdist.h's promises, exact. At most QD_EXACT_MAX (1024)
 * values are kept as they are: 1023 of 1000 and one 5000 give p50 1000,
 * exact; a 1025th value moves them into buckets, where 1000 shares
 * [1000, 1001] and p50 is that bucket's top, 1001 (not exact). A bucket's
 * top is clamped to the max: 1025 values of 1000 give p50 1000, not 1001.
 * Values below 512 have buckets of their own, 512 is the first one shared
 * ([512, 513]): of 0..2047 (bucketed), rank 512 is 511, rank 513 is 513,
 * rank 1024 is 1023 (the top of [1022, 1023]), rank 1025 is 1027 (the top
 * of [1024, 1027]). Merging bucketed values keeps each in its bucket: 0..499
 * four times and 1000, 2000, ..., 5,000,000 give p50 (rank 3500: the
 * 1500th, 1,500,000, in [1499136, 1503231]) 1503231 and p90 (rank 6300:
 * 4,300,000, in [4292608, 4308991]) 4308991.
 */
TEST(qdist_exact_limit_bucket_edges_and_merge_exactly)
{
	struct qdist q, m;
	uint64_t i;

	qd_init(&q);
	for (i = 0; i < 1023; i++)
		qd_add(&q, 1000);
	qd_add(&q, 5000);
	EXPECT(qd_is_exact(&q));
	EXPECT_EQ(qd_percentile(&q, 50, 100), 1000);
	qd_add(&q, 5000);	/* the 1025th */
	EXPECT(!qd_is_exact(&q));
	EXPECT_EQ(qd_percentile(&q, 50, 100), 1001);
	qd_free(&q);

	qd_init(&q);
	for (i = 0; i < 1025; i++)
		qd_add(&q, 1000);
	EXPECT(!qd_is_exact(&q));
	EXPECT_EQ(qd_percentile(&q, 50, 100), 1000);	/* not 1001 */
	qd_free(&q);

	qd_init(&q);
	for (i = 0; i < 2048; i++)
		qd_add(&q, i);
	EXPECT(!qd_is_exact(&q));
	EXPECT_EQ(qd_percentile(&q, 512, 2048), 511);
	EXPECT_EQ(qd_percentile(&q, 513, 2048), 513);
	EXPECT_EQ(qd_percentile(&q, 1024, 2048), 1023);
	EXPECT_EQ(qd_percentile(&q, 1025, 2048), 1027);
	qd_free(&q);

	qd_init(&q);
	for (i = 1; i <= 5000; i++)
		qd_add(&q, i * 1000);
	qd_init(&m);
	for (i = 0; i < 2000; i++)
		qd_add(&m, i % 500);
	qd_merge(&m, &q);
	EXPECT_EQ(m.count, 7000);
	EXPECT_EQ(qd_percentile(&m, 50, 100), 1503231);
	EXPECT_EQ(qd_percentile(&m, 90, 100), 4308991);
	qd_free(&m);
	qd_free(&q);
}

/* ---- latency semantics ---- */

/*
 * cpu0: 1000 idle->A; 2000 A->idle (blocked); 5000 wakeup A (by B);
 *       5500 wakeup A again; 5700 idle->A; 9000 A->idle (blocked)
 * wakeup latency 5700-5000 = 700 (the second wakeup does not restart it)
 * A runtime (2000-1000) + (9000-5700) = 4300
 */
TEST(wakeup_latency_first_wakeup_counts)
{
	struct analysis an;
	struct tb t;
	struct thread *a;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 0, 5000, 101, 102);
	tb_wake(&t, 0, 5500, 101, 0);
	tb_switch(&t, 0, 5700, IDLE, 101, 0);
	tb_switch(&t, 0, 9000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(a->lat[LAT_WAKEUP].max, 700);
	EXPECT_EQ(a->lat[LAT_PREEMPT].count, 0);
	EXPECT_EQ(a->runtime, 4300);
	EXPECT_EQ(a->switches, 2);
	EXPECT_EQ(a->voluntary, 2);
	EXPECT_EQ(a->involuntary, 0);
	EXPECT_EQ(a->wakeups, 2);
	EXPECT_EQ(an.cpus[0].busy, 4300);
	EXPECT_EQ(an.cpus[0].idle, 3700);	/* 2000..5700 */
	analysis_free(&an);
}

/*
 * cpu0: 1000 idle->A; 1500 wakeup A (A is running: ignored);
 *       2000 A->B (A preempted, state 1); 2600 B->A (B preempted)
 * cpu1: 3000 idle->B  (B migrates from cpu0 to cpu1)
 * A: preempt latency 600, no wakeup latency, 1 involuntary switch
 * B: preempt latency 3000-2600 = 400, migrations 1
 */
TEST(preempt_latency_wakeup_of_running_ignored_migration)
{
	struct analysis an;
	struct tb t;
	struct thread *a, *b;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_wake(&t, 0, 1500, 101, 0);
	tb_switch(&t, 0, 2000, 101, 102, FXT_THREAD_STATE_RUNNING);
	tb_switch(&t, 0, 2600, 102, 101, FXT_THREAD_STATE_RUNNING);
	tb_switch(&t, 1, 3000, IDLE, 102, 0);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	b = analysis_find(&an, 102);
	ASSERT(a && b);
	EXPECT_EQ(a->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(a->lat[LAT_PREEMPT].count, 1);
	EXPECT_EQ(a->lat[LAT_PREEMPT].max, 600);
	EXPECT_EQ(a->involuntary, 1);
	EXPECT_EQ(a->voluntary, 0);
	/* 1000..2000, and 2600 to the trace's end (3000), no switch-out */
	EXPECT_EQ(a->runtime, 1400);
	EXPECT_EQ(b->lat[LAT_PREEMPT].max, 400);
	EXPECT_EQ(b->migrations, 1);
	EXPECT_EQ(b->runtime, 600);		/* 2000..2600 */
	EXPECT_EQ(a->migrations, 0);
	analysis_free(&an);
}

/*
 * latency -T/-P -n's order, each rule on its own (fxt-sched(1): the
 * longest interval of either kind; of equal ones, the one with more
 * intervals, then the smaller id), and the cut's note. A (tid 10, pid 100)
 * has one preemption wait of 900 ns, no wakeup wait; B (11, pid 200) two
 * wakeup waits of 500; C (12, pid 300) and D (13, pid 400) one of 500
 * each. So A, B, C, D, as threads and as processes; -n 3 leaves D out and
 * says so.
 */
static void build_ranked(struct tb *t)
{
	unsigned int cpu;

	tb_begin(t, 1000000000);
	tb_thread(t, 10, 100, "A");
	tb_thread(t, 11, 200, "B");
	tb_thread(t, 12, 300, "C");
	tb_thread(t, 13, 400, "D");
	tb_switch(t, 0, 1000, IDLE, 10, 0);
	tb_switch(t, 0, 2000, 10, IDLE, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 2900, IDLE, 10, 0);
	tb_switch(t, 0, 3000, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
	for (cpu = 1; cpu <= 3; cpu++) {
		tb_switch(t, cpu, 1000, IDLE, 10 + cpu, 0);
		tb_switch(t, cpu, 1100, 10 + cpu, IDLE, FXT_THREAD_STATE_BLOCKED);
		tb_wake(t, cpu, 1200, 10 + cpu, 0);
		tb_switch(t, cpu, 1700, IDLE, 10 + cpu, 0);
		tb_switch(t, cpu, 1800, 10 + cpu, IDLE, FXT_THREAD_STATE_BLOCKED);
	}
	tb_wake(t, 1, 1900, 11, 0);
	tb_switch(t, 1, 2400, IDLE, 11, 0);
	tb_switch(t, 1, 2500, 11, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/* The lines of @txt that begin with @prefix, up to the first blank. */
static void heads(const char *txt, const char *prefix, char *buf, size_t len)
{
	const char *p = txt;
	size_t n = 0, k = strlen(prefix);

	buf[0] = '\0';
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, prefix, k))
			continue;
		while (p[k] && p[k] != ' ' && p[k] != '\n' && n + 2 < len)
			buf[n++] = p[k++];
		buf[n++] = ' ';
		buf[n] = '\0';
		k = strlen(prefix);
	}
}

TEST(latency_n_ranks_by_either_kind_then_count_then_id)
{
	struct analysis an;
	struct tb t;
	char *txt = NULL, ids[128];
	size_t len = 0;
	FILE *f;

	build_ranked(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);

	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_latency(&an, f, OUT_TEXT, GROUP_THREAD, 4);
	fclose(f);
	heads(txt, "tid = ", ids, sizeof(ids));
	EXPECT_STREQ(ids, "10 11 12 13 ");
	EXPECT(!strstr(txt, "not listed"));
	free(txt);

	txt = NULL;
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_latency(&an, f, OUT_TEXT, GROUP_THREAD, 3);
	fclose(f);
	heads(txt, "tid = ", ids, sizeof(ids));
	EXPECT_STREQ(ids, "10 11 12 ");
	EXPECT_CONTAINS(txt, "\n1 more thread with intervals not listed (the list holds those with the longest waits); -n 4 lists them all\n");
	free(txt);

	txt = NULL;
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_latency(&an, f, OUT_TEXT, GROUP_PROCESS, 4);
	fclose(f);
	heads(txt, "pid = ", ids, sizeof(ids));
	EXPECT_STREQ(ids, "100 200 300 400 ");
	free(txt);

	txt = NULL;
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_latency(&an, f, OUT_TEXT, GROUP_PROCESS, 3);
	fclose(f);
	heads(txt, "pid = ", ids, sizeof(ids));
	EXPECT_STREQ(ids, "100 200 300 ");
	EXPECT_CONTAINS(txt, "\n1 more process with intervals not listed (the list holds those with the longest waits); -n 4 lists them all\n");
	free(txt);
	analysis_free(&an);
}

/*
 * A list cut by -n names the -n that lists the rest, at most 100000 (the
 * largest -n): 100001 threads, each with one wakeup wait (and 999,
 * running on cpu1 throughout), cut at 1. Then "-n 100000 lists the
 * 100000 worst" (latency -T, 100000 more) and "... with the most"
 * (summary, 100001 more: 999 too), not -n 100001 or 100002, nor "them
 * all". Their percentiles are from buckets: the JSON's "exact" false.
 */
TEST(a_cut_list_of_100001_names_n_100000)
{
	struct analysis an;
	struct tb t;
	char *txt = NULL;
	size_t len = 0;
	uint64_t i, ts = 1000;
	FILE *f;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 1, 500, IDLE, 999, 0);	/* the first switch */
	for (i = 0; i < 100001; i++, ts += 30) {
		tb_wake(&t, 0, ts, 1000 + i, 0);
		tb_switch(&t, 0, ts + 10, IDLE, (int64_t)(1000 + i), 0);
		tb_switch(&t, 0, ts + 20, (int64_t)(1000 + i), IDLE,
			  FXT_THREAD_STATE_BLOCKED);
	}
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_latency(&an, f, OUT_TEXT, GROUP_THREAD, 1);
	fclose(f);
	/* 100001 intervals: in buckets, and the text and JSON say so */
	EXPECT_CONTAINS(txt, "  p50 10ns  p90 10ns  p99 10ns  p99.9 10ns  max 10ns  (percentiles within 0.4%, see fxt-sched(1))\n");
	EXPECT_CONTAINS(txt, "\n100000 more threads with intervals not listed (the list holds those with the longest waits); -n 100000 lists the 100000 worst\n");
	free(txt);
	txt = NULL;
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_summary(&an, f, OUT_TEXT, 1);
	fclose(f);
	EXPECT_CONTAINS(txt, "\n100001 more threads not listed (the list holds those with the most runtime); -n 100000 lists the 100000 with the most\n");
	free(txt);
	txt = render(&an, 0, OUT_JSON, GROUP_NONE);
	EXPECT_CONTAINS(txt, "\"wakeup_latency_ns\": {\"count\": 100001, \"p50\": 10, \"p90\": 10, \"p99\": 10, \"p999\": 10, \"max\": 10, \"exact\": false, ");
	free(txt);
	analysis_free(&an);
}

/*
 * A trace with no scheduling record (one instant event): it has no start,
 * so summary gives none, not "trace start: 0.000000000s", and its span is
 * 0 .. 0 in JSON even with --from 5ns (the window's start is not the
 * trace's).
 */
TEST(summary_of_a_trace_without_scheduling_records_has_no_start)
{
	struct fxt_event ev = { FXT_EVENT_INSTANT, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("x"), 10, 0 };
	struct analysis an;
	struct tb t;
	const char *span;
	char *out;

	tb_begin(&t, 1000000000);
	fxt_write_event(&t.w, &ev, NULL, 0);
	analysis_init(&an);
	an.f.has_from = true;
	an.f.from = 5;
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT(!an.started);
	out = render(&an, 2, OUT_TEXT, GROUP_NONE);
	ASSERT(out);
	span = "time span: 0.000000000s .. 0.000000000s (0ns)\n";
	EXPECT(!strncmp(out, span, strlen(span)));
	EXPECT(!strstr(out, "trace start"));
	free(out);
	out = render(&an, 2, OUT_JSON, GROUP_NONE);
	ASSERT(out);
	span = "{\"start_ns\": 0, \"end_ns\": 0, \"span_ns\": 0,\n";
	EXPECT(!strncmp(out, span, strlen(span)));
	free(out);
	analysis_free(&an);
}

/*
 * Two threads of one tid (101 "A" dies, new_task begins "B"), each with
 * one wakeup wait of 500 ns: equal in every rule of latency -n, they are
 * listed in their order, A first.
 */
TEST(latency_n_lists_equal_incarnations_in_their_order)
{
	struct analysis an;
	struct tb t;
	char *txt = NULL;
	size_t len = 0;
	FILE *f;

	tb_begin(&t, 1000000000);
	tb_thread(&t, 101, 100, "A");
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 1100, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 0, 1200, 101, 0);
	tb_switch(&t, 0, 1700, IDLE, 101, 0);
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_new_thread(&t, 101, 100, "B");
	tb_wake(&t, 0, 2500, 101, 0);
	tb_switch(&t, 0, 3000, IDLE, 101, 0);
	tb_switch(&t, 0, 3500, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_latency(&an, f, OUT_TEXT, GROUP_THREAD, 2);
	fclose(f);
	EXPECT_CONTAINS(txt, "\ntid = 101 A (pid 100)\n  wakeup-to-run latency: 1 interval\n  p50 500ns ");
	EXPECT_CONTAINS(txt, "\ntid = 101 B (pid 100)\n  wakeup-to-run latency: 1 interval\n  p50 500ns ");
	EXPECT(txt && strstr(txt, "tid = 101 A") < strstr(txt, "tid = 101 B"));
	free(txt);
	analysis_free(&an);
}

/*
 * The text histogram's bars are scaled to the fullest bucket, 40 stars;
 * a bucket with intervals gets at least one star, however few: 41 waits
 * of 100 ns (64 -> 127) and one of 1000 ns (512 -> 1023, "1.02us"), where
 * 1 * 40 / 41 rounds down to none.
 */
TEST(a_histogram_bucket_with_intervals_has_a_star)
{
	struct analysis an;
	struct tb t;
	char *txt;
	uint64_t ts = 1000;
	int i;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, ts, IDLE, 10, 0);
	for (i = 0; i < 42; i++) {
		tb_switch(&t, 0, ts + 100, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
		tb_wake(&t, 0, ts + 200, 10, 0);
		tb_switch(&t, 0, ts + (i == 41 ? 1200 : 300), IDLE, 10, 0);
		ts += i == 41 ? 1200 : 300;
	}
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	txt = render(&an, 0, OUT_TEXT, GROUP_NONE);
	ASSERT(txt);
	EXPECT_CONTAINS(txt, "wakeup-to-run latency: 42 intervals\n");
	EXPECT_CONTAINS(txt, "\n      64ns -> 127ns      : 41       |****************************************|\n");
	EXPECT_CONTAINS(txt, "\n     128ns -> 255ns      : 0        |                                        |\n");
	EXPECT_CONTAINS(txt, "\n     512ns -> 1.02us     : 1        |*                                       |\n");
	free(txt);
	analysis_free(&an);
}

/*
 * Each percentile in its own place, in every format: 1000 wakeup waits of
 * 1, 2, ..., 1000 ns give p50 500, p90 900, p99 990, p99.9 999 (rank
 * ceil(999) = 999), max 1000: all different, so a column or a fraction
 * mixed up shows.
 */
TEST(latency_percentiles_p50_p90_p99_p999_max_in_their_places)
{
	struct analysis an;
	struct tb t;
	char *out;
	uint64_t ts = 1000, i;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, ts, IDLE, 10, 0);
	for (i = 1; i <= 1000; i++) {
		tb_switch(&t, 0, ts + 10, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
		tb_wake(&t, 0, ts + 20, 10, 0);
		tb_switch(&t, 0, ts + 20 + i, IDLE, 10, 0);
		ts += 20 + i;
	}
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	out = render(&an, 0, OUT_CSV, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "scope,id,pid,name,kind,count,p50,p90,p99,p999,max\n"
			"all,0,0,,wakeup,1000,500,900,990,999,1000\n");
	free(out);
	out = render(&an, 0, OUT_JSON, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "\"wakeup_latency_ns\": {\"count\": 1000, \"p50\": 500, \"p90\": 900, \"p99\": 990, \"p999\": 999, \"max\": 1000, \"exact\": true,");
	free(out);
	out = render(&an, 0, OUT_TEXT, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "wakeup-to-run latency: 1000 intervals\n"
			"  p50 500ns  p90 900ns  p99 990ns  p99.9 999ns  max 1.00us\n");
	/* an empty distribution is its title and a blank line, the report's
	 * last here */
	EXPECT(strlen(out) > 41 &&
	       !strcmp(out + strlen(out) - 41, "\npreemption-to-run latency: 0 intervals\n\n"));
	free(out);
	analysis_free(&an);
}

/*
 * top's "meanwhile" list, exact: W (tid 10) is woken at 1000 on cpu1
 * while cpu0 idles (since 600), then eight threads run there once each,
 * 800, 700, ..., 100 ns, until W runs at 5600 (a 4.60 us wait). The idle
 * task's 1000 ns come first, named "idle" in the JSON too; the eighth
 * thread's 100 ns, the ninth task, is the one "more slice". A trace with
 * no interval at all prints only "no latency intervals", no trace start.
 */
TEST(top_meanwhile_idle_named_and_one_more_slice)
{
	static const uint64_t at[] = { 2000, 2800, 3500, 4100, 4600, 5000,
				       5300, 5500, 5600 };
	struct analysis an;
	struct tb t;
	char *out, name[8];
	int i;

	tb_begin(&t, 1000000000);
	tb_process(&t, 100, "P");
	tb_thread(&t, 10, 100, "W");
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "T%d", i + 1);
		tb_thread(&t, 21 + (uint64_t)i, 100, name);
	}
	tb_switch(&t, 0, 500, IDLE, 10, 0);
	tb_switch(&t, 0, 600, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 1, 1000, 10, 0);
	tb_switch(&t, 0, at[0], IDLE, 21, 0);
	for (i = 1; i < 9; i++)
		tb_switch(&t, 0, at[i], 20 + i, i < 8 ? 21 + i : 10,
			  FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 0, 6000, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	an.top_n = 1;
	ASSERT(run(&an, &t, 0) == 0);
	out = render(&an, 1, OUT_TEXT, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "#1 wakeup latency 4.60us: tid 10 W (pid 100 P) on cpu 0\n"
			"   runnable from 0.000000500s until 4.60us later; woken on cpu 1\n"
			"   ran on cpu 0 meanwhile: idle 1.00us (1), tid 21 T1 800ns (1), tid 22 T2 700ns (1), tid 23 T3 600ns (1), tid 24 T4 500ns (1), tid 25 T5 400ns (1), tid 26 T6 300ns (1), tid 27 T7 200ns (1), 1 more slice 100ns\n");
	free(out);
	out = render(&an, 1, OUT_JSON, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "\"ran_meanwhile\": [{\"tid\": 0, \"idle\": true, \"name\": \"idle\", \"ns\": 1000, \"slices\": 1}, {\"tid\": 21, \"idle\": false, \"name\": \"T1\", \"ns\": 800, \"slices\": 1}, ");
	EXPECT_CONTAINS(out, "{\"tid\": 27, \"idle\": false, \"name\": \"T7\", \"ns\": 200, \"slices\": 1}], \"other_ns\": 100, \"history_truncated\": false}");
	free(out);
	/* woken by no thread: the CSV's waker field empty */
	out = render(&an, 1, OUT_CSV, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "\n1,wakeup,10,100,W,0,1,,1000,5600,4600,\"0:idle:1000;21:T1:800;22:T2:700;23:T3:600;24:T4:500;25:T5:400;26:T6:300;27:T7:200\",100,0\n");
	free(out);
	analysis_free(&an);

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 500, IDLE, 10, 0);
	tb_switch(&t, 0, 600, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	an.top_n = 1;
	ASSERT(run(&an, &t, 0) == 0);
	out = render(&an, 1, OUT_TEXT, GROUP_NONE);
	ASSERT(out);
	EXPECT_STREQ(out, "no latency intervals\n");
	free(out);
	analysis_free(&an);
}

/*
 * top's text names a preemption as one: A's 900 ns wait of build_ranked().
 * A preemption has no waker, even of a thread woken by one before: A (10)
 * woken by B (11) at 1500, in at 1600 on cpu0, preempted at 2000, back
 * at 2900.
 */
TEST(top_text_says_preempted_for_a_preemption)
{
	struct analysis an;
	struct tb t;
	char *out;

	build_ranked(&t);
	analysis_init(&an);
	an.top_n = 1;
	ASSERT(run(&an, &t, 0) == 0);
	out = render(&an, 1, OUT_TEXT, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "#1 preempt latency 900ns: tid 10 A (pid 100) on cpu 0\n"
			"   runnable from 0.000001000s until 900ns later; preempted on cpu 0\n");
	free(out);
	analysis_free(&an);

	tb_begin(&t, 1000000000);
	tb_thread(&t, 10, 100, "A");
	tb_thread(&t, 11, 100, "B");
	tb_switch(&t, 1, 1000, IDLE, 11, 0);
	tb_switch(&t, 0, 1000, IDLE, 10, 0);
	tb_switch(&t, 0, 1100, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 1, 1500, 10, 11);
	tb_switch(&t, 0, 1600, IDLE, 10, 0);
	tb_switch(&t, 0, 2000, 10, IDLE, FXT_THREAD_STATE_RUNNING);
	tb_switch(&t, 0, 2900, IDLE, 10, 0);
	tb_switch(&t, 1, 3000, 11, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	an.top_n = 2;
	ASSERT(run(&an, &t, 0) == 0);
	out = render(&an, 1, OUT_TEXT, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "#1 preempt latency 900ns: tid 10 A (pid 100) on cpu 0\n"
			"   runnable from 0.000001000s until 900ns later; preempted on cpu 0\n");
	EXPECT_CONTAINS(out, "#2 wakeup latency 100ns: tid 10 A (pid 100) on cpu 0\n"
			"   runnable from 0.000000500s until 100ns later; woken on cpu 1 by tid 11 B\n");
	free(out);
	analysis_free(&an);
}

/*
 * summary's thread rows: a thread only woken (W, tid 11: never ran, no
 * interval) is listed for its wakeup; a name with a carriage return is
 * quoted in the CSV (RFC 4180), as one with a newline is; -n 1 lists one
 * thread in JSON, CSV and text, the one with the most runtime, and the
 * text's NAME column is as wide as the names listed (16 at least), not
 * as 12's 22 bytes, left out. cpu0: 1000 idle -> 10 "a\rb"; 2000 -> 12
 * "X-a-name-of-23-bytes-X"; 3000 -> idle; W woken at 3500 by 10.
 */
TEST(summary_lists_a_thread_only_woken_quotes_cr_and_cuts_at_n)
{
	struct analysis an;
	struct tb t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	tb_begin(&t, 1000000000);
	tb_thread(&t, 10, 100, "a\rb");
	tb_thread(&t, 11, 100, "W");
	tb_thread(&t, 12, 100, "X-a-name-of-23-bytes-X");
	tb_switch(&t, 0, 1000, IDLE, 10, 0);
	tb_switch(&t, 0, 2000, 10, 12, FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 0, 3000, 12, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 0, 3500, 11, 10);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	out = render(&an, 2, OUT_CSV, GROUP_NONE);
	ASSERT(out);
	EXPECT_CONTAINS(out, "\nthread,10,100,\"a\rb\",1000,,1,1,0,0,0,0,\n"
			"thread,12,100,X-a-name-of-23-bytes-X,1000,,1,1,0,0,0,0,\n"
			"thread,11,100,W,0,,0,0,0,0,1,0,\n");
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	ASSERT(f);
	print_summary(&an, f, OUT_JSON, 1);
	fclose(f);
	EXPECT_CONTAINS(out, "\"threads\": [\n  {\"tid\": 10, \"pid\": 100, \"name\": \"a\\u000db\", \"runtime_ns\": 1000, ");
	EXPECT(!strstr(out, "\"tid\": 12"));
	EXPECT(!strstr(out, "\"tid\": 11"));
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	ASSERT(f);
	print_summary(&an, f, OUT_CSV, 1);
	fclose(f);
	EXPECT_CONTAINS(out, "\nthread,10,100,");
	EXPECT(!strstr(out, "thread,12,"));
	EXPECT(!strstr(out, "thread,11,"));
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	ASSERT(f);
	print_summary(&an, f, OUT_TEXT, 1);
	fclose(f);
	EXPECT_CONTAINS(out, "\n     TID      PID NAME                      runtime   switches  voluntary  involunt. migrations  wakeups\n"
			"      10      100 a\\x0db                     1.00us          1          1          0          0        0\n"
			"2 more threads not listed (the list holds those with the most runtime); -n 3 lists them all\n");
	free(out);
	analysis_free(&an);
}

/* The same records in a different file order give the same answers. */
static void build_two_cpu(struct tb *t, bool scrambled)
{
	tb_begin(t, 1000000000);
	if (!scrambled) {
		tb_switch(t, 0, 100, IDLE, 101, 0);
		tb_switch(t, 1, 150, IDLE, 102, 0);
		tb_switch(t, 0, 200, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
		tb_wake(t, 1, 300, 101, 102);	/* B wakes A, from cpu1 */
		tb_switch(t, 0, 450, IDLE, 101, 0);
		tb_switch(t, 1, 500, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	} else {
		/* per-CPU chunks, cpu0 first; the wakeup sits in cpu1's ring,
		 * after A's switch-in in the file */
		tb_switch(t, 0, 100, IDLE, 101, 0);
		tb_switch(t, 0, 200, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
		tb_switch(t, 0, 450, IDLE, 101, 0);
		tb_switch(t, 1, 150, IDLE, 102, 0);
		tb_wake(t, 1, 300, 101, 102);
		tb_switch(t, 1, 500, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	}
}

TEST(out_of_order_records_are_reordered)
{
	int s;

	for (s = 0; s < 2; s++) {
		struct analysis an;
		struct tb t;
		struct thread *a, *b;

		build_two_cpu(&t, s);
		analysis_init(&an);
		ASSERT(run(&an, &t, 0) == 0);
		a = analysis_find(&an, 101);
		b = analysis_find(&an, 102);
		ASSERT(a && b);
		EXPECT_EQ(a->lat[LAT_WAKEUP].count, 1);
		EXPECT_EQ(a->lat[LAT_WAKEUP].max, 150);	/* 450 - 300 */
		/* 100..200, and 450 to the trace's end (500) */
		EXPECT_EQ(a->runtime, 150);
		EXPECT_EQ(b->runtime, 350);
		EXPECT_EQ(an.running_at_end, 1);
		/* the summary CSV's column: A's slice on cpu0, not B's */
		EXPECT_EQ(a->running_at_end, 1);
		EXPECT_EQ(b->running_at_end, 0);
		EXPECT(an.cpus[0].running_at_end);
		EXPECT(!an.cpus[1].running_at_end);
		EXPECT_EQ(an.io.late, 0);
		EXPECT_EQ(an.t0, 100);
		EXPECT_EQ(an.t_end, 500);
		analysis_free(&an);
	}
}

/*
 * Records of two CPUs at the same time, in either file order (fxt-collect
 * writes the rings one after another): B (11, cpu1) wakes A (10) at 10 us,
 * and A, running on cpu0 since 5 us, switches out blocked at 10 us and
 * back in at 15 us. A thread woken while still on the runqueue does not
 * block, so the wakeup is after the switch-out: a 5 us wait either way
 * (taken for a wakeup of a running thread when cpu1's ring came first).
 */
static void build_tied_wakeup(struct tb *t, bool cpu1_first)
{
	int pass;

	tb_begin(t, 1000000);
	tb_thread(t, 10, 100, "A");
	tb_thread(t, 11, 100, "B");
	tb_switch(t, 0, 5, IDLE, 10, 0);
	tb_switch(t, 1, 5, IDLE, 11, 0);
	for (pass = 0; pass < 2; pass++) {
		if ((pass == 0) == cpu1_first) {
			tb_wake(t, 1, 10, 10, 11);
			tb_switch(t, 1, 20, 11, IDLE, FXT_THREAD_STATE_BLOCKED);
		} else {
			tb_switch(t, 0, 10, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
			tb_switch(t, 0, 15, IDLE, 10, 0);
			tb_switch(t, 0, 30, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
		}
	}
}

TEST(a_wakeup_tied_with_a_blocking_switch_out_follows_it)
{
	int s;

	for (s = 0; s < 2; s++) {
		struct analysis an;
		struct tb t;
		char *iv;

		build_tied_wakeup(&t, s);
		analysis_init(&an);
		ASSERT(analysis_spool_intervals(&an) == 0);
		ASSERT(run(&an, &t, 0) == 0);
		iv = render(&an, 3, OUT_CSV, GROUP_NONE);
		ASSERT(iv);
		EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n"
			     "wakeup,10,0,1,10000,15000,5000,100,A\n");
		EXPECT_EQ(an.skipped_start + an.skipped_hole, 0);
		free(iv);
		analysis_free(&an);
	}
}

/*
 * A wakeup with the timestamp of its thread's switch-in, in either file
 * order: B (11, cpu1) wakes A (10) at 2000 and cpu0 switches A in at 2000.
 * A sleeping thread is not switched in before it is woken, so the wakeup
 * came first: a wait of 0 ns either way (below the clock's resolution).
 * It was one only when cpu1's ring came first in the file; otherwise the
 * wakeup was taken for one of a running thread, and the wait was lost.
 * A has blocked at 1000 (@seen), or was never seen before: taken as
 * sleeping, as a wakeup first makes it. Without cpu1's first switch (at
 * 500), and A not seen before, A's switch-in is the trace's first: its
 * wait began before it, not counted (as "begun before the trace's first
 * context switch"), in either order too.
 */
static void build_tied_switch_in(struct tb *t, bool cpu1_first, bool seen,
				 bool first)
{
	int pass;

	tb_begin(t, 1000000000);
	tb_thread(t, 10, 100, "A");
	tb_thread(t, 11, 100, "B");
	if (!first)
		tb_switch(t, 1, 500, IDLE, 11, 0);
	if (seen) {
		tb_switch(t, 0, 500, IDLE, 10, 0);
		tb_switch(t, 0, 1000, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
	}
	for (pass = 0; pass < 2; pass++) {
		if ((pass == 0) == cpu1_first) {
			tb_wake(t, 1, 2000, 10, 11);
			tb_switch(t, 1, 3000, 11, IDLE, FXT_THREAD_STATE_BLOCKED);
		} else {
			tb_switch(t, 0, 2000, IDLE, 10, 0);
			tb_switch(t, 0, 2500, 10, IDLE, FXT_THREAD_STATE_BLOCKED);
		}
	}
}

TEST(a_wakeup_tied_with_its_switch_in_is_a_0ns_wait_in_either_order)
{
	int s;

	for (s = 0; s < 6; s++) {
		int failed = tap_current_failed;
		struct analysis an;
		struct tb t;
		struct thread *a;
		char *iv, *top;

		tap_current_failed = 0;
		build_tied_switch_in(&t, s & 1, s & 2, s & 4);
		analysis_init(&an);
		an.top_n = 1;
		ASSERT(analysis_spool_intervals(&an) == 0);
		ASSERT(run(&an, &t, 0) == 0);
		iv = render(&an, 3, OUT_CSV, GROUP_NONE);
		top = render(&an, 1, OUT_CSV, GROUP_NONE);
		a = analysis_find(&an, 10);
		ASSERT(iv && top && a);
		EXPECT_EQ(a->wakeups, 1);
		EXPECT_EQ(a->runtime, (s & 2) ? 1000 : 500);
		EXPECT_EQ(an.skipped_hole, 0);
		if (s & 4) {
			EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n");
			EXPECT_EQ(a->lat[LAT_WAKEUP].count, 0);
			EXPECT_EQ(an.skipped_start, 1);
			EXPECT(!strstr(top, "\n1,"));
		} else {
			EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n"
				     "wakeup,10,0,1,2000,2000,0,100,A\n");
			EXPECT_EQ(a->lat[LAT_WAKEUP].count, 1);
			EXPECT_EQ(an.skipped_start, 0);
			EXPECT_CONTAINS(top, "\n1,wakeup,10,100,A,0,1,11,2000,2000,0,\"\",0,0\n");
		}
		if (tap_current_failed)
			printf("#   (file order: cpu%d's records first; A %s before%s)\n",
			       s & 1 ? 1 : 0, s & 2 ? "seen blocking" : "never seen",
			       s & 4 ? "; its switch-in the trace's first" : "");
		tap_current_failed |= failed;
		free(top);
		free(iv);
		analysis_free(&an);
	}
}

/*
 * Window 100 ns: cpu1's records (150..500) come after cpu0 reached 450,
 * which handed on 100 and 200: 150 is 50 ns behind 200, late (skipped);
 * 300 is not (150 ns behind 450, but in order). The most disorder, 300 ns
 * (the record at 150, behind 450), is what the window must exceed: 301 ns
 * takes all in.
 */
TEST(late_records_beyond_window_are_counted_not_applied)
{
	struct analysis an;
	struct tb t;
	char *txt = NULL;
	size_t len = 0;
	FILE *f;

	build_two_cpu(&t, true);
	analysis_init(&an);
	ASSERT(run(&an, &t, 100) == 0);
	EXPECT_EQ(an.io.late, 1);
	EXPECT(an.io.first_late_offset > 0);
	EXPECT_EQ(an.io.max_late_ns, 50);
	EXPECT_EQ(an.io.max_disorder_ns, 300);
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_input_warnings(&an, "x.fxt", f);
	fclose(f);
	EXPECT_CONTAINS(txt, "fxt-sched: warning: x.fxt: 1 scheduling record arrived more than the reorder window after newer ones (first at offset ");
	EXPECT_CONTAINS(txt, ", up to 50ns late) and was left out; --reorder-window 301ns or more, or none, takes them in\n");
	free(txt);
	analysis_free(&an);

	/* that window: nothing late */
	build_two_cpu(&t, true);
	analysis_init(&an);
	ASSERT(run(&an, &t, 301) == 0);
	EXPECT_EQ(an.io.late, 0);
	EXPECT_EQ(an.io.max_disorder_ns, 300);
	analysis_free(&an);
}

/*
 * top: cpu0: 4000 idle->B; 5000 wakeup A (by C, from cpu1);
 *      5400 B->C (B preempted); 5700 C->A
 * A's wakeup latency 700; meanwhile on cpu0: B 400 ns (5000..5400),
 * C 300 ns (5400..5700)
 */
TEST(top_lists_what_ran_meanwhile)
{
	struct analysis an;
	struct tb t;
	char *txt, *js;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 4000, IDLE, 102, 0);
	tb_switch(&t, 1, 4100, IDLE, 103, 0);
	tb_wake(&t, 0, 5000, 101, 103);
	tb_switch(&t, 1, 5001, 103, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 1, 5100, 103, 0);
	tb_switch(&t, 1, 5150, IDLE, IDLE, 0);
	tb_switch(&t, 0, 5400, 102, 103, FXT_THREAD_STATE_RUNNING);
	tb_switch(&t, 0, 5700, 103, 101, FXT_THREAD_STATE_BLOCKED);
	tb_thread(&t, 101, 100, "alpha");
	tb_thread(&t, 102, 100, "beta");
	tb_thread(&t, 103, 200, "gamma");
	tb_process(&t, 100, "proc-a");
	analysis_init(&an);
	an.top_n = 2;
	ASSERT(run(&an, &t, 0) == 0);
	txt = render(&an, 1, OUT_TEXT, GROUP_NONE);
	js = render(&an, 1, OUT_JSON, GROUP_NONE);
	ASSERT(txt && js);
	/* #1: A 700 on cpu0; #2: C waited 5100..5400 = 300 on cpu0 */
	/* the trace starts at 4000, given once; A waits from 5000, 1000 after */
	EXPECT(!strncmp(txt, "trace start: 0.000004000s on the trace's clock", 46));
	EXPECT_CONTAINS(txt, "#1 wakeup latency 700ns: tid 101 alpha (pid 100 proc-a) on cpu 0\n"
			"   runnable from 0.000001000s until 700ns later; woken on cpu 0 by tid 103 gamma\n");
	EXPECT_CONTAINS(txt, "by tid 103 gamma");
	EXPECT_CONTAINS(txt, "tid 102 beta 400ns (1), tid 103 gamma 300ns (1)");
	EXPECT_CONTAINS(txt, "#2 wakeup latency 300ns: tid 103 gamma");
	EXPECT_CONTAINS(js, "\"latency_ns\": 700, \"ran_meanwhile\": [{\"tid\": 102, \"idle\": false, \"name\": \"beta\", \"ns\": 400, \"slices\": 1}");
	EXPECT_CONTAINS(js, "\"waker\": 103");
	EXPECT_CONTAINS(js, "\"history_truncated\": false");
	free(txt);
	free(js);
	analysis_free(&an);
}

/* fixtures.h build_top_many: the 8 tasks listed are the 8 that ran the
 * longest in the interval, the rest summed. */
TEST(top_lists_the_longest_running_tasks_first)
{
	static const uint64_t want[TOP_CTX] = { 201, 309, 308, 307, 306, 305, 304, 303 };
	struct analysis an;
	struct top_entry *v;
	struct tb t;
	unsigned int i;
	char *txt, *js;
	size_t n;

	build_top_many(&t);
	analysis_init(&an);
	an.top_n = 1;
	ASSERT(run(&an, &t, 0) == 0);
	v = analysis_top(&an, &n);
	ASSERT(v && n == 1);
	EXPECT_EQ(v[0].tid, 100);
	EXPECT_EQ(v[0].latency, 1010500);
	EXPECT_EQ(v[0].nctx, TOP_CTX);
	for (i = 0; i < v[0].nctx && i < TOP_CTX; i++)
		EXPECT_EQ(v[0].ctx[i].tid, want[i]);
	EXPECT_EQ(v[0].ctx[0].ns, 1000500);
	EXPECT_EQ(v[0].ctx[0].slices, 3);
	EXPECT_EQ(v[0].ctx[7].ns, 1000);
	EXPECT_EQ(v[0].other_ns, 3000);		/* 302, 301, 202 */
	EXPECT_EQ(v[0].other_slices, 4);
	EXPECT(!v[0].truncated);
	txt = render(&an, 1, OUT_TEXT, GROUP_NONE);
	js = render(&an, 1, OUT_JSON, GROUP_NONE);
	ASSERT(txt && js);
	EXPECT_CONTAINS(txt, "#1 wakeup latency 1.01ms: tid 100 victim");
	EXPECT_CONTAINS(txt, " until 1.01ms later;");
	EXPECT_CONTAINS(txt, "ran on cpu 0 meanwhile: tid 201 hog 1.00ms (3), tid 309 s309 1.00us (1), ");
	EXPECT_CONTAINS(txt, "tid 303 s303 1.00us (1), 4 more slices 3.00us\n");
	free(txt);
	/* --ns: the same, exact */
	an.text_ns = true;
	txt = render(&an, 1, OUT_TEXT, GROUP_NONE);
	ASSERT(txt);
	EXPECT_CONTAINS(txt, "#1 wakeup latency 1010500ns: tid 100 victim");
	EXPECT_CONTAINS(txt, "   runnable from 500ns until 1010500ns later;");
	EXPECT_CONTAINS(txt, "ran on cpu 0 meanwhile: tid 201 hog 1000500ns (3), tid 309 s309 1000ns (1), ");
	EXPECT_CONTAINS(txt, "tid 303 s303 1000ns (1), 4 more slices 3000ns\n");
	EXPECT_CONTAINS(js, "\"ran_meanwhile\": [{\"tid\": 201, \"idle\": false, \"name\": \"hog\", \"ns\": 1000500, \"slices\": 3}");
	EXPECT_CONTAINS(js, "\"other_ns\": 3000,");
	free(txt);
	free(js);
	free(v);
	analysis_free(&an);
}

/*
 * summary: cpu0 1000 idle->A, 3000 A->idle, 4000 idle->A, 5000 A->idle
 * busy 3000, idle 1000 -> 75%; A runtime 3000, 2 voluntary switches.
 * Drops: two provider events; counters cpu0=5, then cpu0=9 and cpu1=7.
 */
TEST(summary_busy_idle_and_drops)
{
	struct analysis an;
	struct tb t;
	char *txt, *js, *csv;
	struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
		fxt_str_c("fxtrace"), fxt_str_c("records_dropped"), 6000, 0 };
	struct fxt_arg a1[1] = { fxt_arg_int64(fxt_str_c("cpu0"), 5) };
	struct fxt_arg a2[2] = { fxt_arg_int64(fxt_str_c("cpu0"), 9),
				 fxt_arg_int64(fxt_str_c("cpu1"), 7) };

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 3000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	fxt_write_provider_event(&t.w, 1, 0);
	fxt_write_event(&t.w, &ev, a1, 1);
	tb_switch(&t, 0, 4000, IDLE, 101, 0);
	tb_switch(&t, 0, 5000, 101, IDLE, FXT_THREAD_STATE_SUSPENDED);
	fxt_write_provider_event(&t.w, 1, 0);
	fxt_write_event(&t.w, &ev, a2, 2);
	tb_thread(&t, 101, 100, "alpha");
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	csv = render(&an, 2, OUT_CSV, GROUP_NONE);
	ASSERT(txt && js && csv);
	EXPECT_EQ(an.drop_events, 2);
	EXPECT_CONTAINS(txt, "records dropped: 16 cpu0=9 cpu1=7 (2 buffer-full provider events)");
	/* the times relative to the trace's start (1000), which is given once */
	EXPECT_CONTAINS(txt, "trace start: 0.000001000s on the trace's clock (fxt-collect's: CLOCK_BOOTTIME); times below count from it, as --from and --to do\n"
			"time span: 0.000000000s .. 0.000004000s (4.00us)\n");
	EXPECT_CONTAINS(txt, "\n  CPU             busy             idle   busy%   switches\n"
			"    0           3.00us           1.00us  75.00%          4\n");
	/* no holes: no unknown column, nor its note */
	EXPECT(!strstr(txt, "switches          unknown"));
	EXPECT(!strstr(txt, "\nunknown: "));
	EXPECT_CONTAINS(txt, " runtime   switches");
	EXPECT_CONTAINS(txt, " alpha                      3.00us          2 ");
	EXPECT_CONTAINS(js, "{\"cpu\": 0, \"busy_ns\": 3000, \"idle_ns\": 1000, \"busy_share\": 0.750000, \"switches\": 4, \"running_at_end\": false, \"unknown_ns\": 0}");
	EXPECT_CONTAINS(js, "{\"tid\": 101, \"pid\": 100, \"name\": \"alpha\", \"runtime_ns\": 3000, \"switches\": 2, \"voluntary\": 2, \"involuntary\": 0, \"migrations\": 0, \"wakeups\": 0, \"running_at_end\": 0}");
	EXPECT_CONTAINS(csv, "thread,101,100,alpha,3000,,2,2,0,0,0,0,\n");
	EXPECT_CONTAINS(csv, "cpu,0,,,3000,1000,4,,,,,0,0\n");
	free(txt);
	free(js);
	free(csv);
	analysis_free(&an);
}

/*
 * Drop counters no writer gives: a negative int64 is not a count (it read
 * as 2^64 - 1 before), and two of 2^63 (uint64) sum to more than 64 bits:
 * the total saturates (it wrapped to 0 before, "records dropped: 0" next
 * to two CPUs that dropped).
 */
TEST(summary_drop_counters_out_of_range)
{
	struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
		fxt_str_c("fxtrace"), fxt_str_c("records_dropped"), 2000, 0 };
	struct fxt_arg a[3] = { fxt_arg_int64(fxt_str_c("cpu0"), -1),
				fxt_arg_uint64(fxt_str_c("cpu1"), 1ULL << 63),
				fxt_arg_uint64(fxt_str_c("cpu2"), 1ULL << 63) };
	struct analysis an;
	char *txt, *js;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	fxt_write_event(&t.w, &ev, a, 3);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	ASSERT(txt && js);
	EXPECT_CONTAINS(txt, "records dropped: 18446744073709551615 cpu1=9223372036854775808 cpu2=9223372036854775808 (");
	EXPECT_CONTAINS(js, "\"records_dropped\": 18446744073709551615, \"per_cpu\": {\"cpu1\": 9223372036854775808, \"cpu2\": 9223372036854775808}");
	free(txt);
	free(js);
	analysis_free(&an);
}

/*
 * A count of one takes the singular in the text (it said "1 intervals",
 * "1 holes"): cpu0 1000 idle -> 101, never switched out; 1500 wakeup 102
 * (the only one), switched in at 2000 on cpu1 (1 interval), never
 * switched out either (2 slices still running at the end); one
 * buffer-full provider event; on cpu2 1 record lost in 1 hole, then 1
 * byte skipped in another.
 */
TEST(text_counts_of_one_are_singular)
{
	struct analysis an;
	struct tb t;
	char *sum, *lat;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_wake(&t, 0, 1500, 102, 101);
	tb_switch(&t, 1, 1600, IDLE, 104, 0);
	tb_switch(&t, 1, 2000, 104, 102, FXT_THREAD_STATE_BLOCKED);
	fxt_write_provider_event(&t.w, 1, 0);
	tb_lost(&t, 2, 2100, 2150, 1);
	tb_skipped(&t, 2, 2160, 2170, 1);
	tb_switch(&t, 2, 2170, IDLE, 105, 0);
	tb_switch(&t, 2, 2300, 105, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	sum = render(&an, 2, OUT_TEXT, GROUP_NONE);
	lat = render(&an, 0, OUT_TEXT, GROUP_NONE);
	ASSERT(sum && lat);
	EXPECT_CONTAINS(lat, "wakeup-to-run latency: 1 interval\n");
	EXPECT_CONTAINS(lat, "preemption-to-run latency: 0 intervals\n");
	EXPECT_CONTAINS(sum, " (1 buffer-full provider event)\n");
	EXPECT_CONTAINS(sum, "(5 context switches, 1 wakeup, 0 of unknown types skipped)\n");
	EXPECT_CONTAINS(sum, "records lost (records_lost markers): 1 in 1 hole cpu2=1\n");
	EXPECT_CONTAINS(sum, "(fxt-collect's bytes_skipped markers): 1 byte in 1 hole cpu2=1\n");
	EXPECT_CONTAINS(sum, "still running at the trace's end: 2 slices, counted up to it\n");
	free(sum);
	free(lat);
	analysis_free(&an);
}

TEST(latency_json_and_filters)
{
	struct analysis an;
	struct tb t;
	char *js, *txt;
	uint64_t pid = 100, tid = 201;

	build_filtered(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	js = render(&an, 0, OUT_JSON, GROUP_PROCESS);
	ASSERT(js);
	/* all: 100, 400, 50 -> p50 = 100 (rank 2), p90/p99/max = 400 */
	EXPECT_CONTAINS(js, "\"wakeup_latency_ns\": {\"count\": 3, \"p50\": 100, \"p90\": 400, \"p99\": 400, \"p999\": 400, \"max\": 400, \"exact\": true, \"hist\": [{\"low\": 32, \"high\": 63, \"count\": 1}, {\"low\": 64, \"high\": 127, \"count\": 1}, {\"low\": 128, \"high\": 255, \"count\": 0}, {\"low\": 256, \"high\": 511, \"count\": 1}]}");
	EXPECT_CONTAINS(js, "\"preempt_latency_ns\": {\"count\": 0, \"p50\": 0, \"p90\": 0, \"p99\": 0, \"p999\": 0, \"max\": 0, \"exact\": true, \"hist\": []}");
	EXPECT_CONTAINS(js, "{\"tid\": 101, \"pid\": 100, \"name\": \"app-main\", \"wakeup_latency_ns\": {\"count\": 2, \"p50\": 100, \"p90\": 400");
	EXPECT_CONTAINS(js, "{\"pid\": 200, \"name\": \"other\", \"wakeup_latency_ns\": {\"count\": 1, \"p50\": 50,");
	free(js);

	/* --pid 100 (names known only at the end of the file) */
	an.f.pids = &pid;
	an.f.npids = 1;
	js = render(&an, 0, OUT_JSON, GROUP_NONE);
	EXPECT_CONTAINS(js, "\"wakeup_latency_ns\": {\"count\": 2, \"p50\": 100, \"p90\": 400");
	EXPECT(!strstr(js, "\"tid\": 201"));
	free(js);
	an.f.npids = 0;
	an.f.pids = NULL;

	/* --comm 'other*' */
	an.f.comm = "other*";
	txt = render(&an, 0, OUT_TEXT, GROUP_THREAD);
	EXPECT_CONTAINS(txt, "wakeup-to-run latency: 1 interval\n");
	EXPECT_CONTAINS(txt, "tid = 201 other-1 (pid 200 other)");
	EXPECT_CONTAINS(txt, "  p50 50ns  p90 50ns  p99 50ns  p99.9 50ns  max 50ns\n");
	EXPECT_CONTAINS(txt, "                 latency : count    distribution");
	EXPECT_CONTAINS(txt, "      32ns -> 63ns       : 1        |****************************************|");
	free(txt);
	an.f.comm = NULL;

	/* --tid 201 */
	an.f.tids = &tid;
	an.f.ntids = 1;
	js = render(&an, 0, OUT_CSV, GROUP_NONE);
	EXPECT_CONTAINS(js, "all,0,0,,wakeup,1,50,50,50,50,50\n");
	EXPECT_CONTAINS(js, "thread,201,200,other-1,wakeup,1,50,50,50,50,50\n");
	free(js);
	an.f.tids = NULL;
	an.f.ntids = 0;
	analysis_free(&an);

	/* a time window: --from 500 --to 1500, relative to the first record
	 * at 1000, is [1500, 2500): only C's interval (ends at 2050) */
	build_filtered(&t);
	analysis_init(&an);
	an.f.has_from = an.f.has_to = true;
	an.f.from = 500;
	an.f.to = 1500;
	ASSERT(run(&an, &t, 0) == 0);
	js = render(&an, 0, OUT_JSON, GROUP_NONE);
	EXPECT_CONTAINS(js, "\"wakeup_latency_ns\": {\"count\": 1, \"p50\": 50,");
	/* inside [1500, 2500): C ran 2050..2100 = 50 ns; idle
	 * 1500..2050 + 2100..2500 = 950 ns */
	EXPECT_EQ(an.cpus[0].busy, 50);
	EXPECT_EQ(an.cpus[0].idle, 950);
	free(js);
	analysis_free(&an);
}

/* A provider with microsecond ticks and its own string table (index 1
 * means "outgoing_weight" there), after the fxtrace provider. */
TEST(per_provider_tables_and_tick_rate)
{
	struct analysis an;
	struct tb t;
	struct thread *a;
	struct fxt_context_switch cs1 = { 0, 0, 10, 0, 101 };
	struct fxt_context_switch cs2 = { 0, 3, 12, 101, 0 };
	struct fxt_wakeup wk = { 0, 20, 101 };
	struct fxt_context_switch cs3 = { 0, 0, 25, 0, 101 };
	struct fxt_arg in_idle[2], out_idle[2];

	tb_begin(&t, 1000000000);
	tb_switch(&t, 3, 5, IDLE, 999, 0);	/* provider 1: one switch */
	fxt_write_provider_info(&t.w, 2, "other", 5);
	fxt_write_provider_section(&t.w, 2);
	fxt_write_initialization(&t.w, 1000000);	/* 1 tick = 1 us */
	fxt_write_string(&t.w, 1, "outgoing_weight", 15);
	fxt_write_string(&t.w, 2, "incoming_weight", 15);
	in_idle[0] = fxt_arg_int32(fxt_str_index(1), INT32_MIN);	/* out */
	in_idle[1] = fxt_arg_int32(fxt_str_index(2), 120);		/* in */
	out_idle[0] = fxt_arg_int32(fxt_str_index(1), 120);
	out_idle[1] = fxt_arg_int32(fxt_str_index(2), INT32_MIN);
	fxt_write_context_switch(&t.w, &cs1, in_idle, 2);
	fxt_write_context_switch(&t.w, &cs2, out_idle, 2);
	fxt_write_wakeup(&t.w, &wk, NULL, 0);
	fxt_write_context_switch(&t.w, &cs3, in_idle, 2);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->runtime, 2000);			/* 10..12 us */
	EXPECT_EQ(a->lat[LAT_WAKEUP].max, 5000);	/* 20..25 us */
	EXPECT_EQ(an.cpus[0].idle, 13000);		/* 12..25 us */
	EXPECT(!analysis_find(&an, 0));			/* idle is not a thread */
	analysis_free(&an);
}


/*
 * Times past 2^64 ns saturate instead of wrapping: at 1 tick a second,
 * tick 18446744074 is 18446744074e9 ns, above UINT64_MAX (about
 * 18446744073.7e9), and must stay after tick 18000000000 (1.8e19 ns).
 */
TEST(times_past_the_clock_end_saturate)
{
	struct analysis an;
	struct tb t;
	struct thread *a;

	EXPECT_EQ(sc_ticks_to_ns(18446744074ULL, 1), UINT64_MAX);
	EXPECT_EQ(sc_ticks_to_ns(18000000000ULL, 1), 18000000000000000000ULL);
	tb_begin(&t, 1);
	tb_switch(&t, 0, 18000000000ULL, IDLE, 101, 0);
	tb_switch(&t, 0, 18446744074ULL, 101, IDLE, 1);
	analysis_init(&an);
	an.f.has_from = true;		/* --from far past the end: no overflow */
	an.f.from = UINT64_MAX - 5;
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.win_from, UINT64_MAX);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->runtime, 0);	/* nothing at or after --from */
	analysis_free(&an);
	analysis_init(&an);
	tb_begin(&t, 1);
	tb_switch(&t, 0, 18000000000ULL, IDLE, 101, 0);
	tb_switch(&t, 0, 18446744074ULL, 101, IDLE, 1);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->runtime, UINT64_MAX - 18000000000000000000ULL);
	analysis_free(&an);
}

/* ---- incomplete traces, names in trace order, loss markers ---- */

/*
 * A wakeup with the first switch's timestamp, before it in the file: its
 * wait began before the trace's first switch, and is not counted as such,
 * not as one across a hole (the trace has none). With coarse ticks such
 * ties are common; the reason was once read from the timestamps.
 */
TEST(wakeup_tied_with_the_first_switch_is_before_it)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_wake(&t, 0, 1000, 101, 0);
	tb_switch(&t, 1, 1000, IDLE, 102, 0);
	tb_switch(&t, 0, 1500, IDLE, 101, 0);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.first_switch, 1000);
	EXPECT_EQ(an.skipped_start, 1);
	EXPECT_EQ(an.skipped_hole, 0);
	analysis_free(&an);
}

/* build_start() in fixtures.h: the 2.79 s rcu_preempt case, in small. */
TEST(start_of_trace_wakeups_not_counted)
{
	struct analysis an;
	struct tb t;
	struct thread *p;
	char *txt, *js, *iv;

	build_start(&t);
	analysis_init(&an);
	an.top_n = 5;
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.first_switch, 4000);
	EXPECT_EQ(an.skipped_start, 1);
	EXPECT_EQ(an.skipped_hole, 0);
	p = analysis_find(&an, 15);
	ASSERT(p);
	EXPECT_EQ(p->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(p->lat[LAT_WAKEUP].max, 200);		/* not 9000 - 1300 */
	EXPECT_EQ(p->wakeups, 2);
	p = analysis_find(&an, 126);
	ASSERT(p);
	EXPECT_EQ(p->lat[LAT_WAKEUP].count, 0);		/* not 4300 - 1000 */
	p = analysis_find(&an, 20);
	ASSERT(p);
	EXPECT_EQ(p->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(p->lat[LAT_WAKEUP].max, 500);
	EXPECT_EQ(p->wakeups, 2);
	p = analysis_find(&an, 125);
	ASSERT(p);
	EXPECT_EQ(p->lat[LAT_PREEMPT].count, 1);
	EXPECT_EQ(p->lat[LAT_PREEMPT].max, 4800);
	EXPECT_EQ(p->lat[LAT_WAKEUP].count, 0);
	/* and 15 from 9000 to the trace's end (9100) */
	EXPECT_EQ(an.cpus[0].busy, 3600);
	EXPECT_EQ(an.cpus[0].idle, 1500);
	EXPECT_EQ(an.cpus[1].busy, 4800);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	js = render(&an, 0, OUT_JSON, GROUP_NONE);
	iv = render(&an, 3, OUT_CSV, GROUP_NONE);
	ASSERT(txt && js && iv);
	EXPECT_CONTAINS(txt, "not counted (all threads): 1 interval begun before the trace's first context switch, 0 across holes in the trace (records lost by the kernel, or ring data the collector skipped); see fxt-sched(1)\n");
	EXPECT_CONTAINS(js, "\"not_counted\": {\"before_first_switch\": 1, \"across_lost_records\": 0}");
	EXPECT_CONTAINS(js, "\"wakeup_latency_ns\": {\"count\": 2, \"p50\": 200, \"p90\": 500,");
	EXPECT_CONTAINS(js, "\"preempt_latency_ns\": {\"count\": 1, \"p50\": 4800,");
	EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n"
		     "wakeup,20,0,0,6000,6500,500,20,kworker\n"
		     "wakeup,15,0,0,8800,9000,200,15,rcu_preempt\n"
		     "preempt,125,1,1,4300,9100,4800,123,fxt-collect\n");
	free(txt);
	free(js);
	free(iv);
	free(js = render(&an, 1, OUT_TEXT, GROUP_NONE));
	analysis_free(&an);
}

/* --intervals with each filter: names only at the end of the file. */
TEST(intervals_honour_every_filter)
{
	static const char head[] = "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n";
	static const char a1[] = "wakeup,101,0,0,1000,1100,100,100,app-main\n";
	static const char a2[] = "wakeup,101,0,0,3000,3400,400,100,app-main\n";
	static const char c1[] = "wakeup,201,0,0,2000,2050,50,200,other-1\n";
	struct analysis an;
	struct tb t;
	uint64_t pid = 100, tid = 201;
	char *v, want[512];

	build_filtered(&t);
	analysis_init(&an);
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	/* the spool is in time order: 101's first, 201's, 101's second */
	v = render(&an, 3, OUT_CSV, GROUP_NONE);
	snprintf(want, sizeof(want), "%s%s%s%s", head, a1, c1, a2);
	EXPECT_STREQ(v, want);
	free(v);
	an.f.pids = &pid;
	an.f.npids = 1;
	v = render(&an, 3, OUT_CSV, GROUP_NONE);
	snprintf(want, sizeof(want), "%s%s%s", head, a1, a2);
	EXPECT_STREQ(v, want);
	free(v);
	an.f.npids = 0;
	an.f.comm = "other*";
	v = render(&an, 3, OUT_TEXT, GROUP_NONE);
	snprintf(want, sizeof(want), "%s%s", head, c1);
	EXPECT_STREQ(v, want);
	free(v);
	an.f.comm = "*main";
	an.f.tids = &tid;		/* and a tid of the other thread: none */
	an.f.ntids = 1;
	v = render(&an, 3, OUT_JSON, GROUP_NONE);
	EXPECT_STREQ(v, "{\"intervals\": []}\n");
	free(v);
	an.f.comm = NULL;
	v = render(&an, 3, OUT_JSON, GROUP_NONE);
	EXPECT_STREQ(v, "{\"intervals\": [\n  {\"kind\": \"wakeup\", \"tid\": 201, \"pid\": 200, \"name\": \"other-1\", \"cpu\": 0, \"wait_cpu\": 0, \"start_ns\": 2000, \"end_ns\": 2050, \"latency_ns\": 50}]}\n");
	free(v);
	an.f.tids = NULL;
	an.f.ntids = 0;
	an.f.pids = NULL;
	analysis_free(&an);

	/* the time window [1500, 2500) after the first record (1000):
	 * intervals that end in it, i.e. only 201's */
	build_filtered(&t);
	analysis_init(&an);
	an.f.has_from = an.f.has_to = true;
	an.f.from = 500;
	an.f.to = 1500;
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	v = render(&an, 3, OUT_CSV, GROUP_NONE);
	snprintf(want, sizeof(want), "%s%s", head, c1);
	EXPECT_STREQ(v, want);
	free(v);
	analysis_free(&an);
}

/*
 * --pid 0: the threads every output lists with pid 0, those whose process
 * is unknown. Tid 7 has no kernel object record: 300 ns from its wakeup
 * at 2000 to its switch-in at 2300. Tid 8, of process 100, waits 100 ns
 * (3000..3100) and is not one of them.
 */
TEST(pid_0_selects_the_threads_of_unknown_process)
{
	static const char head[] = "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n";
	static const char r7[] = "wakeup,7,0,0,2000,2300,300,0,\n";
	static const char r8[] = "wakeup,8,0,0,3000,3100,100,100,eight\n";
	struct analysis an;
	struct tb t;
	uint64_t pid = 0;
	char *v, want[256];

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 7, 0);
	tb_switch(&t, 0, 1500, 7, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 0, 2000, 7, 0);
	tb_switch(&t, 0, 2300, IDLE, 7, 0);
	tb_switch(&t, 0, 2500, 7, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 0, 3000, 8, 0);
	tb_switch(&t, 0, 3100, IDLE, 8, 0);
	tb_switch(&t, 0, 3200, 8, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_thread(&t, 8, 100, "eight");
	analysis_init(&an);
	an.f.pids = &pid;
	an.f.npids = 1;
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	v = render(&an, 3, OUT_CSV, GROUP_NONE);
	snprintf(want, sizeof(want), "%s%s", head, r7);
	EXPECT_STREQ(v, want);
	free(v);
	pid = 100;
	v = render(&an, 3, OUT_CSV, GROUP_NONE);
	snprintf(want, sizeof(want), "%s%s", head, r8);
	EXPECT_STREQ(v, want);
	free(v);
	an.f.pids = NULL;
	an.f.npids = 0;
	analysis_free(&an);
}

struct seen {
	char log[1024];
	size_t len;
};

static void log_sched(void *ctx, const struct sc_event *ev)
{
	struct seen *s = ctx;
	int n = 0;

	if (s->len >= sizeof(s->log) - 64)
		return;
	if (ev->kind == SC_NAME)
		n = snprintf(s->log + s->len, sizeof(s->log) - s->len,
			     "%" PRIu64 ":name %" PRIu64 " %.*s\n", ev->ts, ev->a,
			     (int)ev->name_len, ev->name ? ev->name : "");
	else if (ev->kind == SC_LOST)
		n = snprintf(s->log + s->len, sizeof(s->log) - s->len,
			     "%" PRIu64 ":lost cpu%u %" PRIu64 "\n", ev->ts,
			     ev->cpu, ev->a);
	else
		n = snprintf(s->log + s->len, sizeof(s->log) - s->len,
			     "%" PRIu64 ":%s\n", ev->ts,
			     ev->kind == SC_SWITCH ? "switch" : "wakeup");
	s->len += (size_t)n;
}

/* Kernel objects take the timestamp of the next timestamped record and
 * sort before it; at the end of the file, the newest timestamp. Loss
 * markers are put in time order too. */
TEST(names_and_markers_in_trace_order)
{
	struct sc_handler h = { NULL, log_sched, NULL, NULL };
	struct sc_opts o = { 0 };
	struct sc_stats st;
	struct seen s = { "", 0 };
	struct tb t;

	h.ctx = &s;
	build_reuse(&t);
	EXPECT(sc_run(tb_file(&t), &o, &h, &st) == 0);
	fxt_writer_free(&t.w);
	EXPECT_STREQ(s.log,
		     "0:name 100 oldproc\n"	/* before any timestamp: 0 */
		     "0:name 101 old-name\n"
		     "0:name 102 forker\n"
		     "1000:switch\n"
		     "1100:switch\n"
		     "2000:switch\n"
		     "3000:name 200 newproc\n"	/* the wakeup after them */
		     "3000:name 101 new-name\n"
		     "3000:wakeup\n"
		     "3400:switch\n"
		     "4000:switch\n"
		     "4000:name 101 new-name\n");	/* the end: newest ts */
	EXPECT_EQ(st.names, 6);

	s.len = 0;
	s.log[0] = '\0';
	build_holes(&t);
	EXPECT(sc_run(tb_file(&t), &o, &h, &st) == 0);
	fxt_writer_free(&t.w);
	EXPECT_CONTAINS(s.log, "1200:wakeup\n2000:lost cpu1 4\n2500:wakeup\n3000:lost cpu1 0\n3000:switch\n3500:wakeup\n4000:wakeup\n");
	EXPECT_EQ(st.lost_markers, 2);
}

/* build_reuse() in fixtures.h */
TEST(reused_tid_takes_its_new_name_from_then_on)
{
	struct analysis an;
	struct tb t;
	struct thread *old, *cur;
	char *js, *top, *iv;

	build_reuse(&t);
	analysis_init(&an);
	an.top_n = 3;
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	cur = analysis_find(&an, 101);
	old = analysis_row(&an, 0);
	ASSERT(cur && old && cur != old);
	EXPECT_EQ(old->tid, 101);
	EXPECT_STREQ(old->name, "old-name");
	EXPECT_EQ(old->pid, 100);
	EXPECT_EQ(old->runtime, 1000);
	EXPECT_EQ(old->voluntary, 1);
	EXPECT_EQ(old->lat[LAT_WAKEUP].count, 0);
	EXPECT_STREQ(cur->name, "new-name");
	EXPECT_EQ(cur->pid, 200);
	EXPECT_EQ(cur->runtime, 600);
	EXPECT_EQ(cur->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(cur->lat[LAT_WAKEUP].max, 400);
	EXPECT_EQ(analysis_find(&an, 102)->runtime, 2300);
	EXPECT_EQ(an.nthreads, 3);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	top = render(&an, 1, OUT_TEXT, GROUP_NONE);
	iv = render(&an, 3, OUT_CSV, GROUP_NONE);
	ASSERT(js && top && iv);
	EXPECT_CONTAINS(js, "{\"tid\": 101, \"pid\": 100, \"name\": \"old-name\", \"runtime_ns\": 1000, \"switches\": 1, \"voluntary\": 1,");
	EXPECT_CONTAINS(js, "{\"tid\": 101, \"pid\": 200, \"name\": \"new-name\", \"runtime_ns\": 600, \"switches\": 1,");
	EXPECT_CONTAINS(top, "#1 wakeup latency 400ns: tid 101 new-name (pid 200 newproc) on cpu 1");
	EXPECT_CONTAINS(top, "by tid 102 forker");
	EXPECT_CONTAINS(top, "ran on cpu 1 meanwhile: tid 102 forker 400ns (1)");
	EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n"
		     "wakeup,101,1,1,3000,3400,400,200,new-name\n");
	free(js);
	free(top);
	free(iv);
	/* the filters see each incarnation with its own name and pid */
	an.f.comm = "old*";
	js = render(&an, 2, OUT_CSV, GROUP_NONE);
	EXPECT_CONTAINS(js, "thread,101,100,old-name,1000,,1,1,0,0,0,0,\n");
	EXPECT(!strstr(js, "new-name"));
	free(js);
	an.f.comm = "new*";
	js = render(&an, 0, OUT_JSON, GROUP_NONE);
	EXPECT_CONTAINS(js, "\"wakeup_latency_ns\": {\"count\": 1, \"p50\": 400,");
	EXPECT(!strstr(js, "old-name"));
	free(js);
	an.f.comm = NULL;
	analysis_free(&an);
}

/* A rename of a live thread (exec, prctl) keeps one row: last name wins. */
TEST(rename_keeps_one_row)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_thread(&t, 101, 100, "before");
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_thread(&t, 101, 100, "after");		/* at 2000 */
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 0, 2500, 101, 0);
	tb_switch(&t, 0, 2600, IDLE, 101, 0);
	tb_switch(&t, 0, 3000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_thread(&t, 101, 100, "after");		/* same name: no new row */
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.nthreads, 1);
	EXPECT_STREQ(analysis_find(&an, 101)->name, "after");
	EXPECT_EQ(analysis_find(&an, 101)->runtime, 1400);
	EXPECT_EQ(analysis_find(&an, 101)->lat[LAT_WAKEUP].max, 100);
	analysis_free(&an);
}

/*
 * What build_holes_as() (fixtures.h) gives whichever marker makes its hole:
 * the intervals counted and left out, and the CPU time, are the same.
 */
static void expect_hole_fixture(struct analysis *an)
{
	EXPECT_EQ(an->io.late, 0);
	EXPECT_EQ(an->skipped_hole, 3);
	EXPECT_EQ(an->skipped_start, 0);
	EXPECT_EQ(analysis_find(an, 103)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(an, 104)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(an, 105)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(an, 105)->wakeups, 1);
	EXPECT_EQ(analysis_find(an, 101)->lat[LAT_PREEMPT].max, 1200);
	EXPECT_EQ(an->cpus[1].busy, 1000);
	EXPECT_EQ(an->cpus[1].idle, 3200);	/* 3000 to the trace's end */
	EXPECT_EQ(analysis_find(an, 102)->runtime, 1000);
	EXPECT_EQ(an->cpus[0].busy, 5200);
	EXPECT_EQ(an->cpus[0].idle, 0);
}

/* build_holes() in fixtures.h */
TEST(records_lost_holes)
{
	struct analysis an;
	struct tb t;
	char *txt, *js;

	build_holes(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	expect_hole_fixture(&an);
	EXPECT_EQ(an.lost, 4);
	EXPECT_EQ(an.holes, 1);
	EXPECT_EQ(an.cpus[1].lost, 4);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	ASSERT(txt && js);
	EXPECT_CONTAINS(txt, "records lost (records_lost markers): 4 in 1 hole cpu1=4\n");
	EXPECT_CONTAINS(txt, "0 intervals begun before the trace's first context switch, 3 across holes in the trace (records lost by the kernel, or ring data the collector skipped); see fxt-sched(1)\n");
	EXPECT_CONTAINS(js, "\"records_lost\": 4, \"lost_holes\": 1, \"lost_per_cpu\": {\"cpu1\": 4}, \"bytes_skipped\": 0, \"skip_holes\": 0, \"skipped_per_cpu\": {}}");
	EXPECT(!strstr(txt, "invalid ring data skipped"));
	EXPECT_CONTAINS(js, "\"not_counted\": {\"before_first_switch\": 0, \"across_lost_records\": 3}");
	free(txt);
	free(js);
	analysis_free(&an);
}

/*
 * build_holes() with fxt-collect's bytes_skipped pair where the kernel's
 * records_lost pair was: the same hole for every interval and CPU time
 * (decision 7), but bytes are not counted as records lost.
 */
TEST(bytes_skipped_holes_are_holes_too)
{
	struct analysis an;
	struct tb t;
	char *txt, *js;

	build_skip_holes(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	expect_hole_fixture(&an);
	EXPECT_EQ(an.lost, 0);
	EXPECT_EQ(an.holes, 0);
	EXPECT_EQ(an.skipped, 6544);
	EXPECT_EQ(an.skip_holes, 1);
	EXPECT_EQ(an.cpus[1].skipped, 6544);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	ASSERT(txt && js);
	EXPECT_CONTAINS(txt, "invalid ring data skipped (fxt-collect's bytes_skipped markers): 6544 bytes in 1 hole cpu1=6544\n");
	EXPECT(!strstr(txt, "records lost (records_lost markers)"));
	EXPECT_CONTAINS(txt, "not counted (all threads): 0 intervals begun before the trace's first context switch, 3 across holes in the trace (records lost by the kernel, or ring data the collector skipped); see fxt-sched(1)\n");
	EXPECT_CONTAINS(js, "\"records_lost\": 0, \"lost_holes\": 0, \"lost_per_cpu\": {}, \"bytes_skipped\": 6544, \"skip_holes\": 1, \"skipped_per_cpu\": {\"cpu1\": 6544}}");
	EXPECT_CONTAINS(js, "\"not_counted\": {\"before_first_switch\": 0, \"across_lost_records\": 3}");
	/* the CPU table's unknown column, for these holes alone too */
	EXPECT_CONTAINS(txt, "\n  CPU             busy             idle   busy%   switches          unknown\n");
	EXPECT_CONTAINS(txt, "\n    1           1.00us           3.20us  23.81%          2           1.00us\n");
	EXPECT_CONTAINS(txt, "\nunknown: what ran from a hole's start to the CPU's next context switch\n");
	free(txt);
	free(js);
	analysis_free(&an);
}

/*
 * The thread running on a CPU when a hole begins may block in it, unseen:
 *   cpu1: 1000 idle -> 101; [hole 2000..3000: 101 blocks, 102 runs];
 *         3000 102 -> idle (blocked)
 *   cpu0: 4000 wakeup 101 (by 103); 4500 idle -> 101
 * After the hole 101 runs nowhere (every other CPU is complete), so the
 * wakeup at 4000 is not one of a running thread: it starts a clock. (Taking
 * 101 as still running ignored it, and the interval was lost silently.)
 * But 101 may also have been preempted in the hole, or blocked and been
 * woken there: the wakeup at 4000 may not start its wait, so the interval
 * (500) is not counted, and is counted as such.
 */
TEST(thread_running_when_a_hole_begins_is_unknown_after_it)
{
	struct analysis an;
	struct thread *t;
	struct tb tr;

	tb_begin(&tr, 1000000000);
	tb_switch(&tr, 1, 1000, IDLE, 101, 0);
	tb_lost(&tr, 1, 2000, 3000, 5);
	tb_switch(&tr, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&tr, 0, 4000, 101, 103);
	tb_switch(&tr, 0, 4500, IDLE, 101, 0);
	analysis_init(&an);
	ASSERT(run(&an, &tr, 0) == 0);
	t = analysis_find(&an, 101);
	ASSERT(t);
	EXPECT_EQ(t->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(t->wakeups, 1);
	EXPECT_EQ(t->runtime, 1000);	/* 1000..2000: the hole is not known */
	EXPECT_EQ(an.skipped_hole, 1);
	analysis_free(&an);
}

/* fixtures.h build_hole_sleepers: a wait whose start may have been in a
 * hole is not counted, but counted as such. */
TEST(threads_asleep_in_a_hole_may_be_woken_unseen)
{
	struct analysis an;
	struct tb t;
	char *iv, *txt;

	build_hole_sleepers(&t);
	analysis_init(&an);
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.skipped_hole, 4);
	EXPECT_EQ(an.skipped_start, 0);
	EXPECT_EQ(analysis_find(&an, 100)->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(analysis_find(&an, 100)->lat[LAT_WAKEUP].max, 300);
	EXPECT_EQ(analysis_find(&an, 500)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(&an, 400)->lat[LAT_PREEMPT].count, 1);
	EXPECT_EQ(analysis_find(&an, 200)->lat[LAT_PREEMPT].count, 2);
	iv = render(&an, 3, OUT_CSV, GROUP_NONE);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	ASSERT(iv && txt);
	EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n"
		     "preempt,400,2,2,4800,5200,400,400,W\n"
		     "preempt,200,0,0,5000,6000,1000,200,X\n"
		     "wakeup,100,0,2,7000,7300,300,100,V\n"
		     "preempt,200,0,0,7300,8000,700,200,X\n");
	EXPECT_CONTAINS(txt, "not counted (all threads): 0 intervals begun before the trace's first context switch, 4 across holes in the trace");
	free(iv);
	free(txt);
	analysis_free(&an);
}

/*
 * A hole is applied to each thread as it was when the hole began, also
 * when the thread is next looked at only after it (analysis.c applies it
 * then, not at the hole):
 *   cpu0: 1000 idle -> 101; 1500 101 -> idle (dead); 4000 wakeup 101;
 *         4300 idle -> 101
 *   cpu1: 1000 idle -> 102; [hole 2000..3000]; 3000 102 -> idle (blocked)
 *   cpu2: 1000 idle -> 104; 1200 104 -> idle (blocked); 1300 wakeup 105;
 *         4000 wakeup 104; 4500 idle -> 104
 *   cpu3: 1000 idle -> 106; 1100 106 -> idle (blocked); 5000 idle -> 105
 * 105, waiting when the hole began and seen next at 5000: not counted
 * (its clock may have ended in the hole). 104, asleep then: the wakeup at
 * 4000 may not start its wait, not counted. 101, dead then: its tid woken
 * at 4000 is a new thread's, which may have begun in the hole and been
 * preempted there, not counted either (applied after the wakeup, to a
 * thread then waiting, the hole would taint the clock: the same). 106,
 * asleep then and never seen again: unseen when the run ends, as a walk
 * over the threads at the hole left it.
 */
TEST(a_hole_applies_to_each_thread_as_it_was_then)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 1500, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_wake(&t, 0, 4000, 101, 0);
	tb_switch(&t, 0, 4300, IDLE, 101, 0);
	tb_switch(&t, 1, 1000, IDLE, 102, 0);
	tb_lost(&t, 1, 2000, 3000, 4);
	tb_switch(&t, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 2, 1000, IDLE, 104, 0);
	tb_switch(&t, 2, 1200, 104, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 2, 1300, 105, 0);
	tb_wake(&t, 2, 4000, 104, 0);
	tb_switch(&t, 2, 4500, IDLE, 104, 0);
	tb_switch(&t, 3, 1000, IDLE, 106, 0);
	tb_switch(&t, 3, 1100, 106, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 3, 5000, IDLE, 105, 0);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.holes, 1);
	EXPECT_EQ(analysis_find(&an, 105)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(&an, 104)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(&an, 101)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(analysis_find(&an, 101)->wakeups, 1);
	EXPECT_EQ(an.skipped_hole, 3);
	EXPECT_EQ(an.skipped_start, 0);
	EXPECT(analysis_find(&an, 106)->unseen);
	EXPECT(!analysis_find(&an, 106)->tainted);
	analysis_free(&an);
}

/*
 * A thread first seen after a hole may have been there, its records lost
 * with the rest: woken, run and preempted unseen, like one seen asleep
 * before the hole. Its name record before the hole or none changes nothing:
 *   cpu0: 1000 idle -> 101; 4000 wakeup 103 (by 101); 4100 101 -> 103
 *   cpu1: 1000 idle -> 102; [hole 2000..3000]; 3000 102 -> idle (blocked)
 * 103 may have been preempted at 2500, in the hole, and waited 1600 ns, or
 * been created at 3900: the 100 ns from the wakeup are not counted (they
 * were, when 103 had no row before its wakeup).
 */
static void build_first_seen_after_a_hole(struct tb *t, bool named)
{
	tb_begin(t, 1000000000);
	if (named)
		tb_thread(t, 103, 103, "late");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_lost(t, 1, 2000, 3000, 4);
	tb_switch(t, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 0, 4000, 103, 101);
	tb_switch(t, 0, 4100, 101, 103, FXT_THREAD_STATE_BLOCKED);
}

TEST(a_thread_first_seen_after_a_hole_may_have_been_in_it)
{
	struct analysis an;
	struct thread *t;
	struct tb tr;
	int named;

	for (named = 0; named < 2; named++) {
		build_first_seen_after_a_hole(&tr, named);
		analysis_init(&an);
		ASSERT(run(&an, &tr, 0) == 0);
		t = analysis_find(&an, 103);
		ASSERT(t);
		EXPECT_EQ(t->wakeups, 1);
		EXPECT_EQ(t->lat[LAT_WAKEUP].count, 0);
		EXPECT_EQ(an.skipped_hole, 1);
		EXPECT_EQ(an.skipped_start, 0);
		analysis_free(&an);
	}
}

/*
 * A thread whose record says it begins there (new_task, the module's at
 * sched_wakeup_new) was in no hole before it: its first wait is counted.
 * The trace of a_thread_first_seen_after_a_hole_may_have_been_in_it, with
 * 103 created at 3900 (the hole on cpu1 closed at 3000):
 *   cpu0: 1000 idle -> 101; 3900 new 103; 4000 wakeup 103; 4100 101 -> 103
 * Created at 2500, inside the hole, its wait is not counted: it may have
 * run in the hole on cpu1 and been preempted there.
 */
static void build_born_after_a_hole(struct tb *t, bool born_in_hole)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	if (born_in_hole) {
		/* cpu1's hole is open at 103's record (its markers apart:
		 * the end comes with cpu1's next record) */
		tb_hole_marker(t, "records_lost", 1, 2000, 4);
		tb_new_thread(t, 103, 100, "born");
		tb_wake(t, 0, 2500, 103, 101);
		tb_hole_marker(t, "records_lost", 1, 3000, 0);
		tb_switch(t, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	} else {
		tb_lost(t, 1, 2000, 3000, 4);
		tb_switch(t, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
		tb_new_thread(t, 103, 100, "born");
		tb_wake(t, 0, 4000, 103, 101);
	}
	tb_switch(t, 0, 4100, 101, 103, FXT_THREAD_STATE_BLOCKED);
}

TEST(a_thread_born_after_a_hole_has_its_first_wait_counted)
{
	struct analysis an;
	struct thread *t;
	struct tb tr;

	build_born_after_a_hole(&tr, 0);
	analysis_init(&an);
	ASSERT(run(&an, &tr, 0) == 0);
	t = analysis_find(&an, 103);
	ASSERT(t);
	EXPECT_EQ(t->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(t->lat[LAT_WAKEUP].max, 100);
	EXPECT_EQ(an.skipped_hole, 0);
	analysis_free(&an);

	build_born_after_a_hole(&tr, 1);
	analysis_init(&an);
	ASSERT(run(&an, &tr, 0) == 0);
	t = analysis_find(&an, 103);
	ASSERT(t);
	EXPECT_EQ(t->wakeups, 1);
	EXPECT_EQ(t->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(an.skipped_hole, 1);
	analysis_free(&an);
}

/*
 * A record with new_task for a tid that already has a row is another
 * thread's, even with the same name and process, and even when the
 * earlier thread's death was never seen (in a hole, or before the trace):
 *   cpu0: 1000 idle -> 101 "worker" (pid 100); 1200 101 -> idle (blocked);
 *         3000 new 101 "worker" (pid 100); 3100 wakeup 101; 3300 idle -> 101
 * Two rows; the second's wait (200 ns) is its own.
 */
TEST(a_new_thread_on_a_seen_tid_is_another_thread)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_thread(&t, 101, 100, "worker");
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 1200, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_new_thread(&t, 101, 100, "worker");
	tb_wake(&t, 0, 3100, 101, 0);
	tb_switch(&t, 0, 3300, IDLE, 101, 0);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.nthreads, 2);
	EXPECT_EQ(an.threads[0].tid, 101);
	EXPECT_EQ(an.threads[0].switches, 1);
	EXPECT_EQ(an.threads[0].lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(an.threads[1].tid, 101);
	EXPECT_EQ(an.threads[1].lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(an.threads[1].lat[LAT_WAKEUP].max, 200);
	analysis_free(&an);
}

/*
 * A thread that ends unnamed, switched out in @state, then a name record
 * (without new_task) for its tid:
 *   cpu0: 1000 idle -> 101 (no name); 1200 101 -> idle (@state);
 *         name 101 "worker" (pid 100); 3100 wakeup 101; 3300 idle -> 101
 */
static void run_unnamed_end_then_name(struct analysis *an, unsigned state)
{
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 1200, 101, IDLE, state);
	tb_thread(&t, 101, 100, "worker");
	tb_wake(&t, 0, 3100, 101, 0);
	tb_switch(&t, 0, 3300, IDLE, 101, 0);
	analysis_init(an);
	ASSERT(run(an, &t, 0) == 0);
}

/*
 * Dead: the name is another thread's, as after a named one died with
 * another name. Two rows: the dead thread keeps no name, and the wait
 * (200 ns) is the second's. (It was one row, the dead thread named
 * "worker".)
 */
TEST(a_name_after_an_unnamed_thread_died_is_another_threads)
{
	struct analysis an;

	run_unnamed_end_then_name(&an, FXT_THREAD_STATE_DEAD);
	EXPECT_EQ(an.nthreads, 2);
	EXPECT_EQ(an.threads[0].tid, 101);
	EXPECT_EQ(an.threads[0].named, false);
	EXPECT_EQ(an.threads[0].switches, 1);
	EXPECT_EQ(an.threads[1].tid, 101);
	EXPECT_EQ(strcmp(an.threads[1].name, "worker"), 0);
	EXPECT_EQ(an.threads[1].lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(an.threads[1].lat[LAT_WAKEUP].max, 200);
	analysis_free(&an);
}

/*
 * Dying: a zombie is still in /proc, where fxt-collect names unnamed tids
 * after a drain and at the end, so a name for it then is its own: the
 * zombie's row is "worker" (1dbc5c4 gave the name to a new row). A zombie
 * is never woken or run again, so the wakeup after the name is a new
 * thread's, which took the tid once the zombie was reaped: a second row,
 * unnamed, with the wait (before, the zombie's row took it too).
 */
TEST(a_name_after_an_unnamed_thread_turned_zombie_is_its_own)
{
	struct analysis an;

	run_unnamed_end_then_name(&an, FXT_THREAD_STATE_DYING);
	ASSERT(an.nthreads == 2);
	EXPECT_EQ(an.threads[0].tid, 101);
	EXPECT_EQ(strcmp(an.threads[0].name, "worker"), 0);
	EXPECT_EQ(an.threads[0].switches, 1);
	EXPECT_EQ(an.threads[0].lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(an.threads[1].tid, 101);
	EXPECT_EQ(an.threads[1].named, false);
	EXPECT_EQ(an.threads[1].wakeups, 1);
	EXPECT_EQ(an.threads[1].lat[LAT_WAKEUP].max, 200);
	analysis_free(&an);
}

/*
 * A dead thread's tid switched in after a hole with no wakeup seen: a new
 * thread took the tid, and its wakeup_new was lost in the hole, so a wait
 * went unmeasured there, as for a thread seen asleep before the hole:
 *   cpu0: 1000 idle -> 101; 1500 101 -> idle (dead); 4300 idle -> 101
 *   cpu1: 1000 idle -> 102; [hole 2000..3000]; 3000 102 -> idle (blocked)
 */
TEST(a_dead_tid_switched_in_after_a_hole_is_not_counted)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 1500, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_switch(&t, 1, 1000, IDLE, 102, 0);
	tb_lost(&t, 1, 2000, 3000, 4);
	tb_switch(&t, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 0, 4300, IDLE, 101, 0);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.skipped_hole, 1);
	EXPECT_EQ(analysis_find(&an, 101)->lat[LAT_WAKEUP].count, 0);
	analysis_free(&an);
}

/* The @n-th row (from 0) of @tid, or NULL. */
static struct thread *nth_row(struct analysis *an, uint64_t tid, int n)
{
	size_t i;

	for (i = 0; i < an->nthreads; i++)
		if (an->threads[i].tid == tid && n-- == 0)
			return &an->threads[i];
	return NULL;
}

/*
 * fixtures.h build_reuse_unseen: a dead thread's tid switched in, or
 * woken, with no record of a new thread before: a new row, which the names
 * at the end are the new thread's. (Before, the dead row came back to
 * life: B's slice was A's, in A's process, and C took 111's first row.)
 */
TEST(a_dead_threads_tid_switched_in_or_woken_is_a_new_thread)
{
	struct thread *a, *b, *dead, *c;
	struct analysis an;
	struct tb t;

	build_reuse_unseen(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = nth_row(&an, 101, 0);
	b = nth_row(&an, 101, 1);
	dead = nth_row(&an, 111, 0);
	c = nth_row(&an, 111, 1);
	ASSERT(a && b && dead && c);
	EXPECT(!nth_row(&an, 101, 2) && !nth_row(&an, 111, 2));
	EXPECT_STREQ(a->name, "A");
	EXPECT_EQ(a->pid, 100);
	EXPECT_EQ(a->runtime, 1000);
	EXPECT_EQ(a->switches, 1);
	EXPECT_STREQ(b->name, "B");
	EXPECT_EQ(b->pid, 200);
	EXPECT_EQ(b->runtime, 1000);
	EXPECT_EQ(b->migrations, 0);
	EXPECT_EQ(b->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(an.skipped_hole, 1);	/* B's wait, in cpu1's hole */
	EXPECT(!dead->named);
	EXPECT_EQ(dead->runtime, 500);
	EXPECT_STREQ(c->name, "C");
	EXPECT_EQ(c->pid, 300);
	EXPECT_EQ(c->runtime, 300);
	EXPECT_EQ(c->wakeups, 1);
	EXPECT_EQ(c->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(c->lat[LAT_WAKEUP].max, 300);
	analysis_free(&an);
}

/*
 * fixtures.h build_reuse_switched_out: a dead thread's tid switched out,
 * its new thread's switch-in lost in a hole, is the new thread's too.
 * (Before, the switch-out was the dead row's, a second switch after its
 * death, and the preemption wait it began was lost: the switch-in then
 * made a new row, asleep, and counted nothing, not even as not counted.
 * Perfetto: 101 runnable 3000..4000.)
 */
TEST(a_dead_threads_tid_switched_out_is_a_new_thread)
{
	struct thread *dead, *b;
	struct analysis an;
	struct tb t;

	build_reuse_switched_out(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	dead = nth_row(&an, 101, 0);
	b = nth_row(&an, 101, 1);
	ASSERT(dead && b);
	EXPECT(!nth_row(&an, 101, 2));
	EXPECT_EQ(dead->runtime, 1000);
	EXPECT_EQ(dead->switches, 1);
	EXPECT_EQ(b->runtime, 1000);
	EXPECT_EQ(b->switches, 2);
	EXPECT_EQ(b->involuntary, 1);
	EXPECT_EQ(b->lat[LAT_PREEMPT].count, 1);
	EXPECT_EQ(b->lat[LAT_PREEMPT].max, 1000);
	EXPECT_EQ(an.skipped_hole, 0);
	analysis_free(&an);
}

/*
 * A records_lost hole and a bytes_skipped hole overlapping on one CPU: the
 * skip's end does not end the kernel's hole, which is still open when 101,
 * running on cpu0 through the holes' start, blocks and is woken (its wait
 * may end in the hole, on cpu1, unseen: not counted). Before, the first
 * end closed both, and the 300 ns were counted.
 *   cpu1: records_lost 2000..3000, bytes_skipped 2200..2400
 *   cpu0: 1000 idle -> 101; 2450 101 -> idle (blocked);
 *         2500 wakeup 101; 2800 idle -> 101
 */
TEST(overlapping_holes_end_each_its_own)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 2450, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_hole_marker(&t, "records_lost", 1, 2000, 5);
	tb_hole_marker(&t, "bytes_skipped", 1, 2200, 64);
	tb_hole_marker(&t, "bytes_skipped", 1, 2400, 0);
	tb_wake(&t, 0, 2500, 101, 0);
	tb_switch(&t, 0, 2800, IDLE, 101, 0);
	tb_hole_marker(&t, "records_lost", 1, 3000, 0);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.holes, 1);
	EXPECT_EQ(an.skip_holes, 1);
	EXPECT_EQ(analysis_find(&an, 101)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(an.skipped_hole, 1);
	EXPECT_EQ(an.holes_open, 0);
	analysis_free(&an);
}

/* fixtures.h build_late_hole: a loss marker opening a hole that comes
 * after its reorder window is applied late, and counted. */
TEST(late_loss_markers_are_counted)
{
	struct analysis an;
	struct tb t;
	char *txt = NULL;
	size_t len = 0;
	FILE *f;

	build_late_hole(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);		/* 2 s: in time */
	EXPECT_EQ(an.io.late_holes, 0);
	EXPECT_EQ(an.io.late, 0);
	EXPECT_EQ(an.skipped_hole, 1);		/* C, across the hole */
	EXPECT_EQ(analysis_find(&an, 103)->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(an.cpus[1].busy, 1000);
	analysis_free(&an);

	build_late_hole(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 1000) == 0);	/* 1 us: 2000 ns late */
	EXPECT_EQ(an.io.late_holes, 1);		/* the closing one is not */
	EXPECT_EQ(an.io.max_late_hole_ns, 2000);
	EXPECT(an.io.first_late_hole_offset > 0);
	EXPECT_EQ(an.io.late, 0);
	EXPECT_EQ(an.io.lost_markers, 2);
	/* what that costs: C's wait and B's runtime to 4000 taken as known */
	EXPECT_EQ(an.skipped_hole, 0);
	EXPECT_EQ(analysis_find(&an, 103)->lat[LAT_WAKEUP].max, 2300);
	EXPECT_EQ(an.cpus[1].busy, 3000);
	f = open_memstream(&txt, &len);
	ASSERT(f);
	print_input_warnings(&an, "x.fxt", f);
	fclose(f);
	EXPECT_CONTAINS(txt, "fxt-sched: warning: x.fxt: 1 hole (loss marker) arrived more than the reorder window after newer records (first at offset ");
	EXPECT_CONTAINS(txt, ", up to 2.00us late): it was applied from the last time already analysed");
	free(txt);
	analysis_free(&an);
}

/* fixtures.h build_hole_top: A's interval reaches into cpu1's hole. */
TEST(top_history_incomplete_after_a_hole)
{
	struct analysis an;
	struct top_entry *v, *a, *c;
	struct tb t;
	size_t n;
	char *txt;

	build_hole_top(&t);
	analysis_init(&an);
	an.top_n = 2;
	ASSERT(run(&an, &t, 0) == 0);
	v = analysis_top(&an, &n);
	ASSERT(v && n == 2);
	a = &v[0];
	c = &v[1];
	ASSERT(a->tid == 11 && c->tid == 31);
	EXPECT_EQ(a->latency, 3000);
	EXPECT_EQ(a->nctx, 0);
	EXPECT_EQ(a->lost_ns, 3000);	/* 6000..9000, all in the hole */
	EXPECT(a->truncated);
	EXPECT_EQ(c->nctx, 1);
	EXPECT_EQ(c->lost_ns, 0);
	EXPECT(!c->truncated);
	free(v);
	/* the hole's note alone: the history is cut by the hole, not by
	 * the trace's start or the kept history (lost_ns sets truncated) */
	txt = render(&an, 1, OUT_TEXT, GROUP_NONE);
	ASSERT(txt);
	EXPECT_CONTAINS(txt, "\n   ran on cpu 1 meanwhile: [history incomplete: a hole in the trace on cpu 1 (records lost by the kernel, or ring data the collector skipped); what ran there for 3.00us of it is not known]\n");
	free(txt);
	analysis_free(&an);
}

struct ivl {
	uint64_t tid, start, end, lat;
	uint32_t row, cpu;
	int kind;
};

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;

	if (x->lat != y->lat)
		return x->lat < y->lat ? 1 : -1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * top -n k with @filter set on @an equals a full sort of every interval of
 * the selected threads (from the --intervals spool of the same run) by
 * (latency desc, end asc, tid asc), cut at k. The per-thread lists of the
 * old top kept, among equal latencies, whichever its minimum scan met
 * first: not always the one that ended first.
 */
static void check_top_is_full_sort(const char *path, unsigned int k,
				   const struct filter *filter)
{
	struct sc_opts o = { .read_flags = FXT_READ_MAGIC };
	struct analysis an;
	struct top_entry *v = NULL;
	struct ivl *all = NULL;
	size_t n = 0, m = 0, cap = 0, i;
	char kind[16];
	unsigned int row, cpu, wcpu;
	uint64_t st, en, la;

	analysis_init(&an);
	an.top_n = k;
	an.f = *filter;
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(analysis_run(&an, path, &o) == 0);
	EXPECT_EQ(an.passes, filter->npids || filter->comm ? 2 : 1);
	rewind(an.intervals);
	while (fscanf(an.intervals, "%u,%15[^,],%u,%u,%" SCNu64 ",%" SCNu64 ",%" SCNu64 "\n",
		      &row, kind, &cpu, &wcpu, &st, &en, &la) == 7) {
		struct thread *t = analysis_row(&an, row);

		ASSERT(t);
		n++;
		if (!analysis_selected(&an, t))
			continue;
		if (m == cap) {
			struct ivl *na;

			cap = cap ? cap * 2 : 256;
			na = realloc(all, cap * sizeof(*na));
			if (!na)
				break;
			all = na;
		}
		all[m++] = (struct ivl){ t->tid, st, en, la, row, cpu,
					 strcmp(kind, "wakeup") ? LAT_PREEMPT : LAT_WAKEUP };
	}
	ASSERT(m > 0 && m <= cap);
	if (k == 1)
		printf("# %zu intervals, %zu of the threads selected\n", n, m);
	qsort(all, m, sizeof(*all), cmp_ivl);
	v = analysis_top(&an, &n);
	ASSERT(v);
	EXPECT_EQ(n, m < k ? m : k);
	for (i = 0; i < n; i++) {
		if (v[i].tid != all[i].tid || v[i].row != all[i].row ||
		    v[i].start != all[i].start || v[i].end != all[i].end ||
		    v[i].kind != all[i].kind || v[i].cpu != all[i].cpu) {
			TAP_FAIL_HERE("k=%u rank %zu: top has tid %" PRIu64 " %" PRIu64 "..%" PRIu64
				      ", a full sort tid %" PRIu64 " %" PRIu64 "..%" PRIu64,
				      k, i + 1, v[i].tid, v[i].start, v[i].end,
				      all[i].tid, all[i].start, all[i].end);
			break;
		}
	}
	free(v);
	free(all);
	analysis_free(&an);
}

TEST(top_is_a_full_sort_cut_at_n_ties_and_filters)
{
	static const unsigned int ks[] = { 1, 2, 3, 5, 8, 20, 64, 65, 200, 100000 };
	static uint64_t pid2[] = { 2 }, tids[] = { 100, 103, 104, 109 };
	static uint64_t tids2[] = { 101, 104, 110, 113 };
	struct filter f[6];
	const char *path;
	unsigned int i, j;
	struct tb t;

	memset(f, 0, sizeof(f));
	f[1].tids = tids;
	f[1].ntids = 4;
	f[2].pids = pid2;
	f[2].npids = 1;
	f[3].comm = "b-*";		/* renamed halfway, or named at the end */
	f[4].comm = "a-*";
	f[4].has_from = f[4].has_to = true;
	f[4].from = 50000;
	f[4].to = 250000;
	f[5].comm = "*1*";		/* b-1, a-10, b-13 (pid 2) */
	f[5].tids = tids2;
	f[5].ntids = 4;
	f[5].pids = pid2;
	f[5].npids = 1;
	build_top_ties(&t);
	path = tb_file(&t);
	fxt_writer_free(&t.w);
	for (j = 0; j < sizeof(f) / sizeof(f[0]); j++)
		for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
			check_top_is_full_sort(path, ks[i], &f[j]);
}

/* Resident pages now (not the peak: earlier tests may have set that). */
static long resident_kib(void)
{
	long size = 0, res = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * top -n 1000 over 400 threads x 500 intervals: one list of at most 1000
 * entries (about 360 KiB), not one per thread. The old per-thread lists
 * kept all 200,000 intervals here (360 bytes each: 70 MiB); the bound is
 * 24 MiB, for the threads' own state and allocator slack (ASan, valgrind).
 */
TEST(top_memory_is_bounded_by_n_not_by_intervals)
{
	enum { THREADS = 400, ROUNDS = 500, N = 1000 };
	struct analysis an;
	struct sc_event ev;
	long before, after;
	uint64_t ts = 1000, seq = 0;
	unsigned int r, i;
	struct top_entry *v;
	size_t n;

	analysis_init(&an);
	an.top_n = N;
	before = resident_kib();
	if (before < 0) {
		printf("# /proc/self/statm unreadable: not measured\n");
		analysis_free(&an);
		return;
	}
	memset(&ev, 0, sizeof(ev));
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < THREADS; i++) {
			/* woken, runs after 100 + r ns: every interval is the
			 * worst of its thread so far */
			ev = (struct sc_event){ .ts = ts, .seq = seq++,
				.a = 1000 + i, .kind = SC_WAKEUP };
			analysis_sched(&an, &ev);
			ts += 100 + r;
			ev = (struct sc_event){ .ts = ts, .seq = seq++, .a = 0,
				.b = 1000 + i, .kind = SC_SWITCH,
				.flags = SC_OUT_IDLE,
				.state = FXT_THREAD_STATE_NEW };
			analysis_sched(&an, &ev);
			ts += 10;
			ev = (struct sc_event){ .ts = ts, .seq = seq++,
				.a = 1000 + i, .b = 0, .kind = SC_SWITCH,
				.flags = SC_IN_IDLE,
				.state = FXT_THREAD_STATE_BLOCKED };
			analysis_sched(&an, &ev);
		}
	after = resident_kib();
	printf("# resident: %ld KiB before, %ld KiB after %u intervals (top -n %u)\n",
	       before, after, ROUNDS * THREADS, N);
	EXPECT(!an.oom);
	EXPECT_EQ(an.ntop, N);
	EXPECT(an.cap_top <= N);
	EXPECT(after - before < 24 * 1024);
	v = analysis_top(&an, &n);
	ASSERT(v && n == N);
	/* the worst: the last round's, latency 100 + 499, by tid */
	EXPECT_EQ(v[0].latency, 100 + ROUNDS - 1);
	EXPECT_EQ(v[0].tid, 1000);
	EXPECT_EQ(v[N - 1].latency, 100 + ROUNDS - 3);
	free(v);
	analysis_free(&an);
}

/* ---- robustness ---- */

/* json_write_string(@in) as a C string (caller frees). */
static char *json_of(const char *in, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	json_write_string(f, in, len);
	fclose(f);
	return buf;
}

/*
 * JSON is UTF-8: well-formed sequences pass, each maximal ill-formed
 * subpart becomes one \ufffd (what Python's errors="replace" does).
 */
TEST(json_strings_are_valid_utf8)
{
	static const struct { const char *in, *out; } c[] = {
		/* comm cut at 15 bytes inside プ (e3 83 97) */
		{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x97\xe3\x83\xad\xe3",
		  "\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x97\xe3\x83\xad\\ufffd\"" },
		{ "\xe3\x83", "\"\\ufffd\"" },		/* one subpart */
		{ "a\xff" "b\x80", "\"a\\ufffdb\\ufffd\"" },	/* never a lead */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },	/* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },	/* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", "\"\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"" },
		{ "\xc3\xa9\"\\\x01", "\"\xc3\xa9\\\"\\\\\\u0001\"" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *j = json_of(c[i].in, strlen(c[i].in));

		ASSERT(j);
		EXPECT_STREQ(j, c[i].out);
		free(j);
	}
}


TEST(truncated_file_reports_offset_and_keeps_results)
{
	struct analysis an;
	struct tb t;
	size_t full;
	const char *path;
	struct sc_opts o = { 0 };
	struct thread *a;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	full = fxt_writer_bytes(&t.w);
	tb_switch(&t, 0, 3000, IDLE, 101, 0);
	path = tb_file_n(&t, fxt_writer_bytes(&t.w) - 12);	/* cut mid-record */
	fxt_writer_free(&t.w);
	analysis_init(&an);
	ASSERT(analysis_run(&an, path, &o) == 0);
	EXPECT(an.io.malformed);
	EXPECT_EQ(an.io.error.offset, full);
	EXPECT_CONTAINS(an.io.error.message, "truncated");
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->runtime, 1000);
	analysis_free(&an);
}

TEST(unknown_records_skipped_by_size)
{
	struct analysis an;
	struct tb t;
	uint64_t unk[3] = { 10 | (3 << 4), 0x1234, 0x5678 };	/* type 10, 3 words */
	uint64_t kind3[3] = { 8 | (3 << 4) | (3ULL << 60), 1, 2 };	/* sched kind 3 */
	const char *path;
	FILE *f;
	struct sc_opts o = { 0 };

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	path = tb_file(&t);
	f = fopen(path, "a");
	ASSERT(f);
	fwrite(unk, 8, 3, f);
	fwrite(kind3, 8, 3, f);
	fclose(f);
	fxt_writer_reset(&t.w);
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	f = fopen(path, "a");
	ASSERT(f);
	fwrite(fxt_writer_data(&t.w), 1, fxt_writer_bytes(&t.w), f);
	fclose(f);
	fxt_writer_free(&t.w);
	analysis_init(&an);
	ASSERT(analysis_run(&an, path, &o) == 0);
	EXPECT(!an.io.malformed);
	EXPECT_EQ(an.io.skipped, 2);
	ASSERT(analysis_find(&an, 101));
	EXPECT_EQ(analysis_find(&an, 101)->runtime, 1000);
	analysis_free(&an);
}

TEST(garbage_never_crashes)
{
	static const size_t sizes[] = { 0, 3, 8, 16, 4096 };
	struct sc_opts o = { 0 };
	unsigned int i, seed = 1;
	char path[128];

	for (i = 0; i < 40; i++) {
		struct analysis an;
		size_t n = i < 5 ? sizes[i] : (size_t)(rand_r(&seed) % 2048) * 8;
		uint64_t *buf = calloc(n / 8 + 1, 8);
		size_t k;
		FILE *f;

		ASSERT(buf);
		for (k = 0; k < n / 8; k++)
			buf[k] = ((uint64_t)rand_r(&seed) << 32) | (uint64_t)rand_r(&seed);
		if (i >= 5 && n >= 8)
			buf[0] = FXT_MAGIC_RECORD;
		for (k = 1; i % 2 && k < n / 8; k += 3)	/* plausible headers */
			buf[k] = (buf[k] & ~0xfffULL) | (8 | (1 << 4));
		snprintf(path, sizeof(path), "%s/g%u.fxt", tmpdir, i);
		f = fopen(path, "w");
		ASSERT(f);
		fwrite(buf, 1, n, f);
		fclose(f);
		free(buf);
		analysis_init(&an);
		an.top_n = 3;
		EXPECT(analysis_run(&an, path, &o) == 0);
		free(render(&an, 0, OUT_JSON, GROUP_PROCESS));
		free(render(&an, 1, OUT_TEXT, GROUP_NONE));
		free(render(&an, 2, OUT_CSV, GROUP_NONE));
		analysis_free(&an);
	}
	{
		struct analysis an;

		analysis_init(&an);
		EXPECT(analysis_run(&an, "/nonexistent/x.fxt", &o) == -1);
		EXPECT_EQ(errno, ENOENT);
		analysis_free(&an);
	}
}

TEST(zero_header_reported_with_offset)
{
	struct analysis an;
	struct tb t;
	size_t at;
	uint64_t zero = 0;
	const char *path;
	FILE *f;
	struct sc_opts o = { 0 };

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	at = fxt_writer_bytes(&t.w);
	path = tb_file(&t);
	fxt_writer_free(&t.w);
	f = fopen(path, "a");
	ASSERT(f);
	fwrite(&zero, 8, 1, f);
	fclose(f);
	analysis_init(&an);
	ASSERT(analysis_run(&an, path, &o) == 0);
	EXPECT(an.io.malformed);
	EXPECT_EQ(an.io.error.offset, at);
	analysis_free(&an);
}

/* build_many_procs() in fixtures.h: every pid's name (the last one given,
 * shared names apart), and latency -P's groups: one per process with an
 * interval, in the order of its first thread by tid, holding the
 * intervals of all its threads. */
TEST(many_processes_names_and_groups)
{
	static unsigned int inv[MP_N];	/* main tid - 10000 -> i */
	struct analysis an;
	struct tb t;
	char name[32], *csv, *line, *next;
	unsigned int i, r, bad = 0, rows = 0, want_i;
	size_t named = 0;
	bool zero_seen = false;

	build_many_procs(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	for (i = 0; i < MP_N; i++) {
		inv[mp_main_tid(i) - 10000] = i;
		named += i % 50 != 49;
		mp_proc_name(i, name, sizeof(name));
		if (strcmp(analysis_proc_name(&an, 1000 + i), name)) {
			if (!bad++)
				printf("#   pid %u: \"%s\", not \"%s\"\n", 1000 + i,
				       analysis_proc_name(&an, 1000 + i), name);
		}
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(an.nprocs, named);		/* the rename added none */
	EXPECT_EQ(an.procs[0].id, 1000);	/* in the order first named */
	EXPECT_EQ(an.procs[5].id, 1005);
	EXPECT_STREQ(an.procs[5].name, "renamed");
	EXPECT_EQ(an.procs[named - 1].id, 1000 + MP_N - 2);	/* 2999: no name */
	EXPECT_STREQ(analysis_proc_name(&an, 0), "");
	EXPECT_STREQ(analysis_proc_name(&an, 999), "");
	EXPECT_STREQ(analysis_proc_name(&an, 1000 + MP_N), "");
	EXPECT_STREQ(analysis_proc_name(&an, 1049), "");	/* unnamed */
	EXPECT_STREQ(analysis_find(&an, mp_second_tid(4))->name, "s4");
	EXPECT_EQ(analysis_find(&an, mp_second_tid(4))->pid, 1004);

	csv = render(&an, 0, OUT_CSV, GROUP_PROCESS);
	ASSERT(csv);
	/* the wakeup rows of scope process, in order: the main tids' order
	 * (i % 10 == 3: no interval, not listed), then pid 0 */
	r = 0;
	bad = 0;
	for (line = csv; line && *line; line = next) {
		uint64_t pid, id, count, max, lat, want_count, want_max;
		char *f[11], *p = line;
		int k;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		for (k = 0; k < 11 && p; k++) {
			f[k] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (k < 11 || strcmp(f[0], "process") || strcmp(f[4], "wakeup"))
			continue;
		rows++;
		id = strtoull(f[1], NULL, 10);
		pid = strtoull(f[2], NULL, 10);
		count = strtoull(f[5], NULL, 10);
		max = strtoull(f[10], NULL, 10);
		while (r < MP_N && inv[r] % 10 == 3)
			r++;
		if (r < MP_N) {
			want_i = inv[r++];
			want_count = 1 + (want_i % 2 == 0);
			want_max = mp_lat(mp_main_tid(want_i));
			if (want_i % 2 == 0 &&
			    mp_lat(mp_second_tid(want_i)) > want_max)
				want_max = mp_lat(mp_second_tid(want_i));
			mp_proc_name(want_i, name, sizeof(name));
			if (id == 1000 + want_i && pid == id &&
			    !strcmp(f[3], name) && count == want_count &&
			    max == want_max)
				continue;
		} else if (!zero_seen) {
			/* pid 0: the 5 threads without a record, last */
			zero_seen = true;
			want_max = 0;
			for (lat = 0; lat < 5; lat++)
				if (mp_lat(MP_ANON + lat) > want_max)
					want_max = mp_lat(MP_ANON + lat);
			if (id == 0 && pid == 0 && !*f[3] && count == 5 &&
			    max == want_max)
				continue;
		}
		if (!bad++)
			printf("#   process row %u: %s,%s,%s count %s max %s\n",
			       rows, f[1], f[2], f[3], f[5], f[10]);
	}
	EXPECT_EQ(bad, 0);
	EXPECT(zero_seen);
	EXPECT_EQ(rows, MP_N - MP_N / 10 + 1);
	free(csv);
	analysis_free(&an);
}

/* ---- boundaries: each check below fails on an off-by-one or a dropped
 * condition that the tests above let pass ---- */

/*
 * A CPU whose last switch is at the trace's last timestamp runs nothing
 * after it: cpu0 1000 idle->A; cpu1 2000 idle->C, never switched out;
 * cpu0 5000 A->B (A preempted), the trace's last record. Still running at
 * the end: C's slice (2000..5000, 3000 ns), not B's of 0 ns on cpu0 (it
 * was 2 slices, B's and cpu0's too, when a 0 ns slice counted).
 */
static void build_last_switch_at_end(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_thread(t, 101, 100, "A");
	tb_thread(t, 102, 100, "B");
	tb_thread(t, 103, 100, "C");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 2000, IDLE, 103, 0);
	tb_switch(t, 0, 5000, 101, 102, FXT_THREAD_STATE_RUNNING);
}

TEST(a_slice_begun_at_the_traces_end_is_not_running_at_it)
{
	struct analysis an;
	struct tb t;
	struct thread *a, *b, *c;
	char *txt, *js, *csv;

	build_last_switch_at_end(&t);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	b = analysis_find(&an, 102);
	c = analysis_find(&an, 103);
	ASSERT(a && b && c);
	EXPECT_EQ(an.t_end, 5000);
	EXPECT_EQ(an.running_at_end, 1);
	EXPECT(!an.cpus[0].running_at_end);
	EXPECT(an.cpus[1].running_at_end);
	EXPECT_EQ(a->running_at_end, 0);
	EXPECT_EQ(b->running_at_end, 0);
	EXPECT_EQ(c->running_at_end, 1);
	EXPECT_EQ(a->runtime, 4000);
	EXPECT_EQ(b->runtime, 0);
	EXPECT_EQ(c->runtime, 3000);
	txt = render(&an, 2, OUT_TEXT, GROUP_NONE);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	csv = render(&an, 2, OUT_CSV, GROUP_NONE);
	ASSERT(txt && js && csv);
	EXPECT_CONTAINS(txt, "\nstill running at the trace's end: 1 slice, counted up to it\n");
	EXPECT_CONTAINS(js, ",\n\"running_at_end\": 1,\n");
	EXPECT_CONTAINS(js, "{\"cpu\": 0, \"busy_ns\": 4000, \"idle_ns\": 0, \"busy_share\": 1.000000, \"switches\": 2, \"running_at_end\": false, \"unknown_ns\": 0}");
	EXPECT_CONTAINS(js, "{\"cpu\": 1, \"busy_ns\": 3000, \"idle_ns\": 0, \"busy_share\": 1.000000, \"switches\": 1, \"running_at_end\": true, \"unknown_ns\": 0}");
	EXPECT_CONTAINS(js, "{\"tid\": 103, \"pid\": 100, \"name\": \"C\", \"runtime_ns\": 3000, \"switches\": 0, \"voluntary\": 0, \"involuntary\": 0, \"migrations\": 0, \"wakeups\": 0, \"running_at_end\": 1}");
	EXPECT_CONTAINS(csv, "\ncpu,0,,,4000,0,2,,,,,0,0\n");
	EXPECT_CONTAINS(csv, "\ncpu,1,,,3000,0,1,,,,,1,0\n");
	/* B, which did nothing in the window, has no row */
	EXPECT(!strstr(js, "\"name\": \"B\""));
	EXPECT(!strstr(csv, ",B,"));
	EXPECT_CONTAINS(csv, "\nthread,103,100,C,3000,,0,0,0,0,0,1,\n");
	free(txt);
	free(js);
	free(csv);
	analysis_free(&an);
}

/*
 * A migrates cpu0 -> cpu1 at 3000 and cpu1 -> cpu0 at 6000: cpu0 1000
 * idle->A, 2000 A->idle (blocked); cpu1 2500 wakeup A, 3000 idle->A,
 * 4000 A->idle (blocked), 5000 wakeup A; cpu0 6000 idle->A, 7000 A->idle.
 * --from 2500 (relative to 1000: [3500, ...)) counts only the second (it
 * counted both). A ran 3500..4000 and 6000..7000 in the window.
 */
static void build_migrations(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 1, 2500, 101, 0);
	tb_switch(t, 1, 3000, IDLE, 101, 0);
	tb_switch(t, 1, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 1, 5000, 101, 0);
	tb_switch(t, 0, 6000, IDLE, 101, 0);
	tb_switch(t, 0, 7000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

TEST(a_migration_before_from_is_not_counted)
{
	struct analysis an;
	struct tb t;
	struct thread *a;
	char *js;

	build_migrations(&t);			/* the whole trace: both */
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->migrations, 2);
	analysis_free(&an);

	build_migrations(&t);
	analysis_init(&an);
	an.f.has_from = true;
	an.f.from = 2500;
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->migrations, 1);
	EXPECT_EQ(a->wakeups, 1);		/* 5000 */
	EXPECT_EQ(a->switches, 2);		/* 4000, 7000 */
	EXPECT_EQ(a->lat[LAT_WAKEUP].count, 1);	/* 5000..6000 */
	EXPECT_EQ(a->lat[LAT_WAKEUP].max, 1000);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	ASSERT(js);
	EXPECT_CONTAINS(js, "\"tid\": 101, \"pid\": 0, \"name\": \"\", \"runtime_ns\": 1500, \"switches\": 2, \"voluntary\": 2, \"involuntary\": 0, \"migrations\": 1, \"wakeups\": 1, \"running_at_end\": 0}");
	free(js);
	analysis_free(&an);
}

/*
 * A woken while it runs (1500: no clock), then blocking later (2000),
 * then woken (3000) and switched in (3400): a 400 ns wait, from the
 * wakeup after the block. The one seen while it ran is not its start
 * (1900 ns): only one at the block's very time is (see
 * a_wakeup_tied_with_a_blocking_switch_out_follows_it).
 */
TEST(a_wakeup_while_running_does_not_start_a_later_wait)
{
	struct analysis an;
	struct tb t;
	struct thread *a;
	char *iv;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_wake(&t, 1, 1500, 101, 102);
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(&t, 1, 3000, 101, 102);
	tb_switch(&t, 0, 3400, IDLE, 101, 0);
	tb_switch(&t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(analysis_spool_intervals(&an) == 0);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(a->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(a->lat[LAT_WAKEUP].max, 400);
	EXPECT_EQ(a->lat[LAT_PREEMPT].count, 0);
	EXPECT_EQ(a->wakeups, 2);
	EXPECT_EQ(an.skipped_start + an.skipped_hole, 0);
	iv = render(&an, 3, OUT_CSV, GROUP_NONE);
	ASSERT(iv);
	EXPECT_STREQ(iv, "kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n"
		     "wakeup,101,0,1,3000,3400,400,0,\n");
	free(iv);
	analysis_free(&an);
}

/*
 * The window is [from, to): what happens exactly at --to is outside it.
 * cpu0 1000 idle->A; 2000 A->B (A blocked); cpu1 2500 wakeup A (by B);
 * cpu0 3000 wakeup C, and B->A (B preempted); 4000 A->idle. --to 2000
 * (relative to 1000): [1000, 3000). A's wait ends at 3000: not counted;
 * the switch at 3000 is not one of cpu0's nor B's; nor is C's wakeup.
 */
static void build_to_boundary(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, 102, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 1, 2500, 101, 102);
	tb_wake(t, 0, 3000, 103, 102);
	tb_switch(t, 0, 3000, 102, 101, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

TEST(an_event_exactly_at_to_is_outside_the_window)
{
	struct analysis an;
	struct tb t;
	struct thread *a, *b, *c;

	build_to_boundary(&t);
	analysis_init(&an);
	an.f.has_to = true;
	an.f.to = 2000;
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	b = analysis_find(&an, 102);
	c = analysis_find(&an, 103);
	ASSERT(a && b && c);
	EXPECT_EQ(a->lat[LAT_WAKEUP].count, 0);
	EXPECT_EQ(a->wakeups, 1);		/* 2500 */
	EXPECT_EQ(a->switches, 1);		/* 2000 */
	EXPECT_EQ(b->switches, 0);
	EXPECT_EQ(b->involuntary, 0);
	EXPECT_EQ(c->wakeups, 0);
	EXPECT_EQ(an.cpus[0].switches, 2);	/* 1000, 2000 */
	EXPECT_EQ(an.cpus[0].busy, 2000);	/* A 1000..2000, B 2000..3000 */
	EXPECT_EQ(a->runtime, 1000);
	EXPECT_EQ(b->runtime, 1000);
	EXPECT_EQ(an.running_at_end, 0);
	analysis_free(&an);

	/* one ns more: all of them */
	build_to_boundary(&t);
	analysis_init(&an);
	an.f.has_to = true;
	an.f.to = 2001;
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	b = analysis_find(&an, 102);
	c = analysis_find(&an, 103);
	ASSERT(a && b && c);
	EXPECT_EQ(a->lat[LAT_WAKEUP].count, 1);
	EXPECT_EQ(a->lat[LAT_WAKEUP].max, 500);
	EXPECT_EQ(b->involuntary, 1);
	EXPECT_EQ(c->wakeups, 1);
	EXPECT_EQ(an.cpus[0].switches, 3);
	EXPECT_EQ(an.cpus[0].busy, 2001);
	analysis_free(&an);
}

/*
 * A thread seen blocking and later switched in with no wakeup seen, in a
 * trace with no holes (a producer that writes no wakeups, or a filter):
 * nothing was lost, so no interval is "not counted across holes".
 * cpu0 1000 idle->A; 2000 A->idle (blocked); 3000 idle->A; 4000 A->idle.
 */
TEST(a_switch_in_without_a_wakeup_and_no_hole_is_not_across_one)
{
	struct analysis an;
	struct tb t;
	struct thread *a;
	char *lat, *sum;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 0, 3000, IDLE, 101, 0);
	tb_switch(&t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	a = analysis_find(&an, 101);
	ASSERT(a);
	EXPECT_EQ(an.holes + an.skip_holes, 0);
	EXPECT_EQ(an.skipped_hole, 0);
	EXPECT_EQ(an.skipped_start, 0);
	EXPECT_EQ(a->lat[LAT_WAKEUP].count + a->lat[LAT_PREEMPT].count, 0);
	EXPECT_EQ(a->runtime, 2000);
	lat = render(&an, 0, OUT_TEXT, GROUP_NONE);
	sum = render(&an, 2, OUT_TEXT, GROUP_NONE);
	ASSERT(lat && sum);
	EXPECT(!strstr(lat, "not counted"));
	EXPECT(!strstr(sum, "not counted"));
	free(lat);
	free(sum);
	analysis_free(&an);
}

/*
 * A record exactly one reorder window behind the newest is still in the
 * window: held, not handed on, until a record more than the window newer
 * comes. Window 100: cpu0 1000 idle->A; cpu1 1100 idle->B; cpu1 1000
 * wakeup C (100 ns behind 1100: kept); cpu0 1150 A->idle. The buffer held
 * all four when 1150 came (it held 2 at most when a record exactly a
 * window old was handed on).
 */
TEST(a_record_exactly_one_window_behind_is_held)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 1, 1100, IDLE, 102, 0);
	tb_wake(&t, 1, 1000, 103, 102);
	tb_switch(&t, 0, 1150, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 100) == 0);
	EXPECT_EQ(an.io.late, 0);
	EXPECT_EQ(an.io.max_disorder_ns, 100);
	EXPECT_EQ(an.io.max_buffered, 4);
	ASSERT(analysis_find(&an, 103));
	EXPECT_EQ(analysis_find(&an, 103)->wakeups, 1);
	analysis_free(&an);
}

/*
 * A record at the very time of the last one handed on is not behind it:
 * window 100, cpu0 1000 idle->A; cpu1 1200 idle->B (hands on 1000); cpu0
 * 1000 wakeup C, 200 ns behind 1200, but not before 1000: applied, not
 * skipped as late.
 */
TEST(a_record_tied_with_the_last_one_handed_on_is_not_late)
{
	struct analysis an;
	struct tb t;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_switch(&t, 1, 1200, IDLE, 102, 0);
	tb_wake(&t, 0, 1000, 103, 101);
	tb_switch(&t, 0, 1300, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 100) == 0);
	EXPECT_EQ(an.io.late, 0);
	EXPECT_EQ(an.io.max_disorder_ns, 200);
	ASSERT(analysis_find(&an, 103));
	EXPECT_EQ(analysis_find(&an, 103)->wakeups, 1);
	analysis_free(&an);
}

/*
 * A loss marker at the very time of its CPU's last switch: what ran from
 * there is unknown. cpu0 1000 idle->A, and 1 record lost from 1000 on,
 * the next record at 1100: A->idle (blocked); 1200 idle->B; 1300 B->idle.
 * cpu0: unknown 100 (1000..1100), idle 100, busy 100 (B); A ran no known
 * time (it was busy 200, A 100, unknown 0).
 */
TEST(a_loss_marker_tied_with_the_last_switch_makes_the_time_unknown)
{
	struct analysis an;
	struct tb t;
	char *js;

	tb_begin(&t, 1000000000);
	tb_switch(&t, 0, 1000, IDLE, 101, 0);
	tb_lost(&t, 0, 1000, 1100, 1);
	tb_switch(&t, 0, 1100, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(&t, 0, 1200, IDLE, 102, 0);
	tb_switch(&t, 0, 1300, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	analysis_init(&an);
	ASSERT(run(&an, &t, 0) == 0);
	ASSERT(analysis_find(&an, 101) && analysis_find(&an, 102));
	EXPECT_EQ(an.cpus[0].unknown, 100);
	EXPECT_EQ(an.cpus[0].busy, 100);
	EXPECT_EQ(an.cpus[0].idle, 100);
	EXPECT_EQ(analysis_find(&an, 101)->runtime, 0);
	EXPECT_EQ(analysis_find(&an, 102)->runtime, 100);
	js = render(&an, 2, OUT_JSON, GROUP_NONE);
	ASSERT(js);
	EXPECT_CONTAINS(js, "{\"cpu\": 0, \"busy_ns\": 100, \"idle_ns\": 100, \"busy_share\": 0.500000, \"switches\": 4, \"running_at_end\": false, \"unknown_ns\": 100}");
	free(js);
	analysis_free(&an);
}

/*
 * A hole that ends exactly at --from leaves the window whole: cpu0 1000
 * idle->A; cpu1 loses a record from 1500 on, the next at 2000: idle->B;
 * cpu0 3000 A->idle. --from 1000 (relative to 1000: 2000): no hole in
 * the window; --from 999 (1999): the hole's last ns is in it.
 */
static void build_hole_before_from(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_lost(t, 1, 1500, 2000, 1);
	tb_switch(t, 1, 2000, IDLE, 102, 0);
	tb_switch(t, 0, 3000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

TEST(a_hole_ending_exactly_at_from_is_not_in_the_window)
{
	struct analysis an;
	struct tb t;

	build_hole_before_from(&t);
	analysis_init(&an);
	an.f.has_from = true;
	an.f.from = 1000;
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT_EQ(an.holes, 1);
	EXPECT(!an.hole_in_window);
	analysis_free(&an);

	build_hole_before_from(&t);
	analysis_init(&an);
	an.f.has_from = true;
	an.f.from = 999;
	ASSERT(run(&an, &t, 0) == 0);
	EXPECT(an.hole_in_window);
	analysis_free(&an);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(nearest_rank_percentiles);
	RUN(text_durations_have_a_unit_and_3_digits);
	RUN(log2_buckets);
	RUN(bucketed_percentiles_bounded_error);
	RUN(qdist_exact_limit_bucket_edges_and_merge_exactly);
	RUN(wakeup_latency_first_wakeup_counts);
	RUN(preempt_latency_wakeup_of_running_ignored_migration);
	RUN(out_of_order_records_are_reordered);
	RUN(a_wakeup_tied_with_a_blocking_switch_out_follows_it);
	RUN(a_wakeup_tied_with_its_switch_in_is_a_0ns_wait_in_either_order);
	RUN(latency_n_ranks_by_either_kind_then_count_then_id);
	RUN(latency_n_lists_equal_incarnations_in_their_order);
	RUN(a_cut_list_of_100001_names_n_100000);
	RUN(summary_of_a_trace_without_scheduling_records_has_no_start);
	RUN(a_histogram_bucket_with_intervals_has_a_star);
	RUN(latency_percentiles_p50_p90_p99_p999_max_in_their_places);
	RUN(top_meanwhile_idle_named_and_one_more_slice);
	RUN(top_text_says_preempted_for_a_preemption);
	RUN(summary_lists_a_thread_only_woken_quotes_cr_and_cuts_at_n);
	RUN(late_records_beyond_window_are_counted_not_applied);
	RUN(top_memory_is_bounded_by_n_not_by_intervals);
	RUN(top_lists_what_ran_meanwhile);
	RUN(top_lists_the_longest_running_tasks_first);
	RUN(top_is_a_full_sort_cut_at_n_ties_and_filters);
	RUN(summary_busy_idle_and_drops);
	RUN(summary_drop_counters_out_of_range);
	RUN(text_counts_of_one_are_singular);
	RUN(latency_json_and_filters);
	RUN(per_provider_tables_and_tick_rate);
	RUN(times_past_the_clock_end_saturate);
	RUN(wakeup_tied_with_the_first_switch_is_before_it);
	RUN(start_of_trace_wakeups_not_counted);
	RUN(intervals_honour_every_filter);
	RUN(pid_0_selects_the_threads_of_unknown_process);
	RUN(names_and_markers_in_trace_order);
	RUN(reused_tid_takes_its_new_name_from_then_on);
	RUN(rename_keeps_one_row);
	RUN(many_processes_names_and_groups);
	RUN(records_lost_holes);
	RUN(bytes_skipped_holes_are_holes_too);
	RUN(top_history_incomplete_after_a_hole);
	RUN(thread_running_when_a_hole_begins_is_unknown_after_it);
	RUN(threads_asleep_in_a_hole_may_be_woken_unseen);
	RUN(a_hole_applies_to_each_thread_as_it_was_then);
	RUN(a_thread_first_seen_after_a_hole_may_have_been_in_it);
	RUN(a_dead_tid_switched_in_after_a_hole_is_not_counted);
	RUN(a_dead_threads_tid_switched_in_or_woken_is_a_new_thread);
	RUN(a_dead_threads_tid_switched_out_is_a_new_thread);
	RUN(overlapping_holes_end_each_its_own);
	RUN(a_thread_born_after_a_hole_has_its_first_wait_counted);
	RUN(a_new_thread_on_a_seen_tid_is_another_thread);
	RUN(a_name_after_an_unnamed_thread_died_is_another_threads);
	RUN(a_name_after_an_unnamed_thread_turned_zombie_is_its_own);
	RUN(late_loss_markers_are_counted);
	RUN(json_strings_are_valid_utf8);
	RUN(truncated_file_reports_offset_and_keeps_results);
	RUN(unknown_records_skipped_by_size);
	RUN(garbage_never_crashes);
	RUN(zero_header_reported_with_offset);
	RUN(a_slice_begun_at_the_traces_end_is_not_running_at_it);
	RUN(a_migration_before_from_is_not_counted);
	RUN(a_wakeup_while_running_does_not_start_a_later_wait);
	RUN(an_event_exactly_at_to_is_outside_the_window);
	RUN(a_switch_in_without_a_wakeup_and_no_hole_is_not_across_one);
	RUN(a_record_exactly_one_window_behind_is_held);
	RUN(a_record_tied_with_the_last_one_handed_on_is_not_late);
	RUN(a_loss_marker_tied_with_the_last_switch_makes_the_time_unknown);
	RUN(a_hole_ending_exactly_at_from_is_not_in_the_window);
	{
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_exit();
}
