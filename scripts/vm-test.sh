#!/usr/bin/env bash
# vm-test.sh FLAVOUR -- the project's test entry for one Debian kernel:
# fetch the kernel, build fxtrace.ko against it and the static userspace,
# boot it in QEMU and run selftests/run_vm_tests.sh there.
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FETCH_KERNEL=$REPO/scripts/fetch-kernel.sh

# The supported flavours, from the one list of them in fetch-kernel.sh,
# e.g. "6.1, 6.12 or 6.12-rt".
known_flavours() {
	local list
	if ! list=$("$FETCH_KERNEL" --known-phrase) || [[ -z $list ]]; then
		echo "$prog: error: '$FETCH_KERNEL --known-phrase' failed" >&2
		exit 1
	fi
	echo "$list"
}

usage() {
	cat <<EOF
Usage: $prog [--smp N] [--maxcpus M] [--monitor-fifo PATH] [--mem MB] [--timeout SECONDS] [--command CMD] [--out DIR] FLAVOUR

FLAVOUR: $(known_flavours) (see scripts/fetch-kernel.sh --help)

Steps:
  1. scripts/fetch-kernel.sh FLAVOUR            (cached after the first run)
  2. make -C <repo> modules KDIR=<kernel headers>   -> kmod/fxtrace.ko
  3. make -C <repo> vm-userspace BUILDDIR=build/vm-<release>/bin  (static)
  4. payload build/vm-<release>/payload.XXXXXX/ (this run's own, removed
     when it ends):
       fxtrace.ko, bin/ (the static binaries), selftests/ (scripts + data
       from the repo's selftests/, no sources or host binaries)
  5. scripts/vm-run.sh ... --module vhost_net --out build/vm-out/FLAVOUR -- 'sh selftests/run_vm_tests.sh'

stdout is the VM console: the TAP stream of the tests (plus kernel
warnings). Build output and harness messages go to stderr.
Exit status: the guest's (0 = all tests passed), 124 VM timeout, 125 VM
failure (panic, no status), 1 a host-side step (fetch/build) failed or the
guest's kernel log (dmesg.txt) shows a kernel bug (selftests/kmsg_scan.sh's
KERNEL_BAD: WARNING, BUG, Oops, lockdep, Call Trace ..., but not the Call
Trace line of the OOM report ioctl_test asks for), 2 usage error.
A guest that died while booting, or that failed with a deadlock of the
kernel itself in its log (scripts/known-kernel-bugs.sh: an exact
signature; the first boot's logs are kept in OUT/first-boot/), is booted
once more, saying so, and the second boot is the result; but not a guest
that failed a step before that deadlock began, or showed another kernel
bug.

Options --smp, --maxcpus, --monitor-fifo, --mem and --timeout are passed to scripts/vm-run.sh
(defaults: --smp 2, --timeout 1200).
FXTRACE_DEADLINE=EPOCH_SECONDS (scripts/run-tests.sh sets it): each boot's
--timeout is the time left before it minus $VM_RESERVE_S s, at most --timeout;
with less than $VM_MIN_BOOT_S s for it, no VM boots ("time budget exhausted",
exit 124), or, for the second boot of a guest that died while booting, the
first one's failure stands (exit 125).
  --command CMD   run CMD in the guest instead of the selftests (same payload)
  --out DIR       results directory (default: build/vm-out/FLAVOUR)
Environment: FXTRACE_CACHE, FXTRACE_KERNEL_RELEASE (fetch-kernel.sh),
FXTRACE_VM_ACCEL (vm-run.sh), MAKE (default make).
EOF
}

die() { echo "$prog: error: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }

# The time budget (FXTRACE_DEADLINE): a boot must end VM_RESERVE_S before
# the deadline (vm-run.sh's 10 s kill grace after its --timeout, unpacking
# the results and the dmesg scan, which take about 1 s, and slack), and is
# not started with less than VM_MIN_BOOT_S for it (vm-run.sh's hang
# diagnostics come 20 s before its --timeout; the guests' normal runs
# of the selftests under TCG take 260-340 s, so even that is only enough
# under KVM).
VM_RESERVE_S=30
VM_MIN_BOOT_S=60

# Each boot's --timeout, unless given: over three times a normal run of
# the selftests (260-340 s under TCG, as vm-run.sh's "VM run took" said:
# 6.1 336 s, 6.12 263 s, 6.12-rt 300 s). It was 600 s, and a CI run
# stopped its first guest there: the host ran it about five times slower
# than here (steps 1-11 took 540 s, 113 s here), while its other two
# guests passed in time. The time budget above, not this cap, keeps a
# whole run of run-tests.sh inside CI's hour.
vm_opts=()
timeout_s=1200
flavour=''
guest_cmd='sh selftests/run_vm_tests.sh'
outdir=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--smp | --maxcpus | --monitor-fifo | --mem | --timeout)
		[[ $# -ge 2 ]] || { echo "$prog: $1 needs a value" >&2; exit 2; }
		if [[ $1 == --timeout ]]; then
			[[ $2 =~ ^[0-9]+$ ]] || { echo "$prog: --timeout needs a number of seconds, not '$2'" >&2; exit 2; }
			timeout_s=$2
		else
			vm_opts+=("$1" "$2")
		fi
		shift 2
		;;
	--command | --out)
		[[ $# -ge 2 && -n $2 ]] || { echo "$prog: $1 needs a value" >&2; exit 2; }
		if [[ $1 == --command ]]; then guest_cmd=$2; else outdir=$2; fi
		shift 2
		;;
	-h | --help) usage; exit 0 ;;
	-*) echo "$prog: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*)
		[[ -z $flavour ]] || { echo "$prog: only one FLAVOUR, got '$flavour' and '$1'" >&2; exit 2; }
		flavour=$1
		shift
		;;
	esac
done
[[ -n $flavour ]] || { usage >&2; exit 2; }
if [[ -n ${FXTRACE_DEADLINE:-} && ! $FXTRACE_DEADLINE =~ ^[0-9]+$ ]]; then
	echo "$prog: FXTRACE_DEADLINE must be seconds since the epoch, not '$FXTRACE_DEADLINE'" >&2
	exit 2
fi
# Checked before any build or VM; the message is ours, not fetch-kernel.sh's.
rc=0
check_err=$("$FETCH_KERNEL" --check "$flavour" 2>&1) || rc=$?
case $rc in
0) ;;
2) echo "$prog: unknown FLAVOUR '$flavour' (expected $(known_flavours))" >&2; exit 2 ;;
*) die "'$FETCH_KERNEL --check $flavour' failed (exit $rc): $check_err" ;;
esac
MAKE=${MAKE:-make}
# The patterns of a kernel bug, from the selftests' scan (not a copy).
# shellcheck source=selftests/kmsg_scan.sh
KERNEL_BAD=$(. "$REPO/selftests/kmsg_scan.sh" && printf %s "$KERNEL_BAD")
# dmesg.txt less the Call Trace line of the OOM report ioctl_test asks for.
drop_asked_oom() {
	# shellcheck source=selftests/kmsg_scan.sh
	(. "$REPO/selftests/kmsg_scan.sh" && kmsg_drop_asked_oom "$@")
}
# shellcheck source=scripts/known-kernel-bugs.sh
. "$REPO/scripts/known-kernel-bugs.sh" ||
	die "cannot read $REPO/scripts/known-kernel-bugs.sh (the kernel bugs a guest is booted again for)"
