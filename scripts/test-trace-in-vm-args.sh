#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-trace-in-vm-args.sh -- scripts/trace-in-vm.sh refuses a bad command
# line at once: exit 2, a message naming what was wrong, and nothing
# started. No VM is needed, and none can start: the script runs from a
# copy of the tree whose install-deps.sh and vm-test.sh, and the make,
# apt-get, apt-cache and dpkg on PATH, are stubs that only note that they
# ran. Its fetch-kernel.sh is the real one: the kernels trace-in-vm.sh
# accepts and names are the ones `fetch-kernel.sh --known` prints.
# Then, for -- COMMAND, a fake VM: a vm-test.sh stub that runs the guest
# command line trace-in-vm.sh sends as vm-run.sh's guest would (sh -c,
# FXTRACE_OUT, stdin /dev/null) with the guest's shell, busybox sh (and
# dash), and stubs of insmod and fxt-collect (which notes its arguments
# and runs COMMAND): the arguments arrive whole, and the host script's
# exit status and messages follow fxt-collect's.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-trace-args.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$TMP/repo/scripts" "$TMP/bin"
cp "$REPO/scripts/trace-in-vm.sh" "$REPO/scripts/fetch-kernel.sh" "$REPO/scripts/apt-retry.sh" "$REPO/scripts/run-child.sh" "$TMP/repo/scripts/"
for stub in "$TMP/repo/scripts/install-deps.sh" "$TMP/repo/scripts/vm-test.sh" \
	    "$TMP/bin/make" "$TMP/bin/apt-get" "$TMP/bin/apt-cache" "$TMP/bin/dpkg"; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "${stub##*/}" "$TMP/started" >"$stub"
	chmod +x "$stub"
done

# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered
# run ARGS...: the copied script; status in $rc, stderr in $TMP/err.
run() {
	rm -f "$TMP/started"
	(cd "$TMP" && PATH="$TMP/bin:$PATH" bash "$TMP/repo/scripts/trace-in-vm.sh" "$@" \
		>"$TMP/out" 2>"$TMP/err")
	rc=$?
}
# refused NAME MESSAGE ARGS...: exit 2, MESSAGE (fixed string) on stderr,
# no bash error ("line N:"), and nothing started.
# verdict NAME OK [NOTE]: the TAP line; on failure NOTE, stderr and the
# steps that started.
verdict() {
	tap_ok $((!$2)) "$1"
	(($2)) && return
	[[ -n ${3:-} ]] && echo "#   $3"
	sed 's/^/#   stderr: /' "$TMP/err"
	[[ -e $TMP/started ]] && sed 's/^/#   started: /' "$TMP/started"
}

refused() {
	local name=$1 want=$2
	shift 2
	run "$@"
	local ok=0
	[[ $rc -eq 2 ]] && grep -qF -- "$want" "$TMP/err" &&
		! grep -q "line [0-9]*:" "$TMP/err" && [[ ! -e $TMP/started ]] && ok=1
	verdict "$name" "$ok" "exit $rc (wanted 2), wanted on stderr: $want"
}

# The kernels, one per line, and as the messages name them (fetch-kernel.sh
# --known-phrase, whose wording test-fetch-kernel-args.sh pins).
mapfile -t known < <(bash "$REPO/scripts/fetch-kernel.sh" --known)
kernels=$(bash "$REPO/scripts/fetch-kernel.sh" --known-phrase)

refused "--kernel 5.10: exit 2 before anything starts, naming the kernels there are" \
	"trace-in-vm.sh: unknown kernel '5.10': give $kernels (the Debian kernels scripts/fetch-kernel.sh fetches)" \
	--kernel 5.10 -d 1
refused "--kernel with no value: exit 2, says what it needs" \
	"trace-in-vm.sh: --kernel needs a kernel: $kernels" --kernel
refused "-d with no value: exit 2, a message, not a bash error" \
	"trace-in-vm.sh: -d needs a number of seconds, e.g. -d 5" -d
refused "-o with no value: exit 2, a message, not a bash error" \
	"trace-in-vm.sh: -o needs a file name, e.g. -o sched.fxt" -o
