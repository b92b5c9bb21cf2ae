#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# absent_cpus.sh - the guest side of scripts/test-vm-absent-cpus.sh, in a
# guest with CPUs 0-1 present and 0-3 possible (QEMU -smp 2,maxcpus=4).
# Results go to /out, for the host to check:
#   cpus                         possible and present CPUs at boot
#   absent_cpus_test.tap/.rc     and prio_test's, state_test's
#   memory_refusal.tap/.rc       ioctl_test's test of rings refused for
#                                want of memory, alone (-t)
#   absent.fxt, collect.err/.rc  fxt-collect -d 1
#   hotplug.fxt, hotplug.err/.rc fxt-collect while CPU 2 is plugged in
#   hotplug-online               the online CPUs once it is
#   plug_watermark_test.tap/.rc  last: CPU 3 plugged in while it polls
# The hot-plug: this script, run again by fxt-collect as its COMMAND with
# --plugged, prints FXT-HOTPLUG-READY on a line of its own; the host then
# plugs CPU 2 in through QEMU's monitor. It brings CPU 2 online, runs
# fxt-pingpong on CPUs 0 and 2 (drained as it goes), then again with
# fxt-collect stopped (SIGSTOP), so that CPU 2's 64 KiB ring fills and
# drops while CPU 0's 4 MiB holds all of it. Last, plug_watermark_test
# says FXT-PLUG-CPU3-READY and the host plugs CPU 3 in the same way.
# Exit status: 0 when every result was written (pass or fail is the
# host's to say), 1 when the module could not be loaded.

cd "$(dirname "$0")/.." || exit 1
PATH="$PWD/bin:$PATH"

if [ "${1:-}" = --plugged ]; then
	echo FXT-HOTPLUG-READY
	i=0
	while [ ! -e /sys/devices/system/cpu/cpu2/online ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo 1 >/sys/devices/system/cpu/cpu2/online || exit 1
	cat /sys/devices/system/cpu/online >/out/hotplug-online
	fxt-pingpong --cpus 0,2 --rounds 2000 >/dev/null || exit 1
	kill -STOP "$PPID"
	fxt-pingpong --cpus 0,2 --rounds 10000 >/dev/null
	rc=$?
	kill -CONT "$PPID"
	exit $rc
fi

insmod ./fxtrace.ko || exit 1
cat /sys/devices/system/cpu/possible /sys/devices/system/cpu/present >/out/cpus
# A kernel that makes no possible CPU of QEMU's hot-plug slots: nothing
# to test, the host says so.
[ "$(cat /sys/devices/system/cpu/possible)" = 0-3 ] || exit 0
for t in absent_cpus_test prio_test state_test; do
	"$t" >"/out/$t.tap" 2>&1
	echo $? >"/out/$t.rc"
done
# Rings beyond the memory available are refused, and the kernel's message
# says what they needed: here two full rings and two small ones.
ioctl_test -t configure_beyond_available_memory_is_enomem_without_oom_kill \
	>/out/memory_refusal.tap 2>&1
echo $? >/out/memory_refusal.rc
fxt-collect -o /out/absent.fxt -d 1 2>/out/collect.err
echo $? >/out/collect.rc
fxt-collect -o /out/hotplug.fxt -- sh selftests/absent_cpus.sh --plugged \
	2>/out/hotplug.err
echo $? >/out/hotplug.rc
plug_watermark_test >/out/plug_watermark_test.tap 2>&1
echo $? >/out/plug_watermark_test.rc
exit 0
