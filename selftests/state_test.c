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
 * Here, on CPU 0, a timer ticks every millisecond or so (grid_for()):
 * each tick sends SIGUSR1 to a sleeper and wakes a real-time task (the one
 * that runs next), in the same timer interrupt. The sleeper waits on 128
 * futexes at once before each tick, so that ticks land while it is on its
 * way into schedule() (see sleeper()). The rings are drained from another
 * CPU. Every time the sleeper leaves the CPU in a sleeping state (blocked,
 * suspended), the next thing the trace says of it must be a wakeup, never
 * a switch that runs it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <time.h>

#include "cpu_pin.h"
#include "ring_check.h"

#define RUN_MS		1500	/* at least, and until MIN_ASLEEP... */
#define MAX_RUN_MS	30000	/* ...but no longer (66 in 10 s measured once on 6.1) */
#define MIN_ASLEEP	100	/* sleeping switch-outs the check needs */
#define TICK_US		1000	/* the signal's period, at least (see grid_for()) */
#define LEAD_STEPS	20
#define LEAD_STEP_US	10	/* at least */
#define CALIBRATION_WAITS 15
#define DRAIN_MS	5

enum ev_kind { EV_WAKEUP, EV_IN, EV_OUT };	/* the order at equal times */

struct ev {
	__u64 ts;
	enum ev_kind kind;
	__u64 state;		/* EV_OUT: the FXT outgoing state */
};

/*
 * The ticks the sleeper, its timer and the runner share: t0 + k * tick_ns
 * until end, and the wait before the k-th begins (k % LEAD_STEPS) *
 * lead_step_ns ahead of it.
 */
