/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fixtures.h - a small FXT trace builder (on libfxt's writer) and the
 * hand-made traces that both the unit tests (test_fxt_sched.c) and the
 * command-line tests (mk_fixture.c, test_cli.sh) check. The expected
 * answers are worked out in the comment above each trace.
 */
#ifndef FIXTURES_H
#define FIXTURES_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "fxt_write.h"

#define IDLE	(-1)
#define FX_UNUSED __attribute__((unused))

/* ---- trace builder ---- */
struct tb {
	struct fxt_writer w;
};

FX_UNUSED
static void tb_begin(struct tb *t, uint64_t tps)
{
	const char *p = &FXTRACE_STRING_TABLE[1];
	int i;

	fxt_writer_init_dynamic(&t->w);
	fxt_write_magic(&t->w);
	fxt_write_provider_info(&t->w, 1, "fxtrace", 7);
	fxt_write_provider_section(&t->w, 1);
	fxt_write_initialization(&t->w, tps);
	for (i = 1; i < FXTRACE_STR_COUNT; i++) {
		fxt_write_string(&t->w, (uint16_t)i, p, strlen(p));
		p += strlen(p) + 1;
	}
}

/* out/in: tid, or IDLE for the idle task (tid 0, weight INT32_MIN) */
FX_UNUSED
static void tb_switch(struct tb *t, unsigned cpu, uint64_t ts, int64_t out,
		      int64_t in, unsigned state)
{
	struct fxt_context_switch cs = { cpu, state, ts,
		out == IDLE ? 0 : (uint64_t)out, in == IDLE ? 0 : (uint64_t)in };
	struct fxt_arg a[3] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_INCOMING_WEIGHT),
			      in == IDLE ? INT32_MIN : 120),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_OUTGOING_WEIGHT),
			      out == IDLE ? INT32_MIN : 120),
		fxt_arg_uint32(fxt_str_index(FXTRACE_STR_LINUX_STATE), 0),
	};

	fxt_write_context_switch(&t->w, &cs, a, 3);
}

FX_UNUSED
static void tb_wake(struct tb *t, unsigned cpu, uint64_t ts, uint64_t tid,
		    uint64_t waker)
{
	struct fxt_wakeup wk = { cpu, ts, tid };
	struct fxt_arg a[2] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_WEIGHT), 120),
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), waker),
	};

	fxt_write_wakeup(&t->w, &wk, a, waker ? 2 : 1);
}

FX_UNUSED
static void tb_thread(struct tb *t, uint64_t tid, uint64_t pid, const char *name)
{
	struct fxt_kernel_object o = { FXT_OBJ_TYPE_THREAD, fxt_str_c(name), tid };
	struct fxt_arg a = fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS), pid);

	fxt_write_kernel_object(&t->w, &o, &a, 1);
}

/* The module's record for a thread created now (sched_wakeup_new): its
 * name, its process and new_task = 1 (uapi, "Names"). */
FX_UNUSED
static void tb_new_thread(struct tb *t, uint64_t tid, uint64_t pid,
			  const char *name)
{
	struct fxt_kernel_object o = { FXT_OBJ_TYPE_THREAD, fxt_str_c(name), tid };
	struct fxt_arg a[2] = {
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS), pid),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_NEW_TASK), 1),
	};

	fxt_write_kernel_object(&t->w, &o, a, 2);
}

FX_UNUSED
static void tb_process(struct tb *t, uint64_t pid, const char *name)
{
	struct fxt_kernel_object o = { FXT_OBJ_TYPE_PROCESS, fxt_str_c(name), pid };

	fxt_write_kernel_object(&t->w, &o, NULL, 0);
}

/* One hole marker, counter @name (category fxtrace, id @cpu, int64
 * argument "cpu"): @amount at @ts (0: the hole ends). */
FX_UNUSED
static void tb_hole_marker(struct tb *t, const char *name, unsigned cpu,
			   uint64_t ts, int64_t amount)
{
	struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
		fxt_str_c("fxtrace"), fxt_str_c(name), ts, cpu };
	struct fxt_arg a = fxt_arg_int64(fxt_str_c("cpu"), amount);

	fxt_write_event(&t->w, &ev, &a, 1);
}

/* A hole marker pair: @amount from @t1 on, 0 at @t2, the next record. */
FX_UNUSED
static void tb_hole_pair(struct tb *t, const char *name, unsigned cpu,
			 uint64_t t1, uint64_t t2, int64_t amount)
{
	tb_hole_marker(t, name, cpu, t1, amount);
	tb_hole_marker(t, name, cpu, t2, 0);
}

/* A kernel loss marker pair as fxtrace's kernel writes it (uapi header):
 * @lost records lost on @cpu from @t1 on; the next record is at @t2. */
FX_UNUSED
static void tb_lost(struct tb *t, unsigned cpu, uint64_t t1,
			      uint64_t t2, int64_t lost)
{
	tb_hole_pair(t, "records_lost", cpu, t1, t2, lost);
}

/* fxt-collect's marker of ring data it skipped as invalid (collector
 * archive_write_skip_marker()): the kernel's shape, named bytes_skipped,
 * @bytes on @cpu from @t1 on; the next record is at @t2. */
FX_UNUSED
static void tb_skipped(struct tb *t, unsigned cpu, uint64_t t1,
			       uint64_t t2, int64_t bytes)
{
	tb_hole_pair(t, "bytes_skipped", cpu, t1, t2, bytes);
}

/* Two threads of two processes, names at the end of the file. The first
 * record is a switch on cpu1, so A's first wakeup is not before the
 * trace's first switch (see start_of_trace_*). */
FX_UNUSED
static void build_filtered(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 1, 1000, IDLE, 301, 0);
	/* A (pid 100) waits 1000..1100 and 3000..3400; C (pid 200) 2000..2050 */
	tb_wake(t, 0, 1000, 101, 0);
	tb_switch(t, 0, 1100, IDLE, 101, 0);
	tb_switch(t, 0, 1200, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 0, 2000, 201, 0);
	tb_switch(t, 0, 2050, IDLE, 201, 0);
	tb_switch(t, 0, 2100, 201, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 0, 3000, 101, 0);
	tb_switch(t, 0, 3400, IDLE, 101, 0);
	tb_switch(t, 0, 3500, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_process(t, 100, "app");
	tb_process(t, 200, "other");
	tb_thread(t, 101, 100, "app-main");
	tb_thread(t, 201, 200, "other-1");
}

