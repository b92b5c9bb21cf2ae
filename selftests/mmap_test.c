// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_test - the ring mappings: layout, permissions, bounds, and records
 * flowing through the protocol of uapi/linux/fxtrace.h (barriers (A)-(D));
 * consumer positions out of range; mremap (grow refused, move and shrink
 * keep the data and the buffers busy), fork (the child shares the ring),
 * and a mapping that outlives its fd (the session lives on until munmap,
 * tracing too); what a file opened read-only or write-only can map;
 * nothing executable, READ_IMPLIES_EXEC included; MADV_DONTNEED; the
 * control page's fields the kernel writes and the ones it never reads;
 * loss markers and the room a record needs; the default watermark; the
 * buffers a second CONFIGURE gives.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cpu_pin.h"
#include "fault_inject.h"
#include "fxtrace_dev.h"
#include "kernel_records.h"
#include "ring_check.h"

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

/* Run on CPU 0 from here on: the tests that read CPU 0's ring. */
static void pin_to_cpu0(void)
{
	ASSERT_EQ(0, pin_to_cpu(0, 0));
}

/* Some records on CPU 0, then stopped: the ring's bytes no longer change. */
static void trace_some(int fd)
{
	pin_to_cpu0();
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
}

static __u64 word_at(const unsigned char *data, __u64 size, __u64 pos)
{
	return *(const __u64 *)(data + (pos & (size - 1)));
}

/*
 * The record at ring position @pos of a @size-byte data area, read in
 * place, which must end by @end: its header is one the kernel writes, and
 * it is whole before @end. Its kind in @kind; returns its size in bytes.
 */
static __u64 record_at(const unsigned char *data, __u64 size, __u64 pos,
		       __u64 end, enum krec *kind)
{
	__u64 hdr = word_at(data, size, pos);

	*kind = krec_classify(hdr);
	ASSERT_TRUE(*kind != KREC_BAD);
	ASSERT_LE(krec_words(hdr) * 8, end - pos);
	return krec_words(hdr) * 8;
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

/*
 * The uapi's reserved fields of the control page are zero, before tracing
 * and after the kernel has written its counters; so is the rest of the
 * mapped page past the struct (nothing of the kernel's leaks there).
 */
static __u64 ctrl_nonzero_reserved(const struct fxtrace_ctrl *ctrl,
				   __u64 ctrl_size)
{
	const unsigned char *page = (const unsigned char *)ctrl;
	__u64 i, nonzero = ctrl->__pad != 0;

	for (i = 0; i < sizeof(ctrl->__reserved0) / sizeof(__u64); i++)
		nonzero += ctrl->__reserved0[i] != 0;
	nonzero += ctrl->__reserved1 != 0;
	for (i = 0; i < sizeof(ctrl->__reserved2) / sizeof(__u64); i++)
		nonzero += ctrl->__reserved2[i] != 0;
	for (i = sizeof(*ctrl); i < ctrl_size; i++)
		nonzero += page[i] != 0;
	return nonzero;
}

TEST(ctrl_page_reserved_fields_and_tail_are_zero)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, 0);

	ASSERT_LE(sizeof(*ctrl), info.ctrl_size);
	EXPECT_EQ(0, ctrl_nonzero_reserved(ctrl, info.ctrl_size));
	trace_some(fd);
	ASSERT_LE(1, ctrl->records_written);
	EXPECT_EQ(0, ctrl_nonzero_reserved(ctrl, info.ctrl_size));
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

/*
 * The module's own refusal, not the kernel's for a noexec mount (which
 * would give the same EPERM without the module's check): SKIP on one,
 * but not in the test VM, whose /dev vm-run.sh mounts without noexec: a
 * mount there that turned noexec would skip these tests unseen.
 */
static void skip_on_noexec_dev(void)
{
	struct statvfs sv;

	ASSERT_EQ(0, statvfs(FXTRACE_DEV_PATH, &sv));
	if (sv.f_flag & ST_NOEXEC)
		SKIP_OR_FAIL_IN_VM("%s is on a noexec mount: the kernel refuses PROT_EXEC before the module",
		     FXTRACE_DEV_PATH);
}

TEST(executable_mapping_is_eperm)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	skip_on_noexec_dev();
	ASSERT_ERRNO(EPERM, (long)mmap(NULL, info.ctrl_size,
				       PROT_READ | PROT_WRITE | PROT_EXEC,
				       MAP_SHARED, fd,
				       (off_t)ctrl_offset(&info, 0)));
	ASSERT_ERRNO(EPERM, (long)mmap(NULL, info.buf_size,
				       PROT_READ | PROT_EXEC, MAP_SHARED, fd,
				       (off_t)data_offset(&info, 0)));
	close(fd);
}

TEST(mprotect_to_executable_is_eacces)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	void *ctrl, *data;

	skip_on_noexec_dev();
	ctrl = map_ctrl(fd, &info, 0);
	data = (void *)map_data(fd, &info, 0);
	ASSERT_ERRNO(EACCES, mprotect(ctrl, info.ctrl_size,
				      PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_ERRNO(EACCES, mprotect(data, info.buf_size,
				      PROT_READ | PROT_EXEC));
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

/* Open the device with @flags, or skip (fail in the VM) without the module. */
static int dev_open_flags(int flags)
{
	int fd = open(FXTRACE_DEV_PATH, flags | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		device_missing();
	ASSERT_TRUE(fd >= 0);
	return fd;
}

/* mmap() CPU 0's control page (@ctrl) or data area: its return, as a long. */
static long map_cpu0(int fd, const struct fxtrace_info *info, bool ctrl,
		     int prot, int flags)
{
	return (long)mmap(NULL, ctrl ? info->ctrl_size : info->buf_size, prot,
			  flags, fd, (off_t)(ctrl ? ctrl_offset(info, 0) :
						   data_offset(info, 0)));
}

/*
 * A file opened read-only still maps shared and read-only: the kernel
 * leaves such a mapping VM_MAYSHARE without VM_SHARED. Nothing of it can
 * be mapped writable (the kernel's EACCES, before the module's EPERM for a
 * data area), so a reader that consumes opens O_RDWR; one that only
 * watches may not.
 */
TEST(read_only_open_maps_read_only)
{
	int ro = dev_open_flags(O_RDONLY);
	struct fxtrace_info info = dev_info(ro);
	long p;

	ASSERT_TRUE(map_cpu0(ro, &info, false, PROT_READ, MAP_SHARED) != -1);
	p = map_cpu0(ro, &info, true, PROT_READ, MAP_SHARED);
	ASSERT_TRUE(p != -1);
	EXPECT_EQ(FXTRACE_CTRL_VERSION, ((const struct fxtrace_ctrl *)p)->version);
	ASSERT_ERRNO(EACCES, map_cpu0(ro, &info, true, PROT_READ | PROT_WRITE, MAP_SHARED));
	/* The same check comes first for a data area: EACCES, not EPERM. */
	ASSERT_ERRNO(EACCES, map_cpu0(ro, &info, false, PROT_READ | PROT_WRITE, MAP_SHARED));
	close(ro);
}

/*
 * The kernel checks write access for shared mappings only: a private
 * writable mapping of a file opened read-only reaches the module, which
 * refuses every private mapping, of a data area too (EINVAL, not EPERM).
 */
TEST(read_only_open_private_writable_is_einval)
{
	int ro = dev_open_flags(O_RDONLY);
	struct fxtrace_info info = dev_info(ro);

	ASSERT_ERRNO(EINVAL, map_cpu0(ro, &info, true, PROT_READ | PROT_WRITE, MAP_PRIVATE));
	ASSERT_ERRNO(EINVAL, map_cpu0(ro, &info, false, PROT_READ | PROT_WRITE, MAP_PRIVATE));
	close(ro);
}

/*
 * A file opened write-only is a session like any other, its ioctls work,
 * but the kernel maps none of it (EACCES: mapping needs read access),
 * shared or private, read or write, before it asks the module: the first
 * mapping the module saw would allocate the buffers, and none are.
 */
TEST(write_only_open_maps_nothing_is_eacces)
{
	int wo = dev_open_flags(O_WRONLY);
	struct fxtrace_info info = dev_info(wo);

	ASSERT_EQ(FXTRACE_STATE_EMPTY, info.state);
	ASSERT_ERRNO(EACCES, map_cpu0(wo, &info, true, PROT_READ, MAP_SHARED));
	ASSERT_ERRNO(EACCES, map_cpu0(wo, &info, true, PROT_READ | PROT_WRITE, MAP_SHARED));
	ASSERT_ERRNO(EACCES, map_cpu0(wo, &info, false, PROT_READ, MAP_SHARED));
	ASSERT_ERRNO(EACCES, map_cpu0(wo, &info, true, PROT_READ, MAP_PRIVATE));
	EXPECT_EQ(FXTRACE_STATE_EMPTY, dev_info(wo).state);
	ASSERT_EQ(0, dev_configure(wo, FXTRACE_BUF_SIZE_MIN, 0));
	ASSERT_EQ(0, ioctl(wo, FXTRACE_IOC_START));
	ASSERT_EQ(FXTRACE_STATE_TRACING, dev_info(wo).state);
	ASSERT_EQ(0, ioctl(wo, FXTRACE_IOC_STOP));
	close(wo);
}

/*
 * mmap() CPU 0's control page (@ctrl) or data area from @fd with @prot in
 * a child whose personality is @persona: 0 on success, else the errno
 * (255: personality() failed).
 */
static int child_map_errno(int fd, const struct fxtrace_info *info,
			   bool ctrl, int prot, unsigned long persona)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		if (personality(persona) == -1)
			_exit(255);
		_exit(map_cpu0(fd, info, ctrl, prot, MAP_SHARED) == -1 ?
		      errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A READ_IMPLIES_EXEC personality makes the kernel add PROT_EXEC to every
 * PROT_READ mapping of a file not on a noexec mount (do_mmap()), and the
 * module refuses it like an asked-for PROT_EXEC (uapi "Errors", mmap
 * EPERM): the control page read-only or read-write, and the data area,
 * all map in a child of the default personality and are EPERM in one with
 * READ_IMPLIES_EXEC. On a noexec mount the kernel adds nothing, and maps
 * it (SKIP). Catches a module that looks at the prot the caller passed
 * rather than the mapping's flags, or that only clears VM_MAYEXEC
 * (mprotect() refused, but the mapping itself executable).
 */
TEST(read_implies_exec_mapping_is_eperm)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);

	skip_on_noexec_dev();
	ASSERT_EQ(0, child_map_errno(fd, &info, true, PROT_READ, PER_LINUX));
	ASSERT_EQ(0, child_map_errno(fd, &info, false, PROT_READ, PER_LINUX));
	EXPECT_EQ(EPERM, child_map_errno(fd, &info, true, PROT_READ,
					 PER_LINUX | READ_IMPLIES_EXEC));
	EXPECT_EQ(EPERM, child_map_errno(fd, &info, true,
					 PROT_READ | PROT_WRITE,
					 PER_LINUX | READ_IMPLIES_EXEC));
	EXPECT_EQ(EPERM, child_map_errno(fd, &info, false, PROT_READ,
					 PER_LINUX | READ_IMPLIES_EXEC));
	close(fd);
}

/*
 * The first mapping of a session never configured allocates its buffers:
 * the per-CPU rings, then each CPU's area. Each failure in turn is ENOMEM,
 * frees what the call had got (under mmap_lock, with no wait for a grace
 * period: kmod/fxtrace_main.c, fxtrace_alloc_rings()) and leaves the
 * session as it was.
 */
TEST(mmap_allocation_failure_is_enomem)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	unsigned int nth, allocs = 1 + possible_cpus(&info);
	long long before = live_allocations();

	ASSERT_EQ(FXTRACE_STATE_EMPTY, info.state);
	for (nth = 1; nth <= allocs; nth++) {
		printf("#   allocation %u of %u fails\n", nth, allocs);
		ASSERT_ENOMEM_AT(nth, mmap(NULL, info.ctrl_size,
					   PROT_READ | PROT_WRITE, MAP_SHARED,
					   fd, (off_t)ctrl_offset(&info, 0)));
		EXPECT_EQ(FXTRACE_STATE_EMPTY, dev_info(fd).state);
		if (before >= 0)
			EXPECT_EQ(before, live_allocations());
	}
	/* Nothing is mapped, so CONFIGURE is not EBUSY; then mmap works. */
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	(void)map_ctrl(fd, &info, 0);
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

/* Sleep @n times for a millisecond on @cpu: switches there, and wakeups. */
static void sleep_on_cpu(int cpu, int n)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		if (pin_to_cpu(0, cpu))
			_exit(1);
		while (n--)
			usleep(1000);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Records appear between consumer and producer, whole and well formed, in
 * every ring: a task that sleeps on each CPU in turn switches there.
 */
TEST(records_flow_through_every_cpu)
{
	int fd = dev_open(), cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct fxtrace_info info = dev_info(fd);
	__u64 total = 0;

	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(200);
	for (cpu = 0; cpu < ncpus; cpu++)
		sleep_on_cpu(cpu, 20);
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
			enum krec kind;
			__u64 len = record_at(data, info.buf_size, pos, head,
					      &kind);

			/* Nothing was lost, so there is no loss marker. */
			ASSERT_NE(KREC_LOSS, kind);
			if (kind == KREC_SWITCH)
				EXPECT_EQ(cpu, (hdr >> FXT_SCHED_CPU_SHIFT) &
					       FXT_SCHED_CPU_MASK);
			pos += len;
			n++;
		}
		EXPECT_EQ(ctrl->records_written, n);
		/* The sleeper alone switched here 40 times. */
		printf("#   cpu %d: %llu records\n", cpu, (unsigned long long)n);
		EXPECT_LE(40, n);
		store_consumer(ctrl, head);
		total += n;
	}
	EXPECT_GE(total, 200);
	close(fd);
}

