// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_probes.c - the tracepoint probes and the records they write
 *
 * Scheduling: sched_switch, sched_waking, sched_wakeup{,_new}. Names:
 * sched_wakeup_new (every new task, before its first run), sched_process_exec
 * and task_rename, so that a thread born and gone during the trace is still
 * named. None of these tracepoints is exported to modules, so they are found
 * by name with for_each_kernel_tracepoint() and attached with
 * tracepoint_probe_register() (docs/decisions.md, decision 2).
 *
 * Each probe that writes a record reserves room in the current CPU's ring,
 * builds the record there and publishes it, with interrupts disabled (the
 * sched_waking probe writes none: it notes the waker in fxtrace_wakers,
 * with interrupts as its caller left them): a wakeup from an
 * interrupt can arrive in the middle of another probe on the same CPU
 * (docs/decisions.md, decision 3), and disabling interrupts across "read
 * the clock, reserve, write, publish" keeps every ring's records whole and
 * in timestamp order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "fxtrace_alloc.h"
#include "fxtrace_compat.h"
#include "fxtrace_names.h"
#include "fxtrace_probe_context.h"
#include "fxtrace_probes.h"
#include "fxtrace_record.h"
#include "fxtrace_ring.h"

/*
 * Who woke whom. sched_waking always runs in the waker's context, but for a
 * remote wakeup (TTWU_QUEUE) sched_wakeup runs later on the target CPU,
 * wherever that CPU flushes its queue of wakeups: in the IPI, in the idle
 * loop, or in its stopper thread (migration_cpu_stop() flushes the queue
 * before it moves a task), where current is migration/N: never the waker.
 * sched_waking leaves (wakee tid << 32 | waker tid) in a slot chosen by the
 * task pointer; sched_wakeup only reads it, names the waker if the wakee
 * matches, and otherwise writes no waker, never a wrong one. So a wakeup
 * whose slot another wakee that hashes to it took in between, or whose
 * sched_waking ran before START cleared the table, loses its waker, and
 * nothing else. Nothing clears a slot once read, and nothing needs to:
 * sched_waking(p) and sched_wakeup(p) come in pairs, so p's next wakeup
 * reads what its own sched_waking wrote there, not this one; until then
 * the next sched_waking of any task that hashes to the slot overwrites it.
 * A second sched_waking(p) cannot come between the two: try_to_wake_up()
 * holds p->pi_lock from sched_waking(p) until either sched_wakeup(p) (p
 * still on its runqueue) or it has made p TASK_WAKING, which no wakeup's
 * state mask matches, and p stays so until ttwu_do_wakeup() sets it
 * running just before sched_wakeup(p). The one exception is a task waking
 * itself (p == current), which takes no lock, interrupts on. An
 * interrupt's wakeup of it can nest between the two and leave (p, 0),
 * interrupt context having no waker, so the outer sched_wakeup writes
 * none either. And another CPU's wakeup of it, under p->pi_lock, which
 * the self-wake does not take, can run alongside and overwrite the slot
 * in between, so either wakeup record may name the other's waker: p
 * itself, or the other task. Both did wake p; no record names a task
 * that did not.
 * The table is shared by all CPUs: a slot is written by whichever CPU wakes
 * a task that hashes to it, and read on the CPU the task wakes up on. Apart
 * from hash collisions, those are the two CPUs already exchanging the woken
 * task's cache lines. START clears the table, so no slot left by an
 * earlier session can name a waker (fxtrace_probes_attach() orders the
 * clearing before the probes' accesses to it).
 */
#define FXTRACE_WAKER_BITS	10
static u64 fxtrace_wakers[1 << FXTRACE_WAKER_BITS];

/* Before the probes are attached: no waker slot is in use. */
static void fxtrace_wakers_clear(void)
{
	memset(fxtrace_wakers, 0, sizeof(fxtrace_wakers));
}

/* The weight Perfetto reads as the priority, or marks an idle task with. */
static __always_inline u32 fxtrace_weight(const struct task_struct *p)
{
	return is_idle_task(p) ? FXTRACE_WEIGHT_IDLE : (u32)p->prio;
}

/* A wakeup's waker: none from interrupt context or from the idle task. */
static __always_inline u32 fxtrace_current_waker(void)
{
	if (!in_task() || is_idle_task(current))
		return 0;
	return current->pid;
}

