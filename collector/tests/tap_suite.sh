# shellcheck shell=sh
# tap_suite.sh - sourced by collector/tests/run_tests.sh and
# tools/tests/run_tests.sh: run one TAP test program into $RESULTS.
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
