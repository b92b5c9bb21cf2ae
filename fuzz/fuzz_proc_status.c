// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_proc_status.c - proc_parse_status(), the collector's reader of
 * /proc/<tid>/status: the kernel writes that text, but the Name line is a
 * task name, which any process sets to any bytes with prctl(PR_SET_NAME).
 *
 * Each input is used twice:
 *   1. as the whole status text (NUL-terminated, as read_small_file()
 *      leaves it): the parser must return 0 or -EINVAL and leave a
 *      NUL-terminated name, never read past the text;
 *   2. as a task name (the bytes before the first NUL, at most 63: the
 *      kernel's tcomm[64]), escaped the way fs/proc/array.c does
 *      (seq_escape_str(..., ESCAPE_SPACE | ESCAPE_SPECIAL, "\n\\"): only
 *      newline and backslash are escaped) into a realistic status file:
 *      the parser must give back exactly that name and the Tgid.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_target.h"
#include "proc_tasks.h"

#define KERNEL_NAME_MAX	63	/* tcomm[64] in proc_task_name() */
#define TGID		4242

static void parse_raw(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct task_info t;
	int ret;

	FUZZ_ASSERT(text, "out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&t, 0xa5, sizeof(t));
	ret = proc_parse_status(text, &t);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL, "returned %d", ret);
	if (ret == 0)
		FUZZ_ASSERT(memchr(t.name, '\0', sizeof(t.name)), "name not terminated");
	free(text);
}

static void round_trip(const uint8_t *data, size_t size)
{
	/* "Name:\t" + 2 bytes per name byte + the rest of a status file */
	char text[2 * KERNEL_NAME_MAX + 256], name[KERNEL_NAME_MAX + 1], *p;
	struct task_info t;
	size_t len = strnlen((const char *)data, size < KERNEL_NAME_MAX ? size :
			     KERNEL_NAME_MAX), i;
	int ret;

	memcpy(name, data, len);
	name[len] = '\0';
	p = text + sprintf(text, "Name:\t");
	for (i = 0; i < len; i++) {
		if (name[i] == '\n' || name[i] == '\\') {
			*p++ = '\\';
			*p++ = name[i] == '\n' ? 'n' : '\\';
		} else {
			*p++ = name[i];
		}
	}
	sprintf(p, "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n",
		TGID, TGID + 1);
	memset(&t, 0xa5, sizeof(t));
	ret = proc_parse_status(text, &t);
	FUZZ_ASSERT(ret == 0, "a well-formed status file refused (%d)", ret);
	FUZZ_ASSERT(t.tgid == TGID, "tgid %llu", (unsigned long long)t.tgid);
	FUZZ_ASSERT(!strcmp(t.name, name), "name of %zu bytes read back as %zu bytes",
		    len, strnlen(t.name, sizeof(t.name)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_raw(data, size);
	round_trip(data, size);
	return 0;
}
