#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run_tests.sh - host tests of the benchmark's own programs and of its table
# arithmetic (make -C bench check; BUILD and ASAN_BUILD are bench/Makefile's
# build trees). One TAP stream, ending with "N passed, N failed".
#
# What must hold:
#   fxt-bench     each workload does the operations asked (pingpong also
#                 between two threads of one process), and the context
#                 switches it reports are what its design forces (>= 2 per
#                 one-CPU round trip, >= 1 per sleep/wake hop); --watch sees
#                 a busy process's CPU time; --settle measures it in a
#                 window after the loop that is not workload time; --pending
#                 ftrace sums tracefs' per-CPU stats; a stuck run ends with
#                 124 and leaves no pong process; bad usage is exit 2
#   tracer_counts.sh  each tracer's recorded, lost and output bytes from
#                 canned output (tests/counts/): trace-cmd's pages counted
#                 once, perf's lost samples below 5% too
#   drain-bench   what it drains is whole FXT records, as many as it says
#   bench-rusage  passes the exit status on, sees a 32 MiB peak RSS, 125
#                 for a command that cannot run
#   fxt-probe-only  without /dev/fxtrace: exit 1 and a message naming the step
#   run.sh        bad options, and settings that would fail only in the
#                 guest, are exit 2 with a message before any build; a view
#                 whose guest kernel logged a warning (kernel_warnings > 0)
#                 fails it (stub VM), and kernel_log.awk fails results that
#                 do not say the log was checked; from a dead guest's
#                 console only whole BENCH lines are taken; --no-host builds
#                 only fxt-dump, and a failed build with --rev says why
#   report.awk    the table of a fixture matches hand-computed figures; a
#                 cut BENCH line is no run, a missing count is not 0, the
#                 targets' verdicts go both ways
#   pool.awk      pooled ratios of a fixture match hand-computed figures;
#                 the median's interval is the binomial table's; boots
#                 that failed or did not finish are left out
#   all of the programs again under ASan+UBSan, and under valgrind
set -uo pipefail

: "${BUILD:?}" "${ASAN_BUILD:?}"
T=$(cd "$(dirname "$0")" && pwd)
BENCH=$(dirname "$T")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxt-bench-tests.XXXXXX") || exit 1
trap 'kill "$busy" 2>/dev/null; rm -rf "$tmp"' EXIT
busy=''
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

n=0 passed=0 failed=0
# result STATUS DESCRIPTION: one TAP line from the status of the check just run
result() {
	n=$((n + 1))
	if [[ $1 -eq 0 ]]; then
		passed=$((passed + 1))
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[[ -s $tmp/last ]] && sed 's/^/#   /' "$tmp/last" | sed -n 1,15p
	fi
}
skip() { n=$((n + 1)) passed=$((passed + 1)); echo "ok $n - $1 # SKIP $2"; }
# field KEY: KEY=value from the "result" line in $tmp/last
field() { sed -n "s/^result .*[ ]$1=\([^ ]*\).*/\1/p" "$tmp/last" | sed -n 1p; }
positive() { awk -v x="$1" 'BEGIN { exit !(x > 0) }'; }
ncpu=$(nproc)

workload_tests() { # $1 = build dir, $2 = label
	local b=$1 l=$2 ops csw
	"$b/fxt-bench" calib -n 20000 >"$tmp/last" 2>&1
	[[ $(field ops) == 20000 ]] && positive "$(field ns_per_op)"
	result $? "$l: calib does 20000 getppid() calls and times them"

	"$b/fxt-bench" pingpong --cpus 0,0 -n 2000 -w 10 >"$tmp/last" 2>&1
	ops=$(field ops) csw=$(field csw)
	# On one CPU each process must be switched out once per round trip.
	[[ $ops == 2000 && -n $csw ]] && ((csw >= 2 * ops - 2))
	result $? "$l: pingpong on one CPU: 2000 round trips, >= 2 context switches each (got ${csw:-none})"

	# --same-process: the partner is a thread. csw then counts this
	# process's own switches only (getrusage), and must still be two per
	# round trip: both sides of the ping-pong are in it.
	"$b/fxt-bench" pingpong --same-process -n 2000 >"$tmp/last" 2>&1
	ops=$(field ops) csw=$(field csw)
	[[ $ops == 2000 && $(field same_process) == 1 && -n $csw ]] && ((csw >= 2 * ops - 2))
	result $? "$l: pingpong --same-process: 2000 round trips between two threads, >= 2 switches each (csw ${csw:-none})"

	if ((ncpu >= 2)); then
		"$b/fxt-bench" pingpong --cpus 0,1 -n 2000 >"$tmp/last" 2>&1
		[[ $(field ops) == 2000 && $(field cpus) == 0,1 ]]
		result $? "$l: pingpong across CPUs 0 and 1: 2000 round trips"
	else
		skip "$l: pingpong across CPUs" "one CPU"
	fi

	"$b/fxt-bench" sleepwake -n 3000 -t 8 -k 1 >"$tmp/last" 2>&1
	ops=$(field ops) csw=$(field csw)
	# One token: after passing it on, a thread's pipe is empty, so it blocks.
	[[ -n $ops && -n $csw ]] && ((ops >= 3000 && ops < 3000 + 8 && csw >= ops - 8))
	result $? "$l: sleepwake, 8 threads, 1 token: >= 3000 hops, a blocking switch per hop (hops ${ops:-none}, csw ${csw:-none})"

	"$b/fxt-bench" sleepwake -n 3000 -t 16 -k 4 >"$tmp/last" 2>&1
	ops=$(field ops)
	[[ -n $ops ]] && ((ops >= 3000 && ops < 3000 + 4))
	result $? "$l: sleepwake, 16 threads, 4 tokens: ends after 3000 to 3003 hops (${ops:-none})"

	# In pieces: every piece is timed and calibrated, so the result has
	# the pieces' count and a positive normalized time.
	"$b/fxt-bench" pingpong -n 3000 -C 10 -N 1000 >"$tmp/last" 2>&1
	[[ $(field ops) == 3000 && $(field chunks) == 10 && $(field csw) -ge 5998 ]] &&
		positive "$(field norm_per_op)" && positive "$(field calib_med_ns)"
	result $? "$l: pingpong in 10 pieces: 3000 round trips, calibrated pieces"
	"$b/fxt-bench" sleepwake -n 3000 -t 8 -k 3 -C 5 -N 1000 >"$tmp/last" 2>&1
	ops=$(field ops)
	[[ -n $ops && $(field chunks) == 5 ]] && ((ops >= 3000 && ops < 3000 + 5 * 3)) &&
		positive "$(field norm_per_op)"
	result $? "$l: sleepwake in 5 pieces, 3 tokens: every piece ends with all tokens back (${ops:-none} hops)"

	"$b/fxt-bench" writecost -n 2 -o "$tmp/writecost.out" >"$tmp/last" 2>&1
	[[ $(field ops) == 2097152 && ! -e $tmp/writecost.out ]] && positive "$(field ns_per_op)"
	result $? "$l: writecost writes 2 MiB, times it per byte and removes its file"
	"$b/fxt-bench" writecost -n 2 --pages reused -o "$tmp/writecost.out" >"$tmp/last" 2>&1
	[[ $(field ops) == 2097152 && $(field pages) == reused && ! -e $tmp/writecost.out ]] &&
		positive "$(field ns_per_op)"
	result $? "$l: writecost --pages reused times the second pass over the file's pages"
	"$b/fxt-bench" writecost -n 2 --pages fallocated -o "$tmp/writecost.out" >"$tmp/last" 2>&1
	[[ $(field ops) == 2097152 && $(field pages) == fallocated && ! -e $tmp/writecost.out ]] &&
		positive "$(field ns_per_op)" && positive "$(field fallocate_ns_per_byte)"
	result $? "$l: writecost --pages fallocated times the fallocate() and the writes apart"
	"$b/fxt-bench" writecost -n 1 -o "$tmp/no-such-dir/w" >"$tmp/last" 2>&1
	[[ $? -eq 1 ]] && grep -q "no-such-dir/w" "$tmp/last"
	result $? "$l: writecost to a file it cannot create exits 1 naming the file"
}

workload_tests "$BUILD" "fxt-bench"
workload_tests "$ASAN_BUILD" "fxt-bench (ASan+UBSan)"

# --watch: a process spinning (on the other CPU, or sharing ours) shows up.
# Its comm comes from the name it was executed by (a process cannot rename
# another through /proc/PID/comm).
ln -s "$(command -v bash)" "$tmp/fxt-busy-loop"
"$tmp/fxt-busy-loop" -c 'while :; do :; done' &
busy=$!
sleep 0.1
"$BUILD/fxt-bench" calib -n 2000000 -W fxt-busy-loop >"$tmp/last" 2>&1
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null
busy=''
cpu_ns=$(field tracer_cpu_ns)
[[ $(field tracer_tasks) == 1 ]] && positive "$cpu_ns"
result $? "fxt-bench --watch: a busy process's CPU time during the run is seen (${cpu_ns:-none} ns)"

# --settle: after the loop the workload sleeps, and what the watched
# process did meanwhile is reported apart; the window is not workload time.
"$tmp/fxt-busy-loop" -c 'while :; do :; done' &
busy=$!
sleep 0.1
t0=$(date +%s%N)
"$BUILD/fxt-bench" pingpong -n 2000 -S 300 -W fxt-busy-loop >"$tmp/last" 2>&1
t1=$(date +%s%N)
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null
busy=''
after=$(field tracer_cpu_after_ns) settle_ns=$(field settle_ns) interval_ns=$(field interval_ns)
# No bound on how fast anything ran (a slow or loaded machine must not
# fail this): the window is at least 300 ms, the spinning process got
# some CPU in it, and the window lies outside the interval, which the
# whole run's time can then hold next to it.
[[ -n $after && -n $settle_ns && -n $interval_ns ]] && ((settle_ns >= 300000000)) &&
	positive "$after" && ((interval_ns + settle_ns <= t1 - t0))
