/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * command_path.h - would execvp() find COMMAND? Asked before anything is
 * traced or written: "fxt-collect sched.fxt" (FILE taken for COMMAND) must
 * not replace an earlier sched.fxt with a trace of nothing.
 */
#ifndef COMMAND_PATH_H
#define COMMAND_PATH_H

/*
 * @name as execvp() takes it: a path if it holds a '/', else searched for
 * in @path (PATH's value; NULL for unset, which execvp() takes as
 * "/bin:/usr/bin"; an empty entry is the current directory).
 *
 * Return: 0 if a regular file @name resolves to may be executed, ENOENT
 * if none exists (or @name is empty), EACCES if one exists but no match
 * may be executed (not executable, or a directory), ENAMETOOLONG.
 */
int command_path_check(const char *name, const char *path);

#endif /* COMMAND_PATH_H */
