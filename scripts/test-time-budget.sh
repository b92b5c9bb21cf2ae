#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-time-budget.sh -- scripts/run-tests.sh ends within its time budget
# (FXTRACE_TIME_BUDGET) whatever hangs, and says which steps it stopped or
# could not start; scripts/vm-test.sh derives each boot's --timeout from
# the deadline (FXTRACE_DEADLINE) and boots nothing without time for it.
# Usage errors that would run nothing (a budget that is not a number, an
# empty kernel list) are exit 2 before any step.
# No VM, kernel or network is needed: both scripts run from a copy of the
# tree whose fetch-kernel.sh, vm-run.sh and the other scripts they call,
# and the make, sparse and modinfo on PATH, are stubs.
#
# Prints TAP; scripts/run-tests.sh runs it as a host step. Exit status 1
# if a test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-budget.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
# shellcheck source=scripts/signal-wait.sh
. "$REPO/scripts/signal-wait.sh"
tap_begin

# verdict NAME OK [FILE]: one TAP line; on failure FILE follows, nested.
verdict() {
	tap_ok $((!$2)) "$1"
	(($2)) && return
	echo "#   exit ${rc:-?}"
	[[ -n ${3:-} && -e $3 ]] && sed 's/^/#   /' "$3"
}
# stub PATH BODY: an executable sh script.
stub() {
	mkdir -p "${1%/*}"
	printf '#!/bin/sh\n%s\n' "$2" >"$1"
	chmod +x "$1"
}

# ---- run-tests.sh --------------------------------------------------------
rt=$TMP/rt
mkdir -p "$rt/scripts" "$TMP/bin"
cp "$REPO/scripts/run-tests.sh" "$rt/scripts/"
stub "$rt/scripts/fetch-kernel.sh" 'case $1 in
--known) echo 6.1 ;;
--check) [ "$2" = 6.1 ] ;;
*) echo "RELEASE=6.1.0-stub"; echo "KDIR=/nonexistent" ;;
esac'
for s in kernel-style.sh test-kernel-style.sh check-hot-text.sh test-install.sh vm-test.sh \
	test-time-budget.sh test-vm-timeout.sh trace-in-vm.sh; do
	stub "$rt/scripts/$s" 'exit 0'
done
# The make on PATH: as $STUB_MAKE says. "chatty" notes its pid and prints a
# line every 0.1 s for ever, ignoring SIGPIPE (as QEMU does); "hang" notes
# its pid and sleeps,
# "hang-ignoring-term" too but ignores SIGTERM, "hang-child-ignoring-term"
# leaves a child that ignores SIGTERM and holds stdout when it goes; else
# it succeeds, prints the line build_module_w1 looks for and, for
# "modules", leaves a kmod/fxtrace.ko for build_module_w1 to copy.
stub "$TMP/bin/make" 'case $STUB_MAKE in
chatty)
	trap "" PIPE
	echo $$ >>"$STUB_PIDS"
	while :; do echo "make: still going"; sleep 0.1; done ;;
hang-child-ignoring-term)
	echo $$ >>"$STUB_PIDS"
	(trap "" TERM; sleep 1000) & echo $! >>"$STUB_PIDS"
	wait; exit 0 ;;
hang*)
	[ "$STUB_MAKE" = hang-ignoring-term ] && trap "" TERM
	echo $$ >>"$STUB_PIDS"
	sleep 1000 & echo $! >>"$STUB_PIDS"
	wait; wait; exit 0 ;;
*) echo "  CHECK stub.c"
	case " $* " in *" modules "*) mkdir -p "$2/kmod" && : >"$2/kmod/fxtrace.ko" ;; esac ;;
esac'
stub "$TMP/bin/sparse" 'exit 0'

