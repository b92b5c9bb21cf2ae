/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fxt_types.h - the values that the FXT encoder (fxt_write.h) takes and the
 * FXT decoder (fxt_read.h) gives back.
 *
 * Both sides use the same structures on purpose: a record decoded by the
 * reader can be handed straight back to the writer, which is how the unit
 * tests prove that encode(decode(x)) == x for every record kind.
 *
 * Wire constants (record types, argument types, bit positions) live in the
 * ABI header <linux/fxtrace.h>; this file only adds what the kernel does not
 * need.
 */
#ifndef FXT_TYPES_H
#define FXT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/fxtrace.h>

/*
 * Limits from the format
 * (fuchsia.dev/fuchsia-src/reference/tracing/trace-format).
 */
#define FXT_MAX_ARGS		15	/* argument counts are 4-bit fields */
#define FXT_MAX_STRING_INDEX	0x7fff	/* string refs: 15-bit index */
#define FXT_MAX_INLINE_STRING	0x7fff	/* string refs: 15-bit length */
#define FXT_MAX_THREAD_INDEX	0xff	/* thread refs: 8 bits */
#define FXT_MAX_LARGE_WORDS	0xffffffffULL	/* large records: 32-bit size */
/*
 * What Perfetto reads (strict checks): every record's size from the
 * header's bits [4..15], large records too, so at most 4095 words; and
 * CPU numbers below 4096 (it aborts on a scheduling record with more).
 */
#define FXT_PERFETTO_MAX_WORDS	FXT_HDR_SIZE_MASK
#define FXT_PERFETTO_MAX_CPUS	4096

/* Metadata record subtypes (record type 0, bits [16..19]). */
#define FXT_META_PROVIDER_INFO		1
#define FXT_META_PROVIDER_SECTION	2
#define FXT_META_PROVIDER_EVENT		3
#define FXT_META_TRACE_INFO		4

#define FXT_PROVIDER_EVENT_BUFFER_FULL	0	/* "a buffer filled up" */
#define FXT_TRACE_INFO_MAGIC		0	/* trace info type of the magic */

/* Event record subtypes (record type 4, bits [16..19]); the kernel's
 * FXT_EVENT_COUNTER and FXT_STRING_REF_INLINE are in the ABI header. */
#define FXT_EVENT_INSTANT		0
#define FXT_EVENT_DURATION_BEGIN	2
#define FXT_EVENT_DURATION_END		3
#define FXT_EVENT_DURATION_COMPLETE	4
#define FXT_EVENT_ASYNC_BEGIN		5
#define FXT_EVENT_ASYNC_INSTANT		6
#define FXT_EVENT_ASYNC_END		7
#define FXT_EVENT_FLOW_BEGIN		8
#define FXT_EVENT_FLOW_STEP		9
#define FXT_EVENT_FLOW_END		10

/* Large record (type 15) large types and blob formats. */
#define FXT_LARGE_BLOB			0
#define FXT_LARGE_BLOB_WITH_METADATA	0
#define FXT_LARGE_BLOB_NO_METADATA	1

/**
 * struct fxt_str - a string reference together with the text it stands for
 * @index: string-table index 1..0x7fff, or 0 when the string is not indexed
 * @text:  the bytes (not NUL-terminated); may be NULL when @len is 0
 * @len:   number of bytes in @text
 *
 * Writer: a non-zero @index is written as an indexed ref (text ignored);
 * otherwise a non-empty @text is written inline; otherwise the empty ref 0.
 * Reader: @index is set for indexed refs and @text/@len are resolved through
 * the string table; for an index the table does not hold (only possible in
 * lenient mode) @text is NULL. Inline text points into the input buffer.
 */
struct fxt_str {
	uint16_t index;
	const char *text;
	size_t len;
};

/**
 * struct fxt_thread_ref - a thread reference and the koids it stands for
 * @index: thread-table index 1..255, or 0 for an inline thread
 * @pid:   process koid
 * @tid:   thread koid
 *
 * Writer: a non-zero @index is written as-is, else @pid and @tid inline.
 * Reader: @pid/@tid are resolved through the thread table for indexed refs
 * (both 0 when the index is undefined, lenient mode only: the idle task's
 * koids too, so fxt_reader_lookup_thread() tells which).
 */
struct fxt_thread_ref {
	uint8_t index;
	uint64_t pid;
	uint64_t tid;
};

/**
 * struct fxt_arg - one argument (name + typed value)
 * @type:   FXT_ARG_* from <linux/fxtrace.h>; the reader also reports types
 *          it does not know (value then unset, skipped by its size)
 * @name:   the argument name
 * @v:      the value; the member matching @type is valid
 * @offset: reader only: byte offset of the argument header in the buffer
 */
