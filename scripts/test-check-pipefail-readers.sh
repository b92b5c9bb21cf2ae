#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-check-pipefail-readers.sh -- scripts/check-pipefail-readers.sh
# flags a pipeline that ends in grep -q, -m, -l or head in a script that
# sets pipefail, and nothing else: one small script per case. First, that
# the SIGPIPE it guards against is real here: `sed | grep -q` on a 1 MB
# input (much more than a pipe holds), whose match is on the first line,
# fails under pipefail (sed is still writing when grep leaves) although
# grep found its line.
# Prints TAP (scripts/tap.sh); exit status 1 if a check failed.
# check-pipefail-readers: not this file (its fixtures, and the SIGPIPE shown)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
CHECK=$REPO/scripts/check-pipefail-readers.sh
TMP=$(mktemp -d /tmp/fxt-pipefail.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

tap_begin --version

{
	echo match
	for ((i = 0; i < 100000; i++)); do echo "line $i"; done
} >"$TMP/input"
fails=0
for ((i = 0; i < 20; i++)); do
	sed 's/^/x/' "$TMP/input" | grep -q xmatch || fails=$((fails + 1))
done
[[ $fails -gt 0 ]]
tap_ok $? "sed | grep -q under pipefail fails although grep found its line ($fails of 20 times, on a $(wc -c <"$TMP/input")-byte input)"

# case NAME WANT BODY: a script with BODY (after a set -uo pipefail line
# unless BODY sets its own); WANT 1 if the check must flag it, 0 if not.
case_() {
	local name=$1 want=$2 body=$3 rc
	if [[ $body == *'set '*pipefail* || $body == *'#nopipefail'* ]]; then
		printf '#!/bin/bash\n%s\n' "$body" >"$TMP/$name.sh"
	else
		printf '#!/bin/bash\nset -uo pipefail\n%s\n' "$body" >"$TMP/$name.sh"
	fi
	"$CHECK" "$TMP/$name.sh" >"$TMP/$name.out" 2>&1
	rc=$?
	if [[ $want -eq 1 ]]; then
		[[ $rc -eq 1 ]] && grep -q "^$TMP/$name.sh:[0-9]*: " "$TMP/$name.out"
		tap_ok $? "flagged: $name (exit $rc)" "$TMP/$name.out"
	else
		[[ $rc -eq 0 && ! -s $TMP/$name.out ]]
		tap_ok $? "not flagged: $name (exit $rc)" "$TMP/$name.out"
	fi
}

case_ "sed | grep -q" 1 "sed -n p f | grep -q x"
case_ "a pipeline continued on the next line" 1 "$(printf 'sed -n p f |\n\tgrep -q x')"
case_ "grep -qE (options together)" 1 "cat f | grep -qE 'x|y'"
case_ "grep -m1" 1 "x=\$(cat f | grep -m1 x)"
case_ "grep -l" 1 "cat f | grep -l x"
case_ "grep --quiet" 1 "cat f | grep --quiet x"
case_ "head -n 1" 1 "x=\$(sed -n p f | head -n 1)"
case_ "set -euo pipefail" 1 "$(printf 'set -euo pipefail\ncat f | head -5')"
case_ "no pipefail in the script" 0 "#nopipefail
sed -n p f | grep -q x"
case_ "grep -q on a file" 0 "grep -q x f"
case_ "grep -q on a here-string" 0 "grep -q x <<<\"\$v\""
case_ "|| grep -q (not a pipe)" 0 "false || grep -q x f"
case_ "a reader that reads all: sed -n 1p, grep -c" 0 "cat f | sed -n 1p; cat f | grep -c x"
case_ "a comment line" 0 "# sed f | grep -q x"
case_ "a here-document's body (another program's text)" 0 "$(printf "cat <<'EOF' >init\ndmesg | grep -q ready\nEOF\ntrue")"
case_ "a file that says 'check-pipefail-readers: not this file'" 0 "$(printf '# check-pipefail-readers: not this file (fixtures)\nsed f | grep -q x')"
case_ "after a here-document: checked again" 1 "$(printf "cat <<EOF >f\nx\nEOF\nsed f | grep -q x")"

"$CHECK" >/dev/null 2>&1
rc=$?
[[ $rc -eq 2 ]]
tap_ok $? "no SCRIPT: usage error, exit 2 (it exited $rc)"
tap_end
