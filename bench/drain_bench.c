// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * drain-bench - the collector's drain path on the host, without the module
 *
 * fxt-collect's inner loop is: for every CPU's ring, ring_drain() walks the
 * new records (distrusting the kernel), hands each thread id not in the
 * ring's small cache to the sink, which remembers it in a tid_set and
 * queues it for naming if new, and
 * writes the bytes verbatim with trace_output_write() (collector/
 * collect_output.c, drain_all() and sink_tid()). This program runs exactly
 * those library functions over rings in ordinary memory, filled with
 * kernel-format records (the layouts of kmod/fxtrace_probes.c) between
 * drains, until >= --megabytes have gone through, and reports the drain
 * rate. Filling the rings is timed separately and left out of the rate.
 *
 * Left out on purpose: reading /proc for the name of each new thread
 * (once per thread, not per record) and poll().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "ring_drain.h"
#include "tid_set.h"
#include "trace_output.h"

#define MAX_CPUS	64

struct env {
	const char *output;
	uint64_t megabytes;
	uint64_t buf_size;
	unsigned int cpus;
	unsigned int threads;
};

struct cpu_ring {
	struct fxtrace_ctrl *ctrl;
	uint8_t *data;
	uint64_t head;		/* the producer's private position */
	struct ring ring;
};

struct bench {
	struct trace_output out;
	struct tid_set seen, named;
	uint64_t new_tids;
	uint64_t rng;
	struct cpu_ring rings[MAX_CPUS];
};

/* CLOCK_MONOTONIC or CLOCK_THREAD_CPUTIME_ID (what other jobs cannot inflate) */
static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(struct bench *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return b->rng;
}

/* ---- the producer: records as the probes write them --------------------- */

static uint64_t sched_header(uint64_t kind, uint64_t words, uint64_t argc,
			     uint64_t cpu)
{
	return ((uint64_t)FXT_RECORD_SCHEDULING << FXT_HDR_TYPE_SHIFT) |
	       (words << FXT_HDR_SIZE_SHIFT) | (argc << FXT_SCHED_ARGC_SHIFT) |
	       ((cpu & FXT_SCHED_CPU_MASK) << FXT_SCHED_CPU_SHIFT) |
	       (kind << FXT_SCHED_KIND_SHIFT);
}

static uint64_t arg_word(uint64_t type, uint64_t name, uint32_t value)
{
	return (type << FXT_ARG_TYPE_SHIFT) | (1ULL << FXT_ARG_SIZE_SHIFT) |
	       (name << FXT_ARG_NAME_SHIFT) | ((uint64_t)value << FXT_ARG_VALUE_SHIFT);
}

/*
 * One record as the kernel writes it (uapi "Records"): half context
 * switches (incoming_weight only: the CPU's previous switch said the
 * outgoing one), the rest wakeups (1 in 5 without waker).
 */
static unsigned int make_record(struct bench *b, const struct env *env,
				unsigned int cpu, uint64_t ts, uint64_t *rec)
{
	uint64_t r = rnd(b);
	uint64_t t1 = 1000 + r % env->threads, t2 = 1000 + (r >> 20) % env->threads;

	if (r & (1ULL << 40)) {
		rec[0] = sched_header(FXT_SCHED_KIND_CONTEXT_SWITCH, 5, 1, cpu) |
			 ((uint64_t)FXT_THREAD_STATE_BLOCKED << FXT_SCHED_STATE_SHIFT);
		rec[1] = ts;
		rec[2] = t1;
		rec[3] = t2;
		rec[4] = arg_word(FXT_ARG_INT32, FXTRACE_STR_INCOMING_WEIGHT, 120);
		return 5;
	}
	if ((r >> 41) % 5 == 0) {
		rec[0] = sched_header(FXT_SCHED_KIND_WAKEUP, 3, 0, cpu);
		rec[1] = ts;
		rec[2] = t1;
		return 3;
	}
	rec[0] = sched_header(FXT_SCHED_KIND_WAKEUP, 5, 1, cpu);
	rec[1] = ts;
	rec[2] = t1;
	rec[3] = (FXT_ARG_KOID << FXT_ARG_TYPE_SHIFT) | (2ULL << FXT_ARG_SIZE_SHIFT) |
		 ((uint64_t)FXTRACE_STR_WAKER << FXT_ARG_NAME_SHIFT);
	rec[4] = t2;
	return 5;
}

