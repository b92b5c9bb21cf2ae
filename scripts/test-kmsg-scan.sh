#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-kmsg-scan.sh -- the VM selftests' kernel-log scan (selftests/
# kmsg_scan.sh, run after every step by run_vm_tests.sh) on canned
# /dev/kmsg logs, on the host: a step's messages are found by sequence
# number also when the log buffer is full and old lines drop out; records
# lost before the scan read them fail the step, never pass it; a reader
# that fails does too; a step's mark is where the previous step's scan
# ended, so records printed between two steps are not skipped; only the
# Call Trace line of the OOM report ioctl_test asks for passes; the last
# step (kernel_log_final) checks the W taint bit. Run with busybox's sh,
# awk, grep and sed (what the
# VM has) when busybox is installed, and with the host's sh and tools.
# Then fxt-kmsg (selftests/fxt_kmsg.c) reads this host's /dev/kmsg, if it
# may, and returns at its end instead of waiting.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-kmsg-scan.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/out"
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered

# The runner's own regex, not a copy.
# shellcheck source=selftests/kmsg_scan.sh
KERNEL_BAD=$(. "$REPO/selftests/kmsg_scan.sh" && printf %s "$KERNEL_BAD")
[[ -n $KERNEL_BAD ]] || tap_ok 1 "KERNEL_BAD found in selftests/kmsg_scan.sh"

# rec SEQ USEC MESSAGE: one record as /dev/kmsg gives it.
rec() { printf '6,%s,%s,-;%s\n' "$1" "$2" "$3"; }
# recs FROM TO: benign records FROM..TO.
recs() {
	local s
	for ((s = $1; s <= $2; s++)); do rec "$s" $((s * 1000)) "ordinary message $s"; done
}

# scan SHELL BEFORE AFTER [BEFORE_READER [AFTER_READER]]: dmesg_begin with
# the log BEFORE, then dmesg_has_bugs with the log AFTER, in SHELL ("sh", or
# "busybox" for busybox sh with busybox's tools first on PATH). The
# printed lines go to $TMP/scan, the verdict to $scan_rc (0 = the step
# fails).
scan() {
	local sh=$1 path=$PATH
	cp "$2" "$TMP/before"
	cp "$3" "$TMP/after"
	if [[ $sh == busybox ]]; then
		path=$TMP/bb:$PATH
		sh="busybox sh"
	fi
	# shellcheck disable=SC2016 # expanded by $sh
	PATH=$path OUT=$TMP/out BAD=$KERNEL_BAD SCAN=$REPO/selftests/kmsg_scan.sh \
		READ1=${4:-cat $TMP/log} READ2=${5:-cat $TMP/log} LOG=$TMP/log \
		BEFORE=$TMP/before AFTER=$TMP/after $sh -c '
		. "$SCAN"
		KERNEL_BAD=$BAD
		KMSG_READ=$READ1
		cp "$BEFORE" "$LOG"
		dmesg_begin
		KMSG_READ=$READ2
		cp "$AFTER" "$LOG"
		dmesg_has_bugs' >"$TMP/scan" 2>&1
	scan_rc=$?
}

# scan2 SHELL LOG1 LOG2 LOG3 LOG4 [READER2]: two steps in one shell, as
# run_vm_tests.sh runs them: dmesg_begin with LOG1, dmesg_has_bugs with LOG2
# (read by READER2 if given), dmesg_begin with LOG3, dmesg_has_bugs with
# LOG4. The first step's lines go to $TMP/scan1, the second's to $TMP/scan,
# its verdict to $scan_rc.
scan2() {
	local sh=$1 path=$PATH
	cp "$2" "$TMP/l1"; cp "$3" "$TMP/l2"; cp "$4" "$TMP/l3"; cp "$5" "$TMP/l4"
	if [[ $sh == busybox ]]; then
		path=$TMP/bb:$PATH
		sh="busybox sh"
	fi
	# shellcheck disable=SC2016 # expanded by $sh
	PATH=$path OUT=$TMP/out BAD=$KERNEL_BAD SCAN=$REPO/selftests/kmsg_scan.sh \
		READ=${6:-cat $TMP/log} LOG=$TMP/log T=$TMP $sh -c '
		. "$SCAN"
		KERNEL_BAD=$BAD
		KMSG_READ="cat $LOG"
		cp "$T/l1" "$LOG"
		dmesg_begin
		KMSG_READ=$READ
		cp "$T/l2" "$LOG"
		dmesg_has_bugs > "$T/scan1" 2>&1
		KMSG_READ="cat $LOG"
		cp "$T/l3" "$LOG"
		dmesg_begin
		cp "$T/l4" "$LOG"
		dmesg_has_bugs' >"$TMP/scan" 2>&1
	scan_rc=$?
}