# run_rt BUDGET MAKE-MODE ARGS...: the copied run-tests.sh; its stdout in
# $TMP/rt.out, its status in $rc, its wall time in $secs. A run-tests.sh
# that does not keep to its budget is stopped after 60 s (exit 124), past
# every upper bound below.
run_rt() {
	local budget=$1 mode=$2 t0
	shift 2
	: >"$TMP/pids"
	t0=$(date +%s.%N)
	(cd "$rt" && FXTRACE_TIME_BUDGET=$budget STUB_MAKE=$mode STUB_PIDS=$TMP/pids \
		PATH="$TMP/bin:$PATH" timeout -k 5 60 bash scripts/run-tests.sh --no-deps "$@" \
		>"$TMP/rt.out" 2>"$TMP/rt.err")
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}
# all_dead: no stub process is left running (a zombie is dead: where
# pid 1 does not reap orphans, a killed sleep stays one).
all_dead() {
	local p st
	while read -r p; do
		st=$(ps -o stat= -p "$p" 2>/dev/null) || continue
		[[ $st == Z* ]] || return 1
	done <"$TMP/pids"
	return 0
}
# rest_not_started: every step after the first is "not ok ... (time budget
# exhausted: N s left", the plan counts them all, and none passed.
rest_not_started() {
	local total
	total=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$TMP/rt.out")
	[[ -n $total && $total -ge 2 ]] &&
		[[ $(grep -cE '^not ok [0-9]+ - .* \(time budget exhausted: -?[0-9]+ s left, the step needs [0-9]+ s; FXTRACE_TIME_BUDGET=[0-9]+\)$' "$TMP/rt.out") -eq $((total - 1)) ]] &&
		grep -qx "0 passed, $total failed" "$TMP/rt.out"
}

# The lower bounds of the wall times below are a second short of the
# budget: run-tests.sh counts it in whole seconds of `date +%s` from its
# start, and each step's timeout in whole seconds left, so its deadline
# comes up to 1 s before budget seconds have passed (2.1 s of a budget of
# 3 was measured, 1 run in 6). The upper bounds allow SLACK_S for a loaded
# host: the ~45 steps not started after the hung one each still fork, and
# with two valgrind builds on both cores test 3 once took 18.8 s, 6.8 s
# past its SIGKILL. A run that waited for the hung step or its child would
# not end at all; the exit statuses tell SIGTERM from SIGKILL.
SLACK_S=30

# 1. The first host step hangs; the budget is 3 s.
run_rt 3 hang --host-only
ok=0
grep -qE '^not ok 1 - host unit tests .* \(exit 124: stopped at the end of the time budget, after [0-9] s; FXTRACE_TIME_BUDGET=3\)$' "$TMP/rt.out" &&
	rest_not_started && [[ $rc -eq 1 ]] && all_dead &&
	awk -v s="$secs" -v k="$SLACK_S" 'BEGIN { exit !(s >= 3 - 1 && s < 3 + k) }' && ok=1
verdict "a hung step with FXTRACE_TIME_BUDGET=3: stopped (SIGTERM) at the deadline, 'not ok 1 ... (exit 124: stopped at the end of the time budget ...)', every later step 'time budget exhausted', exit 1, in ${secs} s (< 3 + $SLACK_S), no process left" \
	"$ok" "$TMP/rt.out"

# 2. The hung step ignores SIGTERM: SIGKILL after the 10 s grace.
run_rt 2 hang-ignoring-term --host-only
ok=0
grep -qE '^not ok 1 - host unit tests .* \(exit 137: stopped at the end of the time budget, after [0-9] s; FXTRACE_TIME_BUDGET=2\)$' "$TMP/rt.out" &&
	rest_not_started && [[ $rc -eq 1 ]] && all_dead &&
	awk -v s="$secs" -v k="$SLACK_S" 'BEGIN { exit !(s >= 2 - 1 + 10 && s < 2 + 10 + k) }' && ok=1
verdict "a hung step that ignores SIGTERM, FXTRACE_TIME_BUDGET=2: SIGKILL 10 s after the deadline (exit 137), in ${secs} s (< 2 + 10 + $SLACK_S), no process left" \
	"$ok" "$TMP/rt.out"

# 3. The hung step goes at SIGTERM, but leaves a child that ignores it
# (and holds the step's output open): SIGKILL after the grace.
run_rt 2 hang-child-ignoring-term --host-only
ok=0
grep -qE '^not ok 1 - host unit tests .* \(exit 124: stopped at the end of the time budget, after [0-9] s; FXTRACE_TIME_BUDGET=2\)$' "$TMP/rt.out" &&
	rest_not_started && [[ $rc -eq 1 ]] && all_dead &&
	awk -v s="$secs" -v k="$SLACK_S" 'BEGIN { exit !(s >= 2 - 1 + 10 && s < 2 + 10 + k) }' && ok=1
verdict "a hung step whose child ignores SIGTERM and holds its output, FXTRACE_TIME_BUDGET=2: the child is killed 10 s after the deadline, in ${secs} s (< 2 + 10 + $SLACK_S), no process left" \
	"$ok" "$TMP/rt.out"

