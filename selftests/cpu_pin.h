/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpu_pin.h - pin a task to one CPU: the tests and workloads that need
 * their context switches in one CPU's ring
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

#endif /* FXTRACE_CPU_PIN_H */
