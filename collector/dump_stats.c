// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dump_stats.c - what fxt-dump counts in a trace, and --summary: every
 * record read, in every mode, is counted into struct stats (dump.h): by
 * type and kind, per CPU, the time span, the threads seen and named, the
 * records_dropped counters, the records_lost and bytes_skipped holes per
 * CPU. print_summary() prints it all (--summary), print_counts() the
 * counts by type on --check's OK line.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "fxt_read.h"
#include "tid_set.h"

/*
 * @ts ticks at @tps per second, in seconds; whole seconds and the rest
 * apart, since a tick count past 2^53 loses its low digits in one double.
 */
static double ticks_to_s(uint64_t ts, uint64_t tps)
{
	return (double)(ts / tps) + (double)(ts % tps) / (double)tps;
}

/*
 * A timestamp in ticks of the reader's current provider. One tick rate
 * (fxt-collect's traces): compare ticks, exactly and cheaply. From the
 * first timestamp of another rate on, only seconds compare.
 */
static void note_ts(struct stats *st, const struct fxt_reader *r, uint64_t ts)
{
	uint64_t tps = fxt_reader_ticks_per_second(r);
	double sec;

	if (!st->have_ts) {
		st->first_ts = st->last_ts = ts;
		st->ts_rate = tps;
		st->have_ts = true;
		return;
	}
	if (!st->mixed_rates && tps == st->ts_rate) {
		if (ts < st->first_ts)
			st->first_ts = ts;
		if (ts > st->last_ts)
			st->last_ts = ts;
		return;
	}
	if (!st->mixed_rates) {
		st->first_s = ticks_to_s(st->first_ts, st->ts_rate);
		st->last_s = ticks_to_s(st->last_ts, st->ts_rate);
		st->mixed_rates = true;
	}
	sec = ticks_to_s(ts, tps);
	if (sec < st->first_s) {
		st->first_ts = ts;
		st->first_s = sec;
	}
	if (sec > st->last_s) {
		st->last_ts = ts;
		st->last_s = sec;
	}
}

static void note_tid(struct stats *st, struct tid_set *set, uint64_t tid)
{
	if (tid_set_add(set, tid) < 0)
		st->oom = true;
}

/* A tid from scheduling data; tid 0 (idle) has no slot, the set is quick. */
static void note_seen(struct stats *st, uint64_t tid)
{
	uint64_t *slot = &st->seen_cache[tid % SEEN_SLOTS];

	if (tid && *slot == tid)
		return;
	if (tid_set_add(&st->seen_tids, tid) < 0) {
		st->oom = true;
		return;
	}
	*slot = tid;
}

/* Count one scheduling record on its CPU. */
static void note_cpu(struct stats *st, unsigned int cpu, bool is_switch)
{
	uint64_t *sw, *wk;
	unsigned int n;

	if (cpu >= st->ncpus) {
		n = cpu + 1;
		sw = realloc(st->cpu_switches, n * sizeof(*sw));
		if (sw)
			st->cpu_switches = sw;
		wk = realloc(st->cpu_wakeups, n * sizeof(*wk));
		if (wk)
			st->cpu_wakeups = wk;
		if (!sw || !wk) {
			st->oom = true;
			return;
		}
		memset(sw + st->ncpus, 0, (n - st->ncpus) * sizeof(*sw));
		memset(wk + st->ncpus, 0, (n - st->ncpus) * sizeof(*wk));
		st->ncpus = n;
	}
	if (is_switch)
		st->cpu_switches[cpu]++;
	else
		st->cpu_wakeups[cpu]++;
}

/* FNV-1a: where drop_slots holds the counter named @name. */
static size_t drop_hash(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ULL;
	return (size_t)h;
}

/* The slot of the counter named @name, or the empty one it would take. */
static size_t *drop_slot(const struct stats *st, const char *name, size_t len)
{
	size_t mask = 2 * st->drops_cap - 1, i = drop_hash(name, len) & mask;
	const struct drop_counter *d;

	for (;; i = (i + 1) & mask) {
		if (!st->drop_slots[i])
			return &st->drop_slots[i];
		d = &st->drops[st->drop_slots[i] - 1];
		if (d->len == len && !memcmp(d->name, name, len))
			return &st->drop_slots[i];
	}
}

/*
 * Room for more drop counters (fxt-collect names one per CPU), and their
 * slots, always at most half full.
 */
static int grow_drops(struct stats *st)
{
	size_t cap = st->drops_cap ? st->drops_cap * 2 : 64, i;
	struct drop_counter *d;
	size_t *slots;

	if (cap > SIZE_MAX / 2 / sizeof(*d))
		return -1;
	slots = calloc(2 * cap, sizeof(*slots));
	if (!slots)
		return -1;
	d = realloc(st->drops, cap * sizeof(*d));
	if (!d) {
		free(slots);
		return -1;
	}
	free(st->drop_slots);
	st->drop_slots = slots;
	st->drops = d;
	st->drops_cap = cap;
	for (i = 0; i < st->ndrops; i++)
		*drop_slot(st, d[i].name, d[i].len) = i + 1;
	return 0;
}

