// SPDX-License-Identifier: GPL-2.0
/*
 * absent_cpus_test - the rings of CPUs that are possible but not present
 * (uapi "mmap layout", since ABI 6): FXTRACE_BUF_SIZE_MIN bytes whatever
 * the configured size, so that a machine whose firmware declares many
 * hot-plug slots does not spend a full ring on each. Checks:
 *   - each control page's buf_size: the configured size for a present
 *     CPU, FXTRACE_BUF_SIZE_MIN for the others; GET_INFO's is the former;
 *   - an absent CPU's data area maps at its own size and not beyond,
 *     also before the session has any buffers, which such an mmap does
 *     not allocate;
 *   - the memory the rings take (VmallocUsed) is that of the small rings,
 *     not of full ones;
 *   - tracing writes to the present CPUs' rings and nothing to the others.
 * Runs in a guest booted with more possible CPUs than present ones
 * (scripts/test-vm-absent-cpus.sh: QEMU -smp 2,maxcpus=4); anywhere else
 * there is nothing to check, and it skips (fails in the test VM).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "fxtrace_dev.h"

#define CONFIGURED	(16ULL << 20)	/* far above the small rings' 64 KiB */

/* How many possible CPUs are not present; fails the test if none. */
static unsigned int absent_cpus(const struct fxtrace_info *info)
{
	unsigned int cpu, n = 0;

	for (cpu = 0; cpu < info->nr_cpu_ids; cpu++)
		n += cpu_possible(cpu) && !cpu_present(cpu);
	if (!n)
		SKIP_OR_FAIL_IN_VM("every possible CPU is present: boot with more possible CPUs than present ones (QEMU -smp N,maxcpus=M)");
	return n;
}

/* The first possible CPU that is not present. */
static int first_absent_cpu(const struct fxtrace_info *info)
{
	unsigned int cpu;

	for (cpu = 0; cpu < info->nr_cpu_ids; cpu++)
		if (cpu_possible(cpu) && !cpu_present(cpu))
			return (int)cpu;
	ASSERT_TRUE(!"no absent CPU");
	return -1;
}

static long map_data_len(int fd, const struct fxtrace_info *info, int cpu,
			 __u64 len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
		       (off_t)data_offset(info, cpu));

	if (p == MAP_FAILED)
		return -1;
	munmap(p, len);
	return 0;
}

/* /proc/meminfo's VmallocUsed, in KiB. */
static long long vmalloc_used_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kib = -1;

	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %lld kB", &kib) == 1)
			break;
	fclose(f);
	ASSERT_LE(0, kib);
	return kib;
}

TEST(control_pages_give_each_ring_its_size)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	unsigned int cpu, absent = absent_cpus(&info), seen = 0;

	ASSERT_EQ(0, dev_configure(fd, CONFIGURED, 0));
	info = dev_info(fd);
	EXPECT_EQ(CONFIGURED, info.buf_size);
	for (cpu = 0; cpu < info.nr_cpu_ids; cpu++) {
		struct fxtrace_ctrl *ctrl;
		__u64 want;

		if (!cpu_possible(cpu))
			continue;
		want = cpu_present(cpu) ? CONFIGURED : FXTRACE_BUF_SIZE_MIN;
		ctrl = map_ctrl(fd, &info, (int)cpu);
		printf("#   cpu %u: %s, buf_size %llu\n", cpu,
		       cpu_present(cpu) ? "present" : "not present",
		       (unsigned long long)ctrl->buf_size);
		EXPECT_EQ(want, ctrl->buf_size);
		EXPECT_EQ(cpu, ctrl->cpu);
		seen += ctrl->buf_size == FXTRACE_BUF_SIZE_MIN;
		munmap(ctrl, info.ctrl_size);
	}
	EXPECT_EQ(absent, seen);
	close(fd);
}

