#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-vm-steps.sh -- pieces of the VM selftests (selftests/run_vm_tests.sh)
# on the host, with the kernel-log scan, the leak check, rmmod and insmod
# stubbed out: run_vm_tests.sh's step() and unload_while_open_is_refused(),
# taken out of the script with sed (its top level runs the whole suite).
# unload_while_open_is_refused with no device (a missing directory, a
# missing file), or one that cannot be opened, is a "not ok" and the runner
# goes on to its next step and its plan line (busybox sh ended at a failed
# `exec 3<>`), and no file is created where the device was to be.
# A skipped step's line gives the reason, as kselftest's do. Each step's
# time is followed by the memory it left (memory_line), and a failed
# step's "not ok" by the time it failed.
# collector_full_fs (selftests/fault_steps.sh) without its small tmpfs
# fails in the test VM (FXTRACE_VM=1) and skips elsewhere.
# Run with busybox's sh (what the VM has) when busybox is installed, and
# with the host's sh.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-vm-steps.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/out"
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered

# not_ok NAME LOG: a failed test, LOG nested.
not_ok() {
	tap_ok 1 "$1"
	sed 's/^/# /' "$2"
}

# The runner's functions, /dev/fxtrace in them replaced by $FXTRACE_DEV
# (never the host's own path), and stubs for what they call that needs a VM.
sed -n '/^memory_line() {$/,/^}$/p; /^step() {$/,/^}$/p; /^unload_while_open_is_refused() {$/,/^}$/p; /^compat32_test() {$/,/^}$/p' \
	"$REPO/selftests/run_vm_tests.sh" | sed 's|/dev/fxtrace|$FXTRACE_DEV|g' > "$TMP/functions.sh"
for f in memory_line step unload_while_open_is_refused compat32_test; do
	grep -q "^$f() {\$" "$TMP/functions.sh" || {
		tap_ok 1 "$f() not found in selftests/run_vm_tests.sh"
		exit 1
	}
done
if grep -q /dev/fxtrace "$TMP/functions.sh" || ! grep -q 'FXTRACE_DEV' "$TMP/functions.sh"; then
	tap_ok 1 "unload_while_open_is_refused() does not open /dev/fxtrace"
	exit 1
fi
cat > "$TMP/runner.sh" <<'EOF'
dmesg_begin() { :; }
dmesg_has_bugs() { return 1; }
no_live_allocations() { return 0; }
# rmmod: refused while this shell has fd 3 open (the session), else works.
rmmod() { [ ! -e "/proc/$$/fd/3" ]; }
insmod() { :; }
n=0
passed=0
failed=0
skipped=0
. "$FUNCTIONS"
EOF

# run SHELL DEVICE SCRIPT: the runner's functions in SHELL ("sh" or
# "busybox"), FXTRACE_DEV=DEVICE, then SCRIPT; its output in $TMP/log.
run() {
	local sh=$1
	[[ $sh == busybox ]] && sh="busybox sh"
	# shellcheck disable=SC2016 # expanded by $sh
	OUT=$TMP/out FXTRACE_DEV=$2 FUNCTIONS=$TMP/functions.sh RUNNER=$TMP/runner.sh \
		$sh -c '. "$RUNNER"; '"$3" > "$TMP/log" 2>&1
}

# The unload step, then one more, then the plan.
two_steps='step unload_while_open_is_refused unload_while_open_is_refused
step next_step true
echo "1..$n"'

shells=(sh)
if command -v busybox >/dev/null; then
	shells+=(busybox)
else
	tap_diag "busybox is not installed: the runner runs with this host's sh only"
fi
# A character device no driver has (major 240 is for local/experimental
# use): open() fails with ENXIO. Needs root and a /tmp without nodev.
nodrv=''
if mknod "$TMP/nodriver" c 240 99 2>/dev/null; then
	nodrv=$TMP/nodriver
else
	tap_diag "cannot mknod a character device in $TMP: no test of a device that does not open"
