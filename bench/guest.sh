#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - the benchmark inside the VM (busybox sh, as root), started by
# bench/run.sh through scripts/vm-run.sh.
#
# Payload layout (bench/run.sh builds it): ./fxtrace.ko; ./bin/ with the
# static fxt-collect, fxt-dump, fxt-bench and fxt-probe-only, Debian's perf and
# trace-cmd; ./lib/ with the shared libraries those two need and the
# dynamic loader; ./bench/guest.sh (this file), ./bench/tracer_counts.sh and
# ./bench/kmsg_scan.sh (selftests/kmsg_scan.sh, for its KERNEL_BAD).
#
# For each round, for each workload, the configurations run back to back
# (none probe fxtrace ftrace perf none probe ...), so slow drifts of the host
# hit all of them alike. Around every run, fxt-bench calib measures how fast
# the emulated CPU is at that moment. Each run prints one line
#   BENCH view=V round=R wl=W cfg=C rc=N ops=N warmup=N ns_per_op=X
#         calib_before=X calib_after=X csw=N events=N lost=N out_bytes=N
#         file_bytes=N tracer_cpu_ns=N elapsed_ns=N interval_ns=N
#         norm_per_op=X calib_med_ns=X settle_ns=N tracer_cpu_after_ns=N
#         pending_end_bytes=N pending_after_bytes=N pending_end_records=N
#         pending_after_records=N retries=N
# on stdout (the console, so that a guest that hangs later still leaves its
# finished runs behind) and in $OUT/results.txt. "-" = not applicable.
# The first round's trace files are kept in $OUT/keep/ for the host's
# per-record size analysis.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
PATH="$ROOT/bin:$PATH"
OUT=${FXTRACE_OUT:-/out}
SCRATCH=/tmp/bench	# tmpfs: every tracer writes to memory, none to a disk

view=wall rounds=5 workloads="pp1 pp2 sw" configs="none probe fxtrace ftrace perf"
pp_ops=20000 sw_ops=20000 sw_threads=32 sw_tokens=1 calib_ops=100000
timeout=600 wakeup_preemption=off profile=on calib_tolerance=0 retries=3
chunks=1 chunk_calib=0 settle=300

usage() {
	cat <<EOF
Usage: guest.sh [--view NAME] [--rounds N] [--workloads "pp1 pp2 sw"]
                [--configs "none probe fxtrace ftrace perf"] [--pp-ops N]
                [--sw-ops N] [--sw-threads N] [--sw-tokens N]
                [--calib-ops N] [--timeout SECS] [--wakeup-preemption on|off]
                [--profile on|off] [--calib-tolerance PCT] [--retries N]
                [--chunks K] [--chunk-calib N] [--settle MS]
Runs inside the benchmark VM; see bench/README.md.
  pp1  pingpong, both processes on CPU 0 (4 scheduler events per round trip)
  pp1t pp1 between two threads of one process: the same switches without a
       change of address space (QEMU TCG flushes its whole software TLB on
       every CR3 write, so pp1 refills it twice per round trip and pp1t not)
  pp2  pingpong across CPUs 0 and 1 (needs 2 CPUs; skipped otherwise)
  sw   sleepwake: --sw-threads threads in a pipe ring, --sw-tokens tokens
--wakeup-preemption off (the default) sets the scheduler feature
NO_WAKEUP_PREEMPTION, so that a tracer's speed cannot change the schedule:
otherwise a ping-pong round trip is 3 or 4 events depending on whether the
wakee preempted the waker, and how often depends on the tracer.
--chunks K --chunk-calib N: run each pp/sw workload in K pieces with N
getppid() calls timed around each (fxt-bench's norm_per_op; bench/run.sh
does this in the wall view).
--calib-tolerance PCT: repeat a run (up to --retries times) when the
calibration after it differs from the one before by more than PCT percent:
the host's speed changed during the run (0 = never, the default;
bench/run.sh passes its own --calib-tolerance, also 0 unless given, in the
wall view, and 0 in the icount view).
--settle MS (default 300): after each pp/sw loop the workload sleeps MS ms,
blocked, and fxt-bench reports the tracer's CPU time in that window
(tracer_cpu_after_ns): its reader catching up with what was still pending
when the loop ended (fxt-collect drains at least every 100 ms). Not workload
time. It also reports the bytes still unread at the loop's end and after the
window (pending_*).
--profile on (the default): after the rounds, perf samples (cpu-clock)
where fxt-collect's time goes during pp1, into $OUT/profile-collector.txt.
Configurations: none; probe (fxtrace's probes into 128 MiB rings that
nobody drains: fxt-probe-only); fxtrace (fxt-collect draining to tmpfs);
ftrace (trace-cmd record); perf (perf record -a).
EOF
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { usage >&2; exit 2; }
	case $1 in
	--view) view=$2 ;;
	--rounds) rounds=$2 ;;
	--workloads) workloads=$2 ;;
	--configs) configs=$2 ;;
	--pp-ops) pp_ops=$2 ;;
	--sw-ops) sw_ops=$2 ;;
	--sw-threads) sw_threads=$2 ;;
	--sw-tokens) sw_tokens=$2 ;;
	--calib-ops) calib_ops=$2 ;;
	--timeout) timeout=$2 ;;
	--wakeup-preemption) wakeup_preemption=$2 ;;
	--profile) profile=$2 ;;
	--calib-tolerance) calib_tolerance=$2 ;;
	--retries) retries=$2 ;;
	--chunks) chunks=$2 ;;
	--chunk-calib) chunk_calib=$2 ;;
	--settle) settle=$2 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift 2
