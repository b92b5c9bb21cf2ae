// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fail_alloc.c - an LD_PRELOAD shim that makes large realloc() calls fail,
 * so a test can reach fxt-dump --summary's out-of-memory path without
 * exhausting the machine's memory.
 *
 * FAIL_REALLOC_ABOVE=N: every realloc() of more than N bytes returns NULL
 * with errno ENOMEM; every other call, and malloc()/calloc()/free(), go to
 * libc. Unset: nothing fails.
 *
 * A size limit rather than "fail the Nth call" keeps it deterministic: the
 * calls that fail depend only on the trace, not on how many realloc()s
 * libc or the loader made first. fxt-dump maps a regular file (no
 * allocation for the input) and stdio's buffers come from malloc(), so
 * only tables that grow with the trace reach such a size: with a limit of
 * 256, the per-CPU counts (8 bytes a CPU) stop growing at CPU 32.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((visibility("default")))
void *realloc(void *ptr, size_t size)
{
	static void *(*real)(void *, size_t);
	static size_t limit;
	static int ready;
	const char *env;

	/* fxt-dump is single-threaded: no lock for this one-time setup. */
	if (!ready) {
		real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
		env = getenv("FAIL_REALLOC_ABOVE");
		limit = env && *env ? (size_t)strtoull(env, NULL, 10) : SIZE_MAX;
		ready = 1;
	}
	if (size > limit) {
		errno = ENOMEM;
		return NULL;
	}
	return real(ptr, size);
}
