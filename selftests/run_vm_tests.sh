#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run_vm_tests.sh - the fxtrace selftests, run as root inside the test VM
#
# Layout (the payload scripts/vm-test.sh builds): ./fxtrace.ko, ./bin/ (static
# fxt-collect, fxt-dump, test programs), ./selftests/ (this script). Results
# and artifacts go to /out, which the harness copies back to the host.
#
# Output is TAP 13: one top-level test per step; a test program's own TAP is
# nested with a "# " prefix. After every step its kernel messages (the
# /dev/kmsg records numbered after the step began, kmsg_scan.sh) are scanned
# and a kernel WARNING, BUG, Oops, lockdep report or RCU stall fails that step
# even when the program itself passed, and so do messages lost before they
# were scanned, and a module allocation left over once the step's sessions
# are closed (no_live_allocations). The patterns are kmsg_scan.sh's
# KERNEL_BAD. The records printed between two steps count as the next
# step's, and the last step, kernel_log_final, waits and scans once more
# and checks the kernel's W taint bit was not set during the run.
# The load-and-fault steps are in fault_steps.sh, vhost_names in
# vhost_step.sh. The plan line comes last.
# Exit status: 0 all passed, 1 something failed.

cd "$(dirname "$0")/.." || exit 1
PATH="$PWD/bin:$PATH"
OUT=${OUT:-/out}
mkdir -p "$OUT"
# shellcheck source=selftests/fault_steps.sh
. selftests/fault_steps.sh
# shellcheck source=selftests/kmsg_scan.sh
. selftests/kmsg_scan.sh
# shellcheck source=selftests/vhost_step.sh
. selftests/vhost_step.sh

n=0
passed=0
failed=0
skipped=0

# memory_line NAME: the guest's memory after step NAME, from /proc/meminfo:
# a step that leaves memory behind shows here, and so does whether any
# step but ioctl_test's fills leaves the guest short (the Debian 6.12
# vmalloc deadlock, scripts/known-kernel-bugs.sh, needs direct reclaim).
memory_line() {
	awk -v name="$1" '
		{ kb[$1] = $2 }
		END {
			printf "# memory after %s: free %d MiB, available %d MiB, shmem %d MiB, vmalloc %d MiB\n",
				name, kb["MemFree:"] / 1024, kb["MemAvailable:"] / 1024,
				kb["Shmem:"] / 1024, kb["VmallocUsed:"] / 1024
		}' /proc/meminfo
}

# step NAME COMMAND...: run one top-level test, nest its output.
step() {
	name=$1
	shift
	n=$((n + 1))
	dmesg_begin
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > "$OUT/step.log" 2>&1
	rc=$?
	sed 's/^/# /' "$OUT/step.log"
	echo "# $name took $(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime) s"
	memory_line "$name"
	if dmesg_has_bugs; then
		rc=1
	fi
	if ! no_live_allocations; then
		rc=1
	fi
	case $rc in
	0)
		passed=$((passed + 1))
		echo "ok $n $name"
		;;
	4)
		skipped=$((skipped + 1))
		# The reason, as kselftest gives it: the step's first "SKIP:"
		# line (a test program's "#   SKIP: ..." too), else the
		# first reason after a nested "# SKIP".
		why=$(awk '
			{ r = "" }
			/^[#[:space:]]*SKIP:/ { r = $0; sub(/^[#[:space:]]*SKIP:[[:space:]]*/, "", r) }
			r == "" && / # SKIP[[:space:]]/ { r = $0; sub(/.* # SKIP[[:space:]]*/, "", r) }
			r != "" { print r; exit }' "$OUT/step.log")
		echo "ok $n $name # SKIP${why:+ $why}"
		;;
	*)
		failed=$((failed + 1))
		# When: scripts/vm-test.sh tells a failure before a known
		# kernel deadlock began from one it may have caused.
		echo "# $name failed at $(cut -d' ' -f1 /proc/uptime) s of uptime"
		echo "not ok $n $name (exit $rc)"
		;;
	esac
}

