// SPDX-License-Identifier: GPL-2.0
/*
 * stress_test - the rings under a scheduler storm (fxt-stress: 50 threads per
 * CPU waking each other for 20 s) with the smallest buffers, drained the way
 * a collector does, with pauses in the draining so the rings also fill up
 * and drop.
 *
 * The counters live in the session's control pages, which are freed when the
 * session closes, so they can only be checked by the program that owns the
 * session: this one (ring_check.h). For every CPU it checks, after STOP and a
 * last drain:
 *   records_written + records_dropped == tracepoint_hits
 *   records walked in the ring == records_written (nothing torn or lost)
 *   consumer_errors == 0 (our consumer_pos was always sane)
 * and that at least one CPU dropped records (the rings really were full),
 * and, once the session is closed, that the module freed everything.
 *
 * fxt-stress is found on PATH (run_vm_tests.sh puts bin/ there).
 *
 * Then wakeups between two CPUs while their stopper threads keep flushing
 * queued wakeups (sched_setaffinity() churn): no wakeup may name a stopper
 * thread, or any task outside the test, as the waker of a task it did not
 * wake.
 *
 * And timer wakeups, over a busy CPU and an idle one: no waker at all.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "cpu_pin.h"
#include "ring_check.h"

#define STRESS_SECONDS	"20"
#define THREADS_PER_CPU	"50"
#define DRAIN_MS	10	/* drain interval while draining */
#define STALL_EVERY	50	/* every this many drains ... */
#define STALL_MAX_MS	5000	/* ... stop draining until a ring drops */

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * Stop draining until a ring is full and drops a record, or STALL_MAX_MS
 * has passed: how long that takes depends on how fast the guest runs the
 * storm, and a fixed pause may fill none on a slow host (run_vm_tests.sh's
 * loss_markers once saw a 0.7 s stop overflow neither of its rings).
 */
static void stall_until_a_drop(const struct rings *rs)
{
	const size_t dropped = offsetof(struct fxtrace_ctrl, records_dropped);
	__u64 before = rings_sum(rs, dropped);
	double end = now_s() + STALL_MAX_MS / 1000.0;

	while (rings_sum(rs, dropped) == before && now_s() < end)
		sleep_ms(DRAIN_MS);
}

TEST(stress_counters_add_up)
{
	int fd = dev_open(), status, iter = 0;
	struct fxtrace_info info;
	struct rings rs;
	pid_t pid;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	ASSERT_EQ(FXTRACE_BUF_SIZE_MIN, info.buf_size);
	rings_map(fd, &info, &rs);

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	pid = spawn_fxt_stress(STRESS_SECONDS, THREADS_PER_CPU);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (++iter % STALL_EVERY == 0) {
			stall_until_a_drop(&rs);
			continue;
		}
		sleep_ms(DRAIN_MS);
		rings_drain(&rs);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	/* After STOP every record is committed: this drain is the rest. */
	rings_drain(&rs);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	EXPECT_NE(0, rings_check_counters(&rs));
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
}

/*
 * A remote wakeup's sched_wakeup runs on the woken task's CPU, wherever
 * that CPU flushes its queue of wakeups; one place is its stopper thread
 * (migration/N): migration_cpu_stop() flushes the queue before it moves a
 * task, so that a task still being woken is moved too. The module takes
 * the waker from what sched_waking left in a table slot; when another
 * wakeup took that slot in between, it must write no waker, never current
 * (the stopper there).
 *
 * The load: LOAD_THREADS threads in a ring pass LOAD_TOKENS tokens around
 * (semaphores: futex wakeups), while two churners, one pinned to each of
 * two CPUs, keep moving every ring thread to the other CPU with
 * sched_setaffinity(). A thread moved while a wakeup of it waits in its
 * CPU's queue is woken by that CPU's stopper, when the churner runs there.
 * The ring threads never wait for a stopper themselves (the churners do),
 * so no stopper wakes them. Linux queues every wakeup between CPUs that
 * share no cache, but between CPUs that do, only a wakeup of an idle CPU;
 * in a one-package VM this checks little more than that most wakeups still
 * name their waker. Even across packages a taken slot and a stopper's
 * flush rarely coincide: with a table of 2 slots instead of 1024, two
 * packages and multi-threaded TCG, the module that wrote current on a
 * mismatch named a stopper in 2 runs of 8; with 1024 slots, in none of 2.
 */
