/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_dev.h - small helpers the device tests share: open the session,
 * read its info, map one CPU's control page or data area
 */
#ifndef FXTRACE_DEV_H
#define FXTRACE_DEV_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/fxtrace.h>

#include "harness.h"

/* Another path only for harness_check.sh's run as a user (Makefile). */
#ifndef FXTRACE_DEV_PATH
#define FXTRACE_DEV_PATH "/dev/fxtrace"
#endif

/* In the test VM (FXTRACE_VM=1, set by scripts/vm-run.sh)? */
static inline int in_test_vm(void)
{
	const char *vm = getenv("FXTRACE_VM");

	return vm && !strcmp(vm, "1");
}

/* A PREEMPT_RT kernel (/sys/kernel/realtime reads 1)? */
static inline int kernel_is_preempt_rt(void)
{
	FILE *f = fopen("/sys/kernel/realtime", "r");
	int rt = 0;

	if (f) {
		if (fscanf(f, "%d", &rt) != 1)
			rt = 0;
		fclose(f);
	}
	return rt == 1;
}

/*
 * Something the test needs is missing or refused: a skip on a developer's
 * machine, a failure in the test VM, which is set up to have it.
 */
#define SKIP_OR_FAIL_IN_VM(fmt, ...) do {				\
	HARNESS_CHECK(!in_test_vm(), 1, fmt " (in the test VM, FXTRACE_VM=1)", \
		      ##__VA_ARGS__);					\
	SKIP(fmt, ##__VA_ARGS__);					\
} while (0)

/*
 * No device: the module is not loaded. A skip on a developer's machine, a
 * failure in the test VM (FXTRACE_VM=1, set by scripts/vm-run.sh), where
 * run_vm_tests.sh loaded it and every test must run.
 */
static inline void device_missing(void)
{
	const char *vm = getenv("FXTRACE_VM");

	HARNESS_CHECK(!vm || strcmp(vm, "1"), 1,
		      "%s missing in the test VM (FXTRACE_VM=1): fxtrace.ko is not loaded",
		      FXTRACE_DEV_PATH);
	SKIP("%s missing: load fxtrace.ko first", FXTRACE_DEV_PATH);
}

/*
 * Skip (fail in the VM) the test when the module is not loaded, or when we
 * are not root: the device is root's alone (mode 0600) and wants
 * CAP_PERFMON or CAP_SYS_ADMIN, so a user's run could only fail.
 */
static inline void require_device(void)
{
	if (access(FXTRACE_DEV_PATH, F_OK) && errno == ENOENT)
		device_missing();
	if (geteuid() != 0)
		SKIP_OR_FAIL_IN_VM("%s is root's alone: run the tests as root",
				   FXTRACE_DEV_PATH);
}

/* Open the device, or skip (fail in the VM) as require_device() does. */
static inline int dev_open(void)
{
	int fd;

	require_device();
	fd = open(FXTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);
	HARNESS_CHECK(fd >= 0, 1, "open %s: %s", FXTRACE_DEV_PATH,
		      strerror(errno));
	return fd;
}

static inline struct fxtrace_info dev_info(int fd)
{
	struct fxtrace_info info;

	memset(&info, 0xff, sizeof(info));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_GET_INFO, &info));
	ASSERT_EQ(FXTRACE_ABI_VERSION, info.abi_version);
	return info;
}

static inline int dev_configure(int fd, __u64 buf_size, __u32 watermark)
{
	struct fxtrace_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.buf_size = buf_size;
	cfg.watermark = watermark;
	return ioctl(fd, FXTRACE_IOC_CONFIGURE, &cfg);
}

static inline __u64 ctrl_offset(const struct fxtrace_info *info, int cpu)
{
	return info->ctrl_offset + (__u64)cpu * info->cpu_stride;
}

static inline __u64 data_offset(const struct fxtrace_info *info, int cpu)
{
	return info->data_offset + (__u64)cpu * info->cpu_stride;
}

static inline struct fxtrace_ctrl *map_ctrl(int fd,
					    const struct fxtrace_info *info,
					    int cpu)
{
	void *p = mmap(NULL, info->ctrl_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, (off_t)ctrl_offset(info, cpu));

	ASSERT_TRUE(p != MAP_FAILED);
	return p;
}

