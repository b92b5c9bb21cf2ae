/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpu_pin.h - pin a task to one CPU: the tests and workloads that need
 * their context switches in one CPU's ring; and which CPUs there are to
 * pin to
 *
 * cpu_set_t and sched_setaffinity() are GNU extensions: define _GNU_SOURCE
 * before the first #include of the file that includes this one.
 */
#ifndef FXTRACE_CPU_PIN_H
#define FXTRACE_CPU_PIN_H

#ifndef _GNU_SOURCE
#error "cpu_pin.h: define _GNU_SOURCE before the first #include (cpu_set_t)"
#endif

#include <sched.h>
#include <sys/types.h>

/* Let task @tid (0: the calling thread) run on @cpu only. 0, or -1 and errno. */
static inline int pin_to_cpu(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set);
}

/*
 * The first @max CPUs the calling thread may run on, in order, into @cpus:
 * how many there are (fewer than @max if it may run on fewer), or -1 and
 * errno. For the tests that need two CPUs of their own choosing.
 */
static inline int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

#endif /* FXTRACE_CPU_PIN_H */
