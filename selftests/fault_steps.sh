# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# fault_steps.sh - the load-and-fault steps of the VM selftests (issue 3),
# sourced by run_vm_tests.sh, which runs each function below as one `step`
# (busybox sh in the guest; $OUT is the results directory).
#
#   unload_while_collecting    rmmod refused while fxt-collect traces; its
#                              file is whole; rmmod works once it is gone
#   unload_while_poll_blocked  same with a reader asleep in poll()
#   collector_sigkill          SIGKILL mid-trace: file whole, session freed,
#                              a new session traces fine
#   collector_sigint           SIGINT at several moments (fxt-signal): file
#                              whole, exit 3 exactly when the file shows loss
#   collector_full_fs          output to a full tmpfs: exit 1, says so, file
#                              cut back to a whole record
#   hotplug_counters           hotplug_test (C): ring counters across CPU 1
#                              going offline and online
#   hotplug_collect            CPU 1 off/on while fxt-collect traces a storm
#   no_live_allocations        the leak check run after every step
#
# The traces meant for Perfetto are left in $OUT as fault-*.fxt with their
# fault-*.expect.json (from fxt-pingpong): scripts/run-tests.sh checks them
# on the host with scripts/perfetto/check-trace.mjs.
#
# Every variable here starts with fs_: the runner's own (n, name, rc) are
# globals of the same shell.

FS_LIVE_ALLOCS=/sys/kernel/debug/fxtrace/live_allocations
FS_CPU1_ONLINE=/sys/devices/system/cpu/cpu1/online

# The module's allocations must all be freed when no session is open (the
# case between steps). Silent when the module is not loaded. Without the
# count there is no check, which fails in the test VM (FXTRACE_VM=1): it
# mounts debugfs, and the module under test has the count.
no_live_allocations() {
	[ -d /sys/module/fxtrace ] || return 0
	if [ ! -r "$FS_LIVE_ALLOCS" ]; then
		echo "# (no leak check: $FS_LIVE_ALLOCS is absent)"
		[ "${FXTRACE_VM:-}" != 1 ] || return 1
		return 0
	fi
	fs_allocs=$(cat "$FS_LIVE_ALLOCS")
	[ "$fs_allocs" = 0 ] && return 0
	echo "# leak: $FS_LIVE_ALLOCS is $fs_allocs with no session open, expected 0"
	return 1
}

# skip_or_fail_in_vm WHY: what cannot be tested here is a skip (exit 4)
# on a developer's machine and a failure (1) in the test VM (FXTRACE_VM=1),
# whose kernels have all the tests need (SKIP_OR_FAIL_IN_VM in
# fxtrace_dev.h, for the C tests). Use: ... || { skip_or_fail_in_vm WHY; return; }
skip_or_fail_in_vm() {
	if [ "${FXTRACE_VM:-}" = 1 ]; then
		echo "$1: a failure in the test VM (FXTRACE_VM=1)"
		return 1
	fi
	echo "SKIP: $1"
	return 4
}

