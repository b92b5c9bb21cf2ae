// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt-bench - the benchmark's timed workloads (bench/guest.sh runs them in
 * the VM, bare and under each tracer)
 *
 *   calib      getppid() in a loop: a syscall that hits no scheduler
 *              tracepoint, to measure how fast the (emulated) CPU is right
 *              now; the wall-clock view divides by it
 *   pingpong   two processes pass one byte back and forth over two pipes;
 *              --cpus A,B pins them (A = B: both on one CPU, 4 scheduler
 *              events per round trip; A != B: every wakeup crosses CPUs).
 *              --same-process makes the partner a thread: the same
 *              switches without a change of address space (no CR3 write,
 *              which under QEMU TCG flushes the whole software TLB)
 *   sleepwake  T threads in a ring of pipes with K tokens circulating:
 *              many sleepers, run queues longer than one, preemption
 *   writecost  write() N MiB in 1 MiB calls to a new file: what every
 *              tracer's reader pays per byte of output to its file system
 *              (the floor of a collector's cost per record, in the
 *              instruction view: the kernel's copy and page clearing count
 *              one instruction per byte there). --pages reused and
 *              fallocated split that price: the copy alone, and what
 *              allocating the pages ahead would move out of the writes
 *
 * Each run prints one line of key=value pairs on stdout ("result wl=...").
 * The clock is CLOCK_MONOTONIC: under QEMU -icount it counts instructions.
 * --watch COMM adds tracer_cpu_ns, the CPU time that processes named COMM
 * (the tracer and its helpers: every thread of every such process) used
 * during the measured interval, read from /proc/PID/task/TID/schedstat. csw
 * is the number of context switches of the workload's own tasks in the
 * interval (from /proc/PID/task/TID/status), which shows whether a tracer
 * changed the schedule itself.
 *
 * --settle MS: after a pingpong or sleepwake loop, sleep MS milliseconds
 * with every workload task blocked, so that a tracer's reader drains what
 * was still pending when the loop ended, and add tracer_cpu_after_ns, the
 * watched processes' CPU time in that window (settle_ns long). The window is
 * not workload time. --pending KIND adds the bytes that the tracer had
 * recorded but its reader not yet taken at the loop's end and after the
 * window (pending_end_bytes, pending_after_bytes): ftrace from tracefs'
 * per_cpu/cpuN/stats ("bytes:", and "entries:" as pending_*_records),
 * fxtrace and perf from the rings the watched processes mapped (fxtrace's
 * control pages, perf's user pages, read through /proc/PID/mem).
 *
 * --chunks K --chunk-calib N splits a pingpong or sleepwake run into K
 * pieces with N getppid() calls timed before, between and after them, and
 * adds norm_per_op: the median over pieces of (ns per op / ns per getppid()
 * around that piece). On a host whose speed changes by the second (other
 * VMs), that ratio holds still where the raw time does not.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>
#include <linux/perf_event.h>

#define MAX_THREADS	1024
#define MAX_WATCH	4
#define MAX_PIDS	64	/* watched processes */
#define MAX_CHUNKS	1000
#define TOKEN		't'
#define STOP		's'

struct env {
	const char *workload;
	long ops;		/* round trips, hops or calls */
	long warmup;		/* untimed round trips first (pingpong) */
	int cpu_a, cpu_b;	/* pingpong pinning; -1 = not pinned */
	bool same_process;	/* pingpong's partner is a thread, not a process */
	int threads, tokens;	/* sleepwake */
	unsigned int timeout_s;
	const char *watch[MAX_WATCH];
	int nwatch;
	int chunks;		/* pieces of a pingpong/sleepwake run */
	long chunk_calib;	/* getppid() calls around each piece, 0 = none */
	const char *output;	/* writecost's file */
	long settle_ms;		/* quiet window after the loop, 0 = none */
	enum pending_kind {	/* whose unread bytes to report */
		PENDING_NONE,
		PENDING_FTRACE,		/* tracefs per_cpu/cpuN/stats */
		PENDING_FXTRACE,	/* the watched processes' fxtrace rings */
		PENDING_PERF,		/* the watched processes' perf rings */
	} pending;
	const char *tracefs;	/* for PENDING_FTRACE */
	enum write_pages {	/* writecost: the file's pages before the writes */
		PAGES_NEW,		/* none: the writes allocate them */
		PAGES_REUSED,		/* written once already, untimed */
		PAGES_FALLOCATED,	/* fallocate()d, timed apart */
	} pages;
};

static volatile pid_t child_pid;	/* killed by the timeout handler */
static unsigned int timeout_for_msg;
static const char *workload_for_msg = "";

static void die(const char *what)
{
	fprintf(stderr, "fxt-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A workload that does not finish is almost always the guest, not us: under
 * 2-vCPU TCG a cross-CPU wakeup IPI has been seen to never arrive while
 * kernel text was being patched. Say so, clean up, and leave a distinct
 * status for the driver.
 */
static void on_timeout(int sig)
{
	char msg[256];
	int n;

	(void)sig;
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
	n = snprintf(msg, sizeof(msg),
		     "fxt-bench: %s did not finish within %u s: the guest is stuck or far slower than expected (under multi-vCPU TCG a cross-CPU wakeup IPI can get lost); raise --timeout or use fewer ops\n",
		     workload_for_msg, timeout_for_msg);
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n);
	_exit(124);
}

static void arm_timeout(const struct env *env)
{
	struct sigaction sa = { .sa_handler = on_timeout };

	workload_for_msg = env->workload;
	timeout_for_msg = env->timeout_s;
	sigaction(SIGALRM, &sa, NULL);
	alarm(env->timeout_s);
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity (is that CPU online?)");
}

/* ---- --watch: CPU time of the tracer's processes ------------------------ */

static bool read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	return ok;
}

/* Sum of the first field of /proc/PID/task/ * /schedstat (ns on CPU). */
static uint64_t process_cpu_ns(const char *pid)
{
	char path[600], line[128];
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return 0;	/* exited meanwhile */
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/schedstat", pid,
			 de->d_name);
		if (read_line(path, line, sizeof(line)))
			sum += strtoull(line, NULL, 10);
	}
	closedir(d);
	return sum;
}

