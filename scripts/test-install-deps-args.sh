#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-install-deps-args.sh -- scripts/install-deps.sh's command line: a
# bad argument is named (it only printed the usage), exit 2, and nothing
# is looked up or installed; --help prints the usage, exit 0. dpkg-query,
# apt-get and id on PATH are stubs that note that they ran.
#
# Prints unnumbered TAP lines ("ok - ..."). Exit status 1 if a test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-deps-args.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"
for stub in dpkg-query apt-get id; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "$stub" "$TMP/started" >"$TMP/bin/$stub"
	chmod +x "$TMP/bin/$stub"
done
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered

# check NAME STATUS FILE LINE ARGS...: install-deps.sh ARGS exits STATUS,
# FILE (out or err) has the line LINE, nothing was started.
check() {
	local name=$1 want=$2 file=$3 line=$4 ok=0 rc
	shift 4
	rm -f "$TMP/started"
	PATH="$TMP/bin:$PATH" bash "$REPO/scripts/install-deps.sh" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[[ $rc -eq $want ]] && grep -qxF -- "$line" "$TMP/$file" && [[ ! -e $TMP/started ]] && ok=1
	tap_ok $((!ok)) "$name"
	((ok)) && return
	echo "#   exit $rc (wanted $want), wanted the line in $file: $line"
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
	[[ -e $TMP/started ]] && sed 's/^/#   started: /' "$TMP/started"
}

check "--bogus: exit 2, names it" 2 err "install-deps.sh: unknown argument '--bogus'" --bogus
check "--bogus: the usage follows" 2 err "Usage: install-deps.sh [--check] [-h|--help]" --bogus
check "a stray word after --check: exit 2, names it, nothing checked" 2 err \
	"install-deps.sh: unknown argument 'gcc'" --check gcc
check "--help: exit 0, the usage" 0 out "Usage: install-deps.sh [--check] [-h|--help]" --help
