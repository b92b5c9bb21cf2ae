/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output.c - what fxt-sched's text, JSON and CSV reports share: names
 * quoted for JSON and CSV and escaped for text, durations and times
 * (fmt_dur(), fmt_time()), the trace's start, the intervals not counted,
 * the selected threads by tid; and fxt-sched's input warnings on stderr.
 * json_write_string() serves fxt2json too.
 *
 * Each report is rendered in a file of its own: output_latency.c
 * (latency), output_top.c (top), output_summary.c (summary, and the
 * losses every JSON report carries), output_intervals.c (--intervals).
 * What the files share is declared in output_internal.h, the reports'
 * entry points in analysis.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "output_internal.h"

const char *const kind_short[LAT_KINDS] = { "wakeup", "preempt" };

/**
 * json_write_string() - @len bytes of @s as a quoted JSON string (@s may be
 * NULL when @len is 0); shared by fxt-sched's --json and fxt2json. JSON
 * text is UTF-8, names are bytes (comm is cut at 15, maybe inside a
 * character): each ill-formed sequence becomes \ufffd.
 */
void json_write_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, bad;

	fputc('"', out);
	while (u && i < len) {
		unsigned char ch = u[i];

		if (ch >= 0x80) {
			k = fxt_utf8_len(u + i, len - i, &bad);
			if (k)
				fwrite(u + i, 1, k, out);
			else
				fputs("\\ufffd", out);
			i += k ? k : bad;
			continue;
		}
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
		i++;
	}
	fputc('"', out);
}

void json_str(FILE *out, const char *s)
{
	json_write_string(out, s, s ? strlen(s) : 0);
}

void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * A name in text output, after a space ("" prints nothing, not a stray
 * space): control bytes escaped as fxt-dump does (fxt_fput_escaped()), so
 * a comm set with prctl(PR_SET_NAME) can neither send escape sequences to
 * the terminal nor break a line or a table row.
 */
void text_name(FILE *out, const char *s)
{
	if (*s) {
		fputc(' ', out);
		fxt_fput_escaped(out, s, strlen(s), 0);
	}
}

const char *fmt_dur(char *buf, uint64_t ns, bool raw)
{
	static const struct {
		uint64_t ns;
		const char *name;
	} unit[] = { { 1000, "us" }, { 1000000, "ms" }, { 1000000000, "s" } };
	uint64_t step, r;
	unsigned int i;
	int d;

	if (raw || ns < 1000) {
		snprintf(buf, DUR_LEN, "%" PRIu64 "ns", ns);
		return buf;
	}
	/*
	 * In each unit, 2 decimals, then 1, then none: the first whose
	 * rounded value is below 1000 has 3 digits (the one before it
	 * rounded to 1000 or more); none fits: the next unit.
	 */
	for (i = 0; i < sizeof(unit) / sizeof(unit[0]); i++) {
		for (d = 2, step = unit[i].ns / 100; d >= 0; d--, step *= 10) {
			r = ns / step + (ns % step >= step - ns % step);
			if (r >= 1000)
				continue;
			if (d == 2)
				snprintf(buf, DUR_LEN, "%" PRIu64 ".%02" PRIu64 "%s",
					 r / 100, r % 100, unit[i].name);
			else if (d == 1)
				snprintf(buf, DUR_LEN, "%" PRIu64 ".%" PRIu64 "%s",
					 r / 10, r % 10, unit[i].name);
			else
				snprintf(buf, DUR_LEN, "%" PRIu64 "%s", r,
					 unit[i].name);
			return buf;
		}
	}
	step = 1000000000;
	r = ns / step + (ns % step >= step - ns % step);
	snprintf(buf, DUR_LEN, "%" PRIu64 "s", r);
	return buf;
}

const char *fmt_time(char *buf, uint64_t ns, bool raw)
{
	if (raw)
		return fmt_dur(buf, ns, true);	/* the same exact ns */
	snprintf(buf, DUR_LEN, "%" PRIu64 ".%09" PRIu64 "s",
		 ns / 1000000000u, ns % 1000000000u);
	return buf;
}

void print_trace_start(const struct analysis *an, FILE *out)
{
	char t[DUR_LEN];

	if (an->started)
		fprintf(out, "trace start: %s on the trace's clock (fxt-collect's: CLOCK_BOOTTIME); times below count from it, as --from and --to do\n",
			fmt_time(t, an->t0, an->text_ns));
}

