/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gen_trace - write a synthetic but realistic fxtrace-style FXT trace.
 *
 * A small scheduler simulation: NCPU CPUs, NT threads in two processes,
 * threads run for a random slice, then block (state 3) or, if someone is
 * waiting on that CPU, get preempted (state 1); sleeping threads are woken
 * by a thread running on another CPU (the wakeup record goes into the
 * waker's CPU ring, with a "waker" argument) or from interrupt context (the
 * target CPU's ring, no waker). Records are kept in per-CPU rings and
 * appended to the file drain by drain (every --drain-ms of trace time), the
 * CPUs in rotating order, exactly like fxt-collect; kernel object records
 * come first, or last with --names-at-end (as fxt-collect writes most).
 *
 * With --kernel-names threads also exit (switch-out state 5) and their tid
 * is reused by a new thread with another name, in the other process half
 * the time; the new thread's kernel object records (the thread's with
 * new_task = 1) go into the forking CPU's ring just before its first
 * wakeup, as fxtrace's kernel writes them. With --losses a CPU's ring now and then loses every record for up
 * to a few ms, and the next record is preceded by the kernel's pair of
 * records_lost markers (uapi/linux/fxtrace.h). With --skips as well, half
 * of those holes are marked instead as fxt-collect marks ring data it
 * skipped: a bytes_skipped pair counting 40 bytes a record. With --births
 * the last quarter of the threads are created 0.2 to 1.5 s into the trace
 * (their kernel object records, then their first wakeup, as for a reused
 * tid), and are not among the names written before the records: with
 * --losses, threads first seen after a hole.
 *
 * --late-start: the first 2 ms have wakeups but no context switches (as
 * in traces of other producers, or of fxtrace versions that attached
 * sched_switch last; fxtrace now attaches it first). `gen_trace --help`
 * lists every option.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_write.h"

#define MAXCPU 64
#define MAXT 4096

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

enum { SLEEPING, RUNNABLE, RUNNING };

struct th {
	uint64_t tid, pid;
	int st, cpu;
	uint64_t wake_at;
	int prio;
	bool exiting;		/* switches out dead next time */
	bool unborn;		/* --births: created at its first wakeup */
	unsigned int gen;	/* incarnation of the tid */
};

struct cpu {
	struct fxt_writer ring;
	uint64_t lose_from, lose_until;	/* records in [from, until) are lost */
	uint64_t lost, lost_first;	/* lost so far in this hole, first ts */
	bool skip;		/* this hole is marked as bytes_skipped */
	int cur;		/* thread index, -1 idle */
	uint64_t resched_at;	/* next scheduling decision */
	int q[MAXT];
	int qh, qn;
};

static struct th th[MAXT];
static struct cpu cpus[MAXCPU];
static int ncpu = 2, nt = 8;
static FILE *out;
static uint64_t bytes_out;
static uint64_t switches_from;	/* --late-start: no switch records before */

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n) {
		perror("gen_trace: write");
		exit(1);
	}
	bytes_out += n;
}

static void flush_writer(struct fxt_writer *w)
{
	put(fxt_writer_data(w), fxt_writer_bytes(w));
	fxt_writer_reset(w);
}

static void thread_name(char *buf, size_t len, int i)
{
	if (th[i].gen)
		snprintf(buf, len, "reborn-%d.%u", i, th[i].gen);
	else
		snprintf(buf, len, "%s-%d", th[i].pid == 1000 ? "ping" : "worker", i);
}

/*
 * May ring @r take a record at @ts? Inside a loss window it is dropped;
 * the first record after one gets the two records_lost (or bytes_skipped)
 * markers first: (lost, at the first lost record's time), (0, at this
 * record's time).
 */
