// SPDX-License-Identifier: GPL-2.0
/*
 * state_test - a context switch's outgoing state is the state the task
 * really left the CPU in
 *
 * A task that calls schedule() in a sleeping state with a signal already
 * pending does not sleep: __schedule() sets it back to TASK_RUNNING and
 * leaves it on the runqueue. Linux before 6.16 (6.1 here; Debian's 6.12
 * has the fix) still hands sched_switch the sleeping state it read first
 * (fixed upstream by 8feb053d5319, "sched: Fix
 * trace_sched_switch(.prev_state)"). When another task runs next, a trace
 * that believes it shows the task asleep, then running again with no
 * wakeup in between: its wait for the CPU looks like sleep.
 *
 * Here, on CPU 0, a timer ticks every TICK_US: each tick sends SIGUSR1 to
 * a sleeper and wakes a real-time task (the one that runs next), in the
 * same timer interrupt. The sleeper waits on 128 futexes at once before
 * each tick, so that ticks land while it is on its way into schedule()
 * (see sleeper()). The rings are drained from another CPU. Every time the
 * sleeper leaves the CPU in a sleeping state (blocked, suspended), the
 * next thing the trace says of it must be a wakeup, never a switch that
 * runs it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <time.h>

#include "cpu_pin.h"
#include "ring_check.h"

#define RUN_MS		1500	/* at least, and until MIN_ASLEEP... */
#define MAX_RUN_MS	30000	/* ...but no longer (66 in 10 s measured once on 6.1) */
#define MIN_ASLEEP	100	/* sleeping switch-outs the check needs */
#define TICK_US		1000	/* the signal's period */
#define LEAD_STEPS	20
#define LEAD_STEP_US	10
#define DRAIN_MS	5

enum ev_kind { EV_WAKEUP, EV_IN, EV_OUT };	/* the order at equal times */

struct ev {
	__u64 ts;
	enum ev_kind kind;
	__u64 state;		/* EV_OUT: the FXT outgoing state */
};

struct watch {
	__u64 tid;
	__u64 asleep;		/* sleeping switch-outs seen so far */
	struct ev *ev;
	size_t n, cap;
};

static void add_ev(struct watch *w, __u64 ts, enum ev_kind kind, __u64 state)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 4096;
		w->ev = realloc(w->ev, w->cap * sizeof(*w->ev));
		ASSERT_TRUE(w->ev != NULL);
	}
	w->ev[w->n++] = (struct ev){ .ts = ts, .kind = kind, .state = state };
}

static void see_switch(void *ctx, int cpu, const struct krec_switch *sw,
		       __u64 ts, __s32 outgoing_weight)
{
	struct watch *w = ctx;

	(void)cpu;
	(void)outgoing_weight;
	if (sw->outgoing_tid == w->tid) {
		add_ev(w, ts, EV_OUT, sw->fxt_state);
		w->asleep += sw->fxt_state != FXT_THREAD_STATE_RUNNING;
	}
	if (sw->incoming_tid == w->tid)
		add_ev(w, ts, EV_IN, 0);
}

static void see_wakeup(void *ctx, int cpu, __u64 tid, __u64 waker, __u64 ts)
{
	struct watch *w = ctx;

	(void)cpu;
	(void)waker;
	if (tid == w->tid)
		add_ev(w, ts, EV_WAKEUP, 0);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static void pin(int cpu)
{
	ASSERT_EQ(0, pin_to_cpu(0, cpu));
}

static void on_signal(int sig)
{
	(void)sig;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000 + (__u64)ts.tv_nsec;
}

static struct timespec ns_to_ts(__u64 ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000),
				  .tv_nsec = (long)(ns % 1000000000) };
}

/*
 * The sleeper: SIGUSR1 from a timer at every tick of the grid
 * @t0 + k * TICK_US until @end or *@stop, and a wait on FUTEX_WAITV_MAX futexes
 * (futex_waitv(), Linux >= 5.16) begun before each tick and ending after
 * it. Queueing that many takes a while, with no signal check before
 * schedule(); how long depends on the machine, so the wait begins 0 to
 * LEAD_STEPS - 1 steps of LEAD_STEP_US before the tick, in turn.
 */
