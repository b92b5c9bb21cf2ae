# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# apt-retry.sh -- apt_get ARGS...: apt-get ARGS..., waiting while another
# apt or dpkg holds one of apt's locks. Sourced by install-deps.sh,
# fetch-kernel.sh and kernel-style.sh.
#
# A freshly booted machine may be running apt-daily or unattended-upgrades.
# DPkg::Lock::Timeout waits for dpkg's lock only: apt-get update (the lists'
# lock) and downloads (the archives' lock) fail at once with exit 100,
# "Could not get lock". So such a failure is retried every
# APT_RETRY_EVERY_S (5) seconds until APT_RETRY_FOR_S (300) have passed
# since the first try, dpkg's own wait included; any other failure is
# returned as it is. apt-get's stderr is passed on. LC_ALL=C: the message
# is matched in English.

APT_RETRY_EVERY_S=${APT_RETRY_EVERY_S:-5}
APT_RETRY_FOR_S=${APT_RETRY_FOR_S:-300}
# A wait of 0 would never end.
((APT_RETRY_EVERY_S >= 1)) 2>/dev/null || APT_RETRY_EVERY_S=1

apt_get() {
	local err rc left end=$((SECONDS + APT_RETRY_FOR_S))
	err=$(mktemp "${TMPDIR:-/tmp}/fxtrace-apt.XXXXXX") || return 1
	while :; do
		left=$((end - SECONDS))
		((left > 0)) || left=0
		LC_ALL=C apt-get -o DPkg::Lock::Timeout="$left" "$@" 2>"$err"
		rc=$?
		cat "$err" >&2
		left=$((end - SECONDS))
		if [[ $rc -ne 100 ]] || ! grep -q 'Could not get lock' "$err" ||
			((left < APT_RETRY_EVERY_S)); then
			break
		fi
		echo "apt-retry: another apt or dpkg holds a lock; trying again in $APT_RETRY_EVERY_S s (for at most $left s more)" >&2
		sleep "$APT_RETRY_EVERY_S"
	done
	rm -f "$err"
	return "$rc"
}