result $? "fxt-bench --settle 300: the watched process's CPU time in the 300 ms after the loop (${after:-none} ns), outside the interval"
"$BUILD/fxt-bench" sleepwake -n 500 -t 4 -S 50 >"$tmp/last" 2>&1
[[ $(field settle_ns) -ge 50000000 && -z $(field tracer_cpu_after_ns) ]]
result $? "fxt-bench --settle without --watch: a window, no tracer CPU field"

# --pending ftrace: the tracefs per-CPU stats, summed over CPUs, at the
# loop's end and after the window (here a canned tree that does not change).
mkdir -p "$tmp/tracefs/per_cpu/cpu0" "$tmp/tracefs/per_cpu/cpu1"
sed -n '/^CPU: 0/,/^read events/p' "$T/counts/ftrace-stat.txt" >"$tmp/tracefs/per_cpu/cpu0/stats"
sed -n '/^CPU: 1/,/^read events/p' "$T/counts/ftrace-stat.txt" >"$tmp/tracefs/per_cpu/cpu1/stats"
"$BUILD/fxt-bench" pingpong -n 500 -S 10 -P ftrace --tracefs "$tmp/tracefs" >"$tmp/last" 2>&1
[[ $(field pending_end_records) == 24052 && $(field pending_end_bytes) == 1422196 &&
	$(field pending_after_records) == 24052 && $(field pending_after_bytes) == 1422196 ]]
result $? "fxt-bench --pending ftrace: entries and bytes of every CPU's stats, at the loop's end and after the window"
"$BUILD/fxt-bench" pingpong -n 500 -P perf -W fxt-no-such-tracer >"$tmp/last" 2>&1
[[ $(field pending_end_bytes) == - && -z $(field pending_after_bytes) ]]
result $? "fxt-bench --pending perf without such a ring: '-' (not known), nothing after a window it did not have"

"$BUILD/fxt-bench" pingpong -n 1000000000 -T 1 >"$tmp/last" 2>&1
rc=$?
# Whether a process named NAME (its comm, as prctl(PR_SET_NAME) set it) is
# left, zombies too: /proc read directly, so that a missing pgrep cannot
# make "no such process" true. An unreadable /proc is an error (status 2).
process_named() {
	local comm found=1
	[[ -r /proc/self/comm ]] || { echo "# /proc/*/comm cannot be read" >&2; return 2; }
	for comm in /proc/[0-9]*/comm; do
		[[ $(cat "$comm" 2>/dev/null) == "$1" ]] && { found=0; break; }
	done
	return $found
}
for _ in 1 2 3 4 5 6 7 8 9 10; do # give init time to reap the killed pong
	process_named fxt-bench-pong || break
	sleep 0.3
done
process_named fxt-bench-pong
left=$?
((rc == 124 && left == 1)) && grep -q 'did not finish within 1 s' "$tmp/last"
result $? "fxt-bench: a run that does not finish exits 124 with a message and kills its pong process (exit $rc)"

bad=0
for args in "" "nosuch" "pingpong --cpus 1" "pingpong -n 0" "sleepwake -t 4 -k 4" "calib extra" "writecost -n 5000" "writecost --pages old" \
	"pingpong --settle -1" "pingpong --pending lttng" "pingpong -n 5 -C 10"; do
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$BUILD/fxt-bench" $args >"$tmp/last" 2>&1
	[[ $? -eq 2 ]] || { bad=1; echo "# 'fxt-bench $args' did not exit 2"; }
done
: >"$tmp/last"
result $bad "fxt-bench: bad command lines exit 2"

# fxt-bench reads fxtrace's control pages (--pending fxtrace) by the uapi
# header's layout: a changed header must rebuild it, as it does
# fxt-probe-only (make -W: as if the header were newer, nothing touched).
# make's output is taken whole, then matched: piped into grep -q under
# pipefail, make (under make -C bench check it also prints "Leaving
# directory" after the match) got SIGPIPE when grep had already exited,
# and the test failed at random.
bad=0
for p in fxt-bench fxt-probe-only; do
	plan=$(make -s -n --no-print-directory -W "$(dirname "$BENCH")/uapi/linux/fxtrace.h" -C "$BENCH" \
		BUILDDIR="$BUILD" "$BUILD/$p" 2>&1)
	[[ $plan == *"-o $BUILD/$p "* ]] || { bad=1; echo "# $p is not rebuilt when uapi/linux/fxtrace.h changes"; }
done
: >"$tmp/last"
result $bad "fxt-bench and fxt-probe-only are rebuilt when uapi/linux/fxtrace.h changes"

# drain-bench: prefix a magic record and the drained bytes must decode, in
# lenient mode (the string indices are defined by fxt-collect's preamble,
# which drain-bench does not write), to exactly the records it reported.
drain_test() { # $1 = build dir, $2 = label
	local b=$1 l=$2 records decoded
	"$b/drain-bench" -m 5 -b 256 -c 3 -o "$tmp/drained.bin" >"$tmp/last" 2>&1
	records=$(sed -n 's/^drain-bench: [0-9]* bytes, \([0-9]*\) records.*/\1/p' "$tmp/last")
	printf '\x10\x00\x04\x46\x78\x54\x16\x00' >"$tmp/drained.fxt"
	cat "$tmp/drained.bin" >>"$tmp/drained.fxt"
	decoded=$("$BUILD/collector/fxt-dump" "$tmp/drained.fxt" 2>>"$tmp/last" |
		awk '$2 == "context_switch" || $2 == "wakeup" { n++ } END { print n + 0 }')
	[[ -n $records && $records == "$decoded" ]] && (($(stat -c %s "$tmp/drained.bin") >= 5000000))
	result $? "$l: >= 5 MB drained from 3 rings are whole records: $decoded decoded, ${records:-none} reported"
}
drain_test "$BUILD" "drain-bench"
drain_test "$ASAN_BUILD" "drain-bench (ASan+UBSan)"

# bench-rusage
"$BUILD/bench-rusage" -l t -o /dev/null -- sh -c 'echo hidden; exit 3' >"$tmp/last" 2>&1
rc=$?
((rc == 3)) && grep -q '^result what=t wall_s=' "$tmp/last" && ! grep -q hidden "$tmp/last"
result $? "bench-rusage passes COMMAND's exit status on (3) and sends its stdout to -o"
"$BUILD/bench-rusage" -- dd if=/dev/zero of=/dev/null bs=32M count=1 >"$tmp/last" 2>/dev/null
rss=$(field peak_rss_kb)
[[ -n $rss ]] && ((rss >= 32768))
result $? "bench-rusage: dd with a 32 MiB buffer peaks at >= 32768 KiB (${rss:-none})"
"$BUILD/bench-rusage" -- /nonexistent/cmd >"$tmp/last" 2>&1
rc=$?
((rc == 125)) && grep -q 'cannot run /nonexistent/cmd' "$tmp/last"
result $? "bench-rusage: a command that cannot run is exit 125 with a message"

# fxt-probe-only, on a host without the module
if [[ -e /dev/fxtrace ]]; then
	skip "fxt-probe-only without a device" "/dev/fxtrace exists"
else
	"$BUILD/fxt-probe-only" -- true >"$tmp/last" 2>&1
	rc=$?
	((rc == 1)) && grep -q 'opening /dev/fxtrace failed' "$tmp/last"
	result $? "fxt-probe-only without /dev/fxtrace: exit 1, names the step"
fi
"$BUILD/fxt-probe-only" -b 3 -- true >"$tmp/last" 2>&1
[[ $? -eq 2 ]]
result $? "fxt-probe-only: a ring size that is not a power of two is exit 2"

# run.sh checks its options before building or booting anything.
bad=0
for args in "--workloads pp3" "--clocksource hpet" "--clocksource" "--tcg-thread both" "--tcg-cpu max;reboot" "--tcg-cpu -max" "--wakeup-preemption maybe" "--rounds 0" "--nosuch" "--settle 0.5" "--settle 60001" "--settle 08x" "--pp-ops 10"; do
	# shellcheck disable=SC2086 # the arguments are meant to split
	timeout 20 "$BENCH/run.sh" $args >"$tmp/last" 2>&1
	rc=$?
	((rc == 2)) && [[ -s $tmp/last ]] || { bad=1; echo "# 'run.sh $args' exited $rc, not 2 with a message"; }
done
result $bad "run.sh: bad options exit 2 with a message, before any build"