mkdir -p "$TMP/odir" && mkfifo "$TMP/odir/fifo"
refused "-o naming a directory: exit 2 before anything starts (not a trace copied into it after the VM run)" \
	"trace-in-vm.sh: -o $TMP/odir is a directory; give a file name, e.g. -o $TMP/odir/sched.fxt" -o "$TMP/odir"
refused "-o in a directory that does not exist: exit 2 before anything starts" \
	"trace-in-vm.sh: -o $TMP/nodir/t.fxt: the directory $TMP/nodir does not exist" -o "$TMP/nodir/t.fxt"
refused "-o a file name starting with '-': taken as a file name (not an option of realpath)" \
	"trace-in-vm.sh: -o $TMP/nodir/--no-deps: the directory $TMP/nodir does not exist" -o "$TMP/nodir/--no-deps"
if [[ $(id -u) -ne 0 ]]; then
	mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
	refused "-o in a directory we may not write: exit 2 before anything starts" \
		"trace-in-vm.sh: -o $TMP/ro/t.fxt: the directory $TMP/ro is not writable" -o "$TMP/ro/t.fxt"
else
	tap_skip "-o in a directory we may not write" "root may write anywhere"
fi
# A file in / has the directory /, not "" (which does not exist).
run -d 0.5 -o /fxt-trace-args-test.fxt --kernel "${known[0]}"
ok=0
if [[ -w / ]]; then
	grep -q "^install-deps.sh" "$TMP/started" 2>/dev/null && ok=1
else
	[[ $rc -eq 2 ]] && grep -qF "the directory / is not writable" "$TMP/err" && ok=1
fi
verdict "-o /FILE: the directory / is checked (not an empty name)" "$ok"
refused "-o naming a FIFO: exit 2 (the trace is copied to a file)" \
	"trace-in-vm.sh: -o $TMP/odir/fifo: exists and is not a regular file we may replace" -o "$TMP/odir/fifo"
refused "-d abc: exit 2" "trace-in-vm.sh: -d takes seconds > 0 as fxt-collect does: digits with an optional '.' and fraction (5, 0.5, .5 or 5.), got 'abc'" -d abc
refused "-d 0: exit 2 (fxt-collect in the VM would refuse it)" \
	"trace-in-vm.sh: -d takes seconds > 0 as fxt-collect does: digits with an optional '.' and fraction (5, 0.5, .5 or 5.), got '0'" -d 0
# What fxt-collect's -d takes, and only that: digits with at most one '.'
# ("e.g. 5 or 0.5" refused .5 and 5., which fxt-collect takes).
for d in 1.2.3 . 5s -1 1e3 ' 5' 0x10 0.000; do
	refused "-d '$d': exit 2, says exactly what -d takes" \
		"trace-in-vm.sh: -d takes seconds > 0 as fxt-collect does: digits with an optional '.' and fraction (5, 0.5, .5 or 5.), got '$d'" -d "$d"
done
# accepted NAME ARGS...: past every check: install-deps.sh (a stub) ran.
accepted() {
	local name=$1 ok=0
	shift
	run "$@"
	grep -q "^install-deps.sh" "$TMP/started" 2>/dev/null && ok=1
	verdict "$name" "$ok" "exit $rc; wanted the argument checks passed (install-deps.sh started)"
}
for d in .5 1. 0.5 007 0.0001; do
	accepted "-d $d: accepted, as fxt-collect accepts it" -d "$d" -o "$TMP/t.fxt" --kernel "${known[0]}"
done
accepted "-d .5 -- sleep 1: accepted with a COMMAND too" -d .5 -o "$TMP/t.fxt" -- sleep 1
# The kernel's file systems: their files look writable to root (-w passes
# for anything there), but hold no trace: refused before anything starts,
# for any user, with the same message. /proc/version was taken as root,
# and a whole VM run started.
refused "-o /proc/version: exit 2, a proc file is no storage" \
	"trace-in-vm.sh: -o /proc/version: on a proc file system, whose files are the kernel's, not storage: give a file on a disk, e.g. -o ./sched.fxt" \
	-o /proc/version
