// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_fxt_roundtrip.c - every FXT record kind and argument type survives
 * encode -> decode -> encode bit for bit, and the decoded fields are the
 * ones that were encoded. Also the writer's refusals (bad fields, too big,
 * buffer full) and the reader's per-provider tables.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fxt_read.h"
#include "fxt_write.h"
#include "tap.h"

#define TRACE_WORDS	16384

/* String and thread table entries every test trace starts with. */
enum { S_CAT = 1, S_NAME, S_ARG, S_VALUE };
#define T_ONE		1	/* thread index 1 = pid 100 / tid 101 */

static uint64_t words[TRACE_WORDS];
static struct fxt_writer w;

/* Magic, provider 1, and a few strings and a thread, all strict-valid. */
static void trace_begin(void)
{
	fxt_writer_init(&w, words, TRACE_WORDS);
	fxt_write_magic(&w);
	fxt_write_provider_info(&w, 1, "test", 4);
	fxt_write_provider_section(&w, 1);
	fxt_write_initialization(&w, 1000000000);
	fxt_write_string(&w, S_CAT, "cat", 3);
	fxt_write_string(&w, S_NAME, "name", 4);
	fxt_write_string(&w, S_ARG, "argname", 7);
	fxt_write_string(&w, S_VALUE, "value", 5);
	fxt_write_thread(&w, T_ONE, 100, 101);
}

/* Encode a decoded record again, by kind. */
static int reencode(struct fxt_writer *out, const struct fxt_record *rec)
{
	switch (rec->type) {
	case FXT_RECORD_METADATA:
		switch (rec->kind) {
		case FXT_META_PROVIDER_INFO:
			return fxt_write_provider_info(out, rec->meta.provider_id,
						       rec->meta.name.text,
						       rec->meta.name.len);
		case FXT_META_PROVIDER_SECTION:
			return fxt_write_provider_section(out, rec->meta.provider_id);
		case FXT_META_PROVIDER_EVENT:
			return fxt_write_provider_event(out, rec->meta.provider_id,
							rec->meta.event_id);
		default:
			return fxt_write_magic(out);
		}
	case FXT_RECORD_INITIALIZATION:
		return fxt_write_initialization(out, rec->ticks_per_second);
	case FXT_RECORD_STRING:
		return fxt_write_string(out, rec->string.index,
					rec->string.value.text, rec->string.value.len);
	case FXT_RECORD_THREAD:
		return fxt_write_thread(out, rec->thread.index, rec->thread.pid,
					rec->thread.tid);
	case FXT_RECORD_EVENT:
		return fxt_write_event(out, &rec->event, rec->args, rec->nargs);
	case FXT_RECORD_BLOB:
		return fxt_write_blob(out, &rec->blob);
	case FXT_RECORD_USERSPACE_OBJECT:
		return fxt_write_userspace_object(out, &rec->uobj, rec->args, rec->nargs);
	case FXT_RECORD_KERNEL_OBJECT:
		return fxt_write_kernel_object(out, &rec->kobj, rec->args, rec->nargs);
	case FXT_RECORD_SCHEDULING:
		switch (rec->kind) {
		case FXT_SCHED_KIND_CONTEXT_SWITCH:
			return fxt_write_context_switch(out, &rec->context_switch,
							rec->args, rec->nargs);
		case FXT_SCHED_KIND_WAKEUP:
			return fxt_write_wakeup(out, &rec->wakeup, rec->args, rec->nargs);
		default:
			return fxt_write_legacy_context_switch(out, &rec->legacy_switch);
		}
	case FXT_RECORD_LOG:
		return fxt_write_log(out, &rec->log);
	case FXT_RECORD_LARGE:
		return fxt_write_large_blob(out, &rec->large_blob, rec->args, rec->nargs);
	}
	return -EINVAL;
}

/*
 * Decode the whole trace with @flags; every record must re-encode to the
 * same bytes. The last record lands in @last. Return the number of
 * records, or -1 after printing the reader's error.
 */
static int decode_all_as(struct fxt_record *last, unsigned int flags)
{
	static uint64_t again[TRACE_WORDS];
	struct fxt_writer w2;
	struct fxt_reader *r = fxt_reader_new(words, fxt_writer_bytes(&w),
					      flags);
	int n = 0, ret;

	if (!r)
		return -1;
	while ((ret = fxt_reader_next(r, last)) > 0) {
		n++;
		fxt_writer_init(&w2, again, TRACE_WORDS);
		if (reencode(&w2, last) != 0 || fxt_writer_bytes(&w2) != last->size ||
		    memcmp(again, last->data, last->size)) {
			printf("#   record at offset %zu (type %u kind %u) does not re-encode to the same bytes\n",
			       last->offset, last->type, last->kind);
			n = -1;
			break;
		}
	}
	if (ret < 0)
		printf("#   reader: offset %zu: %s\n", fxt_reader_error(r)->offset,
		       fxt_reader_error(r)->message);
	fxt_reader_free(r);
	return ret < 0 ? -1 : n;
}

