#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-known-kernel-bugs.sh -- scripts/known-kernel-bugs.sh recognises the
# Debian 6.12 vmalloc purge deadlock in the kernel log of the guest it was
# found in (scripts/tests/vmalloc-deadlock-6.12.dmesg: that guest's
# hung-task reports, cut from its dmesg.txt), and nothing short of the
# whole signature: each half of the cycle alone, either half with an
# fxtrace frame, the shrinker half waiting for a spinlock (PREEMPT_RT) or
# in a task other than kthreadd, the purge half in another work function
# or not in __flush_work, the stacks without the hung-task reports, an
# empty log. The same log with PREEMPT_RT's mutex frames matches. And
# without_hung_task_reports leaves nothing of the reports, and the rest.
# vm-test.sh's retry on it is tested by scripts/test-time-budget.sh.
#
# Prints TAP (scripts/tap.sh); exit status 1 if a test failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
# shellcheck source=scripts/known-kernel-bugs.sh
. "$REPO/scripts/known-kernel-bugs.sh"
LOG=$REPO/scripts/tests/vmalloc-deadlock-6.12.dmesg
TMP=$(mktemp -d /tmp/fxt-known-bugs.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# without_report TASK: the log less the hung-task report of TASK (its
# "INFO: task TASK:" line to its "</TASK>").
without_report() {
	awk -v t="INFO: task $1:" 'index($0, t) { skip = 1 } !skip { print } skip && /<\/TASK>/ { skip = 0 }' "$LOG"
}

# case_of NAME WANT FILE: known_kernel_bug on FILE must succeed (WANT=match)
# or fail printing nothing (WANT=none).
case_of() {
	local out rc=0
	out=$(known_kernel_bug "$3") || rc=$?
	if [[ $2 == match ]]; then
		[[ $rc -eq 0 && $out == *'vmalloc purge deadlock'* ]]
	else
		[[ $rc -ne 0 && -z $out ]]
	fi
	tap_ok $? "$1 (exit $rc)"
	[[ -z $out ]] || echo "#   it said: $out"
}

tap_begin
declare -F known_kernel_bug >/dev/null || {
	echo "Bail out! scripts/known-kernel-bugs.sh defines no known_kernel_bug"
	exit 1
}
[[ -s $LOG ]] || { echo "Bail out! $LOG is missing"; exit 1; }
[[ $(grep -c 'INFO: task .* blocked for more than' "$LOG") == 3 ]] || {
	echo "Bail out! $LOG should hold 3 hung-task reports"
	exit 1
}

case_of "the guest's log: kthreadd in vmap_node_shrink_scan, a kworker in drain_vmap_area_work" match "$LOG"

without_report kworker/0:0 >"$TMP/no-purger"
case_of "the shrinker's half alone (no report of the purging kworker)" none "$TMP/no-purger"

without_report kthreadd >"$TMP/no-shrinker"
case_of "the purger's half alone (no report of kthreadd)" none "$TMP/no-shrinker"

sed 's/^\(.*\) vmap_node_shrink_scan+0x16\/0x70$/&\n\1 fxtrace_free_rings+0x10\/0x90 [fxtrace]/' "$LOG" >"$TMP/fxtrace-shrinker"
grep -q 'fxtrace_free_rings' "$TMP/fxtrace-shrinker" || echo "# the fxtrace frame was not inserted"
case_of "an fxtrace frame in kthreadd's stack" none "$TMP/fxtrace-shrinker"

sed 's/^\(.*\) __purge_vmap_area_lazy+0x2e6\/0x320$/&\n\1 fxtrace_free_rings+0x10\/0x90 [fxtrace]/' "$LOG" >"$TMP/fxtrace-purger"
grep -q 'fxtrace_free_rings' "$TMP/fxtrace-purger" || echo "# the fxtrace frame was not inserted"
case_of "an fxtrace frame in the kworker's stack" none "$TMP/fxtrace-purger"

# 6.12-rt: a mutex is an rt_mutex there (PREEMPT_RT's mutex_lock), and
# a spinlock sleeps too, but waiting for one is not this bug.
sed 's|__mutex_lock\.constprop\.0+0x37d/0x6f0|rt_mutex_slowlock.constprop.0+0x4d/0x1a0|' "$LOG" >"$TMP/rt-mutex"
grep -q 'rt_mutex_slowlock' "$TMP/rt-mutex" || echo "# the rt_mutex frame was not put in"
case_of "kthreadd waiting for the mutex as PREEMPT_RT does (rt_mutex_slowlock)" match "$TMP/rt-mutex"

sed 's|__mutex_lock\.constprop\.0+0x37d/0x6f0|rt_spin_lock+0x40/0x90|' "$LOG" >"$TMP/rt-spin"
case_of "kthreadd waiting in vmap_node_shrink_scan for a spinlock (PREEMPT_RT), not the mutex" none "$TMP/rt-spin"

sed 's/INFO: task kthreadd:2 /INFO: task fxt-collect:2 /' "$LOG" >"$TMP/not-kthreadd"
case_of "the shrinker's half in a task other than kthreadd" none "$TMP/not-kthreadd"

sed 's/Workqueue: events drain_vmap_area_work/Workqueue: events vmstat_update/' "$LOG" >"$TMP/other-work"
case_of "the kworker running other work than drain_vmap_area_work" none "$TMP/other-work"

grep -v '__flush_work' "$LOG" >"$TMP/no-flush"
case_of "the kworker not waiting in __flush_work" none "$TMP/no-flush"

grep -v 'INFO: task' "$LOG" >"$TMP/no-reports"
case_of "the same stacks without the hung-task detector's report lines" none "$TMP/no-reports"

: >"$TMP/empty"
case_of "an empty log" none "$TMP/empty"

# without_hung_task_reports: the log less its three reports keeps no line
# the log scan fails on (vm-test.sh retries only then), and keeps a line
# outside them (a WARNING before the first, the lines after the last).
KERNEL_BAD=$(. "$REPO/selftests/kmsg_scan.sh" && printf %s "$KERNEL_BAD")
{ echo '[   60.000001] WARNING: CPU: 0 PID: 321 at kmod/fxtrace_ring.c:99 x+0x1/0x2 [fxtrace]'
  cat "$LOG"; } >"$TMP/warned"
without_hung_task_reports "$LOG" >"$TMP/rest" &&
	without_hung_task_reports "$TMP/warned" >"$TMP/warned-rest"
rc=$?
bad=$(grep -cE "$KERNEL_BAD" "$TMP/rest")
wbad=$(grep -cE "$KERNEL_BAD" "$TMP/warned-rest")
[[ $rc -eq 0 && $bad -eq 0 && $wbad -eq 1 && $(grep -c 'INFO: task' "$TMP/rest") -eq 0 &&
	$(grep -c . "$TMP/rest") -eq $(($(grep -c . "$TMP/warned-rest") - 1)) ]]
tap_ok $? "without_hung_task_reports: the guest's log less its reports has no line KERNEL_BAD matches ($bad), with a WARNING before them that one ($wbad)"

# hung_task_onset: the first report (242.901935 s, "more than 120
# seconds") dates the deadlock's start after 242.901935 - 240 s; a report
# naming another timeout counts that one; a log with none is false.
onset=$(hung_task_onset "$LOG")
rc=$?
printf '%s\n' '[    1.000000] fxtrace: ready' '[  100.500000] INFO: task x:9 blocked for more than 30 seconds.' \
	'[  200.000000] INFO: task y:10 blocked for more than 120 seconds.' >"$TMP/short"
short=$(hung_task_onset "$TMP/short")
rc2=$?
hung_task_onset "$TMP/empty" >"$TMP/none.out"
rc3=$?
[[ $rc -eq 0 && $onset == 2.901935 && $rc2 -eq 0 && $short == 40.500000 && $rc3 -ne 0 && ! -s $TMP/none.out ]]
tap_ok $? "hung_task_onset: the guest's log gives $onset (242.901935 - 2 x 120), a 30 s timeout's report at 100.5 s gives $short, a log without a report is false"

tap_end
