#!/usr/bin/env bash
# vm-run.sh -- boot a Debian kernel in QEMU with a busybox initramfs, run one
# shell command as root in the guest, bring its results back.
#
# Guest -> host data path: a sparse raw file attached as a virtio-blk disk.
# When the command has finished, the guest writes a plain tar archive of
# {status, dmesg.txt, out/} straight onto the disk; the host unpacks it.
# 20 s before the time limit, the guest's watchdog writes {dmesg.txt, out/}
# there as they are, which the host unpacks if the VM times out.
# This needs only virtio_blk (+ virtio_pci on 6.1) from the kernel's module
# tree, no guest filesystem driver, and no 9p/netfs code (whose write paths
# changed a lot between 6.1 and 6.12).
set -euo pipefail

prog=${0##*/}

usage() {
	cat <<EOF
Usage: $prog --kernel VMLINUZ --modules-dir DIR --out OUTDIR [options] -- 'guest command'

Boots VMLINUZ in QEMU with a busybox-static initramfs and runs the guest
command with 'sh -c' as root in /fxtrace (the payload). Its stdout/stderr
(and kernel warnings) stream live to this script's stdout.

Required:
  --kernel VMLINUZ     kernel image (fetch-kernel.sh prints VMLINUZ=)
  --modules-dir DIR    the kernel's lib/modules/<release> (fetch-kernel.sh
                       prints MODULES=); virtio drivers are taken from it
  --out OUTDIR         host directory for the results (created if needed)
Options:
  --payload DIR        copied to /fxtrace in the guest (default: none)
  --smp N              vCPUs (default 2)
  --maxcpus M          possible vCPUs, M >= N: the M - N others are
                       hot-plug slots, possible but not present (QEMU -smp
                       N,maxcpus=M; default M = N)
  --monitor-fifo PATH  QEMU's human monitor on the FIFOs PATH.in (commands,
                       e.g. device_add to plug a CPU in) and PATH.out (its
                       replies), which must exist (mkfifo)
  --mem MB             guest RAM in MiB (default 2048; guest /out is in RAM)
  --timeout SECONDS    wall-clock limit for the whole VM run (default 600)
  --module NAME        also load module NAME (+ deps) from --modules-dir
                       before the command; repeatable
  --append ARGS        extra kernel command line arguments (after the
                       defaults: console=ttyS0,115200 loglevel=N panic=-1
                       oops=panic log_buf_len=1M)
  --icount             guest time counts executed instructions (QEMU -icount
                       shift=0,align=off,sleep=off: 1 instruction = 1 ns,
                       repeat runs agree to ~0.1%); TCG only, needs --smp 1
                       (2 vCPUs hang at SMP bring-up with it here)
  --loglevel N         console loglevel (default 5: warnings and worse are
                       shown live; the full log is always in dmesg.txt)
  -h, --help           this text

Guest environment: cwd /fxtrace, PATH starts with /fxtrace/bin, stdin is
/dev/null; proc, sysfs, devtmpfs, devpts, tmpfs /tmp, debugfs and tracefs
are mounted. Anything the command writes under /out comes back.
FXTRACE_VM=1 and FXTRACE_OUT=/out are exported. If the guest kernel
reports a hung task (a task 120 s in state D), every guest process is
killed one hung-task check after that report (120 s), so the command ends
(status 137) and its results come back, rather than at --timeout.

Results in OUTDIR:
  console.log   the whole serial console (boot + command output)
  status        the command's exit status
  dmesg.txt     the guest kernel log after the command
  out/          the guest's /out

Exit status: the guest command's exit status, or
  124  the VM hit --timeout (OUTDIR then has dmesg.txt and out/ as the
       guest wrote them 20 s before it, if it did: with --timeout 40 s or
       more, and the command still running)
  125  VM failure: kernel panic, QEMU error, the guest never reported a
       status, the results of a command that exited 0 could not be
       transferred (a failed command's status is kept), or the VM could not
       be set up (--out not writable, a module or the payload not copied)
  129, 130, 143  ended by SIGHUP, SIGINT or SIGTERM (QEMU stopped)
  2    usage error

Environment:
  FXTRACE_VM_ACCEL=kvm|tcg   force the accelerator (default: KVM if a tiny
                             long-mode test guest runs under it within 2.5 s,
                             else TCG; the verdict is cached per host boot in
                             \${FXTRACE_CACHE:-<repo>/.cache}/kvm-probe.*)
  FXTRACE_VM_TCG_THREAD=single|multi
                             TCG threading (default single: all vCPUs take
                             turns on one host thread; multi: one host
                             thread per vCPU, which here has oopsed 6.12-rt
                             guests with a stale int3 from kernel text
                             patching, with and without fxtrace loaded)
  FXTRACE_VM_TCG_CPU=MODEL   QEMU -cpu model under TCG (default max: every
                             feature TCG emulates; bench/run.sh --tcg-cpu)
  FXTRACE_VM_OUT_MB=N        size limit of the transfer disk (default 4096;
                             the file is sparse)
  FXTRACE_VM_KEEP=1          keep the work dir (initramfs, disk image)
  QEMU=path                  qemu-system-x86_64 binary
EOF
}