/* Strictly: what fxt-dump --check accepts. */
static int decode_all(struct fxt_record *last)
{
	return decode_all_as(last, FXT_READ_STRICT);
}

static bool str_is(const struct fxt_str *s, const char *text)
{
	return fxt_str_eq(s, text);
}

TEST(magic_is_the_documented_word)
{
	uint64_t one;
	struct fxt_writer mw;
	struct fxt_record rec;

	fxt_writer_init(&mw, &one, 1);
	ASSERT(fxt_write_magic(&mw) == 0);
	EXPECT_EQ(one, 0x0016547846040010ULL);
	trace_begin();
	ASSERT(decode_all(&rec) > 0);
	w.len = 1;
	ASSERT(decode_all(&rec) == 1);
	EXPECT_EQ(rec.type, FXT_RECORD_METADATA);
	EXPECT_EQ(rec.kind, FXT_META_TRACE_INFO);
	EXPECT_EQ(rec.meta.trace_info_type, FXT_TRACE_INFO_MAGIC);
}

TEST(metadata_records)
{
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_provider_event(&w, 1, FXT_PROVIDER_EVENT_BUFFER_FULL) == 0);
	ASSERT(decode_all(&rec) == 10);
	EXPECT_EQ(rec.kind, FXT_META_PROVIDER_EVENT);
	EXPECT_EQ(rec.meta.provider_id, 1);
	EXPECT_EQ(rec.meta.event_id, 0);

	trace_begin();
	ASSERT(fxt_write_provider_info(&w, 0xfffffffe, "a-long-provider-name", 20) == 0);
	ASSERT(decode_all(&rec) == 10);
	EXPECT_EQ(rec.kind, FXT_META_PROVIDER_INFO);
	EXPECT_EQ(rec.meta.provider_id, 0xfffffffe);
	EXPECT(str_is(&rec.meta.name, "a-long-provider-name"));
	EXPECT_EQ(rec.provider_id, 0xfffffffe);
	EXPECT_EQ(rec.size, 8 + 24);
}

TEST(initialization_record)
{
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_initialization(&w, 19200000) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.type, FXT_RECORD_INITIALIZATION);
	EXPECT_EQ(rec.ticks_per_second, 19200000);
}

TEST(string_records_all_lengths)
{
	static char text[32001];
	struct fxt_record rec;
	size_t lens[] = { 0, 1, 7, 8, 9, 15, 16, 255, 32000 };
	unsigned int i;

	memset(text, 'x', sizeof(text));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		trace_begin();
		ASSERT(fxt_write_string(&w, 0x7fff, text, lens[i]) == 0);
		ASSERT(decode_all(&rec) > 0);
		EXPECT_EQ(rec.type, FXT_RECORD_STRING);
		EXPECT_EQ(rec.string.index, 0x7fff);
		EXPECT_EQ(rec.string.value.len, lens[i]);
		EXPECT_EQ(rec.size, 8 + (lens[i] + 7) / 8 * 8);
	}
}

/*
 * An inline string's length is 15 bits: names of 16 KiB and more (a
 * kernel object's, 2050 words) come back whole, as they were written.
 */
TEST(inline_names_up_to_32_kib_roundtrip)
{
	static char text[0x7fff];
	struct fxt_kernel_object ko = { .obj_type = FXT_OBJ_TYPE_PROCESS, .koid = 1 };
	size_t lens[] = { 0x3fff, 0x4000, 0x7fe0 };
	struct fxt_record rec;
	unsigned int i;

	memset(text, 'n', sizeof(text));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		trace_begin();
		ko.name = fxt_str_inline(text, lens[i]);
		ASSERT(fxt_write_kernel_object(&w, &ko, NULL, 0) == 0);
		ASSERT(decode_all(&rec) > 0);
		EXPECT_EQ(rec.type, FXT_RECORD_KERNEL_OBJECT);
		EXPECT_EQ(rec.kobj.name.len, lens[i]);
		EXPECT_EQ(rec.size, 16 + (lens[i] + 7) / 8 * 8);
	}
}