# wait_until TENTHS COMMAND...: retry COMMAND every 0.1 s for TENTHS tries.
wait_until() {
	fs_tries=$1
	shift
	while ! "$@"; do
		fs_tries=$((fs_tries - 1))
		[ "$fs_tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Uptime in tenths of a second.
now_ds() {
	awk '{ printf "%d", $1 * 10 }' /proc/uptime
}

# The system's context switches since boot: every one is a record in a
# ring while tracing. (One file: summing a storm's 100 threads'
# /proc/PID/task/*/status took 0.7 s under TCG.)
system_switches() {
	awk '/^ctxt / { print $2 }' /proc/stat
}

# wait_switches N DS: until the system has switched N times more, at most
# DS tenths of a second; prints how many switches it saw.
wait_switches() {
	ws_from=$(system_switches)
	ws_end=$(($(now_ds) + $2))
	while ws_now=$(system_switches) && [ "$ws_now" -lt $((ws_from + $1)) ] &&
	      [ "$(now_ds)" -lt "$ws_end" ]; do
		sleep 0.05
	done
	echo $((ws_now - ws_from))
}

# A process that ended is gone or a zombie; true once it is.
proc_ended() {
	[ ! -e "/proc/$1/stat" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat")" = Z ]
}

# stop_within TENTHS PID: give PID (signalled already) TENTHS tenths of a
# second to end, then SIGKILL it, so a broken test fails instead of hanging.
stop_within() {
	wait_until "$1" proc_ended "$2" && return 0
	echo "pid $2 did not end within $(($1 / 10)) s: SIGKILL"
	kill -KILL "$2"
	return 1
}

# end_now PID...: a step that fails early ends the processes it started
# (SIGTERM, then waits for each), so that the next step does not find them
# still tracing or holding the module and fail for them.
end_now() {
	for fs_p in "$@"; do
		kill "$fs_p" 2> /dev/null
		wait "$fs_p" 2> /dev/null
	done
	return 0
}

session_open() {
	[ "$(cat /sys/module/fxtrace/refcnt 2>/dev/null || echo 0)" -gt 0 ]
}

# True once exactly one fxt-collect runs and a session is open; its pid
# in fs_cpid. pidof also names its guard (a fork, argv[0] fxt-collect, comm
# fxt-collect-guard): only the process whose comm is fxt-collect counts.
collector_tracing() {
	fs_cpid=''
	for fs_p in $(pidof fxt-collect); do
		read -r fs_comm < "/proc/$fs_p/comm" 2> /dev/null || continue
		[ "$fs_comm" = fxt-collect ] || continue
		[ -z "$fs_cpid" ] || return 1
		fs_cpid=$fs_p
	done
	[ -n "$fs_cpid" ] && session_open
}

# True once fxt-collect traces into FILE, removed before it started: it
# writes its output only after START returned (write_preamble()). An open
# session alone is not enough: between the open and START the collector
# reads every thread's name, which takes long under TCG.
tracing_into() {
	test -s "$1"
}

file_has_line() {
	grep -q "$2" "$1" 2>/dev/null
}

# Records the file itself says were lost: the buffer-full events plus the
# last value of each records-dropped counter (fxt-dump --summary).
file_lost_records() {
	fxt-dump --summary "$1" | sed -n 's/^ *records dropped: //p' |
		tr ' ;' '\n' | grep -E '^[0-9]+$' |
		awk '{ s += $1 } END { print s + 0 }'
}

# The syscall a process is blocked in (number, from /proc/PID/syscall).
blocked_syscall() {
	cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null
}

is_poll_syscall() { # x86_64: poll 7, ppoll 271
	[ "$1" = 7 ] || [ "$1" = 271 ]
}

# rmmod must fail while the session lives; true if it did.
rmmod_refused() {
	fs_refcnt=$(cat /sys/module/fxtrace/refcnt)
	if rmmod fxtrace 2> "$OUT/rmmod.err"; then
		echo "rmmod succeeded with a session open (refcnt was $fs_refcnt)"
		insmod ./fxtrace.ko
		return 1
	fi
	echo "rmmod refused (module refcnt $fs_refcnt): $(cat "$OUT/rmmod.err")"
	[ -c /dev/fxtrace ] || { echo "/dev/fxtrace is gone after the refused rmmod"; return 1; }
}

# After the session ended: nothing left, and the module unloads and loads.
unload_reload_after_session() {
	no_live_allocations || return 1
	rmmod fxtrace || { echo "rmmod failed after the session ended"; return 1; }
	insmod ./fxtrace.ko || { echo "insmod failed after the unload"; return 1; }
}

# fxt-collect traces until SIGINT, not for a time (it was -d 4): both
# refusals come while it runs, however long a slow guest takes to attach
# the probes (3.4 s once, in CI).
unload_while_collecting() {
	fs_f=$OUT/unload-collect.fxt
	fxt-collect -o "$fs_f" 2> "$OUT/collect.err" &
	fs_pid=$!
	wait_until 50 session_open || { echo "fxt-collect never opened the device"; end_now "$fs_pid"; return 1; }
	sleep 1
	rmmod_refused || { end_now "$fs_pid"; return 1; }
	sleep 0.5
	rmmod_refused || { end_now "$fs_pid"; return 1; }
	kill -0 "$fs_pid" 2>/dev/null || {
		echo "fxt-collect ended while rmmod was tried, before its SIGINT"
		cat "$OUT/collect.err"
		return 1
	}
	kill -INT "$fs_pid"
	stop_within 100 "$fs_pid"
	wait "$fs_pid"
	fs_rc=$?
	cat "$OUT/collect.err"
	case $fs_rc in
	0 | 3) ;;
	*) echo "fxt-collect exit $fs_rc after the refused rmmod"; return 1 ;;
	esac
	fxt-dump --check "$fs_f" || return 1
	rm -f "$fs_f"
	unload_reload_after_session
}