# run.sh on a view whose guest kernel logged a warning: a copy of it in a
# tree whose fetch-kernel.sh and vm-run.sh, and the make, modinfo, perf,
# trace-cmd, ldd and qemu it runs, are stubs. The stub VM "returns" the
# fixture's BENCH lines and guest.sh's BENCHINFO kernel_warnings=$K.
rt=$tmp/rt sb=$tmp/stub-bin
mkdir -p "$rt/bench" "$rt/scripts" "$rt/selftests" "$sb" "$tmp/rt-src/kmod" "$tmp/rt-src/uapi" "$tmp/rt-src/collector" "$tmp/rt-k"
cp "$BENCH"/run.sh "$BENCH"/guest.sh "$BENCH"/tracer_counts.sh "$BENCH"/sizes.sh "$BENCH"/*.awk "$rt/bench/"
cp "$BENCH/../selftests/kmsg_scan.sh" "$rt/selftests/"
: >"$tmp/rt-src/Kbuild"
: >"$tmp/rt-k/vmlinuz"
: >"$sb/ld-linux-x86-64.so.2"
stub() { printf '#!/bin/sh\n%s\n' "$2" >"$1" && chmod +x "$1"; }
stub "$rt/scripts/fetch-kernel.sh" "printf 'RELEASE=6.1.0-stub\\nKDIR=%s\\nVMLINUZ=%s\\nMODULES=%s\\n' '$tmp/rt-k' '$tmp/rt-k/vmlinuz' '$tmp/rt-k'"
# With STUB_CONSOLE (a sed script) the guest "dies": no results.txt, the
# lines only on the console (stdout), edited by that script, with CRs.
stub "$rt/scripts/vm-run.sh" 'while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
mkdir -p "$out/out" && : >"$out/dmesg.txt" || exit 1
lines() { grep "^BENCH" "'"$T/fixture.txt"'" | grep -v kernel_warnings=; echo "BENCHINFO kernel_warnings=$STUB_KW"; }
[ -z "$STUB_CONSOLE" ] || { : >"$out/out/results.txt"; lines | sed -e "$STUB_CONSOLE" -e "s/\$/\r/"; exit 124; }
lines >"$out/out/results.txt"'
# make: every program (or module) the bench asks for, as an empty file.
# Each call's arguments go to $STUB_MAKE_LOG; with STUB_MAKE_FAIL set the
# host programs' build (BUILDDIR=...) fails.
stub "$sb/make" 'echo "$*" >>"${STUB_MAKE_LOG:-/dev/null}"
case " $* " in *" BUILDDIR="*) [ -z "$STUB_MAKE_FAIL" ] || { echo "stub make: failing as asked" >&2; exit 2; } ;; esac
for a; do case $a in
M=*) mkdir -p "${a#M=}/kmod" && : >"${a#M=}/kmod/fxtrace.ko" ;;
BUILDDIR=* | VM_BINDIR=*) mkdir -p "${a#*=}" && for f in fxt-collect fxt-dump fxt-bench fxt-probe-only; do : >"${a#*=}/$f"; done ;;
esac; done'
stub "$sb/modinfo" 'echo "6.1.0-stub SMP mod_unload"'
stub "$sb/perf" 'exit 0'
stub "$sb/trace-cmd" 'exit 0'
stub "$sb/ldd" "echo '	ld.so => $sb/ld-linux-x86-64.so.2 (0x0)'"
stub "$sb/qemu-system-x86_64" 'echo "QEMU emulator version 0.0.0-stub"'
# run_stubbed K [CONSOLE]: run.sh's icount view with kernel_warnings=K
# (STUB_CONSOLE=CONSOLE); status in rc.
run_stubbed() {
	rm -rf "$tmp/rt-out" "$rt/build"
	STUB_KW=$1 STUB_CONSOLE=${2:-} MAKE=$sb/make PATH="$sb:$PATH" timeout 60 bash "$rt/bench/run.sh" --src "$tmp/rt-src" \
		--views icount --no-host --out "$tmp/rt-out" >"$tmp/last" 2>&1
	rc=$?
}
run_stubbed 1
want="run.sh: view icount: the guest kernel logged 1 lines of warnings or bugs (kernel_warnings=1): the view failed; see $tmp/rt-out/icount/dmesg.txt"
((rc == 1)) && grep -qxF "$want" "$tmp/last" &&
	grep -qxF "**View failed: the guest kernel logged 1 lines of warnings or bugs (kernel_warnings=1): the view failed; see $tmp/rt-out/icount/dmesg.txt.**" "$tmp/rt-out/summary.md" &&
	grep -q '^| pp1 ' "$tmp/rt-out/table-icount.md"
result $? "run.sh: a view whose guest logged kernel_warnings=1 fails (exit 1, '...the view failed; see .../icount/dmesg.txt', in summary.md too), its table still made (exit $rc)"
cmp -s "$BENCH/../selftests/kmsg_scan.sh" "$rt/build/bench/payload-src-rt-src/bench/kmsg_scan.sh"
result $? "run.sh: the guest payload has selftests/kmsg_scan.sh next to guest.sh (its KERNEL_BAD)"
run_stubbed 0
((rc == 0)) && ! grep -q 'View failed\|the view failed' "$tmp/last"
result $? "run.sh: the same view with kernel_warnings=0 passes (exit $rc)"
# A guest that died leaves its runs on the console only, the last one cut
# (perf's round 2 ends at "events=44"): run.sh takes the BENCHINFO lines
# and the whole BENCH lines (ending with retries=N), says how many it left
# out, and the table has perf's round 1 only.
run_stubbed 0 '/round=2 wl=pp1 cfg=perf/s/ events=4400 .*/ events=44/'
((rc == 1)) && [[ $(grep -c '^BENCH ' "$tmp/rt-out/icount.results.txt") == 7 ]] &&
	! grep -q 'events=44$' "$tmp/rt-out/icount.results.txt" && grep -q '^BENCHINFO kernel_warnings=0$' "$tmp/rt-out/icount.results.txt" &&
	grep -qxF "run.sh: view icount: 1 BENCH lines of the console are cut short (no retries=N at the end): left out of $tmp/rt-out/icount.results.txt" "$tmp/last" &&
	grep -q '^| pp1 | perf | 1 | 15000 |' "$tmp/rt-out/table-icount.md"
result $? "run.sh: from the console of a guest that died only whole BENCH lines are taken, the cut one counted (exit $rc)"
# --no-host: of bench/'s programs only fxt-dump (for sizes.sh) is built,
# not gen_trace and the rest, which the host benchmarks alone need (and
# which need this tree's ABI: a --rev before it failed there, before any
# VM booted).
rm -rf "$tmp/rt-out" "$rt/build" "$tmp/make-args"
STUB_MAKE_LOG=$tmp/make-args STUB_KW=0 MAKE=$sb/make PATH="$sb:$PATH" timeout 60 bash "$rt/bench/run.sh" --src "$tmp/rt-src" \
	--views icount --no-host --out "$tmp/rt-out" >"$tmp/last" 2>&1
rc=$?
grep -F -- "-C $rt/bench " "$tmp/make-args" >"$tmp/last"
[[ $rc == 0 && $(grep -c ' BUILDDIR=' "$tmp/last") == 1 ]] &&
	grep -q "^-s -C $rt/bench COLLECTOR=[^ ]* BUILDDIR=$rt/build/bench/host-src-rt-src $rt/build/bench/host-src-rt-src/collector/fxt-dump\$" "$tmp/make-args"
result $? "run.sh --no-host: builds only fxt-dump of the host programs (exit $rc)"
# A host build that fails with --rev (an older revision than this bench/)
# says what is the likely cause and what to do: a git repository of the
# stub tree, two commits, --rev the older one.
rg=$tmp/rg
mkdir -p "$rg"
cp -a "$rt/bench" "$rt/scripts" "$rt/selftests" "$rg/"
mkdir -p "$rg/kmod" "$rg/uapi" "$rg/collector" && : >"$rg/Kbuild" && : >"$rg/kmod/k.c" && : >"$rg/uapi/u.h" && : >"$rg/collector/c.c"
gitq() { git -C "$rg" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@" >/dev/null 2>&1; }
gitq init -q && gitq add . && gitq commit -q -m old && echo 1 >"$rg/uapi/u.h" && gitq commit -q -a -m new
old_rev=$(git -C "$rg" rev-parse --short HEAD~1)
for mode in --host-only --no-host; do
	STUB_MAKE_FAIL=1 STUB_KW=0 MAKE=$sb/make PATH="$sb:$PATH" timeout 60 bash "$rg/bench/run.sh" --rev HEAD~1 $mode \
		--views icount --out "$tmp/rg-out" >"$tmp/last" 2>&1
	rc=$?
	((rc == 1)) && grep -q "^run.sh: error: building the host benchmark programs .* against $old_rev's collector/ and uapi/ failed (see above)\. Likely cause: --rev HEAD~1 is older than this tree's bench/ .*--rev runs the current bench/ against that revision's kmod/ and collector/\. For that revision's own figures run its own bench/run.sh from a git worktree: git worktree add /tmp/fxtrace-$old_rev $old_rev" "$tmp/last"
	result $? "run.sh --rev HEAD~1 $mode: a failed host build names --rev as the likely cause and a git worktree as what to do (exit $rc)"
done

# Settings that could only fail after a boot are refused before any build
# (exit 2, a message that says what to give), here in the stub tree, so
# that a run.sh without the check goes no further than its stubs.
bad=0
for args in "--sw-tokens 32" "--sw-threads 2000" "--sw-threads 1" "--views icount --workloads pp2" "--workloads pp2" \
	"--configs fxtrace,ftrace" "--chunks 1001" "--run-timeout 86401"; do
	rm -rf "$tmp/rt-out" "$rt/build" "$tmp/make-args"
	# shellcheck disable=SC2086 # the arguments are meant to split
	STUB_MAKE_LOG=$tmp/make-args STUB_KW=0 MAKE=$sb/make PATH="$sb:$PATH" timeout 60 bash "$rt/bench/run.sh" --src "$tmp/rt-src" \
		--no-host --out "$tmp/rt-out" $args >"$tmp/last" 2>&1
	rc=$?
	msg=$(sed -n 1p "$tmp/last")
	case $args in
	--sw-tokens*) want="--sw-tokens (32) must be less than --sw-threads (32) (fxt-bench sleepwake needs a thread without a token to hand one to); give --sw-tokens 31 or fewer, or more --sw-threads" ;;
	"--sw-threads 2000") want="--sw-threads is 2 to 1024 (fxt-bench's limit), not '2000'" ;;
	*pp2) want="pp2 needs 2 vCPUs and that view has 1, so it would run nothing; add pp1, sw or pp1t, or give --views wall" ;;
	--configs*) want="has no 'none': every overhead is over the round's none run (and the wall view's calibration is its); give e.g. --configs none,fxtrace,ftrace" ;;
	*) want="(fxt-bench's limit)" ;;
	esac
	((rc == 2)) && [[ $msg == "run.sh: "*"$want"* && ! -e $tmp/make-args ]] ||
		{ bad=1; echo "# 'run.sh $args' exited $rc (make called: $([[ -e $tmp/make-args ]] && echo yes || echo no)), not 2 with '$want': $msg"; }
