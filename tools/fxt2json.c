/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fxt2json - convert an FXT trace to Chrome/Catapult JSON (the Trace Event
 * Format), which chrome://tracing and Perfetto open. See fxt2json.1.
 *
 * Two passes over the file (the first read again, once, when records came
 * later than the reorder window and no --reorder-window was given: memory
 * then follows the file's disorder, sched_core.h; else it is bounded by
 * the window). Both tell a tid's threads apart (incarnations: analysis.h)
 * by the same records and rules, so the second pass's thread rows are the
 * first's, row for row. Names
 * apply from their point of the trace on (sched_core.h): the second pass,
 * which writes the events, follows them as they come, so a reused tid's
 * events get the new process and name from its new kernel object on. The
 * first pass gives each thread the name and process it ends up with, for
 * its events before any name record of it (fxt-collect writes most names
 * at the end of the file), and its track.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "fxt_read.h"
#include "fxt_release.h"

#define CPU_PID		((uint64_t)2147483647)	/* the pseudo process holding CPU tracks */
/* The first stand-in tid: above any Linux tid (PID_MAX_LIMIT is 2^22). */
#define STAND_IN_TID_BASE	((uint64_t)4194304)

struct conv {
	struct analysis names;		/* pass 1: every name record */
	struct analysis live;		/* pass 2: names up to this point */
	uint64_t *track_tid;		/* per thread row: its track's tid */
	FILE *out;
	bool first;
	struct cpu_track {
		bool known, idle;
		bool shown;		/* a slice is on its track: name it */
		uint64_t tid, since;
		uint32_t row;		/* the running thread's row */
	} *cpus;
	uint32_t ncpus;
	uint64_t events;
	bool oom;
};

static void json_fstr(FILE *out, const struct fxt_str *s)
{
	json_write_string(out, s->text, s->text ? s->len : 0);
}

static void begin_event(struct conv *cv)
{
	fputs(cv->first ? "\n" : ",\n", cv->out);
	cv->first = false;
	cv->events++;
}

