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
 */
#define _GNU_SOURCE
#include <time.h>

#include "ring_check.h"

#define STRESS_SECONDS	"20"
#define THREADS_PER_CPU	"50"
#define DRAIN_MS	10	/* drain interval while draining */
#define STALL_EVERY	50	/* every this many drains ... */
#define STALL_MS	300	/* ... stop draining this long: rings fill */

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
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
			sleep_ms(STALL_MS);
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

TEST_MAIN()