# 4. A signal to run-tests.sh while a step hangs (TERM: a cancelled job;
# HUP: its terminal closed; QUIT): it ends the step's process group (in a
# group of its own, the step would not get the signal) and exits 128 + the
# signal at once. HUP and QUIT left the step running before.
for sig_rc in TERM:143 HUP:129 QUIT:131; do
	sig=${sig_rc%:*} want=${sig_rc#*:}
	: >"$TMP/pids"
	(cd "$rt" && FXTRACE_TIME_BUDGET=60 STUB_MAKE=hang STUB_PIDS=$TMP/pids PATH="$TMP/bin:$PATH" \
		exec bash scripts/run-tests.sh --no-deps --host-only >"$TMP/rt.out" 2>"$TMP/rt.err") &
	rtpid=$!
	for ((i = 0; i < 50; i++)); do
		[[ -s $TMP/pids ]] && break
		sleep 0.1
	done
	signal_and_wait "$rtpid" "$sig"
	rc=$signal_rc secs=$signal_secs
	ok=0
	[[ $rc -eq $want ]] && grep -qx '# run-tests.sh: interrupted; 0 passed, 0 failed before that' "$TMP/rt.out" &&
		all_dead && awk -v s="$secs" 'BEGIN { exit !(s < 5) }' && ok=1
	verdict "SIG$sig to run-tests.sh during a hung step: exit $want (got $rc) in ${secs} s, 'interrupted', no process of the step left" \
		"$ok" "$TMP/rt.out"
	# A failed case must not leave its hung stub to the next.
	xargs -r kill -KILL <"$TMP/pids" 2>/dev/null
done

# 4b. The reader of run-tests.sh's output goes away (`run-tests.sh | head`)
# while a step prints and ignores SIGPIPE, as QEMU does: the step's output
# filter stops the step's group, and run-tests.sh dies of SIGPIPE at its
# next line. Before, the filter alone died and the step ran on (to the 60 s
# kill here; to its own limit in a real run).
: >"$TMP/pids"
t0=$(date +%s.%N)
(cd "$rt" && FXTRACE_TIME_BUDGET=60 STUB_MAKE=chatty STUB_PIDS=$TMP/pids PATH="$TMP/bin:$PATH" \
	timeout -k 5 60 bash scripts/run-tests.sh --no-deps --host-only 2>"$TMP/rt.err" |
	head -n 5 >"$TMP/rt.out"
	exit "${PIPESTATUS[0]}")
rc=$?
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
ok=0
[[ $rc -eq 141 && -s $TMP/pids ]] && all_dead && awk -v s="$secs" 'BEGIN { exit !(s < 10) }' && ok=1
verdict "the reader of run-tests.sh's output gone during a step that ignores SIGPIPE: the step is stopped and run-tests.sh ends (exit 141, got $rc) in ${secs} s, no process of the step left" \
	"$ok" "$TMP/rt.out"
xargs -r kill -KILL <"$TMP/pids" 2>/dev/null

# 5. The VM part: steps that pass until the VM step, which needs 90 s.
run_rt 20 ok --vm-only --kernels 6.1
ok=0
grep -qx 'ok 1 - module builds with W=1, sparse clean, for 6.1' "$TMP/rt.out" &&
	grep -qx 'ok 2 - the hot probes share the first text page of the 6.1 module' "$TMP/rt.out" &&
	grep -qE '^not ok 3 - VM selftests on 6.1 \(time budget exhausted: (19|20) s left, the step needs 90 s; FXTRACE_TIME_BUDGET=20\)$' "$TMP/rt.out" &&
	[[ $rc -eq 1 ]] && awk -v s="$secs" 'BEGIN { exit !(s < 10) }' && ok=1
verdict "--vm-only, FXTRACE_TIME_BUDGET=20: the VM step (needs 90 s) is 'not ok 3 - VM selftests on 6.1 (time budget exhausted: 20 s left ...)', not started, in ${secs} s" \
	"$ok" "$TMP/rt.out"

# 6. A budget that is not a number: refused before anything runs.
run_rt 1x ok --host-only
ok=0
[[ $rc -eq 2 && ! -s $TMP/rt.out ]] &&
	grep -qF "run-tests.sh: FXTRACE_TIME_BUDGET must be a number of seconds >= 1, not '1x'" "$TMP/rt.err" && ok=1
verdict "FXTRACE_TIME_BUDGET=1x: exit 2, a message, nothing run" "$ok" "$TMP/rt.err"

# 7. An empty kernel list (blanks, by --kernels or FXTRACE_KERNELS, or
# --kernels '') tests nothing: a usage error, not "0 passed, 0 failed".
for how in "--kernels ' '" "--kernels ''" "FXTRACE_KERNELS=' '"; do
	case $how in
	--kernels*) eval "run_rt 20 ok --vm-only $how" ;;
	*) FXTRACE_KERNELS=' ' run_rt 20 ok --vm-only ;;
	esac
	ok=0
	[[ $rc -eq 2 && ! -s $TMP/rt.out ]] &&
		grep -qE "run-tests.sh: (the kernel list \(--kernels or FXTRACE_KERNELS\) is empty|--kernels needs a list)" "$TMP/rt.err" && ok=1
	verdict "--vm-only $how: exit 2, a message, nothing run" "$ok" "$TMP/rt.out"
