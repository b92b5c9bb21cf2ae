/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * command_path.h - would execvp() run COMMAND? Asked before anything is
 * traced or written: "fxt-collect sched.fxt" (FILE taken for COMMAND) must
 * not replace an earlier sched.fxt with a trace of nothing.
 */
#ifndef COMMAND_PATH_H
#define COMMAND_PATH_H

#include <stddef.h>

/*
 * @name as execvp() takes it: a path if it holds a '/', else searched for
 * in @path (PATH's value; NULL for unset, which execvp() takes as
 * "/bin:/usr/bin"; an empty entry is the current directory), with
 * execvp()'s rules: EACCES from one entry lets the search go on (and is
 * the answer if nothing is found), ENOENT, ENOTDIR, ESTALE, ENODEV and
 * ETIMEDOUT let it go on, any other error ends it.
 *
 * What execve() would then find wrong with the file is checked too: not a
 * regular file, no execute permission (for the effective ids), and for a
 * script the interpreter on its "#!" line (one level: missing, or not
 * executable); then its path is copied to @interp (else @interp is "").
 *
 * Return: 0 if execvp() would start @name, else the errno it would fail
 * with (ENOENT for an empty @name).
 */
int command_path_check(const char *name, const char *path, char *interp,
		       size_t interp_len);

#endif /* COMMAND_PATH_H */
