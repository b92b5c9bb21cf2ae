/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * qdist.h - a latency distribution in bounded memory: count, min, max, a
 * runqlat-style log2 histogram, and nearest-rank percentiles.
 *
 * Percentiles are exact while the distribution holds at most QD_EXACT_MAX
 * values (they are kept as they are). Beyond that the values move into a
 * log-linear histogram: values below 2^(QD_SUB_BITS+1) keep their own
 * bucket (exact), larger ones share a bucket with at most 1/2^QD_SUB_BITS
 * relative width. A percentile is then the upper edge of the bucket that
 * holds the nearest-rank value (clamped to the exact max), so it is never
 * below the true value and at most 0.4% above it. Memory per distribution:
 * at most 8 KiB of exact values, or 2-4 KiB per power of two that occurs.
 */
#ifndef QDIST_H
#define QDIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QD_EXACT_MAX	1024
#define QD_SUB_BITS	8
#define QD_GROUPS	(64 - QD_SUB_BITS)	/* group 0 + 1..(63-S) */

struct qdist {
	uint64_t count;
	uint64_t min, max;
	uint64_t log2[64];	/* runqlat buckets: 0 = [0,1], k = [2^k, 2^(k+1)-1] */
	uint64_t *exact;	/* while !groups: the values */
	size_t nexact, cap;
	bool sorted;
	uint64_t **groups;	/* log-linear buckets, allocated on demand */
	bool oom;		/* an allocation failed: percentiles approximate */
};

void qd_init(struct qdist *q);
void qd_free(struct qdist *q);
void qd_add(struct qdist *q, uint64_t v);
/* Add every value of @src to @dst. */
void qd_merge(struct qdist *dst, const struct qdist *src);
/* Nearest-rank percentile num/den (e.g. 999/1000); 0 if empty. */
uint64_t qd_percentile(struct qdist *q, uint64_t num, uint64_t den);
/* The log2 bucket of @v and its range. */
unsigned int qd_log2_index(uint64_t v);
uint64_t qd_log2_low(unsigned int idx);
uint64_t qd_log2_high(unsigned int idx);
/* True while percentiles are exact. */
bool qd_is_exact(const struct qdist *q);

#endif /* QDIST_H */