done
: >"$tmp/last"
result $bad "run.sh: settings that fail only in the guest (tokens >= threads, 2000 threads, pp2 alone in the icount view, no none run, ...) are exit 2 before any build"

# kernel_log.awk alone: no line (the guest did not get there) or no count fails.
printf 'BENCH view=test\n' >"$tmp/kw-none.txt"
out=$(awk -v dmesg=D -f "$BENCH/kernel_log.awk" "$tmp/kw-none.txt")
rc=$?
echo "$out" >"$tmp/last"
((rc == 1)) && [[ $out == "no BENCHINFO kernel_warnings line: the guest's kernel log was not checked; see D" ]]
result $? "kernel_log.awk: results without a kernel_warnings line fail (exit $rc)"
printf 'BENCHINFO kernel_warnings=unchecked\n' >"$tmp/kw-unchecked.txt"
out=$(awk -v dmesg=D -f "$BENCH/kernel_log.awk" "$tmp/kw-unchecked.txt")
rc=$?
echo "$out" >"$tmp/last"
((rc == 1)) && [[ $out == "BENCHINFO kernel_warnings=unchecked: the guest's kernel log was not checked; see D" ]]
result $? "kernel_log.awk: kernel_warnings=unchecked fails (exit $rc)"

# tracer_counts.sh, guest.sh's parsers of each tracer's output, on real
# output saved from benchmark runs (tests/counts/; the perf file with 2%
# lost is made up, perf prints no percentage then).
C=$T/counts
counts() { # counts FUNCTION FILE...: "events lost out_bytes" as it sets them
	(
		events=unset lost=unset out_bytes=unset
		. "$BENCH/tracer_counts.sh"
		"$@"
		echo "$events $lost $out_bytes"
	)
}
# expect_counts WANT WHAT FUNCTION FILE...: counts' line must be WANT.
expect_counts() {
	local want=$1 what=$2 got
	shift 2
	got=$(counts "$@")
	echo "$got" >"$tmp/last"
	[[ $got == "$want" ]]
	result $? "$what ($got)"
}
# 2 CPUs x 3928064 bytes of event pages; entries + read events 2 x 66128.
expect_counts "132244 0 7856128" "count_ftrace: events and pages of a 2-CPU trace-cmd record, each page counted once" count_ftrace "$C/ftrace-record.log" "$C/ftrace-stat.txt"
sed -e '/^CPU: 1/,/^read events/s/^overrun: 0/overrun: 5/' -e '/^CPU: 1/,/^read events/s/^dropped events: 0/dropped events: 2/' \
	"$C/ftrace-stat.txt" >"$tmp/stat-lost.txt"
expect_counts "132244 7 7856128" "count_ftrace: overrun and dropped events are lost" count_ftrace "$C/ftrace-record.log" "$tmp/stat-lost.txt"
# trace-cmd report --stat failed (guest.sh passes /dev/null then) or printed
# no counters: events and lost are not known, not 0; the pages still are.
printf 'trace-cmd: No such file or directory\n' >"$tmp/stat-none.txt"
got=$(counts count_ftrace "$C/ftrace-record.log" "$tmp/stat-none.txt")
echo "$got" >"$tmp/last"
[[ $got == "  7856128" ]] && got=$(counts count_ftrace /dev/null /dev/null) && [[ $got == "  " ]]
result $? "count_ftrace: no counters in the output give no counts, not 0 ($got)"
# 50950 samples + 29272 lost = the 80222 perf's own "lost 36.49%" names.
expect_counts "50950 29272 5728496" "count_perf: samples, LOST_SAMPLES of every event and the data section of a run that lost 36%" count_perf "$C/perf-lost36-record.log" "$C/perf-lost36-stats.txt" "$C/perf-lost36-header.txt"
expect_counts "78202 2003 8790120" "count_perf: a loss below 5%, which perf reports only as lost chunks, is counted" count_perf "$C/perf-lost2-record.log" "$C/perf-lost2-stats.txt" "$C/perf-lost2-header.txt"
sed '/LOST/d' "$C/perf-lost2-stats.txt" >"$tmp/perf-nolost.txt"
expect_counts "78202 0 8790120" "count_perf: no LOST records, nothing lost" count_perf "$C/perf-lost2-record.log" "$tmp/perf-nolost.txt" "$C/perf-lost2-header.txt"
sed '/^sched.* stats:$/,$d' "$C/perf-lost2-stats.txt" >"$tmp/perf-oldkernel.txt"
expect_counts "78202  8790120" "count_perf: LOST records without lost-sample counts (Linux < 6.0): lost not known, not 0" count_perf "$C/perf-lost2-record.log" "$tmp/perf-oldkernel.txt" "$C/perf-lost2-header.txt"
head -c 3567 /dev/zero >"$tmp/t.fxt"
expect_counts "88037 0 3567" "count_fxtrace: switches + wakeups of fxt-collect's summary, none dropped, the file's size" count_fxtrace "$C/fxtrace.log" "$tmp/t.fxt"
expect_counts "88037 17 3567" "count_fxtrace: the dropped total" count_fxtrace "$C/fxtrace-dropped.log" "$tmp/t.fxt"
# fxt-collect skipped invalid ring data (exit 3): it says "no records
# dropped", but the records in what it skipped were lost, an unknown
# number of them: lost is not known, not 0 (the canned log is made up,
# from collect_summary.c's messages).
expect_counts "88037  3567" "count_fxtrace: invalid ring data skipped: lost not known, not the 0 of 'no records dropped'" count_fxtrace "$C/fxtrace-invalid.log" "$tmp/t.fxt"
# fxt-collect gave up after the stop signal (exit 3): what the rings held
# then was not written, how many records nobody counted; its last line
# begins "no records dropped" (by the rings). Lost is not known, not 0;
# nor with drops ("also not written"). Canned logs, from
# collect_summary.c's messages.
expect_counts "88037  3567" "count_fxtrace: given up, the rings' data not written: lost not known, not the 0 of 'no records dropped by the rings'" count_fxtrace "$C/fxtrace-gave-up.log" "$tmp/t.fxt"
expect_counts "88037  3567" "count_fxtrace: given up with drops as well: lost not known, not the drops alone" count_fxtrace "$C/fxtrace-gave-up-dropped.log" "$tmp/t.fxt"
expect_counts "80183 0 unset" "count_probe: fxt-probe-only's written and dropped" count_probe "$C/probe.log"
: >"$tmp/last"
posix_shells=0
for sh in dash busybox; do
	command -v "$sh" >/dev/null || continue
	posix_shells=$((posix_shells + 1))
	[[ $sh == busybox ]] && sh="busybox sh"
	for f in "$BENCH/guest.sh" "$BENCH/tracer_counts.sh"; do
		$sh -n "$f" 2>>"$tmp/last" || echo "# $sh -n $f failed" >>"$tmp/last"
	done
done
if ((posix_shells == 0)); then
	skip "guest.sh and tracer_counts.sh parse as POSIX sh" "neither dash nor busybox is installed (scripts/install-deps.sh installs busybox-static)"
else
	[[ ! -s $tmp/last ]]
	result $? "guest.sh and tracer_counts.sh parse as POSIX sh"
fi

# report.awk on a fixture whose figures were worked out by hand (see the
# comment at the top of bench/tests/fixture.txt).
row() { # row WL CFG: that table row
	awk -F' [|] ' -v wl="$1" -v cfg="$2" '$1 == "| " wl && $2 == cfg { print }' "$tmp/table"
}
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$T/fixture.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
[[ $(row pp1 none) == "| pp1 | none | 2 | 15100 | 67.5% | 2.00 | - |"* &&
	$(row pp1 fxtrace) == "| pp1 | fxtrace | 2 | 15700 | 67.5% | 2.00 | 600 | 4.0% | 4.00 | 150 | 4400 | 0 | 56.8 | 1.0% |" &&
	$(row pp1 ftrace) == "| pp1 | ftrace | 1 | 12000 | - | 2.00 | 2000 | 13.2% | 4.00 | 500 | 4400 | 0 |"* &&
	$(row pp1 perf) == "| pp1 | perf | 2 | 22600 | 67.3% | 2.00 | 7500 | 49.7% | 4.00 | 1874 | 4400 | 3 (<0.1%) |"* ]]
result $? "report.awk: medians, paired overheads, per-event costs and losses of the fixture"
# perf lost 3 events: its ratios are marked, the others not. The
# denominator is recorded + lost, and the table says so.
grep -q '^| pp1 | 0.300 | 0.080 (perf lost 3) | - | - |$' "$tmp/table" &&
	grep -q '^fxtrace.s cost per event (recorded + lost, as each tracer counts them) as a fraction' "$tmp/table" &&
	grep -q '^"X lost N": X lost N events over these runs\.' "$tmp/table" &&
	grep -qx -- '- pp1: fxtrace / ftrace per event = 0.300 (target <= 0.25): NOT met' "$tmp/table" &&
	grep -qx -- '- pp1: fxtrace / perf per event = 0.080 (target <= 0.125): met (perf lost 3)' "$tmp/table" &&
	grep -q '^- round 2 pp1 ftrace: exit 124$' "$tmp/table"
