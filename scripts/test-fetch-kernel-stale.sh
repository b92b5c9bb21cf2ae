#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-fetch-kernel-stale.sh -- scripts/fetch-kernel.sh with stale package
# lists: apt names a kernel release the mirror no longer has (a security
# update replaced it), so its download fails. After 'apt-get update' the
# script must ask for the newest release again, not retry the stale one;
# unless FXTRACE_KERNEL_RELEASE chose the release, which it keeps.
#
# apt-get, apt-cache and id on PATH are stubs: apt-cache knows 6.1.0-56
# until the stub 'apt-get update' has run, and 6.1.0-57 as well after it;
# every 'apt-get download' fails and notes what it was asked for, so the
# script stops there, having shown which packages it wanted.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-fetch-stale.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"

cat >"$TMP/bin/apt-cache" <<STUB
#!/bin/sh
case \$1 in
pkgnames)
	echo linux-image-6.1.0-56-amd64
	[ -e "$TMP/updated" ] && echo linux-image-6.1.0-57-amd64
	;;
policy) printf '%s:\n  Installed: (none)\n  Candidate: 1.0\n' "\$2" ;;
show)
	rel=\${3#linux-headers-}
	echo "Package: \$3"
	echo "Depends: linux-headers-\${rel%-amd64}-common (= 1.0), linux-kbuild-6.1 (>= 1.0)"
	;;
esac
exit 0
STUB
cat >"$TMP/bin/apt-get" <<STUB
#!/bin/sh
case "\$*" in
*update*) touch "$TMP/updated" ;;
*download*) echo "\$*" >>"$TMP/downloads"; exit 100 ;;
esac
exit 0
STUB
printf '#!/bin/sh\necho 0\n' >"$TMP/bin/id"
chmod +x "$TMP/bin/apt-cache" "$TMP/bin/apt-get" "$TMP/bin/id"

# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered
# fetch [VAR=VALUE...]: fetch-kernel.sh 6.1 with the stubs and an empty
# cache; status in $rc, stderr in $TMP/err, the downloads asked for in
# $TMP/downloads.
fetch() {
	rm -rf "$TMP/cache" "$TMP/updated" "$TMP/downloads"
	(cd "$TMP" && env PATH="$TMP/bin:$PATH" FXTRACE_CACHE="$TMP/cache" "$@" \
		bash "$REPO/scripts/fetch-kernel.sh" 6.1 >/dev/null 2>"$TMP/err")
	rc=$?
}
result() {
	tap_ok "$1" "$2"
	[[ $1 -eq 0 ]] && return
	echo "#   exit $rc"
	sed 's/^/#   stderr: /' "$TMP/err" | head -20
	[[ -e $TMP/downloads ]] && sed 's/^/#   download: /' "$TMP/downloads"
}

fetch
[[ $rc -eq 1 && $(wc -l <"$TMP/downloads") -eq 2 ]] &&
	sed -n 1p "$TMP/downloads" | grep -q 'linux-image-6.1.0-56-amd64 linux-headers-6.1.0-56-amd64 ' &&
	sed -n 2p "$TMP/downloads" | grep -q 'linux-image-6.1.0-57-amd64 linux-headers-6.1.0-57-amd64 linux-headers-6.1.0-57-common linux-kbuild-6.1' &&
	grep -qF 'the package lists were stale: 6.1.0-57-amd64 replaces 6.1.0-56-amd64' "$TMP/err"
result $? "stale lists: after apt-get update the newest release (6.1.0-57) is downloaded, not the stale one again"

fetch FXTRACE_KERNEL_RELEASE=6.1.0-56-amd64
[[ $rc -eq 1 && $(wc -l <"$TMP/downloads") -eq 2 ]] &&
	sed -n 2p "$TMP/downloads" | grep -q 'linux-image-6.1.0-56-amd64 ' &&
	! grep -qF 'the package lists were stale' "$TMP/err" && grep -qF 'even after apt-get update' "$TMP/err"
result $? "FXTRACE_KERNEL_RELEASE keeps its release after apt-get update, and the failure says so"
tap_end
