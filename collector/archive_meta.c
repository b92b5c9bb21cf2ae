// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * archive_meta.c - metadata records written by fxt-collect
 * (see archive_meta.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_meta.h"
#include "proc_tasks.h"

/*
 * The kernel's argument names. The uapi header gives them as one string
 * whose NUL-separated pieces are the texts of indices 0, 1, 2, ... (piece 0
 * is the empty string, which FXT never registers).
 */
static int write_kernel_strings(struct fxt_writer *w)
{
	static const char table[] = FXTRACE_STRING_TABLE;
	const char *p = table + 1;
	uint16_t index;
	size_t len;
	int err = 0;

	for (index = 1; !err && p < table + sizeof(table); index++) {
		len = strlen(p);
		err = fxt_write_string(w, index, p, len);
		p += len + 1;
	}
	return err;
}

int archive_write_preamble(struct fxt_writer *w)
{
	int err;

	err = fxt_write_magic(w);
	if (!err)
		err = fxt_write_provider_info(w, ARCHIVE_PROVIDER_ID,
					      ARCHIVE_PROVIDER_NAME,
					      strlen(ARCHIVE_PROVIDER_NAME));
	if (!err)
		err = fxt_write_provider_section(w, ARCHIVE_PROVIDER_ID);
	if (!err)
		err = fxt_write_initialization(w, ARCHIVE_TICKS_PER_SECOND);
	if (!err)
		err = write_kernel_strings(w);
	if (!err)
		err = fxt_write_string(w, ARCHIVE_STR_CATEGORY, "fxtrace", 7);
	if (!err)
		err = fxt_write_string(w, ARCHIVE_STR_RECORDS_DROPPED,
				       "records_dropped", 15);
	if (!err)
		err = fxt_write_string(w, ARCHIVE_STR_BYTES_SKIPPED,
				       "bytes_skipped", 13);
	return err;
}

int archive_write_process(struct fxt_writer *w, uint64_t pid,
			  const char *name)
{
	struct fxt_kernel_object obj = {
		.obj_type = FXT_OBJ_TYPE_PROCESS,
		.name = fxt_str_c(name),
		.koid = pid,
	};

	return fxt_write_kernel_object(w, &obj, NULL, 0);
}

int archive_write_thread(struct fxt_writer *w, uint64_t tid, uint64_t pid,
			 const char *name)
{
	struct fxt_kernel_object obj = {
		.obj_type = FXT_OBJ_TYPE_THREAD,
		.name = fxt_str_c(name),
		.koid = tid,
	};
	struct fxt_arg process = fxt_arg_koid(fxt_str_index(FXTRACE_STR_PROCESS),
					      pid);

	return fxt_write_kernel_object(w, &obj, &process, 1);
}

struct all_tasks {
	struct fxt_writer *w;
	struct tid_set *threads;
	struct tid_set *processes;
};

static int remember(struct tid_set *set, uint64_t id)
{
	return set && tid_set_add(set, id) < 0 ? -ENOMEM : 0;
}

/* Per task: the process object when we meet its leader, then the thread. */
static int write_task(void *ctx, const struct task_info *task)
{
	struct all_tasks *all = ctx;
	int err = 0;

	if (task->tid == task->tgid) {
		err = archive_write_process(all->w, task->tgid, task->name);
		if (!err)
			err = remember(all->processes, task->tgid);
	}
	if (!err)
		err = archive_write_thread(all->w, task->tid, task->tgid,
					   task->name);
	if (!err)
		err = remember(all->threads, task->tid);
	return err;
}

int archive_write_all_tasks(struct fxt_writer *w, const char *proc_root,
			    struct tid_set *threads, struct tid_set *processes)
{
	struct all_tasks all = { w, threads, processes };

	return proc_for_each_task(proc_root, write_task, &all);
}

/* A process object for @pid unless @done already has it. */
static int write_process_once(struct fxt_writer *w, const char *proc_root,
			      uint64_t pid, struct tid_set *done)
{
	struct task_info leader;
	int added = tid_set_add(done, pid);

	if (added <= 0)
		return added;
	if (proc_read_task(proc_root, pid, &leader))
		return 0;	/* leader gone: its threads still get named */
	return archive_write_process(w, pid, leader.name);
}

/* Thread @tid (and its process, once per @processes). 1: written, 0: gone. */
static int write_live_task(struct fxt_writer *w, const char *proc_root,
			   uint64_t tid, struct tid_set *processes)
{
	struct task_info task;
	int err;

	if (proc_read_task(proc_root, tid, &task))
		return 0;
	err = write_process_once(w, proc_root, task.tgid, processes);
	if (!err)
		err = archive_write_thread(w, task.tid, task.tgid, task.name);
	return err ? err : 1;
}

int archive_write_new_task(struct fxt_writer *w, const char *proc_root,
			   uint64_t tid, struct tid_set *threads,
			   struct tid_set *processes)
{
	int ret = write_live_task(w, proc_root, tid, processes);

	if (ret == 1 && remember(threads, tid))
		return -ENOMEM;
	return ret;
}

int archive_write_seen_tasks(struct fxt_writer *w, const char *proc_root,
			     const struct tid_set *tids,
			     const struct tid_set *named, uint64_t *missing)
{
	struct tid_set done;
	uint64_t *list;
	long n, i;
	int ret = 0;

	if (missing)
		*missing = 0;
	n = tid_set_sorted(tids, &list);
	if (n < 0)
		return (int)n;
	tid_set_init(&done);
	for (i = 0; ret >= 0 && i < n; i++) {
		if (list[i] == 0)	/* the idle tasks: not a real thread */
			continue;
		ret = write_live_task(w, proc_root, list[i], &done);
		if (ret == 0 && missing && !(named && tid_set_contains(named, list[i])))
			(*missing)++;
	}
	tid_set_free(&done);
	free(list);
	return ret < 0 ? ret : 0;
}

/* Up to FXT_MAX_ARGS CPUs in one counter event. */
static int write_counter_event(struct fxt_writer *w, uint64_t pid,
			       uint64_t tid, uint64_t timestamp,
			       const struct drop_count *counts, size_t n)
{
	char names[FXT_MAX_ARGS][16];
	struct fxt_arg args[FXT_MAX_ARGS];
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = { .index = 0, .pid = pid, .tid = tid },
		.category = fxt_str_index(ARCHIVE_STR_CATEGORY),
		.name = fxt_str_index(ARCHIVE_STR_RECORDS_DROPPED),
		.timestamp = timestamp,
		.data = 0,	/* counter id: part of Perfetto's track name */
	};
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "cpu%u", counts[i].cpu);
		args[i] = fxt_arg_int64(fxt_str_c(names[i]),
					(int64_t)counts[i].dropped);
	}
	return fxt_write_event(w, &ev, args, (unsigned int)n);
}