done

# Guest steps that passing VM selftests skipped are named and counted in
# the summary; so are tests skipped inside a step (nested, before the
# step's own line), named after their step, and counted apart.
stub "$rt/scripts/vm-test.sh" 'mkdir -p build/vm-out/6.1 && printf "%s\n" "# ok 1 a_test" "ok 2 ioctl_test" \
	"# ok 4 a_nested_test # SKIP not a step" "# # ok 1 deeper # SKIP two levels down" \
	"ok 3 hotplug_collect # SKIP the host is too slow" >build/vm-out/6.1/console.log'
run_rt 300 ok --vm-only
ok=0
grep -qxF '# skipped in the guest (6.1): 3 hotplug_collect # SKIP the host is too slow' "$TMP/rt.out" &&
	grep -qxF '# skipped in the guest (6.1): hotplug_collect: 4 a_nested_test # SKIP not a step' "$TMP/rt.out" &&
	grep -qxF '# skipped in the guest (6.1): hotplug_collect: 1 deeper # SKIP two levels down' "$TMP/rt.out" &&
	tail -n 1 "$TMP/rt.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed, 1 guest step skipped, 2 guest tests skipped$' &&
	[[ $(grep -c 'skipped in the guest' "$TMP/rt.out") -eq 3 ]] && ok=1
verdict "VM selftests that pass with a guest step and two nested tests skipped: each named after its step, counted apart in the summary (in ${secs} s)" "$ok" "$TMP/rt.out"

# A guest booted twice for a known kernel bug (vm-test.sh kept the first
# boot's logs in first-boot/): said after the VM step and in the summary,
# though the step passed. A first-boot/ left by an earlier run is not.
stub "$rt/scripts/vm-test.sh" 'mkdir -p build/vm-out/6.1/first-boot && : >build/vm-out/6.1/console.log'
run_rt 300 ok --vm-only
ok=0
grep -qxF '# 6.1: the guest'"'"'s first boot hit a known kernel bug and was booted again (its logs: build/vm-out/6.1/first-boot/)' "$TMP/rt.out" &&
	grep -q '^ok [0-9]* - VM selftests on 6.1$' "$TMP/rt.out" &&
	tail -n 1 "$TMP/rt.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed, 1 guest booted twice for a known kernel bug \(6\.1\)$' && ok=1
verdict "a guest booted twice for a known kernel bug: said after its VM step and in the summary, though the step passed (in ${secs} s)" "$ok" "$TMP/rt.out"
mkdir -p "$rt/build/vm-out/6.1/first-boot"
stub "$rt/scripts/vm-test.sh" 'mkdir -p build/vm-out/6.1 && : >build/vm-out/6.1/console.log'
run_rt 300 ok --vm-only
ok=0
! grep -q 'known kernel bug' "$TMP/rt.out" && [[ ! -e $rt/build/vm-out/6.1/first-boot ]] &&
	tail -n 1 "$TMP/rt.out" | grep -qE '^[0-9]+ passed, [0-9]+ failed$' && ok=1
verdict "a first-boot/ left by an earlier run is removed before the VM step and not reported (in ${secs} s)" "$ok" "$TMP/rt.out"
stub "$rt/scripts/vm-test.sh" 'exit 0'

