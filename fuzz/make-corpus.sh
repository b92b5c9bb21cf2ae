#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# make-corpus.sh - `make -C fuzz corpus`: rebuild every seed corpus in
# fuzz/corpus/<target>/ from scratch, then minimise each with libFuzzer's
# -merge=1 (only inputs that add coverage stay; MERGE_ARGS, by default
# -max_len=4096, keeps the committed corpus small).
#
# Seeds come from:
#   - collector/tests/test_fxt_malformed: its malformed corpus (size 0,
#     truncated, reserved bits, undefined refs, ...) and its valid trace with
#     every record kind;
#   - tools/tests/gen_trace: small synthetic fxtrace-style traces (names
#     first or last, drops, spurious wakeups, and holes: the kernel's
#     records_lost and fxt-collect's bytes_skipped markers within the
#     first 4 KiB);
#   - real traces from the VM selftests, when build/vm-out/*/out/*.fxt
#     exist (scripts/vm-test.sh leaves them): their first 4 KiB as files,
#     and their ring records (from the first scheduling record on) as ring
#     contents for the ring targets;
#   - gen_seeds (this folder) for the ring-drain parameters, the GET_INFO
#     layout, and /proc status texts written here.
# fxt2json reads the files fxt-sched reads: its seeds are fxt_sched's.
# Called by the Makefile with BUILD, REPO, CORPUS, MAKE and TARGETS set.
set -euo pipefail
: "${BUILD:?}" "${REPO:?}" "${CORPUS:?}" "${MAKE:=make}" "${TARGETS:?}"
: "${MERGE_ARGS=-max_len=4096}"

raw=$BUILD/seeds
rm -rf "$raw"
for t in $TARGETS; do
	mkdir -p "$raw/$t"
done
gen=$BUILD/gen_seeds

echo "make-corpus: collector's malformed corpus"
"$MAKE" -s --no-print-directory -C "$REPO/collector" BUILDDIR="$BUILD/collector" tests-build
"$BUILD/collector/obj/tests/test_fxt_malformed" "$BUILD/collector/fxt-dump" \
	"$raw/malformed" >/dev/null