int archive_write_drop_counters(struct fxt_writer *w, uint64_t pid,
				uint64_t tid, uint64_t timestamp,
				const struct drop_count *counts, size_t n)
{
	size_t done, chunk;
	int err = 0;

	for (done = 0; !err && done < n; done += chunk) {
		chunk = n - done < FXT_MAX_ARGS ? n - done : FXT_MAX_ARGS;
		err = write_counter_event(w, pid, tid, timestamp,
					  counts + done, chunk);
	}
	return err;
}

int archive_write_drop_marker(struct fxt_writer *w, uint64_t pid,
			      uint64_t tid, unsigned int cpu,
			      uint64_t dropped_total, uint64_t timestamp)
{
	struct drop_count count = { cpu, dropped_total };
	int err;

	err = fxt_write_provider_event(w, ARCHIVE_PROVIDER_ID,
				       FXT_PROVIDER_EVENT_BUFFER_FULL);
	if (!err)
		err = write_counter_event(w, pid, tid, timestamp, &count, 1);
	return err;
}

/*
 * One sample of a per-CPU counter of a hole, as the kernel writes its loss
 * markers: counter id = CPU, one int64 argument named "cpu" (uapi, "Loss
 * markers"). Used for "bytes_skipped" and for "records_lost".
 */
static int write_hole_sample(struct fxt_writer *w, uint64_t pid, uint64_t tid,
			     uint16_t category, uint16_t name,
			     unsigned int cpu, uint64_t value, uint64_t ts)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.thread = { .index = 0, .pid = pid, .tid = tid },
		.category = fxt_str_index(category),
		.name = fxt_str_index(name),
		.timestamp = ts,
		.data = cpu,
	};
	/* int64, as the kernel's: a ring's size is far below INT64_MAX. */
	struct fxt_arg arg = fxt_arg_int64(fxt_str_index(FXTRACE_STR_CPU),
					   value > INT64_MAX ? INT64_MAX :
					   (int64_t)value);

	return fxt_write_event(w, &ev, &arg, 1);
}

/* A hole's pair of samples: the value at @from, 0 at @to. */
static int write_hole_pair(struct fxt_writer *w, uint64_t pid, uint64_t tid,
			   uint16_t category, uint16_t name, unsigned int cpu,
			   uint64_t value, uint64_t from, uint64_t to)
{
	int err = write_hole_sample(w, pid, tid, category, name, cpu, value,
				    from);

	return err ? err : write_hole_sample(w, pid, tid, category, name, cpu,
					     0, to);
}

int archive_write_skip_marker(struct fxt_writer *w, uint64_t pid,
			      uint64_t tid, unsigned int cpu, uint64_t bytes,
			      uint64_t from, uint64_t to)
{
	return write_hole_pair(w, pid, tid, ARCHIVE_STR_CATEGORY,
			       ARCHIVE_STR_BYTES_SKIPPED, cpu, bytes, from, to);
}

int archive_write_lost_marker(struct fxt_writer *w, uint64_t pid,
			      uint64_t tid, unsigned int cpu, uint64_t lost,
			      uint64_t from, uint64_t to)
{
	return write_hole_pair(w, pid, tid, FXTRACE_STR_FXTRACE,
			       FXTRACE_STR_RECORDS_LOST, cpu, lost, from, to);
}