unload_while_poll_blocked() {
	fxt-pollblock > "$OUT/pollblock.out" 2>&1 &
	fs_pid=$!
	wait_until 50 file_has_line "$OUT/pollblock.out" '^polling' || {
		cat "$OUT/pollblock.out"
		echo "fxt-pollblock never got to poll()"
		end_now "$fs_pid"
		return 1
	}
	# Let it fall asleep, then make sure it is asleep in poll().
	sleep 0.5
	fs_sc=$(blocked_syscall "$fs_pid")
	echo "fxt-pollblock (pid $fs_pid) is in syscall ${fs_sc:-?}"
	is_poll_syscall "$fs_sc" || { echo "not in poll()/ppoll()"; end_now "$fs_pid"; return 1; }
	rmmod_refused || { end_now "$fs_pid"; return 1; }
	# The refused rmmod must not have woken or broken the sleeper.
	sleep 0.3
	fs_sc=$(blocked_syscall "$fs_pid")
	is_poll_syscall "$fs_sc" || {
		echo "after the refused rmmod fxt-pollblock is in syscall ${fs_sc:-none}, not poll()"
		cat "$OUT/pollblock.out"
		end_now "$fs_pid"
		return 1
	}
	kill -TERM "$fs_pid"
	stop_within 100 "$fs_pid"
	wait "$fs_pid"
	fs_rc=$?
	cat "$OUT/pollblock.out"
	[ "$fs_rc" -eq 0 ] || { echo "fxt-pollblock exit $fs_rc, expected 0"; return 1; }
	unload_reload_after_session
}

collector_sigkill() {
	fs_f=$OUT/fault-sigkill.fxt
	rm -f "$fs_f"
	fxt-collect -o "$fs_f" 2> "$OUT/collect.err" &
	fs_cpid=$!
	wait_until 50 tracing_into "$fs_f" || { echo "fxt-collect did not start tracing within 5 s"; end_now "$fs_cpid"; return 1; }
	fxt-pingpong --rounds 20000 --expect "$OUT/fault-sigkill.expect.json" &
	fs_ppid=$!
	sleep 2
	kill -KILL "$fs_cpid"
	wait "$fs_cpid"
	fs_rc=$?
	[ "$fs_rc" -eq 137 ] || {
		cat "$OUT/collect.err"
		echo "fxt-collect exit $fs_rc before the SIGKILL"
		end_now "$fs_ppid"
		return 1
	}
	echo "fxt-collect killed by SIGKILL 2 s into the ping-pong: $(wc -c < "$fs_f") bytes"
	# Its process is gone, so is its session.
	session_open && { echo "module still referenced after the collector died"; end_now "$fs_ppid"; return 1; }
	no_live_allocations || { end_now "$fs_ppid"; return 1; }
	wait "$fs_ppid" || { echo "fxt-pingpong failed"; return 1; }
	# The collector died long before the 20000 rounds ended: the trace holds
	# only those before the kill, so Perfetto is asked for 100 switches.
	sed -i 's/"min_switches": [0-9]*/"min_switches": 100/' "$OUT/fault-sigkill.expect.json"
	fxt-dump --check "$fs_f" || return 1
	fxt-dump --summary "$fs_f"
	# A new session starts and traces.
	fxt-collect -o "$OUT/after-kill.fxt" -d 1 -- fxt-pingpong --rounds 200 ||
		{ echo "the next session failed (exit $?)"; return 1; }
	fxt-dump --check "$OUT/after-kill.fxt" || return 1
	rm -f "$OUT/after-kill.fxt"
}

