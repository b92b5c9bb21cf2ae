/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * dump.h - what fxt-dump's source files share: the functions one file
 * calls in another.
 *
 * fxt-dump is one program (fxt_dump.c: options, input, main()), split by
 * job into files. A function only its own file uses stays static there,
 * so what is declared here is the whole of what the files ask of each
 * other.
 */
#ifndef DUMP_H
#define DUMP_H

#include <stdbool.h>

#include "fxt_read.h"

/* dump_print.c: a record printed; names and thread refs as it prints them. */
void print_record(const struct fxt_reader *r, const struct fxt_record *rec);
void print_name(const struct fxt_str *s);
bool thread_undefined(const struct fxt_reader *r,
		      const struct fxt_thread_ref *t);

#endif /* DUMP_H */
