#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_fxt_collect_fake.sh FXT_COLLECT FXT_DUMP FAKE_SO
#
# fxt-collect's whole lifecycle against fake_fxtrace.so (an LD_PRELOAD
# stand-in for /dev/fxtrace that follows the uapi header): plain runs,
# kernel name records out of order across rings, /proc naming of threads
# without one, dropped records (and their loss markers, also after a
# ring's last record, as fxt-dump --summary reports them), COMMAND exit
# statuses, -o - (to a pipe, and appended to a file with >>), signals, a
# full disk, a file size limit (and the records the summary counts after
# such write errors), ABI mismatch, busy/denied device, corrupt ring data,
# impossible producer positions (and their bytes_skipped markers, in
# fxt-dump --summary), ring positions across 2^64, possible CPUs numbered
# 4096 or above (a warning: Perfetto cannot read their records). Every
# trace written must pass fxt-dump --check (but those of CPUs from 4096 on).
# Prints unnumbered TAP lines (tests/run_tests.sh numbers them).

# shellcheck disable=SC2034 # read by fake_device_lib.sh
FAKE_LIB_PREFIX=fxt-fake
. "$(dirname "$0")/fake_device_lib.sh"

# expect NAME STATUS PATTERN [TRACE]: status, message, and a valid trace.
expect() {
	name=$1 want=$2 pattern=$3 trace=${4:-}
	if [ "$rc" -ne "$want" ]; then
		fail "$name (exit $rc, wanted $want)" "$TMP/err"
		return
	fi
	if [ -n "$pattern" ] && ! grep -q -- "$pattern" "$TMP/err"; then
		fail "$name (no '$pattern' on stderr)" "$TMP/err"
		return
	fi
	if [ -n "$trace" ] && ! "$DUMP" --check "$trace" >"$TMP/check" 2>&1; then
		fail "$name (fxt-dump --check refuses the trace)" "$TMP/check"
		return
	fi
	ok "$name"
}

collect -o "$TMP/t.fxt" -d 0.4
expect "a 0.4 s trace: exit 0, summary, valid trace" 0 "no records dropped" "$TMP/t.fxt"
cp "$TMP/err" "$TMP/clean.err"

"$DUMP" "$TMP/t.fxt" >"$TMP/dump"
if grep -q "context_switch ts=" "$TMP/dump" && grep -q "wakeup ts=" "$TMP/dump" &&
   grep -q "kernel_object thread koid=1 .*process:koid=1$" "$TMP/dump"; then
	ok "the trace holds switches, wakeups and named tasks"
else
	fail "the trace holds switches, wakeups and named tasks" "$TMP/dump"
fi
if [ "$(grep -c 'name="records_dropped".*cpu0:int64=0 cpu1:int64=0 cpu3:int64=0' "$TMP/dump")" -eq 2 ]; then
	ok "records_dropped counters sampled at start and end, CPU 2 (absent) skipped"
else
	fail "records_dropped counters sampled at start and end, CPU 2 (absent) skipped" "$TMP/dump"
fi
if grep -q "traced 3 rings (one per possible CPU)" "$TMP/err"; then
	ok "the absent CPU (ENXIO) is skipped, not fatal"
else
	fail "the absent CPU (ENXIO) is skipped, not fatal" "$TMP/err"
fi

# The summary counts rings, one per possible CPU, not CPUs that ran: 128
# CPU numbers with CPU 2 absent are 127 possible CPUs, on a host with far
# fewer online, where "traced 127 CPUs" (before) was not true.
FAKE_FXTRACE_CPUS=128 FAKE_FXTRACE_RATE=0 collect -o "$TMP/many.fxt" -b 64K -d 0.2
expect "127 possible CPUs: the summary says 127 rings, one per possible CPU, not 127 CPUs traced" 0 \
	"traced 127 rings (one per possible CPU) for " "$TMP/many.fxt"

# CPU numbers from 4096 on: Perfetto reads the scheduling records of CPUs
# below 4096 only (fxt_types.h; fxt-dump --check refuses the others), and
# the kernel writes each CPU's number as it is. fxt-collect says so once,
# before tracing (START failing still leaves the warning), naming how many
# of the possible CPUs and which numbers, and traces them all the same.
# nr_cpu_ids 4100 with CPUs 4 to 4095 not possible: CPUs 0, 1, 3 and 4096
# to 4099. Not said when no possible CPU is numbered 4096 or above, even
# with nr_cpu_ids above 4096, nor with -q.
perfetto_said() {
	grep -c "Perfetto" "$TMP/err"
}
high_warning="fxt-collect: warning: 4 of the 7 possible CPUs are numbered 4096 or above (CPUs 4096 to 4099), and Perfetto reads the scheduling records of CPUs below 4096 only: it cannot read those CPUs' (fxt-dump --check refuses them). Traced all the same (booting with nr_cpus=4096 would keep CPU numbers below 4096, but leave the CPUs above unused)"
FAKE_FXTRACE_CPUS=4100 FAKE_FXTRACE_NOT_POSSIBLE=4-4095 collect -o "$TMP/hi.fxt" -b 64K -d 0.2
"$DUMP" "$TMP/hi.fxt" >"$TMP/dump"
"$DUMP" --check "$TMP/hi.fxt" >"$TMP/check" 2>&1
check_rc=$?
if [ "$rc" -eq 0 ] && [ "$(perfetto_said)" -eq 1 ] &&
   grep -qxF "$high_warning" "$TMP/err" &&
   grep -q "^fxt-collect: traced 7 rings (one per possible CPU)" "$TMP/err" &&
   grep -q "context_switch ts=.* cpu=4099 " "$TMP/dump" &&
   [ "$check_rc" -ne 0 ] &&
   grep -q "CPU 409[6-9]: Perfetto reads CPU numbers below 4096 only" "$TMP/check"; then
	ok "CPUs 4096 to 4099 of 7 possible: warned once that Perfetto cannot read their records, traced all the same (exit 0; fxt-dump --check refuses the trace)"
else
	fail "CPUs 4096 to 4099 of 7 possible: warned once that Perfetto cannot read their records, traced all the same (exit $rc, --check $check_rc)" "$TMP/err" "$TMP/check"
fi
FAKE_FXTRACE_CPUS=4100 FAKE_FXTRACE_NOT_POSSIBLE=4-4095 FAKE_FXTRACE_START_ERRNO=5 \
	collect -o "$TMP/hi.fxt" -b 64K -d 0.2
if [ "$rc" -eq 1 ] && grep -qxF "$high_warning" "$TMP/err" &&
   grep -q "FXTRACE_IOC_START failed" "$TMP/err"; then
	ok "the warning about CPUs from 4096 on comes before tracing: START failing still leaves it"
else
	fail "the warning about CPUs from 4096 on comes before tracing: START failing still leaves it (exit $rc)" "$TMP/err"
fi
FAKE_FXTRACE_CPUS=65536 FAKE_FXTRACE_NOT_POSSIBLE=4-65534 collect -o "$TMP/hi.fxt" -b 64K -d 0.2
if [ "$rc" -eq 0 ] && [ "$(perfetto_said)" -eq 1 ] &&
   grep -qxF "fxt-collect: warning: 1 of the 4 possible CPUs is numbered 4096 or above (CPU 65535), and Perfetto reads the scheduling records of CPUs below 4096 only: it cannot read that CPU's (fxt-dump --check refuses them). Traced all the same (booting with nr_cpus=4096 would keep CPU numbers below 4096, but leave the CPUs above unused)" "$TMP/err" &&
   "$DUMP" "$TMP/hi.fxt" | grep -q "context_switch ts=.* cpu=65535 "; then
	ok "CPU 65535 (nr_cpu_ids 65536, the most): warned once, in the singular, and traced"
else
	fail "CPU 65535 (nr_cpu_ids 65536, the most): warned once, in the singular, and traced (exit $rc)" "$TMP/err"
fi
FAKE_FXTRACE_CPUS=4100 FAKE_FXTRACE_NOT_POSSIBLE=4-4095 collect -q -o "$TMP/hi.fxt" -b 64K -d 0.2
if [ "$rc" -eq 0 ] && [ "$(perfetto_said)" -eq 0 ]; then
	ok "-q: no warning about CPUs from 4096 on"
else
	fail "-q: no warning about CPUs from 4096 on (exit $rc)" "$TMP/err"
