# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# kmsg_scan.sh - the kernel messages of one selftest step, sourced by
# run_vm_tests.sh (busybox sh in the guest) and by the host test
# scripts/test-kmsg-scan.sh.
#
# A step's messages are the /dev/kmsg records whose sequence number is
# above the mark, not the dmesg lines past a line count: once the log
# buffer is full, old lines drop out as new ones come, and a count would
# point past the step's own. The mark is the last record the previous
# step's scan read, so the records printed between two steps (after one
# scan, before the next step) are the next step's; only the first step
# (or one after a scan that could not read) takes a fresh mark. If the
# buffer wrapped past the mark before the scan read it (the first record
# after the mark is not mark+1, or the numbers jump), messages were lost
# unseen: the scan says so and fails the step, never calls it clean.
#
#   dmesg_begin       before a step: the mark (the last scan's end, or now)
#   dmesg_has_bugs    after it: print the step's messages if one of them
#                     matches $KERNEL_BAD (kmsg_drop_asked_oom's one line
#                     aside) or the scan is incomplete; true then
#   kmsg_taint_start, kernel_log_final   the W taint bit at the start, and
#                     the check after the last step (see there)
#   kmsg_last_seq, kmsg_since   the parsing, on a file of records
#
# $KMSG_READ prints the records (default fxt-kmsg, selftests/fxt_kmsg.c);
# the host test points it at canned logs. Files go to $OUT. Every other
# variable here starts with ks_: the runner's globals share this shell.

# What fails a step when its kernel messages show it: the one list, used
# here, by scripts/vm-test.sh on the whole saved dmesg.txt, by the host
# test scripts/test-kmsg-scan.sh, and by bench/guest.sh on the benchmark
# guest's kernel log (bench/run.sh ships this file in its payload).
KERNEL_BAD='WARNING:|BUG:|Oops|general protection|lockdep|possible circular|possible recursive|INFO: rcu|rcu_.* stall|soft lockup|hard LOCKUP|Call Trace'

# The one kernel report a step may ask for: the OOM killer's, when it
# kills a process named $KS_OOM_VICTIM (ioctl_test's ring allocator, which
# the module makes the OOM killer's first choice while it fills rings).
# Such a report dumps the stack of whoever woke the OOM killer, and its
# "Call Trace:" line matches $KERNEL_BAD. kmsg_drop_asked_oom drops that one
# line, from each report that ends by killing that process, and nothing
# else: every other line of it is still scanned, and so is any report that
# kills another process.
KS_OOM_VICTIM='fxt-oom-origin'

KMSG_READ=${KMSG_READ:-fxt-kmsg}
ks_mark=''
# The last record the latest scan read; the next step's mark.
ks_next=''
ks_taint0=''

# kmsg_last_seq FILE: the sequence number of the last record in FILE
# (records as /dev/kmsg gives them); false, printing nothing, if none.
kmsg_last_seq() {
	awk -F, '/^[0-9]+,[0-9]+,[0-9]+,/ { seq = $2; n++ }
		END { if (!n) exit 1; print seq }' "$1"
}

# kmsg_since MARK FILE: the records of FILE numbered above MARK, one line
# each as dmesg prints them: "[seconds.micros] message" (continuation lines
# " KEY=value" left out). Records missing between MARK and the last one
# are reported by a line "kmsg: ..." where they are missing, and make it
# false, as does a MARK that is not a number.
kmsg_since() {
	awk -v mark="$1" '
	BEGIN {
		if (mark !~ /^[0-9]+$/) {
			print "kmsg: no mark from before this step " mark ": its messages were not checked"
			bad = 1
			exit
		}
		want = mark + 1
	}
	!/^[0-9]+,[0-9]+,[0-9]+,/ { next }
	{
		semi = index($0, ";")
		split(substr($0, 1, semi - 1), h, ",")
		seq = h[2] + 0
		if (seq <= mark)
			next
		if (seq > want) {
			printf "kmsg: records %d to %d (%d) were lost before this scan read them: overwritten in the full log buffer; messages of this step were not checked\n", want, seq - 1, seq - want
			bad = 1
		}
		if (seq >= want)
			want = seq + 1
		s = int(h[3] / 1000000)
		printf "[%5d.%06d] %s\n", s, h[3] - s * 1000000, substr($0, semi + 1)
	}
	END { exit bad }' "$2"
}