done

info() { echo "BENCHINFO $*" | tee -a "$OUT/results.txt"; }
say() { echo "# bench: $*"; }

mkdir -p "$OUT/keep" "$OUT/raw" "$SCRATCH" || exit 1
: >"$OUT/results.txt"

# Debian's perf and trace-cmd are dynamic executables: give them their
# loader at the path compiled into them, and their libraries.
mkdir -p /lib64 && ln -sf "$ROOT/lib/ld-linux-x86-64.so.2" /lib64/ld-linux-x86-64.so.2
export LD_LIBRARY_PATH="$ROOT/lib"
export HOME=/root

ncpu=$(grep -c ^processor /proc/cpuinfo)
T=/sys/kernel/tracing
info "view=$view" "kernel=$(uname -r)" "cpus=$ncpu" "rounds=$rounds"
# CLOCK_BOOTTIME (fxtrace) reads it; ftrace's and perf's clock is sched_clock.
info "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" \
	"cmdline=$(tr ' ' ',' </proc/cmdline)"
perf_v=$(perf --version 2>&1 | awk 'NR == 1 && $2 == "version" { print $3 }')
tc_v=$(trace-cmd -h 2>&1 | sed -n 's/^trace-cmd version \([^ ]*\).*/\1/p' | head -n 1)
# How the kernel copies and clears pages (rep movsb with erms/fsrm, else rep
# movsq): the instruction view counts each rep iteration (run.sh --tcg-cpu).
str_ops=$(grep -m 1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(erms|fsrm|rep_good)$' | tr '\n' ',')
info "cpu_string_flags=${str_ops%,}"
info "perf=${perf_v:-BROKEN}" "trace-cmd=${tc_v:-BROKEN}"
if [ -z "$perf_v" ] || [ -z "$tc_v" ]; then
	say "ERROR: perf or trace-cmd does not run in the guest (a missing library?):"
	perf --version 2>&1 | sed 's/^/#   /'
	trace-cmd -h 2>&1 | head -n 3 | sed 's/^/#   /'
	exit 1
fi
# Every tracer at its default buffer size, as a user would run it.
info "ftrace_buffer_size_kb=$(cat "$T/buffer_size_kb")" \
	"perf_event_mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)" \
	"fxtrace_buf=4096kb_per_cpu"
F=/sys/kernel/debug/sched/features
case $wakeup_preemption in
off)
	if ! echo NO_WAKEUP_PREEMPTION >"$F"; then
		say "ERROR: cannot set NO_WAKEUP_PREEMPTION in $F (no CONFIG_SCHED_DEBUG?); use --wakeup-preemption on"
		exit 1
	fi
	;;
on) [ -w "$F" ] && echo WAKEUP_PREEMPTION >"$F" ;;
*) usage >&2; exit 2 ;;
esac
info "wakeup_preemption=$wakeup_preemption" "sched_features=$(tr ' ' ',' <"$F" 2>/dev/null)"
for e in sched_switch sched_wakeup sched_wakeup_new; do
	cp "$T/events/sched/$e/format" "$OUT/keep/ftrace-$e.format" 2>/dev/null
done

if ! insmod "$ROOT/fxtrace.ko"; then
	say "ERROR: insmod fxtrace.ko failed (see dmesg); the fxtrace configuration cannot run"
	exit 1
fi
# The module stays loaded for all configurations: without a session its
# probes are not attached, so "none" pays nothing for it.