fi
# nr_cpu_ids:CPUs not possible:rings
for c in 4096:4-4094:4 4100:4-4099:3; do
	n=${c%%:*} gap=${c#*:} rings=${c##*:}
	gap=${gap%:*}
	FAKE_FXTRACE_CPUS=$n FAKE_FXTRACE_NOT_POSSIBLE=$gap \
		collect -o "$TMP/lo.fxt" -b 64K -d 0.2
	if [ "$rc" -eq 0 ] && [ "$(perfetto_said)" -eq 0 ] &&
	   grep -q "^fxt-collect: traced $rings rings (one per possible CPU)" "$TMP/err" &&
	   "$DUMP" --check "$TMP/lo.fxt" >"$TMP/check" 2>&1; then
		ok "nr_cpu_ids $n, CPUs $gap not possible ($rings rings): no possible CPU from 4096 on, no warning, a trace fxt-dump --check passes"
	else
		fail "nr_cpu_ids $n, CPUs $gap not possible ($rings rings): no possible CPU from 4096 on, no warning, a trace fxt-dump --check passes (exit $rc)" "$TMP/err" "$TMP/check"
	fi
done
if [ "$(grep -c "Perfetto" "$TMP/clean.err")" -eq 0 ]; then
	ok "4 CPUs (the first trace): no warning about CPUs from 4096 on"
else
	fail "4 CPUs (the first trace): no warning about CPUs from 4096 on" "$TMP/clean.err"
fi

# A CPU possible but not present when the module allocated the rings has
# a ring of FXTRACE_BUF_SIZE_MIN whatever -b says (uapi "mmap layout"):
# fxt-collect maps it at its own size, drains it, says so, and when it
# drops, says why a larger -b would not help.
FAKE_FXTRACE_SMALL_CPU=3 collect -o "$TMP/small.fxt" -d 0.4
expect "a CPU not present has a 64K ring: mapped and drained, the summary says why it is small" 0 \
	"^fxt-collect: 1 CPU possible but not present when the module allocated the rings (hot-plug slots) got 64K rings, not -b's 4096K" \
	"$TMP/small.fxt"
if "$DUMP" "$TMP/small.fxt" | grep -q "context_switch ts=.* cpu=3 "; then
	ok "the small ring's records are in the trace"
else
	fail "the small ring's records are in the trace" "$TMP/err"
fi
FAKE_FXTRACE_SMALL_CPU=3 FAKE_FXTRACE_RATE=60 collect -o "$TMP/smalldrop.fxt" -b 2M -d 0.5
expect "drops on the small ring only: exit 3, counted on it, with what to do" 3 \
	"^fxt-collect: of them, cpu3 [1-9][0-9]* ([1-9][0-9]*) on CPUs plugged in after the module allocated the rings, whose rings are 64K" \
	"$TMP/smalldrop.fxt"
if grep -q "^fxt-collect: records dropped: cpu3 [0-9]* ([0-9]* in total): the rings were full$" "$TMP/err"; then
	ok "the 2M rings drop nothing at the rate that fills the 64K one, and -b is not the advice"
else
	fail "the 2M rings drop nothing at the rate that fills the 64K one, and -b is not the advice" "$TMP/err"
fi

# Attaching the probes takes time, with records written meanwhile: the
# summary says so, and -d counts from when START returned. (At least
# 0.2 s and 0.3 s; no upper bound, which a slow machine could exceed.)
FAKE_FXTRACE_START_DELAY_MS=300 collect -o "$TMP/a.fxt" -d 0.2
expect "slow START: the summary gives -d's time and, apart, the time attaching the probes" 0 \
	"traced 3 rings (one per possible CPU) for \(0\.[2-9]\|[1-9]\)[0-9.]* s, plus \(0\.[3-9]\|[1-9]\)[0-9.]* s attaching the probes: " \
	"$TMP/a.fxt"

# Kernel names out of order across rings (rename before fork in the file):
# each fake thread must end with its newest name, written again last.
FAKE_FXTRACE_NAMES=40 collect -o "$TMP/n.fxt" -d 0.5
expect "kernel name records: exit 0, counted, valid trace" 0 \
	"name records ([1-9][0-9]* written again in time order)" "$TMP/n.fxt"
"$DUMP" "$TMP/n.fxt" >"$TMP/dump"
wrong=$(awk '$2 == "kernel_object" && $3 == "thread" && $4 ~ /^koid=39000000[0-9][0-9]$/ {
		last[substr($4, 14)] = $5	# the last two digits
	}
	END {
		bad = 0
		for (i = 1; i <= 40; i++) {
			want = sprintf("name=\"thr-%03d\"", i)
			k = sprintf("%02d", i)
			if (last[k] != want) {
				print "#     thread " i ": " last[k] ", wanted " want
				bad++
			}
		}
		print bad
	}' "$TMP/dump")
# The process's exec on CPU 0 (fake_fxtrace.c): its new name reaches the
# file before the fork's, and is written again after it.
last_proc=$(awk '$2 == "kernel_object" && $3 == "process" && $4 == "koid=3900000000" { n = $5 }
	END { print n }' "$TMP/dump")
if [ "$last_proc" = 'name="fxt-names-exec"' ] &&
   grep -q 'name="fxt-names"' "$TMP/dump"; then
	ok "a process renamed (exec) on a CPU copied before the one that named it ends with its new name"
else
	fail "a process renamed (exec) on a CPU copied before the one that named it ends with its new name (last: $last_proc)"
fi
if [ "$(echo "$wrong" | tail -n 1)" = 0 ]; then
	ok "each of 40 threads renamed after its fork on another CPU ends with its new name"
else
	fail "each of 40 threads renamed after its fork on another CPU ends with its new name"
	echo "$wrong" | head -10
fi
if grep -q "^fxt-collect: 1 traced thread(s) exited" "$TMP/err"; then
	ok "threads named by the kernel are not counted as unnamed"
else
	fail "threads named by the kernel are not counted as unnamed" "$TMP/err"
fi

# COMMAND has no name record: it is named from /proc, one drain cycle after
# it first appears, while it still runs.
ln -s "$(command -v sleep)" "$TMP/fxtdeferred"
FAKE_FXTRACE_CHILD=1 collect -o "$TMP/d.fxt" -- "$TMP/fxtdeferred" 0.6
expect "COMMAND in the ring data without a name record: exit 0" 0 "" "$TMP/d.fxt"
"$DUMP" "$TMP/d.fxt" >"$TMP/dump"
if grep -q 'kernel_object thread koid=[0-9]* name="fxtdeferred" process:koid=' "$TMP/dump" &&
   grep -q 'kernel_object process koid=[0-9]* name="fxtdeferred"' "$TMP/dump"; then
	ok "a thread without a name record is still named from /proc"
else
	fail "a thread without a name record is still named from /proc" "$TMP/err"
fi

# No ring data at all (an idle machine, or COMMAND gone before the first
# record): no thread ids to name, ever.
FAKE_FXTRACE_RATE=0 collect -o "$TMP/idle.fxt" -d 0.3
expect "no ring data at all: exit 0, a valid trace" 0 "traced 3 rings (one per possible CPU) for .*: 0 records" "$TMP/idle.fxt"

FAKE_FXTRACE_RATE=60 collect -o "$TMP/drop.fxt" -b 64K -d 0.5
expect "rings overflow: exit 3, drops per CPU in the summary" 3 \
	"records dropped: cpu0 [0-9]" "$TMP/drop.fxt"
if "$DUMP" "$TMP/drop.fxt" | grep -q "provider_event id=1 event=0" &&
   "$DUMP" "$TMP/drop.fxt" | grep -q 'records_dropped.*cpu[013]:int64=[1-9]'; then
	ok "drops leave a buffer-full provider event and a non-zero counter"
else
	fail "drops leave a buffer-full provider event and a non-zero counter"
fi

# lost_sums DUMP: per CPU (counter id), "<cpu> <records> <pairs>" from
# the records_lost markers, or "bad: ..." if they are not (N > 0, then 0)
# pairs in file order.
lost_sums() {
	awk '/ name="records_lost" counter_id=/ {
		id = $0; sub(/.* counter_id=/, "", id); sub(/ .*/, "", id)
		v = $0; sub(/.*cpu:int64=/, "", v)
		if (!(id in open) || !open[id]) {
			if (v + 0 <= 0) print "bad: cpu " id " first sample " v
			open[id] = 1; sum[id] += v; pairs[id]++
		} else {
			if (v != "0") print "bad: cpu " id " second sample " v
			open[id] = 0
		}
	}
	END { for (id in sum) { if (open[id]) print "bad: cpu " id " unpaired"
		print id, sum[id], pairs[id] } }' "$1"
}
# summary_holes SUMMARY LABEL: per CPU, "<cpu> <amount> <holes>" from the
# line of fxt-dump --summary output SUMMARY that starts with LABEL
# ("...: 9 in 3 holes; cpu0 7 (2 holes) cpu1 2 (1 hole)").
summary_holes() {
	awk -v label="$2" 'index($0, label) == 1 {
		sub(/^[^;]*; /, ""); n = split($0, f, " ")
		for (i = 1; i + 3 <= n; i += 4) {
			c = f[i]; sub(/^cpu/, "", c); h = f[i + 2]; sub(/^\(/, "", h)
			print c, f[i + 1], h
		}
	}' "$1"
}
LOST_LINE="  records lost (records_lost markers): "
SKIP_LINE="  bytes skipped (fxt-collect's bytes_skipped markers): "
# Every record dropped is marked, those the module marked with the next
# record that fit and those after a ring's last record, which fxt-collect
# marks at the end: per CPU, the markers add up to the summary's count.
"$DUMP" "$TMP/drop.fxt" >"$TMP/dump"
lost_sums "$TMP/dump" | sort >"$TMP/sums"
sed -n 's/.*records dropped: \(.*\) ([0-9]* in total).*/\1/p' "$TMP/err" |
	tr ',' '\n' | sed -n 's/ *cpu\([0-9]*\) \([0-9]*\)/\1 \2/p' | sort >"$TMP/want"
if [ -s "$TMP/want" ] && ! grep -q '^bad' "$TMP/sums" &&
   [ "$(cut -d' ' -f1,2 "$TMP/sums")" = "$(cat "$TMP/want")" ]; then
	ok "rings overflow: every dropped record is in a records_lost pair, per CPU ($(tr '\n' ';' <"$TMP/want"))"
else
	{ echo "summary: $(tr '\n' ';' <"$TMP/want")"; cat "$TMP/sums"; } >"$TMP/why"
	fail "rings overflow: every dropped record is in a records_lost pair, per CPU" "$TMP/why" "$TMP/err"
fi
# fxt-dump --summary reports those markers: per CPU, the same records and
# holes (it said "records dropped: ..." of the counters alone).
"$DUMP" --summary "$TMP/drop.fxt" >"$TMP/summary"
summary_holes "$TMP/summary" "$LOST_LINE" | sort >"$TMP/summed"
if [ -s "$TMP/summed" ] && ! grep -q '^bad' "$TMP/sums" && cmp -s "$TMP/sums" "$TMP/summed"; then
	ok "rings overflow: fxt-dump --summary reports the records_lost markers' records and holes per CPU"
else
	{ echo "markers (cpu records pairs):"; cat "$TMP/sums"; echo "summary:"; cat "$TMP/summed"; } >"$TMP/why"
	fail "rings overflow: fxt-dump --summary reports the records_lost markers' records and holes per CPU" "$TMP/why" "$TMP/summary"
fi

# 127 CPUs (128, CPU 2 absent), dropping records: the summary lists every
# CPU that dropped, each count whole, the same counts fxt-dump --summary
# reads in the trace's last records_dropped sample. (A list cut at 1024
# bytes ended near cpu96 with nothing to say CPUs were missing.) Each CPU
# is a thread of the fake device, and one the host starves may drop
# nothing: under ASan, with the host stealing 60% of the time, cpu19 did
# not. So at least 110 CPUs must be listed, well past that cut, not 127.
FAKE_FXTRACE_CPUS=128 FAKE_FXTRACE_RATE=2000 collect -o "$TMP/many.fxt" -b 64K -d 0.3
expect "127 CPUs overflow: exit 3, drops per CPU in the summary" 3 \
	"records dropped: cpu0 [0-9]" "$TMP/many.fxt"
awk '/^fxt-collect: records dropped: / {
	sub(/^fxt-collect: records dropped: /, ""); sub(/ \([0-9]* in total\).*/, "")
	n = split($0, e, ", "); for (i = 1; i <= n; i++) print e[i] }' \
	"$TMP/err" >"$TMP/many-listed"
"$DUMP" --summary "$TMP/many.fxt" | awk '/^  records dropped: / {
	sub(/.* buffer-full events;/, "")
	for (i = 1; i < NF; i += 2) if ($(i + 1) != "0") print $i, $(i + 1) }' \
	>"$TMP/many-traced"
listed=$(wc -l <"$TMP/many-listed")
if [ "$listed" -ge 110 ] && cmp -s "$TMP/many-listed" "$TMP/many-traced"; then
	ok "127 CPUs overflow: the summary lists every CPU's count, as the trace has them ($listed CPUs)"
else
	{ echo "summary: $(tr '\n' ';' <"$TMP/many-listed")"
	  echo "trace: $(tr '\n' ';' <"$TMP/many-traced")"; } >"$TMP/why"
	fail "127 CPUs overflow: the summary lists every CPU's count, as the trace has them" "$TMP/why"
fi

# The module marks a loss with the next record that fits: CPU 0 preempts
# VICTIM_TID (its last record), then drops 7 records until STOP, no
# marker; CPU 1 switches VICTIM_TID in. fxt-collect marks the 7 itself,
# as the module would: a records_lost pair on CPU 0, on the module's
# track (ours), from CPU 0's last record to its last drop, after CPU 0's
# data. So fxt-sched does not count that preemption's latency as exact.
FAKE_FXTRACE_RATE=0 FAKE_FXTRACE_TAIL_DROPS=7 collect -o "$TMP/tail.fxt" -d 0.3
expect "drops after a ring's last record: exit 3, marked by fxt-collect, says the summary" 3 \
	"^fxt-collect: 7 of them were dropped after their CPU's last record, where the module writes no loss marker: fxt-collect marked them at the end (1 hole on counter records_lost:cpu:<n>" \
	"$TMP/tail.fxt"
