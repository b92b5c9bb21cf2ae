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
 */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <time.h>

#include "ring_check.h"

#define SLEEPS		40
#define PRIO_NICE_0	120	/* the kernel's prio of a nice 0 task */

struct prio_watch {
	__u64 tid;
	__u64 set_before[SLEEPS], set_after[SLEEPS];	/* around setpriority() */
	int nice[SLEEPS];
	int checked, written, implied, wrong, ambiguous;
};

static __u64 boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000 + (__u64)ts.tv_nsec;
}

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

TEST_MAIN()