/*
 * The start of a real trace (fxtrace attaches sched_switch after the
 * wakeup tracepoints): wakeups before the first context switch.
 *   1000 wakeup 126 (cpu1, by 127)     first record; 126's switches around
 *   1300 wakeup 15 (cpu0, no waker)    it and 15's are not in the trace
 *   4000 cpu0 127 -> 124 (127 blocked)  first context switch
 *   4300 cpu1 125 -> 126 (125 preempted: clock from 4300)
 *   5000 cpu0 124 -> idle; wakeup 125 (already runnable: no restart)
 *   6000 wakeup 20 (cpu0; never seen: taken as sleeping)
 *   6500 cpu0 idle -> 20              20: wakeup latency 500
 *   7000 wakeup 20 (running: ignored)
 *   8800 wakeup 15 (its clock from 1300 will not count: its state is
 *        unknown, and this wakeup, in a complete trace, starts a clock)
 *   9000 cpu0 20 -> 15 (20 blocked)   15: wakeup latency 200, not 7700
 *   9100 cpu1 126 -> 125 (126 blocked) 125: preempt latency 4800
 * Counted: wakeup 2 (500 tid 20, 200 tid 15), preempt 1 (4800, tid 125);
 * not counted: 1 begun before the first switch (126's, ending at 4300).
 * cpu0 from its first switch (127's slice before it is not counted): 124
 * 4000..5000, idle 5000..6500, 20 6500..9000, 15 from 9000 to the
 * trace's end (9100): busy 3600, idle 1500.
 * cpu1: 126 4300..9100 (125 from then on: 0 ns to the end): busy 4800.
 */
FX_UNUSED
static void build_start(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_wake(t, 1, 1000, 126, 127);
	tb_wake(t, 0, 1300, 15, 0);
	tb_switch(t, 0, 4000, 127, 124, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 1, 4300, 125, 126, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 5000, 124, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 1, 5000, 125, 0);
	tb_wake(t, 0, 6000, 20, 0);
	tb_switch(t, 0, 6500, IDLE, 20, 0);
	tb_wake(t, 0, 7000, 20, 0);
	tb_wake(t, 0, 8800, 15, 0);
	tb_switch(t, 0, 9000, 20, 15, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 1, 9100, 126, 125, FXT_THREAD_STATE_BLOCKED);
	tb_process(t, 15, "rcu_preempt");
	tb_thread(t, 15, 15, "rcu_preempt");
	tb_thread(t, 20, 20, "kworker");
	tb_thread(t, 125, 123, "fxt-collect");
	tb_thread(t, 126, 123, "pong");
}

/*
 * A reused tid. The collector names 101 "old-name" (pid 100) at the start.
 * cpu1's ring comes first in the file, and holds the kernel's records for
 * a new thread 101 "new-name" in a new process 200 "newproc", forked by
 * 102 on cpu1 at 3000 (just before its wakeup_new):
 *   cpu1: 1100 idle -> 102; [process 200, thread 101 new-name];
 *         3000 wakeup 101 (by 102); 3400 102 -> 101 (102 preempted);
 *         4000 101 -> idle (blocked)
 *   cpu0: 1000 idle -> 101; 2000 101 -> idle (dead)
 * and at the end the collector names 101 "new-name" (pid 200) again.
 * The names take effect at 3000, after the old 101 died at 2000:
 *   101 "old-name" pid 100: runtime 1000, 1 voluntary switch, no interval
 *   101 "new-name" pid 200: wakeup latency 400 (3000..3400), runtime 600
 *   102: runtime 2300 (1100..3400), 1 involuntary switch
 * Read in file order instead, the old thread's second would be new-name's.
 */
