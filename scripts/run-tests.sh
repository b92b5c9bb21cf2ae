#!/usr/bin/env bash
# run-tests.sh -- every fxtrace test, in the order a failure is cheapest:
#
#   1. host: collector unit tests (+ ASan/UBSan, valgrind) via make -C collector check
#   2. checkpatch --strict and kernel-doc on kmod/ and uapi/ (and
#      scripts/test-kernel-style.sh: kernel-style.sh fails on a kernel-doc
#      error); shellcheck on
#      every shell script, and no pipeline that ends in grep -q or head
#      under pipefail (scripts/check-pipefail-readers.sh, and its fixtures
#      in scripts/test-check-pipefail-readers.sh); make install
#      and DKMS (scripts/test-install.sh: here with --host-only, else after
#      the kernel loop, which fetches the kernels its DKMS builds need)
#   3. for each kernel: the module builds with W=1 and no warning, sparse
#      finds nothing, its hot
#      probes in one text page (scripts/check-hot-text.sh); the VM
#      selftests (scripts/vm-test.sh) pass; Perfetto's trace_processor
#      accepts the ping-pong trace from that VM run (scripts/perfetto/), and
#      fxt-sched's latencies and runtimes agree with Perfetto's on that trace;
#      then, once, a guest stopped at its time limit brings back its log
#      and /out, and one whose kernel reports a hung task ends early
#      (scripts/test-vm-timeout.sh), scripts/trace-in-vm.sh
#      makes a valid trace of both CPUs with the workload's threads named,
#      and a signal to vm-run.sh, vm-test.sh or trace-in-vm.sh stops QEMU at once
#      (scripts/test-vm-signals.sh, a stub QEMU)
#
# Prints TAP for each top-level step, the steps' own output nested with "# ",
# and ends with the line "N passed, N failed" (", N guest steps skipped" if
# passing VM selftests skipped some, ", N guest tests skipped" if tests
# inside passing steps did, ", N guests booted twice for a known
# kernel bug (KERNELS)" if vm-test.sh booted one again for that). Exit
# status 0 only if all passed.
#
# Time budget: CI stops the job at 60 minutes, and then prints no summary.
# Without a budget the worst case was over that. Each VM boot may take
# vm-test.sh's --timeout (600 s then, 1200 s now) plus vm-run.sh's 10 s
# kill grace, and vm-test.sh boots a second time when the guest died
# before the tests started (or, now, failed on a known deadlock of the
# kernel itself): 3 kernels x 2 x 610 s was 61 min of VM alone
# (one hang per kernel: 3 x 610 s = 30.5 min), on top of the other steps.
# And nothing bounded apt-get (install-deps.sh, fetch-kernel.sh) or npm
# (the trace_processor fetch).
# Now the run has FXTRACE_TIME_BUDGET seconds (default 3300 = 55 min) from
# its start (the deadline):
#   - a step that cannot start before the deadline (less than 1 s left, or
#     less than VM_STEP_NEEDS_S for a VM step) is "not ok N - NAME (time
#     budget exhausted: N s left ...)", and counts as failed;
#   - every step, and each kernel's fetch, runs in a process group of its
#     own under timeout(1) (bounded()): at the deadline the group gets
#     SIGTERM, SIGKILL KILL_GRACE_S = 10 s later, and the step is "not ok
#     ... (exit 124: stopped at the end of the time budget ...)";
#   - vm-test.sh gets the deadline as FXTRACE_DEADLINE and gives each boot
#     the time left minus 30 s, at most 1200 s, and boots nothing with less
#     than 60 s for it: a hung guest is stopped by vm-run.sh (with its
#     diagnostics) before the deadline.
# So the run ends at most budget + KILL_GRACE_S + ~1 s (bounded()'s polling
# and the summary) = ~3311 s (55.2 min) after it started; the preamble
# (fetch-kernel.sh --known and --check, no network: 0.04 s) is inside it.
# scripts/test-time-budget.sh checks this with stubs that hang.
set -uo pipefail

