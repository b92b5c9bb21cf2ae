// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt_dump.c - fxt-dump: print, validate or summarize an FXT trace.
 *
 * All decoding is fxt_read.c's; this file only chooses the reader's mode
 * and prints. The whole input is read into memory (mmap for files), which
 * is what the reader wants and is fine for traces of a few GiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "fxt_read.h"
#include "fxt_release.h"
#include "tid_set.h"

/*
 * The three trace readers (fxt-dump, fxt-sched, fxt2json) agree: 1 when the
 * input is not a whole trace or cannot be read, the output cannot be
 * written, or memory ran out; 2 only for a bad command line.
 */
#define EXIT_FAILED	1	/* malformed, unreadable, unwritable, no memory */
#define EXIT_USAGE	2	/* a bad command line, and nothing else */

struct dump_options {
	bool check;
	bool summary;
	const char *path;
};

/* The input, either mmap()ed or malloc()ed. */
struct input {
	const uint8_t *data;
	size_t len;
	bool mapped;
};

/* Named counter values seen in "records_dropped" markers. */
struct drop_counter {
	char *name;		/* a copy of the file's bytes: print_name() */
	size_t len;
	uint64_t value;
};

/*
 * The holes one CPU's data has, by their markers: pairs of counter events
 * (counter id = the CPU, int64 argument "cpu": the amount at the hole's
 * start, then 0 where the CPU's records resume). "records_lost": the
 * kernel's loss markers, records lost because the ring was full (uapi
 * "Loss markers"; fxt-collect writes the same pair for records dropped
 * after a ring's last record). "bytes_skipped": fxt-collect's, ring data
 * it skipped as invalid, in bytes. Recognised by fxt_loss_marker(), as
 * fxt-sched recognises them: each non-zero sample is one hole.
 *
 * A hole whose 0 never comes (the trace ends between the two markers: the
 * collector was killed, or the file cut) is open: its end is not known, so
 * the CPU's records may be missing from its start to the end of the trace,
 * and --summary says so. As in fxt-sched (struct cpu's in_hole), a CPU
 * is in a hole or not: a 0 of either kind ends it, and a non-zero sample
 * inside one counts a hole but opens no second one.
 */
struct hole_count {
	uint64_t amount;	/* records (records_lost) or bytes (bytes_skipped) */
	uint64_t holes;
	uint64_t open;		/* still open: per CPU 0 or 1 */
};

struct cpu_holes {
	struct hole_count lost;		/* records_lost */
	struct hole_count skipped;	/* bytes_skipped */
};

#define SEEN_SLOTS	1024