/*
 * The processes whose comm is one of env->watch (at most MAX_PIDS), as
 * /proc directory names. A tracer's helpers are found by the same name:
 * trace-cmd's per-CPU recorders are forked trace-cmd processes, and threads
 * are counted with their process.
 */
static int watched_pids(const struct env *env, char pids[][16])
{
	char path[300], comm[64];
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	if (!env->nwatch)
		return 0;
	d = opendir("/proc");
	if (!d)
		die("opendir /proc");
	while ((de = readdir(d)) && n < MAX_PIDS) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    strlen(de->d_name) >= 16)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (!read_line(path, comm, sizeof(comm)))
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		for (i = 0; i < env->nwatch; i++) {
			if (!strcmp(comm, env->watch[i])) {
				strcpy(pids[n++], de->d_name);
				break;
			}
		}
	}
	closedir(d);
	return n;
}

/*
 * CPU time of every watched process; @ntasks gets how many there were.
 * Processes that start or exit inside the interval are counted only for the
 * part we see, which is why the tracers are started before the workload and
 * stopped after it.
 */
static uint64_t watched_cpu_ns(const struct env *env, int *ntasks)
{
	static char pids[MAX_PIDS][16];
	uint64_t sum = 0;
	int i;

	*ntasks = watched_pids(env, pids);
	for (i = 0; i < *ntasks; i++)
		sum += process_cpu_ns(pids[i]);
	return sum;
}

/* ---- --pending: what the tracer recorded and its reader has not taken --- */

struct pending {
	int64_t bytes, records;		/* -1 = not known */
};

/* Sum of "KEY: N" over DIR/per_cpu/cpu * /stats (ftrace's ring buffers). */
static void ftrace_pending(const struct env *env, struct pending *p)
{
	char path[600], line[128];
	struct dirent *de;
	bool found = false;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/per_cpu", env->tracefs);
	d = opendir(path);
	if (!d)
		return;
	p->bytes = p->records = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/stats", env->tracefs,
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "entries:", 8)) {
				p->records += strtoll(line + 8, NULL, 10);
				found = true;
			} else if (!strncmp(line, "bytes:", 6)) {
				p->bytes += strtoll(line + 6, NULL, 10);
			}
		}
		fclose(f);
	}
	closedir(d);
	if (!found)
		p->bytes = p->records = -1;
}

static bool read_u64_at(int mem, unsigned long addr, uint64_t *v)
{
	return pread(mem, v, sizeof(*v), (off_t)addr) == (ssize_t)sizeof(*v);
}

/*
 * The rings process @pid mapped: fxtrace's control pages (one page of
 * /dev/fxtrace) hold producer_pos and consumer_pos, perf's user pages (the
 * first page of each anon_inode:[perf_event] mapping) data_head and
 * data_tail; what lies between is unread. Adds it to @bytes; returns how
 * many rings there were, -1 if one could not be read.
 */