/*
 * The load runs LOAD_SECONDS, and on until the walk has seen LOAD_WAKEUPS
 * wakeups of the ring's threads, for at most LOAD_MAX_SECONDS: a host that
 * stole half the guest's time once left 255 in 5 s, 21870 here.
 */
#define LOAD_SECONDS	5
#define LOAD_MAX_SECONDS	60
#define LOAD_WAKEUPS	1000
#define LOAD_THREADS	64
#define LOAD_TOKENS	8
#define STOPPERS_MAX	1024

struct waker_load {
	int cpu[2];
	int stop_churning, stop;
	pthread_barrier_t ready;
	sem_t sem[LOAD_THREADS];
	pthread_t thread[LOAD_THREADS];
	pid_t tid[LOAD_THREADS];
	/* The test's other threads: the only other tasks that wake the ring */
	pid_t own[3];		/* the test's thread, the two churners */
	unsigned long moves[2];
	/* What the walk saw */
	pid_t stopper[STOPPERS_MAX];
	int nstoppers;
	unsigned long wakeups, by_load, by_stopper, by_other, none;
	unsigned long by_other_task;	/* of by_other: not one of own[] */
	unsigned long by_wrong_member;	/* a ring thread, not the one before */
};

static struct waker_load wl;

static int load_stopped(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_RELAXED);
}

/* Ring member @i: take a token, pass it on to the next. */
static void *ring_member(void *arg)
{
	int i = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "wk-%d", i);
	prctl(PR_SET_NAME, name);
	wl.tid[i] = gettid();
	ASSERT_EQ(0, pin_to_cpu(0, wl.cpu[i % 2]));
	pthread_barrier_wait(&wl.ready);
	for (;;) {
		while (sem_wait(&wl.sem[i]) && errno == EINTR)
			;
		if (load_stopped(&wl.stop))
			return NULL;
		sem_post(&wl.sem[(i + 1) % LOAD_THREADS]);
	}
}

/* Churner @c, on CPU c: move every ring thread to the other CPU, and back. */
static void *churner(void *arg)
{
	int c = (int)(long)arg, i, k = 0;

	prctl(PR_SET_NAME, c ? "churn-1" : "churn-0");
	wl.own[1 + c] = gettid();
	ASSERT_EQ(0, pin_to_cpu(0, wl.cpu[c]));
	while (!load_stopped(&wl.stop_churning)) {
		for (i = c; i < LOAD_THREADS; i += 2)
			ASSERT_EQ(0, pin_to_cpu(wl.tid[i], wl.cpu[(i + k) % 2]));
		k++;
	}
	wl.moves[c] = (unsigned long)k * (LOAD_THREADS / 2);
	return NULL;
}

/* /proc/<tid>/comm, or "?" (gone, or none). */
static const char *task_comm(__u64 tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(buf, size, "?");
	if (!tid)
		return buf;
	snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)tid);
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, (int)size, f))
		snprintf(buf, size, "?");
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* The tids of the stopper threads (comm "migration/N"). */
static void find_stoppers(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char comm[32];

	ASSERT_TRUE(d != NULL);
	while ((e = readdir(d)) && wl.nstoppers < STOPPERS_MAX) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (!strncmp(task_comm(strtoull(e->d_name, NULL, 10), comm,
					sizeof(comm)), "migration/", 10))
			wl.stopper[wl.nstoppers++] = atoi(e->d_name);
	}
	closedir(d);
}

/* The index of @tid in @set, or -1. */
static int index_in(const pid_t *set, int n, __u64 tid)
{
	int i;

	for (i = 0; i < n; i++)
		if ((__u64)set[i] == tid)
			return i;
	return -1;
}

static int is_in(const pid_t *set, int n, __u64 tid)
{
	return index_in(set, n, tid) >= 0;
}

