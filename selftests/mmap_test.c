// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_test - the ring mappings: layout, permissions, bounds, and records
 * flowing through the protocol of uapi/linux/fxtrace.h (barriers (A)-(D)).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <sys/wait.h>

#include "fxtrace_dev.h"
#include "kernel_records.h"

/* (C): pairs with the kernel's store-release (A). */
static __u64 load_producer(struct fxtrace_ctrl *ctrl)
{
	return __atomic_load_n(&ctrl->producer_pos, __ATOMIC_ACQUIRE);
}

/* (D): pairs with the kernel's load-acquire (B). */
static void store_consumer(struct fxtrace_ctrl *ctrl, __u64 pos)
{
	__atomic_store_n(&ctrl->consumer_pos, pos, __ATOMIC_RELEASE);
}

/* Cause context switches and wakeups on every CPU for about @ms. */
static void make_scheduler_noise(int ms)
{
	int i, fds[2];
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		close(fds[1]);	/* else the reader never sees EOF */
		while (read(fds[0], &c, 1) == 1)
			;
		_exit(0);
	}
	for (i = 0; i < ms; i++) {
		ASSERT_EQ(1, write(fds[1], &c, 1));
		usleep(1000);
	}
	close(fds[1]);
	close(fds[0]);
	waitpid(pid, NULL, 0);
}

static __u64 word_at(const unsigned char *data, __u64 size, __u64 pos)
{
	return *(const __u64 *)(data + (pos & (size - 1)));
}

TEST(ctrl_page_describes_its_ring)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, 0);

	EXPECT_EQ(FXTRACE_CTRL_VERSION, ctrl->version);
	EXPECT_EQ(sizeof(*ctrl), ctrl->size);
	EXPECT_EQ(0, ctrl->cpu);
	EXPECT_EQ(info.buf_size, ctrl->buf_size);
	EXPECT_EQ(0, ctrl->producer_pos);
	EXPECT_EQ(0, ctrl->consumer_pos);
	EXPECT_EQ(0, ctrl->records_written);
	EXPECT_EQ(0, ctrl->records_dropped);
	close(fd);
}

TEST(data_is_zeroed_before_tracing)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	const unsigned char *data;
	__u64 i, nonzero = 0;

	data = map_data(fd, &info, 0);
	for (i = 0; i < info.buf_size; i++)
		nonzero += data[i] != 0;
	EXPECT_EQ(0, nonzero);
	close(fd);
}

TEST(data_mapped_writable_is_eperm)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	ASSERT_ERRNO(EPERM, (long)mmap(NULL, info.buf_size,
				       PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				       (off_t)data_offset(&info, 0)));
	close(fd);
}

TEST(data_mprotect_to_writable_is_eacces)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	void *data = (void *)map_data(fd, &info, 0);

	ASSERT_ERRNO(EACCES, mprotect(data, info.buf_size,
				      PROT_READ | PROT_WRITE));
	close(fd);
}

TEST(private_mapping_is_einval)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	ASSERT_ERRNO(EINVAL, (long)mmap(NULL, info.ctrl_size, PROT_READ,
				       MAP_PRIVATE, fd,
				       (off_t)ctrl_offset(&info, 0)));
	close(fd);
}

TEST(data_past_ring_end_is_einval)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	/* One page too long, and one page starting at the end. */
	ASSERT_ERRNO(EINVAL, (long)mmap(NULL, info.buf_size + info.page_size,
				       PROT_READ, MAP_SHARED, fd,
				       (off_t)data_offset(&info, 0)));
	ASSERT_ERRNO(EINVAL, (long)mmap(NULL, info.page_size, PROT_READ,
				       MAP_SHARED, fd,
				       (off_t)(data_offset(&info, 0) +
					       info.buf_size)));
	close(fd);
}

TEST(ctrl_longer_than_a_page_is_einval)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	ASSERT_ERRNO(EINVAL, (long)mmap(NULL, 2 * info.ctrl_size, PROT_READ,
				       MAP_SHARED, fd,
				       (off_t)ctrl_offset(&info, 0)));
	close(fd);
}

TEST(cpu_out_of_range_is_einval)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	ASSERT_ERRNO(EINVAL, (long)mmap(NULL, info.ctrl_size, PROT_READ,
				       MAP_SHARED, fd,
				       (off_t)ctrl_offset(&info,
							  info.nr_cpu_ids)));
	close(fd);
}

/* Records appear between consumer and producer, whole and well formed. */
TEST(records_flow_through_every_cpu)
{
	int fd = dev_open(), cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct fxtrace_info info = dev_info(fd);
	__u64 total = 0;

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(200);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));

	for (cpu = 0; cpu < ncpus; cpu++) {
		struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, cpu);
		const unsigned char *data = map_data(fd, &info, cpu);
		__u64 head = load_producer(ctrl), pos = ctrl->consumer_pos;
		__u64 n = 0;

		EXPECT_EQ(ctrl->tracepoint_hits,
			  ctrl->records_written + ctrl->records_dropped);
		EXPECT_EQ(0, ctrl->records_dropped);
		EXPECT_EQ(0, ctrl->consumer_errors);
		ASSERT_LE(head - pos, info.buf_size);
		while (pos != head) {
			__u64 hdr = word_at(data, info.buf_size, pos);
			__u64 words = krec_words(hdr);
			enum krec kind = krec_classify(hdr);

			/* Nothing was lost, so there is no loss marker. */
			ASSERT_TRUE(kind != KREC_BAD && kind != KREC_LOSS);
			ASSERT_LE(words * 8, head - pos);
			if (kind == KREC_SWITCH)
				EXPECT_EQ(cpu, (hdr >> FXT_SCHED_CPU_SHIFT) &
					       FXT_SCHED_CPU_MASK);
			pos += words * 8;
			n++;
		}
		EXPECT_EQ(ctrl->records_written, n);
		store_consumer(ctrl, head);
		total += n;
	}
	EXPECT_GE(total, 200);
	close(fd);
}

/* A full ring drops new records and counts every one of them. */
TEST(full_ring_drops_are_counted)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	ctrl = map_ctrl(fd, &info, 0);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	while (ctrl->records_dropped < 100)
		make_scheduler_noise(20);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));

	EXPECT_LE(load_producer(ctrl) - ctrl->consumer_pos, info.buf_size);
	EXPECT_GE(load_producer(ctrl), info.buf_size - 56);
	EXPECT_EQ(ctrl->tracepoint_hits,
		  ctrl->records_written + ctrl->records_dropped);
	EXPECT_NE(0, ctrl->last_drop_ns);
	close(fd);
}

/* A consumer position ahead of the producer is refused and counted. */
TEST(bogus_consumer_pos_is_counted_not_trusted)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, 0);
	cpu_set_t set;
	__u64 written;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	store_consumer(ctrl, 1ULL << 40);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	written = ctrl->records_written;
	EXPECT_EQ(0, written);
	EXPECT_GE(ctrl->consumer_errors, 1);
	EXPECT_EQ(ctrl->tracepoint_hits, ctrl->records_dropped);
	/* A sane position again: writing resumes. */
	store_consumer(ctrl, load_producer(ctrl));
	make_scheduler_noise(50);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_GE(ctrl->records_written, 1);
	close(fd);
}

TEST(poll_reports_data_at_the_watermark)
{
	int fd = dev_open();
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	pid_t pid;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 4096));
	ASSERT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		make_scheduler_noise(500);
		_exit(0);
	}
	/* Woken by the irq_work once 4 KiB are pending, well before 5 s. */
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	close(fd);
}

TEST_MAIN()
