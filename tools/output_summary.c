/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output_summary.c - fxt-sched summary's report in text, JSON and CSV:
 * the time span, the records and every loss, per-CPU busy and idle time,
 * per-thread runtime, switches, migrations and wakeups; and
 * json_losses(), the losses as latency's and top's JSON carry them too.
 * The helpers it shares with the other reports are in output.c, declared
 * in output_internal.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "output_internal.h"

/* A name escaped as text_name(), padded with spaces to @width bytes. */
static void text_name_col(FILE *out, const char *s, size_t width)
{
	size_t n = fxt_fput_escaped(out, s, strlen(s), 0);

	for (; n < width; n++)
		fputc(' ', out);
}

/*
 * The CPUs where @get is not 0, "c" from 0 to @n - 1: as JSON members
 * ("cpu0": 12, "cpu3": 4) or, in text, " cpu0=12 cpu3=4".
 */
static void per_cpu(FILE *out, const struct analysis *an, unsigned int n,
		    uint64_t (*get)(const struct analysis *, unsigned int),
		    bool json)
{
	unsigned int c, i = 0;
	uint64_t v;

	for (c = 0; c < n; c++) {
		v = get(an, c);
		if (!v)
			continue;
		if (json)
			fprintf(out, "%s\"cpu%u\": %" PRIu64, i++ ? ", " : "", c, v);
		else
			fprintf(out, " cpu%u=%" PRIu64, c, v);
	}
}

static uint64_t cpu_dropped(const struct analysis *an, unsigned int c)
{
	return an->cpu_dropped[c];
}

static uint64_t cpu_lost(const struct analysis *an, unsigned int c)
{
	return an->cpus[c].lost;
}

static uint64_t cpu_skipped(const struct analysis *an, unsigned int c)
{
	return an->cpus[c].skipped;
}


/* The records_dropped counters' sum, saturating: counters from a file,
 * not to wrap to a small total. */
static uint64_t total_dropped(const struct analysis *an)
{
	uint64_t dropped = 0;
	uint32_t c;

	for (c = 0; c < an->ncpu_dropped; c++)
		dropped = dropped + an->cpu_dropped[c] < dropped ? UINT64_MAX :
			  dropped + an->cpu_dropped[c];
	return dropped;
}

/*
 * What the trace lacks, as JSON members of the same names in latency, top
 * and summary: "dropped" (records the kernel dropped, and the holes:
 * records_lost and bytes_skipped markers), "not_counted" (the waits left
 * out for it), "cut_short" (fxt-collect's closing records_dropped
 * sample is missing: the stderr warning of print_input_warnings()) and
 * "cut_short_end_ns" (where the results of a cut-short trace end, as
 * --to would say it: analysis_cut_end(); null when they do not end
 * early). No separator after the last: the caller adds one.
 */
void json_losses(FILE *out, const struct analysis *an)
{
	fprintf(out, "\"dropped\": {\"provider_events\": %" PRIu64
		", \"records_dropped\": %" PRIu64 ", \"per_cpu\": {",
		an->drop_events, total_dropped(an));
	per_cpu(out, an, an->ncpu_dropped, cpu_dropped, true);
	fprintf(out, "}, \"records_lost\": %" PRIu64 ", \"lost_holes\": %"
		PRIu64 ", \"lost_per_cpu\": {", an->lost, an->holes);
	per_cpu(out, an, an->ncpus, cpu_lost, true);
	fprintf(out, "}, \"bytes_skipped\": %" PRIu64 ", \"skip_holes\": %"
		PRIu64 ", \"skipped_per_cpu\": {", an->skipped,
		an->skip_holes);
	per_cpu(out, an, an->ncpus, cpu_skipped, true);
	fprintf(out, "}},\n\"not_counted\": {\"before_first_switch\": %"
		PRIu64 ", \"across_lost_records\": %" PRIu64 "},\n",
		an->skipped_start, an->skipped_hole);
	fprintf(out, "\"cut_short\": %s, \"cut_short_end_ns\": ",
		analysis_cut_short(an) ? "true" : "false");
	if (an->cut_to)
		fprintf(out, "%" PRIu64, an->f.to);
	else
		fprintf(out, "null");
}