/*
 * Linux's prev_state as an FXT thread state, and whether linux_state goes
 * with it. FXT has no uninterruptible sleep, so S, D, I, parked and the
 * PREEMPT_RT lock waits are all "blocked"; the raw value travels in the
 * linux_state argument for tools that care, except where the FXT state
 * already tells it (uapi header, "Records"): TASK_RUNNING for a preempted
 * or yielding task, TASK_INTERRUPTIBLE for a blocked one, with or without
 * TASK_FREEZABLE (futex waits and nanosleep have it since 6.1; it says
 * nothing about the kind of sleep). That leaves linux_state out of most
 * switches. Each case is one constant: no more work on the hot path than
 * the state alone.
 *
 * A task that called schedule() in a sleeping state with a signal pending
 * did not sleep: __schedule() set it back to TASK_RUNNING and left it on
 * its runqueue, but Linux before 6.16 still passes the state it read first
 * (fixed there by 8feb053d5319, "sched: Fix
 * trace_sched_switch(.prev_state)"). It is running, as later kernels say:
 * otherwise a reader sees it asleep until it runs again, with no wakeup.
 * Nothing else makes a task that is switching out, not preempted, running
 * (a wakeup racing with it needs this runqueue's lock, held here, or
 * leaves it TASK_WAKING), so reading the state back tells that case; one
 * load more, for sleeping switches only.
 */
static __always_inline u64 fxtrace_switch_form(bool preempt,
					       const struct task_struct *prev,
					       unsigned int prev_state)
{
	if (prev_state == TASK_RUNNING)
		return FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_RUNNING, 5, 1);
	if (preempt)
		return FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_RUNNING, 6, 2);
	if (task_is_running(prev))
		return FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_RUNNING, 5, 1);
	if ((prev_state & ~TASK_FREEZABLE) == TASK_INTERRUPTIBLE)
		return FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_BLOCKED, 5, 1);
	if (prev_state & TASK_DEAD)
		return (READ_ONCE(prev->exit_state) & EXIT_ZOMBIE) ?
			FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_DYING, 6, 2) :
			FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_DEAD, 6, 2);
	if (prev_state & (__TASK_STOPPED | __TASK_TRACED))
		return FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_SUSPENDED, 6, 2);
	return FXTRACE_SWITCH_FORM(FXT_THREAD_STATE_BLOCKED, 6, 2);
}

/*
 * The hot path: this probe and the wakeup probes below run on every context
 * switch and wakeup of the machine. What each record costs, all of it
 * (measured in docs/performance.md, in instructions per record on Debian's
 * 6.1; the tracepoint call itself, probe empty, is about 35):
 *   - local_irq_save()/restore(): pushf/pop/cli, then a test of the saved
 *     flag (sti only if interrupts were on: never for sched_switch, nor for
 *     most wakeups, which run under the woken task's pi_lock with them off;
 *     but a task waking itself, try_to_wake_up(current), calls both wakeup
 *     tracepoints with interrupts on). Needed so an interrupt's wakeup
 *     cannot land in the middle of this record (docs/decisions.md,
 *     decision 3).
 *   - one clock read (fxtrace_clock()), about 50, the largest single cost:
 *     the timekeeper's NMI-safe fast copy (a seqcount latch the timekeeping
 *     CPU rewrites once per tick: read-shared, no lock), then rdtsc through
 *     the clocksource's read() pointer, an indirect call (a retpoline where
 *     Spectre v2 mitigations are on), then a multiply and a shift. A cheaper
 *     per-CPU clock (local_clock()) is not CLOCK_BOOTTIME, which the file
 *     format and userspace rely on (docs/decisions.md, decision 6).
 *   - the task fields (pid, prio, exit_state, and for a sleeping switch
 *     __state read back, fxtrace_switch_form(): +2 instructions an event in
 *     pp1): cache lines the scheduler has just touched for this switch.
 *   - fxtrace_ring_reserve(): a store to this CPU's own control cache line
 *     (tracepoint_hits) and the private copy, one acquire load of
 *     consumer_pos (a line shared with the reader only, which writes it
 *     once per drain), two compares for room.
 *   - the record's 5 to 7 (switch), 5 or 3 (wakeup) words, stored straight
 *     into this CPU's data area (no stack copy, so nothing for
 *     CONFIG_INIT_STACK_ALL_ZERO to zero and no stack canary). Every byte
 *     costs again in the collector's write(): a switch leaves out
 *     linux_state when the FXT state implies it (fxtrace_switch_form():
 *     one compare more than the state alone needs), and outgoing_weight
 *     when this CPU's last switch said it (a load, a compare and a
 *     store of running_weight, on the ring's second line, which the
 *     record's other fields already need). The header's fixed part
 *     (record type, kind, this CPU) is kept in the ring, and each of the
 *     two wakeup forms is built with its size as a constant (-15 and -22
 *     instructions an event in pp1 and sw, docs/performance.md).
 *   - no local_irq_save() would be needed in sched_switch (the scheduler
 *     has interrupts off), but leaving it out saved 0-4 instructions per
 *     event: not worth an assumption about the caller.
 *   - fxtrace_ring_commit(): two more stores to the control line
 *     (records_written, producer_pos) and a compare with the watermark. The
 *     irq_work that wakes the reader is queued only when the watermark is
 *     crossed, once per drain (its two atomics, claiming the work and
 *     adding it to the CPU's list, are there). Only while the
 *     reader is a watermark or more behind: a full barrier and a second
 *     load of consumer_pos, so that a reader that just drained and slept
 *     is not missed.
 *   - wakeups only: the waker slot (fxtrace_wakers), one hash of the task
 *     pointer and one load; the one cache line another CPU may have written
 *     (sched_waking on the waker's CPU), and only for the woken task's slot.
 *     sched_waking is a second tracepoint call per wakeup (its probe: the
 *     hash and one store).
 * Otherwise (the irq_work once per drain aside) there is no division, no
 * allocation, no lock and no atomic read-modify-write.
 */