[[ -n $KERNEL_BAD ]] || die "no KERNEL_BAD in $REPO/selftests/kmsg_scan.sh"

# 1. kernel
kinfo=$("$FETCH_KERNEL" "$flavour") ||
	die "scripts/fetch-kernel.sh $flavour failed (see above)"
RELEASE='' KDIR='' VMLINUZ='' MODULES=''
eval "$kinfo"
[[ -n $RELEASE && -d $KDIR && -f $VMLINUZ && -d $MODULES ]] ||
	die "scripts/fetch-kernel.sh printed unexpected output: $kinfo"
log "kernel $RELEASE"
# What the log scan cannot see on this kernel: say so, once.
nodebug=()
for c in PROVE_LOCKING DEBUG_ATOMIC_SLEEP; do
	grep -q "^CONFIG_$c=y" "$KDIR/.config" 2>/dev/null || nodebug+=("CONFIG_$c")
done
[[ ${#nodebug[@]} -eq 0 ]] ||
	log "$RELEASE is built without ${nodebug[*]}: lockdep and might_sleep reports cannot appear in its log"

build=$REPO/build/vm-$RELEASE
outdir=${outdir:-$REPO/build/vm-out/$flavour}
mkdir -p "$build" "$REPO/build"

# The module is built in the source tree (kbuild M=<repo>), and the static
# binaries in $build/bin, the same for every run on this release: runs
# must not overlap there. Hold a lock until the payload, this run's own
# directory, has everything (run-tests.sh takes it too, to build
# kmod/fxtrace.ko with W=1 and copy it out).
exec 9>"$REPO/build/.vm-test.lock"
flock 9
payload=$(mktemp -d "$build/payload.XXXXXX") || die "cannot create a payload directory in $build"
# (bash runs the EXIT trap when a signal ends it too)
trap 'rm -rf "$payload"' EXIT

# 2. module
make_target() { # $1 = what, rest = make args
	local what=$1 rc=0
	shift
	log "$MAKE -C $REPO $*"
	"$MAKE" -C "$REPO" "$@" >&2 || rc=$?
	if ((rc)); then
		if ! "$MAKE" -C "$REPO" -n "$1" >/dev/null 2>&1; then
			die "the top-level Makefile has no working '$1' target yet (needed for $what); it must support: make -C <repo> $*"
		fi
		die "building $what failed: '$MAKE -C $REPO $*' exited $rc (see the compiler output above)"
	fi
}
make_target "fxtrace.ko for $RELEASE" modules KDIR="$KDIR"
ko=$REPO/kmod/fxtrace.ko
[[ -f $ko ]] || die "'make modules' succeeded but $ko does not exist"
# modinfo is in /sbin, which a user's PATH on Debian lacks.
vermagic=$(PATH=$PATH:/usr/sbin:/sbin modinfo -F vermagic "$ko" 2>/dev/null || true)
[[ $vermagic == "$RELEASE "* ]] ||
	die "$ko was built for '${vermagic%% *}', not $RELEASE (stale build? try 'make clean')"

# 3. static userspace
bindir=$build/bin
rm -rf "$bindir"
make_target "the static VM userspace" vm-userspace BUILDDIR="$bindir"
[[ -d $bindir ]] || die "'make vm-userspace' succeeded but created no $bindir"

# 4. payload
mkdir -p "$payload/bin" "$payload/selftests"
cp "$ko" "$payload/fxtrace.ko"
is_elf() { [[ $(head -c 4 "$1" | od -An -c | tr -d ' ') == '177ELF' ]]; }
nbin=0
for f in "$bindir"/*; do
	[[ -f $f && -x $f ]] || continue
	if is_elf "$f" && [[ $(readelf -l "$f" 2>/dev/null) == *'program interpreter'* ]]; then
		die "$f is dynamically linked; the VM has no libc (vm-userspace must link with -static)"
	fi
	cp "$f" "$payload/bin/"
	nbin=$((nbin + 1))
done
for f in "$REPO"/selftests/*; do
	[[ -f $f ]] || continue
	case ${f##*/} in
	*.c | *.h | *.o | *.d | *.a | Makefile) continue ;;
	esac
	is_elf "$f" && continue # host builds; the static ones are in bin/
	cp "$f" "$payload/selftests/"
done
[[ -f $payload/selftests/run_vm_tests.sh ]] ||
	die "selftests/run_vm_tests.sh is missing from the repo"
flock -u 9
log "payload $payload: fxtrace.ko, $nbin binaries in bin/, $(find "$payload/selftests" -type f | wc -l) files in selftests/"

# 5. run
# The vhost_names step needs vhost_net (vm-run.sh adds vhost, vhost_iotlb,
# tun and tap from modules.dep); a kernel without it makes that step SKIP.
guest_mods=()
if grep -q '/vhost_net\.ko' "$MODULES/modules.dep"; then
	guest_mods+=(--module vhost_net)
else
	log "$RELEASE has no vhost_net module: the vhost_names step will SKIP"
fi
# boot_timeout: boot_s = this boot's --timeout: timeout_s, or less to
# end VM_RESERVE_S before FXTRACE_DEADLINE; false (and why, on stderr)
# when that leaves less than VM_MIN_BOOT_S.
boot_timeout() {
	local left
	boot_s=$timeout_s
	[[ -n ${FXTRACE_DEADLINE:-} ]] || return 0
	left=$((FXTRACE_DEADLINE - $(date +%s)))
	if ((left - VM_RESERVE_S < VM_MIN_BOOT_S)); then
		log "time budget exhausted: $left s left before FXTRACE_DEADLINE, a boot needs $VM_MIN_BOOT_S s and $VM_RESERVE_S s after it: not booting"
		return 1
	fi
	if ((left - VM_RESERVE_S < boot_s)); then
		boot_s=$((left - VM_RESERVE_S))
		log "time budget: --timeout $boot_s for this boot, not $timeout_s ($left s left before FXTRACE_DEADLINE)"
	fi
}
# A signal to this script stops the VM too, before the payload goes.
# shellcheck source=scripts/run-child.sh
. "$REPO/scripts/run-child.sh"
run_vm() {
	rc=0
	run_child "$REPO/scripts/vm-run.sh" --kernel "$VMLINUZ" --modules-dir "$MODULES" \
		--payload "$payload" --out "$outdir" "${vm_opts[@]}" --timeout "$boot_s" \
		"${guest_mods[@]}" -- "$guest_cmd" || rc=$?
}
# boot_again WHAT: the one second boot a failed guest may get (below),
# if the time budget leaves room for it; else the guest that WHAT (e.g.
# "died while booting") stays the result, and it says so.
boot_again() {
	if boot_timeout; then
		run_vm
	else
		log "not retried: no time left for a boot; the guest that $1 is the result (exit $rc)"
	fi
}
rm -rf "${outdir:?}/first-boot"
if boot_timeout; then
	run_vm
else
	rc=124
fi
# Multi-vCPU TCG has crashed Debian's kernels while they patch their own
# text during boot (an int3 oops before any module is loaded). A guest that
# died before our command started says nothing about fxtrace: boot it once
# more, and say so. A failure after the command started is never retried.
# With no time left for that boot, the failure stands: exit 125, not the
# 124 of a budget that let nothing boot.
# No console.log: vm-run.sh failed setting the VM up (it removes the old
# one first), nothing booted, and a second try would fail the same way.
if [[ $rc -eq 125 && -f $outdir/console.log ]] && ! grep -q 'vm-init: running:' "$outdir/console.log"; then
	log "the guest died while booting, before the tests started (see $outdir/console.log); retrying once"
	cp "$outdir/console.log" "$outdir/console.boot-failure.log" 2>/dev/null || true
	boot_again "died while booting"
fi
# A deadlock of the tested kernel itself (scripts/known-kernel-bugs.sh,
# an exact signature) says nothing about fxtrace either, but does stop
# every step after it: boot once more, loudly, keeping the first boot's
# console and kernel log. Only once: a second hit is the result. Not if
# the first boot failed a step that ended before the deadlock began, or
# if its kernel log shows a kernel bug outside the deadlock's own
# hung-task reports (a WARNING in fxtrace before it, say): the retry
# excuses the deadlock, not those, which stay the result (the scan below).
# A step that failed after the deadlock may have begun is taken for its
# (everything after it that needs a new kernel thread hangs), and named.
# first_boot_clean: true if so, with the steps taken for the deadlock's in
# first-boot/tap.excused; else false, with $unclean saying why.
first_boot_clean() {
	local fb=$outdir/first-boot onset st=0
	if ! onset=$(hung_task_onset "$fb/dmesg.txt"); then
		unclean="its kernel log has no hung-task report to date the deadlock by"
		return 1
	fi
	# run_vm_tests.sh's failed steps: "# NAME failed at T s of uptime",
	# then "not ok N NAME (exit RC)", matched anywhere in a line as the
	# kernel's console messages can run into them; not a step's own
	# nested "# not ok". Before $onset, or with no time said: not excused.
	awk -v onset="$onset" -v excused="$fb/tap.excused" '
		match($0, /# [^ ]+ failed at [0-9.]+ s of uptime/) {
			split(substr($0, RSTART + 2, RLENGTH - 2), f, " ")
			at[f[1]] = f[4]
		}
		match($0, /not ok [0-9]+ [^ ]+ \(exit [0-9]+\)/) &&
		    substr($0, RSTART - 2, 2) != "# " {
			line = substr($0, RSTART, RLENGTH)
			split(line, f, " ")
			if ((f[4] in at) && at[f[4]] + 0 >= onset + 0)
				print line " at " at[f[4]] " s" >excused
			else
				print line ((f[4] in at) ? " at " at[f[4]] " s" : "")
			delete at[f[4]]
		}' "$fb/console.log" >"$fb/tap.failed" || st=$?
	if ((st != 0)); then
		unclean="its console ($fb/console.log) could not be read for failed steps"
		return 1
	elif [[ -s $fb/tap.failed ]]; then
		unclean="it failed steps that ended before the deadlock can have begun ($onset s of uptime, twice the hung-task timeout before its first report), or that did not say when (run_vm_tests.sh's '# NAME failed at' line): $fb/tap.failed"
		return 1
	fi
	rm -f "$fb/tap.failed"
	unclean="its kernel log shows more than the deadlock's hung-task reports ($fb/dmesg.bad, or the log could not be filtered), which the bug does not excuse"
	# Filtered into files first: under pipefail, a filter that failed
	# would turn grep's match into a clean verdict.
	without_hung_task_reports "$outdir/dmesg.txt" >"$fb/dmesg.others" &&
		drop_asked_oom "$fb/dmesg.others" >"$fb/dmesg.scanned" || return 1
	! grep -aE "$KERNEL_BAD" "$fb/dmesg.scanned" >"$fb/dmesg.bad"
}
if [[ $rc -ne 0 && -f $outdir/dmesg.txt ]] && bug=$(known_kernel_bug "$outdir/dmesg.txt"); then
	mkdir -p "$outdir/first-boot"
	cp "$outdir/console.log" "$outdir/dmesg.txt" "$outdir/first-boot/" 2>/dev/null || true
	log "KNOWN KERNEL BUG, not fxtrace's: the guest (exit $rc) hit $bug"
	if first_boot_clean; then
		rm -f "$outdir/first-boot/dmesg.others" "$outdir/first-boot/dmesg.scanned" "$outdir/first-boot/dmesg.bad"
		if [[ -s $outdir/first-boot/tap.excused ]]; then
			log "its steps that failed after the deadlock may have begun (after $(hung_task_onset "$outdir/first-boot/dmesg.txt") s of uptime) are taken for the deadlock's (first-boot/tap.excused):"
			sed 's/^/    /' "$outdir/first-boot/tap.excused" >&2
		fi
		log "its console and kernel log are in $outdir/first-boot/; retrying once"
		boot_again "hit the kernel bug"
	else
		log "not retried: $unclean"
		for f in "$outdir"/first-boot/{tap.failed,dmesg.bad}; do
			[[ ! -f $f ]] || head -20 "$f" | sed 's/^/    /' >&2
		done
	fi
fi
# The whole kernel log, boot to power-off: a kernel bug the steps' scans
# did not see (before the first step, after the last, or with --command)
# fails the run too.
if [[ -f $outdir/dmesg.txt ]]; then
	# Filtered into a file first: under pipefail, a filter that failed
	# would turn grep's match into a clean verdict.
	if ! drop_asked_oom "$outdir/dmesg.txt" >"$outdir/dmesg.scanned"; then
		log "filtering the guest's kernel log ($outdir/dmesg.txt) failed: it was not checked"
		[[ $rc -eq 124 || $rc -eq 125 ]] || rc=1
	elif grep -aE "$KERNEL_BAD" "$outdir/dmesg.scanned" >"$outdir/dmesg.bad"; then
		log "the guest's kernel log shows a kernel bug ($outdir/dmesg.txt):"
		head -40 "$outdir/dmesg.bad" | sed 's/^/    /' >&2
		[[ $rc -eq 124 || $rc -eq 125 ]] || rc=1
	else
		rm -f "$outdir/dmesg.bad"
	fi
	rm -f "$outdir/dmesg.scanned"
elif [[ $rc -eq 0 ]]; then
	log "the guest's kernel log did not come back ($outdir/dmesg.txt is missing)"
	rc=1
fi
log "$flavour ($RELEASE): exit $rc; results in $outdir"
exit "$rc"
