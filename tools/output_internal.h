/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * output_internal.h - what fxt-sched's output files share, and no more.
 * Each report is rendered in a file of its own (output_latency.c,
 * output_top.c, output_summary.c, output_intervals.c); what more than one
 * of them uses is in output.c, but json_losses(), in output_summary.c
 * with the counters summary prints. A function only its own file uses
 * stays static there. Each function is documented where it is defined.
 *
 * The reports' entry points (print_latency()...), fmt_dur(), fmt_time()
 * and json_write_string(), which fxt_sched.c and fxt2json.c call, are
 * declared in analysis.h.
 */
#ifndef OUTPUT_INTERNAL_H
#define OUTPUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"

/* output.c */
extern const char *const kind_short[LAT_KINDS];
void json_str(FILE *out, const char *s);
void csv_str(FILE *out, const char *s);
void text_name(FILE *out, const char *s);
bool print_not_counted(const struct analysis *an, FILE *out);
struct thread **selected(struct analysis *an, size_t *n);

/* output_summary.c */
void json_losses(FILE *out, const struct analysis *an);

#endif /* OUTPUT_INTERNAL_H */
