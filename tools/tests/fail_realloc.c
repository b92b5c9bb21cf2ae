/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fail_realloc.so - LD_PRELOAD it with FAIL_REALLOC_ABOVE=N (bytes): every
 * realloc() asking for more than N bytes fails with ENOMEM, as it would
 * when memory (or ulimit -v) runs out, so the tests can reach the paths
 * where a growing buffer cannot grow. Without the variable, or with 0,
 * nothing fails.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

void *realloc(void *p, size_t n)
{
	static void *(*next)(void *, size_t);
	static size_t limit;
	static int have_limit;

	if (!have_limit) {
		const char *s = getenv("FAIL_REALLOC_ABOVE");

		limit = s ? strtoull(s, NULL, 0) : 0;
		have_limit = 1;
	}
	if (limit && n > limit) {
		errno = ENOMEM;
		return NULL;
	}
	if (!next)
		next = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return next ? next(p, n) : NULL;
}
