# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=sh
#
# tap_lib.sh - the unnumbered TAP lines of the collector's shell tests
# (tests/run_tests.sh numbers them), sourced by each test script.

ok() { echo "ok - $*"; }
# fail NAME [FILE...]: a failed test, with the start of each FILE.
fail() {
	echo "not ok - $1"
	shift
	for f in "$@"; do
		[ -s "$f" ] && sed 's/^/#     /' "$f" | head -15
	done
}