die() { echo "$prog: error: $*" >&2; exit 2; }
# A failure of the machinery, not of the command line: a VM failure.
fail() { echo "$prog: error: $*" >&2; exit 125; }
log() { echo "$prog: $*" >&2; }

kernel='' moddir='' payload='' outdir='' smp=2 maxcpus='' mem=2048 timeout_s=600
loglevel=5 append='' extra_modules=() have_cmd=0 guest_cmd='' icount=0
monitor_fifo=

need_arg() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value (see --help)"; }
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) need_arg "$@"; kernel=$2; shift 2 ;;
	--modules-dir) need_arg "$@"; moddir=$2; shift 2 ;;
	--payload) need_arg "$@"; payload=$2; shift 2 ;;
	--out) need_arg "$@"; outdir=$2; shift 2 ;;
	--smp) need_arg "$@"; smp=$2; shift 2 ;;
	--maxcpus) need_arg "$@"; maxcpus=$2; shift 2 ;;
	--monitor-fifo) need_arg "$@"; monitor_fifo=$2; shift 2 ;;
	--mem) need_arg "$@"; mem=$2; shift 2 ;;
	--timeout) need_arg "$@"; timeout_s=$2; shift 2 ;;
	--module) need_arg "$@"; extra_modules+=("$2"); shift 2 ;;
	--append) need_arg "$@"; append=$2; shift 2 ;;
	--loglevel) need_arg "$@"; loglevel=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--)
		shift
		[[ $# -eq 1 ]] || die "expected exactly one guest command after -- (quote it), got $#"
		guest_cmd=$1 have_cmd=1
		shift
		;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

[[ -n $kernel ]] || die "--kernel is required (see --help)"
[[ -n $moddir ]] || die "--modules-dir is required (see --help)"
[[ -n $outdir ]] || die "--out is required (see --help)"
((have_cmd)) || die "missing -- 'guest command' (see --help)"
[[ -f $kernel ]] || die "kernel image '$kernel' not found (run scripts/fetch-kernel.sh FLAVOUR)"
[[ -f $moddir/modules.dep ]] || die "'$moddir' has no modules.dep; pass the lib/modules/<release> dir printed as MODULES= by scripts/fetch-kernel.sh"
[[ -z $payload || -d $payload ]] || die "--payload '$payload' is not a directory"
for n in "$smp" "${maxcpus:-$smp}" "$mem" "$timeout_s" "$loglevel"; do
	[[ $n =~ ^[0-9]+$ ]] || die "'$n' is not a number"
done
((smp >= 1 && mem >= 256 && timeout_s >= 1)) || die "need --smp >= 1, --mem >= 256, --timeout >= 1"
((${maxcpus:-$smp} >= smp)) || die "--maxcpus $maxcpus is below --smp $smp"
[[ -z $monitor_fifo || (-p $monitor_fifo.in && -p $monitor_fifo.out) ]] ||
	die "--monitor-fifo $monitor_fifo: $monitor_fifo.in and $monitor_fifo.out must be FIFOs (mkfifo)"
((!icount || smp == 1)) || die "--icount needs --smp 1 (with 2 vCPUs the guest hangs at SMP bring-up)"

QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || die "$QEMU not found; run scripts/install-deps.sh (qemu-system-x86)"
command -v cpio >/dev/null || die "cpio not found; run scripts/install-deps.sh"
BUSYBOX=''
for b in /bin/busybox /usr/bin/busybox; do [[ -x $b ]] && BUSYBOX=$b && break; done
[[ -n $BUSYBOX ]] || die "busybox not found; run scripts/install-deps.sh (busybox-static)"
if [[ $(readelf -l "$BUSYBOX" 2>/dev/null) == *'program interpreter'* ]]; then
	die "$BUSYBOX is dynamically linked; install busybox-static (scripts/install-deps.sh)"
fi

release=$(basename "$(cd "$moddir" && pwd)")
mkdir -p "$outdir" || fail "cannot create --out '$outdir'"
outdir=$(cd "$outdir" && pwd)
rm -rf "${outdir:?}/out" "$outdir/status" "$outdir/dmesg.txt" "$outdir/console.log"

work=$(mktemp -d "${TMPDIR:-/tmp}/fxtrace-vm.XXXXXX")
qemu_pidfile=$work/qemu.pid
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local pid
	if [[ -s $qemu_pidfile ]]; then
		pid=$(cat "$qemu_pidfile" 2>/dev/null || true)
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
		fi
	elif [[ -n ${vm_job:-} ]]; then
		# A signal before QEMU wrote its pid: its timeout(1), the VM
		# job's child, passes SIGTERM on to it.
		pkill -TERM -P "$vm_job" 2>/dev/null || true
	fi
	if [[ ${FXTRACE_VM_KEEP:-0} == 1 ]]; then
		log "work dir kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
# A signal ends the script at once, and cleanup (the EXIT trap) stops
# QEMU: bash runs a trap only once the foreground command has ended, so
# the VM runs as a background job below, which a trapped signal's wait
# does not outlast.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# --- initramfs ---------------------------------------------------------------
root=$work/initramfs
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,xfer,etc/fxtrace-vm,lib/fxtrace-vm}
cp "$BUSYBOX" "$root/bin/busybox"
while read -r applet; do
	[[ -e $root/$applet || $applet == bin/busybox ]] && continue
	ln -s /bin/busybox "$root/$applet"
done < <("$root/bin/busybox" --list-full)
ln -s /xfer/out "$root/out"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
# Lets the kernel open the console for /init; harmless if not root (init
# reopens /dev/console after mounting devtmpfs anyway).
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

# Kernel modules: the requested ones plus their dependencies (deps first),
# decompressed here because busybox insmod cannot load .ko.xz/.ko.zst.
modnorm() { local m=${1##*/}; m=${m%%.ko*}; echo "${m//-/_}"; }
# modline FILE NAME: the first line of FILE (modules.dep, modules.builtin)
# whose module path, before any ':', is module NAME by modnorm's rules.
modline() {
	awk -v w="$2" -F: '{ n = $1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n); if (n == w) { print; exit } }' "$1"
}
declare -A loaded=()
load_order=()
add_module() { # $1 = module name
	local want line path deps d
	want=$(modnorm "$1")
	[[ -n ${loaded[$want]:-} ]] && return 0
	line=$(modline "$moddir/modules.dep" "$want")
	if [[ -z $line ]]; then
		if [[ -n $(modline "$moddir/modules.builtin" "$want" 2>/dev/null) ]]; then
			loaded[$want]=builtin
			return 0
		fi
		die "module '$1' is neither in $moddir/modules.dep nor built in"
	fi
	path=${line%%:*}
	read -r -a deps <<<"${line#*:}"
	# modules.dep lists all (transitive) deps; loading them last-to-first works.
	for ((d = ${#deps[@]} - 1; d >= 0; d--)); do add_module "${deps[d]}"; done
	loaded[$want]=1
	local dst=$root/lib/fxtrace-vm/$want.ko
	case $path in
	*.ko) cp "$moddir/$path" "$dst" ;;
	*.ko.xz) xz -dc "$moddir/$path" >"$dst" ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$dst" ;;
	*.ko.gz) gzip -dc "$moddir/$path" >"$dst" ;;
	*) fail "unknown module format: $path" ;;
	esac || fail "cannot copy/decompress $moddir/$path (xz-utils/zstd installed?)"
	load_order+=("$want")
}
for m in virtio_pci virtio_blk "${extra_modules[@]}"; do add_module "$m"; done
printf '%s\n' "${load_order[@]}" >"$root/lib/fxtrace-vm/load-order"

if [[ -n $payload ]]; then
	mkdir -p "$root/fxtrace"
	cp -a "$payload/." "$root/fxtrace/" || fail "cannot copy payload '$payload'"
else
	mkdir -p "$root/fxtrace"
fi

token=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$guest_cmd" >"$root/etc/fxtrace-vm/cmd"
echo "$token" >"$root/etc/fxtrace-vm/token"
# Guest uptime at which the guest dumps its state before the host timeout
# (0 = never): 20 s before the limit, for limits of at least 40 s.
watchdog_at=0
((timeout_s >= 40)) && watchdog_at=$((timeout_s - 20))
echo "$watchdog_at" >"$root/etc/fxtrace-vm/watchdog"

cat >"$root/init" <<'INIT'
#!/bin/sh
# /init generated by fxtrace scripts/vm-run.sh
export PATH=/fxtrace/bin:/sbin:/bin:/usr/sbin:/usr/bin HOME=/root TERM=dumb
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
token=$(cat /etc/fxtrace-vm/token)
say() { echo "# vm-init: $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /xfer
mkdir -p /xfer/out
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
ip link set lo up 2>/dev/null
hostname fxtrace-vm
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, userspace up at $(uptime_s) s"

while read -r m; do
	insmod "/lib/fxtrace-vm/$m.ko" || say "WARNING: insmod $m failed"
done </lib/fxtrace-vm/load-order

# Find the transfer disk (virtio-blk with serial fxtrace-out).
xdev=''
i=0
while [ $i -lt 100 ]; do
	for s in /sys/block/vd*/serial; do
		[ -r "$s" ] && [ "$(cat "$s")" = fxtrace-out ] || continue
		d=${s%/serial}
		xdev=/dev/${d##*/}
	done
	[ -n "$xdev" ] && [ -b "$xdev" ] && break
	xdev=''
	i=$((i + 1))
	sleep 0.1
done
[ -n "$xdev" ] || say "WARNING: transfer disk not found; /out will not come back"

# write_results FILE...: a tar archive of these names under /xfer onto the
# transfer disk, from its start. Both ends on CPU 0: under TCG a pipe
# between two vCPUs moves ~10 MB/s (every wakeup is a cross-vCPU IPI), on
# one vCPU ~100 MB/s. One writer at a time: the one that made the
# directory /tmp/xfer.lock.
write_results() (
	set -o pipefail
	taskset 1 tar -cf - -C /xfer "$@" |
		taskset 1 dd of="$xdev" bs=1M iflag=fullblock oflag=direct 2>/tmp/dd.err &&
		sync
)

# Shortly before the host's --timeout kills the VM: first the output so
# far of the step that hangs (selftests/run_vm_tests.sh writes each step's
# to /out/step.log, this /xfer/out, and prints it only when the step ends).
# Then the kernel log and /out as they are, onto the transfer disk: the
# host unpacks them when the VM times out, so the files of the steps that
# ended are checked, and the log is scanned. This comes before the dumps
# below, which are slow (the serial console), and whose backtraces are
# ours, not a kernel bug for the host's scan to report; it is tried twice,
# as tar fails on a file that shrinks while it reads it (a step's output
# begun again). Last, blocked tasks and all CPUs' backtraces to the
# console, so a hang can be diagnosed.
wd_pid=''
wd_at=$(cat /etc/fxtrace-vm/watchdog)
if [ "$wd_at" -gt 0 ]; then
	up=$(cut -d. -f1 /proc/uptime)
	(
		sleep $((wd_at > up ? wd_at - up : 1))
		if [ -s /xfer/out/step.log ]; then
			say "the VM is about to time out: the running step's output so far (/out/step.log, its last 200 lines):"
			tail -n 200 /xfer/out/step.log | sed 's/^/#   /'
		fi
		if [ -n "$xdev" ] && mkdir /tmp/xfer.lock 2>/dev/null; then
			dmesg >/xfer/dmesg.txt
			t0=$(uptime_s)
			if write_results dmesg.txt out || write_results dmesg.txt out; then
				say "results so far written to $xdev ($(du -sk /xfer | cut -f1) KiB) in $(uptime_s) - $t0 s"
				echo "# FXTRACE-VM-PARTIAL-$token: ok"
			else
				say "writing the results so far to $xdev failed: $(cat /tmp/dd.err)"
			fi
			rmdir /tmp/xfer.lock
		fi
		say "the VM is about to time out: dumping blocked tasks (sysrq w) and CPU backtraces (sysrq l)"
		# sysrq w prints each task at KERN_INFO, below the console's
		# loglevel (--loglevel, default 5), and the copy above was made
		# before it: without this, no blocked task would reach the host,
		# only the dump's header.
		read -r con_level _ </proc/sys/kernel/printk
		[ "$con_level" -ge 7 ] || echo 7 >/proc/sys/kernel/printk
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
		for p in /proc/[0-9]*; do
			c=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)
			[ -n "$c" ] || continue # kernel threads have no cmdline
			say "pid ${p#/proc/} [$(cat "$p/comm")] state $(sed -n 's/^State:[[:space:]]*//p' "$p/status") wchan $(cat "$p/wchan" 2>/dev/null): $c"
			sed 's/^/#     /' "$p/stack" 2>/dev/null
		done
	) &
	wd_pid=$!
fi

# A hung task ends the command early. The kernel's hung-task detector
# reports a task blocked in D for 120 s (the kernels' default), and the
# report's "Call Trace:" already fails the run (selftests/kmsg_scan.sh,
# vm-test.sh); but a deadlocked guest, every later step stuck behind it,
# would otherwise run on until the watchdog, up to 20 minutes later. One
# check after the first report (the detector checks every 120 s by
# default), so that the tasks of a cycle that blocked up to 120 s after
# the first are reported too, every process but init is killed: the
# command ends (status 137), and its results are written as after any
# command, the kernel log with the reports that
# scripts/known-kernel-bugs.sh reads, and /out, which the steps' other
# processes, killed too, can no longer change while it is copied. This
# waits in a read of /dev/kmsg, so it runs only when the kernel logs
# something (nothing in a benchmark's loop).
(
	# grep reads /dev/kmsg itself: behind cat in a pipe, the subshell
	# would wait for cat, which sees its reader gone only at the next
	# kernel message.
	line=$(grep -m1 -E 'INFO: task .+ blocked for more than [0-9]+ seconds' \
		</dev/kmsg 2>/dev/null) || exit 0
	every=$(cat /proc/sys/kernel/hung_task_check_interval_secs 2>/dev/null)
	[ "${every:-0}" -gt 0 ] ||
		every=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null)
	every=${every:-120}
	say "the kernel reported a hung task (${line#*;}): the command will be ended after the detector's next check, in $((every + 5)) s, not at the time limit"
	sleep $((every + 5))
	say "killing every process to end the command (a hung task, see above)"
	kill -9 -1
) &
hung_pid=$!

export FXTRACE_VM=1 FXTRACE_OUT=/out
cmd=$(cat /etc/fxtrace-vm/cmd)
cd /fxtrace
say "running: $cmd"
sh -c "$cmd" </dev/null
status=$?
# The watchdog may be writing the results so far: wait for it, and keep
# it from starting. Its write ends before the limit, 20 s after it began:
# after 30 s the lock is stale (its writer died).
i=0
until mkdir /tmp/xfer.lock 2>/dev/null || [ $i -ge 150 ]; do
	sleep 0.2
	i=$((i + 1))
done
[ -n "$wd_pid" ] && kill "$wd_pid" 2>/dev/null
kill "$hung_pid" 2>/dev/null
cd /
echo
echo "# FXTRACE-VM-STATUS-$token: $status"
echo "$status" >/xfer/status
dmesg >/xfer/dmesg.txt
if [ -n "$xdev" ]; then
	t0=$(uptime_s)
	if write_results status dmesg.txt out; then
		say "results written to $xdev ($(du -sk /xfer | cut -f1) KiB) in $(uptime_s) - $t0 s"
		echo "# FXTRACE-VM-XFER-$token: ok"
	else
		cat /tmp/dd.err
		say "ERROR: writing results to $xdev failed (disk too small? see FXTRACE_VM_OUT_MB)"
	fi
fi
# A reset, not a power-off: QEMU runs with -no-reboot, so either ends it,
# but after the guest has resumed from ACPI S3 (selftests/suspend_test.c)
# QEMU ignores its power-off: the kernel's power-off returned, and
# reboot(2) warned in do_exit() (measured on Debian 6.1).
reboot -f
sleep 10
INIT
chmod 755 "$root/init"

initrd=$work/initramfs.cpio
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) >"$initrd" ||
	fail "building the initramfs with cpio failed"

xdisk=$work/out.img
truncate -s "${FXTRACE_VM_OUT_MB:-4096}M" "$xdisk"

# --- accelerator ---------------------------------------------------------------
# /dev/kvm may exist yet not work, or work uselessly slowly (nested KVM
# without hardware paging support: on such a host SeaBIOS takes ~5 s and the
# kernel's decompressor never finishes). Probe with a 512-byte boot sector
# that enters long mode, maps 1 GiB with 2 MiB pages, touches 32 MiB, and
# writes 0x21 to isa-debug-exit (QEMU exits with (0x21<<1)|1 = 67). Healthy
# KVM runs it in well under a second; TCG takes ~0.15 s. Source (GNU as,
# linked at 0x7c00, --oformat binary):
#   .code16: cli; xor ax,ax; ds=ss=ax; sp=0x7c00; lgdtl gdtr; cr0|=1
#            ljmpl 0x08:pm32
#   .code32 pm32: ds=es=ss=0x10; zero 0x1000-0x3fff; [0x1000]=0x2003
#            [0x2000]=0x3003; PD at 0x3000 = 512 x (i<<21|0x83); cr3=0x1000
#            cr4|=PAE; EFER|=LME; cr0|=PG; ljmpl 0x18:lm64
#   .code64 lm64: for rdi=16M..48M step 4K: movb $1,(rdi)
#            mov al,0x21; out 0xf4,al; hlt
#   gdt: 0, 0x00cf9a000000ffff, 0x00cf92000000ffff, 0x00af9a000000ffff
KVM_PROBE_HEX=fa31c08ed88ed0bc007c660f0116e07c0f20c06683c8010f22c066ea227c0000080066b810008ed88ec08ed0bf0010000031c0b9000c0000f3abc7050010000003200000c7050020000003300000bf00300000b8830000008907050000200083c70881ff0040000075eeb8001000000f22d80f20e083c8200f22e0b9800000c00f320d000100000f300f20c00d000000800f22c0ea9b7c0000180048c7c700000001c607014881c7001000004881ff0000000375edb021e6f4f4ebfd0f1f40000000000000000000ffff0000009acf00ffff00000092cf00ffff0000009aaf001f00c07c
KVM_PROBE_LIMIT_S=2.5
kvm_reason=''
kvm_works() {
	if [[ ! -e /dev/kvm ]]; then
		kvm_reason='/dev/kvm does not exist'
		return 1
	fi
	if [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		kvm_reason='/dev/kvm is not read/writable by this user'
		return 1
	fi
	local img=$work/kvm-probe.img rc=0 t0 ms
	# shellcheck disable=SC2059,SC2001 # the format is the probe's bytes as \xNN
	printf "$(sed 's/../\\x&/g' <<<"$KVM_PROBE_HEX")" >"$img"
	truncate -s 510 "$img"
	printf '\x55\xaa' >>"$img"
	t0=$(date +%s%N)
	timeout -k 1 "$KVM_PROBE_LIMIT_S" "$QEMU" -accel kvm -M pc -cpu host -nodefaults -no-user-config -display none -m 64 \
		-drive "file=$img,format=raw,if=ide" -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		</dev/null >"$work/kvm-probe.log" 2>&1 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		kvm_reason="KVM is unusably slow: a tiny test guest did not finish in $KVM_PROBE_LIMIT_S s (nested virtualization?)"
		return 1
	fi
	if [[ $rc -ne 67 ]]; then
		kvm_reason="a test guest failed under KVM (qemu exit $rc: $(head -c 300 "$work/kvm-probe.log"))"
		return 1
	fi
	kvm_reason="test guest ran in $ms ms"
	return 0
}
# The probe result is remembered for this host boot (keyed by boot_id and
# the QEMU binary) so that back-to-back runs do not pay for it again.
kvm_works_cached() {
	local boot_id cache_file qemu_id
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	qemu_id=$(stat -L -c '%d-%i-%Y' "$(command -v "$QEMU")")
	cache_file=${FXTRACE_CACHE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache}/kvm-probe.$boot_id.$qemu_id
	if [[ -f $cache_file ]]; then
		local verdict
		{ read -r verdict && read -r kvm_reason; } <"$cache_file" || verdict=''
		if [[ $verdict == yes || $verdict == no ]]; then
			kvm_reason="$kvm_reason; cached in $cache_file"
			[[ $verdict == yes ]]
			return
		fi
	fi
	local verdict=no
	kvm_works && verdict=yes
	if mkdir -p "$(dirname "$cache_file")" 2>/dev/null &&
		printf '%s\n%s\n' "$verdict" "$kvm_reason" >"$cache_file.tmp$$" 2>/dev/null; then
		mv -f "$cache_file.tmp$$" "$cache_file" 2>/dev/null || true
	fi
	[[ $verdict == yes ]]
}
accel=${FXTRACE_VM_ACCEL:-}
# -icount is a TCG feature: do not let the KVM probe pick KVM.
if ((icount)); then
	[[ $accel != kvm ]] || die "--icount needs TCG, but FXTRACE_VM_ACCEL=kvm"
	accel=tcg
fi
tcg_why=FXTRACE_VM_ACCEL=tcg
((icount)) && tcg_why=--icount
case $accel in
kvm)
	kvm_works || log "warning: FXTRACE_VM_ACCEL=kvm forced although $kvm_reason"
	kvm_reason='forced by FXTRACE_VM_ACCEL=kvm'
	;;
tcg) kvm_reason="forced by $tcg_why" ;;
'') if kvm_works_cached; then accel=kvm; else accel=tcg; fi ;;
*) die "FXTRACE_VM_ACCEL must be kvm or tcg, not '$accel'" ;;
esac
if [[ $accel == kvm ]]; then
	cpu=host
