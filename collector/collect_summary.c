// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * collect_summary.c - how the session went, told at its end: the summary
 * on stderr (what was traced and written where; every loss, per CPU, with
 * what to do about it; the threads left unnamed) and fxt-collect's exit
 * status.
 *
 * A file of its own because it only reads the session, once tracing and
 * writing are over: what it says can change without touching how the trace
 * is made.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "collect_options.h"
#include "collect_session.h"
#include "collect_signals.h"
#include "cpu_list.h"
#include "ring_drain.h"

void human_bytes(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ULL << 20))
		snprintf(buf, size, "%.1f MiB", (double)bytes / (1 << 20));
	else if (bytes >= (1ULL << 10))
		snprintf(buf, size, "%.1f KiB", (double)bytes / (1 << 10));
	else
		snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
}

/*
 * Per-CPU list "cpu0 12, cpu3 4" of a counter, only CPUs where it is > 0,
 * ending in ", ..." if @buf is too small for all (cpu_list.h); the total
 * counts every CPU.
 */
static uint64_t per_cpu_list(const struct session *s, char *buf, size_t size,
			     uint64_t (*get)(const struct cpu_ring *))
{
	struct cpu_list list;
	uint64_t total = 0, v;
	unsigned int i;

	cpu_list_init(&list, buf, size);
	for (i = 0; i < s->nrings; i++) {
		v = get(&s->rings[i]);
		if (!v)
			continue;
		total += v;
		cpu_list_add(&list, s->rings[i].cpu, v);
	}
	return total;
}

static uint64_t get_dropped(const struct cpu_ring *r)
{
	return __atomic_load_n(&r->ctrl->records_dropped, __ATOMIC_RELAXED);
}

static uint64_t get_dropped_absent(const struct cpu_ring *r)
{
	return r->absent ? get_dropped(r) : 0;
}

static uint64_t get_absent(const struct cpu_ring *r)
{
	return r->absent;
}

static uint64_t get_consumer_errors(const struct cpu_ring *r)
{
	return __atomic_load_n(&r->ctrl->consumer_errors, __ATOMIC_RELAXED);
}

static uint64_t get_invalid(const struct cpu_ring *r)
{
	return r->ring.bad_producer + r->ring.corrupt;
}

static uint64_t get_producer_behind(const struct cpu_ring *r)
{
	return r->ring.producer_behind;
}

static uint64_t sum_per_cpu(const struct session *s,
			    uint64_t (*get)(const struct cpu_ring *))
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < s->nrings; i++)
		total += get(&s->rings[i]);
	return total;
}

/* Append ", <n> <what>" to @buf when @n is not zero. */
static void add_count(char *buf, size_t size, uint64_t n, const char *what)
{
	size_t len = strlen(buf);

	if (n && len < size)
		snprintf(buf + len, size - len, ", %llu %s",
			 (unsigned long long)n, what);
}

/*
 * "1234 records (600 context switches, 600 wakeups, 30 name records (2
 * written again in time order), 4 loss markers)": every kind there was.
 */
static void record_kinds(const struct session *s, char *buf, size_t size)
{
	struct ring sum = { 0 };
	char again[64] = "";
	unsigned int i;

	for (i = 0; i < s->nrings; i++) {
		sum.switches += s->rings[i].ring.switches;
		sum.wakeups += s->rings[i].ring.wakeups;
		sum.names += s->rings[i].ring.names;
		sum.loss_markers += s->rings[i].ring.loss_markers;
		sum.other_records += s->rings[i].ring.other_records;
	}
	snprintf(buf, size, "%llu records (%llu context switches, %llu wakeups",
		 (unsigned long long)(sum.switches + sum.wakeups + sum.names +
				      sum.loss_markers + sum.other_records),
		 (unsigned long long)sum.switches,
		 (unsigned long long)sum.wakeups);
	if (s->names_rewritten)
		snprintf(again, sizeof(again), "name records (%llu written again in time order)",
			 (unsigned long long)s->names_rewritten);
	add_count(buf, size, sum.names, again[0] ? again : "name records");
	add_count(buf, size, sum.loss_markers, "loss markers");
	add_count(buf, size, sum.other_records, "of other kinds");
	if (strlen(buf) + 1 < size)
		strcat(buf, ")");
}

