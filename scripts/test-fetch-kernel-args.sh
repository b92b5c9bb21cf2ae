#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-fetch-kernel-args.sh -- scripts/fetch-kernel.sh is the one list of the
# supported kernels: `--known` prints them and `--check FLAVOUR` accepts
# exactly those, offline, without apt, dpkg or a cache directory; an
# unknown FLAVOUR exits 2 naming the known ones; scripts/vm-test.sh refuses
# an unknown FLAVOUR the same way before it builds or boots anything, and
# its --help and run-tests.sh's name the kernels fetch-kernel.sh knows.
#
# The scripts run from a copy of the tree whose vm-run.sh, and the make,
# apt-get, apt-cache, dpkg and depmod on PATH, are stubs that only note that
# they ran; FXTRACE_CACHE points at a directory that must not appear.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-fetch-args.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$TMP/repo/scripts" "$TMP/repo/selftests" "$TMP/bin"
cp "$REPO/scripts/fetch-kernel.sh" "$REPO/scripts/apt-retry.sh" "$REPO/scripts/vm-test.sh" \
	"$REPO/scripts/run-tests.sh" "$REPO/scripts/known-kernel-bugs.sh" "$TMP/repo/scripts/"
# vm-test.sh takes its kernel-bug patterns from the selftests' log scan.
cp "$REPO/selftests/kmsg_scan.sh" "$TMP/repo/selftests/"
for stub in "$TMP/repo/scripts/vm-run.sh" "$TMP/bin/make" "$TMP/bin/apt-get" \
	    "$TMP/bin/apt-cache" "$TMP/bin/dpkg" "$TMP/bin/depmod"; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "${stub##*/}" "$TMP/started" >"$stub"
	chmod +x "$stub"
done
CACHE=$TMP/cache

# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered
# run SCRIPT ARGS...: a copied script; status in $rc, stdout in $TMP/out,
# stderr in $TMP/err.
run() {
	local script=$1
	shift
	rm -rf "$TMP/started" "$CACHE" "$TMP/repo/.cache"
	(cd "$TMP" && PATH="$TMP/bin:$PATH" FXTRACE_CACHE=$CACHE \
		bash "$TMP/repo/scripts/$script" "$@" >"$TMP/out" 2>"$TMP/err")
	rc=$?
}
# untouched: nothing was started and no cache directory was made.
untouched() { [[ ! -e $TMP/started && ! -e $CACHE && ! -e $TMP/repo/.cache ]]; }
# result STATUS NAME: ok if STATUS (that of the checks just made) is 0.
result() {
	tap_ok "$1" "$2"
	[[ $1 -eq 0 ]] && return
	echo "#   exit $rc"
	sed 's/^/#   stdout: /' "$TMP/out" | head -20
	sed 's/^/#   stderr: /' "$TMP/err" | head -20
	[[ -e $TMP/started ]] && sed 's/^/#   started: /' "$TMP/started"
}