static void fxtrace_probe_sched_switch(void *data, bool preempt,
				       struct task_struct *prev,
				       struct task_struct *next,
				       unsigned int prev_state)
{
	struct fxtrace_ring *ring;
	struct fxtrace_slot slot;
	unsigned long flags;
	u64 *rec, ts, form;
	u32 w_prev, w_next;
	bool out_arg;

	local_irq_save(flags);
	ring = fxtrace_this_ring(data);
	ts = fxtrace_clock();
	/*
	 * Room for the long form, both optional arguments included, which are
	 * always stored; the commit publishes only the words the form has.
	 * Deciding the form after the clock call keeps prev and next in
	 * registers across it.
	 */
	if (!fxtrace_ring_reserve(ring, FXTRACE_SWITCH_WORDS, ts, &slot))
		goto out_irq_restore;
	form = fxtrace_switch_form(preempt, prev, prev_state);
	w_prev = fxtrace_weight(prev);
	w_next = fxtrace_weight(next);
	/*
	 * outgoing_weight only where this ring does not already say it: prev
	 * came in with this CPU's last switch, whose incoming_weight is
	 * running_weight. An idle task's is never left out (Perfetto's
	 * marker), so running_weight is unknown while it runs, as after
	 * START and a drop; no weight equals unknown.
	 */
	out_arg = w_prev != ring->running_weight;
	if (out_arg)
		form += FXTRACE_SWITCH_ONE_ARG;
	ring->running_weight = is_idle_task(next) ? FXTRACE_WEIGHT_UNKNOWN :
						    w_next;
	rec = slot.rec;
	rec[0] = ring->switch_hdr | form;
	rec[1] = ts;
	rec[2] = prev->pid;
	rec[3] = next->pid;
	rec[4] = fxt_arg_word(FXT_ARG_INT32, FXTRACE_STR_INCOMING_WEIGHT,
			      w_next);
	/* Both stored; without outgoing_weight, linux_state takes its word. */
	rec[5] = fxt_arg_word(FXT_ARG_INT32, FXTRACE_STR_OUTGOING_WEIGHT,
			      w_prev);
	rec[5 + out_arg] = fxt_arg_word(FXT_ARG_UINT32, FXTRACE_STR_LINUX_STATE,
					prev_state);
	fxtrace_ring_commit(ring, &slot,
			    (form >> FXT_HDR_SIZE_SHIFT) & FXT_HDR_SIZE_MASK);
out_irq_restore:
	local_irq_restore(flags);
}

