#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run_tests.sh - tools/ host tests as one TAP stream (called by make check
# with BUILD, ASAN_BUILD, SRCDIR, MAKE, and FAIL_ALLOC: the collector's
# fail_alloc.so). Test programs print unnumbered
# "ok - ..." lines; this numbers them and ends with "N passed, N failed".
set -u
: "${BUILD:?}" "${ASAN_BUILD:?}" "${SRCDIR:?}" "${MAKE:=make}"
T=$SRCDIR/tests
RESULTS=$(mktemp /tmp/fxt-sched-tap.XXXXXX) || exit 1
OUT=$(mktemp /tmp/fxt-sched-out.XXXXXX) || exit 1
trap 'rm -f "$RESULTS" "$OUT"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

. "$SRCDIR/../collector/tests/tap_suite.sh"

valgrind_run() {
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "ok - valgrind # SKIP valgrind is not installed"
		return 0
	fi
	tmp=$(mktemp -d /tmp/fxt-sched-vg.XXXXXX) || return 1
	if ! "$BUILD/obj/tests/gen_trace" -o "$tmp/t.fxt" -c 3 -t 10 -n 3000 \
		--names-at-end --drops --spurious --kernel-names --losses \
		--late-start >"$tmp/log" 2>&1 || [ ! -s "$tmp/t.fxt" ]; then
		echo "not ok - valgrind: gen_trace writes the trace the programs run on"
		sed 's/^/#   /' "$tmp/log" | head -20
		rm -rf "$tmp"
		return 0
	fi
	head -c 9000 "$tmp/t.fxt" >"$tmp/cut.fxt"
	vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
	# vg_verdict NAME FILE STATUS: the whole trace (t) must be read with
	# exit 0; the cut one may be refused, but not with a valgrind error.
	vg_verdict() {
		if [ "$3" -eq 99 ] || grep -q "==[0-9]*==" "$tmp/log" ||
		   { [ "$2" = t ] && [ "$3" -ne 0 ]; }; then
			echo "not ok - valgrind $1 $2.fxt (exit $3)"
			sed 's/^/#   /' "$tmp/log" | head -20
		else
			if [ "$3" -eq 0 ]; then
				echo "ok - valgrind $1 $2.fxt: no errors, no leaks"
			else
				echo "ok - valgrind $1 $2.fxt: refused (exit $3), no errors, no leaks"
			fi
		fi
	}
	for f in t cut; do
		for args in "latency -P --json" "latency -T" "top -n 5" "summary --csv" \
			    "latency --intervals --pid 1000 --json"; do
			# shellcheck disable=SC2086
			$vg "$BUILD/fxt-sched" $args "$tmp/$f.fxt" >/dev/null 2>"$tmp/log"
			vg_verdict "fxt-sched $args" "$f" $?
		done
		$vg "$BUILD/fxt2json" "$tmp/$f.fxt" >/dev/null 2>"$tmp/log"
		vg_verdict fxt2json "$f" $?
	done
	# from a pipe (read into a buffer): whole, and empty (refused)
	cat "$tmp/t.fxt" | $vg "$BUILD/fxt-sched" summary - >/dev/null 2>"$tmp/log"
	vg_verdict "fxt-sched summary - <pipe" t $?
	: >"$tmp/empty.fxt"
	cat "$tmp/empty.fxt" | $vg "$BUILD/fxt-sched" summary - >/dev/null 2>"$tmp/log"
	vg_verdict "fxt-sched summary - <pipe" empty $?
	$vg "$BUILD/obj/tests/test_fxt_sched" >"$tmp/out" 2>"$tmp/log"
	rc=$?
	if [ "$rc" -ne 0 ] || grep -q "==[0-9]*==" "$tmp/log" || grep -q "^not ok" "$tmp/out"; then
		echo "not ok - valgrind test_fxt_sched (exit $rc)"
		sed 's/^/#   /' "$tmp/log" | head -20
	else
		echo "ok - valgrind test_fxt_sched (unit tests): no errors, no leaks"
	fi
	rm -rf "$tmp"
}


suite "" "$BUILD/obj/tests/test_fxt_sched"
suite "" sh "$T/test_cli.sh" "$BUILD"
suite "asan+ubsan: " "$ASAN_BUILD/obj/tests/test_fxt_sched"
suite "asan+ubsan: " sh "$T/test_cli.sh" "$ASAN_BUILD"
suite "" valgrind_run
suite "" clang_build

total=$(grep -c -e "^ok " -e "^not ok " "$RESULTS")
failed=$(grep -c "^not ok " "$RESULTS")
echo "TAP version 13"
echo "1..$total"
awk '/^ok - /     { n++; sub(/^ok -/, "ok " n " -") }
     /^not ok - / { n++; sub(/^not ok -/, "not ok " n " -") }
     { print }' "$RESULTS"
echo "$((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