refused "-o /proc/new.fxt: exit 2, nor is a new file in /proc" \
	"trace-in-vm.sh: -o /proc/new.fxt: on a proc file system, whose files are the kernel's, not storage" \
	-o /proc/new.fxt
if [[ -d /sys/kernel ]]; then
	refused "-o /sys/kernel/t.fxt: exit 2, nor one in /sys" \
		"trace-in-vm.sh: -o /sys/kernel/t.fxt: on a sysfs file system" -o /sys/kernel/t.fxt
else
	tap_skip "-o /sys/kernel/t.fxt" "no /sys/kernel here"
fi
refused "-d 31622401: exit 2, more than 366 days (fxt-collect in the VM would refuse it)" \
	"trace-in-vm.sh: -d takes at most 366 days (31622400 s), as fxt-collect does, got '31622401'" -d 31622401
refused "-d 31622400.5: exit 2, more than 366 days" \
	"trace-in-vm.sh: -d takes at most 366 days (31622400 s), as fxt-collect does, got '31622400.5'" -d 31622400.5
refused "-d 99999999999999999999: exit 2, not a VM time limit that overflows" \
	"trace-in-vm.sh: -d takes at most 366 days (31622400 s), as fxt-collect does, got '99999999999999999999'" \
	-d 99999999999999999999
refused "--bogus: exit 2, names the option" "trace-in-vm.sh: unknown option '--bogus'" --bogus
refused "--bogus: the usage follows" "Usage: trace-in-vm.sh" --bogus
refused "a stray argument: exit 2, names it" "trace-in-vm.sh: unexpected argument 'extra'" extra
# -- COMMAND and --timeout: refused as the other options are, before
# anything starts. After --, every word is COMMAND's, options too.
refused "a stray argument: the message shows where a COMMAND goes, quoted for the shell" \
	"trace-in-vm.sh: unexpected argument 'sleep' (a COMMAND to trace goes after --, e.g. trace-in-vm.sh -- sleep 'a b')" \
	-o "$TMP/t.fxt" sleep 'a b'
refused "-- with no COMMAND: exit 2" "trace-in-vm.sh: -- needs a COMMAND after it, e.g. -- sleep 1" -d 1 --
refused "-- '': an empty COMMAND, exit 2" "trace-in-vm.sh: -- '': the COMMAND is an empty word" -- '' x
refused "-d 0 -- sleep 1: -d is checked with a COMMAND too" \
	"trace-in-vm.sh: -d takes seconds > 0 as fxt-collect does: digits with an optional '.' and fraction (5, 0.5, .5 or 5.), got '0'" -d 0 -- sleep 1
refused "-o a directory -- sleep 1: -o is checked with a COMMAND too" \
	"trace-in-vm.sh: -o $TMP/odir is a directory" -o "$TMP/odir" -- sleep 1
refused "--kernel 5.10 -- sleep 1: --kernel is checked with a COMMAND too" \
	"trace-in-vm.sh: unknown kernel '5.10'" --kernel 5.10 -- sleep 1
refused "--timeout with no value: exit 2" \
	"trace-in-vm.sh: --timeout needs a number of seconds, e.g. --timeout 900" --timeout
for t in abc 0 1.5 -5 31622401 99999999999999999999; do
	refused "--timeout $t: exit 2" \
		"trace-in-vm.sh: --timeout takes whole seconds > 0, at most 366 days (31622400 s), got '$t'" \
		--timeout "$t" -- sleep 1
done
refused "--timeout 10 -d 10: exit 2, the VM would stop before the trace ends" \
	"trace-in-vm.sh: --timeout 10: not more than -d 10; the VM would be stopped before the trace ends" \
	--timeout 10 -d 10 -- sleep 1
refused "--timeout 5 without -d or COMMAND: exit 2 (the fixed workload's -d is 5)" \
	"trace-in-vm.sh: --timeout 5: not more than -d 5" --timeout 5

