// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * command_path.c - execvp()'s search for a command, without the exec
 * (command_path.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command_path.h"

/* glibc's execvp() with PATH unset (confstr(_CS_PATH)). */
#define DEFAULT_PATH "/bin:/usr/bin"

/* 0, ENOENT, or EACCES: as execve() would answer for @file. */
static int check_file(const char *file)
{
	struct stat sb;

	if (stat(file, &sb))
		return errno == ENOENT || errno == ENOTDIR ? ENOENT : EACCES;
	/* AT_EACCESS: the effective ids, which execve() checks. */
	if (!S_ISREG(sb.st_mode) ||
	    faccessat(AT_FDCWD, file, X_OK, AT_EACCESS))
		return EACCES;
	return 0;
}

int command_path_check(const char *name, const char *path)
{
	char file[PATH_MAX];
	const char *dir, *end;
	int seen = ENOENT, n, err;

	if (!*name)
		return ENOENT;
	if (strlen(name) >= sizeof(file))
		return ENAMETOOLONG;
	if (strchr(name, '/'))
		return check_file(name);
	if (!path)
		path = DEFAULT_PATH;
	for (dir = path; ; dir = end + 1) {
		end = strchrnul(dir, ':');
		if (end == dir)	/* an empty entry: the current directory */
			n = snprintf(file, sizeof(file), "%s", name);
		else
			n = snprintf(file, sizeof(file), "%.*s/%s",
				     (int)(end - dir), dir, name);
		/* A candidate too long to exist is passed over, as ENOENT. */
		err = n < (int)sizeof(file) ? check_file(file) : ENOENT;
		if (!err)
			return 0;
		/* Like execvp(): EACCES if any match could not be run. */
		if (err == EACCES)
			seen = EACCES;
		if (!*end)
			return seen;
	}
}
