#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# crosscheck-perfetto.sh [FILE.fxt]
#
# fxt-sched against Perfetto's trace_processor on FILE (any trace with
# context-switch and wakeup records, e.g. the VM's
# build/vm-out/6.1/out/sched.fxt). Without FILE, on two synthetic 4-CPU
# traces generated into a temporary directory (interleaved per-CPU drains,
# idle, preemptions, cross-CPU wakeups, wakeups of running threads, names
# at the end, wakeups before the first context switch, reused tids with
# kernel object records in the rings), the second with records_lost holes.
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
for extra in "" "--losses"; do
	# shellcheck disable=SC2086
	"$BUILD/obj/tests/gen_trace" -o "$tmp/synthetic.fxt" -c 4 -t 24 \
		-n 30000 --seed 7 --names-at-end --drops --spurious \
		--late-start --kernel-names $extra || exit 1
	echo "# synthetic trace: gen_trace ... --late-start --kernel-names $extra"
	node "$HERE/crosscheck-perfetto.mjs" "$BUILD/fxt-sched" "$tmp/synthetic.fxt" || rc=1
done
exit $rc
