#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-trace-in-vm-args.sh -- scripts/trace-in-vm.sh refuses a bad command
# line at once: exit 2, a message naming what was wrong, and nothing
# started. No VM is needed, and none can start: the script runs from a
# copy of the tree whose install-deps.sh and vm-test.sh, and the make,
# apt-get, apt-cache and dpkg on PATH, are stubs that only note that they
# ran. Its fetch-kernel.sh is the real one: the kernels trace-in-vm.sh
# accepts and names are the ones `fetch-kernel.sh --known` prints.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-trace-args.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$TMP/repo/scripts" "$TMP/bin"
cp "$REPO/scripts/trace-in-vm.sh" "$REPO/scripts/fetch-kernel.sh" "$REPO/scripts/apt-retry.sh" "$REPO/scripts/run-child.sh" "$TMP/repo/scripts/"
for stub in "$TMP/repo/scripts/install-deps.sh" "$TMP/repo/scripts/vm-test.sh" \
	    "$TMP/bin/make" "$TMP/bin/apt-get" "$TMP/bin/apt-cache" "$TMP/bin/dpkg"; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "${stub##*/}" "$TMP/started" >"$stub"
	chmod +x "$stub"
done

# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered
# run ARGS...: the copied script; status in $rc, stderr in $TMP/err.
run() {
	rm -f "$TMP/started"
	(cd "$TMP" && PATH="$TMP/bin:$PATH" bash "$TMP/repo/scripts/trace-in-vm.sh" "$@" \
		>"$TMP/out" 2>"$TMP/err")
	rc=$?
}
# refused NAME MESSAGE ARGS...: exit 2, MESSAGE (fixed string) on stderr,
# no bash error ("line N:"), and nothing started.
# verdict NAME OK [NOTE]: the TAP line; on failure NOTE, stderr and the
# steps that started.
verdict() {
	tap_ok $((!$2)) "$1"
	(($2)) && return
	[[ -n ${3:-} ]] && echo "#   $3"
	sed 's/^/#   stderr: /' "$TMP/err"
	[[ -e $TMP/started ]] && sed 's/^/#   started: /' "$TMP/started"
}

refused() {
	local name=$1 want=$2
	shift 2
	run "$@"
	local ok=0
	[[ $rc -eq 2 ]] && grep -qF -- "$want" "$TMP/err" &&
		! grep -q "line [0-9]*:" "$TMP/err" && [[ ! -e $TMP/started ]] && ok=1
	verdict "$name" "$ok" "exit $rc (wanted 2), wanted on stderr: $want"
}

# The kernels, one per line, and as the messages name them (fetch-kernel.sh
# --known-phrase, whose wording test-fetch-kernel-args.sh pins).
mapfile -t known < <(bash "$REPO/scripts/fetch-kernel.sh" --known)
kernels=$(bash "$REPO/scripts/fetch-kernel.sh" --known-phrase)

refused "--kernel 5.10: exit 2 before anything starts, naming the kernels there are" \
	"trace-in-vm.sh: unknown kernel '5.10': give $kernels (the Debian kernels scripts/fetch-kernel.sh fetches)" \
	--kernel 5.10 -d 1
refused "--kernel with no value: exit 2, says what it needs" \
	"trace-in-vm.sh: --kernel needs a kernel: $kernels" --kernel
refused "-d with no value: exit 2, a message, not a bash error" \
	"trace-in-vm.sh: -d needs a number of seconds, e.g. -d 5" -d
refused "-o with no value: exit 2, a message, not a bash error" \
	"trace-in-vm.sh: -o needs a file name, e.g. -o sched.fxt" -o
mkdir -p "$TMP/odir" && mkfifo "$TMP/odir/fifo"
refused "-o naming a directory: exit 2 before anything starts (not a trace copied into it after the VM run)" \
	"trace-in-vm.sh: -o $TMP/odir is a directory; give a file name, e.g. -o $TMP/odir/sched.fxt" -o "$TMP/odir"
refused "-o in a directory that does not exist: exit 2 before anything starts" \
	"trace-in-vm.sh: -o $TMP/nodir/t.fxt: the directory $TMP/nodir does not exist" -o "$TMP/nodir/t.fxt"
refused "-o a file name starting with '-': taken as a file name (not an option of realpath)" \
	"trace-in-vm.sh: -o $TMP/nodir/--no-deps: the directory $TMP/nodir does not exist" -o "$TMP/nodir/--no-deps"
if [[ $(id -u) -ne 0 ]]; then
	mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
	refused "-o in a directory we may not write: exit 2 before anything starts" \
		"trace-in-vm.sh: -o $TMP/ro/t.fxt: the directory $TMP/ro is not writable" -o "$TMP/ro/t.fxt"
else
	tap_skip "-o in a directory we may not write" "root may write anywhere"