# final SHELL TAINTED_START TAINTED_END: kernel_log_final with these
# /proc/sys/kernel/tainted values; its lines in $TMP/scan, status in $scan_rc.
final() {
	local sh=$1 path=$PATH
	if [[ $sh == busybox ]]; then
		path=$TMP/bb:$PATH
		sh="busybox sh"
	fi
	echo "$2" >"$TMP/taint0"
	echo "$3" >"$TMP/taint1"
	# shellcheck disable=SC2016 # expanded by $sh
	PATH=$path OUT=$TMP/out SCAN=$REPO/selftests/kmsg_scan.sh T=$TMP KMSG_SETTLE=0 $sh -c '
		. "$SCAN"
		KMSG_TAINTED=$T/taint0
		kmsg_taint_start
		KMSG_TAINTED=$T/taint1
		kernel_log_final' >"$TMP/scan" 2>&1
	scan_rc=$?
}

# result STATUS NAME: ok if STATUS (of the checks just made) is 0.
result() {
	tap_ok "$1" "$2"
	[[ $1 -eq 0 ]] && return
	echo "#   dmesg_has_bugs: $scan_rc (0 = the step fails)"
	sed 's/^/#   printed: /' "$TMP/scan" | head -20
}
# clean: the step passes, silently.
clean() { [[ $scan_rc -ne 0 && ! -s $TMP/scan ]]; }
# fails LINE...: the step fails, the header first, and each LINE (fixed
# string) is printed, in that order.
fails() {
	local line n=1 at
	[[ $scan_rc -eq 0 && $(head -n 1 "$TMP/scan") == '# dmesg after this step:' ]] || return 1
	for line in "$@"; do
		at=$(tail -n +"$n" "$TMP/scan" | grep -nxF -- "$line" | head -n 1 | cut -d: -f1)
		[[ -n $at ]] || return 1
		n=$((n + at))
	done
}

shells=(sh)
if command -v busybox >/dev/null; then
	mkdir -p "$TMP/bb"
	for a in sh awk grep sed cat head tail cp sleep; do ln -s "$(command -v busybox)" "$TMP/bb/$a"; done
	shells+=(busybox)
else
	tap_diag "busybox is not installed: the scan runs under the host's sh only"
fi

L=$TMP/logs
mkdir -p "$L"
recs 1 5 >"$L/1-5"
{ recs 1 5; rec 6 6000 'fxtrace: ready'; rec 7 7123456 'WARNING: CPU: 1 PID: 42 at kmod/fxtrace_main.c:10 x+0x1/0x2'; recs 8 8; } >"$L/warn"
{ recs 1 8; } >"$L/1-8"
# A full buffer: as many lines before the step as after, the oldest gone.
recs 100 199 >"$L/full-before"
{ recs 150 248; rec 249 249000 'BUG: kernel NULL pointer dereference, address: 0000000000000000'; } >"$L/full-after"
recs 150 249 >"$L/full-clean"
# Records 200..204, the step's first, overwritten before the scan.
recs 205 300 >"$L/lost-first"
{ recs 190 201; recs 210 220; } >"$L/lost-middle"
# A WARNING after more messages than the printed head of the step's log.
{ recs 1 5; recs 6 90; rec 91 91000 'WARNING: CPU: 0 PID: 9 at kmod/fxtrace_ring.c:1 y+0x1/0x2'; } >"$L/warn-late"
# Dictionary lines and a message with the separators in it.
{ recs 1 5; rec 6 6000 'virtio_blk virtio1: [vda] 8388608 512-byte logical blocks (4.29 GB/4.00 GiB); a,b;c'
  echo ' SUBSYSTEM=virtio'; echo ' DEVICE=+virtio:virtio1 WARNING: not a message'; } >"$L/dict"