"$DUMP" "$TMP/tail.fxt" >"$TMP/dump"
awk '
function ts(line) { match(line, /ts=[0-9]+/); return substr(line, RSTART + 3, RLENGTH - 3) }
function thread(line) { match(line, /thread=[0-9]+\/[0-9]+/); return substr(line, RSTART, RLENGTH) }
$2 == "context_switch" && $4 == "cpu=0" { last0 = ts($0); at0 = NR }
$2 == "context_switch" && $4 == "cpu=1" && / in=3800000000 / { in1 = ts($0) }
/name="records_dropped"/ { ours = thread($0) }
/ name="records_lost" / {
	n++; line[n] = NR; t[n] = ts($0); who[n] = thread($0)
	v[n] = $0; sub(/.*cpu:int64=/, "", v[n]); id[n] = $0
	sub(/.* counter_id=/, "", id[n]); sub(/ .*/, "", id[n])
}
END {
	print "pairs=" n / 2, "from=" (t[1] == last0), "values=" v[1] "," v[2],
	      "cpu=" id[1] "," id[2], "to_before_cpu1=" (t[2] + 0 >= t[1] + 0 && t[2] + 0 < in1 + 0),
	      "after_cpu0_data=" (line[1] > at0), "track=" (who[1] == ours && who[2] == ours)
}' "$TMP/dump" >"$TMP/pair"
if [ "$(cat "$TMP/pair")" = "pairs=1 from=1 values=7,0 cpu=0,0 to_before_cpu1=1 after_cpu0_data=1 track=1" ]; then
	ok "drops after a ring's last record: one records_lost pair, 7 then 0, on CPU 0, from its last record to its last drop, after its data, on our track"
else
	{ cat "$TMP/pair"; grep -n 'records_lost\|context_switch' "$TMP/dump"; } >"$TMP/why"
	fail "drops after a ring's last record: one records_lost pair, 7 then 0, on CPU 0, from its last record to its last drop, after its data, on our track" "$TMP/why"
fi
# records_dropped rose once (0 to 7, then no record at all): one
# "buffer filled up" marker, one per-CPU sample of 7, however many drain
# cycles saw the count stay at 7, at the ring's last drop (last_drop_ns,
# where the records_lost pair ends), not when a drain saw it. Before,
# mutants that did not note the count (a marker at every cycle) or took
# the drain's time passed every test.
marker_ts=$(sed -n 's/.* ts=\([0-9]*\) .*name="records_dropped" counter_id=0 cpu0:int64=7$/\1/p' "$TMP/dump")
lost_end=$(sed -n 's/.* ts=\([0-9]*\) .*name="records_lost" counter_id=0 cpu:int64=0$/\1/p' "$TMP/dump")
if [ "$(grep -c 'provider_event id=1 event=0 (buffer filled up' "$TMP/dump")" -eq 1 ] &&
   [ "$(echo "$marker_ts" | wc -w)" -eq 1 ] && [ "$marker_ts" = "$lost_end" ]; then
	ok "drops after a ring's last record: one records-dropped marker for the one rise, at the last drop ($marker_ts), not one per drain cycle"
else
	grep -n 'records_dropped\|buffer filled\|records_lost' "$TMP/dump" >"$TMP/why"
	fail "drops after a ring's last record: wanted one records-dropped marker (provider_event and cpu0:int64=7) for the one rise, at the last drop (records_lost's end: ${lost_end:-none}), got '$marker_ts'" "$TMP/why"
fi
# make check builds fxt-sched and names it; run by hand, the tree's own.
if [ -n "${FXT_SCHED:-}" ] && [ ! -x "$FXT_SCHED" ]; then
	echo "FXT_SCHED=$FXT_SCHED is not an executable" >"$TMP/why"
	fail "fxt-sched does not count a latency across that hole" "$TMP/why"
elif [ -z "${FXT_SCHED:-}" ] && [ ! -x "$(dirname "$0")/../../tools/fxt-sched" ]; then
	ok "fxt-sched does not count a latency across that hole # SKIP no FXT_SCHED and no tools/fxt-sched (make -C collector check builds one)"
elif FXT_SCHED=${FXT_SCHED:-$(dirname "$0")/../../tools/fxt-sched} && "$FXT_SCHED" summary "$TMP/tail.fxt" >"$TMP/sched" 2>&1 &&
     grep -q "^records lost (records_lost markers): 7 in 1 hole cpu0=7$" "$TMP/sched" &&
     grep -q "^not counted (all threads): 0 intervals .*, 1 across holes" "$TMP/sched" &&
     "$FXT_SCHED" latency --intervals "$TMP/tail.fxt" >"$TMP/intervals" 2>&1 &&
     ! grep -q "^preempt," "$TMP/intervals"; then
	ok "fxt-sched does not count a latency across that hole: 1 interval not counted, none listed"
else
	fail "fxt-sched does not count a latency across that hole" "$TMP/sched" "$TMP/intervals"
fi

collect -q -o "$TMP/q.fxt" -d 0.2
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] && [ ! -s "$TMP/out" ]; then
	ok "-q prints nothing when all is well"
else
	fail "-q prints nothing when all is well (exit $rc)" "$TMP/err"
fi

# COMMAND's status, when not 0, is fxt-collect's, and stderr says so
# (else an exit of 1 reads as a failed trace); not under -q, nor for 0.
collect -o "$TMP/c.fxt" -- sh -c 'exit 7'
expect "COMMAND's exit status is passed through, and said to be COMMAND's" 7 \
	"^fxt-collect: sh (pid [0-9]*) exited with status 7: fxt-collect's exit status is sh's, not the trace's" "$TMP/c.fxt"
collect -q -o "$TMP/c.fxt" -- sh -c 'exit 7'
if [ "$rc" -eq 7 ] && [ ! -s "$TMP/err" ]; then
	ok "-q: COMMAND's exit status 7 passed through, nothing said"
else
	fail "-q: COMMAND's exit status 7 passed through, nothing said (exit $rc)" "$TMP/err"
fi
collect -o "$TMP/c.fxt" -- true
expect "COMMAND exits 0: exit 0" 0 "" "$TMP/c.fxt"
if grep -q "exited with status\|killed by signal" "$TMP/err"; then
	fail "COMMAND exits 0: nothing said about its status" "$TMP/err"
else
	ok "COMMAND exits 0: nothing said about its status"
fi
collect -o "$TMP/c.fxt" -- sh -c 'kill -9 $$'
expect "COMMAND killed by SIGKILL: exit 137, said to be COMMAND's" 137 \
	"^fxt-collect: sh (pid [0-9]*) was killed by signal 9 (Killed): fxt-collect's exit status is 137, sh's" "$TMP/c.fxt"
# COMMAND is looked up before anything is traced or written: a COMMAND
# that cannot run leaves FILE as it was (the commonest case: FILE given
# where COMMAND goes, with an earlier trace in the default sched.fxt).
printf 'an earlier trace\n' >"$TMP/kept.fxt"
collect -o "$TMP/kept.fxt" -- /nonexistent/command
expect "COMMAND not found: exit 127 with a reason" 127 "running /nonexistent/command failed"
if [ "$(cat "$TMP/kept.fxt")" = "an earlier trace" ] &&
	grep -q "nothing was traced, and nothing written to $TMP/kept.fxt" "$TMP/err"; then
	ok "COMMAND not found: FILE left as it was, and it says so"
else
	fail "COMMAND not found: FILE left as it was, and it says so" "$TMP/err"
fi
mkdir "$TMP/cwd" && printf 'an earlier trace\n' >"$TMP/cwd/sched.fxt" && chmod 644 "$TMP/cwd/sched.fxt"
# PATH fixed: an empty entry (the current directory) in the caller's PATH
# would find sched.fxt there, and execvp() would then say EACCES.
(cd "$TMP/cwd" && PATH=/usr/bin:/bin && collect -d 1 sched.fxt && exit "$rc")
rc=$?
expect "FILE where COMMAND goes (fxt-collect sched.fxt): exit 127 (not in PATH), the -o hint" 127 "to write the trace to sched.fxt, use -o sched.fxt"
if [ "$(cat "$TMP/cwd/sched.fxt")" = "an earlier trace" ] && [ "$(ls "$TMP/cwd")" = sched.fxt ]; then
	ok "FILE where COMMAND goes: the earlier sched.fxt left as it was"
else
	fail "FILE where COMMAND goes: the earlier sched.fxt left as it was" "$TMP/err"
fi
(cd "$TMP/cwd" && PATH=/usr/bin:/bin && collect -d 1 new.fxt && exit "$rc")
rc=$?
expect "a .fxt name where COMMAND goes, no such file: exit 127, the -o hint" 127 "to write the trace to new.fxt, use -o new.fxt"
# A trace under another name is told by its magic number; with -o given,
# no hint to write over the file named; a program in the current
# directory is to be run as ./NAME (not written over with -o).
cp "$TMP/c.fxt" "$TMP/cwd/trace.bin"
(cd "$TMP/cwd" && PATH=/usr/bin:/bin && collect -d 1 trace.bin && exit "$rc")
rc=$?
expect "a trace (by its magic) where COMMAND goes: the -o hint" 127 "to write the trace to trace.bin, use -o trace.bin"
printf '#!/bin/sh\nexit 4\n' >"$TMP/cwd/build.sh" && chmod 755 "$TMP/cwd/build.sh"
(cd "$TMP/cwd" && PATH=/usr/bin:/bin && collect -o t.fxt -d 1 sched.fxt && exit "$rc")
rc=$?
if [ "$rc" -eq 127 ] && ! grep -q "use -o" "$TMP/err" && [ ! -e "$TMP/cwd/t.fxt" ]; then
	ok "FILE where COMMAND goes, with -o given: exit 127, no hint to write over it"
else
	fail "FILE where COMMAND goes, with -o given: exit 127, no hint to write over it (exit $rc)" "$TMP/err"
fi
(cd "$TMP/cwd" && PATH=/usr/bin:/bin && collect -d 1 build.sh && exit "$rc")
rc=$?
if [ "$rc" -eq 127 ] && grep -q "to run build.sh from the current directory, give it as ./build.sh" "$TMP/err" &&
	! grep -q "use -o" "$TMP/err" && [ "$(cat "$TMP/cwd/sched.fxt")" = "an earlier trace" ]; then
	ok "a program in the current directory, not in PATH: exit 127, says ./build.sh, no -o hint"
else
	fail "a program in the current directory, not in PATH: exit 127, says ./build.sh, no -o hint (exit $rc)" "$TMP/err"
fi
mkdir "$TMP/cwd/adir"
(cd "$TMP/cwd" && PATH=/usr/bin:/bin && collect -d 1 adir && exit "$rc")
rc=$?
if [ "$rc" -eq 127 ] && ! grep -q "give it as ./adir" "$TMP/err"; then
	ok "a directory in the current directory named as COMMAND: exit 127, no ./NAME hint"
