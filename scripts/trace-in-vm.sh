#!/usr/bin/env bash
# trace-in-vm.sh -- the main job, for a machine whose own kernel cannot load
# modules: boot Debian's kernel in QEMU with fxtrace.ko, trace a scheduler
# workload there (a fixed one, or the user's COMMAND) with fxt-collect, and
# leave the trace on the host.
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FETCH_KERNEL=$REPO/scripts/fetch-kernel.sh

# sh_quote WORD: WORD as one word of a POSIX shell's command line (the
# guest's busybox sh): as it is if no shell gives any of its characters a
# meaning, else in single quotes, each ' in it as '\''. Any byte but NUL
# (which no argument holds) survives that: spaces, quotes, $, \, newlines.
sh_quote() {
	local q="'" qq="'\\''"
	if [[ $1 =~ ^[A-Za-z0-9_@%+=:,./-]+$ ]]; then
		printf '%s' "$1"
	else
		printf "'%s'" "${1//"$q"/"$qq"}"
	fi
}

# sh_quote_words WORD...: each WORD quoted by sh_quote, each after a blank
# (" 'a b' c"), to append to a command line.
sh_quote_words() {
	local word
	for word; do
		printf ' %s' "$(sh_quote "$word")"
	done
}

# guest_command DURATION [COMMAND [ARG...]]: the shell command line that
# vm-run.sh's guest runs with sh -c, as root, in /fxtrace (the payload:
# fxtrace.ko, bin/ first in PATH) with FXTRACE_OUT=/out, whose files come
# back to the host. DURATION is -d's seconds as given, or '' for none (only
# with a COMMAND).
# Without COMMAND, the fixed workload: ping-pong and a spinner in the
# background, traced for DURATION; the guest's exit status is fxt-collect's.
# With COMMAND, no workload but it: fxt-collect -- COMMAND ARG..., each
# argument one word whatever it holds; fxt-collect's stdout and stderr
# (COMMAND's and its own) go to files in /out, not to the serial console,
# which is slow enough to hold up a chatty COMMAND under TCG, and its exit
# status to /out/trace-in-vm.status, the guest's own being 0: so a status
# of COMMAND's cannot pass for a failure of the VM run (vm-test.sh's 1,
# 124, 125), nor one of those for COMMAND's.
guest_command() {
	local duration=$1
	shift
	if [[ $# -eq 0 ]]; then
		printf '%s' "insmod fxtrace.ko &&
	{ fxt-pingpong --rounds 100000000 >/dev/null 2>&1 & } &&
	{ sh -c 'while :; do :; done' & } &&
	fxt-collect -o /out/sched.fxt -d $duration; rc=\$?;
	kill %1 %2 2>/dev/null; exit \$rc"
		return
	fi
	local o='"$FXTRACE_OUT"'
	printf '%s' "insmod fxtrace.ko || exit 1; fxt-collect -o $o/sched.fxt${duration:+ -d $duration} --"
	sh_quote_words "$@"
	printf '%s' " >$o/trace-in-vm.stdout 2>$o/trace-in-vm.stderr; echo \$? >$o/trace-in-vm.status"
}

# The kernels scripts/fetch-kernel.sh (and so vm-test.sh) knows, from the
# one list of them there, e.g. "6.1, 6.12 or 6.12-rt". Offline, and it
# installs nothing: a wrong --kernel fails before any install, build or VM.
known_kernels() {
	local list
	if ! list=$("$FETCH_KERNEL" --known-phrase) || [[ -z $list ]]; then
		echo "$prog: error: '$FETCH_KERNEL --known-phrase' failed" >&2
		exit 1
	fi
	echo "$list"
}
kernels=$(known_kernels)

usage() {
	cat <<EOF
Usage: $prog [-o FILE] [-d SECONDS] [--kernel FLAVOUR]
         [--timeout SECONDS] [--no-deps] [-- COMMAND [ARG...]]

Installs what is needed (scripts/install-deps.sh), builds fxtrace.ko and the
tools for a Debian kernel, boots it in QEMU and runs, as root in the guest:

  insmod fxtrace.ko
  fxt-pingpong (two threads on two CPUs) and a CPU spinner, in the background
  fxt-collect -o sched.fxt -d SECONDS

or, given a COMMAND, that instead of the fixed workload:

  insmod fxtrace.ko
  fxt-collect -o sched.fxt [-d SECONDS] -- COMMAND [ARG...]

then copies the trace to FILE on this machine and summarizes it.

  -o FILE            where to put the trace (default: ./sched.fxt): a
                     regular file to replace, or a new file in a writable
                     directory, not on /proc, /sys or another of the
                     kernel's file systems
  -d SECONDS         how long to trace: more than 0, at most 366 days,
                     digits with an optional fraction (5, 0.5, .5 or 5.,
                     as fxt-collect takes them; default: 5; with a
                     COMMAND, until it exits)
  --kernel FLAVOUR   $kernels (default 6.1)
  --timeout SECONDS  the VM's time limit, boot included: whole seconds,
                     more than -d (default: 600 + -d's whole seconds; 601
                     with a COMMAND and no -d); a guest still running then
                     is stopped, and no trace comes back (exit 1)
  --no-deps          skip scripts/install-deps.sh
  -- COMMAND [ARG...]
                     trace COMMAND in the guest, not the fixed workload

The arguments are checked first: a bad one exits with status 2 and says
which, before anything is installed, built or booted.

COMMAND
  It runs in the guest, not here: a busybox initramfs with 2 CPUs, 2 GiB of
  RAM, no network and no disk, as root, in /fxtrace, stdin /dev/null. None
  of this machine's programs, libraries or files are there; COMMAND is
  - a busybox applet: sh, sleep, dd, gzip, sha256sum, find, taskset, yes,
    timeout, ... (the guest runs this machine's busybox-static: see
    'busybox --list'); sh -c '...' for pipes, loops and redirections;
  - or one of the project's static programs in /fxtrace/bin, first in PATH:
    fxt-pingpong, fxt-stress, fxt-threads, fxt-signal (see their --help),
    fxt-collect, fxt-dump, and the selftests' programs.
  Each ARG arrives as one word as given here, spaces, quotes and all: quote
  it for this shell, once. Tracing starts before COMMAND and stops when it
  exits; -d SECONDS stops it sooner, but fxt-collect still waits for
  COMMAND (fxt-collect(1)), within --timeout, which must also cover the
  boot (the VM run of a 1 s COMMAND took 9 s here, under TCG; a slow host
  takes longer). COMMAND's stdout and stderr, and fxt-collect's messages,
  come to this script's stdout and stderr when the VM has finished; files
  it writes under /out (\$FXTRACE_OUT) come back to
  build/vm-out/trace-FLAVOUR/out/ in the source tree.

Exit status: 0 the trace is in FILE, 1 a step failed (here, the VM run or
its time limit, fxt-collect in the guest), 2 bad arguments. With a COMMAND,
fxt-collect's status in the guest: COMMAND's own if not 0 (127 not found in
the guest, 126 not executable), else 0, 3 (the trace is in FILE but misses
records: dropped, or invalid ring data skipped) or 1 (tracing failed); a
last line on stderr says whose status it is. 1 also if the VM run failed.

EXAMPLES
  $prog                       # ./sched.fxt, 5 s on Debian's 6.1 kernel
  $prog -d 2 -o rt.fxt --kernel 6.12-rt
  $prog -o cmd.fxt -- sh -c 'echo "a b"; sleep 1'
  $prog -o stress.fxt -- fxt-stress --seconds 2 --threads-per-cpu 4
  $prog -d 1 --timeout 900 -- \\
      sh -c 'dd if=/dev/urandom bs=1M count=50 | gzip | wc -c'
                              # the first second traced, gzip runs on
EOF
}

# bad_usage MESSAGE: say what is wrong with the command line; exit 2.
bad_usage() {
	echo "$prog: $*" >&2
	echo "Try '$prog --help' for the options." >&2
	exit 2
}

out=$PWD/sched.fxt duration=5 flavour=6.1 deps=1 dflag=0 timeout_arg=''
command=()
while [[ $# -gt 0 ]]; do
	case $1 in
	-o)
		[[ $# -ge 2 && -n $2 ]] || bad_usage "-o needs a file name, e.g. -o sched.fxt"
		out=$2; shift 2 ;;
	-d)
		[[ $# -ge 2 ]] || bad_usage "-d needs a number of seconds, e.g. -d 5"
		duration=$2 dflag=1; shift 2 ;;
	--kernel)
		[[ $# -ge 2 ]] || bad_usage "--kernel needs a kernel: $kernels"
		flavour=$2; shift 2 ;;
	--timeout)
		[[ $# -ge 2 ]] || bad_usage "--timeout needs a number of seconds, e.g. --timeout 900"
		timeout_arg=$2; shift 2 ;;
	--no-deps) deps=0; shift ;;
	-h | --help) usage; exit 0 ;;
	--)
		shift
		[[ $# -gt 0 ]] || bad_usage "-- needs a COMMAND after it, e.g. -- sleep 1"
		[[ -n $1 ]] || bad_usage "-- '': the COMMAND is an empty word"
		command=("$@")
		break ;;
	-*)
		echo "$prog: unknown option '$1'" >&2
		usage >&2
		exit 2 ;;
	*)
		suggest=$(sh_quote_words "$@")
		bad_usage "unexpected argument '$1' (a COMMAND to trace goes after --, e.g. $prog --$suggest)" ;;
	esac
done
# What fxt-collect's -d takes: digits with at most one '.' among or after
# them ("5", "0.5", ".5", "5."), not all zeros.
[[ $duration =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ && $duration =~ [1-9] ]] ||
	bad_usage "-d takes seconds > 0 as fxt-collect does: digits with an optional '.' and fraction (5, 0.5, .5 or 5.), got '$duration'"
# The whole seconds, base 10 whatever the leading zeros (bash reads "08"
# as octal, and fails on it), at most fxt-collect's limit of 366 days:
# the VM's time limit below is computed from them and cannot overflow.
max_s=$((366 * 24 * 3600))
secs='' whole=${duration%.*}
[[ ${whole:-0} =~ ^0*([0-9]{1,9})$ ]] && secs=$((10#${BASH_REMATCH[1]}))
if [[ -z $secs ]] || ((secs > max_s)) || { ((secs == max_s)) && [[ $duration == *.*[1-9]* ]]; }; then
	bad_usage "-d takes at most 366 days ($max_s s), as fxt-collect does, got '$duration'"
fi
# With a COMMAND and no -d, tracing lasts as long as COMMAND: fxt-collect
# gets no -d, and the VM's default time limit no trace time.
if [[ ${#command[@]} -gt 0 && $dflag -eq 0 ]]; then
	duration='' secs=0
fi
# The VM's time limit: 600 s for the boot and everything around the
# trace (no selftests run), plus the trace itself; or --timeout.
vm_timeout=$((600 + secs + 1))
if [[ -n $timeout_arg ]]; then
	t=''
	[[ $timeout_arg =~ ^0*([0-9]{1,9})$ ]] && t=$((10#${BASH_REMATCH[1]}))
	if [[ -z $t ]] || ((t < 1 || t > max_s)); then
		bad_usage "--timeout takes whole seconds > 0, at most 366 days ($max_s s), got '$timeout_arg'"
	fi
	((t > secs)) ||
		bad_usage "--timeout $timeout_arg: not more than -d $duration; the VM would be stopped before the trace ends"
	vm_timeout=$t
fi
# Where the trace goes, checked now: not after a VM run of minutes.
[[ -d $out ]] && bad_usage "-o $out is a directory; give a file name, e.g. -o ${out%/}/sched.fxt"
out=$(realpath -m -- "$out")
out_dir=${out%/*}
out_dir=${out_dir:-/}
[[ -d $out_dir ]] || bad_usage "-o $out: the directory $out_dir does not exist"
# The kernel's own file systems: their "regular" files are interfaces, not
# storage, and to root every one of them looks writable (-w is access(2),
# which CAP_DAC_OVERRIDE passes): /proc/version would be taken, and the
# copy fail after the VM run.
where=$out_dir
[[ -e $out ]] && where=$out
fstype=$(stat -f -c %T -- "$where" 2>/dev/null) || fstype=''
case $fstype in
proc | sysfs | debugfs | tracefs | securityfs | configfs | cgroupfs | cgroup2fs | \
bpf_fs | efivarfs | pstorefs | fusectl | selinux | smackfs | mqueue | devpts)
	bad_usage "-o $out: on a $fstype file system, whose files are the kernel's, not storage: give a file on a disk, e.g. -o ./sched.fxt" ;;
esac
if [[ -e $out ]]; then
	[[ -f $out && -w $out ]] ||
		bad_usage "-o $out: exists and is not a regular file we may replace"
else
	[[ -w $out_dir ]] || bad_usage "-o $out: the directory $out_dir is not writable"
fi
rc=0
check_err=$("$FETCH_KERNEL" --check "$flavour" 2>&1) || rc=$?
case $rc in
0) ;;
2) bad_usage "unknown kernel '$flavour': give $kernels (the Debian kernels scripts/fetch-kernel.sh fetches)" ;;
*) echo "$prog: error: '$FETCH_KERNEL --check $flavour' failed (exit $rc): $check_err" >&2; exit 1 ;;
esac

[[ $deps -eq 0 ]] || "$REPO/scripts/install-deps.sh"
make -s -C "$REPO/collector" >/dev/null
make -s -C "$REPO/tools" >/dev/null

vmout=$REPO/build/vm-out/trace-$flavour
# build/ is not in a fresh clone, and the console log goes next to the run.
mkdir -p "${vmout%/*}"
guest=$(guest_command "$duration" "${command[@]}")
if [[ ${#command[@]} -eq 0 ]]; then
	echo "$prog: tracing $duration s in a QEMU VM (Debian $flavour kernel) ..." >&2
else
	cmdline=$(sh_quote_words "${command[@]}")
	cmdline=${cmdline# }
	echo "$prog: tracing $cmdline${duration:+ (for at most $duration s)} in a QEMU VM (Debian $flavour kernel, time limit $vm_timeout s) ..." >&2
fi
rc=0
# A signal to this script stops the VM too.
# shellcheck source=scripts/run-child.sh
. "$REPO/scripts/run-child.sh"
run_child "$REPO/scripts/vm-test.sh" --out "$vmout" --timeout "$vm_timeout" --command "$guest" "$flavour" \
	>"$vmout.console" 2>&1 || rc=$?

# The end of a run without COMMAND, as it always was.
# fxt-collect exits 3 when something is missing from a valid trace
# (records dropped, ring data skipped): the file is still worth keeping.
summarize() {
	cp "$vmout/out/sched.fxt" "$out"
	echo
	"$REPO/collector/fxt-dump" --summary "$out"
	cat <<EOF

The trace is $out ($(du -h "$out" | cut -f1)).
Open it in the Perfetto UI: https://ui.perfetto.dev -> "Open trace file" -> $(basename "$out")
Or from here:  $REPO/collector/fxt-dump $out | less
               $REPO/tools/fxt-sched latency $out
EOF
}
if [[ ${#command[@]} -eq 0 ]]; then
	if [[ $rc -ne 0 && $rc -ne 3 || ! -s $vmout/out/sched.fxt ]]; then
		echo "$prog: the VM run failed (exit $rc); console: $vmout.console" >&2
		tail -20 "$vmout.console" >&2
		exit 1
	fi
	grep 'fxt-collect:' "$vmout.console" | sed 's/^# //' >&2 || true
	summarize
	exit 0
fi

# With a COMMAND: the guest exits 0 once fxt-collect has run, its status
# in trace-in-vm.status; anything else is a failure of the VM run.
gout=$vmout/out
status=''
[[ $rc -eq 0 && -f $gout/trace-in-vm.status ]] && status=$(cat "$gout/trace-in-vm.status")
if [[ ! $status =~ ^[0-9]+$ ]]; then
	if [[ $rc -eq 124 ]]; then
		echo "$prog: the VM was stopped at its time limit, $vm_timeout s with the boot: was $cmdline still running? (--timeout SECONDS gives it longer); console: $vmout.console" >&2
		for f in stdout stderr; do
			[[ -s $gout/trace-in-vm.$f ]] &&
				echo "$prog: its $f until 20 s before the limit: $gout/trace-in-vm.$f" >&2
		done
	else
		echo "$prog: the VM run failed (exit $rc); console: $vmout.console" >&2
	fi
	tail -20 "$vmout.console" >&2
	exit 1
fi
cat "$gout/trace-in-vm.stdout" 2>/dev/null || true
cat "$gout/trace-in-vm.stderr" >&2 2>/dev/null || true
if [[ -s $gout/sched.fxt ]]; then
	summarize
	others=$(find "$gout" -mindepth 1 -maxdepth 1 ! -name sched.fxt ! -name 'trace-in-vm.*' | wc -l)
	((others == 0)) || echo "What $cmdline wrote to /out in the guest is in $gout/."
else
	echo "$prog: no trace was written in the guest; $out is left as it was" >&2
fi
# Whose status this is: fxt-collect says when it is COMMAND's.
if [[ $status -eq 0 ]]; then
	echo "$prog: $cmdline exited 0 in the guest, and nothing is missing from the trace (exit 0)" >&2
elif grep -q "fxt-collect's exit status is" "$gout/trace-in-vm.stderr" 2>/dev/null; then
	echo "$prog: exit $status: ${command[0]##*/}'s exit status in the guest, which fxt-collect passed on (its lines above say how the trace went)" >&2
elif [[ $status -eq 127 || $status -eq 126 ]]; then
	why='was not found'
	[[ $status -eq 126 ]] && why='could not be executed'
	echo "$prog: exit $status: '${command[0]}' $why in the guest, and fxt-collect did not run it: the guest has busybox's applets and the project's programs only ('$prog --help' says which)" >&2
elif [[ $status -eq 3 ]]; then
	echo "$prog: exit 3: the trace is in $out, but records were dropped or invalid ring data was skipped (fxt-collect's exit status in the guest; its lines above say what)" >&2
elif [[ $status -eq 1 ]]; then
	echo "$prog: exit 1: fxt-collect failed in the guest (its message is above)" >&2
else
	echo "$prog: exit $status: fxt-collect's exit status in the guest (its lines above say why)" >&2
fi
exit "$status"