: >"$L/empty"
# oom REPORTER VICTIM [EXTRA]: an OOM report, as 6.1 prints one, woken by
# REPORTER, killing VICTIM, with EXTRA as one more line of its stack.
oom() {
	rec 6 6000 "$1 invoked oom-killer: gfp_mask=0xcc2(GFP_KERNEL|__GFP_HIGHMEM), order=0, oom_score_adj=0"
	rec 7 6001 "CPU: 1 PID: 77 Comm: $1 Not tainted 6.1.0-56-amd64 #1  Debian 6.1.158-1"
	rec 8 6002 'Call Trace:'
	rec 9 6003 ' <TASK>'
	rec 10 6004 " ${3:-dump_stack_lvl+0x44/0x5c}"
	rec 11 6005 ' </TASK>'
	rec 12 6006 'Mem-Info:'
	rec 13 6007 "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=$2,pid=78,uid=0"
	rec 14 6008 "Out of memory: Killed process 78 ($2) total-vm:2468kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:44kB oom_score_adj:0"
}
{ recs 1 5; oom bystander fxt-oom-origin; rec 15 6009 'oom_reaper: reaped process 78 (fxt-oom-origin)'; } >"$L/oom-asked"
{ recs 1 5; oom fxt-oom-origin bystander; } >"$L/oom-other"
{ recs 1 5; oom bystander fxt-oom-origin 'WARNING: CPU: 1 PID: 77 at mm/vmalloc.c:1 x+0x1/0x2'; } >"$L/oom-warn"
{ recs 1 5; oom bystander fxt-oom-origin; rec 15 6009 'Call Trace:'; } >"$L/oom-then-trace"
{ recs 1 5; oom bystander fxt-oom-origin | head -n 5; } >"$L/oom-cut"
# Another CPU's report inside the asked one: its Call Trace stays.
{ recs 1 5; oom bystander fxt-oom-origin 'Call Trace:'; } >"$L/oom-two-traces"