else
	fail "a directory in the current directory named as COMMAND: exit 127, no ./NAME hint (exit $rc)" "$TMP/err"
fi
printf '#!/nonexistent/interpreter\nexit 0\n' >"$TMP/noshell" && chmod 755 "$TMP/noshell"
collect -o "$TMP/kept.fxt" -- "$TMP/noshell"
expect "COMMAND a script whose #! interpreter is missing: exit 127, names it, FILE left as it was" 127 \
	"running $TMP/noshell failed: its interpreter /nonexistent/interpreter (on its #! line): No such file or directory"
[ "$(cat "$TMP/kept.fxt")" = "an earlier trace" ] || fail "COMMAND's interpreter missing: FILE left as it was" "$TMP/err"
printf '#!/bin/sh\nexit 4\n' >"$TMP/noexec.sh" && chmod 644 "$TMP/noexec.sh"
collect -o "$TMP/kept.fxt" -- "$TMP/noexec.sh"
expect "COMMAND not executable: exit 126, FILE left as it was" 126 "check that the command is executable; nothing was traced"
[ "$(cat "$TMP/kept.fxt")" = "an earlier trace" ] || fail "COMMAND not executable: FILE left as it was" "$TMP/err"
collect -o "$TMP/c.fxt" -d 0.2 -- sh -c 'sleep 0.6; exit 5'
expect "-d stops tracing but fxt-collect waits for COMMAND" 5 "waiting for sh" "$TMP/c.fxt"

# COMMAND starts with the signal mask and the ignored signals it would
# have had run directly: fxt-collect's own handling (SIGPIPE and SIGXFSZ
# ignored, SIGCHLD blocked, handlers for the rest) is not passed on, and
# what its launcher ignored stays ignored (a shell's background job has
# SIGINT ignored; env --ignore-signal here). Before, COMMAND got SIGINT,
# SIGTERM and SIGPIPE back at their defaults.
# sig_state LAUNCHER...: "SigBlk SigIgn" of sed run directly by LAUNCHER,
# then of sed as fxt-collect's COMMAND under LAUNCHER, on two lines: the
# bits of signals 1-31 only (libc keeps 32 and up for itself, and starting
# its threads, in the fake device, changes how they are handled).
sig_state() {
	sig_of='s/^Sig\(Blk\|Ign\):[[:space:]]*//p'
	"$@" sed -n "$sig_of" /proc/self/status >"$TMP/sig-direct"
	"$@" env LD_PRELOAD="$FAKE" FAKE_FXTRACE_PATH="$DEV" "$COLLECT" -q -D "$DEV" \
		-o "$TMP/sig.fxt" -- sed -n "$sig_of" /proc/self/status >"$TMP/sig-command" 2>"$TMP/err"
	for f in "$TMP/sig-direct" "$TMP/sig-command"; do
		while read -r hex; do
			printf '%08x ' $((0x$hex & 0x7fffffff))
		done <"$f"
		echo
	done
}
sig_state >"$TMP/sig"
if [ "$(sed -n 1p "$TMP/sig")" = "$(sed -n 2p "$TMP/sig")" ] && grep -q '^[0-9a-f]* [0-9a-f]* $' "$TMP/sig"; then
	ok "COMMAND's signal mask and ignored signals are those it has run directly ($(sed -n 2p "$TMP/sig"))"
else
	fail "COMMAND's signal mask and ignored signals are those it has run directly (direct, then as COMMAND)" "$TMP/sig" "$TMP/err"
fi
if ! env --ignore-signal=INT true 2>/dev/null; then
	ok "COMMAND keeps the signals its launcher ignored # SKIP env has no --ignore-signal"
else
	sig_state env --ignore-signal=INT,TERM,PIPE >"$TMP/sig"
	# SIGINT, SIGPIPE and SIGTERM are bits 1, 12 and 14 of SigIgn.
	ign=$(sed -n '2s/^[0-9a-f]* \([0-9a-f]*\) $/\1/p' "$TMP/sig")
	if [ "$(sed -n 1p "$TMP/sig")" = "$(sed -n 2p "$TMP/sig")" ] && [ -n "$ign" ] &&
	   [ $((0x$ign & 0x5002)) -eq $((0x5002)) ]; then
		ok "COMMAND keeps SIGINT, SIGTERM and SIGPIPE ignored when its launcher ignored them (SigIgn $ign)"
	else
		fail "COMMAND keeps SIGINT, SIGTERM and SIGPIPE ignored when its launcher ignored them (direct, then as COMMAND)" \
			"$TMP/sig" "$TMP/err"
	fi
fi

# sh has no pipefail: fxt-collect's status goes through a file.
{
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -q -D "$DEV" -o - -- \
		sh -c 'echo from-the-command; sleep 0.2' 2>"$TMP/err"
	echo $? >"$TMP/collect.rc"
} | "$DUMP" --check - >"$TMP/check" 2>&1
rc_dump=$?
rc=$(cat "$TMP/collect.rc")
if [ "$rc" = 0 ] && [ "$rc_dump" -eq 0 ] && grep -q from-the-command "$TMP/err"; then
	ok "-o - writes a valid trace to stdout; COMMAND's stdout goes to stderr"
else
	fail "-o - writes a valid trace to stdout; COMMAND's stdout goes to stderr (fxt-collect exit ${rc:-?}, fxt-dump --check exit $rc_dump)" "$TMP/check" "$TMP/err"
fi

# -o - >> FILE: stdout is O_APPEND with its position at 0 until the first
# write; the trace goes after FILE's million bytes, and neither fxt-collect
# nor its guard may cut into them at exit. The summary counts only the
# trace's bytes.
head -c 1000000 /dev/urandom >"$TMP/old"
cp "$TMP/old" "$TMP/big"
rm -f "$TMP/check"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -d 0.3 -o - \
	>>"$TMP/big" 2>"$TMP/err"
rc=$?
sleep 0.2	# a guard that wrongly cut the file does so just after exit
size=$(wc -c <"$TMP/big")
tail -c +1000001 "$TMP/big" >"$TMP/appended"
written=$(awk -v n=$((size - 1000000)) 'BEGIN {
	if (n >= 1048576) printf "%.1f MiB", n / 1048576
	else if (n >= 1024) printf "%.1f KiB", n / 1024
	else printf "%d bytes", n }')
if [ "$rc" -eq 0 ] && [ "$size" -gt 1000000 ] && cmp -s -n 1000000 "$TMP/old" "$TMP/big" &&
   "$DUMP" --check "$TMP/appended" >"$TMP/check" 2>&1 &&
   grep -q "$written written to stdout" "$TMP/err"; then
	ok "-o - >> FILE: FILE's 1000000 bytes intact, a whole trace of $written after them"
else
	fail "-o - >> FILE: exit $rc, $size bytes, FILE's bytes $(cmp -s -n 1000000 "$TMP/old" "$TMP/big" && echo intact || echo changed), wanted '$written written to stdout'" \
		"$TMP/err" "$TMP/check"
fi

# -o - 1<>FILE: stdout is FILE, read-write, not truncated by the shell. A
# FILE longer than the trace must not keep its old tail after it (a reader
# would see garbage after the last record), and no guard has to cut it
# (its "ended in the middle of a write" would be false). Once from FILE's
# start, once after 1000 bytes written through the same descriptor first.
for skip in 0 1000; do
	head -c 3000000 /dev/zero | tr '\0' x >"$TMP/rw"
	(
		[ "$skip" -eq 0 ] || head -c "$skip" /dev/zero | tr '\0' y
		LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV exec "$COLLECT" -D "$DEV" \
			-d 0.3 -o -
	) 1<>"$TMP/rw" 2>"$TMP/err"
	rc=$?
	sleep 0.2	# the guard's message, if any, comes just after exit
	size=$(wc -c <"$TMP/rw")
	tail -c +$((skip + 1)) "$TMP/rw" >"$TMP/rw.trace"
	written=$(awk -v n=$((size - skip)) 'BEGIN {
		if (n >= 1048576) printf "%.1f MiB", n / 1048576
		else if (n >= 1024) printf "%.1f KiB", n / 1024
		else printf "%d bytes", n }')
	if [ "$rc" -eq 0 ] && [ "$size" -lt 3000000 ] &&
	   "$DUMP" --check "$TMP/rw.trace" >"$TMP/check" 2>&1 &&
	   { [ "$skip" -eq 0 ] || [ "$(head -c "$skip" "$TMP/rw" | tr -d y | wc -c)" -eq 0 ]; } &&
	   grep -q "$written written to stdout" "$TMP/err" &&
	   ! grep -q "fxt-collect-guard" "$TMP/err"; then
		ok "-o - 1<>FILE (a 3 MB FILE, trace at $skip): FILE ends where the trace does ($written), no stale tail, no guard message"
	else
		fail "-o - 1<>FILE (a 3 MB FILE, trace at $skip): exit $rc, $size bytes, wanted a whole trace of $written and no guard message" \
			"$TMP/err" "$TMP/check"
	fi
done

# The signal handlers are installed before the output file is created, so
# once it has bytes in it a signal cannot take the default action (a fixed
# sleep lost that race on a loaded machine).

for sig in INT TERM; do
	rm -f "$TMP/s.fxt"
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o "$TMP/s.fxt" \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait_until 5 test -s "$TMP/s.fxt"
	sleep 0.2
	kill -$sig $pid
	wait $pid
	rc=$?
	expect "SIG$sig ends the trace cleanly" 0 "traced 3 rings (one per possible CPU)" "$TMP/s.fxt"
done

# SIGTERM sent to fxt-collect alone reaches COMMAND, whose status comes back.
rm -f "$TMP/s.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -q -D "$DEV" -o "$TMP/s.fxt" -- \
	sleep 30 >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_until 5 test -s "$TMP/s.fxt"
sleep 0.4
kill -TERM $pid
wait $pid
rc=$?
expect "SIGTERM is passed on to COMMAND (exit 128+15)" 143 "" "$TMP/s.fxt"

collect -o /dev/full -d 0.2
expect "a full disk: exit 1, the step and what to do" 1 "the disk is full"

(ulimit -f 100 && LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_RATE=20 \
	"$COLLECT" -D "$DEV" -o "$TMP/lim.fxt" -d 2 >"$TMP/out" 2>"$TMP/err")
rc=$?
expect "a file size limit mid-trace: cut back to the last whole record" 1 \
	"cut back to its last whole record" "$TMP/lim.fxt"
# ... and only the record the limit cut is gone: the whole records of the
# drain whose write failed stay (read back from the file). The limit,
# 100 blocks of 512 bytes, is in the middle of a drain's 30 KB or so:
# before, the cut went back to the end of the drain before it.
size=$(wc -c <"$TMP/lim.fxt")
if [ "$rc" -eq 1 ] && [ "$size" -le 51200 ] && [ "$size" -gt $((51200 - 64)) ] &&
   grep -q "cut back to its last whole record ($size bytes)" "$TMP/err"; then
	ok "a file size limit mid-drain: the cut keeps that drain's whole records ($size of 51200 bytes)"
else
	{ echo "exit $rc, $size bytes"; cat "$TMP/err"; } >"$TMP/why"
	fail "a file size limit mid-drain: the cut keeps that drain's whole records" "$TMP/why"
fi

