# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# kmsg_scan.sh - the kernel messages of one selftest step, sourced by
# run_vm_tests.sh (busybox sh in the guest) and by the host test
# scripts/test-kmsg-scan.sh.
#
# A step's messages are the /dev/kmsg records whose sequence number is
# above that of the last record before the step (the mark), not the dmesg
# lines past a line count: once the log buffer is full, old lines drop out
# as new ones come, and a count would point past the step's own. If the
# buffer wrapped past the mark before the scan read it (the first record
# after the mark is not mark+1, or the numbers jump), messages of the step
# were lost unseen: the scan says so and fails the step, never calls it
# clean.
#
#   dmesg_begin       before a step: take the mark
#   dmesg_has_bugs    after it: print the step's messages if one of them
#                     matches $KERNEL_BAD or the scan is incomplete; true then
#   kmsg_last_seq, kmsg_since   the parsing, on a file of records
#
# $KMSG_READ prints the records (default fxt-kmsg, selftests/fxt_kmsg.c);
# the host test points it at canned logs. Files go to $OUT. Every other
# variable here starts with ks_: the runner's globals share this shell.

KMSG_READ=${KMSG_READ:-fxt-kmsg}
ks_mark=''

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

dmesg_begin() {
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
	$KMSG_READ > "$OUT/kmsg.raw" 2> "$OUT/kmsg.err" ||
		echo "kmsg: reading /dev/kmsg after this step failed: $KMSG_READ: $(cat "$OUT/kmsg.err")" >> "$OUT/kmsg.problems"
	kmsg_since "$ks_mark" "$OUT/kmsg.raw" > "$OUT/kmsg.step"
	grep '^kmsg: ' "$OUT/kmsg.step" >> "$OUT/kmsg.problems"
	grep -v '^kmsg: ' "$OUT/kmsg.step" > "$OUT/dmesg.step"
	if [ -s "$OUT/kmsg.problems" ] || grep -Eq "$KERNEL_BAD" "$OUT/dmesg.step"; then
		echo "# dmesg after this step:"
		sed 's/^/#   /' "$OUT/kmsg.problems" "$OUT/dmesg.step" | head -60
		return 0
	fi
	return 1
}