static int cmp_runtime(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;

	if (x->runtime != y->runtime)
		return x->runtime < y->runtime ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool active(const struct thread *t)
{
	return t->runtime || t->switches || t->wakeups || t->migrations ||
	       t->lat[0].count || t->lat[1].count;
}

void print_summary(struct analysis *an, FILE *out, enum out_format fmt,
		   unsigned int limit)
{
	uint64_t start = an->t0 > an->win_from ? an->t0 : an->win_from;
	uint64_t end = an->t_end < an->win_to ? an->t_end : an->win_to;
	uint64_t span, dropped;
	size_t n, i, shown = 0, listed = 0, width = 16, w;
	struct thread **v;
	uint32_t c;

	if (start > end)	/* a window after the trace: empty, at its end */
		start = end;
	span = an->started ? end - start : 0;

	v = selected(an, &n);
	if (!v) {
		an->oom = true;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_runtime);
	dropped = total_dropped(an);

	if (fmt == OUT_JSON) {
		fprintf(out, "{\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
			", \"span_ns\": %" PRIu64 ",\n", an->started ? start : 0,
			an->started ? end : 0, span);
		fprintf(out, "\"records\": {\"total\": %" PRIu64 ", \"switches\": %"
			PRIu64 ", \"wakeups\": %" PRIu64 ", \"unknown_skipped\": %"
			PRIu64 ", \"reorder_oom\": %" PRIu64 ", \"late_skipped\": %"
			PRIu64 ", \"late_holes\": %" PRIu64 "},\n", an->io.records,
			an->io.switches, an->io.wakeups, an->io.skipped,
			an->io.reorder_oom, an->io.late, an->io.late_holes);
		json_losses(out, an);
		fprintf(out, ",\n\"running_at_end\": %" PRIu64 ",\n",
			an->running_at_end);
		fputs("\"malformed\": ", out);
		if (an->io.malformed) {
			fprintf(out, "{\"offset\": %zu, \"message\": ", an->io.error.offset);
			json_str(out, an->io.error.message);
			fputs("}", out);
		} else {
			fputs("null", out);
		}
		fputs(",\n\"cpus\": [", out);
		for (c = 0, i = 0; c < an->ncpus; c++) {
			struct cpu *p = &an->cpus[c];
			uint64_t known = p->busy + p->idle;

			if (!p->seen)
				continue;
			fprintf(out, "%s\n  {\"cpu\": %u, \"busy_ns\": %" PRIu64
				", \"idle_ns\": %" PRIu64 ", \"busy_share\": %.6f"
				", \"switches\": %" PRIu64 ", \"running_at_end\": %s"
				", \"unknown_ns\": %" PRIu64 "}",
				i++ ? "," : "", c, p->busy, p->idle,
				known ? (double)p->busy / (double)known : 0.0,
				p->switches, p->running_at_end ? "true" : "false",
				p->unknown);
		}
		fputs("],\n\"threads\": [", out);
		for (i = 0; i < n; i++) {
			struct thread *t = v[i];

			if (!active(t) || (limit && shown >= limit))
				continue;
			fprintf(out, "%s\n  {\"tid\": %" PRIu64 ", \"pid\": %" PRIu64
				", \"name\": ", shown++ ? "," : "", t->tid, t->pid);
			json_str(out, t->name);
			fprintf(out, ", \"runtime_ns\": %" PRIu64 ", \"switches\": %"
				PRIu64 ", \"voluntary\": %" PRIu64 ", \"involuntary\": %"
				PRIu64 ", \"migrations\": %" PRIu64 ", \"wakeups\": %"
				PRIu64 ", \"running_at_end\": %" PRIu32 "}", t->runtime,
				t->switches, t->voluntary, t->involuntary,
				t->migrations, t->wakeups, t->running_at_end);
		}
		fputs("]}\n", out);
	} else if (fmt == OUT_CSV) {
		/* running_at_end: the text's and JSON's note, per row (the
		 * CPU rows' sum is theirs), where a script reading every
		 * row alike finds it; then unknown_ns, a CPU row's time in
		 * holes. Each was added last, so the columns before it are
		 * as they were for a script that reads them by position. */
		fputs("record,id,pid,name,runtime_ns,idle_ns,switches,voluntary,involuntary,migrations,wakeups,running_at_end,unknown_ns\n", out);
		for (c = 0; c < an->ncpus; c++)
			if (an->cpus[c].seen)
				fprintf(out, "cpu,%u,,,%" PRIu64 ",%" PRIu64 ",%" PRIu64
					",,,,,%d,%" PRIu64 "\n", c, an->cpus[c].busy,
					an->cpus[c].idle, an->cpus[c].switches,
					an->cpus[c].running_at_end,
					an->cpus[c].unknown);
		for (i = 0; i < n; i++) {
			struct thread *t = v[i];

			if (!active(t) || (limit && shown >= limit))
				continue;
			shown++;
			fprintf(out, "thread,%" PRIu64 ",%" PRIu64 ",", t->tid, t->pid);
			csv_str(out, t->name);
			fprintf(out, ",%" PRIu64 ",,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",\n", t->runtime,
				t->switches, t->voluntary, t->involuntary,
				t->migrations, t->wakeups, t->running_at_end);
		}
	} else {
		bool raw = an->text_ns, holes = an->holes || an->skip_holes;
		char s1[DUR_LEN], s2[DUR_LEN], d[2][DUR_LEN];

		print_trace_start(an, out);
		fprintf(out, "time span: %s .. %s (%s)\n",
			fmt_time(s1, an->started ? start - an->t0 : 0, raw),
			fmt_time(s2, an->started ? end - an->t0 : 0, raw),
			fmt_dur(d[0], span, raw));
		fprintf(out, "records: %" PRIu64 " (%" PRIu64 " %s, %" PRIu64
			" %s, %" PRIu64 " of unknown types skipped)\n",
			an->io.records, an->io.switches,
			sc_plural(an->io.switches, "context switch",
				  "context switches"),
			an->io.wakeups,
			sc_plural(an->io.wakeups, "wakeup", "wakeups"),
			an->io.skipped);
		fprintf(out, "records dropped: %" PRIu64, dropped);
		per_cpu(out, an, an->ncpu_dropped, cpu_dropped, false);
		fprintf(out, " (%" PRIu64 " buffer-full provider %s)\n",
			an->drop_events,
			sc_plural(an->drop_events, "event", "events"));
		if (an->holes) {
			fprintf(out, "records lost (records_lost markers): %" PRIu64
				" in %" PRIu64 " %s", an->lost, an->holes,
				sc_plural(an->holes, "hole", "holes"));
			per_cpu(out, an, an->ncpus, cpu_lost, false);
			fputc('\n', out);
		}
		if (an->skip_holes) {
			fprintf(out, "invalid ring data skipped (fxt-collect's bytes_skipped markers): %"
				PRIu64 " %s in %" PRIu64 " %s", an->skipped,
				sc_plural(an->skipped, "byte", "bytes"),
				an->skip_holes,
				sc_plural(an->skip_holes, "hole", "holes"));
			per_cpu(out, an, an->ncpus, cpu_skipped, false);
			fputc('\n', out);
		}
		print_not_counted(an, out);
		/* their end is the trace's, not a switch: a reader should
		 * know that the runtime of these goes on beyond it */
		if (an->running_at_end)
			fprintf(out, "still running at the trace's end: %" PRIu64
				" %s, counted up to it\n", an->running_at_end,
				sc_plural(an->running_at_end, "slice", "slices"));
		if (an->io.reorder_oom)
			fprintf(out, "reorder buffer out of memory (records handed on early): %"
				PRIu64 "\n", an->io.reorder_oom);
		if (an->io.late)
			fprintf(out, "records %s (skipped): %" PRIu64 "\n",
				sc_late_where(&an->io), an->io.late);
		if (an->io.late_holes)
			fprintf(out, "holes %s (applied late): %" PRIu64 "\n",
				sc_late_where(&an->io), an->io.late_holes);
		if (an->io.malformed)
			fprintf(out, "stopped at a malformed record: offset %zu: %s\n",
				an->io.error.offset, an->io.error.message);
		/*
		 * With holes, busy and idle leave out the time from a hole's
		 * start to the CPU's next switch: the unknown column shows
		 * it, so that the three add up to the CPU's time, and the
		 * note says what busy% is a share of. Without holes it
		 * would be 0 on every row: left out.
		 */
		fprintf(out, "\n%5s %16s %16s %7s %10s%s\n", "CPU", "busy",
			"idle", "busy%", "switches", holes ?
			"          unknown" : "");
		for (c = 0; c < an->ncpus; c++) {
			struct cpu *p = &an->cpus[c];
			uint64_t known = p->busy + p->idle;

			if (!p->seen)
				continue;
			fprintf(out, "%5u %16s %16s %6.2f%% %10" PRIu64, c,
				fmt_dur(d[0], p->busy, raw),
				fmt_dur(d[1], p->idle, raw),
				known ? 100.0 * (double)p->busy / (double)known : 0.0,
				p->switches);
			if (holes)
				fprintf(out, " %16s", fmt_dur(d[0], p->unknown, raw));
			fputc('\n', out);
		}
		if (holes)
			fputs("unknown: what ran from a hole's start to the CPU's next context switch\n"
			      "(or the trace's end) is not known; busy% is of busy + idle, the known time\n", out);
		/*
		 * The NAME column as wide as the widest name shown, in bytes
		 * (as text_name_col() pads: a multi-byte UTF-8 character
		 * takes one column but counts its bytes): a comm is at most
		 * 15 bytes, but a name read from /proc need not be
		 * ("kworker/u4:0-events_unbound").
		 */
		for (i = 0; i < n; i++) {
			if (!active(v[i]))
				continue;
			listed++;
			if (limit && shown >= limit)
				continue;
			shown++;
			w = fxt_fput_escaped(NULL, v[i]->name,
					     strlen(v[i]->name), 0);
			if (w > width)
				width = w;
		}
		shown = 0;
		fprintf(out, "\n%8s %8s %-*s %16s %10s %10s %10s %10s %8s\n",
			"TID", "PID", (int)width, "NAME", "runtime",
			"switches", "voluntary", "involunt.", "migrations",
			"wakeups");
		for (i = 0; i < n; i++) {
			struct thread *t = v[i];

			if (!active(t) || (limit && shown >= limit))
				continue;
			shown++;
			fprintf(out, "%8" PRIu64 " %8" PRIu64 " ", t->tid,
				t->pid);
			text_name_col(out, t->name, width);
			fprintf(out, " %16s %10" PRIu64 " %10" PRIu64
				" %10" PRIu64 " %10" PRIu64 " %8" PRIu64 "\n",
				fmt_dur(d[0], t->runtime, raw), t->switches,
				t->voluntary,
				t->involuntary, t->migrations, t->wakeups);
		}
		/* a list cut by -n says so, as latency -T and -P do: how
		 * many more, and the -n that lists them (at most 100000) */
		if (shown < listed)
			fprintf(out, "%zu more %s not listed (the list holds those with the most runtime); -n %zu lists %s\n",
				listed - shown,
				sc_plural(listed - shown, "thread", "threads"),
				listed > 100000 ? (size_t)100000 : listed,
				listed > 100000 ? "the 100000 with the most" :
				"them all");
	}
	free(v);
}