else
	# 'max' = every feature TCG can emulate; boots all Debian kernels.
	cpu=${FXTRACE_VM_TCG_CPU:-max}
	[[ $cpu =~ ^[A-Za-z0-9][A-Za-z0-9,=.+_-]*$ ]] ||
		die "FXTRACE_VM_TCG_CPU must be a QEMU -cpu model (e.g. max,-erms), not '$cpu'"
	# Multi-threaded TCG has oopsed 6.12-rt guests ("Oops: int3" at a
	# static-key site, once at boot with no module loaded): a vCPU still
	# ran a breakpoint that text_poke_bp() had already removed. With one
	# TCG thread the vCPUs still interleave and preempt each other, and
	# those oopses have not been seen.
	tcg_thread=${FXTRACE_VM_TCG_THREAD:-single}
	[[ $tcg_thread == single || $tcg_thread == multi ]] ||
		die "FXTRACE_VM_TCG_THREAD must be single or multi, not '$tcg_thread'"
	accel="tcg,thread=$tcg_thread"
fi

# log_buf_len=1M (the kernel's default is 128 KiB; this costs ~5 MiB of
# guest RAM with the record descriptors): room for a whole selftest run's
# messages (about 30 KiB) many times over, so that no step's are
# overwritten before run_vm_tests.sh scans them (it would notice, and fail
# the step).
cmdline="console=ttyS0,115200 loglevel=$loglevel panic=-1 oops=panic log_buf_len=1M $append"
qemu_args=(
	-accel "$accel" -M q35 -cpu "$cpu" -smp "$smp${maxcpus:+,maxcpus=$maxcpus}" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-serial stdio
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-drive "file=$xdisk,format=raw,if=none,id=xfer,cache=unsafe"
	-device "virtio-blk-pci,drive=xfer,serial=fxtrace-out"
	-pidfile "$qemu_pidfile"
)
if [[ -n $monitor_fifo ]]; then
	qemu_args+=(-chardev "pipe,id=fxtmon,path=$monitor_fifo" -mon "chardev=fxtmon,mode=readline")