# counted_as_written DUMP_ERRORS: the summary's context switches and wakeups
# ("<switches> <wakeups>") against the whole ones in the trace read from
# stdin, and ok (with both) or not.
counted_as_written() {
	"$DUMP" - 2>"$1" | awk '$2 == "context_switch" { s++ } $2 == "wakeup" { w++ }
		END { print s + 0, w + 0 }' >"$TMP/in-file"
	sed -n 's/.*: [0-9]* records (\([0-9]*\) context switches, \([0-9]*\) wakeups.*/\1 \2/p' \
		"$TMP/err" >"$TMP/in-summary"
	[ -s "$TMP/in-summary" ] && [ "$(cat "$TMP/in-summary")" = "$(cat "$TMP/in-file")" ]
}
# After a write error, the summary counts the records in the output: all
# of a file cut back to its last whole record, and on a pipe, which keeps
# what it took, the whole records of the drain that failed midway too.
(ulimit -f 100 && LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV \
	"$COLLECT" -D "$DEV" -o "$TMP/lim.fxt" -d 5 >"$TMP/out" 2>"$TMP/err")
rc=$?
if [ "$rc" -eq 1 ] && grep -q "cut back to its last whole record" "$TMP/err" &&
   counted_as_written "$TMP/dump-err" <"$TMP/lim.fxt" &&
   [ "$(cut -d' ' -f1 "$TMP/in-file")" -gt 0 ]; then
	ok "a file cut back after a write error: the summary counts its records ($(cat "$TMP/in-file"))"
else
	{ echo "exit $rc; summary: $(cat "$TMP/in-summary"), file: $(cat "$TMP/in-file")"; cat "$TMP/err"; } >"$TMP/why"
	fail "a file cut back after a write error: the summary counts its records" "$TMP/why"
fi
{
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_PIPE_FAIL=3 \
		"$COLLECT" -D "$DEV" -o - -d 2 2>"$TMP/err"
	echo $? >"$TMP/rc"
} | cat >"$TMP/pipe.fxt"
rc=$(cat "$TMP/rc")
if [ "$rc" -eq 1 ] && grep -q "writing ring data to stdout failed: Broken pipe" "$TMP/err" &&
   counted_as_written "$TMP/dump-err" <"$TMP/pipe.fxt" &&
   [ "$(cut -d' ' -f1 "$TMP/in-file")" -gt 0 ] && grep -q "truncated" "$TMP/dump-err"; then
	ok "a pipe whose reader went away in a ring data write: exit 1, the summary counts the whole records it got ($(cat "$TMP/in-file"))"
else
	{ echo "exit $rc; summary: $(cat "$TMP/in-summary"), pipe: $(cat "$TMP/in-file")"; cat "$TMP/err" "$TMP/dump-err"; } >"$TMP/why"
	fail "a pipe whose reader went away in a ring data write: exit 1, the summary counts the whole records it got" "$TMP/why"
fi

# full_at_last_marker [VAR=VALUE...]: fxt-collect -o $TMP/full.fxt, the
# disk filling up at the last drain's records-lost marker (below), more
# fake knobs in the environment; SIGINT while START attaches; rc = its exit.
full_at_last_marker() {
	rm -f "$TMP/full.fxt" "$TMP/starting"
	env LD_PRELOAD="$FAKE" FAKE_FXTRACE_PATH="$DEV" FAKE_FXTRACE_RATE=0 \
		FAKE_FXTRACE_TAIL_DROPS=5 FAKE_FXTRACE_START_DELAY_MS=300 \
		FAKE_FXTRACE_START_NOTE="$TMP/starting" FAKE_FXTRACE_FULL_AFTER_STOP=2 \
		"$@" timeout -k 5 20 \
		"$COLLECT" -D "$DEV" -o "$TMP/full.fxt" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait_until 10 test -e "$TMP/starting"
	kill -INT "$pid"
	wait "$pid"
	rc=$?
}

# The disk fills up during the last drain, at the records-lost marker
# fxt-collect writes after CPU 0's records (SIGINT while START attaches,
# so every record waits for that drain). The cut takes the marker, not
# CPU 0's whole records, which the summary counts: before, it cut back to
# before them and the file had none of the 2 context switches it claimed.
# The failed write took half of the marker's pair, its first record: the
# cut takes the pair whole (a hole's start alone is a hole that never
# ends, and the loss the summary did not count).
full_at_last_marker
if [ "$rc" -eq 1 ] &&
   grep -q "writing a records-lost marker to .*full.fxt failed: No space left on device" "$TMP/err" &&
   grep -q "full.fxt was cut back to its last whole record" "$TMP/err" &&
   counted_as_written "$TMP/dump-err" <"$TMP/full.fxt" &&
   [ "$(cat "$TMP/in-file")" = "2 0" ] &&
   ! "$DUMP" "$TMP/full.fxt" | grep -q 'counter .*name="records_lost"'; then
	ok "a full disk at the last drain's records-lost marker: the marker is cut, CPU 0's 2 switches the summary counts stay"
else
	{ echo "exit $rc; summary: $(cat "$TMP/in-summary"), file: $(cat "$TMP/in-file")"; cat "$TMP/err"; } >"$TMP/why"
	fail "a full disk at the last drain's records-lost marker: the marker is cut, CPU 0's 2 switches the summary counts stay" "$TMP/why"
fi

# The same full disk, and the cut back fails too (ftruncate: EIO, in
# fxt-collect and its guard): fxt-collect says so itself and exits 1.
# Its guard, which acts only when fxt-collect dies, must stay silent: it
# used to try the failed cut again and blame fxt-collect's death for it.
full_at_last_marker FAKE_FXTRACE_FTRUNCATE_ERRNO=5
if [ "$rc" -eq 1 ] &&
   grep -q "writing a records-lost marker to .*full.fxt failed: No space left on device" "$TMP/err" &&
   grep -q "cutting .*full.fxt back to its last whole record failed: Input/output error" "$TMP/err" &&
   ! grep -q "fxt-collect-guard" "$TMP/err"; then
	ok "a full disk, then a failed cut back: fxt-collect says so, exit 1, its guard says nothing"
else
	fail "a full disk, then a failed cut back: exit $rc, wanted 1, fxt-collect's own message, no guard message" "$TMP/err"
fi

# The old file cannot be emptied for the new trace (ftruncate: EIO): exit
# 1, the file as it was, and no guard message (it used to say fxt-collect
# ended in the middle of the preamble, and to advise truncate -s 0).
printf 'an old file\n' >"$TMP/old.txt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_FTRUNCATE_ERRNO=5 \
	"$COLLECT" -D "$DEV" -o "$TMP/old.txt" -d 0.2 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(cat "$TMP/old.txt")" = "an old file" ] &&
   grep -q "emptying .*old.txt for the new trace failed: Input/output error" "$TMP/err" &&
   ! grep -q "fxt-collect-guard" "$TMP/err"; then
	ok "an old file that cannot be emptied: exit 1, the file as it was, no guard message"
else
	fail "an old file that cannot be emptied: exit $rc, wanted 1, the file as it was, no guard message" "$TMP/err"
fi

# A file size limit the trace's first records do not fit in: nothing whole
# was written, and the message must not call the file a valid trace.
# A new file: a limit of 0, so not a byte fits (stderr goes through a pipe,
# which the limit does not cover).
rm -f "$TMP/tiny.fxt"
res=$( (ulimit -f 0 && LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV \
	"$COLLECT" -D "$DEV" -o "$TMP/tiny.fxt" -d 0.2 2>&1 >/dev/null; echo "exit $?") )
echo "$res" >"$TMP/err"
rc=$(sed -n 's/^exit //p' "$TMP/err")
if [ "$rc" -eq 1 ] && [ -f "$TMP/tiny.fxt" ] && [ ! -s "$TMP/tiny.fxt" ] &&
   grep -q "no trace was written: .*tiny.fxt was cut back to 0 bytes and is empty" "$TMP/err" &&
   ! grep -q "valid trace" "$TMP/err"; then
	ok "a size limit the preamble does not fit in: exit 1, 'no trace was written', an empty file"
else
	fail "a size limit the preamble does not fit in: exit $rc, $(wc -c <"$TMP/tiny.fxt") bytes" "$TMP/err"
fi
# Files that stat(2) calls regular but that hold no data written to them:
# the preamble's write fails and ftruncate() "succeeds" without changing
# anything. Nothing of the trace got in and nothing was cut: the message
# says the file was left as it was, not "cut back to 0 bytes and is
# empty" (false: /proc/version still reads as it did). clear_refs takes
# only a number (EINVAL), from its owner; /proc/version opens for writing
# only to root, and reads back what it held.
nostore() { # NAME FILE EXTRA: exit 1, the failed write, "left as it was" + EXTRA
	collect -o "$2" -d 0.2
	if [ "$rc" -eq 1 ] && grep -q "writing the trace preamble to $2 failed" "$TMP/err" &&
	   grep -qxF "fxt-collect: no trace was written: none of it got into $2, which was left as it was$3" "$TMP/err" &&
	   ! grep -q -e "cut back to" -e "is empty" -e "valid trace" "$TMP/err"; then
		ok "$1"
	else
		fail "$1 (exit $rc, wanted 1 and 'none of it got into $2, which was left as it was$3')" "$TMP/err"
	fi
}
if [ -w /proc/self/clear_refs ]; then
	nostore "-o /proc/self/clear_refs (takes no trace): exit 1, said left as it was, not 'cut back'" \
		/proc/self/clear_refs ""
else
	ok "-o /proc/self/clear_refs # SKIP no writable /proc/self/clear_refs"
fi
if [ "$(id -u)" = 0 ]; then
	nostore "-o /proc/version as root: exit 1, said left as it was and why, not 'cut back to 0 bytes'" \
		/proc/version " (it reads back what it held: not a file a trace can be written to; write elsewhere with -o)"
else
	ok "-o /proc/version as root # SKIP not root"
fi

# Appended to a file 100 bytes short of a one-block limit (512 or 1024
# bytes, as this shell counts blocks: measured): 100 bytes of the 264-byte
# fixed preamble are written, then cut off again; the file's own bytes stay.
limit=$( (trap '' XFSZ; ulimit -f 1 && head -c 4096 /dev/zero >"$TMP/probe") 2>/dev/null
	wc -c <"$TMP/probe")
head -c $((limit - 100)) /dev/urandom >"$TMP/old"
cp "$TMP/old" "$TMP/tiny.fxt"
# stderr through a pipe here too: in a file the limit would cut it.
res=$( (ulimit -f 1 && LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV \
	"$COLLECT" -D "$DEV" -o - -d 0.2 2>&1 >>"$TMP/tiny.fxt"; echo "exit $?") )
echo "$res" >"$TMP/err"
rc=$(sed -n 's/^exit //p' "$TMP/err")
if [ "$rc" -eq 1 ] && cmp -s "$TMP/old" "$TMP/tiny.fxt" &&
   grep -q "no trace was written: stdout was cut back to where the trace was to start ($((limit - 100)) bytes)" "$TMP/err" &&
   ! grep -q "valid trace" "$TMP/err"; then
	ok "a size limit hit inside the preamble on -o - >> FILE: exit 1, 'no trace was written', FILE as it was"
