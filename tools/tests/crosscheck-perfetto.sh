#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# crosscheck-perfetto.sh [FILE.fxt]
#
# fxt-sched against Perfetto's trace_processor on FILE (any trace with
# context-switch and wakeup records, e.g. the VM's
# build/vm-out/6.1/out/sched.fxt). Without FILE, on a synthetic 4-CPU
# trace (interleaved per-CPU drains, idle, preemptions, cross-CPU wakeups,
# names at the end) generated into a temporary directory.
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
if [ -z "$FILE" ]; then
	tmp=$(mktemp -d /tmp/fxt-crosscheck.XXXXXX) || exit 1
	FILE=$tmp/synthetic.fxt
	"$BUILD/obj/tests/gen_trace" -o "$FILE" -c 4 -t 24 -n 30000 \
		--seed 7 --names-at-end --drops --spurious || exit 1
fi
"$REPO/scripts/perfetto/fetch-trace-processor.sh" >/dev/null || {
	echo "not ok 1 - cannot fetch Perfetto trace_processor"
	exit 1
}
node "$HERE/crosscheck-perfetto.mjs" "$BUILD/fxt-sched" "$FILE"