/* Append records until @bytes more are committed or the ring is full. */
static void produce(struct bench *b, const struct env *env, unsigned int cpu,
		    uint64_t bytes, uint64_t *ts)
{
	struct cpu_ring *c = &b->rings[cpu];
	uint64_t mask = env->buf_size - 1, end = c->head + bytes;
	uint64_t rec[8], cons, len;
	unsigned int words, i;

	cons = __atomic_load_n(&c->ctrl->consumer_pos, __ATOMIC_ACQUIRE);	/* (B) */
	while (c->head < end) {
		words = make_record(b, env, cpu, (*ts)++, rec);
		len = words * 8ULL;
		if (c->head + len - cons > env->buf_size)
			break;
		for (i = 0; i < words; i++)
			*(uint64_t *)(c->data + ((c->head + i * 8ULL) & mask)) = rec[i];
		c->head += len;
	}
	__atomic_store_n(&c->ctrl->producer_pos, c->head, __ATOMIC_RELEASE);	/* (A) */
}

/* ---- the consumer: fxt-collect's sink ------------------------------------ */

static int sink_write(void *ctx, const void *buf, size_t len)
{
	struct bench *b = ctx;

	return trace_output_write(&b->out, buf, len);
}

/* As fxt-collect's sink_tid(): remember, and queue new ones for naming. */
static void sink_tid(void *ctx, uint64_t tid)
{
	struct bench *b = ctx;

	if (tid == 0)
		return;
	if (tid_set_add(&b->seen, tid) <= 0 || tid_set_contains(&b->named, tid))
		return;
	if (tid_set_add(&b->named, tid) > 0)	/* stands in for the /proc lookup */
		b->new_tids++;
}

static int drain_all(struct bench *b, unsigned int cpus, uint64_t *records)
{
	const struct ring_sink sink = { sink_write, sink_tid, b };
	struct ring_drain_result res;
	unsigned int i;
	int err;

	for (i = 0; i < cpus; i++) {
		struct ring *r = &b->rings[i].ring;
		uint64_t before = r->switches + r->wakeups + r->other_records;

		err = ring_drain(r, &sink, &res);
		if (err)
			return err;
		if (res.status != RING_DRAIN_OK) {
			fprintf(stderr, "drain-bench: CPU %u: ring_drain found invalid data (status %d): a bug in this benchmark's producer\n",
				i, res.status);
			return -EPROTO;
		}
		trace_output_commit(&b->out);
		*records += r->switches + r->wakeups + r->other_records - before;
	}
	return 0;
}

static int setup(struct bench *b, const struct env *env)
{
	unsigned int i;

	tid_set_init(&b->seen);
	tid_set_init(&b->named);
	b->rng = 88172645463325252ULL;
	for (i = 0; i < env->cpus; i++) {
		struct cpu_ring *c = &b->rings[i];

		c->ctrl = aligned_alloc(4096, 4096);
		c->data = aligned_alloc(4096, env->buf_size);
		if (!c->ctrl || !c->data)
			return -ENOMEM;
		memset(c->ctrl, 0, 4096);
		memset(c->data, 0, env->buf_size);	/* the module zeroes them too */
		c->ctrl->version = FXTRACE_CTRL_VERSION;
		c->ctrl->size = sizeof(*c->ctrl);
		c->ctrl->cpu = i;
		c->ctrl->buf_size = env->buf_size;
		if (ring_init(&c->ring, c->ctrl, c->data, env->buf_size))
			return -EINVAL;
	}
	return 0;
}

static void teardown(struct bench *b, const struct env *env)
{
	unsigned int i;

	for (i = 0; i < env->cpus; i++) {
		free(b->rings[i].ctrl);
		free(b->rings[i].data);
	}
	tid_set_free(&b->seen);
	tid_set_free(&b->named);
}