/*
 * "24 bytes of malformed records, and 2 impossible producer positions ...":
 * what the drains skipped. Malformed records are counted to the byte; at
 * an impossible producer position the ring's unread data was skipped, and
 * how much that was nobody knows (only that position could have said, and
 * it is wrong), except that a ring never holds more than its size.
 */
static void invalid_data(const struct session *s, char *buf, size_t size)
{
	uint64_t skipped = 0, bad = 0, largest = 0;
	char ring[32];
	unsigned int i;
	int n = 0;

	for (i = 0; i < s->nrings; i++) {
		const struct ring *r = &s->rings[i].ring;

		skipped += r->bytes_skipped;
		bad += r->bad_producer;
		/* The bound: the largest of those rings (a CPU not present
		 * has a small one), not the session's buf_size. */
		if (r->bad_producer && r->size > largest)
			largest = r->size;
	}
	buf[0] = '\0';
	if (skipped)
		n = snprintf(buf, size, "%llu bytes of malformed records",
			     (unsigned long long)skipped);
	if (bad && n >= 0 && (size_t)n < size) {
		human_bytes(largest, ring, sizeof(ring));
		snprintf(buf + n, size - (size_t)n,
			 "%s%llu impossible producer position%s, each skipping what its ring held unread (an unknown amount, at most one ring: %s)",
			 n ? ", and " : "", (unsigned long long)bad,
			 bad == 1 ? "" : "s", ring);
	}
}