static int process_pending(const struct env *env, const char *pid,
			   int64_t *bytes)
{
	unsigned long start, end, page = (unsigned long)sysconf(_SC_PAGESIZE);
	char path[300], line[512], name[256];
	uint64_t head, tail;
	size_t head_off, tail_off;
	int mem, rings = 0;
	FILE *maps;

	if (env->pending == PENDING_FXTRACE) {
		head_off = offsetof(struct fxtrace_ctrl, producer_pos);
		tail_off = offsetof(struct fxtrace_ctrl, consumer_pos);
	} else {
		head_off = offsetof(struct perf_event_mmap_page, data_head);
		tail_off = offsetof(struct perf_event_mmap_page, data_tail);
	}
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	maps = fopen(path, "r");
	if (!maps)
		return 0;	/* exited meanwhile */
	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	mem = open(path, O_RDONLY);
	if (mem < 0) {
		fclose(maps);
		return -1;
	}
	while (fgets(line, sizeof(line), maps)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end, name) < 2)
			continue;
		if (env->pending == PENDING_FXTRACE ?
		    strcmp(name, "/dev/" FXTRACE_DEVICE_NAME) || end - start != page :
		    strcmp(name, "anon_inode:[perf_event]"))
			continue;
		if (rings < 0)
			continue;
		if (!read_u64_at(mem, start + head_off, &head) ||
		    !read_u64_at(mem, start + tail_off, &tail)) {
			rings = -1;
			continue;
		}
		*bytes += (int64_t)(head - tail);
		rings++;
	}
	close(mem);
	fclose(maps);
	return rings;
}

static struct pending pending_now(const struct env *env)
{
	static char pids[MAX_PIDS][16];
	struct pending p = { -1, -1 };
	int i, n, r, rings = 0;

	if (env->pending == PENDING_NONE)
		return p;
	if (env->pending == PENDING_FTRACE) {
		ftrace_pending(env, &p);
		return p;
	}
	n = watched_pids(env, pids);
	p.bytes = 0;
	for (i = 0; i < n; i++) {
		r = process_pending(env, pids[i], &p.bytes);
		if (r < 0)
			return (struct pending){ -1, -1 };
		rings += r;
	}
	if (!rings)
		p.bytes = -1;	/* nobody had such a ring mapped */
	return p;
}

/* Voluntary + involuntary context switches of every live thread of @pid. */
static uint64_t process_csw(pid_t pid)
{
	char path[600], line[128];
	struct dirent *de;
	uint64_t sum = 0;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid,
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "ctxt_switches:"))
				sum += strtoull(strchr(line, ':') + 1, NULL, 10);
		fclose(f);
	}
	closedir(d);
	return sum;
}

struct interval {
	uint64_t t0, t1;
	uint64_t cpu0, cpu1;
	uint64_t csw0, csw1;
	int tasks;
	struct pending pend_end;	/* at t1 */
	/* --settle: the quiet window after t1 */
	uint64_t settle_ns, cpu2;
	struct pending pend_after;
};

/* Ours from getrusage(): it still counts threads that have exited. */
static uint64_t self_csw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* @other: a second workload process (pingpong's pong), or 0 */
static void interval_begin(const struct env *env, struct interval *iv, pid_t other)
{
	iv->settle_ns = 0;
	iv->pend_after = (struct pending){ -1, -1 };
	iv->csw0 = self_csw() + (other ? process_csw(other) : 0);
	iv->cpu0 = watched_cpu_ns(env, &iv->tasks);
	iv->t0 = now_ns();
}

static void interval_end(const struct env *env, struct interval *iv, pid_t other)
{
	int tasks;

	iv->t1 = now_ns();
	iv->cpu1 = watched_cpu_ns(env, &tasks);
	iv->csw1 = self_csw() + (other ? process_csw(other) : 0);
	iv->pend_end = pending_now(env);
	if (tasks > iv->tasks)
		iv->tasks = tasks;
}

/*
 * --settle: every workload task is blocked now (pong and the ring's threads
 * wait in read()), so until settle_ms after t1 only the tracer's reader
 * runs: under QEMU -icount on one vCPU, what it does there is the rest of
 * its work for the loop's records, the drains it still owed at t1. From
 * cpu1 on, so that nothing it did after t1 goes uncounted.
 */
static void settle(const struct env *env, struct interval *iv)
{
	struct timespec until;
	uint64_t t;
	int tasks;

	iv->settle_ns = 0;
	iv->cpu2 = iv->cpu1;
	iv->pend_after = (struct pending){ -1, -1 };
	if (!env->settle_ms)
		return;
	t = iv->t1 + (uint64_t)env->settle_ms * 1000000ULL;
	until.tv_sec = (time_t)(t / 1000000000ULL);
	until.tv_nsec = (long)(t % 1000000000ULL);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
	iv->cpu2 = watched_cpu_ns(env, &tasks);
	iv->settle_ns = now_ns() - iv->t1;
	iv->pend_after = pending_now(env);
}

/* ---- chunks: a run in pieces, with the CPU's speed measured between ------ */

struct chunks {
	int n, done;
	uint64_t ns[MAX_CHUNKS];	/* duration of piece i */
	long ops[MAX_CHUNKS];		/* operations in piece i */
	double calib[MAX_CHUNKS + 1];	/* ns per getppid() before piece i */
};

/* ns per getppid(), over @n calls */
static double calib_ns(long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);	/* not libc's: never cached */
	return (double)(now_ns() - t0) / (double)n;
}

