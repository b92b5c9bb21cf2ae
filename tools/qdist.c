/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * qdist.c - bounded-memory latency distributions: exact values, then a
 * log-linear histogram (the accuracy bounds are in qdist.h).
 */
#include <stdlib.h>
#include <string.h>

#include "qdist.h"

#define SUB	(1u << QD_SUB_BITS)

void qd_init(struct qdist *q)
{
	memset(q, 0, sizeof(*q));
	q->min = UINT64_MAX;
}

void qd_free(struct qdist *q)
{
	unsigned int g;

	free(q->exact);
	if (q->groups) {
		for (g = 0; g < QD_GROUPS; g++)
			free(q->groups[g]);
		free(q->groups);
	}
	qd_init(q);
}

static unsigned int ilog2(uint64_t v)
{
	return 63u - (unsigned int)__builtin_clzll(v);
}

unsigned int qd_log2_index(uint64_t v)
{
	return v < 2 ? 0 : ilog2(v);
}

uint64_t qd_log2_low(unsigned int idx)
{
	return idx == 0 ? 0 : 1ULL << idx;
}

uint64_t qd_log2_high(unsigned int idx)
{
	return idx >= 63 ? UINT64_MAX : (2ULL << idx) - 1;
}

bool qd_is_exact(const struct qdist *q)
{
	return !q->groups && !q->oom;
}

/* Group and slot of @v in the log-linear histogram. */
static void bucket_of(uint64_t v, unsigned int *g, unsigned int *slot)
{
	unsigned int e;

	if (v < 2ULL * SUB) {
		*g = 0;
		*slot = (unsigned int)v;
		return;
	}
	e = ilog2(v);
	*g = e - QD_SUB_BITS;
	*slot = (unsigned int)(v >> (e - QD_SUB_BITS)) - SUB;
}

static uint64_t bucket_high(unsigned int g, unsigned int slot)
{
	unsigned int shift;

	if (g == 0)
		return slot;
	shift = g;	/* e - S */
	if (g == QD_GROUPS - 1 && slot == SUB - 1)
		return UINT64_MAX;
	return (((uint64_t)SUB + slot + 1) << shift) - 1;
}

static void bucket_add(struct qdist *q, uint64_t v, uint64_t n)
{
	unsigned int g, slot;

	bucket_of(v, &g, &slot);
	if (!q->groups[g]) {
		q->groups[g] = calloc(g == 0 ? 2 * SUB : SUB, sizeof(uint64_t));
		if (!q->groups[g]) {
			q->oom = true;
			return;
		}
	}
	q->groups[g][slot] += n;
}

static bool to_buckets(struct qdist *q)
{
	size_t i;

	q->groups = calloc(QD_GROUPS, sizeof(*q->groups));
	if (!q->groups) {
		q->oom = true;
		return false;
	}
	for (i = 0; i < q->nexact; i++)
		bucket_add(q, q->exact[i], 1);
	free(q->exact);
	q->exact = NULL;
	q->nexact = q->cap = 0;
	return true;
}

/* Record @v in the percentile structure only. */
static void store(struct qdist *q, uint64_t v)
{
	if (q->groups) {
		bucket_add(q, v, 1);
		return;
	}
	if (q->nexact == q->cap) {
		if (q->cap >= QD_EXACT_MAX) {
			if (to_buckets(q))
				bucket_add(q, v, 1);
			return;
		}
		size_t ncap = q->cap ? q->cap * 2 : 16;
		uint64_t *n = realloc(q->exact, ncap * sizeof(*n));

		if (!n) {
			q->oom = true;
			return;
		}
		q->exact = n;
		q->cap = ncap;
	}
	q->exact[q->nexact++] = v;
	q->sorted = false;
}

void qd_add(struct qdist *q, uint64_t v)
{
	q->count++;
	if (v < q->min)
		q->min = v;
	if (v > q->max)
		q->max = v;
	q->log2[qd_log2_index(v)]++;
	store(q, v);
}

void qd_merge(struct qdist *dst, const struct qdist *src)
{
	unsigned int i, g, slot;
	size_t k;

	if (!src->count)
		return;
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (i = 0; i < 64; i++)
		dst->log2[i] += src->log2[i];
	dst->oom |= src->oom;
	if (!src->groups) {
		for (k = 0; k < src->nexact; k++)
			store(dst, src->exact[k]);
		return;
	}
	if (!dst->groups && !to_buckets(dst))
		return;
	for (g = 0; g < QD_GROUPS; g++) {
		if (!src->groups[g])
			continue;
		for (slot = 0; slot < (g == 0 ? 2 * SUB : SUB); slot++) {
			uint64_t n = src->groups[g][slot];

			if (n)
				bucket_add(dst, g == 0 ? slot :
					   ((uint64_t)SUB + slot) << g, n);
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t qd_percentile(struct qdist *q, uint64_t num, uint64_t den)
{
	uint64_t rank, seen = 0;
	unsigned int g, slot;

	if (!q->count)
		return 0;
	/* nearest rank: ceil(p * n), at least 1 (128-bit: no overflow) */
	rank = (uint64_t)(((unsigned __int128)q->count * num + den - 1) / den);
	if (rank < 1)
		rank = 1;
	if (rank >= q->count)
		return q->max;
	if (!q->groups) {
		if (!q->nexact)
			return q->max;
		if (!q->sorted) {
			qsort(q->exact, q->nexact, sizeof(*q->exact), cmp_u64);
			q->sorted = true;
		}
		if (rank > q->nexact)	/* only after an allocation failure */
			return q->max;
		return q->exact[rank - 1];
	}
	for (g = 0; g < QD_GROUPS; g++) {
		if (!q->groups[g])
			continue;
		for (slot = 0; slot < (g == 0 ? 2 * SUB : SUB); slot++) {
			seen += q->groups[g][slot];
			if (seen >= rank) {
				uint64_t hi = bucket_high(g, slot);

				return hi < q->max ? hi : q->max;
			}
		}
	}
	return q->max;
}
