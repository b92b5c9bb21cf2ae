// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * proc_tasks.c - read task names and thread-group ids from /proc
 * (see proc_tasks.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_tasks.h"

/* A status file is about 1.5 KiB; Name and Tgid are in the first lines. */
#define STATUS_READ_MAX	4096

static int read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return 0;
}

/*
 * The kernel escapes '\n' and '\\' in the status Name (seq_escape_str);
 * undo the common C escapes and octal \ooo so the trace shows the real name.
 */
static void unescape_name(const char *src, size_t len, char *dst, size_t size)
{
	static const char from[] = "nt\\\"aefrv", to[] = "\n\t\\\"\a\033\f\r\v";
	size_t i = 0, o = 0, k;
	const char *hit;

	while (i < len && o < size - 1) {
		if (src[i] != '\\' || i + 1 >= len) {
			dst[o++] = src[i++];
			continue;
		}
		hit = strchr(from, src[i + 1]);
		if (hit && src[i + 1]) {
			dst[o++] = to[hit - from];
			i += 2;
		} else if (i + 3 < len && src[i + 1] >= '0' && src[i + 1] <= '3') {
			unsigned int v = 0;

			for (k = 1; k <= 3 && src[i + k] >= '0' && src[i + k] <= '7'; k++)
				v = v * 8 + (unsigned int)(src[i + k] - '0');
			dst[o++] = (char)v;
			i += k;
		} else {
			dst[o++] = src[i++];
		}
	}
	dst[o] = '\0';
}

/*
 * The value of "Key:\t..." up to the end of its line, or NULL. Only the one
 * tab the kernel prints after the colon is skipped: a task name may itself
 * start with blanks (prctl(PR_SET_NAME, " x")), and the kernel does not
 * escape them.
 */
static const char *status_field(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *line = text, *end;

	while (line && *line) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			line += klen + 1;
			if (*line == '\t')
				line++;
			end = strchr(line, '\n');
			*len = end ? (size_t)(end - line) : strlen(line);
			return line;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

int proc_parse_status(const char *text, struct task_info *out)
{
	size_t len;
	const char *name = status_field(text, "Name", &len);
	const char *tgid;
	char *end;
	unsigned long long v;

	if (!name)
		return -EINVAL;
	unescape_name(name, len, out->name, sizeof(out->name));
	tgid = status_field(text, "Tgid", &len);
	if (!tgid || !isdigit((unsigned char)*tgid))
		return -EINVAL;
	errno = 0;
	v = strtoull(tgid, &end, 10);
	if (errno || (*end && *end != '\n'))
		return -EINVAL;
	out->tgid = v;
	return 0;
}

static int read_status(const char *path, uint64_t tid, struct task_info *out)
{
	char buf[STATUS_READ_MAX];
	int err = read_small_file(path, buf, sizeof(buf));

	if (err)
		return err;
	out->tid = tid;
	return proc_parse_status(buf, out);
}

int proc_read_task(const char *proc_root, uint64_t tid, struct task_info *out)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%llu/status", proc_root,
		 (unsigned long long)tid);
	return read_status(path, tid, out);
}

/* A directory entry that is a decimal id, as /proc uses for tasks. */
static bool parse_id(const char *name, uint64_t *id)
{
	char *end;

	if (!isdigit((unsigned char)name[0]))
		return false;
	errno = 0;
	*id = strtoull(name, &end, 10);
	return !errno && !*end;
}

static int visit_process(const char *proc_root, uint64_t pid,
			 proc_task_fn fn, void *ctx)
{
	char path[4096];
	struct task_info task;
	struct dirent *de;
	uint64_t tid;
	DIR *dir;
	int ret = 0;

	/* The leader first, so a process's own name comes before its threads. */
	snprintf(path, sizeof(path), "%s/%llu/task/%llu/status", proc_root,
		 (unsigned long long)pid, (unsigned long long)pid);
	if (!read_status(path, pid, &task)) {
		ret = fn(ctx, &task);
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), "%s/%llu/task", proc_root,
		 (unsigned long long)pid);
	dir = opendir(path);
	if (!dir)
		return 0;	/* exited meanwhile */
	while (!ret && (de = readdir(dir))) {
		if (!parse_id(de->d_name, &tid) || tid == pid)
			continue;
		snprintf(path, sizeof(path), "%s/%llu/task/%llu/status",
			 proc_root, (unsigned long long)pid,
			 (unsigned long long)tid);
		if (!read_status(path, tid, &task))
			ret = fn(ctx, &task);
	}
	closedir(dir);
	return ret;
}

int proc_for_each_task(const char *proc_root, proc_task_fn fn, void *ctx)
{
	struct dirent *de;
	uint64_t pid;
	int ret = 0;
	DIR *dir = opendir(proc_root);

	if (!dir)
		return -errno;
	while (!ret && (de = readdir(dir)))
		if (parse_id(de->d_name, &pid))
			ret = visit_process(proc_root, pid, fn, ctx);
	closedir(dir);
	return ret;
}