static long chunk_ops(const struct env *env, int k)
{
	return env->ops / env->chunks + (k < env->ops % env->chunks);
}

static void chunk_calib(const struct env *env, struct chunks *c, int k)
{
	if (env->chunk_calib)
		c->calib[k] = calib_ns(env->chunk_calib);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Workload time only (the calibrations between pieces left out). */
static uint64_t chunks_ns(const struct chunks *c)
{
	uint64_t ns = 0;
	int i;

	for (i = 0; i < c->done; i++)
		ns += c->ns[i];
	return ns;
}

static void report_chunks(const struct env *env, const struct chunks *c)
{
	static double norm[MAX_CHUNKS], cal[MAX_CHUNKS + 1];
	int i;

	if (!env->chunk_calib || !c->done)
		return;
	for (i = 0; i < c->done; i++) {
		norm[i] = (double)c->ns[i] / (double)c->ops[i] /
			  ((c->calib[i] + c->calib[i + 1]) / 2);
		cal[i] = c->calib[i];
	}
	cal[c->done] = c->calib[c->done];
	printf(" chunks=%d norm_per_op=%.4f calib_med_ns=%.3f", c->done,
	       median(norm, c->done), median(cal, c->done + 1));
}

/* " pending_WHEN_bytes=N [pending_WHEN_records=N]", "-" where not known */
static void print_pending(const char *when, const struct pending *p)
{
	if (p->bytes >= 0)
		printf(" pending_%s_bytes=%" PRId64, when, p->bytes);
	else
		printf(" pending_%s_bytes=-", when);
	if (p->records >= 0)
		printf(" pending_%s_records=%" PRId64, when, p->records);
}

/*
 * @work_ns: the workload's own time (elapsed_ns, ns_per_op); the interval
 * (interval_ns) also holds the calibrations, and is what tracer_cpu_ns
 * was measured over.
 */
static void report(const struct env *env, const struct interval *iv,
		   long ops, uint64_t work_ns, const struct chunks *c,
		   const char *extra)
{
	printf("result wl=%s%s ops=%ld elapsed_ns=%" PRIu64 " ns_per_op=%.3f csw=%" PRIu64
	       " interval_ns=%" PRIu64,
	       env->workload, extra, ops, work_ns, (double)work_ns / (double)ops,
	       iv->csw1 - iv->csw0, iv->t1 - iv->t0);
	if (c)
		report_chunks(env, c);
	if (env->nwatch)
		printf(" tracer_cpu_ns=%" PRIu64 " tracer_tasks=%d",
		       iv->cpu1 > iv->cpu0 ? iv->cpu1 - iv->cpu0 : 0,
		       iv->tasks);
	if (iv->settle_ns) {
		printf(" settle_ns=%" PRIu64, iv->settle_ns);
		if (env->nwatch)
			printf(" tracer_cpu_after_ns=%" PRIu64,
			       iv->cpu2 > iv->cpu1 ? iv->cpu2 - iv->cpu1 : 0);
	}
	if (env->pending != PENDING_NONE) {
		print_pending("end", &iv->pend_end);
		if (iv->settle_ns)
			print_pending("after", &iv->pend_after);
	}
	printf("\n");
	fflush(stdout);
}

/* ---- calib ---------------------------------------------------------------- */

static int run_calib(const struct env *env)
{
	struct interval iv;
	long i;

	interval_begin(env, &iv, 0);
	for (i = 0; i < env->ops; i++)
		syscall(SYS_getppid);	/* not libc's: never cached */
	interval_end(env, &iv, 0);
	report(env, &iv, env->ops, iv.t1 - iv.t0, NULL, "");
	return 0;
}

/* ---- writecost ------------------------------------------------------------ */

#define WRITE_CHUNK	(1 << 20)

static void write_mib(int fd, const char *buf, long mib)
{
	long i;

	for (i = 0; i < mib; i++)
		if (write(fd, buf, WRITE_CHUNK) != WRITE_CHUNK)
			die("writecost: write (is the file system full?)");
}

/*
 * One op = one byte written; the file is removed again. With --pages
 * reused the timed writes overwrite pages that exist (a first, untimed
 * pass wrote them), so they pay for the copy and not for allocating and
 * clearing pages. With --pages fallocated the pages are allocated by
 * fallocate() first, timed apart (fallocate_ns_per_byte): the two figures
 * together say whether allocating ahead makes writing cheaper or only
 * moves the cost.
 */
static int run_writecost(const struct env *env)
{
	static const char *const names[] = { "new", "reused", "fallocated" };
	char *buf = malloc(WRITE_CHUNK);
	long bytes = env->ops * WRITE_CHUNK;
	char extra[96];
	struct interval iv;
	uint64_t t0;
	int fd, len;

	if (!buf)
		die("malloc");
	memset(buf, 0x5a, WRITE_CHUNK);	/* fault the buffer in first */
	fd = open(env->output, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(env->output);
	len = snprintf(extra, sizeof(extra), " pages=%s", names[env->pages]);
	if (env->pages == PAGES_REUSED) {
		write_mib(fd, buf, env->ops);
		if (lseek(fd, 0, SEEK_SET) != 0)
			die("writecost: lseek");
	} else if (env->pages == PAGES_FALLOCATED) {
		t0 = now_ns();
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, bytes))
			die("writecost: fallocate (does the file system support it?)");
		snprintf(extra + len, sizeof(extra) - (size_t)len,
			 " fallocate_ns_per_byte=%.3f",
			 (double)(now_ns() - t0) / (double)bytes);
	}
	interval_begin(env, &iv, 0);
	write_mib(fd, buf, env->ops);
	interval_end(env, &iv, 0);
	close(fd);
	unlink(env->output);
	free(buf);
	report(env, &iv, bytes, iv.t1 - iv.t0, NULL, extra);
	return 0;
}

