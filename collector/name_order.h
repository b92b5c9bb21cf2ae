/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * name_order.h - the newest name of each process and thread, by after_ts.
 *
 * fxt-collect copies the rings one after the other, so the kernel's name
 * records reach the file in ring order, not time order, and a reader
 * (last record per koid wins) can end up with an older name. Every name
 * record the drain finds is noted here with its after_ts (ring_drain.h,
 * and ring_drain.c for why that orders them). A record older than the one
 * already kept for its koid arrived late: the kept, newer, name is marked,
 * and the collector writes the marked names again after the drain cycle,
 * so the newest name is again the last one in the file.
 *
 * An open-addressing hash map keyed by (object type, koid); memory grows
 * with the number of distinct koids, never with the number of records.
 */
#ifndef NAME_ORDER_H
#define NAME_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring_drain.h"

/**
 * struct name_entry - the newest name known for one koid
 * @koid:     the tgid or tid
 * @process:  thread: its process koid (0 if the record had none)
 * @after_ts: the name record's after_ts
 * @obj_type: FXT_OBJ_TYPE_PROCESS or FXT_OBJ_TYPE_THREAD; 0 = empty slot
 * @marked:   an older name was written after this one: write it again
 * @name:     NUL-terminated
 */
struct name_entry {
	uint64_t koid;
	uint64_t process;
	uint64_t after_ts;
	uint8_t obj_type;
	bool marked;
	char name[RING_NAME_MAX + 1];
};

struct name_order {
	struct name_entry *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t count;		/* entries in use */
	size_t marked;		/* entries with @marked set */
};

void name_order_init(struct name_order *no);
void name_order_free(struct name_order *no);

/**
 * name_order_note() - a name record was just written to the file
 *
 * If the entry for (@n->obj_type, @n->koid) has a larger after_ts, @n is
 * stale: the entry is marked and keeps its name. Otherwise @n replaces it
 * (equal after_ts: the later record wins, as file order is right within a
 * ring) and the mark is cleared, because @n is now the last name in the
 * file for that koid.
 *
 * Return: 1 if @n was stale, 0 if it was kept, -EINVAL for an object type
 * that is neither process nor thread, -ENOMEM.
 */
int name_order_note(struct name_order *no, const struct ring_name *n);

/* Called for each marked entry; a non-zero return stops the walk. */
typedef int (*name_order_fn)(void *ctx, const struct name_entry *e);

/**
 * name_order_take_marked() - visit and unmark the marked entries of one
 * object type (so a caller can write every process before every thread)
 *
 * An entry is unmarked before @fn sees it. Return: 0, or @fn's non-zero
 * value (the entries not visited yet stay marked).
 */
int name_order_take_marked(struct name_order *no, unsigned int obj_type,
			   name_order_fn fn, void *ctx);

#endif /* NAME_ORDER_H */