# The checks pass good arguments, with every kernel fetch-kernel.sh knows:
# the run goes on to the (stub) steps, and fetch-kernel.sh --check used
# neither apt nor dpkg, nor made its cache.
for k in "${known[@]}"; do
	name="good arguments (-d 0.5 -o FILE --kernel $k) pass the checks"
	run -d 0.5 -o "$TMP/t.fxt" --kernel "$k"
	ok=0
	grep -q "^install-deps.sh" "$TMP/started" 2>/dev/null &&
		! grep -q "^apt\|^dpkg" "$TMP/started" && [[ ! -e $TMP/repo/.cache ]] &&
		! grep -q "unknown\|needs\|takes" "$TMP/err" && ok=1
	verdict "$name" "$ok"
done
# A long trace gets a VM time limit that holds it: trace-in-vm.sh's
# 600 s plus the duration (-d 900 used to be killed after 600 s). Here make
# succeeds, so the run reaches the (stub) vm-test.sh.
printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/make"
for d in 900:1501 0.5:601 2.25:603 31622400:31623001 31622400.000:31623001 0000000000031622400:31623001; do
	name="-d ${d%%:*}: vm-test.sh gets --timeout ${d##*:} (600 s + the trace)"
	run --no-deps -d "${d%%:*}" -o "$TMP/t.fxt"
	ok=0
	grep -q "^vm-test.sh --out [^ ]* --timeout ${d##*:} " "$TMP/started" 2>/dev/null && ok=1
	verdict "$name" "$ok"
done
# Leading zeros are decimal ("08" is not octal: bash used to fail on it
# after the checks, with "value too great for base"): the guest gets -d
# 08 as given (fxt-collect reads it with strtod), and the run ends as the
# (stub) VM run does, exit 1 with a message.
for d in 08:609 09.5:610 010:611; do
	name="-d ${d%%:*}: decimal, vm-test.sh gets --timeout ${d##*:} and fxt-collect -d ${d%%:*}; the failed (stub) VM run is exit 1 with a message, no bash error"
	run --no-deps -d "${d%%:*}" -o "$TMP/t.fxt"
	ok=0
	[[ $rc -eq 1 ]] && grep -q "^vm-test.sh --out [^ ]* --timeout ${d##*:} " "$TMP/started" 2>/dev/null &&
		grep -q "fxt-collect -o /out/sched.fxt -d ${d%%:*};" "$TMP/started" &&
		grep -q '^trace-in-vm.sh: the VM run failed (exit 1); console: ' "$TMP/err" &&
		! grep -q "line [0-9]*:\|value too great" "$TMP/err" && ok=1
	verdict "$name" "$ok" "exit $rc (wanted 1)"
done

# ---- -- COMMAND in a fake VM ---------------------------------------------
# vm-test.sh: notes its arguments and the guest command line (as is, in
# $TMP/guest-cmd), then runs that as vm-run.sh's guest does, with the
# shell $GUEST_SH: sh -c in the payload directory, FXTRACE_OUT the out/
# of --out, stdin /dev/null; its exit status is the guest's. With
# FAKE_VM_RC, no guest runs: vm-test.sh exits with it (a VM failure).
# The guest's insmod fails with FAKE_INSMOD_RC; the payload's fxt-collect notes
# its arguments (NUL-separated, in $TMP/collect-args), writes a trace,
# runs COMMAND and exits as the real one does (COMMAND's status if not 0,
# saying so; 127 for a COMMAND not found, then no trace; else
# $FAKE_COLLECT_STATUS or 0). fxt-dump --summary only says it ran.
payload=$TMP/payload
mkdir -p "$payload/bin" "$TMP/repo/collector"
cat >"$TMP/repo/scripts/vm-test.sh" <<STUB
#!/usr/bin/env bash
echo "vm-test.sh \$*" >>"$TMP/started"
vmout='' cmd=''
while [[ \$# -gt 0 ]]; do
	case \$1 in
	--out) vmout=\$2; shift 2 ;;
	--command) cmd=\$2; shift 2 ;;
	--timeout) shift 2 ;;
	*) shift ;;
	esac