FX_UNUSED
static void build_reuse(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_process(t, 100, "oldproc");
	tb_thread(t, 101, 100, "old-name");
	tb_thread(t, 102, 100, "forker");
	tb_switch(t, 1, 1100, IDLE, 102, 0);
	tb_process(t, 200, "newproc");
	tb_thread(t, 101, 200, "new-name");
	tb_wake(t, 1, 3000, 101, 102);
	tb_switch(t, 1, 3400, 102, 101, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 1, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_thread(t, 101, 200, "new-name");
}

/*
 * A hole in cpu1's records: 4 records lost from 2000; the next one, at
 * 3000, is preceded by the kernel's marker pair. cpu0's ring is first in
 * the file, so the markers come after records up to 6200.
 *   cpu0: 1000 idle -> A(101); 1200 wakeup C(103) (in cpu1's ring, by B);
 *         2500 wakeup D(104) (cpu0 ring) - inside the hole;
 *         3500 wakeup E(105) - after it; 4000 wakeup C again;
 *         5000 A -> C (A preempted); 5500 C -> D (blocked);
 *         6000 D -> E (blocked); 6200 E -> A (blocked)
 *   cpu1: 1000 idle -> B(102); [hole 2000..3000]; 3000 B -> idle
 * C waited across the hole's start: its clock from 1200 does not count.
 * It may have run in the hole, unseen, and been preempted there: the
 * wakeup at 4000 may not start its wait (or, if C waited throughout, it is
 * a wakeup of a runnable thread), so the clock it starts is not counted
 * either. D's began inside the hole: not counted. E is first seen after
 * the hole, and may have been in it the same way as C: its wakeup at
 * 3500 starts a clock that is not counted either.
 * Counted: A preempt 1200 (5000..6200).
 * Not counted: 3 (C's, D's, E's 2500 from 3500 to 6000).
 * cpu1: busy 1000 (B, 1000..2000; then unknown until 3000), idle 3200
 * (3000 to the trace's end, 6200).
 * cpu0: busy 5200 (A 4000, C 500, D 500, E 200; A from 6200 on: 0 ns to
 * the trace's end), idle 0.
 */
FX_UNUSED
static void build_holes_as(struct tb *t, bool skipped);

FX_UNUSED
static void build_holes(struct tb *t)
{
	build_holes_as(t, false);
}

/* The same hole, marked by fxt-collect: 6544 bytes skipped as invalid. */
FX_UNUSED
static void build_skip_holes(struct tb *t)
{
	build_holes_as(t, true);
}

/* The holes trace's records, after tb_begin() */
FX_UNUSED
static void holes_records(struct tb *t, bool skipped)
{
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_wake(t, 0, 2500, 104, 101);
	tb_wake(t, 0, 3500, 105, 101);
	tb_wake(t, 0, 4000, 103, 101);
	tb_switch(t, 0, 5000, 101, 103, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 5500, 103, 104, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 6000, 104, 105, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 6200, 105, 101, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_wake(t, 0, 1200, 103, 102);
	if (skipped)
		tb_skipped(t, 1, 2000, 3000, 6544);
	else
		tb_lost(t, 1, 2000, 3000, 4);
	tb_switch(t, 1, 3000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
}

static void build_holes_as(struct tb *t, bool skipped)
{
	tb_begin(t, 1000000000);
	holes_records(t, skipped);
}

/* fxt-collect's records_dropped sample (collector archive_meta.c): every
 * CPU's count of records the kernel dropped, at @ts; here cpu0 and cpu1,
 * @dropped each. It writes one before the rings' data, one after it. */
FX_UNUSED
static void tb_drop_sample(struct tb *t, uint64_t ts, int64_t dropped)
{
	struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
		fxt_str_c("fxtrace"), fxt_str_c("records_dropped"), ts, 0 };
	struct fxt_arg a[2] = { fxt_arg_int64(fxt_str_c("cpu0"), dropped),
				fxt_arg_int64(fxt_str_c("cpu1"), dropped) };

	fxt_write_event(&t->w, &ev, a, 2);
}

/* A drop marker as fxt-collect writes one among the rings' data: a
 * "buffer full" provider event, then records_dropped with the one CPU
 * whose count grew. */
FX_UNUSED
static void tb_drop_marker(struct tb *t, uint64_t ts, unsigned int cpu,
			   int64_t dropped)
{
	struct fxt_event ev = { FXT_EVENT_COUNTER, { 0, 5, 5 },
		fxt_str_c("fxtrace"), fxt_str_c("records_dropped"), ts, 0 };
	char name[16];
	struct fxt_arg a;

	snprintf(name, sizeof(name), "cpu%u", cpu);
	a = fxt_arg_int64(fxt_str_c(name), dropped);
	fxt_write_provider_event(&t->w, 1, FXT_PROVIDER_EVENT_BUFFER_FULL);
	fxt_write_event(&t->w, &ev, &a, 1);
}

/*
 * The holes trace (build_holes()) as fxt-collect writes it, with its
 * records_dropped samples (2 records dropped on each CPU by the end):
 * build_collected() with both, build_cut_short() without the closing
 * one, as when fxt-collect is killed before it writes it.
 */
FX_UNUSED
static void build_collected_as(struct tb *t, bool closed)
{
	tb_begin(t, 1000000000);
	tb_drop_sample(t, 900, 0);
	holes_records(t, false);
	if (closed)
		tb_drop_sample(t, 6300, 2);
}

/*
 * fxt-collect's other records_dropped events (drop_samples.h): the
 * filtered trace's records with a drop marker among them, and each sample
 * written as two events (a machine of 16 CPUs or more); @closed: with
 * the closing sample.
 */
FX_UNUSED
static void build_marked_as(struct tb *t, bool closed)
{
	tb_begin(t, 1000000000);
	tb_drop_sample(t, 900, 0);
	tb_drop_sample(t, 900, 0);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_drop_marker(t, 1500, 1, 3);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	if (closed) {
		tb_drop_sample(t, 2100, 3);
		tb_drop_sample(t, 2100, 3);
	}
}

FX_UNUSED
static void build_marked(struct tb *t)
{
	build_marked_as(t, true);
}

FX_UNUSED
static void build_marked_cut(struct tb *t)
{
	build_marked_as(t, false);
}

FX_UNUSED
static void build_collected(struct tb *t)
{
	build_collected_as(t, true);
}

FX_UNUSED
static void build_cut_short(struct tb *t)
{
	build_collected_as(t, false);
}

/*
 * A trace cut short (no closing records_dropped sample) whose CPUs' records
 * end at different times, and a wait that looks longer than it was:
 *   cpu0: 1000 idle -> 101; 2000 wakeup 103; 5000 wakeup 103;
 *         5500 101 -> 103 (101 preempted); 6000 103 -> 101 (103 blocked)
 *   cpu1: 1000 idle -> 102; 1100 wakeup 104; 1400 102 -> 104 (blocked);
 *         2500 104 -> idle (blocked): cpu1's records end here
 * 103 ran on cpu1 at 3000 and blocked there, in records the cut lost, so
 * its wait 2000 -> 5500 (3.5 us) never was. Up to 2500, cpu1's last
 * switch (1500 ns after the start), every CPU's records are whole: the
 * one wait there is 104's, 300 ns. @closed: the same records with the
 * closing sample, as when nothing was lost.
 */
FX_UNUSED
static void build_cut_wait_as(struct tb *t, bool closed)
{
	tb_begin(t, 1000000000);
	tb_drop_sample(t, 900, 0);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_wake(t, 1, 1100, 104, 102);
	tb_switch(t, 1, 1400, 102, 104, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 1, 2000, 103, 101);
	tb_switch(t, 1, 2500, 104, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 0, 5000, 103, 101);
	tb_switch(t, 0, 5500, 101, 103, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 6000, 103, 101, FXT_THREAD_STATE_BLOCKED);
	if (closed)
		tb_drop_sample(t, 6100, 0);
}

FX_UNUSED
static void build_cut_wait(struct tb *t)
{
	build_cut_wait_as(t, false);
}

FX_UNUSED
static void build_cut_wait_closed(struct tb *t)
{
	build_cut_wait_as(t, true);
}

/*
 * Names that break naive CSV and JSON writers: 101 "a\"b,c;d:e" (a quote,
 * CSV's separator and the ran_meanwhile list's two separators) and 102
 * the first 15 bytes of "日本語プログ" (comm is cut at 15 bytes: the last
 * character split, an invalid UTF-8 sequence), in process 100 "proc\"x".
 *   cpu0: 1000 idle -> 101; 1500 wakeup 102 (by 101);
 *         5000 101 -> 102 (101 preempted); 9000 102 -> 101; 12000 -> idle
 * top: #1 preempt 4000 (101; 102 ran 4000), #2 wakeup 3500 (102; 101 ran).
 */
/*
 * Process 100 (named @proc, or without a process record when NULL) with
 * threads 101 and 102, named as given, on that schedule.
 */
FX_UNUSED
static void build_named_pair(struct tb *t, const char *proc,
			     const char *n101, const char *n102)
{
	tb_begin(t, 1000000000);
	if (proc)
		tb_process(t, 100, proc);
	tb_thread(t, 101, 100, n101);
	tb_thread(t, 102, 100, n102);
	tb_switch(t, 0, 1000, IDLE, 101, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 0, 1500, 102, 101);
	tb_switch(t, 0, 5000, 101, 102, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 9000, 102, 101, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 12000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

FX_UNUSED
static void build_odd_names(struct tb *t)
{
	build_named_pair(t, "proc\"x", "a\"b,c;d:e",
			 "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"
			 "\xe3\x83\x97\xe3\x83\xad\xe3");
}

/*
 * Names longer than fxt-sched and fxt2json keep (63 bytes): process 100
 * is 70 'p's; thread 101 is 62 'x's, then an e-acute (2 bytes, cut after
 * its first) and "yyy"; thread 102 is 100 'z's.
 */
#define FX_P10 "pppppppppp"
#define FX_X10 "xxxxxxxxxx"
#define FX_Z10 "zzzzzzzzzz"
FX_UNUSED
static void build_long_names(struct tb *t)
{
	build_named_pair(t, FX_P10 FX_P10 FX_P10 FX_P10 FX_P10 FX_P10 FX_P10,
			 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 "xx"
			 "\xc3\xa9yyy",
			 FX_Z10 FX_Z10 FX_Z10 FX_Z10 FX_Z10 FX_Z10 FX_Z10
			 FX_Z10 FX_Z10 FX_Z10);
}

/*
 * top across a hole: what ran on cpu1 from the hole's start (3000) to its
 * next switch (9000) is not known.
 *   cpu0: 1000 idle -> A(11); 5500 A -> idle (blocked, after the hole: A
 *         was running on a complete CPU throughout, so its wakeup is known)
 *   cpu1: 1000 idle -> B(21); [hole 3000..5000, 7 records lost];
 *         6000 wakeup A (by B); 9000 C(31) -> A (C preempted);
 *         12000 A -> C (blocked)
 * A's wakeup latency 3000 (6000..9000): cpu1's history from 3000 to 9000
 * is lost, so "ran meanwhile" is incomplete, not "nothing". C's preempt
 * latency 3000 (9000..12000): A ran 3000, history complete.
 * No process names: pids 10, 20, 30 are unnamed.
 */
FX_UNUSED
static void build_hole_top(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_thread(t, 11, 10, "A");
	tb_thread(t, 21, 20, "B");
	tb_thread(t, 31, 30, "C");
	tb_switch(t, 0, 1000, IDLE, 11, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 1, 1000, IDLE, 21, FXT_THREAD_STATE_BLOCKED);
	tb_lost(t, 1, 3000, 5000, 7);
	tb_switch(t, 0, 5500, 11, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 1, 6000, 11, 21);
	tb_switch(t, 1, 9000, 31, 11, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 1, 12000, 11, 31, FXT_THREAD_STATE_BLOCKED);
}

/*
 * Threads with an empty name (prctl(PR_SET_NAME, "") gives one), in
 * processes without a name: 101 "" and 102 "" in process 100.
 *   cpu0: 1000 idle -> 101; 1500 wakeup 102 (by 101);
 *         5000 101 -> 102 (101 preempted); 9000 102 -> 101; 12000 -> idle
 * top: #1 preempt 4000 (101; 102 ran 4000), #2 wakeup 3500 (102, woken by
 * 101; 101 ran 3500). Text output names them with no double space:
 * "tid 101 (pid 100)", "tid = 101 (pid 100)", "tid 102 4000 ns (1)".
 */
FX_UNUSED
static void build_empty_names(struct tb *t)
{
	build_named_pair(t, NULL, "", "");
}

/*
 * The trace ends while CPUs are running threads (fxt2json must still show
 * those slices, ending at the trace's last timestamp, 5000):
 *   cpu0: 1000 idle -> 101 "spinner", never switched out (CPU-bound)
 *   cpu1: 1000 idle -> 102; 2000 102 -> idle (blocked);
 *         3000 wakeup 102 (by 101); 3500 idle -> 102, still running
 *   cpu2: 1000 idle -> 103; 5000 103 -> idle (blocked): the last record
 *   cpu3: 1000 idle -> 104; [hole 2000..2500, 3 records lost], no switch
 *         after it: what cpu3 runs at the end is not known
 * fxt2json "running" slices: 101 1000..5000 unknown; 102 1000..2000
 * blocked, 3500..5000 unknown; 103 1000..5000 blocked; 104 1000..2000
 * unknown (the hole), nothing after it.
 * fxt-sched summary counts the same: cpu0 busy 4000 (100%), spinner 4000;
 * cpu1 busy 2500, idle 1500 (napper 2500); cpu2 busy 4000; cpu3 busy 1000
 * (to the hole); 2 slices still running at the end, counted up to it.
 */
FX_UNUSED
static void build_open_end(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_process(t, 100, "busy");
	tb_thread(t, 101, 100, "spinner");
	tb_thread(t, 102, 100, "napper");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_switch(t, 2, 1000, IDLE, 103, 0);
	tb_switch(t, 3, 1000, IDLE, 104, 0);
	tb_switch(t, 1, 2000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_lost(t, 3, 2000, 2500, 3);
	tb_wake(t, 1, 3000, 102, 101);
	tb_switch(t, 1, 3500, IDLE, 102, 0);
	tb_switch(t, 2, 5000, 103, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * Names with control bytes (prctl(PR_SET_NAME) lets any user set them):
 * 101 "a<ESC>[31mb<LF>c\d<DEL>" and 102 "tab<TAB>here" in process 100
 * "p<ESC>]0;x<BEL>". Text output writes them as fxt-dump does: "\x1b",
 * "\n", "\\", "\x7f", "\x09", so no escape sequence reaches the terminal
 * and no name breaks a line.
 *   cpu0: 1000 idle -> 101; 1500 wakeup 102 (by 101);
 *         5000 101 -> 102 (101 preempted); 9000 102 -> 101; 12000 -> idle
 */
FX_UNUSED
static void build_ctl_names(struct tb *t)
{
	build_named_pair(t, "p\x1b]0;x\x07", "a\x1b[31mb\nc\\d\x7f",
			 "tab\there");
}

/*
 * A provider whose ticks are microseconds (1e6 per second), with two
 * duration complete events of 1000 ticks (1 ms): one starting at tick 0,
 * one at tick 7. fxt2json must convert the end tick at the provider's
 * rate: "dur": 1000.000 (us) for both, "ts" 0.000 and 7.000.
 */
/*
 * An instant event whose double arguments are each a finite extreme or not
 * finite: fxt2json writes a finite double as a JSON number, however large
 * (1.5e308 and +-DBL_MAX are valid JSON), and only NaN and infinities as
 * null, which JSON has no number for.
 */
FX_UNUSED
static void build_doubles(struct tb *t)
{
	struct fxt_event ev = { FXT_EVENT_INSTANT, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("doubles"), 10, 0 };
	struct fxt_arg a[6] = {
		fxt_arg_double(fxt_str_c("big"), 1.5e308),
		fxt_arg_double(fxt_str_c("max"), 1.7976931348623157e308),
		fxt_arg_double(fxt_str_c("min"), -1.7976931348623157e308),
		fxt_arg_double(fxt_str_c("tiny"), 5e-324),
		fxt_arg_double(fxt_str_c("nan"), NAN),
		fxt_arg_double(fxt_str_c("inf"), INFINITY),
	};

	tb_begin(t, 1000000000);
	tb_switch(t, 0, 5, IDLE, 101, 0);
	fxt_write_event(&t->w, &ev, a, 6);
}

/*
 * fxt2json's edges, each once: zero-length slices, where a loss marker
 * has a switch's timestamp and where a switch-in is the trace's last
 * record; and the events that map to their own Trace Event fields.
 *   cpu0: 1000 idle -> 101 "A"; 2000 101 -> 102 "B" (blocked); a hole
 *         at 2000 (1 record lost, next record 2500): 102's slice is
 *         2000..2000, end_state unknown
 *   cpu1: 1000 idle -> 103; 3000 103 -> 104 (blocked), the last record:
 *         104's slice is 3000..3000, unknown
 *   events of 101 (pid 100): instant "ptr" at 1100 (a pointer argument,
 *   0xdeadbeef); duration complete "back" at 1200 whose end tick is 1100
 *   (before its start: dur 0); flow begin, step, end "f" (id 7) at 1300,
 *   1400, 1500 (only the end binds to its enclosing slice: "bp": "e");
 *   async begin, instant, end "a" (id 9) at 1550, 1600, 1650 ("b", "n",
 *   "e"); a log record at 1700, "hi \"there\"" (10 bytes).
 */
FX_UNUSED
static void build_json_edges(struct tb *t)
{
	struct fxt_event ev = { FXT_EVENT_INSTANT, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("ptr"), 1100, 0 };
	struct fxt_arg a = fxt_arg_pointer(fxt_str_c("p"), 0xdeadbeef);
	struct fxt_log log = { { 0, 100, 101 }, 1700, "hi \"there\"", 10 };

	tb_begin(t, 1000000000);
	tb_thread(t, 101, 100, "A");
	tb_thread(t, 102, 100, "B");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 1000, IDLE, 103, 0);
	fxt_write_event(&t->w, &ev, &a, 1);
	ev = (struct fxt_event){ FXT_EVENT_DURATION_COMPLETE, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("back"), 1200, 1100 };
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev = (struct fxt_event){ FXT_EVENT_FLOW_BEGIN, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("f"), 1300, 7 };
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev.type = FXT_EVENT_FLOW_STEP;
	ev.timestamp = 1400;
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev.type = FXT_EVENT_FLOW_END;
	ev.timestamp = 1500;
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev = (struct fxt_event){ FXT_EVENT_ASYNC_BEGIN, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("a"), 1550, 9 };
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev.type = FXT_EVENT_ASYNC_INSTANT;
	ev.timestamp = 1600;
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev.type = FXT_EVENT_ASYNC_END;
	ev.timestamp = 1650;
	fxt_write_event(&t->w, &ev, NULL, 0);
	fxt_write_log(&t->w, &log);
	tb_switch(t, 0, 2000, 101, 102, FXT_THREAD_STATE_BLOCKED);
	tb_lost(t, 0, 2000, 2500, 1);
	tb_switch(t, 1, 3000, 103, 104, FXT_THREAD_STATE_BLOCKED);
}

/*
 * Switches on CPUs 0 and 4095 only; a wakeup targets CPU 7 and CPU 9 has a
 * hole but no switch. fxt2json names a CPU track only where a slice is:
 * "CPU 0" and "CPU 4095", not 4096 tracks.
 *   cpu0:    1000 idle -> 101; 4000 101 -> idle (blocked)
 *   cpu4095: 2000 idle -> 102; 3000 wakeup 101 on cpu 7 (by 102);
 *            5000 102 -> idle (blocked)
 *   cpu9:    hole 2500..2600, 1 record lost
 */
FX_UNUSED
static void build_sparse_cpus(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_process(t, 100, "far");
	tb_thread(t, 101, 100, "near");
	tb_thread(t, 102, 100, "edge");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 4095, 2000, IDLE, 102, 0);
	tb_lost(t, 9, 2500, 2600, 1);
	tb_wake(t, 7, 3000, 101, 102);
	tb_switch(t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 4095, 5000, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * A thread that died unnamed, and a name record (not new_task) for its
 * tid after that: the next thread's, not the dead one's.
 *   cpu0: 1000 idle -> 101 (no name); 2000 101 -> idle (dead);
 *         name 101 "worker" (pid 100); 3000 wakeup 101;
 *         3500 idle -> 101; 4000 101 -> idle (blocked)
 */
FX_UNUSED
static void build_dead_unnamed(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_process(t, 100, "proc");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_thread(t, 101, 100, "worker");
	tb_wake(t, 0, 3000, 101, 0);
	tb_switch(t, 0, 3500, IDLE, 101, 0);
	tb_switch(t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * Tids reused by threads whose beginning is not in the trace: after a
 * thread switched out dead, the next switch-in or wakeup of its tid is
 * another thread's (a task's last switch is its only dead one).
 *   101: "A" (pid 100, named at the start); cpu0: 1000 idle -> 101;
 *        2000 101 -> idle (dead). cpu1 loses records 2500..2900 (B's
 *        new_task record among them); cpu0: 3000 idle -> 101 (B);
 *        4000 101 -> idle (blocked). At the end fxt-collect names 101
 *        "B" (pid 200).
 *   111: unnamed; cpu2: 1000 idle -> 111; 1500 111 -> idle (dead);
 *        2000 wakeup 111 (C); 2300 idle -> 111; 2600 111 -> idle
 *        (blocked). At the end 111 is "C" (pid 300).
 *   cpu1: 1000 idle -> 102 "other" (pid 100); 2400 102 -> idle (blocked).
 * Threads: A runtime 1000; B runtime 1000, its wait unmeasured (its wakeup
 * was in the hole): skipped; the unnamed dead 111 runtime 500; C runtime
 * 300, wakeup latency 300.
 */
FX_UNUSED
static void build_reuse_unseen(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_process(t, 100, "procA");
	tb_thread(t, 101, 100, "A");
	tb_thread(t, 102, 100, "other");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_switch(t, 0, 3000, IDLE, 101, 0);
	tb_switch(t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_switch(t, 1, 2400, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_lost(t, 1, 2500, 2900, 3);
	tb_switch(t, 2, 1000, IDLE, 111, 0);
	tb_switch(t, 2, 1500, 111, IDLE, FXT_THREAD_STATE_DEAD);
	tb_wake(t, 2, 2000, 111, 0);
	tb_switch(t, 2, 2300, IDLE, 111, 0);
	tb_switch(t, 2, 2600, 111, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_process(t, 200, "procB");
	tb_thread(t, 101, 200, "B");
	tb_process(t, 300, "procC");
	tb_thread(t, 111, 300, "C");
}

/*
 * A dead thread's tid switched out: the new thread that took it ran
 * unseen, its new_task record and switch-in lost in a hole.
 *   cpu0: 1000 idle -> 101; 2000 101 -> idle (dead).
 *   cpu1: 1000 idle -> 102; 1500 102 -> idle (blocked); loses records
 *         2500..3000; 3000 101 -> idle (preempted: the new 101).
 *   cpu0: 4000 idle -> 101; 5000 101 -> idle (blocked).
 * Threads: the dead 101 runtime 1000, 1 switch; the new 101 runtime 1000,
 * 2 switches (1 involuntary), one preemption wait of 1000 (3000..4000).
 */
FX_UNUSED
static void build_reuse_switched_out(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_switch(t, 1, 1500, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_lost(t, 1, 2500, 3000, 4);
	tb_switch(t, 1, 3000, 101, IDLE, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 4000, IDLE, 101, 0);
	tb_switch(t, 0, 5000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * Two rings, cpu1's first in the file, for a reorder buffer that runs out
 * of memory: cpu1's 4094 short slices of 300 fill it (test_cli.sh makes
 * realloc fail above 400000 bytes), then 101 runs on cpu1 7000..9000,
 * preempted; cpu0's ring follows: 6000 idle -> 101, 6500 101 -> idle
 * (preempted), 9500 idle -> 101, 10000 101 -> idle (blocked). The record
 * whose push fails is older than some of those handed on then.
 */
FX_UNUSED
static void build_reorder_oom(struct tb *t)
{
	uint64_t ts;

	tb_begin(t, 1000000000);
	for (ts = 100; ts < 100 + 4094; ts += 2) {
		tb_switch(t, 1, ts, IDLE, 300, 0);
		tb_switch(t, 1, ts + 1, 300, IDLE, FXT_THREAD_STATE_BLOCKED);
	}
	tb_switch(t, 1, 7000, IDLE, 101, 0);
	tb_switch(t, 1, 9000, 101, IDLE, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 6000, IDLE, 101, 0);
	tb_switch(t, 0, 6500, 101, IDLE, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 9500, IDLE, 101, 0);
	tb_switch(t, 0, 10000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * A tid reused in the same process: "A" (101, pid 100) dies, and the
 * module's new_task record begins "B" on the same tid and pid.
 *   cpu0: 1000 idle -> 101; 2000 101 -> idle (dead); new_task 101 "B"
 *         (pid 100); 2500 wakeup 101; 3000 idle -> 101;
 *         4000 101 -> idle (blocked)
 * Two threads, one (pid, tid): each needs a track of its own.
 */
FX_UNUSED
static void build_reuse_same_process(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_process(t, 100, "proc");
	tb_thread(t, 101, 100, "A");
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 0, 2000, 101, IDLE, FXT_THREAD_STATE_DEAD);
	tb_new_thread(t, 101, 100, "B");
	tb_wake(t, 0, 2500, 101, 0);
	tb_switch(t, 0, 3000, IDLE, 101, 0);
	tb_switch(t, 0, 4000, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * reuse_same_process.fxt, and a thread whose tid is the first stand-in's,
 * 4194304 (no Linux tid is: PID_MAX_LIMIT is 2^22, but a file may hold
 * any): B's track must take the next one, 4194305, not share C's.
 *   cpu1: 1500 idle -> 4194304 "C" (pid 100); 2500 -> idle (blocked)
 */
FX_UNUSED
static void build_stand_in_base(struct tb *t)
{
	build_reuse_same_process(t);
	tb_thread(t, 4194304, 100, "C");
	tb_switch(t, 1, 1500, IDLE, 4194304, 0);
	tb_switch(t, 1, 2500, 4194304, IDLE, FXT_THREAD_STATE_BLOCKED);
}

FX_UNUSED
static void build_us_ticks(struct tb *t)
{
	struct fxt_event ev = { FXT_EVENT_DURATION_COMPLETE, { 0, 100, 101 },
		fxt_str_c("app"), fxt_str_c("work"), 0, 1000 };

	tb_begin(t, 1000000);
	tb_switch(t, 0, 5, IDLE, 101, 0);
	fxt_write_event(&t->w, &ev, NULL, 0);
	ev.timestamp = 7;
	ev.data = 1007;
	fxt_write_event(&t->w, &ev, NULL, 0);
}

/*
 * A trace full of ties for top: two CPUs on the same clock (equal ends, so
 * the tid breaks the tie), latencies from {100, 200, 300, 400} (equal
 * latencies within a thread too), wakeups and preemptions; threads
 * 100..115 in processes 1..3, named at the start, some renamed in place
 * halfway, two named only at the end (as --comm and --pid then see them);
 * then tid 120 ("b-tie", pid 2) alone on cpu 0.
 */
FX_UNUSED
static void build_top_ties(struct tb *t)
{
	static const uint64_t lat[] = { 100, 200, 300, 400 };
	bool preempted[16] = { false };
	uint64_t ts = 1000, x = 12345;
	unsigned int r, c, i;
	char name[32];

	tb_begin(t, 1000000000);
	for (i = 0; i < 14; i++) {
		snprintf(name, sizeof(name), "%s-%u", i % 2 ? "b" : "a", i);
		tb_thread(t, 100 + i, 1 + i % 3, name);
	}
	for (r = 0; r < 300; r++) {
		uint64_t l = lat[(x >> 33) % 4], run_ns = 50 + (x >> 40) % 2 * 100;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		for (c = 0; c < 2; c++) {
			/* cpu 0 runs the even tids, cpu 1 the odd ones */
			unsigned int k = 2 * ((r * 5 + c * 3 + (unsigned)(x >> 60)) % 8) + c;
			uint64_t tid = 100 + k;

			if (!preempted[k])
				tb_wake(t, c, ts, tid, 0);
			tb_switch(t, c, ts + l, IDLE, (int64_t)tid, 0);
			preempted[k] = (x >> (20 + c)) & 1;
			tb_switch(t, c, ts + l + run_ns, (int64_t)tid, IDLE,
				  preempted[k] ? FXT_THREAD_STATE_RUNNING :
						 FXT_THREAD_STATE_BLOCKED);
		}
		if (r == 150)
			for (i = 0; i < 14; i += 3) {
				snprintf(name, sizeof(name), "%s-%u",
					 i % 2 ? "a" : "b", i);
				tb_thread(t, 100 + i, 1 + i % 3, name);
			}
		ts += 1000;
	}
	/* b-tie: 500 us, 500 us, then 700 us, longer than all the rest. -n 2 is
	 * 700 us and the first 500 us (it ended first); a list that replaces
	 * the first minimum it finds drops that one for the second */
	tb_thread(t, 120, 2, "b-tie");
	for (i = 0; i < 3; i++) {
		uint64_t l = i < 2 ? 500000 : 700000;

		tb_wake(t, 0, ts, 120, 0);
		tb_switch(t, 0, ts + l, IDLE, 120, 0);
		tb_switch(t, 0, ts + l + 50, 120, IDLE, FXT_THREAD_STATE_BLOCKED);
		ts += 1000000;
	}
	tb_thread(t, 114, 2, "b-14");
	tb_thread(t, 115, 3, "a-15");
}

/*
 * top's "ran meanwhile" with more tasks than it lists (8): a long-running
 * task early in the wait, many short ones later. Victim 100 (woken at 1000
 * by 50) waits on cpu0 until 1011500:
 *   1000 50 -> hog(201) (50 blocked)       401000 hog -> 202 (preempted)
 *   401500 202 -> hog; 402000 hog -> 202;  402500 202 -> hog
 *   1002500 hog -> 301, then 301..309 run 1000 ns each (all preempted)
 *   1011500 309 -> 100
 * Latency 1010500. Meanwhile: hog 1000500 ns in 3 slices; 202 1000 ns in
 * 2; 301..309 1000 ns each in 1. Largest first, equal ones newest first:
 * hog, 309, 308, ..., 303 listed; 302, 301 and 202 summed: 4 more slices,
 * 3000 ns. (Listing the first 8 tasks met going back from the end put hog
 * in the rest: 309..302 listed, then "6 more slices 1002500 ns".)
 */
FX_UNUSED
static void build_top_many(struct tb *t)
{
	char name[16];
	int64_t i;

	tb_begin(t, 1000000000);
	tb_thread(t, 100, 100, "victim");
	tb_thread(t, 201, 201, "hog");
	tb_thread(t, 202, 202, "twice");
	for (i = 301; i <= 309; i++) {
		snprintf(name, sizeof(name), "s%d", (int)i);
		tb_thread(t, (uint64_t)i, (uint64_t)i, name);
	}
	tb_switch(t, 0, 500, IDLE, 50, 0);
	tb_switch(t, 1, 500, IDLE, 100, 0);
	tb_switch(t, 1, 900, 100, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 0, 1000, 100, 50);
	tb_switch(t, 0, 1000, 50, 201, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 401000, 201, 202, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 401500, 202, 201, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 402000, 201, 202, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 402500, 202, 201, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 1002500, 201, 301, FXT_THREAD_STATE_RUNNING);
	for (i = 301; i < 309; i++)
		tb_switch(t, 0, 1003500 + 1000 * (uint64_t)(i - 301), i, i + 1,
			  FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 1011500, 309, 100, FXT_THREAD_STATE_RUNNING);
}

/*
 * Threads asleep when a hole begins may be woken in it unseen (and run,
 * and be preempted there): a wakeup of one seen after the hole may not be
 * the start of its wait. cpu1 loses 5 records in [2000, 4000).
 *   cpu0: 1000 idle -> V(100); 1500 V -> X(200) (V blocked, before the hole)
 *         5000 X -> V (X preempted); 6000 V -> X (V blocked);
 *         7300 X -> V (X preempted); 8000 V -> X (V blocked)
 *   cpu1: 1000 idle -> Y(300); [hole 2000..4000]; 4000 Y -> idle (blocked)
 *   cpu2: 1000 idle -> W(400); 2500 W -> Z(500) (W preempted, in the hole);
 *         3000 Z -> W (Z blocked while the hole is open);
 *         4800 W -> Z (W preempted); 5200 Z -> W (Z blocked)
 *   cpu3: 1000 idle -> U(600); 1200 U -> idle (blocked, before the hole);
 *         5500 idle -> U: no wakeup of U seen, it was woken in the hole
 *   wakeups: 4500 V (cpu2, by W); 4600 Z (cpu2, by W); 7000 V (cpu2, by W)
 * Not counted (across a hole), 4: V 4500..5000 (asleep when the hole
 * began), W 2500..3000 (begun in it), Z 4600..4800 (went to sleep while
 * it was open), U's wait ending at 5500 (its start is in the hole).
 * Counted: W preempt 400 (4800..5200), X preempt 1000 (5000..6000), V
 * wakeup 300 (7000..7300: seen blocking at 6000, after the hole), X
 * preempt 700 (7300..8000). Y, running on cpu1 when the hole began, is
 * seen blocking after it: known again.
 */
FX_UNUSED
static void build_hole_sleepers(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_thread(t, 100, 100, "V");
	tb_thread(t, 200, 200, "X");
	tb_thread(t, 300, 300, "Y");
	tb_thread(t, 400, 400, "W");
	tb_thread(t, 500, 500, "Z");
	tb_thread(t, 600, 600, "U");
	tb_switch(t, 0, 1000, IDLE, 100, 0);
	tb_switch(t, 0, 1500, 100, 200, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 5000, 200, 100, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 6000, 100, 200, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 7300, 200, 100, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 8000, 100, 200, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 1, 1000, IDLE, 300, 0);
	tb_lost(t, 1, 2000, 4000, 5);
	tb_switch(t, 1, 4000, 300, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 2, 1000, IDLE, 400, 0);
	tb_switch(t, 2, 2500, 400, 500, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 2, 3000, 500, 400, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 2, 4500, 100, 400);
	tb_wake(t, 2, 4600, 500, 400);
	tb_switch(t, 2, 4800, 400, 500, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 2, 5200, 500, 400, FXT_THREAD_STATE_BLOCKED);
	tb_wake(t, 2, 7000, 100, 400);
	tb_switch(t, 3, 1000, IDLE, 600, 0);
	tb_switch(t, 3, 1200, 600, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 3, 5500, IDLE, 600, 0);
}

/*
 * A loss marker pair far behind the records around it in the file (the
 * kernel writes the pair when a record fits again, the first with the
 * time of the first record lost: a hole longer than the reorder window
 * puts it that far behind). File order:
 *   cpu1: 1000 idle -> B(102)
 *   cpu0: 1000 idle -> A(101); 1200 wakeup C(103) (by A);
 *         3500 A -> C (A preempted); 4000 C -> A (C blocked);
 *         5200 A -> idle (blocked)
 *   cpu1: [records_lost 3 from 2000; 0 at 3000]; 5500 B -> idle (blocked)
 * In time (2s window): C waited across the hole (1200..3500): not
 * counted; A preempt 500 (3500..4000) counted; cpu1 busy 1000 (B until
 * the hole). With --reorder-window 1us everything up to 4000 has been
 * handed on when the pair is read (2000 ns late): the hole can only be
 * applied from 4000, so C's 2300 ns and B's runtime to 4000 (cpu1 busy
 * 3000) are counted as if nothing were missing.
 */
FX_UNUSED
static void build_late_hole(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 1, 1000, IDLE, 102, 0);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_wake(t, 0, 1200, 103, 101);
	tb_switch(t, 0, 3500, 101, 103, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 4000, 103, 101, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 5200, 101, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_lost(t, 1, 2000, 3000, 3);
	tb_switch(t, 1, 5500, 102, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/*
 * Records out of order by more than the default reorder window (2 s), as
 * when fxt-collect's output stalls and one ring's chunk spans seconds:
 * cpu0's ring first, 1 s: idle -> 100; 1.2 s: 100 wakes 300; 1.4 s: 100
 * -> 300 (100 preempted); 1.6 s: 300 -> 100 (blocked); 3 s: 100 -> idle
 * (blocked); 7 s: idle -> 200; 8 s: 200 -> idle (blocked); then cpu1's
 * wakeup of 200 by 100 at 2 s, 6 s behind the newest record before it.
 * In time order: a wakeup interval of 300 (1.2 s to 1.4 s), a preemption
 * of 100 (1.4 s to 1.6 s), and 200's wakeup interval from 2 s to 7 s
 * (5 s). With a 2 s window the wakeup comes after 3 s was handed on:
 * late, left out, no interval for 200; the first two intervals are found
 * (and spooled by latency --intervals) before the late record is seen,
 * so a second read must not list them twice.
 */
#define LATE_SCHED_DISORDER_NS	6000000000ULL

/* late_sched's and late_lost's cpu0 ring, after the trace's start */
FX_UNUSED
static void late_cpu0_ring(struct tb *t)
{
	tb_switch(t, 0, 1000000000, IDLE, 100, 0);
	tb_wake(t, 0, 1200000000, 300, 100);
	tb_switch(t, 0, 1400000000, 100, 300, FXT_THREAD_STATE_RUNNING);
	tb_switch(t, 0, 1600000000, 300, 100, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 3000000000, 100, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 7000000000, IDLE, 200, 0);
	tb_switch(t, 0, 8000000000, 200, IDLE, FXT_THREAD_STATE_BLOCKED);
}

/* ... and their threads' names, last (as fxt-collect writes them) */
FX_UNUSED
static void late_thread_names(struct tb *t)
{
	tb_thread(t, 100, 100, "waker");
	tb_thread(t, 200, 200, "sleeper");
	tb_thread(t, 300, 100, "early");
}

FX_UNUSED
static void build_late_sched(struct tb *t)
{
	tb_begin(t, 1000000000);
	late_cpu0_ring(t);
	tb_wake(t, 1, 2000000000, 200, 100);
	late_thread_names(t);
}

/*
 * A context switch 7 us out of order: with --reorder-window 1us it is left
 * out (late: 5000 was handed on before it came), and the next switch on
 * its CPU names another thread leaving.
 *   cpu0: 1000 idle -> 101; [late: 2000 101 -> 102 (blocked)];
 *         10000 102 -> idle (dead)
 *   cpu1: 5000 idle -> 103; 9000 103 -> idle (blocked) (in the file
 *         before the late switch)
 */
FX_UNUSED
static void build_late_switch(struct tb *t)
{
	tb_begin(t, 1000000000);
	tb_switch(t, 0, 1000, IDLE, 101, 0);
	tb_switch(t, 1, 5000, IDLE, 103, 0);
	tb_switch(t, 1, 9000, 103, IDLE, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 2000, 101, 102, FXT_THREAD_STATE_BLOCKED);
	tb_switch(t, 0, 10000, 102, IDLE, FXT_THREAD_STATE_DEAD);
}

/*
 * A loss marker pair out of order by more than the default reorder window:
 * late_sched's cpu0 ring, then cpu1's ring with a hole (3 records lost at
 * 1.5 s, the next record at 1.55 s), 6.5 s behind. In time order the hole
 * is open while 100 waits to run again (1.4 s to 1.6 s): that interval is
 * not counted, and 300's wakeup interval (1.2 s to 1.4 s), which ended
 * before it, is. With a 2 s window the pair comes after 3 s was handed
 * on: applied late, at 3 s, when no thread waits, so both intervals are
 * counted. The second read (with a window that fits) thus spools one row
 * where the first spooled two: what the first wrote past the second's end
 * must not be listed (analysis_reset() truncates the spool).
 */
FX_UNUSED
static void build_late_lost(struct tb *t)
{
	tb_begin(t, 1000000000);
	late_cpu0_ring(t);
	tb_lost(t, 1, 1500000000, 1550000000, 3);
	late_thread_names(t);
}

/*
 * Many processes (names and latency -P are looked up by pid, never by a
 * search through every process). Process i, 0 <= i < MP_N, is pid
 * 1000 + i, named "shared" if i % 3 == 0 (processes that share a name),
 * else "p<i>"; i % 50 == 49 has no process record (no name). Pid 1005 is
 * named "early" at the start and "renamed" at the end (the end's name is
 * the one reported). Its main thread is tid mp_main_tid(i) (tid order is
 * not pid order), named "t<i>"; an even i has a second thread,
 * mp_second_tid(i), named "s<i>". Each thread waits once for a wakeup
 * (mp_lat(tid) ns), except the main thread of i % 10 == 3 (an odd i, so
 * the process has no interval and latency -P does not list it). Threads
 * MP_ANON..MP_ANON+4 have no thread record: pid 0. The process records
 * come first, the thread records last (as fxt-collect writes them). Tid 9
 * runs on cpu1 from the first record (the trace's first switch).
 */
#define MP_N		3000
#define MP_ANON		30000

FX_UNUSED
static uint64_t mp_main_tid(unsigned int i)
{
	return 10000 + (uint64_t)i * 7919 % MP_N;
}

FX_UNUSED
static uint64_t mp_second_tid(unsigned int i)
{
	return 20000 + (MP_N - 1 - i);
}

FX_UNUSED
static uint64_t mp_lat(uint64_t tid)
{
	return 1 + tid % 997;
}

/* Process i's name at the end of the trace ("" if it has none). */
FX_UNUSED
static const char *mp_proc_name(unsigned int i, char *buf, size_t len)
{
	if (i % 50 == 49)
		buf[0] = '\0';
	else if (i == 5)
		snprintf(buf, len, "renamed");
	else if (i % 3 == 0)
		snprintf(buf, len, "shared");
	else
		snprintf(buf, len, "p%u", i);
	return buf;
}

FX_UNUSED
static void build_many_procs(struct tb *t)
{
	uint64_t ts = 1000, tids[2];
	char name[32];
	unsigned int i, j, n;

	tb_begin(t, 1000000000);
	tb_switch(t, 1, 1000, IDLE, 9, 0);
	for (i = 0; i < MP_N; i++)
		if (i % 50 != 49)
			tb_process(t, 1000 + i, i == 5 ? "early" :
				   mp_proc_name(i, name, sizeof(name)));
	for (i = 0; i < MP_N + 5; i++) {
		n = 0;
		if (i >= MP_N)
			tids[n++] = MP_ANON + i - MP_N;
		else if (i % 10 != 3)
			tids[n++] = mp_main_tid(i);
		if (i < MP_N && i % 2 == 0)
			tids[n++] = mp_second_tid(i);
		for (j = 0; j < n; j++) {
			uint64_t lat = mp_lat(tids[j]);

			tb_wake(t, 0, ts, tids[j], 0);
			tb_switch(t, 0, ts + lat, IDLE, (int64_t)tids[j], 0);
			tb_switch(t, 0, ts + lat + 10, (int64_t)tids[j], IDLE,
				  FXT_THREAD_STATE_BLOCKED);
			ts += lat + 20;
		}
	}
	tb_process(t, 1005, "renamed");
	for (i = 0; i < MP_N; i++) {
		snprintf(name, sizeof(name), "t%u", i);
		tb_thread(t, mp_main_tid(i), 1000 + i, name);
		if (i % 2 == 0) {
			snprintf(name, sizeof(name), "s%u", i);
			tb_thread(t, mp_second_tid(i), 1000 + i, name);
		}
	}
}

#endif /* FIXTURES_H */
