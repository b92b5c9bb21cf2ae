// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fake_fxtrace.c - an LD_PRELOAD stand-in for /dev/fxtrace, so fxt-collect
 * can run its whole lifecycle on a host that cannot load the module.
 *
 * It intercepts open(), ioctl(), mmap() and close() for one path
 * ($FAKE_FXTRACE_PATH, default /fake/fxtrace) and follows the uapi header:
 * GET_INFO/CONFIGURE/START/STOP, per-CPU control pages and read-only data
 * areas at the offsets it reports (EPERM for writable data, ENXIO for an
 * absent CPU), and a producer thread that writes kernel-format context
 * switch and wakeup records (and, if asked, name records) with the (A)/(B)
 * protocol, dropping and counting records when a ring is full and marking
 * each loss as the module does (uapi "Loss markers": a records_lost pair
 * written with the next record that fits, none for records dropped after
 * a ring's last one). Everything else goes to libc.
 *
 * Knobs (environment):
 *   FAKE_FXTRACE_CPUS=N         nr_cpu_ids (default 4, at most 65536); CPU 2 is
 *                               not possible (mmap ENXIO)
 *   FAKE_FXTRACE_NOT_POSSIBLE=A-B  CPUs A to B are not possible either: many
 *                               CPU numbers, few CPUs (e.g. CPUS=4100 and
 *                               4-4095: CPUs 0, 1, 3 and 4096 to 4099)
 *   FAKE_FXTRACE_SMALL_CPU=N    CPU N is possible but not present: its ring
 *                               is FXTRACE_BUF_SIZE_MIN bytes, whatever the
 *                               configured size (uapi "mmap layout")
 *   FAKE_FXTRACE_RATE=N         records per CPU per millisecond (default 2)
 *   FAKE_FXTRACE_ABI=N          abi_version to report (default the real one)
 *   FAKE_FXTRACE_OPEN_ERRNO=E   open() fails with errno E
 *   FAKE_FXTRACE_MMAP_ERRNO=E   mmap() of a data area fails with errno E
 *                               (ENOMEM: a -b too large for the memory)
 *   FAKE_FXTRACE_CONFIGURE_ERRNO=E  FXTRACE_IOC_CONFIGURE fails with
 *                               errno E (ENOMEM: rings larger than the
 *                               memory available)
 *   FAKE_FXTRACE_START_ERRNO=E  FXTRACE_IOC_START fails with errno E
 *   FAKE_FXTRACE_START_DELAY_MS=N  START returns N ms after the producer
 *                               started writing records, as the module's
 *                               START returns once the last probe is attached
 *   FAKE_FXTRACE_START_NOTE=PATH  START creates PATH first (before its
 *                               delay): a test knows START is under way
 *   FAKE_FXTRACE_MAP_DELAY_MS=N the first mmap() of a data area takes N ms
 *                               (less if a signal interrupts it): time for
 *                               a signal after the output is opened and
 *                               before START
 *   FAKE_FXTRACE_FIFO_DELAY_MS=N  the first open() of a FIFO takes N ms
 *                               more before the real open(), whatever
 *                               signals come, and creates
 *                               FAKE_FXTRACE_FIFO_NOTE=PATH first: a stop
 *                               signal sent then is handled just before
 *                               the open() that waits for a reader
 *   FAKE_FXTRACE_WAIT_DELAY_MS=N  the same for the first waitpid() of
 *                               COMMAND after STOP (note in
 *                               FAKE_FXTRACE_WAIT_NOTE=PATH): signals sent
 *                               then come just before the wait begins
 *   FAKE_FXTRACE_STOP_NOTE=PATH STOP creates PATH once it has returned: a
 *                               test knows tracing has stopped (at -d,
 *                               say, while a write blocks)
 *   FAKE_FXTRACE_NO_DEVNULL=1   open("/dev/null") fails with ENOENT, as
 *                               in a container or initramfs without it
 *   FAKE_FXTRACE_START=POS      initial ring positions (e.g. near 2^64)
 *   FAKE_FXTRACE_CORRUPT=1      once, publish a record with size 0
 *   FAKE_FXTRACE_BAD_PRODUCER=1 once, publish an impossible producer_pos
 *                               on CPU 0 (4 bytes past the real one, not a
 *                               whole word), hold still until the consumer
 *                               has jumped there (at most 2 s), then go on
 *                               from the real position: the consumer then
 *                               finds a second impossible one, and resyncs
 *   FAKE_FXTRACE_NAMES=N        N threads of a process that does not exist
 *                               (tids NAMED_TID+1..N, tgid NAMED_TID), one
 *                               per millisecond, "forked" on the highest
 *                               CPU with the name "fxt-threads" and then
 *                               renamed "thr-<i>" on CPU 0, as fxt-threads
 *                               does: CPU 0's ring is copied first, so the
 *                               rename reaches the file before the fork;
 *                               with the first thread the process, named
 *                               "fxt-names" on the highest CPU, execs on
 *                               CPU 0 as "fxt-names-exec", the same way
 *   FAKE_FXTRACE_CHILD=1        COMMAND's pid (our fork() child) shows up
 *                               in wakeups on CPU 0, without a name record
 *   FAKE_FXTRACE_PIPE_FAIL=K    the K-th write() to a pipe (other than
 *                               stderr) writes half of its bytes, an odd
 *                               number, and every later one fails with
 *                               EPIPE: the reader went away while a write
 *                               waited for room in the pipe
 *   FAKE_FXTRACE_TAIL_DROPS=N   first thing after START: VICTIM_TID is
 *                               switched in on CPU 0 and preempted there,
 *                               CPU 0's last record; its ring then stays
 *                               full until STOP (N records dropped at
 *                               once, and every later one of CPU 0), so
 *                               no marker can follow; then VICTIM_TID is
 *                               switched in on CPU 1 (with
 *                               FAKE_FXTRACE_RATE=0: nothing else at all)
 *   FAKE_FXTRACE_KILL_AT=OFF    a write() to a regular file (other than
 *                               stderr) that would cross file offset OFF
 *                               writes only up to OFF, then the process
 *                               SIGKILLs itself: what the kernel leaves
 *                               when SIGKILL lands in a multi-page write
 *   FAKE_FXTRACE_FULL_AFTER_STOP=K  after the STOP ioctl, the K-th
 *                               write() to a regular file (other than
 *                               stderr) writes half its bytes, and every
 *                               later one fails with ENOSPC: the disk
 *                               filled up during the last
 *                               drain (with FAKE_FXTRACE_RATE=0 and
 *                               FAKE_FXTRACE_TAIL_DROPS, K=2 is the
 *                               records-lost marker after CPU 0's records)
 *   FAKE_FXTRACE_WRITE_PAUSE_US=N  write() to a regular file (other than
 *                               stderr) goes in pieces ending at 4 KiB file
 *                               page boundaries, as the kernel copies it,
 *                               with an N microsecond pause after each: a
 *                               SIGKILL then lands mid-write and leaves the
 *                               file cut at a page boundary
 *   FAKE_FXTRACE_FTRUNCATE_ERRNO=E  ftruncate() fails with errno E (in
 *                               fxt-collect and in its guard): the old
 *                               file cannot be emptied, a cut back fails
 *
 * Thread ids in the records: the traced process's own pid, pid 1, tid 0
 * (idle) and a tid that does not exist, so naming can be checked.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "kernel_record_builders.h"

#define EXPORT		__attribute__((visibility("default")))
#define MAX_CPUS	65536	/* fxt-collect's limit: 16-bit CPU fields */
#define ABSENT_CPU	2
#define CTRL_SIZE	4096ULL
#define CPU_STRIDE	(1ULL << 32)
#define GONE_TID	3999999999ULL	/* above any pid_max */
#define NAMED_TID	3900000000ULL	/* named only by name records */
#define VICTIM_TID	3800000000ULL	/* FAKE_FXTRACE_TAIL_DROPS */
/* A pair of loss markers: 2 records of 7 words (kmod/fxtrace_ring.h). */
#define LOSS_MARKERS_BYTES	(2 * 7 * 8)

static struct {
	pthread_mutex_t lock;
	int fd;
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl[MAX_CPUS];
	uint8_t *data[MAX_CPUS];
	bool allocated, tracing;
	pthread_t producer;
	volatile int stop;
	long rate;
	bool corrupt;
	bool bad_producer;	/* FAKE_FXTRACE_BAD_PRODUCER, not done yet */
	bool bad_published;	/* CPU 0 shows the impossible position now */
	uint64_t bad_real;	/* CPU 0's real producer_pos meanwhile */
	uint64_t bad_until;	/* stop waiting for the consumer then */
	uint64_t start_pos;
	long names, named;	/* FAKE_FXTRACE_NAMES, threads named so far */
	bool child_wakeups;	/* FAKE_FXTRACE_CHILD */
	volatile pid_t child;	/* what our fork() returned in the parent */
	uint64_t last_ts;	/* keeps the name scenario's times apart */
	uint64_t owner_tgid, owner_tid;	/* who opened: the markers' track */
	uint64_t lost[MAX_CPUS];	/* dropped since the last marker */
	uint64_t first_lost_ns[MAX_CPUS];
	long tail_drops;	/* FAKE_FXTRACE_TAIL_DROPS */
	long small_cpu;		/* FAKE_FXTRACE_SMALL_CPU, or -1 */
	unsigned long gap_lo, gap_hi;	/* FAKE_FXTRACE_NOT_POSSIBLE, or 1-0 */
	bool cpu0_full;		/* ... and CPU 0's ring is full until STOP */
	bool stopped;		/* the STOP ioctl came */
	long writes_after_stop;	/* FAKE_FXTRACE_FULL_AFTER_STOP */
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : dflt;
}

static const char *fake_path(void)
{
	const char *p = getenv("FAKE_FXTRACE_PATH");

	return p && *p ? p : "/fake/fxtrace";
}

/*
 * The C library's function that a call of @name with this off_t reaches:
 * built with a 64-bit off_t on 32-bit userspace (collector/Makefile), our
 * open(), mmap() and ftruncate() are its open64() and so on, and so must
 * be the ones we pass the call on to.
 */
#define REAL_NAME(name) (sizeof(off_t) > sizeof(long) ? name "64" : name)

static void *(*real_mmap(void))(void *, size_t, int, int, int, off_t)
{
	return (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, REAL_NAME("mmap"));
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool cpu_present(unsigned int cpu)
{
	return cpu < fake.info.nr_cpu_ids && cpu != ABSENT_CPU &&
	       (cpu < fake.gap_lo || cpu > fake.gap_hi);
}

/* FAKE_FXTRACE_NOT_POSSIBLE=A-B into gap_lo and gap_hi (none: 1-0). */
static void read_gap(void)
{
	const char *v = getenv("FAKE_FXTRACE_NOT_POSSIBLE");
	char *end;

	fake.gap_lo = 1;
	fake.gap_hi = 0;
	if (!v || !*v)
		return;
	fake.gap_lo = strtoul(v, &end, 0);
	fake.gap_hi = *end == '-' ? strtoul(end + 1, NULL, 0) : fake.gap_lo;
}

/* @cpu's data area bytes: the configured size, or FAKE_FXTRACE_SMALL_CPU's. */
static uint64_t ring_size(unsigned int cpu)
{
	return (long)cpu == fake.small_cpu ? FXTRACE_BUF_SIZE_MIN :
					     fake.info.buf_size;
}

static int allocate(void)
{
	unsigned int cpu;
	void *p;

	if (fake.allocated)
		return 0;
	for (cpu = 0; cpu < fake.info.nr_cpu_ids; cpu++) {
		if (!cpu_present(cpu))
			continue;
		p = real_mmap()(NULL, CTRL_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		fake.ctrl[cpu] = p;
		p = real_mmap()(NULL, ring_size(cpu), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		fake.data[cpu] = p;
		fake.ctrl[cpu]->version = FXTRACE_CTRL_VERSION;
		fake.ctrl[cpu]->size = sizeof(struct fxtrace_ctrl);
		fake.ctrl[cpu]->cpu = cpu;
		fake.ctrl[cpu]->buf_size = ring_size(cpu);
		fake.ctrl[cpu]->producer_pos = fake.start_pos;
		fake.ctrl[cpu]->consumer_pos = fake.start_pos;
	}
	fake.allocated = true;
	fake.info.state = FXTRACE_STATE_READY;
	return 0;
}

/* Copy @len bytes to @cpu's ring at *@head, wrapping; advance *@head. */
static void put_bytes(unsigned int cpu, uint64_t *head, const void *rec,
		      size_t len)
{
	uint64_t mask = ring_size(cpu) - 1, i;
	const uint8_t *p = rec;

	for (i = 0; i < len; i++)
		fake.data[cpu][(*head + i) & mask] = p[i];
	*head += len;
}

/*
 * The kernel side of the ring protocol, as the uapi header draws it, with
 * its loss markers (kmod/fxtrace_ring.h): after a drop, the next record
 * needs room for the marker pair too, and writes it first. @ts: the
 * record's timestamp (for a name record, which has none: now).
 */
static void produce_at(unsigned int cpu, const void *rec, size_t len,
		       uint64_t ts)
{
	struct fxtrace_ctrl *c = fake.ctrl[cpu];
	uint64_t size = ring_size(cpu), head = c->producer_pos;
	uint64_t cons = __atomic_load_n(&c->consumer_pos, __ATOMIC_ACQUIRE); /* (B) */
	uint64_t need = len + (fake.lost[cpu] ? LOSS_MARKERS_BYTES : 0);
	uint64_t marker[KERNEL_RECORD_MAX_WORDS];

	__atomic_fetch_add(&c->tracepoint_hits, 1, __ATOMIC_RELAXED);
	if (head + need - cons > size || (cpu == 0 && fake.cpu0_full)) {
		if (!fake.lost[cpu]++)
			fake.first_lost_ns[cpu] = ts;
		__atomic_fetch_add(&c->records_dropped, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&c->last_drop_ns, ts, __ATOMIC_RELAXED);
		return;
	}
	if (fake.lost[cpu]) {
		put_bytes(cpu, &head, marker,
			  kernel_loss_marker(marker, fake.first_lost_ns[cpu], cpu,
					     (int64_t)fake.lost[cpu],
					     fake.owner_tgid, fake.owner_tid));
		put_bytes(cpu, &head, marker,
			  kernel_loss_marker(marker, ts, cpu, 0,
					     fake.owner_tgid, fake.owner_tid));
		fake.lost[cpu] = 0;
		__atomic_fetch_add(&c->markers_written, 2, __ATOMIC_RELAXED);
	}
	put_bytes(cpu, &head, rec, len);
	__atomic_store_n(&c->producer_pos, head, __ATOMIC_RELEASE); /* (A) */
	__atomic_fetch_add(&c->records_written, 1, __ATOMIC_RELAXED);
}

/* produce_at() with the record's own timestamp (word 1), or now. */
static void produce(unsigned int cpu, const void *rec, size_t len)
{
	const uint64_t *w = rec;
	unsigned int type = w[0] & 0xf;

	produce_at(cpu, rec, len, len >= 16 && (type == FXT_RECORD_SCHEDULING ||
						 type == FXT_RECORD_EVENT) ?
		   w[1] : now_ns());
}

static size_t make_record(uint64_t *words, unsigned int cpu, uint64_t n)
{
	static const uint64_t tids[] = { 0, 1, GONE_TID };
	uint64_t self = (uint64_t)getpid();
	uint64_t a = n % 2 ? self : tids[n % 3], b = tids[(n + 1) % 3];

	if (n % 2) {
		/*
		 * As the kernel: outgoing_weight for an idle outgoing task and
		 * now and then for another (its priority changed); every other
		 * one a D sleep (linux_state 2), the rest TASK_INTERRUPTIBLE,
		 * which the blocked state implies.
		 */
		const struct kernel_switch s = {
			.cpu = cpu, .state = FXT_THREAD_STATE_BLOCKED,
			.ts = now_ns(), .prev = a, .next = b,
			.in_weight = b ? 120 : INT32_MIN,
			.out_weight = a ? 125 : INT32_MIN,
			.with_out_weight = !a || n % 8 == 3,
			.linux_state = 2, .with_linux_state = n % 4 == 1,
		};

		return kernel_switch_record(words, &s);
	}
	return kernel_wakeup_record(words, cpu, now_ns(), b ? b : 1, self);
}

/* A strictly later timestamp than the last one this function gave. */
static uint64_t later_ns(void)
{
	uint64_t t = now_ns();

	fake.last_ts = t > fake.last_ts ? t : fake.last_ts + 1;
	return fake.last_ts;
}

static void produce_switch(unsigned int cpu, uint64_t prev, uint64_t next)
{
	uint64_t words[KERNEL_RECORD_MAX_WORDS];
	/*
	 * Preempted in TASK_RUNNING: no linux_state, and no outgoing_weight
	 * (the CPU's previous switch said it) unless idle goes out, as the
	 * kernel writes it; idle's weight is INT32_MIN.
	 */
	const struct kernel_switch s = {
		.cpu = cpu, .state = FXT_THREAD_STATE_RUNNING, .ts = later_ns(),
		.prev = prev, .next = next, .in_weight = next ? 120 : INT32_MIN,
		.out_weight = INT32_MIN, .with_out_weight = !prev,
	};

	produce(cpu, words, kernel_switch_record(words, &s));
}

static void produce_wakeup(unsigned int cpu, uint64_t tid)
{
	uint64_t words[KERNEL_RECORD_MAX_WORDS];

	/* From an interrupt: no waker, no arguments (uapi "Records"). */
	produce(cpu, words, kernel_wakeup_record(words, cpu, later_ns(), tid, 0));
}

/* A name record as the kernel's fxtrace_write_names() writes it. */
static void produce_name(unsigned int cpu, unsigned int type, uint64_t koid,
			 const char *name)
{
	uint64_t words[KERNEL_RECORD_MAX_WORDS];

	produce(cpu, words, kernel_name_record(words, type, koid, NAMED_TID, name));
}

/*
 * One more thread of the fake process: created on the highest CPU (the
 * record the kernel writes at fork, then the wakeup of the new thread),
 * then it runs on CPU 0 and renames itself.
 */
static void produce_named_thread(void)
{
	unsigned int high = fake.info.nr_cpu_ids - 1;
	uint64_t tid = NAMED_TID + (uint64_t)++fake.named;
	uint64_t words[KERNEL_RECORD_MAX_WORDS];
	char name[16];

	while (high && !cpu_present(high))
		high--;
	produce_switch(high, 0, NAMED_TID);
	if (fake.named == 1) {
		produce_name(high, FXT_OBJ_TYPE_PROCESS, NAMED_TID, "fxt-names");
		produce_name(high, FXT_OBJ_TYPE_THREAD, NAMED_TID, "fxt-names");
	}
	/* at sched_wakeup_new: new_task (ABI 5) */
	produce(high, words, kernel_new_thread_record(words, tid, NAMED_TID,
						      "fxt-threads"));
	produce_wakeup(high, tid);
	produce_switch(0, 0, tid);
	/* the first one execs, running there (after_ts: that switch) */
	if (fake.named == 1)
		produce_name(0, FXT_OBJ_TYPE_PROCESS, NAMED_TID, "fxt-names-exec");
	snprintf(name, sizeof(name), "thr-%03ld", fake.named);
	produce_name(0, FXT_OBJ_TYPE_THREAD, tid, name);
}

/*
 * FAKE_FXTRACE_TAIL_DROPS: a preemption whose end another CPU shows, and
 * a loss on the first CPU right after its start that nothing marks:
 * fxt-sched must not count that latency as exact.
 */
static void produce_tail_drops(void)
{
	long i;

	produce_switch(0, 0, VICTIM_TID);
	produce_switch(0, VICTIM_TID, 1);	/* preempted: CPU 0's last */
	fake.cpu0_full = true;
	for (i = 0; i < fake.tail_drops; i++)
		produce_switch(0, 1, i % 2 ? 1 : 0);	/* all dropped */
	produce_switch(1, 0, VICTIM_TID);
}

/*
 * FAKE_FXTRACE_BAD_PRODUCER on CPU 0, once @n records were written: true
 * while CPU 0 must not write (it shows the impossible position).
 */
static bool bad_producer_step(uint64_t n)
{
	struct fxtrace_ctrl *c = fake.ctrl[0];

	if (!fake.bad_producer || n <= 100 || !c)
		return false;
	if (!fake.bad_published) {
		fake.bad_real = c->producer_pos;
		fake.bad_until = now_ns() + 2000000000ULL;
		__atomic_store_n(&c->producer_pos, fake.bad_real + 4, __ATOMIC_RELEASE);
		fake.bad_published = true;
		return true;
	}
	if (__atomic_load_n(&c->consumer_pos, __ATOMIC_ACQUIRE) != fake.bad_real + 4 &&
	    now_ns() < fake.bad_until)
		return true;
	/* The consumer jumped there (or never looked): the real one again. */
	__atomic_store_n(&c->producer_pos, fake.bad_real, __ATOMIC_RELEASE);
	fake.bad_producer = false;
	return false;
}

static void *producer(void *unused)
{
	const struct timespec ms = { 0, 1000000 };
	uint64_t words[KERNEL_RECORD_MAX_WORDS], n = 0, zero = 0;
	unsigned int cpu;
	long k;

	(void)unused;
	if (fake.tail_drops > 0 && cpu_present(0) && cpu_present(1))
		produce_tail_drops();
	while (!fake.stop) {
		for (cpu = 0; cpu < fake.info.nr_cpu_ids; cpu++) {
			if (!cpu_present(cpu) || (cpu == 0 && bad_producer_step(n)))
				continue;
			for (k = 0; k < fake.rate; k++, n++)
				produce(cpu, words, make_record(words, cpu, n));
			if (fake.corrupt && n > 100 && cpu == 0) {
				produce(cpu, &zero, 8);	/* a header of size 0 */
				fake.corrupt = false;
			}
		}
		if (fake.named < fake.names)
			produce_named_thread();
		if (fake.child_wakeups && fake.child > 0)
			produce_wakeup(0, (uint64_t)fake.child);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void stop_producer(void)
{
	if (!fake.tracing)
		return;
	fake.stop = 1;
	pthread_join(fake.producer, NULL);
	fake.tracing = false;
	fake.stopped = true;
	fake.info.state = FXTRACE_STATE_READY;
}

static int fake_open(void)
{
	long err = env_long("FAKE_FXTRACE_OPEN_ERRNO", 0);

	if (err) {
		errno = (int)err;
		return -1;
	}
	if (fake.fd >= 0) {
		errno = EBUSY;
		return -1;
	}
	fake.fd = eventfd(0, EFD_CLOEXEC);	/* pollable, never readable */
	memset(&fake.info, 0, sizeof(fake.info));
	fake.info.abi_version = (uint32_t)env_long("FAKE_FXTRACE_ABI", FXTRACE_ABI_VERSION);
	fake.info.info_size = sizeof(fake.info);
	fake.info.nr_cpu_ids = (uint32_t)env_long("FAKE_FXTRACE_CPUS", 4);
	if (fake.info.nr_cpu_ids > MAX_CPUS)
		fake.info.nr_cpu_ids = MAX_CPUS;
	fake.info.page_size = 4096;
	fake.info.buf_size = FXTRACE_BUF_SIZE_DEFAULT;
	fake.info.cpu_stride = CPU_STRIDE;
	fake.info.ctrl_offset = 0;
	fake.info.data_offset = CTRL_SIZE;
	fake.info.ctrl_size = CTRL_SIZE;
	fake.info.clock_id = FXTRACE_CLOCK_ID;
	fake.rate = env_long("FAKE_FXTRACE_RATE", 2);
	fake.corrupt = env_long("FAKE_FXTRACE_CORRUPT", 0) != 0;
	fake.bad_producer = env_long("FAKE_FXTRACE_BAD_PRODUCER", 0) != 0;
	fake.bad_published = false;
	fake.names = env_long("FAKE_FXTRACE_NAMES", 0);
	fake.named = 0;
	fake.child_wakeups = env_long("FAKE_FXTRACE_CHILD", 0) != 0;
	fake.tail_drops = env_long("FAKE_FXTRACE_TAIL_DROPS", 0);
	fake.small_cpu = env_long("FAKE_FXTRACE_SMALL_CPU", -1);
	read_gap();
	fake.cpu0_full = false;
	fake.stopped = false;
	fake.writes_after_stop = 0;
	memset(fake.lost, 0, sizeof(fake.lost));
	/* The module's loss markers name the opener's process and thread. */
	fake.owner_tgid = (uint64_t)getpid();
	fake.owner_tid = (uint64_t)syscall(SYS_gettid);
	fake.start_pos = (uint64_t)strtoull(getenv("FAKE_FXTRACE_START") ?
					    getenv("FAKE_FXTRACE_START") : "0",
					    NULL, 0) & ~7ULL;
	return fake.fd;
}

/* Create the file the environment variable @note_var names, if it is set:
 * a test waits for it to know a step is under way or done. */
static void touch_note(const char *note_var)
{
	const char *note = getenv(note_var);
	FILE *f = note && *note ? fopen(note, "w") : NULL;

	if (f)
		fclose(f);
}

/*
 * FAKE_FXTRACE_FIFO_DELAY_MS and FAKE_FXTRACE_WAIT_DELAY_MS: create the
 * note @note_var names, then sleep @delay_var's milliseconds through any
 * signal (each is handled meanwhile, as if it came just before the call).
 */
static void delay_with_note(const char *delay_var, const char *note_var)
{
	long ms = env_long(delay_var, 0);
	struct timespec left = { ms / 1000, (ms % 1000) * 1000000 };
	int saved = errno;

	touch_note(note_var);
	while (nanosleep(&left, &left) && errno == EINTR)
		;
	errno = saved;
}

EXPORT int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...) =
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, REAL_NAME("open"));
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!strcmp(path, "/dev/null") && env_long("FAKE_FXTRACE_NO_DEVNULL", 0)) {
		errno = ENOENT;
		return -1;
	}
	if (strcmp(path, fake_path())) {
		static bool fifo_delayed;
		struct stat st;

		if (!fifo_delayed && env_long("FAKE_FXTRACE_FIFO_DELAY_MS", 0) > 0 &&
		    stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
			fifo_delayed = true;
			delay_with_note("FAKE_FXTRACE_FIFO_DELAY_MS",
					"FAKE_FXTRACE_FIFO_NOTE");
		}
		return real(path, flags, mode);
	}
	pthread_mutex_lock(&fake.lock);
	fd = fake_open();
	pthread_mutex_unlock(&fake.lock);
	return fd;
}

static int fake_configure(const struct fxtrace_config *cfg)
{
	uint64_t size = cfg->buf_size ? cfg->buf_size : FXTRACE_BUF_SIZE_DEFAULT;
	unsigned int i;

	for (i = 0; i < 6; i++)
		if (cfg->__reserved[i])
			return -EINVAL;
	if (cfg->flags || size < FXTRACE_BUF_SIZE_MIN ||
	    size > FXTRACE_BUF_SIZE_MAX || (size & (size - 1)))
		return -EINVAL;
	if (fake.tracing || fake.allocated)
		return -EBUSY;
	fake.info.buf_size = size;
	return allocate();
}

static int fake_ioctl(unsigned long req, void *arg)
{
	int err = 0;

	switch (req) {
	case FXTRACE_IOC_GET_INFO:
		memcpy(arg, &fake.info, sizeof(fake.info));
		return 0;
	case FXTRACE_IOC_CONFIGURE:
		if (env_long("FAKE_FXTRACE_CONFIGURE_ERRNO", 0))
			return -(int)env_long("FAKE_FXTRACE_CONFIGURE_ERRNO", 0);
		return fake_configure(arg);
	case FXTRACE_IOC_START:
		if (env_long("FAKE_FXTRACE_START_ERRNO", 0))
			return -(int)env_long("FAKE_FXTRACE_START_ERRNO", 0);
		if (fake.tracing)
			return -EBUSY;
		err = allocate();
		if (err)
			return err;
		fake.stop = 0;
		if (pthread_create(&fake.producer, NULL, producer, NULL))
			return -EAGAIN;
		fake.tracing = true;
		fake.info.state = FXTRACE_STATE_TRACING;
		return 0;
	case FXTRACE_IOC_STOP:
		stop_producer();
		return 0;
	default:
		return -ENOTTY;
	}
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	int (*real)(int, unsigned long, ...) =
		(int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	void *arg;
	va_list ap;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd != fake.fd)
		return real(fd, req, arg);
	pthread_mutex_lock(&fake.lock);
	ret = fake_ioctl(req, arg);
	pthread_mutex_unlock(&fake.lock);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	/* Unlocked: the producer goes on writing meanwhile. */
	if (req == FXTRACE_IOC_START) {
		touch_note("FAKE_FXTRACE_START_NOTE");
		usleep((useconds_t)env_long("FAKE_FXTRACE_START_DELAY_MS", 0) * 1000);
	}
	if (req == FXTRACE_IOC_STOP)
		touch_note("FAKE_FXTRACE_STOP_NOTE");
	return ret;
}

static void *fake_mmap(size_t len, int prot, off_t off)
{
	uint64_t cpu = (uint64_t)off / CPU_STRIDE, rem = (uint64_t)off % CPU_STRIDE;

	if (allocate())
		return errno = ENOMEM, MAP_FAILED;
	if (cpu >= fake.info.nr_cpu_ids)
		return errno = EINVAL, MAP_FAILED;
	if (!cpu_present((unsigned int)cpu))
		return errno = ENXIO, MAP_FAILED;
	if (rem == 0 && len == CTRL_SIZE)
		return fake.ctrl[cpu];
	if (rem == CTRL_SIZE && len == ring_size((unsigned int)cpu)) {
		static bool delayed;

		if (!delayed && env_long("FAKE_FXTRACE_MAP_DELAY_MS", 0) > 0) {
			delayed = true;
			usleep((useconds_t)env_long("FAKE_FXTRACE_MAP_DELAY_MS", 0) * 1000);
		}
		if (env_long("FAKE_FXTRACE_MMAP_ERRNO", 0))
			return errno = (int)env_long("FAKE_FXTRACE_MMAP_ERRNO", 0),
			       MAP_FAILED;
		if (prot & PROT_WRITE)
			return errno = EPERM, MAP_FAILED;
		return fake.data[cpu];
	}
	return errno = EINVAL, MAP_FAILED;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (fd < 0 || fd != fake.fd)
		return real_mmap()(addr, len, prot, flags, fd, off);
	pthread_mutex_lock(&fake.lock);
	p = fake_mmap(len, prot, off);
	pthread_mutex_unlock(&fake.lock);
	return p;
}

/* FAKE_FXTRACE_WAIT_DELAY_MS: delay_with_note() first. */
EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	pid_t (*real)(pid_t, int *, int) =
		(pid_t (*)(pid_t, int *, int))dlsym(RTLD_NEXT, "waitpid");
	static bool wait_delayed;

	if (!wait_delayed && fake.stopped && pid > 0 && pid == fake.child &&
	    env_long("FAKE_FXTRACE_WAIT_DELAY_MS", 0) > 0) {
		wait_delayed = true;
		delay_with_note("FAKE_FXTRACE_WAIT_DELAY_MS",
				"FAKE_FXTRACE_WAIT_NOTE");
	}
	return real(pid, status, options);
}

/* COMMAND's pid, for FAKE_FXTRACE_CHILD. */
EXPORT pid_t fork(void)
{
	pid_t (*real)(void) = (pid_t (*)(void))dlsym(RTLD_NEXT, "fork");
	pid_t pid = real();

	if (pid > 0)
		fake.child = pid;
	return pid;
}

/*
 * The collector munmap()s what mmap() gave it, which is our memory: keep
 * it (it is freed at exit), so the producer never writes to unmapped pages.
 */
EXPORT int munmap(void *addr, size_t len)
{
	int (*real)(void *, size_t) =
		(int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	unsigned int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (addr && (addr == fake.ctrl[cpu] || addr == fake.data[cpu]))
			return 0;
	return real(addr, len);
}

/* FAKE_FXTRACE_PIPE_FAIL: a short write to a pipe, then EPIPE. */
static ssize_t pipe_write(ssize_t (*real)(int, const void *, size_t), int fd,
			  const void *buf, size_t count, long fail_at)
{
	static long calls;

	if (++calls < fail_at)
		return real(fd, buf, count);
	if (calls == fail_at && count >= 2)
		return real(fd, buf, count / 2 | 1);
	errno = EPIPE;
	return -1;
}

/*
 * FAKE_FXTRACE_KILL_AT: a short write, then death by SIGKILL.
 * FAKE_FXTRACE_PIPE_FAIL: pipe_write().
 * FAKE_FXTRACE_FULL_AFTER_STOP: ENOSPC from the K-th write after STOP on.
 */
EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	ssize_t (*real)(int, const void *, size_t) =
		(ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	long kill_at = env_long("FAKE_FXTRACE_KILL_AT", -1);
	long pause_us = env_long("FAKE_FXTRACE_WRITE_PAUSE_US", 0);
	long pipe_fail = env_long("FAKE_FXTRACE_PIPE_FAIL", 0);
	long full_after_stop = env_long("FAKE_FXTRACE_FULL_AFTER_STOP", 0);
	struct stat st;
	off_t pos;

	if (full_after_stop > 0 && fake.stopped && fd != STDERR_FILENO &&
	    fd != fake.fd && count && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && ++fake.writes_after_stop >= full_after_stop) {
		if (fake.writes_after_stop == full_after_stop && count >= 2)
			return real(fd, buf, count / 2);
		errno = ENOSPC;
		return -1;
	}

	if (pipe_fail > 0 && fd != STDERR_FILENO && fd != fake.fd && count &&
	    fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		return pipe_write(real, fd, buf, count, pipe_fail);
	if ((kill_at < 0 && pause_us <= 0) || fd == STDERR_FILENO ||
	    fd == fake.fd || !count || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return real(fd, buf, count);
	pos = lseek(fd, 0, SEEK_CUR);
	if (pause_us > 0 && pos >= 0) {
		const struct timespec pause = { 0, pause_us * 1000 };
		const char *p = buf;
		size_t done = 0, piece;
		ssize_t n;

		while (done < count) {
			piece = 4096 - (size_t)((pos + (off_t)done) % 4096);
			if (piece > count - done)
				piece = count - done;
			n = real(fd, p + done, piece);
			if (n <= 0)
				return done ? (ssize_t)done : n;
			done += (size_t)n;
			nanosleep(&pause, NULL);
		}
		return (ssize_t)done;
	}
	if (pos < 0 || (unsigned long long)pos + count <= (unsigned long long)kill_at)
		return real(fd, buf, count);
	if (pos < kill_at && real(fd, buf, (size_t)(kill_at - pos)) < 0)
		return -1;
	raise(SIGKILL);
	return -1;
}

EXPORT int ftruncate(int fd, off_t length)
{
	int (*real)(int, off_t) = (int (*)(int, off_t))dlsym(RTLD_NEXT, REAL_NAME("ftruncate"));
	long err = env_long("FAKE_FXTRACE_FTRUNCATE_ERRNO", 0);

	if (err) {
		errno = (int)err;
		return -1;
	}
	return real(fd, length);
}

EXPORT int close(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "close");

	if (fd >= 0 && fd == fake.fd) {
		pthread_mutex_lock(&fake.lock);
		stop_producer();	/* the release() of a real device */
		fake.fd = -1;
		pthread_mutex_unlock(&fake.lock);
	}
	return real(fd);
}