fi
if ((icount)); then
	[[ $tcg_thread == single ]] || die "--icount needs single-threaded TCG (unset FXTRACE_VM_TCG_THREAD)"
	qemu_args+=(-icount "shift=0,align=off,sleep=off")
fi

log "accelerator: $accel ($kvm_reason)"
log "booting $release: accel=$accel cpu=$cpu smp=$smp${maxcpus:+ maxcpus=$maxcpus} mem=${mem}M timeout=${timeout_s}s initramfs=$(($(stat -c %s "$initrd") / 1024)) KiB modules: ${load_order[*]:-none}"
t_start=$(date +%s.%N)
set +e
(
	timeout --foreground -k 10 "$timeout_s" "$QEMU" "${qemu_args[@]}" </dev/null 2>"$work/qemu.err" |
		sed -u 's/\r$//' | tee "$outdir/console.log"
	# (After a signal, $work may be gone: no message then.)
	echo "${PIPESTATUS[0]}" 2>/dev/null >"$work/qemu.rc"
) &
vm_job=$!
wait "$vm_job"
set -e
qemu_rc=$(cat "$work/qemu.rc" 2>/dev/null || echo 125)
t_end=$(date +%s.%N)
elapsed=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')

last_lines() { tail -n "${1:-25}" "$outdir/console.log" | sed 's/^/    | /'; }