/* Remember the latest value of each "records_dropped" counter argument. */
static void note_drop_counter(struct stats *st, const struct fxt_record *rec)
{
	const struct fxt_arg *a;
	const char *name;
	unsigned int i;
	size_t j, len, *slot;

	if (rec->event.type != FXT_EVENT_COUNTER ||
	    !fxt_str_eq(&rec->event.name, "records_dropped"))
		return;
	for (i = 0; i < rec->nargs; i++) {
		a = &rec->args[i];
		if (a->type != FXT_ARG_UINT64 && a->type != FXT_ARG_INT64)
			continue;
		/* An undefined name (lenient mode) has no text: count it as "". */
		name = a->name.text ? a->name.text : "";
		len = a->name.text ? a->name.len : 0;
		if (st->ndrops == st->drops_cap && grow_drops(st) < 0) {
			st->oom = true;
			continue;
		}
		slot = drop_slot(st, name, len);
		j = *slot ? *slot - 1 : st->ndrops;
		if (j == st->ndrops) {
			/* Whole: names that differ past any length stay apart. */
			st->drops[j].name = malloc(len ? len : 1);
			if (!st->drops[j].name) {
				st->oom = true;
				continue;
			}
			st->drops[j].len = len;
			st->drops[j].value = 0;
			*slot = ++st->ndrops;
			/*
			 * Copied once the entry is counted: if the mapped
			 * file shrank under the name (read_guarded()), the
			 * copy is cut short, and free_stats() still frees it.
			 */
			memcpy(st->drops[j].name, name, len);
		}
		/*
		 * The last sample, not the largest: a counter starts again
		 * from 0 when the module is reloaded, and a trace appended
		 * after that one ends with the new count.
		 */
		st->drops[j].value = a->v.u64;
	}
}

/* @a + @b, at most UINT64_MAX (a file can claim any amounts). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* One more hole of @amount in @c. */
static void count_hole(struct hole_count *c, uint64_t amount)
{
	c->amount = add_sat(c->amount, amount);
	c->holes++;
}

/* The CPU's hole, if one is open, is closed: its records resume. */
static void close_hole(struct stats *st, struct cpu_holes *h)
{
	st->hole_totals.lost.open -= h->lost.open;
	st->hole_totals.skipped.open -= h->skipped.open;
	h->lost.open = 0;
	h->skipped.open = 0;
}

/* Count a records_lost or bytes_skipped marker (struct cpu_holes). */
static void note_hole_marker(struct stats *st, const struct fxt_record *rec)
{
	struct hole_count *c, *all;
	struct cpu_holes *h;
	uint64_t amount;
	uint32_t cpu;
	unsigned int n;
	bool skipped;

	if (!fxt_loss_marker(rec, &cpu, &amount, &skipped))
		return;
	if (!amount) {
		/* the end of a hole (a CPU never in one has no entry) */
		if (cpu < st->nhole_cpus)
			close_hole(st, &st->holes[cpu]);
		return;
	}
	if (cpu >= st->nhole_cpus) {
		n = cpu + 1;
		h = realloc(st->holes, n * sizeof(*h));
		if (!h) {
			st->oom = true;
			return;
		}
		memset(h + st->nhole_cpus, 0, (n - st->nhole_cpus) * sizeof(*h));
		st->holes = h;
		st->nhole_cpus = n;
	}
	h = &st->holes[cpu];
	c = skipped ? &h->skipped : &h->lost;
	all = skipped ? &st->hole_totals.skipped : &st->hole_totals.lost;
	if (!h->lost.open && !h->skipped.open) {
		c->open = 1;
		all->open++;
	}
	count_hole(c, amount);
	count_hole(all, amount);
}

/* A thread of a legacy switch, unless its ref was undefined (no tid). */
static void note_seen_ref(struct stats *st, const struct fxt_reader *r,
			  const struct fxt_thread_ref *t)
{
	if (!thread_undefined(r, t))
		note_seen(st, t->tid);
}

/*
 * @r: the reader @rec came from (its tick rate). Every timestamp the
 * reader decodes counts for the time span: events (and a duration
 * complete's end), scheduling records of all three kinds, logs, and large
 * blobs with metadata.
 */
