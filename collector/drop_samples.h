/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * drop_samples.h - whether a trace from fxt-collect was cut short, told
 * by its records_dropped samples (fxt-dump and fxt-sched ask it).
 *
 * fxt-collect writes the records_dropped counter ("cpuN" = N records the
 * kernel dropped on that CPU) three ways (archive_meta.c):
 *   - a sample of every CPU before the rings' data, and one more after it,
 *     so that a trace whose closing sample is missing was cut short
 *     (fxt-collect killed, its output full, or the rest given up);
 *   - a sample is one counter event per FXT_MAX_ARGS CPUs, each with the
 *     sample's timestamp: a machine of 16 CPUs or more writes two or more;
 *   - a drop marker whenever a CPU's count grew, each right after a
 *     "buffer full" provider event, anywhere among the rings' data.
 * So the samples are the records_dropped events not right after a buffer
 * full provider event, one per timestamp. Counting every records_dropped
 * event instead took a trace with drops, or from a machine of 16 CPUs or
 * more, for a whole one.
 */
#ifndef DROP_SAMPLES_H
#define DROP_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt_read.h"

/* Zeroed before the first record. */
struct drop_samples {
	uint64_t samples;		/* records_dropped samples seen */
	uint64_t last_ts;		/* the last one's timestamp (ticks) */
	bool after_buffer_full;		/* the last record was that event */
};

/*
 * Note @rec: every record of the file, in file order. The scheduling
 * records may be left out: fxt-collect writes a drop marker's two records
 * together, with nothing between them.
 */
void drop_samples_note(struct drop_samples *ds, const struct fxt_record *rec);

/* fxt-collect's opening sample is there and its closing one is not. */
static inline bool drop_samples_cut_short(const struct drop_samples *ds)
{
	return ds->samples == 1;
}

#endif /* DROP_SAMPLES_H */