# sigint_verdict NAME FILE STATUS TENTHS LIMIT: after a SIGINT, fxt-collect
# must have stopped before LIMIT tenths of a second (it ran TENTHS), with
# exit status 0 or 3 (or 130 when the signal came before its handler; then
# there is no file), 3 exactly when the file shows loss, and the file whole.
sigint_verdict() {
	sed 's/^/  /' "$OUT/collect.err"
	if [ "$4" -ge "$5" ]; then
		echo "$1: fxt-collect ran $(($4 / 10)) s: the SIGINT did not stop it within $(($5 / 10)) s"
		return 1
	fi
	if [ "$3" -eq 130 ]; then
		echo "$1: SIGINT came before fxt-collect's handler (exit 130)"
		[ ! -s "$2" ] || { echo "$1: exit 130 but a trace file was written"; return 1; }
		return 0
	fi
	[ -f "$2" ] || { echo "$1: exit $3 and no trace file"; return 1; }
	fxt-dump --check "$2" > "$OUT/check.out" || { cat "$OUT/check.out"; return 1; }
	fs_lost=$(file_lost_records "$2")
	echo "$1: exit $3, $(wc -c < "$2") bytes, $fs_lost records lost per the file"
	case $3 in
	0) [ "$fs_lost" -eq 0 ] || { echo "$1: exit 0 but the file shows $fs_lost records lost"; return 1; } ;;
	3) [ "$fs_lost" -gt 0 ] || { echo "$1: exit 3 but the file shows no loss"; return 1; } ;;
	*) echo "$1: exit $3, expected 0 or 3"; return 1 ;;
	esac
}

# sigint_at NAME DELAY [--twice] COLLECT-ARGS...: fxt-collect gets SIGINT
# (twice, 10 ms apart, with --twice) from fxt-signal DELAY seconds after it
# is forked, with SIGINT at its default until fxt-collect installs a handler
# (a background job of this shell would start with it ignored, and busybox
# timeout counts whole seconds). It must have stopped within fs_limit_ds
# tenths of a second (20 s unless set), well before its own -d limit, 10 s
# later. Sets fs_last_rc.
sigint_at() {
	fs_name=$1 fs_delay=$2
	shift 2
	fs_repeat=1
	[ "$1" = --twice ] && { fs_repeat=2; shift; }
	fs_f=$OUT/sigint-$fs_name.fxt
	fs_limit=${fs_limit_ds:-200}
	rm -f "$fs_f"
	fs_t0=$(now_ds)
	fxt-signal --after "$fs_delay" --repeat "$fs_repeat" -- \
		fxt-collect -d $((fs_limit / 10 + 10)) -o "$fs_f" "$@" 2> "$OUT/collect.err"
	fs_last_rc=$?
	sigint_verdict "$fs_name" "$fs_f" "$fs_last_rc" $(($(now_ds) - fs_t0)) "$fs_limit"
}

# Quiet system, default rings: nothing may be lost, exit 0. Kept for Perfetto.
sigint_pingpong() {
	fs_f=$OUT/fault-sigint.fxt
	rm -f "$fs_f"
	fs_t0=$(now_ds)
	fxt-collect -d 30 -o "$fs_f" 2> "$OUT/collect.err" &
	fs_pid=$!
	wait_until 50 tracing_into "$fs_f" || { echo "fxt-collect did not start tracing within 5 s"; end_now "$fs_pid"; return 1; }
	fxt-pingpong --rounds 2000 --expect "$OUT/fault-sigint.expect.json" ||
		{ end_now "$fs_pid"; echo "fxt-pingpong failed"; return 1; }
	kill -INT "$fs_pid"
	wait "$fs_pid"
	fs_rc=$?
	echo "pingpong: SIGINT after the ping-pong workload"
	sigint_verdict pingpong "$fs_f" "$fs_rc" $(($(now_ds) - fs_t0)) 200 || return 1
	[ "$fs_rc" -eq 0 ] || { echo "pingpong: exit $fs_rc on a quiet system, expected 0"; return 1; }
}