TEST(thread_record_and_lookup)
{
	struct fxt_record rec;
	struct fxt_reader *r;
	uint64_t pid, tid;

	trace_begin();
	ASSERT(fxt_write_thread(&w, 255, 7, 8) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.thread.index, 255);
	EXPECT_EQ(rec.thread.pid, 7);
	EXPECT_EQ(rec.thread.tid, 8);

	r = fxt_reader_new(words, fxt_writer_bytes(&w), FXT_READ_STRICT);
	ASSERT(r);
	while (fxt_reader_next(r, &rec) > 0)
		;
	EXPECT(fxt_reader_lookup_thread(r, 255, &pid, &tid));
	EXPECT_EQ(pid, 7);
	EXPECT_EQ(tid, 8);
	EXPECT(!fxt_reader_lookup_thread(r, 2, &pid, &tid));
	EXPECT(fxt_reader_lookup_thread(r, T_ONE, &pid, &tid) && tid == 101);
	EXPECT_EQ(fxt_reader_ticks_per_second(r), 1000000000);
	fxt_reader_free(r);
}

/* One of each argument type, named inline and by index alternately. */
static unsigned int every_arg(struct fxt_arg *args)
{
	static const uint8_t blob[5] = { 1, 2, 3, 4, 5 };
	struct fxt_str idx = fxt_str_index(S_ARG);
	unsigned int n = 0;

	args[n++] = fxt_arg_null(fxt_str_c("null_arg"));
	args[n++] = fxt_arg_int32(idx, -123456);
	args[n++] = fxt_arg_uint32(fxt_str_c("u32"), 0xfedcba98);
	args[n++] = fxt_arg_int64(idx, INT64_MIN + 1);
	args[n++] = fxt_arg_uint64(fxt_str_c("u64"), UINT64_MAX - 1);
	args[n++] = fxt_arg_double(fxt_str_c("pi"), 3.141592653589793);
	args[n++] = fxt_arg_string(fxt_str_c("s_inline"), fxt_str_c("inline value"));
	args[n++] = fxt_arg_string(idx, fxt_str_index(S_VALUE));
	args[n++] = fxt_arg_pointer(fxt_str_c("ptr"), 0xffff800012345678ULL);
	args[n++] = fxt_arg_koid(fxt_str_c("process"), 4242);
	args[n++] = fxt_arg_bool(fxt_str_c("yes"), true);
	args[n++] = fxt_arg_bool(fxt_str_c("no"), false);
	args[n++] = fxt_arg_blob(fxt_str_c("blob5"), blob, sizeof(blob));
	args[n++] = fxt_arg_blob(fxt_str_c("blob0"), NULL, 0);
	args[n++] = fxt_arg_string(fxt_str_c("empty"), fxt_str_inline(NULL, 0));
	return n;
}

static void check_every_arg(const struct fxt_record *rec)
{
	const struct fxt_arg *a = rec->args;

	ASSERT(rec->nargs == 15);
	EXPECT_EQ(a[0].type, FXT_ARG_NULL);
	EXPECT(str_is(&a[0].name, "null_arg"));
	EXPECT_EQ(a[1].type, FXT_ARG_INT32);
	EXPECT_EQ(a[1].v.i32, -123456);
	EXPECT(str_is(&a[1].name, "argname"));
	EXPECT_EQ(a[1].name.index, S_ARG);
	EXPECT_EQ(a[2].v.u32, 0xfedcba98);
	EXPECT_EQ(a[3].v.i64, INT64_MIN + 1);
	EXPECT_EQ(a[4].v.u64, UINT64_MAX - 1);
	EXPECT(a[5].v.f64 == 3.141592653589793);
	EXPECT(str_is(&a[6].v.string, "inline value"));
	EXPECT(str_is(&a[7].v.string, "value"));
	EXPECT_EQ(a[7].v.string.index, S_VALUE);
	EXPECT_EQ(a[8].v.pointer, 0xffff800012345678ULL);
	EXPECT_EQ(a[9].type, FXT_ARG_KOID);
	EXPECT_EQ(a[9].v.koid, 4242);
	EXPECT(a[10].v.boolean);
	EXPECT(!a[11].v.boolean);
	EXPECT_EQ(a[12].v.blob.size, 5);
	EXPECT(a[12].v.blob.data && !memcmp(a[12].v.blob.data, "\1\2\3\4\5", 5));
	EXPECT_EQ(a[13].v.blob.size, 0);
	EXPECT_EQ(a[14].v.string.len, 0);
	EXPECT(fxt_record_find_arg(rec, "ptr") == &a[8]);
	EXPECT(fxt_record_find_arg(rec, "missing") == NULL);
}

