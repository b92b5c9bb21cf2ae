/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * kernel_record_builders.h - records as fxtrace.ko writes them (uapi
 * header, "Records" and "Names"), for the tests that play the kernel's part:
 * test_ring_drain.c and fake_fxtrace.c. They are built with the library's
 * encoder (fxt_write.h), so every field is laid out as fxt-dump reads it.
 * Each builder fills @out (KERNEL_RECORD_MAX_WORDS words) and returns the
 * record's size in bytes.
 *
 * bench/drain_bench.c stores its records word by word instead: its producer
 * shares the CPU time it measures with the drain, so it must cost next to
 * nothing. The other direction, recognising and reading these records in a
 * ring, is selftests/kernel_records.h (the VM selftests, which do not link
 * the collector's library).
 */
#ifndef KERNEL_RECORD_BUILDERS_H
#define KERNEL_RECORD_BUILDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fxtrace.h>

#include "fxt_write.h"

/* Room for any record below (the longest kernel record is 7 words). */
#define KERNEL_RECORD_MAX_WORDS	16

/**
 * struct kernel_switch - a context switch and the arguments it carries
 * @cpu:              the header's CPU
 * @state:            the outgoing task's FXT thread state
 * @ts:               timestamp
 * @prev:             outgoing tid
 * @next:             incoming tid
 * @in_weight:        incoming_weight (always written; INT32_MIN for idle)
 * @out_weight:       outgoing_weight, written if @with_out_weight (the
 *                    CPU's previous switch did not say it)
 * @with_out_weight:  see @out_weight
 * @linux_state:      the raw prev_state, written if @with_linux_state (the
 *                    FXT state does not imply it)
 * @with_linux_state: see @linux_state
 */
struct kernel_switch {
	unsigned int cpu;
	unsigned int state;
	uint64_t ts;
	uint64_t prev;
	uint64_t next;
	int32_t in_weight;
	int32_t out_weight;
	bool with_out_weight;
	uint32_t linux_state;
	bool with_linux_state;
};

/* 5 to 7 words: the arguments in the kernel's order. */
static inline size_t kernel_switch_record(uint64_t *out,
					  const struct kernel_switch *s)
{
	struct fxt_arg args[3] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_INCOMING_WEIGHT),
			      s->in_weight),
	};
	unsigned int nargs = 1;
	struct fxt_context_switch cs = {
		.cpu = s->cpu, .outgoing_state = s->state, .timestamp = s->ts,
		.outgoing_tid = s->prev, .incoming_tid = s->next,
	};
	struct fxt_writer w;

	if (s->with_out_weight)
		args[nargs++] = fxt_arg_int32(fxt_str_index(FXTRACE_STR_OUTGOING_WEIGHT),
					      s->out_weight);
	if (s->with_linux_state)
		args[nargs++] = fxt_arg_uint32(fxt_str_index(FXTRACE_STR_LINUX_STATE),
					       s->linux_state);
	fxt_writer_init(&w, out, KERNEL_RECORD_MAX_WORDS);
	fxt_write_context_switch(&w, &cs, args, nargs);
	return fxt_writer_bytes(&w);
}

/* 5 words with a waker, 3 without one (@waker 0: interrupt or idle). */
static inline size_t kernel_wakeup_record(uint64_t *out, unsigned int cpu,
					  uint64_t ts, uint64_t woken,
					  uint64_t waker)
{
	struct fxt_arg arg = fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER),
					  waker);
	struct fxt_wakeup wk = { .cpu = cpu, .timestamp = ts, .woken_tid = woken };
	struct fxt_writer w;

	fxt_writer_init(&w, out, KERNEL_RECORD_MAX_WORDS);
	fxt_write_wakeup(&w, &wk, &arg, waker ? 1 : 0);
	return fxt_writer_bytes(&w);
}

/*
 * A name (@type FXT_OBJ_TYPE_PROCESS: koid = tgid, 2 to 4 words; or
 * FXT_OBJ_TYPE_THREAD: koid = tid and the koid "process" = @tgid, 4 to 6
 * words).
 */
static inline size_t kernel_name_record(uint64_t *out, unsigned int type,
					uint64_t koid, uint64_t tgid,
					const char *name)
{
	struct fxt_kernel_object obj = {
		.obj_type = type, .name = fxt_str_c(name), .koid = koid,
	};
	struct fxt_arg process = fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS),
					      tgid);
	struct fxt_writer w;

	fxt_writer_init(&w, out, KERNEL_RECORD_MAX_WORDS);
	fxt_write_kernel_object(&w, &obj, &process,
				type == FXT_OBJ_TYPE_THREAD ? 1 : 0);
	return fxt_writer_bytes(&w);
}

/*
 * The thread's name as the module writes it when the thread is created
 * (sched_wakeup_new): after "process", int32 "new_task" = 1 (5 to 7 words).
 */
static inline size_t kernel_new_thread_record(uint64_t *out, uint64_t tid,
					      uint64_t tgid, const char *name)
{
	struct fxt_kernel_object obj = {
		.obj_type = FXT_OBJ_TYPE_THREAD, .name = fxt_str_c(name),
		.koid = tid,
	};
	struct fxt_arg args[2] = {
		fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS), tgid),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_NEW_TASK), 1),
	};
	struct fxt_writer w;

	fxt_writer_init(&w, out, KERNEL_RECORD_MAX_WORDS);
	fxt_write_kernel_object(&w, &obj, args, 2);
	return fxt_writer_bytes(&w);
}

/*
 * One loss marker (7 words, uapi "Loss markers"): a sample of the counter
 * records_lost for @cpu on the track of the session's opener
 * (@owner_tgid, @owner_tid): @lost at the first record lost, or 0 at the
 * record that follows the hole. The kernel writes them in pairs.
 */
static inline size_t kernel_loss_marker(uint64_t *out, uint64_t ts,
					unsigned int cpu, int64_t lost,
					uint64_t owner_tgid, uint64_t owner_tid)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = { .index = 0, .pid = owner_tgid, .tid = owner_tid },
		.category = fxt_str_index(FXTRACE_STR_FXTRACE),
		.name = fxt_str_index(FXTRACE_STR_RECORDS_LOST),
		.timestamp = ts,
		.data = cpu,
	};
	struct fxt_arg arg = fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU), lost);
	struct fxt_writer w;

	fxt_writer_init(&w, out, KERNEL_RECORD_MAX_WORDS);
	fxt_write_event(&w, &ev, &arg, 1);
	return fxt_writer_bytes(&w);
}

#endif /* KERNEL_RECORD_BUILDERS_H */
