# shellcheck shell=sh
# tap_suite.sh - test-runner helpers sourced by collector/tests/run_tests.sh
# and tools/tests/run_tests.sh.
#
# suite PREFIX COMMAND [ARG...]: COMMAND's "ok - "/"not ok - " lines get
# PREFIX, anything else becomes a "# " comment. A program that fails without
# a failing test line (a crash), or reports no test at all, adds a failure.
# Needs $RESULTS (the accumulated TAP) and $OUT (scratch) set by the caller.
suite() {
	prefix=$1
	shift
	"$@" >"$OUT" 2>&1
	status=$?
	awk -v p="$prefix" '
		/^ok - /     { sub(/^ok - /, "ok - " p); print; next }
		/^not ok - / { sub(/^not ok - /, "not ok - " p); print; next }
		/^#/         { print; next }
		             { print "# " $0 }' "$OUT" >>"$RESULTS"
	if [ "$status" -ne 0 ] && ! grep -q "^not ok - " "$OUT"; then
		echo "not ok - $prefix${1##*/} exited with status $status without reporting a failing test (crash?)" >>"$RESULTS"
	fi
	if ! grep -q -e "^ok - " -e "^not ok - " "$OUT"; then
		echo "not ok - $prefix${1##*/} ran no tests" >>"$RESULTS"
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