static bool admit(int r, uint64_t ts)
{
	struct cpu *c = &cpus[r];
	struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
		fxt_str_c("fxtrace"), fxt_str_c("records_lost"), 0, (uint64_t)r };
	struct fxt_arg a;
	uint64_t value;

	if (ts >= c->lose_from && ts < c->lose_until) {
		if (!c->lost++)
			c->lost_first = ts;
		return false;
	}
	if (c->lost) {
		value = c->lost;
		if (c->skip) {
			ev.name = fxt_str_c("bytes_skipped");
			value *= 40;
		}
		ev.timestamp = c->lost_first;
		a = fxt_arg_int64(fxt_str_c("cpu"), (int64_t)value);
		fxt_write_event(&c->ring, &ev, &a, 1);
		ev.timestamp = ts;
		a = fxt_arg_int64(fxt_str_c("cpu"), 0);
		fxt_write_event(&c->ring, &ev, &a, 1);
		c->lost = 0;
	}
	return true;
}

static void names(struct fxt_writer *w)
{
	static const char *const pn[] = { "fxt-pingpong", "stress" };
	int p, i;
	char buf[32];

	for (p = 0; p < 2; p++) {
		struct fxt_kernel_object o = { FXT_OBJ_TYPE_PROCESS,
			fxt_str_c(pn[p]), 1000 + (uint64_t)p * 1000 };

		fxt_write_kernel_object(w, &o, NULL, 0);
	}
	for (i = 0; i < nt; i++) {
		struct fxt_kernel_object o = { FXT_OBJ_TYPE_THREAD,
			fxt_str_c(buf), th[i].tid };
		struct fxt_arg a = fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS),
						th[i].pid);

		if (th[i].unborn)
			continue;
		thread_name(buf, sizeof(buf), i);
		o.name = fxt_str_c(buf);
		fxt_write_kernel_object(w, &o, &a, 1);
	}
}

static void emit_switch(int c, uint64_t ts, int out_t, int in_t, unsigned state)
{
	struct fxt_context_switch cs = {
		.cpu = (unsigned)c, .outgoing_state = state, .timestamp = ts,
		.outgoing_tid = out_t < 0 ? 0 : th[out_t].tid,
		.incoming_tid = in_t < 0 ? 0 : th[in_t].tid,
	};
	struct fxt_arg a[3] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_INCOMING_WEIGHT),
			      in_t < 0 ? INT32_MIN : th[in_t].prio),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_OUTGOING_WEIGHT),
			      out_t < 0 ? INT32_MIN : th[out_t].prio),
		fxt_arg_uint32(fxt_str_index(FXTRACE_STR_LINUX_STATE),
			       state == 3 ? 1 : 0),
	};

	if (ts >= switches_from && admit(c, ts))
		fxt_write_context_switch(&cpus[c].ring, &cs, a, 3);
}

static void emit_wakeup(int ring, uint64_t ts, int t, int target, int waker)
{
	struct fxt_wakeup wk = { (unsigned)target, ts, th[t].tid };
	struct fxt_arg a[2] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_WEIGHT), th[t].prio),
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER),
			     waker < 0 ? 0 : th[waker].tid),
	};

	if (admit(ring, ts))
		fxt_write_wakeup(&cpus[ring].ring, &wk, a, waker < 0 ? 1 : 2);
}

/* Kernel objects for thread @t, created now, in ring @r (no timestamp: @ts
 * only decides whether the ring is losing records then); the thread's
 * says it begins here (new_task), as the module's at sched_wakeup_new. */
static void emit_names(int r, uint64_t ts, int t, bool process)
{
	char buf[32];
	struct fxt_kernel_object o = { FXT_OBJ_TYPE_PROCESS, fxt_str_c(""), th[t].pid };
	struct fxt_arg a[2] = {
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS), th[t].pid),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_NEW_TASK), 1),
	};

	if (!admit(r, ts))
		return;
	if (process) {
		o.name = fxt_str_c(th[t].pid == 3000 ? "reborn" : "stress");
		fxt_write_kernel_object(&cpus[r].ring, &o, NULL, 0);
	}
	thread_name(buf, sizeof(buf), t);
	o.obj_type = FXT_OBJ_TYPE_THREAD;
	o.name = fxt_str_c(buf);
	o.koid = th[t].tid;
	fxt_write_kernel_object(&cpus[r].ring, &o, a, 2);
}