# ---- vm-test.sh ------------------------------------------------------------
vt=$TMP/vt
mkdir -p "$vt/scripts" "$vt/selftests" "$TMP/k/kdir" "$TMP/k/modules" "$TMP/vbin"
cp "$REPO/scripts/vm-test.sh" "$REPO/scripts/run-child.sh" "$REPO/scripts/known-kernel-bugs.sh" "$vt/scripts/"
cp "$REPO/selftests/kmsg_scan.sh" "$REPO/selftests/run_vm_tests.sh" "$vt/selftests/"
: >"$TMP/k/vmlinuz"
: >"$TMP/k/modules/modules.dep"
stub "$vt/scripts/fetch-kernel.sh" "case \$1 in
--known-phrase) echo 6.1 ;;
--check) [ \"\$2\" = 6.1 ] ;;
*) printf 'RELEASE=6.1.0-stub\\nKDIR=%s\\nVMLINUZ=%s\\nMODULES=%s\\n' '$TMP/k/kdir' '$TMP/k/vmlinuz' '$TMP/k/modules' ;;
esac"
# make modules: a "module"; make vm-userspace BUILDDIR=D: an empty D.
stub "$TMP/vbin/make" 'for a; do case $a in BUILDDIR=*) mkdir -p "${a#BUILDDIR=}" ;; esac; done
case " $* " in *" modules "*) mkdir -p "$2/kmod" && : >"$2/kmod/fxtrace.ko" ;; esac'
stub "$TMP/vbin/modinfo" 'echo "6.1.0-stub SMP mod_unload"'
# vm-run.sh: notes its --timeout; exits with the next status in
# $TMP/vmrun.rc (0 once there is none), the guest's kernel log "returned"
# (a copy of the next file named in $TMP/vmrun.dmesg, else empty), its
# console a copy of $STUB_CONSOLE (else empty; none with $STUB_NO_BOOT),
# after $STUB_BOOT_S seconds (0).
stub "$vt/scripts/vm-run.sh" "out=''
while [ \$# -gt 0 ]; do
	case \$1 in
	--timeout) echo \"\$2\" >>'$TMP/boots' ;;
	--out) out=\$2 ;;
	esac
	shift
