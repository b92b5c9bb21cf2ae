/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fxt_write.h - encode FXT records into a word buffer.
 *
 * Every fxt_write_*() function appends exactly one whole record, or nothing:
 * on any error the writer is left as it was, so a buffer never holds half a
 * record (the format promises readers that a trace cut anywhere is readable
 * up to its last whole record, and that starts with the writer).
 *
 * Usage:
 *	uint64_t words[64];
 *	struct fxt_writer w;
 *
 *	fxt_writer_init(&w, words, 64);
 *	fxt_write_magic(&w);
 *	fxt_write_initialization(&w, 1000000000);
 *	write(fd, fxt_writer_data(&w), fxt_writer_bytes(&w));
 *
 * or fxt_writer_init_dynamic(&w) for a buffer that grows (free it with
 * fxt_writer_free()).
 *
 * Return values: 0 on success, else a negative errno:
 *   -EINVAL  a field does not fit its bit range (index 0, cpu >= 65536, ...)
 *   -E2BIG   the record would exceed FXT_MAX_RECORD_WORDS (4095 words)
 *   -ENOSPC  a fixed buffer is full (dynamic buffers: -ENOMEM)
 */
#ifndef FXT_WRITE_H
#define FXT_WRITE_H

#include "fxt_types.h"

/**
 * struct fxt_writer - where records are appended
 * @words:   the buffer
 * @cap:     its capacity in words
 * @len:     words used (always a whole number of records)
 * @dynamic: the buffer is malloc'ed and grows on demand
 */
struct fxt_writer {
	uint64_t *words;
	size_t cap;
	size_t len;
	bool dynamic;
};

void fxt_writer_init(struct fxt_writer *w, uint64_t *words, size_t cap_words);
void fxt_writer_init_dynamic(struct fxt_writer *w);
void fxt_writer_free(struct fxt_writer *w);

/* Forget the records written so far (keeps the buffer). */
static inline void fxt_writer_reset(struct fxt_writer *w)
{
	w->len = 0;
}

static inline const void *fxt_writer_data(const struct fxt_writer *w)
{
	return w->words;
}

static inline size_t fxt_writer_bytes(const struct fxt_writer *w)
{
	return w->len * 8;
}

/* Metadata (record type 0). */
int fxt_write_magic(struct fxt_writer *w);
int fxt_write_provider_info(struct fxt_writer *w, uint32_t provider_id,
			    const char *name, size_t len);
int fxt_write_provider_section(struct fxt_writer *w, uint32_t provider_id);
int fxt_write_provider_event(struct fxt_writer *w, uint32_t provider_id,
			     unsigned int event_id);

/* Initialization (type 1): how many timestamp ticks make a second. */
int fxt_write_initialization(struct fxt_writer *w, uint64_t ticks_per_second);

/* String (type 2): bind @index (1..0x7fff) to @text. */
int fxt_write_string(struct fxt_writer *w, uint16_t index,
		     const char *text, size_t len);

/* Thread (type 3): bind @index (1..255) to the (pid, tid) pair. */
int fxt_write_thread(struct fxt_writer *w, uint8_t index,
		     uint64_t pid, uint64_t tid);

/* Event (type 4), every event type; @ev->data is used when the type has it. */
int fxt_write_event(struct fxt_writer *w, const struct fxt_event *ev,
		    const struct fxt_arg *args, unsigned int nargs);

/* Blob (type 5). */
int fxt_write_blob(struct fxt_writer *w, const struct fxt_blob *blob);

/* Userspace object (type 6). */
int fxt_write_userspace_object(struct fxt_writer *w,
			       const struct fxt_userspace_object *obj,
			       const struct fxt_arg *args, unsigned int nargs);

/* Kernel object (type 7), e.g. a thread with a "process" koid argument. */
int fxt_write_kernel_object(struct fxt_writer *w,
			    const struct fxt_kernel_object *obj,
			    const struct fxt_arg *args, unsigned int nargs);

/* Scheduling (type 8): context switch (kind 1), wakeup (kind 2), legacy (0). */
int fxt_write_context_switch(struct fxt_writer *w,
			     const struct fxt_context_switch *cs,
			     const struct fxt_arg *args, unsigned int nargs);
int fxt_write_wakeup(struct fxt_writer *w, const struct fxt_wakeup *wk,
		     const struct fxt_arg *args, unsigned int nargs);
int fxt_write_legacy_context_switch(struct fxt_writer *w,
				    const struct fxt_legacy_switch *ls);

/* Log (type 9). */
int fxt_write_log(struct fxt_writer *w, const struct fxt_log *log);

/* Large blob (type 15, large type 0); @args only with metadata format. */
int fxt_write_large_blob(struct fxt_writer *w, const struct fxt_large_blob *lb,
			 const struct fxt_arg *args, unsigned int nargs);

/* Argument constructors (name given as a struct fxt_str). */
static inline struct fxt_arg fxt_arg_null(struct fxt_str name)
{
	struct fxt_arg a = { .type = FXT_ARG_NULL, .name = name };
	return a;
}

static inline struct fxt_arg fxt_arg_int32(struct fxt_str name, int32_t v)
{
	struct fxt_arg a = { .type = FXT_ARG_INT32, .name = name };
	a.v.i32 = v;
	return a;
}

static inline struct fxt_arg fxt_arg_uint32(struct fxt_str name, uint32_t v)
{
	struct fxt_arg a = { .type = FXT_ARG_UINT32, .name = name };
	a.v.u32 = v;
	return a;
}

static inline struct fxt_arg fxt_arg_int64(struct fxt_str name, int64_t v)
{
	struct fxt_arg a = { .type = FXT_ARG_INT64, .name = name };
	a.v.i64 = v;
	return a;
}

static inline struct fxt_arg fxt_arg_uint64(struct fxt_str name, uint64_t v)
{
	struct fxt_arg a = { .type = FXT_ARG_UINT64, .name = name };
	a.v.u64 = v;
	return a;
}

static inline struct fxt_arg fxt_arg_double(struct fxt_str name, double v)
{
	struct fxt_arg a = { .type = FXT_ARG_DOUBLE, .name = name };
	a.v.f64 = v;
	return a;
}

static inline struct fxt_arg fxt_arg_string(struct fxt_str name,
					    struct fxt_str v)
{
	struct fxt_arg a = { .type = FXT_ARG_STRING, .name = name };
	a.v.string = v;
	return a;
}

static inline struct fxt_arg fxt_arg_pointer(struct fxt_str name, uint64_t v)
{
	struct fxt_arg a = { .type = FXT_ARG_POINTER, .name = name };
	a.v.pointer = v;
	return a;
}

static inline struct fxt_arg fxt_arg_koid(struct fxt_str name, uint64_t v)
{
	struct fxt_arg a = { .type = FXT_ARG_KOID, .name = name };
	a.v.koid = v;
	return a;
}

static inline struct fxt_arg fxt_arg_bool(struct fxt_str name, bool v)
{
	struct fxt_arg a = { .type = FXT_ARG_BOOL, .name = name };
	a.v.boolean = v;
	return a;
}

static inline struct fxt_arg fxt_arg_blob(struct fxt_str name,
					  const void *data, uint32_t size)
{
	struct fxt_arg a = { .type = FXT_ARG_BLOB, .name = name };
	a.v.blob.data = data;
	a.v.blob.size = size;
	return a;
}

#endif /* FXT_WRITE_H */
