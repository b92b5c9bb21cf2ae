/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * proc_tasks.h - names and thread-group ids of tasks, from /proc.
 *
 * The collector names every process and thread in the trace with FXT kernel
 * object records. The data comes from /proc/<tid>/status ("Name:" and
 * "Tgid:"), which exists for every live thread, listed in /proc or not.
 * Every function takes the proc root as a parameter so tests can point it
 * at a fake tree.
 */
#ifndef PROC_TASKS_H
#define PROC_TASKS_H

#include <stdint.h>

/* /proc/PID/status Name can be longer than comm (workqueue workers). */
#define TASK_NAME_MAX	128

struct task_info {
	uint64_t tid;
	uint64_t tgid;			/* the process (thread group) id */
	char name[TASK_NAME_MAX];	/* NUL-terminated, unescaped */
};

/**
 * proc_read_task() - read /<proc_root>/<tid>/status
 * Return: 0, or a negative errno (-ENOENT: the thread has exited;
 * -EINVAL: the file lacks Name or Tgid).
 */
int proc_read_task(const char *proc_root, uint64_t tid, struct task_info *out);

/**
 * proc_parse_status() - parse the text of a status file into @out
 * (Name and Tgid; @out->tid is left alone). Return: 0 or -EINVAL.
 */
int proc_parse_status(const char *text, struct task_info *out);

/*
 * Called for every thread, process by process, the thread-group leader
 * first when it is still there. Return non-zero to stop the walk.
 */
typedef int (*proc_task_fn)(void *ctx, const struct task_info *task);

/**
 * proc_for_each_task() - visit /<proc_root>/<pid>/task/<tid> for all tasks
 *
 * Tasks that exit during the walk are skipped silently.
 * Return: 0, the callback's non-zero value, or a negative errno if the proc
 * root itself cannot be read.
 */
int proc_for_each_task(const char *proc_root, proc_task_fn fn, void *ctx);

#endif /* PROC_TASKS_H */
