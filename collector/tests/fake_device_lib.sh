# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=sh
# shellcheck disable=SC2034 # DUMP and rc are for the scripts that source this
#
# fake_device_lib.sh - what the tests of fxt-collect against
# fake_fxtrace.so share. A script run as SCRIPT FXT_COLLECT FXT_DUMP FAKE_SO
# sets FAKE_LIB_PREFIX and sources this file, which takes those arguments:
# it sets COLLECT, DUMP, FAKE, DEV and TMP (a directory removed at exit,
# /tmp/$FAKE_LIB_PREFIX.XXXXXX) and defines collect and wait_until; ok and
# fail come from tap_lib.sh.

COLLECT=${1:?usage: $0 FXT_COLLECT FXT_DUMP FAKE_SO}
DUMP=${2:?usage: $0 FXT_COLLECT FXT_DUMP FAKE_SO}
FAKE=${3:?usage: $0 FXT_COLLECT FXT_DUMP FAKE_SO}
DEV=/fake/fxtrace
TMP=$(mktemp -d "/tmp/$FAKE_LIB_PREFIX.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
# A sanitized fxt-collect loads libasan after the preload; tell it that is ok.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# shellcheck source=collector/tests/tap_lib.sh
. "$(dirname "$0")/tap_lib.sh"

# collect ARGS...: run fxt-collect with the fake device and ARGS; status in
# $rc, stderr in $TMP/err, stdout in $TMP/out.
collect() {
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" "$@" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# wait_until SECONDS COMMAND...: run COMMAND every 50 ms until it succeeds
# (0) or SECONDS have passed (1). The tests wait for what they need to see
# this way, not with a fixed sleep, which a loaded host (an ASan build, a
# host stealing half the CPU) loses.
wait_until() {
	_wait_left=$(($1 * 20))
	shift
	until "$@"; do
		[ "$_wait_left" -gt 0 ] || return 1
		sleep 0.05
		_wait_left=$((_wait_left - 1))
	done
}
