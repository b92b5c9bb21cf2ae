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
		if (kind == FXT_SCHED_KIND_CONTEXT_SWITCH &&
		    ((words == 7 && argc == 3) || (words == 6 && argc == 2)))
			return KREC_SWITCH;
		if (kind == FXT_SCHED_KIND_WAKEUP &&
		    ((words == 6 && argc == 2) || (words == 4 && argc == 1)))
			return KREC_WAKEUP;
		return KREC_BAD;
	case FXT_RECORD_KERNEL_OBJECT:
		argc = (hdr >> FXT_KOBJ_ARGC_SHIFT) & 0xf;
		switch ((hdr >> FXT_KOBJ_TYPE_SHIFT) & 0xff) {
		case FXT_OBJ_TYPE_PROCESS:
			return argc == 0 && words == krec_kobj_words(hdr, 2) ?
			       KREC_PROCESS : KREC_BAD;
		case FXT_OBJ_TYPE_THREAD:
			return argc == 1 && words == krec_kobj_words(hdr, 4) ?
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

/*
 * A context switch carries linux_state exactly when its FXT state does not
 * imply it. Return NULL if the KREC_SWITCH at @rec keeps that rule, else
 * what is wrong with it.
 */
static inline const char *krec_switch_state_error(const __u64 *rec)
{
	const __u64 linux_state_arg = FXT_ARG_UINT32 << FXT_ARG_TYPE_SHIFT |
		1 << FXT_ARG_SIZE_SHIFT |
		(__u64)FXTRACE_STR_LINUX_STATE << FXT_ARG_NAME_SHIFT;
	__u64 state = (rec[0] >> FXT_SCHED_STATE_SHIFT) & 0xf;

	if (krec_words(rec[0]) == 6)
		return state == FXT_THREAD_STATE_RUNNING ||
		       state == FXT_THREAD_STATE_BLOCKED ? NULL :
		       "no linux_state, but the FXT state implies none";
	if ((rec[6] & 0xffffffffULL) != linux_state_arg)
		return "the third argument is not the uint32 linux_state";
	if (krec_linux_state_implied(state, rec[6] >> FXT_ARG_VALUE_SHIFT))
		return "linux_state written although the FXT state implies it";
	return NULL;
}

#endif /* KERNEL_RECORDS_H */