/* Seconds of scheduler noise that must fill a 64 KiB ring (it takes well
 * under one): a module that never drops fails the test, not the run. */
#define FILL_DEADLINE_S	60

/*
 * Make scheduler noise until CPU 0's ring (@ctrl) has dropped more than
 * @dropped records, for at most FILL_DEADLINE_S.
 */
static void noise_until_dropped(struct fxtrace_ctrl *ctrl, __u64 dropped)
{
	double deadline = now_s() + FILL_DEADLINE_S;

	while (ctrl->records_dropped <= dropped) {
		HARNESS_CHECK(now_s() < deadline, 1,
			      "CPU 0's ring dropped %llu records in %d s of noise, wanted more than %llu",
			      (unsigned long long)ctrl->records_dropped,
			      FILL_DEADLINE_S, (unsigned long long)dropped);
		make_scheduler_noise(20);
	}
}

/*
 * Trace into rings of the smallest size, nobody reading, until CPU 0's has
 * dropped at least 100 records; then stop. Return CPU 0's control page.
 */
static struct fxtrace_ctrl *fill_cpu0_ring(int fd, struct fxtrace_info *info)
{
	struct fxtrace_ctrl *ctrl;

	pin_to_cpu0();
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	*info = dev_info(fd);
	ctrl = map_ctrl(fd, info, 0);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	noise_until_dropped(ctrl, 99);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	return ctrl;
}

/* A full ring drops new records and counts every one of them. */
TEST(full_ring_drops_are_counted)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl = fill_cpu0_ring(fd, &info);

	EXPECT_LE(load_producer(ctrl) - ctrl->consumer_pos, info.buf_size);
	EXPECT_GE(load_producer(ctrl), info.buf_size - 56);
	EXPECT_EQ(ctrl->tracepoint_hits,
		  ctrl->records_written + ctrl->records_dropped);
	EXPECT_NE(0, ctrl->last_drop_ns);
	close(fd);
}

/*
 * A loss that no record marked before STOP stays unmarked after START:
 * markers there would draw a hole across the time nothing was traced
 * (uapi "Loss markers"). records_dropped keeps counting it.
 */
TEST(restart_after_drops_marks_no_hole_across_the_stop)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl = fill_cpu0_ring(fd, &info);
	__u64 dropped = ctrl->records_dropped;
	__u64 markers = ctrl->markers_written;
	__u64 written = ctrl->records_written;

	/* All read: the ring has room for the loss markers again. */
	store_consumer(ctrl, load_producer(ctrl));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(20);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));

	ASSERT_EQ(dropped, ctrl->records_dropped);	/* no new loss */
	EXPECT_LE(written + 1, ctrl->records_written);
	EXPECT_EQ(markers, ctrl->markers_written);
	close(fd);
}

/*
 * The timestamp of the last record that has one (context switches,
 * wakeups, loss markers; names have none) in [@from, @to) of a ring,
 * checking each header on the way; 0 if none has.
 */
static __u64 last_timestamp(const unsigned char *data, __u64 size,
			    __u64 from, __u64 to)
{
	__u64 pos = from, last = 0, len;
	enum krec kind;

	while (pos != to) {
		len = record_at(data, size, pos, to, &kind);
		if (kind == KREC_SWITCH || kind == KREC_WAKEUP ||
		    kind == KREC_LOSS)
			last = word_at(data, size, pos + 8);
		pos += len;
	}
	return last;
}

/*
 * A pair of loss markers sits exactly at its hole (uapi "Loss markers"):
 * written where the last record before the loss ended, the first saying
 * how many records were lost, exactly records_dropped's count, at the time
 * of the first one lost (after the last record written, no later than the
 * moment we saw records_dropped rise), the second at the time of the
 * record that ends the hole (after every drop). And last_drop_ns is the
 * most recent drop (uapi struct fxtrace_ctrl), not the first: our noise,
 * pinned to CPU 0, kept being dropped for 50 ms after we saw the first
 * drop. Catches a module whose count is off (or counts since START, or
 * the markers' own drops), that dates the first marker at the record
 * after the hole or at the last drop, or the second before the last drop,
 * that writes the pair anywhere but at the hole, or whose last_drop_ns
 * stays at the first drop. CPU 0's ring is fresh and nobody reads it, so
 * it fills from position 0 and, once a record is dropped, its producer
 * position stays put until room is made (every record then needs room for
 * the markers too).
 */