/* The first @len bytes of @cpu's data area (its ring's size at most). */
static inline const unsigned char *map_data_bytes(int fd,
						  const struct fxtrace_info *info,
						  int cpu, __u64 len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
		       (off_t)data_offset(info, cpu));

	ASSERT_TRUE(p != MAP_FAILED);
	return p;
}

/* A present CPU's whole data area (info->buf_size: uapi "mmap layout"). */
static inline const unsigned char *map_data(int fd,
					    const struct fxtrace_info *info,
					    int cpu)
{
	return map_data_bytes(fd, info, cpu, info->buf_size);
}

/* Whether @cpu is in the CPU list at @path ("0-3,5"). */
static inline int cpu_in_list(const char *path, unsigned long cpu)
{
	FILE *f = fopen(path, "r");
	unsigned long a, b;
	int found = 0, c;

	ASSERT_TRUE(f != NULL);
	while (!found && fscanf(f, "%lu", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%lu", &b) != 1)
				break;
			c = fgetc(f);
		}
		found = cpu >= a && cpu <= b;
		if (c != ',')
			break;
	}
	fclose(f);
	return found;
}

/* The highest CPU in the CPU list at @path ("0-3,5": 5). */
static inline unsigned long cpu_list_last(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long n, last = 0;
	int got = 0;

	ASSERT_TRUE(f != NULL);
	/* Numbers and the separators between them, "-" and ",". */
	while (fscanf(f, "%lu", &n) == 1) {
		last = n;
		got = 1;
		if (fgetc(f) == EOF)
			break;
	}
	fclose(f);
	ASSERT_TRUE(got);
	return last;
}

static inline int cpu_possible(unsigned long cpu)
{
	return cpu_in_list("/sys/devices/system/cpu/possible", cpu);
}

/* Present: plugged in (online or not); a possible CPU may not be. */
static inline int cpu_present(unsigned long cpu)
{
	return cpu_in_list("/sys/devices/system/cpu/present", cpu);
}

/* Possible CPUs, below @info's nr_cpu_ids: each gets a ring. */
static inline unsigned int possible_cpus(const struct fxtrace_info *info)
{
	unsigned int cpu, n = 0;

	for (cpu = 0; cpu < info->nr_cpu_ids; cpu++)
		n += cpu_possible(cpu) == 1;
	return n;
}

/*
 * The module's count of its allocations not yet freed (debugfs), or -1 if
 * this module does not provide it (or debugfs is not mounted). It must be 0
 * whenever no session exists.
 */
#define FXTRACE_LIVE_ALLOCS_PATH "/sys/kernel/debug/fxtrace/live_allocations"

/* A number in a debugfs file: -1 if it is absent, -2 if unreadable. */
static inline long long debugfs_number(const char *path)
{
	FILE *f = fopen(path, "r");
	long long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -2;		/* present but unreadable: a failure */
	fclose(f);
	return n;
}

static inline long long live_allocations(void)
{
	return debugfs_number(FXTRACE_LIVE_ALLOCS_PATH);
}

/*
 * After the last session closed: nothing of the module's may be left.
 * Without the count the check is skipped, but fails in the test VM
 * (FXTRACE_VM=1), which mounts debugfs for a module that has it.
 */
static inline void expect_no_live_allocations(void)
{
	const char *vm = getenv("FXTRACE_VM");
	long long n = live_allocations();

	if (n == -1) {
		HARNESS_CHECK(!vm || strcmp(vm, "1"), 0,
			      "%s missing in the test VM (FXTRACE_VM=1): no leak check",
			      FXTRACE_LIVE_ALLOCS_PATH);
		printf("#   (no leak check: %s is absent)\n",
		       FXTRACE_LIVE_ALLOCS_PATH);
		return;
	}
	HARNESS_CHECK(n == 0, 0, "%s is %lld after the session closed, expected 0",
		      FXTRACE_LIVE_ALLOCS_PATH, n);
}

#endif /* FXTRACE_DEV_H */