TEST(every_argument_type_in_an_event)
{
	struct fxt_arg args[FXT_MAX_ARGS];
	unsigned int n = every_arg(args);
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT,
		.thread = { .index = 0, .pid = 1, .tid = 2 },
		.category = fxt_str_index(S_CAT),
		.name = fxt_str_c("inline name"),
		.timestamp = 123456789,
	};
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_event(&w, &ev, args, n) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.type, FXT_RECORD_EVENT);
	EXPECT_EQ(rec.event.thread.pid, 1);
	EXPECT_EQ(rec.event.thread.tid, 2);
	EXPECT(str_is(&rec.event.category, "cat"));
	EXPECT(str_is(&rec.event.name, "inline name"));
	EXPECT_EQ(rec.event.timestamp, 123456789);
	check_every_arg(&rec);
}

TEST(every_event_type)
{
	struct fxt_arg arg = fxt_arg_int32(fxt_str_index(S_ARG), 5);
	struct fxt_record rec;
	unsigned int type;

	for (type = FXT_EVENT_INSTANT; type <= FXT_EVENT_FLOW_END; type++) {
		struct fxt_event ev = {
			.type = type,
			.thread = { .index = T_ONE },
			.category = fxt_str_index(S_CAT),
			.name = fxt_str_index(S_NAME),
			.timestamp = 1000 + type,
			.data = fxt_event_has_data_word(type) ? 0xabc0 + type : 0,
		};

		trace_begin();
		ASSERT(fxt_write_event(&w, &ev, &arg, 1) == 0);
		ASSERT(decode_all(&rec) > 0);
		EXPECT_EQ(rec.kind, type);
		EXPECT_EQ(rec.event.type, type);
		EXPECT_EQ(rec.event.thread.index, T_ONE);
		EXPECT_EQ(rec.event.thread.pid, 100);
		EXPECT_EQ(rec.event.thread.tid, 101);
		EXPECT_EQ(rec.event.data, ev.data);
		EXPECT_EQ(rec.size, 8 * (2 + 1 + (fxt_event_has_data_word(type) ? 1 : 0)));
	}
}

TEST(counter_event_as_the_collector_writes_it)
{
	struct fxt_arg arg = fxt_arg_uint64(fxt_str_c("cpu3"), 77);
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER,
		.category = fxt_str_c("fxtrace"),
		.name = fxt_str_c("records_dropped"),
		.timestamp = 5,
	};
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_event(&w, &ev, &arg, 1) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT(str_is(&rec.event.name, "records_dropped"));
	EXPECT_EQ(fxt_record_find_arg(&rec, "cpu3")->v.u64, 77);
}

TEST(blob_record)
{
	static const char payload[] = "0123456789abcdefXYZ";
	struct fxt_blob blob = {
		.name = fxt_str_c("blobname"),
		.blob_type = 3,
		.data = payload,
		.size = 19,
	};
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_blob(&w, &blob) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.type, FXT_RECORD_BLOB);
	EXPECT_EQ(rec.blob.blob_type, 3);
	EXPECT_EQ(rec.blob.size, 19);
	EXPECT(!memcmp(rec.blob.data, payload, 19));
	EXPECT(str_is(&rec.blob.name, "blobname"));
}

TEST(userspace_object_inline_and_indexed_process)
{
	struct fxt_arg args[FXT_MAX_ARGS];
	unsigned int n = every_arg(args);
	struct fxt_userspace_object obj = {
		.process = { .index = 0, .pid = 999 },
		.name = fxt_str_c("my object"),
		.pointer = 0x7ffe0000,
	};
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_userspace_object(&w, &obj, args, n) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.type, FXT_RECORD_USERSPACE_OBJECT);
	EXPECT_EQ(rec.uobj.process.pid, 999);
	EXPECT_EQ(rec.uobj.pointer, 0x7ffe0000);
	EXPECT(str_is(&rec.uobj.name, "my object"));
	check_every_arg(&rec);

	obj.process.index = T_ONE;
	obj.name = fxt_str_index(S_NAME);
	trace_begin();
	ASSERT(fxt_write_userspace_object(&w, &obj, NULL, 0) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.uobj.process.pid, 100);
	EXPECT_EQ(rec.size, 16);
}

TEST(kernel_objects_process_and_thread)
{
	struct fxt_kernel_object proc = {
		.obj_type = FXT_OBJ_TYPE_PROCESS,
		.name = fxt_str_c("systemd"),
		.koid = 1,
	};
	struct fxt_kernel_object thread = {
		.obj_type = FXT_OBJ_TYPE_THREAD,
		.name = fxt_str_c("kworker/0:1H-kblockd"),
		.koid = 42,
	};
	struct fxt_arg process = fxt_arg_koid(fxt_str_c("process"), 2);
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_kernel_object(&w, &proc, NULL, 0) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.kobj.obj_type, FXT_OBJ_TYPE_PROCESS);
	EXPECT_EQ(rec.kobj.koid, 1);
	EXPECT(str_is(&rec.kobj.name, "systemd"));

	trace_begin();
	ASSERT(fxt_write_kernel_object(&w, &thread, &process, 1) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.kobj.obj_type, FXT_OBJ_TYPE_THREAD);
	EXPECT_EQ(rec.kobj.koid, 42);
	EXPECT(str_is(&rec.kobj.name, "kworker/0:1H-kblockd"));
	EXPECT_EQ(fxt_record_find_arg(&rec, "process")->v.koid, 2);
}