result $? "report.awk: the fixture's ratios, target verdicts and failed run; a ratio where a tracer lost events is marked"
# fxtrace losing events: the loss target is NOT met and names the count,
# and every ratio of fxtrace's is marked (17 lost in round 1: events/op
# 4417/1100 and 4.00 -> 4.01, 150 ns/event, 0.299).
sed '/round=1 wl=pp1 cfg=fxtrace/s/ lost=0 / lost=17 /' "$T/fixture.txt" >"$tmp/fxtrace-lost.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/fxtrace-lost.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | fxtrace | 2 | 15700 | 67.5% | 2.00 | 600 | 4.0% | 4.01 | 150 | 4400 | 17 (0.2%) |' "$tmp/last" &&
	grep -qx -- '- pp1: fxtrace lost 17 events over all runs at the default buffer size (target 0): NOT met' "$tmp/last" &&
	grep -qx -- '- pp1: fxtrace / ftrace per event = 0.299 (target <= 0.25): NOT met (fxtrace lost 17)' "$tmp/last" &&
	! grep -q 'fxtrace lost 0 events' "$tmp/last"
result $? "report.awk: fxtrace losing 17 events: the loss target is NOT met, with the count, and its ratios are marked"
# The collector's CPU target: fxt-collect at 1000000 ns of a 10400000 ns
# interval, 9.6% of a CPU, is over the 5% target.
sed '/cfg=fxtrace/s/tracer_cpu_ns=100000 /tracer_cpu_ns=1000000 /' "$T/fixture.txt" >"$tmp/fxtrace-cpu.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/fxtrace-cpu.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | fxtrace | 2 | .* | 9\.6% |$' "$tmp/last" &&
	grep -qx -- '- pp1: fxt-collect used 9.6% of a CPU (median; target < 5%): NOT met' "$tmp/last"
result $? "report.awk: fxt-collect at 9.6% of a CPU does not meet the < 5% target"
# The lost column's share: perf's second run losing 4400 of its 8800 + 4400
# events, a third of all it saw.
sed '/cfg=perf/{/lost=0/s/ lost=0 / lost=4400 /}' "$T/fixture.txt" >"$tmp/perf-lost.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/perf-lost.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | perf | 2 | .* | 4403 (33.3%) |' "$tmp/last"
result $? "report.awk: the lost column gives the share of recorded + lost"
# Its B/event is output bytes per event recorded: 500000 / 4400 in both
# runs, 113.6 (per event seen, recorded + lost, it would be 113.6 and
# 56.8: median 85.2).
grep -q '^| pp1 | perf | 2 | .* | 4403 (33.3%) | 113\.6 | 1\.0% |$' "$tmp/last"
result $? "report.awk: B/event of a tracer that lost events is bytes per event recorded (113.6, not 85.2)"
# There, writing perf's output is priced per event it saw: 500000 B over
# 4403 and 8800 events, median 85.2 B, 170 ns at 2 ns/B, 14% of its 1250
# ns an event (per recorded event it would be 113.6 B, 227 ns, 18%).
grep -q '^| pp1 | 114 ns (76% of its cost) | 136 ns (27% of its cost) | 170 ns (14% of its cost) |$' "$tmp/last"
result $? "report.awk: the output's cost is per event seen (recorded + lost), the unit of the cost it is a share of"
# A lost count the tracer could not give (lost=-: perf without
# PERF_FORMAT_LOST, a log without fxt-collect's summary) is not 0 lost.
sed '/cfg=perf/s/ lost=[0-9]* / lost=- /' "$T/fixture.txt" >"$tmp/perf-unknown.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/perf-unknown.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | perf | 2 | .* | 4400 | ? (unknown in all 2 runs) |' "$tmp/last" &&
	grep -qx '| pp1 | 0.300 | 0.080 (perf lost ?) | - | - |' "$tmp/last" &&
	grep -qx -- '- pp1: fxtrace / perf per event = 0.080 (target <= 0.125): met (perf lost ?)' "$tmp/last" &&
	grep -q '^"X lost ?": X could not say how many events it lost' "$tmp/last" &&
	! grep -q '^"X lost N"' "$tmp/last"
result $? "report.awk: a tracer that cannot say what it lost is marked lost ?, not counted as losing 0"
sed '/cfg=perf round=2/s/ lost=0 / lost=- /; /round=2 wl=pp1 cfg=perf/s/ lost=0 / lost=- /' "$T/fixture.txt" >"$tmp/perf-unknown1.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/perf-unknown1.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | perf | 2 | .* | 3 (<0.1%) + ? (unknown in 1 of 2 runs) |' "$tmp/last" &&
	grep -qx '| pp1 | 0.300 | 0.080 (perf lost 3 + ?) | - | - |' "$tmp/last" &&
	grep -q '^"X lost N"' "$tmp/last" && grep -q '^"X lost ?"' "$tmp/last"
result $? "report.awk: a lost count missing in one run of two: the other's count + ?"
sed '/cfg=fxtrace/s/ lost=0 / lost=- /' "$T/fixture.txt" >"$tmp/fxtrace-unknown.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/fxtrace-unknown.txt" >"$tmp/last" 2>&1
grep -qx -- "- pp1: fxtrace's count of lost events is missing in 2 runs (fxt-collect's summary not found in their logs, or it skipped invalid ring data; target 0): not known" "$tmp/last" &&
	! grep -q 'fxtrace lost 0 events' "$tmp/last"
result $? "report.awk: the loss target is not known, not met, when fxtrace's lost count is missing"
# No event count at all (events=- lost=-: fxt-collect's summary missing):
# what fxtrace lost is not known either, not 0, and the runs the missing
# ratios point to are named.
sed '/cfg=fxtrace/s/ events=4400 lost=0 / events=- lost=- /' "$T/fixture.txt" >"$tmp/fxtrace-noevents.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/fxtrace-noevents.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | fxtrace | 2 | 15700 | .* | ? (unknown in all 2 runs) |' "$tmp/last" &&
	grep -qx -- "- pp1: fxtrace's count of lost events is missing in 2 runs (fxt-collect's summary not found in their logs, or it skipped invalid ring data; target 0): not known" "$tmp/last" &&
	! grep -q 'fxtrace lost 0 events' "$tmp/last" &&
	grep -qx -- '- pp1: fxtrace / ftrace per event: no figure (missing data: see the runs left out below)' "$tmp/last" &&
	[[ $(sed -n '/^Runs left out of the per-event figures (the tracer.s count of events is missing/,/^$/p' "$tmp/last" |
		grep -c '^- round [12] pp1 fxtrace$') == 2 ]]
result $? "report.awk: a tracer run without an event count: lost not known (not 'lost 0 ... met'), and the runs left out are named"
# A BENCH line that is not whole is not a run. Cut short (the console of
# a guest that died: perf's round 2 ends at "events=44", which read as a
# whole line gave events per op 0.04 and fxtrace / perf 0.040), or with a
# kernel message inside it (fxtrace's round 1 "ns_per_op=2[  812.334]
# watchdog: ...", read as 2 ns an op): left out and listed, the other
# runs' figures as without it (perf 1249 ns/event from round 1: 0.120).
grep '^BENCH' "$T/fixture.txt" | sed '/round=2 wl=pp1 cfg=perf/s/ events=4400 .*/ events=44/' >"$tmp/trunc.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/trunc.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | perf | 1 | 15000 | - | 2.00 | 5000 | 33.1% | 4.00 | 1249 |' "$tmp/last" &&
	grep -qx '| pp1 | 0.300 | 0.120 (perf lost 3) | - | - |' "$tmp/last" && ! grep -q '0\.040' "$tmp/last" &&
	grep -qx -- '- line 10 (round 2 pp1 perf)' <<<"$(sed -n '/^Runs left out (truncated: the BENCH line does not end with guest.sh.s retries=N/,/^$/p' "$tmp/last")"
result $? "report.awk: a cut BENCH line (no retries=N at its end) is left out and listed as truncated, not read as a run"
grep '^BENCH' "$T/fixture.txt" |
	sed '/round=1 wl=pp1 cfg=fxtrace/s/ns_per_op=10400 /ns_per_op=2[  812.334] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! /' >"$tmp/kmsg.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/kmsg.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | fxtrace | 1 | 21000 | - | 2.00 | 800 |' "$tmp/last" &&
	grep -qx -- '- line 4 (round 1 pp1 fxtrace)' <<<"$(sed -n '/^Runs left out (truncated/,/^$/p' "$tmp/last")"
result $? "report.awk: a BENCH line with a kernel message inside is left out and listed as truncated, its ns_per_op=2[ not read as 2"
# num(): a field is a number or nothing. A whole line whose ns_per_op is
# "2[812.334]" is a failed run, named so, not a run of 2 ns an op.
grep '^BENCH' "$T/fixture.txt" | sed '/round=1 wl=pp1 cfg=fxtrace/s/ns_per_op=10400 /ns_per_op=2[812.334] /' >"$tmp/notnum.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/notnum.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | fxtrace | 1 | 21000 |' "$tmp/last" &&
	grep -qx -- '- round 1 pp1 fxtrace: exit 0, ns_per_op=2\[812.334\] is not a number' "$tmp/last"
result $? "report.awk: a field that is not a number (ns_per_op=2[812.334]) is not read as its leading digits"
# The configurations in another order (--configs fxtrace,ftrace,perf,none):
# the same rows, the overhead still a share of none's median.
{ grep -v 'cfg=none' "$T/fixture.txt"; grep 'cfg=none' "$T/fixture.txt"; } >"$tmp/none-last.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/none-last.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | fxtrace | 2 | 15700 | 67.5% | 2.00 | 600 | 4.0% | 4.00 | 150 |' "$tmp/last" &&
	grep -q '^| pp1 | perf | 2 | 22600 | 67.3% | 2.00 | 7500 | 49.7% |' "$tmp/last"
