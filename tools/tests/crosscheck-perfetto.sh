#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# crosscheck-perfetto.sh [FILE.fxt]
#
# fxt-sched against Perfetto's trace_processor on FILE (any trace with
# context-switch and wakeup records, e.g. the VM's
# build/vm-out/6.1/out/sched.fxt). Without FILE, on nine synthetic 4-CPU
# traces generated into a temporary directory (interleaved per-CPU drains,
# idle, preemptions, cross-CPU wakeups, wakeups of running threads, names
# at the end, wakeups before the first context switch, reused tids with
# kernel object records in the rings), then with records_lost holes, and
# with fxt-collect's bytes_skipped holes too, from several seeds each;
# three of them with threads created after the first hole (--births), and
# a fixture of a dead thread's tid switched out after a hole. Then
# fxt2json's JSON of the tid-reuse fixtures and of two --births traces, as
# Perfetto reads it, against fxt-sched (crosscheck-fxt2json.mjs).
# Uses $BUILD/fxt-sched (default: tools/) and fetches trace_processor with
# scripts/perfetto/fetch-trace-processor.sh (cached after the first time).
# Prints TAP; exit 0 only if both agree.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=$(cd "$HERE/.." && pwd)
REPO=$(cd "$TOOLS/.." && pwd)
BUILD=${BUILD:-$TOOLS}
FILE=${1:-}
tmp=
cleanup() { [ -n "$tmp" ] && rm -rf "$tmp"; }
trap cleanup EXIT
"$REPO/scripts/perfetto/fetch-trace-processor.sh" >/dev/null || {
	echo "not ok 1 - cannot fetch Perfetto trace_processor"
	exit 1
}
if [ -n "$FILE" ]; then
	node "$HERE/crosscheck-perfetto.mjs" "$BUILD/fxt-sched" "$FILE"
	exit
fi
tmp=$(mktemp -d /tmp/fxt-crosscheck.XXXXXX) || exit 1
rc=0
# synthetic SEED [EXTRA]: gen_trace's 4-CPU trace into $tmp/synthetic.fxt,
# said on stdout.
synthetic() {
	# shellcheck disable=SC2086
	"$BUILD/obj/tests/gen_trace" -o "$tmp/synthetic.fxt" -c 4 -t 24 \
		-n 30000 --seed "$1" --names-at-end --drops --spurious \
		--late-start --kernel-names $2 || exit 1
	echo "# synthetic trace: gen_trace ... --seed $1 --late-start --kernel-names$2"
}
# The hole rules (fxt-sched(1), INCOMPLETE TRACES) meet their corner cases
# only now and then: seed 7 alone agreed while seeds 2, 4, 5 did not, and
# seed 15 with births holds a dead thread's tid switched out by a new
# thread after a hole (Perfetto found a preemption fxt-sched lost).
for run in "7" "1 --losses --births" "2 --losses" "5 --losses" "7 --losses" \
	"2 --losses --skips" "4 --losses --skips --births" "7 --losses --skips" \
	"15 --losses --skips --births"; do
	synthetic "${run%% *}" "${run#"${run%% *}"}"
	node "$HERE/crosscheck-perfetto.mjs" "$BUILD/fxt-sched" "$tmp/synthetic.fxt" || rc=1
done
# fxt2json's JSON: the tid-reuse fixtures, then two traces with births.
"$BUILD/obj/tests/mk_fixture" "$tmp" || exit 1
# fxt-sched on the fixture of a dead thread's tid switched out.
echo "# fixture: reuse_switched_out.fxt (tools/tests/fixtures.h)"
node "$HERE/crosscheck-perfetto.mjs" "$BUILD/fxt-sched" \
	"$tmp/reuse_switched_out.fxt" || rc=1
for f in reuse reuse_unseen reuse_same_process dead_unnamed holes open_end \
	many_procs; do
	echo "# fxt2json: $f.fxt (tools/tests/fixtures.h)"
	node "$HERE/crosscheck-fxt2json.mjs" "$BUILD/fxt2json" "$BUILD/fxt-sched" \
		"$tmp/$f.fxt" || rc=1
done
for run in "1 --births" "4 --losses --skips --births"; do
	synthetic "${run%% *}" "${run#"${run%% *}"}"
	node "$HERE/crosscheck-fxt2json.mjs" "$BUILD/fxt2json" "$BUILD/fxt-sched" \
		"$tmp/synthetic.fxt" || rc=1
done
exit $rc