/* ---- pingpong ------------------------------------------------------------- */

static void xwrite1(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		die("pipe write");
}

static char xread1(int fd)
{
	char c;
	ssize_t n = read(fd, &c, 1);

	if (n < 0)
		die("pipe read");
	return n ? c : 0;
}

/* The partner's loop: send back every byte it gets, until EOF. */
static void pong(int in, int out, int cpu)
{
	prctl(PR_SET_NAME, "fxt-bench-pong");
	pin(cpu);
	while (xread1(in))
		xwrite1(out, TOKEN);
}

static void pong_process(int in, int out, int cpu)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pong(in, out, cpu);
	_exit(0);
}

struct pong_args {
	int in, out, cpu;
};

static void *pong_thread(void *arg)
{
	const struct pong_args *a = arg;

	pong(a->in, a->out, a->cpu);
	return NULL;
}

static int run_pingpong(const struct env *env)
{
	static struct chunks c;
	int to_child[2], to_parent[2], status, k, err;
	struct pong_args args;
	pthread_t thread;
	struct interval iv;
	char extra[80];
	uint64_t t0;
	long i;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	signal(SIGPIPE, SIG_IGN);	/* a dead pong is an EPIPE message, not a silent 141 */
	if (env->same_process) {
		/* getrusage(RUSAGE_SELF) counts the thread's switches too */
		args = (struct pong_args){ to_child[0], to_parent[1], env->cpu_b };
		err = pthread_create(&thread, NULL, pong_thread, &args);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	} else {
		child_pid = fork();
		if (child_pid < 0)
			die("fork");
		if (child_pid == 0) {
			close(to_child[1]);
			close(to_parent[0]);
			pong_process(to_child[0], to_parent[1], env->cpu_b);
		}
		close(to_child[0]);
		close(to_parent[1]);
	}
	pin(env->cpu_a);
	for (i = 0; i < env->warmup; i++) {
		xwrite1(to_child[1], TOKEN);
		xread1(to_parent[0]);
	}
	interval_begin(env, &iv, child_pid);
	chunk_calib(env, &c, 0);
	for (k = 0; k < env->chunks; k++) {
		c.ops[k] = chunk_ops(env, k);
		t0 = now_ns();
		for (i = 0; i < c.ops[k]; i++) {
			xwrite1(to_child[1], TOKEN);
			if (!xread1(to_parent[0])) {
				errno = EPIPE;
				die("the pong process went away");
			}
		}
		c.ns[k] = now_ns() - t0;
		c.done = k + 1;
		chunk_calib(env, &c, k + 1);
	}
	interval_end(env, &iv, child_pid);
	settle(env, &iv);
	close(to_child[1]);	/* EOF: pong exits */
	if (env->same_process) {
		pthread_join(thread, NULL);
		close(to_child[0]);
		close(to_parent[1]);
	} else {
		if (waitpid(child_pid, &status, 0) < 0)
			die("waitpid");
		child_pid = 0;
	}
	snprintf(extra, sizeof(extra), " cpus=%d,%d warmup=%ld same_process=%d",
		 env->cpu_a, env->cpu_b, env->warmup, env->same_process);
	report(env, &iv, env->ops, chunks_ns(&c), &c, extra);
	return 0;
}