done
printf '%s' "\$cmd" >"$TMP/guest-cmd"
[[ -z \${FAKE_VM_RC:-} ]] || exit "\$FAKE_VM_RC"
rm -rf "\$vmout" && mkdir -p "\$vmout/out" || exit 125
# insmod is a shell function: busybox sh runs its own applet before any
# insmod in PATH, and that would load into this machine's kernel.
cd "$payload" && FXTRACE_VM=1 FXTRACE_OUT=\$vmout/out PATH=$payload/bin:\$PATH \$GUEST_SH -c "insmod() { return \${FAKE_INSMOD_RC:-0}; }
\$cmd" </dev/null
STUB
cat >"$payload/bin/fxt-collect" <<STUB
#!/bin/sh
printf '%s\\0' "\$@" >"$TMP/collect-args"
out=sched.fxt
while [ \$# -gt 0 ]; do
	case \$1 in
	-o) out=\$2; shift 2 ;;
	-d) shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
if ! command -v "\$1" >/dev/null 2>&1; then
	echo "fxt-collect: cannot run '\$1': No such file or directory" >&2
	exit 127
fi
echo "fxt-collect: tracing" >&2
printf 'fake trace\\n' >"\$out"
"\$@"
st=\$?
echo "fxt-collect: 42 context switches" >&2
if [ \$st -ne 0 ]; then
	echo "fxt-collect: \$1 (pid 1) exited with status \$st: fxt-collect's exit status is \$1's, not the trace's (the lines above say how the trace went)" >&2
	exit \$st
fi
exit "\${FAKE_COLLECT_STATUS:-0}"
STUB
printf '#!/bin/sh\necho "fake summary of $2"\n' >"$TMP/repo/collector/fxt-dump"
chmod +x "$TMP/repo/scripts/vm-test.sh" "$payload/bin/"* "$TMP/repo/collector/fxt-dump"

# The default run's guest command line is what it always was, to the byte.
want_default="insmod fxtrace.ko &&
	{ fxt-pingpong --rounds 100000000 >/dev/null 2>&1 & } &&
	{ sh -c 'while :; do :; done' & } &&
	fxt-collect -o /out/sched.fxt -d 5; rc=\$?;
	kill %1 %2 2>/dev/null; exit \$rc"
FAKE_VM_RC=1 run --no-deps -o "$TMP/t.fxt"
ok=0
[[ $rc -eq 1 && $(cat "$TMP/guest-cmd") == "$want_default" ]] &&
	grep -q "^vm-test.sh --out [^ ]* --timeout 606 " "$TMP/started" && ok=1
verdict "no COMMAND: the guest runs the fixed workload, the same command line as before -- COMMAND was added (--timeout 606)" "$ok"

vmout=$TMP/repo/build/vm-out/trace-6.1
# same_args FILE WORD...: FILE holds exactly these words, NUL-separated.
same_args() {
	local f=$1
	shift
	[[ -f $f ]] && cmp -s "$f" <(printf '%s\0' "$@")
}
# Arguments that a shell would split, expand, glob or end: each must reach
# fxt-collect, and so COMMAND, as one word, unchanged.
tricky=('a b' '"double"' "it's" "'" "''" '$HOME' '${x:-y}' '`id`' '$(id)' 'back\slash' '\'
	$'new\nline' $'tab\there' $'trailing\n' '*' '?' '[a]' '~' '~root' '#not a comment' ';' '&&'
	'|' '>x' '<x' '(' ')' '{a,b}' '!' '%' 'x=1' '-d' '--' '' '  lead' 'trail  ' 'é ü' '-o')