wl_args() { # $1 = workload
	case $1 in
	pp1) a="pingpong --cpus 0,0 -n $pp_ops" ;;
	pp1t) a="pingpong --cpus 0,0 --same-process -n $pp_ops" ;;
	pp2) a="pingpong --cpus 0,1 -n $pp_ops" ;;
	sw) a="sleepwake -n $sw_ops -t $sw_threads -k $sw_tokens" ;;
	esac
	echo "$a --chunks $chunks --chunk-calib $chunk_calib --settle $settle"
}

# field KEY FILE: the value of KEY=... in the "result" line of FILE
field() {
	sed -n "s/^result .*[ ]$1=\([^ ]*\).*/\1/p" "$2" | head -n 1
}

calib() {
	fxt-bench calib -n "$calib_ops" -T "$timeout" >"$SCRATCH/calib.out" 2>&1 &&
		field ns_per_op "$SCRATCH/calib.out"
}

# Each tracer's own account of what it recorded and lost, from its output
# (the parsers, tested on the host, are in tracer_counts.sh). Each sets
# events, lost, out_bytes; the tracers' report output is appended to the
# run's log after it was read.
. "$ROOT/bench/tracer_counts.sh"

count_ftrace_run() {
	# A failed report gives no counts (its output is still logged).
	if trace-cmd report --stat -i "$SCRATCH/t.dat" >"$SCRATCH/stat.txt" 2>&1; then
		count_ftrace "$1" "$SCRATCH/stat.txt"
	else
		count_ftrace "$1" /dev/null
		say "WARNING: trace-cmd report --stat failed: $(tail -n 1 "$SCRATCH/stat.txt")"
	fi
	{ echo "# trace-cmd report --stat"; cat "$SCRATCH/stat.txt"; } >>"$1"
}

count_perf_run() {
	perf report --stats -i "$SCRATCH/p.data" >"$SCRATCH/stats.txt" 2>&1
	perf report --header-only -i "$SCRATCH/p.data" >"$SCRATCH/header.txt" 2>/dev/null
	count_perf "$1" "$SCRATCH/stats.txt" "$SCRATCH/header.txt"
	{ echo "# perf report --stats"; cat "$SCRATCH/stats.txt"; } >>"$1"
}

# unsteady BEFORE AFTER: true if the calibrations differ by more than
# calib_tolerance percent (of the smaller one)
unsteady() {
	[ "$calib_tolerance" != 0 ] && [ -n "$1" ] && [ -n "$2" ] &&
		awk -v a="$1" -v b="$2" -v t="$calib_tolerance" \
			'BEGIN { lo = a < b ? a : b; d = a - b; if (d < 0) d = -d; exit !(lo > 0 && 100 * d / lo > t) }'
}

# run_one ROUND WL CFG: run_once, repeated while the host was unsteady
run_one() {
	try=0
	while :; do
		run_once "$@"
		unsteady "$c0" "$c1" || break
		try=$((try + 1))
		if [ "$try" -gt "$retries" ]; then
			say "round $1 $2 $3: the calibration still moved by more than $calib_tolerance% after $retries retries; keeping the last run"
			break
		fi
		say "round $1 $2 $3: calibration $c0 -> $c1 ns moved by more than $calib_tolerance%: the host's speed changed; running it again ($try of $retries)"
	done
	line="$line retries=$try"
	echo "$line" | tee -a "$OUT/results.txt"
}

