#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-kernel-style.sh -- scripts/kernel-style.sh fails on kernel-doc
# errors, not only on the warnings kernel-doc's exit status counts: it
# runs on a copy of the tree's kernel files (kmod/, uapi/) as they are,
# and with a kernel-doc error or many warnings put into the copy's
# uapi/linux/fxtrace.h. kernel-doc -none -Werror exits 0 on "Cannot parse
# struct or union!" (with -none it never counts errors) and on 256
# warnings (its status is their count, mod 256).
#
# Uses the checkpatch.pl and kernel-doc kernel-style.sh keeps in
# $FXTRACE_CACHE/kernel-style (default: this tree's .cache), which
# kernel-style.sh fetches the first time (apt-get download).
#
# Prints TAP; scripts/run-tests.sh runs it as a host step. Exit status 1
# if a test failed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-kernel-style.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export FXTRACE_CACHE=${FXTRACE_CACHE:-$REPO/.cache}
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"

rc=0
# verdict NAME OK: one TAP line; on failure kernel-style.sh's output
# follows, nested.
verdict() {
	tap_ok $((!$2)) "$1"
	(($2)) && return
	echo "#   exit $rc"
	sed 's/^/#   /' "$TMP/out"
}
# copy: a fresh copy of the committed kernel files and kernel-style.sh
# in $TMP/tree.
copy() {
	rm -rf "$TMP/tree"
	mkdir -p "$TMP/tree"
	(cd "$REPO" && git ls-files -z kmod uapi scripts/kernel-style.sh | xargs -0 tar -c) |
		tar -x -C "$TMP/tree"
}
# inject TEXT PATTERN: TEXT into the copy's uapi/linux/fxtrace.h, before
# its include guard's #endif; fails unless PATTERN is then in it.
inject() {
	local h=$TMP/tree/uapi/linux/fxtrace.h
	awk -v text="$1" '/^#endif \/\* _UAPI_LINUX_FXTRACE_H \*\/$/ { print text; print "" } { print }' \
		"$h" >"$TMP/h"
	cp "$TMP/h" "$h"
	grep -q "$2" "$h"
}
# style: the copy's kernel-style.sh; status in $rc, output in $TMP/out.
style() {
	rc=0
	bash "$TMP/tree/scripts/kernel-style.sh" >"$TMP/out" 2>&1 || rc=$?
}

tap_begin --version

copy
style
ok=0
[[ $rc -eq 0 ]] && grep -qx 'checkpatch --strict and kernel-doc: kmod/ and uapi/ clean' "$TMP/out" && ok=1
verdict "the tree's kernel files: exit 0, 'clean'" "$ok"

# A kernel-doc comment above a forward declaration: kernel-doc prints
# "error: Cannot parse struct or union!" and exits 0.
copy
inject '/**
 * struct fxtrace_undoc - declared, not defined
 */
struct fxtrace_undoc;' 'struct fxtrace_undoc;'
style
ok=0
[[ $rc -eq 1 ]] && grep -q 'uapi/linux/fxtrace.h:[0-9]*: error: Cannot parse struct or union!' "$TMP/out" &&
	grep -q 'kernel-style.sh: kernel-doc on uapi/linux/fxtrace.h: exit 0, and the output above' "$TMP/out" &&
	! grep -q 'clean$' "$TMP/out" && ok=1
verdict "a kernel-doc comment on 'struct fxtrace_undoc;' (kernel-doc: error, exit 0): exit 1, the error shown" "$ok"

# 256 undocumented members: 256 warnings, kernel-doc -Werror exits 256 % 256 = 0.
members=$(for ((i = 0; i < 256; i++)); do printf '\t__u32 m%d;\n' "$i"; done)
copy
inject "/**
 * struct fxtrace_many - 256 members, none described
 */
struct fxtrace_many {
$members
};" 'm255;'
style
ok=0
[[ $rc -eq 1 ]] && [[ $(grep -c "warning: Function parameter or member 'm[0-9]*' not described in 'fxtrace_many'" "$TMP/out") -eq 256 ]] &&
	grep -q 'kernel-style.sh: kernel-doc on uapi/linux/fxtrace.h: exit 0, and the output above' "$TMP/out" && ok=1
verdict "a struct with 256 undescribed members (kernel-doc -Werror: 256 warnings, exit 0): exit 1, the warnings shown" "$ok"

tap_end