else
	fail "a size limit hit inside the preamble on -o - >> FILE: exit $rc, $(wc -c <"$TMP/tiny.fxt") bytes of $((limit - 100))" "$TMP/err"
fi

FAKE_FXTRACE_ABI=99 collect -o "$TMP/x.fxt"
expect "ABI mismatch: exit 1 naming both versions" 1 \
	"module speaks version 99, this fxt-collect speaks version [0-9]"
FAKE_FXTRACE_OPEN_ERRNO=16 collect -o "$TMP/x.fxt"
expect "EBUSY: another session is running, and fuser names its holder" 1 \
	"another tracing session is running .*'fuser -v $DEV' names"
FAKE_FXTRACE_OPEN_ERRNO=13 collect -o "$TMP/x.fxt"
expect "EACCES: needs root with CAP_PERFMON" 1 "CAP_PERFMON"
FAKE_FXTRACE_OPEN_ERRNO=1 collect -o "$TMP/x.fxt"
expect "EPERM: needs root with CAP_PERFMON" 1 "CAP_PERFMON"

# The default device missing (ENOENT, as without the module): the advice must
# fit an installed module and a source tree both.
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=/dev/fxtrace FAKE_FXTRACE_OPEN_ERRNO=2 \
	"$COLLECT" -o "$TMP/x.fxt" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect "no /dev/fxtrace: exit 1, says modprobe (installed) or insmod (source tree)" 1 \
	"the fxtrace module is not loaded: sudo modprobe fxtrace (installed with make install or make dkms) or sudo insmod kmod/fxtrace.ko (from the source tree)"
# -D names another path: the advice is about that path, not the module.
FAKE_FXTRACE_OPEN_ERRNO=19 collect -o "$TMP/x.fxt"
expect "ENODEV on -D PATH: says PATH is not the fxtrace device" 1 \
	"$DEV is not the fxtrace device (no driver behind it): check -D; the module's device is /dev/fxtrace"
if grep -q "insmod" "$TMP/err"; then
	fail "ENODEV on -D PATH: no advice to load the module" "$TMP/err"
else
	ok "ENODEV on -D PATH: no advice to load the module"
fi
collect -o /nonexistent-dir/x.fxt -d 0.1
expect "output not writable: exit 1 with what to do" 1 "choose a writable location"

FAKE_FXTRACE_CORRUPT=1 collect -o "$TMP/x.fxt" -d 0.3
expect "malformed ring data: skipped, exit 3, the trace stays valid" 3 \
	"invalid ring data skipped" "$TMP/x.fxt"