load_module() {
	insmod ./fxtrace.ko || return 1
	[ -c /dev/fxtrace ] || { echo "no /dev/fxtrace after insmod"; return 1; }
	dmesg | grep -q 'fxtrace: ready' || { echo "no 'ready' in dmesg"; return 1; }
}

unload_and_reload() {
	rmmod fxtrace || return 1
	[ ! -e /dev/fxtrace ] || { echo "/dev/fxtrace still there"; return 1; }
	insmod ./fxtrace.ko || return 1
	rmmod fxtrace || return 1
	insmod ./fxtrace.ko
}

# A test built as a 32-bit program (ioctl_test32, mmap_test32): every
# ioctl through the module's compat_ioctl, the rings mapped at 64-bit
# offsets from a 32-bit process. The binary must say it is one (ELF class
# 1), so that a 64-bit build under the name cannot pass for it. Every
# kernel tested runs 32-bit programs (Debian's: CONFIG_IA32_EMULATION=y,
# on by default), so one that does not run is a failure, not a skip.
compat32_test() {
	prog=bin/$1
	class=$(od -An -tx1 -j4 -N1 "$prog" | tr -d ' ')
	[ "$class" = 01 ] || { echo "$prog is not a 32-bit ELF program (class '$class')"; return 1; }
	"$prog"
}

# The end-to-end run: collect while the known workload runs, then check it.
pingpong_trace() {
	fxt-collect -o "$OUT/sched.fxt" -- \
		fxt-pingpong --rounds 2000 --expect "$OUT/expect.json" || return 1
	echo "trace: $(wc -c < "$OUT/sched.fxt") bytes"
	fxt-dump --check "$OUT/sched.fxt" || return 1
	check-pingpong "$OUT/sched.fxt" "$OUT/expect.json"
}

# collect_stress FILE STRESS-ARGS...: trace fxt-stress with the smallest
# rings. Dropping is allowed (exit 3), but then fxt-collect must say so.
collect_stress() {
	file=$1
	shift
	fxt-collect -b 64K -o "$file" -- fxt-stress "$@" 2> "$OUT/collect.err"
	rc=$?
	cat "$OUT/collect.err"
	case $rc in
	0) ;;
	3)
		grep -q 'records dropped:' "$OUT/collect.err" || {
			echo "exit 3 without 'records dropped:' on stderr"
			return 1
		}
		;;
	*)
		echo "fxt-collect exit $rc"
		return 1
		;;
	esac
	echo "trace: $(wc -c < "$file") bytes"
	fxt-dump --check "$file" || return 1
	fxt-dump --summary "$file"
}

# The collector under the storm, at full rate (the trace is too big for
# Perfetto, so it is checked and deleted), then a rate-capped run whose
# trace is kept: Perfetto slows down badly past ~100k wakeups.
stress_collect() {
	collect_stress "$OUT/stress-full.fxt" --seconds 20 || return 1
	memory_line "the 20 s storm, its trace still in $OUT"
	rm -f "$OUT/stress-full.fxt"
	collect_stress "$OUT/stress.fxt" --seconds 10 --pause-us 2000 || return 1
	wakeups=$(fxt-dump --summary "$OUT/stress.fxt" |
		sed -n 's/.* wakeup \([0-9]*\).*/\1/p')
	echo "stress.fxt: ${wakeups:-?} wakeups"
	[ -n "$wakeups" ] && [ "$wakeups" -lt 100000 ] || {
		echo "stress.fxt has too many wakeups for Perfetto"
		return 1
	}
}

