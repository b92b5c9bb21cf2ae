# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# kernel_log.awk - bench/run.sh's verdict on a view's guest kernel log
#
#   awk -v dmesg=RESULTS/VIEW/dmesg.txt -f bench/kernel_log.awk RESULTS.txt
#
# guest.sh ends with "BENCHINFO kernel_warnings=N": the number of lines of
# the guest's kernel log (dmesg) that match the selftests' KERNEL_BAD
# (selftests/kmsg_scan.sh: WARNING, BUG, Oops, lockdep, Call Trace ...).
# Exit 0, printing nothing, when N is 0. Exit 1 with a one-line reason
# naming the log (the dmesg variable) when N is above 0, is not a count,
# or no such line is there (the guest did not get to check its log): the
# view has failed, whatever its table says.

/^BENCHINFO / {
	for (i = 2; i <= NF; i++)
		if (index($i, "kernel_warnings=") == 1) {
			n = substr($i, 17)
			seen = 1
		}
}

END {
	if (!seen) {
		printf "no BENCHINFO kernel_warnings line: the guest's kernel log was not checked; see %s\n", dmesg
		exit 1
	}
	if (n !~ /^[0-9]+$/) {
		printf "BENCHINFO kernel_warnings=%s: the guest's kernel log was not checked; see %s\n", n, dmesg
		exit 1
	}
	if (n + 0 > 0) {
		printf "the guest kernel logged %d lines of warnings or bugs (kernel_warnings=%d): the view failed; see %s\n", n, n, dmesg
		exit 1
	}
}
