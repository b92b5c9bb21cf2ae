// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fail_alloc.c - an LD_PRELOAD shim that makes large realloc() or malloc()
 * calls fail, so a test can reach fxt-dump --summary's out-of-memory paths
 * without exhausting the machine's memory.
 *
 * FAIL_REALLOC_ABOVE=N: every realloc() of more than N bytes returns NULL
 * with errno ENOMEM. FAIL_MALLOC_ABOVE=N: the same for malloc(). Every
 * other call, and calloc()/free(), go to libc. Unset: nothing fails.
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

/* glibc's own malloc(): no dlsym() from inside malloc(), which may allocate. */
void *__libc_malloc(size_t size);

/* The byte limit the environment variable @name sets, or SIZE_MAX. */
static size_t limit_of(const char *name)
{
	const char *env = getenv(name);

	return env && *env ? (size_t)strtoull(env, NULL, 10) : SIZE_MAX;
}

__attribute__((visibility("default")))
void *malloc(size_t size)
{
	static size_t limit;
	static int ready;

	/* fxt-dump is single-threaded: no lock for this one-time setup. */
	if (!ready) {
		limit = limit_of("FAIL_MALLOC_ABOVE");
		ready = 1;
	}
	if (size > limit) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

__attribute__((visibility("default")))
void *realloc(void *ptr, size_t size)
{
	static void *(*real)(void *, size_t);
	static size_t limit;
	static int ready;

	if (!ready) {
		real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
		limit = limit_of("FAIL_REALLOC_ABOVE");
		ready = 1;
	}
	if (size > limit) {
		errno = ENOMEM;
		return NULL;
	}
	return real(ptr, size);
}