# 200 threads born, renamed and gone within a few ms each, between two
# drains: only the kernel's name records can name them. Then 5 tids are
# reused on purpose (old-K exits, new-K gets its tid): last-wins must give
# new-K. Checked here for
# the records and on the host by scripts/perfetto/check-names.mjs.
thread_names() {
	fxt-collect -o "$OUT/names.fxt" -- \
		fxt-threads --count 200 --reuse 5 --expect "$OUT/names.json" || return 1
	fxt-dump --check "$OUT/names.fxt" || return 1
	fxt-dump "$OUT/names.fxt" > "$OUT/names.dump" || return 1
	named=$(grep -c 'kernel_object thread koid=[0-9]* name="thr-[0-9]*"' "$OUT/names.dump")
	echo "thread records naming a thr-NNN thread: $named"
	[ "$named" -ge 200 ] || { echo "expected >= 200"; return 1; }
	# Each thr-NNN thread was created while traced: the record written
	# then (sched_wakeup_new) says so, new_task = 1 (ABI 5); none of
	# fxt-collect's records of the tasks alive before (pid 1's) does.
	sed -n 's/.*kernel_object thread koid=\([0-9]*\) .* new_task:int32=1$/\1/p' \
		"$OUT/names.dump" | sort -u > "$OUT/names.born"
	sed -n 's/.*kernel_object thread koid=\([0-9]*\) name="thr-[0-9]*".*/\1/p' \
		"$OUT/names.dump" | sort -u > "$OUT/names.thr"
	echo "threads with a new_task record: $(wc -l < "$OUT/names.born"), of the $(wc -l < "$OUT/names.thr") thr-NNN tids"
	[ -s "$OUT/names.born" ] || { echo "no new_task record at all"; return 1; }
	# Not grep -Fxvf: busybox's prints nothing for an empty pattern file.
	unborn=$(awk -v born="$OUT/names.born" \
		'BEGIN { while ((getline t < born) > 0) b[t] } !($0 in b)' \
		"$OUT/names.thr" | head -5)
	[ -z "$unborn" ] || { echo "thr-NNN tids with no new_task record: $unborn ..."; return 1; }
	if grep -q 'kernel_object thread koid=1 .*new_task' "$OUT/names.dump"; then
		echo "pid 1, alive before the trace, has a new_task record"
		return 1
	fi
	rm -f "$OUT/names.dump" "$OUT/names.born" "$OUT/names.thr"
}

# Rings that overflow while tracing goes on: the collector is stopped
# (SIGSTOP) in the middle of a storm, then drains again. Every
# hole must be marked in the file by the kernel's loss markers; the host
# checks them in Perfetto (scripts/perfetto/check-loss.mjs) against the
# total fxt-collect reports, which is saved in loss.json.
# The storm and the SIGSTOP wait until tracing is on (tracing_into); both
# end when their work is done (SIGUSR1, SIGINT), not after a time.
loss_markers() {
	rm -f "$OUT/loss.fxt"
	fxt-collect -b 64K -o "$OUT/loss.fxt" 2> "$OUT/loss.err" &
	collector=$!
	wait_until 50 tracing_into "$OUT/loss.fxt" || {
		echo "fxt-collect did not start tracing within 5 s ($OUT/loss.fxt is still empty or missing)"
		end_now "$collector"
		cat "$OUT/loss.err"
		return 1
	}
	fxt-stress --seconds 200 --pause-us 500 > /dev/null &
	storm=$!
	sleep 0.5
	kill -STOP "$collector"
	# Stopped for a number of context switches, not for a time: the
	# storm's rate under TCG varies threefold with the host's load (and
	# more when the host steals time: 1167 switches in a 2 s cap once),
	# and a 0.7 s stop once overflowed neither ring. 64 KiB holds about
	# 1600 records of 40 bytes; 6000 switches and their wakeups are about
	# three times both rings. At most 60 s: with the host stealing 60% of
	# the time, the storm made 1323 in a 10 s cap once, and no ring
	# overflowed.
	echo "collector stopped for $(wait_switches 6000 600) context switches"
	kill -CONT "$collector"
	# The storm goes on after it, so records follow each hole and the
	# kernel marks it, and the collector drains them.
	echo "then $(wait_switches 1000 30) context switches before the end"
	kill -USR1 "$storm"
	wait "$storm"
	storm_rc=$?
	kill -INT "$collector"
	wait "$collector"
	rc=$?
	cat "$OUT/loss.err"
	[ "$storm_rc" -eq 0 ] || { echo "fxt-stress exit $storm_rc: the storm did not run as planned"; return 1; }
	[ "$rc" -eq 3 ] || { echo "fxt-collect exit $rc, want 3 (records dropped)"; return 1; }
	fxt-dump --check "$OUT/loss.fxt" || return 1
	dropped=$(sed -n 's/.*(\([0-9]*\) in total).*/\1/p' "$OUT/loss.err")
	markers=$(fxt-dump "$OUT/loss.fxt" | grep -c 'name="records_lost"')
	# fxt-collect marks the drops after a ring's last record itself, a
	# pair a hole, and says how many: the rest are the kernel's, which
	# must mark the holes the storm went on after.
	tail_holes=$(sed -n 's/.*fxt-collect marked them at the end (\([0-9]*\) hole.*/\1/p' "$OUT/loss.err")
	kernel_markers=$((markers - 2 * ${tail_holes:-0}))
	echo "dropped ${dropped:-?} records; $markers loss markers, $kernel_markers of them the kernel's"
	echo "{\"dropped\": ${dropped:-0}}" > "$OUT/loss.json"
	[ "$kernel_markers" -ge 2 ] || { echo "no loss markers from the kernel in the file"; return 1; }
}

