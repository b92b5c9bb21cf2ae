#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-pipefail-readers.sh SCRIPT... -- in a shell script that sets
# pipefail, no pipeline may end in a reader that can leave before its
# input ends: grep -q, -m or -l, or head.
#
# Such a reader exits at its first match (or line count); a writer still
# writing then dies of SIGPIPE, exit 141, and under pipefail the pipeline
# fails although the reader found what it looked for. Whether the writer
# was still writing depends on the scheduler: `sed ... | grep -q ...` on a
# 6 KiB console log failed 1 time in 6 here, and a check in
# scripts/test-vm-timeout.sh written that way failed CI. Read the whole
# input instead: one awk, grep on a file or a here-string, [[ $(...) ==
# *...* ]], or sed -n 1,Np for head.
#
# Lines are joined across a trailing | or \; comment lines and here-
# document bodies (other programs' text: the guest's init, stubs) are
# skipped, and so is a file with the line
#   # check-pipefail-readers: not this file (WHY)
# (its own fixtures). Prints FILE:LINE: and the pipeline for each; exit 1
# if any, 2 for a usage error.
set -uo pipefail

prog=${0##*/}
if [[ $# -eq 0 || $1 == -h || $1 == --help ]]; then
	sed -n '4,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	[[ $# -eq 0 ]] && exit 2
	exit 0
fi

awk -v prog="$prog" '
FNR == 1 {
	pipefail = 0; heredoc = ""; joined = ""; start = 0
	# pipefail is set for the whole file, wherever it is set.
	exempt = 0
	while ((getline l < FILENAME) > 0) {
		if (l ~ /^[[:space:]]*set[[:space:]].*pipefail/)
			pipefail = 1
		if (l ~ /^# check-pipefail-readers: not this file/)
			exempt = 1
	}
	close(FILENAME)
	if (exempt)
		pipefail = 0
}
!pipefail { next }
heredoc != "" {
	t = $0
	sub(/^\t*/, "", t)
	if (t == heredoc)
		heredoc = ""
	next
}
/^[[:space:]]*#/ { next }
{
	if (joined == "") {
		joined = $0
		start = FNR
	} else {
		joined = joined " " $0
	}
	# A here-document starts after this line: <<WORD, <<-WORD, <<"WORD".
	# Not <<<, a here-string.
	if (match($0, /(^|[^<])<<-?[[:space:]]*["\047]?[A-Za-z_][A-Za-z_0-9]*/)) {
		w = substr($0, RSTART, RLENGTH)
		sub(/^[^<]?<<-?[[:space:]]*["\047]?/, "", w)
		heredoc = w
	}
	if (heredoc == "" && ($0 ~ /\|[[:space:]]*$/ || $0 ~ /\\$/))
		next
	if (joined ~ /(^|[^|])\|[[:space:]]*(grep[[:space:]]+([^|;&]*[[:space:]])?(-[A-Za-z]*[qml][A-Za-z0-9]*|--quiet|--silent|--max-count|--files-with-matches)([[:space:]=]|$)|head([[:space:]]|$))/) {
		gsub(/[[:space:]]+/, " ", joined)
		printf "%s:%d: a pipeline ends in a reader that can leave early, under pipefail: %s\n", FILENAME, start, joined
		bad++
	}
	joined = ""
}
END { exit bad > 0 }
' "$@"