result $? "report.awk: with none run last, +% is still the overhead over none's median"
grep -q '^Writing output to tmpfs costs 2.00 ns per byte' "$tmp/table" &&
	grep -q '^| pp1 | 114 ns (76% of its cost) | 136 ns (27% of its cost) | 227 ns (12% of its cost) |$' "$tmp/table"
result $? "report.awk: each tracer's output cost per event at the measured price per byte"
# calibrate=1: each round divided by its none run's calibration (500 and
# 1000), x their median 750 (figures in fixture.txt).
awk -v calibrate=1 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$T/fixture.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
[[ $(row pp1 none) == "| pp1 | none | 2 | 15075 | 1.0% |"* &&
	$(row pp1 perf) == "| pp1 | perf | 2 | 22575 | 0.7% | 2.00 | 7500 | 49.8% | 4.00 | 1874 |"* ]] &&
	grep -q '^| pp1 | 0.200 | 0.080 (perf lost 3) | - | - |$' "$tmp/table" &&
	grep -q 'fxtrace / ftrace per event = 0.200 (target <= 0.5): met; old estimator: 0.200$' "$tmp/table"
result $? "report.awk calibrate=1: each round is divided by its none run's calibration"
# A run without the calibration it needs is missing data: left out of
# the calibrated figures and listed, not divided by zero into inf or nan
# and then judged. Round 1's none run without one: round 1 is left out,
# the boot's scale is round 2's 1000, fxtrace keeps round 2's +800 -> 200
# ns/event, and ftrace (round 2 failed) has no figure to judge. The old
# estimator, each run by its own calibration, leaves out round 1's none.
sed '/round=1 wl=pp1 cfg=none/s/calib_before=500 calib_after=500/calib_before=- calib_after=-/' "$T/fixture.txt" >"$tmp/nocal.txt"
awk -v calibrate=1 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/nocal.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
! grep -qi 'inf\|nan' "$tmp/table" &&
	grep -q '^| pp1 | fxtrace | 1 | 21000 | - | 2.00 | 800 | 4.0% | 4.00 | 200 |' "$tmp/table" &&
	grep -q '^- pp1: fxtrace / ftrace per event: no figure (missing data' "$tmp/table" &&
	[[ $(sed -n '/^Runs left out of the calibrated figures (their round.s "none" run has no calibration, or did not run: missing data, not noise):$/,/^$/p' "$tmp/table" |
		grep -c '^- round 1 pp1 \(none\|fxtrace\|ftrace\|perf\)$') == 4 ]] &&
	grep -qx -- '- round 1 pp1 none' <<<"$(sed -n '/^Runs the old estimator left out (no calibration of their own):$/,$p' "$tmp/table")"
result $? "report.awk calibrate=1: a run without a calibration is missing data, listed, not inf, nan or noise"

# calibrate=1 with pieces. ftrace's reader slows the getppid() loop next
# to it: its runs calibrate 5% slower (525, 630) than their round's none
# run (500, 600). New: each round / its none run's calibration x their
# median 550: none 11000 11000; fxtrace 10600 -> 11660, 12600 -> 11550,
# +660 +550 -> +605 over 4400 / 1100 = 4 events per op -> 151 ns/event;
# ftrace 13200 13200, +2200 -> 550 ns/event; 0.275. Old: norm_per_op x
# the median of all in-run calibrations, 562.5: none 11250 11475, fxtrace
# 11812.5 11925 -> +506.25 -> 127; ftrace 22.857 x 562.5 = 12857.06 ->
# +1494.56 -> 374; 0.339, which lets the reader's slowdown of the loop
# take a fifth of ftrace's cost away.
cat >"$tmp/pieces.txt" <<'EOF'
BENCH view=wall round=1 wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=10000 calib_before=1 calib_after=1 csw=2000 events=- lost=- out_bytes=- tracer_cpu_ns= elapsed_ns=1 interval_ns=1 norm_per_op=20.0 calib_med_ns=500 retries=0
BENCH view=wall round=1 wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=10600 calib_before=1 calib_after=1 csw=2000 events=4400 lost=0 out_bytes=1 tracer_cpu_ns=1 elapsed_ns=1 interval_ns=1 norm_per_op=21.0 calib_med_ns=500 retries=0
BENCH view=wall round=1 wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=12000 calib_before=1 calib_after=1 csw=2000 events=4400 lost=0 out_bytes=1 tracer_cpu_ns=1 elapsed_ns=1 interval_ns=1 norm_per_op=22.857 calib_med_ns=525 retries=0
BENCH view=wall round=2 wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=12000 calib_before=1 calib_after=1 csw=2000 events=- lost=- out_bytes=- tracer_cpu_ns= elapsed_ns=1 interval_ns=1 norm_per_op=20.4 calib_med_ns=600 retries=0
BENCH view=wall round=2 wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=12600 calib_before=1 calib_after=1 csw=2000 events=4400 lost=0 out_bytes=1 tracer_cpu_ns=1 elapsed_ns=1 interval_ns=1 norm_per_op=21.2 calib_med_ns=600 retries=0
BENCH view=wall round=2 wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=14400 calib_before=1 calib_after=1 csw=2000 events=4400 lost=0 out_bytes=1 tracer_cpu_ns=1 elapsed_ns=1 interval_ns=1 norm_per_op=22.857 calib_med_ns=630 retries=0
EOF
awk -v calibrate=1 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/pieces.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
[[ $(row pp1 none) == "| pp1 | none | 2 | 11000 |"* &&
	$(row pp1 fxtrace) == "| pp1 | fxtrace | 2 | 11605 | 0.9% | 2.00 | 605 | 5.5% | 4.00 | 151 |"*"| 127 |" &&
	$(row pp1 ftrace) == "| pp1 | ftrace | 2 | 13200 | 0.0% | 2.00 | 2200 | 20.0% | 4.00 | 550 |"*"| 374 |" ]] &&
	[[ $(grep -c '^| pp1 | 0.275 | - | - | - |$' "$tmp/table") == 1 && $(grep -c '^| pp1 | 0.339 | - | - | - |$' "$tmp/table") == 1 ]] &&
	grep -qx '| pp1 | 0.339 | - | - | - |' <<<"$(sed -n '/^The same by the old estimator/,$p' "$tmp/table")" &&
	grep -q 'fxtrace / ftrace per event = 0.275 (target <= 0.5): met; old estimator: 0.339$' "$tmp/table" &&
	grep -q 'time of its round.s "none" run, measured between its pieces, x the boot.s median 550.0 ns' "$tmp/table"
result $? "report.awk calibrate=1 with pieces: each round is divided by its none run's calibration, not by one the tracer's reader slowed; the old estimator next to it"

# The reader's work after the loop (fxt-bench --settle). Both rounds alike,
# 4400 events over 1100 operations = 4 per op: fxtrace's reader used 0.2
# ms after the loop, 200 ns per op: charged in the instruction view, +400
# -> +600 per op, 100 -> 150 ns per event; nothing left (0 of 250000 B).
# ftrace's drained nothing there (0 ms) and left 60000 of 240000 B, 1100
# records: at its 300000 ns over the other 180000 B that is 100000 ns, 100
# ns per op, 25 ns per event. fxtrace / ftrace 150 / 500 = 0.300, with the
# estimates 150 / 525 = 0.286. Reader CPU, the window's included, over the
# interval: fxtrace (100000 + 200000) / 10400000 = 2.9%, ftrace 300000 /
# 12000000 = 2.5%.
for r in 1 2; do
	cat <<EOF
BENCH view=icount round=$r wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=10000 calib_before=500 calib_after=500 csw=2000 events=- lost=- out_bytes=- tracer_cpu_ns=- interval_ns=10000000 settle_ns=300000000 tracer_cpu_after_ns=- retries=0
BENCH view=icount round=$r wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=10400 calib_before=500 calib_after=500 csw=2000 events=4400 lost=0 out_bytes=250000 tracer_cpu_ns=100000 interval_ns=10400000 settle_ns=300000000 tracer_cpu_after_ns=200000 pending_end_bytes=50000 pending_after_bytes=0 retries=0
BENCH view=icount round=$r wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=12000 calib_before=500 calib_after=500 csw=2000 events=4400 lost=0 out_bytes=240000 tracer_cpu_ns=300000 interval_ns=12000000 settle_ns=300000000 tracer_cpu_after_ns=0 pending_end_bytes=60000 pending_end_records=1100 pending_after_bytes=60000 pending_after_records=1100 retries=0
EOF
done >"$tmp/after.txt"
echo "BENCHINFO kernel_warnings=0" >>"$tmp/after.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/after.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
[[ $(row pp1 fxtrace) == "| pp1 | fxtrace | 2 | 10600 | 0.0% | 2.00 | 600 | 6.0% | 4.00 | 150 |"* &&
	$(row pp1 ftrace) == "| pp1 | ftrace | 2 | 12000 | 0.0% | 2.00 | 2000 | 20.0% | 4.00 | 500 |"* ]] &&
	grep -q '^| pp1 | fxtrace | 2 | 10600 |.* | 2\.9% |$' "$tmp/table" &&
	grep -q '^| pp1 | ftrace | 2 | 12000 |.* | 2\.5% |$' "$tmp/table" &&
	grep -q 'charged above, as time per operation' "$tmp/table" &&
	grep -qx '| pp1 | fxtrace | 0.20 | 100 | +50 | 880 (20.0%) | 0 (0.0%) | 0 |' "$tmp/table" &&
	grep -qx '| pp1 | ftrace | 0.00 | 500 | +0 | 1100 (25.0%) | 1100 (25.0%) | 25 |' "$tmp/table" &&
	grep -qx '| pp1 | 0.300 | - | - | - |' "$tmp/table" && grep -qx '| pp1 | 0.286 | - |' "$tmp/table"
