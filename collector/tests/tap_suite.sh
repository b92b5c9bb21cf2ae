# shellcheck shell=sh
# tap_suite.sh - test-runner helpers sourced by collector/tests/run_tests.sh
# and tools/tests/run_tests.sh.
#
# suite PREFIX COMMAND [ARG...]: COMMAND's "ok - "/"not ok - " lines get
# PREFIX, anything else becomes a "# " comment. A program that fails without
# a failing test line (a crash), or reports no test at all, adds a failure.
# Needs $RESULTS (the accumulated TAP) and $OUT (scratch) set by the caller.
# timed_suite: the same with a time limit.
suite() {
	prefix=$1
	shift
	"$@" >"$OUT" 2>&1
	status=$?
	suite_report "$prefix" "$status" "${1##*/}" ""
}

# timed_suite PREFIX COMMAND [ARG...]: suite() with a time limit of
# $SUITE_TIMEOUT seconds (the caller sets it, and names in
# $SUITE_TIMEOUT_VAR the variable a user sets it with). A COMMAND still
# running then gets SIGTERM (and its process group too), SIGKILL 10 s
# later, and one failure naming it instead of a hung test run; what it
# printed until then is kept as diagnostics.
timed_suite() {
	prefix=$1
	shift
	started=$(date +%s)
	timeout -k 10 "$SUITE_TIMEOUT" "$@" >"$OUT" 2>&1
	status=$?
	# 124: timed out; 137 (SIGKILL) after the limit: timed out and
	# killed, the 10 s after SIGTERM past too.
	late=""
	if [ "$status" -eq 124 ] ||
	   { [ "$status" -eq 137 ] &&
	     [ $(($(date +%s) - started)) -ge "$SUITE_TIMEOUT" ]; }; then
		late=yes
	fi
	suite_report "$prefix" "$status" "${1##*/}" "$late"
}

# suite_report PREFIX STATUS NAME LATE: $OUT's lines into $RESULTS, and a
# failure of its own for a program that ran out of time (LATE not empty),
# crashed, or reported no test.
suite_report() {
	awk -v p="$1" '
		/^ok - /     { sub(/^ok - /, "ok - " p); print; next }
		/^not ok - / { sub(/^not ok - /, "not ok - " p); print; next }
		/^#/         { print; next }
		             { print "# " $0 }' "$OUT" >>"$RESULTS"
	if [ -n "$4" ]; then
		echo "not ok - $1$3 did not end within $SUITE_TIMEOUT s and was killed (a test that never ends? run it alone to see which; on a slow machine, raise ${SUITE_TIMEOUT_VAR:-the limit})" >>"$RESULTS"
		return
	fi
	if [ "$2" -ne 0 ] && ! grep -q "^not ok - " "$OUT"; then
		echo "not ok - $1$3 exited with status $2 without reporting a failing test (crash?)" >>"$RESULTS"
	fi
	if ! grep -q -e "^ok - " -e "^not ok - " "$OUT"; then
		echo "not ok - $1$3 ran no tests" >>"$RESULTS"
	fi
}

# clang_build: the same sources must build warning-free with clang -Werror.
# Needs $MAKE, $SRCDIR (the Makefile's directory) and $BUILD from the caller,
# and a tests-build target in that Makefile.
clang_build() {
	if ! command -v clang >/dev/null 2>&1; then
		echo "ok - clang build is warning-free # SKIP clang is not installed"
		return 0
	fi
	if $MAKE -s --no-print-directory -C "$SRCDIR" BUILDDIR="$BUILD/clang" \
		CC=clang LDFLAGS= tests-build; then
		echo "ok - clang build (-Wall -Wextra -Werror) is warning-free"
	else
		echo "not ok - clang build (-Wall -Wextra -Werror) is warning-free"
	fi
}