# kmsg_drop_asked_oom [FILE]: FILE (or stdin), lines as dmesg prints them,
# without the "Call Trace:" line of each OOM report that ends in the kill
# of $KS_OOM_VICTIM ("invoked oom-killer:" to "Killed process N (NAME)"):
# its first one, the report's own; another one printed inside it (another
# CPU's report) stays.
kmsg_drop_asked_oom() {
	awk -v victim="($KS_OOM_VICTIM)" '
	function flush(asked,   i, dropped) {
		dropped = 0
		for (i = 1; i <= n; i++)
			if (asked && !dropped && buf[i] ~ /Call Trace:/)
				dropped = 1
			else
				print buf[i]
		n = 0
		report = 0
	}
	/ invoked oom-killer: / { flush(0); report = 1 }
	!report { print; next }
	{ buf[++n] = $0 }
	/ Killed process [0-9]+ \(/ {
		split($0, w, "Killed process ")
		split(w[2], v, " ")
		flush(v[2] == victim)
	}
	END { flush(0) }' "$@"
}

dmesg_begin() {
	if [ -n "$ks_next" ]; then
		ks_mark=$ks_next
		return
	fi
	if ! $KMSG_READ > "$OUT/kmsg.raw" 2> "$OUT/kmsg.err"; then
		ks_mark="($KMSG_READ failed: $(cat "$OUT/kmsg.err"))"
	elif ! ks_mark=$(kmsg_last_seq "$OUT/kmsg.raw"); then
		ks_mark='(no record in /dev/kmsg)'
	fi
}

# Print the step's kernel messages if one shows a kernel bug, or if they
# could not all be read; true then.
dmesg_has_bugs() {
	: > "$OUT/kmsg.problems"
	ks_next=''
	if $KMSG_READ > "$OUT/kmsg.raw" 2> "$OUT/kmsg.err"; then
		ks_next=$(kmsg_last_seq "$OUT/kmsg.raw")
	else
		echo "kmsg: reading /dev/kmsg after this step failed: $KMSG_READ: $(cat "$OUT/kmsg.err")" >> "$OUT/kmsg.problems"
	fi
	kmsg_since "$ks_mark" "$OUT/kmsg.raw" > "$OUT/kmsg.step"
	grep '^kmsg: ' "$OUT/kmsg.step" >> "$OUT/kmsg.problems"
	grep -v '^kmsg: ' "$OUT/kmsg.step" > "$OUT/dmesg.step"
	if ! kmsg_drop_asked_oom "$OUT/dmesg.step" > "$OUT/dmesg.scanned"; then
		echo "kmsg: filtering this step's messages failed (kmsg_drop_asked_oom): they were not checked" >> "$OUT/kmsg.problems"
	fi
	if [ -s "$OUT/kmsg.problems" ] || grep -Eq "$KERNEL_BAD" "$OUT/dmesg.scanned"; then
		echo "# dmesg after this step:"
		sed 's/^/#   /' "$OUT/kmsg.problems"
		# The lines that fail the step first: the log's head alone can
		# end before them (an OOM report ioctl_test asks for is longer).
		if grep -Eq "$KERNEL_BAD" "$OUT/dmesg.scanned"; then
			echo "# the lines that fail it:"
			grep -E "$KERNEL_BAD" "$OUT/dmesg.scanned" | head -20 | sed 's/^/#   /'
			echo "# the step's messages from its first:"
		fi
		sed 's/^/#   /' "$OUT/dmesg.step" | head -60
		return 0
	fi
	return 1
}

# The kernel's W taint bit (bit 9 of /proc/sys/kernel/tainted: a WARN
# fired) as 0 or 1; $KMSG_TAINTED is the file (the host test's stand-in).
kmsg_taint_w() {
	awk 'NR == 1 && /^[0-9]+$/ { print int($1 / 512) % 2; ok = 1 }
		END { exit !ok }' "${KMSG_TAINTED:-/proc/sys/kernel/tainted}"
}

# Before the first step: the W bit at the start, for kernel_log_final.
kmsg_taint_start() {
	ks_taint0=$(kmsg_taint_w 2> /dev/null)
}

# The last step: a kernel message printed after the last step's scan (a
# delayed warning of the final unload, say) is caught by waiting
# ${KMSG_SETTLE:-2} s and scanning again, which step() does after this
# returns. And the W taint bit must not have been set during the run,
# whatever became of its message.
kernel_log_final() {
	sleep "${KMSG_SETTLE:-2}"
	if ! ks_taint=$(kmsg_taint_w) || [ -z "$ks_taint" ] || [ -z "$ks_taint0" ]; then
		echo "cannot read the kernel's taint flags (at the start: '$ks_taint0', now: '$ks_taint')"
		return 1
	fi
	if [ "$ks_taint0" = 1 ]; then
		echo "the kernel was tainted W (a WARN) before the first step: the run cannot be checked by it"
		return 1
	fi
	if [ "$ks_taint" = 1 ]; then
		echo "the kernel got tainted W during the run: a WARN fired (tainted: $(cat "${KMSG_TAINTED:-/proc/sys/kernel/tainted}"))"
		return 1
	fi
	echo "taint W (bit 9) still clear after the last step"
}