/* The exact records the kernel writes (uapi header, "Records"). */
TEST(context_switch_as_the_kernel_writes_it)
{
	struct fxt_arg args[3] = {
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_INCOMING_WEIGHT), INT32_MIN),
		fxt_arg_int32(fxt_str_index(FXTRACE_STR_OUTGOING_WEIGHT), 120),
		fxt_arg_uint32(fxt_str_index(FXTRACE_STR_LINUX_STATE), 0x402),
	};
	struct fxt_context_switch cs = {
		.cpu = 65535,
		.outgoing_state = FXT_THREAD_STATE_BLOCKED,
		.timestamp = UINT64_MAX,
		.outgoing_tid = 1234,
		.incoming_tid = 0,
	};
	struct fxt_record rec;

	trace_begin();
	fxt_write_string(&w, FXTRACE_STR_INCOMING_WEIGHT, "incoming_weight", 15);
	fxt_write_string(&w, FXTRACE_STR_OUTGOING_WEIGHT, "outgoing_weight", 15);
	fxt_write_string(&w, FXTRACE_STR_LINUX_STATE, "linux_state", 11);
	ASSERT(fxt_write_context_switch(&w, &cs, args, 3) == 0);
	/* Not strictly: Perfetto reads CPUs below 4096 only. */
	ASSERT(decode_all_as(&rec, 0) > 0);
	EXPECT_EQ(rec.size, 7 * 8);	/* uapi: 7 words */
	EXPECT_EQ(rec.header & 0xf, 8);
	EXPECT_EQ(rec.header >> 60, 1);
	EXPECT_EQ(rec.kind, FXT_SCHED_KIND_CONTEXT_SWITCH);
	EXPECT_EQ(rec.context_switch.cpu, 65535);
	EXPECT_EQ(rec.context_switch.outgoing_state, FXT_THREAD_STATE_BLOCKED);
	EXPECT_EQ(rec.context_switch.timestamp, UINT64_MAX);
	EXPECT_EQ(rec.context_switch.outgoing_tid, 1234);
	EXPECT_EQ(rec.context_switch.incoming_tid, 0);
	EXPECT_EQ(fxt_record_find_arg(&rec, "incoming_weight")->v.i32, INT32_MIN);
	EXPECT_EQ(fxt_record_find_arg(&rec, "outgoing_weight")->v.i32, 120);
	EXPECT_EQ(fxt_record_find_arg(&rec, "linux_state")->v.u32, 0x402);
}

TEST(wakeup_as_the_kernel_writes_it)
{
	struct fxt_arg waker = fxt_arg_koid(fxt_str_index(FXTRACE_STR_WAKER), 77);
	struct fxt_wakeup wk = { .cpu = 1, .timestamp = 42, .woken_tid = 555 };
	struct fxt_record rec;

	trace_begin();
	fxt_write_string(&w, FXTRACE_STR_WAKER, "waker", 5);
	ASSERT(fxt_write_wakeup(&w, &wk, &waker, 1) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.size, 5 * 8);	/* uapi: 5 words with a waker */
	EXPECT_EQ(rec.kind, FXT_SCHED_KIND_WAKEUP);
	EXPECT_EQ(rec.wakeup.cpu, 1);
	EXPECT_EQ(rec.wakeup.woken_tid, 555);
	EXPECT_EQ(fxt_record_find_arg(&rec, "waker")->v.koid, 77);

	trace_begin();
	ASSERT(fxt_write_wakeup(&w, &wk, NULL, 0) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.size, 3 * 8);	/* uapi: 3 words without */
	EXPECT_EQ(rec.wakeup.woken_tid, 555);
}

TEST(legacy_context_switch)
{
	struct fxt_legacy_switch ls = {
		.cpu = 255,
		.outgoing_state = FXT_THREAD_STATE_SUSPENDED,
		.outgoing = { .index = 0, .pid = 10, .tid = 11 },
		.incoming = { .index = T_ONE },
		.outgoing_priority = 200,
		.incoming_priority = 1,
		.timestamp = 99,
	};
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_legacy_context_switch(&w, &ls) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.kind, FXT_SCHED_KIND_LEGACY_SWITCH);
	EXPECT_EQ(rec.legacy_switch.cpu, 255);
	EXPECT_EQ(rec.legacy_switch.outgoing.tid, 11);
	EXPECT_EQ(rec.legacy_switch.incoming.tid, 101);
	EXPECT_EQ(rec.legacy_switch.outgoing_priority, 200);
	EXPECT_EQ(rec.size, 8 * 4);
}

