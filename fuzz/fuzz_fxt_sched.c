// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_fxt_sched.c - fxt-sched's whole pipeline on arbitrary file bytes:
 * sched_core's reading and reordering, analysis (thread and CPU tables,
 * latencies, `top` history, names, drop counters) and every report in
 * every format, written to /dev/null; then the same input once more
 * through analysis_run(), as fxt-sched runs it, with one of three
 * filtered command lines (--comm in two passes, --tid, --pid) and a time
 * window.
 *
 * sc_run() reads a path, so the input goes into a memfd and is read back
 * through /proc/self/fd/N, as a file would be (mmap()ed: fuzz_file in
 * fuzz_target.h). The mapping is page-granular, so an overread of the
 * last page would not be seen here; fuzz_fxt_dump.c covers the reader
 * with an exactly sized buffer.
 *
 * Besides "does not crash" it checks sched_core.h's promises against a
 * plain fxt_read pass over the same bytes: every record is counted, the
 * file is "malformed" exactly when the reader stops at an error, the
 * ordered stream is in timestamp order, and the switches and wakeups in it
 * number exactly those read minus those reported late.
 */
#include <string.h>

#include "analysis.h"
#include "fuzz_target.h"

static struct fuzz_file input;
static FILE *devnull;

struct order {
	struct analysis *an;
	uint64_t events;	/* everything handed to @sched */
	uint64_t delivered;	/* of which switches and wakeups */
	uint64_t last_ts;
};

/*
 * Every event of the ordered stream, whatever its kind (sched_core may
 * pass more than switches and wakeups through it), comes in timestamp
 * order; only switches and wakeups are counted against sc_stats.
 */
static void on_sched(void *ctx, const struct sc_event *ev)
{
	struct order *o = ctx;

	FUZZ_ASSERT(!o->events || ev->ts >= o->last_ts,
		    "event of kind %u at %llu after one at %llu", ev->kind,
		    (unsigned long long)ev->ts, (unsigned long long)o->last_ts);
	o->last_ts = ev->ts;
	o->events++;
	if (ev->kind == SC_SWITCH || ev->kind == SC_WAKEUP)
		o->delivered++;
	analysis_sched(o->an, ev);
}

static void on_record(void *ctx, const struct fxt_record *rec, uint64_t ts,
		      uint64_t tps)
{
	struct order *o = ctx;

	analysis_record(o->an, rec, ts, tps);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&input, "fuzz_fxt_sched input");
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		perror("fuzz_fxt_sched: /dev/null");
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fxt-sched's defaults (tools/fxt_sched.c) and the filters' lists */
	static const struct sc_opts sched_opts = {
		.widen = true, .read_flags = FXT_READ_MAGIC
	};
	static uint64_t tids[] = { 1, 2, 100 }, pids[] = { 0, 1 };
	struct analysis an;
	struct order o = { &an, 0, 0, 0 };
	struct sc_handler h = { &o, on_sched, on_record, NULL };
	struct sc_opts opts = { 0 };
	uint64_t records;
	bool malformed;

	fuzz_file_load(&input, data, size);
	analysis_init(&an);
	an.top_n = 3;		/* `top` keeps per-CPU history: exercise it */
	/* and `latency --intervals`, spooled as fxt-sched spools them */
	FUZZ_ASSERT(analysis_spool_intervals(&an) == 0,
		    "the intervals' temporary file (TMPDIR) cannot be made");
	FUZZ_ASSERT(sc_run(input.path, &opts, &h, &an.io) == 0, "sc_run failed on a readable file");

	/* a plain lenient read: what sched_core must have found */
	fuzz_fxt_count(data, size, 0, &records, &malformed);
	FUZZ_ASSERT(an.io.bytes == size, "bytes %llu of %zu",
		    (unsigned long long)an.io.bytes, size);
	FUZZ_ASSERT(an.io.records == records && an.io.malformed == malformed,
		    "sc_run read %llu records (malformed %d), fxt_read %llu (%d)",
		    (unsigned long long)an.io.records, an.io.malformed,
		    (unsigned long long)records, malformed);
	FUZZ_ASSERT(an.io.switches + an.io.wakeups <= an.io.records &&
		    o.delivered + an.io.late == an.io.switches + an.io.wakeups,
		    "handed on %llu + late %llu != %llu switches + %llu wakeups",
		    (unsigned long long)o.delivered, (unsigned long long)an.io.late,
		    (unsigned long long)an.io.switches,
		    (unsigned long long)an.io.wakeups);

	/* The end of the input, as analysis_run() ends it: the reports
	 * read the slices still running and the holes applied. */
	analysis_finish(&an);
	print_latency(&an, devnull, OUT_TEXT, GROUP_PROCESS, 3);
	print_latency(&an, devnull, OUT_TEXT, GROUP_THREAD, 0);
	print_latency(&an, devnull, OUT_JSON, GROUP_THREAD, 2);
	print_latency(&an, devnull, OUT_CSV, GROUP_NONE, 0);
	print_top(&an, devnull, OUT_TEXT);
	print_top(&an, devnull, OUT_JSON);
	print_top(&an, devnull, OUT_CSV);
	print_summary(&an, devnull, OUT_TEXT, 4);
	print_summary(&an, devnull, OUT_JSON, 0);
	print_summary(&an, devnull, OUT_CSV, 0);
	print_intervals(&an, devnull, OUT_CSV);
	print_intervals(&an, devnull, OUT_JSON);
	print_input_warnings(&an, "fuzz", devnull);
	analysis_free(&an);	/* closes the intervals' file */

	/*
	 * fxt-sched's own run (analysis_run(), its options: the reorder
	 * window widened as the file needs, the magic record required), with
	 * one of three command lines, chosen by the input's size so that no
	 * input costs more than two analyses:
	 *   - top --comm '*[a-m]*' --from 1us --to 10ms: the input read twice
	 *     (the threads selected, then their worst intervals);
	 *   - top --tid 1,2,100 --from 1us: one pass, or two for a trace cut
 *     short (fxt-collect's one records_dropped sample), whose results
 *     then end where its first CPU's records do;
	 *   - latency --pid 0,1 --to 10ms: one pass, no top history.
	 */
	analysis_init(&an);
	switch (size % 3) {
	case 0:
		an.top_n = 3;
		an.f.comm = "*[a-m]*";
		an.f.has_from = an.f.has_to = true;
		an.f.from = 1000;
		an.f.to = 10000000;
		break;
	case 1:
		an.top_n = 3;
		an.f.tids = tids;
		an.f.ntids = sizeof(tids) / sizeof(tids[0]);
		an.f.has_from = true;
		an.f.from = 1000;
		break;
	default:
		an.f.pids = pids;
		an.f.npids = sizeof(pids) / sizeof(pids[0]);
		an.f.has_to = true;
		an.f.to = 10000000;
		break;
	}
	FUZZ_ASSERT(analysis_run(&an, input.path, &sched_opts) == 0,
		    "analysis_run failed on a readable file");
	print_top(&an, devnull, OUT_TEXT);
	print_top(&an, devnull, OUT_JSON);
	print_latency(&an, devnull, OUT_CSV, GROUP_PROCESS, 0);
	print_summary(&an, devnull, OUT_TEXT, 0);
	print_input_warnings(&an, "fuzz", devnull);
	analysis_free(&an);
	return 0;
}