shells=()
busybox sh -c : 2>/dev/null && shells+=("busybox sh")
command -v dash >/dev/null && shells+=(dash)
if [[ ${#shells[@]} -eq 0 ]]; then
	tap_skip "COMMAND's arguments arrive intact in the guest" "neither busybox nor dash here"
fi
for sh in "${shells[@]}"; do
	export GUEST_SH=$sh
	name="$sh as the guest's shell: every argument of COMMAND arrives as one word, as given (${#tricky[@]} words: spaces, quotes, \$, \\, newlines, globs, ~, #, ;, empty ...)"
	run --no-deps -o "$TMP/t.fxt" -- printf '[%s]\n' "${tricky[@]}"
	printf '[%s]\n' "${tricky[@]}" >"$TMP/want-stdout"
	ok=0
	[[ $rc -eq 0 ]] && same_args "$TMP/collect-args" -o "$vmout/out/sched.fxt" -- printf '[%s]\n' "${tricky[@]}" &&
		cmp -s -n "$(stat -c %s "$TMP/want-stdout")" "$TMP/want-stdout" "$TMP/out" && ok=1
	verdict "$name" "$ok" "exit $rc; guest command: $(cat "$TMP/guest-cmd" 2>/dev/null)"

	name="$sh: the README's example, sh -c 'echo \"a b\"; sleep 0': 'a b' on stdout, exit 0"
	run --no-deps -o "$TMP/t.fxt" -- sh -c 'echo "a b"; sleep 0'
	ok=0
	[[ $rc -eq 0 ]] && same_args "$TMP/collect-args" -o "$vmout/out/sched.fxt" -- sh -c 'echo "a b"; sleep 0' &&
		[[ $(head -n 1 "$TMP/out") == "a b" ]] && ok=1
	verdict "$name" "$ok" "exit $rc"
done
export GUEST_SH=${shells[0]:-sh}

# What the host gets: the trace, COMMAND's stdout on stdout and its and
# fxt-collect's stderr on stderr, a last line saying whose status it is.
run --no-deps -o "$TMP/t.fxt" -- sh -c 'echo to-stdout; echo to-stderr >&2'
ok=0
[[ $rc -eq 0 && $(cat "$TMP/t.fxt") == "fake trace" ]] &&
	grep -qx "to-stdout" "$TMP/out" && ! grep -q "to-stderr" "$TMP/out" &&
	grep -qx "to-stderr" "$TMP/err" && grep -q "^fxt-collect: 42 context switches" "$TMP/err" &&
	grep -q "^fake summary of $TMP/t.fxt" "$TMP/out" &&
	[[ $(tail -n 1 "$TMP/err") == "trace-in-vm.sh: sh -c 'echo to-stdout; echo to-stderr >&2' exited 0 in the guest, and nothing is missing from the trace (exit 0)" ]] &&
	grep -q "^trace-in-vm.sh: tracing sh -c 'echo to-stdout; echo to-stderr >&2' in a QEMU VM (Debian 6.1 kernel, time limit 601 s)" "$TMP/err" &&
	grep -q "^vm-test.sh --out [^ ]* --timeout 601 " "$TMP/started" && ok=1
verdict "-- sh -c ...: the trace copied to -o, COMMAND's stdout on stdout, stderr (and fxt-collect's) on stderr, exit 0 said; no -d: --timeout 601" "$ok" "exit $rc"

run --no-deps -d 2.5 -o "$TMP/t.fxt" -- sleep 0
ok=0
[[ $rc -eq 0 ]] && same_args "$TMP/collect-args" -o "$vmout/out/sched.fxt" -d 2.5 -- sleep 0 &&
	grep -q "^vm-test.sh --out [^ ]* --timeout 603 " "$TMP/started" &&
	grep -q "tracing sleep 0 (for at most 2.5 s) in a QEMU VM" "$TMP/err" && ok=1
verdict "-d 2.5 -- sleep 0: fxt-collect gets -d 2.5 before --, vm-test.sh --timeout 603" "$ok" "exit $rc"

run --no-deps --timeout 900 -o "$TMP/t.fxt" -- sleep 0
ok=0
[[ $rc -eq 0 ]] && same_args "$TMP/collect-args" -o "$vmout/out/sched.fxt" -- sleep 0 &&
	grep -q "^vm-test.sh --out [^ ]* --timeout 900 " "$TMP/started" && ok=1
verdict "--timeout 900 -- sleep 0: vm-test.sh gets --timeout 900, fxt-collect no -d" "$ok" "exit $rc"

run --no-deps -o "$TMP/t.fxt" -- sh --bogus -d 0
ok=0
[[ $rc -eq 2 ]] && same_args "$TMP/collect-args" -o "$vmout/out/sched.fxt" -- sh --bogus -d 0 &&
	grep -q "^vm-test.sh" "$TMP/started" &&
	grep -q "^trace-in-vm.sh: exit 2: sh's exit status in the guest" "$TMP/err" && ok=1
verdict "-- sh --bogus -d 0: options after -- are COMMAND's, not checked here (sh's exit 2 is passed on, and said to be sh's)" "$ok" "exit $rc"

run --no-deps -o "$TMP/t.fxt" -- sh -c 'exit 7'
ok=0
[[ $rc -eq 7 && $(cat "$TMP/t.fxt") == "fake trace" ]] &&
	[[ $(tail -n 1 "$TMP/err") == "trace-in-vm.sh: exit 7: sh's exit status in the guest, which fxt-collect passed on (its lines above say how the trace went)" ]] && ok=1
verdict "COMMAND exits 7: the trace is kept, exit 7, said to be COMMAND's" "$ok" "exit $rc (wanted 7)"

FAKE_COLLECT_STATUS=3 run --no-deps -o "$TMP/t.fxt" -- true
ok=0
[[ $rc -eq 3 && $(cat "$TMP/t.fxt") == "fake trace" ]] &&
	grep -q "^trace-in-vm.sh: exit 3: the trace is in $TMP/t.fxt, but records were dropped or invalid ring data was skipped" "$TMP/err" && ok=1
verdict "fxt-collect exits 3 (records dropped) after COMMAND exited 0: the trace is kept, exit 3, said to be the trace's" "$ok" "exit $rc (wanted 3)"

FAKE_COLLECT_STATUS=1 run --no-deps -o "$TMP/t.fxt" -- true
ok=0
[[ $rc -eq 1 ]] && grep -q "^trace-in-vm.sh: exit 1: fxt-collect failed in the guest" "$TMP/err" && ok=1
verdict "fxt-collect exits 1: exit 1, said to be fxt-collect's failure" "$ok" "exit $rc (wanted 1)"

echo "old trace" >"$TMP/t.fxt"
run --no-deps -o "$TMP/t.fxt" -- no-such-program 'a b'
ok=0
[[ $rc -eq 127 && $(cat "$TMP/t.fxt") == "old trace" ]] &&
	grep -q "^fxt-collect: cannot run 'no-such-program'" "$TMP/err" &&
	grep -q "^trace-in-vm.sh: no trace was written in the guest; $TMP/t.fxt is left as it was" "$TMP/err" &&
	grep -q "^trace-in-vm.sh: exit 127: 'no-such-program' was not found in the guest" "$TMP/err" &&
	! grep -q "fake summary" "$TMP/out" && ok=1
verdict "a COMMAND the guest lacks: exit 127, -o left as it was, says the guest has busybox's applets and the project's programs" "$ok" "exit $rc (wanted 127)"

FAKE_INSMOD_RC=1 run --no-deps -o "$TMP/t.fxt" -- true
ok=0
[[ $rc -eq 1 ]] && ! [[ -e $vmout/out/trace-in-vm.status ]] &&
	grep -q "^trace-in-vm.sh: the VM run failed (exit 1); console: " "$TMP/err" && ok=1
verdict "insmod fails in the guest: fxt-collect does not run, exit 1, the VM run failed" "$ok" "exit $rc (wanted 1)"

for vrc in 124:"the VM was stopped at its time limit, 601 s with the boot: was true still running?" \
	125:"the VM run failed (exit 125)" 1:"the VM run failed (exit 1)"; do
	FAKE_VM_RC=${vrc%%:*} run --no-deps -o "$TMP/t.fxt" -- true
	ok=0
	[[ $rc -eq 1 ]] && grep -qF "trace-in-vm.sh: ${vrc#*:}" "$TMP/err" && ok=1
	verdict "vm-test.sh exits ${vrc%%:*} (no guest status): exit 1, not COMMAND's status, and says why" "$ok" "exit $rc (wanted 1)"
done
tap_end
