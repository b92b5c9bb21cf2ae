/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring_check.h - map every ring of a session and drain it the way a
 * collector does, checking each record on the way, for the tests that own a
 * session and must check its counters themselves (they are freed with it):
 * stress_test, hotplug_test, lifecycle_test, prio_test, state_test, and
 * mmap_test's control-page scribbles; and the records' clock (boottime_ns()).
 *
 *	struct rings rs;
 *	rings_map(fd, &info, &rs);
 *	... START, work, rings_drain(&rs) now and then, STOP ...
 *	rings_drain(&rs);		after STOP: the rest
 *	rings_check_counters(&rs);	per CPU: hits == written + dropped, ...
 *	rings_unmap(&rs);
 */
#ifndef FXTRACE_RING_CHECK_H
#define FXTRACE_RING_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "fxtrace_dev.h"
#include "kernel_records.h"

/*
 * Called for every context switch walked, in ring order, with its
 * outgoing weight as written or as the CPU's last switch implies it.
 */
typedef void (*ring_switch_fn)(void *ctx, int cpu,
			       const struct krec_switch *sw, __u64 timestamp,
			       __s32 outgoing_weight);

/*
 * Called for every wakeup walked, in ring order: the woken tid, and the
 * waker's, 0 when the record names none.
 */
typedef void (*ring_wakeup_fn)(void *ctx, int cpu, __u64 tid, __u64 waker,
			       __u64 timestamp);

/*
 * Called for every record walked, in ring order, before its own checks
 * and callback: @rec of kind @kind (a pair of loss markers is one call,
 * with the first). For what comes right after what in a ring.
 */
typedef void (*ring_record_fn)(void *ctx, int cpu, const __u64 *rec,
			       enum krec kind);

struct ring {
	int cpu;
	struct fxtrace_ctrl *ctrl;
	const unsigned char *data;
	__u64 size;		/* data bytes: info.buf_size, or 64 KiB where
				 * the CPU is possible but not present */
	__u64 walked;		/* records seen between consumer and producer */
	__u64 markers;		/* loss markers seen (not in walked) */
	__u64 marked_lost;	/* records lost, summed over the markers */
	__u64 drains;		/* drains that found records */
	__u64 switches_with_state;	/* context switches with linux_state */
	__u64 switches_without_state;	/* ... and without (state implied) */
	__u64 switches_weight_implied;	/* without outgoing_weight */
	/* This CPU's chain of switches (uapi "Records", outgoing_weight). */
	int running_known;	/* since START or the last loss */
	__u64 running_tid;	/* incoming tid of the last switch */
	__s32 running_weight;	/* and its incoming_weight */
	ring_switch_fn on_switch;	/* optional: rings_watch() */
	ring_wakeup_fn on_wakeup;	/* optional: rings_watch() */
	ring_record_fn on_record;	/* optional: rings_watch_records() */
	void *watch_ctx;		/* the callbacks' ctx */
	__u64 last_ts;		/* latest timestamp walked in this ring */
	__u64 opener_tgid;	/* the session's opener: loss markers name it */
	__u64 opener_tid;
};

struct rings {
	struct fxtrace_info info;
	struct ring *r;
	int n;			/* possible CPUs: entries in r */
	unsigned char *copy;	/* one ring's worth of drained bytes */
};

