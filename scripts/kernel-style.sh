#!/usr/bin/env bash
# kernel-style.sh -- the kernel's own style checks on the module and the uapi
# header: checkpatch.pl --strict, and kernel-doc (every /** comment must
# describe each parameter and member of what it documents).
#
# Debian's kernel headers packages lack both scripts; the linux-source-6.1
# package has them. This fetches that package once (apt-get download, no
# install), keeps only the two scripts and checkpatch's two data files in
# the cache, and runs them on every kernel file of the tree. Exit status: 0
# when both are clean, 1 otherwise.
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${FXTRACE_CACHE:-$REPO/.cache}/kernel-style

case ${1:-} in
-h | --help)
	echo "Usage: $prog    (checkpatch --strict and kernel-doc on kmod/*.[ch] and uapi/linux/fxtrace.h)"
	exit 0
	;;
esac

if [ ! -x "$CACHE/scripts/checkpatch.pl" ] || [ ! -x "$CACHE/scripts/kernel-doc" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	echo "$prog: fetching checkpatch.pl and kernel-doc from Debian's linux-source-6.1" >&2
	# shellcheck source=scripts/apt-retry.sh
	. "$REPO/scripts/apt-retry.sh"
	(cd "$tmp" && apt_get download linux-source-6.1 >/dev/null 2>&1) || {
		apt_get update >/dev/null
		(cd "$tmp" && apt_get download linux-source-6.1 >/dev/null)
	} || { echo "$prog: cannot download linux-source-6.1 with apt-get" >&2; exit 1; }
	dpkg -x "$tmp"/linux-source-6.1_*.deb "$tmp/x"
	mkdir -p "$CACHE"
	tar -C "$CACHE" --strip-components=1 -xf "$tmp"/x/usr/src/linux-source-6.1.tar.xz \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/kernel-doc \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi

cd "$REPO"
status=0
for f in kmod/*.c kmod/*.h uapi/linux/fxtrace.h; do
	case $f in *.mod.c) continue ;; esac
	"$CACHE/scripts/checkpatch.pl" --no-tree --strict --quiet --show-types -f "$f" || status=1
	# Its exit status is not enough: with -none it exits 0 after an
	# error ("Cannot parse struct or union!", "Cannot open file"), and
	# with -Werror it is the warning count, which wraps at 256. On a
	# clean file it prints nothing: any output fails the file.
	rc=0
	out=$("$CACHE/scripts/kernel-doc" -none -Werror "$f" 2>&1) || rc=$?
	if [ -n "$out" ] || [ $rc -ne 0 ]; then
		[ -n "$out" ] && printf '%s\n' "$out"
		echo "$prog: kernel-doc on $f: exit $rc${out:+, and the output above}" >&2
		status=1
	fi
done
if [ $status -eq 0 ]; then
	echo "checkpatch --strict and kernel-doc: kmod/ and uapi/ clean"
fi
exit $status
