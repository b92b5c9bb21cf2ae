#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-hot-text.sh - the probes that run on every context switch and wakeup
# lie in the first page of fxtrace.ko's text
#
# Usage: scripts/check-hot-text.sh [MODULE.ko]   (default kmod/fxtrace.ko)
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

ko=${1:-kmod/fxtrace.ko}
page=4096
hot=(fxtrace_probe_sched_switch fxtrace_probe_sched_waking
     fxtrace_probe_sched_wakeup fxtrace_probe_sched_wakeup_new
     fxtrace_write_wakeup)

[[ $# -le 1 ]] || { echo "usage: $0 [MODULE.ko]" >&2; exit 2; }
[[ -r $ko ]] || { echo "$0: cannot read $ko (build the module first: make modules)" >&2; exit 2; }

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
