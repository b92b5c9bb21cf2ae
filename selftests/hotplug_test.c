// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug_test - CPU 1 taken offline and back online three times while a
 * scheduler storm (fxt-stress) is traced into the smallest rings. Checks:
 *   - an offline CPU writes nothing into its ring (its tracepoint_hits do
 *     not move between "offline done" and "online");
 *   - after it comes back, its ring is written again;
 *   - afterwards, for every CPU, hits == written + dropped and every
 *     written record was drained whole (ring_check.h);
 *   - the module freed everything when the session closed.
 * Skips when there is no CPU 1 or it cannot be taken offline.
 */
#define _GNU_SOURCE
#include <time.h>

#include "ring_check.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define STRESS_SECONDS	"10"	/* outlasts the 7 s of cycles */
#define CYCLES		3
#define PHASE_MS	1000	/* time in each state */
#define DRAIN_MS	10

/* Write "0" or "1" to cpu1/online; 0 or an errno. */
static int set_cpu1_online(int online)
{
	int fd = open(CPU1_ONLINE, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, online ? "1" : "0", 1) != 1)
		err = errno;
	close(fd);
	return err;
}

/* Drain every DRAIN_MS for @ms. */
static void drain_for(struct rings *rs, int ms)
{
	struct timespec ts = { 0, DRAIN_MS * 1000000L };
	double end = now_s() + ms / 1000.0;

	while (now_s() < end) {
		nanosleep(&ts, NULL);
		rings_drain(rs);
	}
}

static struct ring *ring_of_cpu(struct rings *rs, int cpu)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].cpu == cpu)
			return &rs->r[i];
	return NULL;
}

static __u64 hits(struct ring *r)
{
	return __atomic_load_n(&r->ctrl->tracepoint_hits, __ATOMIC_RELAXED);
}

TEST(cpu1_offline_online_while_tracing)
{
	__u64 hits_offline, hits_online;
	int fd, i, err, status;
	struct fxtrace_info info;
	struct ring *r1;
	struct rings rs;
	pid_t pid, w;

	require_device();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("one CPU online: nothing to take offline");
	if (access(CPU1_ONLINE, W_OK))
		SKIP("%s: %s (kernel without CPU hotplug?)", CPU1_ONLINE,
		     strerror(errno));

	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	rings_map(fd, &info, &rs);
	r1 = ring_of_cpu(&rs, 1);
	ASSERT_TRUE(r1 != NULL);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	pid = spawn_fxt_stress(STRESS_SECONDS, "20");

	drain_for(&rs, PHASE_MS);
	for (i = 0; i < CYCLES; i++) {
		double t = now_s();

		err = set_cpu1_online(0);
		if (err && i == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			SKIP("cannot take CPU 1 offline: %s", strerror(err));
		}
		ASSERT_EQ(0, err);
		hits_offline = hits(r1);
		printf("#   cycle %d: cpu1 offline in %.0f ms\n", i,
		       (now_s() - t) * 1000);
		drain_for(&rs, PHASE_MS);
		/* Nothing runs on an offline CPU, so its probes do not fire. */
		EXPECT_EQ(hits_offline, hits(r1));
		t = now_s();
		ASSERT_EQ(0, set_cpu1_online(1));
		printf("#   cycle %d: cpu1 online in %.0f ms\n", i,
		       (now_s() - t) * 1000);
		hits_online = hits(r1);
		drain_for(&rs, PHASE_MS);
		/* Back online, it schedules (and traces) again. */
		EXPECT_LE(hits_online + 1, hits(r1));
	}

	/* Keep draining until the storm ends, as a collector would. */
	while ((w = waitpid(pid, &status, WNOHANG)) == 0)
		drain_for(&rs, 100);
	ASSERT_EQ(pid, w);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rings_check_counters(&rs);
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
}

TEST_MAIN()