fi
for sh in "${shells[@]}"; do
	for dev in "$TMP/nodir/fxtrace" "$TMP/fxtrace" ${nodrv:+"$nodrv"}; do
		rm -f "$TMP/fxtrace"
		run "$sh" "$dev" "$two_steps"
		if grep -qx 'not ok 1 unload_while_open_is_refused (exit 1)' "$TMP/log" &&
			grep -qx 'ok 2 next_step' "$TMP/log" && grep -qx '1\.\.2' "$TMP/log" &&
			[[ ! -e $TMP/fxtrace && ! -e $TMP/nodir ]]; then
			tap_ok 0 "$sh: unload_while_open_is_refused, FXTRACE_DEV=${dev#"$TMP"/} (cannot be opened): not ok, the runner goes on to its next step and plan, no file created"
		else
			not_ok "$sh: unload_while_open_is_refused, FXTRACE_DEV=${dev#"$TMP"/}: want 'not ok 1', 'ok 2 next_step', '1..2', and no file made" "$TMP/log"
		fi
	done
	# A character device that opens (/dev/null): rmmod is refused while
	# it is open, works after (the stubs), and the step passes.
	run "$sh" /dev/null "$two_steps"
	if grep -qx 'ok 1 unload_while_open_is_refused' "$TMP/log" && grep -qx '1\.\.2' "$TMP/log"; then
		tap_ok 0 "$sh: unload_while_open_is_refused with a device that opens: ok"
	else
		not_ok "$sh: unload_while_open_is_refused with a device that opens: want 'ok 1'" "$TMP/log"
	fi
	# Each step says what memory it left (from /proc/meminfo: the host's
	# here), right after its time.
	if grep -A1 '^# next_step took [0-9.]* s$' "$TMP/log" |
		grep -qE '^# memory after next_step: free [1-9][0-9]* MiB, available [1-9][0-9]* MiB, shmem [0-9]+ MiB, vmalloc [0-9]+ MiB$'; then
		tap_ok 0 "$sh: a step's memory line follows its time, with non-zero free and available memory"
	else
		not_ok "$sh: want '# memory after next_step: free N MiB, available N MiB, shmem N MiB, vmalloc N MiB' after its time" "$TMP/log"
	fi
done

# A failed step says when it failed, in seconds of uptime, on the line
# right before its "not ok": scripts/vm-test.sh reads it to tell a step
# that failed before a known kernel deadlock began from one that failed
# in it. A passing step says nothing of the kind.
for sh in "${shells[@]}"; do
	run "$sh" /dev/null 'step passes true; step fails false'
	if grep -B1 -x 'not ok 2 fails (exit 1)' "$TMP/log" | head -n 1 |
		grep -qE '^# fails failed at [0-9]+\.[0-9]+ s of uptime$' &&
		! grep -q 'passes failed' "$TMP/log"; then
		tap_ok 0 "$sh: a failed step's 'not ok' follows '# NAME failed at T s of uptime'; a passed step has none"
	else
		not_ok "$sh: want '# fails failed at T s of uptime' right before 'not ok 2 fails (exit 1)', none for 'passes'" "$TMP/log"
	fi
done

# A skipped step's TAP line gives the reason after "# SKIP", as kselftest's
# do: the step's first "SKIP:" line (a shell step's, or a test program's
# nested "#   SKIP: ..."), else a nested "# SKIP" reason; none, none.
# shellcheck disable=SC2016 # expanded by the shell under test
skips='s1() { echo "checking"; echo "SKIP: no CPU hotplug"; echo "SKIP: later"; return 4; }
s2() { echo "#   SKIP: no device here"; echo "ok 1 skips # SKIP no device here"; return 4; }
s3() { echo "ok 1 t # SKIP nothing to do"; return 4; }
s4() { echo "nothing said"; return 4; }
step s1 s1; step s2 s2; step s3 s3; step s4 s4'
for sh in "${shells[@]}"; do
	run "$sh" /dev/null "$skips"
	if grep -qx 'ok 1 s1 # SKIP no CPU hotplug' "$TMP/log" && grep -qx 'ok 2 s2 # SKIP no device here' "$TMP/log" &&
		grep -qx 'ok 3 s3 # SKIP nothing to do' "$TMP/log" && grep -qx 'ok 4 s4 # SKIP' "$TMP/log"; then
		tap_ok 0 "$sh: a skipped step's TAP line gives the step's first SKIP: reason after the skip directive, or none without one"
	else
		not_ok "$sh: a skipped step's TAP line: want the skip directive with the reasons 'no CPU hotplug', 'no device here', 'nothing to do' and none (steps s1 to s4)" "$TMP/log"
	fi
