// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * drop_samples.c - fxt-collect's records_dropped samples, told from its
 * drop markers (see drop_samples.h)
 */
#include "drop_samples.h"

void drop_samples_note(struct drop_samples *ds, const struct fxt_record *rec)
{
	bool marker = ds->after_buffer_full;

	ds->after_buffer_full = rec->decoded &&
				rec->type == FXT_RECORD_METADATA &&
				rec->kind == FXT_META_PROVIDER_EVENT &&
				rec->meta.event_id == FXT_PROVIDER_EVENT_BUFFER_FULL;
	if (!rec->decoded || rec->type != FXT_RECORD_EVENT ||
	    rec->event.type != FXT_EVENT_COUNTER ||
	    !fxt_str_eq(&rec->event.name, "records_dropped") || marker)
		return;
	/* A sample's later events carry its timestamp again. */
	if (ds->samples && rec->event.timestamp == ds->last_ts)
		return;
	ds->samples++;
	ds->last_ts = rec->event.timestamp;
}
