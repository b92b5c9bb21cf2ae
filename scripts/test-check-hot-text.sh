#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-check-hot-text.sh -- scripts/check-hot-text.sh's command line, and
# its verdict on objects built here (cc -c, no kernel needed) that stand in
# for fxtrace.ko: --help explains the usage (exit 0; it was taken for a
# module's name: "cannot read --help", exit 2), a bad option or a second
# argument is named (exit 2), the hot functions in the first text page
# pass (exit 0), one pushed past it or into .text.unlikely fails (exit 1).
#
# Prints unnumbered TAP lines ("ok - ..."). Exit status 1 if a test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-hot-text.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered

# run ARGS...: the script; status in $rc, stdout in $TMP/out, stderr in $TMP/err.
run() {
	bash "$REPO/scripts/check-hot-text.sh" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
# check NAME STATUS FILE PATTERN: exit STATUS and a line of FILE matching
# the fixed string PATTERN.
check() {
	local ok=0
	[[ $rc -eq $2 ]] && grep -qF -- "$4" "$3" && ok=1
	tap_ok $((!ok)) "$1"
	((ok)) && return
	echo "#   exit $rc (wanted $2), wanted in ${3##*/}: $4"
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
}

for h in --help -h; do
	run "$h"
	check "$h: exit 0, the usage" 0 "$TMP/out" "Usage: check-hot-text.sh [MODULE.ko]"
	check "$h: says what is checked and the exit statuses" 0 "$TMP/out" \
		"Exit status: 0 all in the first page, 1 not (or a function missing),"
	if [[ -s $TMP/err ]]; then
		tap_ok 1 "$h: nothing on stderr" "$TMP/err"
	else
		tap_ok 0 "$h: nothing on stderr"
	fi
done
run --bogus
check "--bogus: exit 2, names it" 2 "$TMP/err" "check-hot-text.sh: unknown option '--bogus'"
check "--bogus: says where to look" 2 "$TMP/err" "Try 'check-hot-text.sh --help' for more information."
run a.ko b.ko
check "two modules: exit 2, names them" 2 "$TMP/err" "check-hot-text.sh: one MODULE.ko at most, got 2: a.ko b.ko"
run "$TMP/none.ko"
check "a module that is not there: exit 2, says to build it" 2 "$TMP/err" \
	"check-hot-text.sh: cannot read $TMP/none.ko (build the module first: make modules)"

# Objects with the hot functions: first in .text, then one behind 8 KiB of
# code, then one in .text.unlikely (where __cold sends a function).
if ! command -v cc >/dev/null || ! command -v objdump >/dev/null; then
	tap_skip "the verdict on built objects" "no cc or objdump"
	exit 0
fi
hot="fxtrace_probe_sched_switch fxtrace_probe_sched_waking fxtrace_probe_sched_wakeup fxtrace_probe_sched_wakeup_new fxtrace_write_wakeup"
# obj NAME PREFIX LAST: an object whose functions are the hot ones, LAST
# declared with PREFIX (an attribute), and 8 KiB of code before LAST when
# PREFIX is "big".
obj() {
	local f
	{
		for f in $hot; do
			[[ $f == "$3" ]] && continue
			echo "int $f(int x); int $f(int x) { return x + 1; }"
		done
		if [[ $2 == big ]]; then
			echo "int pad(int x); int pad(int x) { __asm__ volatile(\".fill 8192, 1, 0x90\"); return x; }"
			echo "int $3(int x); int $3(int x) { return x + 2; }"
		else
			echo "$2 int $3(int x); int $3(int x) { return x + 2; }"
		fi
	} >"$TMP/$1.c"
	cc -O2 -fno-reorder-functions -c -o "$TMP/$1.ko" "$TMP/$1.c"
}
obj good "" fxtrace_write_wakeup
run "$TMP/good.ko"
check "the hot functions in the first page: exit 0" 0 "$TMP/out" \
	"all 5 hot probe functions lie in the first text page of $TMP/good.ko"
obj far big fxtrace_write_wakeup
run "$TMP/far.ko"
check "one past the first page: exit 1, named" 1 "$TMP/out" \
	"fxtrace_write_wakeup: ends at text offset"
obj cold '__attribute__((section(".text.unlikely")))' fxtrace_probe_sched_waking
run "$TMP/cold.ko"
check "one in .text.unlikely: exit 1, named" 1 "$TMP/out" \
	"fxtrace_probe_sched_waking: in section .text.unlikely, not .text"