struct grid {
	__u64 t0, end, tick_ns, lead_step_ns;
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

/* The sleeper's FUTEX_WAITV_MAX futexes (futex_waitv(), Linux >= 5.16). */
static __u32 words[FUTEX_WAITV_MAX];
static struct futex_waitv waiters[FUTEX_WAITV_MAX];

static void waiters_init(void)
{
	int i;

	for (i = 0; i < FUTEX_WAITV_MAX; i++) {
		waiters[i].uaddr = (__u64)(uintptr_t)&words[i];
		waiters[i].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * How long the sleeper's futex_waitv() takes here to get as far as its
 * last futex: the median of CALIBRATION_WAITS calls whose last word is not
 * the value expected (EAGAIN: no sleep, no timer). Such a call reads the
 * 128 keys, sets the sleeping state, queues 127 futexes, finds the last
 * word changed and unqueues them again; so the window that matters, from
 * the sleeping state to schedule(), is about the middle third of it (and
 * its length, an upper bound of the time a wait takes to sleep).
 */
static __u64 failed_wait_ns(void)
{
	__u64 took[CALIBRATION_WAITS], t;
	int i;

	words[FUTEX_WAITV_MAX - 1] = 1;
	for (i = 0; i < CALIBRATION_WAITS; i++) {
		t = mono_ns();
		ASSERT_EQ(-1, syscall(SYS_futex_waitv, waiters,
				      FUTEX_WAITV_MAX, 0, NULL,
				      CLOCK_MONOTONIC));
		took[i] = mono_ns() - t;
		ASSERT_EQ(EAGAIN, errno);
	}
	words[FUTEX_WAITV_MAX - 1] = 0;
	qsort(took, CALIBRATION_WAITS, sizeof(*took), cmp_u64);
	return took[CALIBRATION_WAITS / 2];
}

/*
 * The grid for a machine whose failed_wait_ns() is @wait_ns: leads from 0
 * to twice that, so that the longer ones have their futexes queued before
 * the tick (they sleep) and some in its middle land the tick between the
 * sleeping state and schedule() (about a sixth of them, and more with the
 * timer's jitter), in steps of at least LEAD_STEP_US; and a tick at least
 * twice the longest lead, since each wait ends half a tick after its tick.
 * On a slow machine (an emulated CPU, PREEMPT_RT's futex locks) fixed
 * leads of up to 190 us fell short of the sleeping state in nearly every
 * wait once: 71 sleeps in 43 s.
 */
static struct grid grid_for(__u64 wait_ns)
{
	__u64 step = 2 * wait_ns / (LEAD_STEPS - 1) + 1;
	struct grid g;

	g.lead_step_ns = step > LEAD_STEP_US * 1000 ? step : LEAD_STEP_US * 1000;
	g.tick_ns = 2 * LEAD_STEPS * g.lead_step_ns;
	if (g.tick_ns < TICK_US * 1000)
		g.tick_ns = TICK_US * 1000;
	g.t0 = mono_ns() + 50 * 1000 * 1000;
	g.end = g.t0 + MAX_RUN_MS * 1000ULL * 1000;
	return g;
}

/*
 * The sleeper: SIGUSR1 from a timer at every tick of @g until its end or
 * *@stop, and a wait on FUTEX_WAITV_MAX futexes begun before each tick
 * and ending half a tick after it. Queueing that many takes a while, with
 * no signal check before schedule(); how long depends on the machine, so
 * the wait begins 0 to LEAD_STEPS - 1 steps of g->lead_step_ns before the
 * tick, in turn.
 */
static void sleeper(const struct grid *g, const int *stop)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR1 };
	struct itimerspec its = { .it_value = ns_to_ts(g->t0),
				  .it_interval = ns_to_ts(g->tick_ns) };
	struct timespec until;
	__u64 tick, k, start;
	timer_t timer;

	pin(0);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
	    timer_settime(timer, TIMER_ABSTIME, &its, NULL))
		_exit(1);
	for (k = 0, tick = g->t0;
	     tick < g->end && !__atomic_load_n(stop, __ATOMIC_RELAXED);
	     k++, tick += g->tick_ns) {
		start = tick - (k % LEAD_STEPS) * g->lead_step_ns;
		while (mono_ns() < start)
			;
		until = ns_to_ts(tick + g->tick_ns / 2);
		if (syscall(SYS_futex_waitv, waiters, FUTEX_WAITV_MAX, 0,
			    &until, CLOCK_MONOTONIC) != -1 ||
		    (errno != ETIMEDOUT && errno != EINTR))
			_exit(2);
	}
	_exit(0);
}

/*
 * The one that runs next: a real-time task on the sleeper's CPU that wakes
 * at every tick of the same grid until its end or *@stop, so that each
 * tick makes the sleeper's signal pending and this task runnable in one
 * timer interrupt.
 */
static pid_t start_runner(const struct grid *g, const int *stop)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid = fork();
	struct timespec at;
	__u64 next;

	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin(0);
		for (next = g->t0;
		     next < g->end && !__atomic_load_n(stop, __ATOMIC_RELAXED);
		     next += g->tick_ns) {
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
	__u64 running = 0, wrong = 0, last_state = 0, wait_ns, ran_ms;
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	int fd = dev_open(), asleep = 0, status, other = 0, *stop;
	struct fxtrace_info info;
	pid_t runner, pid, r;
	struct grid g;
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
	waiters_init();
	wait_ns = failed_wait_ns();
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	g = grid_for(wait_ns);
	runner = start_runner(&g, stop);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0)
		sleeper(&g, stop);
	w.tid = (__u64)pid;
	/*
	 * RUN_MS, or longer on a machine too slow or too loaded for
	 * MIN_ASLEEP sleeps in that time (an emulated CPU sharing the host).
	 */
	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		usleep(DRAIN_MS * 1000);
		rings_drain(&rs);
		if (w.asleep >= MIN_ASLEEP &&
		    mono_ns() >= g.t0 + RUN_MS * 1000ULL * 1000)
			__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	}
	ran_ms = (mono_ns() - g.t0) / 1000000;
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
	printf("#   a wait on %d futexes failing at the last took %llu us: ticks every %llu us, waits begun 0 to %llu us ahead\n",
	       FUTEX_WAITV_MAX, (unsigned long long)wait_ns / 1000,
	       (unsigned long long)g.tick_ns / 1000,
	       (unsigned long long)(LEAD_STEPS - 1) * g.lead_step_ns / 1000);
	printf("#   sleeper tid %llu: %zu records in %llu ms; switched out %llu times asleep, %llu running; %llu switched in again with no wakeup\n",
	       (unsigned long long)w.tid, w.n,
	       (unsigned long long)ran_ms, (unsigned long long)w.asleep,
	       (unsigned long long)running, (unsigned long long)wrong);
	EXPECT_EQ(0, wrong);
	/*
	 * The load did what it is for: the sleeper slept and was preempted.
	 * Never asleep in MAX_RUN_MS is the states' fault; asleep, but
	 * fewer than MIN_ASLEEP times, a host too slow to tell much.
	 */
	EXPECT_LE(1, w.asleep);
	EXPECT_LE(1, running);
	rings_unmap(&rs);
	munmap(stop, sizeof(*stop));
	free(w.ev);
	close(fd);
	expect_no_live_allocations();
	if (w.asleep < MIN_ASLEEP)
		SKIP("the sleeper slept %llu times in %llu ms, fewer than %d",
		     (unsigned long long)w.asleep,
		     (unsigned long long)ran_ms, MIN_ASLEEP);
}

