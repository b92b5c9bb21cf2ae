#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-hot-text.sh - the probes that run on every context switch and wakeup
# lie in the first page of fxtrace.ko's text
#
# Usage: scripts/check-hot-text.sh [MODULE.ko]   (default kmod/fxtrace.ko;
# --help says more)
#
# Why: each page a probe touches is a TLB miss on every context switch
# wherever the kernel's TLB entries do not survive one (docs/performance.md,
# "pp1's address-space switch, and the pages a probe touches"). kmod/Kbuild links fxtrace_probes.o first so
# that its code starts the module's text; this checks that the compiler and
# linker kept it so. A module's .text is loaded page-aligned, so offsets
# below the page size are one page.
#
# Exit: 0 all in the first page, 1 not (or a symbol missing), 2 usage.
set -euo pipefail

prog=${0##*/}
page=4096
hot=(fxtrace_probe_sched_switch fxtrace_probe_sched_waking
     fxtrace_probe_sched_wakeup fxtrace_probe_sched_wakeup_new
     fxtrace_write_wakeup)

usage() {
	cat <<EOF
Usage: $prog [MODULE.ko]

Checks that the functions that run on every context switch and wakeup,
$(printf '  %s\n' "${hot[@]}")
lie in the first $page bytes (one page) of MODULE.ko's .text, so that a
probe touches one text page: each page more is a TLB miss per context
switch where the kernel's TLB entries do not survive one
(docs/performance.md). Prints each function's text range, or what is wrong.

  MODULE.ko   the built module (default: kmod/fxtrace.ko; make modules)
  -h, --help  show this help and exit

Exit status: 0 all in the first page, 1 not (or a function missing),
2 bad arguments or MODULE.ko cannot be read.
EOF
}

# bad_usage MESSAGE: say what is wrong with the command line; exit 2.
bad_usage() {
	echo "$prog: $*" >&2
	echo "Try '$prog --help' for more information." >&2
	exit 2
}

case ${1:-} in
-h | --help) usage; exit 0 ;;
--) shift ;;
-?*) bad_usage "unknown option '$1'" ;;
esac
[[ $# -le 1 ]] || bad_usage "one MODULE.ko at most, got $#: $*"
ko=${1:-kmod/fxtrace.ko}
[[ -r $ko ]] || { echo "$prog: cannot read $ko (build the module first: make modules)" >&2; exit 2; }

# objdump -t: "offset l F section size name"; offsets are into the
# symbol's section, so a function the compiler put elsewhere (__cold sends
# it to .text.unlikely, at a small offset of its own) must fail, not pass.
syms=$(objdump -t "$ko")
bad=0
for f in "${hot[@]}"; do
	line=$(awk -v f="$f" '$NF == f && $(NF - 3) == "F" { print $1, $(NF - 1), $(NF - 2) }' <<<"$syms")
	if [[ -z $line ]]; then
		echo "$f: not a function of $ko (renamed? update ${0##*/})"
		bad=1
		continue
	fi
	read -r off size section <<<"$line"
	if [[ $section != .text ]]; then
		echo "$f: in section $section, not .text"
		bad=1
		continue
	fi
	end=$((16#$off + 16#$size))
	if ((end > page)); then
		printf '%s: ends at text offset %#x, past the first page (%#x)\n' "$f" "$end" "$page"
		bad=1
	else
		printf '%s: text %#x-%#x\n' "$f" "$((16#$off))" "$end"
	fi
done
if ((bad)); then
	echo "the hot probes are not all in the first text page of $ko: is fxtrace_probes.o still first in kmod/Kbuild, and its hot functions first in the file?"
	exit 1
fi
echo "all ${#hot[@]} hot probe functions lie in the first text page of $ko"
