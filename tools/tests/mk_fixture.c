/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mk_fixture DIR - write the hand-made traces of fixtures.h as DIR/NAME.fxt
 * (filtered, start, reuse, holes, skip_holes, odd_names, hole_top, empty_names,
 * open_end, ctl_names, us_ticks, top_ties, top_many, hole_sleepers,
 * late_hole, late_sched, late_lost, many_procs, doubles, sparse_cpus,
 * long_names, dead_unnamed, reuse_unseen, reuse_switched_out, reorder_oom,
 * reuse_same_process,
 * late_switch, collected, cut_short, cut_wait, cut_wait_closed, marked,
 * marked_cut, json_edges, stand_in_base) for the command-line tests.
 */
#include <stdio.h>

#include "fixtures.h"

static int save(const char *dir, const char *name, void (*build)(struct tb *))
{
	char path[4096];
	struct tb t;
	FILE *f;
	int ret = 0;

	build(&t);
	snprintf(path, sizeof(path), "%s/%s.fxt", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(fxt_writer_data(&t.w), 1, fxt_writer_bytes(&t.w), f) !=
		  fxt_writer_bytes(&t.w)) {
		perror(path);
		ret = 1;
	}
	if (f && fclose(f)) {
		perror(path);
		ret = 1;
	}
	fxt_writer_free(&t.w);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mk_fixture DIR\n");
		return 2;
	}
	return save(argv[1], "filtered", build_filtered) |
	       save(argv[1], "start", build_start) |
	       save(argv[1], "reuse", build_reuse) |
	       save(argv[1], "holes", build_holes) |
	       save(argv[1], "skip_holes", build_skip_holes) |
	       save(argv[1], "odd_names", build_odd_names) |
	       save(argv[1], "hole_top", build_hole_top) |
	       save(argv[1], "empty_names", build_empty_names) |
	       save(argv[1], "open_end", build_open_end) |
	       save(argv[1], "ctl_names", build_ctl_names) |
	       save(argv[1], "us_ticks", build_us_ticks) |
	       save(argv[1], "top_ties", build_top_ties) |
	       save(argv[1], "top_many", build_top_many) |
	       save(argv[1], "hole_sleepers", build_hole_sleepers) |
	       save(argv[1], "late_hole", build_late_hole) |
	       save(argv[1], "late_sched", build_late_sched) |
	       save(argv[1], "late_lost", build_late_lost) |
	       save(argv[1], "many_procs", build_many_procs) |
	       save(argv[1], "doubles", build_doubles) |
	       save(argv[1], "sparse_cpus", build_sparse_cpus) |
	       save(argv[1], "long_names", build_long_names) |
	       save(argv[1], "dead_unnamed", build_dead_unnamed) |
	       save(argv[1], "reuse_unseen", build_reuse_unseen) |
	       save(argv[1], "reuse_switched_out", build_reuse_switched_out) |
	       save(argv[1], "reorder_oom", build_reorder_oom) |
	       save(argv[1], "reuse_same_process", build_reuse_same_process) |
	       save(argv[1], "late_switch", build_late_switch) |
	       save(argv[1], "collected", build_collected) |
	       save(argv[1], "cut_short", build_cut_short) |
	       save(argv[1], "cut_wait", build_cut_wait) |
	       save(argv[1], "cut_wait_closed", build_cut_wait_closed) |
	       save(argv[1], "marked", build_marked) |
	       save(argv[1], "marked_cut", build_marked_cut) |
	       save(argv[1], "json_edges", build_json_edges) |
	       save(argv[1], "stand_in_base", build_stand_in_base);
}
