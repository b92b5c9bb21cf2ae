/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_record.h - build the 64-bit words of the FXT records the probes write
 *
 * Pure functions of their arguments, inlined into the probes. Field positions
 * come from the uapi header; the format's scheduling records (record type 8)
 * are specified at fuchsia.dev/fuchsia-src/reference/tracing/trace-format.
 */
#ifndef FXTRACE_RECORD_H
#define FXTRACE_RECORD_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/fxtrace.h>

/* Record sizes in 64-bit words, header included. */
#define FXTRACE_SWITCH_WORDS		7	/* hdr ts out in, 1 to 3 args */
#define FXTRACE_WAKEUP_WORDS		5	/* hdr ts tid waker(2) */
#define FXTRACE_WAKEUP_NO_WAKER_WORDS	3	/* hdr ts tid */
#define FXTRACE_LOSS_MARKER_WORDS	7	/* hdr ts pid tid arg(2) id */
#define FXTRACE_NAME_MAX_WORDS		2	/* 15 bytes + NUL padding */
/* hdr koid name process(2) new_task */
#define FXTRACE_THREAD_MAX_WORDS	(5 + FXTRACE_NAME_MAX_WORDS)
/* The largest record the module writes (struct fxtrace_ring's spill). */
#define FXTRACE_RECORD_MAX_WORDS	7
static_assert(FXTRACE_SWITCH_WORDS <= FXTRACE_RECORD_MAX_WORDS);
static_assert(FXTRACE_WAKEUP_WORDS <= FXTRACE_RECORD_MAX_WORDS);
static_assert(FXTRACE_LOSS_MARKER_WORDS <= FXTRACE_RECORD_MAX_WORDS);
static_assert(FXTRACE_THREAD_MAX_WORDS <= FXTRACE_RECORD_MAX_WORDS);

static __always_inline u64 fxt_sched_header(u64 kind, u64 words, u64 argc,
					    u64 cpu)
{
	return ((u64)FXT_RECORD_SCHEDULING << FXT_HDR_TYPE_SHIFT) |
	       (words << FXT_HDR_SIZE_SHIFT) |
	       (argc << FXT_SCHED_ARGC_SHIFT) |
	       ((cpu & FXT_SCHED_CPU_MASK) << FXT_SCHED_CPU_SHIFT) |
	       (kind << FXT_SCHED_KIND_SHIFT);
}

/*
 * A context switch's outgoing FXT state with its size and argument count,
 * as header bits to OR into fxt_sched_header(kind, 0, 0, cpu): 6 words and
 * 2 arguments with linux_state, 5 and 1 without; outgoing_weight adds
 * FXTRACE_SWITCH_ONE_ARG. A constant per case, so the probe chooses among
 * constants (fxtrace_switch_form()).
 */
#define FXTRACE_SWITCH_FORM(state, words, argc)			\
	((u64)(state) << FXT_SCHED_STATE_SHIFT |			\
	 (u64)(words) << FXT_HDR_SIZE_SHIFT |				\
	 (u64)(argc) << FXT_SCHED_ARGC_SHIFT)

/* One more one-word argument: a word and an argument count more. */
#define FXTRACE_SWITCH_ONE_ARG						\
	(1ULL << FXT_HDR_SIZE_SHIFT | 1ULL << FXT_SCHED_ARGC_SHIFT)

/* A kernel object record's header, its name an inline string of @name_len. */
static __always_inline u64 fxt_kobj_header(u64 obj_type, u64 words,
					   u64 name_len, u64 argc)
{
	u64 name_ref = name_len ? (FXT_STRING_REF_INLINE | name_len) : 0;

	return ((u64)FXT_RECORD_KERNEL_OBJECT << FXT_HDR_TYPE_SHIFT) |
	       (words << FXT_HDR_SIZE_SHIFT) |
	       (obj_type << FXT_KOBJ_TYPE_SHIFT) |
	       (name_ref << FXT_KOBJ_NAME_SHIFT) |
	       (argc << FXT_KOBJ_ARGC_SHIFT);
}

/* An event record's header, with an inline thread and indexed names. */
static __always_inline u64 fxt_event_header(u64 event_type, u64 words,
					    u64 argc, u64 category, u64 name)
{
	return ((u64)FXT_RECORD_EVENT << FXT_HDR_TYPE_SHIFT) |
	       (words << FXT_HDR_SIZE_SHIFT) |
	       (event_type << FXT_EVENT_TYPE_SHIFT) |
	       (argc << FXT_EVENT_ARGC_SHIFT) |
	       (category << FXT_EVENT_CATEGORY_SHIFT) |
	       (name << FXT_EVENT_NAME_SHIFT);
}

/* A one-word argument (int32, uint32) named by a string-table index. */
static __always_inline u64 fxt_arg_word(u64 type, u64 name, u32 value)
{
	return (type << FXT_ARG_TYPE_SHIFT) | (1ULL << FXT_ARG_SIZE_SHIFT) |
	       (name << FXT_ARG_NAME_SHIFT) | ((u64)value << FXT_ARG_VALUE_SHIFT);
}

/* The header of a two-word argument (koid, uint64, ...); the value follows. */
static __always_inline u64 fxt_arg_header2(u64 type, u64 name)
{
	return (type << FXT_ARG_TYPE_SHIFT) | (2ULL << FXT_ARG_SIZE_SHIFT) |
	       (name << FXT_ARG_NAME_SHIFT);
}

#endif /* FXTRACE_RECORD_H */
