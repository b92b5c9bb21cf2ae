// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle_test - a session started and stopped 1000 times, and a few
 * hundred sessions opened and closed: the state GET_INFO reports follows
 * every step, the ring counters stay consistent across all the START/STOP
 * pairs, and the module's live allocations never outlive the session.
 *
 * Each START attaches six tracepoint probes (kernel text patching) and each
 * STOP detaches them and waits for an RCU grace period; under QEMU TCG that
 * is slow, so the time per cycle is measured and printed.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "ring_check.h"

#define START_STOP_CYCLES	1000
#define OPEN_CLOSE_CYCLES	300

static __u32 dev_state(int fd)
{
	return dev_info(fd).state;
}

TEST(start_stop_1000_times)
{
	int fd = dev_open(), i;
	struct fxtrace_info info;
	__u64 written_before, written;
	struct rings rs;
	double t0, dt;

	ASSERT_EQ(FXTRACE_STATE_EMPTY, dev_state(fd));
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	ASSERT_EQ(FXTRACE_STATE_READY, info.state);
	rings_map(fd, &info, &rs);

	t0 = now_s();
	for (i = 0; i < START_STOP_CYCLES; i++) {
		written_before = rings_sum(&rs, offsetof(struct fxtrace_ctrl,
							 records_written));
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
		rings_restart(&rs);	/* all drained after the last STOP */
		ASSERT_EQ(FXTRACE_STATE_TRACING, dev_state(fd));
		sched_yield();	/* a switch, if anything else is runnable */
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
		ASSERT_EQ(FXTRACE_STATE_READY, dev_state(fd));
		/* Stopped: the counters do not move until the next START. */
		written = rings_sum(&rs, offsetof(struct fxtrace_ctrl,
						  records_written));
		ASSERT_LE(written_before, written);
		rings_drain(&rs);
		ASSERT_EQ(written, rings_sum(&rs, offsetof(struct fxtrace_ctrl,
							   records_written)));
	}
	dt = now_s() - t0;
	printf("#   %d START/STOP cycles in %.2f s (%.2f ms per cycle)\n",
	       START_STOP_CYCLES, dt, dt * 1000 / START_STOP_CYCLES);

	/* The STOP above committed everything; the cycles wrote something. */
	rings_check_counters(&rs);
	EXPECT_NE(0, rings_sum(&rs, offsetof(struct fxtrace_ctrl,
					     records_written)));
	rings_unmap(&rs);
	close(fd);
	expect_no_live_allocations();
}

/*
 * Sessions in every state at close: empty, configured, mapped and unmapped,
 * started and stopped, and closed while tracing.
 */
TEST(open_close_300_times)
{
	struct fxtrace_info info;
	double t0, dt;
	int i, fd;

	t0 = now_s();
	for (i = 0; i < OPEN_CLOSE_CYCLES; i++) {
		fd = dev_open();
		ASSERT_EQ(FXTRACE_STATE_EMPTY, dev_state(fd));
		if (i % 4 >= 1) {
			ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
			ASSERT_EQ(FXTRACE_STATE_READY, dev_state(fd));
		}
		if (i % 4 == 2) {
			struct fxtrace_ctrl *ctrl;

			info = dev_info(fd);
			ctrl = map_ctrl(fd, &info, 0);
			EXPECT_EQ(FXTRACE_BUF_SIZE_MIN, ctrl->buf_size);
			ASSERT_EQ(0, munmap(ctrl, info.ctrl_size));
			ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
			ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
			ASSERT_EQ(FXTRACE_STATE_READY, dev_state(fd));
		}
		if (i % 4 == 3) {
			ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
			ASSERT_EQ(FXTRACE_STATE_TRACING, dev_state(fd));
		}
		close(fd);	/* release() stops tracing and frees */
		if (live_allocations() > 0) {
			printf("#   after cycle %d (closed in state %d):\n", i,
			       i % 4 == 3 ? FXTRACE_STATE_TRACING :
			       i % 4 ? FXTRACE_STATE_READY : FXTRACE_STATE_EMPTY);
			expect_no_live_allocations();
			break;
		}
	}
	dt = now_s() - t0;
	printf("#   %d open/close cycles in %.2f s\n", i, dt);
	expect_no_live_allocations();
}

TEST_MAIN()
