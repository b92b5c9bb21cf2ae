// SPDX-License-Identifier: GPL-2.0
/*
 * stress_test - the rings under a scheduler storm (fxt-stress) with the
 * smallest buffers, drained the way a collector does, with pauses in the
 * draining so the rings also fill up and drop.
 *
 * The counters live in the session's control pages, which are freed when the
 * session closes, so they can only be checked by the program that owns the
 * session: this one. For every CPU it checks, after STOP and a last drain:
 *   records_written + records_dropped == tracepoint_hits
 *   records walked in the ring == records_written (nothing torn or lost)
 *   consumer_errors == 0 (our consumer_pos was always sane)
 * and that at least one CPU dropped records (the rings really were full).
 *
 * fxt-stress is found on PATH (run_vm_tests.sh puts bin/ there).
 */
#define _GNU_SOURCE
#include <time.h>

#include "fxtrace_dev.h"

#define STRESS_SECONDS	"6"
#define DRAIN_MS	10	/* drain interval while draining */
#define STALL_EVERY	50	/* every this many drains ... */
#define STALL_MS	300	/* ... stop draining this long: rings fill */

struct ring {
	int cpu;
	struct fxtrace_ctrl *ctrl;
	const unsigned char *data;
	__u64 walked;		/* records seen between consumer and producer */
	__u64 drains;		/* drains that found records */
};

/* (C): pairs with the kernel's store-release (A). */
static __u64 load_producer(struct fxtrace_ctrl *ctrl)
{
	return __atomic_load_n(&ctrl->producer_pos, __ATOMIC_ACQUIRE);
}

/* (D): pairs with the kernel's load-acquire (B). */
static void store_consumer(struct fxtrace_ctrl *ctrl, __u64 pos)
{
	__atomic_store_n(&ctrl->consumer_pos, pos, __ATOMIC_RELEASE);
}

/*
 * Copy [consumer, producer) out in at most two chunks, as a collector does,
 * then release the space and walk the copy. Walking the copy, not the ring,
 * is the point: a record the kernel had not finished when it published
 * producer_pos would show up here as a bad header.
 */
static void drain(struct ring *r, __u64 size, unsigned char *copy)
{
	__u64 head = load_producer(r->ctrl), tail = r->ctrl->consumer_pos;
	__u64 len = head - tail, off = tail & (size - 1), first, pos;

	ASSERT_LE(len, size);
	if (!len)
		return;
	first = size - off < len ? size - off : len;
	memcpy(copy, r->data + off, first);
	memcpy(copy + first, r->data, len - first);
	store_consumer(r->ctrl, head);

	for (pos = 0; pos < len; ) {
		__u64 hdr = *(const __u64 *)(copy + pos);
		__u64 words = (hdr >> FXT_HDR_SIZE_SHIFT) & FXT_HDR_SIZE_MASK;
		__u64 kind = hdr >> FXT_SCHED_KIND_SHIFT;

		HARNESS_CHECK((hdr & 0xf) == FXT_RECORD_SCHEDULING &&
			      (kind == FXT_SCHED_KIND_CONTEXT_SWITCH ||
			       kind == FXT_SCHED_KIND_WAKEUP) &&
			      (words == 7 || words == 6 || words == 4) &&
			      words * 8 <= len - pos, 1,
			      "cpu %d: bad record header %#llx at ring position %llu",
			      r->cpu, (unsigned long long)hdr,
			      (unsigned long long)(tail + pos));
		if (kind == FXT_SCHED_KIND_CONTEXT_SWITCH)
			ASSERT_EQ(r->cpu, (hdr >> FXT_SCHED_CPU_SHIFT) &
					  FXT_SCHED_CPU_MASK);
		pos += words * 8;
		r->walked++;
	}
	r->drains++;
}

static void drain_all(struct ring *rings, int n, __u64 size,
		      unsigned char *copy)
{
	int i;

	for (i = 0; i < n; i++)
		drain(&rings[i], size, copy);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

TEST(stress_counters_add_up)
{
	int fd = dev_open(), cpu, n = 0, status, iter = 0, any_drop = 0;
	struct fxtrace_info info;
	struct ring *rings;
	unsigned char *copy;
	pid_t pid;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	ASSERT_EQ(FXTRACE_BUF_SIZE_MIN, info.buf_size);
	rings = calloc(info.nr_cpu_ids, sizeof(*rings));
	copy = malloc(info.buf_size);
	ASSERT_TRUE(rings && copy);
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++) {
		void *ctrl = mmap(NULL, info.ctrl_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, (off_t)ctrl_offset(&info, cpu));

		if (ctrl == MAP_FAILED && errno == ENXIO)
			continue;	/* not a possible CPU */
		ASSERT_TRUE(ctrl != MAP_FAILED);
		rings[n].cpu = cpu;
		rings[n].ctrl = ctrl;
		rings[n].data = map_data(fd, &info, cpu);
		n++;
	}
	ASSERT_GE(n, 1);

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		/* Its output would interleave with our TAP: drop it. */
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execlp("fxt-stress", "fxt-stress", "--seconds", STRESS_SECONDS,
		       (char *)NULL);
		printf("#   exec fxt-stress: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (++iter % STALL_EVERY == 0) {
			sleep_ms(STALL_MS);
			continue;
		}
		sleep_ms(DRAIN_MS);
		drain_all(rings, n, info.buf_size, copy);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	/* After STOP every record is committed: this drain is the rest. */
	drain_all(rings, n, info.buf_size, copy);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	for (cpu = 0; cpu < n; cpu++) {
		struct ring *r = &rings[cpu];
		__u64 written = r->ctrl->records_written;
		__u64 dropped = r->ctrl->records_dropped;
		__u64 hits = r->ctrl->tracepoint_hits;

		printf("#   cpu %d: written %llu dropped %llu hits %llu walked %llu drains %llu consumer_errors %llu\n",
		       r->cpu, (unsigned long long)written,
		       (unsigned long long)dropped, (unsigned long long)hits,
		       (unsigned long long)r->walked,
		       (unsigned long long)r->drains,
		       (unsigned long long)r->ctrl->consumer_errors);
		EXPECT_EQ(hits, written + dropped);
		EXPECT_EQ(written, r->walked);
		EXPECT_EQ(0, r->ctrl->consumer_errors);
		EXPECT_EQ(load_producer(r->ctrl), r->ctrl->consumer_pos);
		if (dropped) {
			any_drop = 1;
			EXPECT_NE(0, r->ctrl->last_drop_ns);
		}
	}
	EXPECT_TRUE(any_drop);
	close(fd);
}

TEST_MAIN()
