/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel_records.h - recognise each record the kernel may put in a ring
 *
 * The uapi header ("Records") lists exactly what the module writes; a ring
 * walker uses krec_classify() to tell those apart from anything else, which
 * is then a torn or corrupt record.
 */
#ifndef KERNEL_RECORDS_H
#define KERNEL_RECORDS_H

#include <linux/fxtrace.h>

/* Words of one loss marker (the kernel writes them in pairs). */
#define FXTRACE_LOSS_WORDS	7

enum krec {
	KREC_BAD,	/* not something the kernel writes */
	KREC_SWITCH,
	KREC_WAKEUP,
	KREC_PROCESS,	/* kernel object record naming a process */
	KREC_THREAD,	/* kernel object record naming a thread */
	KREC_LOSS,	/* loss marker (counter event) */
};

static inline unsigned int krec_words(__u64 hdr)
{
	return (hdr >> FXT_HDR_SIZE_SHIFT) & FXT_HDR_SIZE_MASK;
}

/* Words a kernel object record with this header must have, name included. */
static inline unsigned int krec_kobj_words(__u64 hdr, unsigned int fixed)
{
	__u64 ref = (hdr >> FXT_KOBJ_NAME_SHIFT) & 0xffff;
	__u64 len = ref & ~(__u64)FXT_STRING_REF_INLINE;

	if (ref && (!(ref & FXT_STRING_REF_INLINE) || len > 15))
		return 0;
	return fixed + (len + 7) / 8;
}

/* What the record with header @hdr is; sizes are checked exactly. */
static inline enum krec krec_classify(__u64 hdr)
{
	unsigned int words = krec_words(hdr);
	__u64 kind = hdr >> FXT_SCHED_KIND_SHIFT;
	__u64 argc;

	switch (hdr & 0xf) {
	case FXT_RECORD_SCHEDULING:
		argc = (hdr >> FXT_SCHED_ARGC_SHIFT) & 0xf;
		/* incoming_weight, then at most outgoing_weight, linux_state */
		if (kind == FXT_SCHED_KIND_CONTEXT_SWITCH &&
		    words >= 5 && words <= 7 && argc == words - 4)
			return KREC_SWITCH;
		/* the waker, or nothing */
		if (kind == FXT_SCHED_KIND_WAKEUP &&
		    ((words == 5 && argc == 1) || (words == 3 && argc == 0)))
			return KREC_WAKEUP;
		return KREC_BAD;
	case FXT_RECORD_KERNEL_OBJECT:
		argc = (hdr >> FXT_KOBJ_ARGC_SHIFT) & 0xf;
		switch ((hdr >> FXT_KOBJ_TYPE_SHIFT) & 0xff) {
		case FXT_OBJ_TYPE_PROCESS:
			return argc == 0 && words == krec_kobj_words(hdr, 2) ?
			       KREC_PROCESS : KREC_BAD;
		case FXT_OBJ_TYPE_THREAD:
			/* process, and new_task when created (ABI 5) */
			return (argc == 1 && words == krec_kobj_words(hdr, 4)) ||
			       (argc == 2 && words == krec_kobj_words(hdr, 5)) ?
			       KREC_THREAD : KREC_BAD;
		}
		return KREC_BAD;
	case FXT_RECORD_EVENT:
		if (((hdr >> FXT_EVENT_TYPE_SHIFT) & 0xf) == FXT_EVENT_COUNTER &&
		    words == 7 && ((hdr >> FXT_EVENT_ARGC_SHIFT) & 0xf) == 1 &&
		    ((hdr >> FXT_EVENT_THREAD_SHIFT) & 0xff) == 0 &&
		    ((hdr >> FXT_EVENT_CATEGORY_SHIFT) & 0xffff) ==
		    FXTRACE_STR_FXTRACE &&
		    (hdr >> FXT_EVENT_NAME_SHIFT) == FXTRACE_STR_RECORDS_LOST)
			return KREC_LOSS;
		return KREC_BAD;
	}
	return KREC_BAD;
}

