// SPDX-License-Identifier: GPL-2.0
/*
 * suspend_test - a session traced across a system suspend (ACPI S3, woken
 * by the RTC's alarm)
 *
 * The records' clock is CLOCK_BOOTTIME (uapi "Clock"), which goes on
 * counting while the system sleeps. Until a system has slept, it and
 * CLOCK_MONOTONIC are the same clock, and sched_clock() keeps step with
 * both, so no other test can tell a module that stamps its records with
 * one of those from one that stamps them with CLOCK_BOOTTIME: a reader
 * would see every record after a laptop's first suspend placed as long
 * before its real time as the laptop slept. After a suspend of a few
 * seconds the clocks differ by that long, and a record of something that
 * happened between two CLOCK_BOOTTIME reads must carry a timestamp between
 * them. This test sleeps a moment in such a window before the suspend
 * (the method works), right after it, and then on each online CPU in turn.
 *
 * The suspend also takes every CPU but the first offline and brings them
 * back, with the session open, its rings mapped and tracing on: the last
 * windows check that each CPU writes again, in its own ring, on the right
 * clock, and the counters that nothing was lost on the way.
 *
 * Skips, failing in the test VM (FXTRACE_VM=1, whose QEMU machine and
 * kernels have both), without S3 ("mem" in /sys/power/state) or an RTC
 * alarm (/sys/class/rtc/rtc0/wakealarm); and if the suspend added less
 * than a second to CLOCK_BOOTTIME, as when the kernel cannot tell how long
 * it slept: then nothing tells the clocks apart. The guest must then be
 * ended by a reset: QEMU ignores an ACPI power-off after an S3 resume
 * (scripts/vm-run.sh).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>

#include "cpu_pin.h"
#include "ring_check.h"

#define POWER_STATE	"/sys/power/state"
#define RTC_WAKEALARM	"/sys/class/rtc/rtc0/wakealarm"
/*
 * The alarm counts the RTC's whole seconds from when it is set, and the
 * suspend itself takes part of them: 1.5 and 2.4 s were slept (Debian 6.1
 * and 6.12). A record stamped with CLOCK_MONOTONIC would be that much
 * early, far outside a window of a 2 ms nap (2-40 ms here); the test
 * requires half a second.
 */
#define ALARM_S		"+3"
#define MIN_SLEPT_NS	500000000ULL
#define MAX_CPUS	64
#define NAP_NS		(2 * 1000 * 1000)

/* A window of CLOCK_BOOTTIME in which our thread slept on one CPU. */
struct window {
	const char *what;
	__u64 from, to;		/* (from, to) */
	int cpu;		/* the CPU it slept on, -1 for any */
	int outs;		/* our switches out inside it, on that CPU */
	int elsewhere;		/* ... on another CPU */
};

struct suspend_watch {
	__u64 tid;
	struct window win[2 + MAX_CPUS];
	int nwin;
	__u64 latest;		/* the latest timestamp of any record */
	int latest_cpu;
};

static void see_switch(void *ctx, int cpu, const struct krec_switch *sw,
		       __u64 ts, __s32 outgoing_weight)
{
	struct suspend_watch *w = ctx;
	int i;

	(void)outgoing_weight;
	if (ts > w->latest) {
		w->latest = ts;
		w->latest_cpu = cpu;
	}
	if (sw->outgoing_tid != w->tid)
		return;
	for (i = 0; i < w->nwin; i++) {
		struct window *win = &w->win[i];

		if (ts <= win->from || ts >= win->to)
			continue;
		if (win->cpu < 0 || win->cpu == cpu)
			win->outs++;
		else
			win->elsewhere++;
	}
}

static void see_wakeup(void *ctx, int cpu, __u64 tid, __u64 waker, __u64 ts)
{
	struct suspend_watch *w = ctx;

	(void)tid;
	(void)waker;
	if (ts > w->latest) {
		w->latest = ts;
		w->latest_cpu = cpu;
	}
}