static void sleeper(__u64 t0, __u64 end, const int *stop)
{
	static __u32 words[FUTEX_WAITV_MAX];
	static struct futex_waitv waiters[FUTEX_WAITV_MAX];
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR1 };
	struct itimerspec its = { .it_value = ns_to_ts(t0),
				  .it_interval = ns_to_ts(TICK_US * 1000) };
	struct timespec until;
	__u64 tick, k, start;
	timer_t timer;
	int i;

	pin(0);
	for (i = 0; i < FUTEX_WAITV_MAX; i++) {
		waiters[i].uaddr = (__u64)(uintptr_t)&words[i];
		waiters[i].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
	}
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
	    timer_settime(timer, TIMER_ABSTIME, &its, NULL))
		_exit(1);
	for (k = 0, tick = t0;
	     tick < end && !__atomic_load_n(stop, __ATOMIC_RELAXED);
	     k++, tick += TICK_US * 1000) {
		start = tick - (k % LEAD_STEPS) * LEAD_STEP_US * 1000;
		while (mono_ns() < start)
			;
		until = ns_to_ts(tick + TICK_US * 1000 / 2);
		if (syscall(SYS_futex_waitv, waiters, FUTEX_WAITV_MAX, 0,
			    &until, CLOCK_MONOTONIC) != -1 ||
		    (errno != ETIMEDOUT && errno != EINTR))
			_exit(2);
	}
	_exit(0);
}

/*
 * The one that runs next: a real-time task on the sleeper's CPU that wakes
 * at every tick of the same grid until @end or *@stop, so that each tick makes the
 * sleeper's signal pending and this task runnable in one timer interrupt.
 */
static pid_t start_runner(__u64 t0, __u64 end, const int *stop)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid = fork();
	struct timespec at;
	__u64 next;

	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin(0);
		for (next = t0;
		     next < end && !__atomic_load_n(stop, __ATOMIC_RELAXED);
		     next += TICK_US * 1000) {
			at = ns_to_ts(next);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		}
		_exit(0);
	}
	ASSERT_EQ(0, sched_setscheduler(pid, SCHED_FIFO, &sp));
	return pid;
}

TEST(sleeping_switch_out_is_followed_by_a_wakeup)
{
	static struct watch w;
	__u64 running = 0, wrong = 0, last_state = 0, t0, end, ran_ms;
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	int fd = dev_open(), asleep = 0, status, other = 0, *stop;
	struct fxtrace_info info;
	pid_t runner, pid, r;
	struct rings rs;
	size_t i;

	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		other = 1;
	pin(other);		/* the drains stay off the sleeper's CPU */
	ASSERT_EQ(0, dev_configure(fd, 16 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, see_switch, see_wakeup, &w);

	/* Set here, read by the sleeper and the runner. */
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(stop != MAP_FAILED);
	*stop = 0;
	/* Inherited by the sleeper, ready before the first signal. */
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	t0 = mono_ns() + 50 * 1000 * 1000;
	end = t0 + MAX_RUN_MS * 1000ULL * 1000;
	runner = start_runner(t0, end, stop);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		sleeper(t0, end, stop);
	w.tid = (__u64)pid;
	/*
	 * RUN_MS, or longer on a machine too slow or too loaded for
	 * MIN_ASLEEP sleeps in that time (an emulated CPU sharing the host).
	 */
	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		usleep(DRAIN_MS * 1000);
		rings_drain(&rs);
		if (w.asleep >= MIN_ASLEEP &&
		    mono_ns() >= t0 + RUN_MS * 1000ULL * 1000)
			__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	}
	ran_ms = (mono_ns() - t0) / 1000000;
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);
	ASSERT_EQ(pid, r);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(runner, waitpid(runner, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* A lost record would leave a hole in the sleeper's story. */
	ASSERT_EQ(0, rings_check_counters(&rs));

	qsort(w.ev, w.n, sizeof(*w.ev), ev_cmp);
	for (i = 0; i < w.n; i++) {
		switch (w.ev[i].kind) {
		case EV_WAKEUP:
			asleep = 0;
			break;
		case EV_OUT:
			last_state = w.ev[i].state;
			asleep = last_state != FXT_THREAD_STATE_RUNNING;
			running += !asleep;
			break;
		case EV_IN:
			if (asleep && wrong++ < 5)
				printf("#   at %llu: switched in, but its last switch out (state %llu) had it asleep and nothing woke it\n",
				       (unsigned long long)w.ev[i].ts,
				       (unsigned long long)last_state);
			asleep = 0;
			break;
		}
	}
	printf("#   sleeper tid %llu: %zu records in %llu ms; switched out %llu times asleep, %llu running; %llu switched in again with no wakeup\n",
	       (unsigned long long)w.tid, w.n,
	       (unsigned long long)ran_ms, (unsigned long long)w.asleep,
	       (unsigned long long)running, (unsigned long long)wrong);
	EXPECT_EQ(0, wrong);
	/* The load did what it is for: the sleeper slept and was preempted. */
	EXPECT_LE(MIN_ASLEEP, w.asleep);
	EXPECT_LE(1, running);
	rings_unmap(&rs);
	munmap(stop, sizeof(*stop));
	free(w.ev);
	close(fd);
	expect_no_live_allocations();
}

TEST_MAIN()
