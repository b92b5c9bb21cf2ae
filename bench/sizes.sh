#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# sizes.sh KEEPDIR FXT_DUMP - how many bytes each tracer wrote per record, from
# the first round's traces that bench/guest.sh kept (KEEPDIR = <view>/out/keep):
#   fxtrace  every record of WL-fxtrace.fxt decoded by fxt-dump; a record's
#            size is the distance to the next one; per kind, and the rest
#            (provider metadata, strings, thread names) as overhead
#   perf     PERF_RECORD_SAMPLE sizes of WL-perf.data (perf report -D), next
#            to the number of samples of each event (perf script)
#   ftrace   each event's size in the ring buffer, from its tracefs format
#            file: a 4-byte header plus the fields, rounded up to 4 bytes;
#            and the events in WL-ftrace.dat, decoded by trace-cmd report
# Prints Markdown.
set -euo pipefail

prog=${0##*/}
[[ $# -eq 2 && -d $1 && -x $2 ]] || { echo "usage: $prog KEEPDIR FXT_DUMP" >&2; exit 2; }
keep=$1 dump=$2

echo "### Bytes per record (first round's traces)"
echo
echo "| tracer | workload | context switch | wakeup | wakeup with waker | records | all bytes / record |"
echo "|---|---|---|---|---|---|---|"

shopt -s nullglob
for f in "$keep"/*-fxtrace.fxt; do
	wl=${f##*/}
	wl=${wl%-fxtrace.fxt}
	"$dump" "$f" | awk -v wl="$wl" -v total="$(stat -c %s "$f")" '
		function hex(s,    i, c, v) {
			v = 0
			for (i = 3; i <= length(s); i++) {
				c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
				v = v * 16 + c
			}
			return v
		}
		function account(end) {
			if (kind == "")
				return
			size = end - off
			if (kind == "context_switch") { sw_b += size; sw_n++ }
			else if (kind == "wakeup") {
				wk_b += size; wk_n++
				if (waker) { ww_b += size; ww_n++ }
			}
		}
		{
			o = hex($1)
			account(o)
			off = o; kind = $2; waker = index($0, " waker:") > 0
		}
		END {
			account(total)
			n = sw_n + wk_n
			printf("| fxtrace | %s | %s | %s | %s | %d | %.1f (file incl. metadata) |\n", wl,
			       sw_n ? sprintf("%.1f (%d)", sw_b / sw_n, sw_n) : "-",
			       wk_n ? sprintf("%.1f (%d)", wk_b / wk_n, wk_n) : "-",
			       ww_n ? sprintf("%.1f (%d)", ww_b / ww_n, ww_n) : "-",
			       n, n ? total / n : 0)
		}'
done

for f in "$keep"/*-perf.data; do
	wl=${f##*/}
	wl=${wl%-perf.data}
	command -v perf >/dev/null || { echo "| perf | $wl | (perf not installed on the host) | | | | |"; continue; }
	hist=$(perf report -D -i "$f" 2>/dev/null | awk '
		/PERF_RECORD_SAMPLE/ {
			if (match($0, /\[0x[0-9a-f]+\]/)) {
				h = substr($0, RSTART + 1, RLENGTH - 2); v = 0
				for (i = 3; i <= length(h); i++)
					v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
				n[v]++; tot += v; cnt++
			}
		}
		END { for (s in n) printf("%d B x %d, ", s, n[s]); printf("avg %.1f B over %d samples", cnt ? tot / cnt : 0, cnt) }')
	evs=$(perf script -F event -i "$f" 2>/dev/null | sed 's/[: ]*$//' | sort | uniq -c |
		awk '{ printf("%s%s %d", sep, $2, $1); sep = ", " }')
	echo "| perf | $wl | sample sizes: $hist | events: $evs | | | |"
done

for f in "$keep"/*-ftrace.dat; do
	wl=${f##*/}
	wl=${wl%-ftrace.dat}
	command -v trace-cmd >/dev/null || { echo "| ftrace | $wl | (trace-cmd not installed on the host) | | | | |"; continue; }
	# Decoded on the host, to check the guest's count (its ring buffer stats).
	evs=$(trace-cmd report -i "$f" 2>/dev/null | awk '
		$4 ~ /^sched_(switch|wakeup|wakeup_new):$/ { n[$4]++; t++ }
		END { for (e in n) printf("%s %d, ", e, n[e]); printf("%d in all", t) }')
	echo "| ftrace | $wl | events decoded from the trace.dat: $evs | | | | |"
done

shopt -u nullglob
if compgen -G "$keep/ftrace-*.format" >/dev/null; then
	for e in sched_switch sched_wakeup sched_wakeup_new; do
		f=$keep/ftrace-$e.format
		[[ -f $f ]] || continue
		awk -v e="$e" '
			/offset:/ {
				o = $0; sub(/.*offset:/, "", o); sub(/;.*/, "", o)
				s = $0; sub(/.*size:/, "", s); sub(/;.*/, "", s)
				if (o + s > end) end = o + s
			}
			END {
				printf("| ftrace | (%s) | ring buffer event: 4-byte header + %d bytes of fields = %d bytes | | | | |\n",
				       e, end, 4 + int((end + 3) / 4) * 4)
			}' "$f"
	done
fi
echo
echo "fxtrace sizes are measured record by record; \"all bytes / record\" divides the whole .fxt file (metadata and thread names included) by the scheduling records. ftrace's figure is the ring-buffer event; trace-cmd adds 4 KiB page headers and, after gaps longer than ~134 ms, 8-byte time-extend events. perf's samples carry IP, TID, TIME, ID, CPU, PERIOD and the raw tracepoint data."
