# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# signal-wait.sh -- one step of the host tests that stop a script with a
# signal (test-time-budget.sh, test-vm-signals.sh), sourced by them:
#
# signal_and_wait PID SIG: send SIG to PID, a child of the calling shell;
#   give it 10 s to end, then SIGKILL it; reap it. Sets signal_rc to its
#   exit status and signal_secs to the seconds from the signal to its end
#   (or to the SIGKILL), e.g. "0.3". Safe under set -euo pipefail.

# The results, read by the scripts that source this.
# shellcheck disable=SC2034
signal_rc=0 signal_secs=0

signal_and_wait() {
	local pid=$1 sig=$2 t0 i

	t0=$(date +%s.%N)
	kill -"$sig" "$pid"
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2034
	signal_secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	kill -KILL "$pid" 2>/dev/null || true
	# shellcheck disable=SC2034
	signal_rc=0
	wait "$pid" || signal_rc=$?
}
