// SPDX-License-Identifier: GPL-2.0
/*
 * check-pingpong - check a trace of fxt-pingpong against what it must contain
 *
 *	check-pingpong TRACE.fxt EXPECT.json
 *
 * EXPECT.json is what fxt-pingpong --expect wrote: the pid, and the tid,
 * name and CPU of the "ping" and "pong" threads. Every check is one TAP test.
 * This is our own decoder's view; the host runs the same file through
 * Perfetto's trace_processor as the independent judge.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_read.h"
#include "kernel_records.h"

#define MAX_CPUS 4096

struct thread_expect {
	uint64_t tid;
	char name[32];
	unsigned int cpu;
	/* what the trace shows */
	bool named, in_process;
	uint64_t switch_in, switch_in_elsewhere, blocked_out, blocked_implied;
	uint64_t blocked_raw_redundant, blocked_raw_other;
	uint64_t weight_ok, wakeups, wakeups_on_cpu, woken_by_partner;
};

struct expect {
	uint64_t pid;
	uint64_t min_switches;
	struct thread_expect t[2];
	/* whole-trace observations */
	bool process_named;
	uint64_t idle_sides, idle_sides_marked, out_of_order;
	uint64_t last_ts[MAX_CPUS];
	bool cpu_seen[MAX_CPUS];
};

static int tests, failures;