for f in "$raw"/malformed/*.fxt; do
	cp "$f" "$raw/fxt_dump/"
	cp "$f" "$raw/fxt_sched/"
done

echo "make-corpus: synthetic traces (gen_trace)"
"$MAKE" -s --no-print-directory -C "$REPO/tools" BUILDDIR="$BUILD/tools" \
	"$BUILD/tools/obj/tests/gen_trace"
i=0
for opts in "-c 2 -t 4 -n 40" "-c 3 -t 8 -n 60 --names-at-end" \
	"-c 2 -t 6 -n 60 --drops" "-c 4 -t 10 -n 80 --spurious --seed 7" \
	"-c 2 -t 4 -n 400 --drain-ms 1 --losses --skips --seed 5" \
	"-c 3 -t 6 -n 400 --drain-ms 1 --losses --skips --kernel-names --seed 15"; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # $opts is a list of options
	"$BUILD/tools/obj/tests/gen_trace" -o "$raw/gen$i.fxt" $opts
	"$gen" head "$raw/gen$i.fxt" 4096 "$raw/fxt_dump/gen$i.fxt"
	cp "$raw/fxt_dump/gen$i.fxt" "$raw/fxt_sched/"
	"$gen" ring "$raw/gen$i.fxt" 4096 "$raw/ring_tids/gen$i.ring"
done

echo "make-corpus: VM traces"
nvm=0
for f in "$REPO"/build/vm-out/*/out/*.fxt; do
	[[ -s $f ]] || continue
	nvm=$((nvm + 1))
	name=$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f" .fxt)
	"$gen" head "$f" 4096 "$raw/fxt_dump/vm-$name.fxt"
	cp "$raw/fxt_dump/vm-$name.fxt" "$raw/fxt_sched/"
	"$gen" ring "$f" 4096 "$raw/ring_tids/vm-$name.ring"
done
[[ $nvm -gt 0 ]] || echo "make-corpus: no VM traces in build/vm-out (run scripts/vm-test.sh first for real ring data); synthetic seeds only"

echo "make-corpus: ring drain parameters"
j=0
for ring in "$raw"/ring_tids/*.ring; do
	j=$((j + 1))
	# A 4 KiB ring (shift 9); consumer near the area end, 8 bytes into
	# a lap, and just below 2^64; drains that jump and drains that step.
	"$gen" drain "$ring" 9 0 "$raw/ring_drain/$j-a" 0:4096
	"$gen" drain "$ring" 9 0xfc0 "$raw/ring_drain/$j-b" 1:1024 1:2048 0:0x1fc0
	"$gen" drain "$ring" 9 0xfffffffffffffe00 "$raw/ring_drain/$j-c" 1:512 3:1024 1:8
	"$gen" drain "$ring" 7 8 "$raw/ring_drain/$j-d" 0:0x408 0:0x800 0:0x7 0:0x400
	# The control page written by others (flags: 0x80 step back, 0x08
	# a consumer error, 0x20/0x40/0x60 consumer_pos overwritten; see
	# fuzz_ring_drain.c). A position followed ahead of the kernel's,
	# undone: back inside the last window after 1 error; before it
	# after 2 at once; before it after 1 (not followed), then 1 more.
	"$gen" drain "$ring" 9 0 "$raw/ring_drain/$j-e" 1:2048 0x89:1024 1:1024
	"$gen" drain "$ring" 9 0xfffffffffffffe00 "$raw/ring_drain/$j-f" \
		1:1024 1:1024 0x91:1536 1:512
	"$gen" drain "$ring" 9 0 "$raw/ring_drain/$j-g" 1:1024 1:1024 0x89:1536 0x89:1536
	# consumer_pos torn on an empty ring, ahead of the producer, at the
	# producer with a failing sink, torn with the producer behind.
	"$gen" drain "$ring" 9 0 "$raw/ring_drain/$j-h" 0x21:0 0x41:1024 0x63:2048 0xa0:64
done

echo "make-corpus: GET_INFO layouts"
"$gen" info 1 65536 "$raw/collect_info/cpu1-64k"
"$gen" info 2 4194304 "$raw/collect_info/cpu2-4m"
"$gen" info 64 268435456 "$raw/collect_info/cpu64-256m"
"$gen" info 65536 65536 "$raw/collect_info/cpu65536-64k"

echo "make-corpus: /proc status texts"
status() {
	printf 'Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%s\nNgid:\t0\nPid:\t%s\nPPid:\t1\n' \
		"$1" "$2" "$3" >"$raw/proc_status/$4"
}
status fxt-pingpong 1234 1235 plain
status 'kworker/u8:2-events_unbound' 77 77 kworker
status 'a\nb\\c' 9 9 escaped
status 'tab	inside' 10 11 tab
printf 'Name:\tx\n' >"$raw/proc_status/no-tgid"
printf 'Tgid:\t5\nName:\ty' >"$raw/proc_status/no-newline"

echo "make-corpus: fxt2json: fxt_sched's seeds (the same trace files)"
cp "$raw"/fxt_sched/* "$raw/fxt2json/"

echo "make-corpus: minimising (-merge=1)"
for t in $TARGETS; do
	rm -rf "${CORPUS:?}/${t:?}"
	mkdir -p "$CORPUS/$t"
	# shellcheck disable=SC2086 # MERGE_ARGS is a list of options
	"$BUILD/fuzz_$t" -merge=1 $MERGE_ARGS -close_fd_mask=3 "$CORPUS/$t" "$raw/$t" \
		2>"$BUILD/merge-$t.log" || { tail -n 20 "$BUILD/merge-$t.log"; exit 1; }
	echo "make-corpus: $t: $(find "$raw/$t" -type f | wc -l) seeds -> $(find "$CORPUS/$t" -type f | wc -l) files, $(du -sk "$CORPUS/$t" | cut -f1) KiB"
done