/* ---- sleepwake ------------------------------------------------------------ */

struct ring_thread {
	int index;
	int in, out;
	pthread_t thread;
};

static struct {
	atomic_long hops;
	atomic_long piece_end;	/* hops at which the current piece ends */
	int to_main;		/* tokens come back here at a piece's end */
} ring;

static void xwrite_int(int fd, int v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))	/* <= PIPE_BUF: atomic */
		die("pipe write");
}

static int xread_int(int fd)
{
	int v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		die("pipe read");
	return v;
}

/*
 * Take the token from our pipe and pass it on; the hop that reaches the end
 * of the current piece gives it back to the main thread instead, saying
 * whose turn it was. STOP (from the main thread) ends the thread.
 */
static void *ring_member(void *arg)
{
	struct ring_thread *t = arg;
	char c;

	for (;;) {
		c = xread1(t->in);
		if (c == STOP || c == 0)
			return NULL;
		if (atomic_fetch_add(&ring.hops, 1) + 1 >= atomic_load(&ring.piece_end))
			xwrite_int(ring.to_main, t->index + 1);
		else
			xwrite1(t->out, TOKEN);
	}
}

static int run_sleepwake(const struct env *env)
{
	static struct ring_thread t[MAX_THREADS];
	static int fds[MAX_THREADS][2], next[MAX_THREADS];
	static struct chunks c;
	int main_pipe[2], i, k, err;
	struct interval iv;
	long before;
	char extra[64];
	uint64_t t0;

	atomic_store(&ring.hops, 0);
	if (pipe(main_pipe))
		die("pipe");
	ring.to_main = main_pipe[1];
	for (i = 0; i < env->threads; i++)
		if (pipe(fds[i]))
			die("pipe (raise the open-file limit for many threads)");
	for (i = 0; i < env->threads; i++) {
		t[i].index = i;
		t[i].in = fds[i][0];
		t[i].out = fds[(i + 1) % env->threads][1];
		err = pthread_create(&t[i].thread, NULL, ring_member, &t[i]);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	for (i = 0; i < env->tokens; i++)	/* spread the tokens out */
		next[i] = (int)((long)i * env->threads / env->tokens);
	interval_begin(env, &iv, 0);
	chunk_calib(env, &c, 0);
	for (k = 0; k < env->chunks; k++) {
		before = atomic_load(&ring.hops);
		atomic_store(&ring.piece_end, before + chunk_ops(env, k));
		t0 = now_ns();
		for (i = 0; i < env->tokens; i++)
			xwrite1(fds[next[i] % env->threads][1], TOKEN);
		for (i = 0; i < env->tokens; i++)	/* all of them back */
			next[i] = xread_int(main_pipe[0]);
		c.ns[k] = now_ns() - t0;
		c.ops[k] = atomic_load(&ring.hops) - before;
		c.done = k + 1;
		chunk_calib(env, &c, k + 1);
	}
	interval_end(env, &iv, 0);
	settle(env, &iv);
	for (i = 0; i < env->threads; i++)
		xwrite1(fds[i][1], STOP);
	for (i = 0; i < env->threads; i++)
		pthread_join(t[i].thread, NULL);
	for (i = 0; i < env->threads; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	close(main_pipe[0]);
	close(main_pipe[1]);
	snprintf(extra, sizeof(extra), " threads=%d tokens=%d", env->threads,
		 env->tokens);
	report(env, &iv, atomic_load(&ring.hops), chunks_ns(&c), &c, extra);
	return 0;
}

/* ---- command line --------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-bench WORKLOAD [OPTION...]\n"
"Timed scheduler workloads for bench/guest.sh. WORKLOAD is one of:\n"
"  calib      getppid() N times (no scheduler tracepoint: a speed reference)\n"
"  pingpong   two processes, one byte over two pipes, N round trips\n"
"  sleepwake  T threads in a ring of pipes, K tokens, N hops in all\n"
"  writecost  N MiB written in 1 MiB write() calls to --output; ns_per_op is\n"
"             per byte: the output cost every tracer's reader pays\n"
"\n"
"  -n, --ops=N          calls, round trips, hops or MiB (default 100000,\n"
"                       20000, 20000, 8)\n"
"  -w, --warmup=N       untimed round trips before pingpong's (default N/10)\n"
"  -c, --cpus=A,B       pin pingpong's processes to CPUs A and B (default 0,0)\n"
"  -s, --same-process   pingpong's partner is a thread of the same process:\n"
"                       the same switches, no change of address space\n"
"  -t, --threads=T      sleepwake threads (default 32, at most %d)\n"
"  -k, --tokens=K       sleepwake tokens in flight (default 1, < T)\n"
"  -C, --chunks=K       pingpong/sleepwake: run in K pieces (default 1, at\n"
"                       most %d)\n"
"  -N, --chunk-calib=N  time N getppid() calls before, between and after the\n"
"                       pieces, and report norm_per_op (default 0: none)\n"
"  -W, --watch=COMM     also report the CPU time used by processes named\n"
"                       COMM during the run (repeatable, up to %d)\n"
"  -S, --settle=MS      pingpong/sleepwake: after the loop, sleep MS ms with\n"
"                       the workload blocked, and report the watched\n"
"                       processes' CPU time in that window (a tracer's\n"
"                       reader catching up; default 0: no window)\n"
"  -P, --pending=KIND   report the bytes the tracer has recorded and its\n"
"                       reader not yet taken, at the loop's end and after the\n"
"                       --settle window: ftrace (tracefs per_cpu stats),\n"
"                       fxtrace or perf (the rings the --watch processes\n"
"                       mapped)\n"
"      --tracefs=DIR    where --pending ftrace reads (default\n"
"                       /sys/kernel/tracing)\n"
"  -o, --output=FILE    writecost's file, removed afterwards (default\n"
"                       /tmp/fxt-bench-writecost)\n"
"  -p, --pages=HOW      writecost: the file's pages before the timed writes:\n"
"                       new (default: the writes allocate them, as a trace\n"
"                       file's), reused (written once already: the copy\n"
"                       alone), fallocated (fallocate()d first, timed apart\n"
"                       as fallocate_ns_per_byte)\n"
"  -T, --timeout=SECS   give up after SECS, exit 124 (default 600)\n"
"  -h, --help           this text\n"
"\n"
"Output: one line 'result wl=... ops=N elapsed_ns=... ns_per_op=...\n"
"[tracer_cpu_ns=... tracer_tasks=...] [settle_ns=... tracer_cpu_after_ns=...]\n"
"[pending_end_bytes=... pending_after_bytes=...]'. Exit 0, 1 on a failed step, 2 on a\n"
"bad command line, 124 on timeout.\n"
"\n"
"EXAMPLES\n"
"  fxt-bench calib -n 200000\n"
"  fxt-bench pingpong --cpus 0,1 -n 5000\n"
"  fxt-bench sleepwake -n 40000 --chunks 20 --chunk-calib 5000\n"
"  fxt-bench writecost -n 16 -o /tmp/bench/w\n"
"  fxt-bench writecost -n 16 --pages fallocated\n"
"  fxt-collect -o /tmp/t.fxt -- fxt-bench sleepwake -t 64 -W fxt-collect\n"
"  fxt-collect -o /tmp/t.fxt -- fxt-bench pingpong -W fxt-collect -S 300 -P fxtrace\n",
		MAX_THREADS, MAX_CHUNKS, MAX_WATCH);
}

static long parse_long(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "fxt-bench: %s must be a number from %ld to %ld, not '%s'\n",
			what, min, max, s);
		exit(2);
	}
	return v;
}

static void parse_cpus(struct env *env, const char *s)
{
	if (sscanf(s, "%d,%d", &env->cpu_a, &env->cpu_b) != 2 ||
	    env->cpu_a < 0 || env->cpu_b < 0) {
		fprintf(stderr, "fxt-bench: --cpus wants A,B (two CPU numbers), not '%s'\n", s);
		exit(2);
	}
}

/* A word an option takes, and what it stands for. */
struct choice {
	const char *name;
	int value;
};

/* The value of @s among @n @choices of option @opt, or exit 2 naming them. */
static int parse_choice(const char *opt, const char *s,
			const struct choice *choices, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, choices[i].name))
			return choices[i].value;
	fprintf(stderr, "fxt-bench: %s wants ", opt);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s", choices[i].name,
			i + 2 < n ? ", " : i + 2 == n ? " or " : "");
	fprintf(stderr, ", not '%s'\n", s);
	exit(2);
}

