# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# tracer_counts.sh - each tracer's own account of what it recorded and lost,
# read from its output. Sourced by guest.sh (busybox sh, in the VM) and by
# tests/run_tests.sh (bash, on the host, with canned input); no side effects:
# the callers run the tracers' report commands and pass their output in.
# Each function sets events, lost and (but count_probe) out_bytes; a value
# the input does not give is left empty.
# shellcheck disable=SC2034 # those are this file's results, read by its callers

# count_fxtrace LOG TRACE: fxt-collect's summary in LOG, the trace file.
# lost is empty (not known) when the summary is missing, when fxt-collect
# skipped invalid ring data, or when it gave up writing the rings' data.
count_fxtrace() {
	events=$(sed -n 's/^fxt-collect: traced .* records (\([0-9]*\) context switches, \([0-9]*\) wakeups.*/\1 + \2/p' "$1" | head -n 1)
	[ -n "$events" ] && events=$((events))
	lost=$(sed -n 's/^fxt-collect: records dropped: .*(\([0-9]*\) in total).*/\1/p' "$1" | head -n 1)
	[ -n "$lost" ] || { grep -q '^fxt-collect: no records dropped' "$1" && lost=0; }
	# Invalid ring data skipped (exit 3): the records in it were lost, how
	# many nobody knows ("an unknown amount"), whatever the dropped count.
	if grep -q '^fxt-collect: invalid ring data skipped' "$1"; then lost=; fi
	# Given up after the stop signal: what the rings still held was not
	# written, records and all, however many ("no records dropped by the
	# rings, but 10.7 MiB ... were not written", or "also not written").
	if grep -qE '^fxt-collect: (no records dropped by the rings, but .* were not written|also not written:)' "$1"; then lost=; fi
	out_bytes=$(wc -c <"$2")
}

# count_probe LOG: fxt-probe-only's counters
count_probe() {
	events=$(sed -n 's/^fxt-probe-only: records_written=\([0-9]*\) .*/\1/p' "$1")
	lost=$(sed -n 's/^fxt-probe-only: .* records_dropped=\([0-9]*\) .*/\1/p' "$1")
}

# count_ftrace RECORD_LOG STAT: trace-cmd record's output, and trace-cmd
# report --stat of its trace.dat.
count_ftrace() {
	# trace-cmd stores each CPU's ring buffer counters, taken when tracing
	# stopped, in the file: "read events" had gone to its reader,
	# "entries" were still in the buffer (read after that), "overrun"
	# were overwritten before it got to them, "dropped events" found the
	# buffer full. (It resets the live counters in tracefs on exit.)
	# Output without those lines (report --stat failed, or printed
	# something else) gives no count, not 0.
	events=$(awk '/^entries:/ { s += $2; n++ } /^read events:/ { s += $3; n++ } END { if (n) print s }' "$2")
	lost=$(awk '/^overrun:/ || /^commit overrun:/ { s += $NF; n++ } /^dropped events:/ { s += $3; n++ } END { if (n) print s }' "$2")
	# The event pages trace-cmd wrote, per CPU: "N bytes in size", or
	# "C bytes in size (N uncompressed)" when it compressed them. From the
	# record's own output only: report --stat repeats these lines.
	out_bytes=$(awk '/bytes in size/ { v = $1; if ($6 == "uncompressed)") v = substr($5, 2); s += v; n++ } END { if (n) print s }' "$1")
}

# count_perf RECORD_LOG STATS HEADER: perf record's output, perf report
# --stats and perf report --header-only of its perf.data.
count_perf() {
	events=$(sed -n 's/.*perf record: Captured and wrote .*(\([0-9]*\) samples).*/\1/p' "$1" | head -n 1)
	# Samples the kernel could not write because the buffer was full:
	# perf record reads each event's count (PERF_FORMAT_LOST, Linux >= 6.0)
	# into LOST_SAMPLES records, which --stats sums per event. (perf record
	# prints "lost P%" only above 5%, and its "lost N chunks" counts
	# PERF_RECORD_LOST records, not samples.)
	lost=$(awk '/^Aggregated stats:/ { per_event = 0; next }
		/ stats:$/ { per_event = 1; next }
		per_event && /^ *LOST_SAMPLES events:/ { s += $3; n++ }
		/^ *(TOTAL|SAMPLE) events:/ { ok = 1 }
		END { if (n) print s; else if (ok) print 0 }' "$2")
	# A kernel without PERF_FORMAT_LOST leaves only the LOST records: then
	# the count is not known (but perf's own "lost P%" above 5%).
	if [ "$lost" = 0 ] && awk '/^Aggregated stats:/ { a = 1 } a && /^ *LOST events:/ && $3 > 0 { f = 1 } END { exit !f }' "$2"; then
		total=$(sed -n 's/.*Processed \([0-9]*\) samples and lost.*/\1/p' "$1" | head -n 1)
		if [ -n "$total" ] && [ -n "$events" ]; then
			lost=$((total - events))
		else
			lost=
		fi
	fi
	# The data section (header and feature sections left out).
	out_bytes=$(sed -n 's/^# data size *: *\([0-9]*\).*/\1/p' "$3")
}