/* @words is a constant in each caller: no size computed at run time. */
static __always_inline void fxtrace_put_wakeup(void *data,
					       struct task_struct *p,
					       u32 waker, unsigned int words)
{
	struct fxtrace_ring *ring;
	struct fxtrace_slot slot;
	unsigned long flags;
	u64 *rec, ts;

	local_irq_save(flags);
	ring = fxtrace_this_ring(data);
	ts = fxtrace_clock();
	if (!fxtrace_ring_reserve(ring, words, ts, &slot))
		goto out_irq_restore;
	rec = slot.rec;
	rec[0] = fxt_sched_header(FXT_SCHED_KIND_WAKEUP, words, waker ? 1 : 0,
				  task_cpu(p));
	rec[1] = ts;
	rec[2] = p->pid;
	if (waker) {
		rec[3] = fxt_arg_header2(FXT_ARG_KOID, FXTRACE_STR_WAKER);
		rec[4] = waker;
	}
	fxtrace_ring_commit(ring, &slot, words);
out_irq_restore:
	local_irq_restore(flags);
}

static void fxtrace_write_wakeup(void *data, struct task_struct *p, u32 waker)
{
	if (waker)
		fxtrace_put_wakeup(data, p, waker, FXTRACE_WAKEUP_WORDS);
	else
		fxtrace_put_wakeup(data, p, 0, FXTRACE_WAKEUP_NO_WAKER_WORDS);
}

static void fxtrace_probe_sched_waking(void *data, struct task_struct *p)
{
	u64 slot = ((u64)(u32)p->pid << 32) | fxtrace_current_waker();

	WRITE_ONCE(fxtrace_wakers[hash_ptr(p, FXTRACE_WAKER_BITS)], slot);
}

static void fxtrace_probe_sched_wakeup(void *data, struct task_struct *p)
{
	u64 slot = READ_ONCE(fxtrace_wakers[hash_ptr(p, FXTRACE_WAKER_BITS)]);

	/* On a mismatch no waker, not current: see fxtrace_wakers. */
	if ((u32)(slot >> 32) == (u32)p->pid)
		fxtrace_write_wakeup(data, p, (u32)slot);
	else
		fxtrace_write_wakeup(data, p, 0);
}

/*
 * wake_up_new_task() runs in the parent, which is the waker; no sched_waking.
 * Every new task comes here once, before it first runs, whatever created it,
 * so its names are written here, before the wakeup record. Not at
 * sched_process_fork: that fires only in kernel_clone(), and a task made by
 * copy_process() alone, with its comm set there and no task_rename (a vhost
 * worker on 6.12, vhost_task_create()), would never be named. The name code
 * is in fxtrace_names.c, linked after this file, so that it takes no room
 * in the module's first text page, which the hot probes share
 * (scripts/check-hot-text.sh).
 */
static void fxtrace_probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	fxtrace_write_names(data, p, p->comm, thread_group_leader(p), true);
	fxtrace_write_wakeup(data, p, fxtrace_current_waker());
}

FXTRACE_CHECK_PROBE(sched_switch, fxtrace_probe_sched_switch);
FXTRACE_CHECK_PROBE(sched_waking, fxtrace_probe_sched_waking);
FXTRACE_CHECK_PROBE(sched_wakeup, fxtrace_probe_sched_wakeup);
FXTRACE_CHECK_PROBE(sched_wakeup_new, fxtrace_probe_sched_wakeup_new);

/* wakers: the probe uses fxtrace_wakers (see fxtrace_probes_attach()). */
struct fxtrace_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
	bool wakers;
};

/*
 * Attach order (detach is the reverse). Each attach patches kernel text and
 * takes a while (tens of ms under emulation), so the order decides what a
 * trace's first moments look like:
 *   - sched_switch first: until a thread's first switch its state is
 *     unknown anyway, but wakeups recorded with no switches around them
 *     (the old order) made threads look runnable for seconds;
 *   - then the name probes: sched_wakeup_new, which names every task
 *     created from here on before its first wakeup record (and writes that
 *     record), then sched_process_exec and task_rename;
 *   - sched_waking before sched_wakeup, so the waker table is filled first.
 */
static struct fxtrace_probe fxtrace_probes[] = {
	{ "sched_switch", fxtrace_probe_sched_switch },
	{ "sched_wakeup_new", fxtrace_probe_sched_wakeup_new },
	{ "sched_process_exec", fxtrace_probe_sched_process_exec },
	{ "task_rename", fxtrace_probe_task_rename },
	{ "sched_waking", fxtrace_probe_sched_waking, .wakers = true },
	{ "sched_wakeup", fxtrace_probe_sched_wakeup, .wakers = true },
};

static void fxtrace_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fxtrace_probes); i++) {
		if (!strcmp(tp->name, fxtrace_probes[i].name))
			fxtrace_probes[i].tp = tp;
	}
}