/*
 * The other outgoing states, and linux_state's value (uapi "Records"):
 * FXT_THREAD_STATE_SUSPENDED 2 for a stopped or traced task,
 * FXT_THREAD_STATE_DYING 4 for one that exits and stays a zombie,
 * FXT_THREAD_STATE_DEAD 5 for one nobody waits for (a thread), BLOCKED for
 * every other sleep; linux_state is the raw prev_state, which none of
 * these states implies. The values, the same in 6.1's and 6.12's
 * include/linux/sched.h:
 *   raise(SIGSTOP): do_signal_stop() sets TASK_STOPPED
 *     (TASK_WAKEKILL 0x100 | __TASK_STOPPED 0x4);
 *   the same under ptrace: ptrace_stop() sets TASK_TRACED, which since
 *     5.19 is __TASK_TRACED 0x8 alone (its TASK_WAKEKILL went to jobctl);
 *   exit: do_task_dead() sets TASK_DEAD 0x80, after exit_notify() made the
 *     task EXIT_ZOMBIE (a process whose parent will wait) or EXIT_DEAD (a
 *     thread, reaped at once): the module tells them by exit_state;
 *   vfork: the parent waits in wait_for_vfork_done(), in
 *     TASK_UNINTERRUPTIBLE | TASK_KILLABLE | TASK_FREEZABLE (0x2102),
 *     a D sleep (its completion's lock is raw, so PREEMPT_RT sleeps
 *     there in the same state).
 * Each test traces one task until its switch out in that state, then
 * asserts the FXT state and the exact linux_state of it. Catches a module
 * that maps every sleep to BLOCKED, tells DYING from DEAD wrong (by
 * prev_state alone), or writes anything but the raw prev_state as
 * linux_state (the tracepoint's format, __trace_sched_switch_state(), an
 * index bit, or the state with modifiers dropped), or that knows a stopped
 * task but not a traced one.
 */
#define LS_TASK_STOPPED		0x104
#define LS_TASK_TRACED		0x8
#define LS_TASK_DEAD		0x80
#define LS_VFORK_WAIT		0x2102
#define OUTS_MAX		64
#define STATE_WAIT_S		30	/* for a switch out to show up */

struct out_ev {
	__u64 ts, state;
	int has_ls;
	__u32 ls;
};

struct outs {
	__u64 tid;
	int n, lost;
	struct out_ev ev[OUTS_MAX];
};