fi
# A file in / has the directory /, not "" (which does not exist).
run -d 0.5 -o /fxt-trace-args-test.fxt --kernel "${known[0]}"
ok=0
if [[ -w / ]]; then
	grep -q "^install-deps.sh" "$TMP/started" 2>/dev/null && ok=1
else
	[[ $rc -eq 2 ]] && grep -qF "the directory / is not writable" "$TMP/err" && ok=1
fi
verdict "-o /FILE: the directory / is checked (not an empty name)" "$ok"
refused "-o naming a FIFO: exit 2 (the trace is copied to a file)" \
	"trace-in-vm.sh: -o $TMP/odir/fifo: exists and is not a file we may replace" -o "$TMP/odir/fifo"
refused "-d abc: exit 2" "trace-in-vm.sh: -d takes seconds > 0, e.g. 5 or 0.5, got 'abc'" -d abc
refused "-d 0: exit 2 (fxt-collect in the VM would refuse it)" \
	"trace-in-vm.sh: -d takes seconds > 0, e.g. 5 or 0.5, got '0'" -d 0
refused "-d 31622401: exit 2, more than 366 days (fxt-collect in the VM would refuse it)" \
	"trace-in-vm.sh: -d takes at most 366 days (31622400 s), as fxt-collect does, got '31622401'" -d 31622401
refused "-d 31622400.5: exit 2, more than 366 days" \
	"trace-in-vm.sh: -d takes at most 366 days (31622400 s), as fxt-collect does, got '31622400.5'" -d 31622400.5
refused "-d 99999999999999999999: exit 2, not a VM time limit that overflows" \
	"trace-in-vm.sh: -d takes at most 366 days (31622400 s), as fxt-collect does, got '99999999999999999999'" \
	-d 99999999999999999999
refused "--bogus: exit 2, names the option" "trace-in-vm.sh: unknown option '--bogus'" --bogus
refused "--bogus: the usage follows" "Usage: trace-in-vm.sh" --bogus
refused "a stray argument: exit 2, names it" "trace-in-vm.sh: unexpected argument 'extra'" extra

# The checks pass good arguments, with every kernel fetch-kernel.sh knows:
# the run goes on to the (stub) steps, and fetch-kernel.sh --check used
# neither apt nor dpkg, nor made its cache.
for k in "${known[@]}"; do
	name="good arguments (-d 0.5 -o FILE --kernel $k) pass the checks"
	run -d 0.5 -o "$TMP/t.fxt" --kernel "$k"
	ok=0
	grep -q "^install-deps.sh" "$TMP/started" 2>/dev/null &&
		! grep -q "^apt\|^dpkg" "$TMP/started" && [[ ! -e $TMP/repo/.cache ]] &&
		! grep -q "unknown\|needs\|takes" "$TMP/err" && ok=1
	verdict "$name" "$ok"
done
# A long trace gets a VM time limit that holds it: trace-in-vm.sh's
# 600 s plus the duration (-d 900 used to be killed after 600 s). Here make
# succeeds, so the run reaches the (stub) vm-test.sh.
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/make"
for d in 900:1501 0.5:601 2.25:603 31622400:31623001 31622400.000:31623001 0000000000031622400:31623001; do
	name="-d ${d%%:*}: vm-test.sh gets --timeout ${d##*:} (600 s + the trace)"
	run --no-deps -d "${d%%:*}" -o "$TMP/t.fxt"
	ok=0
	grep -q "^vm-test.sh --out [^ ]* --timeout ${d##*:} " "$TMP/started" 2>/dev/null && ok=1
	verdict "$name" "$ok"
done
# Leading zeros are decimal ("08" is not octal: bash used to fail on it
# after the checks, with "value too great for base"): the guest gets -d
# 08 as given (fxt-collect reads it with strtod), and the run ends as the
# (stub) VM run does, exit 1 with a message.
for d in 08:609 09.5:610 010:611; do
	name="-d ${d%%:*}: decimal, vm-test.sh gets --timeout ${d##*:} and fxt-collect -d ${d%%:*}; the failed (stub) VM run is exit 1 with a message, no bash error"
	run --no-deps -d "${d%%:*}" -o "$TMP/t.fxt"
	ok=0
	[[ $rc -eq 1 ]] && grep -q "^vm-test.sh --out [^ ]* --timeout ${d##*:} " "$TMP/started" 2>/dev/null &&
		grep -q "fxt-collect -o /out/sched.fxt -d ${d%%:*};" "$TMP/started" &&
		grep -q '^trace-in-vm.sh: the VM run failed (exit 1); console: ' "$TMP/err" &&
		! grep -q "line [0-9]*:\|value too great" "$TMP/err" && ok=1
	verdict "$name" "$ok" "exit $rc (wanted 1)"
done
tap_end