# --known: one flavour per line, no duplicates, nothing else.
run fetch-kernel.sh --known
mapfile -t known <"$TMP/out"
[[ $rc -eq 0 && ${#known[@]} -ge 1 && ! -s $TMP/err ]] && untouched &&
	! printf '%s\n' "${known[@]}" | grep -qvE '^[0-9]+\.[0-9]+(-[a-z]+)?$' &&
	[[ $(printf '%s\n' "${known[@]}" | sort -u | wc -l) -eq ${#known[@]} ]]
result $? "--known: exit 0, one flavour per line (${known[*]}), nothing fetched or created"

# The list as the messages name it: --known-phrase, the one place it is
# worded (vm-test.sh and trace-in-vm.sh print it). Pinned here: a change
# of the supported kernels changes this line on purpose.
run fetch-kernel.sh --known-phrase
list=$(<"$TMP/out")
[[ $rc -eq 0 && $list == '6.1, 6.12 or 6.12-rt' && ! -s $TMP/err ]] && untouched
result $? "--known-phrase: exit 0, '$list', nothing fetched or created"

for k in "${known[@]}"; do
	run fetch-kernel.sh --check "$k"
	[[ $rc -eq 0 && ! -s $TMP/out && ! -s $TMP/err ]] && untouched
	result $? "--check $k: exit 0, silent, nothing fetched or created"
done

want="fetch-kernel.sh: error: unknown FLAVOUR '5.10' (expected $list; see --help)"
run fetch-kernel.sh --check 5.10
[[ $rc -eq 2 && ! -s $TMP/out ]] && grep -qxF -- "$want" "$TMP/err" && untouched
result $? "--check 5.10: exit 2, names the known flavours"
run fetch-kernel.sh 5.10
[[ $rc -eq 2 && ! -s $TMP/out ]] && grep -qxF -- "$want" "$TMP/err" && untouched
result $? "FLAVOUR 5.10: exit 2 with the same message, before apt or the cache"
# A flavour is matched whole, not as a pattern or a prefix.
for bad in 6 6.1x '6.*' ''; do
	run fetch-kernel.sh --check "$bad"
	[[ $rc -eq 2 ]] && untouched
	result $? "--check '$bad': exit 2, nothing fetched or created"
done

for args in "--check" "--check 6.1 6.12" "--known 6.1" "--known-phrase 6.1"; do
	# shellcheck disable=SC2086 # split on purpose
	run fetch-kernel.sh $args
	[[ $rc -eq 2 ]] && grep -q '^Usage: fetch-kernel.sh' "$TMP/err" && untouched
	result $? "$args: exit 2 and the usage"
done
run fetch-kernel.sh --bogus
[[ $rc -eq 2 ]] && grep -qF -- "unknown option '--bogus'" "$TMP/err" && untouched
result $? "--bogus: exit 2, names the option"

run fetch-kernel.sh --help
help_ok() {
	local k
	[[ $rc -eq 0 ]] && grep -qE '^  --known ' "$TMP/out" &&
		grep -qE '^  --check FLAVOUR ' "$TMP/out" && grep -q offline "$TMP/out" || return 1
	for k in "${known[@]}"; do grep -qE "^  $k +newest linux-image-" "$TMP/out" || return 1; done
	untouched
}
help_ok
result $? "--help documents --known and --check, and lists every flavour"

# vm-test.sh: an unknown FLAVOUR is refused before any build or VM.
run vm-test.sh 5.10
[[ $rc -eq 2 ]] && untouched &&
	grep -qxF -- "vm-test.sh: unknown FLAVOUR '5.10' (expected $list)" "$TMP/err"
result $? "vm-test.sh 5.10: exit 2, names the known flavours, nothing built or booted"
run vm-test.sh --help
[[ $rc -eq 0 ]] && grep -qxF -- "FLAVOUR: $list (see scripts/fetch-kernel.sh --help)" "$TMP/out"
result $? "vm-test.sh --help names the known flavours"
# A known one passes the check and goes on to fetch the kernel, which
# FXTRACE_OFFLINE=1 with an empty cache refuses: exit 1, not 2.
rm -rf "$TMP/started" "$CACHE"
(cd "$TMP" && PATH="$TMP/bin:$PATH" FXTRACE_CACHE=$CACHE FXTRACE_OFFLINE=1 \
	bash "$TMP/repo/scripts/vm-test.sh" "${known[0]}" >"$TMP/out" 2>"$TMP/err")
rc=$?
[[ $rc -eq 1 && ! -e $TMP/started ]] && grep -qF "no ${known[0]} kernel is cached" "$TMP/err" &&
	! grep -q "unknown FLAVOUR" "$TMP/err"
result $? "vm-test.sh ${known[0]}: passes the check, stops at fetching the kernel"
# FXTRACE_OFFLINE=1 with FXTRACE_KERNEL_RELEASE naming a release not
# cached: refused, apt untouched (it ran apt-cache and apt-get update).
rm -rf "$TMP/started" "$CACHE"
(cd "$TMP" && PATH="$TMP/bin:$PATH" FXTRACE_CACHE=$CACHE FXTRACE_OFFLINE=1 \
	FXTRACE_KERNEL_RELEASE=6.1.0-99-amd64 \
	bash "$TMP/repo/scripts/fetch-kernel.sh" "${known[0]}" >"$TMP/out" 2>"$TMP/err")
rc=$?
[[ $rc -eq 1 && ! -e $TMP/started && ! -s $TMP/out ]] &&
	grep -qF "FXTRACE_OFFLINE=1 but 6.1.0-99-amd64 (FXTRACE_KERNEL_RELEASE) is not cached" "$TMP/err"
result $? "FXTRACE_OFFLINE=1 FXTRACE_KERNEL_RELEASE=<not cached>: exit 1, apt untouched"

# run-tests.sh: its default kernels are fetch-kernel.sh's, and an unknown
# one in --kernels is refused before any test.
run run-tests.sh --help
[[ $rc -eq 0 ]] && grep -qF -- "--kernels \"${known[*]}\"" "$TMP/out"
result $? "run-tests.sh --help: every supported kernel by default"
run run-tests.sh --no-deps --kernels "${known[0]} 5.10"
[[ $rc -eq 2 && ! -s $TMP/out ]] && grep -qF "unknown FLAVOUR '5.10'" "$TMP/err" && untouched
result $? "run-tests.sh --kernels '${known[0]} 5.10': exit 2 before any test"
tap_end
