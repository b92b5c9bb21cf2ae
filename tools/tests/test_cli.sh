#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_cli.sh BUILDDIR - the fxt-sched and fxt2json programs on a generated
# trace: every subcommand and format runs, JSON parses, exit statuses, and
# fxt2json's output is valid JSON with the expected events.
# Prints unnumbered TAP lines.
B=${1:?usage: $0 BUILDDIR}
S=$B/fxt-sched
J=$B/fxt2json
tmp=$(mktemp -d /tmp/fxt-sched-cli.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
t(){ if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

"$B/obj/tests/gen_trace" -o "$tmp/t.fxt" -c 3 -t 10 -n 5000 --names-at-end \
	--drops --spurious || { echo "not ok - gen_trace"; exit 0; }
for cmd in latency top summary; do
	t "$cmd text" "'$S' $cmd '$tmp/t.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt' && [ -s '$tmp/o.txt' ] && [ ! -s '$tmp/e.txt' ]"
	t "$cmd --json parses" "'$S' $cmd '$tmp/t.fxt' --json >'$tmp/o.json' && json_ok '$tmp/o.json'"
	t "$cmd --csv has a header and rows" "'$S' $cmd '$tmp/t.fxt' --csv >'$tmp/o.csv' && [ \$(wc -l <'$tmp/o.csv') -gt 2 ]"
done
t "latency -T and -P --json parse" "'$S' latency '$tmp/t.fxt' -T >/dev/null && '$S' latency '$tmp/t.fxt' -P --json >'$tmp/p.json' && json_ok '$tmp/p.json'"
t "latency JSON has the documented keys" "python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
for k in (\"wakeup_latency_ns\",\"preempt_latency_ns\"):
    o=d[k]
    assert set((\"count\",\"p50\",\"p90\",\"p99\",\"p999\",\"max\",\"hist\"))<=set(o), o
    assert sum(h[\"count\"] for h in o[\"hist\"])==o[\"count\"]
    assert o[\"p50\"]<=o[\"p90\"]<=o[\"p99\"]<=o[\"p999\"]<=o[\"max\"]
th=d[\"threads\"]
assert th and all(set((\"tid\",\"pid\",\"name\",\"wakeup_latency_ns\",\"preempt_latency_ns\"))<=set(x) for x in th)
assert sum(x[\"wakeup_latency_ns\"][\"count\"] for x in th)==d[\"wakeup_latency_ns\"][\"count\"]
assert \"processes\" in d
' '$tmp/p.json'"
t "--intervals lists every interval" "n=\$('$S' latency '$tmp/t.fxt' --intervals | tail -n +2 | wc -l); c=\$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[\"wakeup_latency_ns\"][\"count\"]+d[\"preempt_latency_ns\"][\"count\"])' '$tmp/p.json'); [ \"\$n\" -eq \"\$c\" ]"
t "filters: --pid, --tid, --comm, --from/--to" "'$S' latency '$tmp/t.fxt' --pid 2000 --json | grep -q '\"tid\": 2006' && ! '$S' latency '$tmp/t.fxt' --pid 2000 --json | grep -q '\"tid\": 1001' && '$S' summary '$tmp/t.fxt' --tid 1001 --csv | grep -q '^thread,1001,' && '$S' top '$tmp/t.fxt' --comm 'worker-*' -n 3 --json | grep -q worker && '$S' summary '$tmp/t.fxt' --from 10ms --to 0.5s >/dev/null"
t "usage errors exit 2" "{ '$S' 2>/dev/null; [ \$? -eq 2 ]; } && { '$S' bogus x 2>/dev/null; [ \$? -eq 2 ]; } && { '$S' latency '$tmp/t.fxt' --from 1parsec 2>/dev/null; [ \$? -eq 2 ]; }"
t "missing file exits 1 with a message" "'$S' summary '$tmp/none.fxt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q 'No such file' '$tmp/e.txt'"
t "stdin input" "'$S' summary - <'$tmp/t.fxt' | grep -q 'records:'"
head -c 20000 "$tmp/t.fxt" >"$tmp/cut.fxt"
t "truncated file: warning with offset, results, exit 0" "'$S' summary '$tmp/cut.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt' && grep -q 'offset [0-9]*: truncated' '$tmp/e.txt' && grep -q 'records:' '$tmp/o.txt'"
t "fxt2json output is valid JSON with sched, wakeup, names, counters" "'$J' '$tmp/t.fxt' -o '$tmp/t.json' && python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
ev=d[\"traceEvents\"]
ph=lambda p:[e for e in ev if e[\"ph\"]==p]
assert any(e[\"name\"]==\"running\" for e in ph(\"X\"))
assert any(e[\"name\"]==\"wakeup\" for e in ph(\"i\"))
assert any(e[\"name\"]==\"thread_name\" and e[\"args\"][\"name\"]==\"ping-0\" for e in ph(\"M\"))
assert any(e[\"name\"]==\"records_dropped\" for e in ph(\"C\"))
' '$tmp/t.json'"
t "fxt2json on a truncated file still writes valid JSON" "'$J' '$tmp/cut.fxt' >'$tmp/c.json' 2>/dev/null && json_ok '$tmp/c.json'"
