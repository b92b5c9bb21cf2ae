#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-apt-retry.sh -- scripts/apt-retry.sh's apt_get, with a stub apt-get:
# a failure because another apt or dpkg holds a lock (exit 100, "Could not
# get lock") is tried again until it passes or the wait is over; any other
# failure is returned at once, with apt-get's stderr passed on.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-apt-retry.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"
# The stub: its arguments to $TMP/calls; it fails as $TMP/script's line
# for its call says ("lock", "other", "1" or "ok"; "ok" past the end).
cat >"$TMP/bin/apt-get" <<STUB
#!/bin/sh
echo "\$*" >>"$TMP/calls"
n=\$(wc -l <"$TMP/calls")
case \$(sed -n "\${n}p" "$TMP/script") in
dpkg-lock) sleep "\${2#DPkg::Lock::Timeout=}"; echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 42 (dpkg)" >&2; exit 100 ;;
lock) echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 42 (apt-get)" >&2; exit 100 ;;
other) echo "E: Unable to locate package nosuch" >&2; exit 100 ;;
1) echo "E: something else" >&2; exit 1 ;;
esac
exit 0
STUB
chmod +x "$TMP/bin/apt-get"

# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered
# run SCRIPT...: apt_get update -q with the stub failing as SCRIPT says;
# its status in $rc, the stub's calls in $calls, stderr in $TMP/err.
run() {
	printf '%s\n' "$@" >"$TMP/script"
	: >"$TMP/calls"
	(
		# shellcheck source=scripts/apt-retry.sh
		. "$REPO/scripts/apt-retry.sh"
		PATH=$TMP/bin:$PATH apt_get update -q
	) 2>"$TMP/err"
	rc=$?
	calls=$(wc -l <"$TMP/calls")
}
result() {
	tap_ok "$1" "$2"
	[[ $1 -eq 0 ]] && return
	echo "#   exit $rc, $calls calls"
	sed 's/^/#   stderr: /' "$TMP/err"
}

export APT_RETRY_EVERY_S=1 APT_RETRY_FOR_S=3
run lock lock ok
[[ $rc -eq 0 && $calls -eq 3 ]] && [[ $(grep -c '^apt-retry: another apt or dpkg holds a lock; trying again in 1 s' "$TMP/err") -eq 2 ]] &&
	[[ $(grep -c 'Could not get lock' "$TMP/err") -eq 2 ]] &&
	grep -qx -- '-o DPkg::Lock::Timeout=3 update -q' "$TMP/calls" &&
	! grep -qv -- '^-o DPkg::Lock::Timeout=[0-3] update -q$' "$TMP/calls"
result $? "a lock held twice, then free: tried 3 times, exit 0, each wait said, apt-get's errors passed on, dpkg's lock waited for within what is left"
t0=$SECONDS
run lock lock lock lock lock lock
[[ $rc -eq 100 && $calls -ge 3 && $calls -le 4 && $((SECONDS - t0)) -le 4 ]]
result $? "a lock held for longer than APT_RETRY_FOR_S (3 s, every 1 s): given up within it ($((SECONDS - t0)) s, $calls tries), exit 100"
# dpkg's lock held throughout: each try waits DPkg::Lock::Timeout itself,
# which must be what is left of the 3 s, not 3 s again each time.
t0=$SECONDS
run dpkg-lock dpkg-lock dpkg-lock dpkg-lock dpkg-lock
[[ $rc -eq 100 && $((SECONDS - t0)) -le 5 ]]
result $? "dpkg's lock held throughout: given up after the 3 s in all ($((SECONDS - t0)) s, $calls tries), not 3 s a try"
run other
[[ $rc -eq 100 && $calls -eq 1 ]] && grep -q 'Unable to locate package' "$TMP/err" && ! grep -q '^apt-retry' "$TMP/err"
result $? "exit 100 for another reason: not tried again, exit 100, apt-get's error passed on"
run 1
[[ $rc -eq 1 && $calls -eq 1 ]]
result $? "exit 1: not tried again, exit 1"
run ok
[[ $rc -eq 0 && $calls -eq 1 && ! -s $TMP/err ]]
result $? "success: one call, exit 0, nothing on stderr"
tap_end
