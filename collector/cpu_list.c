// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cpu_list.c - per-CPU count lists for fxt-collect's summary (cpu_list.h).
 */
#include <stdio.h>
#include <string.h>

#include "cpu_list.h"

void cpu_list_init(struct cpu_list *l, char *buf, size_t size)
{
	l->buf = buf;
	l->size = size;
	l->len = 0;
	l->cut = false;
	if (size)
		buf[0] = '\0';
}

void cpu_list_add(struct cpu_list *l, unsigned int cpu, uint64_t value)
{
	char entry[CPU_LIST_ENTRY_MAX + 1];
	const char *more;
	int n;

	if (l->cut)
		return;
	n = snprintf(entry, sizeof(entry), "%scpu%u %llu", l->len ? ", " : "",
		     cpu, (unsigned long long)value);
	/* n < sizeof(entry): the longest entry is CPU_LIST_ENTRY_MAX. */
	if (n > 0 && l->len + (size_t)n + strlen(CPU_LIST_MORE) < l->size) {
		memcpy(l->buf + l->len, entry, (size_t)n + 1);
		l->len += (size_t)n;
		return;
	}
	/*
	 * Every entry so far left room for CPU_LIST_MORE; only a buffer too
	 * small for any entry gets less of "..." than it should (no number).
	 */
	l->cut = true;
	more = l->len ? CPU_LIST_MORE : "...";
	if (l->len < l->size) {
		snprintf(l->buf + l->len, l->size - l->len, "%s", more);
		l->len += strnlen(l->buf + l->len, l->size - l->len);
	}
}