TEST(absent_data_area_maps_at_its_own_size_only)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	int cpu;

	absent_cpus(&info);
	cpu = first_absent_cpu(&info);
	ASSERT_EQ(0, dev_configure(fd, CONFIGURED, 0));
	EXPECT_EQ(0, map_data_len(fd, &info, cpu, FXTRACE_BUF_SIZE_MIN));
	ASSERT_ERRNO(EINVAL, map_data_len(fd, &info, cpu,
					  FXTRACE_BUF_SIZE_MIN + info.page_size));
	ASSERT_ERRNO(EINVAL, map_data_len(fd, &info, cpu, CONFIGURED));
	close(fd);
}

/*
 * Before anything allocated the buffers, the range is checked against the
 * size the ring will get, and a bad one allocates nothing.
 */
TEST(absent_data_area_range_checked_before_allocation)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	int cpu;

	absent_cpus(&info);
	cpu = first_absent_cpu(&info);
	ASSERT_EQ(FXTRACE_STATE_EMPTY, info.state);
	ASSERT_ERRNO(EINVAL, map_data_len(fd, &info, cpu,
					  FXTRACE_BUF_SIZE_MIN + info.page_size));
	EXPECT_EQ(FXTRACE_STATE_EMPTY, dev_info(fd).state);
	EXPECT_EQ(0, map_data_len(fd, &info, cpu, FXTRACE_BUF_SIZE_MIN));
	EXPECT_EQ(FXTRACE_STATE_READY, dev_info(fd).state);
	close(fd);
}

/*
 * What the rings take: one page and the configured size per present CPU,
 * one page and 64 KiB per other possible CPU. A full ring for an absent
 * CPU would be 16 MiB more; other vmalloc users of a quiet guest move
 * VmallocUsed by far less than the 1 MiB allowed.
 */
TEST(rings_of_absent_cpus_take_little_memory)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	unsigned int absent = absent_cpus(&info), present = 0, cpu;
	long long before, after, want_kib;

	for (cpu = 0; cpu < info.nr_cpu_ids; cpu++)
		present += cpu_possible(cpu) && cpu_present(cpu);
	before = vmalloc_used_kib();
	ASSERT_EQ(0, dev_configure(fd, CONFIGURED, 0));
	after = vmalloc_used_kib();
	want_kib = (long long)(present * (CONFIGURED + info.page_size) +
			       absent * (FXTRACE_BUF_SIZE_MIN + info.page_size)) >> 10;
	printf("#   %u present, %u absent: VmallocUsed +%lld KiB, the rings %lld KiB\n",
	       present, absent, after - before, want_kib);
	EXPECT_GE(want_kib + 1024, after - before);
	EXPECT_LE(want_kib - 1024, after - before);
	close(fd);
}

TEST(only_present_cpus_write_records)
{
	int fd = dev_open();
	struct fxtrace_info info = dev_info(fd);
	struct fxtrace_ctrl *ctrl[64];
	unsigned int cpu, n = info.nr_cpu_ids < 64 ? info.nr_cpu_ids : 64;
	__u64 present_written = 0;
	int i;

	absent_cpus(&info);
	ASSERT_EQ(0, dev_configure(fd, FXTRACE_BUF_SIZE_MIN * 4, 0));
	for (cpu = 0; cpu < n; cpu++)
		ctrl[cpu] = cpu_possible(cpu) ? map_ctrl(fd, &info, (int)cpu) : NULL;
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));
	for (i = 0; i < 200; i++)
		sched_yield();
	usleep(20000);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	for (cpu = 0; cpu < n; cpu++) {
		if (!ctrl[cpu])
			continue;
		if (cpu_present(cpu)) {
			present_written += ctrl[cpu]->records_written;
		} else {
			EXPECT_EQ(0, ctrl[cpu]->tracepoint_hits);
			EXPECT_EQ(0, ctrl[cpu]->records_written);
			EXPECT_EQ(0, ctrl[cpu]->producer_pos);
		}
		munmap(ctrl[cpu], info.ctrl_size);
	}
	EXPECT_NE(0, present_written);
	close(fd);
	expect_no_live_allocations();
}

TEST_MAIN()