static void tap(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures += !ok;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) == (size_t)n) {
			buf[n] = 0;
			*len = n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* The JSON fxt-pingpong writes has a fixed shape; read just those keys. */
static bool parse_expect(const char *json, struct expect *e)
{
	const char *p = json;
	int i;

	if (sscanf(json, "{\"pid\": %" SCNu64, &e->pid) != 1)
		return false;
	p = strstr(json, "\"min_switches\": ");
	if (!p || sscanf(p, "\"min_switches\": %" SCNu64, &e->min_switches) != 1)
		return false;
	for (i = 0; i < 2; i++) {
		p = strstr(p, "{\"tid\": ");
		if (!p || sscanf(p, "{\"tid\": %" SCNu64 ", \"name\": \"%31[^\"]\", \"cpu\": %u",
				 &e->t[i].tid, e->t[i].name, &e->t[i].cpu) != 3)
			return false;
		p++;
	}
	return true;
}

static struct thread_expect *find(struct expect *e, uint64_t tid)
{
	int i;

	for (i = 0; i < 2; i++)
		if (e->t[i].tid == tid)
			return &e->t[i];
	return NULL;
}

static int32_t arg_i32(const struct fxt_record *rec, const char *name,
		       bool *found)
{
	const struct fxt_arg *a = fxt_record_find_arg(rec, name);

	*found = a && a->type == FXT_ARG_INT32;
	return *found ? a->v.i32 : 0;
}

static void see_idle_side(struct expect *e, const struct fxt_record *rec,
			  const char *weight_name)
{
	bool found;

	e->idle_sides++;
	if (arg_i32(rec, weight_name, &found) == INT32_MIN && found)
		e->idle_sides_marked++;
}

static void see_switch(struct expect *e, const struct fxt_record *rec)
{
	const struct fxt_context_switch *cs = &rec->context_switch;
	const struct fxt_arg *raw;
	struct thread_expect *t;
	bool found;

	if (cs->cpu < MAX_CPUS) {
		if (e->cpu_seen[cs->cpu] && cs->timestamp < e->last_ts[cs->cpu])
			e->out_of_order++;
		e->cpu_seen[cs->cpu] = true;
		e->last_ts[cs->cpu] = cs->timestamp;
	}
	if (cs->outgoing_tid == 0)
		see_idle_side(e, rec, "outgoing_weight");
	if (cs->incoming_tid == 0)
		see_idle_side(e, rec, "incoming_weight");

	t = find(e, cs->incoming_tid);
	if (t) {
		if (cs->cpu == t->cpu)
			t->switch_in++;
		else
			t->switch_in_elsewhere++;
		if (arg_i32(rec, "incoming_weight", &found) == 120 && found)
			t->weight_ok++;
	}
	t = find(e, cs->outgoing_tid);
	if (t && cs->outgoing_state == FXT_THREAD_STATE_BLOCKED) {
		t->blocked_out++;
		/*
		 * Blocked in a pipe read: TASK_INTERRUPTIBLE, which the blocked
		 * state implies, so the kernel leaves linux_state out. On
		 * PREEMPT_RT a spinlock_t can also put it to sleep
		 * (TASK_RTLOCK_WAIT), which it writes. A linux_state of 1 (or 0,
		 * or of another type) here is an argument that tells nothing.
		 */
		raw = fxt_record_find_arg(rec, "linux_state");
		if (!raw)
			t->blocked_implied++;
		else if (raw->type != FXT_ARG_UINT32 || raw->v.u32 == 0 ||
			 krec_linux_state_implied(FXT_THREAD_STATE_BLOCKED,
						  raw->v.u32))
			t->blocked_raw_redundant++;
		else
			t->blocked_raw_other++;
	}
}

static void see_wakeup(struct expect *e, const struct fxt_record *rec)
{
	struct thread_expect *t = find(e, rec->wakeup.woken_tid);
	const struct fxt_arg *waker;

	if (!t)
		return;
	t->wakeups++;
	if (rec->wakeup.cpu == t->cpu)
		t->wakeups_on_cpu++;
	waker = fxt_record_find_arg(rec, "waker");
	if (waker && waker->type == FXT_ARG_KOID &&
	    waker->v.koid == e->t[t == &e->t[0]].tid)
		t->woken_by_partner++;
}

static void see_kobj(struct expect *e, const struct fxt_record *rec)
{
	const struct fxt_kernel_object *ko = &rec->kobj;
	const struct fxt_arg *proc;
	struct thread_expect *t;

	if (ko->obj_type == FXT_OBJ_TYPE_PROCESS && ko->koid == e->pid)
		e->process_named = fxt_str_eq(&ko->name, "fxt-pingpong");
	if (ko->obj_type != FXT_OBJ_TYPE_THREAD)
		return;
	t = find(e, ko->koid);
	if (!t)
		return;
	/* Names are last-wins per koid in FXT. */
	t->named = fxt_str_eq(&ko->name, t->name);
	proc = fxt_record_find_arg(rec, "process");
	t->in_process = proc && proc->type == FXT_ARG_KOID &&
			proc->v.koid == e->pid;
}

static int walk(const char *buf, size_t len, struct expect *e)
{
	struct fxt_reader *r = fxt_reader_new(buf, len, FXT_READ_STRICT);
	struct fxt_record rec;
	int ret;

	if (!r)
		return -1;
	while ((ret = fxt_reader_next(r, &rec)) > 0) {
		if (rec.type == FXT_RECORD_KERNEL_OBJECT)
			see_kobj(e, &rec);
		if (rec.type != FXT_RECORD_SCHEDULING)
			continue;
		if (rec.kind == FXT_SCHED_KIND_CONTEXT_SWITCH)
			see_switch(e, &rec);
		else if (rec.kind == FXT_SCHED_KIND_WAKEUP)
			see_wakeup(e, &rec);
	}
	tap(ret == 0, "the whole trace decodes strictly%s%s",
	    ret ? ": " : "", ret ? fxt_reader_error(r)->message : "");
	fxt_reader_free(r);
	return ret;
}

static void report_thread(const struct expect *e, const struct thread_expect *t)
{
	uint64_t min = e->min_switches;

	tap(t->named && t->in_process,
	    "%s (tid %" PRIu64 ") is named and belongs to pid %" PRIu64,
	    t->name, t->tid, e->pid);
	tap(t->switch_in >= min && t->switch_in_elsewhere <= 3,
	    "%s switched in on CPU %u %" PRIu64 " times (>= %" PRIu64
	    "), %" PRIu64 " times elsewhere (<= 3, before pinning)",
	    t->name, t->cpu, t->switch_in, min, t->switch_in_elsewhere);
	/* Every switch in weighs 120, on any CPU: one wrong elsewhere fails. */
	tap(t->weight_ok == t->switch_in + t->switch_in_elsewhere,
	    "%s carries incoming_weight 120 (nice 0) on %" PRIu64 "/%" PRIu64
	    " switches in", t->name, t->weight_ok,
	    t->switch_in + t->switch_in_elsewhere);
	tap(t->blocked_implied >= min && t->blocked_raw_redundant == 0,
	    "%s switched out blocked %" PRIu64 " times: without linux_state"
	    " (TASK_INTERRUPTIBLE) %" PRIu64 " (>= %" PRIu64 "), another sleep %"
	    PRIu64 ", linux_state 0 or 1 (| 0x2000) written %" PRIu64
	    " (must be 0)",
	    t->name, t->blocked_out, t->blocked_implied, min,
	    t->blocked_raw_other, t->blocked_raw_redundant);
	tap(t->wakeups >= min && t->wakeups_on_cpu >= t->wakeups - 3,
	    "%s woken %" PRIu64 " times, %" PRIu64 " with target CPU %u",
	    t->name, t->wakeups, t->wakeups_on_cpu, t->cpu);
	tap(t->woken_by_partner * 10 >= t->wakeups * 9,
	    "%s's waker is its partner in %" PRIu64 "/%" PRIu64 " wakeups (>= 90%%)",
	    t->name, t->woken_by_partner, t->wakeups);
}

int main(int argc, char **argv)
{
	struct expect *e = calloc(1, sizeof(*e));
	char *trace, *json;
	size_t len, jlen;
	int i;

	if (argc != 3 || !e) {
		fprintf(stderr, "usage: check-pingpong TRACE.fxt EXPECT.json\n");
		return 2;
	}
	trace = read_file(argv[1], &len);
	json = read_file(argv[2], &jlen);
	if (!trace || !json || !parse_expect(json, e)) {
		fprintf(stderr, "check-pingpong: cannot read %s or %s\n",
			argv[1], argv[2]);
		return 2;
	}
	printf("TAP version 13\n1..16\n");
	walk(trace, len, e);
	tap(e->process_named, "process %" PRIu64 " is named fxt-pingpong",
	    e->pid);
	for (i = 0; i < 2; i++)
		report_thread(e, &e->t[i]);
	tap(e->idle_sides > 0 && e->idle_sides_marked == e->idle_sides,
	    "every idle side of a switch weighs INT32_MIN (%" PRIu64 "/%" PRIu64
	    ")", e->idle_sides_marked, e->idle_sides);
	tap(e->out_of_order == 0,
	    "context switches are in timestamp order per CPU (%" PRIu64
	    " out of order)", e->out_of_order);
	printf("# %d passed, %d failed\n", tests - failures, failures);
	free(trace);
	free(json);
	free(e);
	return failures ? 1 : 0;
}