struct stats {
	uint64_t records;
	uint64_t by_type[16];
	uint64_t meta_by_kind[16];
	uint64_t sched_by_kind[16];
	uint64_t events_by_kind[16];
	uint64_t magic;			/* trace info records of type magic */
	/*
	 * Earliest and latest timestamp. Ticks are per provider (its
	 * initialization record's rate, else 1e9): with timestamps of more
	 * than one rate only seconds compare, and first_s/last_s are kept.
	 */
	uint64_t first_ts, last_ts;
	uint64_t ts_rate;		/* ticks per second of the first one */
	bool mixed_rates;		/* timestamps of more than one rate */
	double first_s, last_s;		/* only with mixed_rates */
	bool have_ts;
	uint64_t *cpu_switches, *cpu_wakeups;	/* indexed by CPU */
	unsigned int ncpus;
	/*
	 * Tids of scheduling records; koids of thread and process objects,
	 * each once (a thread or process may be named again, at its exec).
	 */
	struct tid_set seen_tids, named_tids, named_processes;
	/*
	 * Tids known to be in seen_tids, direct-mapped by tid % SEEN_SLOTS
	 * (0: empty): most records repeat a few tids, and a compare is much
	 * cheaper than a hash-set add (about a tenth of --check's time).
	 */
	uint64_t seen_cache[SEEN_SLOTS];
	uint64_t buffer_full_events;
	uint64_t drop_samples;	/* records_dropped counter events */
	struct drop_counter *drops;	/* one per argument name */
	size_t ndrops, drops_cap;
	/*
	 * drops[] by name: 2 * drops_cap slots of index + 1 (0: empty), open
	 * addressing. A file can name any number of counters: a search of
	 * the array for each would take time quadratic in them.
	 */
	size_t *drop_slots;
	struct cpu_holes *holes;	/* indexed by the markers' CPU */
	unsigned int nhole_cpus;
	struct cpu_holes hole_totals;	/* all CPUs */
	bool oom;
	bool input_lost;	/* the mapped file shrank: no totals to give */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-dump [--check] [--summary] FILE\n"
"Print every record of a Fuchsia Trace Format (.fxt) file, one per line, or\n"
"validate it, or summarize it. FILE '-' reads standard input.\n"
"\n"
"  -c, --check     validate instead of printing: magic record first, record\n"
"                  sizes non-zero and inside the file, whole 8-byte words,\n"
"                  reserved bits and padding zero, string and thread refs\n"
"                  defined before use (never index 0), the weights and a\n"
"                  thread's process of the types Perfetto reads (int32,\n"
"                  koid). Stops at the first problem and names its byte\n"
"                  offset; otherwise prints one OK line with the records\n"
"                  counted by type\n"
"  -s, --summary   print totals instead of records: records by type, context\n"
"                  switches and wakeups per CPU, time span, threads seen and\n"
"                  named, processes named, and every loss the trace records:\n"
"                  fxt-collect's records_dropped counters and buffer-full\n"
"                  events, per CPU the records lost by the kernel's\n"
"                  records_lost markers and the bytes fxt-collect skipped as\n"
"                  invalid by its bytes_skipped markers, each with its number\n"
"                  of holes and of those still open where the trace ends\n"
"  -h, --help      show this help and exit\n"
"  -V, --version   show the release and exit\n"
"\n"
"Each printed line is: byte offset, record kind, decoded fields, then the\n"
"arguments as name:type=value with string refs resolved. Without --check,\n"
"undefined refs print as <undefined #N> instead of failing. In every mode\n"
"the input must start with the magic record: an empty file, or one that is\n"
"not FXT, is malformed (exit 1).\n"
"\n"
"Exit status: 0 read to its end (well formed with --check; without it,\n"
"reserved bits and the like are not looked at); 1 malformed, empty or not\n"
"FXT (the message names the offset and what is wrong; records before it\n"
"were printed), the input cannot be read (missing, a directory, too large\n"
"for memory, a file that shrank while being read), writing the output\n"
"failed, or out of memory; 2 bad command line.\n"
"\n"
"EXAMPLES:\n"
"    fxt-dump sched.fxt | less              # every record\n"
"    fxt-dump sched.fxt | grep wakeup       # just the wakeups\n"
"    fxt-dump --check sched.fxt && echo ok  # validate (CI, selftests)\n"
"    fxt-dump --summary sched.fxt           # what is in it\n"
"    fxt-collect -q -o - -d 1 | fxt-dump --check -   # validate a stream\n");
}

/*
 * The errno of the first failed write to stdout, if run() saw one: stdio
 * keeps only a flag. (A static rather than a parameter of run(), which
 * fuzz/fuzz_fxt_dump.c calls as it is.)
 */
static int output_errno;

/*
 * Did everything printed reach stdout? A full disk, a closed pipe (with
 * SIGPIPE ignored) or an I/O error leaves the output incomplete; the
 * status must say so, not 0. Return @status, or EXIT_FAILED after saying
 * what failed.
 */
static int check_output(int status)
{
	/* This flush may have had nothing left: the earlier failure's errno. */
	int err = fxt_flush_error(stdout, output_errno ? output_errno : EIO);

	if (!err)
		return status;
	fprintf(stderr, "fxt-dump: writing the output failed: %s\n", strerror(err));
	return EXIT_FAILED;
}

static int parse_args(int argc, char **argv, struct dump_options *opts)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(opts, 0, sizeof(*opts));
	/* getopt's messages start with argv[0]: "fxt-dump:", not a path */
	argv[0] = (char *)"fxt-dump";
	while ((c = getopt_long(argc, argv, "cshV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			opts->check = true;
			break;
		case 's':
			opts->summary = true;
			break;
		case 'h':
			usage(stdout);
			exit(check_output(0));
		case 'V':
			/* No module ABI version (fxt-collect's): it reads files */
			puts("fxt-dump " FXT_RELEASE);
			exit(check_output(0));
		default:
			fprintf(stderr, "Try 'fxt-dump --help' for more information.\n");
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fxt-dump: %s\nTry 'fxt-dump --help' for more information.\n",
			optind == argc ? "missing FILE (use - for stdin)" :
					 "only one FILE, please");
		return -1;
	}
	opts->path = argv[optind];
	if (fxt_stdout_is_input("fxt-dump", opts->path, ""))
		return -1;
	return 0;
}