TEST(log_record)
{
	struct fxt_log log = {
		.thread = { .index = 0, .pid = 3, .tid = 4 },
		.timestamp = 8,
		.message = "hello, log",
		.len = 10,
	};
	struct fxt_record rec;

	trace_begin();
	ASSERT(fxt_write_log(&w, &log) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.type, FXT_RECORD_LOG);
	EXPECT_EQ(rec.log.thread.tid, 4);
	EXPECT_EQ(rec.log.len, 10);
	EXPECT(!memcmp(rec.log.message, "hello, log", 10));
}

TEST(large_blob_both_formats)
{
	static uint8_t payload[40000];
	struct fxt_arg args[FXT_MAX_ARGS];
	unsigned int n = every_arg(args);
	struct fxt_large_blob lb = {
		.format = FXT_LARGE_BLOB_WITH_METADATA,
		.category = fxt_str_index(S_CAT),
		.name = fxt_str_c("big"),
		.timestamp = 31,
		.thread = { .index = 0, .pid = 5, .tid = 6 },
		.data = payload,
		.size = sizeof(payload),
	};
	struct fxt_record rec;

	memset(payload, 0xa5, sizeof(payload));
	trace_begin();
	ASSERT(fxt_write_large_blob(&w, &lb, args, n) == 0);
	/* Not strictly: Perfetto frames records of 4095 words at most. */
	ASSERT(decode_all_as(&rec, 0) > 0);
	EXPECT_EQ(rec.type, FXT_RECORD_LARGE);
	EXPECT(rec.size > 8 * FXT_MAX_RECORD_WORDS);	/* only large records can */
	EXPECT_EQ(rec.large_blob.size, sizeof(payload));
	EXPECT_EQ(rec.large_blob.thread.tid, 6);
	check_every_arg(&rec);

	lb.format = FXT_LARGE_BLOB_NO_METADATA;
	lb.size = 3;
	trace_begin();
	ASSERT(fxt_write_large_blob(&w, &lb, NULL, 0) == 0);
	ASSERT(decode_all(&rec) > 0);
	EXPECT_EQ(rec.large_blob.format, FXT_LARGE_BLOB_NO_METADATA);
	EXPECT_EQ(rec.large_blob.size, 3);
	EXPECT(str_is(&rec.large_blob.name, "big"));
}

TEST(writer_refuses_bad_fields_and_leaves_no_half_record)
{
	struct fxt_arg args[16];
	struct fxt_context_switch cs = { .cpu = 65536 };
	static char big[32767];
	uint64_t small[3];
	struct fxt_writer sw;
	size_t before;
	unsigned int i;

	trace_begin();
	before = w.len;
	EXPECT_EQ(fxt_write_string(&w, 0, "x", 1), (uint64_t)-EINVAL);
	EXPECT_EQ(fxt_write_string(&w, 0x8000, "x", 1), (uint64_t)-EINVAL);
	EXPECT_EQ(fxt_write_thread(&w, 0, 1, 2), (uint64_t)-EINVAL);
	EXPECT_EQ(fxt_write_context_switch(&w, &cs, NULL, 0), (uint64_t)-EINVAL);
	EXPECT_EQ(fxt_write_provider_event(&w, 1, 16), (uint64_t)-EINVAL);
	for (i = 0; i < 16; i++)
		args[i] = fxt_arg_int32(fxt_str_index(S_ARG), (int32_t)i);
	cs.cpu = 0;
	EXPECT_EQ(fxt_write_context_switch(&w, &cs, args, 16), (uint64_t)-EINVAL);
	/* 32767 bytes + header = 4097 words > 4095. */
	EXPECT_EQ(fxt_write_string(&w, 9, big, sizeof(big)), (uint64_t)-E2BIG);
	args[0] = fxt_arg_string(fxt_str_c("x"), fxt_str_inline(big, 0x8000));
	EXPECT_EQ(fxt_write_context_switch(&w, &cs, args, 1), (uint64_t)-EINVAL);
	EXPECT_EQ(w.len, before);

	fxt_writer_init(&sw, small, 3);
	EXPECT_EQ(fxt_write_magic(&sw), 0);
	EXPECT_EQ(fxt_write_thread(&sw, 1, 2, 3), (uint64_t)-ENOSPC);
	EXPECT_EQ(sw.len, 1);
	EXPECT_EQ(fxt_write_initialization(&sw, 1), 0);
	EXPECT_EQ(sw.len, 3);
}

