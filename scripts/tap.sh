# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# tap.sh -- the TAP bookkeeping of the host tests scripts/test-*.sh, sourced
# by them so that the ok/not ok lines, the count, the plan and the exit
# status are written once. What a test prints about a failure stays in the
# test. Safe under set -euo pipefail: no function returns non-zero, except
# tap_end for a failed test.
#
# tap_begin [--version] [--unnumbered]: start counting; --version prints
#   "TAP version 13" first; --unnumbered writes "ok - NAME" lines and no
#   plan (collector/tests/tap_suite.sh numbers them).
# tap_ok STATUS NAME [LOG]: "ok" if STATUS is 0, else "not ok" and LOG's
#   last 25 lines, nested.
# tap_skip NAME REASON: "ok ... # SKIP REASON".
# tap_diag TEXT: a "# TEXT" line.
# tap_end: the plan and "# P passed, F failed" (numbered only); returns 1
#   if a test failed.

tap_n=0 tap_failed=0 tap_numbered=1

tap_begin() {
	tap_n=0 tap_failed=0 tap_numbered=1
	while [[ $# -gt 0 ]]; do
		case $1 in
		--version) echo "TAP version 13" ;;
		--unnumbered) tap_numbered=0 ;;
		*) echo "tap_begin: unknown option '$1'" >&2; return 2 ;;
		esac
		shift
	done
}

# _tap_line OK|"not ok" NAME: one line, numbered or not.
_tap_line() {
	tap_n=$((tap_n + 1))
	if ((tap_numbered)); then
		echo "$1 $tap_n - $2"
	else
		echo "$1 - $2"
	fi
}

tap_ok() {
	if [[ $1 -eq 0 ]]; then
		_tap_line ok "$2"
		return 0
	fi
	tap_failed=$((tap_failed + 1))
	_tap_line "not ok" "$2"
	if [[ -n ${3:-} && -r $3 ]]; then
		tail -n 25 "$3" | sed 's/^/#   /'
	fi
	return 0
}

tap_skip() {
	_tap_line ok "$1 # SKIP $2"
}

tap_diag() {
	echo "# $1"
}

tap_end() {
	if ((tap_numbered)); then
		echo "1..$tap_n"
		echo "# $((tap_n - tap_failed)) passed, $tap_failed failed"
	fi
	[[ $tap_failed -eq 0 ]]
}