/* ---- input ------------------------------------------------------------ */

static int read_all(int fd, struct input *in)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap), *bigger;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	in->data = buf;
	in->len = len;
	in->mapped = false;
	return 0;
}

static int load_input(const char *path, struct input *in)
{
	struct stat st;
	void *p;
	int fd, err;

	if (!strcmp(path, "-"))
		return read_all(STDIN_FILENO, in);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			in->data = p;
			in->len = (size_t)st.st_size;
			in->mapped = true;
			return 0;
		}
	}
	err = read_all(fd, in);
	close(fd);
	return err;
}

static void free_input(struct input *in)
{
	if (in->mapped)
		munmap((void *)in->data, in->len);
	else
		free((void *)in->data);
}

/*
 * A mapped file that shrinks while it is read has pages past its new end,
 * and the first load from one of them is a SIGBUS; so is one from a page
 * the disk failed to read. fxt-collect -o truncates an existing file in
 * place, so running it again on the file fxt-dump reads killed fxt-dump
 * (exit 135, the output cut without a word). Instead, on_sigbus() jumps
 * back to read_guarded(), and fxt-dump says so and exits 1, as for any
 * input it cannot read. Only a fault inside the mapping, while the records
 * are read, jumps; any other SIGBUS keeps the default action.
 *
 * The jump can leave a function mid-way: the reader, note_record() or
 * stdio (print_name() hands fwrite() the mapped bytes), never at a point
 * that leaves them inconsistent: the fault is a load of the input, and
 * they change their state only after those loads (note_drop_counter()
 * copies a name only once it would be freed), glibc's fwrite() too (its
 * buffer pointer moves after the copy). The record being read is left
 * half counted, so no summary is printed for such a file. One case ends
 * otherwise: a name longer than stdout's buffer, which glibc hands to
 * write(2) from the mapping; the kernel fails that with EFAULT instead of
 * a SIGBUS, and fxt-dump says "writing the output failed: Bad address"
 * (exit 1 as well).
 *
 * The signal is synchronous, raised by a load in read_records(), so the
 * handler reads guard_data and guard_len as they were set before it; the
 * fences keep those loads between the two stores to guarding.
 */
static sigjmp_buf input_fault;
static volatile sig_atomic_t guarding;
static const uint8_t *guard_data;
static size_t guard_len;

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	uintptr_t addr = (uintptr_t)si->si_addr;

	(void)context;
	/* si_code > 0: raised by a fault, not sent (kill(), sigqueue()) */
	if (guarding && si->si_code > 0 &&
	    addr - (uintptr_t)guard_data < guard_len)
		siglongjmp(input_fault, 1);
	/*
	 * Not the input's: the default action, when a faulting load is
	 * retried; a sent one is raised again (blocked until we return).
	 */
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

/* ---- statistics ------------------------------------------------------- */

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
	st->drop_samples++;
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
static void note_record(struct stats *st, const struct fxt_reader *r,
			const struct fxt_record *rec)
{
	const struct fxt_legacy_switch *ls = &rec->legacy_switch;
	const struct fxt_arg *waker;

	st->records++;
	st->by_type[rec->type]++;
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
static void print_counts(FILE *f, const struct stats *st)
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
static void print_summary(struct stats *st, const char *path, size_t len)
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

static void free_stats(struct stats *st)
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

/* ---- main ------------------------------------------------------------- */

/* read_guarded(): the mapped input lost a page (on_sigbus()). */
#define READ_FAULT	(-2)

/* Every record of @r into @st, and printed: fxt_reader_next()'s 0 or -1. */
static int read_records(const struct dump_options *opts, struct fxt_reader *r,
			struct stats *st)
{
	struct fxt_record rec;
	int ret;

	while ((ret = fxt_reader_next(r, &rec)) > 0) {
		note_record(st, r, &rec);
		if (!opts->check && !opts->summary) {
			print_record(r, &rec);
			/* The output is broken (main() says so): stop. */
			if (ferror(stdout)) {
				output_errno = errno;
				break;
			}
		}
	}
	return ret;
}

/*
 * read_records(), with a mapped input guarded against shrinking under it
 * (on_sigbus()): READ_FAULT when it did. No cost per record: one
 * sigaction() and one sigsetjmp() per file.
 */
static int read_guarded(const struct dump_options *opts, const struct input *in,
			struct fxt_reader *r, struct stats *st)
{
	struct sigaction sa;
	int ret;

	if (!in->mapped)
		return read_records(opts, r, st);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	/* SA_RESTART: no call the handler interrupts fails with EINTR */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);	/* cannot fail: a valid signal */
	guard_data = in->data;
	guard_len = in->len;
	/* 1: the jump out of the handler unblocks SIGBUS again */
	if (sigsetjmp(input_fault, 1)) {
		guarding = 0;
		return READ_FAULT;
	}
	guarding = 1;
	atomic_signal_fence(memory_order_seq_cst);
	ret = read_records(opts, r, st);
	atomic_signal_fence(memory_order_seq_cst);
	guarding = 0;
	return ret;
}

