# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# run-child.sh -- run_child COMMAND...: COMMAND as a background job, its
# exit status returned. A SIGHUP, SIGINT or SIGTERM meanwhile is passed on
# to it as SIGTERM (a background job starts with SIGINT ignored), it is
# waited for, and the caller exits 129, 130 or 143. Sourced by vm-test.sh
# and trace-in-vm.sh for the VM below them: bash runs a trap only once a
# foreground command has ended, so a signal would not stop the VM.

run_child() {
	local rc=0
	"$@" &
	run_child_pid=$!
	trap 'stop_child 129' HUP
	trap 'stop_child 130' INT
	trap 'stop_child 143' TERM
	wait "$run_child_pid" || rc=$?
	trap - HUP INT TERM
	return "$rc"
}

# shellcheck disable=SC2317 # called from run_child's traps
stop_child() { # STATUS
	# Not an && list: under set -e the child's 143 would end the trap
	# there, with that status instead of STATUS.
	if kill -TERM "$run_child_pid" 2>/dev/null; then
		wait "$run_child_pid" || :
	fi
	exit "$1"
}