void print_summary(struct session *s)
{
	char fallback[1024], size[32], kinds[256], invalid[256];
	size_t list_size = CPU_LIST_SIZE(s->nrings);
	char *list = malloc(list_size);	/* room for every CPU */
	uint64_t total, absent;

	if (!list) {	/* the lists end in ", ..." where this is full */
		list = fallback;
		list_size = sizeof(fallback);
	}
	if (!s->opts.quiet && s->traced) {
		human_bytes(s->out.offset - s->out.start, size, sizeof(size));
		record_kinds(s, kinds, sizeof(kinds));
		/*
		 * A ring per possible CPU (uapi), online or not: nrings is
		 * not how many CPUs ran (128 possible, 4 online is common).
		 */
		msg("traced %u rings (one per possible CPU) for %.3f s, plus %.3f s attaching the probes: %s, %s written to %s",
		    s->nrings, seconds_between(&s->started, &s->stopped),
		    seconds_between(&s->attaching, &s->started),
		    kinds, size, s->out.path);
		total = sum_per_cpu(s, get_absent);
		if (total)
			msg("%llu CPU%s possible but not present when the module allocated the rings (hot-plug slots) got %lluK rings, not -b's %lluK: a CPU plugged in since writes there",
			    (unsigned long long)total, total == 1 ? "" : "s",
			    (unsigned long long)(FXTRACE_BUF_SIZE_MIN >> 10),
			    (unsigned long long)(s->info.buf_size >> 10));
	}
	absent = sum_per_cpu(s, get_dropped_absent);
	total = per_cpu_list(s, list, list_size, get_dropped);
	if (total > absent)
		msg("records dropped: %s (%llu in total): the rings were full; use a larger -b (now %lluK)",
		    list, (unsigned long long)total,
		    (unsigned long long)(s->info.buf_size >> 10));
	else if (total)
		msg("records dropped: %s (%llu in total): the rings were full",
		    list, (unsigned long long)total);
	else if (!s->opts.quiet && !s->gave_up)
		msg("no records dropped");
	/*
	 * The rings' drops are not all that is missing after a give-up: what
	 * they still held then never reached the output. Not "no records
	 * dropped" alone next to the megabytes "not written" said above.
	 */
	if (!s->opts.quiet && s->gave_up) {
		human_bytes(s->gave_up_bytes, size, sizeof(size));
		if (total)
			msg("also not written: %s of ring data, and the thread names at the end (given up after the stop signal, see above)",
			    size);
		else
			msg("no records dropped by the rings, but %s of their data, and the thread names at the end, were not written (given up after the stop signal, see above)",
			    size);
	}
	if (absent) {
		per_cpu_list(s, list, list_size, get_dropped_absent);
		msg("of them, %s (%llu) on CPUs plugged in after the module allocated the rings, whose rings are %lluK whatever -b says: run fxt-collect again to give them full rings",
		    list, (unsigned long long)absent,
		    (unsigned long long)(FXTRACE_BUF_SIZE_MIN >> 10));
	}
	if (s->tail_lost && !s->opts.quiet)
		msg("%llu of them were dropped after their CPU's last record, where the module writes no loss marker: fxt-collect marked them at the end (%llu hole%s on counter records_lost:cpu:<n>, as the module marks the others)",
		    (unsigned long long)s->tail_lost,
		    (unsigned long long)s->tail_loss_markers,
		    s->tail_loss_markers == 1 ? "" : "s");
	if (per_cpu_list(s, list, list_size, get_consumer_errors))
		msg("consumer_errors (the module found our read position out of range): %s", list);
	if (per_cpu_list(s, list, list_size, get_producer_behind))
		msg("producer positions behind the data already read (module bug?), times per CPU: %s; not followed, nothing skipped or copied twice",
		    list);
	if (per_cpu_list(s, list, list_size, get_invalid)) {
		invalid_data(s, invalid, sizeof(invalid));
		msg("invalid ring data skipped (module bug?), times per CPU: %s; %s",
		    list, invalid);
		/* Where to look in the file, so it is not news to a reader. */
		if (s->skip_markers)
			msg("the trace marks %llu hole%s it left: counter bytes_skipped:cpu:<n> (bytes, then 0 where the CPU's records resume)",
			    (unsigned long long)s->skip_markers,
			    s->skip_markers == 1 ? "" : "s");
	}
	if (!s->opts.quiet && s->threads_gone && s->proc_blind)
		msg("%llu traced thread(s) have no name: %s could not name them (see the warning above)",
		    (unsigned long long)s->threads_gone, PROC_ROOT);
	else if (!s->opts.quiet && s->threads_gone)
		msg("%llu traced thread(s) exited before fxt-collect could read their names",
		    (unsigned long long)s->threads_gone);
	if (s->tids_incomplete)
		msg("warning: out of memory while tracking thread ids; some threads are unnamed");
	if (s->names_incomplete)
		msg("warning: out of memory while ordering the kernel's names; some may be stale");
	if (list != fallback)
		free(list);
}

int exit_status(const struct session *s)
{
	int status;

	if (s->interrupted_early)
		return 128 + last_stop_signal;
	if (s->exec_errno)
		return s->exec_errno == ENOENT ? EXIT_CMD_NOT_FOUND : EXIT_CMD_NOT_EXEC;
	if (s->command_not_run)
		return stop_signals ? 128 + last_stop_signal : EXIT_TRACE_FAILED;
	if (s->child_abandoned)
		return 128 + last_stop_signal;
	if (s->child && !s->child_running) {
		status = s->child_status;
		if (WIFEXITED(status) && WEXITSTATUS(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
	}
	if (s->failed)
		return EXIT_TRACE_FAILED;
	if (sum_per_cpu(s, get_dropped) || sum_per_cpu(s, get_invalid) ||
	    s->gave_up)
		return EXIT_DATA_LOST;
	return EXIT_TRACE_OK;
}
