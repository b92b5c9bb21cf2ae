/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output.c - text, JSON and CSV renderings of an analysis.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static const char *const kind_title[LAT_KINDS] = {
	"wakeup-to-run latency", "preemption-to-run latency"
};
static const char *const kind_json[LAT_KINDS] = {
	"wakeup_latency_ns", "preempt_latency_ns"
};
static const char *const kind_short[LAT_KINDS] = { "wakeup", "preempt" };

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

static void json_str(FILE *out, const char *s)
{
	json_write_string(out, s, s ? strlen(s) : 0);
}

static void csv_str(FILE *out, const char *s)
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

/*
 * A name in text output, after a space ("" prints nothing, not a stray
 * space): control bytes escaped as fxt-dump does (fxt_fput_escaped()), so
 * a comm set with prctl(PR_SET_NAME) can neither send escape sequences to
 * the terminal nor break a line or a table row.
 */
static void text_name(FILE *out, const char *s)
{
	if (*s) {
		fputc(' ', out);
		fxt_fput_escaped(out, s, strlen(s), 0);
	}
}

/* A name escaped as text_name(), padded with spaces to @width bytes. */
static void text_name_col(FILE *out, const char *s, size_t width)
{
	size_t n = fxt_fput_escaped(out, s, strlen(s), 0);

	for (; n < width; n++)
		fputc(' ', out);
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

struct pct {
	uint64_t p50, p90, p99, p999, max;
};

static struct pct percentiles(struct qdist *q)
{
	struct pct p = {
		qd_percentile(q, 50, 100), qd_percentile(q, 90, 100),
		qd_percentile(q, 99, 100), qd_percentile(q, 999, 1000), q->max,
	};
	return p;
}

/* Non-empty log2 range [*lo, *hi]; false if empty. */
static bool hist_range(const struct qdist *q, unsigned int *lo, unsigned int *hi)
{
	int i;

	if (!q->count)
		return false;
	for (i = 0; i < 64 && !q->log2[i]; i++)
		;
	*lo = (unsigned int)i;
	for (i = 63; i > 0 && !q->log2[i]; i--)
		;
	*hi = (unsigned int)i;
	return true;
}

static void json_dist(FILE *out, struct qdist *q)
{
	struct pct p = percentiles(q);
	unsigned int lo = 0, hi = 0, i;
	bool first = true;

	fprintf(out, "{\"count\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %"
		PRIu64 ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %"
		PRIu64 ", \"exact\": %s, \"hist\": [", q->count, p.p50, p.p90,
		p.p99, p.p999, p.max, qd_is_exact(q) ? "true" : "false");
	if (hist_range(q, &lo, &hi))
		for (i = lo; i <= hi; i++) {
			fprintf(out, "%s{\"low\": %" PRIu64 ", \"high\": %" PRIu64
				", \"count\": %" PRIu64 "}", first ? "" : ", ",
				qd_log2_low(i), qd_log2_high(i), q->log2[i]);
			first = false;
		}
	fputs("]}", out);
}

static void text_dist(FILE *out, const char *title, struct qdist *q,
		      bool raw)
{
	struct pct p = percentiles(q);
	unsigned int lo = 0, hi = 0, i, k, stars;
	uint64_t peak = 0;
	char bar[41], d[5][DUR_LEN];

	fprintf(out, "%s: %" PRIu64 " %s\n", title, q->count,
		sc_plural(q->count, "interval", "intervals"));
	if (!q->count) {
		fputc('\n', out);
		return;
	}
	fprintf(out, "  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%s\n",
		fmt_dur(d[0], p.p50, raw), fmt_dur(d[1], p.p90, raw),
		fmt_dur(d[2], p.p99, raw), fmt_dur(d[3], p.p999, raw),
		fmt_dur(d[4], p.max, raw),
		qd_is_exact(q) ? "" : "  (percentiles within 0.4%, see fxt-sched(1))");
	hist_range(q, &lo, &hi);
	for (i = lo; i <= hi; i++)
		if (q->log2[i] > peak)
			peak = q->log2[i];
	fprintf(out, "%24s : %-8s %-42s\n", "latency", "count", "distribution");
	for (i = lo; i <= hi; i++) {
		stars = (unsigned int)(q->log2[i] * 40 / peak);
		if (q->log2[i] && !stars)
			stars = 1;
		for (k = 0; k < 40; k++)
			bar[k] = k < stars ? '*' : ' ';
		bar[40] = '\0';
		fprintf(out, "%10s -> %-10s : %-8" PRIu64 " |%s|\n",
			fmt_dur(d[0], qd_log2_low(i), raw),
			fmt_dur(d[1], qd_log2_high(i), raw), q->log2[i], bar);
	}
	fputc('\n', out);
}

/* Intervals left out because the trace was incomplete around them. */
static bool print_not_counted(const struct analysis *an, FILE *out)
{
	if (!an->skipped_start && !an->skipped_hole)
		return false;
	fprintf(out, "not counted (all threads): %" PRIu64 " %s begun before the trace's first context switch, %" PRIu64 " across holes in the trace (records lost by the kernel, or ring data the collector skipped); see fxt-sched(1)\n",
		an->skipped_start,
		sc_plural(an->skipped_start, "interval", "intervals"),
		an->skipped_hole);
	return true;
}

static void csv_dist(FILE *out, const char *scope, uint64_t id, uint64_t pid,
		     const char *name, int kind, struct qdist *q)
{
	struct pct p = percentiles(q);

	fprintf(out, "%s,%" PRIu64 ",%" PRIu64 ",", scope, id, pid);
	csv_str(out, name);
	fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
		PRIu64 ",%" PRIu64 "\n", kind_short[kind], q->count, p.p50,
		p.p90, p.p99, p.p999, p.max);
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
static struct thread **selected(struct analysis *an, size_t *n)
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

struct proc_group {
	uint64_t pid;
	struct qdist lat[LAT_KINDS];
};

/* The processes of the threads @v with intervals, in the order of their
 * first such thread; an index of pids (id_slot()) finds a thread's
 * group. */
static struct proc_group *group_processes(struct thread **v, size_t n,
					  size_t *ng)
{
	struct proc_group *g = calloc(n + 1, sizeof(*g));
	size_t cap = 16, i, j, h;
	uint32_t *idx;
	int k;

	*ng = 0;
	while (cap < 2 * n)
		cap *= 2;
	idx = g && n < UINT32_MAX ? calloc(cap, sizeof(*idx)) : NULL;
	if (!idx) {
		free(g);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		uint64_t pid = v[i]->pid_known ? v[i]->pid : 0;

		/* a process is listed for its intervals, in every format */
		if (!v[i]->lat[0].count && !v[i]->lat[1].count)
			continue;
		h = id_slot(idx, cap, pid, g, sizeof(*g),
			    offsetof(struct proc_group, pid));
		if (idx[h]) {
			j = idx[h] - 1;
		} else {
			j = (*ng)++;
			idx[h] = (uint32_t)(j + 1);
			g[j].pid = pid;
			qd_init(&g[j].lat[0]);
			qd_init(&g[j].lat[1]);
		}
		for (k = 0; k < LAT_KINDS; k++)
			qd_merge(&g[j].lat[k], &v[i]->lat[k]);
	}
	free(idx);
	return g;
}

static void free_groups(struct proc_group *g, size_t ng)
{
	size_t i;

	for (i = 0; i < ng; i++) {
		qd_free(&g[i].lat[0]);
		qd_free(&g[i].lat[1]);
	}
	free(g);
}

static void json_losses(FILE *out, const struct analysis *an);

/* A thread's or process's longest wait, of either kind. */
static uint64_t worst_wait(const struct qdist *lat)
{
	return lat[0].max > lat[1].max ? lat[0].max : lat[1].max;
}

/*
 * latency -n's order: the longest wait first; of equal ones, the one with
 * more intervals, then the smaller id (a tid's incarnations, then, in
 * their order).
 */
static int rank_waits(const struct qdist *x, uint64_t xid,
		      const struct qdist *y, uint64_t yid)
{
	uint64_t wx = worst_wait(x), wy = worst_wait(y);
	uint64_t nx = x[0].count + x[1].count, ny = y[0].count + y[1].count;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return xid < yid ? -1 : xid > yid;
}

static int cmp_thread_waits(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;
	int r = rank_waits(x->lat, x->tid, y->lat, y->tid);

	return r ? r : (x < y ? -1 : x > y);
}

static int cmp_group_waits(const void *a, const void *b)
{
	const struct proc_group *x = a, *y = b;

	return rank_waits(x->lat, x->pid, y->lat, y->pid);
}

static bool has_intervals(const struct thread *t)
{
	return t->lat[0].count || t->lat[1].count;
}

/* After a list cut by -n in the text: how many more, and how to see them. */
static void text_not_listed(FILE *out, size_t total, size_t shown,
			    const char *one, const char *many)
{
	if (shown >= total)
		return;
	fprintf(out, "%zu more %s with intervals not listed (the list holds those with the longest waits); -n %zu lists %s\n",
		total - shown, sc_plural(total - shown, one, many),
		total > 100000 ? (size_t)100000 : total,
		total > 100000 ? "the 100000 worst" : "them all");
}

/* A thread's or process's latency row after its ids: name, dists, "}". */
static void json_lat_row_rest(FILE *out, const char *name,
			      struct qdist *lat)
{
	int k;

	fputs(", \"name\": ", out);
	json_str(out, name);
	for (k = 0; k < LAT_KINDS; k++) {
		fprintf(out, ", \"%s\": ", kind_json[k]);
		json_dist(out, &lat[k]);
	}
	fputs("}", out);
}

static void json_latency(FILE *out, struct analysis *an, struct qdist *all,
			 struct thread **tv, size_t nt, struct proc_group *g,
			 size_t ng)
{
	size_t i;
	int k;

	fputs("{", out);
	for (k = 0; k < LAT_KINDS; k++) {
		fprintf(out, "\"%s\": ", kind_json[k]);
		json_dist(out, &all[k]);
		fputs(",\n", out);
	}
	json_losses(out, an);
	fputs(",\n\"threads\": [", out);
	for (i = 0; i < nt; i++) {
		fprintf(out, "%s\n  {\"tid\": %" PRIu64 ", \"pid\": %" PRIu64,
			i ? "," : "", tv[i]->tid, tv[i]->pid);
		json_lat_row_rest(out, tv[i]->name, tv[i]->lat);
	}
	fputs("]", out);
	if (g) {
		fputs(",\n\"processes\": [", out);
		for (i = 0; i < ng; i++) {
			fprintf(out, "%s\n  {\"pid\": %" PRIu64, i ? "," : "",
				g[i].pid);
			json_lat_row_rest(out, analysis_proc_name(an, g[i].pid),
					  g[i].lat);
		}
		fputs("]", out);
	}
	fputs("}\n", out);
}

static void csv_latency(FILE *out, struct analysis *an, struct qdist *all,
			struct thread **tv, size_t nt, struct proc_group *g,
			size_t ng)
{
	size_t i;
	int k;

	fputs("scope,id,pid,name,kind,count,p50,p90,p99,p999,max\n", out);
	for (k = 0; k < LAT_KINDS; k++)
		csv_dist(out, "all", 0, 0, "", k, &all[k]);
	for (i = 0; i < ng; i++)
		for (k = 0; k < LAT_KINDS; k++)
			csv_dist(out, "process", g[i].pid, g[i].pid,
				 analysis_proc_name(an, g[i].pid), k,
				 &g[i].lat[k]);
	for (i = 0; i < nt; i++)
		for (k = 0; k < LAT_KINDS; k++)
			csv_dist(out, "thread", tv[i]->tid, tv[i]->pid,
				 tv[i]->name, k, &tv[i]->lat[k]);
}

static void text_latency(FILE *out, struct analysis *an, struct qdist *all,
			 enum lat_group group, struct thread **tv, size_t nt,
			 size_t nt_all, struct proc_group *g, size_t ng,
			 size_t ng_all)
{
	char title[192];
	const char *pname;	/* "" for a process without a name */
	size_t i;
	int k;

	for (k = 0; k < LAT_KINDS; k++)
		text_dist(out, kind_title[k], &all[k], an->text_ns);
	if (print_not_counted(an, out))
		fputc('\n', out);
	for (i = 0; i < ng; i++) {
		pname = analysis_proc_name(an, g[i].pid);
		fprintf(out, "pid = %" PRIu64, g[i].pid);
		text_name(out, pname);
		fputc('\n', out);
		for (k = 0; k < LAT_KINDS; k++) {
			snprintf(title, sizeof(title), "  %s", kind_title[k]);
			text_dist(out, title, &g[i].lat[k], an->text_ns);
		}
	}
	if (group == GROUP_PROCESS)
		text_not_listed(out, ng_all, ng, "process", "processes");
	for (i = 0; group == GROUP_THREAD && i < nt; i++) {
		pname = analysis_proc_name(an, tv[i]->pid);
		fprintf(out, "tid = %" PRIu64, tv[i]->tid);
		text_name(out, tv[i]->name);
		fprintf(out, " (pid %" PRIu64, tv[i]->pid);
		text_name(out, pname);
		fputs(")\n", out);
		for (k = 0; k < LAT_KINDS; k++) {
			snprintf(title, sizeof(title), "  %s", kind_title[k]);
			text_dist(out, title, &tv[i]->lat[k], an->text_ns);
		}
	}
	if (group == GROUP_THREAD)
		text_not_listed(out, nt_all, nt, "thread", "threads");
}

void print_latency(struct analysis *an, FILE *out, enum out_format fmt,
		   enum lat_group group, unsigned int limit)
{
	struct qdist all[LAT_KINDS];
	struct proc_group *g = NULL;
	struct thread **v;
	size_t n, nt = 0, nt_shown, ng = 0, ng_shown, i;
	int k;

	v = selected(an, &n);
	if (!v) {
		an->oom = true;
		return;
	}
	for (k = 0; k < LAT_KINDS; k++) {
		qd_init(&all[k]);
		for (i = 0; i < n; i++)
			qd_merge(&all[k], &v[i]->lat[k]);
	}
	if (group == GROUP_PROCESS) {
		g = group_processes(v, n, &ng);
		if (!g)
			an->oom = true;
	}
	/* the threads listed: those with intervals, by tid */
	for (i = 0; i < n; i++)
		if (has_intervals(v[i]))
			v[nt++] = v[i];
	/* -n (@limit): the group asked for, ranked and cut */
	nt_shown = nt;
	ng_shown = ng;
	if (limit && group == GROUP_THREAD) {
		qsort(v, nt, sizeof(*v), cmp_thread_waits);
		if (nt_shown > limit)
			nt_shown = limit;
	} else if (limit && g) {
		qsort(g, ng, sizeof(*g), cmp_group_waits);
		if (ng_shown > limit)
			ng_shown = limit;
	}

	if (fmt == OUT_JSON)
		json_latency(out, an, all, v, nt_shown, g, ng_shown);
	else if (fmt == OUT_CSV)
		csv_latency(out, an, all, v, nt_shown, g, ng_shown);
	else
		text_latency(out, an, all, group, v, nt_shown, nt, g, ng_shown,
			     ng);
	free_groups(g, ng);
	for (k = 0; k < LAT_KINDS; k++)
		qd_free(&all[k]);
	free(v);
}

/* ---- top ---- */

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

/* ---- summary ---- */

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
 * out for it) and "cut_short" (fxt-collect's closing records_dropped
 * sample is missing: the stderr warning of print_input_warnings()). No
 * separator after the last: the caller adds one.
 */
