// SPDX-License-Identifier: GPL-2.0
/*
 * plug_watermark_test - the poll() watermark of a smaller ring (uapi
 * struct fxtrace_config: a CPU not present when the rings were allocated
 * gets a ring of FXTRACE_BUF_SIZE_MIN, whose watermark is at most a
 * quarter of its own size, whatever the session's). A module that gave
 * such a ring the session's watermark (1 MiB here) would let it fill and
 * drop before any wakeup: a reader that drains on poll() alone loses the
 * CPU's records.
 *
 * The session: 4 MiB rings (watermark 1 MiB) while CPU 3 is a hot-plug
 * slot, so its ring is 64 KiB. Tracing, the test says FXT-PLUG-CPU3-READY
 * on the console (/dev/console: its stdout goes to a file), on a line of
 * its own; scripts/test-vm-absent-cpus.sh then plugs CPU 3 in through
 * QEMU's monitor. The test brings it online and runs a pipe ping-pong of
 * two processes pinned to it, and poll()s: it must return before CPU 3's
 * ring has dropped anything, with that ring holding a quarter of its
 * size or more (what woke it) and less than the whole. The other CPUs'
 * rings take far less than 1 MiB meanwhile (checked): nothing else wakes
 * the reader.
 *
 * Run by selftests/absent_cpus.sh last (CPU 2 is plugged in by then),
 * in a guest booted with QEMU -smp 2,maxcpus=4; elsewhere it skips (fails
 * in the test VM, which runs it only there).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "cpu_pin.h"
#include "fxtrace_dev.h"

#define PLUG_CPU	3
#define RING_SIZE	(4ULL << 20)
#define WAIT_S		60	/* for the plug, and for the wakeup */
#define MAX_CPUS	64

/* Say @line on the console, where the host reads the guest's output. */
static void tell_host(const char *line)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ((ssize_t)strlen(line), write(fd, line, strlen(line)));
	close(fd);
}

/* Once the host has plugged CPU @cpu in, bring it online. */
static void online_when_plugged(int cpu)
{
	char path[64];
	double deadline = now_s() + WAIT_S;
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	while (access(path, F_OK)) {
		HARNESS_CHECK(now_s() < deadline, 1,
			      "CPU %d was not plugged in within %d s (%s)",
			      cpu, WAIT_S, path);
		usleep(100 * 1000);
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(1, write(fd, "1", 1));
	close(fd);
}

/* A process on @cpu that answers each byte from @in with one on @out. */
static pid_t pinned_echo(int cpu, int in, int out)
{
	pid_t pid = fork();
	char c = 'x';

	ASSERT_TRUE(pid >= 0);
	if (pid)
		return pid;
	if (pin_to_cpu(0, cpu))
		_exit(2);
	while (read(in, &c, 1) == 1 && write(out, &c, 1) == 1)
		;
	_exit(0);
}

static __u64 pending(const struct fxtrace_ctrl *c)
{
	return __atomic_load_n(&c->producer_pos, __ATOMIC_ACQUIRE) -
	       c->consumer_pos;
}

TEST(small_ring_of_a_plugged_in_cpu_wakes_poll_at_a_quarter_of_its_size)
{
	struct fxtrace_ctrl *ctrl[MAX_CPUS] = { NULL };
	int fd, ab[2], ba[2], status, cpu, ret;
	struct fxtrace_info info;
	__u64 most_other = 0, held, dropped;
	pid_t a, b;
	double t;

	if (!cpu_possible(PLUG_CPU) || cpu_present(PLUG_CPU))
		SKIP_OR_FAIL_IN_VM("CPU %d is not a hot-plug slot (possible, not present): boot with QEMU -smp 2,maxcpus=4",
				   PLUG_CPU);
	fd = dev_open();
	ASSERT_EQ(0, dev_configure(fd, RING_SIZE, 0));
	info = dev_info(fd);
	ASSERT_LE(info.nr_cpu_ids, MAX_CPUS);
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++)
		if (cpu_possible(cpu))
			ctrl[cpu] = map_ctrl(fd, &info, cpu);
	ASSERT_EQ(FXTRACE_BUF_SIZE_MIN, ctrl[PLUG_CPU]->buf_size);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_START));

	tell_host("\nFXT-PLUG-CPU3-READY\n");
	online_when_plugged(PLUG_CPU);
	printf("#   CPU %d online, its ring %llu KiB, the others' %llu KiB\n",
	       PLUG_CPU, (unsigned long long)ctrl[PLUG_CPU]->buf_size >> 10,
	       (unsigned long long)RING_SIZE >> 10);
	/* Drained: each consumer at its producer, as a reader starts. */
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++)
		if (ctrl[cpu])
			ctrl[cpu]->consumer_pos =
				__atomic_load_n(&ctrl[cpu]->producer_pos,
						__ATOMIC_ACQUIRE);
	ASSERT_EQ(0, pipe(ab));
	ASSERT_EQ(0, pipe(ba));
	a = pinned_echo(PLUG_CPU, ba[0], ab[1]);
	b = pinned_echo(PLUG_CPU, ab[0], ba[1]);
	ASSERT_EQ(1, write(ab[1], "x", 1));

	t = now_s();
	ret = poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1,
		   WAIT_S * 1000);
	/* As poll() returned: the ring goes on filling until the kill. */
	held = pending(ctrl[PLUG_CPU]);
	dropped = ctrl[PLUG_CPU]->records_dropped;
	t = now_s() - t;
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, &status, 0);
	waitpid(b, &status, 0);
	for (cpu = 0; cpu < (int)info.nr_cpu_ids; cpu++)
		if (ctrl[cpu] && cpu != PLUG_CPU && pending(ctrl[cpu]) > most_other)
			most_other = pending(ctrl[cpu]);
	printf("#   poll() returned %d after %.3f s, CPU %d's ring then holding %llu bytes, %llu records dropped (%llu written by the end); the most another ring holds: %llu bytes\n",
	       ret, t, PLUG_CPU, (unsigned long long)held,
	       (unsigned long long)dropped,
	       (unsigned long long)ctrl[PLUG_CPU]->records_written,
	       (unsigned long long)most_other);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_STOP));
	EXPECT_LE(1, ctrl[PLUG_CPU]->records_written);
	HARNESS_CHECK(ret == 1, 0, "poll() did not wake within %d s", WAIT_S);
	/*
	 * Woken at its watermark, with records pending and none dropped:
	 * not only when it dropped, which wakes a reader whatever the
	 * watermark.
	 */
	EXPECT_EQ(0, dropped);
	EXPECT_LE(1, held);
	EXPECT_LE(held, FXTRACE_BUF_SIZE_MIN - 1);
	/* No other ring was near its watermark: CPU 3's woke the reader. */
	EXPECT_LE(most_other, RING_SIZE / 8);
	close(fd);
}

TEST_MAIN()
