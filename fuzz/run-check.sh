#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run-check.sh - `make -C fuzz check`: a short libFuzzer run of every target,
# starting from its committed corpus and its regression inputs, as TAP.
#
# Called by the Makefile with BUILD (the fuzz binaries), CORPUS (the seed
# corpora, one folder per target), DICT, TARGETS, RUNS ("target:inputs
# ..."), FUZZ_SEED, CHECK_MAX_SECONDS and FUZZ_SECONDS in the environment.
#
# By default each target executes its RUNS inputs from the seed FUZZ_SEED,
# without the two libFuzzer features that made such runs differ from one
# run to the next (measured: 3 runs of fuzz_ring_tids, 60000 inputs, gave
# 3 different sets of new inputs with them, and so did fuzz_ring_drain;
# without them all six targets gave the same set 3 times out of 3): the
# operands of traced compares fed to the mutator (-use_cmp=0) and the
# entropic schedule (-entropic=0). The seeds are named in a list sorted by
# name (-seed_inputs), since libFuzzer keeps the order a folder lists them
# in among inputs of one size: a copy of ring_tids' corpus listed in
# reverse order gave other new inputs when passed as a folder, the same
# ones as a sorted list. So the same commit passes or fails the same way on
# every machine and clone: a failure here is one CI would see, and the
# reverse. A run is cut at CHECK_MAX_SECONDS (fewer inputs, said in the
# TAP line). With FUZZ_SECONDS set, each target instead runs that long
# from a random seed with every feature, to explore.
#
# A target fails when it crashes, leaks, trips a sanitizer or a
# FUZZ_ASSERT, times out on one input (10 s), has no corpus, or executes no
# more inputs than its corpus holds (it did not really fuzz). New inputs go
# to a temporary folder: the committed corpus is never modified. Ends with
# "N passed, N failed"; exit status 1 if any failed.
set -euo pipefail
: "${BUILD:?}" "${CORPUS:?}" "${DICT:?}" "${TARGETS:?}" "${RUNS:?}"
: "${FUZZ_SEED:=1}" "${CHECK_MAX_SECONDS:=120}" "${FUZZ_SECONDS:=}"

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

# The inputs RUNS gives target $1; nothing if it gives none.
runs_of() {
	local r
	for r in $RUNS; do
		[[ ${r%%:*} == "$1" ]] && { echo "${r#*:}"; return 0; }
	done
	return 0
}

# libFuzzer takes -seed=0 for "pick a random seed".
if [[ -z $FUZZ_SECONDS && ! $FUZZ_SEED =~ ^[1-9][0-9]*$ ]]; then
	echo "Bail out! FUZZ_SEED=$FUZZ_SEED: a seed is a positive integer (0 would mean a random one: use FUZZ_SECONDS to explore)"
	exit 2
fi

for t in $TARGETS; do
	n=$((n + 1))
	bin=$BUILD/fuzz_$t
	seeds=$CORPUS/$t
	# A missing folder is no seeds, said as for an empty one: find's
	# failure would otherwise end the script here (set -e, pipefail)
	# with no TAP line and the later targets not run.
	nseeds=0
	if [[ -d $seeds ]]; then
		nseeds=$(find "$seeds" -type f | wc -l)
	fi
	if [[ $nseeds -eq 0 ]]; then
		fail "$t: no seed corpus in $seeds (run: make -C fuzz corpus)"
		continue
	fi
	inputs=("$seeds")
	nregress=0
	if [[ -d $REGRESS/$t ]]; then
		inputs+=("$REGRESS/$t")
		nregress=$(find "$REGRESS/$t" -type f | wc -l)
	fi
	mkdir -p "$tmp/$t" "$BUILD/artifacts/check-$t"
	if [[ -n $FUZZ_SECONDS ]]; then
		mode=(-max_total_time="$FUZZ_SECONDS" "$tmp/$t" "${inputs[@]}")
		what="${FUZZ_SECONDS}s from a random seed"
	else
		runs=$(runs_of "$t")
		if [[ -z $runs ]]; then
			fail "$t: no number of inputs in RUNS (fuzz/Makefile: CHECK_RUNS_$t)"
			continue
		fi
		# The seeds by name, not in the order the file system lists
		# them: libFuzzer keeps that order among inputs of one size,
		# and a fresh clone lists them in another.
		find "${inputs[@]}" -type f | LC_ALL=C sort | paste -sd, - \
			>"$tmp/$t.seeds"
		# Not find | grep -q: grep leaves at the first line, and a find
		# still writing then dies of SIGPIPE, which pipefail makes the
		# pipeline's status: 3000 such names went unnoticed.
		if [[ -n $(find "${inputs[@]}" -type f -name '*,*' -print -quit) ]]; then
			fail "$t: a seed's name has a comma (-seed_inputs separates names with commas)"
			continue
		fi
		mode=(-seed="$FUZZ_SEED" -runs="$runs" -use_cmp=0 -entropic=0
		      -reload=0 -max_total_time="$CHECK_MAX_SECONDS"
		      -seed_inputs=@"$tmp/$t.seeds" "$tmp/$t")
		what="seed $FUZZ_SEED"
	fi
	log=$tmp/$t.log
	status=0
	start=$SECONDS
	"$bin" "${mode[@]}" -close_fd_mask=3 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -dict="$DICT" \
		-artifact_prefix="$BUILD/artifacts/check-$t/" \
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
	cut=
	if [[ -z $FUZZ_SECONDS && $execs -lt $runs ]]; then
		cut=" (cut at the ${CHECK_MAX_SECONDS} s cap: $execs of $runs inputs)"
	fi
	echo "ok $n - $t: $what, $execs inputs from $nseeds seeds" \
		"+ $nregress regression inputs in $((SECONDS - start)) s," \
		"${cov:-cov: ?}, no crash$cut"
done

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[[ $failed -eq 0 ]]
