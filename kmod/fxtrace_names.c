// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_names.c - the kernel object records that name processes and threads
 *
 * Written when a task is first woken (sched_wakeup_new, from
 * fxtrace_probes.c), execs (sched_process_exec) or is renamed
 * (task_rename); uapi header, "Names". Not on the path of every switch and
 * wakeup, so this file is linked after fxtrace_probes.o (kmod/Kbuild) and
 * takes none of the first text page the hot probes share.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "fxtrace_names.h"
#include "fxtrace_probe_context.h"
#include "fxtrace_record.h"
#include "fxtrace_ring.h"

/*
 * A task name as an FXT inline string: at most 15 bytes (a comm, or the
 * first 15 bytes of what task_rename is given), zero-padded to whole words.
 */
struct fxtrace_name {
	union {
		char text[FXTRACE_NAME_MAX_WORDS * sizeof(u64)];
		u64 words[FXTRACE_NAME_MAX_WORDS];
	};
	unsigned int len;
	unsigned int nwords;
};

/*
 * @src may change under us (a comm being renamed): strscpy_pad() still
 * stops within the buffer, terminates it and zeroes the rest, so the worst
 * case is a mix of the old and new names, as with get_task_comm().
 */
static void fxtrace_get_name(struct fxtrace_name *name, const char *src)
{
	strscpy_pad(name->text, src, sizeof(name->text));
	name->len = strlen(name->text);
	name->nwords = DIV_ROUND_UP(name->len, sizeof(u64));
}

/*
 * A kernel object record naming @koid, built in place: header, koid, the
 * inline name, and for a thread its process's koid as the argument
 * "process", then for a thread that begins here (@new_task) the argument
 * "new_task" = 1 (a process's record has no arguments).
 */
static void fxtrace_put_name(struct fxtrace_ring *ring, u32 obj_type,
			     u32 koid, const struct fxtrace_name *name,
			     u32 process, bool new_task, u64 now)
{
	bool thread = obj_type == FXT_OBJ_TYPE_THREAD;
	unsigned int args = thread ? 1 + new_task : 0;
	unsigned int words = 2 + name->nwords + (thread ? 2 + new_task : 0);
	struct fxtrace_slot slot;
	u64 *rec;

	if (!fxtrace_ring_reserve(ring, words, now, &slot))
		return;
	rec = slot.rec;
	rec[0] = fxt_kobj_header(obj_type, words, name->len, args);
	rec[1] = koid;
	memcpy(&rec[2], name->words, name->nwords * sizeof(u64));
	if (thread) {
		rec[2 + name->nwords] = fxt_arg_header2(FXT_ARG_KOID,
							FXTRACE_STR_PROCESS);
		rec[3 + name->nwords] = process;
		if (new_task)
			rec[4 + name->nwords] =
				fxt_arg_word(FXT_ARG_INT32,
					     FXTRACE_STR_NEW_TASK, 1);
	}
	fxtrace_ring_commit(ring, &slot, words);
}

/**
 * fxtrace_write_names() - name @task in the current CPU's ring
 * @data: the probe's data: the session's per-CPU rings
 * @task: the task to name
 * @comm: its name (maybe longer than a comm: the first 15 bytes are kept)
 * @process: name its process first (@task leads its thread group)
 * @new_task: @task begins here (sched_wakeup_new): its record says so
 *
 * Kernel object records (uapi header, "Names"): the process's when
 * @process, then the thread's. They carry no timestamp; the one clock read
 * is for the loss accounting (a drop's time, a hole's end).
 *
 * Context: a probe; any context, interrupts on or off.
 */
void fxtrace_write_names(void *data, struct task_struct *task,
			 const char *comm, bool process, bool new_task)
{
	struct fxtrace_name name;
	struct fxtrace_ring *ring;
	unsigned long flags;
	u64 now;

	fxtrace_get_name(&name, comm);
	local_irq_save(flags);
	ring = fxtrace_this_ring(data);
	now = fxtrace_clock();
	if (process)
		fxtrace_put_name(ring, FXT_OBJ_TYPE_PROCESS,
				 task_tgid_nr(task), &name, 0, false, now);
	fxtrace_put_name(ring, FXT_OBJ_TYPE_THREAD, task_pid_nr(task), &name,
			 task_tgid_nr(task), new_task, now);
	local_irq_restore(flags);
}

/**
 * fxtrace_probe_sched_process_exec() - name a task and its process at exec
 * @data: the probe's data: the session's per-CPU rings
 * @p: the task, after the new image is in place: comm is the new name,
 *     the pid the thread group leader's
 * @old_pid: the pid before exec (not needed: @p's is the one that stays)
 * @bprm: the new image (not needed)
 *
 * On 6.1 and 6.12 task_rename has named the task already, from exec's own
 * __set_task_comm(), so an exec writes its names twice. Kept on purpose:
 * two records an exec, and an exec stays named on a kernel that sets comm
 * at exec some other way.
 *
 * Context: the sched_process_exec tracepoint, in the task itself.
 */
void fxtrace_probe_sched_process_exec(void *data, struct task_struct *p,
				      pid_t old_pid, struct linux_binprm *bprm)
{
	fxtrace_write_names(data, p, p->comm, true, false);
}

/**
 * fxtrace_probe_task_rename() - name a task that sets its comm
 * @data: the probe's data: the session's per-CPU rings
 * @task: the task, before the rename
 * @comm: the new name (maybe longer than a comm: 15 bytes are kept)
 *
 * prctl(PR_SET_NAME), a write to /proc/.../comm, exec: the thread's name,
 * and its process's too when @task leads its thread group.
 *
 * Context: the task_rename tracepoint, in __set_task_comm().
 */
void fxtrace_probe_task_rename(void *data, struct task_struct *task,
			       const char *comm)
{
	fxtrace_write_names(data, task, comm, thread_group_leader(task), false);
}

FXTRACE_CHECK_PROBE(sched_process_exec, fxtrace_probe_sched_process_exec);
FXTRACE_CHECK_PROBE(task_rename, fxtrace_probe_task_rename);