# The warning as it happens, for that ring and that kind of bad data only,
# once; none for the rings whose data was fine, nor in a clean run (the
# first of this file). Before, a mutant that warned for every good drain
# instead (status == OK) passed every test.
corrupt_said="fxt-collect: warning: CPU 0's ring held bytes that are not whole FXT records; skipped the bad bytes (a module bug? counted in the summary)"
if [ "$(grep -c "warning: CPU [0-9]*'s ring" "$TMP/err")" -eq 1 ] &&
   grep -qxF "$corrupt_said" "$TMP/err" &&
   ! grep -q "warning: CPU [0-9]*'s ring" "$TMP/clean.err"; then
	ok "malformed ring data: one warning, for CPU 0's ring, saying what was wrong; a clean run has none"
else
	fail "malformed ring data: wanted exactly '$corrupt_said', and no such warning in a clean run" "$TMP/err" "$TMP/clean.err"
fi

# An impossible producer position: how much ring data went with it is not
# known, and the summary must say that rather than "0 bytes".
FAKE_FXTRACE_BAD_PRODUCER=1 collect -o "$TMP/x.fxt" -d 0.5
expect "impossible producer position: skipped, exit 3, the trace stays valid" 3 \
	"invalid ring data skipped (module bug?), times per CPU: cpu0 [12]; [12] impossible producer positions\{0,1\}, each skipping what its ring held unread (an unknown amount, at most one ring: 4.0 MiB)$" \
	"$TMP/x.fxt"
if grep -q "skipped (0 bytes" "$TMP/err"; then
	fail "impossible producer position: the summary says nothing of 0 bytes" "$TMP/err"
else
	ok "impossible producer position: the summary says nothing of 0 bytes"
fi
# The same on a CPU that is not present: its ring, and so the bound, is
# 64 KiB (before: the session's 4.0 MiB).
FAKE_FXTRACE_SMALL_CPU=0 FAKE_FXTRACE_BAD_PRODUCER=1 collect -o "$TMP/x.fxt" -d 0.5
expect "impossible producer position in a small ring: at most that ring's 64 KiB said" 3 \
	"invalid ring data skipped (module bug?), times per CPU: cpu0 [12]; [12] impossible producer positions\{0,1\}, each skipping what its ring held unread (an unknown amount, at most one ring: 64.0 KiB)$" \
	"$TMP/x.fxt"
FAKE_FXTRACE_CORRUPT=1 collect -o "$TMP/x.fxt" -d 0.3
expect "malformed ring data: the summary counts its bytes" 3 \
	"invalid ring data skipped (module bug?), times per CPU: cpu0 1; [1-9][0-9]* bytes of malformed records$"

# skip_pairs DUMP: the bytes_skipped markers of CPU 0 (decision 7), one
# line per pair: "<bytes> <from> <to> <from is an earlier record's ts: 1/0>
# <ts of the first timestamped record after the pair> <CPU 0 context
# switches strictly inside (from, to)> <CPU 0 context switches after the
# pair in the file>", and "bad: ..." if they are not (N > 0, then 0)
# pairs. Timestamps stay strings (awk prints numbers with 6 digits).
#
# A pair ends at the first record CPU 0 wrote after the skip, just before
# it in the file; when CPU 0 wrote none before STOP, the pair ends when
# tracing did (fxt-collect's final drain). A loaded host (the 0.5 s
# traces below, ASan, a host stealing 60% of the time) sometimes gives
# the second case.
skip_pairs() {
	awk '
	function ts(line) { match(line, /ts=[0-9]+/); return substr(line, RSTART + 3, RLENGTH - 3) }
	/name="bytes_skipped" counter_id=0 / {
		v = $0; sub(/.*cpu:int64=/, "", v)
		if (!open) { open = 1; np++; bytes[np] = v; from[np] = ts($0)
			known[np] = (from[np] in seen)
			if (v + 0 <= 0) print "bad: first sample " v }
		else { open = 0; to[np] = ts($0); want_after = np; sw_before[np] = nsw
			if (v != "0") print "bad: second sample " v }
		next
	}
	/ ts=[0-9]/ { t = ts($0); seen[t] = 1
		if (want_after) { after[want_after] = t; want_after = 0 }
		if ($2 == "context_switch" && $4 == "cpu=0") sw[++nsw] = t }
	END {
		if (open) print "bad: an unpaired sample"
		for (i = 1; i <= np; i++) {
			inside = 0
			for (k = 1; k <= nsw; k++)
				if (sw[k] + 0 > from[i] + 0 && sw[k] + 0 < to[i] + 0) inside++
			print bytes[i], from[i], to[i], known[i], after[i], inside,
			      nsw - sw_before[i]
		}
	}' "$1"
}
"$DUMP" "$TMP/x.fxt" >"$TMP/dump"
skip_pairs "$TMP/dump" >"$TMP/pairs"
want=$(sed -n 's/.*; \([0-9]*\) bytes of malformed records$/\1/p' "$TMP/err")
if [ "$(wc -l <"$TMP/pairs")" -eq 1 ] &&
   awk -v want="$want" '$1 == want && $4 == 1 && $2 + 0 <= $3 + 0 && $6 == 0 &&
	($3 == $5 || $7 == 0) { ok = 1 } END { exit !ok }' "$TMP/pairs"; then
	ok "malformed ring data: one bytes_skipped pair of the summary's bytes, from a record's time to the next record's (or to the end of tracing), no CPU 0 switch inside"
else
	{ echo "summary: $want bytes"; cat "$TMP/pairs"; grep -n 'bytes_skipped' "$TMP/dump"; } >"$TMP/why"
	fail "malformed ring data: one bytes_skipped pair of the summary's bytes, from a record's time to the next record's (or to the end of tracing), no CPU 0 switch inside" "$TMP/why"
fi

# summary_reports_skips NAME: fxt-dump --summary of $TMP/x.fxt reports
# the bytes_skipped pairs skip_pairs found ($TMP/pairs), on CPU 0 only:
# their bytes and their number.
summary_reports_skips() {
	"$DUMP" --summary "$TMP/x.fxt" >"$TMP/summary"
	summary_holes "$TMP/summary" "$SKIP_LINE" >"$TMP/summed"
	want=$(awk '{ b += $1; n++ } END { if (n) print 0, b, n }' "$TMP/pairs")
	if [ -n "$want" ] && ! grep -q '^bad' "$TMP/pairs" && [ "$(cat "$TMP/summed")" = "$want" ]; then
		ok "$1: fxt-dump --summary reports the bytes_skipped markers' bytes and holes ($want)"
	else
		{ echo "pairs: ${want:-none}"; echo "summary:"; cat "$TMP/summed"; } >"$TMP/why"
		fail "$1: fxt-dump --summary reports the bytes_skipped markers' bytes and holes" "$TMP/why" "$TMP/summary"
	fi
}
summary_reports_skips "malformed ring data"

# Impossible producer positions: the hole is marked too, with the most
# the ring can have held (4 MiB) for each; what it held is unknown.
FAKE_FXTRACE_BAD_PRODUCER=1 collect -o "$TMP/x.fxt" -d 0.5
"$DUMP" "$TMP/x.fxt" >"$TMP/dump"
skip_pairs "$TMP/dump" >"$TMP/pairs"
times=$(sed -n 's/.*times per CPU: cpu0 \([0-9]*\);.*/\1/p' "$TMP/err")
if [ "$rc" -eq 3 ] && [ -n "$times" ] && ! grep -q '^bad' "$TMP/pairs" &&
   [ -s "$TMP/pairs" ] &&
   awk -v want=$((times * 4194304)) '{ sum += $1; if ($2 + 0 > $3 + 0 || $6 || ($3 != $5 && $7)) bad = 1 }
	END { exit bad || sum != want }' "$TMP/pairs"; then
	ok "impossible producer position: bytes_skipped pairs, the ring's size for each, up to the next record (or the end of tracing), no CPU 0 switch inside"
else
	{ echo "exit $rc, $times times"; cat "$TMP/pairs"; grep -n 'bytes_skipped' "$TMP/dump"; } >"$TMP/why"
	fail "impossible producer position: bytes_skipped pairs, the ring's size for each, up to the next record (or the end of tracing), no CPU 0 switch inside" "$TMP/why"
fi
summary_reports_skips "impossible producer position"

# A lossless trace has none (the string is defined, no counter uses it).
collect -o "$TMP/x.fxt" -d 0.2
if [ "$rc" -eq 0 ] && ! "$DUMP" "$TMP/x.fxt" | grep -q 'event counter.*name="bytes_skipped"'; then
	ok "no invalid ring data: no bytes_skipped marker"
else
	fail "no invalid ring data: no bytes_skipped marker (exit $rc)" "$TMP/err"
fi

FAKE_FXTRACE_START=0xffffffffffffc000 collect -o "$TMP/w.fxt" -b 64K -d 0.5
expect "ring positions crossing 2^64 in a real session" 0 "no records dropped" "$TMP/w.fxt"

# SIGKILL in the middle of a write: the fake device cuts the write at an odd
# offset (never a record boundary: records are whole 8-byte words) and kills
# fxt-collect, as the kernel does when SIGKILL lands in a multi-page write.
# The guard process must cut the file back to the last whole record.
# Without the guard the file ends at exactly that odd offset.
# The guard cuts the file just after the collector's death, not before
# wait() returns; it reports once done. wait_guard gives it up to 5 s (a
# loaded ASan run measured the file before the cut).
wait_guard() {
	wait_until 5 grep -q "fxt-collect-guard: " "$TMP/err"
}
KILL_AT=300001
FAKE_FXTRACE_KILL_AT=$KILL_AT FAKE_FXTRACE_RATE=20 collect -o "$TMP/k.fxt" -d 10
wait_guard
size=$(wc -c <"$TMP/k.fxt")
if [ "$rc" -eq 137 ] && [ "$size" -gt 0 ] && [ "$size" -lt "$KILL_AT" ] &&
   [ $((size % 8)) -eq 0 ] && grep -q "fxt-collect-guard: .*cut back to its last whole record ($size bytes)" "$TMP/err" &&
   "$DUMP" --check "$TMP/k.fxt" >"$TMP/check" 2>&1; then
	ok "SIGKILL after a write cut at byte $KILL_AT: the guard cut the file back to $size bytes, a valid trace"
else
	fail "SIGKILL after a write cut at byte $KILL_AT: exit $rc, $size bytes" "$TMP/err" "$TMP/check"
fi

# That trace lacks fxt-collect's closing records_dropped sample: fxt-dump
# --check and --summary say it was cut short (each CPU's records may stop
# at a different time), and still pass it; a whole trace (t.fxt, the first
# one above) draws no such warning. fxt-sched says it too.
cut_warning="fxt-collect's closing records_dropped sample is missing: the trace was cut short"
"$DUMP" --check "$TMP/k.fxt" >"$TMP/cut.out" 2>"$TMP/cut.err"
cut_rc=$?
"$DUMP" --check "$TMP/t.fxt" >"$TMP/whole.out" 2>"$TMP/whole.err"
whole_rc=$?
if [ "$cut_rc" -eq 0 ] && grep -qF "fxt-dump: warning: $TMP/k.fxt: $cut_warning" "$TMP/cut.err" &&
   "$DUMP" --summary "$TMP/k.fxt" 2>&1 >/dev/null | grep -qF "$cut_warning" &&
   [ "$whole_rc" -eq 0 ] && [ ! -s "$TMP/whole.err" ]; then
	ok "fxt-dump --check and --summary: a SIGKILLed trace passes, with a warning that it was cut short; a whole one draws none"
else
	fail "fxt-dump --check and --summary: a SIGKILLed trace passes, with a warning that it was cut short; a whole one draws none (exit $cut_rc, $whole_rc)" "$TMP/cut.err" "$TMP/whole.err"
fi
if [ -n "${FXT_SCHED:-}" ] && [ ! -x "$FXT_SCHED" ]; then
	echo "FXT_SCHED=$FXT_SCHED is not an executable" >"$TMP/why"
	fail "fxt-sched warns that a SIGKILLed trace was cut short" "$TMP/why"
elif [ -z "${FXT_SCHED:-}" ] && [ ! -x "$(dirname "$0")/../../tools/fxt-sched" ]; then
	ok "fxt-sched warns that a SIGKILLed trace was cut short # SKIP no FXT_SCHED and no tools/fxt-sched (make -C collector check builds one)"
elif FXT_SCHED=${FXT_SCHED:-$(dirname "$0")/../../tools/fxt-sched} &&
     "$FXT_SCHED" summary "$TMP/k.fxt" 2>"$TMP/cut.err" >/dev/null &&
     grep -qF "fxt-sched: warning: $TMP/k.fxt: $cut_warning" "$TMP/cut.err" &&
     "$FXT_SCHED" latency "$TMP/t.fxt" 2>"$TMP/whole.err" >/dev/null && [ ! -s "$TMP/whole.err" ]; then
	ok "fxt-sched warns that a SIGKILLed trace was cut short; not for a whole one"
else
	fail "fxt-sched warns that a SIGKILLed trace was cut short; not for a whole one" "$TMP/cut.err" "$TMP/whole.err"
fi

# The same on traces whose records_dropped events are more than the two
# samples: a machine of 16 CPUs or more writes each sample as two or more
# counter events (15 CPUs each), and a drop writes a marker event among
# the rings' data (after a "buffer full" provider event). Both were taken
# for the closing sample before (drop_samples.h). Cut short: SIGKILL as
# above, 20 CPUs; and CPU 0's ring full from START (FAKE_FXTRACE_TAIL_DROPS),
# so that its drops are marked before the kill. Whole: the same ways with -d.
cut_short_said() {
	"$DUMP" --check "$1" >"$TMP/cs.out" 2>"$TMP/cs.err" &&
		grep -qF "fxt-dump: warning: $1: $cut_warning" "$TMP/cs.err"
}
FAKE_FXTRACE_CPUS=20 FAKE_FXTRACE_KILL_AT=$KILL_AT FAKE_FXTRACE_RATE=2 collect -o "$TMP/k20.fxt" -d 10
wait_guard
k20_rc=$rc
FAKE_FXTRACE_CPUS=20 collect -o "$TMP/w20.fxt" -d 0.2
w20_rc=$rc
samples=$("$DUMP" "$TMP/w20.fxt" | grep -c 'name="records_dropped"')
if [ "$k20_rc" -eq 137 ] && cut_short_said "$TMP/k20.fxt" && [ "$w20_rc" -eq 0 ] &&
   [ "$samples" -eq 4 ] && ! cut_short_said "$TMP/w20.fxt" && [ ! -s "$TMP/cs.err" ]; then
	ok "fxt-dump --check: a SIGKILLed trace of 20 CPUs (samples of two events each) is said to be cut short; a whole one ($samples records_dropped events) is not"
else
	fail "fxt-dump --check: a SIGKILLed trace of 20 CPUs (samples of two events each) is said to be cut short; a whole one is not (exit $k20_rc, $w20_rc; $samples records_dropped events)" "$TMP/cs.err"
fi
FAKE_FXTRACE_TAIL_DROPS=5 FAKE_FXTRACE_KILL_AT=$KILL_AT FAKE_FXTRACE_RATE=20 collect -o "$TMP/kd.fxt" -d 10
wait_guard
kd_rc=$rc
markers=$("$DUMP" "$TMP/kd.fxt" | grep -c 'buffer filled up')
FAKE_FXTRACE_TAIL_DROPS=5 collect -o "$TMP/wd.fxt" -d 0.3
wd_rc=$rc
if [ "$kd_rc" -eq 137 ] && [ "$markers" -ge 1 ] && cut_short_said "$TMP/kd.fxt" &&
   [ "$wd_rc" -eq 3 ] && ! cut_short_said "$TMP/wd.fxt" && [ ! -s "$TMP/cs.err" ]; then
	ok "fxt-dump --check: a SIGKILLed trace with drops marked in it ($markers) is said to be cut short; a whole one with drops is not"
else
	fail "fxt-dump --check: a SIGKILLed trace with drops marked in it is said to be cut short; a whole one with drops is not (exit $kd_rc, $wd_rc; $markers markers)" "$TMP/cs.err" "$TMP/err"
fi

# SIGKILL while the preamble (magic, provider, strings, the tasks in /proc)
# is being written, before any whole record was committed: the guard cuts
# the file back to where the trace was to start, and must say that no trace
# was written, not that a "last whole record" of 0 bytes is left.
FAKE_FXTRACE_KILL_AT=101 collect -o "$TMP/kp.fxt" -d 10
wait_guard
if [ "$rc" -eq 137 ] && [ -f "$TMP/kp.fxt" ] && [ ! -s "$TMP/kp.fxt" ] &&
   grep -qxF "fxt-collect-guard: fxt-collect ended in the middle of writing the trace preamble; no trace was written: $TMP/kp.fxt was cut back to 0 bytes and is empty" "$TMP/err" &&
   ! grep -q "last whole record" "$TMP/err"; then
	ok "SIGKILL inside the preamble: the guard empties the file and says no trace was written"
else
	fail "SIGKILL inside the preamble: exit $rc, $(wc -c <"$TMP/kp.fxt") bytes" "$TMP/err"
fi
head -c 1000 /dev/urandom >"$TMP/old"
cp "$TMP/old" "$TMP/kp.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_KILL_AT=101 \
	"$COLLECT" -D "$DEV" -o - -d 10 >>"$TMP/kp.fxt" 2>"$TMP/err"
rc=$?
wait_guard
if [ "$rc" -eq 137 ] && cmp -s "$TMP/old" "$TMP/kp.fxt" &&
   grep -qxF "fxt-collect-guard: fxt-collect ended in the middle of writing the trace preamble; no trace was written: stdout was cut back to where the trace was to start (1000 bytes), and holds none of it" "$TMP/err" &&
   ! grep -q "last whole record" "$TMP/err"; then
	ok "SIGKILL inside the preamble on -o - >> FILE: FILE as it was, the guard says no trace was written"
else
	fail "SIGKILL inside the preamble on -o - >> FILE: exit $rc, $(wc -c <"$TMP/kp.fxt") bytes of 1000" "$TMP/err"
fi

# The children of PID (the guard, here), from /proc.
children_of() {
	if [ -r "/proc/$1/task/$1/children" ]; then
		tr ' ' '\n' <"/proc/$1/task/$1/children" | grep .
		return
	fi
	for st in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...; comm may hold spaces, so cut at ") ".
		sed -n 's/^\([0-9]*\) (.*) [A-Za-z] \([0-9]*\) .*/\1 \2/p' "$st" 2>/dev/null
	done | awk -v p="$1" '$2 == p { print $1 }'
}

# A process that ended is gone or a zombie (of whoever reaps orphans).
ended() {
	[ ! -e "/proc/$1/stat" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# The guard names itself (prctl(PR_SET_NAME)) just after fork(); until then
# it has the collector's name.
named_guard() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = fxt-collect-gua ]
}

# SIGKILL at random moments while fxt-collect writes a lot (4 MiB rings, a
# fast producer: drains of up to megabytes, many pages per write()), each
# write() slowed down page by page (FAKE_FXTRACE_WRITE_PAUSE_US) so that
# most kills land in the middle of one, as the rare bad kill does in the
# VM. Every file must pass fxt-dump --check and every guard must be gone.
RUNS=${FXT_SIGKILL_RUNS:-50}
bad=0 noguard=0 lingering=0 total=0 cut=0 i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	rm -f "$TMP/r.fxt"
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_RATE=100 \
		FAKE_FXTRACE_WRITE_PAUSE_US=50 "$COLLECT" -q -D "$DEV" -o "$TMP/r.fxt" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait_until 5 test -s "$TMP/r.fxt"
	guard=$(children_of "$pid" | head -n 1)
	# Give the guard a moment to name itself (a loaded ASan run lost this).
	if [ -z "$guard" ] || ! wait_until 2 named_guard "$guard"; then
		noguard=$((noguard + 1))
	fi
	# 0 to 250 ms more of writing.
	sleep "$(od -An -N2 -tu2 /dev/urandom | awk '{ printf "%.3f", ($1 % 251) / 1000 }')"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null	# not the shell's "Killed" 50 times
	if [ -n "$guard" ] && ! wait_until 2 ended "$guard"; then
		lingering=$((lingering + 1))
		kill -KILL "$guard" 2>/dev/null
	fi
	total=$((total + $(wc -c <"$TMP/r.fxt")))
	grep -q "fxt-collect-guard: .*cut back" "$TMP/err" && cut=$((cut + 1))
	if ! "$DUMP" --check "$TMP/r.fxt" >"$TMP/check" 2>&1; then
		bad=$((bad + 1))
		echo "# run $i: $(wc -c <"$TMP/r.fxt") bytes: $(tail -n 1 "$TMP/check")"
	fi
done
if [ "$bad" -eq 0 ] && [ "$noguard" -eq 0 ] && [ "$lingering" -eq 0 ]; then
	ok "$RUNS SIGKILLs at random moments ($((total / RUNS / 1024)) KiB per file on average): $cut cut back by the guard, every file whole, every guard gone"
else
	fail "$RUNS SIGKILLs: $bad files refused by fxt-dump --check, $noguard runs without a guard, $lingering guards left running"
fi

# Closed standard descriptors. With -o - and stdout closed, the device (or
# anything else opened) would take fd 1 and be sent the trace: fxt-collect
# refuses before opening anything, exit 1, and says why. With -o FILE and
# stdin and stdout closed, they are held on /dev/null: a whole trace.
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o - -d 0.2 \
	>&- 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q -- "-o -: standard output is closed" "$TMP/err" &&
   ! grep -q "traced" "$TMP/err"; then
	ok "-o - with stdout closed: refused before tracing, exit 1, says why"
else
	fail "-o - with stdout closed: exit $rc, wanted 1 and 'standard output is closed'" "$TMP/err"
fi
# Without /dev/null (a minimal container or initramfs): with 0, 1 and 2
# open nothing needs it, a whole trace (before, fxt-collect refused to run,
# blaming a closed descriptor); with stdin closed, the step, why and what
# to do, exit 1.
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_NO_DEVNULL=1 "$COLLECT" \
	-D "$DEV" -o "$TMP/nonull.fxt" -d 0.2 2>"$TMP/err"
rc=$?
expect "no /dev/null, every standard descriptor open: a whole trace, exit 0" 0 \
	"traced" "$TMP/nonull.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_NO_DEVNULL=1 "$COLLECT" \
	-D "$DEV" -o "$TMP/nonull.fxt" -d 0.2 <&- 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] &&
   grep -qx "fxt-collect: opening /dev/null for a closed standard descriptor failed: No such file or directory" "$TMP/err" &&
   grep -q "make /dev/null available, or start fxt-collect with descriptors 0, 1 and 2 open" "$TMP/err"; then
	ok "no /dev/null and stdin closed: exit 1, the step, why and what to do"
else
	fail "no /dev/null and stdin closed: exit $rc, wanted 1 and the step" "$TMP/err"
fi
# -o - with stdout open for reading only (1< FILE): every write would
# fail, after FILE was emptied. Refused before tracing, FILE as it was.
printf 'not a trace\n' >"$TMP/ro.txt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o - -d 0.2 \
	1<"$TMP/ro.txt" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q -- "-o -: standard output is open for reading only" "$TMP/err" &&
   [ "$(cat "$TMP/ro.txt")" = "not a trace" ] && ! grep -q "traced\|fxt-collect-guard" "$TMP/err"; then
	ok "-o - with stdout open for reading only: refused before tracing, exit 1, the file as it was"
else
	fail "-o - with stdout open for reading only: exit $rc, wanted 1 and 'open for reading only'" "$TMP/err"
fi
# -o - with stderr where stdout goes, a file (> FILE 2>&1) or a pipe
# (2>&1 | ...): messages would land between records. Refused, exit 1, and
# no trace byte written (the message itself goes where stderr goes).
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o - -d 0.2 \
	>"$TMP/mixed.fxt" 2>&1
rc=$?
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o - -d 0.2 2>&1 |
	cat >"$TMP/mixed-pipe.fxt"
if [ "$rc" -eq 1 ] &&
   grep -q -- "-o -: standard error goes where standard output does" "$TMP/mixed.fxt" &&
   ! grep -q "traced" "$TMP/mixed.fxt" && ! grep -q "fxt-collect-guard" "$TMP/mixed.fxt" &&
   [ "$(LC_ALL=C tr -d '[:print:]\n' <"$TMP/mixed.fxt" | wc -c)" -eq 0 ] &&
   grep -q -- "-o -: standard error goes where standard output does" "$TMP/mixed-pipe.fxt" &&
   ! grep -q "traced" "$TMP/mixed-pipe.fxt"; then
	ok "-o - with stderr where stdout goes (a file, a pipe): refused before tracing, exit 1"
else
	cat "$TMP/mixed.fxt" "$TMP/mixed-pipe.fxt" >"$TMP/err"
	fail "-o - with stderr where stdout goes: exit $rc, wanted 1 and 'standard error goes where standard output does'" "$TMP/err"
fi
# -o FILE where stderr goes too (2> FILE, &> FILE): the messages, the
# summary last, would go over the trace from offset 0, the magic record
# first (before: exit 0, and fxt-dump found no magic record). Refused,
# exit 1, nothing traced, through a symbolic link to it too.
printf 'old\n' >"$TMP/same.fxt"
ln -sf same.fxt "$TMP/same-link.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" \
	-o "$TMP/same.fxt" -d 0.2 2>"$TMP/same.fxt"
rc=$?
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" \
	-o "$TMP/same-link.fxt" -d 0.2 >>"$TMP/same.fxt" 2>&1
rc2=$?
if [ "$rc" -eq 1 ] && [ "$rc2" -eq 1 ] &&
   [ "$(grep -c -- "standard error goes to that file too" "$TMP/same.fxt")" -eq 2 ] &&
   ! grep -q -e "traced" -e "fxt-collect-guard" "$TMP/same.fxt" &&
   [ "$(LC_ALL=C tr -d '[:print:]\n' <"$TMP/same.fxt" | wc -c)" -eq 0 ]; then
	ok "-o FILE with stderr going to FILE too (directly, through a link): refused before tracing, exit 1"
else
	cp "$TMP/same.fxt" "$TMP/err"
	fail "-o FILE with stderr going to FILE too: exit $rc and $rc2, wanted 1 and 'standard error goes to that file too' twice" "$TMP/err"
fi
rm -f "$TMP/closed.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o "$TMP/closed.fxt" \
	-d 0.2 <&- >&- 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && "$DUMP" --check "$TMP/closed.fxt" >"$TMP/check" 2>&1; then
	ok "-o FILE with stdin and stdout closed: a whole trace, exit 0"
else
	fail "-o FILE with stdin and stdout closed: exit $rc" "$TMP/err" "$TMP/check"
fi

# An empty /proc (a tmpfs over it, as a locked-down container may have):
# nothing can be named from it, now or at the end. fxt-collect warns up
# front and says why its threads have no names (before: no warning, and
# "exited before fxt-collect could read their names" of live threads).
# Skipped where no mount namespace can be made, and for the ASan build,
# whose runtime reads /proc itself.
if ! unshare -Urm sh -c 'mount -t tmpfs none /proc' 2>/dev/null; then
	echo "ok - an empty /proc: warned, and the unnamed threads not said to have exited # SKIP unshare -Urm cannot mount here"
elif grep -q __asan_init "$COLLECT"; then
	echo "ok - an empty /proc: warned, and the unnamed threads not said to have exited # SKIP the ASan runtime needs /proc"
else
	unshare -Urm sh -c 'mount -t tmpfs none /proc && exec "$@"' sh \
		env LD_PRELOAD="$FAKE" FAKE_FXTRACE_PATH="$DEV" \
		"$COLLECT" -D "$DEV" -o "$TMP/noproc.fxt" -d 0.2 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 0 ] &&
	   grep -qx "fxt-collect: warning: /proc lists no tasks, not even fxt-collect (empty, or masked): only threads the kernel names while tracing (created, renamed or exec'd then) will have names" "$TMP/err" &&
	   grep -q "^fxt-collect: [1-9][0-9]* traced thread(s) have no name: /proc could not name them (see the warning above)\$" "$TMP/err" &&
	   ! grep -q "exited before" "$TMP/err" &&
	   "$DUMP" --check "$TMP/noproc.fxt" >"$TMP/check" 2>&1; then
		ok "an empty /proc: warned, and the unnamed threads not said to have exited; a whole trace"
	else
		fail "an empty /proc: exit $rc, wanted 0, the warning and no 'exited before'" "$TMP/err" "$TMP/check"
	fi
	collect -o "$TMP/proc.fxt" -d 0.2
	if ! grep -q "lists no tasks" "$TMP/err"; then
		ok "the real /proc: no such warning"
	else
		fail "the real /proc: warned that it lists no tasks" "$TMP/err"
	fi
