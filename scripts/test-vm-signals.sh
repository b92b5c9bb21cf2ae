#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-vm-signals.sh FLAVOUR -- a signal (TERM, INT, HUP) to vm-run.sh, to
# vm-test.sh above it, or to trace-in-vm.sh above that, stops the VM at
# once: the script exits 128 + the signal within a few seconds and QEMU is
# gone. Before, bash waited for the foreground
# QEMU pipeline to end before it ran its trap, so `kill PID` left the VM
# running until its --timeout (1200 s), and vm-test.sh passed no signal on.
#
# QEMU is a stub (QEMU=...): it writes its pid where -pidfile says, and
# sleeps. FLAVOUR's kernel must be fetched (scripts/fetch-kernel.sh);
# vm-test.sh's and trace-in-vm.sh's cases build the module and the
# programs if they are not built yet. No VM boots. Prints TAP (scripts/tap.sh); exit status 1 if
# a check failed.
set -uo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
# shellcheck source=scripts/signal-wait.sh
. "$REPO/scripts/signal-wait.sh"
[[ $# -eq 1 ]] || { echo "usage: $prog FLAVOUR (see scripts/fetch-kernel.sh --known)" >&2; exit 2; }
flavour=$1
kernel_vars=$(FXTRACE_OFFLINE=1 "$REPO/scripts/fetch-kernel.sh" "$flavour" 2>&1) || {
	echo "$prog: $flavour's kernel is not fetched: $kernel_vars" >&2
	exit 2
}
eval "$kernel_vars"
TMP=$(mktemp -d /tmp/fxt-vm-signals.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# The stub QEMU: its pid in -pidfile and in $STUB_PIDS, a line on the
# console, then sleep for a minute in that same process.
cat >"$TMP/qemu" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	[ "$1" = -pidfile ] && echo $$ >"$2"
	shift
done
echo $$ >>"$STUB_PIDS"
echo "stub qemu up"
exec sleep 60
EOF
chmod +x "$TMP/qemu"

# gone PID: PID has ended (or is a zombie) within 3 s.
gone() {
	local i
	for ((i = 0; i < 30; i++)); do
		[[ -e /proc/$1/stat && $(cut -d' ' -f3 "/proc/$1/stat") != Z ]] || return 0
		sleep 0.1
	done
	return 1
}

# signal_case NAME SIGNAL WANT COMMAND...: start COMMAND with SIGNAL at its
# default (a background job would start with SIGINT ignored), wait for the
# stub, send SIGNAL to COMMAND's process, and check.
signal_case() {
	local name=$1 sig=$2 want=$3 pid stub='' i rc secs ok=0
	shift 3
	: >"$TMP/stub.pids"
	STUB_PIDS=$TMP/stub.pids QEMU=$TMP/qemu FXTRACE_VM_ACCEL=tcg \
		env --default-signal=INT,TERM,HUP "$@" >"$TMP/out" 2>&1 &
	pid=$!
	# Up to 10 min: vm-test.sh first rebuilds the VM userspace (20 s on
	# this 2-CPU machine, one CI host has run 5 times slower); a command
	# that exits ends the wait at once.
	for ((i = 0; i < 6000; i++)); do
		stub=$(head -n 1 "$TMP/stub.pids")
		[[ -n $stub ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [[ -z $stub ]]; then
		wait "$pid"
		tap_ok 1 "$name: the stub QEMU never started (exit $?)" "$TMP/out"
		return
	fi
	signal_and_wait "$pid" "$sig"
	rc=$signal_rc secs=$signal_secs
	gone "$stub" && [[ $rc -eq $want ]] && awk -v s="$secs" 'BEGIN { exit !(s < 5) }' && ok=1
	# A failed case must not leave its stub to the next.
	kill -KILL "$stub" 2>/dev/null
	tap_ok $((!ok)) "$name: SIG$sig ends it in ${secs} s with exit $rc (want $want), QEMU gone" "$TMP/out"
}

tap_begin --version
run=("$REPO/scripts/vm-run.sh" --kernel "$VMLINUZ" --modules-dir "$MODULES"
	--out "$TMP/vm-out" --timeout 120 -- true)
signal_case "vm-run.sh" TERM 143 "${run[@]}"
signal_case "vm-run.sh" INT 130 "${run[@]}"
signal_case "vm-run.sh" HUP 129 "${run[@]}"
for sig_rc in TERM:143 INT:130 HUP:129; do
	signal_case "vm-test.sh" "${sig_rc%:*}" "${sig_rc#*:}" "$REPO/scripts/vm-test.sh" \
		--timeout 120 --out "$TMP/vm-test-out" --command true "$flavour"
	signal_case "trace-in-vm.sh" "${sig_rc%:*}" "${sig_rc#*:}" "$REPO/scripts/trace-in-vm.sh" \
		--no-deps --kernel "$flavour" -d 1 -o "$TMP/trace.fxt"
done
tap_end