collector_sigint() {
	sigint_at at-fork 0 || return 1
	sigint_at at-1ms 0.001 || return 1
	sigint_at at-20ms 0.02 || return 1
	sigint_at at-300ms 0.3 || return 1
	sigint_at twice-at-1s 1 --twice || return 1
	sigint_pingpong || return 1
	# A storm into 64 KiB rings while the collector is stopped (SIGSTOP):
	# records are lost, so exit 3. Each step waits for what it needs, not
	# for a time: the SIGSTOP for tracing, the SIGCONT for enough switches,
	# the SIGINT (from this shell) for records after the hole. fxt-signal's
	# SIGINT, 90 s after the fork, is a backstop only: sigint_verdict fails
	# a collector that ran that long. The waits below take at most 10 + 60
	# + 3 s (with the 20 s backstop of before, a host slow enough to need
	# 15 s of the stop failed as if the SIGINT had not worked).
	fs_f=$OUT/sigint-storm.fxt
	rm -f "$fs_f"
	fxt-stress --seconds 200 > /dev/null &	# until SIGUSR1 below
	fs_spid=$!
	sleep 0.5
	{ fs_limit_ds=900; sigint_at storm 90 -b 64K; } > "$OUT/storm.log" 2>&1 &
	fs_pid=$!
	{ wait_until 50 collector_tracing && wait_until 50 tracing_into "$fs_f"; } || {
		echo "storm: no one fxt-collect tracing into $fs_f within 10 s (pidof: '$fs_cpid')"
		[ -z "$fs_cpid" ] || kill -INT "$fs_cpid"
		wait "$fs_pid"
		kill -USR1 "$fs_spid"
		wait "$fs_spid"
		cat "$OUT/storm.log"
		return 1
	}
	fs_ok=1
	kill -STOP "$fs_cpid" || { echo "storm: SIGSTOP to fxt-collect (pid $fs_cpid) failed"; fs_ok=0; }
	# Stopped for 6000 switches (as in run_vm_tests.sh's loss_markers:
	# about three times both rings), at most 60 s.
	echo "storm: collector stopped for $(wait_switches 6000 600) context switches"
	kill -CONT "$fs_cpid" || { echo "storm: SIGCONT to fxt-collect (pid $fs_cpid) failed"; fs_ok=0; }
	echo "storm: SIGINT after $(wait_switches 2000 30) more context switches"
	kill -INT "$fs_cpid" || { echo "storm: SIGINT to fxt-collect (pid $fs_cpid) failed"; fs_ok=0; }
	wait "$fs_pid"
	fs_rc=$?
	kill -USR1 "$fs_spid"
	wait "$fs_spid"
	fs_src=$?
	cat "$OUT/storm.log"
	[ "$fs_ok" -eq 1 ] || return 1
	[ "$fs_src" -eq 0 ] || { echo "storm: fxt-stress exit $fs_src: the storm did not run as planned"; return 1; }
	[ "$fs_rc" -eq 0 ] || return 1
	# It ran in a subshell: its status is in its report.
	fs_last_rc=$(sed -n 's/^storm: exit \([0-9]*\),.*/\1/p' "$OUT/storm.log")
	[ "$fs_last_rc" = 3 ] || { echo "storm: exit ${fs_last_rc:-?}, expected 3 (records dropped)"; return 1; }
	rm -f "$OUT"/sigint-*.fxt
}

collector_full_fs() {
	fs_d=/tmp/fxt-full-fs
	mkdir -p "$fs_d"
	mount -t tmpfs -o size=256k tmpfs "$fs_d" ||
		{ skip_or_fail_in_vm "cannot mount a 256 KiB tmpfs on $fs_d"; return; }
	# 64 KiB rings: each drain commits at most 64 KiB per CPU, so the cut
	# lands close to the 256 KiB.
	fxt-collect -b 64K -o "$fs_d/t.fxt" -- \
		fxt-pingpong --rounds 20000 --expect "$OUT/fault-fullfs.expect.json" \
		2> "$OUT/collect.err"
	fs_rc=$?
	cat "$OUT/collect.err"
	fs_size=$(wc -c < "$fs_d/t.fxt")
	echo "exit $fs_rc; trace $fs_size bytes on a 256 KiB tmpfs"
	cp "$fs_d/t.fxt" "$OUT/fault-fullfs.fxt"
	umount "$fs_d"
	# The trace stops at the disk's end, long before the workload does:
	# Perfetto is asked for a few hundred switches, not all of them.
	sed -i 's/"min_switches": [0-9]*/"min_switches": 100/' "$OUT/fault-fullfs.expect.json"
	[ "$fs_rc" -eq 1 ] || { echo "exit $fs_rc, expected 1 (tracing failed)"; return 1; }
	grep -q 'disk is full' "$OUT/collect.err" || { echo "no 'disk is full' message"; return 1; }
	grep -q 'cut back to its last whole record' "$OUT/collect.err" ||
		{ echo "no word of the file being cut back"; return 1; }
	if [ "$fs_size" -eq 0 ] || [ "$fs_size" -gt 262144 ]; then
		echo "size $fs_size is not in (0, 256 KiB]"
		return 1
	fi
	fxt-dump --check "$OUT/fault-fullfs.fxt"
}

