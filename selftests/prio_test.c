// SPDX-License-Identifier: GPL-2.0
/*
 * prio_test - a context switch's outgoing_weight, written or left out,
 * always gives the priority the task had when it switched out
 *
 * The kernel leaves outgoing_weight out when the CPU's last switch brought
 * the task in with that weight (uapi "Records"), so a reader takes it from
 * there. That is only right if the kernel notices a priority that changed
 * while the task ran. This test changes its own nice value while running,
 * then sleeps, 40 times: every other time to a new value (the switch out
 * must say the new weight), every other time to the same (the weight can
 * be left out). ring_check.h follows each CPU's chain of switches and
 * checks the rules themselves; here each of our switches out is compared
 * with the nice value we had set by then (timestamps from CLOCK_BOOTTIME,
 * the records' clock).
 *
 * Then real-time priorities and priority inheritance: the weight is
 * p->prio there too.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <time.h>

#include "cpu_pin.h"
#include "ring_check.h"

#define SLEEPS		40
#define PRIO_NICE_0	120	/* the kernel's prio of a nice 0 task */

struct prio_watch {
	__u64 tid;
	__u64 set_before[SLEEPS], set_after[SLEEPS];	/* around setpriority() */
	int nice[SLEEPS];
	int checked, written, implied, wrong, ambiguous;
};

/* Our prio at @ts, or -1 if a setpriority() call was going on then. */
static int prio_at(const struct prio_watch *w, __u64 ts)
{
	int i, last = -1;

	for (i = 0; i < SLEEPS && w->set_before[i] && w->set_before[i] <= ts; i++)
		last = i;
	if (last < 0)
		return PRIO_NICE_0;
	if (ts < w->set_after[last])
		return -1;
	return PRIO_NICE_0 + w->nice[last];
}

static void see_switch(void *ctx, int cpu, const struct krec_switch *sw,
		       __u64 ts, __s32 outgoing_weight)
{
	struct prio_watch *w = ctx;
	int want;

	if (sw->outgoing_tid != w->tid)
		return;
	want = prio_at(w, ts);
	if (want < 0) {
		w->ambiguous++;
		return;
	}
	w->checked++;
	if (sw->has_outgoing_weight)
		w->written++;
	else
		w->implied++;
	if (outgoing_weight != want) {
		w->wrong++;
		printf("#   cpu %d at %llu: switched out with weight %d (%s), but our prio was %d\n",
		       cpu, (unsigned long long)ts, outgoing_weight,
		       sw->has_outgoing_weight ? "written" : "from the last switch",
		       want);
	}
}

TEST(outgoing_weight_follows_a_priority_change)
{
	static struct prio_watch w;
	struct timespec nap = { .tv_nsec = 2 * 1000 * 1000 };
	int fd = dev_open(), i;
	struct fxtrace_info info;
	struct rings rs;

	w.tid = (__u64)gettid();
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, 0, 0));
	ASSERT_EQ(0, dev_configure(fd, 1 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, see_switch, NULL, &w);

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	for (i = 0; i < SLEEPS; i++) {
		/* 0 0 5 5 10 10 0 0 ...: a change, then the same value again. */
		w.nice[i] = (i / 2 % 3) * 5;
		w.set_before[i] = boottime_ns();
		ASSERT_EQ(0, setpriority(PRIO_PROCESS, 0, w.nice[i]));
		w.set_after[i] = boottime_ns();
		nanosleep(&nap, NULL);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, 0, 0));

	printf("#   %d switches out checked: %d with outgoing_weight, %d from the CPU's last switch; %d wrong, %d during setpriority()\n",
	       w.checked, w.written, w.implied, w.wrong, w.ambiguous);
	EXPECT_EQ(0, w.wrong);
	/* Each nanosleep() switches us out, unless records were lost. */
	EXPECT_GE(w.checked, SLEEPS);
	/* Both kinds: after a change written, after none left out. */
	EXPECT_GE(w.written, SLEEPS / 4);
	EXPECT_GE(w.implied, SLEEPS / 4);
	EXPECT_EQ(0, rings_check_counters(&rs));
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
}

/*
 * The weight is p->prio for real-time tasks too, and follows priority
 * inheritance (uapi "Records": incoming_weight = next->prio,
 * outgoing_weight = prev->prio, written again "when prev->prio changed
 * while it ran (renice, priority inheritance)"). Linux's prio of a
 * SCHED_FIFO task of priority p is MAX_RT_PRIO - 1 - p: 89 for 10.
 */