# The device is checked first: <> would create a regular file where the
# module is not loaded. `command exec`: a failed redirection on the plain
# special builtin exec ends busybox sh (and so the TAP stream) there.
unload_while_open_is_refused() {
	[ -c /dev/fxtrace ] || { echo "/dev/fxtrace is not a character device (module not loaded?)"; return 1; }
	command exec 3<>/dev/fxtrace || { echo "cannot open /dev/fxtrace"; return 1; }
	if rmmod fxtrace 2>/dev/null; then
		echo "rmmod succeeded with a session open"
		exec 3>&-
		return 1
	fi
	exec 3>&-
	# The fd is closed: unloading works again.
	rmmod fxtrace && insmod ./fxtrace.ko
}

echo "TAP version 13"
echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
# The scan's lockdep patterns need CONFIG_PROVE_LOCKING (Debian's kernels
# do not have it): say so rather than let their silence look like a pass.
[ -e /proc/lockdep ] ||
	echo "# lockdep is not enabled in this kernel: lockdep reports cannot appear"
kmsg_taint_start
step load_module load_module
step ioctl_test ioctl_test
step mmap_test mmap_test
step ioctl_test_32bit compat32_test ioctl_test32
step mmap_test_32bit compat32_test mmap_test32
step pingpong_trace pingpong_trace
step stress_test stress_test
step prio_test prio_test
step state_test state_test
step stress_collect stress_collect
step thread_names thread_names
step vhost_names vhost_names
step loss_markers loss_markers
step lifecycle_test lifecycle_test
step ioctl_fuzz ioctl_fuzz --seconds 20
step unload_while_collecting unload_while_collecting
step unload_while_poll_blocked unload_while_poll_blocked
step collector_sigkill collector_sigkill
step collector_sigint collector_sigint
step collector_full_fs collector_full_fs
step hotplug_test hotplug_counters
step hotplug_collect hotplug_collect
step suspend_test suspend_test
step unload_while_open_is_refused unload_while_open_is_refused
step unload_and_reload unload_and_reload
step final_unload rmmod fxtrace
step kernel_log_final kernel_log_final
dmesg > "$OUT/dmesg.txt"
echo "1..$n"
echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
[ "$failed" -eq 0 ]