/* Now on the clock of every timestamp (uapi "Clock"), in ns. */
static inline __u64 boottime_ns(void)
{
	struct timespec ts;

	ASSERT_EQ(0, clock_gettime(CLOCK_BOOTTIME, &ts));
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* (C): pairs with the kernel's store-release (A). */
static inline __u64 ring_load_producer(struct fxtrace_ctrl *ctrl)
{
	return __atomic_load_n(&ctrl->producer_pos, __ATOMIC_ACQUIRE);
}

/* (D): pairs with the kernel's load-acquire (B). */
static inline void ring_store_consumer(struct fxtrace_ctrl *ctrl, __u64 pos)
{
	__atomic_store_n(&ctrl->consumer_pos, pos, __ATOMIC_RELEASE);
}

/*
 * Map the control page and data area of every possible CPU. The calling
 * thread opened @fd: loss markers name it.
 */
static inline void rings_map(int fd, const struct fxtrace_info *info,
			     struct rings *rs)
{
	int cpu;

	memset(rs, 0, sizeof(*rs));
	rs->info = *info;
	rs->r = calloc(info->nr_cpu_ids, sizeof(*rs->r));
	rs->copy = malloc(info->buf_size);
	ASSERT_TRUE(rs->r && rs->copy);
	for (cpu = 0; cpu < (int)info->nr_cpu_ids; cpu++) {
		void *ctrl = mmap(NULL, info->ctrl_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, (off_t)ctrl_offset(info, cpu));
		int err = ctrl == MAP_FAILED ? errno : 0;

		/* ENXIO for exactly the CPUs that are not possible. */
		if (!cpu_possible((unsigned long)cpu)) {
			ASSERT_EQ(ENXIO, err);
			continue;
		}
		ASSERT_TRUE(ctrl != MAP_FAILED);
		rs->r[rs->n].cpu = cpu;
		rs->r[rs->n].ctrl = ctrl;
		/* Each ring's own size (uapi "mmap layout"). */
		rs->r[rs->n].size = ((struct fxtrace_ctrl *)ctrl)->buf_size;
		ASSERT_EQ(cpu_present((unsigned long)cpu) ? info->buf_size :
			  FXTRACE_BUF_SIZE_MIN, rs->r[rs->n].size);
		rs->r[rs->n].data = map_data_bytes(fd, info, cpu,
						   rs->r[rs->n].size);
		rs->r[rs->n].opener_tgid = (__u64)getpid();
		rs->r[rs->n].opener_tid = (__u64)gettid();
		rs->n++;
	}
	ASSERT_GE(rs->n, 1);
}

static inline void rings_unmap(struct rings *rs)
{
	int i;

	for (i = 0; i < rs->n; i++) {
		ASSERT_EQ(0, munmap(rs->r[i].ctrl, rs->info.ctrl_size));
		ASSERT_EQ(0, munmap((void *)rs->r[i].data, rs->r[i].size));
	}
	free(rs->r);
	free(rs->copy);
	memset(rs, 0, sizeof(*rs));
}

/*
 * Each ring's records are in timestamp order, interrupt-nested wakeups
 * included: a probe reads the clock, reserves, writes and publishes with
 * interrupts disabled (kmod/fxtrace_probes.c, docs/decisions.md). Context
 * switches, wakeups and both loss markers carry a timestamp (word 1); name
 * records carry none and are not checked. Equal timestamps are allowed
 * (a marker pair's end and the record after it share one). Catches a
 * module that reads the clock outside the interrupt-disabled section, so
 * that a nested wakeup is published before the record it interrupted, or
 * one that dates a loss marker at the wrong record. Kept across drains,
 * STOP and START (the clock only goes on); rings_map() starts it at 0.
 */
static inline void ring_check_order(struct ring *r, __u64 ts, __u64 ring_pos,
				    const char *what)
{
	HARNESS_CHECK(ts >= r->last_ts, 1,
		      "cpu %d: %s at ring position %llu has timestamp %llu, before the %llu of an earlier record in this ring",
		      r->cpu, what, (unsigned long long)ring_pos,
		      (unsigned long long)ts,
		      (unsigned long long)r->last_ts);
	r->last_ts = ts;
}

/*
 * Loss markers come in pairs followed by a record, all published at once
 * (uapi header, "Loss markers"): N records lost from the first marker's
 * time, then 0 at the time of the record after the pair, for this CPU, on
 * the opener's thread, in one int64 argument "cpu". Return the bytes of
 * the pair.
 */
static inline __u64 ring_check_loss_markers(struct ring *r, const __u64 *rec,
					    __u64 bytes, __u64 ring_pos)
{
	const __u64 *zero = rec + FXTRACE_LOSS_WORDS;
	const __u64 *next = zero + FXTRACE_LOSS_WORDS;
	/* One int64 of 2 words (header and value), named "cpu". */
	const __u64 loss_arg_word = krec_arg_header(FXT_ARG_INT64, 2,
						    FXTRACE_STR_CPU);
	enum krec next_kind;

	ASSERT_LE(2 * FXTRACE_LOSS_WORDS * 8 + 8, bytes);
	ASSERT_EQ(KREC_LOSS, krec_classify(zero[0]));
	next_kind = krec_classify(next[0]);
	ASSERT_TRUE(next_kind != KREC_BAD && next_kind != KREC_LOSS);
	ASSERT_EQ(r->opener_tgid, rec[2]);
	ASSERT_EQ(r->opener_tid, rec[3]);
	ASSERT_EQ(r->opener_tgid, zero[2]);
	ASSERT_EQ(r->opener_tid, zero[3]);
	ASSERT_EQ(loss_arg_word, rec[4]);
	ASSERT_EQ(loss_arg_word, zero[4]);
	ASSERT_EQ((__u64)r->cpu, rec[6]);
	ASSERT_EQ((__u64)r->cpu, zero[6]);
	ASSERT_NE(0, rec[5]);
	ASSERT_EQ(0, zero[5]);
	ASSERT_LE(rec[1], zero[1]);
	/*
	 * In timestamp order with the records before them, like every record
	 * that has a timestamp (ring_check_order()): the first marker is
	 * dated at the first lost record, which came after every record
	 * written before the hole, so no exception is needed for it.
	 */
	ring_check_order(r, rec[1], ring_pos, "loss marker");
	ring_check_order(r, zero[1], ring_pos + FXTRACE_LOSS_WORDS * 8,
			 "closing loss marker");
	/* Scheduling records carry a timestamp: the hole ends right there. */
	if (next_kind == KREC_SWITCH || next_kind == KREC_WAKEUP)
		ASSERT_EQ(zero[1], next[1]);
	r->markers += 2;
	r->marked_lost += rec[5];
	/* The kernel starts the chain over after a drop. */
	r->running_known = 0;
	return 2 * FXTRACE_LOSS_WORDS * 8;
}

/*
 * A context switch: on this CPU, arguments as uapi "Records" has them, and
 * outgoing_weight left out exactly when this CPU's last switch (since
 * START or a loss) brought the same task in, not idle, with that weight.
 */
static inline void ring_check_switch(struct ring *r, const __u64 *rec,
				     __u64 ring_pos)
{
	struct krec_switch sw;
	const char *error = krec_read_switch(rec, &sw);
	__u64 cpu = (rec[0] >> FXT_SCHED_CPU_SHIFT) & FXT_SCHED_CPU_MASK;
	int follows = r->running_known && r->running_tid == sw.outgoing_tid &&
		      r->running_weight != INT32_MIN;
	__s32 outgoing_weight;

	HARNESS_CHECK(cpu == (__u64)r->cpu, 1,
		      "cpu %d: context switch at ring position %llu says cpu %llu",
		      r->cpu, (unsigned long long)ring_pos,
		      (unsigned long long)cpu);
	HARNESS_CHECK(!error, 1, "cpu %d: context switch at ring position %llu: %s",
		      r->cpu, (unsigned long long)ring_pos, error);
	HARNESS_CHECK(sw.has_outgoing_weight || follows, 1,
		      "cpu %d: context switch at ring position %llu leaves outgoing_weight out, but this CPU's last switch did not bring tid %llu in",
		      r->cpu, (unsigned long long)ring_pos,
		      (unsigned long long)sw.outgoing_tid);
	HARNESS_CHECK(!sw.has_outgoing_weight || !follows ||
		      sw.outgoing_weight != r->running_weight, 1,
		      "cpu %d: context switch at ring position %llu writes outgoing_weight %d, which this CPU's last switch said",
		      r->cpu, (unsigned long long)ring_pos, sw.outgoing_weight);
	outgoing_weight = sw.has_outgoing_weight ? sw.outgoing_weight :
						   r->running_weight;
	if (r->on_switch)
		r->on_switch(r->watch_ctx, r->cpu, &sw, rec[1],
			     outgoing_weight);
	r->running_known = 1;
	r->running_tid = sw.incoming_tid;
	r->running_weight = sw.incoming_weight;
	if (sw.has_linux_state)
		r->switches_with_state++;
	else
		r->switches_without_state++;
	if (!sw.has_outgoing_weight)
		r->switches_weight_implied++;
}

/*
 * Check the record at @pos of a @len-byte copy; return its size in bytes
 * (a pair of loss markers counts as one step). Anything krec_classify()
 * does not recognise is a torn or corrupt record.
 */
static inline __u64 ring_record_bytes(struct ring *r, const __u64 *rec,
				      __u64 pos, __u64 len, __u64 ring_pos)
{
	enum krec kind = krec_classify(rec[0]);
	__u64 words = krec_words(rec[0]);

	HARNESS_CHECK(kind != KREC_BAD && words * 8 <= len - pos, 1,
		      "cpu %d: bad record header %#llx at ring position %llu",
		      r->cpu, (unsigned long long)rec[0],
		      (unsigned long long)ring_pos);
	if (r->on_record)
		r->on_record(r->watch_ctx, r->cpu, rec, kind);
	if (kind == KREC_SWITCH || kind == KREC_WAKEUP)
		ring_check_order(r, rec[1], ring_pos,
				 kind == KREC_SWITCH ? "context switch" :
						       "wakeup");
	if (kind == KREC_SWITCH)
		ring_check_switch(r, rec, ring_pos);
	/* uapi "Records": the waker, a 2-word koid argument named by index */
	HARNESS_CHECK(kind != KREC_WAKEUP || words != 5 ||
		      rec[3] == krec_arg_header(FXT_ARG_KOID, 2, FXTRACE_STR_WAKER), 1,
		      "cpu %d: wakeup at ring position %llu: argument header %#llx, not the waker's koid",
		      r->cpu, (unsigned long long)ring_pos,
		      (unsigned long long)rec[3]);
	if (kind == KREC_WAKEUP && r->on_wakeup)
		r->on_wakeup(r->watch_ctx, r->cpu, rec[2],
			     words == 5 ? rec[4] : 0, rec[1]);
	if (kind == KREC_LOSS)
		return ring_check_loss_markers(r, rec, len - pos, ring_pos);
	r->walked++;
	return words * 8;
}

/*
 * Copy [consumer, producer) out in at most two chunks, as a collector does,
 * then release the space and walk the copy. Walking the copy, not the ring,
 * is the point: a record the kernel had not finished when it published
 * producer_pos would show up here as a bad header.
 */
static inline void ring_drain(struct ring *r, __u64 size, unsigned char *copy)
{
	__u64 head = ring_load_producer(r->ctrl), tail = r->ctrl->consumer_pos;
	__u64 len = head - tail, off = tail & (size - 1), first, pos;

	ASSERT_LE(len, size);
	if (!len)
		return;
	first = size - off < len ? size - off : len;
	memcpy(copy, r->data + off, first);
	memcpy(copy + first, r->data, len - first);
	ring_store_consumer(r->ctrl, head);

	for (pos = 0; pos < len; )
		pos += ring_record_bytes(r, (const __u64 *)(copy + pos), pos,
					 len, tail + pos);
	r->drains++;
}

static inline void rings_drain(struct rings *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		ring_drain(&rs->r[i], rs->r[i].size, rs->copy);
}

/*
 * Call @on_switch for every context switch and @on_wakeup for every wakeup
 * walked from now on, each with @ctx; either may be NULL.
 */
static inline void rings_watch(struct rings *rs, ring_switch_fn on_switch,
			       ring_wakeup_fn on_wakeup, void *ctx)
{
	int i;

	for (i = 0; i < rs->n; i++) {
		rs->r[i].on_switch = on_switch;
		rs->r[i].on_wakeup = on_wakeup;
		rs->r[i].watch_ctx = ctx;
	}
}

/*
 * Call @on_record for every record walked from now on, with the @ctx
 * rings_watch() was given (call that first).
 */
static inline void rings_watch_records(struct rings *rs,
				       ring_record_fn on_record)
{
	int i;

	for (i = 0; i < rs->n; i++)
		rs->r[i].on_record = on_record;
}

/*
 * After a START: the kernel starts every CPU's chain of switches over, so
 * the first switch on each CPU writes outgoing_weight again. Call it only
 * when everything before the START has been drained.
 */
static inline void rings_restart(struct rings *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		rs->r[i].running_known = 0;
}

/* Sum of one counter over every ring. */
static inline __u64 rings_sum(const struct rings *rs, size_t field_offset)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < rs->n; i++)
		sum += __atomic_load_n((const __u64 *)((const char *)rs->r[i].ctrl +
						       field_offset),
				       __ATOMIC_RELAXED);
	return sum;
}

