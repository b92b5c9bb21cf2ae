// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * command_path.c - execvp()'s search for a command, and execve()'s first
 * checks of the file it finds, without the exec (command_path.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command_path.h"

/* glibc's execvp() with PATH unset (confstr(_CS_PATH)). */
#define DEFAULT_PATH "/bin:/usr/bin"

/* 0, or the errno execve() would give for @file's type and permissions. */
static int check_executable(const char *file)
{
	struct stat sb;

	if (stat(file, &sb))
		return errno;
	if (!S_ISREG(sb.st_mode))
		return EACCES;
	/* AT_EACCESS: the effective ids, which execve() checks. */
	if (faccessat(AT_FDCWD, file, X_OK, AT_EACCESS))
		return errno;
	return 0;
}

/*
 * A script's interpreter: "#!" then blanks, then the path up to a blank or
 * the end of the line. "" when @file is no script, or cannot be read (an
 * executable we may not read is for execve() to judge).
 */
static void script_interpreter(const char *file, char *interp, size_t len)
{
	char line[256];
	ssize_t n;
	size_t i, end;
	int fd;

	interp[0] = '\0';
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return;
	line[n] = '\0';
	for (i = 2; line[i] == ' ' || line[i] == '\t'; i++)
		;
	end = i + strcspn(line + i, " \t\n");
	if (end - i < len)
		snprintf(interp, len, "%.*s", (int)(end - i), line + i);
}

/* check_executable(), and for a script its interpreter's. */
static int check_file(const char *file, char *interp, size_t interp_len)
{
	int err = check_executable(file);

	interp[0] = '\0';
	if (err)
		return err;
	script_interpreter(file, interp, interp_len);
	/* "#!" alone fails with ENOEXEC, and execvp() runs it with /bin/sh. */
	if (!interp[0])
		return 0;
	err = check_executable(interp);
	if (!err)
		interp[0] = '\0';
	return err;
}

int command_path_check(const char *name, const char *path, char *interp,
		       size_t interp_len)
{
	char file[PATH_MAX], file_interp[PATH_MAX];
	char eacces_interp[PATH_MAX] = "", last_interp[PATH_MAX] = "";
	int last = ENOENT, n, err;
	bool got_eacces = false;
	const char *dir, *end;

	interp[0] = '\0';
	if (!*name)
		return ENOENT;
	if (strchr(name, '/'))
		return check_file(name, interp, interp_len);
	if (strnlen(name, NAME_MAX + 1) > NAME_MAX)
		return ENAMETOOLONG;
	if (!path)
		path = DEFAULT_PATH;
	for (dir = path; ; dir = end + 1) {
		end = strchrnul(dir, ':');
		if (end == dir)	/* an empty entry: the current directory */
			n = snprintf(file, sizeof(file), "%s", name);
		else
			n = snprintf(file, sizeof(file), "%.*s/%s",
				     (int)(end - dir), dir, name);
		/* execve() would refuse it, and execvp() stop there. */
		if (n >= (int)sizeof(file))
			return ENAMETOOLONG;
		err = check_file(file, file_interp, sizeof(file_interp));
		/*
		 * Each error execvp() may end with keeps the interpreter (if
		 * any) of the entry that gave it: the first EACCES, the last
		 * of the others.
		 */
		switch (err) {
		case 0:
			return 0;
		case EACCES:
			if (!got_eacces)
				memcpy(eacces_interp, file_interp,
				       sizeof(eacces_interp));
			got_eacces = true;
			break;
		case ENOENT:
		case ESTALE:
		case ENOTDIR:
		case ENODEV:
		case ETIMEDOUT:
			last = err;
			memcpy(last_interp, file_interp, sizeof(last_interp));
			break;
		default:
			snprintf(interp, interp_len, "%s", file_interp);
			return err;
		}
		if (!*end)
			break;
	}
	snprintf(interp, interp_len, "%s",
		 got_eacces ? eacces_interp : last_interp);
	return got_eacces ? EACCES : last;
}