static void see_out(void *ctx, int cpu, const struct krec_switch *sw,
		    __u64 ts, __s32 outgoing_weight)
{
	struct outs *o = ctx;

	(void)cpu;
	(void)outgoing_weight;
	if (!o->tid || sw->outgoing_tid != o->tid)
		return;
	if (o->n == OUTS_MAX) {
		o->lost++;
		return;
	}
	o->ev[o->n++] = (struct out_ev){ .ts = ts, .state = sw->fxt_state,
					 .has_ls = sw->has_linux_state,
					 .ls = sw->linux_state };
}

static void print_outs(const struct outs *o)
{
	int i;

	for (i = 0; i < o->n; i++)
		printf("#   tid %llu at %llu: switched out in state %llu, linux_state %s%#x\n",
		       (unsigned long long)o->tid,
		       (unsigned long long)o->ev[i].ts,
		       (unsigned long long)o->ev[i].state,
		       o->ev[i].has_ls ? "" : "(implied) ",
		       o->ev[i].has_ls ? o->ev[i].ls : 0);
}

/* The switches out of @o with FXT state @state. */
static int outs_in_state(const struct outs *o, __u64 state)
{
	int i, k = 0;

	for (i = 0; i < o->n; i++)
		k += o->ev[i].state == state;
	return k;
}

/* A session watching @o's switches out, started. */
static int state_session(struct rings *rs, struct outs *o)
{
	int fd = dev_open();
	struct fxtrace_info info;

	ASSERT_EQ(0, dev_configure(fd, 4 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, rs);
	rings_watch(rs, see_out, NULL, o);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	return fd;
}

/* Drain until @o has a switch out in @state, or STATE_WAIT_S passed. */
static void drain_until(struct rings *rs, const struct outs *o, __u64 state)
{
	double end = now_s() + STATE_WAIT_S;

	rings_drain(rs);
	while (!outs_in_state(o, state) && now_s() < end) {
		usleep(10 * 1000);
		rings_drain(rs);
	}
}

static void state_session_end(int fd, struct rings *rs, const struct outs *o)
{
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(rs);
	print_outs(o);
	EXPECT_EQ(0, o->lost);
	EXPECT_EQ(0, rings_check_counters(rs));
	rings_unmap(rs);
	close(fd);
	expect_no_live_allocations();
}

/* Every switch out of @o in @state has linux_state @ls; there is one. */
static void expect_state(const struct outs *o, __u64 state, __u32 ls)
{
	int i, k = 0;

	for (i = 0; i < o->n; i++) {
		if (o->ev[i].state != state)
			continue;
		k++;
		EXPECT_TRUE(o->ev[i].has_ls);
		EXPECT_EQ(ls, o->ev[i].ls);
	}
	HARNESS_CHECK(k >= 1, 0,
		      "no switch out in state %llu (linux_state %#x) among the %d seen",
		      (unsigned long long)state, ls, o->n);
}

/*
 * A child stops itself: SUSPENDED with TASK_STOPPED. Then, continued, it
 * exits and its parent does not reap it until the trace is over: DYING
 * with TASK_DEAD (its exit_state is EXIT_ZOMBIE when it leaves the CPU
 * for the last time).
 */
TEST(stopped_then_zombie_child_switches_out_suspended_then_dying)
{
	static struct outs o;
	struct rings rs;
	siginfo_t si;
	int fd = state_session(&rs, &o), status, i;
	pid_t pid = fork();

	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	o.tid = (__u64)pid;
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	drain_until(&rs, &o, FXT_THREAD_STATE_SUSPENDED);
	ASSERT_EQ(0, kill(pid, SIGCONT));
	/* Exited, left a zombie: WNOWAIT does not reap it. */
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(0, waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT));
	ASSERT_EQ(pid, si.si_pid);
	drain_until(&rs, &o, FXT_THREAD_STATE_DYING);
	state_session_end(fd, &rs, &o);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	expect_state(&o, FXT_THREAD_STATE_SUSPENDED, LS_TASK_STOPPED);
	expect_state(&o, FXT_THREAD_STATE_DYING, LS_TASK_DEAD);
	/* A zombie is not dead: never DEAD, and it left the CPU last. */
	EXPECT_EQ(0, outs_in_state(&o, FXT_THREAD_STATE_DEAD));
	for (i = 0; i + 1 < o.n; i++)
		EXPECT_NE(FXT_THREAD_STATE_DYING, o.ev[i].state);
}