struct fxt_arg {
	unsigned int type;
	struct fxt_str name;
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		double f64;
		uint64_t pointer;
		uint64_t koid;
		bool boolean;
		struct fxt_str string;
		struct {
			const void *data;
			uint32_t size;	/* bytes, without padding */
		} blob;
	} v;
	size_t offset;
};

/** Constructors for struct fxt_str, for writers. */
static inline struct fxt_str fxt_str_index(uint16_t index)
{
	struct fxt_str s = { .index = index, .text = NULL, .len = 0 };
	return s;
}

static inline struct fxt_str fxt_str_inline(const char *text, size_t len)
{
	struct fxt_str s = { .index = 0, .text = text, .len = len };
	return s;
}

/* Inline a NUL-terminated C string. */
static inline struct fxt_str fxt_str_c(const char *text)
{
	return fxt_str_inline(text, strlen(text));
}

/**
 * struct fxt_event - an Event record (type 4) without its arguments
 * @type:      FXT_EVENT_*
 * @thread:    the thread the event happened on
 * @category:  category string
 * @name:      event name
 * @timestamp: ticks
 * @data:      the event-type word: counter id (counter), end timestamp
 *             (duration complete), correlation id (async), flow id (flow);
 *             unused (0) for instant and duration begin/end
 */
struct fxt_event {
	unsigned int type;
	struct fxt_thread_ref thread;
	struct fxt_str category;
	struct fxt_str name;
	uint64_t timestamp;
	uint64_t data;
};

/* A record's size in words from its header word (large records: 32 bits);
 * 0 is no record's. */
static inline uint64_t fxt_record_words(uint64_t h)
{
	if ((h & 0xf) == FXT_RECORD_LARGE)
		return h >> FXT_HDR_SIZE_SHIFT & FXT_MAX_LARGE_WORDS;
	return h >> FXT_HDR_SIZE_SHIFT & FXT_HDR_SIZE_MASK;
}

/* Does this event type carry the extra data word? */
static inline bool fxt_event_has_data_word(unsigned int type)
{
	return type == FXT_EVENT_COUNTER ||
	       (type >= FXT_EVENT_DURATION_COMPLETE && type <= FXT_EVENT_FLOW_END);
}

/** struct fxt_blob - a Blob record (type 5) */
struct fxt_blob {
	struct fxt_str name;
	unsigned int blob_type;	/* 8 bits */
	const void *data;
	size_t size;		/* payload bytes, at most 0x7fff */
};

/** struct fxt_userspace_object - a Userspace object record (type 6) */
struct fxt_userspace_object {
	struct fxt_thread_ref process;	/* only @pid is stored for inline refs */
	struct fxt_str name;
	uint64_t pointer;
};

/** struct fxt_kernel_object - a Kernel object record (type 7) */
struct fxt_kernel_object {
	unsigned int obj_type;	/* FXT_OBJ_TYPE_* (ZX_OBJ_TYPE_*), 8 bits */
	struct fxt_str name;
	uint64_t koid;
};

/** struct fxt_context_switch - scheduling record kind 1 */
struct fxt_context_switch {
	unsigned int cpu;		/* 16 bits */
	unsigned int outgoing_state;	/* FXT_THREAD_STATE_*, 4 bits */
	uint64_t timestamp;
	uint64_t outgoing_tid;
	uint64_t incoming_tid;
};

/** struct fxt_wakeup - scheduling record kind 2 */
struct fxt_wakeup {
	unsigned int cpu;		/* 16 bits */
	uint64_t timestamp;
	uint64_t woken_tid;
};

/** struct fxt_legacy_switch - scheduling record kind 0 (compatibility) */
struct fxt_legacy_switch {
	unsigned int cpu;		/* 8 bits */
	unsigned int outgoing_state;	/* 4 bits */
	struct fxt_thread_ref outgoing;
	struct fxt_thread_ref incoming;
	unsigned int outgoing_priority;	/* 8 bits */
	unsigned int incoming_priority;	/* 8 bits */
	uint64_t timestamp;
};

/** struct fxt_log - a Log record (type 9) */
struct fxt_log {
	struct fxt_thread_ref thread;
	uint64_t timestamp;
	const char *message;
	size_t len;		/* at most 0x7fff */
};

/**
 * struct fxt_large_blob - a Large blob record (type 15, large type 0)
 * @format:    FXT_LARGE_BLOB_WITH_METADATA or FXT_LARGE_BLOB_NO_METADATA
 * @category:  category string
 * @name:      blob name
 * @timestamp: with-metadata format only
 * @thread:    with-metadata format only
 * @data:      payload
 * @size:      payload bytes
 */
struct fxt_large_blob {
	unsigned int format;
	struct fxt_str category;
	struct fxt_str name;
	uint64_t timestamp;
	struct fxt_thread_ref thread;
	const void *data;
	uint64_t size;
};

#endif /* FXT_TYPES_H */