TEST(loss_marker_pair_spans_exactly_its_hole)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl;
	const unsigned char *data;
	__u64 size, t_start, t_seen, t_stop, t_last, hole, lost, last_drop;
	__u64 first_ts, end_ts, hdr, pair = 2 * FXTRACE_LOSS_WORDS * 8;
	double deadline;

	pin_to_cpu0();
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	size = info.buf_size;
	ctrl = map_ctrl(fd, &info, 0);
	data = map_data(fd, &info, 0);
	t_start = boottime_ns();
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	/* A minute for a slow guest; the noise fills 64 KiB in about 1 s. */
	deadline = now_s() + 60;
	while (!__atomic_load_n(&ctrl->records_dropped, __ATOMIC_ACQUIRE)) {
		ASSERT_TRUE(now_s() < deadline);
		make_scheduler_noise(20);
	}
	t_seen = boottime_ns();
	/* More drops, all after t_seen: the ring stays full. */
	make_scheduler_noise(50);
	hole = load_producer(ctrl);
	ASSERT_LE(hole, size);		/* from 0, not wrapped */
	ASSERT_LE(size - hole, 56);	/* full: a record did not fit */
	t_last = last_timestamp(data, size, 0, hole);
	ASSERT_NE(0, t_last);
	/*
	 * Room for everything: from here on no record is dropped, so the
	 * loss the markers will count is the one records_dropped says now
	 * (a drop just before the store is in both).
	 */
	store_consumer(ctrl, hole);
	lost = ctrl->records_dropped;
	last_drop = ctrl->last_drop_ns;
	make_scheduler_noise(20);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	t_stop = boottime_ns();
	printf("#   %llu records lost after %llu bytes; last record before the hole at %llu, drops seen at %llu, last drop at %llu\n",
	       (unsigned long long)lost, (unsigned long long)hole,
	       (unsigned long long)t_last, (unsigned long long)t_seen,
	       (unsigned long long)last_drop);

	/* One hole only: the noise since did not fill the ring again. */
	ASSERT_EQ(lost, ctrl->records_dropped);
	ASSERT_EQ(0, ctrl->consumer_errors);
	EXPECT_EQ(2, ctrl->markers_written);
	ASSERT_LE(hole + pair + 16, load_producer(ctrl));

	/* The pair, at the hole. */
	hdr = word_at(data, size, hole);
	ASSERT_EQ(KREC_LOSS, krec_classify(hdr));
	ASSERT_EQ(KREC_LOSS, krec_classify(word_at(data, size, hole + pair / 2)));
	first_ts = word_at(data, size, hole + 8);
	end_ts = word_at(data, size, hole + pair / 2 + 8);
	/* Argument value: word 5. Exactly the records lost, not "some". */
	EXPECT_EQ(lost, word_at(data, size, hole + 5 * 8));
	EXPECT_EQ(0, word_at(data, size, hole + pair / 2 + 5 * 8));
	/* From the first lost record, after the last one written ... */
	EXPECT_LE(t_last, first_ts);
	EXPECT_LE(first_ts, t_seen);
	/* ... to the record after the last drop. */
	EXPECT_LE(last_drop, end_ts);
	hdr = word_at(data, size, hole + pair);
	if (krec_classify(hdr) == KREC_SWITCH || krec_classify(hdr) == KREC_WAKEUP)
		EXPECT_EQ(end_ts, word_at(data, size, hole + pair + 8));

	/* last_drop_ns: the most recent drop, during this session. */
	EXPECT_LE(first_ts, last_drop);
	EXPECT_LE(t_seen + 1, last_drop);
	EXPECT_LE(t_start, last_drop);
	EXPECT_LE(last_drop, t_stop);
	close(fd);
}

/* A consumer position ahead of the producer is refused and counted. */
TEST(bogus_consumer_pos_is_counted_not_trusted)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, 0);
	__u64 written;

	pin_to_cpu0();
	store_consumer(ctrl, 1ULL << 40);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	/*
	 * Counters compared only once stopped: while tracing, an interrupt's
	 * wakeup between our two loads would count in one and not the other
	 * (uapi: tracepoint_hits).
	 */
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	written = ctrl->records_written;
	EXPECT_EQ(0, written);
	EXPECT_GE(ctrl->consumer_errors, 1);
	EXPECT_EQ(ctrl->tracepoint_hits, ctrl->records_dropped);
	/*
	 * Every record dropped, each counted in consumer_errors (uapi "Ring
	 * protocol"): catches a module that counts a bad position once per
	 * START or per store, or drops without counting.
	 */
	EXPECT_EQ(ctrl->records_dropped, ctrl->consumer_errors);
	/* A sane position again: writing resumes. */
	store_consumer(ctrl, load_producer(ctrl));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_GE(ctrl->records_written, 1);
	close(fd);
}

/*
 * A mapper that overwrites producer_pos, and a reader that follows it with
 * consumer_pos: the kernel publishes its own position again at the next
 * drop, so the reader can catch up and the ring is not dead for the rest
 * of the session.
 */
TEST(bogus_producer_pos_is_published_again)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, 0);
	__u64 real, bogus, written, dropped;

	trace_some(fd);
	real = load_producer(ctrl);
	ASSERT_LE(8, real);
	dropped = ctrl->records_dropped;
	written = ctrl->records_written;
	bogus = real + (1ULL << 40);
	__atomic_store_n(&ctrl->producer_pos, bogus, __ATOMIC_RELAXED);
	store_consumer(ctrl, bogus);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_LE(1, ctrl->consumer_errors);
	/*
	 * Every record of this run dropped, each counted in consumer_errors
	 * (trace_some() left none: its default-size ring cannot fill).
	 */
	EXPECT_EQ(ctrl->records_dropped - dropped, ctrl->consumer_errors);
	EXPECT_EQ(written, ctrl->records_written);
	/* Nothing was written after the bogus value: it is replaced as is. */
	EXPECT_EQ(real, load_producer(ctrl));
	written = ctrl->records_written;
	store_consumer(ctrl, load_producer(ctrl));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_LE(written + 1, ctrl->records_written);
	EXPECT_LE(real + 8, load_producer(ctrl));
	close(fd);
}

/*
 * The same with a full ring and producer_pos overwritten with consumer_pos:
 * the reader sees nothing to drain, so it never makes room, and only a
 * commit wrote producer_pos. Every drop publishes it again. consumer_pos
 * is put exactly a ring behind, a valid position with no room at all, so
 * no record can be committed after START.
 */
TEST(full_ring_with_producer_pos_overwritten_shows_the_real_one)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl = fill_cpu0_ring(fd, &info);
	__u64 real = load_producer(ctrl), dropped = ctrl->records_dropped;
	__u64 written = ctrl->records_written;

	store_consumer(ctrl, real - info.buf_size);
	__atomic_store_n(&ctrl->producer_pos, real - info.buf_size,
			 __ATOMIC_RELAXED);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	noise_until_dropped(ctrl, dropped);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_EQ(0, ctrl->consumer_errors);
	EXPECT_EQ(written, ctrl->records_written);
	EXPECT_EQ(real, load_producer(ctrl));
	close(fd);
}

/* A thread in poll() for up to 10 s: what poll() said, and when. */
struct poller {
	int fd;
	int ret;
	short revents;
	double woken_at;
	pid_t tid;	/* set just before the thread calls poll() */
};

static void *poll_10s(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	__atomic_store_n(&p->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	p->ret = poll(&pfd, 1, 10000);
	p->revents = pfd.revents;
	p->woken_at = now_s();
	return NULL;
}

/* Map every possible CPU's control page; the others' entries stay NULL. */
#define MAX_CTRLS	256

static void map_possible_ctrls(int fd, const struct fxtrace_info *info,
			       struct fxtrace_ctrl **ctrl)
{
	int cpu;

	if (info->nr_cpu_ids > MAX_CTRLS)
		SKIP("%u CPU ids: this test's table of rings holds %d",
		     info->nr_cpu_ids, MAX_CTRLS);
	for (cpu = 0; cpu < (int)info->nr_cpu_ids; cpu++)
		if (cpu_possible((unsigned long)cpu))
			ctrl[cpu] = map_ctrl(fd, info, cpu);
}

/*
 * Wait until @p's thread sleeps. It blocks in nothing but poll() once its
 * tid is set, so sleeping means asleep in poll(): what the test does next
 * must find it there, not be seen by a poll() that started after it.
 */
static void wait_until_asleep_in_poll(struct poller *p)
{
	char path[64], stat[512], *s;
	int i, fd;
	ssize_t n;
	pid_t tid;

	for (i = 0; i < 500; i++) {
		tid = __atomic_load_n(&p->tid, __ATOMIC_ACQUIRE);
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		fd = tid ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		n = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
		if (fd >= 0)
			close(fd);
		stat[n > 0 ? n : 0] = '\0';
		/* "tid (comm) S ...": the comm may hold a ')' itself. */
		s = strrchr(stat, ')');
		if (s && s[1] == ' ' && s[2] == 'S')
			return;
		usleep(10000);
	}
	HARNESS_CHECK(0, 1, "the poller (tid %d) is not asleep after 5 s", tid);
}

/*
 * The poll() wakeup tests' setup: rings of @size with the watermark 8 bytes
 * short of full, every possible CPU's control page mapped into @ctrl,
 * tracing started, @noise_ms of scheduler noise, then @p's thread asleep
 * in poll_10s().
 */
static struct fxtrace_info start_poller(struct poller *p, __u64 size,
					struct fxtrace_ctrl **ctrl,
					pthread_t *thread, int noise_ms)
{
	struct fxtrace_info info;

	ASSERT_EQ(0, dev_configure(p->fd, size, size - 8));
	info = dev_info(p->fd);
	map_possible_ctrls(p->fd, &info, ctrl);
	ASSERT_EQ(0, ioctl(p->fd, FXTRACE_IOC_START));
	if (noise_ms)
		make_scheduler_noise(noise_ms);
	ASSERT_EQ(0, pthread_create(thread, NULL, poll_10s, p));
	wait_until_asleep_in_poll(p);
	return info;
}

/*
 * A watermark just below the ring's size may never be reached: once a
 * record does not fit, the ring drops everything with up to a record's
 * size free. poll() reports such a ring anyway, and its first drop wakes a
 * reader already asleep in poll(). Here every ring is put 16 bytes from
 * full (a consumer position that far behind is a valid one) after the
 * reader went to sleep: less room than any record the noise makes (a
 * wakeup takes 24 bytes or more, a switch 40; only a process record of an
 * empty name, which nothing here sets, is as short as 16), so no ring ever
 * reaches the watermark, and only a drop can wake it.
 */
TEST(poll_is_woken_by_a_ring_dropping_below_its_watermark)
{
	__u64 size = FXTRACE_BUF_SIZE_MIN, dropped = 0, most = 0, pos;
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	struct poller p = { .fd = dev_open() };
	struct fxtrace_info info;
	pthread_t thread;
	double t;
	int cpu;

	info = start_poller(&p, size, ctrl, &thread, 0);
	t = now_s();
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++) {
		if (!ctrl[cpu])
			continue;
		pos = load_producer(ctrl[cpu]);
		if (pos > most)
			most = pos;
		store_consumer(ctrl[cpu], pos - (size - 16));
	}
	make_scheduler_noise(20);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, ioctl(p.fd, FXTRACE_IOC_STOP));
	EXPECT_EQ(1, p.ret);
	EXPECT_TRUE(p.revents & POLLIN);
	/*
	 * Asleep until the reset (no ring had reached the watermark), then
	 * woken by the drops, not by poll()'s timeout.
	 */
	EXPECT_LE(most + 1, size - 8);
	EXPECT_TRUE(p.woken_at >= t && p.woken_at - t < 5);
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++)
		if (ctrl[cpu])
			dropped += ctrl[cpu]->records_dropped;
	EXPECT_LE(1, dropped);
	close(p.fd);
}