/*
 * A child asks to be traced and stops itself: its parent, the tracer, sees
 * a signal-delivery stop, in which the child switched out SUSPENDED with
 * TASK_TRACED, never TASK_STOPPED (the tracer, not the group stop, holds
 * it). PTRACE_CONT without the signal lets it exit.
 */
TEST(traced_child_switches_out_suspended)
{
	static struct outs o;
	struct rings rs;
	int fd = state_session(&rs, &o), status;
	pid_t pid = fork();

	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		raise(SIGSTOP);
		_exit(0);
	}
	o.tid = (__u64)pid;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	drain_until(&rs, &o, FXT_THREAD_STATE_SUSPENDED);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	state_session_end(fd, &rs, &o);

	expect_state(&o, FXT_THREAD_STATE_SUSPENDED, LS_TASK_TRACED);
}

static void *exiting_thread(void *arg)
{
	*(pid_t *)arg = gettid();
	return NULL;
}

/*
 * A thread exits: exit_notify() reaps it at once (EXIT_DEAD), so its last
 * switch out is DEAD with TASK_DEAD, never DYING.
 */
TEST(exiting_thread_switches_out_dead)
{
	static struct outs o;
	static pid_t tid;
	struct rings rs;
	int fd = state_session(&rs, &o);
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, exiting_thread, &tid));
	/* The kernel clears the thread's tid word before it switches out. */
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_TRUE(tid > 0);
	o.tid = (__u64)tid;	/* set before the first drain */
	drain_until(&rs, &o, FXT_THREAD_STATE_DEAD);
	state_session_end(fd, &rs, &o);

	expect_state(&o, FXT_THREAD_STATE_DEAD, LS_TASK_DEAD);
	EXPECT_EQ(0, outs_in_state(&o, FXT_THREAD_STATE_DYING));
	EXPECT_EQ(FXT_THREAD_STATE_DEAD, o.n ? o.ev[o.n - 1].state : 0);
}

/*
 * vfork: the parent sleeps uninterruptibly until the child exits (the
 * child sleeps 100 ms first, so the parent cannot miss the sleep):
 * BLOCKED, with linux_state 0x2102, the one sleep of this test whose
 * state linux_state alone tells apart from TASK_INTERRUPTIBLE. The child
 * is a clone(CLONE_VFORK) without CLONE_VM: the parent's wait is the
 * same, and the child may call what it likes in its own copy of memory.
 */
