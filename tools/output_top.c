/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output_top.c - fxt-sched top's report in text, JSON and CSV: the worst
 * latencies, each with what ran on its CPU meanwhile. The helpers it
 * shares with the other reports are in output.c, declared in
 * output_internal.h.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "analysis.h"
#include "output_internal.h"

/*
 * A thread name inside top's ran_meanwhile list (tid:name:ns;...), itself
 * inside one quoted CSV field: '%', ';' and ':' are percent-encoded (%25,
 * %3B, %3A) so the list splits unambiguously, and '"' is doubled as the
 * CSV quoting asks.
 */
static void csv_list_name(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '%' || *s == ';' || *s == ':')
			fprintf(out, "%%%02X", (unsigned char)*s);
		else if (*s == '"')
			fputs("\"\"", out);
		else
			fputc(*s, out);
	}
}

static const char *rname(struct analysis *an, uint32_t row)
{
	struct thread *t = analysis_row(an, row);

	return t ? t->name : "";
}

static uint64_t rpid(struct analysis *an, uint32_t row)
{
	struct thread *t = analysis_row(an, row);

	return t ? t->pid : 0;
}

void print_top(struct analysis *an, FILE *out, enum out_format fmt)
{
	struct top_entry *all;
	size_t m;
	unsigned int j, shown;

	all = analysis_top(an, &m);
	if (!all) {
		an->oom = true;
		return;
	}
	shown = (unsigned int)(m < an->top_n ? m : an->top_n);

	if (fmt == OUT_JSON)
		fputs("{\"top\": [", out);
	else if (fmt == OUT_TEXT && shown)
		print_trace_start(an, out);
	else if (fmt == OUT_CSV)
		fputs("rank,kind,tid,pid,name,cpu,wait_cpu,waker,start_ns,end_ns,latency_ns,ran_meanwhile,other_ns,history_truncated\n", out);
	for (j = 0; j < shown; j++) {
		struct top_entry *e = &all[j];
		unsigned int c;

		if (fmt == OUT_JSON) {
			fprintf(out, "%s\n  {\"rank\": %u, \"kind\": \"%s\", \"tid\": %"
				PRIu64 ", \"pid\": %" PRIu64 ", \"name\": ",
				j ? "," : "", j + 1, kind_short[e->kind], e->tid,
				rpid(an, e->row));
			json_str(out, rname(an, e->row));
			fprintf(out, ", \"cpu\": %u, \"wait_cpu\": %u, \"waker\": ",
				e->cpu, e->wake_cpu);
			if (e->has_waker)
				fprintf(out, "%" PRIu64, e->waker);
			else
				fputs("null", out);
			fprintf(out, ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
				", \"latency_ns\": %" PRIu64 ", \"ran_meanwhile\": [",
				e->start, e->end, e->latency);
			for (c = 0; c < e->nctx; c++) {
				fprintf(out, "%s{\"tid\": %" PRIu64 ", \"idle\": %s, \"name\": ",
					c ? ", " : "", e->ctx[c].tid,
					e->ctx[c].idle ? "true" : "false");
				json_str(out, e->ctx[c].idle ? "idle" : rname(an, e->ctx[c].row));
				fprintf(out, ", \"ns\": %" PRIu64 ", \"slices\": %u}",
					e->ctx[c].ns, e->ctx[c].slices);
			}
			fprintf(out, "], \"other_ns\": %" PRIu64 ", \"history_truncated\": %s}",
				e->other_ns, e->truncated ? "true" : "false");
		} else if (fmt == OUT_CSV) {
			fprintf(out, "%u,%s,%" PRIu64 ",%" PRIu64 ",", j + 1,
				kind_short[e->kind], e->tid, rpid(an, e->row));
			csv_str(out, rname(an, e->row));
			fprintf(out, ",%u,%u,", e->cpu, e->wake_cpu);
			if (e->has_waker)
				fprintf(out, "%" PRIu64, e->waker);
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",\"",
				e->start, e->end, e->latency);
			for (c = 0; c < e->nctx; c++) {
				fprintf(out, "%s%" PRIu64 ":", c ? ";" : "",
					e->ctx[c].tid);
				csv_list_name(out, e->ctx[c].idle ? "idle" :
					      rname(an, e->ctx[c].row));
				fprintf(out, ":%" PRIu64, e->ctx[c].ns);
			}
			fprintf(out, "\",%" PRIu64 ",%d\n", e->other_ns, e->truncated);
		} else {
			const char *pname = analysis_proc_name(an, rpid(an, e->row));
			const char *tname = rname(an, e->row);
			bool raw = an->text_ns;
			char s[DUR_LEN], d[DUR_LEN];

			fprintf(out, "#%u %s latency %s: tid %" PRIu64, j + 1,
				kind_short[e->kind], fmt_dur(d, e->latency, raw),
				e->tid);
			text_name(out, tname);
			fprintf(out, " (pid %" PRIu64, rpid(an, e->row));
			text_name(out, pname);
			fprintf(out, ") on cpu %u\n", e->cpu);
			fprintf(out, "   runnable from %s until %s later; %s on cpu %u",
				fmt_time(s, e->start - an->t0, raw),
				fmt_dur(d, e->latency, raw),
				e->kind == LAT_WAKEUP ? "woken" : "preempted",
				e->wake_cpu);
			if (e->has_waker) {
				fprintf(out, " by tid %" PRIu64, e->waker);
				text_name(out, rname(an, e->waker_row));
			}
			fprintf(out, "\n   ran on cpu %u meanwhile:", e->cpu);
			for (c = 0; c < e->nctx; c++) {
				if (e->ctx[c].idle)
					fprintf(out, "%s idle %s (%u)",
						c ? "," : "",
						fmt_dur(d, e->ctx[c].ns, raw),
						e->ctx[c].slices);
				else {
					fprintf(out, "%s tid %" PRIu64, c ? "," : "",
						e->ctx[c].tid);
					text_name(out, rname(an, e->ctx[c].row));
					fprintf(out, " %s (%u)",
						fmt_dur(d, e->ctx[c].ns, raw),
						e->ctx[c].slices);
				}
			}
			if (e->other_slices)
				fprintf(out, ", %u more %s %s",
					e->other_slices,
					sc_plural(e->other_slices, "slice",
						  "slices"),
					fmt_dur(d, e->other_ns, raw));
			if (!e->nctx && !e->other_slices && !e->lost_ns)
				fputs(" nothing recorded", out);
			if (e->lost_ns)
				fprintf(out, " [history incomplete: a hole in the trace on cpu %u (records lost by the kernel, or ring data the collector skipped); what ran there for %s of it is not known]",
					e->cpu, fmt_dur(d, e->lost_ns, raw));
			else if (e->truncated)
				fputs(" [history incomplete: before the trace or beyond the kept history]", out);
			fputs("\n", out);
		}
	}
	if (fmt == OUT_JSON) {
		fputs("],\n", out);
		json_losses(out, an);
		fputs("}\n", out);
	} else if (fmt == OUT_TEXT && !shown) {
		fputs("no latency intervals\n", out);
	}
	free(all);
}
