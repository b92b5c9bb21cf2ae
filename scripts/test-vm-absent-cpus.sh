#!/usr/bin/env bash
# test-vm-absent-cpus.sh FLAVOUR -- a machine whose firmware declares more
# possible CPUs than it has (hot-plug slots: a VM with 2 CPUs and 128
# possible is common) must not pay a full ring for each: the module gives
# a CPU that is possible but not present a ring of FXTRACE_BUF_SIZE_MIN
# (uapi "mmap layout", ABI 6), and fxt-collect maps it at that size and
# says so.
#
# Boots one VM with 2 vCPUs of 4 possible (scripts/vm-test.sh --smp 2
# --maxcpus 4, about 40 s) that loads the module, runs absent_cpus_test
# (selftests/absent_cpus_test.c: each ring's size, the mmap limits, the
# memory taken, no records on the absent CPUs), prio_test and state_test
# (their ring checks drain every ring, the small ones too), then
# fxt-collect for 1 s.
# Checks here: the test's result, what fxt-collect said and its exit, the
# trace with fxt-dump --check, and vm-test.sh's scan of the kernel log.
# Prints TAP (scripts/tap.sh); exit status 1 if a check failed.
set -uo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
[[ $# -eq 1 ]] || { echo "usage: $prog FLAVOUR (see scripts/fetch-kernel.sh --known)" >&2; exit 2; }
flavour=$1
out=$REPO/build/vm-out/absent-cpus-$flavour
mkdir -p "${out%/*}" || exit 1

tap_begin --version
"$REPO/scripts/vm-test.sh" --smp 2 --maxcpus 4 --timeout 300 --out "$out" \
	--command 'insmod ./fxtrace.ko && cat /sys/devices/system/cpu/possible /sys/devices/system/cpu/present >/out/cpus && { for t in absent_cpus_test prio_test state_test; do $t >/out/$t.tap 2>&1; echo $? >/out/$t.rc; done; fxt-collect -o /out/absent.fxt -d 1 2>/out/collect.err; echo $? >/out/collect.rc; }' \
	"$flavour" >"$out.log" 2>&1
rc=$?
grep -aE 'vm-run.sh: (booting|VM run took)' "$out.log" | sed 's/^/# /'
[[ $rc -eq 0 ]]
tap_ok $? "the guest loaded the module and ran its command; its kernel log is clean (vm-test.sh exited $rc)" "$out.log"
cpus=$(tr '\n' ' ' <"$out/out/cpus" 2>/dev/null)
if [[ $cpus == '0-1 0-1 ' ]]; then
	# Debian's 6.12 counts none of QEMU's hot-plug slots ("CPU topo:
	# Allowing 2 present CPUs plus 0 hotplug CPUs", also with an Intel
	# vendor and one socket per CPU); its 6.1 counts them.
	for what in "the guest has CPUs 0-3 possible, 0-1 present" "absent_cpus_test" \
		"prio_test with small rings" "state_test with small rings" \
		"fxt-collect mapped 4 rings and said why 2 of them are small"; do
		tap_skip "$what" "this kernel makes no possible CPU of QEMU's hot-plug slots (possible and present: $cpus): run it on 6.1"
	done
	tap_end
	exit
fi
[[ $cpus == '0-3 0-1 ' ]]
tap_ok $? "the guest has CPUs 0-3 possible, 0-1 present (it says: $cpus)"
sed 's/^/# /' "$out/out/absent_cpus_test.tap" 2>/dev/null
[[ $(cat "$out/out/absent_cpus_test.rc" 2>/dev/null) == 0 ]] &&
	grep -q '^# Totals: pass:5 fail:0 xfail:0 xpass:0 skip:0 error:0' "$out/out/absent_cpus_test.tap"
tap_ok $? "absent_cpus_test: all 5 passed, none skipped"
# Two of the VM selftests, whose ring checks (selftests/ring_check.h) map
# and drain every possible CPU's ring, the small ones too, at its size.
for t in prio_test state_test; do
	[[ $(cat "$out/out/$t.rc" 2>/dev/null) == 0 ]] &&
		grep -q '^# Totals: pass:[1-9][0-9]* fail:0 xfail:0 xpass:0 skip:0 error:0' "$out/out/$t.tap"
	tap_ok $? "$t passes with 2 of its 4 rings small, none skipped" "$out/out/$t.tap"
done
sed 's/^/# /' "$out/out/collect.err" 2>/dev/null
[[ $(cat "$out/out/collect.rc" 2>/dev/null) == 0 ]]
tap_ok $? "fxt-collect exits 0: nothing dropped, nothing missing"
grep -q "^fxt-collect: traced 4 rings (one per possible CPU) " "$out/out/collect.err" 2>/dev/null &&
	grep -q "^fxt-collect: 2 CPUs possible but not present when the module allocated the rings (hot-plug slots) got 64K rings, not -b's 4096K" \
		"$out/out/collect.err"
tap_ok $? "fxt-collect mapped 4 rings and said why 2 of them are small"
"$REPO/collector/fxt-dump" --check "$out/out/absent.fxt" >"$out/check.log" 2>&1
tap_ok $? "fxt-dump --check accepts the trace" "$out/check.log"
tap_end
