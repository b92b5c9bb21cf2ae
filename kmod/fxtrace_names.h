/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_names.h - the kernel object records that name processes and threads
 */
#ifndef FXTRACE_NAMES_H
#define FXTRACE_NAMES_H

#include <linux/binfmts.h>
#include <linux/sched.h>

void fxtrace_write_names(void *data, struct task_struct *task,
			 const char *comm, bool process, bool new_task);
void fxtrace_probe_sched_process_exec(void *data, struct task_struct *p,
				      pid_t old_pid, struct linux_binprm *bprm);
void fxtrace_probe_task_rename(void *data, struct task_struct *task,
			       const char *comm);

#endif /* FXTRACE_NAMES_H */