TEST(vfork_parent_blocks_uninterruptibly)
{
	static struct outs o;
	struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };
	struct rings rs;
	int fd, status, i, d = 0;
	__u64 before, after;
	long pid;

	o.tid = (__u64)gettid();
	fd = state_session(&rs, &o);
	before = boottime_ns();
	pid = syscall(SYS_clone, CLONE_VFORK | SIGCHLD, NULL, NULL, NULL, 0);
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		nanosleep(&nap, NULL);
		_exit(0);
	}
	after = boottime_ns();
	state_session_end(fd, &rs, &o);
	ASSERT_EQ(pid, waitpid((pid_t)pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (i = 0; i < o.n; i++) {
		if (o.ev[i].ts < before || o.ev[i].ts > after)
			continue;
		if (o.ev[i].state == FXT_THREAD_STATE_BLOCKED &&
		    o.ev[i].has_ls && o.ev[i].ls == LS_VFORK_WAIT)
			d++;
	}
	printf("#   %d switches out in the vfork wait (BLOCKED, linux_state %#x)\n",
	       d, LS_VFORK_WAIT);
	EXPECT_LE(1, d);
}

/*
 * Name records (uapi "Names"), read from the rings themselves: the checks
 * that go through fxt-collect pass on its /proc fallback, which names
 * every task it finds there, so a module that wrote no process record,
 * or a late or unmarked thread record, would pass them.
 *
 * NAMED_KIDS children rename themselves with prctl(PR_SET_NAME, "prc-NNN")
 * and exit; NAMED_KIDS more execve() a symlink named exe-NNN to /bin/true
 * (the guest's busybox, or coreutils': argv[0] "true" makes busybox run
 * its true applet). exec names the task after the file's base name
 * (begin_new_exec() in 6.1 and 6.12: __set_task_comm(kbasename())), so
 * its comm becomes exe-NNN. Two more: one renames itself to the empty
 * name (uapi: a name of 0 words), one execs a symlink whose name is
 * longer than a comm, exe-a-name-longer-than-a-comm, whose records must
 * name it exe-a-name-long (the first 15 bytes: TASK_COMM_LEN - 1). For
 * each child, in the rings of one session
 * (sized so nothing drops; that is asserted):
 *   - sched_wakeup_new, in the parent: a process record of its pid, and
 *     a thread record of its tid = pid with process = pid and new_task =
 *     1, both named the parent's comm (copied at fork), and right after
 *     the thread record, in the same ring, the wakeup of that tid: no
 *     interrupt comes between, wake_up_new_task() holds pi_lock with
 *     interrupts off; the module writes the names, then the wakeup;
 *   - no switch or wakeup of that tid, on any CPU, earlier than that
 *     wakeup (the thread begins at its new_task record);
 *   - exactly one thread record of it with new_task;
 *   - the rename: a process record and a thread record (process = pid,
 *     no new_task) named prc-NNN: the child leads its thread group;
 *   - the exec: a process record and a thread record named exe-NNN, and
 *     two process records of that name: exec's __set_task_comm() fires
 *     task_rename (6.1 and 6.12 do), then sched_process_exec writes them
 *     again (kmod/fxtrace_names.c keeps both on purpose). A child's
 *     records never carry another name than those.
 * Catches a module that writes no process record (at fork, rename or
 * exec), that names a new task after the wakeup or leaves new_task out,
 * that writes the names into another ring than the wakeup's or lets a
 * switch of the task come first, that misses sched_process_exec (then an
 * exec has one process record of its name, from task_rename), that
 * names a child by anything but its comm, or that writes the empty name
 * or a long one otherwise than the uapi says (krec_classify() refuses a
 * name longer than 15 bytes).
 */
#define NAMED_KIDS	20
#define NAMES_RING	(16 << 20)	/* per CPU; nothing is drained before STOP */
#define NAME_LEN	16		/* TASK_COMM_LEN */
#define ODD_KIDS	2		/* the empty name, the long exec name */
#define ALL_KIDS	(2 * NAMED_KIDS + ODD_KIDS)
#define LONG_EXE	"exe-a-name-longer-than-a-comm"

struct named_kid {
	pid_t pid;
	char name[NAME_LEN];	/* prc-NNN, exe-NNN, "" or LONG_EXE's first 15 */
	int execs;		/* an exec child, else a rename one */
	int fork_processes;	/* process records named the parent's comm */
	int named_processes;	/* process records named name */
	int named_threads;	/* thread records named name, process = pid */
	int new_tasks;		/* thread records with new_task */
	int new_task_right;	/* ... named the parent's comm, process = pid */
	int new_task_woken;	/* ... right before its wakeup in the ring */
	int bad;		/* name records of it that fit none of these */
	__u64 new_wakeup_ts;	/* the wakeup after its new_task record */
	__u64 earliest_ts;	/* earliest switch or wakeup of its tid */
	int seen;		/* any switch or wakeup of its tid */
};

struct named_kids {
	struct named_kid kid[ALL_KIDS];
	char parent_comm[NAME_LEN];
	struct named_kid *pending;	/* its new_task record was the last */
	int pending_cpu;		/* record walked, in this CPU's ring */
};

static struct named_kid *named_kid(struct named_kids *k, __u64 tid)
{
	int i;

	for (i = 0; i < ALL_KIDS; i++)
		if ((__u64)k->kid[i].pid == tid)
			return &k->kid[i];
	return NULL;
}

static void kid_saw(struct named_kids *k, __u64 tid, __u64 ts)
{
	struct named_kid *kid = named_kid(k, tid);

	if (!kid)
		return;
	if (!kid->seen || ts < kid->earliest_ts)
		kid->earliest_ts = ts;
	kid->seen = 1;
}

static void names_see_switch(void *ctx, int cpu, const struct krec_switch *sw,
			     __u64 ts, __s32 outgoing_weight)
{
	(void)cpu;
	(void)outgoing_weight;
	kid_saw(ctx, sw->outgoing_tid, ts);
	kid_saw(ctx, sw->incoming_tid, ts);
}

static void names_see_wakeup(void *ctx, int cpu, __u64 tid, __u64 waker,
			     __u64 ts)
{
	(void)cpu;
	(void)waker;
	kid_saw(ctx, tid, ts);
}

/*
 * The name record @rec (krec_classify() checked its size and name length)
 * of a child: count it. Returns the child if it is its new_task record.
 */
static struct named_kid *see_name(struct named_kids *k, const __u64 *rec,
				  enum krec kind)
{
	unsigned int len = (rec[0] >> FXT_KOBJ_NAME_SHIFT) &
			   ~(__u64)FXT_STRING_REF_INLINE & 0xffff;
	unsigned int nw = (len + 7) / 8;
	struct named_kid *kid = named_kid(k, rec[1]);
	char name[NAME_LEN] = "";
	int argc = (rec[0] >> FXT_KOBJ_ARGC_SHIFT) & 0xf;
	int is_fork, is_own;

	if (!kid)
		return NULL;
	memcpy(name, &rec[2], len);
	is_fork = !strcmp(name, k->parent_comm);
	is_own = !strcmp(name, kid->name);
	if (kind == KREC_PROCESS) {
		kid->fork_processes += is_fork;
		kid->named_processes += is_own;
		kid->bad += !is_fork && !is_own;
		return NULL;
	}
	if (rec[2 + nw] != krec_arg_header(FXT_ARG_KOID, 2,
					   FXTRACE_STR_PROCESS) ||
	    rec[3 + nw] != (__u64)kid->pid) {
		kid->bad++;
		return NULL;
	}
	if (argc == 1) {
		kid->named_threads += is_own;
		kid->bad += !is_own;
		return NULL;
	}
	kid->new_tasks++;
	if (rec[4 + nw] == (krec_arg_word(FXT_ARG_INT32, FXTRACE_STR_NEW_TASK) |
			    1ULL << FXT_ARG_VALUE_SHIFT) && is_fork)
		kid->new_task_right++;
	return kid;
}

/*
 * Every record walked (rings_watch_records()), in ring order: counts the
 * name records, and which comes right after a child's new_task record in
 * the same ring.
 */
static void names_see_record(void *ctx, int cpu, const __u64 *rec,
			     enum krec kind)
{
	struct named_kids *k = ctx;
	struct named_kid *pending = k->pending_cpu == cpu ? k->pending : NULL;

	if (pending && kind == KREC_WAKEUP && rec[2] == (__u64)pending->pid) {
		pending->new_task_woken++;
		pending->new_wakeup_ts = rec[1];
	}
	k->pending = NULL;
	if (kind == KREC_PROCESS || kind == KREC_THREAD) {
		k->pending = see_name(k, rec, kind);
		k->pending_cpu = cpu;
	}
}

TEST(new_renamed_and_exec_children_are_named_in_the_rings)
{
	static struct named_kids k;
	char dir[] = "/tmp/fxt-names.XXXXXX", path[64], exe[64];
	char *const argv[] = { "true", NULL };
	struct fxtrace_info info;
	struct rings rs;
	int fd, i, status, failed = 0;

	if (access("/bin/true", X_OK))
		SKIP_OR_FAIL_IN_VM("no /bin/true to exec");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	for (i = 0; i < NAMED_KIDS; i++) {
		snprintf(path, sizeof(path), "%s/exe-%03d", dir, i);
		ASSERT_EQ(0, symlink("/bin/true", path));
	}
	snprintf(path, sizeof(path), "%s/%s", dir, LONG_EXE);
	ASSERT_EQ(0, symlink("/bin/true", path));
	ASSERT_EQ(0, prctl(PR_GET_NAME, k.parent_comm));

	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, NAMES_RING, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, names_see_switch, names_see_wakeup, &k);
	rings_watch_records(&rs, names_see_record);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	for (i = 0; i < ALL_KIDS; i++) {
		struct named_kid *kid = &k.kid[i];

		kid->execs = i >= NAMED_KIDS && i != 2 * NAMED_KIDS;
		if (i == 2 * NAMED_KIDS)
			kid->name[0] = '\0';
		else if (i == 2 * NAMED_KIDS + 1)
			snprintf(kid->name, sizeof(kid->name), "%.15s", LONG_EXE);
		else
			snprintf(kid->name, sizeof(kid->name), "%s-%03d",
				 kid->execs ? "exe" : "prc", i % NAMED_KIDS);
		snprintf(exe, sizeof(exe), "%s/%s", dir,
			 i == 2 * NAMED_KIDS + 1 ? LONG_EXE : kid->name);
		kid->pid = fork();
		ASSERT_TRUE(kid->pid >= 0);
		if (kid->pid == 0) {
			if (kid->execs) {
				execve(exe, argv, environ);
				_exit(127);
			}
			_exit(prctl(PR_SET_NAME, kid->name) ? 1 : 0);
		}
	}
	for (i = 0; i < ALL_KIDS; i++) {
		ASSERT_EQ(k.kid[i].pid, waitpid(k.kid[i].pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);
	/* A dropped record could be any of those the test looks for. */
	ASSERT_EQ(0, rings_check_counters(&rs));

	for (i = 0; i < ALL_KIDS; i++) {
		struct named_kid *kid = &k.kid[i];
		int ok = kid->fork_processes == 1 &&
			 kid->named_processes >= (kid->execs ? 2 : 1) &&
			 kid->named_threads >= 1 && kid->new_tasks == 1 &&
			 kid->new_task_right == 1 &&
			 kid->new_task_woken == 1 && !kid->bad && kid->seen &&
			 kid->earliest_ts == kid->new_wakeup_ts;

		if (ok && i != 0 && i != NAMED_KIDS && i < 2 * NAMED_KIDS)
			continue;
		failed += !ok;
		printf("#   %s pid %d: %d process records named %s, %d named '%s'; %d thread records named '%s'; %d new_task records (%d of them named %s, process %d, new_task 1), %d followed by its wakeup (at %llu); earliest switch or wakeup at %llu; %d other name records\n",
		       ok ? "e.g." : "wrong:", (int)kid->pid,
		       kid->fork_processes, k.parent_comm,
		       kid->named_processes, kid->name, kid->named_threads,
		       kid->name, kid->new_tasks, kid->new_task_right,
		       k.parent_comm, (int)kid->pid, kid->new_task_woken,
		       (unsigned long long)kid->new_wakeup_ts,
		       (unsigned long long)kid->earliest_ts, kid->bad);
	}
	EXPECT_EQ(0, failed);
	rings_unmap(&rs);
	close(fd);
	for (i = 0; i < NAMED_KIDS; i++) {
		snprintf(path, sizeof(path), "%s/exe-%03d", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, LONG_EXE);
	unlink(path);
	rmdir(dir);
	expect_no_live_allocations();
}

TEST_MAIN()