/* The most any mapped ring has pending; @ctrl as map_possible_ctrls(). */
static __u64 most_pending(struct fxtrace_ctrl **ctrl, unsigned int n)
{
	__u64 pending, most = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < n; cpu++) {
		if (!ctrl[cpu])
			continue;
		pending = load_producer(ctrl[cpu]) - ctrl[cpu]->consumer_pos;
		if (pending > most)
			most = pending;
	}
	return most;
}

/*
 * Put every mapped ring @behind bytes behind its producer (a valid
 * consumer position: less than a ring), but @cpu's @target_behind.
 */
static void put_consumers(struct fxtrace_ctrl **ctrl, unsigned int n,
			  __u64 behind, int cpu, __u64 target_behind)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ctrl[i])
			store_consumer(ctrl[i], load_producer(ctrl[i]) -
				       ((int)i == cpu ? target_behind : behind));
}

/* A control page counter (@offset: its offsetof()) summed over the rings. */
static __u64 total_of(struct fxtrace_ctrl **ctrl, unsigned int n, size_t offset)
{
	__u64 sum = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < n; cpu++)
		if (ctrl[cpu])
			sum += *(volatile __u64 *)((char *)ctrl[cpu] + offset);
	return sum;
}

#define total_written(ctrl, n) \
	total_of(ctrl, n, offsetof(struct fxtrace_ctrl, records_written))
#define total_dropped(ctrl, n) \
	total_of(ctrl, n, offsetof(struct fxtrace_ctrl, records_dropped))

#define POLL_WATERMARK	(16U << 10)
#define POLL_WAIT_MS	60000	/* for the noise to reach the watermark */

/*
 * What poll() reports is fxtrace_ring_readable() at the instant it looks:
 * while tracing, and with no ring dropping, readable once some ring holds
 * the watermark, and not before. The consumer positions set that instant's
 * pending bytes: with nobody reading, they only grow from the value set
 * until poll() looks, so every ring put @short_by bytes short of @w behind
 * must not be readable unless some ring is at @w even after poll()
 * returned, and any one ring put @w behind must be. No wakeup is involved:
 * poll() with no timeout looks once. Tracing on @fd is stopped on return.
 */
static void expect_readable_from(int fd, const struct fxtrace_info *info,
				 struct fxtrace_ctrl **ctrl, __u64 w,
				 __u64 short_by)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int cpu, i, ret, rings = 0, below = 0;
	__u64 most;

	for (i = 0; i < 10 && !below; i++) {
		put_consumers(ctrl, info->nr_cpu_ids, w - short_by, -1, 0);
		ret = poll(&pfd, 1, 0);
		most = most_pending(ctrl, info->nr_cpu_ids);
		if (most >= w)
			continue;	/* a ring got there: this try tells nothing */
		below++;
		printf("#   %llu bytes pending at most: poll() returned %d\n",
		       (unsigned long long)most, ret);
		EXPECT_EQ(0, ret);
	}
	ASSERT_EQ(1, below);

	/* At it: one ring at a time, the others put back to nothing. */
	for (cpu = 0; cpu < (int)info->nr_cpu_ids; cpu++) {
		if (!ctrl[cpu])
			continue;
		rings++;
		put_consumers(ctrl, info->nr_cpu_ids, 0, cpu, w);
		pfd.revents = 0;
		ret = poll(&pfd, 1, 0);
		if (ret != 1)
			printf("#   CPU %d's ring %llu bytes behind: poll() returned %d\n",
			       cpu, (unsigned long long)w, ret);
		EXPECT_EQ(1, ret);
		EXPECT_TRUE(pfd.revents & POLLIN);
	}
	EXPECT_LE(1, rings);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	/* A dropping ring is readable below the watermark: none was. */
	EXPECT_EQ(0, total_dropped(ctrl, info->nr_cpu_ids));
}

/* Below the watermark: 3/4 of it, above half of it, everywhere. */
TEST(poll_is_readable_from_the_watermark_not_below)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	__u64 w = POLL_WATERMARK;
	struct fxtrace_info info;
	int fd = dev_open();

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, w));
	info = dev_info(fd);
	map_possible_ctrls(fd, &info, ctrl);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));

	expect_readable_from(fd, &info, ctrl, w, w / 4);
	close(fd);
}

/*
 * CONFIGURE's watermark 0 means buf_size / 4 (uapi struct fxtrace_config).
 * Looked at as poll_is_readable_from_the_watermark_not_below() does, while
 * tracing (after STOP anything pending is readable) and with no ring
 * dropping (a dropping ring is readable below the watermark; checked):
 * every ring 64 bytes short of a quarter is not readable, any one ring at
 * a quarter is. So the default is above a quarter less 64 bytes and at
 * most a quarter: catches a module that takes 0 as it is (anything
 * pending is readable), or defaults to anything else, buf_size - 8 or
 * half included.
 */
TEST(default_watermark_is_a_quarter_of_the_ring)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	__u64 size = FXTRACE_BUF_SIZE_MIN;
	struct fxtrace_info info;
	int fd = dev_open();

	ASSERT_EQ(0, dev_configure(fd, size, 0));
	info = dev_info(fd);
	ASSERT_EQ(size, info.buf_size);
	map_possible_ctrls(fd, &info, ctrl);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(20);
	expect_readable_from(fd, &info, ctrl, size / 4, 64);
	close(fd);
}

/*
 * A CONFIGURE that fails with ENOMEM leaves no buffers, but its buf_size
 * and watermark stay for the first mmap or START to allocate with (uapi,
 * the session's life). GET_INFO shows the size; the watermark shows only
 * in poll(), looked at as above: a watermark of half the ring, the rings
 * put at 3/8 of it (not readable) and then one at half (readable). The
 * CONFIGURE before the failed one took an eighth, and the default is a
 * quarter: catches a module that keeps the watermark of the buffers it
 * had, or starts over from the default, either way readable at 3/8. Once
 * with the first mmap allocating, once with START.
 */
static void failed_configure_then(bool start_first)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	__u64 size = FXTRACE_BUF_SIZE_MIN * 2, w = size / 2;
	struct fxtrace_info info;
	int fd = dev_open();

	printf("#   the rings allocated by the first %s\n",
	       start_first ? "START" : "mmap");
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN,
				   FXTRACE_BUF_SIZE_MIN / 8));
	ASSERT_ENOMEM_AT(1, dev_configure(fd, size, w));
	info = dev_info(fd);
	EXPECT_EQ(FXTRACE_STATE_EMPTY, info.state);
	ASSERT_EQ(size, info.buf_size);
	if (start_first)
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	map_possible_ctrls(fd, &info, ctrl);
	if (!start_first) {
		EXPECT_EQ(FXTRACE_STATE_READY, dev_info(fd).state);
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	}
	ASSERT_EQ(size, dev_info(fd).buf_size);
	expect_readable_from(fd, &info, ctrl, w, w / 4);
	close(fd);
}

TEST(failed_configure_leaves_its_size_and_watermark_to_the_first_mmap)
{
	failed_configure_then(false);
}

TEST(failed_configure_leaves_its_size_and_watermark_to_start)
{
	failed_configure_then(true);
}

/*
 * A child that makes scheduler noise (make_scheduler_noise()) until killed:
 * by us, or with us whichever way we end (PR_SET_PDEATHSIG; checked once
 * set, in case we ended before it was). Returns its pid.
 */
static pid_t start_noise(void)
{
	pid_t pid, parent = getpid();

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			make_scheduler_noise(100);
	}
	return pid;
}

/*
 * Asleep in poll(), the reader is woken when some ring reaches the
 * watermark, and not before: what is pending the instant poll() returns
 * is at least the watermark. The noise comes a write a millisecond
 * (make_scheduler_noise()), a few records each, so a reader woken at half
 * the watermark would see half of it, give or take a few records: the
 * rings are read the moment poll() returns. Being only read, they can
 * only have grown since poll() looked at them, so a correct wakeup cannot
 * fail this however slow the reader is. A slow guest is given a minute to
 * reach the watermark (the noise fills it in about half a second here; a
 * host that stole half the guest's time once left it at 12320 bytes after
 * 5 s). A poll() that times out looks at the rings once more, so a missed
 * wakeup shows as a return at the timeout, not before: that fails. Not
 * readable at that last look, the rings must be below the watermark (the
 * noise was too slow: skipped), or have reached it since (poll() must say
 * so now; skipped, as it tells nothing about the wakeup).
 */
