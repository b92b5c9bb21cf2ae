// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tid_set.c - open-addressing hash set of thread ids (see tid_set.h).
 * Linear probing, grown at 50% load so probe chains stay short.
 */
#include <errno.h>
#include <stdlib.h>

#include "tid_set.h"

void tid_set_init(struct tid_set *set)
{
	set->slots = NULL;
	set->cap = 0;
	set->count = 0;
	set->has_zero = false;
}

void tid_set_free(struct tid_set *set)
{
	free(set->slots);
	tid_set_init(set);
}

/* Fibonacci hashing: tids are small and dense, spread them out. */
static size_t slot_of(uint64_t tid, size_t cap)
{
	return (size_t)((tid * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

static void insert(uint64_t *slots, size_t cap, uint64_t tid)
{
	size_t i = slot_of(tid, cap);

	while (slots[i] && slots[i] != tid)
		i = (i + 1) & (cap - 1);
	slots[i] = tid;
}

static int grow(struct tid_set *set)
{
	size_t cap = set->cap ? set->cap * 2 : 256, i;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < set->cap; i++)
		if (set->slots[i])
			insert(slots, cap, set->slots[i]);
	free(set->slots);
	set->slots = slots;
	set->cap = cap;
	return 0;
}

bool tid_set_contains(const struct tid_set *set, uint64_t tid)
{
	size_t i;

	if (tid == 0)
		return set->has_zero;
	if (!set->cap)
		return false;
	for (i = slot_of(tid, set->cap); set->slots[i];
	     i = (i + 1) & (set->cap - 1))
		if (set->slots[i] == tid)
			return true;
	return false;
}

int tid_set_add(struct tid_set *set, uint64_t tid)
{
	if (tid == 0) {
		if (set->has_zero)
			return 0;
		set->has_zero = true;
		set->count++;
		return 1;
	}
	if (tid_set_contains(set, tid))
		return 0;
	if ((set->count + 1) * 2 > set->cap && grow(set))
		return -ENOMEM;
	insert(set->slots, set->cap, tid);
	set->count++;
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

long tid_set_sorted(const struct tid_set *set, uint64_t **out)
{
	size_t i, n = 0;
	uint64_t *list = malloc((set->count ? set->count : 1) * sizeof(*list));

	*out = NULL;
	if (!list)
		return -ENOMEM;
	if (set->has_zero)
		list[n++] = 0;
	for (i = 0; i < set->cap; i++)
		if (set->slots[i])
			list[n++] = set->slots[i];
	qsort(list, n, sizeof(*list), cmp_u64);
	*out = list;
	return (long)n;
}
