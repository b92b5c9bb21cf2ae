// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * name_order.c - the newest name of each koid, by after_ts (see
 * name_order.h). Linear probing, grown at 50% load like tid_set.c; entries
 * are never removed (a koid's last name must stay known for as long as a
 * stale record for it may still arrive, and that is the whole trace).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "name_order.h"

void name_order_init(struct name_order *no)
{
	no->slots = NULL;
	no->cap = 0;
	no->count = 0;
	no->marked = 0;
}

void name_order_free(struct name_order *no)
{
	free(no->slots);
	name_order_init(no);
}

/* Fibonacci hashing; the type goes in the top bits, koids are dense. */
static size_t slot_of(unsigned int obj_type, uint64_t koid, size_t cap)
{
	uint64_t key = koid ^ (uint64_t)obj_type << 56;

	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

/* The slot of (@obj_type, @koid): its entry, or the empty slot for it. */
static struct name_entry *lookup(struct name_entry *slots, size_t cap,
				 unsigned int obj_type, uint64_t koid)
{
	size_t i = slot_of(obj_type, koid, cap);

	while (slots[i].obj_type &&
	       (slots[i].obj_type != obj_type || slots[i].koid != koid))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct name_order *no)
{
	size_t cap = no->cap ? no->cap * 2 : 256, i;
	struct name_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < no->cap; i++)
		if (no->slots[i].obj_type)
			*lookup(slots, cap, no->slots[i].obj_type,
				no->slots[i].koid) = no->slots[i];
	free(no->slots);
	no->slots = slots;
	no->cap = cap;
	return 0;
}

static void store(struct name_order *no, struct name_entry *e,
		  const struct ring_name *n)
{
	if (e->marked)
		no->marked--;
	e->koid = n->koid;
	e->process = n->process;
	e->after_ts = n->after_ts;
	e->obj_type = (uint8_t)n->obj_type;
	e->marked = false;
	memcpy(e->name, n->name, n->len);
	e->name[n->len] = '\0';
}

int name_order_note(struct name_order *no, const struct ring_name *n)
{
	struct name_entry *e;

	if (n->obj_type != FXT_OBJ_TYPE_PROCESS &&
	    n->obj_type != FXT_OBJ_TYPE_THREAD)
		return -EINVAL;
	if (no->cap) {
		e = lookup(no->slots, no->cap, n->obj_type, n->koid);
		if (e->obj_type) {
			/* Boot-time ns, not wrapping positions: plain '<'. */
			if (n->after_ts < e->after_ts) {
				no->marked += !e->marked;
				e->marked = true;
				return 1;
			}
			store(no, e, n);
			return 0;
		}
	}
	if ((no->count + 1) * 2 > no->cap && grow(no))
		return -ENOMEM;
	store(no, lookup(no->slots, no->cap, n->obj_type, n->koid), n);
	no->count++;
	return 0;
}

int name_order_take_marked(struct name_order *no, unsigned int obj_type,
			   name_order_fn fn, void *ctx)
{
	struct name_entry *e;
	size_t i;
	int ret;

	/* The common case, every drain cycle: nothing arrived out of order. */
	for (i = 0; no->marked && i < no->cap; i++) {
		e = &no->slots[i];
		if (!e->marked || e->obj_type != obj_type)
			continue;
		e->marked = false;
		no->marked--;
		ret = fn(ctx, e);
		if (ret)
			return ret;
	}
	return 0;
}