void note_record(struct stats *st, const struct fxt_reader *r,
			const struct fxt_record *rec)
{
	const struct fxt_legacy_switch *ls = &rec->legacy_switch;
	const struct fxt_arg *waker;

	st->records++;
	st->by_type[rec->type]++;
	drop_samples_note(&st->drop_samples, rec);
	if (!rec->decoded)
		return;
	switch (rec->type) {
	case FXT_RECORD_METADATA:
		st->meta_by_kind[rec->kind]++;
		if (rec->kind == FXT_META_TRACE_INFO &&
		    rec->meta.trace_info_type == FXT_TRACE_INFO_MAGIC)
			st->magic++;
		if (rec->kind == FXT_META_PROVIDER_EVENT &&
		    rec->meta.event_id == FXT_PROVIDER_EVENT_BUFFER_FULL)
			st->buffer_full_events++;
		break;
	case FXT_RECORD_EVENT:
		st->events_by_kind[rec->kind]++;
		note_ts(st, r, rec->event.timestamp);
		if (rec->event.type == FXT_EVENT_DURATION_COMPLETE)
			note_ts(st, r, rec->event.data);	/* its end */
		note_drop_counter(st, rec);
		note_hole_marker(st, rec);
		break;
	case FXT_RECORD_KERNEL_OBJECT:
		if (rec->kobj.obj_type == FXT_OBJ_TYPE_THREAD)
			note_tid(st, &st->named_tids, rec->kobj.koid);
		else if (rec->kobj.obj_type == FXT_OBJ_TYPE_PROCESS)
			note_tid(st, &st->named_processes, rec->kobj.koid);
		break;
	case FXT_RECORD_SCHEDULING:
		st->sched_by_kind[rec->kind]++;
		if (rec->kind == FXT_SCHED_KIND_CONTEXT_SWITCH) {
			note_ts(st, r, rec->context_switch.timestamp);
			note_cpu(st, rec->context_switch.cpu, true);
			note_seen(st, rec->context_switch.outgoing_tid);
			note_seen(st, rec->context_switch.incoming_tid);
		} else if (rec->kind == FXT_SCHED_KIND_WAKEUP) {
			note_ts(st, r, rec->wakeup.timestamp);
			note_cpu(st, rec->wakeup.cpu, false);
			note_seen(st, rec->wakeup.woken_tid);
			waker = fxt_record_find_arg(rec, "waker");
			if (waker && waker->type == FXT_ARG_KOID)
				note_seen(st, waker->v.koid);
		} else if (rec->kind == FXT_SCHED_KIND_LEGACY_SWITCH) {
			note_ts(st, r, ls->timestamp);
			note_cpu(st, ls->cpu, true);
			note_seen_ref(st, r, &ls->outgoing);
			note_seen_ref(st, r, &ls->incoming);
		}
		break;
	case FXT_RECORD_LOG:
		note_ts(st, r, rec->log.timestamp);
		break;
	case FXT_RECORD_LARGE:
		if (rec->large_blob.format == FXT_LARGE_BLOB_WITH_METADATA)
			note_ts(st, r, rec->large_blob.timestamp);
		break;
	}
}

/* "magic 1, provider_info 1, ..., context_switch 10, wakeup 4" */
void print_counts(FILE *f, const struct stats *st)
{
	const char *sep = "";
	unsigned int t, k;

	for (t = 0; t < 16; t++) {
		if (!st->by_type[t])
			continue;
		if (t == FXT_RECORD_METADATA || t == FXT_RECORD_SCHEDULING) {
			const uint64_t *kinds = t == FXT_RECORD_METADATA ?
						st->meta_by_kind : st->sched_by_kind;
			uint64_t known = 0;

			if (t == FXT_RECORD_METADATA && st->magic) {
				fprintf(f, "%smagic %" PRIu64, sep, st->magic);
				sep = ", ";
			}
			for (k = 0; k < 16; k++) {
				uint64_t count = kinds[k];

				known += count;
				if (t == FXT_RECORD_METADATA && k == FXT_META_TRACE_INFO)
					count -= st->magic;
				if (!count)
					continue;
				fprintf(f, "%s%s %" PRIu64, sep,
					t == FXT_RECORD_SCHEDULING ? fxt_sched_kind_name(k) :
					fxt_metadata_type_name(k), count);
				sep = ", ";
			}
			if (st->by_type[t] > known) {
				fprintf(f, "%s%s(other) %" PRIu64, sep,
					fxt_record_type_name(t), st->by_type[t] - known);
				sep = ", ";
			}
			continue;
		}
		if (!strcmp(fxt_record_type_name(t), "unknown"))
			fprintf(f, "%stype%u %" PRIu64, sep, t, st->by_type[t]);
		else
			fprintf(f, "%s%s %" PRIu64, sep, fxt_record_type_name(t),
				st->by_type[t]);
		sep = ", ";
	}
}

static const char *holes_word(uint64_t n)
{
	return n == 1 ? "hole" : "holes";
}

