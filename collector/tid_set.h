/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * tid_set.h - a set of 64-bit thread ids.
 *
 * The collector adds every tid it sees in the ring data (hundreds of
 * thousands of adds per second, a few thousand distinct values), so this is
 * an open-addressing hash set: adding a tid already present costs one or two
 * probes and never allocates.
 */
#ifndef TID_SET_H
#define TID_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tid_set {
	uint64_t *slots;	/* 0 = empty slot; tid 0 lives in has_zero */
	size_t cap;		/* a power of two, or 0 */
	size_t count;		/* distinct tids, including 0 if present */
	bool has_zero;
};

void tid_set_init(struct tid_set *set);
void tid_set_free(struct tid_set *set);

/* Return: 1 if @tid was added, 0 if it was already there, -ENOMEM. */
int tid_set_add(struct tid_set *set, uint64_t tid);
bool tid_set_contains(const struct tid_set *set, uint64_t tid);

/*
 * The members in increasing order, in a malloc'ed array the caller frees.
 * Return: the number of members, or -ENOMEM (*out is then NULL).
 */
long tid_set_sorted(const struct tid_set *set, uint64_t **out);

#endif /* TID_SET_H */