prog=${0##*/}
t_start=$(date +%s)
KILL_GRACE_S=10
# vm-test.sh boots with at least 60 s left after its 30 s reserve; a VM
# step that starts with less fails as not started, like any other.
VM_STEP_NEEDS_S=90
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1

# Every supported kernel, from the one list of them (fetch-kernel.sh).
if ! all_kernels=$(scripts/fetch-kernel.sh --known | tr '\n' ' ') || [[ -z $all_kernels ]]; then
	echo "$prog: 'scripts/fetch-kernel.sh --known' failed" >&2
	exit 1
fi
all_kernels=${all_kernels% }

usage() {
	cat <<EOF
Usage: $prog [--host-only | --vm-only] [--kernels "$all_kernels"] [--no-deps]

Runs every fxtrace test and prints a TAP summary ending in "N passed, N failed".
  --host-only     only the host-side tests (no kernel download, no VM)
  --vm-only       only the kernel build, VM selftests and Perfetto checks
  --kernels LIST  Debian kernel flavours to test (default: \$FXTRACE_KERNELS or
                  "$all_kernels", every supported kernel:
                  scripts/fetch-kernel.sh --known)
  --no-deps       do not run scripts/install-deps.sh first
Environment: FXTRACE_TIME_BUDGET=SECONDS (default 3300): the whole run ends
within it (+10 s); steps it leaves no time for fail as "time budget exhausted".
Artifacts: build/vm-out/<flavour>/ (console.log, dmesg.txt, out/sched.fxt ...)
EOF
}

host=1 vm=1 deps=1
kernels=${FXTRACE_KERNELS:-$all_kernels}
while [[ $# -gt 0 ]]; do
	case $1 in
	--host-only) vm=0; shift ;;
	--vm-only) host=0; shift ;;
	--kernels)
		[[ $# -ge 2 ]] || { echo "$prog: --kernels needs a list" >&2; exit 2; }
		kernels=$2
		shift 2
		;;
	--no-deps) deps=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
# Both would run nothing, and "0 passed, 0 failed" must never read as a pass.
if [[ $host -eq 0 && $vm -eq 0 ]]; then
	echo "$0: --host-only and --vm-only together leave nothing to run; give one of them" >&2
	exit 2
fi
# A list of blanks tests no kernel, and would end "0 passed, 0 failed".
if [[ $vm -eq 1 && -z ${kernels//[[:space:]]/} ]]; then
	echo "$prog: the kernel list (--kernels or FXTRACE_KERNELS) is empty; give one or more of: $all_kernels" >&2
	exit 2
fi
budget=${FXTRACE_TIME_BUDGET:-3300}
if ! [[ $budget =~ ^[0-9]+$ ]] || ((budget < 1)); then
	echo "$prog: FXTRACE_TIME_BUDGET must be a number of seconds >= 1, not '$budget'" >&2
	exit 2
fi
deadline=$((t_start + budget))
# vm-test.sh derives each boot's --timeout from it.
export FXTRACE_DEADLINE=$deadline
# A kernel fetch-kernel.sh does not know is refused before any test runs.
if [[ $vm -eq 1 ]]; then
	for k in $kernels; do
		scripts/fetch-kernel.sh --check "$k" || exit 2
	done
fi

n=0 passed=0 failed=0
# The guest steps the VM selftests skipped, "KERNEL: N NAME # SKIP WHY",
# and the tests skipped inside passing steps, "KERNEL: STEP: N NAME # SKIP WHY".
guest_skips=()
guest_test_skips=()
# The kernels whose guest vm-test.sh booted twice for a known kernel bug.
known_bug_boots=()
mkdir -p build
# The process group of the step running now (bounded() writes its leader's
# pid here): a signal that ends this script ends it first. The step's group
# is its own, so the signal would not reach it: a closed terminal (HUP)
# left a VM step's QEMU running until its own time limit. (A reader of our
# output that goes away is seen by the step's output filter, nest_output.)
pgid_file=$(mktemp "${TMPDIR:-/tmp}/fxtrace-run-tests.XXXXXX") || exit 1
trap 'rm -f "$pgid_file"' EXIT
# stop_running_step: SIGTERM to the running step's process group, if any.
stop_running_step() {
	local pgid
	pgid=$(cat "$pgid_file" 2>/dev/null)
	[[ -z $pgid ]] || kill -TERM -- "-$pgid" 2>/dev/null
}
# shellcheck disable=SC2317 # called from the traps
on_signal() { # STATUS
	# Writing to a pipe whose reader is gone must not end us first.
	trap '' PIPE HUP
	stop_running_step
	wait
	echo "# $prog: interrupted; $passed passed, $failed failed before that" 2>/dev/null
	exit "$1"
}
trap 'on_signal 129' HUP
trap 'on_signal 130' INT
trap 'on_signal 131' QUIT
trap 'on_signal 143' TERM

# group_alive PGID: a process of the group is alive (not a zombie: where
# pid 1 does not reap orphans, a killed one stays in the group as one).
group_alive() {
	local f s st pg
	for f in /proc/[0-9]*/stat; do
		s=$(<"$f") || continue
		read -r st _ pg _ <<<"${s##*) }"
		[[ $pg == "$1" && $st != Z ]] && return 0
	done 2>/dev/null
	return 1
}

# bounded LIMIT COMMAND...: COMMAND (a program or a function of this
# script), stdin /dev/null, in a process group of its own led by
# timeout(1): after LIMIT s the whole group gets SIGTERM, and SIGKILL
# KILL_GRACE_S s later. timeout(1) returns as soon as COMMAND itself has
# gone, so what is left of the group then (which may hold the step's
# output pipe open) gets SIGTERM, and SIGKILL after KILL_GRACE_S: no step
# outlives LIMIT + KILL_GRACE_S (+ the polling). Its status, or 124 (137)
# when it was stopped. Callers run it in the background and wait for it:
# a trapped signal interrupts wait at once, not a foreground job.
bounded() {
	local limit=$1 pid rc i
	shift
	local -a fns
	if declare -F "$1" >/dev/null; then
		# This runs in a subshell (the caller's background job).
		mapfile -t fns < <(compgen -A function)
		export -f "${fns[@]}"
		set -- bash -uo pipefail -c '"$@"' "$1" "$@"
	fi
	bash -c 'echo "$$" >"$0" && exec "$@"' "$pgid_file" \
		timeout -k "$KILL_GRACE_S" "$limit" "$@" </dev/null &
	pid=$!
	wait "$pid"
	rc=$?
	if group_alive "$pid"; then
		kill -TERM -- "-$pid" 2>/dev/null
		for ((i = 0; i < KILL_GRACE_S * 5; i++)); do
			group_alive "$pid" || break
			sleep 0.2
		done
		kill -KILL -- "-$pid" 2>/dev/null
	fi
	return "$rc"
}
# For the functions steps run (bounded()'s bash -c).
export REPO

# nest_output: a step's output, each line after "# ". When a line cannot be
# written (the reader of our output is gone: `run-tests.sh | head`, a dead
# tee), the step's process group is stopped: the write's SIGPIPE would end
# only this filter, and a VM step's QEMU, which ignores SIGPIPE, would run
# on to its own limit. This script then dies of SIGPIPE at its next line.
nest_output() {
	local line
	trap '' PIPE
	while IFS= read -r line || [[ -n $line ]]; do
		printf '# %s\n' "$line" 2>/dev/null && continue
		stop_running_step
		exit 141
	done
}

# step [--needs SECONDS] NAME COMMAND...: one top-level test; its output is
# nested. It does not start with less than SECONDS (default 1) left before
# the deadline, and is stopped at the deadline (see the top).
step() {
	local needs=1 name rc left now t0
	if [[ $1 == --needs ]]; then
		needs=$2
		shift 2
	fi
	name=$1
	shift
	n=$((n + 1))
	echo "# --- $name"
	t0=$(date +%s)
	left=$((deadline - t0))
	if ((left < needs)); then
		failed=$((failed + 1))
		echo "not ok $n - $name (time budget exhausted: $left s left, the step needs $needs s; FXTRACE_TIME_BUDGET=$budget)"
		return 1
	fi
	# Nothing may be inserted between these two lines: once something
	# reaps the job and drops it from the job table (wait -n, jobs and
	# then any command), bash 5.2's wait "$!" returns the filter's status,
	# not the pipeline's (bounded's, under pipefail).
	bounded "$left" "$@" 2>&1 | nest_output &
	wait "$!"
	rc=$?
	: >"$pgid_file"
	now=$(date +%s)
	# Where a slow host's time went (CI shows only part of the log).
	echo "# took $((now - t0)) s"
	if [[ $rc -eq 0 ]]; then
		passed=$((passed + 1))
		echo "ok $n - $name"
	elif [[ ($rc -eq 124 || $rc -eq 137) && $now -ge $deadline ]]; then
		failed=$((failed + 1))
		echo "not ok $n - $name (exit $rc: stopped at the end of the time budget, after $left s; FXTRACE_TIME_BUDGET=$budget)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name (exit $rc)"
	fi
	return "$rc"
}

# note_guest_skips KERNEL: the guest steps that passing VM selftests on
# KERNEL skipped (a host too slow for a timed check, say), and the tests
# skipped inside a step that passed (a test program's own "# ok N NAME #
# SKIP", nested), each named after its step and counted in the summary:
# "ok" and "N passed" alone hide them. A step's nested lines come before
# its own TAP line.
note_guest_skips() {
	local kind line
	while IFS=$'\t' read -r kind line; do
		if [[ $kind == step ]]; then
			guest_skips+=("$1: $line")
		else
			guest_test_skips+=("$1: $line")
		fi
		echo "# skipped in the guest ($1): $line"
	done < <(awk '
		/^(# )+ok [0-9]+ .* # SKIP/ { t = $0; sub(/^(# )+ok /, "", t); pending[++np] = t; next }
		/^(ok|not ok) [0-9]+ / {
			step = $0
			sub(/^(ok|not ok) [0-9]+ /, "", step)
			sub(/ .*/, "", step)
			if ($0 ~ /^ok [0-9]+ .* # SKIP/)
				print "step\t" substr($0, 4)
			for (i = 1; i <= np; i++)
				print "test\t" step ": " pending[i]
			np = 0
		}' "build/vm-out/$1/console.log" 2>/dev/null)
}

# note_known_bug_boot KERNEL: vm-test.sh booted KERNEL's guest a second
# time because the first hit a known bug of the kernel itself
# (scripts/known-kernel-bugs.sh; it kept that boot's logs in first-boot/):
# said here and in the summary, whatever the second boot gave, so that a
# passing run does not hide it. run-tests.sh removes first-boot/ before the
# VM step, so one left by an earlier run is not taken for this one's.
note_known_bug_boot() {
	[[ -d build/vm-out/$1/first-boot ]] || return 0
	known_bug_boots+=("$1")
	echo "# $1: the guest's first boot hit a known kernel bug and was booted again (its logs: build/vm-out/$1/first-boot/)"
}

# The module must build without a single warning at W=1, nor from sparse
# (C=2: every source file checked, rebuilt or not; it catches a __percpu
# or __user pointer used as a plain one), nor from modpost, which writes
# its warnings in capitals ("WARNING: modpost: section mismatch ...",
# "missing MODULE_DESCRIPTION()"): hence grep -i. The compiler only
# warns about what it compiles, and kbuild compiles only what changed:
# modules-clean first, so that every run compiles every file.
# kmod/ is where scripts/vm-test.sh builds too, for any kernel (another
# run of it, by anyone): the clean, the build and a copy of the module,
# build/fxtrace-KERNEL.ko, are made holding vm-test.sh's lock, and the
# next step judges that copy, not what kmod/ holds by then.
build_module_w1() {
	local ko=build/fxtrace-$2.ko
	command -v sparse >/dev/null || { echo "sparse is missing: run scripts/install-deps.sh"; return 1; }
	rm -f "$ko"
	{ flock 9 && build_module_w1_locked "$@"; } 9>"$REPO/build/.vm-test.lock"
}
build_module_w1_locked() {
	local kdir=$1 log=build/kbuild-$2.log ko=build/fxtrace-$2.ko
	make -C "$REPO" modules-clean KDIR="$kdir" >"$log" 2>&1 || { cat "$log"; return 1; }
	make -C "$REPO" modules KDIR="$kdir" W=1 C=2 >>"$log" 2>&1 || { cat "$log"; return 1; }
	if grep -iE 'warning:|error:' "$log"; then
		echo "the module has build, sparse or modpost warnings (full log: $log)"
		return 1
	fi
	grep -q 'CHECK ' "$log" || { echo "sparse did not run (full log: $log)"; return 1; }
	cp kmod/fxtrace.ko "$ko" || return 1
	echo "built kmod/fxtrace.ko for $2 with W=1 and sparse: no warnings (copied to $ko)"
}

perfetto_check() {
	local out=build/vm-out/$1/out
	[[ -s $out/sched.fxt && -s $out/expect.json ]] || {
		echo "no trace from the VM run in $out (did the VM step fail?)"
		return 1
	}
	scripts/perfetto/fetch-trace-processor.sh >/dev/null || return 1
	node scripts/perfetto/check-trace.mjs "$out/sched.fxt" "$out/expect.json"
}

# perfetto_check_with FLAVOUR SCRIPT TRACE DATA: a check-*.mjs on one VM output.
perfetto_check_with() {
	local out=build/vm-out/$1/out
	[[ -s $out/$3 && -s $out/$4 ]] || {
		echo "no $3 and $4 from the VM run in $out (did the VM step fail?)"
		return 1
	}
	scripts/perfetto/fetch-trace-processor.sh >/dev/null || return 1
	node "scripts/perfetto/$2" "$out/$3" "$out/$4"
}

# trace_in_vm KERNEL: the README's way to trace on a machine that cannot
# load modules, scripts/trace-in-vm.sh, end to end: a trace fxt-dump
# accepts, with context switches on both CPUs and the workload's threads
# (fxt-pingpong's ping and pong) and fxt-collect named.
trace_in_vm() {
	local out=build/trace-in-vm-$1.fxt name cpus threads
	mkdir -p build && rm -f "$out"
	scripts/trace-in-vm.sh --no-deps -d 2 -o "$out" --kernel "$1" || return 1
	collector/fxt-dump --check "$out" || return 1
	cpus=$(collector/fxt-dump --summary "$out") || return 1
	threads=$(tools/fxt-sched summary "$out") || return 1
	for name in cpu0 cpu1; do
		grep -qE "^  $name: [1-9][0-9]* context switches" <<<"$cpus" ||
			{ echo "no context switch on $name in $out"; return 1; }
	done
	for name in ping pong fxt-collect; do
		awk -v n="$name" '$3 == n { f = 1 } END { exit !f }' <<<"$threads" ||
			{ echo "no thread named $name in fxt-sched's summary of $out"; return 1; }
	done
	echo "$out: valid, switches on both CPUs, ping, pong and fxt-collect named"
}

# Every tracked shell script, by name or by its #! line; none may warn,
# and none may end a pipeline in a reader that leaves early under pipefail.
lint_shell() {
	local f first scripts=()

	while IFS= read -r f; do
		case $f in
		*.sh) scripts+=("$f") ;;
		*)
			first=''
			IFS= read -r -n 80 first <"$f" 2>/dev/null
			[[ $first =~ ^#!.*(ba)?sh ]] && scripts+=("$f")
			;;
		esac
	done < <(git ls-files)
	echo "${#scripts[@]} scripts"
	shellcheck -S warning "${scripts[@]}" &&
		scripts/check-pipefail-readers.sh "${scripts[@]}"
}

echo "TAP version 13"
if [[ $deps -eq 1 ]]; then
	step "install dependencies" scripts/install-deps.sh || true
fi
if [[ $host -eq 1 ]]; then
	step "host unit tests (collector, fxt-dump, ring drain)" make -C collector check || true
	step "fxt-sched and fxt2json tests" make -C tools check || true
	step "fxt-sched, and fxt2json's JSON, agree with Perfetto on synthetic traces (8 of 9 with holes) and fixtures" make -s -C tools crosscheck || true
	step "benchmark tools and table arithmetic (host)" make -C bench check || true
	step "fuzz targets: a fixed number of inputs each from the committed corpus and seed 1, no crash" make -s -C fuzz check || true
	step "selftests harness: TAP lines and exit statuses (host)" make -s -C selftests harness-check || true
	step "checkpatch --strict and kernel-doc (kmod, uapi)" scripts/kernel-style.sh || true
	step "kernel-style.sh fails on a kernel-doc error and on 256 kernel-doc warnings (copies of the tree)" \
		scripts/test-kernel-style.sh || true
	step "shellcheck -S warning, and no grep -q or head ending a pipeline under pipefail, on every tracked shell script" lint_shell || true
	step "check-pipefail-readers.sh flags grep -q, -m, -l and head ending a pipeline under pipefail, and nothing else (fixtures)" \
		scripts/test-check-pipefail-readers.sh || true
	step "time budget: hung steps stopped at the deadline, VM boot timeouts derived from it (stubs, no VM)" \
		scripts/test-time-budget.sh || true
	step "known kernel bugs: the 6.12 vmalloc deadlock is recognised in its guest's log, and nothing short of it" \
		scripts/test-known-kernel-bugs.sh || true
fi
# scripts/test-install.sh builds the module with DKMS against cached kernels
# only. Host-only, it runs here and uses whatever the cache has (skipping
# the DKMS builds without one); with the VM part it runs after the kernel
# loop, when the kernels tested are cached, for the first of them (and the
# second as the upgrade kernel).
install_test_cached() {
	step "make install/uninstall, man pages, make dkms + DKMS build (cached kernels only: skipped without one)" \
		scripts/test-install.sh || true
}
install_test_fetched() {
	local -a ks
	read -r -a ks <<<"$kernels"
	step "make install/uninstall, man pages, make dkms + DKMS build for ${ks[0]}${ks[1]:+, upgrade to ${ks[1]}}" \
		scripts/test-install.sh --require-kernels --kernel "${ks[0]}" --upgrade-kernel "${ks[1]:-none}" || true
}
if [[ $host -eq 1 && $vm -eq 0 ]]; then
	install_test_cached
fi
if [[ $vm -eq 1 ]]; then
	for k in $kernels; do
		# No step may check a trace left by an earlier run.
		rm -rf "build/vm-out/$k"
		# The fetch (apt-get) is bounded by the deadline too. Its
		# messages go to a log, shown only in the step if it fails:
		# raw lines between TAP lines are not TAP.
		rc=1 left=$((deadline - $(date +%s)))
		if ((left >= 1)); then
			bounded "$left" scripts/fetch-kernel.sh "$k" >build/kenv-"$k" \
				2>build/kfetch-"$k".log &
			wait "$!"
			rc=$?
			: >"$pgid_file"
		fi
		if [[ $rc -ne 0 ]] || ! kenv=$(<build/kenv-"$k"); then
			step "fetch Debian kernel $k" sh -c "echo 'scripts/fetch-kernel.sh $k: exit $rc'; cat build/kfetch-$k.log 2>/dev/null; exit 1" || true
			continue
		fi
		KDIR=''
		eval "$(grep '^KDIR=' <<<"$kenv")"  # shell-quoted by fetch-kernel.sh
		kdir=$KDIR
		step "module builds with W=1, sparse clean, for $k" build_module_w1 "$kdir" "$k" || continue
		step "the hot probes share the first text page of the $k module" scripts/check-hot-text.sh "build/fxtrace-$k.ko" || true
		rm -rf "build/vm-out/$k/first-boot"	# see note_known_bug_boot
		# Less than VM_STEP_NEEDS_S left: vm-test.sh would not boot
		# (it needs 60 s for the boot and keeps 30 s for after it).
		if step --needs "$VM_STEP_NEEDS_S" "VM selftests on $k" scripts/vm-test.sh "$k"; then
			note_guest_skips "$k"
		fi
		note_known_bug_boot "$k"
		step "Perfetto trace_processor accepts the $k ping-pong trace" perfetto_check "$k" || true
		step "fxt-sched agrees with Perfetto on the $k ping-pong trace" \
			make -s -C tools crosscheck FILE="$REPO/build/vm-out/$k/out/sched.fxt" || true
		step "fxt-sched agrees with Perfetto on the $k stress trace" \
			make -s -C tools crosscheck FILE="$REPO/build/vm-out/$k/out/stress.fxt" || true
		step "fxt-sched agrees with Perfetto on the $k loss trace, across its holes" \
			make -s -C tools crosscheck FILE="$REPO/build/vm-out/$k/out/loss.fxt" || true
		step "Perfetto names all 200 short-lived threads of the $k trace" \
			perfetto_check_with "$k" check-names.mjs names.fxt names.json || true
		step "Perfetto shows every ring hole of the $k loss trace where it happened" \
			perfetto_check_with "$k" check-loss.mjs loss.fxt loss.json || true
		# Traces of collectors that were killed, interrupted or ran out
		# of disk (selftests/fault_steps.sh) must load in Perfetto too.
		for f in sigkill:SIGKILL sigint:SIGINT fullfs:"a full disk"; do
			step "Perfetto loads the $k trace of a collector stopped by ${f#*:}" \
				perfetto_check_with "$k" check-trace.mjs "fault-${f%%:*}.fxt" \
				"fault-${f%%:*}.expect.json" || true
		done
	done
	# A guest stopped at its time limit still brings back its kernel
	# log and /out (vm-run.sh's watchdog), and a hung-task report ends a
	# guest early: once, on the first kernel.
	read -r first_kernel _ <<<"$kernels"
	# It needs its 100 s limit, vm-test.sh's 30 s after it, the build,
	# and about 30 s for the second guest.
	step --needs 210 "a guest stopped at its time limit brings back its kernel log and /out, one whose kernel reports a hung task ends early ($first_kernel)" \
		scripts/test-vm-timeout.sh "$first_kernel" || true
	# QEMU's hot-plug slots are possible CPUs on Debian's 6.1, not on its
	# 6.12 (scripts/test-vm-absent-cpus.sh): 6.1 when it is tested.
	slots_kernel=$first_kernel
	[[ " $kernels " == *" 6.1 "* ]] && slots_kernel=6.1
	step --needs 120 "CPUs possible but not present get the smallest rings, and fxt-collect says so ($slots_kernel, 2 of 4 CPUs present)" \
		scripts/test-vm-absent-cpus.sh "$slots_kernel" || true
	step --needs 180 "scripts/trace-in-vm.sh on $first_kernel: a valid trace, both CPUs, the workload's threads named" \
		trace_in_vm "$first_kernel" || true
	step "a signal to vm-run.sh, vm-test.sh or trace-in-vm.sh stops the VM at once (a stub QEMU, $first_kernel's kernel)" \
		scripts/test-vm-signals.sh "$first_kernel" || true
	if [[ $host -eq 1 ]]; then
		install_test_fetched
	fi
fi
echo "1..$n"
also=''
if ((${#guest_skips[@]})); then
	echo "# guest steps skipped (the VM selftests passed without them):"
	printf '#   %s\n' "${guest_skips[@]}"
	plural=s; ((${#guest_skips[@]} == 1)) && plural=''
	also+=", ${#guest_skips[@]} guest step$plural skipped"
fi
if ((${#guest_test_skips[@]})); then
	echo "# guest tests skipped inside steps that passed:"
	printf '#   %s\n' "${guest_test_skips[@]}"
	plural=s; ((${#guest_test_skips[@]} == 1)) && plural=''
	also+=", ${#guest_test_skips[@]} guest test$plural skipped"
fi
if ((${#known_bug_boots[@]})); then
	plural=s; ((${#known_bug_boots[@]} == 1)) && plural=''
	also+=", ${#known_bug_boots[@]} guest$plural booted twice for a known kernel bug (${known_bug_boots[*]})"
fi
echo "$passed passed, $failed failed$also"
[[ $failed -eq 0 ]]