TEST(dynamic_writer_grows)
{
	struct fxt_writer dw;
	unsigned int i;
	int err = 0;

	fxt_writer_init_dynamic(&dw);
	for (i = 0; i < 10000 && !err; i++)
		err = fxt_write_thread(&dw, 1 + i % 255, i, i);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(fxt_writer_bytes(&dw), 10000 * 24);
	fxt_writer_free(&dw);
}

/* Tables are per provider: switching sections switches tables. */
TEST(string_tables_are_per_provider)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT,
		.thread = { .index = 0 },
		.category = fxt_str_index(S_CAT),
		.name = fxt_str_index(S_NAME),
	};
	struct fxt_reader *r;
	struct fxt_record rec;
	int ret;

	trace_begin();
	fxt_write_provider_info(&w, 2, "other", 5);
	fxt_write_string(&w, S_CAT, "othercat", 8);
	fxt_write_string(&w, S_NAME, "othername", 9);
	fxt_write_event(&w, &ev, NULL, 0);
	fxt_write_provider_section(&w, 1);
	fxt_write_event(&w, &ev, NULL, 0);
	r = fxt_reader_new(words, fxt_writer_bytes(&w), FXT_READ_STRICT);
	ASSERT(r);
	while ((ret = fxt_reader_next(r, &rec)) > 0) {
		if (rec.type != FXT_RECORD_EVENT)
			continue;
		if (rec.provider_id == 2)
			EXPECT(str_is(&rec.event.category, "othercat"));
		else
			EXPECT(str_is(&rec.event.category, "cat"));
	}
	EXPECT_EQ(ret, 0);
	fxt_reader_free(r);

	/* Provider 3 never defined string 1: strict mode says so. */
	trace_begin();
	fxt_write_provider_info(&w, 3, "third", 5);
	fxt_write_event(&w, &ev, NULL, 0);
	r = fxt_reader_new(words, fxt_writer_bytes(&w), FXT_READ_STRICT);
	ASSERT(r);
	while ((ret = fxt_reader_next(r, &rec)) > 0)
		;
	EXPECT_EQ(ret, -1);
	EXPECT_CONTAINS(fxt_reader_error(r)->message, "string ref 1");
	fxt_reader_free(r);
}

TEST(lenient_mode_resolves_undefined_refs_to_unknown)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT,
		.thread = { .index = 9 },
		.category = fxt_str_index(77),
		.name = fxt_str_index(S_NAME),
	};
	struct fxt_reader *r;
	struct fxt_record rec;

	fxt_writer_init(&w, words, TRACE_WORDS);	/* no magic either */
	fxt_write_string(&w, S_NAME, "name", 4);
	fxt_write_event(&w, &ev, NULL, 0);
	r = fxt_reader_new(words, fxt_writer_bytes(&w), 0);
	ASSERT(r);
	EXPECT_EQ(fxt_reader_next(r, &rec), 1);
	EXPECT_EQ(fxt_reader_next(r, &rec), 1);
	EXPECT(rec.event.category.text == NULL);
	EXPECT_EQ(rec.event.category.index, 77);
	EXPECT(str_is(&rec.event.name, "name"));
	EXPECT_EQ(rec.event.thread.tid, 0);
	EXPECT_EQ(fxt_reader_next(r, &rec), 0);
	EXPECT_EQ(fxt_reader_next(r, &rec), 0);
	fxt_reader_free(r);
}

TEST(unknown_record_types_are_skipped_by_size)
{
	struct fxt_reader *r;
	struct fxt_record rec;

	trace_begin();
	words[w.len++] = 12 | 3 << 4 | 0xdead0000ULL;	/* type 12, 3 words */
	words[w.len++] = 1;
	words[w.len++] = 2;
	fxt_write_initialization(&w, 5);
	r = fxt_reader_new(words, fxt_writer_bytes(&w), FXT_READ_STRICT);
	ASSERT(r);
	while (fxt_reader_next(r, &rec) > 0 && rec.type != 12)
		;
	EXPECT_EQ(rec.type, 12);
	EXPECT(!rec.decoded);
	EXPECT_EQ(rec.size, 24);
	EXPECT_EQ(fxt_reader_next(r, &rec), 1);
	EXPECT_EQ(rec.ticks_per_second, 5);
	fxt_reader_free(r);
}

TEST(names_for_printing)
{
	EXPECT_STREQ(fxt_record_type_name(8), "scheduling");
	EXPECT_STREQ(fxt_record_type_name(13), "unknown");
	EXPECT_STREQ(fxt_arg_type_name(FXT_ARG_KOID), "koid");
	EXPECT_STREQ(fxt_arg_type_name(99), "unknown");
	EXPECT_STREQ(fxt_sched_kind_name(2), "wakeup");
	EXPECT_STREQ(fxt_thread_state_name(3), "blocked");
	EXPECT_STREQ(fxt_event_type_name(10), "flow_end");
	EXPECT_STREQ(fxt_obj_type_name(2), "thread");
	EXPECT_STREQ(fxt_metadata_type_name(1), "provider_info");
}

