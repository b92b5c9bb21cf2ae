#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bench.sh - fxt-sched on a >= 1 GB synthetic trace (BENCH_MB, default 1100)
# made by gen_trace (8 CPUs, 200 threads, per-CPU drains every 100 ms, names
# at the end) in a temporary directory that is removed afterwards. Prints
# MB/s, records/s and peak RSS for each subcommand, and the same for a
# trace 1/10 the size: peak RSS should not grow with the file.
set -u
: "${BUILD:?}"
MB=${BENCH_MB:-1100}
need=$((MB * 11 / 10))
dir=${TMPDIR:-/tmp}
avail=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt "$need" ]; then
	echo "bench: need ${need} MB free in $dir, have ${avail} MB" >&2
	exit 1
fi
tmp=$(mktemp -d "$dir/fxt-sched-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
gen() {
	nice "$BUILD/obj/tests/gen_trace" -o "$1" -c 8 -t 200 -m "$2" \
		--names-at-end --drops --spurious --seed 1
}
# top's memory is one list of at most N entries (364 bytes each) whatever
# the file; with --comm (or --pid) it reads the input twice. Measured on
# gen_trace -c 8 -t 2000 -n 4000000 --seed 3 (283 MB, 2000 threads),
# /usr/bin/time -v: top -n 10 75,700 KiB 2.3 s and -n 100000 2,931,144 KiB
# 13.0 s with one list per thread (up to commit 80f4a67); one list:
# 68,216 KiB 1.4 s and 125,292 KiB 4.3 s.
run() {
	set -f	# worker* is for fxt-sched, not the shell
	for cmd in summary latency "top -n 10" "top -n 100000" \
		   "top -n 100000 --comm worker*"; do
		# shellcheck disable=SC2086
		nice "$BUILD/fxt-sched" $cmd "$1" -v 2>&1 >/dev/null |
			sed "s/^fxt-sched:/  $cmd:/"
	done
	set +f
}
small=$((MB / 10))
echo "bench: generating a ${small} MB and a ${MB} MB trace in $tmp"
gen "$tmp/small.fxt" "$small" || exit 1
gen "$tmp/big.fxt" "$MB" || exit 1
ls -l "$tmp/small.fxt" "$tmp/big.fxt" | awk '{ print "  " $5 " bytes  " $9 }'
echo "small trace:"
run "$tmp/small.fxt"
echo "big trace:"
run "$tmp/big.fxt"