TEST(poll_reports_data_at_the_watermark)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	int fd = dev_open(), ret, again, status;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	__u64 w = POLL_WATERMARK, most;
	struct fxtrace_info info;
	double t;
	pid_t pid;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, w));
	info = dev_info(fd);
	map_possible_ctrls(fd, &info, ctrl);
	ASSERT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	pid = start_noise();
	t = now_s();
	ret = poll(&pfd, 1, POLL_WAIT_MS);
	most = most_pending(ctrl, info.nr_cpu_ids);
	t = now_s() - t;
	/* While tracing: after STOP anything pending is readable. */
	again = ret ? 1 : poll(&pfd, 1, 0);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	printf("#   poll() returned %d after %.3f s, %llu bytes pending at most\n",
	       ret, t, (unsigned long long)most);
	if (ret == 0) {
		/* No record at all is the module's fault, not the noise's. */
		EXPECT_LE(1, total_written(ctrl, info.nr_cpu_ids));
		if (most < w && !total_dropped(ctrl, info.nr_cpu_ids))
			SKIP("the noise put %llu bytes in a ring in %.0f s, below the %llu-byte watermark",
			     (unsigned long long)most, t,
			     (unsigned long long)w);
		EXPECT_EQ(1, again);
		SKIP("the watermark was reached as poll() timed out");
	}
	/* Woken, not found readable at the timeout's last look. */
	HARNESS_CHECK(t * 1000 < POLL_WAIT_MS - 100, 0,
		      "poll() returned at its timeout, after %.3f s: the wakeup at the watermark was missed",
		      t);
	EXPECT_EQ(1, ret);
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_LE(w, most);
	/* A dropping ring is readable below the watermark: none was. */
	EXPECT_EQ(0, total_dropped(ctrl, info.nr_cpu_ids));
	close(fd);
}

/* Rounds of poll_wakes_again_after_each_drain. */
#define REARM_ROUNDS	3

/*
 * The wakeup at the watermark is sent once per drain (uapi, "poll"): a
 * reader that drains everything and polls again is woken again when some
 * ring reaches the watermark anew, round after round. A module that woke
 * only once would leave the second poll() asleep to its timeout (a minute:
 * the noise brings 16 KiB in about half a second), which fails. A round
 * whose noise was too slow to reach the watermark at all is skipped, but
 * only if the module wrote records in it: one that stopped writing after
 * a drain would otherwise skip instead of failing.
 */
TEST(poll_wakes_again_after_each_drain)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	int fd = dev_open(), ret[REARM_ROUNDS], status, i;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	__u64 w = POLL_WATERMARK, most[REARM_ROUNDS], wrote[REARM_ROUNDS];
	double t[REARM_ROUNDS];
	struct fxtrace_info info;
	pid_t pid;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, w));
	info = dev_info(fd);
	map_possible_ctrls(fd, &info, ctrl);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	pid = start_noise();
	for (i = 0; i < REARM_ROUNDS; i++) {
		/* drained: every ring's consumer at its producer */
		put_consumers(ctrl, info.nr_cpu_ids, 0, -1, 0);
		wrote[i] = total_written(ctrl, info.nr_cpu_ids);
		t[i] = now_s();
		ret[i] = poll(&pfd, 1, POLL_WAIT_MS);
		most[i] = most_pending(ctrl, info.nr_cpu_ids);
		t[i] = now_s() - t[i];
		wrote[i] = total_written(ctrl, info.nr_cpu_ids) - wrote[i];
		if (ret[i] != 1)
			break;
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	for (i = 0; i < REARM_ROUNDS; i++) {
		printf("#   round %d: poll() returned %d after %.3f s, %llu bytes pending at most, %llu records written\n",
		       i, ret[i], t[i], (unsigned long long)most[i],
		       (unsigned long long)wrote[i]);
		HARNESS_CHECK(wrote[i] > 0, 1,
			      "round %d: no record written in %.3f s of noise after the drain",
			      i, t[i]);
		if (ret[i] == 0 && most[i] < w)
			SKIP("round %d: the noise put %llu bytes in a ring in %.0f s, below the %llu-byte watermark",
			     i, (unsigned long long)most[i], t[i],
			     (unsigned long long)w);
		HARNESS_CHECK(ret[i] == 1 && t[i] * 1000 < POLL_WAIT_MS - 100, 1,
			      "round %d: poll() returned %d after %.3f s: no wakeup at the watermark after the drain",
			      i, ret[i], t[i]);
		EXPECT_LE(w, most[i]);
	}
	EXPECT_EQ(0, total_dropped(ctrl, info.nr_cpu_ids));
	close(fd);
}

/*
 * STOP wakes a reader asleep in poll(), and from then on poll() reports
 * anything left to drain, however far below the watermark: no record will
 * come to reach it. The watermark here is never reached and no ring drops
 * (both checked), so STOP is the only thing that can wake the reader. A
 * poll() that times out looks at the rings once more, so its POLLIN alone
 * would not show that STOP woke it: the time it woke does.
 */