/* The two escape tests' output: a stream into @buf, then a string. */
#define ESCAPE_BUF 128

static FILE *escape_stream(char *buf)
{
	return fmemopen(buf, ESCAPE_BUF, "w");
}

static void escape_stream_end(FILE *f, char *buf)
{
	fputc('\0', f);
	fclose(f);
	buf[ESCAPE_BUF - 1] = '\0';
}

/* fxt-dump's and fxt-sched's text output: no byte reaches the terminal
 * raw that could start an escape sequence or a new line. */
TEST(escaped_text_for_a_terminal)
{
	static const char name[] = "a\x1b[31mb\nc\\d\"\x7f\t\xc3\xa9";
	char buf[ESCAPE_BUF];
	FILE *f = escape_stream(buf);
	size_t n;

	ASSERT(f);
	n = fxt_fput_escaped(f, name, sizeof(name) - 1, 0);
	fputc('|', f);
	EXPECT_EQ(n + 1 + fxt_fput_escaped(f, name, sizeof(name) - 1, '"'),
		  ftell(f));
	escape_stream_end(f, buf);
	EXPECT_EQ(n, strlen("a\\x1b[31mb\\nc\\\\d\"\\x7f\\x09\xc3\xa9"));
	EXPECT_STREQ(buf, "a\\x1b[31mb\\nc\\\\d\"\\x7f\\x09\xc3\xa9|"
		     "a\\x1b[31mb\\nc\\\\d\\\"\\x7f\\x09\xc3\xa9");
	/* With no stream it writes nothing and measures the same. */
	EXPECT_EQ(fxt_fput_escaped(NULL, name, sizeof(name) - 1, 0), n);
	EXPECT_EQ(fxt_fput_escaped(NULL, name, sizeof(name) - 1, '"'), n + 1);
}

/*
 * C1 controls (U+0080-U+009F: CSI, U+009B, starts a sequence as ESC [
 * does on terminals that act on them) and bytes of ill-formed UTF-8 (a
 * raw 0x9b is CSI to an 8-bit terminal) are escaped too; well-formed
 * UTF-8 from U+00A0 up is not. A comm cut at 15 bytes inside a
 * character leaves an ill-formed tail.
 */
TEST(c1_controls_and_broken_utf8_are_escaped)
{
	static const char name[] = "a\xc2\x9b" "2Jb\x9b" "31m\xc2\xa0\xc3\xa9\xe2\x82";
	static const char want[] = "a\\xc2\\x9b2Jb\\x9b31m\xc2\xa0\xc3\xa9\\xe2\\x82";
	char buf[ESCAPE_BUF];
	FILE *f = escape_stream(buf);
	size_t n;

	ASSERT(f);
	n = fxt_fput_escaped(f, name, sizeof(name) - 1, 0);
	escape_stream_end(f, buf);
	EXPECT_STREQ(buf, want);
	EXPECT_EQ(n, strlen(want));
	EXPECT_EQ(fxt_fput_escaped(NULL, name, sizeof(name) - 1, 0), n);
	EXPECT(!strchr(buf, '\x9b'));
}

int main(void)
{
	RUN(magic_is_the_documented_word);
	RUN(metadata_records);
	RUN(initialization_record);
	RUN(string_records_all_lengths);
	RUN(inline_names_up_to_32_kib_roundtrip);
	RUN(thread_record_and_lookup);
	RUN(every_argument_type_in_an_event);
	RUN(every_event_type);
	RUN(counter_event_as_the_collector_writes_it);
	RUN(blob_record);
	RUN(userspace_object_inline_and_indexed_process);
	RUN(kernel_objects_process_and_thread);
	RUN(context_switch_as_the_kernel_writes_it);
	RUN(wakeup_as_the_kernel_writes_it);
	RUN(legacy_context_switch);
	RUN(log_record);
	RUN(large_blob_both_formats);
	RUN(writer_refuses_bad_fields_and_leaves_no_half_record);
	RUN(dynamic_writer_grows);
	RUN(string_tables_are_per_provider);
	RUN(lenient_mode_resolves_undefined_refs_to_unknown);
	RUN(unknown_record_types_are_skipped_by_size);
	RUN(names_for_printing);
	RUN(escaped_text_for_a_terminal);
	RUN(c1_controls_and_broken_utf8_are_escaped);
	return tap_exit();
}
