/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_probe_context.h - what every probe needs: its CPU's ring, the
 * clock, and a build-time check of its prototype against the tracepoint's
 *
 * Shared by the hot probes (fxtrace_probes.c) and the name records
 * (fxtrace_names.c). Include <trace/events/sched.h> and
 * <trace/events/task.h> before using FXTRACE_CHECK_PROBE().
 */
#ifndef FXTRACE_PROBE_CONTEXT_H
#define FXTRACE_PROBE_CONTEXT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "fxtrace_ring.h"

/*
 * Every probe is attached with the session's rings as its @data (a per-CPU
 * pointer, fxtrace_probes_attach()); the tracepoint hands it over from the
 * probe table it is already reading, so no global is loaded on the hot path.
 */
static __always_inline struct fxtrace_ring *fxtrace_this_ring(void *data)
{
	return this_cpu_ptr((struct fxtrace_ring __percpu __force *)data);
}

/*
 * One clock for all CPUs, readable from userspace as CLOCK_BOOTTIME, and safe
 * in any context (the _fast_ accessor never waits on the timekeeping lock,
 * which a wakeup from inside a timekeeping update would otherwise deadlock on).
 */
static __always_inline u64 fxtrace_clock(void)
{
	return ktime_get_boot_fast_ns();
}

/*
 * A prototype change in a future kernel must fail the build, not corrupt
 * records at run time: compare each probe with the register_trace_<event>()
 * that <trace/events/sched.h> declares for that tracepoint.
 */
#define FXTRACE_CHECK_PROBE(event, probe)					\
	static_assert(__same_type(&register_trace_##event,			\
				  int (*)(typeof(probe) *, void *)),		\
		      #probe " does not match the tracepoint " #event)

#endif /* FXTRACE_PROBE_CONTEXT_H */