done
log=\$(head -n 1 '$TMP/vmrun.dmesg' 2>/dev/null); sed -i 1d '$TMP/vmrun.dmesg' 2>/dev/null
mkdir -p \"\$out\" && cat \${log:-/dev/null} >\"\$out/dmesg.txt\"
[ -n \"\${STUB_NO_BOOT:-}\" ] || cat \"\${STUB_CONSOLE:-/dev/null}\" >\"\$out/console.log\"
sleep \"\${STUB_BOOT_S:-0}\"
rc=\$(head -n 1 '$TMP/vmrun.rc' 2>/dev/null); sed -i 1d '$TMP/vmrun.rc' 2>/dev/null
exit \${rc:-0}"

# run_vt DEADLINE-IN-SECONDS|none [VM-RUN-STATUSES] [ARGS...]: the copied
# vm-test.sh; status in $rc, the boots' --timeout values in $boots. The
# boots' kernel logs: the files $STUB_DMESG names, in order (none: empty).
run_vt() {
	local dl=$1 statuses=$2
	shift 2
	: >"$TMP/boots"
	printf '%s' "$statuses" | tr ' ' '\n' >"$TMP/vmrun.rc"
	printf '%s' "${STUB_DMESG:-}" | tr ' ' '\n' >"$TMP/vmrun.dmesg"
	if [[ $dl == none ]]; then
		(unset FXTRACE_DEADLINE; MAKE=$TMP/vbin/make PATH="$TMP/vbin:$PATH" \
			bash "$vt/scripts/vm-test.sh" "$@" 6.1 >"$TMP/vt.out" 2>"$TMP/vt.err")
	else
		(FXTRACE_DEADLINE=$(($(date +%s) + dl)) MAKE=$TMP/vbin/make PATH="$TMP/vbin:$PATH" \
			bash "$vt/scripts/vm-test.sh" "$@" 6.1 >"$TMP/vt.out" 2>"$TMP/vt.err")
	fi
	rc=$?
	boots=$(tr '\n' ' ' <"$TMP/boots")
	boots=${boots% }
}

run_vt none ''
ok=0
[[ $rc -eq 0 && $boots == 1200 ]] && ok=1
verdict "vm-test.sh without FXTRACE_DEADLINE: one boot, --timeout 1200 (vm-test.sh's default; boots: '$boots')" "$ok" "$TMP/vt.err"

run_vt none '' --timeout 100
ok=0
[[ $rc -eq 0 && $boots == 100 ]] && ok=1
verdict "vm-test.sh --timeout 100: the boot gets --timeout 100 (boots: '$boots')" "$ok" "$TMP/vt.err"

run_vt 3000 ''
ok=0
[[ $rc -eq 0 && $boots == 1200 ]] && ok=1
verdict "FXTRACE_DEADLINE in 3000 s: --timeout 1200, the cap (boots: '$boots')" "$ok" "$TMP/vt.err"

run_vt 200 ''
ok=0
[[ $rc -eq 0 && ($boots == 170 || $boots == 169) ]] &&
	grep -qE '^vm-test.sh: time budget: --timeout 1(69|70) for this boot, not 1200 \((199|200) s left before FXTRACE_DEADLINE\)$' "$TMP/vt.err" && ok=1
verdict "FXTRACE_DEADLINE in 200 s: --timeout 170 (30 s kept for after the boot), and it says so (boots: '$boots')" "$ok" "$TMP/vt.err"

run_vt 400 '125'
ok=0
read -r -a b <<<"$boots"
[[ $rc -eq 0 && ${#b[@]} -eq 2 && ${b[0]} -le 370 && ${b[0]} -ge 369 &&
	${b[1]} -le ${b[0]} && ${b[1]} -ge $((b[0] - 2)) ]] && ok=1
verdict "a guest that died before the tests is booted again, and the second boot's --timeout is derived from the deadline again (boots: '$boots')" "$ok" "$TMP/vt.err"

# vm-run.sh's set-up failed (exit 125 with no console.log: nothing booted):
# not taken for a guest that died while booting, and not tried again.
rm -f "$vt/build/vm-out/6.1/console.log"
STUB_NO_BOOT=1 run_vt 400 '125'
ok=0
[[ $rc -eq 125 && $boots == 370 || $rc -eq 125 && $boots == 369 ]] && ! grep -q 'retrying once' "$TMP/vt.err" && ok=1
verdict "vm-run.sh failing before a boot (125, no console.log): one try, exit 125, no 'died while booting' retry (boots: '$boots')" "$ok" "$TMP/vt.err"

# The Debian 6.12 vmalloc purge deadlock in the guest's log
# (scripts/known-kernel-bugs.sh): booted once more, the first boot's logs
# kept; once only; never for a failure without it, nor without time.
deadlock=$REPO/scripts/tests/vmalloc-deadlock-6.12.dmesg
STUB_DMESG=$deadlock run_vt 1000 '1'
ok=0
read -r -a b <<<"$boots"
[[ $rc -eq 0 && ${#b[@]} -eq 2 && ${b[1]} -le ${b[0]} && ${b[1]} -ge $((b[0] - 2)) ]] &&
	grep -q "^vm-test.sh: KNOWN KERNEL BUG, not fxtrace's: the guest (exit 1) hit the Debian 6.12 vmalloc purge deadlock" "$TMP/vt.err" &&
	cmp -s "$deadlock" "$vt/build/vm-out/6.1/first-boot/dmesg.txt" &&
	[[ -e $vt/build/vm-out/6.1/first-boot/console.log && ! -s $vt/build/vm-out/6.1/dmesg.txt ]] && ok=1
verdict "a guest that failed on the 6.12 vmalloc deadlock: booted again (--timeout from the deadline), says so, its logs in first-boot/; the clean second boot is the result (boots: '$boots')" "$ok" "$TMP/vt.err"

STUB_DMESG="$deadlock $deadlock" run_vt 1000 '1 1'
ok=0
read -r -a b <<<"$boots"
[[ $rc -eq 1 && ${#b[@]} -eq 2 && $(grep -c 'KNOWN KERNEL BUG' "$TMP/vt.err") -eq 1 ]] &&
	grep -q '^vm-test.sh: the guest.s kernel log shows a kernel bug' "$TMP/vt.err" && ok=1
verdict "the deadlock in both boots: two boots, not three; exit 1, the log scan's verdict (boots: '$boots')" "$ok" "$TMP/vt.err"

STUB_DMESG=$deadlock run_vt 1000 '0'
ok=0
[[ $rc -eq 1 && ($boots == 970 || $boots == 969) ]] && ! grep -q 'KNOWN KERNEL BUG' "$TMP/vt.err" &&
	[[ ! -e $vt/build/vm-out/6.1/first-boot ]] && ok=1
verdict "the deadlock's stacks in the log of a guest that passed: no second boot (only a failure is retried), exit 1 from the log scan, no first-boot/ left from before (boots: '$boots')" "$ok" "$TMP/vt.err"

# The deadlock, and before it a WARNING in fxtrace: not excused by the
# retry, which would have thrown that boot's log away (before: booted
# again, exit 0 on a clean second boot).
{ printf '%s\n' '[   60.000001] WARNING: CPU: 0 PID: 321 at kmod/fxtrace_ring.c:99 fxtrace_ring_commit+0x12/0x40 [fxtrace]' \
	'[   60.000002] Call Trace:' '[   60.000003]  fxtrace_probe_sched_switch+0x40/0x90 [fxtrace]'
  cat "$deadlock"; } >"$TMP/warned.dmesg"
STUB_DMESG=$TMP/warned.dmesg run_vt 1000 '1'
ok=0
[[ $rc -eq 1 && ($boots == 970 || $boots == 969) ]] &&
	grep -q "^vm-test.sh: KNOWN KERNEL BUG, not fxtrace's" "$TMP/vt.err" &&
	grep -q '^vm-test.sh: not retried: its kernel log shows more than the deadlock.s hung-task reports' "$TMP/vt.err" &&
	grep -q 'WARNING: CPU: 0 PID: 321 at kmod/fxtrace_ring.c' "$vt/build/vm-out/6.1/first-boot/dmesg.bad" &&
	[[ $(grep -c . "$vt/build/vm-out/6.1/first-boot/dmesg.bad") -eq 2 ]] && ok=1
verdict "the deadlock after a WARNING in fxtrace: not booted again, exit 1; first-boot/dmesg.bad holds that WARNING and its Call Trace, none of the deadlock's (boots: '$boots')" "$ok" "$TMP/vt.err"

# Failed steps and the deadlock (its first report at 242.9 s says
# "blocked for more than 120 seconds": it began after 2.9 s of uptime).
# A step that failed before then is not excused (before: booted again,
# exit 0 on a clean second boot, the failure gone with the first boot);
# nor one that did not say when it failed; one after then is, and named.
printf '%s\n' 'ok 1 load_module' '# ok 1 get_info_describes_the_abi' '# not ok 2 second_open_is_ebusy' \
	'# ioctl_test failed at 2.50 s of uptime' 'not ok 2 ioctl_test (exit 1)' >"$TMP/early.console"
STUB_CONSOLE=$TMP/early.console STUB_DMESG=$deadlock run_vt 1000 '1'
ok=0
[[ $rc -eq 1 && ($boots == 970 || $boots == 969) ]] &&
	grep -q "^vm-test.sh: KNOWN KERNEL BUG, not fxtrace's" "$TMP/vt.err" &&
	grep -qF 'vm-test.sh: not retried: it failed steps that ended before the deadlock can have begun (2.901935 s of uptime' "$TMP/vt.err" &&
	grep -qxF '    not ok 2 ioctl_test (exit 1) at 2.50 s' "$TMP/vt.err" &&
	[[ $(cat "$vt/build/vm-out/6.1/first-boot/tap.failed") == 'not ok 2 ioctl_test (exit 1) at 2.50 s' ]] && ok=1
verdict "the deadlock after a step failed before it began: not booted again, exit 1; the step named, in first-boot/tap.failed (boots: '$boots')" "$ok" "$TMP/vt.err"

printf '%s\n' 'ok 1 load_module' 'not ok 2 ioctl_test (exit 1)' >"$TMP/undated.console"
STUB_CONSOLE=$TMP/undated.console STUB_DMESG=$deadlock run_vt 1000 '1'
ok=0
[[ $rc -eq 1 && ($boots == 970 || $boots == 969) ]] &&
	[[ $(cat "$vt/build/vm-out/6.1/first-boot/tap.failed") == 'not ok 2 ioctl_test (exit 1)' ]] && ok=1
verdict "the deadlock after a failed step that did not say when: not booted again, exit 1 (boots: '$boots')" "$ok" "$TMP/vt.err"

printf '%s\n' 'ok 1 load_module' '# not ok 2 second_open_is_ebusy' \
	'[  150.000001] fxtrace: a kernel line' '# ioctl_test failed at 150.20 s of uptime' \
	'[  150.300000] a kernel line that runs into TAP: not ok 2 ioctl_test (exit 137)' >"$TMP/late.console"
STUB_CONSOLE=$TMP/late.console STUB_DMESG=$deadlock run_vt 1000 '1'
ok=0
read -r -a b <<<"$boots"
[[ $rc -eq 0 && ${#b[@]} -eq 2 ]] &&
	grep -qF 'vm-test.sh: its steps that failed after the deadlock may have begun (after 2.901935 s of uptime) are taken for the deadlock' "$TMP/vt.err" &&
	grep -qxF '    not ok 2 ioctl_test (exit 137) at 150.20 s' "$TMP/vt.err" &&
	grep -q 'retrying once' "$TMP/vt.err" &&
	[[ ! -e $vt/build/vm-out/6.1/first-boot/tap.failed ]] && ok=1
verdict "the deadlock after a step failed once it may have begun: booted again, the step named; the clean second boot is the result (boots: '$boots')" "$ok" "$TMP/vt.err"

rm -f "$vt/build/vm-out/6.1/console.log"
STUB_NO_BOOT=1 STUB_DMESG=$deadlock run_vt 1000 '1'
ok=0
[[ $rc -eq 1 && ($boots == 970 || $boots == 969) ]] &&
	grep -qF 'vm-test.sh: not retried: its console' "$TMP/vt.err" && ok=1
verdict "the deadlock with no console back: not booted again, exit 1, and it says the console could not be read (boots: '$boots')" "$ok" "$TMP/vt.err"

grep -v 'drain_vmap_area_work' "$deadlock" >"$TMP/half.dmesg"
STUB_DMESG=$TMP/half.dmesg run_vt 1000 '1'
ok=0
[[ $rc -eq 1 && ($boots == 970 || $boots == 969) ]] && ! grep -q 'KNOWN KERNEL BUG\|retrying' "$TMP/vt.err" && ok=1
verdict "a failed guest with hung tasks but not the whole signature: one boot, exit 1 (boots: '$boots')" "$ok" "$TMP/vt.err"

STUB_BOOT_S=3 STUB_DMESG=$deadlock run_vt 92 '1'
ok=0
[[ $rc -eq 1 && ($boots == 62 || $boots == 61) ]] &&
	grep -qF "vm-test.sh: not retried: no time left for a boot; the guest that hit the kernel bug is the result (exit 1)" "$TMP/vt.err" && ok=1
verdict "the deadlock with no time left to boot again: one boot, its failure stands, and it says so (boots: '$boots')" "$ok" "$TMP/vt.err"

run_vt 80 ''
ok=0
[[ $rc -eq 124 && -z $boots ]] &&
	grep -qE '^vm-test.sh: time budget exhausted: (79|80) s left before FXTRACE_DEADLINE, a boot needs 60 s and 30 s after it: not booting$' "$TMP/vt.err" && ok=1
verdict "FXTRACE_DEADLINE in 80 s: no boot, exit 124, 'time budget exhausted: 80 s left ...: not booting' (boots: '$boots')" "$ok" "$TMP/vt.err"

STUB_BOOT_S=3 run_vt 92 '125'
ok=0
[[ $rc -eq 125 && ($boots == 62 || $boots == 61) ]] &&
	grep -qE '^vm-test.sh: time budget exhausted: (88|89) s left before FXTRACE_DEADLINE, a boot needs 60 s and 30 s after it: not booting$' "$TMP/vt.err" &&
	grep -qF 'vm-test.sh: not retried: no time left for a boot; the guest that died while booting is the result (exit 125)' "$TMP/vt.err" && ok=1
verdict "a guest that died before the tests, with no time left to boot it again: exit 125 (its failure), not 124, and it says so (boots: '$boots')" "$ok" "$TMP/vt.err"

FXTRACE_DEADLINE=soon bash "$vt/scripts/vm-test.sh" 6.1 >/dev/null 2>"$TMP/vt.err"
rc=$?
ok=0
[[ $rc -eq 2 ]] && grep -qF "vm-test.sh: FXTRACE_DEADLINE must be seconds since the epoch, not 'soon'" "$TMP/vt.err" && ok=1
verdict "FXTRACE_DEADLINE=soon: exit 2, a message" "$ok" "$TMP/vt.err"

tap_end
