#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_fxt_dump_oom.sh FXT_DUMP GEN_TRACE [FAIL_ALLOC_SO]
#
# fxt-dump --summary when its tables cannot grow: exit 1 (as --help says
# of "out of memory"), one line on stderr saying the totals are
# incomplete, and still the summary of what it could count. The failure
# comes from fail_alloc.so (every realloc() above FAIL_REALLOC_ABOVE
# bytes fails) on a 64-CPU trace written by tools' gen_trace: the
# per-CPU counts, 8 bytes a CPU, stop growing at CPU 32.
# Without FAIL_ALLOC_SO (the ASan build, whose allocator the shim cannot
# sit in front of) the test is skipped.
# Prints unnumbered TAP lines (tests/run_tests.sh numbers them).

DUMP=${1:?usage: $0 FXT_DUMP GEN_TRACE [FAIL_ALLOC_SO]}
GEN_TRACE=${2:?usage: $0 FXT_DUMP GEN_TRACE [FAIL_ALLOC_SO]}
SHIM=${3:-}
NAME="fxt-dump --summary out of memory"

if [ -z "$SHIM" ]; then
	echo "ok - $NAME # SKIP no allocation shim in front of ASan's allocator (tested in the plain build)"
	exit 0
fi

TMP=$(mktemp -d /tmp/fxt-oom.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=collector/tests/tap_lib.sh
. "$(dirname "$0")/tap_lib.sh"

# A fixed seed: the same records, so the same CPUs, every run.
if ! "$GEN_TRACE" -o "$TMP/t.fxt" -c 64 -t 100 -n 3000 --seed 1 \
	>"$TMP/gen" 2>&1; then
	fail "$NAME: gen_trace writes a 64-CPU trace" "$TMP/gen"
	exit 0
fi

# Without the shim: a clean summary, so a pass below is the shim's doing.
"$DUMP" --summary "$TMP/t.fxt" >"$TMP/full" 2>"$TMP/full-err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/full-err" ]; then
	ok "$NAME: without the shim, the same summary exits 0"
else
	echo "exit $rc" >"$TMP/why"
	fail "$NAME: without the shim, the same summary exits 0" "$TMP/why" "$TMP/full-err"
fi

LD_PRELOAD=$SHIM FAIL_REALLOC_ABOVE=256 "$DUMP" --summary "$TMP/t.fxt" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ]; then
	ok "$NAME: exit 1"
else
	echo "exit $rc, wanted 1" >"$TMP/why"
	fail "$NAME: exit 1" "$TMP/why" "$TMP/err"
fi
if [ "$(cat "$TMP/err")" = "fxt-dump: out of memory: the summary's totals are incomplete" ]; then
	ok "$NAME: stderr is the one line saying the totals are incomplete"
else
	fail "$NAME: stderr is the one line saying the totals are incomplete" "$TMP/err"
fi
# The record counts need no table: they match the clean run. The per-CPU
# lines end where the table stopped growing, and the summary says so.
if [ "$(head -2 "$TMP/out")" = "$(head -2 "$TMP/full")" ] &&
   [ "$(grep '^  cpu[0-9]*:' "$TMP/out" | tail -1 | cut -d: -f1)" = "  cpu31" ] &&
   grep -qx '  (out of memory: some totals are incomplete)' "$TMP/out"; then
	ok "$NAME: the summary is still printed, CPUs 0-31 and a note"
else
	fail "$NAME: the summary is still printed, CPUs 0-31 and a note" "$TMP/out"
fi

# The same when only the list of seen threads cannot be made (every
# malloc() above 512 bytes fails: the sorted list of the 100 traced tids
# is 808): the summary cannot count the unnamed threads, so it says so
# instead of printing 0, notes the incomplete totals, and exits 1.
LD_PRELOAD=$SHIM FAIL_MALLOC_ABOVE=512 "$DUMP" --summary "$TMP/t.fxt" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] &&
   grep -q '^  threads: .*, (out of memory: not counted) seen but unnamed;' "$TMP/out" &&
   grep -qx '  (out of memory: some totals are incomplete)' "$TMP/out" &&
   [ "$(cat "$TMP/err")" = "fxt-dump: out of memory: the summary's totals are incomplete" ] &&
   [ "$(grep -v '^  threads: ' "$TMP/out" | grep -v '^  (out of memory' | head -n 20)" = \
     "$(grep -v '^  threads: ' "$TMP/full" | head -n 20)" ]; then
	ok "$NAME, sorting the threads: exit 1, 'not counted' for the unnamed threads, the rest as without the shim"
else
	echo "exit $rc, wanted 1" >"$TMP/why"
	fail "$NAME, sorting the threads: exit 1, 'not counted' for the unnamed threads, the rest as without the shim" \
		"$TMP/why" "$TMP/out" "$TMP/err"
fi
