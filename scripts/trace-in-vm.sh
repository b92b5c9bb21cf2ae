#!/usr/bin/env bash
# trace-in-vm.sh -- the main job, for a machine whose own kernel cannot load
# modules: boot Debian's kernel in QEMU with fxtrace.ko, trace a scheduler
# workload there with fxt-collect, and leave the trace on the host.
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FETCH_KERNEL=$REPO/scripts/fetch-kernel.sh

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
Usage: $prog [-o FILE] [-d SECONDS] [--kernel FLAVOUR] [--no-deps]

Installs what is needed (scripts/install-deps.sh), builds fxtrace.ko and the
tools for a Debian kernel, boots it in QEMU and runs, as root in the guest:

  insmod fxtrace.ko
  fxt-pingpong (two threads on two CPUs) and a CPU spinner, in the background
  fxt-collect -o sched.fxt -d SECONDS

then copies the trace to FILE on this machine and summarizes it.

  -o FILE          where to put the trace (default: ./sched.fxt)
  -d SECONDS       how long to trace: more than 0, at most 366 days
                   (default: 5)
  --kernel FLAVOUR $kernels (default 6.1)
  --no-deps        skip scripts/install-deps.sh

The arguments are checked first: a bad one exits with status 2 and says
which, before anything is installed, built or booted.

EXAMPLES
  $prog                       # ./sched.fxt, 5 s on Debian's 6.1 kernel
  $prog -d 2 -o rt.fxt --kernel 6.12-rt
EOF
}

# bad_usage MESSAGE: say what is wrong with the command line; exit 2.
bad_usage() {
	echo "$prog: $*" >&2
	echo "Try '$prog --help' for the options." >&2
	exit 2
}

out=$PWD/sched.fxt duration=5 flavour=6.1 deps=1
while [[ $# -gt 0 ]]; do
	case $1 in
	-o)
		[[ $# -ge 2 && -n $2 ]] || bad_usage "-o needs a file name, e.g. -o sched.fxt"
		out=$2; shift 2 ;;
	-d)
		[[ $# -ge 2 ]] || bad_usage "-d needs a number of seconds, e.g. -d 5"
		duration=$2; shift 2 ;;
	--kernel)
		[[ $# -ge 2 ]] || bad_usage "--kernel needs a kernel: $kernels"
		flavour=$2; shift 2 ;;
	--no-deps) deps=0; shift ;;
	-h | --help) usage; exit 0 ;;
	-*)
		echo "$prog: unknown option '$1'" >&2
		usage >&2
		exit 2 ;;
	*) bad_usage "unexpected argument '$1' (this script takes options only)" ;;
	esac
done
[[ $duration =~ ^[0-9]+(\.[0-9]+)?$ && $duration =~ [1-9] ]] ||
	bad_usage "-d takes seconds > 0, e.g. 5 or 0.5, got '$duration'"
# The whole seconds, base 10 whatever the leading zeros (bash reads "08"
# as octal, and fails on it), at most fxt-collect's limit of 366 days:
# the VM's time limit below is computed from them and cannot overflow.
max_s=$((366 * 24 * 3600))
secs=''
[[ ${duration%.*} =~ ^0*([0-9]{1,9})$ ]] && secs=$((10#${BASH_REMATCH[1]}))
if [[ -z $secs ]] || ((secs > max_s)) || { ((secs == max_s)) && [[ $duration == *.*[1-9]* ]]; }; then
	bad_usage "-d takes at most 366 days ($max_s s), as fxt-collect does, got '$duration'"
fi
# Where the trace goes, checked now: not after a VM run of minutes.
[[ -d $out ]] && bad_usage "-o $out is a directory; give a file name, e.g. -o ${out%/}/sched.fxt"
out=$(realpath -m -- "$out")
out_dir=${out%/*}
out_dir=${out_dir:-/}
[[ -d $out_dir ]] || bad_usage "-o $out: the directory $out_dir does not exist"
if [[ -e $out ]]; then
	[[ -f $out && -w $out ]] || bad_usage "-o $out: exists and is not a file we may replace"
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
guest="insmod fxtrace.ko &&
	{ fxt-pingpong --rounds 100000000 >/dev/null 2>&1 & } &&
	{ sh -c 'while :; do :; done' & } &&
	fxt-collect -o /out/sched.fxt -d $duration; rc=\$?;
	kill %1 %2 2>/dev/null; exit \$rc"
# The VM's time limit: 600 s for the boot and everything around the
# trace (no selftests run), plus the trace itself.
vm_timeout=$((600 + secs + 1))
echo "$prog: tracing $duration s in a QEMU VM (Debian $flavour kernel) ..." >&2
rc=0
# A signal to this script stops the VM too.
# shellcheck source=scripts/run-child.sh
. "$REPO/scripts/run-child.sh"
run_child "$REPO/scripts/vm-test.sh" --out "$vmout" --timeout "$vm_timeout" --command "$guest" "$flavour" \
	>"$vmout.console" 2>&1 || rc=$?
# fxt-collect exits 3 when something is missing from a valid trace
# (records dropped, ring data skipped): the file is still worth keeping.
if [[ $rc -ne 0 && $rc -ne 3 || ! -s $vmout/out/sched.fxt ]]; then
	echo "$prog: the VM run failed (exit $rc); console: $vmout.console" >&2
	tail -20 "$vmout.console" >&2
	exit 1
fi
grep 'fxt-collect:' "$vmout.console" | sed 's/^# //' >&2 || true
cp "$vmout/out/sched.fxt" "$out"
echo
"$REPO/collector/fxt-dump" --summary "$out"
cat <<EOF

The trace is $out ($(du -h "$out" | cut -f1)).
Open it in the Perfetto UI: https://ui.perfetto.dev -> "Open trace file" -> $(basename "$out")
Or from here:  $REPO/collector/fxt-dump $out | less
               $REPO/tools/fxt-sched latency $out
EOF