static void see_load_wakeup(void *ctx, int cpu, __u64 tid, __u64 waker,
			    __u64 ts)
{
	int member = index_in(wl.tid, LOAD_THREADS, tid);
	int by = index_in(wl.tid, LOAD_THREADS, waker);

	(void)ctx;
	if (member < 0)
		return;
	wl.wakeups++;
	if (!waker) {
		wl.none++;
	} else if (by == (member + LOAD_THREADS - 1) % LOAD_THREADS) {
		wl.by_load++;
	} else if (by >= 0) {
		/*
		 * Member i waits on its own semaphore, which only member i-1
		 * (and the test's thread) posts: another member did not wake
		 * it. A module that named whatever ran on the woken task's
		 * CPU when it flushed its wakeup queue names one here.
		 */
		if (wl.by_wrong_member++ < 5)
			printf("#   cpu %d at %llu: wk-%d woken by wk-%d, not wk-%d\n",
			       cpu, (unsigned long long)ts, member, by,
			       (member + LOAD_THREADS - 1) % LOAD_THREADS);
	} else if (is_in(wl.stopper, wl.nstoppers, waker)) {
		if (wl.by_stopper++ < 5)
			printf("#   cpu %d at %llu: tid %llu woken by stopper tid %llu\n",
			       cpu, (unsigned long long)ts,
			       (unsigned long long)tid,
			       (unsigned long long)waker);
	} else {
		/*
		 * Only the test's thread posts to the ring's semaphores (the
		 * tokens, and the stop); a churner may release a kernel lock
		 * a ring thread waits for. Any other task did not wake it,
		 * but on PREEMPT_RT (see below).
		 */
		if (!is_in(wl.own, 3, waker) && wl.by_other_task++ < 5)
			printf("#   cpu %d at %llu: tid %llu woken by tid %llu, not the test's\n",
			       cpu, (unsigned long long)ts,
			       (unsigned long long)tid,
			       (unsigned long long)waker);
		wl.by_other++;
	}
}

TEST(no_wakeup_names_a_stopper_that_did_not_wake_it)
{
	int fd, i, n;
	struct fxtrace_info info;
	pthread_t churn[2];
	struct rings rs;
	double start, ran;

	n = allowed_cpus(wl.cpu, 2);
	ASSERT_LE(0, n);
	if (n < 2)
		SKIP_OR_FAIL_IN_VM("%d CPU(s) allowed: this test needs two (the test VM has two)", n);
	find_stoppers();
	ASSERT_LE(2, wl.nstoppers);
	wl.own[0] = gettid();

	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, 4 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, NULL, see_load_wakeup, NULL);

	/* Created and pinned before START: none waits for a stopper after. */
	ASSERT_EQ(0, pthread_barrier_init(&wl.ready, NULL, LOAD_THREADS + 1));
	for (i = 0; i < LOAD_THREADS; i++) {
		ASSERT_EQ(0, sem_init(&wl.sem[i], 0, 0));
		ASSERT_EQ(0, pthread_create(&wl.thread[i], NULL, ring_member,
					    (void *)(long)i));
	}
	pthread_barrier_wait(&wl.ready);

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	for (i = 0; i < LOAD_TOKENS; i++)
		sem_post(&wl.sem[i * (LOAD_THREADS / LOAD_TOKENS)]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&churn[i], NULL, churner,
					    (void *)(long)i));
	start = now_s();
	for (;;) {
		usleep(10 * 1000);
		rings_drain(&rs);
		ran = now_s() - start;
		if (ran >= LOAD_MAX_SECONDS ||
		    (ran >= LOAD_SECONDS && wl.wakeups >= LOAD_WAKEUPS))
			break;
	}
	__atomic_store_n(&wl.stop_churning, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(churn[i], NULL));
	__atomic_store_n(&wl.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < LOAD_THREADS; i++)
		sem_post(&wl.sem[i]);
	for (i = 0; i < LOAD_THREADS; i++)
		ASSERT_EQ(0, pthread_join(wl.thread[i], NULL));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);

	printf("#   CPUs %d and %d, %d stoppers, %lu moves in %.1f s: %lu wakeups of the ring's threads; waker the thread before %lu, another of them %lu, none %lu, the test's thread or a churner %lu, a stopper %lu, another task %lu\n",
	       wl.cpu[0], wl.cpu[1], wl.nstoppers, wl.moves[0] + wl.moves[1],
	       ran, wl.wakeups, wl.by_load, wl.by_wrong_member, wl.none,
	       wl.by_other - wl.by_other_task, wl.by_stopper,
	       wl.by_other_task);
	EXPECT_EQ(0, wl.by_stopper);
	/*
	 * On PREEMPT_RT a futex's hash bucket lock sleeps, and the buckets
	 * are shared system-wide: any task whose futex hashes to a ring
	 * thread's bucket may wake it, handing the lock over. Printed there,
	 * not counted.
	 */
	if (!kernel_is_preempt_rt()) {
		EXPECT_EQ(0, wl.by_other_task);
		EXPECT_EQ(0, wl.by_wrong_member);
	}
	/* The load ran, and the waker table works. */
	EXPECT_LE(1, wl.wakeups);
	EXPECT_LE(wl.wakeups / 2, wl.by_load);
	rings_check_counters(&rs);
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
	/* Too few to have met a stopper's flush: this run tells little. */
	if (wl.wakeups < LOAD_WAKEUPS)
		SKIP("the load made %lu wakeups in %.0f s, fewer than %d",
		     wl.wakeups, ran, LOAD_WAKEUPS);
}

