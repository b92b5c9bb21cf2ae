#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_cli.sh BUILDDIR - the fxt-sched and fxt2json programs on a generated
# trace: every subcommand and format runs, JSON parses, exit statuses, and
# fxt2json's output is valid JSON with the expected events.
# Prints unnumbered TAP lines.
B=${1:?usage: $0 BUILDDIR}
tmp=$(mktemp -d /tmp/fxt-sched-cli.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Every run of fxt-sched and fxt2json below has a time limit (CLI_TIMEOUT
# seconds, 120 by default), so that one that never ends fails its test
# instead of hanging make check: $S and $J run the programs under
# timeout(1) and, when one runs out, name the command on stderr and in
# $tmp/timed-out, which the last test reports. (A reorder buffer's loop
# that never ended, on oom.fxt, hung the suite.) The programs themselves:
# $B/fxt-sched and $B/fxt2json (ldd looks at those).
CLI_TIMEOUT=${CLI_TIMEOUT:-120}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac	# the wrappers run anywhere
mkdir "$tmp/bin" || exit 1
for p in fxt-sched fxt2json; do
	cat >"$tmp/bin/$p" <<EOF
#!/bin/sh
timeout $CLI_TIMEOUT '$B/$p' "\$@"
rc=\$?
[ \$rc -eq 124 ] && printf 'test_cli.sh: timed out after %s s: %s\\n' $CLI_TIMEOUT "$p \$*" | tee -a '$tmp/timed-out' >&2
exit \$rc
EOF
	chmod +x "$tmp/bin/$p" || exit 1
done
S=$tmp/bin/fxt-sched
J=$tmp/bin/fxt2json
t(){ if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }
# Strict: JSON text must be UTF-8 (RFC 8259), whatever the locale.
json_ok() { python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read())' "$1"; }

"$B/obj/tests/gen_trace" -o "$tmp/t.fxt" -c 3 -t 10 -n 5000 --names-at-end \
	--drops --spurious || { echo "not ok - gen_trace"; exit 0; }
# gen_trace --kernel-names lets threads exit; the idle task (prev -1) must
# not (it indexed th[-1]: UBSan's "index -1 out of bounds" in the
# asan+ubsan run, and an idle switch-out in state dead in the trace).
gen_kernel_names() {
	for seed in 1 2 3 4 5; do
		"$B/obj/tests/gen_trace" -o "$tmp/k.fxt" -c 3 -t 10 -n 5000 \
			--kernel-names --seed $seed >/dev/null 2>"$tmp/e.txt" &&
			[ ! -s "$tmp/e.txt" ] || return 1
	done
}
t "gen_trace --kernel-names: runs clean (no out-of-bounds thread for idle), 5 seeds" gen_kernel_names
G=$B/obj/tests/gen_trace
gen_help() {
	"$G" --help >"$tmp/h.txt" 2>"$tmp/e.txt" && [ ! -s "$tmp/e.txt" ] || return 1
	for o in -o -c -t -n -m --seed --drain-ms --names-at-end --drops \
		--spurious --kernel-names --losses --skips --late-start --births \
		--help; do
		grep -qE "^  (-h, )?$o " "$tmp/h.txt" || return 1
	done
}
t "gen_trace --help: exit 0, every option explained on stdout" gen_help
# Each bad value is refused, exit 2, before the file is touched. --drain-ms 0
# looped for ever, and -m abc wrote until the disk was full.
gen_refused() {
	printf keep >"$tmp/g.fxt"
	timeout 10 "$G" -o "$tmp/g.fxt" "$@" 2>"$tmp/e.txt" >/dev/null
	[ $? -eq 2 ] && [ "$(cat "$tmp/g.fxt")" = keep ] && grep -q "^gen_trace: $msg" "$tmp/e.txt"
}
for bad in "--drain-ms 0" "-m abc" "-m 0" "-c 0" "-c 65" "-t 4097" "-n -1" "-n 12x" "--seed ''"; do
	msg="${bad%% *} wants a whole number"
	t "gen_trace $bad: refused with exit 2, the file untouched" "gen_refused $bad"
done
msg="unexpected argument 'extra'"
t "gen_trace with an argument it does not take: refused with exit 2" "gen_refused extra"
msg="no output file"
t "gen_trace without -o: refused with exit 2" "timeout 10 '$G' -n 10 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^gen_trace: no output file: give -o FILE' '$tmp/e.txt'"
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
t "filters: --pid, --tid, --comm" "'$S' latency '$tmp/t.fxt' --pid 2000 --json | grep -q '\"tid\": 2006' && ! '$S' latency '$tmp/t.fxt' --pid 2000 --json | grep -q '\"tid\": 1001' && '$S' summary '$tmp/t.fxt' --tid 1001 --csv | grep -q '^thread,1001,' && '$S' top '$tmp/t.fxt' --comm 'worker-*' -n 3 --json | grep -q worker"
# --comm '' (an unset shell variable) is refused as --pid ,, is, in every
# command that takes it: exit 2, the message and where help is, no output.
# (Before: exit 0, and only the threads with no name: none on most traces.)
comm_empty() {
	for args in latency "latency -T" "latency -P" "latency --intervals" "top" "summary" "summary --csv"; do
		# shellcheck disable=SC2086
		"$S" $args "$tmp/t.fxt" --comm '' >"$tmp/o.txt" 2>"$tmp/e.txt"
		[ $? -eq 2 ] && [ ! -s "$tmp/o.txt" ] &&
		[ "$(cat "$tmp/e.txt")" = "fxt-sched: --comm '': no pattern (an empty one would select only the threads with no name); to select every thread, leave --comm out, or give a glob such as 'ping*'
Try 'fxt-sched --help' for more information." ] || return 1
	done
}
t "--comm '': a usage error (exit 2) with a message, in latency (-T, -P, --intervals), top and summary" comm_empty
t "usage errors exit 2" "{ '$S' 2>/dev/null; [ \$? -eq 2 ]; } && { '$S' bogus x 2>/dev/null; [ \$? -eq 2 ]; } && { '$S' latency '$tmp/t.fxt' --from 1parsec 2>/dev/null; [ \$? -eq 2 ]; }"
t "missing file exits 1 with a message" "'$S' summary '$tmp/none.fxt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q 'No such file' '$tmp/e.txt'"
t "stdin input" "'$S' summary - <'$tmp/t.fxt' | grep -q 'records:'"
# - reads what cat would: from standard input's file offset, not from byte
# 0 of the file behind it (an offset inside the first page, one past it,
# and the end of the file: nothing left, so no trace).
"$S" summary "$tmp/t.fxt" >"$tmp/want.txt"
for skip in 8 5000; do
	head -c "$skip" /dev/zero | cat - "$tmp/t.fxt" >"$tmp/skip.fxt"
	t "summary - on a file whose first $skip bytes were read already: the report of the rest" "{ dd bs=$skip count=1 of=/dev/null status=none && '$S' summary - >'$tmp/o.txt' 2>'$tmp/e.txt'; } <'$tmp/skip.fxt' && cmp -s '$tmp/want.txt' '$tmp/o.txt' && [ ! -s '$tmp/e.txt' ]"
done
t "summary - on a file read to its end already: exit 1, not an FXT trace" "{ cat >/dev/null && '$S' summary - >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ]; } <'$tmp/t.fxt' && grep -q '^fxt-sched: -: .*not an FXT trace (no magic record)' '$tmp/e.txt' && [ ! -s '$tmp/o.txt' ]"
mkdir "$tmp/spool"
t "--intervals --json: in the order the intervals end (end_ns never decreases; start_ns does, or the check says nothing), as fxt-sched(1) says" "'$S' latency '$tmp/t.fxt' --intervals --json | python3 -c '
import json,sys
v=json.load(sys.stdin)[\"intervals\"]
e=[i[\"end_ns\"] for i in v]; s=[i[\"start_ns\"] for i in v]
assert len(v)>100 and e==sorted(e) and s!=sorted(s), (len(v), e==sorted(e), s==sorted(s))
'"
t "--intervals spools in \$TMPDIR: a TMPDIR that does not exist fails, exit 1, naming it and what to do" "TMPDIR='$tmp/none' '$S' latency --intervals '$tmp/t.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qF 'fxt-sched: --intervals: cannot create a temporary file in $tmp/none: No such file or directory (set TMPDIR to a writable directory)' '$tmp/e.txt' && [ ! -s '$tmp/o.txt' ]"
t "--intervals with a writable TMPDIR: the same list, nothing left in TMPDIR" "'$S' latency --intervals '$tmp/t.fxt' >'$tmp/i1.txt' && TMPDIR='$tmp/spool' '$S' latency --intervals '$tmp/t.fxt' >'$tmp/i2.txt' && cmp -s '$tmp/i1.txt' '$tmp/i2.txt' && [ -z \"\$(ls -A '$tmp/spool')\" ]"
head -c 20000 "$tmp/t.fxt" >"$tmp/cut.fxt"
t "truncated file: message with offset, results, exit 1" "'$S' summary '$tmp/cut.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q '^fxt-sched: .*cut.fxt: offset [0-9]*: truncated' '$tmp/e.txt' && grep -q 'records:' '$tmp/o.txt'"
: >"$tmp/empty.fxt"
printf 'this is a text file, not a trace\n' >"$tmp/text.fxt"
for f in empty text; do
	why="not an FXT trace (no magic record)"
	for cmd in latency top summary "latency --intervals"; do
		t "$cmd on a $f file: exit 1, '$why', no report" "'$S' $cmd '$tmp/$f.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qF 'fxt-sched: $tmp/$f.fxt: ' '$tmp/e.txt' && grep -qF '$why' '$tmp/e.txt' && [ ! -s '$tmp/o.txt' ]"
	done
	t "fxt-sched summary - on a $f stdin: exit 1" "'$S' summary - <'$tmp/$f.fxt' >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qF '$why' '$tmp/e.txt'"
	# a pipe is read into a buffer (a leak there fails the asan+ubsan run)
	t "fxt-sched summary - on a $f pipe: exit 1, the message, no leak" "cat '$tmp/$f.fxt' | '$S' summary - >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qF '$why' '$tmp/e.txt' && ! grep -q Sanitizer '$tmp/e.txt'"
	t "fxt2json on a $f file: exit 1, '$why', no output file" "rm -f '$tmp/o.json'; '$J' -o '$tmp/o.json' '$tmp/$f.fxt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qF 'fxt2json: $tmp/$f.fxt: ' '$tmp/e.txt' && grep -qF '$why' '$tmp/e.txt' && [ ! -e '$tmp/o.json' ]"
done
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
t "fxt2json refuses a pipe (/dev/stdin), exit 1, no events lost silently" "cat '$tmp/t.fxt' | '$J' /dev/stdin >'$tmp/p.json' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q '^fxt2json: /dev/stdin: not a regular file' '$tmp/e.txt' && [ ! -s '$tmp/p.json' ]"
# The refusal says what the input is: the advice to save the trace to a
# file is for a pipe, a FIFO or a socket, not for a directory or a device.
mkfifo "$tmp/fifo.fxt"
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/sock.fxt"
for k in fifo sock; do
	f=$tmp/$k.fxt
	t "fxt2json on a $k: exit 1, not a regular file, save the trace to a file first" "rm -f '$tmp/d.json'; '$J' -o '$tmp/d.json' '$f' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && [ \"\$(cat '$tmp/e.txt')\" = 'fxt2json: $f: not a regular file; fxt2json reads its input twice, so save the trace to a file first' ] && [ ! -e '$tmp/d.json' ]"
done
t "fxt2json on a directory: exit 1, 'is a directory' (no advice to save the trace to a file), no output file" "rm -f '$tmp/d.json'; '$J' -o '$tmp/d.json' '$tmp' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && [ \"\$(cat '$tmp/e.txt')\" = 'fxt2json: $tmp: is a directory' ] && [ ! -e '$tmp/d.json' ] && '$J' '$tmp/' 2>'$tmp/e.txt' >'$tmp/o.txt'; [ \$? -eq 1 ] && grep -qx 'fxt2json: $tmp/: is a directory' '$tmp/e.txt' && [ ! -s '$tmp/o.txt' ]"
t "fxt2json on /dev/null: exit 1, 'is not a trace file (a character device)', nothing on stdout" "'$J' /dev/null >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && [ \"\$(cat '$tmp/e.txt')\" = 'fxt2json: /dev/null: is not a trace file (a character device)' ] && [ ! -s '$tmp/o.txt' ]"
cp "$tmp/t.fxt" "$tmp/same.fxt" && ln "$tmp/same.fxt" "$tmp/link.fxt"
t "fxt2json -o naming the input (same path, or a hard link): refused, exit 2, the trace intact" "'$J' -o '$tmp/same.fxt' '$tmp/same.fxt' 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q 'is the input file' '$tmp/e.txt' && '$J' -o '$tmp/link.fxt' '$tmp/same.fxt' 2>/dev/null; [ \$? -eq 2 ] && cmp -s '$tmp/t.fxt' '$tmp/same.fxt'"
# The two passes must read the same file. fxt2json opens its -o FIFO
# between them, and cannot end its output (far more than a pipe holds)
# before the reader takes it: the input changes after the first pass and
# before the check after the second.
changed_between_passes() {
	cp "$tmp/t.fxt" "$tmp/ch.fxt" && rm -f "$tmp/ch.fifo" && mkfifo "$tmp/ch.fifo" || return 1
	# timeout: a fxt2json that never opens the FIFO must fail the test,
	# not hang it (the reader's open waits for a writer).
	timeout 60 "$J" -o "$tmp/ch.fifo" "$tmp/ch.fxt" 2>"$tmp/ch.err" &
	pid=$!
	timeout 60 sh -c 'exec <"$2" && touch -m -d "2001-01-01 00:00:00" "$1" && cat' \
		sh "$tmp/ch.fxt" "$tmp/ch.fifo" >"$tmp/ch.json"
	wait $pid
	st=$?
	[ "$st" -eq 1 ] && [ "$(wc -c <"$tmp/ch.json")" -gt 200000 ] &&
		[ "$(cat "$tmp/ch.err")" = "fxt2json: $tmp/ch.fxt changed while it was read: threads may be given other threads' names; convert it again once it is complete" ] || return 1
	# The same FIFO dance with the file left alone: no complaint, exit 0.
	timeout 60 "$J" -o "$tmp/ch.fifo" "$tmp/ch.fxt" 2>"$tmp/ch.err" &
	pid=$!
	timeout 60 cat "$tmp/ch.fifo" >"$tmp/ch2.json"
	wait $pid && [ ! -s "$tmp/ch.err" ] && cmp -s "$tmp/ch.json" "$tmp/ch2.json"
}
t "fxt2json: an input changed between its two passes (mtime, via an -o FIFO opened between them): exit 1, says so; unchanged: exit 0, the same JSON" changed_between_passes
# An -o that cannot be created is named as the output, with what to do
# (before: 'fxt2json: DIR/nodir/x.json: No such file or directory', as if
# the input were missing): exit 1, no file made.
out_not_created() {
	"$J" "$tmp/t.fxt" -o "$tmp/nodir/x.json" >"$tmp/o.txt" 2>"$tmp/e.txt"
	[ $? -eq 1 ] && [ ! -e "$tmp/nodir" ] && [ ! -s "$tmp/o.txt" ] &&
	[ "$(cat "$tmp/e.txt")" = "fxt2json: cannot create the output file $tmp/nodir/x.json (-o): No such file or directory; create its directory first, or give -o a path in one that exists" ] || return 1
	"$J" "$tmp/t.fxt" -o "$tmp" 2>"$tmp/e.txt"
	[ $? -eq 1 ] && [ "$(cat "$tmp/e.txt")" = "fxt2json: cannot create the output file $tmp (-o): Is a directory; give -o a file's name, not a directory's" ] || return 1
	"$J" "$tmp/t.fxt" -o "$tmp/t.fxt/x.json" 2>"$tmp/e.txt"
	[ $? -eq 1 ] && [ "$(cat "$tmp/e.txt")" = "fxt2json: cannot create the output file $tmp/t.fxt/x.json (-o): Not a directory; a part of its path is not a directory: give -o another path" ]
}
t "fxt2json -o in a missing directory, on a directory, under a file: exit 1, says the output file cannot be created, why, and what to do" out_not_created
t "fxt2json -o - is standard output (no file named -), the same JSON as without -o; -o '' refused, exit 2" "(cd '$tmp' && rm -f ./- && '$J' -o - '$tmp/t.fxt' >'$tmp/dash.json' && [ ! -e ./- ]) && '$J' '$tmp/t.fxt' | cmp -s - '$tmp/dash.json' && json_ok '$tmp/dash.json' && { '$J' -o '' '$tmp/t.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 2 ]; } && grep -qx \"fxt2json: -o needs a file name ('-' is standard output)\" '$tmp/e.txt' && [ ! -s '$tmp/o.txt' ]"
t "fxt2json on a truncated file still writes valid JSON, says where, exit 1" "'$J' '$tmp/cut.fxt' >'$tmp/c.json' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q '^fxt2json: .*cut.fxt: offset [0-9]*: truncated' '$tmp/e.txt' && json_ok '$tmp/c.json' && grep -q '\"running\"' '$tmp/c.json'"

# Text output: every duration has a unit (3 significant digits from 1 us;
# exact with --ns), no bare count of nanoseconds; --ns changes nothing else.
text_units() {
	for cmd in latency "latency -T" "latency -P" top summary; do
		"$S" $cmd "$tmp/t.fxt" >"$tmp/u.txt" &&
			"$S" $cmd "$tmp/t.fxt" --ns >"$tmp/un.txt" || return 1
		! grep -E '[0-9] ns\b|[0-9]ns[0-9]|nsecs|_ns\b' "$tmp/u.txt" "$tmp/un.txt" || return 1
		# the same lines, word for word, but for the durations
		dur='[0-9]+(\.[0-9]+)?(ns|us|ms|s)\b'
		[ "$(sed -E "s/$dur/D/g; s/ +/ /g; s/^ //" "$tmp/u.txt")" = "$(sed -E "s/$dur/D/g; s/ +/ /g; s/^ //" "$tmp/un.txt")" ] || return 1
		! grep -E '[0-9]+\.[0-9]+(us|ms)\b' "$tmp/un.txt" || return 1
	done
	"$S" latency "$tmp/t.fxt" >"$tmp/u.txt" &&
		grep -Eq '^  p50 [0-9.]+(ns|us|ms|s)  p90 [0-9.]+(ns|us|ms|s)  p99 [0-9.]+(ns|us|ms|s)  p99.9 [0-9.]+(ns|us|ms|s)  max [0-9.]+(ns|us|ms|s)(  \(|$)' "$tmp/u.txt" &&
		grep -qx '                 latency : count    distribution *' "$tmp/u.txt" &&
		grep -Eq '^ +[0-9.]+(ns|us|ms) -> [0-9.]+(ns|us|ms) +: [0-9]+ +\|' "$tmp/u.txt" &&
		"$S" summary "$tmp/t.fxt" | grep -Eq '^ +0 +[0-9.]+(us|ms|s) +[0-9.]+(ns|us|ms|s) +[0-9.]+% +[0-9]+$'
}
t "text output: durations with a unit (2.65ms), exact in ns with --ns, nothing else changed by it (latency, -T, -P, top, summary)" text_units

# Times in the text count from the trace's start, stated once on the
# trace's clock, and paste back into --from and --to: top's "runnable from
# X" is the start of an interval that --from X keeps (its start_ns in
# --intervals is the trace's start + X) and --to X leaves out; summary's
# time span is the --from/--to window given; with --ns, the same in ns.
paste_back() {
	"$S" top "$tmp/t.fxt" -n 3 >"$tmp/pb.txt" &&
		"$S" top "$tmp/t.fxt" -n 3 --ns >"$tmp/pbn.txt" &&
		"$S" summary "$tmp/t.fxt" >"$tmp/pbs.txt" || return 1
	[ "$(head -n 1 "$tmp/pb.txt")" = "$(head -n 1 "$tmp/pbs.txt")" ] || return 1
	python3 - "$S" "$tmp" <<'PY'
import csv, io, re, subprocess, sys
S, tmp = sys.argv[1], sys.argv[2]
def ns(t):	# "12.345678901s" or "12345678901ns", exactly
    if t.endswith("ns"):
        return int(t[:-2])
    a, b = t[:-1].split(".")
    assert len(b) == 9, t
    return int(a) * 10**9 + int(b)
def run(*a):
    return subprocess.run([S, *a], check=True, capture_output=True, text=True).stdout
txt = open(tmp + "/pb.txt").read().splitlines()
raw = open(tmp + "/pbn.txt").read().splitlines()
m = re.fullmatch(r"trace start: (\S+) on the trace's clock \(fxt-collect's: CLOCK_BOOTTIME\); times below count from it, as --from and --to do", txt[0])
assert m, txt[0]
t0 = ns(m.group(1))
assert raw[0] == txt[0].replace(m.group(1), "%dns" % t0), raw[0]
tops = [(int(re.match(r"#\d+ \w+ latency \S+: tid (\d+)", txt[i - 1]).group(1)), l.split()[2])
        for i, l in enumerate(txt) if l.startswith("   runnable from ")]
assert len(tops) == 3, txt
for (tid, x), l in zip(tops, [l for l in raw if l.startswith("   runnable from ")]):
    assert l.split()[2] == "%dns" % ns(x), (x, l)
    for f in (x, "%dns" % ns(x)):
        rows = list(csv.DictReader(io.StringIO(run("latency", tmp + "/t.fxt", "--intervals", "--tid", str(tid), "--from", f))))
        assert any(int(r["start_ns"]) - t0 == ns(x) for r in rows), (x, rows)
        rows = list(csv.DictReader(io.StringIO(run("latency", tmp + "/t.fxt", "--intervals", "--tid", str(tid), "--to", f))))
        assert not any(int(r["start_ns"]) - t0 == ns(x) for r in rows), (x, rows)
a, b = tops[0][1], tops[1][1]
lo, hi = sorted((a, b), key=ns)
if lo != hi:
    span = [l for l in run("summary", tmp + "/t.fxt", "--from", lo, "--to", hi).splitlines() if l.startswith("time span: ")]
    assert span and span[0].startswith("time span: %s .. %s (" % (lo, hi)), (lo, hi, span)
PY
}
t "text times count from the trace's start (stated once, on its clock) and paste back into --from/--to, exact (top, summary, --ns)" paste_back

# ---- the hand-made traces of fixtures.h (answers worked out there) ----
F=$tmp/fx
mkdir -p "$F" && "$B/obj/tests/mk_fixture" "$F" || echo "not ok - mk_fixture"
H=kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name
# A count of one takes the singular, in every text output and warning of
# every fixture ("1 intervals", "4 in 1 holes", "1 holes (loss markers)"
# before). late_hole.fxt with --reorder-window 1us has its late hole.
singular_counts() {
	for f in "$F"/*.fxt; do
		for cmd in "latency -T" "latency -P" "top -n 100" summary \
			   "summary --reorder-window 1us"; do
			# shellcheck disable=SC2086
			"$S" $cmd "$f" >"$tmp/sg.out" 2>&1
			cat "$tmp/sg.out"
		done
		{ "$J" "$f" --reorder-window 1us >/dev/null; } 2>&1
	done >"$tmp/sg.all"
	# the fixtures have counts of one to say (else the test says nothing)
	grep -q ': 1 interval$' "$tmp/sg.all" && grep -q ' in 1 hole ' "$tmp/sg.all" &&
		grep -q ': 1 hole (loss marker) arrived' "$tmp/sg.all" || return 1
	! grep -E '(^|[^0-9.])1 (more |buffer-full provider |scheduling )?(intervals|holes|slices|wakeups|context switches|records|events|bytes|threads|waits)([^a-z]|$)' "$tmp/sg.all"
}
t "text output: a count of one takes the singular (1 interval, 1 hole, 1 slice...), every command on every fixture, fxt-sched and fxt2json" singular_counts
# summary --from/--to with units (ms, s), by hand from build_filtered():
# the trace starts at 1000 (cpu1's first switch), so the window is
# [1500, 2500). cpu0: idle 1200..2050 (550 of it inside), 201 2050..2100
# (50), idle 2100..3400 (400 inside); 2 switches inside (2050, 2100).
# cpu1: 301 from 1000 on, never switched out: counted up to the trace's
# end (3500), 1000 of it inside; the window's end (2500) cut it, not the
# trace's, so it is not running_at_end (1 before the fix: it was said to
# be still running at the trace's end). Threads: 301 (no name, pid 0) ran 1000;
# 201 ran 50, switched out once (blocked), woken once (2000); 101 has
# nothing inside (its switch-out at 1200, its wakeup at 3000).
t "summary --from 0.0005ms --to 0.0000015s: the window [1500, 2500) of filtered.fxt, CPU and thread figures as worked out by hand" "[ \"\$('$S' summary '$F/filtered.fxt' --from 0.0005ms --to 0.0000015s --csv)\" = 'record,id,pid,name,runtime_ns,idle_ns,switches,voluntary,involuntary,migrations,wakeups,running_at_end,unknown_ns
cpu,0,,,50,950,2,,,,,0,0
cpu,1,,,1000,0,0,,,,,0,0
thread,301,0,,1000,,0,0,0,0,0,0,
thread,201,200,other-1,50,,1,1,0,0,1,0,' ] && '$S' summary '$F/filtered.fxt' --from 0.0005ms --to 0.0000015s | grep -qx 'time span: 0.000000500s .. 0.000001500s (1.00us)'"
t "--intervals --pid: filters apply, names at the end of the file" "[ \"\$('$S' latency '$F/filtered.fxt' --intervals --pid 100)\" = \"$H
wakeup,101,0,0,1000,1100,100,100,app-main
wakeup,101,0,0,3000,3400,400,100,app-main\" ]"
t "--intervals --comm --csv and --tid --json" "[ \"\$('$S' latency '$F/filtered.fxt' --intervals --comm 'other*' --csv)\" = \"$H
wakeup,201,0,0,2000,2050,50,200,other-1\" ] && '$S' latency '$F/filtered.fxt' --intervals --tid 201 --json | python3 -c '
import json,sys
d=json.load(sys.stdin)[\"intervals\"]
assert [(x[\"tid\"],x[\"name\"],x[\"latency_ns\"]) for x in d]==[(201,\"other-1\",50)], d'"
# Every filter on every subcommand and output: the selected thread shows,
# the other never does. filtered.fxt: 101 app-main (pid 100), 201 other-1
# (pid 200, its only interval ends at 2050, inside --from 500ns --to 1500ns).
for filter in "--pid 200" "--tid 201" "--comm other*" "--from 500ns --to 1500ns"; do
	for cmd in "latency -T" "latency -P" "latency --intervals" "top" "summary"; do
		for fmt in "" --json --csv; do
			want=other-1 not=app-main
			# text -P lists processes only: "pid = 200 other"
			[ "$cmd$fmt" = "latency -P" ] && want="pid = 200 other" not="pid = 100"
			t "$cmd $fmt $filter: only other-1" "'$S' $cmd '$F/filtered.fxt' $fmt $filter >'$tmp/f.out' && grep -q '$want' '$tmp/f.out' && ! grep -q '$not' '$tmp/f.out'"
		done
	done
done
# top -n N is a full sort of every interval of the selected threads (from
# latency --intervals, same filters) by latency desc, end asc, tid asc, cut
# at N. top_ties.fxt has many equal latencies, within a thread and across
# CPUs at equal ends; --pid and --comm (names renamed halfway or at the end)
# read the input twice, also from a pipe.
set -f	# the --comm globs are fxt-sched's, not the shell's
for filter in "" "--tid 100,103,104,109" "--pid 2" "--comm b-*" "--comm a-* --from 50us --to 250us" "--comm *1* --pid 2"; do
	for n in 1 2 3 8 65 1000; do
		t "top -n $n $filter on top_ties.fxt = latency --intervals sorted, cut at $n (file and pipe)" "'$S' latency '$F/top_ties.fxt' --intervals $filter --csv >'$tmp/i.csv' && '$S' top '$F/top_ties.fxt' -n $n $filter --csv >'$tmp/t.csv' && cat '$F/top_ties.fxt' | '$S' top - -n $n $filter --csv | cmp -s - '$tmp/t.csv' && python3 -c '
import csv,sys
iv=[(int(r[\"latency_ns\"]),int(r[\"end_ns\"]),int(r[\"tid\"]),r[\"kind\"],int(r[\"cpu\"]),int(r[\"start_ns\"])) for r in csv.DictReader(open(sys.argv[1]))]
assert iv
iv.sort(key=lambda x:(-x[0],x[1],x[2]))
top=[(int(r[\"latency_ns\"]),int(r[\"end_ns\"]),int(r[\"tid\"]),r[\"kind\"],int(r[\"cpu\"]),int(r[\"start_ns\"])) for r in csv.DictReader(open(sys.argv[2]))]
assert top==iv[:int(sys.argv[3])], (top[:5],iv[:5])
' '$tmp/i.csv' '$tmp/t.csv' $n"
	done
done
set +f
t "start of trace: wakeups before the first switch are not counted (top #1 is 4800, not 7700)" "'$S' top '$F/start.fxt' -n 1 | grep -q '^#1 preempt latency 4.80us: tid 125 fxt-collect' && '$S' summary '$F/start.fxt' | grep -q 'not counted (all threads): 1 interval begun before'"
t "reused tid: each incarnation with its own name, pid and runtime" "'$S' summary '$F/reuse.fxt' --csv | grep -q '^thread,101,100,old-name,1000,' && '$S' summary '$F/reuse.fxt' --csv | grep -q '^thread,101,200,new-name,600,' && [ \"\$('$S' latency '$F/reuse.fxt' --intervals)\" = \"$H
wakeup,101,1,1,3000,3400,400,200,new-name\" ]"
t "records_lost holes: latency and top warn on stderr that waits spanning them were not counted; summary (whose output lists them) does not, nor latency on a trace without holes" "'$S' latency '$F/holes.fxt' >/dev/null 2>'$tmp/e.txt' && grep -qx \"fxt-sched: warning: $F/holes.fxt: records are missing from 1 hole (records_lost or bytes_skipped markers; summary lists them by CPU): 3 waits spanning one were not counted, and the longest waits may be among them\" '$tmp/e.txt' && '$S' top '$F/holes.fxt' >/dev/null 2>'$tmp/e.txt' && grep -q 'records are missing from 1 hole' '$tmp/e.txt' && '$S' summary '$F/holes.fxt' >/dev/null 2>'$tmp/e.txt' && [ ! -s '$tmp/e.txt' ] && '$S' latency '$F/filtered.fxt' >/dev/null 2>'$tmp/e.txt' && [ ! -s '$tmp/e.txt' ]"
# What the text says on stderr about a trace's losses, --json says in its
# output, in latency and top as in summary, under summary's key names:
# "dropped" (the same object), "not_counted", and "cut_short" (the closing
# records_dropped sample missing: the stderr warning). holes.fxt: a hole, 3
# waits across it; collected.fxt: the same as fxt-collect writes it, both
# samples (2 records dropped per CPU); cut_short.fxt: the closing one
# missing, so the results end at cpu1's last switch (2000 ns after the
# start), before the 3 waits across the hole end: none is counted or left
# out, and "cut_short_end_ns" says so; filtered.fxt: nothing lost.
# (Before, latency --json had only not_counted, top --json none of them,
# and no output had cut_short.)
json_losses() {
	for f in holes collected cut_short filtered; do
		for cmd in latency top summary; do
			"$S" $cmd "$F/$f.fxt" --json >"$tmp/l-$cmd.json" 2>/dev/null || return 1
			"$S" $cmd "$F/$f.fxt" >/dev/null 2>"$tmp/l-$cmd.err" || return 1
		done
		python3 - "$tmp" "$f" <<'PY' || return 1
import json, re, sys
tmp, f = sys.argv[1], sys.argv[2]
want = {"holes": (1, 3, False, 0, None), "collected": (1, 3, False, 4, None),
        "cut_short": (1, 0, True, 0, 2000), "filtered": (0, 0, False, 0, None)}[f]
seen = None
for cmd in ("latency", "top", "summary"):
    d = json.load(open(f"{tmp}/l-{cmd}.json"))
    got = (d["dropped"]["lost_holes"] + d["dropped"]["skip_holes"],
           d["not_counted"]["across_lost_records"], d["cut_short"],
           d["dropped"]["records_dropped"], d["cut_short_end_ns"])
    assert got == want, (f, cmd, got, want)
    assert isinstance(d["cut_short"], bool), (f, cmd)
    losses = (d["dropped"], d["not_counted"])
    assert seen is None or losses == seen, (f, cmd, losses, seen)
    seen = losses
    err = open(f"{tmp}/l-{cmd}.err").read()
    assert ("closing records_dropped sample is missing" in err) == d["cut_short"], (f, cmd, err)
    assert ("the results end at 0.000002000s (as with --to 0.000002000s), cpu1's last context switch" in err) == (f == "cut_short"), (f, cmd, err)
    if cmd != "summary":
        m = re.search(r"records are missing from (\d+) holes?.*: (\d+) waits? spanning", err)
        said = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        assert said == got[:2], (f, cmd, err, got)
PY
	done
}
# The holes warning says what is true of the window (holes.fxt: cpu1's
# hole from 1000 to 2000 ns after the start; C's, D's and E's waits span
# it and end at 4000, 4500 and 5000). --to 1000ns: the hole is outside the
# window, nothing in it is missing: a note, no "longest waits". --to
# 1500ns: the hole is in it but no wait ending there spans it: one that
# ended inside it would not be seen at all. --from 4200ns: the hole is
# outside, but D's and E's waits across it end in the window: not counted,
# the longest may be among them. (Before: each said "N waits spanning one
# were not counted, and the longest waits may be among them", also for 0.)
holes_window_warning() {
	p="fxt-sched: %s: $F/holes.fxt: records are missing from 1 hole (records_lost or bytes_skipped markers; summary lists them by CPU)%s"
	for cmd in latency top; do
		"$S" $cmd "$F/holes.fxt" --to 1000ns >/dev/null 2>"$tmp/e.txt" &&
		[ "$(cat "$tmp/e.txt")" = "$(printf "$p" note ', none of them in the window: 0 waits spanning one were not counted')" ] &&
		"$S" $cmd "$F/holes.fxt" --to 1500ns >/dev/null 2>"$tmp/e.txt" &&
		[ "$(cat "$tmp/e.txt")" = "$(printf "$p" warning ': 0 waits spanning one were not counted, but a wait that ended inside a hole would not be seen at all')" ] &&
		"$S" $cmd "$F/holes.fxt" --from 4200ns >/dev/null 2>"$tmp/e.txt" &&
		[ "$(cat "$tmp/e.txt")" = "$(printf "$p" warning ', none of them in the window: 2 waits spanning one were not counted, and the longest waits may be among them')" ] || return 1
	done
}
t "latency and top: the holes warning with 0 waits not counted does not say the longest may be among them; with no hole in the window a note says so (holes.fxt, --to 1000ns, --to 1500ns, --from 4200ns)" holes_window_warning
t "latency, top and summary --json: dropped, not_counted and cut_short, the same in each and as the stderr warnings say (holes, collected, cut_short, filtered)" json_losses
# A trace cut short whose CPUs' records end at different times
# (fixtures.h build_cut_wait()): 103's wait of 3.50us never was (it ran on
# cpu1 after cpu1's records end). The results end at cpu1's last switch,
# 1.50us after the start, where only 104's wait of 300ns is whole: so in
# top (the wait that never was would rank first), read from a file or a
# pipe (read twice: the input is kept), and in a filtered top (its own two
# passes). --to keeps its window, and the old warning; with the closing
# sample (cut_wait_closed.fxt) nothing ends early.
cut_wait() {
	want='#1 wakeup latency 300ns: tid 104 (pid 0) on cpu 1'
	end="the results end at 0.000001500s (as with --to 0.000001500s), cpu1's last context switch, of the 0.000005000s the trace spans"
	"$S" top "$F/cut_wait.fxt" >"$tmp/c.txt" 2>"$tmp/c.err" || return 1
	grep -qx "$want" "$tmp/c.txt" && ! grep -q '^#2' "$tmp/c.txt" &&
		grep -qF "$end" "$tmp/c.err" || return 1
	cat "$F/cut_wait.fxt" | "$S" top - -v >"$tmp/c.txt" 2>"$tmp/c.err" || return 1
	grep -qx "$want" "$tmp/c.txt" && ! grep -q '^#2' "$tmp/c.txt" &&
		grep -qF "$end" "$tmp/c.err" &&
		grep -q 'read twice (cut short' "$tmp/c.err" || return 1
	"$S" top "$F/cut_wait.fxt" --pid 0 -n 5 >"$tmp/c.txt" 2>"$tmp/c.err" || return 1
	grep -qx "$want" "$tmp/c.txt" && ! grep -q '^#2' "$tmp/c.txt" &&
		grep -qF "$end" "$tmp/c.err" || return 1
	"$S" latency "$F/cut_wait.fxt" --intervals >"$tmp/c.txt" 2>/dev/null || return 1
	[ "$(tail -n +2 "$tmp/c.txt")" = "wakeup,104,1,1,1100,1400,300,0," ] || return 1
	"$S" summary "$F/cut_wait.fxt" --json 2>/dev/null |
		grep -q '"cut_short": true, "cut_short_end_ns": 1500,' || return 1
	"$S" top "$F/cut_wait.fxt" --to 10us >"$tmp/c.txt" 2>"$tmp/c.err" || return 1
	grep -qx '#1 wakeup latency 3.50us: tid 103 (pid 0) on cpu 0' "$tmp/c.txt" &&
		grep -q 'distrust results near the end' "$tmp/c.err" &&
		! grep -q 'the results end at' "$tmp/c.err" || return 1
	"$S" top "$F/cut_wait.fxt" --from 2us >"$tmp/c.txt" 2>"$tmp/c.err" || return 1
	grep -q 'distrust results near the end' "$tmp/c.err" || return 1
	"$S" top "$F/cut_wait_closed.fxt" >"$tmp/c.txt" 2>"$tmp/c.err" || return 1
	grep -qx '#1 wakeup latency 3.50us: tid 103 (pid 0) on cpu 0' "$tmp/c.txt" &&
		[ ! -s "$tmp/c.err" ] || return 1
	"$S" latency "$F/cut_wait_closed.fxt" --json 2>/dev/null |
		grep -q '"cut_short": false, "cut_short_end_ns": null' || return 1
}
# fxt-collect's drop markers and samples of more than one event are not
# its closing sample (drop_samples.h): marked.fxt is whole, marked_cut.fxt
# (the same without the closing sample) was cut short.
t "cut short or not, told by fxt-collect's samples, not its drop markers nor a sample's second event (marked, marked_cut)" "'$S' summary '$F/marked.fxt' --json 2>'$tmp/m.err' | grep -q '\"cut_short\": false' && [ ! -s '$tmp/m.err' ] && '$S' summary '$F/marked_cut.fxt' --json 2>'$tmp/m.err' | grep -q '\"cut_short\": true' && grep -q 'closing records_dropped sample is missing' '$tmp/m.err'"
t "a trace cut short: the results end where the first CPU's records do, so a wait that never was is not counted (top, a pipe, a filtered top, --intervals, summary --json); --to keeps its window; nothing ends early with the closing sample (cut_wait, cut_wait_closed)" cut_wait
t "records_lost holes: summary and not-counted intervals" "'$S' summary '$F/holes.fxt' | grep -q '^records lost (records_lost markers): 4 in 1 hole cpu1=4\$' && '$S' latency '$F/holes.fxt' --json | grep -q '\"not_counted\": {\"before_first_switch\": 0, \"across_lost_records\": 3}'"
t "threads asleep when a hole began: a wakeup seen after it may not start their wait (hole_sleepers.fxt: 4 not counted, the 4 others listed)" "[ \"\$('$S' latency '$F/hole_sleepers.fxt' --intervals)\" = \"$H
preempt,400,2,2,4800,5200,400,400,W
preempt,200,0,0,5000,6000,1000,200,X
wakeup,100,0,2,7000,7300,300,100,V
preempt,200,0,0,7300,8000,700,200,X\" ] && '$S' latency '$F/hole_sleepers.fxt' --json | grep -q '\"not_counted\": {\"before_first_switch\": 0, \"across_lost_records\": 4}'"
t "a loss marker beyond a --reorder-window: applied late, counted and reported, exit 3 (late_hole.fxt, --reorder-window 1us: stderr, summary text and JSON, fxt2json); in time (2s): nothing to report, exit 0" "'$S' summary '$F/late_hole.fxt' --reorder-window 1us >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 3 ] && grep -q '^fxt-sched: warning: .*late_hole.fxt: 1 hole (loss marker) arrived more than the reorder window after newer records (first at offset [0-9]*, up to 2.00us late)' '$tmp/e.txt' && grep -qx 'holes beyond the reorder window (applied late): 1' '$tmp/o.txt' && { '$S' summary '$F/late_hole.fxt' --reorder-window 1us --json 2>/dev/null; [ \$? -eq 3 ]; } | grep -q '\"late_skipped\": 0, \"late_holes\": 1}' && { '$J' '$F/late_hole.fxt' --reorder-window 1us >/dev/null 2>'$tmp/e2.txt'; [ \$? -eq 3 ]; } && grep -q '^fxt2json: warning: .*late_hole.fxt: 1 hole (loss marker) beyond the reorder window applied late (first at offset [0-9]*, up to 2.00us late)' '$tmp/e2.txt' && '$S' summary '$F/late_hole.fxt' --reorder-window 2s >'$tmp/o.txt' 2>'$tmp/e.txt' && [ ! -s '$tmp/e.txt' ] && ! grep -q 'applied late' '$tmp/o.txt' && '$S' summary '$F/late_hole.fxt' --json | grep -q '\"late_skipped\": 0, \"late_holes\": 0}'"
# Records further out of order than the default window (late_sched.fxt:
# a wakeup 6 s behind, as after a stalled fxt-collect): without
# --reorder-window the file is read again with a window that fits it.
# The first two intervals are spooled before the late record is seen:
# the second read must list them once (LS_EARLY: all a 2 s window finds).
# That tests the spool's rewind; its truncation is the late_lost test's,
# since here the second read writes all the first wrote and more: no byte
# of the first is left past its end.
LS_EARLY='kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name
wakeup,300,0,0,1200000000,1400000000,200000000,100,early
preempt,100,0,0,1400000000,1600000000,200000000,100,waker'
LS_WANT="$LS_EARLY
wakeup,200,0,1,2000000000,7000000000,5000000000,200,sleeper"
t "records 6 s out of order, no --reorder-window: read again with a 6 s window, the 5 s interval found, the intervals spooled before it listed once, exit 0, a note says so (file and pipe)" "'$S' latency '$F/late_sched.fxt' --intervals >'$tmp/o.txt' 2>'$tmp/e.txt' && [ \"\$(cat '$tmp/o.txt')\" = \"$LS_WANT\" ] && [ \"\$(cat '$tmp/e.txt')\" = \"fxt-sched: note: $F/late_sched.fxt: records up to 6.000000000 s out of order, more than the 2.000000000 s reorder window: read again with a window of 6.000000001 s (memory grows with it; --reorder-window keeps a fixed one)\" ] && cat '$F/late_sched.fxt' | '$S' latency - --intervals >'$tmp/o2.txt' 2>/dev/null && cmp -s '$tmp/o.txt' '$tmp/o2.txt'"
t "records 6 s out of order: top --comm (two passes) and summary see the 5 s wait and the sleeper's run, exit 0" "'$S' top '$F/late_sched.fxt' --comm 'sl*' --csv 2>/dev/null | grep -q '^1,wakeup,200,200,sleeper,0,1,100,2000000000,7000000000,5000000000,' && '$S' summary '$F/late_sched.fxt' --json 2>/dev/null | grep -q '\"late_skipped\": 0, \"late_holes\": 0}'"
t "records 6 s out of order, --reorder-window 2s kept: the wakeup left out, exit 3, the warning names the window that takes it in, and that window pasted back does" "'$S' latency '$F/late_sched.fxt' --intervals --reorder-window 2s >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 3 ] && [ \"\$(cat '$tmp/o.txt')\" = \"$LS_EARLY\" ] && grep -q '^fxt-sched: warning: .*late_sched.fxt: 1 scheduling record arrived more than the reorder window after newer ones (first at offset [0-9]*, up to 1.00s late) and was left out; --reorder-window 6000000001ns or more, or none, takes them in\$' '$tmp/e.txt' && ! grep -q note '$tmp/e.txt' && '$S' latency '$F/late_sched.fxt' --intervals --reorder-window 6000000001ns >'$tmp/o.txt' 2>'$tmp/e.txt' && [ \"\$(cat '$tmp/o.txt')\" = \"$LS_WANT\" ] && [ ! -s '$tmp/e.txt' ]"
# A loss marker pair 6.5 s behind (late_lost.fxt): the first read applies
# the hole late and spools two rows, the second applies it in time and
# spools one, shorter than the first's two: without the spool's truncation
# the second row of the first read would be listed after it.
LL_WANT='kind,tid,cpu,wait_cpu,start_ns,end_ns,latency_ns,pid,name
wakeup,300,0,0,1200000000,1400000000,200000000,100,early'
t "a hole 6.5 s out of order, no --reorder-window: read again, the wait across it not counted; the second read's one row listed, not the first read's second row after it (file and pipe); --reorder-window 2s kept: both rows, exit 3" "'$S' latency '$F/late_lost.fxt' --intervals >'$tmp/o.txt' 2>'$tmp/e.txt' && [ \"\$(cat '$tmp/o.txt')\" = \"$LL_WANT\" ] && grep -q '^fxt-sched: note: .*late_lost.fxt: records up to 6.500000000 s out of order' '$tmp/e.txt' && cat '$F/late_lost.fxt' | '$S' latency - --intervals >'$tmp/o2.txt' 2>/dev/null && cmp -s '$tmp/o.txt' '$tmp/o2.txt' && '$S' latency '$F/late_lost.fxt' --json 2>/dev/null | grep -q '\"not_counted\": {\"before_first_switch\": 0, \"across_lost_records\": 1}' && { '$S' latency '$F/late_lost.fxt' --intervals --reorder-window 2s >'$tmp/o.txt' 2>/dev/null; [ \$? -eq 3 ]; } && [ \"\$(cat '$tmp/o.txt')\" = \"$LL_WANT
preempt,100,0,0,1400000000,1600000000,200000000,100,waker\" ]"
t "fxt2json, records 6 s out of order: the wakeup converted with no --reorder-window (a note, exit 0); left out with --reorder-window 2s (exit 3)" "'$J' '$F/late_sched.fxt' >'$tmp/w.json' 2>'$tmp/e.txt' && grep -q '\"name\": \"wakeup\", .*\"tid\": 200, \"ts\": 2000000.000' '$tmp/w.json' && grep -q '^fxt2json: note: .*late_sched.fxt: records up to 6.000000000 s out of order' '$tmp/e.txt' && '$J' '$F/late_sched.fxt' --reorder-window 2s >'$tmp/w2.json' 2>'$tmp/e.txt'; [ \$? -eq 3 ] && ! grep -q '\"name\": \"wakeup\", .*\"tid\": 200,' '$tmp/w2.json' && grep -q '^fxt2json: warning: .*late_sched.fxt: 1 scheduling record beyond the reorder window left out (first at offset [0-9]*); --reorder-window 6000000001ns or more, or none, takes them in\$' '$tmp/e.txt' && json_ok '$tmp/w2.json'"
t "top after a records-lost hole: the interval's history is incomplete (text, JSON, CSV), not 'nothing recorded'" "'$S' top '$F/hole_top.fxt' >'$tmp/h.txt' && '$S' top '$F/hole_top.fxt' --json >'$tmp/h.json' && '$S' top '$F/hole_top.fxt' --csv >'$tmp/h.csv' && python3 -c '
import csv,json,sys
txt=open(sys.argv[1]).read()
assert \"nothing recorded\" not in txt, txt
ran=[l for l in txt.splitlines() if l.startswith(\"   ran on cpu\")]
assert len(ran)==2, txt
assert \"history incomplete: a hole in the trace on cpu 1 (records lost by the kernel, or ring data the collector skipped)\" in ran[0], ran
assert ran[1]==\"   ran on cpu 1 meanwhile: tid 11 A 3.00us (1)\", ran
top=json.load(open(sys.argv[2]))[\"top\"]
assert [(e[\"tid\"],e[\"history_truncated\"]) for e in top]==[(11,True),(31,False)], top
assert top[0][\"ran_meanwhile\"]==[], top
rows=list(csv.DictReader(open(sys.argv[3])))
assert [(r[\"tid\"],r[\"history_truncated\"]) for r in rows]==[(\"11\",\"1\"),(\"31\",\"0\")], rows
' '$tmp/h.txt' '$tmp/h.json' '$tmp/h.csv'"
t "top: 'ran meanwhile' lists the 8 tasks that ran longest, the rest summed (top_many.fxt: hog's 1000500 ns first, not in the rest; text durations with a unit, exact with --ns)" "'$S' top '$F/top_many.fxt' -n 1 | grep -qxF '   ran on cpu 0 meanwhile: tid 201 hog 1.00ms (3), tid 309 s309 1.00us (1), tid 308 s308 1.00us (1), tid 307 s307 1.00us (1), tid 306 s306 1.00us (1), tid 305 s305 1.00us (1), tid 304 s304 1.00us (1), tid 303 s303 1.00us (1), 4 more slices 3.00us' && '$S' top '$F/top_many.fxt' -n 1 --ns | grep -qxF '   ran on cpu 0 meanwhile: tid 201 hog 1000500ns (3), tid 309 s309 1000ns (1), tid 308 s308 1000ns (1), tid 307 s307 1000ns (1), tid 306 s306 1000ns (1), tid 305 s305 1000ns (1), tid 304 s304 1000ns (1), tid 303 s303 1000ns (1), 4 more slices 3000ns' && '$S' top '$F/top_many.fxt' -n 1 --csv | grep -q ',\"201:hog:1000500;309:s309:1000;308:s308:1000;307:s307:1000;306:s306:1000;305:s305:1000;304:s304:1000;303:s303:1000\",3000,0\$'"
t "a process without a name: '(pid 10)', no stray space (top, latency -T -P)" "'$S' top '$F/hole_top.fxt' | grep -q '^#1 wakeup latency 3.00us: tid 11 A (pid 10) on cpu 1\$' && '$S' latency -T '$F/hole_top.fxt' | grep -q '^tid = 31 C (pid 30)\$' && '$S' latency -P '$F/hole_top.fxt' | grep -q '^pid = 30\$'"
t "a thread with an empty name: 'tid 101 (pid 100)', no double space or trailing one (top, its waker and ran-meanwhile list, latency -T)" "'$S' top '$F/empty_names.fxt' >'$tmp/en.txt' && '$S' latency -T '$F/empty_names.fxt' >>'$tmp/en.txt' && python3 -c '
import sys
txt=open(sys.argv[1]).read()
lines=txt.splitlines()
for want in [\"#1 preempt latency 4.00us: tid 101 (pid 100) on cpu 0\",
             \"   ran on cpu 0 meanwhile: tid 102 4.00us (1)\",
             \"#2 wakeup latency 3.50us: tid 102 (pid 100) on cpu 0\",
             \"   ran on cpu 0 meanwhile: tid 101 3.50us (1)\",
             \"tid = 101 (pid 100)\", \"tid = 102 (pid 100)\"]:
    assert want in lines, (want, txt)
assert any(l.endswith(\" woken on cpu 0 by tid 101\") for l in lines), txt
named=[l for l in lines if l.startswith((\"#\", \"   r\", \"tid = \"))]
assert len(named)==8 and not any(\"  (\" in l or l.endswith(\" \") for l in named), named
' '$tmp/en.txt'"
t "text output: control bytes in names are escaped as fxt-dump does, no escape sequence or broken line (top, latency -T, -P, summary; the summary table aligned)" "'$S' top '$F/ctl_names.fxt' >'$tmp/cn.txt' && '$S' latency -T '$F/ctl_names.fxt' >>'$tmp/cn.txt' && '$S' latency -P '$F/ctl_names.fxt' >>'$tmp/cn.txt' && '$S' summary '$F/ctl_names.fxt' >>'$tmp/cn.txt' && python3 -c '
import re,sys
b=open(sys.argv[1],\"rb\").read()
bad=[c for c in b if (c<0x20 and c!=0x0a) or c==0x7f]
assert not bad, bad
lines=b.decode().splitlines()
a=r\"a\\x1b[31mb\\nc\\\\d\\x7f\"; tb=r\"tab\\x09here\"; p=r\"p\\x1b]0;x\\x07\"
for want in [\"#1 preempt latency 4.00us: tid 101 %s (pid 100 %s) on cpu 0\" % (a,p),
             \"   ran on cpu 0 meanwhile: tid 102 %s 4.00us (1)\" % tb,
             \"#2 wakeup latency 3.50us: tid 102 %s (pid 100 %s) on cpu 0\" % (tb,p),
             \"   ran on cpu 0 meanwhile: tid 101 %s 3.50us (1)\" % a,
             \"tid = 101 %s (pid 100 %s)\" % (a,p), \"tid = 102 %s (pid 100 %s)\" % (tb,p),
             \"pid = 100 %s\" % p]:
    assert want in lines, (want, lines)
assert any(l.endswith(\" woken on cpu 0 by tid 101 \" + a) for l in lines), lines
rows=[l for l in lines if re.match(r\" +10[12] +100 \", l)]
assert len(rows)==2, lines
assert rows[0].split()[2]==a and rows[1].split()[2]==tb, rows
assert rows[1][18:34]==tb.ljust(16) and rows[1][34]==\" \", rows
' '$tmp/cn.txt'"
# Threads created in the trace (new_task) on reused tids, names at the end:
# a tid's first thread takes its first name only if that is not a later
# thread's (each thread_name once; 18 of 683 came twice before 122833e).
t "fxt2json: a new_task thread's name is given to no earlier thread of its tid: one thread_name per (pid, tid); a thread reusing a tid in the same process has a stand-in tid (args.tid the real one)" "'$B/obj/tests/gen_trace' -o '$tmp/b.fxt' -c 4 -t 24 -n 30000 --seed 1 --names-at-end --kernel-names --births >/dev/null && '$J' '$tmp/b.fxt' | python3 -c '
import json,sys,collections
ev=json.load(sys.stdin)[\"traceEvents\"]
c=collections.Counter((e[\"pid\"],e[\"tid\"]) for e in ev if e[\"name\"]==\"thread_name\" and e[\"pid\"]<2147483647)
assert len(c) > 100 and max(c.values()) == 1, [k for k,v in c.items() if v > 1][:5]
s=[e for e in ev if e[\"name\"]==\"thread_name\" and 4194304<=e[\"tid\"]<2147483647]
assert s and all(e[\"args\"][\"tid\"]<4194304 and (e[\"pid\"],e[\"args\"][\"tid\"]) in c for e in s), s[:3]
'"
t "fxt2json: a reused tid's events move to its new process at its new name" "'$J' '$F/reuse.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
run=[(e[\"pid\"],e[\"ts\"]) for e in ev if e[\"name\"]==\"running\" and e[\"tid\"]==101]
assert run==[(100,1.0),(200,3.4)], run
wk=[e[\"pid\"] for e in ev if e[\"name\"]==\"wakeup\" and e[\"tid\"]==101]
assert wk==[200], wk
names={(e[\"pid\"],e[\"tid\"]):e[\"args\"][\"name\"] for e in ev if e[\"name\"]==\"thread_name\" and e[\"pid\"]<2147483647}
assert names=={(100,101):\"old-name\",(100,102):\"forker\",(200,101):\"new-name\"}, names
'"
t "fxt2json: records_lost markers as counters; a CPU slice ends where its hole starts" "'$J' '$F/holes.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
c=[(e[\"ts\"],e[\"id\"],e[\"args\"][\"cpu\"]) for e in ev if e[\"ph\"]==\"C\" and e[\"name\"]==\"records_lost\"]
assert c==[(2.0,1,4),(3.0,1,0)], c
b=[(e[\"ts\"],e[\"dur\"],e[\"args\"][\"end_state\"]) for e in ev if e[\"name\"]==\"running\" and e[\"tid\"]==102]
assert b==[(1.0,1.0,\"unknown\")], b
'"
t "fxt2json: the slice each CPU is running when the trace ends is shown, to the last timestamp, end_state unknown (not dropped)" "'$J' '$F/open_end.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
run=sorted((e[\"tid\"],e[\"ts\"],e[\"dur\"],e[\"args\"][\"cpu\"],e[\"args\"][\"end_state\"]) for e in ev if e[\"name\"]==\"running\")
assert run==[(101,1.0,4.0,0,\"unknown\"),(102,1.0,1.0,1,\"blocked\"),(102,3.5,1.5,1,\"unknown\"),(103,1.0,4.0,2,\"blocked\"),(104,1.0,1.0,3,\"unknown\")], run
cpu=sorted((e[\"tid\"],e[\"ts\"],e[\"dur\"],e[\"name\"]) for e in ev if e[\"ph\"]==\"X\" and e[\"pid\"]==2147483647)
assert cpu==[(0,1.0,4.0,\"spinner\"),(1,1.0,1.0,\"napper\"),(1,3.5,1.5,\"napper\"),(2,1.0,4.0,\"tid 103\"),(3,1.0,1.0,\"tid 104\")], cpu
'"
# The same slices in fxt-sched's summary (fixtures.h, build_open_end()):
# spinner's and napper's last, with no switch to end them, up to the
# trace's end (5000), and said so; cpu3's only to its hole. With --to the
# window clips them: [1000, 3000), and the window's end cut spinner's
# slice, not the trace's: no note, running_at_end 0.
t "summary: a thread that never leaves its CPU is counted up to the trace's end (cpu0 busy 4000, 100%; spinner 4000), with a note; not across a hole; --to clips it, without the note" "'$S' summary '$F/open_end.fxt' >'$tmp/o.txt' && grep -qx \"still running at the trace's end: 2 slices, counted up to it\" '$tmp/o.txt' && grep -qE '^ +0 +4.00us +0ns 100.00% +1 +0ns\$' '$tmp/o.txt' && grep -qE '^ +101 +100 spinner +4.00us +0 +0 +0 +0 +0\$' '$tmp/o.txt' && [ \"\$('$S' summary '$F/open_end.fxt' --csv)\" = 'record,id,pid,name,runtime_ns,idle_ns,switches,voluntary,involuntary,migrations,wakeups,running_at_end,unknown_ns
cpu,0,,,4000,0,1,,,,,1,0
cpu,1,,,2500,1500,3,,,,,1,0
cpu,2,,,4000,0,2,,,,,0,0
cpu,3,,,1000,0,1,,,,,0,3000
thread,101,100,spinner,4000,,0,0,0,0,0,1,
thread,103,0,,4000,,1,1,0,0,0,0,
thread,102,100,napper,2500,,1,1,0,0,1,1,
thread,104,0,,1000,,0,0,0,0,0,0,' ] && '$S' summary '$F/open_end.fxt' --json | grep -qx '\"running_at_end\": 2,' && [ \"\$('$S' summary '$F/open_end.fxt' --to 2000ns --csv | grep -e '^cpu,0,' -e '^thread,101,')\" = 'cpu,0,,,2000,0,1,,,,,0,0
thread,101,100,spinner,2000,,0,0,0,0,0,0,' ] && '$S' summary '$F/open_end.fxt' --to 2000ns >'$tmp/o.txt' && grep -qE '^ +101 +100 spinner +2.00us ' '$tmp/o.txt' && ! grep -q 'still running' '$tmp/o.txt'"
# The CSV says it too, per row (a running_at_end column, last): cpu0's and
# cpu1's last slices (spinner's, napper's) had no switch to end them;
# cpu2's ended with a switch, cpu3's at its hole. Every row has every
# column (csv.DictReader reads it), and the cpu rows sum to JSON's
# running_at_end, whose cpus and threads give the same values per row. A
# --tid filter leaves the cpu rows. The window's end, not the trace's
# (5000), cuts every slice running at --to when it is at or before the
# trace's end (t0 1000 + --to): none is running_at_end with --to 2000ns
# (napper's last slice, from 3500, is outside; spinner's is cut at 3000)
# nor with --to 4000ns (the window ends at 5000, the trace's end: what it
# counts is exact); --to 4001ns reaches beyond the trace's end, and both
# are counted up to it, as without --to. Text, CSV and JSON agree. (Before
# the fix, --to 2000ns and 4000ns had cpu0's and spinner's 1, and the
# text's note.)
csv_running_at_end() {
	for args in "" "--tid 101" "--to 2000ns" "--to 4000ns" "--to 4001ns"; do
		# shellcheck disable=SC2086
		"$S" summary "$F/open_end.fxt" --csv $args >"$tmp/s.csv" &&
		"$S" summary "$F/open_end.fxt" --json $args >"$tmp/s.json" &&
		python3 - "$tmp/s.csv" "$tmp/s.json" "$args" <<'PY' || return 1
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
assert head[-2:] == ["running_at_end", "unknown_ns"], head
assert all(len(r) == len(head) for r in body), rows
got = {(r[0], r[1]): r[-2] for r in body}
want = {"": {("cpu", "0"): "1", ("cpu", "1"): "1", ("cpu", "2"): "0",
             ("cpu", "3"): "0", ("thread", "101"): "1",
             ("thread", "102"): "1", ("thread", "103"): "0",
             ("thread", "104"): "0"},
        "--tid 101": {("cpu", "0"): "1", ("cpu", "1"): "1",
                      ("cpu", "2"): "0", ("cpu", "3"): "0",
                      ("thread", "101"): "1"},
        "--to 2000ns": {("cpu", "0"): "0", ("cpu", "1"): "0",
                      ("cpu", "2"): "0", ("cpu", "3"): "0",
                      ("thread", "101"): "0", ("thread", "102"): "0",
                      ("thread", "103"): "0", ("thread", "104"): "0"}}
want["--to 4000ns"] = {k: "0" for k in want[""]}
want["--to 4001ns"] = want[""]
assert got == want[sys.argv[3]], (sys.argv[3], got)
js = json.load(open(sys.argv[2]))
total = js["running_at_end"]
assert sum(int(v) for k, v in got.items() if k[0] == "cpu") == total, total
# JSON's rows say the same: true/false per cpu, a count per thread.
jgot = {("cpu", str(c["cpu"])): str(int(c["running_at_end"])) for c in js["cpus"]}
jgot.update({("thread", str(t["tid"])): str(t["running_at_end"]) for t in js["threads"]})
assert jgot == got, (sys.argv[3], jgot)
assert all(isinstance(c["running_at_end"], bool) for c in js["cpus"]), js["cpus"]
PY
		# shellcheck disable=SC2086
		"$S" summary "$F/open_end.fxt" $args >"$tmp/s.txt" || return 1
		n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["running_at_end"])' "$tmp/s.json")
		if [ "$n" -eq 0 ]; then
			! grep -q "still running" "$tmp/s.txt" || return 1
		else
			grep -qx "still running at the trace's end: $n slices, counted up to it" "$tmp/s.txt" || return 1
		fi
	done
}
t "summary --csv, --json and text: running_at_end per CPU and thread, as the text's note and JSON's total say (open_end.fxt; with --tid, and --to before, at and beyond the trace's end: only beyond it are slices said to run on)" csv_running_at_end
# A CPU's time from a hole's start to its next switch is neither busy nor
# idle: summary shows it as unknown, so that busy + idle + unknown is the
# CPU's time. open_end.fxt's cpu3 ran 104 from 1000 to its hole at 2000,
# then nothing known to the trace's end (5000): unknown 3000; 1000 of it
# in the window [1000, 3000) of --to 2000ns. A generated trace with holes
# of both kinds, from 5 ms on (after every CPU's first switch): every
# CPU's three add up to the span, in JSON, CSV and text --ns, with and
# without --to. (Before: no unknown anywhere; cpu3 1000 busy of a 4000 ns
# span, busy% 100, nothing said.)
summary_unknown() {
	"$S" summary "$F/open_end.fxt" >"$tmp/u.txt" &&
	grep -qE '^ +CPU +busy +idle +busy% +switches +unknown$' "$tmp/u.txt" &&
	grep -qE '^ +3 +1.00us +0ns 100.00% +1 +3.00us$' "$tmp/u.txt" &&
	grep -qx "(or the trace's end) is not known; busy% is of busy + idle, the known time" "$tmp/u.txt" &&
	"$S" summary "$F/open_end.fxt" --json | grep -qF '{"cpu": 3, "busy_ns": 1000, "idle_ns": 0, "busy_share": 1.000000, "switches": 1, "running_at_end": false, "unknown_ns": 3000}' &&
	[ "$("$S" summary "$F/open_end.fxt" --to 2000ns --csv | grep '^cpu,3,')" = 'cpu,3,,,1000,0,1,,,,,0,1000' ] || return 1
	"$G" -o "$tmp/u.fxt" -c 4 -n 20000 --losses --skips --seed 3 >/dev/null || return 1
	for win in "--from 5ms" "--from 5ms --to 1s"; do
		# shellcheck disable=SC2086
		"$S" summary "$tmp/u.fxt" $win --json >"$tmp/u.json" &&
		"$S" summary "$tmp/u.fxt" $win --csv >"$tmp/u.csv" &&
		"$S" summary "$tmp/u.fxt" $win --ns >"$tmp/u.txt" &&
		python3 - "$tmp/u.json" "$tmp/u.csv" "$tmp/u.txt" <<'PY' || return 1
import csv, json, re, sys
js = json.load(open(sys.argv[1]))
span = js["span_ns"]
assert js["dropped"]["lost_holes"] and js["dropped"]["skip_holes"], js["dropped"]
cpus = {c["cpu"]: (c["busy_ns"], c["idle_ns"], c["unknown_ns"]) for c in js["cpus"]}
assert len(cpus) == 4 and all(sum(v) == span for v in cpus.values()), (span, cpus)
assert any(v[2] for v in cpus.values()), cpus
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
assert {int(r["id"]): (int(r["runtime_ns"]), int(r["idle_ns"]), int(r["unknown_ns"]))
        for r in rows if r["record"] == "cpu"} == cpus
assert all(r["unknown_ns"] == "" for r in rows if r["record"] == "thread")
txt = {}
for line in open(sys.argv[3]):
    m = re.match(r" +(\d+) +(\d+)ns +(\d+)ns +[\d.]+% +\d+ +(\d+)ns$", line)
    if m:
        txt[int(m[1])] = tuple(int(x) for x in m.groups()[1:])
assert txt == cpus, (txt, cpus)
PY
	done
}
# summary -n N cuts the thread list, and the text says so as latency -T
# does: how many more, and the -n that lists them all (before: nothing).
# Not when nothing is cut, nor in JSON and CSV.
summary_not_listed() {
	all=$("$S" summary "$tmp/t.fxt" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))') &&
	[ "$all" -gt 4 ] || return 1
	"$S" summary "$tmp/t.fxt" -n 3 >"$tmp/n.txt" &&
	[ "$(tail -n 1 "$tmp/n.txt")" = "$((all - 3)) more threads not listed (the list holds those with the most runtime); -n $all lists them all" ] &&
	"$S" summary "$tmp/t.fxt" -n $((all - 1)) | tail -n 1 | grep -qx "1 more thread not listed (the list holds those with the most runtime); -n $all lists them all" &&
	! "$S" summary "$tmp/t.fxt" -n "$all" | grep -q 'not listed' &&
	! "$S" summary "$tmp/t.fxt" | grep -q 'not listed' &&
	! "$S" summary "$tmp/t.fxt" -n 3 --csv | grep -q 'not listed' &&
	! "$S" summary "$tmp/t.fxt" -n 3 --json | grep -q 'not listed'
}
t "summary -n 3: the text says how many threads are not listed and the -n that lists them all (as latency -T)" summary_not_listed
t "summary: a CPU's time in holes (from a hole's start to its next switch) is shown as unknown in text, JSON (unknown_ns) and CSV (unknown_ns, last): busy + idle + unknown is the CPU's time (open_end.fxt by hand, a generated trace with holes)" summary_unknown
t "fxt2json: a complete event's end tick is converted at its provider's tick rate (us ticks: 1 ms, also for an event at tick 0)" "'$J' '$F/us_ticks.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
w=[(e[\"ts\"],e[\"dur\"]) for e in ev if e[\"name\"]==\"work\"]
assert w==[(0.0,1000.0),(7.0,1000.0)], w
'"
t "fxt2json: a finite double argument is a number however large (1.5e308, +-DBL_MAX, 5e-324); NaN and infinity are null" "'$J' '$F/doubles.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
a=[e[\"args\"] for e in ev if e[\"name\"]==\"doubles\"]
assert a==[{\"big\":1.5e308,\"max\":1.7976931348623157e308,\"min\":-1.7976931348623157e308,\"tiny\":5e-324,\"nan\":None,\"inf\":None}], a
'"
t "fxt2json: a CPU track is named only where a slice runs (CPUs 0 and 4095 of sparse_cpus.fxt, not 4096 tracks; a wakeup to CPU 7 and a hole on CPU 9 name none)" "'$J' '$F/sparse_cpus.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
n=sorted((e[\"tid\"],e[\"args\"][\"name\"]) for e in ev if e[\"name\"]==\"thread_name\" and e[\"pid\"]==2147483647)
assert n==[(0,\"CPU 0\"),(4095,\"CPU 4095\")], n
s=sorted((e[\"tid\"],e[\"ts\"],e[\"dur\"],e[\"name\"]) for e in ev if e[\"ph\"]==\"X\" and e[\"pid\"]==2147483647)
assert s==[(0,1.0,3.0,\"near\"),(4095,2.0,3.0,\"edge\")], s
w=[(e[\"tid\"],e[\"args\"]) for e in ev if e[\"name\"]==\"wakeup\"]
assert w==[(101,{\"cpu\":7,\"waker\":102})], w
'"
t "fxt2json: a thread that died unnamed keeps no name: the name record after its death is the next thread's (dead_unnamed.fxt)" "'$J' '$F/dead_unnamed.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
s=sorted((e[\"ts\"],e[\"dur\"],e[\"name\"]) for e in ev if e[\"ph\"]==\"X\" and e[\"pid\"]==2147483647)
assert s==[(1.0,1.0,\"tid 101\"),(3.5,0.5,\"worker\")], s
'"
# reuse_unseen.fxt (fixtures.h): dead threads' tids run again with no
# record of a new thread (the new_task lost in a hole, or none at all).
t "fxt2json and fxt-sched: a dead thread's tid switched in or woken is a new thread's, in the process and with the name it ends up with (reuse_unseen.fxt)" "'$J' '$F/reuse_unseen.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
run=sorted((e[\"tid\"],e[\"ts\"],e[\"pid\"]) for e in ev if e[\"name\"]==\"running\")
assert run==[(101,1.0,100),(101,3.0,200),(102,1.0,100),(111,1.0,0),(111,2.3,300)], run
cpu=sorted((e[\"tid\"],e[\"ts\"],e[\"name\"]) for e in ev if e[\"ph\"]==\"X\" and e[\"pid\"]==2147483647)
assert cpu==[(0,1.0,\"A\"),(0,3.0,\"B\"),(1,1.0,\"other\"),(2,1.0,\"tid 111\"),(2,2.3,\"C\")], cpu
n=sorted((e[\"pid\"],e[\"tid\"],e[\"args\"][\"name\"]) for e in ev if e[\"name\"]==\"thread_name\" and e[\"pid\"]<2147483647)
assert n==[(100,101,\"A\"),(100,102,\"other\"),(200,101,\"B\"),(300,111,\"C\")], n
' && '$S' summary --csv '$F/reuse_unseen.fxt' | grep '^thread,1[01]1,' >'$tmp/o.txt' && printf 'thread,101,100,A,1000,,1,1,0,0,0,0,\\nthread,101,200,B,1000,,1,1,0,0,0,0,\\nthread,111,0,,500,,1,1,0,0,0,0,\\nthread,111,300,C,300,,1,1,0,0,1,0,\\n' | cmp -s - '$tmp/o.txt'"
t "fxt2json: a thread that reuses a tid in the same process gets a track of its own, a stand-in tid (args.tid the real one) (reuse_same_process.fxt)" "'$J' '$F/reuse_same_process.fxt' | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
run=[(e[\"pid\"],e[\"tid\"],e[\"ts\"],e[\"args\"].get(\"tid\")) for e in ev if e[\"name\"] in (\"running\",\"wakeup\")]
assert run==[(100,101,1.0,None),(100,4194304,2.5,101),(100,4194304,3.0,101)], run
n=[(e[\"pid\"],e[\"tid\"],e[\"args\"]) for e in ev if e[\"name\"]==\"thread_name\" and e[\"pid\"]<2147483647]
assert n==[(100,101,{\"name\":\"A\"}),(100,4194304,{\"name\":\"B\",\"tid\":101})], n
cpu=[(e[\"name\"],e[\"args\"]) for e in ev if e[\"ph\"]==\"X\" and e[\"pid\"]==2147483647]
assert cpu==[(\"A\",{\"tid\":101,\"pid\":100}),(\"B\",{\"tid\":101,\"pid\":100})], cpu
'"
t "fxt2json: a switch that names another thread leaving than the one its CPU's track shows (one left out between, beyond --reorder-window) ends that slice in state unknown, not the other's; in time, each its own (late_switch.fxt)" "{ '$J' --reorder-window 1us '$F/late_switch.fxt' 2>/dev/null; [ \$? -eq 3 ]; } | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
r=sorted((e[\"tid\"],e[\"ts\"],e[\"dur\"],e[\"args\"][\"end_state\"]) for e in ev if e[\"name\"]==\"running\")
assert r==[(101,1.0,9.0,\"unknown\"),(103,5.0,4.0,\"blocked\")], r
' && '$J' '$F/late_switch.fxt' 2>/dev/null | python3 -c '
import json,sys
ev=json.load(sys.stdin)[\"traceEvents\"]
r=sorted((e[\"tid\"],e[\"ts\"],e[\"dur\"],e[\"args\"][\"end_state\"]) for e in ev if e[\"name\"]==\"running\")
assert r==[(101,1.0,1.0,\"blocked\"),(102,2.0,8.0,\"dead\"),(103,5.0,4.0,\"blocked\")], r
'"
t "fxt-sched and fxt2json refuse standard output on the trace they read (F >>F, - <F >>F): exit 2, said, the trace intact; read as before to another file" "cp '$F/reuse.fxt' '$tmp/self.fxt' && { '$S' summary '$tmp/self.fxt' >>'$tmp/self.fxt' 2>'$tmp/e1.txt'; [ \$? -eq 2 ]; } && { '$S' summary - <'$tmp/self.fxt' >>'$tmp/self.fxt' 2>'$tmp/e2.txt'; [ \$? -eq 2 ]; } && { '$J' '$tmp/self.fxt' >>'$tmp/self.fxt' 2>'$tmp/e3.txt'; [ \$? -eq 2 ]; } && cmp -s '$F/reuse.fxt' '$tmp/self.fxt' && [ \"\$(cat '$tmp/e1.txt')\" = 'fxt-sched: standard output is the trace being read ($tmp/self.fxt): the output would be appended to it; redirect the output to another file' ] && [ \"\$(cat '$tmp/e2.txt')\" = 'fxt-sched: standard output is the trace being read (standard input): the output would be appended to it; redirect the output to another file' ] && [ \"\$(cat '$tmp/e3.txt')\" = 'fxt2json: standard output is the trace being read ($tmp/self.fxt): the output would be appended to it; redirect the output to another file, or use -o' ] && '$S' summary '$tmp/self.fxt' >'$tmp/o.txt' && '$J' '$tmp/self.fxt' >'$tmp/o.json' && json_ok '$tmp/o.json'"
# > on the trace: the shell emptied it before the tool ran, and the tool
# says so (not "would be appended"); 1<> would overwrite it: refused, intact.
t "fxt-sched and fxt2json with standard output on the trace they read by > (emptied: said so) and 1<> (would overwrite: refused, the trace intact), exit 2" "cp '$F/reuse.fxt' '$tmp/self.fxt' && { '$S' summary '$tmp/self.fxt' 1<>'$tmp/self.fxt' 2>'$tmp/e1.txt'; [ \$? -eq 2 ]; } && { '$J' '$tmp/self.fxt' 1<>'$tmp/self.fxt' 2>'$tmp/e2.txt'; [ \$? -eq 2 ]; } && cmp -s '$F/reuse.fxt' '$tmp/self.fxt' && [ \"\$(cat '$tmp/e1.txt')\" = 'fxt-sched: standard output is the trace being read ($tmp/self.fxt): the output would overwrite it; redirect the output to another file' ] && grep -qx 'fxt2json: standard output is the trace being read ($tmp/self.fxt): the output would overwrite it; redirect the output to another file, or use -o' '$tmp/e2.txt' && { '$S' summary '$tmp/self.fxt' >'$tmp/self.fxt' 2>'$tmp/e3.txt'; [ \$? -eq 2 ]; } && [ \"\$(cat '$tmp/e3.txt')\" = \"fxt-sched: standard output is the trace being read ($tmp/self.fxt): it is empty: the shell's > emptied it before this program ran, and the trace in it is lost; redirect the output to another file\" ]"
t "fxt-sched with standard output on an empty trace by 1<> (not emptied by the shell): 'would overwrite it', exit 2" ": >'$tmp/empty.fxt' && { '$S' summary '$tmp/empty.fxt' 1<>'$tmp/empty.fxt' 2>'$tmp/e1.txt'; [ \$? -eq 2 ]; } && [ \"\$(cat '$tmp/e1.txt')\" = 'fxt-sched: standard output is the trace being read ($tmp/empty.fxt): the output would overwrite it; redirect the output to another file' ]"
# odd_names.fxt: a thread "a\"b,c;d:e" and one whose name is cut mid-character.
t "top --csv: names with quote, comma, ';' and ':' keep every row's columns; ran_meanwhile decodes to the names" "'$S' top '$F/odd_names.fxt' --csv >'$tmp/n.csv' && python3 -c '
import csv,sys
from urllib.parse import unquote
rows=list(csv.reader(open(sys.argv[1],newline=\"\",encoding=\"utf-8\",errors=\"surrogateescape\")))
assert len(rows)==3 and all(len(r)==len(rows[0])==14 for r in rows), rows
h=rows[0]
top={r[h.index(\"rank\")]:r for r in rows[1:]}
assert top[\"1\"][h.index(\"name\")]==\"a\\\"b,c;d:e\", top
items=[i.split(\":\") for i in top[\"2\"][h.index(\"ran_meanwhile\")].split(\";\")]
assert [(i[0],unquote(i[1]),i[2]) for i in items]==[(\"101\",\"a\\\"b,c;d:e\",\"3500\")], items
' '$tmp/n.csv'"
# The JSON's strings, decoded strictly, include both odd names (the cut
# one ends in U+FFFD).
json_names() { python3 -c '
import json,sys
def walk(o):
    if isinstance(o,str): yield o
    elif isinstance(o,dict):
        for v in o.values(): yield from walk(v)
    elif isinstance(o,list):
        for v in o: yield from walk(v)
s=set(walk(json.loads(open(sys.argv[1],"rb").read())))
want={"\u65e5\u672c\u8a9e\u30d7\u30ed\ufffd","a\"b,c;d:e"}
assert want<=s, s
' "$1"; }
for cmd in "top" "latency -T" "latency --intervals" "summary"; do
	t "$cmd --json: a name cut mid-character is valid UTF-8 JSON, the cut replaced by U+FFFD" "'$S' $cmd '$F/odd_names.fxt' --json >'$tmp/n.json' && json_names '$tmp/n.json'"
done
t "fxt2json: a name cut mid-character is valid UTF-8 JSON, the cut replaced by U+FFFD" "'$J' '$F/odd_names.fxt' >'$tmp/n.json' && json_names '$tmp/n.json'"
# long_names.fxt: names are kept to 63 bytes, as fxt-sched(1) and
# fxt2json(1) say; a character cut there is U+FFFD.
long_names() { python3 -c '
import json,sys
o=json.loads(open(sys.argv[2],"rb").read())
if sys.argv[1]=="fxt2json":
    n={(e["name"],e.get("tid")):e["args"]["name"] for e in o["traceEvents"] if e["name"] in ("thread_name","process_name") and e["pid"]==100}
    assert n=={("process_name",None):"p"*63,("thread_name",101):"x"*62+"\ufffd",("thread_name",102):"z"*63}, n
else:
    n={t["tid"]:t["name"] for t in o["threads"]}
    p={q["pid"]:q["name"] for q in o["processes"]}
    assert n=={101:"x"*62+"\ufffd",102:"z"*63} and p=={100:"p"*63}, (n,p)
' "$1" "$2"; }
# The summary's thread table: the NAME column as wide as the widest name
# (escapes included), so every row's numbers stay under their headings.
summary_columns() { python3 -c '
import sys
lines=sys.stdin.read().splitlines()
h=[i for i,l in enumerate(lines) if l.lstrip().startswith("TID ")][-1]
head=lines[h]
rows=[l for l in lines[h+1:] if l.strip()]
assert rows, lines
for col in ("runtime","switches","wakeups"):
    end=head.index(col)+len(col)
    for r in rows:
        assert len(r)>=end and r[end-1].isalnum() and (len(r)==end or r[end]==" "), (col,head,r)
'; }
t "fxt-sched summary: with names of 63 bytes and an escaped byte, the numbers stay under their headings (long_names.fxt)" "'$S' summary '$F/long_names.fxt' | summary_columns && '$S' summary '$tmp/t.fxt' | summary_columns"
t "fxt-sched latency -P --json and fxt2json: names longer than 63 bytes are cut at 63 (long_names.fxt: a character cut there is U+FFFD)" "'$S' latency -P --json '$F/long_names.fxt' >'$tmp/l1.json' && long_names fxt-sched '$tmp/l1.json' && '$J' '$F/long_names.fxt' >'$tmp/l2.json' && long_names fxt2json '$tmp/l2.json'"
t "fxt2json --reorder-window takes units; bad values exit 2" "'$J' --reorder-window 500ms '$F/holes.fxt' >/dev/null && { '$J' --reorder-window 1parsec '$F/holes.fxt' 2>/dev/null; [ \$? -eq 2 ]; }"
for P in "$S summary" "$J"; do
	p=${P##*/}
	t "$p --reorder-window 2 (no unit): refused, exit 2, the message asks for a unit" "$P '$tmp/t.fxt' --reorder-window 2 >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^${p%% *}: --reorder-window .2.: a unit is required' '$tmp/e.txt'"
	t "$p --reorder-window 0s: refused, exit 2, the option named" "$P '$tmp/t.fxt' --reorder-window 0s >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^${p%% *}: --reorder-window .0s.: it must be more than 0' '$tmp/e.txt'"
done
# The same window skips the same records in both tools (a window small
# enough that gen_trace's drain-by-drain disorder exceeds it).
late() { sed -n 's/.* \([0-9][0-9]*\) scheduling record.*/\1/p' "$1"; }
t "fxt-sched and fxt2json: --reorder-window 10ms means the same (same records skipped, exit 3 from both)" "{ '$S' summary '$tmp/t.fxt' --reorder-window 10ms >/dev/null 2>'$tmp/e1.txt'; [ \$? -eq 3 ]; } && { '$J' '$tmp/t.fxt' --reorder-window 10ms >/dev/null 2>'$tmp/e2.txt'; [ \$? -eq 3 ]; } && a=\$(late '$tmp/e1.txt') && [ -n \"\$a\" ] && [ \"\$a\" -gt 0 ] && [ \"\$a\" = \"\$(late '$tmp/e2.txt')\" ]"

# A reorder buffer that cannot grow (realloc above 500000 bytes fails: the
# buffer's 8192 records fit, 16384 do not, and nothing else grows that far
# here) says so and exits 1: the records it handed on early make newer ones
# late, and a wider --reorder-window is then no cure. ASan's own realloc
# cannot be preloaded over: that run skips. The shim is the collector's
# tests/fail_alloc.so (FAIL_ALLOC, from make check).
oom_fxt=$tmp/oom.fxt
"$B/obj/tests/gen_trace" -o "$oom_fxt" -c 4 -t 24 -n 30000 --seed 1 >/dev/null
fail_alloc=${FAIL_ALLOC:-}	# the collector's fail_alloc.so (make check)
for P in "$S summary" "$J"; do
	p=${P##*/}
	name="$p, out of memory in the reorder buffer (--reorder-window 100s, realloc above 500000 bytes fails): the warning says so, the late records' warning blames it (no advice to widen the window), exit 1, output still whole (summary: a line and JSON reorder_oom); without the failure: exit 0, no warning"
	name2="$p, out of memory in the reorder buffer with no --reorder-window (realloc above 200000 bytes fails): no wider window tried (no 'read again' note), the warning, exit 1"
	name3="$p, a reorder buffer that cannot be allocated at all (realloc above 50000 bytes fails): 'every record was handed on as read', exit 1"
	skip=
	if ldd "$B/${p%% *}" 2>/dev/null | grep -q libasan; then
		skip="an ASan build's realloc cannot be preloaded over"
	elif [ ! -f "$fail_alloc" ]; then
		skip="FAIL_ALLOC (the collector's fail_alloc.so) is not given: run it with make check"
	fi
	if [ -n "$skip" ]; then
		for n in "$name" "$name2" "$name3"; do echo "ok - $n # SKIP $skip"; done
		continue
	fi
	t "$name" "FAIL_REALLOC_ABOVE=500000 LD_PRELOAD='$fail_alloc' $P '$oom_fxt' --reorder-window 100s >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q '^${p%% *}: warning: .*oom.fxt: out of memory holding 8192 records in the reorder buffer: what it held was handed on early ([0-9]* times), so records after that may be counted late below; the results are incomplete' '$tmp/e.txt' && grep -q 'scheduling records .*behind newer records the reorder buffer, out of memory, handed on early.*; memory ran out (see above), not the window: a wider --reorder-window would need more of it\$' '$tmp/e.txt' && ! grep -q 'more than the reorder window' '$tmp/e.txt' && ! grep -q -- '--reorder-window [0-9]*ns or more' '$tmp/e.txt' && if [ '$p' = fxt2json ]; then json_ok '$tmp/o.txt'; else grep -qx 'reorder buffer out of memory (records handed on early): [1-9][0-9]*' '$tmp/o.txt' && grep -qx 'records behind newer records the reorder buffer, out of memory, handed on early (skipped): [1-9][0-9]*' '$tmp/o.txt' && FAIL_REALLOC_ABOVE=500000 LD_PRELOAD='$fail_alloc' $P --json '$oom_fxt' --reorder-window 100s 2>/dev/null | grep -q '\"reorder_oom\": [1-9][0-9]*, \"late_skipped\": [1-9]'; fi && $P '$oom_fxt' --reorder-window 100s >/dev/null 2>'$tmp/e.txt' && ! grep -q 'out of memory' '$tmp/e.txt'"
	t "$name2" "FAIL_REALLOC_ABOVE=200000 LD_PRELOAD='$fail_alloc' $P '$oom_fxt' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q '^${p%% *}: warning: .*oom.fxt: out of memory holding 2048 records in the reorder buffer' '$tmp/e.txt' && ! grep -q 'read again' '$tmp/e.txt'"
	# Every push fails: counted once, not once a record.
	t "$name3" "FAIL_REALLOC_ABOVE=50000 LD_PRELOAD='$fail_alloc' $P '$oom_fxt' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q '^${p%% *}: warning: .*oom.fxt: out of memory for the reorder buffer: every record was handed on as read, in file order' '$tmp/e.txt' && { [ '$p' = fxt2json ] || grep -qx 'reorder buffer out of memory (records handed on early): 1' '$tmp/o.txt'; }"
done
# The record whose push fails can be behind some of those it handed on
# (reorder_oom.fxt, fixtures.h): it is left out as late, never applied out
# of order. Before, it was applied after them: 101's preemption read
# 9000..6000, 18446744073709548616 ns, top's #1.
name="fxt-sched latency --intervals, out of memory in the reorder buffer: the record behind those handed on is left out as late (2 in all), no interval ends before it starts (101 preempted 9000..9500)"
if ldd "$B/fxt-sched" 2>/dev/null | grep -q libasan; then
	echo "ok - $name # SKIP an ASan build's realloc cannot be preloaded over"
elif [ ! -f "$fail_alloc" ]; then
	echo "ok - $name # SKIP FAIL_ALLOC (the collector's fail_alloc.so) is not given: run it with make check"
else
	t "$name" "FAIL_REALLOC_ABOVE=400000 LD_PRELOAD='$fail_alloc' '$S' latency '$F/reorder_oom.fxt' --reorder-window 100s --intervals >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -q ' 2 scheduling records arrived behind newer records the reorder buffer, out of memory, handed on early' '$tmp/e.txt' && grep -qx 'preempt,101,0,1,9000,9500,500,0,' '$tmp/o.txt' && awk -F, 'NR > 1 && \$6 < \$5 { bad = 1 } END { exit bad }' '$tmp/o.txt'"
fi

# ---- the documentation agrees with the kernel module ----
R=$(cd "$(dirname "$0")/../.." && pwd)
first_probe=$(sed -n '/^static struct fxtrace_probe fxtrace_probes\[\] = {/{n;s/.*{ "\([a-z_]*\)".*/\1/p;}' "$R/kmod/fxtrace_probes.c")
t "fxt-sched(1), analysis.h, gen_trace.c: kmod attaches $first_probe first, and they say so" "[ '$first_probe' = sched_switch ] && grep -q 'sched_switch first' '$R/tools/fxt-sched.1' && ! grep -q 'sched_switch last\\.' '$R/tools/fxt-sched.1' && ! grep -q 'attaches sched_switch last' '$R/tools/analysis.h' '$R/tools/tests/gen_trace.c'"

# ---- time windows ----
t "--from not before --to: usage error naming both, exit 2" "'$S' latency '$tmp/t.fxt' --from 3s --to 1s >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^fxt-sched: --from 3s is not before --to 1s' '$tmp/e.txt' && { '$S' summary '$tmp/t.fxt' --from 1s --to 1000ms >/dev/null 2>&1; [ \$? -eq 2 ]; }"
# --from is 0 when not given: --to 0 (in any unit, or below 1 ns) is as
# empty a window as --from 0 --to 0, for every subcommand; --to 1 is not.
for to in 0 0s 0ms 0.4; do
	for cmd in latency "latency --intervals" top summary; do
		t "$cmd --to $to without --from: an empty window, usage error, exit 2, nothing on stdout" "'$S' $cmd '$tmp/t.fxt' --to $to >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 2 ] && head -n 1 '$tmp/e.txt' | grep -qxF 'fxt-sched: --to $to is not after the start of the trace (--from is 0 when not given): the window [from, to) is empty' && [ ! -s '$tmp/o.txt' ]"
	done
done
t "--from 3 --to 5 (no unit): a note on stderr for each, taken as ns; none with a unit or for 0" "'$S' latency '$tmp/t.fxt' --from 3 --to 5 >/dev/null 2>'$tmp/e.txt' && grep -qx 'fxt-sched: note: --from 3 has no unit: taken as 3 ns (a unit says which: 3s, 3ms, 3us or 3ns)' '$tmp/e.txt' && grep -qx 'fxt-sched: note: --to 5 has no unit: taken as 5 ns (a unit says which: 5s, 5ms, 5us or 5ns)' '$tmp/e.txt' && '$S' latency '$tmp/t.fxt' --from 0 --to 5ns >/dev/null 2>'$tmp/e.txt' && ! grep -q 'has no unit' '$tmp/e.txt' && '$S' latency '$tmp/t.fxt' --from 3s --to 1.5e1s >/dev/null 2>'$tmp/e.txt' && ! grep -q 'has no unit' '$tmp/e.txt'"
t "--from 0 --to 0: usage error naming both, exit 2; --to 1 alone: exit 0" "'$S' summary '$tmp/t.fxt' --from 0 --to 0 >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^fxt-sched: --from 0 is not before --to 0' '$tmp/e.txt' && '$S' summary '$tmp/t.fxt' --to 1ns >/dev/null"
t "--from after the trace's end: a warning, and the time span is not backwards" "'$S' summary '$tmp/t.fxt' --from 100000s >'$tmp/o.txt' 2>'$tmp/e.txt' && grep -q '^fxt-sched: warning: .*--from 100000s is after the end of the trace' '$tmp/e.txt' && awk '/^time span:/ { exit !(\$3 + 0 <= \$5 + 0 && \$6 == \"(0ns)\") }' '$tmp/o.txt' && '$S' summary '$tmp/t.fxt' --from 100000s --json 2>/dev/null | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert d[\"start_ns\"]<=d[\"end_ns\"] and d[\"span_ns\"]==0, d'"
t "a window inside the trace: no warning" "'$S' summary '$tmp/t.fxt' --from 1ms --to 2ms >/dev/null 2>'$tmp/e.txt' && [ ! -s '$tmp/e.txt' ]"

# ---- fxt-sched's messages: its own name first, the option named ----
usage2() { # NAME ARGS... : exit 2, and stderr's first line is the message
	name=$1; shift
	printf '%s\n' "$name" >"$tmp/want.txt"
	t "usage error, exit 2, says: $name" "'$S' $* 2>'$tmp/e.txt' >/dev/null; [ \$? -eq 2 ] && head -n 1 '$tmp/e.txt' | grep -qFf '$tmp/want.txt'"
}
usage2 "fxt-sched: invalid value '0' for -n" top "$tmp/t.fxt" -n 0
usage2 "fxt-sched: --ns is for the text output: --json gives every time in ns already" summary "$tmp/t.fxt" --ns --json
usage2 "fxt-sched: --ns is for the text output: --csv gives every time in ns already" top "$tmp/t.fxt" --csv --ns
usage2 "fxt-sched: --ns is for the text output: --intervals gives every time in ns already" latency "$tmp/t.fxt" --intervals --ns
usage2 "fxt-sched: invalid value 'x' for --pid" latency "$tmp/t.fxt" --pid x
usage2 "fxt-sched: invalid value '1parsec' for --from" latency "$tmp/t.fxt" --from 1parsec
usage2 "fxt-sched: unrecognized option '--bogus'" top "$tmp/t.fxt" --bogus
# Negative or overflowing numbers are refused (strtoull took "-1" for 2^64-1),
# saying what was wrong and what is allowed.
usage2 "fxt-sched: invalid value '-1' for --pid: '-1' is negative: a comma-separated list of process ids, whole numbers from 0 to 18446744073709551615" top "$tmp/t.fxt" --pid -1
usage2 "fxt-sched: invalid value '3,-5' for --tid: '-5' is negative: a comma-separated list of thread ids, whole numbers from 0 to 18446744073709551615" latency "$tmp/t.fxt" --tid 3,-5
usage2 "fxt-sched: invalid value '18446744073709551616' for --pid: '18446744073709551616' is too large:" summary "$tmp/t.fxt" --pid 18446744073709551616
usage2 "fxt-sched: invalid value '+5' for --tid: '+5' is not a whole number in decimal digits:" summary "$tmp/t.fxt" --tid +5
usage2 "fxt-sched: invalid value '-1' for -n: negative: a whole number from 1 to 100000" top "$tmp/t.fxt" -n -1
usage2 "fxt-sched: invalid value '18446744073709551617' for -n: too large: a whole number from 1 to 100000" summary "$tmp/t.fxt" -n 18446744073709551617
usage2 "fxt-sched: invalid value '100001' for -n: too large: a whole number from 1 to 100000" top "$tmp/t.fxt" -n 100001
usage2 "fxt-sched: invalid value '-1s' for --from: negative: a time since the first scheduling record, a number from 0 with an optional unit ns, us, ms or s" latency "$tmp/t.fxt" --from -1s
usage2 "fxt-sched: invalid value '1e30s' for --to: out of range:" latency "$tmp/t.fxt" --to 1e30s
# A time without an exponent is read exactly, not through a double: one ns
# past the limit is out of range, and past 2^53 ns every ns counts (before:
# 18000000000000000001 was rounded down and taken, and 9007199254740993
# taken as 9007199254740992).
usage2 "fxt-sched: invalid value '18000000000000000001' for --to: out of range:" latency "$tmp/t.fxt" --to 18000000000000000001
usage2 "fxt-sched: invalid value '18000000000.000000001s' for --to: out of range:" latency "$tmp/t.fxt" --to 18000000000.000000001s
t "--from 9007199254740993 (past 2^53 ns) is taken exactly; --to 18000000000000000000, the largest, is accepted" "'$S' summary '$tmp/t.fxt' --from 9007199254740993 >/dev/null 2>'$tmp/e.txt' && grep -q 'taken as 9007199254740993 ns' '$tmp/e.txt' && '$S' summary '$tmp/t.fxt' --to 18000000000000000000 >/dev/null 2>&1"
usage2 "fxt-sched: --reorder-window '-2s': negative: it must be more than 0" summary "$tmp/t.fxt" --reorder-window -2s
# A time is decimal: no sign, blank, hex, inf or nan (strtod() takes them).
usage2 "fxt-sched: invalid value '+1ms' for --from: a sign: a time since the first scheduling record" latency "$tmp/t.fxt" --from +1ms
usage2 "fxt-sched: invalid value '-0' for --to: a sign:" latency "$tmp/t.fxt" --to -0
usage2 "fxt-sched: invalid value '0x10' for --from: not a time:" summary "$tmp/t.fxt" --from 0x10
usage2 "fxt-sched: invalid value '0x1p3ms' for --to: not a time:" summary "$tmp/t.fxt" --to 0x1p3ms
usage2 "fxt-sched: invalid value 'inf' for --to: not a time:" top "$tmp/t.fxt" --to inf
usage2 "fxt-sched: invalid value 'nan' for --from: not a time:" top "$tmp/t.fxt" --from nan
usage2 "fxt-sched: invalid value '1e3e3' for --from: not a time:" top "$tmp/t.fxt" --from 1e3e3
t "usage error, exit 2, says: fxt-sched: invalid value ' 1ms' for --from: a blank" "'$S' latency '$tmp/t.fxt' --from ' 1ms' 2>'$tmp/e.txt' >/dev/null; [ \$? -eq 2 ] && head -n 1 '$tmp/e.txt' | grep -qF \"fxt-sched: invalid value ' 1ms' for --from: a blank:\""
t "--from .5ms --to 1e3us, --from 5. --to 7.5e1us: decimal times with a fraction or an exponent are accepted" "'$S' summary '$tmp/t.fxt' --from .5ms --to 1e3us >/dev/null && '$S' summary '$tmp/t.fxt' --from 5. --to 7.5e1us >/dev/null"
for P in "$S summary" "$J"; do
	p=${P##*/}
	for v in +2s 0x10ms 0x10 infs nans; do
		t "$p --reorder-window '$v': refused, exit 2, not a duration" "$P '$tmp/t.fxt' --reorder-window '$v' >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^${p%% *}: --reorder-window .$v.: not a duration' '$tmp/e.txt'"
	done
	t "$p --reorder-window ' 2s': refused, exit 2, not a duration" "$P '$tmp/t.fxt' --reorder-window ' 2s' >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 2 ] && grep -q '^${p%% *}: --reorder-window . 2s.: not a duration' '$tmp/e.txt'"
done
t "--pid 18446744073709551615 (the largest id) is accepted" "'$S' summary '$tmp/t.fxt' --pid 18446744073709551615 >/dev/null"
usage2 "fxt-sched: invalid option -- 'x'" latency "$tmp/t.fxt" -x
usage2 "fxt-sched: -n goes with latency -T or -P (the N threads or processes with the longest waits), top and summary: add -T or -P" latency "$tmp/t.fxt" -n 3
usage2 "fxt-sched: --intervals lists every interval: it does not go with -n" latency "$tmp/t.fxt" --intervals -n 3
usage2 "fxt-sched: -P goes with latency, not top" top "$tmp/t.fxt" -P
usage2 "fxt-sched: -T goes with latency, not summary" summary "$tmp/t.fxt" -T
usage2 "fxt-sched: --json and --csv together" latency "$tmp/t.fxt" --json --csv
usage2 "fxt-sched: -P and -T together" latency "$tmp/t.fxt" -P -T
usage2 "fxt-sched: --intervals lists every interval: it does not go with -P" latency "$tmp/t.fxt" --intervals -P
# An empty list ("--pid \"\$PIDS\"" with PIDS unset) is not "no filter".
for l in "--pid:" "--pid:," "--tid:,," "--tid:"; do
	o=${l%%:*} v=${l#*:}
	[ "$o" = --pid ] && what="process id" || what="thread id"
	t "$o '$v': no id in the list, usage error, exit 2, says so" "'$S' summary '$tmp/t.fxt' $o '$v' >'$tmp/o.txt' 2>'$tmp/e.txt'; [ \$? -eq 2 ] && [ ! -s '$tmp/o.txt' ] && head -n 1 '$tmp/e.txt' | grep -qxF \"fxt-sched: $o '$v': no $what in the list (to select every one, leave $o out)\""
done
usage2 "fxt-sched: missing FILE (use - for stdin)" latency
usage2 "fxt-sched: missing FILE (use - for stdin)" top -n 3
usage2 "fxt-sched: only one FILE, please: '$tmp/t.fxt' is another" latency "$tmp/t.fxt" "$tmp/t.fxt"
t "a usage error is its message and a pointer to --help, not the whole help (fxt-sched, fxt2json)" "'$S' latency '$tmp/t.fxt' --bogus 2>'$tmp/e.txt' >/dev/null; [ \$? -eq 2 ] && [ \"\$(cat '$tmp/e.txt')\" = \"fxt-sched: unrecognized option '--bogus'
Try 'fxt-sched --help' for more information.\" ] && '$S' 2>'$tmp/e.txt' >/dev/null; [ \$? -eq 2 ] && [ \$(wc -l <'$tmp/e.txt') -eq 2 ] && grep -qx \"Try 'fxt-sched --help' for more information.\" '$tmp/e.txt'"
t "usage error, exit 2, says (after the note on --from 1): fxt-sched: only one FILE, please: 's' is another (a unit goes with its number ...)" "'$S' top '$tmp/t.fxt' --from 1 s 2>'$tmp/e.txt' >/dev/null; [ \$? -eq 2 ] && grep -qxF \"fxt-sched: only one FILE, please: 's' is another (a unit goes with its number, no blank: --from 1s, not --from 1 s)\" '$tmp/e.txt'"
usage2 "fxt-sched: unknown command '$tmp/t.fxt': the command comes first, then FILE: e.g. fxt-sched latency FILE" "$tmp/t.fxt" latency
usage2 "fxt-sched: unknown command 'latenzy'" latenzy "$tmp/t.fxt"
# a FILE first that does not exist: its .fxt still says the order
usage2 "fxt-sched: unknown command '$tmp/none.fxt': the command comes first, then FILE: e.g. fxt-sched latency FILE" "$tmp/none.fxt" latency
usage2 "fxt-sched: only one FILE, please" summary "$tmp/t.fxt" --csv "$tmp/t.fxt"
usage2 "fxt-sched: missing command (latency, top or summary)"
t "warnings start with 'fxt-sched: warning:'" "'$S' summary '$tmp/t.fxt' --reorder-window 10ms >/dev/null 2>'$tmp/e.txt'; [ \$? -eq 3 ] && [ -s '$tmp/e.txt' ] && ! grep -qv '^fxt-sched: warning: ' '$tmp/e.txt'"

# ---- latency -P: every format lists the same processes (those with intervals) ----
for f in "$F/filtered.fxt" "$F/holes.fxt" "$F/reuse.fxt" "$F/start.fxt" "$F/many_procs.fxt" "$tmp/t.fxt"; do
	t "latency -P on ${f##*/}: text, --csv and --json list the same processes, none empty" "'$S' latency '$f' -P -n 100000 >'$tmp/p.txt' && '$S' latency '$f' -P --csv >'$tmp/p.csv' && '$S' latency '$f' -P --json >'$tmp/p.json' && python3 -c '
import csv,json,re,sys
txt={int(m.group(1)) for m in re.finditer(r\"^pid = (\\d+)( |$)\",open(sys.argv[1]).read(),re.M)}
rows=[r for r in csv.DictReader(open(sys.argv[2])) if r[\"scope\"]==\"process\"]
cs={int(r[\"id\"]) for r in rows}
procs=json.load(open(sys.argv[3]))[\"processes\"]
js={p[\"pid\"] for p in procs}
assert txt==cs==js, (txt,cs,js)
assert all(p[\"wakeup_latency_ns\"][\"count\"]+p[\"preempt_latency_ns\"][\"count\"]>0 for p in procs), procs
c={}
for r in rows: c[int(r[\"id\"])]=c.get(int(r[\"id\"]),0)+int(r[\"count\"])
assert all(v>0 for v in c.values()), c
' '$tmp/p.txt' '$tmp/p.csv' '$tmp/p.json'"
done

# ---- latency -T/-P -n N: the N with the longest waits, longest first ----
# filtered.fxt: 101 app-main waits 100 and 400, 201 other-1 waits 50 (pids
# 100 and 200). -n was refused with latency before.
latency_n() {
	"$S" latency -T -n 1 "$F/filtered.fxt" >"$tmp/n.txt" || return 1
	[ "$(grep -c '^tid = ' "$tmp/n.txt")" -eq 1 ] && grep -q '^tid = 101 app-main ' "$tmp/n.txt" &&
		[ "$(tail -n 1 "$tmp/n.txt")" = "1 more thread with intervals not listed (the list holds those with the longest waits); -n 2 lists them all" ] || return 1
	"$S" latency -T -n 2 "$F/filtered.fxt" >"$tmp/n.txt" || return 1
	[ "$(grep '^tid = ' "$tmp/n.txt" | cut -d' ' -f3 | tr '\n' ' ')" = "101 201 " ] && ! grep -q 'not listed' "$tmp/n.txt" || return 1
	[ "$("$S" latency -T -n 1 --csv "$F/filtered.fxt" | grep '^thread,' | cut -d, -f2 | sort -u)" = 101 ] || return 1
	"$S" latency -T -n 1 --json "$F/filtered.fxt" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [t["tid"] for t in d["threads"]] == [101], d["threads"]
assert d["wakeup_latency_ns"]["count"] == 3, d	# every thread still
' || return 1
	"$S" latency -P -n 1 "$F/filtered.fxt" >"$tmp/n.txt" &&
		[ "$(grep '^pid = ' "$tmp/n.txt")" = "pid = 100 app" ] &&
		[ "$(tail -n 1 "$tmp/n.txt")" = "1 more process with intervals not listed (the list holds those with the longest waits); -n 2 lists them all" ]
}
t "latency -T -n 1 and -P -n 1: the thread (process) with the longest wait, in text, CSV and JSON; the text says how many more; -n 2 both, longest first" latency_n

# ---- many processes (fixtures.h build_many_procs: the model below) ----
# Names and latency -P's groups by pid: shared names, a pid renamed at the
# end, processes without a name or an interval, threads without a pid.
cat >"$tmp/many.py" <<'EOF'
import csv, json, re, sys
N, ANON = 3000, 30000
main = lambda i: 10000 + i * 7919 % N
second = lambda i: 20000 + (N - 1 - i)
lat = lambda t: 1 + t % 997
def pname(i):
    return "" if i % 50 == 49 else "renamed" if i == 5 else \
        "shared" if i % 3 == 0 else "p%d" % i
named = {1000 + i: pname(i) for i in range(N) if i % 50 != 49}
thr = []	# (tid, pid, name, process name): the threads with an interval
for i in range(N):
    if i % 10 != 3:
        thr.append((main(i), 1000 + i, "t%d" % i, pname(i)))
    if i % 2 == 0:
        thr.append((second(i), 1000 + i, "s%d" % i, pname(i)))
thr += [(ANON + k, 0, "", "") for k in range(5)]
thr.sort()
groups = {}	# pid -> [name, latencies], in the order of its first thread
for tid, pid, _, pn in thr:
    groups.setdefault(pid, [pn, []])[1].append(lat(tid))
want = [(pid, g[0], len(g[1]), sorted(g[1])[(len(g[1]) + 1) // 2 - 1],
         max(g[1])) for pid, g in groups.items()]
assert len(want) == N - N // 10 + 1 and want[-1][0] == 0
what, path = sys.argv[1], sys.argv[2]
if what == "json":
    d = json.load(open(path))
    got = [(p["pid"], p["name"], p["wakeup_latency_ns"]["count"],
            p["wakeup_latency_ns"]["p50"], p["wakeup_latency_ns"]["max"])
           for p in d["processes"]]
    assert got == want, [(g, w) for g, w in zip(got, want) if g != w][:3]
    assert all(p["preempt_latency_ns"]["count"] == 0 for p in d["processes"])
    got = [(t["tid"], t["pid"], t["name"], t["wakeup_latency_ns"]["max"])
           for t in d["threads"]]
    assert got == [(t, p, n, lat(t)) for t, p, n, _ in thr], got[:3]
elif what == "csv":
    rows = [r for r in csv.DictReader(open(path))
            if r["scope"] == "process" and r["kind"] == "wakeup"]
    got = [(int(r["id"]), r["name"], int(r["count"]), int(r["p50"]),
            int(r["max"])) for r in rows]
    assert got == want, [(g, w) for g, w in zip(got, want) if g != w][:3]
    assert all(int(r["pid"]) == int(r["id"]) for r in rows)
elif what == "text":
    # the text, as -n: the longest wait first, then more intervals, then pid
    got = re.findall(r"^pid = (\d+)(?: (.*))?$", open(path).read(), re.M)
    ranked = sorted(want, key=lambda w: (-w[4], -w[2], w[0]))
    assert got == [(str(p), n) for p, n, *_ in ranked], got[:3]
elif what == "text-T":
    got = re.findall(r"^tid = (\d+)(?: (\S*))? \(pid (\d+)(?: (.*))?\)$",
                     open(path).read(), re.M)
    ranked = sorted(thr, key=lambda t: (-lat(t[0]), t[0]))
    assert got == [(str(t), n, str(p), pn) for t, p, n, pn in ranked], got[:3]
elif what == "text-T-default":
    # no -n: the 20 threads with the longest waits, then how many more
    txt = open(path).read()
    got = re.findall(r"^tid = (\d+) ", txt, re.M)
    ranked = sorted(thr, key=lambda t: (-lat(t[0]), t[0]))
    assert got == [str(t[0]) for t in ranked[:20]], got
    last = txt.rstrip("\n").split("\n")[-1]
    assert last == "%d more threads with intervals not listed (the list holds those with the longest waits); -n %d lists them all" % (len(thr) - 20, len(thr)), last
elif what == "json-P5":
    d = json.load(open(path))
    ranked = sorted(want, key=lambda w: (-w[4], -w[2], w[0]))[:5]
    got = [(p["pid"], p["name"], p["wakeup_latency_ns"]["count"],
            p["wakeup_latency_ns"]["p50"], p["wakeup_latency_ns"]["max"])
           for p in d["processes"]]
    assert got == ranked, (got, ranked)
    # -P cuts the processes, not the threads
    assert len(d["threads"]) == len(thr), len(d["threads"])
elif what == "fxt2json":
    ev = json.load(open(path))["traceEvents"]
    pn = [(e["pid"], e["args"]["name"]) for e in ev
          if e["ph"] == "M" and e["name"] == "process_name"]
    assert pn[-1][1] == "CPUs"
    assert pn[:-1] == sorted(named.items()), pn[:3]
    tn = {(e["pid"], e["tid"], e["args"]["name"]) for e in ev
          if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] != 2147483647}
    want_tn = {(1000 + i, main(i), "t%d" % i) for i in range(N)} | \
        {(1000 + i, second(i), "s%d" % i) for i in range(0, N, 2)}
    assert tn == want_tn, sorted(tn ^ want_tn)[:3]
else:
    sys.exit("many.py: what is " + what)
EOF
M=$F/many_procs.fxt
t "many processes: latency -P --json, one group per process with intervals, in its first thread's order, the last name of each pid" "'$S' latency -P --json '$M' >'$tmp/m.json' && python3 '$tmp/many.py' json '$tmp/m.json'"
t "many processes: latency -P --csv, the same groups" "'$S' latency -P --csv '$M' >'$tmp/m.csv' && python3 '$tmp/many.py' csv '$tmp/m.csv'"
t "many processes: latency -P -n 100000 (text), the same groups, the longest wait first" "'$S' latency -P -n 100000 '$M' >'$tmp/m.txt' && python3 '$tmp/many.py' text '$tmp/m.txt'"
t "many processes: latency -T -n 100000 (text), each thread with its process's name, the longest wait first" "'$S' latency -T -n 100000 '$M' >'$tmp/m.txt' && python3 '$tmp/many.py' text-T '$tmp/m.txt'"
t "many processes: latency -T (text, no -n): the 20 threads with the longest waits, then a line saying how many more and the -n that lists them (every one, 2,700-odd histogram pairs, before)" "'$S' latency -T '$M' >'$tmp/m.txt' && python3 '$tmp/many.py' text-T-default '$tmp/m.txt'"
t "many processes: latency -P -n 5 --json, the 5 processes with the longest waits, longest first; every thread still listed" "'$S' latency -P -n 5 --json '$M' >'$tmp/m.json' && python3 '$tmp/many.py' json-P5 '$tmp/m.json'"
t "many processes: fxt2json, one process_name per named pid (its last name), every thread_name" "'$J' '$M' >'$tmp/m.json' && python3 '$tmp/many.py' fxt2json '$tmp/m.json'"

# ---- --version: "PROGRAM RELEASE", the release of the top-level VERSION
# file (no module ABI version: only fxt-collect speaks to the module);
# exit 0, before a command or after it, without FILE ----
# SEE ALSO names what a user who installed the programs can find: man
# pages (those make install installs, MANPAGES in the top Makefile) and
# web addresses, not paths in the source tree (fxt-sched(1) named
# scripts/perfetto/README.md and tools/tests/crosscheck-perfetto.sh).
see_also() {
	installed=$(sed -n '/^MANPAGES *:=/,/[^\\]$/p' "$R/Makefile" | tr ' \\\t' '\n\n\n' | sed -n 's|.*/\([^/]*\)\.1$|\1|p')
	[ -n "$installed" ] || return 1
	sed -n '/^\.SH SEE ALSO/,/^\.SH /p' "$1" | sed '1d;/^\.SH /d' >"$tmp/see.txt"
	[ -s "$tmp/see.txt" ] || return 1
	# no path: outside a URL, no word with a slash in it
	sed 's|https\?://[^ ;,]*||g' "$tmp/see.txt" | grep -q '[A-Za-z0-9_.-]/[A-Za-z0-9_.-]' && return 1
	for page in $(sed -n 's/^\.BR \([a-z0-9_-]*\) (1).*/\1/p' "$tmp/see.txt"); do
		printf '%s\n' "$installed" | grep -qx "$page" || return 1
	done
}
for page in fxt-sched fxt2json; do
	t "$page(1) SEE ALSO: man pages make install installs and web addresses, no source-tree path" "see_also '$R/tools/$page.1'"
done

release=$(cat "$R/VERSION")
for P in "$S --version" "$S -V" "$S latency --version" "$S top -V" \
	 "$J --version" "$J -V"; do
	p=${P##*/}
	t "$p: prints '${p%% *} $release', exit 0, nothing on stderr" "$P >'$tmp/o.txt' 2>'$tmp/e.txt' && printf '%s\\n' '${p%% *} $release' | cmp -s - '$tmp/o.txt' && [ ! -s '$tmp/e.txt' ]"
done

# ---- --help and --version to a full disk: exit 1 (a write error) with a
# message, not 0 ----
for P in "$S --help" "$S latency -h" "$S top --help" "$J --help" "$J -h" \
	 "$S --version" "$S -V" "$S summary --version" "$J --version" "$J -V"; do
	p=${P##*/}
	if [ -w /dev/full ]; then
		t "$p >/dev/full: exit 1, says writing the output failed and why" "$P >/dev/full 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qx '${p%% *}: writing the output failed: No space left on device' '$tmp/e.txt'"
	else
		echo "ok - $p >/dev/full # SKIP no writable /dev/full"
	fi
done

if [ -w /dev/full ]; then
	head -c 8 "$tmp/t.fxt" >"$tmp/magic.fxt"	# the magic record alone
t "a trace with no scheduling records (the magic record alone): exit 0, the empty report, and a warning from fxt-sched and fxt2json" "'$S' summary '$tmp/magic.fxt' >'$tmp/o.txt' 2>'$tmp/e.txt' && [ -s '$tmp/o.txt' ] && [ \"\$(cat '$tmp/e.txt')\" = \"fxt-sched: warning: $tmp/magic.fxt: no context switch or wakeup records: a trace of something other than the scheduler, or fxt-collect stopped before any were written\" ] && '$J' '$tmp/magic.fxt' >'$tmp/m.json' 2>'$tmp/e.txt' && json_ok '$tmp/m.json' && grep -q '^fxt2json: warning: .*magic.fxt: no context switch or wakeup records' '$tmp/e.txt' && '$S' summary '$tmp/t.fxt' 2>&1 >/dev/null | { ! grep -q 'no context switch'; }"
# A file size limit (ulimit -f 4: 4 KiB) is a write error too, said and
# exit 1, not a SIGXFSZ that kills the tool with its output cut.
t "a file size limit: fxt-sched (output and --intervals spool) and fxt2json say so and exit 1, not killed by SIGXFSZ" "( ulimit -f 4; '$S' top '$tmp/t.fxt' -n 1000 --csv >'$tmp/big.txt' 2>'$tmp/e.txt' ); [ \$? -eq 1 ] && grep -qx 'fxt-sched: writing the output failed: File too large' '$tmp/e.txt' && ( ulimit -f 4; '$S' latency --intervals '$tmp/t.fxt' >'$tmp/big.txt' 2>'$tmp/e.txt' ); [ \$? -eq 1 ] && grep -q 'the temporary file holding the intervals could not be written' '$tmp/e.txt' && ( ulimit -f 4; '$J' '$tmp/t.fxt' >'$tmp/big.json' 2>'$tmp/e.txt' ); [ \$? -eq 1 ] && grep -qx 'fxt2json: writing the output failed: File too large' '$tmp/e.txt' && ( ulimit -f 4; '$J' -o '$tmp/big.json' '$tmp/t.fxt' 2>'$tmp/e.txt' ); [ \$? -eq 1 ] && grep -q 'File too large' '$tmp/e.txt'"
t "fxt-sched: a write error (>/dev/full) exits 1, as --help and fxt-sched(1) say (the same in fxt-dump(1) and fxt2json(1))" "'$S' summary '$tmp/t.fxt' >/dev/full 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qx 'fxt-sched: writing the output failed: No space left on device' '$tmp/e.txt' && '$S' --help | tr '\\n' ' ' | grep -q '1 the input cannot be read or is not a whole trace.*a write error.*; 2 bad command line' && { ! command -v groff >/dev/null || groff -man -Tascii -P-c -P-b -P-o -P-u '$R/tools/fxt-sched.1' 2>/dev/null | tr -s ' \\n' '  ' | sed -n 's/\\([a-z]\\)- \\([a-z]\\)/\\1\\2/g; /EXIT STATUS/,/EXAMPLES/p' | grep -q 'or a write error .*0, 1 and 2 mean the same in fxt-dump(1) and fxt2json(1)'; }"
else
	echo "ok - fxt-sched: a write error exits 1 # SKIP no writable /dev/full"
fi

# close() is where some file systems (NFS, quotas) report a failed write:
# strace makes the close of -o's file fail with EIO (-f: in fxt2json, which
# $J runs). (No leak check: LSan cannot stop the world under a tracer.)
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	t "fxt2json -o FILE: a failed close (EIO) exits 1 and says so" "ASAN_OPTIONS=detect_leaks=0 strace -f -o /dev/null -P '$tmp/cl.json' -e trace=close -e inject=close:error=EIO '$J' -o '$tmp/cl.json' '$F/holes.fxt' 2>'$tmp/e.txt'; [ \$? -eq 1 ] && grep -qx 'fxt2json: $tmp/cl.json: closing the output failed: Input/output error' '$tmp/e.txt'"
else
	echo "ok - fxt2json -o FILE: a failed close exits 1 # SKIP strace is not installed or cannot trace here"
fi

# ---- fxt2json's usage errors say what is wrong ----
t "fxt2json with no FILE: 'missing FILE.fxt', exit 2" "'$J' 2>'$tmp/e.txt'; [ \$? -eq 2 ] && head -n 1 '$tmp/e.txt' | grep -qx 'fxt2json: missing FILE.fxt'"
t "fxt2json with two FILEs: 'only one FILE.fxt', exit 2" "'$J' '$tmp/t.fxt' '$tmp/t.fxt' 2>'$tmp/e.txt'; [ \$? -eq 2 ] && head -n 1 '$tmp/e.txt' | grep -qx 'fxt2json: only one FILE.fxt, please'"
t "fxt2json -: says it cannot read stdin and why, exit 2" "'$J' - <'$tmp/t.fxt' 2>'$tmp/e.txt' >/dev/null; [ \$? -eq 2 ] && head -n 1 '$tmp/e.txt' | grep -q '^fxt2json: FILE.fxt cannot be - (standard input): it is read twice'"

# ---- fxt2json's getopt errors: "fxt2json:", not argv[0], then where help is ----
getopt2() { # MESSAGE ARGS... : exit 2, stderr is exactly MESSAGE and the pointer to --help
	msg=$1; shift
	printf '%s\n%s\n' "$msg" "Try 'fxt2json --help' for more information." >"$tmp/want.txt"
	LC_ALL=C "$J" "$@" 2>"$tmp/e.txt" >/dev/null
	rc=$?
	name="fxt2json $(printf '%s\n' "$*" | sed "s|$tmp/t.fxt|FILE|"): exit 2, stderr is the pointer to --help after: $msg"
	if [ $rc -eq 2 ] && diff "$tmp/want.txt" "$tmp/e.txt" >"$tmp/d.txt"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		echo "#   exit status $rc; diff expected actual:"
		sed 's/^/#   /' "$tmp/d.txt"
	fi
}
getopt2 "fxt2json: unrecognized option '--bogus'" --bogus "$tmp/t.fxt"
getopt2 "fxt2json: invalid option -- 'x'" -x "$tmp/t.fxt"
getopt2 "fxt2json: option requires an argument -- 'o'" "$tmp/t.fxt" -o
getopt2 "fxt2json: option '--reorder-window' requires an argument" "$tmp/t.fxt" --reorder-window

# ---- defaults and edges a mutation pass found unchecked ----
# top without -n: the 10 worst, in every format ($tmp/t.fxt has more)
top_default() {
	[ "$("$S" top "$tmp/t.fxt" | grep -c '^#[0-9]')" -eq 10 ] &&
		[ "$("$S" top "$tmp/t.fxt" --csv | grep -c '^[0-9]*,[a-z]*,')" -eq 10 ] &&
		"$S" top "$tmp/t.fxt" --json | python3 -c '
import json, sys
top = json.load(sys.stdin)["top"]
assert [e["rank"] for e in top] == list(range(1, 11)), [e["rank"] for e in top]
'
}
t "top without -n lists the 10 worst (text, CSV, JSON)" top_default
# One format given twice is that format, not "--json and --csv together".
format_twice() {
	for f in json csv; do
		"$S" summary "$tmp/t.fxt" --$f >"$tmp/f1.out" &&
			"$S" summary "$tmp/t.fxt" --$f --$f >"$tmp/f2.out" 2>"$tmp/f2.err" &&
			[ -s "$tmp/f1.out" ] && cmp -s "$tmp/f1.out" "$tmp/f2.out" &&
			[ ! -s "$tmp/f2.err" ] || return 1
	done
}
t "--json --json and --csv --csv: the same output as one, exit 0, nothing on stderr" format_twice
# --from exactly the trace's span (filtered.fxt: from its first scheduling
# record to its last) still holds the last record: no warning; 1 ns later
# is after the end.
from_at_end() {
	span=$("$S" summary "$F/filtered.fxt" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["span_ns"])') &&
		[ "$span" -gt 0 ] &&
		"$S" summary "$F/filtered.fxt" --from "${span}ns" >/dev/null 2>"$tmp/fe.err" &&
		! grep -q 'after the end of the trace' "$tmp/fe.err" &&
		"$S" summary "$F/filtered.fxt" --from "$((span + 1))ns" >/dev/null 2>"$tmp/fe.err" &&
		grep -q "^fxt-sched: warning: .*: --from $((span + 1))ns is after the end of the trace" "$tmp/fe.err"
}
t "--from at the trace's last record: no 'after the end' warning; 1 ns later: the warning" from_at_end
# collected.fxt without its last 3 bytes: malformed, and so without the
# closing records_dropped sample; --to keeps the results from ending early.
# The malformed record is the warning, not a cut-short trace as well.
malformed_not_cut() {
	sz=$(wc -c <"$F/collected.fxt") &&
		head -c "$((sz - 3))" "$F/collected.fxt" >"$tmp/cm.fxt" || return 1
	"$S" summary "$tmp/cm.fxt" --to 5000ns >/dev/null 2>"$tmp/cm.err"
	[ $? -eq 1 ] && grep -q '^fxt-sched: .*cm.fxt: offset [0-9]*: truncated' "$tmp/cm.err" &&
		! grep -q 'closing records_dropped sample is missing' "$tmp/cm.err"
}
t "a truncated trace (malformed): its error, exit 1, and not the warning that the closing records_dropped sample is missing" malformed_not_cut
# "1." is a number too (1 ns): the no-unit note as for "1"
t "--from 1. (no unit, a trailing point): the note, taken as 1 ns" "'$S' summary '$F/filtered.fxt' --from 1. >/dev/null 2>'$tmp/e.txt' && grep -qx 'fxt-sched: note: --from 1. has no unit: taken as 1 ns (a unit says which: 1.s, 1.ms, 1.us or 1.ns)' '$tmp/e.txt'"
# The magic record and 4 bytes more: one record read, then a malformed
# one. The report of that one record (an empty one), the error, exit 1;
# not refused as a file that is not a trace.
magic_and_garbage() {
	head -c 12 "$F/filtered.fxt" >"$tmp/m12.fxt" || return 1
	"$S" summary "$tmp/m12.fxt" >"$tmp/o.txt" 2>"$tmp/e.txt"
	[ $? -eq 1 ] && grep -qx 'records: 1 (0 context switches, 0 wakeups, 0 of unknown types skipped)' "$tmp/o.txt" &&
		grep -q '^fxt-sched: .*m12.fxt: offset 8: truncated: 4 trailing bytes are not a whole 8-byte word; the results cover only the records before it$' "$tmp/e.txt" || return 1
	"$S" summary "$tmp/m12.fxt" --json 2>/dev/null | grep -qx '"malformed": {"offset": 8, "message": "truncated: 4 trailing bytes are not a whole 8-byte word"},'
}
t "the magic record and 4 bytes: the report of its 1 record, the error at offset 8 (stderr, JSON's malformed), exit 1" magic_and_garbage
# -v on a whole trace read once: its line says nothing of a second pass
t "-v on a trace read once (filtered.fxt): the throughput line, no 'read twice'" "'$S' summary '$F/filtered.fxt' -v >/dev/null 2>'$tmp/v.err' && grep -q '^fxt-sched: [0-9]* bytes, [0-9]* records in .* s: .* MB/s, .* records/s; peak RSS [0-9]* KiB; reorder buffer peak [0-9]* records\\?; [0-9]* threads\$' '$tmp/v.err' && ! grep -q 'read twice' '$tmp/v.err'"
# latency and top warn of holes that are bytes_skipped markers alone too
skip_holes_warning() {
	for c in latency top; do
		"$S" $c "$F/skip_holes.fxt" >/dev/null 2>"$tmp/sh.err" &&
			grep -qx "fxt-sched: warning: $F/skip_holes.fxt: records are missing from 1 hole (records_lost or bytes_skipped markers; summary lists them by CPU): 3 waits spanning one were not counted, and the longest waits may be among them" "$tmp/sh.err" || return 1
	done
}
t "latency and top on skip_holes.fxt (a bytes_skipped hole alone): the holes warning, 3 waits not counted" skip_holes_warning
# fxt2json's edges (fixtures.h build_json_edges(), build_empty_names())
json_edges() {
	"$J" "$F/json_edges.fxt" >"$tmp/je.json" || return 1
	python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
def one(name):
    m = [e for e in ev if e["name"] == name]
    assert len(m) == 1, (name, m)
    return m[0]
e = one("ptr")
assert (e["ph"], e["s"], e["args"]) == ("i", "t", {"p": "0xdeadbeef"}), e
e = one("back")
assert (e["ph"], e["ts"], e["dur"]) == ("X", 1.2, 0), e
f = [(e["ph"], e["ts"], e["id"], e.get("bp")) for e in ev if e["name"] == "f"]
assert f == [("s", 1.3, "0x7", None), ("t", 1.4, "0x7", None), ("f", 1.5, "0x7", "e")], f
a = [(e["ph"], e["ts"], e["id"]) for e in ev if e["name"] == "a"]
assert a == [("b", 1.55, "0x9"), ("n", 1.6, "0x9"), ("e", 1.65, "0x9")], a
e = one("log")
assert (e["ph"], e["s"], e["pid"], e["tid"], e["ts"], e["args"]) == ("i", "t", 100, 101, 1.7, {"message": "hi \"there\""}), e
r = sorted((e["tid"], e["ts"], e["dur"], e["args"]["end_state"]) for e in ev if e["name"] == "running")
assert r == [(101, 1.0, 1.0, "blocked"), (102, 2.0, 0, "unknown"), (103, 1.0, 2.0, "blocked"), (104, 3.0, 0, "unknown")], r
' "$tmp/je.json" || return 1
	"$J" "$F/empty_names.fxt" | python3 -c '
import json, sys
ev = json.load(sys.stdin)["traceEvents"]
names = [e for e in ev if e["name"] == "thread_name" and e["pid"] != 2147483647]
assert names == [], names
cpu = sorted({e["name"] for e in ev if e["pid"] == 2147483647 and e["ph"] == "X"})
assert cpu == ["tid 101", "tid 102"], cpu
'
}
t "fxt2json: a pointer argument as a hex string, an end before its start as dur 0, only a flow's end with bp e, async begin, instant and end as b, n and e, a log record's whole message; zero-length slices where a hole begins at a switch and at the trace's last switch (end_state unknown); an empty thread name: no thread_name, CPU slices 'tid N'" json_edges
# A stand-in tid is above every tid in the file, one equal to the first
# stand-in's (4194304) too (fixtures.h build_stand_in_base()).
t "fxt2json: a tid of 4194304 in the file: the reused tid's stand-in is 4194305, not C's track" "'$J' '$F/stand_in_base.fxt' | python3 -c '
import json, sys
ev = json.load(sys.stdin)[\"traceEvents\"]
tracks = {(e[\"pid\"], e[\"tid\"], e[\"args\"].get(\"tid\")) for e in ev if e[\"name\"] == \"running\"}
assert tracks == {(100, 101, None), (100, 4194305, 101), (100, 4194304, None)}, tracks
names = sorted((e[\"tid\"], e[\"args\"][\"name\"]) for e in ev if e[\"name\"] == \"thread_name\" and e[\"pid\"] == 100)
assert names == [(101, \"A\"), (4194304, \"C\"), (4194305, \"B\")], names
'"

# ---- fxt-sched(1)'s CSV section shows the headers fxt-sched prints ----
if command -v groff >/dev/null 2>&1; then
	groff -man -Tascii -P-c -P-b -P-o -P-u "$R/tools/fxt-sched.1" 2>/dev/null |
		awk '/^[^ ]/ { on = ($0 == "CSV"); next }
		     on { sub(/^ +/, ""); line = line $0; if ($0 !~ /,$/) { print line; line = "" } }' \
		>"$tmp/page-csv.txt"
	# ran_meanwhile's names are RFC 3986 percent-encoded: a form decoder
	# (unquote_plus) would turn the '+' of "g++" into spaces.
	groff -man -Tascii -P-c -P-b -P-o -P-u "$R/tools/fxt-sched.1" 2>/dev/null |
		tr -s ' \n' '  ' >"$tmp/page.txt"
	t "fxt-sched(1): decode ran_meanwhile names with RFC 3986 percent-decoding (unquote), not a form decoder (unquote_plus)" "grep -q 'RFC 3986 percent-decoding (Python.s urllib.parse.unquote), not an HTML form decoder (unquote_plus,' '$tmp/page.txt' && ! grep -qF 'any URL decoder' '$tmp/page.txt'"
	for args in latency "latency --intervals" top summary; do
		# shellcheck disable=SC2086
		h=$("$S" $args "$tmp/t.fxt" --csv 2>/dev/null | head -n 1)
		t "fxt-sched(1) shows the CSV header of $args" "[ -n '$h' ] && grep -qxF '$h' '$tmp/page-csv.txt'"
	done
else
	echo "ok - fxt-sched(1)'s CSV headers # SKIP groff is not installed"
fi

# ---- the time limit: no run of fxt-sched or fxt2json above ran out of it ----
if [ -s "$tmp/timed-out" ]; then
	echo "not ok - no fxt-sched or fxt2json run took more than $CLI_TIMEOUT s (timeout)"
	sed 's/^/#   /' "$tmp/timed-out"
else
	echo "ok - no fxt-sched or fxt2json run took more than $CLI_TIMEOUT s (timeout)"
fi