/* Linux >= 6.1's modifier of a sleep: the freezer may stop the task there. */
#define KREC_TASK_FREEZABLE	0x2000

/*
 * True when a context switch's raw prev_state @raw is the one its FXT state
 * @fxt_state implies, so the kernel leaves linux_state out (uapi "Records"):
 * TASK_RUNNING when preempted, TASK_INTERRUPTIBLE (with or without
 * TASK_FREEZABLE) when blocked.
 */
static inline int krec_linux_state_implied(__u64 fxt_state, __u64 raw)
{
	return (fxt_state == FXT_THREAD_STATE_RUNNING && raw == 0) ||
	       (fxt_state == FXT_THREAD_STATE_BLOCKED &&
		(raw & ~(__u64)KREC_TASK_FREEZABLE) == 1);
}

/* An argument's header word of @words words (itself included). */
static inline __u64 krec_arg_header(__u64 type, __u64 words, __u64 name)
{
	return type << FXT_ARG_TYPE_SHIFT | words << FXT_ARG_SIZE_SHIFT |
	       name << FXT_ARG_NAME_SHIFT;
}

/* A one-word argument's header word as the kernel writes it, value aside. */
static inline __u64 krec_arg_word(__u64 type, __u64 name)
{
	return krec_arg_header(type, 1, name);
}

/* A context switch's fields and arguments, as the kernel lays them out. */
struct krec_switch {
	__u64 outgoing_tid, incoming_tid, fxt_state;
	__s32 incoming_weight;
	int has_outgoing_weight;
	__s32 outgoing_weight;
	int has_linux_state;
	__u32 linux_state;
};

/*
 * Read the KREC_SWITCH at @rec into @sw: incoming_weight, then
 * outgoing_weight if present, then linux_state if present (uapi
 * "Records"). Return NULL, or what is wrong with its arguments, including
 * a linux_state that breaks the rule "there exactly when the FXT state
 * does not imply it".
 */
static inline const char *krec_read_switch(const __u64 *rec,
					   struct krec_switch *sw)
{
	const __u64 low = 0xffffffffULL;
	unsigned int words = krec_words(rec[0]), at = 5;

	sw->fxt_state = (rec[0] >> FXT_SCHED_STATE_SHIFT) & 0xf;
	sw->outgoing_tid = rec[2];
	sw->incoming_tid = rec[3];
	if ((rec[4] & low) != krec_arg_word(FXT_ARG_INT32,
					    FXTRACE_STR_INCOMING_WEIGHT))
		return "the first argument is not the int32 incoming_weight";
	sw->incoming_weight = (__s32)(rec[4] >> FXT_ARG_VALUE_SHIFT);
	sw->has_outgoing_weight = at < words &&
		(rec[at] & low) == krec_arg_word(FXT_ARG_INT32,
						 FXTRACE_STR_OUTGOING_WEIGHT);
	if (sw->has_outgoing_weight)
		sw->outgoing_weight = (__s32)(rec[at++] >> FXT_ARG_VALUE_SHIFT);
	sw->has_linux_state = at < words;
	if (sw->has_linux_state) {
		if ((rec[at] & low) != krec_arg_word(FXT_ARG_UINT32,
						     FXTRACE_STR_LINUX_STATE))
			return "an argument after the weights is not the uint32 linux_state";
		sw->linux_state = (__u32)(rec[at++] >> FXT_ARG_VALUE_SHIFT);
		if (krec_linux_state_implied(sw->fxt_state, sw->linux_state))
			return "linux_state written although the FXT state implies it";
	} else if (sw->fxt_state != FXT_THREAD_STATE_RUNNING &&
		   sw->fxt_state != FXT_THREAD_STATE_BLOCKED) {
		return "no linux_state, but the FXT state implies none";
	}
	return at == words ? NULL : "an argument too many";
}

#endif /* KERNEL_RECORDS_H */
