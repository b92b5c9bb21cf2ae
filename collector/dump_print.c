// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dump_print.c - fxt-dump's default mode: every record printed, one line
 * each: its byte offset, its kind, its decoded fields, then its arguments
 * as name:type=value, string and thread refs resolved (<undefined #N> for
 * a ref no record defined, which only lenient mode lets through).
 *
 * fxt_dump.c hands each record to print_record(); the summary
 * (dump_stats.c) prints counter names with print_name() and asks
 * thread_undefined() which thread refs have no tid.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dump.h"
#include "fxt_read.h"

#define MAX_SHOWN_BYTES	16	/* blob bytes printed in hex */

static void print_text(const char *text, size_t len)
{
	putchar('"');
	fxt_fput_escaped(stdout, text, len, '"');
	putchar('"');
}

static void print_str(const struct fxt_str *s)
{
	if (!s->text)
		printf("<undefined #%u>", s->index);
	else
		print_text(s->text, s->len);
}

/* An argument name without quotes when it is a plain identifier. */
void print_name(const struct fxt_str *s)
{
	size_t i;

	if (!s->text || !s->len) {
		print_str(s);
		return;
	}
	for (i = 0; i < s->len; i++)
		if (!(s->text[i] == '_' || (s->text[i] >= 'a' && s->text[i] <= 'z') ||
		      (s->text[i] >= 'A' && s->text[i] <= 'Z') ||
		      (s->text[i] >= '0' && s->text[i] <= '9')))
			break;
	if (i == s->len)
		fwrite(s->text, 1, s->len, stdout);
	else
		print_str(s);
}

static void print_bytes(const void *data, size_t size)
{
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i < size && i < MAX_SHOWN_BYTES; i++)
		printf("%02x", p[i]);
	if (size > MAX_SHOWN_BYTES)
		fputs("...", stdout);
}

static void print_arg(const struct fxt_arg *a)
{
	putchar(' ');
	print_name(&a->name);
	printf(":%s", fxt_arg_type_name(a->type));
	switch (a->type) {
	case FXT_ARG_NULL:
		return;
	case FXT_ARG_INT32:
		printf("=%" PRId32, a->v.i32);
		return;
	case FXT_ARG_UINT32:
		printf("=%" PRIu32, a->v.u32);
		return;
	case FXT_ARG_INT64:
		printf("=%" PRId64, a->v.i64);
		return;
	case FXT_ARG_UINT64:
		printf("=%" PRIu64, a->v.u64);
		return;
	case FXT_ARG_DOUBLE:
		printf("=%.17g", a->v.f64);
		return;
	case FXT_ARG_STRING:
		putchar('=');
		print_str(&a->v.string);
		return;
	case FXT_ARG_POINTER:
		printf("=0x%" PRIx64, a->v.pointer);
		return;
	case FXT_ARG_KOID:
		printf("=%" PRIu64, a->v.koid);
		return;
	case FXT_ARG_BOOL:
		fputs(a->v.boolean ? "=true" : "=false", stdout);
		return;
	case FXT_ARG_BLOB:
		printf("[%" PRIu32 "]=", a->v.blob.size);
		print_bytes(a->v.blob.data, a->v.blob.size);
		return;
	default:
		printf("(%u)", a->type);	/* unknown type: no value */
		return;
	}
}

static void print_args(const struct fxt_record *rec)
{
	unsigned int i;

	for (i = 0; i < rec->nargs; i++)
		print_arg(&rec->args[i]);
}

/*
 * Is @t, of the record @r just returned, a ref no Thread record defined
 * (lenient mode)? Its koids read as 0/0, the idle task's.
 */
bool thread_undefined(const struct fxt_reader *r,
			     const struct fxt_thread_ref *t)
{
	uint64_t pid, tid;

	return t->index && !fxt_reader_lookup_thread(r, t->index, &pid, &tid);
}

/* " label=pid/tid(#index)", or " label=<undefined #index>". */
static void print_thread(const struct fxt_reader *r, const char *label,
			 const struct fxt_thread_ref *t)
{
	if (thread_undefined(r, t)) {
		printf(" %s=<undefined #%u>", label, t->index);
		return;
	}
	printf(" %s=%" PRIu64 "/%" PRIu64, label, t->pid, t->tid);
	if (t->index)
		printf("(#%u)", t->index);
}

static void print_metadata(const struct fxt_record *rec)
{
	switch (rec->kind) {
	case FXT_META_PROVIDER_INFO:
		printf("provider_info id=%" PRIu32 " name=", rec->meta.provider_id);
		print_str(&rec->meta.name);
		break;
	case FXT_META_PROVIDER_SECTION:
		printf("provider_section id=%" PRIu32, rec->meta.provider_id);
		break;
	case FXT_META_PROVIDER_EVENT:
		printf("provider_event id=%" PRIu32 " event=%u%s",
		       rec->meta.provider_id, rec->meta.event_id,
		       rec->meta.event_id == FXT_PROVIDER_EVENT_BUFFER_FULL ?
		       " (buffer filled up, records likely dropped)" : "");
		break;
	case FXT_META_TRACE_INFO:
		if (rec->meta.trace_info_type == FXT_TRACE_INFO_MAGIC)
			fputs("magic", stdout);
		else
			printf("trace_info type=%u", rec->meta.trace_info_type);
		break;
	}
}

