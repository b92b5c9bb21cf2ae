/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * cpu_list.h - "cpu0 12, cpu3 4": a per-CPU count list for fxt-collect's
 * end-of-run summary.
 *
 * Entries are whole or absent, never cut: an entry that does not fit
 * (with room left for the ending) ends the list with ", ..." instead, so a
 * number shown is always the whole number. A buffer of CPU_LIST_SIZE(n)
 * bytes holds any n entries.
 */
#ifndef CPU_LIST_H
#define CPU_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What ends a list that had no room for every entry. */
#define CPU_LIST_MORE		", ..."
/* The longest entry, separator included (not the NUL). */
#define CPU_LIST_ENTRY_MAX	(sizeof(", cpu4294967295 18446744073709551615") - 1)
/* A buffer that holds @ncpus entries of any value. */
#define CPU_LIST_SIZE(ncpus) \
	((size_t)(ncpus) * CPU_LIST_ENTRY_MAX + sizeof(CPU_LIST_MORE))

struct cpu_list {
	char *buf;
	size_t size;
	size_t len;		/* strlen(buf) */
	bool cut;		/* an entry did not fit: the list ends in "..." */
};

/* Start an empty list in @buf (@size bytes, 0 allowed: nothing written). */
void cpu_list_init(struct cpu_list *l, char *buf, size_t size);

/*
 * Append "cpu<cpu> <value>" (", " before it unless it is the first) if it
 * fits with CPU_LIST_MORE after it; otherwise end the list with
 * CPU_LIST_MORE ("..." alone if the list is empty) and ignore every later
 * entry.
 */
void cpu_list_add(struct cpu_list *l, unsigned int cpu, uint64_t value);

#endif /* CPU_LIST_H */
