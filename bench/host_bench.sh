#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# host_bench.sh - host-side benchmarks of the userspace hot paths, on at
# least BENCH_MB megabytes (10^6 bytes) each:
#   1. fxt-collect's drain path (drain-bench): ring_drain + tid tracking +
#      trace_output, to /dev/null (CPU cost) and to a file in BENCH_DIR;
#   2. fxt-dump's decoder on a synthetic trace (tools/tests/gen_trace: 8 CPUs,
#      200 threads, per-CPU drains like fxt-collect): --check (strict
#      validation), --summary, and printing every record to /dev/null.
# The trace is read once before timing, so the page cache holds it and the
# figures are decode cost, not disk speed. Rates are over CPU time (user +
# sys), which other jobs on a shared machine do not inflate; wall-clock
# rates are printed too. Temporary files are removed at exit.
#
# Environment: BUILD (bench/Makefile's BUILDDIR, required), BENCH_MB
# (default 1100), BENCH_DIR (default ${TMPDIR:-/tmp}).
set -euo pipefail

prog=host_bench.sh
[[ -n ${BUILD:-} ]] || { echo "$prog: error: BUILD is not set; run: make -C bench host-bench" >&2; exit 2; }
MB=${BENCH_MB:-1100}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}}
rusage=$BUILD/bench-rusage
dump=$BUILD/collector/fxt-dump

die() { echo "$prog: error: $*" >&2; exit 1; }

for p in "$rusage" "$dump" "$BUILD/drain-bench" "$BUILD/gen_trace"; do
	[[ -x $p ]] || die "$p is missing; build it with: make -C bench"
done
[[ $MB =~ ^[0-9]+$ && $MB -ge 1 ]] || die "BENCH_MB must be a positive number of megabytes, not '$MB'"
need=$((MB * 23 / 10)) # the trace plus the drain output, with a margin
avail=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
((avail >= need)) || die "need ${need} MB free in $dir for the temporary files, have ${avail} MB (set BENCH_DIR)"

tmp=$(mktemp -d "$dir/fxt-host-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p), load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== drain path (drain-bench, $MB MB, 2 rings of 4 MiB drained at the 1 MiB watermark) =="
"$BUILD/drain-bench" -m "$MB" -o /dev/null
"$BUILD/drain-bench" -m "$MB" -o "$tmp/drained.fxt"
rm -f "$tmp/drained.fxt"

echo "== fxt-dump decoder ($MB MB synthetic trace) =="
"$BUILD/gen_trace" -o "$tmp/big.fxt" -c 8 -t 200 -m "$MB" --names-at-end --seed 1 ||
	die "gen_trace failed to write $tmp/big.fxt"
bytes=$(stat -c %s "$tmp/big.fxt")
cat "$tmp/big.fxt" >/dev/null # into the page cache
check_out=$("$dump" --check "$tmp/big.fxt") || die "fxt-dump --check rejected the synthetic trace: $check_out"
records=$(sed -n 's/.*OK: \([0-9]*\) records.*/\1/p' <<<"$check_out")
[[ -n $records ]] || die "cannot read the record count from: $check_out"
echo "trace: $bytes bytes, $records records"
for mode in --check --summary print; do
	args=("$mode" "$tmp/big.fxt")
	[[ $mode == print ]] && args=("$tmp/big.fxt")
	"$rusage" -l "fxt-dump-${mode#--}" -o /dev/null -b "$bytes" -r "$records" -- "$dump" "${args[@]}" ||
		die "fxt-dump ${args[*]} failed"
done