if [[ $qemu_rc -eq 124 || $qemu_rc -eq 137 ]]; then
	{
		echo "$prog: VM timed out after $timeout_s s; last console lines:"
		if [[ -s $outdir/console.log ]]; then
			last_lines
		else
			echo "    (none: the console stayed empty, so the kernel never reached /init; retry with --loglevel 8)"
		fi
		((watchdog_at)) && echo "$prog: (the guest printed the running step's output so far, if there was a /out/step.log, and dumped blocked tasks and CPU backtraces ~20 s before the limit; see the console log)"
		echo "$prog: (full log: $outdir/console.log; raise --timeout, or --loglevel 8 to see boot messages)"
	} >&2
	# What the guest wrote ~20 s before the limit: its kernel log, and
	# /out with the files of the steps that had ended (the running
	# step's may be cut short). Not if the command ended after that: its
	# final results, written over them, may have been cut by the kill.
	if grep -aq "FXTRACE-VM-PARTIAL-$token: ok" "$outdir/console.log" &&
		! grep -aq "FXTRACE-VM-STATUS-$token:" "$outdir/console.log"; then
		if tar -xf "$xdisk" -C "$outdir" --no-same-owner --no-same-permissions 2>"$work/tar.err"; then
			log "the guest's results so far (dmesg.txt, out/ from ~20 s before the limit) are in $outdir"
		else
			# Half a copy would pass for results: none.
			rm -rf "${outdir:?}/out" "$outdir/dmesg.txt"
			log "unpacking the guest's results so far failed, none kept: $(cat "$work/tar.err")"
		fi
	elif grep -aq "FXTRACE-VM-PARTIAL-$token: ok" "$outdir/console.log"; then
		log "the command ended after the guest wrote its results so far, and the kill may have cut its final ones: nothing unpacked"
	fi
	exit 124