# run_once ROUND WL CFG: one run; leaves the BENCH line in $line
run_once() {
	r=$1 wl=$2 cfg=$3
	# shellcheck disable=SC2046 # word splitting of the workload arguments is wanted
	set -- fxt-bench $(wl_args "$wl") -T "$timeout"
	events=- lost=- out_bytes=-
	rm -rf "${SCRATCH:?}"/t.* "$SCRATCH"/p.* "$SCRATCH"/trace*.dat*
	c0=$(calib)
	log=$SCRATCH/run.log
	# The outer timeout only catches a tracer that hangs after the
	# workload gave up (the workload's own -T fires first).
	tmo="timeout -s KILL $((timeout + 120))"
	case $cfg in
	none) $tmo "$@" >"$log" 2>&1 ;;
	probe) $tmo fxt-probe-only -b 128 -- "$@" >"$log" 2>&1 ;;
	fxtrace) $tmo fxt-collect -o "$SCRATCH/t.fxt" -- "$@" -W fxt-collect -P fxtrace >"$log" 2>&1 ;;
	ftrace)
		$tmo trace-cmd record -e sched:sched_switch -e sched:sched_wakeup \
			-e sched:sched_wakeup_new -o "$SCRATCH/t.dat" "$@" -W trace-cmd -P ftrace >"$log" 2>&1
		;;
	perf)
		$tmo perf record -e sched:sched_switch -e sched:sched_wakeup \
			-e sched:sched_wakeup_new -a -o "$SCRATCH/p.data" -- "$@" -W perf -P perf >"$log" 2>&1
		;;
	esac
	rc=$?
	c1=$(calib)
	case $rc in
	124) say "TIMEOUT: $wl under $cfg did not finish within $timeout s (round $r); see $OUT/raw/$wl-$cfg-$r.log" ;;
	137) say "TIMEOUT: $cfg did not stop within $((timeout + 120)) s after $wl (round $r); killed" ;;
	esac
	case $cfg in
	probe) [ $rc -eq 0 ] || [ $rc -eq 3 ] && count_probe "$log" ;;
	fxtrace) [ $rc -eq 0 ] || [ $rc -eq 3 ] && count_fxtrace "$log" "$SCRATCH/t.fxt" ;;
	ftrace) [ $rc -eq 0 ] && count_ftrace_run "$log" ;;
	perf) [ $rc -eq 0 ] && count_perf_run "$log" ;;
	esac
	# fxt-collect and fxt-probe-only exit 3 when records were dropped;
	# that is a result, not a failure (the lost count says so).
	case $cfg in probe | fxtrace) [ $rc -eq 3 ] && rc=0 ;; esac
	file_bytes=-
	for f in "$SCRATCH/t.fxt" "$SCRATCH/t.dat" "$SCRATCH/p.data"; do
		[ -f "$f" ] && file_bytes=$(wc -c <"$f")
	done
	cp "$log" "$OUT/raw/$wl-$cfg-$r.log"
	if [ "$r" = 1 ]; then
		for f in "$SCRATCH/t.fxt" "$SCRATCH/t.dat" "$SCRATCH/p.data"; do
			[ -f "$f" ] && cp "$f" "$OUT/keep/$wl-$cfg.${f##*.}"
		done
	fi
	line="BENCH view=$view round=$r wl=$wl cfg=$cfg rc=$rc"
	w=$(field warmup "$log")
	line="$line ops=$(field ops "$log") warmup=${w:-0} ns_per_op=$(field ns_per_op "$log")"
	line="$line calib_before=${c0:--} calib_after=${c1:--}"
	line="$line csw=$(field csw "$log") events=${events:--} lost=${lost:--}"
	line="$line out_bytes=${out_bytes:--} file_bytes=$file_bytes"
	line="$line tracer_cpu_ns=$(field tracer_cpu_ns "$log") elapsed_ns=$(field elapsed_ns "$log")"
	line="$line interval_ns=$(field interval_ns "$log") norm_per_op=$(field norm_per_op "$log")"
	line="$line calib_med_ns=$(field calib_med_ns "$log")"
	for k in settle_ns tracer_cpu_after_ns pending_end_bytes pending_after_bytes pending_end_records pending_after_records; do
		v=$(field $k "$log")
		line="$line $k=${v:--}"
	done
}

for wl in $workloads; do
	if [ "$wl" = pp2 ] && [ "$ncpu" -lt 2 ]; then
		say "pp2 needs 2 CPUs, this guest has $ncpu: skipped"
		info skipped wl=pp2 reason=one_cpu
	fi
done
# Debian's 6.12 tests its crypto algorithms in kernel threads
# (cryptomgr_test) for the first seconds of a boot. On one vCPU they took
# half the CPU from whatever ran then: the first round's first run, or
# writecost in a short boot (docs/performance.md). Start once they are
# gone (at most 60 s).
waited=0 self_tests='done'
while grep -qsx cryptomgr_test /proc/[0-9]*/comm; do
	if [ "$waited" -ge 600 ]; then
		self_tests=still_running
		break
	fi
	sleep 0.1
	waited=$((waited + 1))
done
info "boot_self_tests=$self_tests" \
	"waited_for_them_s=$((waited / 10)).$((waited % 10))" \
	"start_uptime_s=$(cut -d' ' -f1 /proc/uptime)"
say "start: $rounds rounds of [$workloads] x [$configs]"
r=1
while [ "$r" -le "$rounds" ]; do
	for wl in $workloads; do
		[ "$wl" = pp2 ] && [ "$ncpu" -lt 2 ] && continue
		for cfg in $configs; do
			run_one "$r" "$wl" "$cfg"
		done
	done
	say "round $r of $rounds done at $(cut -d' ' -f1 /proc/uptime) s guest time"
	r=$((r + 1))