for sh in "${shells[@]}"; do
	scan "$sh" "$L/1-5" "$L/1-5"
	clean
	result $? "$sh: no new record: the step is clean"
	scan "$sh" "$L/1-5" "$L/1-8"
	clean
	result $? "$sh: new ordinary records: the step is clean"
	scan "$sh" "$L/1-5" "$L/warn-late"
	fails "# the lines that fail it:" \
		"#   [    0.091000] WARNING: CPU: 0 PID: 9 at kmod/fxtrace_ring.c:1 y+0x1/0x2" \
		"# the step's messages from its first:" \
		"#   [    0.006000] ordinary message 6"
	result $? "$sh: a WARNING past the printed head of the step's log is printed first"
	scan "$sh" "$L/1-5" "$L/warn"
	fails "#   [    0.006000] fxtrace: ready" \
		"#   [    7.123456] WARNING: CPU: 1 PID: 42 at kmod/fxtrace_main.c:10 x+0x1/0x2" \
		"#   [    0.008000] ordinary message 8"
	result $? "$sh: a WARNING after the mark fails the step; its records printed as dmesg does"
	scan "$sh" "$L/warn" "$L/warn"
	clean
	result $? "$sh: a WARNING before the mark is not this step's"
	scan "$sh" "$L/full-before" "$L/full-after"
	fails "#   [    0.200000] ordinary message 200" \
		"#   [    0.249000] BUG: kernel NULL pointer dereference, address: 0000000000000000"
	result $? "$sh: full log buffer (same line count before and after): the step's BUG is found"
	scan "$sh" "$L/full-before" "$L/full-clean"
	clean
	result $? "$sh: full log buffer, old lines dropped out: the step is clean"
	scan "$sh" "$L/full-before" "$L/lost-first"
	fails "#   kmsg: records 200 to 204 (5) were lost before this scan read them: overwritten in the full log buffer; messages of this step were not checked" \
		"#   [    0.205000] ordinary message 205"
	result $? "$sh: the step's first records overwritten before the scan: the scan fails, says which"
	scan "$sh" "$L/full-before" "$L/lost-middle"
	fails "#   kmsg: records 202 to 209 (8) were lost before this scan read them: overwritten in the full log buffer; messages of this step were not checked" \
		"#   [    0.200000] ordinary message 200"
	result $? "$sh: a jump in the numbers after the mark (EPIPE while reading): the scan fails"
	scan "$sh" "$L/1-5" "$L/dict"
	clean
	result $? "$sh: dictionary lines are not messages (their WARNING: does not count)"
	KERNEL_BAD='a,b;c' scan "$sh" "$L/1-5" "$L/dict"
	fails "#   [    0.006000] virtio_blk virtio1: [vda] 8388608 512-byte logical blocks (4.29 GB/4.00 GiB); a,b;c"
	result $? "$sh: a message keeps its ';' and ','"
	scan "$sh" "$L/1-5" "$L/1-8" "" "false"
	fails "#   kmsg: reading /dev/kmsg after this step failed: false: "
	result $? "$sh: the reader fails after the step: the scan fails"
	scan "$sh" "$L/1-5" "$L/1-8" "false"
	fails "#   kmsg: no mark from before this step (false failed: ): its messages were not checked"
	result $? "$sh: the reader fails before the step: the scan fails"
	scan "$sh" "$L/empty" "$L/1-8"
	fails "#   kmsg: no mark from before this step (no record in /dev/kmsg): its messages were not checked"
	result $? "$sh: no record before the step: the scan fails"

	# The OOM report ioctl_test asks for: only its Call Trace line passes.
	scan "$sh" "$L/1-5" "$L/oom-asked"
	clean
	result $? "$sh: an OOM report killing fxt-oom-origin (ioctl_test's allocator): the step is clean"
	scan "$sh" "$L/1-5" "$L/oom-other"
	fails "#   [    0.006000] fxt-oom-origin invoked oom-killer: gfp_mask=0xcc2(GFP_KERNEL|__GFP_HIGHMEM), order=0, oom_score_adj=0" \
		"#   [    0.006002] Call Trace:"
	result $? "$sh: an OOM report killing another process fails the step, even if fxt-oom-origin woke the OOM killer"
	scan "$sh" "$L/1-5" "$L/oom-warn"
	fails "#   [    0.006004]  WARNING: CPU: 1 PID: 77 at mm/vmalloc.c:1 x+0x1/0x2"
	result $? "$sh: a WARNING inside the asked OOM report still fails the step"
	scan "$sh" "$L/1-5" "$L/oom-then-trace"
	fails "#   [    0.006009] Call Trace:"
	result $? "$sh: a Call Trace after the asked OOM report's end fails the step"
	scan "$sh" "$L/1-5" "$L/oom-two-traces"
	fails "#   [    0.006004]  Call Trace:"
	result $? "$sh: a second Call Trace inside the asked OOM report (another CPU's) still fails the step"
	scan "$sh" "$L/1-5" "$L/oom-cut"
	fails "#   [    0.006002] Call Trace:"
	result $? "$sh: an OOM report cut before its kill line fails the step"

	# Two steps in a row: the second's mark is where the first's scan ended.
	scan2 "$sh" "$L/1-5" "$L/1-5" "$L/warn" "$L/warn"
	fails "#   [    0.006000] fxtrace: ready" \
		"#   [    7.123456] WARNING: CPU: 1 PID: 42 at kmod/fxtrace_main.c:10 x+0x1/0x2"
	result $? "$sh: a WARNING printed after one step's scan, before the next step began, fails the next step"
	scan2 "$sh" "$L/1-5" "$L/1-8" "$L/1-8" "$L/1-8"
	[[ $scan_rc -ne 0 && ! -s $TMP/scan && ! -s $TMP/scan1 ]]
	result $? "$sh: two clean steps in a row: both clean"
	scan2 "$sh" "$L/full-before" "$L/full-before" "$L/lost-first" "$L/lost-first"
	fails "#   kmsg: records 200 to 204 (5) were lost before this scan read them: overwritten in the full log buffer; messages of this step were not checked"
	result $? "$sh: records overwritten between two steps, unread: the next step fails"
	scan2 "$sh" "$L/1-5" "$L/1-5" "$L/warn" "$L/warn" "false"
	[[ $scan_rc -ne 0 && ! -s $TMP/scan ]] && grep -qxF "#   kmsg: reading /dev/kmsg after this step failed: false: " "$TMP/scan1"
	result $? "$sh: after a scan that could not read, the next step takes a fresh mark (the failed step already failed)"

	# The last step: the kernel's W taint bit (bit 9, 512).
	final "$sh" 0 0
	[[ $scan_rc -eq 0 ]] && grep -qx 'taint W (bit 9) still clear after the last step' "$TMP/scan"
	result $? "$sh: kernel_log_final: W clear at the start and at the end: passes"
	final "$sh" 4096 4096
	[[ $scan_rc -eq 0 ]]
	result $? "$sh: kernel_log_final: another taint bit (4096, O) does not count"
	final "$sh" 4096 4608
	[[ $scan_rc -ne 0 ]] && grep -q '^the kernel got tainted W during the run: a WARN fired (tainted: 4608)$' "$TMP/scan"
	result $? "$sh: kernel_log_final: W set during the run: fails, says so"
	final "$sh" 512 512
	[[ $scan_rc -ne 0 ]] && grep -q 'tainted W (a WARN) before the first step' "$TMP/scan"
	result $? "$sh: kernel_log_final: W already set at the start: fails (the run cannot be checked by it)"
	final "$sh" "" 0
	[[ $scan_rc -ne 0 ]] && grep -q "cannot read the kernel's taint flags" "$TMP/scan"
	result $? "$sh: kernel_log_final: no taint value at the start: fails"