#define RT_PRIO		10
#define PRIO_FIFO_10	(99 - RT_PRIO)
#define RT_SLEEPS	20
#define PI_SLEEPS	10
#define PI_MAX_WAIT_S	30

/* A tid's switches inside a window of CLOCK_BOOTTIME, against one weight. */
struct window {
	__u64 from, to;		/* (from, to) */
	int want;
	int outs, ins, written, wrong;
};

struct rt_watch {
	__u64 tid;
	struct window win[2];
	int nwin;
};

static void see_rt_switch(void *ctx, int cpu, const struct krec_switch *sw,
			  __u64 ts, __s32 outgoing_weight)
{
	struct rt_watch *w = ctx;
	struct window *win;
	int i;

	for (i = 0; i < w->nwin; i++) {
		win = &w->win[i];
		if (ts <= win->from || ts >= win->to)
			continue;
		if (sw->outgoing_tid == w->tid) {
			win->outs++;
			win->written += sw->has_outgoing_weight;
			if (outgoing_weight != win->want && win->wrong++ < 5)
				printf("#   cpu %d at %llu: tid %llu switched out with weight %d (%s), but its prio was %d\n",
				       cpu, (unsigned long long)ts,
				       (unsigned long long)w->tid,
				       outgoing_weight,
				       sw->has_outgoing_weight ? "written" :
				       "from the last switch", win->want);
		}
		if (sw->incoming_tid == w->tid) {
			win->ins++;
			if (sw->incoming_weight != win->want && win->wrong++ < 5)
				printf("#   cpu %d at %llu: tid %llu switched in with weight %d, but its prio was %d\n",
				       cpu, (unsigned long long)ts,
				       (unsigned long long)w->tid,
				       sw->incoming_weight, win->want);
		}
	}
}

static void print_window(const char *what, const struct window *win)
{
	printf("#   %s: %d switches out (%d with outgoing_weight), %d in; %d not weight %d\n",
	       what, win->outs, win->written, win->ins, win->wrong, win->want);
}

/*
 * A SCHED_FIFO 10 task sleeps RT_SLEEPS times: every switch out and in
 * says 89. Catches a module that writes static_prio or normal_prio's CFS
 * counterpart (120 for a nice 0 task made real-time), rt_priority (10),
 * or the load weight.
 */
TEST(rt_task_weight_is_its_prio)
{
	static struct rt_watch w;
	struct sched_param rt = { .sched_priority = RT_PRIO }, other = { 0 };
	struct timespec nap = { .tv_nsec = 2 * 1000 * 1000 };
	int fd = dev_open(), i;
	struct fxtrace_info info;
	struct rings rs;

	w.tid = (__u64)gettid();
	w.nwin = 1;
	w.win[0].want = PRIO_FIFO_10;
	ASSERT_EQ(0, dev_configure(fd, 4 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, see_rt_switch, NULL, &w);

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &rt));
	w.win[0].from = boottime_ns();
	for (i = 0; i < RT_SLEEPS; i++)
		nanosleep(&nap, NULL);
	w.win[0].to = boottime_ns();
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_OTHER, &other));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);

	print_window("SCHED_FIFO 10", &w.win[0]);
	EXPECT_EQ(0, w.win[0].wrong);
	/* Each nanosleep() switches it out and back in. */
	EXPECT_GE(w.win[0].outs, RT_SLEEPS);
	EXPECT_GE(w.win[0].ins, RT_SLEEPS);
	EXPECT_EQ(0, rings_check_counters(&rs));
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
}

struct pi_shared {
	pthread_mutex_t m;
	sem_t go;
	int cpu;
};

static struct pi_shared pi;

/* The SCHED_FIFO 10 thread: block on the mutex the other one holds. */
static void *pi_waiter(void *arg)
{
	(void)arg;
	if (pin_to_cpu(0, pi.cpu))
		return (void *)1;
	while (sem_wait(&pi.go) && errno == EINTR)
		;
	if (pthread_mutex_lock(&pi.m))
		return (void *)2;
	pthread_mutex_unlock(&pi.m);
	return NULL;
}

