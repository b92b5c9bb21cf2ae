#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run-check.sh - `make -C fuzz check`: a short libFuzzer run of every target,
# starting from its committed corpus and its regression inputs, as TAP.
#
# Called by the Makefile with BUILD (the fuzz binaries), CORPUS (the seed
# corpora, one folder per target), DICT, FUZZ_SECONDS and TARGETS in the
# environment. A target fails when it crashes, leaks, trips a sanitizer or a
# FUZZ_ASSERT, times out on one input (10 s), has no corpus, or executes no
# more inputs than its corpus holds (it did not really fuzz). New inputs go
# to a temporary folder: the committed corpus is never modified. Ends with
# "N passed, N failed"; exit status 1 if any failed.
set -euo pipefail
: "${BUILD:?}" "${CORPUS:?}" "${DICT:?}" "${FUZZ_SECONDS:?}" "${TARGETS:?}"

REGRESS=$(dirname "$CORPUS")/regressions
tmp=$(mktemp -d /tmp/fxt-fuzz-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

n=0 failed=0
echo "TAP version 13"

fail() {
	failed=$((failed + 1))
	echo "not ok $n - $1"
}

# The last lines of a failed run, as TAP diagnostics.
show_log() {
	tail -n 40 "$1" | sed 's/^/# /'
}

for t in $TARGETS; do
	n=$((n + 1))
	bin=$BUILD/fuzz_$t
	seeds=$CORPUS/$t
	nseeds=$(find "$seeds" -type f 2>/dev/null | wc -l)
	if [[ $nseeds -eq 0 ]]; then
		fail "$t: no seed corpus in $seeds (run: make -C fuzz corpus)"
		continue
	fi
	dirs=("$tmp/$t" "$seeds")
	nregress=0
	if [[ -d $REGRESS/$t ]]; then
		dirs+=("$REGRESS/$t")
		nregress=$(find "$REGRESS/$t" -type f | wc -l)
	fi
	mkdir -p "$tmp/$t" "$BUILD/artifacts/check-$t"
	log=$tmp/$t.log
	status=0
	"$bin" -max_total_time="$FUZZ_SECONDS" -close_fd_mask=3 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -dict="$DICT" \
		-artifact_prefix="$BUILD/artifacts/check-$t/" "${dirs[@]}" \
		>"$log" 2>&1 || status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
	if [[ $status -ne 0 ]]; then
		fail "$t: exit status $status after ${execs:-?} inputs"
		show_log "$log"
		echo "# the failing input is in $BUILD/artifacts/check-$t/;" \
			"reproduce with: $bin FILE"
		continue
	fi
	if [[ -z $execs || $execs -le $((nseeds + nregress)) ]]; then
		fail "$t: only ${execs:-0} inputs executed for $nseeds seeds"
		show_log "$log"
		continue
	fi
	echo "ok $n - $t: ${FUZZ_SECONDS}s, $execs inputs from $nseeds seeds" \
		"+ $nregress regression inputs, ${cov:-cov: ?}, no crash"
done

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[[ $failed -eq 0 ]]