done

# fxt-kmsg on this host's log: it returns at the end, and what it prints
# is records numbered one after another (nobody writes that fast here).
if [[ ! -r /dev/kmsg ]]; then
	tap_skip "fxt-kmsg reads this host's /dev/kmsg" "/dev/kmsg is not readable here"
elif ! ${MAKE:-make} -s -C "$REPO/selftests" BUILDDIR="$TMP" "$TMP/fxt-kmsg" >"$TMP/make.log" 2>&1; then
	tap_ok 1 "fxt-kmsg builds"
	sed 's/^/#   /' "$TMP/make.log"
else
	rc=0
	timeout 20 "$TMP/fxt-kmsg" >"$TMP/kmsg" 2>"$TMP/kmsg.err" || rc=$?
	if [[ $rc -ne 0 ]] && grep -q 'Operation not permitted' "$TMP/kmsg.err"; then
		tap_skip "fxt-kmsg reads this host's /dev/kmsg" "$(cat "$TMP/kmsg.err")"
	else
		scan_rc=x
		[[ $rc -eq 0 ]] &&
			awk -F, '/^[0-9]+,[0-9]+,[0-9]+,/ { if (n++ && $2 != last + 1) bad = 1; last = $2; next }
				/^ / { next } { bad = 1 } END { exit bad || !n }' "$TMP/kmsg"
		ok=$?
		cp "$TMP/kmsg.err" "$TMP/scan"
		result $ok "fxt-kmsg reads this host's /dev/kmsg to its end and returns (exit $rc, $(grep -c '^[0-9]' "$TMP/kmsg") records, numbered in a row)"
	fi
fi
tap_end