TEST(stop_wakes_poll_and_leaves_the_rest_readable)
{
	__u64 size = 4 * FXTRACE_BUF_SIZE_MIN, most;
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	struct poller p = { .fd = dev_open() };
	struct pollfd pfd = { .fd = p.fd, .events = POLLIN };
	struct fxtrace_info info;
	pthread_t thread;
	double t;

	info = start_poller(&p, size, ctrl, &thread, 20);
	t = now_s();
	ASSERT_EQ(0, ioctl(p.fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	printf("#   poll() returned %d, %.3f s after STOP began\n", p.ret,
	       p.woken_at - t);

	most = most_pending(ctrl, info.nr_cpu_ids);
	/* Something to drain, no ring at the watermark, none dropping. */
	ASSERT_LE(8, most);
	ASSERT_LE(most + 1, size - 8);
	ASSERT_EQ(0, total_dropped(ctrl, info.nr_cpu_ids));
	EXPECT_EQ(1, p.ret);
	EXPECT_TRUE(p.revents & POLLIN);
	EXPECT_TRUE(p.woken_at >= t && p.woken_at - t < 2);

	/* Readable at once while stopped with records left, until drained. */
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	put_consumers(ctrl, info.nr_cpu_ids, 0, -1, 0);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	close(p.fd);
}

/* A consumer position more than a ring behind the producer is refused too. */
TEST(consumer_pos_too_far_behind_is_counted_not_trusted)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl;
	const unsigned char *data;
	__u64 i, nonzero = 0;

	pin_to_cpu0();
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	ctrl = map_ctrl(fd, &info, 0);
	data = map_data(fd, &info, 0);
	/* producer 0, consumer one ring and a word behind it (mod 2^64) */
	store_consumer(ctrl, 0 - (info.buf_size + 8));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(50);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_EQ(0, ctrl->records_written);
	EXPECT_EQ(0, load_producer(ctrl));
	EXPECT_GE(ctrl->consumer_errors, 1);
	EXPECT_GE(ctrl->records_dropped, 1);
	EXPECT_EQ(ctrl->tracepoint_hits, ctrl->records_dropped);
	/* Each drop counted in consumer_errors, as for one ahead. */
	EXPECT_EQ(ctrl->records_dropped, ctrl->consumer_errors);
	/* Nothing was written anywhere in the ring. */
	for (i = 0; i < info.buf_size; i++)
		nonzero += data[i] != 0;
	EXPECT_EQ(0, nonzero);
	close(fd);
}

/* What the kernel had written to a control page, before we scribbled. */
struct ctrl_counters {
	__u64 producer, written, dropped, hits, errors, markers;
};

static struct ctrl_counters ctrl_counters(struct fxtrace_ctrl *ctrl)
{
	struct ctrl_counters c = {
		.producer = load_producer(ctrl),
		.written = ctrl->records_written,
		.dropped = ctrl->records_dropped,
		.hits = ctrl->tracepoint_hits,
		.errors = ctrl->consumer_errors,
		.markers = ctrl->markers_written,
	};

	return c;
}

/* Far from any count or position the kernel can reach here. */
#define SCRIBBLE	0xfedcba9876543210ULL

/* Every field of @ctrl but consumer_pos, the one the kernel reads. */
static void scribble_ctrl(struct fxtrace_ctrl *ctrl)
{
	size_t i;

	ctrl->version = (__u32)SCRIBBLE;
	ctrl->size = (__u32)SCRIBBLE;
	ctrl->cpu = (__u32)SCRIBBLE;
	ctrl->__pad = (__u32)SCRIBBLE;
	ctrl->buf_size = SCRIBBLE;
	for (i = 0; i < sizeof(ctrl->__reserved0) / sizeof(__u64); i++)
		ctrl->__reserved0[i] = SCRIBBLE;
	__atomic_store_n(&ctrl->producer_pos, SCRIBBLE, __ATOMIC_RELAXED);
	ctrl->records_written = SCRIBBLE;
	ctrl->records_dropped = SCRIBBLE;
	ctrl->tracepoint_hits = SCRIBBLE;
	ctrl->last_drop_ns = SCRIBBLE;
	ctrl->consumer_errors = SCRIBBLE;
	ctrl->markers_written = SCRIBBLE;
	ctrl->__reserved1 = SCRIBBLE;
	for (i = 0; i < sizeof(ctrl->__reserved2) / sizeof(__u64); i++)
		ctrl->__reserved2[i] = SCRIBBLE;
}

/*
 * The kernel reads only consumer_pos from the control page and writes
 * everything else from its own copies (uapi struct fxtrace_ctrl), so
 * scribbling over the rest confuses only the scribbler. After a first run
 * (CPU 0's ring filled, so every counter has moved), every field of every
 * ring but consumer_pos is overwritten with a huge value; then a second
 * run fills CPU 0's ring again, is drained in the middle (the hole's
 * markers) and dropping again at STOP, with records on every CPU. Each
 * counter the kernel wrote since goes on from the kernel's own value, not
 * the scribbled one: records_written, tracepoint_hits, producer_pos on
 * every ring; records_dropped, last_drop_ns and markers_written on CPU
 * 0's; and every ring walks cleanly with the real size, whatever buf_size
 * says now. A third run with consumer_pos out of range shows
 * consumer_errors going on from the kernel's 0 too. Catches a module that
 * reads back a counter (ctrl->x++), producer_pos, buf_size or the CPU
 * from the control page: counts near the scribble, a bad producer
 * position or walk, or an oops (the step's kernel log scan).
 */
TEST(ctrl_page_scribbles_confuse_only_userspace)
{
	int fd = dev_open(), i;
	struct fxtrace_info info;
	struct ctrl_counters own[MAX_CTRLS], now;
	struct fxtrace_ctrl *c0;
	struct rings rs;
	__u64 walked[MAX_CTRLS], markers, dropped, written, t0, t1;
	double deadline;

	pin_to_cpu0();
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	if (info.nr_cpu_ids > MAX_CTRLS)
		SKIP("%u CPU ids: this test's tables hold %d",
		     info.nr_cpu_ids, MAX_CTRLS);
	rings_map(fd, &info, &rs);
	ASSERT_EQ(0, rs.r[0].cpu);
	c0 = rs.r[0].ctrl;

	/* 1: CPU 0's ring filled, the loss left for STOP (no marker). */
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	deadline = now_s() + 60;
	while (!c0->records_dropped) {
		ASSERT_TRUE(now_s() < deadline);
		make_scheduler_noise(20);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	rings_drain(&rs);
	for (i = 0; i < rs.n; i++) {
		own[i] = ctrl_counters(rs.r[i].ctrl);
		walked[i] = rs.r[i].walked;
		scribble_ctrl(rs.r[i].ctrl);
	}

	/* 2: full again, drained while tracing, full again; every CPU. */
	t0 = boottime_ns();
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	rings_restart(&rs);
	deadline = now_s() + 60;
	while (__atomic_load_n(&c0->records_dropped, __ATOMIC_RELAXED) ==
	       SCRIBBLE) {
		ASSERT_TRUE(now_s() < deadline);
		make_scheduler_noise(20);
	}
	ring_drain(&rs.r[0], info.buf_size, rs.copy);
	deadline = now_s() + 60;
	dropped = c0->records_dropped;
	while (c0->records_dropped == dropped) {
		ASSERT_TRUE(now_s() < deadline);
		make_scheduler_noise(20);
	}
	for (i = 0; i < rs.n; i++)
		sleep_on_cpu(rs.r[i].cpu, 5);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	t1 = boottime_ns();
	for (i = 0; i < rs.n; i++) {
		now = ctrl_counters(rs.r[i].ctrl);
		printf("#   cpu %d: written %llu -> %llu, hits %llu -> %llu, dropped %llu -> %llu\n",
		       rs.r[i].cpu, (unsigned long long)own[i].written,
		       (unsigned long long)now.written,
		       (unsigned long long)own[i].hits,
		       (unsigned long long)now.hits,
		       (unsigned long long)own[i].dropped,
		       (unsigned long long)now.dropped);
		/* Each ring got records: the kernel wrote these from its own. */
		EXPECT_LE(now.producer - own[i].producer, info.buf_size * 4);
		EXPECT_LE(own[i].producer + 8, now.producer);
		EXPECT_LE(own[i].written + 1, now.written);
		EXPECT_LE(now.written - own[i].written, info.buf_size);
		EXPECT_LE(now.hits - own[i].hits, info.buf_size);
		EXPECT_LE(own[i].dropped, now.dropped);
		EXPECT_LE(now.producer - rs.r[i].ctrl->consumer_pos,
			  info.buf_size);
	}
	/* CPU 0 dropped and marked: those counters went on from its own. */
	now = ctrl_counters(c0);
	EXPECT_EQ(now.hits, now.written + now.dropped);
	EXPECT_LE(own[0].dropped + 1, now.dropped);
	EXPECT_LE(now.dropped - own[0].dropped, now.hits - own[0].hits);
	EXPECT_EQ(own[0].markers + 2, now.markers);
	EXPECT_LE(t0, c0->last_drop_ns);
	EXPECT_LE(c0->last_drop_ns, t1);
	/* Never written since: left as we scribbled it, and unheeded. */
	EXPECT_EQ(SCRIBBLE, c0->consumer_errors);
	/* Walks cleanly with the real size, markers and order included. */
	rings_drain(&rs);
	for (i = 0; i < rs.n; i++)
		EXPECT_EQ(rs.r[i].ctrl->records_written - own[i].written,
			  rs.r[i].walked - walked[i]);
	EXPECT_EQ(c0->markers_written, rs.r[0].markers);

	/* 3: consumer_pos out of range, consumer_errors scribbled. */
	markers = c0->markers_written;
	written = c0->records_written;
	dropped = c0->records_dropped;
	now = ctrl_counters(c0);
	store_consumer(c0, now.producer + (1ULL << 40));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(20);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	store_consumer(c0, now.producer);
	EXPECT_LE(dropped + 1, c0->records_dropped);
	/* From the kernel's 0, one per record dropped. */
	EXPECT_EQ(c0->records_dropped - dropped, c0->consumer_errors);
	EXPECT_EQ(written, c0->records_written);
	EXPECT_EQ(markers, c0->markers_written);
	EXPECT_EQ(now.producer, load_producer(c0));

	/* The session goes on as configured. */
	info = dev_info(fd);
	EXPECT_EQ(FXTRACE_BUF_SIZE_MIN, info.buf_size);
	EXPECT_EQ(FXTRACE_STATE_READY, info.state);
	rings_unmap(&rs);
	close(fd);
}

/* A private anonymous reservation to move mappings into. */
static void *reserve(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	return p;
}

/* The data area is VM_DONTEXPAND: mremap() cannot make a mapping longer. */
TEST(mremap_grow_fails)
{
	int fd = dev_open();
	struct fxtrace_info info;
	void *data, *ctrl, *p;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	data = mmap(NULL, info.buf_size / 2, PROT_READ, MAP_SHARED, fd,
		    (off_t)data_offset(&info, 0));
	ASSERT_TRUE(data != MAP_FAILED);
	p = mremap(data, info.buf_size / 2, info.buf_size, MREMAP_MAYMOVE);
	EXPECT_TRUE(p == MAP_FAILED);
	printf("#   data grown with mremap: %s\n",
	       p == MAP_FAILED ? strerror(errno) : "succeeded");
	ctrl = map_ctrl(fd, &info, 0);
	p = mremap(ctrl, info.ctrl_size, 2 * info.ctrl_size, MREMAP_MAYMOVE);
	EXPECT_TRUE(p == MAP_FAILED);
	printf("#   control page grown with mremap: %s\n",
	       p == MAP_FAILED ? strerror(errno) : "succeeded");
	close(fd);
}

/*
 * A moved mapping shows the same bytes, and counts as a mapping: CONFIGURE
 * stays EBUSY until every mapping, moved or not, is gone.
 */
TEST(mremap_move_keeps_data_and_blocks_configure)
{
	int fd = dev_open();
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl, *ctrl2;
	unsigned char *before, *data, *moved, *hole;
	__u64 head;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	trace_some(fd);
	ctrl = map_ctrl(fd, &info, 0);
	data = (unsigned char *)map_data(fd, &info, 0);
	head = load_producer(ctrl);
	ASSERT_LE(1, head);
	before = malloc(info.buf_size);
	ASSERT_TRUE(before != NULL);
	memcpy(before, data, info.buf_size);

	hole = reserve(info.buf_size);
	moved = mremap(data, info.buf_size, info.buf_size,
		       MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_TRUE(moved == hole);
	EXPECT_EQ(0, memcmp(before, moved, info.buf_size));
	/* The old range is unmapped now. */
	ASSERT_ERRNO(ENOMEM, msync(data, info.page_size, MS_ASYNC));

	/* The control page moves too, and still reads the same ring. */
	hole = reserve(info.ctrl_size);
	ctrl2 = mremap(ctrl, info.ctrl_size, info.ctrl_size,
		       MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_TRUE((void *)ctrl2 == hole);
	EXPECT_EQ(head, load_producer(ctrl2));
	EXPECT_EQ(info.buf_size, ctrl2->buf_size);

	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN * 2, 0));
	ASSERT_EQ(0, munmap(ctrl2, info.ctrl_size));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN * 2, 0));
	ASSERT_EQ(0, munmap(moved, info.buf_size));
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN * 2, 0));
	free(before);
	close(fd);
}

/* Unmapping part of a mapping splits it: the rest still counts. */
TEST(partial_munmap_and_shrink_keep_counting)
{
	int fd = dev_open();
	struct fxtrace_info info;
	unsigned char *data, *p;
	size_t half;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	half = info.buf_size / 2;
	data = (unsigned char *)map_data(fd, &info, 0);
	/* Punch out a page in the middle: two mappings are left. */
	ASSERT_EQ(0, munmap(data + half, info.page_size));
	ASSERT_EQ(0, munmap(data, half));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	/* Shrink the last piece with mremap, then unmap it. */
	p = mremap(data + half + info.page_size, half - info.page_size,
		   info.page_size, 0);
	ASSERT_TRUE(p == data + half + info.page_size);
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	ASSERT_EQ(0, munmap(p, info.page_size));
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	close(fd);
}

