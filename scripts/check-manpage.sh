#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-manpage.sh -- does a man page document exactly what its program
# accepts? Compares the rendered page with `PROGRAM --help` and, when given,
# the getopt_long tables in the program's C sources. TAP on stdout.
set -euo pipefail

prog=${0##*/}

usage() {
	cat <<EOF
Usage: $prog PAGE PROGRAM [SOURCE.c...]

Checks the man page PAGE against PROGRAM (run with --help) and prints TAP:
  - it renders with groff -man -ww without a single warning ("cannot adjust
    line" included), on terminals 60, 80 and 120 columns wide
  - its source holds no control character but tab and newline (groff
    renders a form feed without a warning)
  - it has NAME (starting with the program's name), SYNOPSIS, DESCRIPTION,
    OPTIONS, EXIT STATUS, EXAMPLES and SEE ALSO
  - every long option of --help (before its EXAMPLES) is in the page
  - every "-x, --long" pair of --help is in the page as "-x, --long"
  - every long option of the getopt_long tables in SOURCE.c is in the page
    and in --help
  - every option the page's OPTIONS section names is one of those
  - every exit status in --help's "Exit status" paragraph is in the page's
    EXIT STATUS section, and the section, a list (.TP items, at least
    two), lists no other
Exit status: 0 all passed, 1 a check failed, 2 usage error.
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[[ $# -ge 2 ]] || { usage >&2; exit 2; }
page=$1 program=$2
shift 2
sources=("$@")
[[ -r $page ]] || { echo "$prog: cannot read man page $page" >&2; exit 2; }
command -v groff >/dev/null || { echo "$prog: groff not found (apt-get install groff-base)" >&2; exit 2; }

n=0 failed=0
# ok STATUS NAME [DIAGNOSTIC...]: one TAP line; diagnostics only on failure.
ok() {
	local status=$1 name=$2
	shift 2
	n=$((n + 1))
	if [[ $status -eq 0 ]]; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		local diag line
		for diag in "$@"; do
			while IFS= read -r line; do echo "#   $line"; done <<<"$diag"
		done
	fi
}
# skip NAME REASON: a check that does not apply.
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# The page as text: ASCII so that \- and - are both "-", no bold or
# underline, and lines long enough that no option is hyphenated or broken.
rendered=$(groff -man -Tascii -rLL=2000n -P-c -P-b -P-o -P-u "$page" 2>/dev/null)
help=$("$program" --help) || { echo "$prog: '$program --help' failed" >&2; exit 2; }
name=${program##*/}

# section TITLE: the rendered section's body (headings start in column 0).
section() {
	awk -v t="$1" '/^[^ \t]/ { on = ($0 == t); next } on' <<<"$rendered"
}
# The text of --help up to its examples, which may show other programs'
# options (fxt-collect ... | fxt-dump --summary -).
help_options=$(sed '/^EXAMPLES:*$/,$d; /^Examples:*$/,$d' <<<"$help" |
	grep -oE -- '--[a-z][a-z0-9-]*' | sort -u || true)
getopt_options=
if [[ ${#sources[@]} -gt 0 ]]; then
	getopt_options=$(sed -nE \
		's/.*\{ *"([a-z0-9-]+)", *(no|required|optional)_argument.*/--\1/p' \
		"${sources[@]}" | sort -u)
fi
# in_text OPTION TEXT: OPTION as a whole word (not the prefix of a longer one).
in_text() {
	grep -qE -- "(^|[^a-zA-Z0-9-])$1([^a-zA-Z0-9-]|$)" <<<"$2"
}

# man fits the page to the terminal
# (a line length about 2 less), and some warnings come only at some widths.
warnings=
for cols in 60 80 120; do
	w=$(groff -man -Tutf8 -ww -z -rLL=$((cols - 2))n "$page" 2>&1 ||
		echo "groff exited non-zero")
	[[ -z $w ]] || warnings+="at $cols columns:"$'\n'"$w"$'\n'
done
ok "$(test -z "$warnings"; echo $?)" "$name: renders with groff -ww and no warning at 60, 80 and 120 columns" \
	"${warnings%$'\n'}"

# A control character in the source (a \f that became a form feed on its
# way in) renders as a stray letter, and groff does not warn about it.
ctl=$(LC_ALL=C grep -nP '[\x00-\x08\x0b-\x1f\x7f]' "$page" || true)
ok "$(test -z "$ctl"; echo $?)" "$name: the source holds no control character but tab and newline" \
	"${ctl:0:300}"

missing=()
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	grep -qx "$s" <<<"$rendered" || missing+=("$s")
done
ok "${#missing[@]}" "$name: has the standard sections" "missing: ${missing[*]:-}"
first=$(section NAME | sed -n '1s/^ *//p')
ok "$([[ $first == "$name "* ]]; echo $?)" "$name: NAME starts with '$name'" \
	"NAME reads: $first"

[[ -n $help_options ]] || { echo "$prog: no long option found in '$program --help'" >&2; exit 2; }
missing=()
for o in $help_options; do in_text "$o" "$rendered" || missing+=("$o"); done
ok "${#missing[@]}" "$name: the page names all $(wc -w <<<"$help_options") long options of --help" \
	"not in the page: ${missing[*]:-}"

pairs=$(sed -nE 's/^ +(-[a-zA-Z0-9]), (--[a-z][a-z0-9-]*).*/\1, \2/p' <<<"$help")
if [[ -n $pairs ]]; then
	missing=()
	while IFS= read -r p; do
		grep -qF -- "$p" <<<"$rendered" || missing+=("'$p'")
	done <<<"$pairs"
	ok "${#missing[@]}" "$name: the page pairs short and long options as --help does" \
		"not in the page: ${missing[*]:-}"
fi

if [[ ${#sources[@]} -gt 0 ]]; then
	[[ -n $getopt_options ]] || { echo "$prog: no getopt_long table in ${sources[*]}" >&2; exit 2; }
	missing=() undocumented=()
	for o in $getopt_options; do
		in_text "$o" "$rendered" || missing+=("$o")
		in_text "$o" "$help_options" || undocumented+=("$o")
	done
	ok "${#missing[@]}" "$name: the page names all $(wc -w <<<"$getopt_options") getopt_long options" \
		"in the getopt table, not in the page: ${missing[*]:-}"
	ok "${#undocumented[@]}" "$name: --help names all getopt_long options" \
		"in the getopt table, not in --help: ${undocumented[*]:-}"
fi

# Options the page documents must exist: long ones anywhere in OPTIONS,
# short ones where an item starts (the tag lines).
known="$help_options $getopt_options $(cut -d, -f1 <<<"$pairs")"
opts_text=$(section OPTIONS)
documented=$( {
	grep -oE -- '--[a-z][a-z0-9-]*' <<<"$opts_text" || true
	grep -E '^ {7}-' <<<"$opts_text" | grep -oE -- '(^|[ ,|])-[a-zA-Z0-9]\b' |
		tr -d ' ,|' || true
} | sort -u)
if [[ -z $pairs ]]; then
	# No "-x, --long" table in --help (free-form help): short options
	# cannot be cross-checked, so check only the long ones.
	documented=$(grep -- '^--' <<<"$documented" || true)
fi
if [[ -z $opts_text ]]; then
	skip "$name: every option in the page's OPTIONS section exists" "no OPTIONS section"
else
	unknown=()
	for o in $documented; do in_text "$o" "$known" || unknown+=("$o"); done
	why="unknown to --help and getopt: ${unknown[*]:-}"
	[[ -n $documented ]] || { unknown+=(none); why="the OPTIONS section names no option"; }
	ok "${#unknown[@]}" "$name: every option in the page's OPTIONS section exists" "$why"
fi

exit_para=$(sed -n '/^Exit status/,/^$/p' <<<"$help")
if [[ -n $exit_para ]]; then
	help_codes=$(grep -oE '\b[0-9]{1,3}\b' <<<"$exit_para" | sort -un | paste -sd' ')
	exit_text=$(section "EXIT STATUS")
	page_codes=$(grep -oE '^ {7}[0-9]{1,3}\b' <<<"$exit_text" | tr -d ' ' | sort -un)
	missing=() extra=()
	for c in $help_codes; do in_text "$c" "$exit_text" || missing+=("$c"); done
	for c in $page_codes; do in_text "$c" "$help_codes" || extra+=("$c"); done
	# A paragraph instead of a list (.TP items) would hide a status the
	# program does not have: only a list's statuses are read as such.
	nlisted=$(wc -w <<<"$page_codes")
	((nlisted >= 2)) || missing+=("(EXIT STATUS is not a .TP list: $nlisted statuses found at the start of a line)")
	ok "$(( ${#missing[@]} + ${#extra[@]} ))" \
		"$name: EXIT STATUS lists exactly the statuses of --help ($help_codes)" \
		"in --help, not in the page: ${missing[*]:-}" \
		"in the page, not in --help: ${extra[*]:-}"
fi

echo "1..$n"
[[ $failed -eq 0 ]]