cpu1_set() {
	echo "$1" > "$FS_CPU1_ONLINE"
}

# hotplug_test restores CPU 1 itself, unless an ASSERT stopped it.
hotplug_counters() {
	hotplug_test
	fs_rc=$?
	[ -w "$FS_CPU1_ONLINE" ] && cpu1_set 1 2>/dev/null
	return $fs_rc
}

# With a CPU 1 that cannot go offline, a skip; a failure in the test VM
# (FXTRACE_VM=1), whose kernels have CPU hotplug. Without a CPU 1 (a VM
# booted with --smp 1), a skip.
hotplug_collect() {
	[ -d "${FS_CPU1_ONLINE%/online}" ] || { echo "SKIP: no CPU 1: nothing to take offline"; return 4; }
	[ -w "$FS_CPU1_ONLINE" ] ||
		{ skip_or_fail_in_vm "no CPU hotplug ($FS_CPU1_ONLINE is not writable)"; return; }
	rm -f "$OUT/hotplug.fxt"
	# The storm runs until the cycles are done (SIGUSR1 below), not for a
	# time: under TCG they took 13 s once (hotplug_test.c), more than the
	# 6 s storm this step had, which could end before them.
	fxt-collect -b 64K -o "$OUT/hotplug.fxt" -- \
		fxt-stress --seconds 200 --threads-per-cpu 20 2> "$OUT/collect.err" &
	fs_pid=$!
	# And they begin once tracing is on: reaching START takes seconds
	# under TCG (3.4 s once in CI), and cycles before it test nothing.
	wait_until 100 tracing_into "$OUT/hotplug.fxt" || {
		echo "fxt-collect did not start tracing within 10 s"
		cat "$OUT/collect.err"
		# shellcheck disable=SC2046 # one pid, or none
		kill -USR1 $(pidof fxt-stress) 2> /dev/null
		end_now "$fs_pid"
		return 1
	}
	fs_ok=1
	for fs_i in 1 2 3; do
		sleep 1
		cpu1_set 0 || { echo "cycle $fs_i: cpu1 offline failed"; fs_ok=0; break; }
		sleep 0.5
		cpu1_set 1 || { echo "cycle $fs_i: cpu1 online failed"; fs_ok=0; break; }
	done
	cpu1_set 1 2>/dev/null
	fs_back=$(now_ds)
	echo "$(wait_switches 2000 300) context switches after the last cycle"
	# shellcheck disable=SC2046 # one pid, or none if it ended
	kill -USR1 $(pidof fxt-stress) 2> /dev/null
	wait "$fs_pid"
	fs_rc=$?
	cat "$OUT/collect.err"
	[ "$fs_ok" -eq 1 ] || return 1
	echo "3 offline/online cycles of cpu1 while tracing; fxt-collect exit $fs_rc"
	case $fs_rc in
	0 | 3) ;;
	*) echo "fxt-collect exit $fs_rc"; return 1 ;;
	esac
	[ "$(cat "$FS_CPU1_ONLINE")" = 1 ] || { echo "cpu1 did not come back"; return 1; }
	fxt-dump --check "$OUT/hotplug.fxt" || return 1
	fxt-dump --summary "$OUT/hotplug.fxt" | grep -E 'cpu[0-9]+:|dropped'
	# Traced after the last cycle too: cpu1's ring was written once it
	# was back (its last switch 0.5 s or more before the last offline
	# would be tenths of a second before fs_back).
	fs_last=$(fxt-dump "$OUT/hotplug.fxt" | grep ' context_switch ts=[0-9]* cpu=1 ' |
		tail -n 1 | sed 's/.* ts=\([0-9]*\) .*/\1/')
	echo "cpu1's last context switch at ${fs_last:-none} ns; back online at $fs_back tenths of a second"
	[ -n "$fs_last" ] && [ $((fs_last / 100000000)) -ge "$fs_back" ] ||
		{ echo "no context switch on cpu1 after it came back online"; return 1; }
	rm -f "$OUT/hotplug.fxt"
}