/*
 * After STOP and a last rings_drain(), for every CPU: every probe hit was
 * written or dropped, every written record was walked whole, our consumer
 * position was always sane and everything was drained. Prints one line per
 * CPU. Returns the number of records dropped in total.
 */
static inline __u64 rings_check_counters(const struct rings *rs)
{
	__u64 total_dropped = 0, with_state = 0, without_state = 0;
	__u64 weight_implied = 0;
	int i;

	for (i = 0; i < rs->n; i++) {
		const struct ring *r = &rs->r[i];
		__u64 written = r->ctrl->records_written;
		__u64 dropped = r->ctrl->records_dropped;
		__u64 hits = r->ctrl->tracepoint_hits;

		printf("#   cpu %d: written %llu dropped %llu hits %llu walked %llu drains %llu consumer_errors %llu loss markers %llu for %llu records\n",
		       r->cpu, (unsigned long long)written,
		       (unsigned long long)dropped, (unsigned long long)hits,
		       (unsigned long long)r->walked,
		       (unsigned long long)r->drains,
		       (unsigned long long)r->ctrl->consumer_errors,
		       (unsigned long long)r->markers,
		       (unsigned long long)r->marked_lost);
		EXPECT_EQ(hits, written + dropped);
		EXPECT_EQ(written, r->walked);
		EXPECT_EQ(r->ctrl->markers_written, r->markers);
		/* Only records lost when tracing stopped have no marker. */
		EXPECT_LE(r->marked_lost, dropped);
		EXPECT_EQ(0, r->ctrl->consumer_errors);
		EXPECT_EQ(ring_load_producer(r->ctrl), r->ctrl->consumer_pos);
		if (dropped)
			EXPECT_NE(0, r->ctrl->last_drop_ns);
		total_dropped += dropped;
		with_state += r->switches_with_state;
		without_state += r->switches_without_state;
		weight_implied += r->switches_weight_implied;
	}
	/*
	 * Every switch keeps the linux_state rule (ring_record_bytes()); the
	 * futex and pipe sleeps of the load are TASK_INTERRUPTIBLE, so some
	 * switches must be without it.
	 */
	printf("#   context switches: %llu without linux_state, %llu with it; %llu without outgoing_weight (the CPU's last switch said it)\n",
	       (unsigned long long)without_state,
	       (unsigned long long)with_state,
	       (unsigned long long)weight_implied);
	EXPECT_NE(0, without_state);
	/* A task that runs between two switches of its CPU: most of them. */
	EXPECT_NE(0, weight_implied);
	return total_dropped;
}

/*
 * Start fxt-stress (the load that fills the rings) for @seconds with
 * @threads_per_cpu threads per CPU; return its pid. Its output would
 * interleave with our TAP, so it goes to /dev/null.
 */
static inline pid_t spawn_fxt_stress(const char *seconds,
				     const char *threads_per_cpu)
{
	pid_t pid = fork();

	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		int tap = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execlp("fxt-stress", "fxt-stress", "--seconds", seconds,
		       "--threads-per-cpu", threads_per_cpu, (char *)NULL);
		/* Why, on the TAP stream it was kept from: else only 127. */
		dprintf(tap >= 0 ? tap : STDERR_FILENO,
			"#   exec fxt-stress: %s\n", strerror(errno));
		_exit(127);
	}
	return pid;
}

#endif /* FXTRACE_RING_CHECK_H */