fi

# In a PID namespace of its own (a container), the module's thread ids are
# not the ones /proc shows: fxt-collect warns up front, but not with -q,
# and not in the initial namespace. Skipped where no namespace can be made
# (unshare missing, or user namespaces not allowed).
in_new_pid_ns() {
	unshare -Urpf --mount-proc env LD_PRELOAD="$FAKE" FAKE_FXTRACE_PATH="$DEV" \
		"$COLLECT" -D "$DEV" "$@" 2>"$TMP/err"
}
NS_WARNING="warning: fxt-collect runs in a PID namespace of its own"
if ! unshare -Urpf --mount-proc true 2>/dev/null; then
	echo "ok - in a PID namespace of its own: warned # SKIP unshare -Urpf cannot make one here"
elif [ "$(stat -L -c %i /proc/self/ns/pid)" != 4026531836 ]; then
	echo "ok - in a PID namespace of its own: warned # SKIP these tests already run in one"
else
	collect -o "$TMP/host.fxt" -d 0.2
	grep -q "$NS_WARNING" "$TMP/err" && host=warned || host=quiet
	in_new_pid_ns -o "$TMP/ns.fxt" -d 0.2
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$host" = quiet ] && grep -q "$NS_WARNING" "$TMP/err" &&
	   "$DUMP" --check "$TMP/ns.fxt" >"$TMP/check" 2>&1; then
		ok "in a PID namespace of its own: warned that threads will be misnamed (not in the initial one), a whole trace"
	else
		fail "in a PID namespace of its own: exit $rc, warned: $(grep -c "$NS_WARNING" "$TMP/err"), in the initial one: $host" \
			"$TMP/err" "$TMP/check"
	fi
	in_new_pid_ns -q -o "$TMP/ns.fxt" -d 0.2
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q "$NS_WARNING" "$TMP/err"; then
		ok "in a PID namespace of its own with -q: no warning"
	else
		fail "in a PID namespace of its own with -q: exit $rc" "$TMP/err"
	fi
fi
