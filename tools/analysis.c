/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * analysis.c - the scheduler state machine behind fxt-sched: per-CPU and
 * per-thread state, latency intervals, holes, the time window (the model
 * and its incomplete periods are described in analysis.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"

enum { ST_UNKNOWN, ST_RUNNING, ST_SLEEPING, ST_WAIT_WAKE, ST_WAIT_PREEMPT };

static const char *const kind_names[LAT_KINDS] = { "wakeup", "preempt" };

void analysis_init(struct analysis *an)
{
	memset(an, 0, sizeof(*an));
	an->win_to = UINT64_MAX;
}

void analysis_free(struct analysis *an)
{
	size_t i;

	for (i = 0; i < an->nthreads; i++) {
		qd_free(&an->threads[i].lat[0]);
		qd_free(&an->threads[i].lat[1]);
	}
	free(an->top);
	free(an->top_heap);
	free(an->ctx_scratch);
	free(an->threads);
	free(an->tindex);
	for (i = 0; i < an->ncpus; i++)
		free(an->cpus[i].hist);
	free(an->cpus);
	free(an->procs);
	free(an->pindex);
	free(an->cpu_dropped);
	if (an->intervals)
		fclose(an->intervals);
	memset(an, 0, sizeof(*an));
}

/* ---- tables ---- */

size_t hash_id(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

bool grow_id_index(uint32_t **idx, size_t *cap, size_t first_cap,
		   const void *entries, size_t n, size_t stride, size_t id_off)
{
	size_t ncap = *cap ? *cap * 2 : first_cap, i;
	uint32_t *nidx = calloc(ncap, sizeof(*nidx));
	uint64_t id;

	if (!nidx)
		return false;
	for (i = 0; i < n; i++) {
		memcpy(&id, (const char *)entries + i * stride + id_off,
		       sizeof(id));
		nidx[id_slot(nidx, ncap, id, entries, stride, id_off)] =
			(uint32_t)(i + 1);
	}
	free(*idx);
	*idx = nidx;
	*cap = ncap;
	return true;
}

/* The slot of @tid in the thread index (empty if absent). */
static size_t thread_slot(const struct analysis *an, uint64_t tid)
{
	return id_slot(an->tindex, an->tindex_cap, tid, an->threads,
		       sizeof(*an->threads), offsetof(struct thread, tid));
}

/* Rows in creation order: a later incarnation of a tid replaces the
 * earlier one's slot. */
static bool grow_index(struct analysis *an)
{
	return grow_id_index(&an->tindex, &an->tindex_cap, 1024, an->threads,
			     an->nthreads, sizeof(*an->threads),
			     offsetof(struct thread, tid));
}

struct thread *analysis_find(struct analysis *an, uint64_t tid)
{
	size_t h;

	if (!an->tindex_cap)
		return NULL;
	h = thread_slot(an, tid);
	return an->tindex[h] ? &an->threads[an->tindex[h] - 1] : NULL;
}

struct thread *analysis_row(struct analysis *an, uint32_t row)
{
	return row < an->nthreads ? &an->threads[row] : NULL;
}

/* A new row for @tid that the index points at from now on (the first
 * incarnation, or a new one), @unseen if a hole began since the tid was
 * last seen switching (see struct thread); -1 when out of memory. */
static long add_row(struct analysis *an, uint64_t tid, bool unseen)
{
	struct thread *t;
	size_t h;

	if (an->nthreads >= NO_ROW - 1)
		goto oom;
	if ((an->nthreads + 1) * 2 > an->tindex_cap && !grow_index(an))
		goto oom;
	if (an->nthreads == an->cap_threads) {
		size_t ncap = an->cap_threads ? an->cap_threads * 2 : 256;
		struct thread *n = realloc(an->threads, ncap * sizeof(*n));

		if (!n)
			goto oom;
		an->threads = n;
		an->cap_threads = ncap;
	}
	t = &an->threads[an->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->last_cpu = -1;
	t->unseen = unseen;
	t->holes_applied = an->hole_starts;
	t->waker_row = NO_ROW;
	qd_init(&t->lat[0]);
	qd_init(&t->lat[1]);
	h = thread_slot(an, tid);
	an->tindex[h] = (uint32_t)(++an->nthreads);
	return (long)an->nthreads - 1;
oom:
	an->oom = true;
	return -1;
}

/* Index of @tid's newest row, created if new; -1 when out of memory. A
 * thread first seen after a hole began may have been in it, its records
 * lost with the rest (woken, run and preempted unseen), as much as one
 * seen asleep before it: unseen. */
static long thread_idx(struct analysis *an, uint64_t tid)
{
	struct thread *t = analysis_find(an, tid);

	return t ? t - an->threads : add_row(an, tid, an->hole_starts > 0);
}

static struct cpu *get_cpu(struct analysis *an, uint32_t cpu)
{
	if (cpu >= an->ncpus) {
		uint32_t n = cpu + 1;
		struct cpu *c = realloc(an->cpus, n * sizeof(*c));

		if (!c) {
			an->oom = true;
			return NULL;
		}
		memset(c + an->ncpus, 0, (n - an->ncpus) * sizeof(*c));
		an->cpus = c;
		an->ncpus = n;
	}
	return &an->cpus[cpu];
}

static void set_name(char *dst, const char *text, size_t len)
{
	if (!text)
		len = 0;
	if (len >= NAME_MAX_LEN)
		len = NAME_MAX_LEN - 1;
	if (len)
		memcpy(dst, text, len);
	dst[len] = '\0';
}

static bool same_name(const char *name, const char *text, size_t len)
{
	if (!text)
		len = 0;
	if (len >= NAME_MAX_LEN)
		len = NAME_MAX_LEN - 1;
	return strlen(name) == len && !memcmp(name, text, len);
}

/* The slot of @pid in the process index (empty if absent). */
static size_t proc_slot(const struct analysis *an, uint64_t pid)
{
	return id_slot(an->pindex, an->pindex_cap, pid, an->procs,
		       sizeof(*an->procs), offsetof(struct name_entry, id));
}

static bool grow_proc_index(struct analysis *an)
{
	return grow_id_index(&an->pindex, &an->pindex_cap, 256, an->procs,
			     an->nprocs, sizeof(*an->procs),
			     offsetof(struct name_entry, id));
}

/* @procs stays in the order the pids were first named (fxt2json writes
 * them so); @pindex finds a pid's entry. */
static void set_proc_name(struct analysis *an, uint64_t pid,
			  const char *text, size_t len)
{
	size_t i, h;

	if (an->pindex_cap) {
		h = proc_slot(an, pid);
		if (an->pindex[h]) {
			set_name(an->procs[an->pindex[h] - 1].name, text, len);
			return;
		}
	}
	if (an->nprocs >= UINT32_MAX - 1)
		goto oom;
	if ((an->nprocs + 1) * 2 > an->pindex_cap && !grow_proc_index(an))
		goto oom;
	if (an->nprocs == an->cap_procs) {
		size_t ncap = an->cap_procs ? an->cap_procs * 2 : 64;
		struct name_entry *n = realloc(an->procs, ncap * sizeof(*n));

		if (!n)
			goto oom;
		an->procs = n;
		an->cap_procs = ncap;
	}
	i = an->nprocs;
	an->procs[i].id = pid;
	set_name(an->procs[i].name, text, len);
	h = proc_slot(an, pid);
	an->pindex[h] = (uint32_t)(++an->nprocs);
	return;
oom:
	an->oom = true;
}

const char *analysis_proc_name(const struct analysis *an, uint64_t pid)
{
	size_t h;

	if (!an->pindex_cap)
		return "";
	h = proc_slot(an, pid);
	return an->pindex[h] ? an->procs[an->pindex[h] - 1].name : "";
}

/* ---- metadata records ---- */

static void note_drop_counter(struct analysis *an, const struct fxt_record *rec)
{
	unsigned int i;

	for (i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];
		char num[16];
		unsigned long cpu;
		char *end;

		/* a count: a negative one is no writer's (fxt-collect's
		 * are int64 and never below 0) */
		if ((a->type != FXT_ARG_INT64 && a->type != FXT_ARG_UINT64) ||
		    (a->type == FXT_ARG_INT64 && a->v.i64 < 0) ||
		    !a->name.text || a->name.len < 4 || a->name.len > 12 ||
		    memcmp(a->name.text, "cpu", 3))
			continue;
		memcpy(num, a->name.text + 3, a->name.len - 3);
		num[a->name.len - 3] = '\0';
		cpu = strtoul(num, &end, 10);
		if (*end || end == num || cpu > 65535)
			continue;
		if (cpu >= an->ncpu_dropped) {
			uint32_t n = (uint32_t)cpu + 1;
			uint64_t *d = realloc(an->cpu_dropped, n * sizeof(*d));

			if (!d) {
				an->oom = true;
				return;
			}
			memset(d + an->ncpu_dropped, 0,
			       (n - an->ncpu_dropped) * sizeof(*d));
			an->cpu_dropped = d;
			an->ncpu_dropped = n;
		}
		if (a->v.u64 > an->cpu_dropped[cpu])
			an->cpu_dropped[cpu] = a->v.u64;
	}
}

/* Collector metadata, in file order (names and kernel loss markers come
 * through analysis_sched(), in time order). */
void analysis_record(void *ctx, const struct fxt_record *rec, uint64_t ts,
		     uint64_t tps)
{
	struct analysis *an = ctx;

	(void)ts;
	(void)tps;
	drop_samples_note(&an->drop_samples, rec);
	switch (rec->type) {
	case FXT_RECORD_METADATA:
		if (rec->kind == FXT_META_PROVIDER_EVENT &&
		    rec->meta.event_id == FXT_PROVIDER_EVENT_BUFFER_FULL)
			an->drop_events++;
		break;
	case FXT_RECORD_EVENT:
		if (rec->event.type == FXT_EVENT_COUNTER &&
		    fxt_str_eq(&rec->event.name, "records_dropped"))
			note_drop_counter(an, rec);
		break;
	default:
		break;
	}
}

/* ---- the scheduling state machine ---- */

static bool in_window(const struct analysis *an, uint64_t ts)
{
	return ts >= an->win_from && ts < an->win_to;
}

/* Length of [s, e) inside the window. */
static uint64_t clipped(const struct analysis *an, uint64_t s, uint64_t e)
{
	if (s < an->win_from)
		s = an->win_from;
	if (e > an->win_to)
		e = an->win_to;
	return e > s ? e - s : 0;
}

static bool tid_wanted(const struct analysis *an, uint64_t tid)
{
	size_t i;

	if (!an->f.ntids)
		return true;
	for (i = 0; i < an->f.ntids; i++)
		if (an->f.tids[i] == tid)
			return true;
	return false;
}

bool analysis_selected(const struct analysis *an, const struct thread *t)
{
	/* the pid as every output shows it: 0 when unknown, so that --pid 0
	 * selects the threads listed with pid 0 (the idle tasks are no
	 * threads: never selected) */
	uint64_t pid = t->pid_known ? t->pid : 0;
	size_t i;

	if (!tid_wanted(an, t->tid))
		return false;
	if (an->f.npids) {
		for (i = 0; i < an->f.npids; i++)
			if (an->f.pids[i] == pid)
				break;
		if (i == an->f.npids)
			return false;
	}
	if (an->f.comm && fnmatch(an->f.comm, t->name, 0) != 0)
		return false;
	return true;
}

static void push_segment(struct analysis *an, struct cpu *c, uint64_t end,
			 bool lost)
{
	struct seg *s;

	if (!an->top_n)
		return;
	if (!c->hist) {
		c->hist = calloc(CPU_HISTORY, sizeof(*c->hist));
		if (!c->hist) {
			an->oom = true;
			return;
		}
	}
	s = &c->hist[c->head];
	s->tid = c->cur;
	s->row = c->cur_row;
	s->idle = c->cur_idle;
	s->lost = lost;
	s->start = c->since;
	s->end = end;
	c->head = (c->head + 1) % CPU_HISTORY;
	if (c->nhist < CPU_HISTORY)
		c->nhist++;
}

/*
 * fill_context()'s scratch space: every task's time in one interval of
 * top, added up over the CPU's segments (at most CPU_HISTORY tasks) in a
 * hash table of twice that many slots. A slot is in use in the current
 * call only if its stamp is the call's: nothing is cleared between calls.
 */
#define CTX_SLOTS	(2 * CPU_HISTORY)

struct ctx_sum {
	uint64_t tid, ns;
	uint32_t row, slices;
	uint32_t newest;	/* its newest slice's age (0: the CPU's newest) */
	bool idle;
};

struct ctx_scratch {
	struct ctx_sum sum[CPU_HISTORY];
	uint32_t stamp[CTX_SLOTS];
	uint16_t idx[CTX_SLOTS];	/* into @sum */
	uint32_t gen;
};

/* Does @x rank before @y: the larger time; equal ones, the one that ran
 * last. */
static bool ctx_before(const struct ctx_sum *x, const struct ctx_sum *y)
{
	return x->ns != y->ns ? x->ns > y->ns : x->newest < y->newest;
}

/*
 * What ran on @c during [start, end]: every task's time in it (idle is one
 * task, the others told apart by row, and by tid where out of memory left
 * a segment without a row), the TOP_CTX largest listed in @e->ctx, the
 * rest summed in @e->other_ns and @e->other_slices. O(segments + tasks *
 * TOP_CTX).
 */
static void fill_context(struct analysis *an, struct cpu *c, struct top_entry *e)
{
	struct ctx_scratch *x = an->ctx_scratch;
	struct ctx_sum best[TOP_CTX];
	unsigned int k, j, n = 0, m = 0;

	e->nctx = 0;
	e->other_ns = 0;
	e->other_slices = 0;
	e->lost_ns = 0;
	e->truncated = true;
	if (c->hist && !x) {
		x = an->ctx_scratch = calloc(1, sizeof(*x));
		if (!x) {
			an->oom = true;
			return;
		}
	}
	if (x && ++x->gen == 0) {	/* the stamps wrapped: start again */
		memset(x->stamp, 0, sizeof(x->stamp));
		x->gen = 1;
	}
	for (k = 0; c->hist && k < c->nhist; k++) {
		const struct seg *s = &c->hist[(c->head + CPU_HISTORY - 1 - k) %
					       CPU_HISTORY];
		uint64_t a = s->start > e->start ? s->start : e->start;
		uint64_t b = s->end < e->end ? s->end : e->end;
		uint64_t tid = s->idle ? 0 : s->tid;
		uint32_t row = s->idle ? NO_ROW : s->row;
		size_t h;

		if (s->end <= e->start || s->start <= e->start) {
			if (s->start <= e->start)
				e->truncated = false;
			if (s->end <= e->start)
				break;
		}
		if (b <= a)
			continue;
		if (s->lost) {
			e->lost_ns += b - a;
			continue;
		}
		h = s->idle ? 0 : hash_id(tid ^ ((uint64_t)row << 32), CTX_SLOTS);
		for (;;) {
			struct ctx_sum *t = &x->sum[x->idx[h]];

			if (x->stamp[h] != x->gen) {
				x->stamp[h] = x->gen;
				x->idx[h] = (uint16_t)n;
				t = &x->sum[n++];
				t->idle = s->idle;
				t->tid = tid;
				t->row = row;
				t->ns = 0;
				t->slices = 0;
				t->newest = k;
				break;
			}
			if (t->idle == s->idle && t->row == row && t->tid == tid)
				break;
			h = (h + 1) & (CTX_SLOTS - 1);
		}
		x->sum[x->idx[h]].ns += b - a;
		x->sum[x->idx[h]].slices++;
	}
	if (e->start == e->end)
		e->truncated = false;
	if (e->lost_ns)
		e->truncated = true;
	/* the TOP_CTX largest, in order; each one pushed out, to the rest */
	for (k = 0; k < n; k++) {
		const struct ctx_sum *t = &x->sum[k];

		if (m == TOP_CTX) {
			if (!ctx_before(t, &best[m - 1])) {
				e->other_ns += t->ns;
				e->other_slices += t->slices;
				continue;
			}
			m--;
			e->other_ns += best[m].ns;
			e->other_slices += best[m].slices;
		}
		for (j = m; j > 0 && ctx_before(t, &best[j - 1]); j--)
			best[j] = best[j - 1];
		best[j] = *t;
		m++;
	}
	for (e->nctx = 0; e->nctx < m; e->nctx++) {
		struct ctx_task *d = &e->ctx[e->nctx];
		const struct ctx_sum *t = &best[e->nctx];

		d->tid = t->tid;
		d->row = t->row;
		d->idle = t->idle;
		d->ns = t->ns;
		d->slices = t->slices;
	}
}

bool top_ranks_before(const struct top_entry *x, const struct top_entry *y)
{
	if (x->latency != y->latency)
		return x->latency > y->latency;
	if (x->end != y->end)
		return x->end < y->end;
	return x->tid < y->tid;
}

/* top_heap: a min-heap of @top's indices, the entry that ranks last on
 * top. */
static bool heap_less(const struct analysis *an, uint32_t a, uint32_t b)
{
	return top_ranks_before(&an->top[b], &an->top[a]);
}

static void top_sift_up(struct analysis *an, unsigned int i)
{
	uint32_t *h = an->top_heap, v = h[i];

	while (i) {
		unsigned int p = (i - 1) / 2;

		if (!heap_less(an, v, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = v;
}

static void top_sift_down(struct analysis *an, unsigned int i)
{
	uint32_t *h = an->top_heap, v = h[i];
	unsigned int n = an->ntop;

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && heap_less(an, h[c + 1], h[c]))
			c++;
		if (!heap_less(an, h[c], v))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/*
 * One interval for top: it enters the list of the top_n worst if the list
 * is not full or it ranks before the list's last one (which it replaces);
 * only then is its context gathered. O(log top_n); memory grows with the
 * entries kept, at most top_n.
 */
static void note_top(struct analysis *an, struct thread *t, int kind,
		     uint64_t start, uint64_t end, uint32_t cpu)
{
	uint32_t row = (uint32_t)(t - an->threads);
	struct top_entry key, *e;
	uint32_t slot;

	if (an->top_rows ? row >= an->ntop_rows || !an->top_rows[row] :
			   !tid_wanted(an, t->tid))
		return;
	key.latency = end - start;
	key.end = end;
	key.tid = t->tid;
	if (an->ntop == an->top_n) {
		slot = an->top_heap[0];
		if (!top_ranks_before(&key, &an->top[slot]))
			return;
	} else {
		if (an->ntop == an->cap_top) {
			unsigned int ncap = an->cap_top ? an->cap_top * 2 : 64;
			struct top_entry *ne;
			uint32_t *nh;

			if (ncap > an->top_n)
				ncap = an->top_n;
			ne = realloc(an->top, ncap * sizeof(*ne));
			if (ne)
				an->top = ne;
			nh = ne ? realloc(an->top_heap, ncap * sizeof(*nh)) : NULL;
			if (!nh) {
				an->oom = true;
				return;
			}
			an->top_heap = nh;
			an->cap_top = ncap;
		}
		slot = an->ntop;
	}
	e = &an->top[slot];
	e->kind = kind;
	e->tid = t->tid;
	e->row = row;
	e->latency = key.latency;
	e->start = start;
	e->end = end;
	e->cpu = cpu;
	e->wake_cpu = t->wait_cpu;
	e->waker = t->waker;
	e->waker_row = t->waker_row;
	e->has_waker = kind == LAT_WAKEUP && t->has_waker;
	fill_context(an, &an->cpus[cpu], e);
	if (an->ntop == an->top_n) {
		top_sift_down(an, 0);
	} else {
		an->top_heap[an->ntop++] = slot;
		top_sift_up(an, an->ntop - 1);
	}
}

static int cmp_top(const void *a, const void *b)
{
	const struct top_entry *x = a, *y = b;

	return top_ranks_before(x, y) ? -1 : top_ranks_before(y, x);
}

struct top_entry *analysis_top(struct analysis *an, size_t *n)
{
	struct top_entry *v = malloc((an->ntop + 1) * sizeof(*v));
	unsigned int i;

	*n = 0;
	if (!v)
		return NULL;
	/* the rows were chosen as the intervals came (the --tid filter, or
	 * the first pass's selection): this is the same test, at the end */
	for (i = 0; i < an->ntop; i++)
		if (analysis_selected(an, &an->threads[an->top[i].row]))
			v[(*n)++] = an->top[i];
	qsort(v, *n, sizeof(*v), cmp_top);
	return v;
}

const char *analysis_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/* An unnamed file in analysis_tmpdir() (tmpfile() ignores $TMPDIR):
 * O_TMPFILE, or where the kernel or file system lacks it, a mkostemp()
 * file removed at once. */
static FILE *tmp_in_tmpdir(void)
{
	const char *dir = analysis_tmpdir();
	size_t len = strlen(dir);
	char *path;
	FILE *f;
	int fd, err;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		path = malloc(len + sizeof("/fxt-sched.XXXXXX"));
		if (!path)
			return NULL;
		memcpy(path, dir, len);
		memcpy(path + len, "/fxt-sched.XXXXXX", sizeof("/fxt-sched.XXXXXX"));
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		err = errno;
		free(path);
		errno = err;
		if (fd < 0)
			return NULL;
	}
	f = fdopen(fd, "w+");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

int analysis_spool_intervals(struct analysis *an)
{
	an->intervals = tmp_in_tmpdir();
	return an->intervals ? 0 : -1;
}

/*
 * The holes begun since @t was last brought up to date, applied to it now:
 * do_lost() only counts them, so that a hole costs O(1), not a walk over
 * the threads. At each one a thread waiting was tainted, and one not
 * running became unseen: flags only set, from @st alone, so applying them
 * once now is applying them at each hole if @st has not changed since. It
 * has not: it changes only in switch_in(), switch_out(), start_clock()
 * (from switch_out() and do_wakeup()) and where do_lost() makes the thread
 * running on the hole's CPU unknown, and each of those applies the holes
 * first, as does every other reader or writer of @st, @tainted and
 * @unseen.
 */
static void apply_holes(const struct analysis *an, struct thread *t)
{
	if (t->holes_applied == an->hole_starts)
		return;
	t->holes_applied = an->hole_starts;
	if (t->st == ST_WAIT_WAKE || t->st == ST_WAIT_PREEMPT)
		t->tainted = true;
	/* a dead one too: its tid may be taken by a thread begun there */
	if (t->st != ST_RUNNING)
		t->unseen = true;
}

/* Start a latency clock: @st is ST_WAIT_WAKE or ST_WAIT_PREEMPT. A clock
 * started in an incomplete period cannot be trusted to see its end; one
 * started by a wakeup of a thread that may have been woken in a hole
 * (@t->unseen), to be the start of the wait. */
static void start_clock(struct analysis *an, struct thread *t, uint8_t st,
			uint64_t ts, uint32_t cpu)
{
	t->st = st;
	t->since = ts;
	t->wait_cpu = cpu;
	t->has_waker = false;
	t->before_start = !an->switch_seen;
	t->tainted = t->before_start || an->holes_open || t->unseen;
}

/* A wakeup at @ts from @cpu (by @waker if @has_waker) starts @t's wait. */
static void start_wakeup_wait(struct analysis *an, struct thread *t,
			      uint64_t ts, uint32_t cpu, uint64_t waker,
			      bool has_waker)
{
	start_clock(an, t, ST_WAIT_WAKE, ts, cpu);
	t->waker = waker;
	t->has_waker = has_waker;
	t->waker_row = NO_ROW;
	if (has_waker) {
		struct thread *w = analysis_find(an, waker);

		t->waker_row = w ? (uint32_t)(w - an->threads) : NO_ROW;
	}
}

/* A wait of @t's that ends at @end on @cpu: its distribution, the
 * intervals' file, top. */
static void count_interval(struct analysis *an, struct thread *t, int kind,
			   uint64_t end, uint32_t cpu)
{
	qd_add(&t->lat[kind], end - t->since);
	if (an->intervals)
		fprintf(an->intervals,
			"%td,%s,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			t - an->threads, kind_names[kind], cpu, t->wait_cpu,
			t->since, end, end - t->since);
	if (an->top_n)
		note_top(an, t, kind, t->since, end, cpu);
}

/* @first: the trace's first context switch */
static void switch_in(struct analysis *an, struct thread *t,
		      const struct sc_event *ev, bool first)
{
	int kind = -1;

	apply_holes(an, t);
	if (t->st == ST_WAIT_WAKE)
		kind = LAT_WAKEUP;
	else if (t->st == ST_WAIT_PREEMPT)
		kind = LAT_PREEMPT;
	if (kind >= 0 && in_window(an, ev->ts)) {
		/* Not by timestamp: a wakeup as old as the first switch
		 * may come before it in the file. */
		if (t->tainted && t->before_start)
			an->skipped_start++;
		else if (t->tainted)
			an->skipped_hole++;
	} else if (t->unseen && in_window(an, ev->ts) &&
		   (t->st == ST_SLEEPING ||
		    (t->st == ST_UNKNOWN && t->last_cpu >= 0))) {
		/* seen blocking, dying (its tid taken by a new thread) or
		 * running where a hole began, switched in with no wakeup
		 * seen: it was woken, or switched out, in a hole, and waited
		 * from there */
		an->skipped_hole++;
	}
	if (kind >= 0 && !t->tainted && in_window(an, ev->ts))
		count_interval(an, t, kind, ev->ts, ev->cpu);
	/* asleep, or never seen (taken as asleep), and no wakeup seen: one
	 * with this timestamp may follow in the file (do_wakeup()); not
	 * where a wakeup first would not have been counted either */
	t->in_unwoken = kind < 0 && !t->unseen && !an->holes_open &&
			in_window(an, ev->ts) &&
			(t->st == ST_SLEEPING ||
			 (t->st == ST_UNKNOWN && t->last_cpu < 0));
	t->in_unwoken_first = first;
	t->in_unwoken_at = ev->ts;
	t->in_unwoken_cpu = ev->cpu;
	if (t->last_cpu >= 0 && t->last_cpu != (int64_t)ev->cpu &&
	    in_window(an, ev->ts))
		t->migrations++;
	t->st = ST_RUNNING;
	t->tainted = false;
	t->unseen = false;
	t->dead = false;
	t->gone = false;
	t->last_cpu = ev->cpu;
	t->has_waker = false;
	t->woken_running = false;
}

static void switch_out(struct analysis *an, struct thread *t,
		       const struct sc_event *ev)
{
	apply_holes(an, t);
	/* known from here, unless a hole is open: one that blocks now may
	 * be woken there unseen */
	t->unseen = an->holes_open > 0;
	if (in_window(an, ev->ts)) {
		t->switches++;
		if (ev->state == FXT_THREAD_STATE_RUNNING)
			t->involuntary++;
		else
			t->voluntary++;
	}
	if (ev->state == FXT_THREAD_STATE_RUNNING) {
		start_clock(an, t, ST_WAIT_PREEMPT, ev->ts, ev->cpu);
	} else {
		t->st = ST_SLEEPING;
		t->tainted = false;
		if (ev->state == FXT_THREAD_STATE_DYING ||
		    ev->state == FXT_THREAD_STATE_DEAD)
			t->dead = true;
		if (ev->state == FXT_THREAD_STATE_DEAD)
			t->gone = true;
		/* woken at this very time while it seemed to run: the
		 * wakeup is after this switch-out (see struct thread) */
		if (t->woken_running && t->woken_at == ev->ts && !t->dead)
			start_wakeup_wait(an, t, t->woken_at, t->woken_cpu,
					  t->woken_waker, t->woken_has_waker);
	}
	t->woken_running = false;
	t->last_cpu = ev->cpu;
}

/*
 * The CPU's known segment from c->since to @ts, clipped to the window,
 * counted as idle, or as busy and its thread's runtime. Returns whether
 * a thread ran in it.
 */
static bool count_segment(struct analysis *an, struct cpu *c, uint64_t ts)
{
	uint64_t d = clipped(an, c->since, ts);
	struct thread *cur;

	if (c->cur_idle) {
		c->idle += d;
		return false;
	}
	cur = analysis_row(an, c->cur_row);
	c->busy += d;
	if (cur)
		cur->runtime += d;
	return d != 0;
}

/* The CPU's current segment ends at @ts (what the CPU says ran). */
static void close_segment(struct analysis *an, struct cpu *c, uint64_t ts)
{
	if (!c->known) {
		/* what ran since the hole began is not known: say so in
		 * the history, for the intervals that reach into it, and
		 * count it, for the summary's CPU time to add up */
		if (c->lost_since && ts > c->since) {
			c->unknown += clipped(an, c->since, ts);
			push_segment(an, c, ts, true);
		}
		c->lost_since = false;
		return;
	}
	count_segment(an, c, ts);
	push_segment(an, c, ts, false);
}

/*
 * A new row for the tid of @t, whose thread another took it from: the new
 * thread may have begun in a hole since @t was last seen switching (@t
 * unseen, its holes applied) or in one open now. @t may move: use the
 * index. -1 when out of memory.
 */
static long next_incarnation(struct analysis *an, const struct thread *t)
{
	return add_row(an, t->tid, t->unseen || an->holes_open > 0);
}

/*
 * The row of @tid's thread when a switch-in, a switch-out or a wakeup
 * names it: the tid's newest row, unless that thread switched out dying
 * or dead. A task does that once, in its last switch (TASK_DEAD), and is
 * never woken, run or switched out again: the tid was reused by a thread
 * whose new_task record is not in the trace (lost in a hole, or a
 * producer that writes none), which starts a row of its own, as in
 * do_name(). Its state until this record: @st. -1 when out of memory.
 */
static long live_thread_idx(struct analysis *an, uint64_t tid, uint8_t st)
{
	struct thread *t = analysis_find(an, tid);
	long i;

	if (!t || !t->dead)
		return thread_idx(an, tid);
	apply_holes(an, t);
	i = next_incarnation(an, t);
	if (i >= 0)
		an->threads[i].st = st;
	return i;
}

/*
 * A new thread did not run before its first wakeup (wake_up_new_task()):
 * asleep until then. So a switch-in with no wakeup seen, after a hole, is
 * a wait that went unmeasured there (switch_in()), as the dead row's
 * state said.
 */
static long woken_thread_idx(struct analysis *an, uint64_t tid)
{
	return live_thread_idx(an, tid, ST_SLEEPING);
}

static void do_switch(struct analysis *an, const struct sc_event *ev)
{
	struct cpu *c = get_cpu(an, ev->cpu);
	bool out_idle = ev->flags & SC_OUT_IDLE, in_idle = ev->flags & SC_IN_IDLE;
	bool first = !an->switch_seen;
	long oi = -1, ii = -1;

	if (!c)
		return;
	if (!an->switch_seen) {
		an->switch_seen = true;
		an->first_switch = ev->ts;
	}
	/* A switch-out of a dead thread's tid: a new thread's, which ran
	 * unseen (in a hole) until now. */
	if (!out_idle)
		oi = live_thread_idx(an, ev->a, ST_RUNNING);
	if (!in_idle)
		ii = woken_thread_idx(an, ev->b);
	if (!c->seen) {
		c->seen = true;
		c->first_ts = ev->ts;
	}
	c->last_ts = ev->ts;
	if (in_window(an, ev->ts))
		c->switches++;
	close_segment(an, c, ev->ts);
	if (oi >= 0)
		switch_out(an, &an->threads[oi], ev);
	if (ii >= 0)
		switch_in(an, &an->threads[ii], ev, first);
	c->known = true;
	c->cur = in_idle ? 0 : ev->b;
	c->cur_row = ii >= 0 ? (uint32_t)ii : NO_ROW;
	c->cur_idle = in_idle;
	c->since = ev->ts;
}

/*
 * A wakeup at the very time @t was switched in with no wakeup seen
 * (switch_in()): it came first, whatever the file's order (records of two
 * CPUs with equal timestamps are in no particular order, and a thread
 * asleep runs only once woken). The wait it began ended there, 0 ns: it
 * is counted as switch_in() would have, had the wakeup come first.
 */
static void wakeup_tied_with_switch_in(struct analysis *an, struct thread *t,
				       const struct sc_event *ev)
{
	t->in_unwoken = false;
	if (t->in_unwoken_first) {	/* begun before the first switch */
		an->skipped_start++;
		return;
	}
	start_wakeup_wait(an, t, ev->ts, ev->cpu, ev->waker,
			  ev->flags & SC_HAS_WAKER);
	count_interval(an, t, LAT_WAKEUP, ev->ts, t->in_unwoken_cpu);
	t->st = ST_RUNNING;
	t->tainted = false;
	t->before_start = false;
	t->has_waker = false;
}

static void do_wakeup(struct analysis *an, const struct sc_event *ev)
{
	struct thread *t;
	long i;

	if (ev->a == 0)
		return;
	i = woken_thread_idx(an, ev->a);
	if (i < 0)
		return;
	t = &an->threads[i];
	apply_holes(an, t);
	if (in_window(an, ev->ts))
		t->wakeups++;
	/* Linux traces wakeups of tasks still on a runqueue (ttwu_runnable:
	 * running, or preempted): those start no clock. A thread whose
	 * state is unknown (no switch of it seen yet) is taken as sleeping:
	 * if it was running its next record is a switch-out, which ends
	 * nothing; if it was runnable, the interval is a lower bound. A
	 * switch-out blocked at the same time still makes it a wait (the
	 * file order of equal times is arbitrary): kept for switch_out(). */
	if (t->st == ST_RUNNING) {
		if (t->in_unwoken && t->in_unwoken_at == ev->ts) {
			wakeup_tied_with_switch_in(an, t, ev);
			return;
		}
		if (!t->woken_running || t->woken_at != ev->ts) {
			t->woken_running = true;
			t->woken_at = ev->ts;
			t->woken_cpu = ev->cpu;
			t->woken_waker = ev->waker;
			t->woken_has_waker = ev->flags & SC_HAS_WAKER;
		}
		return;
	}
	/* Already waiting: the clock runs on. Unless it is a clock that
	 * will not be counted (it began in, or ran into, an incomplete
	 * period): then the thread's state is in fact unknown, and a wakeup
	 * seen while the trace is complete again starts a clock of its own
	 * (not counted either if a hole was open since the thread was last
	 * seen switching: start_clock()). */
	if ((t->st == ST_WAIT_WAKE || t->st == ST_WAIT_PREEMPT) &&
	    (!t->tainted || !an->switch_seen || an->holes_open))
		return;
	start_wakeup_wait(an, t, ev->ts, ev->cpu, ev->waker,
			  ev->flags & SC_HAS_WAKER);
}

/*
 * A thread or process name, at its point of the trace. A thread row that
 * already has a name is renamed in place (exec, prctl), unless the record
 * shows the tid was reused: it says the thread begins here (new_task, the
 * module's record at its creation), or it names another process, or
 * another name after the thread died; or the row has no name and the
 * thread is gone (dead, not a zombie). Then the tid gets a new row from
 * here on.
 */
static void do_name(struct analysis *an, const struct sc_event *ev)
{
	bool has_pid = ev->flags & SC_HAS_PID;
	struct thread *t;
	long i;

	if (ev->state == FXT_OBJ_TYPE_PROCESS) {
		set_proc_name(an, ev->a, ev->name, ev->name_len);
		return;
	}
	if (ev->flags & SC_NEW_TASK) {
		/* The thread begins here (uapi, "Names": new_task): a row
		 * the tid has is an earlier thread's, and no hole before
		 * here holds anything of this one; only a hole open now
		 * may (woken, run and preempted there unseen). */
		i = add_row(an, ev->a, an->holes_open > 0);
		if (i < 0)
			return;
		t = &an->threads[i];
	} else {
		i = thread_idx(an, ev->a);
		if (i < 0)
			return;
		t = &an->threads[i];
		apply_holes(an, t);
		/* An unnamed thread takes its first name even dying: a
		 * zombie stays in /proc, where fxt-collect may name it;
		 * once dead (gone from /proc), a name is another thread's. */
		if ((t->named && has_pid && t->pid_known && t->pid != ev->b) ||
		    (t->named && t->dead &&
		     !same_name(t->name, ev->name, ev->name_len)) ||
		    (!t->named && t->gone)) {
			i = next_incarnation(an, t);
			if (i < 0)
				return;
			t = &an->threads[i];
		}
	}
	set_name(t->name, ev->name, ev->name_len);
	t->named = true;
	if (has_pid) {
		t->pid = ev->b;
		t->pid_known = true;
	}
}

/*
 * @c's holes, from @c->hole_start to @end, are over: note whether they
 * reach into the window (@hole_in_window). A wait whose switch-in fell in
 * one is not seen at all, not even as one not counted: latency's and
 * top's warning says so unless no hole reaches into the window. One that
 * ends at the window's start does not: the records from there on are
 * whole. One of no length inside it does.
 */
static void note_hole_span(struct analysis *an, const struct cpu *c,
			   uint64_t end)
{
	if (c->hole_start < an->win_to &&
	    (c->hole_start >= an->win_from || end > an->win_from))
		an->hole_in_window = true;
}

/*
 * A kernel loss marker: CPU ev->cpu lost ev->a records from ev->ts on
 * (ev->a > 0), until the marker with 0. What that CPU ran from here on is
 * unknown until its next switch; every thread waiting now may be switched
 * in unseen on it, so its clock is not trusted; the thread running on it
 * may block there unseen, so its state is unknown. Every thread but those
 * running on other CPUs (which are complete: their next switch will be
 * seen) may be woken in the hole unseen, or run there and be preempted:
 * a wakeup of it seen later may not be the start of its wait (@unseen,
 * until it is next seen switching). Both are marked on each thread when it
 * is next looked at, by apply_holes(): here the hole is only counted
 * (@hole_starts), so it costs O(1), not a walk over the threads.
 */
static void do_lost(struct analysis *an, const struct sc_event *ev)
{
	struct cpu *c = get_cpu(an, ev->cpu);
	uint8_t kind = ev->flags & SC_SKIPPED ? HOLE_SKIPPED : HOLE_LOST;

	if (!c)
		return;
	/* A pair of one kind ends only its own hole: the kernel's and
	 * fxt-collect's may overlap on a CPU. */
	if (!ev->a) {
		if (c->in_holes & kind) {
			c->in_holes &= (uint8_t)~kind;
			an->holes_open--;
			if (!c->in_holes)
				note_hole_span(an, c, ev->ts);
		}
		return;
	}
	/* fxt-collect's holes count bytes, the kernel's records: apart */
	if (ev->flags & SC_SKIPPED) {
		c->skipped += ev->a;
		an->skipped += ev->a;
		c->skip_holes++;
		an->skip_holes++;
	} else {
		c->lost += ev->a;
		an->lost += ev->a;
		c->holes++;
		an->holes++;
	}
	if (!(c->in_holes & kind)) {
		if (!c->in_holes)
			c->hole_start = ev->ts;
		c->in_holes |= kind;
		an->holes_open++;
	}
	if (c->known && ev->ts >= c->since) {
		struct thread *cur = analysis_row(an, c->cur_row);

		close_segment(an, c, ev->ts);
		/* It may block in the hole, unseen: its state is unknown, so
		 * a wakeup seen after the hole starts a clock instead of
		 * being taken for one of a running thread. The earlier holes
		 * are applied with the state it had in them; this one, with
		 * the new one (counted below). */
		if (cur)
			apply_holes(an, cur);
		if (cur && cur->st == ST_RUNNING &&
		    cur->last_cpu == (int64_t)ev->cpu)
			cur->st = ST_UNKNOWN;
		c->known = false;
		c->lost_since = true;
		c->since = ev->ts;
	}
	an->hole_starts++;
}

/*
 * The trace ended: the slice each CPU was running then has no switch to
 * end it. It ends at the trace's last scheduling timestamp (@t_end, where
 * the summary's time span ends, and where fxt2json ends it too), else a
 * thread that never left its CPU (a CPU hog: who ran while others
 * waited) would have no runtime and its CPU none busy. A CPU in a hole
 * then runs nothing known: do_lost() closed its segment at the hole's
 * start, and the time since is unknown up to the end. The time window clips it like any other slice. The threads'
 * slices counted so (@running_at_end; per CPU and per thread for the
 * CSV's rows) are said in the summary, as their end is the trace's, not a
 * switch; but only where the window reaches beyond the trace's end. With
 * --to at or before it, the window's end cut the slice, as it cuts every
 * slice running at --to, ended by a later switch or not: what it counts
 * of it is exact, and the slice is not said to be still running.
 */
static void close_at_end(struct analysis *an)
{
	uint32_t i;

	for (i = 0; i < an->ncpus; i++) {
		struct cpu *c = &an->cpus[i];

		/* a hole with no second marker runs to the trace's end */
		if (c->in_holes)
			note_hole_span(an, c, an->t_end > c->hole_start ?
				       an->t_end : c->hole_start);
		/* a CPU in a hole at the end: not known up to it */
		if (!c->known && c->lost_since) {
			if (an->t_end > c->since)
				c->unknown += clipped(an, c->since, an->t_end);
			c->lost_since = false;
			continue;
		}
		if (!c->known || an->t_end < c->since)
			continue;
		if (count_segment(an, c, an->t_end) &&
		    an->t_end < an->win_to) {
			struct thread *cur = analysis_row(an, c->cur_row);

			an->running_at_end++;
			c->running_at_end = true;
			if (cur)
				cur->running_at_end++;
		}
		c->known = false;
	}
}

/* Every row brought up to date, so that @tainted and @unseen read after
 * analysis_run() are what a walk over the threads at each hole left. */
static void apply_holes_to_all(struct analysis *an)
{
	size_t i;

	for (i = 0; i < an->nthreads; i++)
		apply_holes(an, &an->threads[i]);
}

void analysis_finish(struct analysis *an)
{
	close_at_end(an);
	apply_holes_to_all(an);
}

/* @a + @b, or UINT64_MAX: a window past the clock's end is never reached. */
static uint64_t add_saturated(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

void analysis_sched(void *ctx, const struct sc_event *ev)
{
	struct analysis *an = ctx;

	if (ev->kind == SC_NAME) {
		do_name(an, ev);
		return;
	}
	if (ev->kind == SC_LOST) {
		do_lost(an, ev);
		return;
	}
	if (!an->started) {
		an->started = true;
		an->t0 = ev->ts;
		if (an->f.has_from)
			an->win_from = add_saturated(an->t0, an->f.from);
		if (an->f.has_to)
			an->win_to = add_saturated(an->t0, an->f.to);
	}
	if (ev->ts > an->t_end)
		an->t_end = ev->ts;
	if (ev->kind == SC_SWITCH)
		do_switch(an, ev);
	else
		do_wakeup(an, ev);
}

/*
 * sc_handler.reset: the input is read again with a wider reorder window
 * (sc_opts.widen). Everything learnt is forgotten; the options stay, and
 * the intervals' temporary file is emptied (its rows came from the pass
 * that skipped records).
 */
void analysis_reset(void *ctx)
{
	struct analysis *an = ctx, keep = *an;

	an->intervals = NULL;
	analysis_free(an);
	analysis_init(an);
	an->top_n = keep.top_n;
	an->f = keep.f;
	an->top_rows = keep.top_rows;
	an->ntop_rows = keep.ntop_rows;
	an->text_ns = keep.text_ns;
	an->passes = keep.passes;
	an->intervals = keep.intervals;
	an->spool_error = keep.spool_error;
	if (an->intervals && (fflush(an->intervals) ||
			      ftruncate(fileno(an->intervals), 0) ||
			      fseek(an->intervals, 0, SEEK_SET)))
		an->spool_error = true;
}

/* Between the passes of a filtered top: which rows the filters select,
 * now that every name and pid is known. */
struct two_pass {
	struct analysis first, *an;
	bool *rows;
};

uint64_t analysis_cut_end(const struct analysis *an, uint32_t *cpu)
{
	uint64_t end = UINT64_MAX;
	uint32_t i;

	if (!analysis_cut_short(an) || an->f.has_to || !an->started)
		return 0;
	for (i = 0; i < an->ncpus; i++)
		if (an->cpus[i].seen && an->cpus[i].last_ts < end) {
			end = an->cpus[i].last_ts;
			*cpu = i;
		}
	/* One CPU, or every one ending at the trace's last record: whole. */
	if (end == UINT64_MAX || end >= an->t_end || end <= an->t0)
		return 0;
	end -= an->t0;
	if (an->f.has_from && an->f.from >= end)
		return 0;
	return end;
}

/* Give @an the window's end analysis_cut_end() chose (not 0). */
static void set_cut_end(struct analysis *an, uint64_t end, uint32_t cpu)
{
	an->f.has_to = true;
	an->f.to = end;
	an->cut_to = true;
	an->cut_cpu = cpu;
}

/*
 * Between the passes of an unfiltered report: read the input again only
 * if it was cut short (analysis_cut_end()), everything forgotten but the
 * options and the window's new end.
 */
static bool reread_if_cut(void *ctx)
{
	struct analysis *an = ctx;
	uint32_t cpu = 0;
	uint64_t end = analysis_cut_end(an, &cpu);

	if (!end)
		return false;
	analysis_reset(an);
	set_cut_end(an, end, cpu);
	an->passes = 2;
	return true;
}

static bool select_rows(void *ctx)
{
	struct two_pass *tp = ctx;
	size_t i, n = tp->first.nthreads;
	uint32_t cpu = 0;
	uint64_t end = analysis_cut_end(&tp->first, &cpu);

	if (end)
		set_cut_end(tp->an, end, cpu);

	tp->rows = calloc(n + 1, sizeof(*tp->rows));
	if (!tp->rows) {
		tp->an->oom = true;
	} else {
		for (i = 0; i < n; i++)
			tp->rows[i] = analysis_selected(&tp->first,
							&tp->first.threads[i]);
		tp->an->top_rows = tp->rows;
		tp->an->ntop_rows = n;
	}
	if (tp->first.oom)
		tp->an->oom = true;
	analysis_free(&tp->first);
	return true;
}

/*
 * top keeps only the top_n worst intervals, in one heap, so an interval
 * must be known to belong to a selected thread when it comes. --tid says
 * so at once; --pid and --comm depend on names and pids that may come at
 * the end of the file (and a rename in place changes a row's name): then
 * a first pass, with no top, finds the rows selected, and a second one,
 * which makes the same rows in the same order, keeps the worst intervals
 * of those.
 */
int analysis_run(struct analysis *an, const char *path,
		 const struct sc_opts *opts)
{
	struct sc_handler h = { an, analysis_sched, analysis_record,
				analysis_reset };
	struct sc_handler h1;
	struct two_pass tp;
	int ret;

	if (!analysis_top_filtered(an)) {
		an->passes = 1;
		/* The second pass only for a cut-short trace. */
		ret = sc_run_twice(path, opts, &h, &an->io, reread_if_cut, an,
				   &h, &an->io);
		analysis_finish(an);
		return ret;
	}
	memset(&tp, 0, sizeof(tp));
	analysis_init(&tp.first);
	tp.first.f = an->f;
	tp.an = an;
	/* analysis_record(): whether the trace was cut short */
	h1 = (struct sc_handler){ &tp.first, analysis_sched, analysis_record,
				  analysis_reset };
	an->passes = 2;
	ret = sc_run_twice(path, opts, &h1, &tp.first.io, select_rows, &tp,
			   &h, &an->io);
	/* select_rows() freed it unless the first pass failed (an emptied
	 * one frees nothing) */
	analysis_free(&tp.first);
	an->top_rows = NULL;
	an->ntop_rows = 0;
	free(tp.rows);
	analysis_finish(an);
	return ret;
}