static void drain(unsigned round, bool drops, bool losses, bool skips,
		  uint64_t now)
{
	int k;

	if (losses && round % 3 == 1) {
		struct cpu *c = &cpus[rnd() % (uint64_t)ncpu];

		c->lose_from = now + rnd_range(0, 50000000);
		c->lose_until = c->lose_from + rnd_range(100000, 5000000);
		c->skip = skips && rnd() % 2;
	}
	for (k = 0; k < ncpu; k++) {
		int c = (int)((round + (unsigned)k) % (unsigned)ncpu);

		flush_writer(&cpus[c].ring);
	}
	if (drops && round % 7 == 3) {
		/* a drop marker as fxt-collect writes it */
		struct fxt_writer w;
		char name[16];
		struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
			fxt_str_c("fxtrace"), fxt_str_c("records_dropped"), 0, 0 };
		struct fxt_arg a;

		fxt_writer_init_dynamic(&w);
		fxt_write_provider_event(&w, 1, 0);
		snprintf(name, sizeof(name), "cpu%u", round % (unsigned)ncpu);
		a = fxt_arg_int64(fxt_str_c(name), (int64_t)round);
		fxt_write_event(&w, &ev, &a, 1);
		flush_writer(&w);
		fxt_writer_free(&w);
	}
}

static void usage(FILE *f)
{
	fputs("usage: gen_trace -o FILE [-c CPUS] [-t THREADS] [-m MB | -n SWITCHES]\n"
	      "                 [--seed N] [--drain-ms N] [--names-at-end] [--drops]\n"
	      "                 [--spurious] [--kernel-names] [--losses [--skips]]\n"
	      "                 [--late-start] [--births]\n", f);
	if (f == stderr) {
		fputs("Try 'gen_trace --help' for what each option does.\n", f);
		return;
	}
	fputs("\n"
	      "Write a synthetic FXT trace laid out as fxt-collect writes one: a small\n"
	      "scheduler simulation, its per-CPU records appended drain by drain.\n"
	      "The same options and seed give the same file, byte for byte.\n"
	      "\n"
	      "  -o FILE          the trace to write (replaced)\n"
	      "  -c CPUS          simulated CPUs, 1-64 (default 2)\n"
	      "  -t THREADS       threads, in two processes, 1-4096 (default 8)\n"
	      "  -n SWITCHES      stop after this many context switches (default 100000)\n"
	      "  -m MB            stop once the file holds this many MiB instead\n"
	      "  --seed N         start the generator from another seed (default 0)\n"
	      "  --drain-ms N     trace time between drains, 1-3600000 (default 100)\n"
	      "  --names-at-end   kernel object records after the records, not before\n"
	      "  --drops          a drain now and then counts records the kernel dropped\n"
	      "  --spurious       also wake threads already running or runnable\n"
	      "  --kernel-names   threads exit and their tids are reused, named as\n"
	      "                   fxtrace's kernel names them (new_task records)\n"
	      "  --losses         holes in a CPU's records, between records_lost markers\n"
	      "  --skips          with --losses: half the holes as fxt-collect's\n"
	      "                   bytes_skipped markers instead\n"
	      "  --late-start     no context switches in the first 2 ms, only wakeups\n"
	      "  --births         the last quarter of the threads are created 0.2-1.5 s\n"
	      "                   in, not named before the records\n"
	      "  -h, --help       this help\n", f);
}