/*
 * "  records lost (records_lost markers): 9 in 3 holes; cpu0 7
 * (2 holes) cpu1 2 (1 hole)", or ": none". @skipped: the bytes_skipped
 * line instead. Holes still open at the end of the trace are said after
 * their count, in all and per CPU ("9 in 3 holes, 1 still open at the
 * end; ... cpu1 2 (1 hole, 1 still open at the end)"), and only then:
 * a trace whose holes all closed reads as it always did.
 */
static void print_holes(const struct stats *st, bool skipped)
{
	const struct hole_count *t = skipped ? &st->hole_totals.skipped :
					       &st->hole_totals.lost;
	unsigned int cpu;

	fputs(skipped ? "  bytes skipped (fxt-collect's bytes_skipped markers): " :
			"  records lost (records_lost markers): ", stdout);
	if (!t->holes) {
		puts("none");
		return;
	}
	printf("%" PRIu64 " in %" PRIu64 " %s", t->amount, t->holes,
	       holes_word(t->holes));
	if (t->open)
		printf(", %" PRIu64 " still open at the end", t->open);
	putchar(';');
	for (cpu = 0; cpu < st->nhole_cpus; cpu++) {
		const struct hole_count *c = skipped ? &st->holes[cpu].skipped :
						       &st->holes[cpu].lost;

		if (!c->holes)
			continue;
		printf(" cpu%u %" PRIu64 " (%" PRIu64 " %s", cpu, c->amount,
		       c->holes, holes_word(c->holes));
		if (c->open)
			printf(", %" PRIu64 " still open at the end", c->open);
		putchar(')');
	}
	putchar('\n');
}

/* The summary; a total that memory ran out for sets @st->oom. */
void print_summary(struct stats *st, const char *path, size_t len)
{
	uint64_t unnamed = 0, *tids;
	long n, i;
	unsigned int cpu;

	printf("%s: %zu bytes, %" PRIu64 " records\n", path, len, st->records);
	fputs("  records: ", stdout);
	print_counts(stdout, st);
	putchar('\n');
	if (st->have_ts && !st->mixed_rates)
		printf("  time span: %.9f s (timestamps %" PRIu64 " .. %" PRIu64 ", %" PRIu64 " ticks/s)\n",
		       (double)(st->last_ts - st->first_ts) / (double)st->ts_rate,
		       st->first_ts, st->last_ts, st->ts_rate);
	else if (st->have_ts)
		printf("  time span: %.9f s (%.9f .. %.9f s: providers with different tick rates)\n",
		       st->last_s - st->first_s, st->first_s, st->last_s);
	for (cpu = 0; cpu < st->ncpus; cpu++)
		if (st->cpu_switches[cpu] || st->cpu_wakeups[cpu])
			printf("  cpu%u: %" PRIu64 " context switches, %" PRIu64 " wakeups\n",
			       cpu, st->cpu_switches[cpu], st->cpu_wakeups[cpu]);
	n = tid_set_sorted(&st->seen_tids, &tids);
	for (i = 0; i < n; i++)
		if (tids[i] && !tid_set_contains(&st->named_tids, tids[i]))
			unnamed++;
	free(tids);
	if (n < 0)
		st->oom = true;	/* the count below is not 0 but unknown */
	printf("  threads: %zu seen in scheduling records (tid 0 = idle included), %zu named, ",
	       st->seen_tids.count, st->named_tids.count);
	if (n >= 0)
		printf("%" PRIu64, unnamed);
	else
		fputs("(out of memory: not counted)", stdout);
	printf(" seen but unnamed; processes: %zu named\n", st->named_processes.count);
	if (st->ndrops || st->buffer_full_events) {
		printf("  records dropped: %" PRIu64 " buffer-full events;", st->buffer_full_events);
		for (i = 0; i < (long)st->ndrops; i++) {
			const struct fxt_str name = {
				.text = st->drops[i].name, .len = st->drops[i].len,
			};

			putchar(' ');
			print_name(&name);	/* as in the record lines */
			printf(" %" PRIu64, st->drops[i].value);
		}
		putchar('\n');
	} else if (st->hole_totals.lost.holes || st->hole_totals.skipped.holes) {
		/* Not "none": the markers below say what was lost. */
		puts("  records dropped: no records_dropped counter or buffer-full event");
	} else {
		puts("  records dropped: none reported");
	}
	print_holes(st, false);
	print_holes(st, true);
	if (st->oom)
		puts("  (out of memory: some totals are incomplete)");
}

void free_stats(struct stats *st)
{
	size_t i;

	free(st->cpu_switches);
	free(st->cpu_wakeups);
	for (i = 0; i < st->ndrops; i++)
		free(st->drops[i].name);
	free(st->drops);
	free(st->drop_slots);
	free(st->holes);
	tid_set_free(&st->seen_tids);
	tid_set_free(&st->named_tids);
	tid_set_free(&st->named_processes);
}