static __u64 checksum(const unsigned char *p, size_t len)
{
	__u64 h = 1469598103934665603ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/*
 * A forked child shares the ring mappings: it reads the same bytes, sees
 * the producer move when the parent traces again, and keeps the buffers
 * busy (CONFIGURE EBUSY) after the parent unmapped, until it exits.
 */
TEST(fork_shares_the_ring_and_blocks_configure)
{
	int fd = dev_open(), to_child[2], to_parent[2];
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl;
	const unsigned char *data;
	__u64 sum, child_sum = 0, head, child_head = 0;
	int status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	trace_some(fd);
	ctrl = map_ctrl(fd, &info, 0);
	data = map_data(fd, &info, 0);
	head = load_producer(ctrl);
	sum = checksum(data, info.buf_size);
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		__u64 r[2] = { checksum(data, info.buf_size),
			       load_producer(ctrl) };
		int i;

		close(fd);	/* only the mappings keep the session */
		close(to_child[1]);	/* else our read never sees EOF */
		close(to_parent[0]);
		if (write(to_parent[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		/* Wait for the parent's second trace, then report the head. */
		if (read(to_child[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < 200 && load_producer(ctrl) == r[1]; i++)
			usleep(10000);
		r[1] = load_producer(ctrl);
		if (write(to_parent[1], &r[1], sizeof(r[1])) != sizeof(r[1]))
			_exit(1);
		/* Hold the mappings until the parent closes the pipe. */
		while (read(to_child[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	{
		__u64 r[2];

		ASSERT_EQ(sizeof(r), read(to_parent[0], r, sizeof(r)));
		child_sum = r[0];
		child_head = r[1];
	}
	EXPECT_EQ(sum, child_sum);
	EXPECT_EQ(head, child_head);

	/* New records written through the parent's session reach the child. */
	trace_some(fd);
	ASSERT_EQ(1, write(to_child[1], "x", 1));
	ASSERT_EQ(sizeof(child_head), read(to_parent[0], &child_head,
					  sizeof(child_head)));
	EXPECT_NE(head, child_head);
	EXPECT_EQ(load_producer(ctrl), child_head);

	/* Our mappings are gone, the child's are not. */
	ASSERT_EQ(0, munmap(ctrl, info.ctrl_size));
	ASSERT_EQ(0, munmap((void *)data, info.buf_size));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	close(to_child[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	close(fd);
}

/*
 * The mapping count (nr_maps) follows every way a mapping is copied, moved
 * or split, all in one session: a data area moved with mremap(), another
 * with a page punched out of its middle (two pieces), and a forked child
 * that keeps only the control page. CONFIGURE is EBUSY after each of the
 * parent's munmaps, the last one included, until the child exits with the
 * last mapping; then it succeeds, and close frees everything.
 */
TEST(mapping_count_follows_mremap_munmap_and_fork)
{
	int fd = dev_open(), to_child[2], to_parent[2], status;
	unsigned char *moved, *split, *hole;
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl;
	size_t half, page;
	pid_t pid;
	char c;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	half = info.buf_size / 2;
	page = info.page_size;
	ctrl = map_ctrl(fd, &info, 0);
	moved = (unsigned char *)map_data(fd, &info, 0);
	split = (unsigned char *)map_data(fd, &info, 0);
	hole = reserve(info.buf_size);
	moved = mremap(moved, info.buf_size, info.buf_size,
		       MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_TRUE(moved == hole);
	ASSERT_EQ(0, munmap(split + half, page));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		int ok;

		close(fd);	/* only the control page keeps the session */
		close(to_child[1]);	/* else our read never sees EOF */
		close(to_parent[0]);
		ok = !munmap(moved, info.buf_size) && !munmap(split, half) &&
		     !munmap(split + half + page, half - page);
		if (write(to_parent[1], "x", 1) != 1 || !ok)
			_exit(1);
		/* Hold the control page until the parent closes the pipe. */
		while (read(to_child[0], &c, 1) > 0)
			;
		_exit(ctrl->version == FXTRACE_CTRL_VERSION ? 0 : 1);
	}
	close(to_child[0]);
	close(to_parent[1]);
	ASSERT_EQ(1, read(to_parent[0], &c, 1));

	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	ASSERT_EQ(0, munmap(moved, info.buf_size));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	ASSERT_EQ(0, munmap(split, half));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	ASSERT_EQ(0, munmap(split + half + page, half - page));
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	ASSERT_EQ(0, munmap(ctrl, info.ctrl_size));
	/* Nothing of ours is mapped: the child's control page is. */
	ASSERT_ERRNO(EBUSY, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	close(to_child[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	close(fd);
	expect_no_live_allocations();
}

/*
 * A mapping keeps the session alive after its fd is closed: a second
 * session is refused (EBUSY) until the last munmap, which frees it all.
 */
TEST(mapping_outlives_the_fd_and_keeps_the_session)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl = map_ctrl(fd, &info, 0);

	close(fd);
	ASSERT_ERRNO(EBUSY, open(FXTRACE_DEV_PATH, O_RDWR));
	EXPECT_EQ(FXTRACE_CTRL_VERSION, ctrl->version);
	EXPECT_EQ(info.buf_size, ctrl->buf_size);
	ASSERT_EQ(0, munmap(ctrl, info.ctrl_size));
	expect_no_live_allocations();
	fd = dev_open();
	close(fd);
}

/*
 * The session, and tracing if it was started, lasts until its last fd and
 * its last mapping are gone (uapi "Session lifecycle"). A started session
 * whose fd is closed with its control pages and CPU 0's data area still
 * mapped keeps tracing: CPU 0's producer_pos moves on, over records that
 * walk cleanly, and the device stays busy. The last munmap then ends it
 * all: a new session opens and nothing of the old one is left allocated.
 * Catches a module that stops tracing (detaches its probes) when the fd is
 * released while mappings remain, which leaves producer_pos still; one
 * that frees the rings there (the walk, or the step's kernel log scan);
 * and one that leaks a session still tracing when its last mapping goes
 * (EBUSY on the new open, or live allocations left).
 */
TEST(tracing_goes_on_after_close_while_mapped)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	int fd = dev_open(), cpu;
	struct fxtrace_info info = dev_info(fd);
	const unsigned char *data;
	__u64 from, head, pos, n = 0;
	double deadline;
	enum krec kind;

	pin_to_cpu0();	/* the noise runs where the data area is mapped */
	map_possible_ctrls(fd, &info, ctrl);
	data = map_data(fd, &info, 0);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	close(fd);
	ASSERT_ERRNO(EBUSY, open(FXTRACE_DEV_PATH, O_RDWR | O_CLOEXEC));

	/* All read: whatever comes now is written after the close. */
	put_consumers(ctrl, info.nr_cpu_ids, 0, -1, 0);
	from = ctrl[0]->consumer_pos;
	deadline = now_s() + 60;
	do {
		ASSERT_TRUE(now_s() < deadline);
		make_scheduler_noise(20);
		head = load_producer(ctrl[0]);
	} while (head - from < 200);
	printf("#   cpu 0: %llu bytes traced after the close\n",
	       (unsigned long long)(head - from));
	ASSERT_LE(head - from, info.buf_size);
	for (pos = from; pos != head; n++)
		pos += record_at(data, info.buf_size, pos, head, &kind);
	EXPECT_LE(3, n);
	EXPECT_EQ(0, ctrl[0]->records_dropped);
	ASSERT_ERRNO(EBUSY, open(FXTRACE_DEV_PATH, O_RDWR | O_CLOEXEC));

	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++)
		if (ctrl[cpu])
			ASSERT_EQ(0, munmap(ctrl[cpu], info.ctrl_size));
	ASSERT_EQ(0, munmap((void *)data, info.buf_size));
	expect_no_live_allocations();
	fd = dev_open();
	EXPECT_EQ(FXTRACE_STATE_EMPTY, dev_info(fd).state);
	close(fd);
}

/*
 * A CONFIGURE that replaces buffers already traced into allocates them
 * anew, zeroed (uapi "Session lifecycle"), with both positions at 0 (uapi
 * "Ring protocol"), like the first allocation: every possible CPU's
 * control page has its counters, last_drop_ns and positions at 0 again,
 * and its data area is all zero. The old buffers had every one of them
 * set: records written and dropped, loss markers (a ring drained while it
 * was dropping), consumer errors (a consumer_pos out of range). Then a
 * trace fills CPU 0's new ring from position 0, its counters matching the
 * records in it, with no loss marker. Catches a module that keeps the old
 * buffers for the same size, or zeroes only the data, or keeps its own
 * copies of the head, the counters or a pending loss in the ring it puts
 * back (producer_pos or a count going on from the old session's, loss
 * markers for the old loss).
 */
TEST(configure_again_after_tracing_gives_zeroed_buffers)
{
	struct fxtrace_ctrl *ctrl[MAX_CTRLS] = { NULL };
	const unsigned char *data[MAX_CTRLS] = { NULL };
	int fd = dev_open(), cpu;
	struct fxtrace_info info;
	struct fxtrace_ctrl *c0 = fill_cpu0_ring(fd, &info);
	__u64 i, nonzero, head, pos, n = 0;
	double deadline;
	enum krec kind;

	/* Consumer errors: a consumer_pos ahead of the producer. */
	store_consumer(c0, load_producer(c0) + (1ULL << 40));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(20);
	/* Drained while dropping: the next record that fits is marked. */
	store_consumer(c0, load_producer(c0));
	deadline = now_s() + 60;
	while (!c0->markers_written) {
		ASSERT_TRUE(now_s() < deadline);
		make_scheduler_noise(20);
	}
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	ASSERT_LE(1, c0->consumer_errors);
	ASSERT_LE(2, c0->markers_written);
	ASSERT_LE(1, c0->records_dropped);
	ASSERT_NE(0, c0->last_drop_ns);
	ASSERT_NE(0, c0->consumer_pos);
	ASSERT_NE(0, load_producer(c0));
	ASSERT_NE(0, c0->records_written);
	ASSERT_NE(0, c0->tracepoint_hits);
	ASSERT_EQ(0, munmap(c0, info.ctrl_size));

	/* The same size again: nothing is mapped, so no EBUSY. */
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	ASSERT_EQ(FXTRACE_STATE_READY, info.state);
	map_possible_ctrls(fd, &info, ctrl);
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++) {
		struct fxtrace_ctrl *c = ctrl[cpu];

		if (!c)
			continue;
		EXPECT_EQ(FXTRACE_CTRL_VERSION, c->version);
		EXPECT_EQ(cpu, c->cpu);
		EXPECT_EQ(info.buf_size, c->buf_size);
		EXPECT_EQ(0, c->producer_pos);
		EXPECT_EQ(0, c->records_written);
		EXPECT_EQ(0, c->records_dropped);
		EXPECT_EQ(0, c->tracepoint_hits);
		EXPECT_EQ(0, c->last_drop_ns);
		EXPECT_EQ(0, c->consumer_errors);
		EXPECT_EQ(0, c->markers_written);
		EXPECT_EQ(0, c->consumer_pos);
		EXPECT_EQ(0, ctrl_nonzero_reserved(c, info.ctrl_size));
		data[cpu] = map_data(fd, &info, cpu);
		for (i = 0, nonzero = 0; i < info.buf_size; i++)
			nonzero += data[cpu][i] != 0;
		EXPECT_EQ(0, nonzero);
	}

	/* A few records: from position 0, counted from 0, no old loss. */
	c0 = ctrl[0];
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	make_scheduler_noise(5);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	head = load_producer(c0);
	ASSERT_LE(8, head);
	ASSERT_LE(head, info.buf_size);
	for (pos = 0; pos != head; n++) {
		pos += record_at(data[0], info.buf_size, pos, head, &kind);
		ASSERT_NE(KREC_LOSS, kind);
	}
	EXPECT_EQ(n, c0->records_written);
	EXPECT_EQ(0, c0->records_dropped);
	EXPECT_EQ(0, c0->markers_written);
	EXPECT_EQ(0, c0->consumer_errors);
	EXPECT_EQ(0, c0->last_drop_ns);
	EXPECT_EQ(n, c0->tracepoint_hits);
	close(fd);
}

/*
 * In a child, map CPU 0's control page (@ctrl) or data area from @fd,
 * madvise(MADV_DONTNEED) it and read its first byte. Returns the wait
 * status: a child that could not map or madvise exits 2 or 3, one whose
 * read worked exits 0.
 */
static int read_after_dontneed(int fd, const struct fxtrace_info *info,
			       bool ctrl)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		size_t len = ctrl ? info->ctrl_size : info->buf_size;
		long p = map_cpu0(fd, info, ctrl, PROT_READ, MAP_SHARED);

		prctl(PR_SET_DUMPABLE, 0);	/* no core file for the SIGBUS */
		if (p == -1)
			_exit(2);
		if (madvise((void *)p, len, MADV_DONTNEED))
			_exit(3);
		(void)*(volatile const unsigned char *)p;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	return status;
}

/*
 * A mapping's pages are inserted when it is made and never faulted in
 * again: after madvise(MADV_DONTNEED) an access there is SIGBUS (uapi
 * "Session lifecycle"), for a control page and a data area alike. The
 * child's mappings die with it: CONFIGURE then finds nothing mapped.
 * Catches a module whose mappings have a fault handler that maps the
 * pages again (the read works: exit 0), or that refuses the madvise, or
 * whose mapping count misses a mapping zapped and then unmapped by exit
 * (CONFIGURE EBUSY).
 */
TEST(madv_dontneed_then_access_is_sigbus)
{
	int fd = dev_open(), status;
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl;

	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	info = dev_info(fd);
	trace_some(fd);
	ctrl = map_ctrl(fd, &info, 0);
	ASSERT_LE(1, ctrl->records_written);

	status = read_after_dontneed(fd, &info, true);
	printf("#   control page: wait status %#x\n", status);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	status = read_after_dontneed(fd, &info, false);
	printf("#   data area: wait status %#x\n", status);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);

	/* Our own mapping of the same page is untouched. */
	EXPECT_EQ(FXTRACE_CTRL_VERSION, ctrl->version);
	EXPECT_LE(1, load_producer(ctrl));
	ASSERT_EQ(0, munmap(ctrl, info.ctrl_size));
	EXPECT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN, 0));
	close(fd);
}

#define SWITCH_ROOM	56	/* a context switch's longest form */
#define SWITCH_SHORTEST	40	/* and its shortest */
#define TIGHT_ENDS	3	/* fills ending with a switch's room short */
#define MAX_FILLS	64

/*
 * Walk CPU 0's ring from @cons to its producer_pos, nobody having read it
 * since @cons was stored: each record found there fitted in the room the
 * ring had when it was written (uapi "Ring protocol": "if (head + len -
 * cons > size) drop"), measured for its longest form: 56 bytes for a
 * context switch whichever form it wrote, its own size for the others,
 * plus the pair's bytes for the record a pair of loss markers was written
 * for. Returns how many records were written with less than 56 bytes
 * free, the ring's last ones.
 */
static __u64 check_room_rule(const unsigned char *data, __u64 size,
			     __u64 cons, __u64 head)
{
	__u64 pos = cons, from = cons, tight = 0, len, need;
	enum krec kind;

	ASSERT_LE(head - cons, size);
	while (pos != head) {
		len = record_at(data, size, pos, head, &kind);
		if (kind == KREC_LOSS) {
			/* Room for the pair was measured with its record. */
			pos += len;
			continue;
		}
		need = kind == KREC_SWITCH ? SWITCH_ROOM : len;
		if (kind == KREC_SWITCH)
			ASSERT_LE(len, SWITCH_ROOM);
		/* (from - cons) used, so size - (from - cons) free. */
		HARNESS_CHECK((pos - from) + need <= size - (from - cons), 1,
			      "a %llu-byte record (kind %d) at %llu written with %llu bytes free, %llu needed",
			      (unsigned long long)len, (int)kind,
			      (unsigned long long)pos,
			      (unsigned long long)(size - (from - cons)),
			      (unsigned long long)((pos - from) + need));
		if (size - (pos - cons) < SWITCH_ROOM)
			tight++;
		pos += len;
		from = pos;
	}
	return tight;
}

/*
 * A context switch is written only with 56 bytes free (uapi "Ring
 * protocol"): room is measured for its longest form, whichever of its
 * 40-, 48- or 56-byte forms it writes; every other record with its own
 * size free. Nobody reads CPU 0's ring while it fills, again and again,
 * each fill from where the last one stopped (all of it taken as read):
 * every record walked fits that rule against the consumer position of
 * its fill, and each fill ends within 56 bytes of full, with drops: the
 * first drop left less than the record's room, and after it only a record
 * with its two loss markers could be written. Fills go on until
 * TIGHT_ENDS of them ended with 40 to 55 bytes free: there the first
 * record dropped needed more, which no wakeup (24 or 40 bytes) does, so
 * it was a switch (or a long name record) that a module measuring a
 * switch by the form it writes would have written in its 40- or 48-byte
 * form, breaking the rule in the walk. Catches that module, and one that
 * writes a record without room for it (over unread bytes); the test
 * fails, rather than passes unproven, if no fill ends that way.
 */
TEST(full_ring_writes_a_switch_only_with_56_bytes_free)
{
	int fd = dev_open(), fill, tight_ends = 0;
	struct fxtrace_info info;
	struct fxtrace_ctrl *ctrl = fill_cpu0_ring(fd, &info);
	const unsigned char *data = map_data(fd, &info, 0);
	__u64 cons = 0, head, dropped, left, tight = 0;
	double deadline, end = now_s() + 120;

	for (fill = 1; ; fill++) {
		head = load_producer(ctrl);
		ASSERT_EQ(cons, ctrl->consumer_pos);
		tight += check_room_rule(data, info.buf_size, cons, head);
		left = info.buf_size - (head - cons);
		EXPECT_LE(left + 1, SWITCH_ROOM);
		EXPECT_EQ(ctrl->tracepoint_hits,
			  ctrl->records_written + ctrl->records_dropped);
		if (left >= SWITCH_SHORTEST)
			tight_ends++;
		if (tight_ends == TIGHT_ENDS || fill == MAX_FILLS ||
		    now_s() > end)
			break;
		cons = head;
		store_consumer(ctrl, cons);
		dropped = ctrl->records_dropped;
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
		deadline = now_s() + 60;
		while (ctrl->records_dropped < dropped + 20) {
			ASSERT_TRUE(now_s() < deadline);
			make_scheduler_noise(20);
		}
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	}
	printf("#   %d fills, %d ended with %d to %d bytes free; %llu records written with less than %d free\n",
	       fill, tight_ends, SWITCH_SHORTEST, SWITCH_ROOM - 1,
	       (unsigned long long)tight, SWITCH_ROOM);
	EXPECT_LE(1, tight_ends);
	close(fd);
}

TEST_MAIN()