/*
 * Timer wakeups name no waker (uapi "Records", wakeup: the waker is
 * omitted for a wakeup from interrupt or softirq context or idle, "never a
 * task that did not wake it"). A sleeper pinned to one CPU calls
 * nanosleep(1 ms) TIMER_SLEEPS times; the hrtimer that ends each sleep
 * fires in a hard interrupt (on PREEMPT_RT, for a task that is not
 * real-time, in the timer softirq, which runs in the ktimers/N thread
 * there: the contract says softirq threads name no waker either). With
 * @busy, a spinner busy-loops on the same CPU, so the interrupt arrives
 * while another task runs: a module that named current without asking
 * in_task() would name the spinner (or, on PREEMPT_RT, ktimers/N). Without
 * it the CPU is otherwise idle: a module that named any task there (a
 * stale waker slot, the last task that ran on the CPU) is caught. Nothing
 * but the timer wakes the sleeper: it is a process of its own (no
 * mmap_lock shared with the drainer) that takes no lock another task
 * holds, so every one of its wakeups must name none.
 */
#define TIMER_SLEEPS	150
#define TIMER_MAX_SECONDS	60

struct timer_watch {
	__u64 sleeper, spinner;
	__u64 from_ts;		/* the sleeper's first sleep begins after it */
	__u64 running[CPU_SETSIZE];	/* per CPU: the last switch's incoming tid */
	unsigned long wakeups, named, over_spinner, over_idle, over_other;
	__u64 other;		/* the last "another task" */
};

struct timer_shared {
	__u64 from_ts;		/* CLOCK_BOOTTIME before the first sleep */
	int sleeps_done, stop;
};

static void see_timer_switch(void *ctx, int cpu, const struct krec_switch *sw,
			     __u64 ts, __s32 outgoing_weight)
{
	struct timer_watch *w = ctx;

	(void)ts;
	(void)outgoing_weight;
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		w->running[cpu] = sw->incoming_tid;
}

static void see_timer_wakeup(void *ctx, int cpu, __u64 tid, __u64 waker,
			     __u64 ts)
{
	struct timer_watch *w = ctx;
	__u64 cur = cpu >= 0 && cpu < CPU_SETSIZE ? w->running[cpu] : 1;

	if (tid != w->sleeper || !w->from_ts || ts < w->from_ts)
		return;
	w->wakeups++;
	/* What ran on the CPU that wrote the record when the wakeup came. */
	if (cur == 0)
		w->over_idle++;
	else if (cur == w->spinner)
		w->over_spinner++;
	else
		w->over_other++, w->other = cur;
	if (waker && w->named++ < 5)
		printf("#   cpu %d at %llu: sleeper %llu woken by its timer, but the record names tid %llu (%s ran there)\n",
		       cpu, (unsigned long long)ts, (unsigned long long)tid,
		       (unsigned long long)waker,
		       cur == 0 ? "idle" : cur == w->spinner ? "the spinner" :
		       "another task");
}

