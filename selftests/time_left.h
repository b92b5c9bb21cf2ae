/* SPDX-License-Identifier: GPL-2.0 */
/*
 * time_left.h - the time from now to a CLOCK_MONOTONIC deadline, for the
 * workload programs that wait for a signal until then (sigtimedwait()).
 */
#ifndef FXTRACE_TIME_LEFT_H
#define FXTRACE_TIME_LEFT_H

#include <stdbool.h>
#include <time.h>

/* @left = @end - now (CLOCK_MONOTONIC); false once @end has passed. */
static inline bool time_left(const struct timespec *end, struct timespec *left)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left->tv_sec = end->tv_sec - now.tv_sec;
	left->tv_nsec = end->tv_nsec - now.tv_nsec;
	if (left->tv_nsec < 0) {
		left->tv_sec--;
		left->tv_nsec += 1000000000L;
	}
	return left->tv_sec >= 0;
}

#endif /* FXTRACE_TIME_LEFT_H */