/* Our prio as /proc shows it (task_prio(): prio - MAX_RT_PRIO). */
static int proc_prio(void)
{
	char buf[1024], *p;
	int i, prio = 0;
	ssize_t n;
	int fd = open("/proc/thread-self/stat", O_RDONLY);

	ASSERT_TRUE(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_TRUE(n > 0);
	buf[n] = 0;
	p = strrchr(buf, ')');
	ASSERT_TRUE(p != NULL);
	/* Field 18, "priority": the 16th after the name. */
	for (i = 0; i < 16 && p; i++)
		p = strchr(p + 1, ' ');
	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(1, sscanf(p, "%d", &prio));
	return prio + 100;
}

/*
 * A nice 0 task holds a PTHREAD_PRIO_INHERIT mutex that a SCHED_FIFO 10
 * thread on the other CPU blocks on: it is boosted to 89 while it runs,
 * so the first switch out after that must write outgoing_weight again;
 * it then sleeps PI_SLEEPS times boosted (89), releases the mutex and
 * sleeps as many times more (120). Catches a module that writes
 * normal_prio or static_prio (120 while boosted), and one that leaves
 * outgoing_weight out after the boost because the task came in with
 * another weight (the reader would take 120).
 */
TEST(priority_inheritance_shows_in_the_weight)
{
	static struct rt_watch w;
	struct timespec nap = { .tv_nsec = 2 * 1000 * 1000 };
	struct sched_param rt = { .sched_priority = RT_PRIO };
	int fd, i, n, cpus[2], prio = 0;
	pthread_mutexattr_t ma;
	struct fxtrace_info info;
	pthread_attr_t ta;
	struct rings rs;
	pthread_t h;
	void *ret;
	double end;

	n = allowed_cpus(cpus, 2);
	ASSERT_LE(0, n);
	if (n < 2)
		SKIP_OR_FAIL_IN_VM("%d CPU(s) allowed: this test needs two (the test VM has two)", n);
	ASSERT_EQ(0, setpriority(PRIO_PROCESS, 0, 0));
	ASSERT_EQ(0, pin_to_cpu(0, cpus[0]));
	pi.cpu = cpus[1];
	w.tid = (__u64)gettid();
	w.nwin = 2;
	w.win[0].want = PRIO_FIFO_10;
	w.win[1].want = PRIO_NICE_0;
	ASSERT_EQ(0, pthread_mutexattr_init(&ma));
	ASSERT_EQ(0, pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT));
	ASSERT_EQ(0, pthread_mutex_init(&pi.m, &ma));
	ASSERT_EQ(0, sem_init(&pi.go, 0, 0));
	ASSERT_EQ(0, pthread_attr_init(&ta));
	ASSERT_EQ(0, pthread_attr_setinheritsched(&ta, PTHREAD_EXPLICIT_SCHED));
	ASSERT_EQ(0, pthread_attr_setschedpolicy(&ta, SCHED_FIFO));
	ASSERT_EQ(0, pthread_attr_setschedparam(&ta, &rt));

	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, 4 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, see_rt_switch, NULL, &w);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));

	ASSERT_EQ(0, pthread_mutex_lock(&pi.m));
	ASSERT_EQ(0, pthread_create(&h, &ta, pi_waiter, NULL));
	ASSERT_EQ(PRIO_NICE_0, proc_prio());
	sem_post(&pi.go);
	/* Running, until the waiter's block has boosted us. */
	end = now_s() + PI_MAX_WAIT_S;
	while ((prio = proc_prio()) != PRIO_FIFO_10 && now_s() < end)
		;
	ASSERT_EQ(PRIO_FIFO_10, prio);
	w.win[0].from = boottime_ns();
	for (i = 0; i < PI_SLEEPS; i++)
		nanosleep(&nap, NULL);
	w.win[0].to = boottime_ns();
	ASSERT_EQ(0, pthread_mutex_unlock(&pi.m));
	w.win[1].from = boottime_ns();
	ASSERT_EQ(PRIO_NICE_0, proc_prio());
	for (i = 0; i < PI_SLEEPS; i++)
		nanosleep(&nap, NULL);
	w.win[1].to = boottime_ns();
	ASSERT_EQ(0, pthread_join(h, &ret));
	ASSERT_TRUE(ret == NULL);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);

	print_window("boosted by the SCHED_FIFO 10 waiter", &w.win[0]);
	print_window("after the release", &w.win[1]);
	EXPECT_EQ(0, w.win[0].wrong);
	EXPECT_EQ(0, w.win[1].wrong);
	EXPECT_GE(w.win[0].outs, PI_SLEEPS);
	EXPECT_GE(w.win[1].outs, PI_SLEEPS);
	EXPECT_EQ(0, rings_check_counters(&rs));
	rings_unmap(&rs);
	close(fd);
	pthread_mutex_destroy(&pi.m);
	expect_no_live_allocations();
}

TEST_MAIN()