/* Intervals left out because the trace was incomplete around them. */
bool print_not_counted(const struct analysis *an, FILE *out)
{
	if (!an->skipped_start && !an->skipped_hole)
		return false;
	fprintf(out, "not counted (all threads): %" PRIu64 " %s begun before the trace's first context switch, %" PRIu64 " across holes in the trace (records lost by the kernel, or ring data the collector skipped); see fxt-sched(1)\n",
		an->skipped_start,
		sc_plural(an->skipped_start, "interval", "intervals"),
		an->skipped_hole);
	return true;
}

/* By tid, then incarnation (row creation order). */
static int cmp_tid(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Selected threads, sorted by tid; caller frees. */
struct thread **selected(struct analysis *an, size_t *n)
{
	struct thread **v = calloc(an->nthreads + 1, sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < an->nthreads; i++)
		if (analysis_selected(an, &an->threads[i]))
			v[(*n)++] = &an->threads[i];
	qsort(v, *n, sizeof(*v), cmp_tid);
	return v;
}

void print_input_warnings(const struct analysis *an, const char *path,
			  FILE *err)
{
	char advice[160], late[DUR_LEN];

	if (an->io.malformed)
		fprintf(err, "fxt-sched: %s: offset %zu: %s; the results cover only the records before it\n",
			path, an->io.error.offset, an->io.error.message);
	sc_print_input_notes(err, "fxt-sched", path, &an->io);
	if (an->io.late)
		fprintf(err, "fxt-sched: warning: %s: %" PRIu64 " scheduling %s %s (first at offset %zu, up to %s late) and %s left out; %s\n",
			path, an->io.late,
			sc_plural(an->io.late, "record arrived", "records arrived"),
			an->io.reorder_oom ? SC_OOM_LATE :
			"more than the reorder window after newer ones",
			an->io.first_late_offset,
			fmt_dur(late, an->io.max_late_ns, false),
			sc_plural(an->io.late, "was", "were"),
			sc_late_advice(advice, sizeof(advice), &an->io,
				       "takes them in"));
	if (an->io.late_holes)
		fprintf(err, "fxt-sched: warning: %s: %" PRIu64 " %s arrived %s (first at offset %zu, up to %s late): %s applied from the last time already analysed, not from its start, so the intervals and CPU time in between were counted as if no record were missing; %s\n",
			path, an->io.late_holes,
			sc_plural(an->io.late_holes, "hole (loss marker)",
				  "holes (loss markers)"),
			an->io.reorder_oom ? SC_OOM_LATE :
			"more than the reorder window after newer records",
			an->io.first_late_hole_offset,
			fmt_dur(late, an->io.max_late_hole_ns, false),
			sc_plural(an->io.late_holes, "it was", "each was"),
			sc_late_advice(advice, sizeof(advice), &an->io,
				       "applies them in time"));
	if (an->cut_to) {
		char end[DUR_LEN], span[DUR_LEN];

		fmt_time(end, an->f.to, false);
		fprintf(err, "fxt-sched: warning: %s: fxt-collect's closing records_dropped sample is missing: the trace was cut short (fxt-collect killed, its output full, or the rest given up), so each CPU's records stop at a different time, and past the first CPU's end a wait that ended there unseen would show as a longer one: the results end at %s (as with --to %s), cpu%u's last context switch, of the %s the trace spans (a CPU idle at the end ends early too); --to T takes in more, at that risk\n",
			path, end, end, an->cut_cpu,
			fmt_time(span, an->t_end - an->t0, false));
	} else if (analysis_cut_short(an) && !an->io.malformed) {
		fprintf(err, "fxt-sched: warning: %s: fxt-collect's closing records_dropped sample is missing: the trace was cut short (fxt-collect killed, its output full, or the rest given up), so each CPU's records may stop at a different time, and a wait whose end was cut off on one CPU may show as a longer one that ended on another: distrust results near the end\n",
			path);
	}
	if (an->oom)
		fprintf(err, "fxt-sched: warning: out of memory: some statistics are incomplete\n");
	if (an->spool_error)
		fprintf(err, "fxt-sched: warning: the temporary file holding the intervals could not be written or read back (is $TMPDIR full, or a file size limit, ulimit -f, reached?): the list is incomplete\n");
}