/**
 * fxtrace_probes_init() - find the scheduler tracepoints by name
 *
 * Return: 0, or -ENOENT (logged) if the kernel lacks one of them.
 */
int fxtrace_probes_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(fxtrace_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(fxtrace_probes); i++) {
		if (!fxtrace_probes[i].tp) {
			pr_err("tracepoint %s not found; this kernel cannot be traced\n",
			       fxtrace_probes[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * On a valid call tracepoint_probe_register() fails only when it cannot
 * allocate the tracepoint's new array of probes (-ENOMEM), so it is one of
 * the allocations the fault injection can fail (fxtrace_alloc.h): that is
 * how the selftests reach the unwinding below.
 */
static int fxtrace_probe_register(const struct fxtrace_probe *probe,
				  void *data)
{
	if (fxtrace_alloc_fails())
		return -ENOMEM;
	return tracepoint_probe_register(probe->tp, probe->func, data);
}

/**
 * fxtrace_probes_attach() - start writing records into @rings
 * @rings: the session's rings, one per possible CPU
 *
 * Context: process context, not attached. Sleeps.
 * Return: 0, or the error of the tracepoint that could not be attached
 * (everything attached before it is detached again).
 */
int fxtrace_probes_attach(struct fxtrace_ring __percpu *rings)
{
	void *data = (void __force *)rings;
	unsigned long cleared;
	unsigned int i;
	int cpu, ret;

	/*
	 * Every CPU's chain of switches starts over, and a loss no record
	 * marked before STOP stays unmarked (uapi "Records", "Loss markers").
	 */
	for_each_possible_cpu(cpu)
		fxtrace_ring_start(per_cpu_ptr(rings, cpu));
	/*
	 * No probe of an earlier session runs any more (its detach, or the
	 * unwinding below, waited for them), so nothing writes a stale slot
	 * after this.
	 */
	fxtrace_wakers_clear();
	cleared = start_poll_synchronize_rcu();

	/*
	 * tracepoint_probe_register() publishes the probe and its @data with
	 * rcu_assign_pointer(), a release. Its partner is the
	 * rcu_dereference_raw() of tp->funcs in __DO_TRACE_CALL(), which
	 * loads @data for the probe call: the rings, reached through @data,
	 * are seen initialized. The waker table is not reached through it,
	 * and that load orders no later load on every architecture (x86 is
	 * TSO, but arm64 may read a slot before it), nor does anything else in
	 * the registration for certain (it patches text, with its IPIs, only
	 * when a tracepoint goes from none to one probe, or, with static
	 * calls, from one to two: perf or ftrace may already hold both). A grace
	 * period does: the table is cleared before it starts, and the two
	 * probes that use the table are attached after it ends, so their
	 * every call sees the table cleared. Its partner is the
	 * preempt-disabled section of __DO_TRACE() around each probe call:
	 * an RCU reader that reads a registration made after the grace
	 * period ended sees everything written before it began. The grace
	 * period runs while the probes before them are attached: START waits
	 * only for what is left of it. The probes themselves do no more.
	 */
	for (i = 0; i < ARRAY_SIZE(fxtrace_probes); i++) {
		if (fxtrace_probes[i].wakers)
			cond_synchronize_rcu(cleared);
		ret = fxtrace_probe_register(&fxtrace_probes[i], data);
		if (ret) {
			pr_err("attaching to tracepoint %s failed (%d)\n",
			       fxtrace_probes[i].name, ret);
			goto out_unregister;
		}
	}
	return 0;

out_unregister:
	while (i--)
		tracepoint_probe_unregister(fxtrace_probes[i].tp,
					    fxtrace_probes[i].func, data);
	tracepoint_synchronize_unregister();
	return ret;
}

/**
 * fxtrace_probes_detach() - stop writing and wait for running probes to end
 * @rings: the rings passed to fxtrace_probes_attach()
 *
 * Context: process context, attached. Sleeps. On return no probe is running
 * or will run, so @rings may be freed.
 */
void fxtrace_probes_detach(struct fxtrace_ring __percpu *rings)
{
	void *data = (void __force *)rings;
	unsigned int i = ARRAY_SIZE(fxtrace_probes);

	/* A probe is found by function and data: other rings would fail here. */
	while (i--)
		WARN_ON_ONCE(tracepoint_probe_unregister(fxtrace_probes[i].tp,
							 fxtrace_probes[i].func,
							 data));
	tracepoint_synchronize_unregister();
}