static enum write_pages parse_pages(const char *s)
{
	static const struct choice pages[] = {
		{ "new", PAGES_NEW },
		{ "reused", PAGES_REUSED },
		{ "fallocated", PAGES_FALLOCATED },
	};

	return (enum write_pages)parse_choice("--pages", s, pages,
					      sizeof(pages) / sizeof(pages[0]));
}

static enum pending_kind parse_pending(const char *s)
{
	static const struct choice kinds[] = {
		{ "ftrace", PENDING_FTRACE },
		{ "fxtrace", PENDING_FXTRACE },
		{ "perf", PENDING_PERF },
	};

	return (enum pending_kind)parse_choice("--pending", s, kinds,
					       sizeof(kinds) / sizeof(kinds[0]));
}

static void parse_args(struct env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "same-process", no_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "tokens", required_argument, NULL, 'k' },
		{ "chunks", required_argument, NULL, 'C' },
		{ "chunk-calib", required_argument, NULL, 'N' },
		{ "watch", required_argument, NULL, 'W' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "pages", required_argument, NULL, 'p' },
		{ "settle", required_argument, NULL, 'S' },
		{ "pending", required_argument, NULL, 'P' },
		{ "tracefs", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:w:c:st:k:C:N:W:T:o:p:S:P:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': env->ops = parse_long(optarg, "--ops", 1, 1L << 40); break;
		case 'w': env->warmup = parse_long(optarg, "--warmup", 0, 1L << 40); break;
		case 'c': parse_cpus(env, optarg); break;
		case 's': env->same_process = true; break;
		case 't': env->threads = (int)parse_long(optarg, "--threads", 2, MAX_THREADS); break;
		case 'k': env->tokens = (int)parse_long(optarg, "--tokens", 1, MAX_THREADS); break;
		case 'C': env->chunks = (int)parse_long(optarg, "--chunks", 1, MAX_CHUNKS); break;
		case 'N': env->chunk_calib = parse_long(optarg, "--chunk-calib", 0, 1L << 30); break;
		case 'o': env->output = optarg; break;
		case 'p': env->pages = parse_pages(optarg); break;
		case 'S': env->settle_ms = parse_long(optarg, "--settle", 0, 600000); break;
		case 'P': env->pending = parse_pending(optarg); break;
		case 'F': env->tracefs = optarg; break;
		case 'T': env->timeout_s = (unsigned int)parse_long(optarg, "--timeout", 1, 86400); break;
		case 'W':
			if (env->nwatch == MAX_WATCH) {
				fprintf(stderr, "fxt-bench: at most %d --watch names\n", MAX_WATCH);
				exit(2);
			}
			env->watch[env->nwatch++] = optarg;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		exit(2);
	}
	env->workload = argv[optind];
}