static void json_losses(FILE *out, const struct analysis *an)
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
	fprintf(out, "\"cut_short\": %s",
		analysis_cut_short(an) ? "true" : "false");
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
	size_t n, i, shown = 0, width = 16, w;
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
				", \"switches\": %" PRIu64 ", \"running_at_end\": %s}",
				i++ ? "," : "", c, p->busy, p->idle,
				known ? (double)p->busy / (double)known : 0.0,
				p->switches, p->running_at_end ? "true" : "false");
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
		/* running_at_end, last: the text's and JSON's note, per row
		 * (the CPU rows' sum is theirs), where a script reading
		 * every row alike finds it; the columns before it are as
		 * they were */
		fputs("record,id,pid,name,runtime_ns,idle_ns,switches,voluntary,involuntary,migrations,wakeups,running_at_end\n", out);
		for (c = 0; c < an->ncpus; c++)
			if (an->cpus[c].seen)
				fprintf(out, "cpu,%u,,,%" PRIu64 ",%" PRIu64 ",%" PRIu64
					",,,,,%d\n", c, an->cpus[c].busy,
					an->cpus[c].idle, an->cpus[c].switches,
					an->cpus[c].running_at_end);
		for (i = 0; i < n; i++) {
			struct thread *t = v[i];

			if (!active(t) || (limit && shown >= limit))
				continue;
			shown++;
			fprintf(out, "thread,%" PRIu64 ",%" PRIu64 ",", t->tid, t->pid);
			csv_str(out, t->name);
			fprintf(out, ",%" PRIu64 ",,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu32 "\n", t->runtime,
				t->switches, t->voluntary, t->involuntary,
				t->migrations, t->wakeups, t->running_at_end);
		}
	} else {
		bool raw = an->text_ns;
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
		fprintf(out, "\n%5s %16s %16s %7s %10s\n", "CPU", "busy",
			"idle", "busy%", "switches");
		for (c = 0; c < an->ncpus; c++) {
			struct cpu *p = &an->cpus[c];
			uint64_t known = p->busy + p->idle;

			if (!p->seen)
				continue;
			fprintf(out, "%5u %16s %16s %6.2f%% %10" PRIu64 "\n", c,
				fmt_dur(d[0], p->busy, raw),
				fmt_dur(d[1], p->idle, raw),
				known ? 100.0 * (double)p->busy / (double)known : 0.0,
				p->switches);
		}
		/*
		 * The NAME column as wide as the widest name shown, in bytes
		 * (as text_name_col() pads: a multi-byte UTF-8 character
		 * takes one column but counts its bytes): a comm is at most
		 * 15 bytes, but a name read from /proc need not be
		 * ("kworker/u4:0-events_unbound").
		 */
		for (i = 0; i < n; i++) {
			if (!active(v[i]) || (limit && shown >= limit))
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
	}
	free(v);
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
	if (analysis_cut_short(an) && !an->io.malformed)
		fprintf(err, "fxt-sched: warning: %s: fxt-collect's closing records_dropped sample is missing: the trace was cut short (fxt-collect killed, its output full, or the rest given up), so each CPU's records may stop at a different time, and a wait whose end was cut off on one CPU may show as a longer one that ended on another: distrust results near the end\n",
			path);
	if (an->oom)
		fprintf(err, "fxt-sched: warning: out of memory: some statistics are incomplete\n");
	if (an->spool_error)
		fprintf(err, "fxt-sched: warning: the temporary file holding the intervals could not be written or read back (is $TMPDIR full, or a file size limit, ulimit -f, reached?): the list is incomplete\n");
}

/* ---- intervals ---- */

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
