// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_fxt2json.c - fxt2json's whole run on arbitrary file bytes: its
 * main() (included, renamed), so the command line, the two passes over
 * the file (names, then events, the first read again when the reorder
 * window widens), the tracks, the JSON writing and the closing checks are
 * fxt2json's own.
 *
 * main() stat()s its input, wants a regular file and reads it twice, so
 * the input goes into a memfd read through /proc/self/fd/N (fuzz_file in
 * fuzz_target.h), as in fuzz_fxt_sched.c; the output goes to a second
 * memfd (-o /proc/self/fd/M), read back after each run. main() returns,
 * never exits; getopt is started afresh for each input (optind = 0:
 * glibc's full reinitialisation).
 *
 * Each input is converted twice: as most run it (the reorder window grows
 * to what the file needs: the names pass is read again when records come
 * later than the window), and with --reorder-window 100us (a fixed window:
 * records later than it left out, exit status 3).
 *
 * Besides "does not crash" it checks what main() and fxt2json(1) promise
 * for a command line that is always valid, against a plain fxt_read pass
 * (FXT_READ_MAGIC, as fxt2json reads) over the same bytes:
 *   - the exit status is 0, 1 or 3, never 2, and 3 only with
 *     --reorder-window; it is 1 exactly when the reader stops at an error
 *     (the records before it are converted);
 *   - no output file is written exactly when no record could be read
 *     (empty, or not FXT at all);
 *   - any output is one JSON text (RFC 8259, checked here independently of
 *     the writer, UTF-8 included) that starts with
 *     {"displayTimeUnit": "ns", "traceEvents": [ and ends with "\n]}\n".
 */
#include <ctype.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "fuzz_target.h"

/* fxt2json's main() becomes an ordinary function, called twice per input. */
int fxt2json_main(int argc, char **argv);
#define main fxt2json_main
#include "fxt2json.c"
#undef main

static struct fuzz_file input, output;

#define JSON_HEAD	"{\"displayTimeUnit\": \"ns\", \"traceEvents\": ["
#define JSON_TAIL	"\n]}\n"
/* The output nests 4 deep: the top object, traceEvents, an event, its args */
#define JSON_MAX_DEPTH	4

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_file_init(&input, "fuzz_fxt2json input");
	fuzz_file_init(&output, "fuzz_fxt2json output");
	return 0;
}

/*
 * A JSON syntax check (RFC 8259) of its own, not fxt2json's writer: where
 * the text stops being JSON, or the end of the text.
 */
struct json {
	const unsigned char *p, *end;
};

static void j_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool j_take(struct json *j, char c)
{
	if (j->p == j->end || *j->p != (unsigned char)c)
		return false;
	j->p++;
	return true;
}

/* One UTF-8 character at j->p (a lead byte >= 0x80), by its code point:
 * no overlong form, no surrogate, nothing above U+10FFFF. */
static bool j_utf8(struct json *j)
{
	unsigned int c = *j->p, cp, n, i;

	if (c >= 0xc0 && c < 0xe0) {
		n = 1, cp = c & 0x1f;
	} else if (c >= 0xe0 && c < 0xf0) {
		n = 2, cp = c & 0x0f;
	} else if (c >= 0xf0 && c < 0xf8) {
		n = 3, cp = c & 0x07;
	} else {
		return false;
	}
	if ((size_t)(j->end - j->p) <= n)
		return false;
	for (i = 1; i <= n; i++) {
		if ((j->p[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (j->p[i] & 0x3f);
	}
	if (cp < (n == 1 ? 0x80u : n == 2 ? 0x800u : 0x10000u) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return false;
	j->p += n + 1;
	return true;
}

static bool j_string(struct json *j)
{
	int k;

	if (!j_take(j, '"'))
		return false;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20)
			return false;
		if (*j->p >= 0x80) {
			if (!j_utf8(j))
				return false;
			continue;
		}
		if (*j->p++ != '\\')
			continue;
		if (j->p == j->end)
			return false;
		if (strchr("\"\\/bfnrt", *j->p) && *j->p) {
			j->p++;
			continue;
		}
		if (*j->p++ != 'u')
			return false;
		for (k = 0; k < 4; k++, j->p++)
			if (j->p == j->end || !isxdigit(*j->p))
				return false;
	}
	return j_take(j, '"');
}

static bool j_digits(struct json *j)
{
	const unsigned char *at = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > at;
}

static bool j_number(struct json *j)
{
	j_take(j, '-');
	if (!j_take(j, '0') && !(j->p < j->end && *j->p >= '1' &&
				  *j->p <= '9' && j_digits(j)))
		return false;
	if (j_take(j, '.') && !j_digits(j))
		return false;
	if (j_take(j, 'e') || j_take(j, 'E')) {
		if (!j_take(j, '+'))
			j_take(j, '-');
		if (!j_digits(j))
			return false;
	}
	return true;
}

static bool j_word(struct json *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static bool j_value(struct json *j, int depth)
{
	bool object;

	j_ws(j);
	if (j->p == j->end)
		return false;
	switch (*j->p) {
	case '"':
		return j_string(j);
	case 't':
		return j_word(j, "true");
	case 'f':
		return j_word(j, "false");
	case 'n':
		return j_word(j, "null");
	case '{':
	case '[':
		break;
	default:
		return j_number(j);
	}
	object = *j->p++ == '{';
	if (depth == JSON_MAX_DEPTH)
		return false;
	j_ws(j);
	if (j_take(j, object ? '}' : ']'))
		return true;
	do {
		if (object) {
			j_ws(j);
			if (!j_string(j))
				return false;
			j_ws(j);
			if (!j_take(j, ':'))
				return false;
		}
		if (!j_value(j, depth + 1))
			return false;
		j_ws(j);
	} while (j_take(j, ','));
	return j_take(j, object ? '}' : ']');
}

/* Are @len bytes at @s one JSON text? If not, *@at is where it stops. */
static bool json_text(const char *s, size_t len, size_t *at)
{
	struct json j = { (const unsigned char *)s,
			  (const unsigned char *)s + len };
	bool ok = j_value(&j, 0);

	if (ok)
		j_ws(&j);
	*at = (size_t)(j.p - (const unsigned char *)s);
	return ok && j.p == j.end;
}

/* What fxt2json wrote: a NUL-terminated copy, *@len bytes before it. */
static char *read_output(size_t *len)
{
	struct stat sb;
	size_t done = 0;
	ssize_t n;
	char *buf;

	FUZZ_ASSERT(fstat(output.fd, &sb) == 0, "fstat of the output memfd");
	*len = (size_t)sb.st_size;
	buf = malloc(*len + 1);
	FUZZ_ASSERT(buf, "out of memory");
	while (done < *len) {
		n = pread(output.fd, buf + done, *len - done, (off_t)done);
		FUZZ_ASSERT(n > 0, "pread of the output memfd");
		done += (size_t)n;
	}
	buf[*len] = '\0';
	return buf;
}

/*
 * fxt2json -o OUTPUT INPUT, with --reorder-window @window if not NULL, and
 * what it promises for that command line (always a valid one).
 */
static void convert(const char *window, uint64_t records, bool malformed)
{
	/* main() writes argv[0]: the array is ours, rebuilt each time */
	char *argv[8] = { (char *)"fxt2json" }, *json;
	int argc = 1, ret;
	size_t len, at;

	if (window) {
		argv[argc++] = (char *)"--reorder-window";
		argv[argc++] = (char *)window;
	}
	argv[argc++] = (char *)"-o";
	argv[argc++] = output.path;
	argv[argc++] = input.path;
	argv[argc] = NULL;
	fuzz_file_load(&output, NULL, 0);	/* no output left from before */
	optind = 0;
	ret = fxt2json_main(argc, argv);

	json = read_output(&len);
	/* 3: records later than the --reorder-window given were left out
	 * (fxt2json(1)); without one, the window grows to what the file
	 * needs, and nothing is late */
	FUZZ_ASSERT(ret == 0 || ret == 1 || (ret == 3 && window),
		    "exit status %d for a valid command line (--reorder-window %s)",
		    ret, window ? window : "not given");
	FUZZ_ASSERT((ret == 1) == malformed,
		    "exit status %d, but fxt_read %s (%llu records)", ret,
		    malformed ? "stops at an error" : "reads to the end",
		    (unsigned long long)records);
	FUZZ_ASSERT(!len == (malformed && !records),
		    "%zu bytes of output, fxt_read reads %llu records (malformed %d)",
		    len, (unsigned long long)records, malformed);
	if (len) {
		FUZZ_ASSERT(len >= strlen(JSON_HEAD) + strlen(JSON_TAIL) &&
			    !memcmp(json, JSON_HEAD, strlen(JSON_HEAD)) &&
			    !strcmp(json + len - strlen(JSON_TAIL), JSON_TAIL),
			    "%zu bytes of output do not start with the header and end with the tail",
			    len);
		FUZZ_ASSERT(json_text(json, len, &at),
			    "the output is not JSON at offset %zu of %zu: \"%.40s\"",
			    at, len, json + at);
	}
	free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t records;
	bool malformed;

	fuzz_file_load(&input, data, size);
	/* what fxt2json's reader must find: it reads with FXT_READ_MAGIC */
	fuzz_fxt_count(data, size, FXT_READ_MAGIC, &records, &malformed);
	/* as most run it: the window grows to what the file needs */
	convert(NULL, records, malformed);
	/* a fixed window, smaller than a drain's disorder: records left
	 * out, holes applied late, exit status 3 */
	convert("100us", records, malformed);
	return 0;
}