int main(int argc, char **argv)
{
	struct env env = {
		.ops = -1, .warmup = -1, .cpu_a = 0, .cpu_b = 0,
		.threads = 32, .tokens = 1, .timeout_s = 600, .chunks = 1,
		.output = "/tmp/fxt-bench-writecost",
		.tracefs = "/sys/kernel/tracing",
	};
	int (*run)(const struct env *);

	parse_args(&env, argc, argv);
	if (!strcmp(env.workload, "calib")) {
		run = run_calib;
		if (env.ops < 0)
			env.ops = 100000;
	} else if (!strcmp(env.workload, "pingpong")) {
		run = run_pingpong;
		if (env.ops < 0)
			env.ops = 20000;
		if (env.warmup < 0)
			env.warmup = env.ops / 10;
		/* A piece without a round trip has no time per op (norm_per_op inf). */
		if (env.chunks > env.ops) {
			fprintf(stderr, "fxt-bench: --chunks (%d) must be at most --ops (%ld)\n",
				env.chunks, env.ops);
			return 2;
		}
	} else if (!strcmp(env.workload, "sleepwake")) {
		run = run_sleepwake;
		if (env.ops < 0)
			env.ops = 20000;
		if (env.tokens >= env.threads) {
			fprintf(stderr, "fxt-bench: --tokens (%d) must be less than --threads (%d)\n",
				env.tokens, env.threads);
			return 2;
		}
	} else if (!strcmp(env.workload, "writecost")) {
		run = run_writecost;
		if (env.ops < 0)
			env.ops = 8;
		if (env.ops > 4096) {
			fprintf(stderr, "fxt-bench: writecost writes at most 4096 MiB, not %ld\n",
				env.ops);
			return 2;
		}
	} else {
		fprintf(stderr, "fxt-bench: unknown workload '%s' (calib, pingpong, sleepwake or writecost; see --help)\n",
			env.workload);
		return 2;
	}
	arm_timeout(&env);
	return run(&env);
}