static void print_event(const struct fxt_reader *r, const struct fxt_record *rec)
{
	const struct fxt_event *ev = &rec->event;

	printf("event %s ts=%" PRIu64, fxt_event_type_name(ev->type),
	       ev->timestamp);
	print_thread(r, "thread", &ev->thread);
	fputs(" category=", stdout);
	print_str(&ev->category);
	fputs(" name=", stdout);
	print_str(&ev->name);
	if (fxt_event_has_data_word(ev->type))
		printf(" %s=%" PRIu64,
		       ev->type == FXT_EVENT_COUNTER ? "counter_id" :
		       ev->type == FXT_EVENT_DURATION_COMPLETE ? "end_ts" :
		       ev->type <= FXT_EVENT_ASYNC_END ? "correlation_id" : "flow_id",
		       ev->data);
	print_args(rec);
}

static void print_scheduling(const struct fxt_reader *r,
			     const struct fxt_record *rec)
{
	const struct fxt_context_switch *cs = &rec->context_switch;
	const struct fxt_wakeup *wk = &rec->wakeup;
	const struct fxt_legacy_switch *ls = &rec->legacy_switch;

	switch (rec->kind) {
	case FXT_SCHED_KIND_CONTEXT_SWITCH:
		printf("context_switch ts=%" PRIu64 " cpu=%u out=%" PRIu64 " (%s) in=%" PRIu64,
		       cs->timestamp, cs->cpu, cs->outgoing_tid,
		       fxt_thread_state_name(cs->outgoing_state), cs->incoming_tid);
		break;
	case FXT_SCHED_KIND_WAKEUP:
		printf("wakeup ts=%" PRIu64 " cpu=%u woken=%" PRIu64,
		       wk->timestamp, wk->cpu, wk->woken_tid);
		break;
	case FXT_SCHED_KIND_LEGACY_SWITCH:
		printf("legacy_context_switch ts=%" PRIu64 " cpu=%u", ls->timestamp, ls->cpu);
		print_thread(r, "out", &ls->outgoing);
		printf(" (%s) out_prio=%u", fxt_thread_state_name(ls->outgoing_state),
		       ls->outgoing_priority);
		print_thread(r, "in", &ls->incoming);
		printf(" in_prio=%u", ls->incoming_priority);
		break;
	}
	print_args(rec);
}

/* @r: the reader @rec came from, and just returned it (its thread table). */
void print_record(const struct fxt_reader *r, const struct fxt_record *rec)
{
	printf("0x%08zx ", rec->offset);
	if (!rec->decoded) {
		printf("%s(type %u, kind %u) size=%zu words, not decoded\n",
		       fxt_record_type_name(rec->type), rec->type, rec->kind,
		       rec->size / 8);
		return;
	}
	switch (rec->type) {
	case FXT_RECORD_METADATA:
		print_metadata(rec);
		break;
	case FXT_RECORD_INITIALIZATION:
		printf("initialization ticks_per_second=%" PRIu64, rec->ticks_per_second);
		break;
	case FXT_RECORD_STRING:
		printf("string index=%u ", rec->string.index);
		print_str(&rec->string.value);
		break;
	case FXT_RECORD_THREAD:
		printf("thread index=%u pid=%" PRIu64 " tid=%" PRIu64,
		       rec->thread.index, rec->thread.pid, rec->thread.tid);
		break;
	case FXT_RECORD_EVENT:
		print_event(r, rec);
		break;
	case FXT_RECORD_BLOB:
		fputs("blob name=", stdout);
		print_str(&rec->blob.name);
		printf(" type=%u size=%zu data=", rec->blob.blob_type, rec->blob.size);
		print_bytes(rec->blob.data, rec->blob.size);
		break;
	case FXT_RECORD_USERSPACE_OBJECT:
		/* its process: a thread ref, of which only the pid is shown */
		printf("userspace_object pointer=0x%" PRIx64, rec->uobj.pointer);
		if (thread_undefined(r, &rec->uobj.process))
			printf(" pid=<undefined #%u>", rec->uobj.process.index);
		else
			printf(" pid=%" PRIu64, rec->uobj.process.pid);
		fputs(" name=", stdout);
		print_str(&rec->uobj.name);
		print_args(rec);
		break;
	case FXT_RECORD_KERNEL_OBJECT:
		printf("kernel_object %s koid=%" PRIu64 " name=",
		       fxt_obj_type_name(rec->kobj.obj_type), rec->kobj.koid);
		print_str(&rec->kobj.name);
		print_args(rec);
		break;
	case FXT_RECORD_SCHEDULING:
		print_scheduling(r, rec);
		break;
	case FXT_RECORD_LOG:
		printf("log ts=%" PRIu64, rec->log.timestamp);
		print_thread(r, "thread", &rec->log.thread);
		putchar(' ');
		print_text(rec->log.message, rec->log.len);
		break;
	case FXT_RECORD_LARGE:
		printf("large_blob format=%u category=", rec->large_blob.format);
		print_str(&rec->large_blob.category);
		fputs(" name=", stdout);
		print_str(&rec->large_blob.name);
		if (rec->large_blob.format == FXT_LARGE_BLOB_WITH_METADATA) {
			printf(" ts=%" PRIu64, rec->large_blob.timestamp);
			print_thread(r, "thread", &rec->large_blob.thread);
		}
		printf(" size=%" PRIu64 " data=", rec->large_blob.size);
		print_bytes(rec->large_blob.data, (size_t)rec->large_blob.size);
		print_args(rec);
		break;
	}
	putchar('\n');
}