/* Why a mapped file lost a page: it shrank (the usual), or the disk. */
static void read_failed(const char *path, const struct input *in)
{
	struct stat now;

	if (stat(path, &now) == 0 && (uint64_t)now.st_size < in->len)
		fprintf(stderr, "fxt-dump: reading %s failed: the file shrank while being read (from %zu to %jd bytes)\n",
			path, in->len, (intmax_t)now.st_size);
	else
		fprintf(stderr, "fxt-dump: reading %s failed: a page of it could not be read: the file was cut while being read, or an I/O error\n",
			path);
}

static int run(const struct dump_options *opts, const struct input *in,
	       struct stats *st)
{
	struct fxt_reader *r;
	const struct fxt_error *e;
	int ret;

	/* Every mode: data without the magic record is not a trace (an empty
	 * file, a text file, a collector that wrote nothing). */
	r = fxt_reader_new(in->data, in->len,
			   opts->check ? FXT_READ_STRICT : FXT_READ_MAGIC);
	if (!r) {
		fprintf(stderr, "fxt-dump: out of memory\n");
		return EXIT_FAILED;
	}
	ret = read_guarded(opts, in, r, st);
	/* Records before the error message; a failure here is main()'s too. */
	if (fflush(stdout) && !output_errno)
		output_errno = errno;
	if (ret == READ_FAULT) {
		read_failed(opts->path, in);
		st->input_lost = true;
	} else if (ret < 0) {
		e = fxt_reader_error(r);
		fprintf(stderr, "fxt-dump: %s: offset %zu (0x%zx): %s\n",
			opts->path, e->offset, e->offset, e->message);
	}
	fxt_reader_free(r);
	return ret < 0 ? EXIT_FAILED : 0;
}

int main(int argc, char **argv)
{
	struct dump_options opts;
	struct input in;
	struct stats st;
	int status, err;

	/* Past a file size limit (ulimit -f), a write fails with EFBIG and
	 * check_output() says so, instead of a kill that leaves the output
	 * cut without a word. */
	signal(SIGXFSZ, SIG_IGN);
	if (parse_args(argc, argv, &opts))
		return EXIT_USAGE;
	err = load_input(opts.path, &in);
	if (err) {
		fprintf(stderr, "fxt-dump: reading %s failed: %s\n",
			opts.path, strerror(-err));
		return EXIT_FAILED;
	}
	memset(&st, 0, sizeof(st));
	tid_set_init(&st.seen_tids);
	tid_set_init(&st.named_tids);
	tid_set_init(&st.named_processes);
	status = run(&opts, &in, &st);
	/* Not a trace at all: no summary of "0 records" under the error. */
	if (opts.summary && !st.input_lost && (status == 0 || st.records))
		print_summary(&st, opts.path, in.len);
	/* A summary with totals missing is not a success either. */
	if (opts.summary && st.oom) {
		fprintf(stderr, "fxt-dump: out of memory: the summary's totals are incomplete\n");
		if (status == 0)
			status = EXIT_FAILED;
	}
	/*
	 * fxt-collect samples records_dropped once before the rings' data
	 * and once after it: one sample alone, the trace was cut short
	 * (fxt-collect killed, its output full, or the rest given up).
	 */
	if ((opts.check || opts.summary) && status == 0 && st.drop_samples == 1)
		fprintf(stderr, "fxt-dump: warning: %s: fxt-collect's closing records_dropped sample is missing: the trace was cut short (fxt-collect killed, its output full, or the rest given up), so each CPU's records may stop at a different time\n",
			opts.path);
	if (opts.check && status == 0) {
		printf("%s: OK: %" PRIu64 " records (", opts.path, st.records);
		print_counts(stdout, &st);
		puts(")");
	}
	free_stats(&st);
	free_input(&in);
	return check_output(status);
}