static void timer_wakeups_name_no_waker(int busy)
{
	static struct timer_watch w;
	struct timespec ms = { .tv_nsec = 1000 * 1000 };
	int fd, status, n, cpus[2], i;
	struct timer_shared *sh;
	struct fxtrace_info info;
	pid_t sleeper, spinner = 0;
	char comm[32];
	struct rings rs;
	double start;

	memset(&w, 0, sizeof(w));
	n = allowed_cpus(cpus, 2);
	ASSERT_LE(0, n);
	if (n < 2)
		SKIP_OR_FAIL_IN_VM("%d CPU(s) allowed: this test needs two (the test VM has two)", n);
	/* The drains on one CPU, the sleeper (and spinner) on the other. */
	ASSERT_EQ(0, pin_to_cpu(0, cpus[0]));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));

	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, 4 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, see_timer_switch, see_timer_wakeup, &w);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));

	if (busy) {
		spinner = fork();
		ASSERT_TRUE(spinner >= 0);
		if (spinner == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (pin_to_cpu(0, cpus[1]))
				_exit(1);
			while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
				;
			_exit(0);
		}
		w.spinner = (__u64)spinner;
	}
	sleeper = fork();
	ASSERT_TRUE(sleeper >= 0);
	if (sleeper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pin_to_cpu(0, cpus[1]))
			_exit(1);
		/* Pinned: no stopper moves it (and wakes it) from here on. */
		__atomic_store_n(&sh->from_ts, boottime_ns(), __ATOMIC_RELEASE);
		for (i = 0; i < TIMER_SLEEPS; i++) {
			if (nanosleep(&ms, NULL))
				_exit(2);
			__atomic_store_n(&sh->sleeps_done, i + 1,
					 __ATOMIC_RELAXED);
		}
		_exit(0);
	}
	w.sleeper = (__u64)sleeper;
	start = now_s();
	while (waitpid(sleeper, &status, WNOHANG) == 0) {
		usleep(10 * 1000);
		w.from_ts = __atomic_load_n(&sh->from_ts, __ATOMIC_ACQUIRE);
		rings_drain(&rs);
		if (now_s() - start > TIMER_MAX_SECONDS) {
			kill(sleeper, SIGKILL);
			waitpid(sleeper, &status, 0);
			break;
		}
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	if (busy) {
		int spun;

		ASSERT_EQ(spinner, waitpid(spinner, &spun, 0));
		ASSERT_TRUE(WIFEXITED(spun) && WEXITSTATUS(spun) == 0);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	w.from_ts = sh->from_ts;
	rings_drain(&rs);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(TIMER_SLEEPS, sh->sleeps_done);

	printf("#   %s CPU %d: %d sleeps of 1 ms in %.1f s, %lu wakeups of the sleeper (over the spinner %lu, idle %lu, another task %lu: last tid %llu, %s), %lu naming a waker\n",
	       busy ? "busy" : "idle", cpus[1], sh->sleeps_done,
	       now_s() - start, w.wakeups, w.over_spinner, w.over_idle,
	       w.over_other, (unsigned long long)w.other,
	       task_comm(w.other, comm, sizeof(comm)), w.named);
	EXPECT_EQ(0, w.named);
	/*
	 * Every sleep blocks (1 ms is far more than the syscall's way in),
	 * and the timer wakes it: one wakeup each, unless records were lost,
	 * which rings_check_counters() below catches. 9 in 10 leaves room
	 * for nothing but a few sleeps cut short by the sleeper's own
	 * scheduling (none expected).
	 */
	EXPECT_LE(TIMER_SLEEPS * 9 / 10, w.wakeups);
	/*
	 * The load did what it is for. Without PREEMPT_RT the wakeup record
	 * is written in the timer interrupt, over whatever ran: the spinner
	 * most of the time in the busy run (the sleeper itself never, it is
	 * asleep), idle in the idle run. On PREEMPT_RT ktimers/N runs the
	 * expiry, busy or idle: "another task" (its comm is printed), which
	 * is the softirq thread the contract says names no waker.
	 */
	if (kernel_is_preempt_rt())
		EXPECT_LE(w.wakeups / 2, w.over_other);
	else if (busy)
		EXPECT_LE(w.wakeups / 2, w.over_spinner);
	else
		EXPECT_LE(w.wakeups / 2, w.over_idle);
	EXPECT_EQ(0, rings_check_counters(&rs));
	rings_unmap(&rs);
	close(fd);
	munmap(sh, sizeof(*sh));
	expect_no_live_allocations();
}

TEST(timer_wakeups_over_a_busy_cpu_name_no_waker)
{
	timer_wakeups_name_no_waker(1);
}

TEST(timer_wakeups_on_an_idle_cpu_name_no_waker)
{
	timer_wakeups_name_no_waker(0);
}

TEST_MAIN()
