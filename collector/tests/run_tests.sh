#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run_tests.sh all|asan - run the collector's host tests as one TAP stream.
#
# Called by `make check` / `make check-asan` with BUILD, ASAN_BUILD, SRCDIR,
# GEN_TRACE (tools' trace generator) and MAKE in the environment. Each test
# program prints unnumbered "ok - ..." / "not ok - ..." lines; this script
# numbers them, turns every other line into a "# " diagnostic, reports a
# program that crashed or failed without saying so as a failure of its
# own, prints the plan, and ends with the plain line "N passed, N failed".
# Exit status 1 if any failed.
#
# Each C unit test program runs with a time limit: UNIT_TIMEOUT seconds
# (300 by default, far above the fraction of a second they take, under
# ASan too), so that one that never ends (a loop that does not, as a
# mutant of ring_drain.c's made) is reported as a failure naming it, and
# the other suites still run (timed_suite in tap_suite.sh).
#
# Modes: all (make check), asan (make check-asan), units (only the C unit
# test programs of $BUILD, with their time limit: test_unit_timeout.sh runs
# it on stand-ins).

set -u
: "${BUILD:?}" "${ASAN_BUILD:?}" "${SRCDIR:?}" "${GEN_TRACE:?}" "${MAKE:=make}"
MODE=${1:-all}
T=$SRCDIR/tests
RESULTS=$(mktemp /tmp/fxt-tap.XXXXXX) || exit 1
OUT=$(mktemp /tmp/fxt-out.XXXXXX) || exit 1
trap 'rm -f "$RESULTS" "$OUT"' EXIT

# Sanitizer runs stop at the first problem and say where.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

SUITE_TIMEOUT=${UNIT_TIMEOUT:-300}
SUITE_TIMEOUT_VAR=UNIT_TIMEOUT
case $SUITE_TIMEOUT in
''|0*|*[!0-9]*)
	echo "$0: UNIT_TIMEOUT=$SUITE_TIMEOUT: give the unit test programs' time limit as a whole number of seconds, 1 or more (default 300)" >&2
	exit 2
	;;
esac
# shellcheck source-path=SCRIPTDIR source=tap_suite.sh
. "$T/tap_suite.sh"

# unit_programs PREFIX BUILDDIR: the C unit test programs of one build,
# each under the time limit.
unit_programs() {
	prefix=$1 b=$2
	timed_suite "$prefix" "$b/obj/tests/test_fxt_roundtrip"
	timed_suite "$prefix" "$b/obj/tests/test_ring_drain"
	timed_suite "$prefix" "$b/obj/tests/test_name_order"
	timed_suite "$prefix" "$b/obj/tests/test_collector_parts"
	rm -rf "$b/obj/tests/corpus"
	timed_suite "$prefix" "$b/obj/tests/test_fxt_malformed" "$b/fxt-dump" \
		"$b/obj/tests/corpus" "$(cat "$SRCDIR/../VERSION")"
}

# unit_suites PREFIX BUILDDIR: the C test programs of one build, and the
# shell suites that drive its fxt-collect and fxt-dump.
unit_suites() {
	prefix=$1 b=$2
	unit_programs "$prefix" "$b"
	suite "$prefix" sh "$T/test_fxt_collect_nodev.sh" "$b/fxt-collect"
	# ASan's allocator must serve every allocation: no realloc() shim in
	# front of it, so there the script only reports a skip.
	if [ "$b" = "$ASAN_BUILD" ]; then
		suite "$prefix" sh "$T/test_fxt_dump_oom.sh" "$b/fxt-dump" "$GEN_TRACE"
	else
		suite "$prefix" sh "$T/test_fxt_dump_oom.sh" "$b/fxt-dump" "$GEN_TRACE" \
			"$b/obj/tests/fail_alloc.so"
	fi
	suite "$prefix" sh "$T/test_fxt_collect_fake.sh" "$b/fxt-collect" \
		"$b/fxt-dump" "$b/obj/tests/fake_fxtrace.so"
	suite "$prefix" sh "$T/test_fxt_collect_keep.sh" "$b/fxt-collect" \
		"$b/fxt-dump" "$b/obj/tests/fake_fxtrace.so"
	suite "$prefix" sh "$T/test_fxt_collect_stop.sh" "$b/fxt-collect" \
		"$b/fxt-dump" "$b/obj/tests/fake_fxtrace.so"
}


case $MODE in
all)
	unit_suites "" "$BUILD"
	unit_suites "asan+ubsan: " "$ASAN_BUILD"
	suite "" sh "$T/test_valgrind.sh" "$BUILD/fxt-dump" "$BUILD/obj/tests/corpus" \
		"$BUILD/fxt-collect" "$BUILD/obj/tests/fake_fxtrace.so"
	suite "" clang_build
	# The unit programs' time limit, on stand-ins that hang or fail.
	suite "" sh "$T/test_unit_timeout.sh" "$T/run_tests.sh"
	# Scripts of the tree, not of a build: their arguments, without a VM.
	suite "" bash "$SRCDIR/../scripts/test-trace-in-vm-args.sh"
	suite "" bash "$SRCDIR/../scripts/test-fetch-kernel-args.sh"
	suite "" bash "$SRCDIR/../scripts/test-fetch-kernel-stale.sh"
	suite "" bash "$SRCDIR/../scripts/test-check-hot-text.sh"
	suite "" bash "$SRCDIR/../scripts/test-install-deps-args.sh"
	# apt-get tried again while another apt holds a lock, stubbed.
	suite "" bash "$SRCDIR/../scripts/test-apt-retry.sh"
	# Perfetto's engine fetch: the node version check, stubbed.
	suite "" bash "$SRCDIR/../scripts/test-fetch-trace-processor.sh"
	# The VM selftests' kernel-log scan, on canned logs.
	suite "" bash "$SRCDIR/../scripts/test-kmsg-scan.sh"
	# Its vhost_names step: when it skips and when it fails, stubbed.
	suite "" bash "$SRCDIR/../scripts/test-vhost-step.sh"
	# Its runner's step() and unload step, in busybox sh, stubbed.
	suite "" bash "$SRCDIR/../scripts/test-vm-steps.sh"
	;;
asan)
	unit_suites "asan+ubsan: " "$ASAN_BUILD"
	;;
units)
	unit_programs "" "$BUILD"
	;;
*)
	echo "usage: $0 all|asan|units" >&2
	exit 2
	;;
esac

total=$(grep -c -e "^ok " -e "^not ok " "$RESULTS")
failed=$(grep -c "^not ok " "$RESULTS")
echo "TAP version 13"
echo "1..$total"
awk '/^ok - /     { n++; sub(/^ok -/, "ok " n " -") }
     /^not ok - / { n++; sub(/^not ok -/, "not ok " n " -") }
     { print }' "$RESULTS"
echo "$((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