result $? "report.awk calibrate=0: the reader's CPU after the loop is charged, shown apart, with the records left unread and the cost of draining them"
awk -v calibrate=1 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/after.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
[[ $(row pp1 fxtrace) == "| pp1 | fxtrace | 2 | 10400 | 0.0% | 2.00 | 400 | 4.0% | 4.00 | 100 |"* ]] &&
	grep -q 'not charged in this view' "$tmp/table" &&
	grep -qx '| pp1 | fxtrace | 0.20 | 100 | +0 | 880 (20.0%) | 0 (0.0%) | 0 |' "$tmp/table"
result $? "report.awk calibrate=1: the reader's CPU after the loop is shown, not charged"
# The estimated drain charges the reader's CPU after the loop too: with
# fxtrace holding 80000 of its 280000 B after the window, its reader's
# (100000 + 200000) ns over the other 200000 B cost 120 ns an op for
# them, 30 an event (without the window's 200000 ns it would be 10).
sed '/cfg=fxtrace/{s/out_bytes=250000 /out_bytes=280000 /; s/pending_after_bytes=0 /pending_after_bytes=80000 /}' "$tmp/after.txt" >"$tmp/after-tail.txt"
awk -v calibrate=0 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/after-tail.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
grep -q '^| pp1 | fxtrace | 0\.20 | 100 | +50 | .* | 30 |$' "$tmp/table"
result $? "report.awk: the estimated cost of draining what is left counts the reader's CPU after the loop (30 ns/event, not 10)"
# The same with round 2 on a host twice as slow (calibrations and times
# doubled): the estimated drain, raw ns of the run (100 a op in both
# rounds), is scaled as the run's time is, by the median calibration 750
# over the round's: 150 and 75, median 112.5 a op, 28 an event (the raw
# median would be 25).
sed '/ round=2 /{s/calib_before=500 calib_after=500/calib_before=1000 calib_after=1000/; s/ns_per_op=10000 /ns_per_op=20000 /; s/ns_per_op=10400 /ns_per_op=20800 /; s/ns_per_op=12000 /ns_per_op=24000 /}' \
	"$tmp/after.txt" >"$tmp/after-slow.txt"
awk -v calibrate=1 -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$tmp/after-slow.txt" >"$tmp/table" 2>&1
cp "$tmp/table" "$tmp/last"
grep -qx '| pp1 | ftrace | 0.00 | 750 | +0 | 1100 (25.0%) | 1100 (25.0%) | 28 |' "$tmp/table"
result $? "report.awk calibrate=1: the estimated drain is calibrated as the run's time is"

# pool.awk: rounds of several boots pooled. Times are ns_per_op, 4400
# events over 1100 operations = 4 per op, so a round's cost per event is
# d = (time - none) / 4, and a median of d is the median difference / 4:
#   boot A  r1 fxtrace 2.5, ftrace 7.5: 0.333   r2 3, 6: 0.5
#           r3 1, -0.5: ftrace cost <= 0, ratio inf
#   boot B  r1 4, 10: 0.4   r2 fxtrace failed (no ratio, not a round)
#           and ftrace 15   r3 7.5, 12.5: 0.6
# pooled: median d(fxtrace) of 2.5 3 1 4 7.5 = 3 over median d(ftrace) of
# 7.5 6 -0.5 10 15 12.5 = 8.75 -> 0.343; per-round ratios 0.333 0.4 0.5
# 0.6 inf -> median 0.500, too few rounds (5) for an interval; per boot A
# 2.5 / 6 = 0.417, B 5.75 / 12.5 = 0.460 (median 0.438, too few boots
# for an interval), so 1 of 2 at most 0.45.
pool_run() { # pool_run BOOT ROUND CFG TIME [RC]: calibrations of 1, both estimators give TIME
	echo "BENCH view=wall round=$2 wl=pp1 cfg=$3 rc=${5:-0} ops=1000 warmup=100 ns_per_op=$4 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=$4 calib_med_ns=1 retries=0" >>"$tmp/pool-$1.txt"
}
rm -f "$tmp"/pool-*.txt
pool_run a 1 none 100; pool_run a 1 fxtrace 110; pool_run a 1 ftrace 130
pool_run a 2 none 100; pool_run a 2 fxtrace 112; pool_run a 2 ftrace 124
pool_run a 3 none 100; pool_run a 3 fxtrace 104; pool_run a 3 ftrace 98
pool_run b 1 none 200; pool_run b 1 fxtrace 216; pool_run b 1 ftrace 240
pool_run b 2 none 200; pool_run b 2 fxtrace '' 124; pool_run b 2 ftrace 260
pool_run b 3 none 200; pool_run b 3 fxtrace 230; pool_run b 3 ftrace 250
# guest.sh's last line: each boot finished, its kernel log clean.
echo "BENCHINFO kernel_warnings=0" | tee -a "$tmp/pool-a.txt" >>"$tmp/pool-b.txt"
awk -v target=0.45 -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-a.txt" "$tmp/pool-b.txt" >"$tmp/last" 2>&1
grep -qx '| pp1 | 2 | 5 | 0.343 | 0.500 \[-\] | 0 / 1 / 0 | 0.438 \[-\] | 0.417, 0.460 | 1 of 2 |' "$tmp/last" &&
	grep -q '^Pooled: 2 boot(s) of the wall view, runs timed as ns_per_op / the calib_med_ns of the round.s "none" run; fxtrace against ftrace, target <= 0.45\.$' "$tmp/last"
result $? "pool.awk: pooled and per-boot ratios, noise rounds and failed runs of a hand-worked fixture"
# A boot whose kernel complained (kernel_warnings=2), or that did not
# finish (no kernel_warnings line: guest.sh writes it last; a results.txt
# the watchdog left, its last rounds missing), is left out whole and
# named: boot A alone is pooled (its 0.417).
sed 's/^BENCHINFO kernel_warnings=0$/BENCHINFO kernel_warnings=2/' "$tmp/pool-b.txt" >"$tmp/pool-b-kw.txt"
grep -v '^BENCHINFO kernel_warnings=\| round=3 ' "$tmp/pool-b.txt" >"$tmp/pool-b-partial.txt"
awk -v target=0.45 -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-a.txt" "$tmp/pool-b-kw.txt" "$tmp/pool-b-partial.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | 1 | 3 | .* | 0\.417 | 1 of 1 |$' "$tmp/last" &&
	grep -q '^Pooled: 1 boot(s) of the wall view' "$tmp/last" &&
	grep -qx '2 boot(s) left out (pooled only: boots that finished, their kernel log checked and clean, BENCHINFO kernel_warnings=0):' "$tmp/last" &&
	grep -qxF -- "- $tmp/pool-b-kw.txt: kernel_warnings=2: its kernel logged warnings or bugs" "$tmp/last" &&
	grep -qxF -- "- $tmp/pool-b-partial.txt: no BENCHINFO kernel_warnings line: the boot did not finish (or did not check its kernel log)" "$tmp/last"
result $? "pool.awk: a boot with kernel_warnings above 0, or without the line (it did not finish), is left out and named"
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-b-kw.txt" >"$tmp/last" 2>&1
(($? == 1)) && grep -q 'pool.awk: every boot was left out: nothing to pool' "$tmp/last"
result $? "pool.awk: nothing but failed boots is exit 1"
! grep -q 'could not say how many events it lost' "$tmp/last"
result $? "pool.awk: no lost-count note when every run gave its count"
sed '/cfg=ftrace/s/ lost=0 / lost=- /' "$tmp/pool-b.txt" >"$tmp/pool-b-unknown.txt"
awk -v target=0.45 -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-a.txt" "$tmp/pool-b-unknown.txt" >"$tmp/last" 2>&1
grep -qx 'ftrace could not say how many events it lost in 3 runs: .*' "$tmp/last" &&
	! grep -q '^fxtrace could not say' "$tmp/last"
result $? "pool.awk: runs whose tracer could not say what it lost are named, not taken as losing 0"
sed '/cfg=ftrace/s/ events=4400 lost=0 / events=- lost=- /' "$tmp/pool-b.txt" >"$tmp/pool-b-noevents.txt"
awk -v target=0.45 -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-a.txt" "$tmp/pool-b-noevents.txt" >"$tmp/last" 2>&1
grep -qx 'ftrace gave no count of its events in 3 runs (events=-): they are left out of its cost per event, and what it lost there is not known\.' "$tmp/last"
result $? "pool.awk: runs whose tracer gave no event count are counted and said, not passed over"
# pool.awk leaves cut BENCH lines out too (as report.awk above): boot B's round 3 fxtrace line cut at its events.
sed '/round=3 wl=pp1 cfg=fxtrace/s/ events=4400 .*/ events=44/' "$tmp/pool-b.txt" >"$tmp/pool-b-cut.txt"
awk -v target=0.45 -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-a.txt" "$tmp/pool-b-cut.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | 2 | 4 | ' "$tmp/last" &&
	grep -qx '1 runs left out (truncated: .*' "$tmp/last" &&
	grep -qxF -- "- $tmp/pool-b-cut.txt: line 8 (round 3 pp1 fxtrace)" "$tmp/last"
