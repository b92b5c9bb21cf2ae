/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output_intervals.c - fxt-sched latency --intervals: every latency
 * interval of the selected threads, read back from the file
 * analysis_spool_intervals() spooled them to, as CSV or JSON. The helpers
 * it shares with the other reports are in output.c, declared in
 * output_internal.h.
 */
#include <inttypes.h>

#include "analysis.h"
#include "output_internal.h"

void print_intervals(struct analysis *an, FILE *out, enum out_format fmt)
{
	char line[256], kind[16];
	unsigned long row;
	unsigned int cpu, wcpu;
	uint64_t start, end, lat;
	bool first = true;
	struct thread *t;

	if (fmt == OUT_JSON)
		fputs("{\"intervals\": [", out);
	else
		fputs("kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name\n", out);
	if (an->intervals && fflush(an->intervals) == 0)
		rewind(an->intervals);
	while (an->intervals && fgets(line, sizeof(line), an->intervals)) {
		if (sscanf(line, "%lu,%15[a-z],%u,%u,%" SCNu64 ",%" SCNu64 ",%" SCNu64,
			   &row, kind, &cpu, &wcpu, &start, &end, &lat) != 7)
			continue;
		t = analysis_row(an, (uint32_t)row);
		if (!t || !analysis_selected(an, t))
			continue;
		if (fmt == OUT_JSON) {
			fprintf(out, "%s\n  {\"kind\": \"%s\", \"tid\": %" PRIu64
				", \"pid\": %" PRIu64 ", \"name\": ", first ? "" : ",",
				kind, t->tid, t->pid);
			json_str(out, t->name);
			fprintf(out, ", \"cpu\": %u, \"wait_cpu\": %u, \"start_ns\": %"
				PRIu64 ", \"end_ns\": %" PRIu64 ", \"latency_ns\": %"
				PRIu64 "}", cpu, wcpu, start, end, lat);
		} else {
			fprintf(out, "%s,%" PRIu64 ",%u,%u,%" PRIu64 ",%" PRIu64 ",%"
				PRIu64 ",%" PRIu64 ",", kind, t->tid, cpu, wcpu,
				start, end, lat, t->pid);
			csv_str(out, t->name);
			fputc('\n', out);
		}
		first = false;
	}
	if (an->intervals && ferror(an->intervals))
		an->spool_error = true;
	if (fmt == OUT_JSON)
		fputs("]}\n", out);
}