fi
if [[ $qemu_rc -ne 0 ]]; then
	{
		echo "$prog: QEMU failed (exit $qemu_rc):"
		sed 's/^/    | /' "$work/qemu.err"
		last_lines 10
	} >&2
	exit 125
fi
grep -v 'host doesn.t support requested feature' "$work/qemu.err" >&2 || true

status=$(grep -ao "FXTRACE-VM-STATUS-$token: [0-9]*" "$outdir/console.log" | tail -n 1 | sed 's/.*: //' || true)
xfer_ok=0
grep -aq "FXTRACE-VM-XFER-$token: ok" "$outdir/console.log" && xfer_ok=1
if ((xfer_ok)); then
	if ! tar -xf "$xdisk" -C "$outdir" --no-same-owner --no-same-permissions 2>"$work/tar.err"; then
		xfer_ok=0
		log "unpacking the results disk failed: $(cat "$work/tar.err")"
	fi
fi
if [[ -z $status && -f $outdir/status ]]; then
	status=$(cat "$outdir/status")
fi

if grep -aq 'Kernel panic - not syncing' "$outdir/console.log"; then
	{
		echo "$prog: guest kernel PANICKED after ${elapsed}s (oops=panic is set, so any oops ends the run)"
		echo "    first sign: $(grep -a -m1 -E 'BUG:|Oops:|general protection fault|Kernel panic - not syncing' "$outdir/console.log")"
		echo "    panic:      $(grep -a -m1 'Kernel panic - not syncing' "$outdir/console.log")"
		echo "  last console lines:"
		last_lines 30
		echo "$prog: (full log: $outdir/console.log)"
	} >&2
	exit 125
fi
if [[ -z $status ]]; then
	{
		echo "$prog: the guest never reported an exit status (init failed or the VM powered off early) after ${elapsed}s; last console lines:"
		last_lines
	} >&2
	exit 125
fi
echo "$status" >"$outdir/status"
if ((!xfer_ok)); then
	log "guest command exited $status but its results (/out, dmesg) could not be transferred; see $outdir/console.log"
	[[ $status -ne 0 ]] && exit "$status"
	exit 125
fi
log "guest command exited $status; VM run took ${elapsed}s ($accel); results in $outdir"
exit "$status"