done

# compat32_test NAME runs bin/NAME only if it is a 32-bit ELF program, and
# its exit status is the program's: a 64-bit program under the name (a
# build that lost -m32) is a failure, not a pass.
mkdir -p "$TMP/bin"
# A 64-bit program that would pass: exit 0.
printf 'int main(void) { return 0; }\n' | cc -x c -o "$TMP/bin/wide_test32" - || exit 1
m32=0
for rc in 0 3; do
	printf 'int main(void) { return %d; }\n' "$rc" |
		cc -m32 -x c -o "$TMP/bin/narrow${rc}_test32" - 2>/dev/null && m32=1
done
((m32)) || tap_diag "cc -m32 fails (no gcc-multilib): compat32_test is run on a 64-bit program only"
for sh in "${shells[@]}"; do
	# shellcheck disable=SC2016 # expanded by the shell under test
	run "$sh" /dev/null 'cd "$OUT/.." && step wide compat32_test wide_test32'
	if grep -qx 'not ok 1 wide (exit 1)' "$TMP/log" && grep -qF 'bin/wide_test32 is not a 32-bit ELF program' "$TMP/log"; then
		tap_ok 0 "$sh: compat32_test with a 64-bit program: not ok, saying it is not a 32-bit one"
	else
		not_ok "$sh: compat32_test with a 64-bit program: want 'not ok 1 wide (exit 1)' and why" "$TMP/log"
	fi
	((m32)) || continue
	# shellcheck disable=SC2016 # expanded by the shell under test
	run "$sh" /dev/null 'cd "$OUT/.." && step n0 compat32_test narrow0_test32 && step n3 compat32_test narrow3_test32'
	if grep -qx 'ok 1 n0' "$TMP/log" && grep -qx 'not ok 2 n3 (exit 3)' "$TMP/log"; then
		tap_ok 0 "$sh: compat32_test with 32-bit programs: their exit status (0 ok, 3 not ok)"
	else
		not_ok "$sh: compat32_test with 32-bit programs exiting 0 and 3: want 'ok 1 n0', 'not ok 2 n3 (exit 3)'" "$TMP/log"
	fi
done

# collector_full_fs (selftests/fault_steps.sh) when its tmpfs cannot be
# mounted (mount stubbed to fail): a failure in the test VM
# (FXTRACE_VM=1), a skip elsewhere. Its mount point is /tmp/fxt-full-fs.
had_full_fs=0
[[ -e /tmp/fxt-full-fs ]] && had_full_fs=1
for sh in "${shells[@]}"; do
	for vm in 1 ''; do
		sh_cmd=$sh
		[[ $sh == busybox ]] && sh_cmd="busybox sh"
		rc=0
		# shellcheck disable=SC2016 # expanded by $sh_cmd
		OUT=$TMP/out FXTRACE_VM=$vm STEPS=$REPO/selftests/fault_steps.sh \
			$sh_cmd -c '. "$STEPS"; mount() { return 32; }; collector_full_fs' > "$TMP/log" 2>&1 || rc=$?
		if [[ $vm == 1 ]]; then
			want=1 text='a failure in the test VM (FXTRACE_VM=1)'
		else
			want=4 text='SKIP: cannot mount a '
		fi
		if [[ $rc -eq $want ]] && grep -qF -- "$text" "$TMP/log"; then
			tap_ok 0 "$sh: collector_full_fs, tmpfs mount fails, FXTRACE_VM=${vm:-unset}: exit $want, '$text'"
		else
			not_ok "$sh: collector_full_fs, tmpfs mount fails, FXTRACE_VM=${vm:-unset}: exit $rc, want $want and '$text'" "$TMP/log"
		fi
	done
done
((had_full_fs)) || rmdir /tmp/fxt-full-fs 2>/dev/null
tap_end