result $? "pool.awk: a cut BENCH line is left out of the pool and named with its file and line"
# A cost <= 0 on either side counts alike: fxtrace's as ratio 0, ftrace's
# as inf, both as no ratio. Costs per event (fxtrace, ftrace): r1 -0.25,
# 5: 0; r2 0.5, 2.5: 0.2; r3 0.75, 2.5: 0.3; r4 1.25, 2.5: 0.5; r5 1,
# -0.25: inf; r6 -0.5, -0.75: none. Median of 0 0.2 0.3 0.5 inf = 0.300.
# With the two configurations' names swapped every ratio is inverted,
# and so is the median: 0 2 3.333 5 inf -> 3.333. Pooled: median
# difference 2.5 (-2 -1 2 3 4 5) over 10 (-3 -1 10 10 10 20) -> 0.250.
while read -r r fx ft; do
	pool_run d "$r" none 100; pool_run d "$r" fxtrace "$fx"; pool_run d "$r" ftrace "$ft"
done <<'EOF'
1 99 120
2 102 110
3 103 110
4 105 110
5 104 99
6 98 97
EOF
echo "BENCHINFO kernel_warnings=0" >>"$tmp/pool-d.txt"
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-d.txt" >"$tmp/last" 2>&1
sed 's/cfg=fxtrace/cfg=X/; s/cfg=ftrace/cfg=fxtrace/; s/cfg=X/cfg=ftrace/' "$tmp/pool-d.txt" >"$tmp/pool-swapped.txt"
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-swapped.txt" >>"$tmp/last" 2>&1
grep -qx '| pp1 | 1 | 6 | 0.250 | 0.300 \[-\] | 1 / 1 / 1 | 0.250 \[-\] | 0.250 |' "$tmp/last" &&
	grep -qx '| pp1 | 1 | 6 | 4.000 | 3.333 \[-\] | 1 / 1 / 1 | 4.000 \[-\] | 4.000 |' "$tmp/last"
result $? "pool.awk: a cost <= 0 counts alike on either side (ratio 0 or inf), so swapping the two inverts the median"
# 20 rounds whose ratios are 0.01 .. 0.20: the 95% interval of the median
# of 20 values is the 6th to the 15th (binomial table), 0.06 to 0.15.
for i in $(seq 1 20); do
	pool_run c "$i" none 100; pool_run c "$i" ftrace 200; pool_run c "$i" fxtrace "$((100 + i))"
done
echo "BENCHINFO kernel_warnings=0" >>"$tmp/pool-c.txt"
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-c.txt" >"$tmp/last" 2>&1
grep -qx '| pp1 | 1 | 20 | 0.105 | 0.105 \[0.060, 0.150\] | 0 / 0 / 0 | 0.105 \[-\] | 0.105 |' "$tmp/last"
result $? "pool.awk: the median's 95% interval of 20 rounds is their 6th to 15th value"
# A tracer's reader slows the calibration loop next to it: ftrace's runs
# calibrate 5% slower than the none run of their round. Each round is
# divided by its none run's calibration, so ftrace's cost is all of its
# time: 25 ns/event against fxtrace's 10 -> 0.400 (round 2 on a host
# twice as slow, the same figures). The old estimator divided ftrace's
# pieces by its own calibration, 1100 / 1.05 = 1047.6, and gave 0.840.
# Round 3's none run has no calibration: its three runs are missing data.
cat >"$tmp/pool-e.txt" <<'EOF'
BENCH view=wall round=1 wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=1000 calib_before=1 calib_after=1 events=- lost=- norm_per_op=1000 calib_med_ns=1.00 retries=0
BENCH view=wall round=1 wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=1040 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=1040 calib_med_ns=1.00 retries=0
BENCH view=wall round=1 wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=1100 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=1047.619 calib_med_ns=1.05 retries=0
BENCH view=wall round=2 wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=2000 calib_before=2 calib_after=2 events=- lost=- norm_per_op=1000 calib_med_ns=2.00 retries=0
BENCH view=wall round=2 wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=2080 calib_before=2 calib_after=2 events=4400 lost=0 norm_per_op=1040 calib_med_ns=2.00 retries=0
BENCH view=wall round=2 wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=2200 calib_before=2 calib_after=2 events=4400 lost=0 norm_per_op=1047.619 calib_med_ns=2.10 retries=0
BENCH view=wall round=3 wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=1000 calib_before=- calib_after=- events=- lost=- norm_per_op=- calib_med_ns=- retries=0
BENCH view=wall round=3 wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=1040 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=1040 calib_med_ns=1.00 retries=0
BENCH view=wall round=3 wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=1100 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=1047.619 calib_med_ns=1.05 retries=0
BENCHINFO kernel_warnings=0
EOF
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-e.txt" >"$tmp/last" 2>&1
sed -n '/^| pp1 /p' "$tmp/last" >"$tmp/rows"
[[ $(sed -n 1p "$tmp/rows") == '| pp1 | 1 | 2 | 0.400 | 0.400 [-] | 0 / 0 / 0 | 0.400 [-] | 0.400 |' &&
	$(sed -n 2p "$tmp/rows") == '| pp1 | 1 | 2 | 0.840 | 0.840 [-] | 0 / 0 / 0 | 0.840 [-] | 0.840 |' ]] &&
	grep -q '^3 runs left out: their round has no "none" run with a calibration (missing data, not noise)\.$' "$tmp/last" &&
	grep -q '^The old estimator, for comparison' "$tmp/last"
result $? "pool.awk: each round is divided by its none run's calibration, not by one its tracer's reader slowed; the old estimator printed after it"
# 2000 rounds whose ratios are 0.001 .. 2.000: the interval is the 956th
# to the 1045th value (exact binomial sums). 2^-2000 underflows a double,
# so the probabilities must not be computed from it directly.
for i in $(seq 1 2000); do
	echo "BENCH view=wall round=$i wl=pp1 cfg=none rc=0 ops=1000 warmup=100 ns_per_op=100000 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=100000 calib_med_ns=1 retries=0"
	echo "BENCH view=wall round=$i wl=pp1 cfg=ftrace rc=0 ops=1000 warmup=100 ns_per_op=101000 calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=101000 calib_med_ns=1 retries=0"
	echo "BENCH view=wall round=$i wl=pp1 cfg=fxtrace rc=0 ops=1000 warmup=100 ns_per_op=$((100000 + i)) calib_before=1 calib_after=1 events=4400 lost=0 norm_per_op=$((100000 + i)) calib_med_ns=1 retries=0"
done >"$tmp/pool-big.txt"
echo "BENCHINFO kernel_warnings=0" >>"$tmp/pool-big.txt"
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-big.txt" >"$tmp/last" 2>&1
grep -q '^| pp1 | 1 | 2000 | [0-9.]* | [0-9.]* \[0.956, 1.045\] | 0 / 0 / 0 |' "$tmp/last"
result $? "pool.awk: the median's 95% interval of 2000 rounds is their 956th to 1045th value"
# One boot: the same ratios as report.awk calibrate=1 on that boot (above:
# 0.200 against ftrace, 0.080 against perf), the one ftrace round too few
# for a per-round interval.
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$T/fixture.txt" >"$tmp/last" 2>&1 &&
	awk -v other=perf -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$T/fixture.txt" >>"$tmp/last" 2>&1
grep -qx '| pp1 | 1 | 1 | 0.200 | 0.200 \[-\] | 0 / 0 / 0 | 0.200 \[-\] | 0.200 |' "$tmp/last" &&
	grep -qx '| pp1 | 1 | 2 | 0.080 | 0.080 \[-\] | 0 / 0 / 0 | 0.080 \[-\] | 0.080 |' "$tmp/last"
result $? "pool.awk on one boot: report.awk's ratios of that boot"
# One boot of the instruction view: report.awk calibrate=0 charges the
# reader's CPU time after the loop (tracer_cpu_after_ns / ops) to the run's
# time, and pool.awk must too: on the --settle fixture above report.awk's
# fxtrace / ftrace is 0.300 (150 / 500 ns an event), without the charge
# 0.200.
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/after.txt" >"$tmp/last" 2>&1
grep -qx '| pp1 | 1 | 2 | 0.300 | 0.300 \[-\] | 0 / 0 / 0 | 0.300 \[-\] | 0.300 |' "$tmp/last"
result $? "pool.awk on one boot of the instruction view: report.awk's ratio, the reader's work after the loop charged"
sed 's/view=wall/view=icount/' "$tmp/pool-a.txt" >"$tmp/pool-icount.txt"
awk -f "$BENCH/bench_lines.awk" -f "$BENCH/pool.awk" "$tmp/pool-b.txt" "$tmp/pool-icount.txt" >"$tmp/last" 2>&1
rc=$?
((rc == 1)) && grep -q 'pool.awk: .*pool-icount.txt: a boot of the icount view among boots of the wall view' "$tmp/last"
result $? "pool.awk: boots of two views are refused (exit 1, names the file)"

# valgrind: no errors, no leaks
if command -v valgrind >/dev/null; then
	vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all)
	for cmd in "fxt-bench calib -n 1000" "fxt-bench pingpong -n 200 -C 4 -N 100" "fxt-bench sleepwake -n 300 -t 4 -k 2 -C 3 -N 100" \
		"fxt-bench writecost -n 1 -o $tmp/vg-writecost" "drain-bench -m 2 -b 256" "bench-rusage -o /dev/null -- true" "fxt-probe-only -- true"; do
		# shellcheck disable=SC2086 # the arguments are meant to split
		"${vg[@]}" "$BUILD/"$cmd >"$tmp/last" 2>&1
		rc=$?
		((rc != 99)) && ! grep -q '^==[0-9]*==' "$tmp/last"
		result $? "valgrind $cmd: no errors, no leaks"
	done
else
	skip "valgrind" "valgrind is not installed"
fi

echo "1..$n"
echo "$passed passed, $failed failed"
((failed == 0))
