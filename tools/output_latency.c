/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output_latency.c - fxt-sched latency's report in text, JSON and CSV:
 * the wakeup and preemption latency distributions (percentiles and log2
 * histograms) of the selected threads, per process (-P) and per thread
 * (-T), ranked and cut by -n. The helpers it shares with the other
 * reports are in output.c, declared in output_internal.h.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "analysis.h"
#include "output_internal.h"

static const char *const kind_title[LAT_KINDS] = {
	"wakeup-to-run latency", "preemption-to-run latency"
};
static const char *const kind_json[LAT_KINDS] = {
	"wakeup_latency_ns", "preempt_latency_ns"
};

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
