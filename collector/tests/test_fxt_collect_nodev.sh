#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_fxt_collect_nodev.sh FXT_COLLECT
#
# fxt-collect on a machine without the fxtrace module: every failure must
# be a clean exit with a message that names the step and what to do.
# Prints unnumbered TAP lines (tests/run_tests.sh numbers them).

COLLECT=${1:?usage: $0 FXT_COLLECT}
TMP=$(mktemp -d /tmp/fxt-nodev.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# check NAME EXPECTED_STATUS GREP_PATTERN -- ARGS...: run, compare, report.
check() {
	name=$1 want=$2 pattern=$3
	shift 4
	"$COLLECT" "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ] && grep -q -- "$pattern" "$TMP/err" "$TMP/out"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		echo "#   exit $got (wanted $want), output:"
		sed 's/^/#     /' "$TMP/err" "$TMP/out"
	fi
}

check "-D PATH missing: exit 1, says PATH does not exist" 1 \
	"$TMP/no-such-device does not exist: check -D; the module's device is /dev/fxtrace" -- \
	-D "$TMP/no-such-device" -o "$TMP/t.fxt"
if grep -q "insmod" "$TMP/err"; then
	echo "not ok - -D PATH missing: no advice to load the module"
	sed 's/^/#     /' "$TMP/err"
else
	echo "ok - -D PATH missing: no advice to load the module"
fi
check "device missing: the step is named" 1 "opening $TMP/no-such-device failed" -- \
	-D "$TMP/no-such-device" -o "$TMP/t.fxt"
if [ -e "$TMP/t.fxt" ]; then
	echo "not ok - device missing: no output file is created"
else
	echo "ok - device missing: no output file is created"
fi
check "-D naming a directory: exit 1, says to check -D" 1 \
	"check -D; the module's device is /dev/fxtrace" -- \
	-D "$TMP" -o "$TMP/t.fxt"
check "not an fxtrace device: GET_INFO fails cleanly" 1 "not an fxtrace device" -- \
	-D /dev/null -o "$TMP/t.fxt"
if [ -e /dev/fxtrace ]; then
	echo "ok - default device is /dev/fxtrace # SKIP the module is loaded here"
else
	check "default device is /dev/fxtrace" 1 "opening /dev/fxtrace failed" -- \
		-o "$TMP/t.fxt" -d 1
fi
# Empty names are usage errors (exit 2, before anything is opened), as -o ''
# is: not "opening  failed" (exit 1) or "running  failed" (exit 127).
check "-D '': usage error, exit 2, says to give the device's path" 2 \
	"^fxt-collect: -D needs the device's path (or leave it out: the default is /dev/fxtrace)$" -- \
	-D '' -o "$TMP/t.fxt"
check "-- '': usage error, exit 2, says to give the program to run" 2 \
	"^fxt-collect: COMMAND is an empty word: give the program to run (e.g. -- sleep 1), or leave it out to trace until Ctrl-C or -d$" -- \
	-D "$TMP/no-such-device" -o "$TMP/t.fxt" -- '' x
check "-o '': usage error, exit 2" 2 "^fxt-collect: -o needs a file name (or - for stdout)$" -- -o ''
check "bad -b: exit 2 with the accepted range" 2 "power of two from 64K to 256M" -- -b 100K
# 256M is the most: no G value is in range, so none is offered (was "K, M
# or G suffix" in --help and the not-a-size message); 1G gets the range.
check "--help: -b offers a K or M suffix, not G" 0 \
	"^                          digits with an optional K or M suffix, e.g. 32M$" -- --help
if "$COLLECT" --help | grep -q "M or G"; then
	echo "not ok - --help offers no G suffix"
	"$COLLECT" --help | grep "M or G" | sed 's/^/#     /'
else
	echo "ok - --help offers no G suffix"
fi
check "-b 4Q: exit 2, says K or M" 2 \
	"^fxt-collect: '4Q' is not a size: give digits with an optional K or M suffix, e.g. 4M$" -- -b 4Q
check "-b 1G: exit 2, says the range (to 256M)" 2 \
	"^fxt-collect: '1G': the per-CPU buffer size must be a power of two from 64K to 256M" -- -b 1G
check "bad -d: exit 2" 2 "more than 0 seconds" -- -d -3
check "-d over 366 days: exit 2, says the limit" 2 "longer than 366 days" -- -d 31622401
check "unknown option: exit 2" 2 "Try 'fxt-collect --help'" -- --frobnicate
# getopt's own errors: "fxt-collect:" first, as every other message, not
# the path it was run by; then where to look.
getopt_error() { # MESSAGE ARGS...: exit 2, stderr exactly MESSAGE and the hint
	msg=$1
	shift
	printf '%s\n' "$msg" "Try 'fxt-collect --help' for more information." >"$TMP/want"
	LC_ALL=C "$COLLECT" "$@" >/dev/null 2>"$TMP/err"
	got=$?
	if [ "$got" -eq 2 ] && diff "$TMP/want" "$TMP/err" >"$TMP/diff"; then
		echo "ok - fxt-collect $*: exit 2, says: $msg"
	else
		echo "not ok - fxt-collect $*: exit 2, says: $msg"
		echo "#   exit $got; diff expected actual:"
		sed 's/^/#     /' "$TMP/diff"
	fi
}
getopt_error "fxt-collect: unrecognized option '--frobnicate'" --frobnicate
getopt_error "fxt-collect: invalid option -- 'Z'" -Z
getopt_error "fxt-collect: option requires an argument -- 'o'" -o
getopt_error "fxt-collect: option '--duration' requires an argument" --duration
check "--help: exit 0 with EXAMPLES" 0 "EXAMPLES:" -- --help
check "--help documents the exit statuses" 0 "records were dropped" -- --help
# The release is the top-level VERSION file's (the Makefile passes it in).
release=$(cat "$(dirname "$0")/../../VERSION")
check "--version names the release ($release) and the ABI" 0 \
	"^fxt-collect $release (fxtrace ABI version [0-9][0-9]*)$" -- --version
# --help and --version to a full disk: not 0 with nothing printed; exit 1
# (a step failed) and the step named, as fxt-dump and fxt-sched do.
for a in --help --version -h -V; do
	if [ ! -w /dev/full ]; then
		echo "ok - fxt-collect $a >/dev/full # SKIP no writable /dev/full"
		continue
	fi
	"$COLLECT" $a >/dev/full 2>"$TMP/err"
	got=$?
	if [ "$got" -eq 1 ] &&
	   grep -qx "fxt-collect: writing to standard output failed: No space left on device" "$TMP/err"; then
		echo "ok - fxt-collect $a >/dev/full: exit 1, says writing failed and why"
	else
		echo "not ok - fxt-collect $a >/dev/full: exit 1, says writing failed and why"
		echo "#   exit $got, stderr:"
		sed 's/^/#     /' "$TMP/err"
	fi
done
# -o - on a terminal: a usage error (exit 2), before the device is opened
# (-D names none here). script(1) gives the command a terminal.
name="-o - with stdout a terminal: usage error, exit 2, says to redirect, device not opened"
if ! command -v script >/dev/null 2>&1; then
	echo "ok - $name # SKIP script(1) (util-linux) is not installed"
else
	script -qec "'$COLLECT' -D '$TMP/no-such-device' -o -; echo \"exit \$?\"" \
		/dev/null </dev/null >"$TMP/tty.txt" 2>&1
	if grep -q "^exit 2" "$TMP/tty.txt" &&
	   grep -q "fxt-collect: -o - would write a binary trace to the terminal: redirect it" "$TMP/tty.txt" &&
	   ! grep -q "no-such-device" "$TMP/tty.txt"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		sed 's/^/#     /' "$TMP/tty.txt"
	fi
fi