/* An unsigned decimal in [min, max], or the program ends with exit 2. */
static uint64_t number(const char *opt, const char *arg, uint64_t min,
		       uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "gen_trace: %s wants a whole number from %" PRIu64
			" to %" PRIu64 ", not '%s'\n", opt, min, max, arg);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "drain-ms", required_argument, NULL, 'd' },
		{ "names-at-end", no_argument, NULL, 'e' },
		{ "drops", no_argument, NULL, 'D' },
		{ "spurious", no_argument, NULL, 'S' },
		{ "kernel-names", no_argument, NULL, 'K' },
		{ "losses", no_argument, NULL, 'L' },
		{ "skips", no_argument, NULL, 'k' },
		{ "late-start", no_argument, NULL, 'l' },
		{ "births", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	uint64_t max_bytes = 0, max_switches = 100000, nsw = 0;
	uint64_t now = 1000000000000ULL, drain_ns = 100000000ULL, next_drain;
	bool at_end = false, drops = false, spurious = false;
	bool knames = false, losses = false, skips = false, births = false;
	unsigned round = 0;
	struct fxt_writer w;
	int o, i, c;

	while ((o = getopt_long(argc, argv, "o:c:t:m:n:h", lo, NULL)) != -1) {
		switch (o) {
		case 'o': path = optarg; break;
		case 'c': ncpu = (int)number("-c", optarg, 1, MAXCPU); break;
		case 't': nt = (int)number("-t", optarg, 1, MAXT); break;
		case 'm': max_bytes = number("-m", optarg, 1, 1 << 20) << 20; max_switches = UINT64_MAX; break;
		case 'n': max_switches = number("-n", optarg, 0, UINT64_MAX); break;
		case 's': rng ^= number("--seed", optarg, 0, UINT64_MAX) * 0x9E3779B97F4A7C15ULL; break;
		case 'd': drain_ns = number("--drain-ms", optarg, 1, 3600000) * 1000000ULL; break;
		case 'e': at_end = true; break;
		case 'D': drops = true; break;
		case 'S': spurious = true; break;
		case 'K': knames = true; break;
		case 'L': losses = true; break;
		case 'k': skips = true; break;
		case 'l': switches_from = now + 2000000; break;
		case 'b': births = true; break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gen_trace: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!path) {
		fprintf(stderr, "gen_trace: no output file: give -o FILE\n");
		usage(stderr);
		return 2;
	}
	if (!rng) {
		fprintf(stderr, "gen_trace: --seed cancels the generator's state; pick another seed\n");
		return 2;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return 1;
	}
	for (i = 0; i < nt; i++) {
		th[i].tid = (i < nt / 2 ? 1000 : 2000) + (uint64_t)i + 1;
		th[i].pid = i < nt / 2 ? 1000 : 2000;
		th[i].st = SLEEPING;
		th[i].cpu = i % ncpu;
		th[i].unborn = births && i >= nt - (nt + 3) / 4;
		/* one rnd() either way: the sequence stays as it was */
		th[i].wake_at = now + (th[i].unborn ?
				       rnd_range(200000000, 1500000000) :
				       rnd_range(1000, 2000000));
		th[i].prio = 120 + (int)(rnd() % 5);
	}
	for (c = 0; c < ncpu; c++) {
		fxt_writer_init_dynamic(&cpus[c].ring);
		cpus[c].cur = -1;
		cpus[c].resched_at = UINT64_MAX;
		cpus[c].lose_from = cpus[c].lose_until = UINT64_MAX;
	}
	fxt_writer_init_dynamic(&w);
	fxt_write_magic(&w);
	fxt_write_provider_info(&w, 1, "fxtrace", 7);
	fxt_write_provider_section(&w, 1);
	fxt_write_initialization(&w, 1000000000ULL);
	{
		const char *p = &FXTRACE_STRING_TABLE[1];

		for (i = 1; i < FXTRACE_STR_COUNT; i++) {
			fxt_write_string(&w, (uint16_t)i, p, strlen(p));
			p += strlen(p) + 1;
		}
	}
	if (!at_end)
		names(&w);
	flush_writer(&w);
	next_drain = now + drain_ns;

	while (nsw < max_switches && (!max_bytes || bytes_out < max_bytes)) {
		/* next event: a CPU decision or a thread waking up */
		uint64_t t = UINT64_MAX;
		int who = -1, kind = 0;

		for (c = 0; c < ncpu; c++)
			if (cpus[c].resched_at < t) {
				t = cpus[c].resched_at;
				who = c;
				kind = 1;
			}
		for (i = 0; i < nt; i++)
			if (th[i].st == SLEEPING && th[i].wake_at < t) {
				t = th[i].wake_at;
				who = i;
				kind = 2;
			}
		if (who < 0)
			break;
		now = t;
		while (now >= next_drain) {
			drain(round++, drops, losses, skips, now);
			next_drain += drain_ns;
		}
		if (kind == 2) {
			struct th *p = &th[who];
			int target = rnd() % 8 == 0 ? (int)(rnd() % (uint64_t)ncpu) : p->cpu;
			int wc = (int)(rnd() % (uint64_t)ncpu), waker = cpus[wc].cur;
			struct cpu *tc = &cpus[target];

			bool irq = waker < 0 || rnd() % 4 == 0;

			if (p->unborn) {
				/* created now, on the waker's CPU: names,
				 * then wakeup_new */
				p->unborn = false;
				emit_names(irq ? target : wc, now, who, false);
			}
			if (p->exiting) {
				/* the tid is reused by a new thread, forked on
				 * the waker's CPU: names, then wakeup_new */
				p->exiting = false;
				p->gen++;
				p->pid = p->gen % 2 ? 3000 : (p->tid < 2000 ? 1000 : 2000);
				emit_names(irq ? target : wc, now, who, true);
			}
			if (irq)	/* from an interrupt */
				emit_wakeup(target, now, who, target, -1);
			else
				emit_wakeup(wc, now, who, target, waker);
			p->st = RUNNABLE;
			p->cpu = target;
			tc->q[(tc->qh + tc->qn++) % MAXT] = who;
			if (tc->cur < 0)
				tc->resched_at = now + rnd_range(500, 30000);
			else if (rnd() % 3 == 0 && tc->resched_at > now + 20000)
				tc->resched_at = now + rnd_range(1000, 20000);
		} else {
			struct cpu *p = &cpus[who];
			int prev = p->cur, next = -1;
			unsigned state = 3;

			if (prev >= 0) {
				if (p->qn && rnd() % 3) {
					state = 1;	/* preempted */
				} else if (!p->qn && rnd() % 4 == 0) {
					/* nobody waiting: keep running */
					p->resched_at = now + rnd_range(10000, 3000000);
					continue;
				}
			}
			if (p->qn) {
				next = p->q[p->qh];
				p->qh = (p->qh + 1) % MAXT;
				p->qn--;
			}
			if (prev < 0 && next < 0) {
				p->resched_at = UINT64_MAX;
				continue;
			}
			/* a thread exits, never the idle task (prev -1);
			 * rnd() first, so the random sequence stays as it was */
			if (knames && state == 3 && rnd() % 16 == 0 && prev >= 0) {
				state = 5;	/* exits; the tid comes back later */
				th[prev].exiting = true;
			}
			emit_switch(who, now, prev, next, state);
			nsw++;
			if (spurious && rnd() % 8 == 0) {
				/* Linux also traces wakeups of threads that are
				 * running or already on a runqueue */
				int v = (int)(rnd() % (uint64_t)nt);

				/* not prev: it is switching out right now
				 * (and may be exiting) */
				if (th[v].st != SLEEPING && v != prev)
					emit_wakeup(who, now + 1, v, th[v].cpu,
						    prev >= 0 ? prev : -1);
			}
			if (prev >= 0) {
				if (state == 1) {
					th[prev].st = RUNNABLE;
					p->q[(p->qh + p->qn++) % MAXT] = prev;
				} else {
					th[prev].st = SLEEPING;
					th[prev].wake_at = now + rnd_range(2000, 5000000);
				}
			}
			if (next >= 0) {
				th[next].st = RUNNING;
				th[next].cpu = who;
				p->resched_at = now + rnd_range(5000, 4000000);
			} else {
				p->resched_at = UINT64_MAX;
			}
			p->cur = next;
		}
	}
	for (c = 0; c < ncpu; c++)	/* the last hole ends */
		cpus[c].lose_until = 0;
	drain(round, drops, false, false, now);
	if (at_end) {
		names(&w);
		flush_writer(&w);
	}
	for (c = 0; c < ncpu; c++)
		fxt_writer_free(&cpus[c].ring);
	fxt_writer_free(&w);
	if (fclose(out)) {
		perror(path);
		return 1;
	}
	return 0;
}