done
# The price of output: every tracer's reader writes its bytes to $SCRATCH,
# and in the instruction view the kernel's copy and page clearing count one
# instruction per byte (rep movsb/stosb), so bytes per event set a floor
# under each reader's cost. report.awk turns this into ns per event.
if fxt-bench writecost -n 16 -o "$SCRATCH/writecost" -T "$timeout" >"$SCRATCH/writecost.out" 2>&1; then
	info "tmpfs_write_ns_per_byte=$(field ns_per_op "$SCRATCH/writecost.out") (fxt-bench writecost: 16 MiB in 1 MiB write() calls to $SCRATCH)"
else
	say "WARNING: fxt-bench writecost failed: $(tail -n 1 "$SCRATCH/writecost.out")"
fi
# The same price split: the copy alone (pages that exist), and writes into
# pages allocated ahead by fallocate(), which is timed apart. Whether
# preallocating would make a reader's writes cheaper or only move the cost
# (docs/performance.md).
if fxt-bench writecost -n 16 --pages reused -o "$SCRATCH/writecost" -T "$timeout" >"$SCRATCH/writecost.out" 2>&1 &&
	reused=$(field ns_per_op "$SCRATCH/writecost.out") &&
	fxt-bench writecost -n 16 --pages fallocated -o "$SCRATCH/writecost" -T "$timeout" >"$SCRATCH/writecost.out" 2>&1; then
	info "tmpfs_rewrite_ns_per_byte=$reused tmpfs_fallocate_ns_per_byte=$(field fallocate_ns_per_byte "$SCRATCH/writecost.out") tmpfs_write_fallocated_ns_per_byte=$(field ns_per_op "$SCRATCH/writecost.out") (fxt-bench writecost --pages reused, --pages fallocated)"
else
	say "WARNING: fxt-bench writecost --pages failed: $(tail -n 1 "$SCRATCH/writecost.out")"
fi

# Where fxt-collect's time goes: sample every 10 us of CPU time while it
# drains pp1 (perf resolves fxt-collect's symbols from its unstripped
# binary). Only its user-space samples are exact: cpu-clock fires from a
# timer interrupt, so time spent in the kernel with interrupts off (the
# probes, the context switch) is charged to wherever they are re-enabled,
# typically finish_task_switch of the next task. That is also why the
# probes are measured by instruction counts (icount view, fxt-probe-only)
# rather than sampled.
profile_collector() {
	rm -f "$SCRATCH"/t.* "$SCRATCH/prof.data"
	# shellcheck disable=SC2046 # word splitting of the workload arguments is wanted
	timeout -s KILL $((timeout + 120)) perf record -a -e cpu-clock -c 10000 \
		-o "$SCRATCH/prof.data" -- fxt-collect -o "$SCRATCH/t.fxt" -- \
		fxt-bench $(wl_args pp1) -W fxt-collect >"$SCRATCH/prof.log" 2>&1
	{
		echo "# perf record -a -e cpu-clock -c 10000 -- fxt-collect -- fxt-bench $(wl_args pp1)"
		grep -E '^result|^fxt-collect: traced' "$SCRATCH/prof.log"
		# (Its kernel-side samples do not show up here at all; its whole
		# CPU time is tracer_cpu_ns above, 10 us per sample below.)
		echo "# fxt-collect's user-space samples by function"
		perf report -i "$SCRATCH/prof.data" --stdio --comm fxt-collect --dsos fxt-collect \
			--sort sym --percentage relative --percent-limit 1 2>/dev/null |
			grep -v -e '^$' -e '^# *$' -e tips.txt
	} >"$OUT/profile-collector.txt"
	say "profile of fxt-collect: $OUT/profile-collector.txt"
}
[ "$profile" = on ] && profile_collector

rmmod fxtrace || say "WARNING: rmmod fxtrace failed"
# A tracer that made the kernel complain does not get a clean table: the
# lines of the kernel log that match the selftests' KERNEL_BAD (the one
# list, from selftests/kmsg_scan.sh, which bench/run.sh puts next to this
# file); bench/run.sh fails the view when kernel_warnings is not 0.
# shellcheck source=selftests/kmsg_scan.sh
KERNEL_BAD=$(. "$ROOT/bench/kmsg_scan.sh" && printf %s "$KERNEL_BAD")
if [ -z "$KERNEL_BAD" ]; then
	info "kernel_warnings=unchecked"
	say "WARNING: no KERNEL_BAD from $ROOT/bench/kmsg_scan.sh: the kernel log was not checked; see dmesg.txt"
else
	bad=$(dmesg | grep -c -E "$KERNEL_BAD")
	info "kernel_warnings=$bad"
	[ "$bad" -eq 0 ] || say "WARNING: the kernel logged $bad lines of warnings/bugs during the benchmark; see dmesg.txt"
fi
say "done"