static int run(struct bench *b, const struct env *env)
{
	/* fxt-collect is woken when a ring holds a quarter of its size. */
	uint64_t chunk = env->buf_size / 4, goal = env->megabytes * 1000000ULL;
	uint64_t ts = 1, records = 0, drain_ns = 0, fill_ns = 0, drain_cpu_ns = 0;
	uint64_t t0, t1, t2, c1, c2;
	struct rusage ru;
	unsigned int i;
	int err;

	while (b->out.offset < goal) {
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < env->cpus; i++)
			produce(b, env, i, chunk, &ts);
		c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t1 = now_ns(CLOCK_MONOTONIC);
		err = drain_all(b, env->cpus, &records);
		t2 = now_ns(CLOCK_MONOTONIC);
		c2 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		if (err) {
			fprintf(stderr, "drain-bench: writing %s failed: %s\n",
				b->out.path, strerror(-err));
			return 1;
		}
		fill_ns += t1 - t0;
		drain_ns += t2 - t1;
		drain_cpu_ns += c2 - c1;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("drain-bench: %u rings of %" PRIu64 " KiB, drained every %" PRIu64 " KiB per ring, to %s\n",
	       env->cpus, env->buf_size >> 10, chunk >> 10, b->out.path);
	printf("drain-bench: %" PRIu64 " bytes, %" PRIu64 " records (%" PRIu64 " distinct tids) in %.3f s of drain time, %.3f s of it on the CPU (%.3f s filling the rings, not counted)\n",
	       b->out.offset, records, b->new_tids, drain_ns / 1e9,
	       drain_cpu_ns / 1e9, fill_ns / 1e9);
	printf("result what=drain MB_per_s_cpu=%.1f MB_per_s_wall=%.1f records_per_s_cpu=%.0f ns_per_record_cpu=%.2f peak_rss_kb=%ld\n",
	       b->out.offset / 1e6 / (drain_cpu_ns / 1e9),
	       b->out.offset / 1e6 / (drain_ns / 1e9),
	       records / (drain_cpu_ns / 1e9),
	       (double)drain_cpu_ns / (double)records, ru.ru_maxrss);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: drain-bench [-o FILE] [-m MB] [-b SIZE_KIB] [-c CPUS] [-t THREADS]\n"
"Time fxt-collect's drain path (ring_drain, tid tracking, trace_output) over\n"
"in-memory rings filled with kernel-format records, until MB megabytes\n"
"(10^6 bytes) have been written.\n"
"\n"
"  -o, --output=FILE     where the drained bytes go (default /dev/null)\n"
"  -m, --megabytes=MB    amount to drain (default 1100)\n"
"  -b, --buffer-kib=KIB  per-ring size in KiB, a power of two (default 4096)\n"
"  -c, --cpus=N          rings (default 2, at most %d)\n"
"  -t, --threads=N       distinct thread ids in the records (default 200)\n"
"  -h, --help            this text\n"
"\n"
"Prints 'result what=drain MB_per_s_cpu=... MB_per_s_wall=...\n"
"records_per_s_cpu=... ns_per_record_cpu=... peak_rss_kb=...' (rates over\n"
"the drain's CPU time, and over its wall time). Exit 0, 1 if a step failed,\n"
"2 on a bad command line.\n"
"\n"
"EXAMPLES\n"
"  drain-bench                          # the CPU cost of the drain path\n"
"  drain-bench -o /tmp/d.fxt -m 2000    # including writes to a file\n",
		MAX_CPUS);
}

static uint64_t parse_u64(const char *s, const char *what, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "drain-bench: %s must be a number from %" PRIu64 " to %" PRIu64 ", not '%s'\n",
			what, min, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "megabytes", required_argument, NULL, 'm' },
		{ "buffer-kib", required_argument, NULL, 'b' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct env env = { "/dev/null", 1100, 4ULL << 20, 2, 200 };
	static struct bench b;
	int c, err, ret;

	while ((c = getopt_long(argc, argv, "o:m:b:c:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': env.output = optarg; break;
		case 'm': env.megabytes = parse_u64(optarg, "--megabytes", 1, 1000000); break;
		case 'b': env.buf_size = parse_u64(optarg, "--buffer-kib", 64, 256 << 10) << 10; break;
		case 'c': env.cpus = (unsigned int)parse_u64(optarg, "--cpus", 1, MAX_CPUS); break;
		case 't': env.threads = (unsigned int)parse_u64(optarg, "--threads", 1, 1000000); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || (env.buf_size & (env.buf_size - 1))) {
		if (optind == argc)
			fprintf(stderr, "drain-bench: --buffer-kib must be a power of two\n");
		usage(stderr);
		return 2;
	}
	err = trace_output_open(&b.out, env.output);
	if (err) {
		fprintf(stderr, "drain-bench: opening %s failed: %s\n", env.output, strerror(-err));
		return 1;
	}
	err = setup(&b, &env);
	if (err) {
		fprintf(stderr, "drain-bench: allocating %u rings of %" PRIu64 " KiB failed: %s\n",
			env.cpus, env.buf_size >> 10, strerror(-err));
		teardown(&b, &env);
		trace_output_close(&b.out);
		return 1;
	}
	ret = run(&b, &env);
	teardown(&b, &env);
	err = trace_output_close(&b.out);
	if (err) {
		fprintf(stderr, "drain-bench: closing %s failed: %s\n", env.output, strerror(-err));
		ret = 1;
	}
	return ret;
}