static void put_ts(FILE *out, const char *key, uint64_t ns)
{
	fprintf(out, "\"%s\": %" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

/* Pass 1's row for pass 2's @row: the same thread as it ends up (NULL if
 * the passes disagree, which only running out of memory in one, or a file
 * that changed between them, makes: main() says so). */
static const struct thread *final_row(struct conv *cv, uint32_t row)
{
	const struct thread *l = analysis_row(&cv->live, row);
	const struct thread *f = analysis_row(&cv->names, row);

	return l && f && f->tid == l->tid ? f : NULL;
}

/* A thread's process: the one it ends up with (a row's pid does not change
 * once known: another process is another row). 0 if never known. */
static uint64_t pid_of(struct conv *cv, uint32_t row)
{
	const struct thread *f = final_row(cv, row);
	const struct thread *l = analysis_row(&cv->live, row);

	if (f && f->pid_known)
		return f->pid;
	return l && l->pid_known ? l->pid : 0;
}

/* A thread's name at this point of pass 2: the last one its records gave
 * so far, or before any, the one it ends up with (a thread renamed in the
 * trace shows its newest name before the rename, which no record gives). */
static const char *name_of(struct conv *cv, uint32_t row)
{
	const struct thread *l = analysis_row(&cv->live, row);
	const struct thread *f = final_row(cv, row);

	if (l && l->named)
		return l->name[0] ? l->name : NULL;
	return f && f->named && f->name[0] ? f->name : NULL;
}

/* The tid of @row's track: its own, or a stand-in (below). */
static uint64_t track_of(struct conv *cv, uint32_t row, uint64_t tid)
{
	return cv->track_tid && final_row(cv, row) ? cv->track_tid[row] : tid;
}

/* The row of @tid's thread now (after analysis_sched() took the record). */
static uint32_t row_of(struct conv *cv, uint64_t tid)
{
	struct thread *t = analysis_find(&cv->live, tid);

	return t ? (uint32_t)(t - cv->live.threads) : NO_ROW;
}

/* A thread's track, before it is numbered: sorted by tid, process, row */
struct track_key {
	uint64_t tid, pid;
	uint32_t row;
};

static int by_tid_pid_row(const void *a, const void *b)
{
	const struct track_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * After pass 1: the track (JSON pid, tid) of each thread. A viewer keeps
 * one track, and one thread_name, per (pid, tid): a thread that took the
 * tid of an earlier one of the same process (or of one whose process is
 * not known, as its own is not) would share that track, its slices and
 * name mixed with the other's. It gets a tid of its own instead, a
 * stand-in above every tid in the file (and above any Linux tid), and its
 * events carry the real one in args.tid. 0, or -1 out of memory.
 */
static int assign_tracks(struct conv *cv)
{
	size_t n = cv->names.nthreads, i;
	uint64_t next = STAND_IN_TID_BASE;
	struct track_key *keys;
	bool *stand_in;

	if (!n)
		return 0;
	cv->track_tid = malloc(n * sizeof(*cv->track_tid));
	keys = malloc(n * sizeof(*keys));
	stand_in = calloc(n, sizeof(*stand_in));
	if (!cv->track_tid || !keys || !stand_in) {
		free(keys);
		free(stand_in);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct thread *t = &cv->names.threads[i];

		keys[i] = (struct track_key){ t->tid,
					      t->pid_known ? t->pid : 0,
					      (uint32_t)i };
		cv->track_tid[i] = t->tid;
		if (t->tid >= next && t->tid < UINT64_MAX)
			next = t->tid + 1;
	}
	qsort(keys, n, sizeof(*keys), by_tid_pid_row);
	/* the first thread of each (tid, pid) keeps its tid; the rest are
	 * marked here and numbered below, in row order */
	for (i = 1; i < n; i++)
		if (keys[i].tid == keys[i - 1].tid &&
		    keys[i].pid == keys[i - 1].pid)
			stand_in[keys[i].row] = true;
	free(keys);
	for (i = 0; i < n; i++)
		if (stand_in[i])
			cv->track_tid[i] = next++;
	free(stand_in);
	return 0;
}

static const char *const state_names[] = {
	"new", "runnable", "suspended", "blocked", "dying", "dead"
};
#define END_UNKNOWN	6	/* a slice's end_state: "unknown" */

/* args.tid, the thread's real tid, on a track with a stand-in tid */
static void put_real_tid(struct conv *cv, uint32_t row, uint64_t tid)
{
	if (track_of(cv, row, tid) != tid)
		fprintf(cv->out, ", \"tid\": %" PRIu64, tid);
}

static void emit_slice(struct conv *cv, uint32_t cpu, uint64_t tid,
		       uint32_t row, uint64_t start, uint64_t end,
		       unsigned int end_state)
{
	const char *name = name_of(cv, row);
	uint64_t pid = pid_of(cv, row);
	char buf[64];
	FILE *out = cv->out;

	/* on the thread's own track */
	begin_event(cv);
	fprintf(out, "{\"name\": \"running\", \"cat\": \"sched\", \"ph\": \"X\", \"pid\": %"
		PRIu64 ", \"tid\": %" PRIu64 ", ", pid, track_of(cv, row, tid));
	put_ts(out, "ts", start);
	fputs(", ", out);
	put_ts(out, "dur", end - start);
	fprintf(out, ", \"args\": {\"cpu\": %u, \"end_state\": \"%s\"", cpu,
		end_state < 6 ? state_names[end_state] : "unknown");
	put_real_tid(cv, row, tid);
	fputs("}}", out);
	/* on the CPU's track */
	cv->cpus[cpu].shown = true;
	if (!name) {
		snprintf(buf, sizeof(buf), "tid %" PRIu64, tid);
		name = buf;
	}
	begin_event(cv);
	fputs("{\"name\": ", out);
	json_write_string(out, name, strlen(name));
	fprintf(out, ", \"cat\": \"sched\", \"ph\": \"X\", \"pid\": %" PRIu64
		", \"tid\": %u, ", CPU_PID, cpu);
	put_ts(out, "ts", start);
	fputs(", ", out);
	put_ts(out, "dur", end - start);
	fprintf(out, ", \"args\": {\"tid\": %" PRIu64 ", \"pid\": %" PRIu64 "}}",
		tid, pid);
}

static struct cpu_track *cpu_track(struct conv *cv, uint32_t cpu)
{
	if (cpu >= cv->ncpus) {
		uint32_t n = cpu + 1;
		struct cpu_track *nc = realloc(cv->cpus, n * sizeof(*nc));

		if (!nc) {
			cv->oom = true;
			return NULL;
		}
		memset(nc + cv->ncpus, 0, (n - cv->ncpus) * sizeof(*nc));
		cv->cpus = nc;
		cv->ncpus = n;
	}
	return &cv->cpus[cpu];
}

static void conv_sched(void *ctx, const struct sc_event *ev)
{
	struct conv *cv = ctx;
	struct cpu_track *c;

	analysis_sched(&cv->live, ev);	/* names and incarnations so far */
	if (ev->kind == SC_NAME)
		return;
	if (ev->kind == SC_LOST) {
		/* a hole in this CPU's records: what ran there is unknown
		 * until its next switch; end the slice where the hole starts */
		c = ev->a ? cpu_track(cv, ev->cpu) : NULL;
		if (c && c->known && !c->idle && ev->ts >= c->since)
			emit_slice(cv, ev->cpu, c->tid, c->row, c->since,
				   ev->ts, END_UNKNOWN);
		if (c)
			c->known = false;
		return;
	}
	if (ev->kind == SC_WAKEUP) {
		uint32_t row = row_of(cv, ev->a);

		begin_event(cv);
		fprintf(cv->out, "{\"name\": \"wakeup\", \"cat\": \"sched\", \"ph\": \"i\", \"s\": \"t\", \"pid\": %"
			PRIu64 ", \"tid\": %" PRIu64 ", ", pid_of(cv, row),
			track_of(cv, row, ev->a));
		put_ts(cv->out, "ts", ev->ts);
		fprintf(cv->out, ", \"args\": {\"cpu\": %u", ev->cpu);
		if (ev->flags & SC_HAS_WAKER)
			fprintf(cv->out, ", \"waker\": %" PRIu64, ev->waker);
		put_real_tid(cv, row, ev->a);
		fputs("}}", cv->out);
		return;
	}
	c = cpu_track(cv, ev->cpu);
	if (!c)
		return;
	/* The state the thread on the track left in; unknown if the switch
	 * names another thread leaving (records were left out between). */
	if (c->known && !c->idle)
		emit_slice(cv, ev->cpu, c->tid, c->row, c->since, ev->ts,
			   !(ev->flags & SC_OUT_IDLE) && ev->a == c->tid ?
			   ev->state : END_UNKNOWN);
	c->known = true;
	c->idle = ev->flags & SC_IN_IDLE;
	c->tid = ev->b;
	c->row = c->idle ? NO_ROW : row_of(cv, ev->b);
	c->since = ev->ts;
}

/*
 * The trace ended: the slice each CPU was running then has no switch to
 * end it. It ends at the trace's last scheduling timestamp, with
 * end_state "unknown", else a thread that never left its CPU would have
 * no slice at all. A CPU inside a hole (records_lost, bytes_skipped) runs
 * nothing known.
 */
static void close_open_slices(struct conv *cv)
{
	uint64_t end = cv->live.t_end;
	uint32_t i;

	for (i = 0; i < cv->ncpus; i++) {
		struct cpu_track *c = &cv->cpus[i];

		if (c->known && !c->idle && end >= c->since)
			emit_slice(cv, i, c->tid, c->row, c->since, end,
				   END_UNKNOWN);
		c->known = false;
	}
}

static void put_args(FILE *out, const struct fxt_record *rec)
{
	unsigned int i;

	fputs(", \"args\": {", out);
	for (i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		fputs(i ? ", " : "", out);
		if (a->name.text)
			json_fstr(out, &a->name);
		else
			fprintf(out, "\"arg%u\"", i);
		fputs(": ", out);
		switch (a->type) {
		case FXT_ARG_INT32: fprintf(out, "%" PRId32, a->v.i32); break;
		case FXT_ARG_UINT32: fprintf(out, "%" PRIu32, a->v.u32); break;
		case FXT_ARG_INT64: fprintf(out, "%" PRId64, a->v.i64); break;
		case FXT_ARG_UINT64: fprintf(out, "%" PRIu64, a->v.u64); break;
		case FXT_ARG_KOID: fprintf(out, "%" PRIu64, a->v.koid); break;
		case FXT_ARG_DOUBLE:
			/* JSON has no number for NaN or an infinity. */
			if (isfinite(a->v.f64))
				fprintf(out, "%.17g", a->v.f64);
			else
				fputs("null", out);
			break;
		case FXT_ARG_POINTER: fprintf(out, "\"0x%" PRIx64 "\"", a->v.pointer); break;
		case FXT_ARG_BOOL: fputs(a->v.boolean ? "true" : "false", out); break;
		case FXT_ARG_STRING: json_fstr(out, &a->v.string); break;
		default: fputs("null", out); break;
		}
	}
	fputs("}", out);
}

static void conv_record(void *ctx, const struct fxt_record *rec, uint64_t ts,
			uint64_t tps)
{
	static const char *const ph[] = {
		[FXT_EVENT_INSTANT] = "i", [FXT_EVENT_COUNTER] = "C",
		[FXT_EVENT_DURATION_BEGIN] = "B", [FXT_EVENT_DURATION_END] = "E",
		[FXT_EVENT_DURATION_COMPLETE] = "X", [FXT_EVENT_ASYNC_BEGIN] = "b",
		[FXT_EVENT_ASYNC_INSTANT] = "n", [FXT_EVENT_ASYNC_END] = "e",
		[FXT_EVENT_FLOW_BEGIN] = "s", [FXT_EVENT_FLOW_STEP] = "t",
		[FXT_EVENT_FLOW_END] = "f",
	};
	struct conv *cv = ctx;
	const struct fxt_event *e = &rec->event;
	FILE *out = cv->out;

	if (rec->type == FXT_RECORD_LOG) {
		begin_event(cv);
		fprintf(out, "{\"name\": \"log\", \"ph\": \"i\", \"s\": \"t\", \"pid\": %"
			PRIu64 ", \"tid\": %" PRIu64 ", ", rec->log.thread.pid,
			rec->log.thread.tid);
		put_ts(out, "ts", ts);
		fputs(", \"args\": {\"message\": ", out);
		json_write_string(out, rec->log.message, rec->log.len);
		fputs("}}", out);
		return;
	}
	if (rec->type != FXT_RECORD_EVENT || e->type > FXT_EVENT_FLOW_END)
		return;
	begin_event(cv);
	fputs("{\"name\": ", out);
	json_fstr(out, &e->name);
	fputs(", \"cat\": ", out);
	json_fstr(out, &e->category);
	fprintf(out, ", \"ph\": \"%s\", \"pid\": %" PRIu64 ", \"tid\": %" PRIu64 ", ",
		ph[e->type], e->thread.pid, e->thread.tid);
	put_ts(out, "ts", ts);
	if (e->type == FXT_EVENT_INSTANT)
		fputs(", \"s\": \"t\"", out);
	if (e->type == FXT_EVENT_COUNTER)
		fprintf(out, ", \"id\": %" PRIu64, e->data);
	if (e->type == FXT_EVENT_DURATION_COMPLETE) {
		/* the end tick uses the same rate as the start */
		uint64_t end = sc_ticks_to_ns(e->data, tps);

		fputs(", ", out);
		put_ts(out, "dur", end > ts ? end - ts : 0);
	}
	if (e->type >= FXT_EVENT_ASYNC_BEGIN && e->type <= FXT_EVENT_ASYNC_END)
		fprintf(out, ", \"id\": \"0x%" PRIx64 "\"", e->data);
	if (e->type >= FXT_EVENT_FLOW_BEGIN)
		fprintf(out, ", \"id\": \"0x%" PRIx64 "\"%s", e->data,
			e->type == FXT_EVENT_FLOW_END ? ", \"bp\": \"e\"" : "");
	put_args(out, rec);
	fputs("}", out);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: fxt2json [-o OUT.json] [--reorder-window T] FILE.fxt\n"
		"Converts an FXT trace to Chrome/Catapult JSON (chrome://tracing,\n"
		"Perfetto). FILE must be a regular file (it is read twice).\n"
		"\n"
		"  -o, --output OUT.json     write there instead of standard output\n"
		"                            ('-': standard output)\n"
		"  --reorder-window T        sort records within T (a number with a\n"
		"                            unit ns, us, ms or s, required), a fixed\n"
		"                            bound on memory; without it the window\n"
		"                            starts at 2s and grows to what FILE needs\n"
		"  -h, --help                this text\n"
		"  -V, --version             the release\n"
		"\n"
		"Exit status: 0 success; 1 the input cannot be read or is not a whole\n"
		"trace (not a regular file, empty, not FXT, or malformed: the records\n"
		"before it are converted), the output file cannot be created, a write\n"
		"error or out of memory; 2 bad command line; 3 converted, but records\n"
		"beyond --reorder-window were left out (or holes applied late; stderr\n"
		"says how many).\n"
		"\nEXAMPLES\n"
		"  fxt2json sched.fxt -o sched.json   (open it in ui.perfetto.dev)\n"
		"  fxt2json sched.fxt --reorder-window 500ms | gzip >sched.json.gz\n"
		"See fxt2json(1).\n");
}

/*
 * After a usage error, its message and a pointer to --help, as fxt-collect
 * and fxt-dump do: the whole text would bury the message.
 */
static void usage_hint(void)
{
	fputs("Try 'fxt2json --help' for more information.\n", stderr);
}

/*
 * Did everything written to @f reach it (a full disk, a closed pipe with
 * SIGPIPE ignored)? Return 0, or 1 after saying what failed.
 */
static int check_output(FILE *f)
{
	int err = fxt_flush_error(f, EIO);

	if (!err)
		return 0;
	fprintf(stderr, "fxt2json: writing the output failed: %s\n",
		strerror(err));
	return 1;
}

/*
 * -o @path could not be created (@err): say that it is the output, not
 * the trace, and what to do; the reason alone ("No such file or
 * directory") reads as if the input were missing.
 */
static void out_open_failed(const char *path, int err)
{
	const char *todo;

	switch (err) {
	case ENOENT:
		todo = "create its directory first, or give -o a path in one that exists";
		break;
	case ENOTDIR:
		todo = "a part of its path is not a directory: give -o another path";
		break;
	case EACCES:
	case EPERM:
	case EROFS:
		todo = "give -o a path where you may write";
		break;
	case EISDIR:
		todo = "give -o a file's name, not a directory's";
		break;
	default:
		todo = "give -o another path, or leave it out for standard output";
		break;
	}
	fprintf(stderr, "fxt2json: cannot create the output file %s (-o): %s; %s\n",
		path, strerror(err), todo);
}

static void write_names(struct conv *cv)
{
	size_t i;

	for (i = 0; i < cv->live.nprocs; i++) {
		begin_event(cv);
		fprintf(cv->out, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %"
			PRIu64 ", \"args\": {\"name\": ", cv->live.procs[i].id);
		json_write_string(cv->out, cv->live.procs[i].name,
				  strlen(cv->live.procs[i].name));
		fputs("}}", cv->out);
	}
	/* one per thread, on its track (assign_tracks()) */
	for (i = 0; i < cv->live.nthreads; i++) {
		struct thread *t = &cv->live.threads[i];

		if (!t->named || !t->name[0])
			continue;
		begin_event(cv);
		fprintf(cv->out, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %"
			PRIu64 ", \"tid\": %" PRIu64 ", \"args\": {\"name\": ",
			pid_of(cv, (uint32_t)i), track_of(cv, (uint32_t)i, t->tid));
		json_write_string(cv->out, t->name, strlen(t->name));
		put_real_tid(cv, (uint32_t)i, t->tid);
		fputs("}}", cv->out);
	}
	begin_event(cv);
	fprintf(cv->out, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %" PRIu64
		", \"args\": {\"name\": \"CPUs\"}}", CPU_PID);
	/* only CPUs that ran something: a trace from CPU 4095 alone is not
	 * 4096 named tracks */
	for (i = 0; i < cv->ncpus; i++) {
		if (!cv->cpus[i].shown)
			continue;
		begin_event(cv);
		fprintf(cv->out, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %"
			PRIu64 ", \"tid\": %zu, \"args\": {\"name\": \"CPU %zu\"}}",
			CPU_PID, i, i);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "reorder-window", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* Without --reorder-window the window grows to what the file needs */
	struct sc_opts opts = { .read_flags = FXT_READ_MAGIC, .widen = true };
	struct sc_stats st;
	struct stat in_sb, out_sb, now_sb;
	struct conv cv;
	const char *path, *outpath = NULL;
	uint64_t widened_from;
	struct sc_stats names_st;
	char advice[160], late[DUR_LEN];
	int ret = 0, c;

	/* Past a file size limit (ulimit -f), a write fails with EFBIG and
	 * check_output() says so, instead of a kill that leaves the JSON cut
	 * without a word. */
	signal(SIGXFSZ, SIG_IGN);
	/* getopt's messages start with argv[0]: "fxt2json:", as fxt-sched's */
	argv[0] = (char *)"fxt2json";
	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "fxt2json: -o needs a file name ('-' is standard output)\n");
				usage_hint();
				return 2;
			}
			/* "-" is standard output, as everywhere else */
			outpath = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'w': {
			const char *why = sc_parse_window(optarg,
							  &opts.reorder_window_ns);

			if (why) {
				fprintf(stderr, "fxt2json: --reorder-window '%s': %s\n",
					optarg, why);
				usage_hint();
				return 2;
			}
			opts.widen = false;
			break;
		}
		case 'h':
			usage(stdout);
			return check_output(stdout);
		case 'V':
			/* No module ABI version (fxt-collect's): it reads files */
			puts("fxt2json " FXT_RELEASE);
			return check_output(stdout);
		default:
			usage_hint();
			return 2;
		}
	}
	if (optind != argc - 1 || !strcmp(argv[optind], "-")) {
		fprintf(stderr, "fxt2json: %s\n",
			optind == argc ? "missing FILE.fxt" :
			optind < argc - 1 ? "only one FILE.fxt, please" :
			"FILE.fxt cannot be - (standard input): it is read twice; save the trace to a file first");
		usage_hint();
		return 2;
	}
	path = argv[optind];
	/* Read twice: a pipe or device would be empty the second time, and
	 * every scheduling event would be lost without a word. */
	if (stat(path, &in_sb)) {
		fprintf(stderr, "fxt2json: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISREG(in_sb.st_mode)) {
		if (S_ISFIFO(in_sb.st_mode) || S_ISSOCK(in_sb.st_mode))
			fprintf(stderr, "fxt2json: %s: not a regular file; fxt2json reads its input twice, so save the trace to a file first\n",
				path);
		else if (S_ISDIR(in_sb.st_mode))
			fprintf(stderr, "fxt2json: %s: is a directory\n", path);
		else
			fprintf(stderr, "fxt2json: %s: is not a trace file (%s)\n",
				path, S_ISCHR(in_sb.st_mode) ? "a character device" :
				S_ISBLK(in_sb.st_mode) ? "a block device" :
				"not a regular file");
		return 1;
	}
	/* Before the output is opened (and truncated) */
	if (outpath && !stat(outpath, &out_sb) &&
	    out_sb.st_dev == in_sb.st_dev && out_sb.st_ino == in_sb.st_ino) {
		fprintf(stderr, "fxt2json: -o %s is the input file %s: it would be overwritten; choose another output file\n",
			outpath, path);
		return 2;
	}
	if (!outpath && fxt_stdout_is_input("fxt2json", path, ", or use -o"))
		return 2;
	memset(&cv, 0, sizeof(cv));
	analysis_init(&cv.names);
	analysis_init(&cv.live);
	{
		struct sc_handler h1 = { &cv.names, analysis_sched, NULL,
					 analysis_reset };

		if (sc_run(path, &opts, &h1, &st)) {
			fprintf(stderr, "fxt2json: %s: %s\n", path, strerror(errno));
			ret = 1;
			goto out;
		}
	}
	/* The names pass found the window the file needs: the events' pass
	 * (which cannot be read again: it writes as it goes) uses it. */
	widened_from = st.widened_from_ns;
	names_st = st;
	if (widened_from) {
		opts.reorder_window_ns = st.window_ns;
		opts.widen = false;
	}
	if (st.malformed && !st.records) {
		/* empty, or not FXT at all: no output file */
		fprintf(stderr, "fxt2json: %s: %s\n", path, st.error.message);
		ret = 1;
		goto out;
	}
	if (assign_tracks(&cv)) {
		fprintf(stderr, "fxt2json: out of memory\n");
		ret = 1;
		goto out;
	}
	cv.out = outpath ? fopen(outpath, "w") : stdout;
	if (!cv.out) {
		out_open_failed(outpath, errno);
		ret = 1;
		goto out;
	}
	cv.first = true;
	fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", cv.out);
	{
		struct sc_handler h2 = { &cv, conv_sched, conv_record, NULL };

		if (sc_run(path, &opts, &h2, &st)) {
			fprintf(stderr, "fxt2json: %s: %s\n", path, strerror(errno));
			ret = 1;
		}
	}
	close_open_slices(&cv);
	write_names(&cv);
	fputs("\n]}\n", cv.out);
	/* The passes must read the same records: their threads are matched
	 * row for row (final_row()). A trace still being written is not. */
	if (!ret && (stat(path, &now_sb) || now_sb.st_size != in_sb.st_size ||
		     now_sb.st_mtim.tv_sec != in_sb.st_mtim.tv_sec ||
		     now_sb.st_mtim.tv_nsec != in_sb.st_mtim.tv_nsec)) {
		fprintf(stderr, "fxt2json: %s changed while it was read: threads may be given other threads' names; convert it again once it is complete\n",
			path);
		ret = 1;
	}
	if (st.malformed) {
		fprintf(stderr, "fxt2json: %s: offset %zu: %s; converted only the records before it\n",
			path, st.error.offset, st.error.message);
		ret = 1;
	}
	st.widened_from_ns = widened_from;	/* the events' pass's own is 0 */
	sc_take_reorder_oom(&st, &names_st);
	sc_print_input_notes(stderr, "fxt2json", path, &st);
	if (st.late)
		fprintf(stderr, "fxt2json: warning: %s: %" PRIu64 " scheduling %s %s left out (first at offset %zu); %s\n",
			path, st.late, sc_plural(st.late, "record", "records"),
			sc_late_where(&st), st.first_late_offset,
			sc_late_advice(advice, sizeof(advice), &st,
				       "takes them in"));
	if (st.late_holes)
		fprintf(stderr, "fxt2json: warning: %s: %" PRIu64 " %s %s applied late (first at offset %zu, up to %s late): a CPU's slice may run into its hole; %s\n",
			path, st.late_holes,
			sc_plural(st.late_holes, "hole (loss marker)",
				  "holes (loss markers)"),
			sc_late_where(&st),
			st.first_late_hole_offset,
			fmt_dur(late, st.max_late_hole_ns, false),
			sc_late_advice(advice, sizeof(advice), &st,
				       "applies them in time"));
	if (ret == 0 && (st.late || st.late_holes))
		ret = 3;	/* the output leaves records out: say so */
	if (check_output(cv.out))
		ret = 1;
	/* some file systems (NFS, quotas) report a failed write at close */
	if (outpath && fclose(cv.out)) {
		fprintf(stderr, "fxt2json: %s: closing the output failed: %s\n",
			outpath, strerror(errno));
		ret = 1;
	}
	if (cv.oom || cv.names.oom || cv.live.oom) {
		fprintf(stderr, "fxt2json: out of memory: the output is incomplete\n");
		ret = 1;
	}
	if (st.reorder_oom)
		ret = 1;	/* said by sc_print_input_notes() */
out:
	free(cv.cpus);
	free(cv.track_tid);
	analysis_free(&cv.names);
	analysis_free(&cv.live);
	return ret;
}