/* Sleep NAP_NS inside a new window: our switch out must fall in it. */
static void nap_in_window(struct suspend_watch *w, const char *what, int cpu)
{
	struct timespec nap = { .tv_nsec = NAP_NS };
	struct window *win = &w->win[w->nwin++];

	win->what = what;
	win->cpu = cpu;
	win->from = boottime_ns();
	nanosleep(&nap, NULL);
	win->to = boottime_ns();
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &ts));
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Write @s to the sysfs file @path: 0, or an errno. */
static int write_sysfs(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* 1 if the sleep states in POWER_STATE include "mem". */
static int can_suspend_to_ram(void)
{
	char states[128] = "";
	FILE *f = fopen(POWER_STATE, "re");
	char *tok, *save;

	if (!f)
		return 0;
	if (!fgets(states, sizeof(states), f))
		states[0] = '\0';
	fclose(f);
	for (tok = strtok_r(states, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, "mem"))
			return 1;
	return 0;
}

/* The CLOCK_BOOTTIME - CLOCK_MONOTONIC offset: the time slept so far. */
static __u64 slept_so_far_ns(void)
{
	__u64 mono = monotonic_ns(), boot = boottime_ns();

	return boot - mono;
}

static void print_window(const struct window *win)
{
	if (win->cpu < 0)
		printf("#   %s (%llu..%llu ns): %d of our switches out\n",
		       win->what, (unsigned long long)win->from,
		       (unsigned long long)win->to, win->outs);
	else
		printf("#   %s to cpu %d (%llu..%llu ns): %d of our switches out on it, %d on another CPU\n",
		       win->what, win->cpu, (unsigned long long)win->from,
		       (unsigned long long)win->to, win->outs, win->elsewhere);
}

TEST(records_keep_boottime_across_a_suspend)
{
	static struct suspend_watch w;
	int cpus[MAX_CPUS], ncpus, fd, i, err;
	__u64 slept_before, slept_ns, end;
	struct fxtrace_info info;
	cpu_set_t allowed;
	struct rings rs;

	require_device();
	if (!can_suspend_to_ram())
		SKIP_OR_FAIL_IN_VM("%s has no \"mem\": this system cannot suspend to RAM",
				   POWER_STATE);
	if (access(RTC_WAKEALARM, W_OK))
		SKIP_OR_FAIL_IN_VM("%s: %s (no RTC alarm to wake the system)",
				   RTC_WAKEALARM, strerror(errno));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(allowed), &allowed));
	ncpus = allowed_cpus(cpus, MAX_CPUS);
	ASSERT_LE(1, ncpus);

	w.tid = (__u64)gettid();
	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, 1 << 20, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	rings_watch(&rs, see_switch, see_wakeup, &w);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));

	nap_in_window(&w, "before the suspend", -1);
	rings_drain(&rs);
	slept_before = slept_so_far_ns();
	/* A new alarm is refused (EBUSY) while an old one is set. */
	ASSERT_EQ(0, write_sysfs(RTC_WAKEALARM, "0"));
	ASSERT_EQ(0, write_sysfs(RTC_WAKEALARM, ALARM_S));
	/* Returns once the system is back. */
	err = write_sysfs(POWER_STATE, "mem");
	if (err) {
		ioctl(fd, FXTRACE_IOC_STOP);
		SKIP_OR_FAIL_IN_VM("suspend to RAM: %s", strerror(err));
	}
	slept_ns = slept_so_far_ns() - slept_before;
	printf("#   the suspend added %llu ms to CLOCK_BOOTTIME over CLOCK_MONOTONIC\n",
	       (unsigned long long)(slept_ns / 1000000));
	if (slept_ns < MIN_SLEPT_NS) {
		ioctl(fd, FXTRACE_IOC_STOP);
		SKIP_OR_FAIL_IN_VM("the suspend added only %llu ms to CLOCK_BOOTTIME: too little to tell it from CLOCK_MONOTONIC",
				   (unsigned long long)(slept_ns / 1000000));
	}

	nap_in_window(&w, "right after the resume", -1);
	for (i = 0; i < ncpus; i++) {
		ASSERT_EQ(0, pin_to_cpu(0, cpus[i]));
		nap_in_window(&w, "after the resume, pinned", cpus[i]);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	end = boottime_ns();
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(allowed), &allowed));
	rings_drain(&rs);

	for (i = 0; i < w.nwin; i++) {
		print_window(&w.win[i]);
		EXPECT_LE(1, w.win[i].outs);
	}
	/* A clock ahead of CLOCK_BOOTTIME (CLOCK_REALTIME, say) fails here. */
	printf("#   latest record: cpu %d at %llu ns; STOP returned by %llu\n",
	       w.latest_cpu, (unsigned long long)w.latest,
	       (unsigned long long)end);
	EXPECT_LE(w.latest, end);
	EXPECT_EQ(0, rings_check_counters(&rs));
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
}

TEST_MAIN()
