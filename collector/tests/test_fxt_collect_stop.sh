#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_fxt_collect_stop.sh FXT_COLLECT FXT_DUMP FAKE_SO
#
# SIGINT/SIGTERM stop fxt-collect promptly in every phase, not only while
# it waits for ring data: while it opens a FIFO nobody reads, before START
# (nothing traced, FILE as it was), and while a write() to a pipe whose
# reader stalls is blocked (the trace ends at the signal; what the output
# does not take within 2 s, or after one more signal, is given up). The
# -d deadline and COMMAND's exit, too, end tracing while a write is
# blocked. Every wait is
# bounded: a collector that does not stop is SIGKILLed and the test fails.
# Prints unnumbered TAP lines (tests/run_tests.sh numbers them).

# shellcheck disable=SC2034 # read by fake_device_lib.sh
FAKE_LIB_PREFIX=fxt-stop
. "$(dirname "$0")/fake_device_lib.sh"

# gone PID: PID has exited (and been reaped).
gone() {
	! kill -0 "$1" 2>/dev/null
}

# run_bg ARGS...: fxt-collect with the fake device in the background;
# its pid in $pid, stderr in $TMP/err, status (once it ends) in $TMP/rc.
run_bg() {
	# No pid file left by stalled_pipe: it would be read before ours.
	rm -f "$TMP/rc" "$TMP/pid"
	(
		LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" "$@" \
			2>"$TMP/err" &
		echo $! >"$TMP/pid"
		wait $!
		echo $? >"$TMP/rc"
	) &
	sub=$!
	wait_until 10 test -s "$TMP/pid"
	pid=$(cat "$TMP/pid" 2>/dev/null)
	rm -f "$TMP/pid"
	# Without a pid every later kill would miss, and the test mislead.
	[ -n "$pid" ] || echo "# run_bg: no pid of fxt-collect after 10 s (a very loaded machine?)"
}

# stop_bg SIGNAL SECONDS: send SIGNAL to run_bg's fxt-collect. 0 once it
# has exited within SECONDS (its status in $rc), else 1 (it was SIGKILLed).
stop_bg() {
	kill -"$1" "$pid"
	if ! wait_until "$2" gone "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$sub"
		return 1
	fi
	wait "$sub"
	rc=$(cat "$TMP/rc")
}

# fifo_sigint WHAT SECONDS: SIGINT to run_bg's fxt-collect, blocked opening
# the FIFO nobody reads: gone within SECONDS, exit 130, nothing traced, the
# FIFO left.
fifo_sigint() {
	if ! stop_bg INT "$2"; then
		fail "SIGINT $1 a FIFO nobody reads: still running $2 s later (SIGKILLed)" "$TMP/err"
	elif [ "$rc" -eq 130 ] && [ -p "$TMP/fifo" ] &&
	     grep -q "stopped by SIGINT before tracing started: nothing was traced" "$TMP/err"; then
		ok "SIGINT $1 a FIFO nobody reads: exits, 130, nothing traced, the FIFO left"
	else
		fail "SIGINT $1 a FIFO nobody reads: exit $rc, wanted 130 and 'nothing was traced'" "$TMP/err"
	fi
}

# A: -o FIFO that no reader ever opens. fxt-collect blocks in open(); SIGINT
# must end that wait.
mkfifo "$TMP/fifo"
run_bg -o "$TMP/fifo" -d 1
sleep 0.5
fifo_sigint "while opening" 3

# The same, from a launcher that left SIGINT and SIGTERM blocked (some
# service managers and CI runners do): fxt-collect unblocks them, or the
# SIGINT would stay pending while open() waits for a reader for ever.
collect_real=$COLLECT
COLLECT=$TMP/blocked-launch
cat >"$COLLECT" <<EOF
#!/bin/sh
exec perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGINT, SIGTERM)) or die; exec @ARGV or die' "$collect_real" "\$@"
EOF
chmod +x "$COLLECT"
run_bg -o "$TMP/fifo" -d 1
sleep 0.5
fifo_sigint "with SIGINT and SIGTERM blocked by the launcher, while opening" 3
COLLECT=$collect_real

# The same SIGINT, handled just before that open() began (the fake device
# holds the open 1 s, and the signal lands in that time): nothing would
# interrupt the wait then, but fxt-collect's timer does, every 100 ms.
# Before, fxt-collect waited in open() for a reader that never came.
rm -f "$TMP/fifo-note"
FAKE_FXTRACE_FIFO_DELAY_MS=1000 FAKE_FXTRACE_FIFO_NOTE=$TMP/fifo-note \
	run_bg -o "$TMP/fifo" -d 1
wait_until 10 test -e "$TMP/fifo-note"
fifo_sigint "just before the open() of" 4

# A stop after the output was opened but before START (mapping the rings
# takes 1.5 s here): START never comes, an existing FILE keeps its bytes,
# a FILE fxt-collect created is removed. SIGTERM: exit 143.
head -c 5000 /dev/urandom >"$TMP/old"
for kind in existing new; do
	rm -f "$TMP/keep.fxt"
	[ "$kind" = existing ] && cp "$TMP/old" "$TMP/keep.fxt"
	FAKE_FXTRACE_MAP_DELAY_MS=1500 run_bg -o "$TMP/keep.fxt" -d 0.3
	sleep 0.5
	if ! stop_bg TERM 5; then
		fail "SIGTERM before START, $kind FILE: still running 5 s later (SIGKILLed)" "$TMP/err"
		continue
	fi
	if [ "$kind" = existing ]; then
		cmp -s "$TMP/old" "$TMP/keep.fxt" && left=yes || left=no
	else
		[ ! -e "$TMP/keep.fxt" ] && left=yes || left=no
	fi
	if [ "$rc" -eq 143 ] && [ "$left" = yes ] &&
	   grep -q "stopped by SIGTERM before tracing started" "$TMP/err" &&
	   ! grep -q "traced 3 rings (one per possible CPU)" "$TMP/err"; then
		ok "SIGTERM before START, $kind FILE: exit 143, no tracing, FILE $([ "$kind" = existing ] && echo 'as it was' || echo 'not left behind')"
	else
		fail "SIGTERM before START, $kind FILE: exit $rc, FILE as wanted: $left" "$TMP/err"
	fi
done

# -o - into a pipe whose reader does not read until fxt-collect has ended.
# 50 records per ms per CPU fill the pipe at once; SIGTERM once fxt-collect
# is blocked writing to it (at most 10 s: it was a fixed 1 s, which a host
# stealing 60% of the time once missed, "stopped before tracing started").
# Tracing must stop then (the summary's duration), and fxt-collect must
# give up the rest after 2 s of the output taking nothing: gone within 5 s
# of the signal. On a pipe the last record the reader gets may be cut
# (it cannot be cut back): fxt-dump --check may find that, and only that.
# stalled_pipe KILLS...: signal when blocked and after each kill 0.4 s later.
writing_to_pipe() {
	[ -s "$TMP/pid" ] && grep -q pipe_write "/proc/$(cat "$TMP/pid")/wchan" 2>/dev/null
}
stalled_pipe() {
	rm -f "$TMP/rc" "$TMP/p.fxt" "$TMP/pid" "$TMP/end"
	PREFILL=${PREFILL:-0} timeout 30 sh -c '
		{ head -c "$PREFILL" /dev/zero
		  LD_PRELOAD=$1 FAKE_FXTRACE_PATH=$2 FAKE_FXTRACE_RATE=50 \
			"$3" -D "$2" -o - "$4" "$5" 2>"$6/err" &
		  echo $! >"$6/pid"; wait $!; echo $? >"$6/rc"; date +%s.%N >"$6/end"; } |
		{ while [ ! -e "$6/end" ]; do sleep 0.1; done; cat >"$6/p.fxt"; }' \
		sh "$FAKE" "$DEV" "$COLLECT" "$@" "$TMP" &
	sub=$!
	wait_until 10 writing_to_pipe
	date +%s.%N >"$TMP/sent"
	pid=$(cat "$TMP/pid")
	kill -TERM "$pid"
	if [ -n "${SECOND:-}" ]; then
		sleep 0.4
		date +%s.%N >"$TMP/sent"
		kill -TERM "$pid"
	fi
	wait "$sub"
	rc=$(cat "$TMP/rc" 2>/dev/null || echo none)
	took=$(awk -v a="$(cat "$TMP/sent")" -v b="$(cat "$TMP/end" 2>/dev/null || echo 99999999999)" \
		'BEGIN { printf "%.1f", b - a }')
}
# whole_or_cut_last FILE: fxt-dump --check accepts FILE, or refuses only
# its last record, cut.
whole_or_cut_last() {
	"$DUMP" --check "$1" >"$TMP/check" 2>&1 && return 0
	size=$(wc -c <"$1")
	off=$(sed -n 's/.*: offset \([0-9]*\) (0x[0-9a-f]*): truncated: .* runs past the end of the data.*/\1/p' "$TMP/check")
	[ -n "$off" ] && [ "$off" -lt "$size" ] && [ $((size - off)) -le 32768 ]
}

stalled_pipe -d 30
if [ "$rc" = 3 ] && awk -v t="$took" 'BEGIN { exit !(t < 5) }' &&
   grep -q "stdout took no data for 2 s (a reader that does not read?): gave up the rest" "$TMP/err" &&
   grep -q "traced 3 rings (one per possible CPU) for [0-2]\.[0-9]* s" "$TMP/err" &&
   whole_or_cut_last "$TMP/p.fxt"; then
	ok "SIGTERM while a write to a stalled pipe blocks: tracing ends at the signal, gone $took s later (exit 3, the rest given up), the trace whole but maybe its last record"
else
	fail "SIGTERM while a write to a stalled pipe blocks: exit $rc, gone $took s after the signal, wanted < 5 s, exit 3, 'took no data'" \
		"$TMP/err" "$TMP/check"
fi

# The same give-up said as it is: a pipe cannot be cut back, and what its
# reader makes of a cut last record is said as measured (Perfetto drops
# it; fxt-dump, fxt-sched and fxt2json report it and exit 1), not
# "(readers drop it)". Said only when the reader got part of a record (a
# write that stopped at a record's end leaves nothing cut: a whole trace).
cut_said="stdout cannot be cut back: its reader may get a cut last record: Perfetto drops it; fxt-dump, fxt-sched and fxt2json say so and exit 1, their results covering the records before it"
if ! grep -q "readers drop" "$TMP/err" &&
   { grep -qxF "fxt-collect: $cut_said" "$TMP/err" ||
     { ! grep -q "cannot be cut back" "$TMP/err" && "$DUMP" --check "$TMP/p.fxt" >/dev/null 2>&1; }; }; then
	ok "a give-up on a pipe says what readers do with a cut last record (Perfetto drops it, fxt-dump and the tools say so and exit 1)"
else
	fail "a give-up on a pipe: wanted '$cut_said', and no 'readers drop'" "$TMP/err"
fi

# And the summary's last line is true after it: not "no records dropped"
# next to the megabytes "not written", but that the rings dropped none and
# what was not written (the amount said above), and the thread names.
held=$(sed -n 's/^fxt-collect: not written: the rest of ring data, \(.*\) the rings still held, and the thread names at the end$/\1/p' "$TMP/err")
if [ -n "$held" ] && ! grep -qx "fxt-collect: no records dropped" "$TMP/err" &&
   [ "$(tail -n 1 "$TMP/err")" = "fxt-collect: no records dropped by the rings, but $held of their data, and the thread names at the end, were not written (given up after the stop signal, see above)" ]; then
	ok "a give-up: the summary's last line says no records were dropped by the rings, but $held of their data was not written"
else
	fail "a give-up: wanted the last line 'no records dropped by the rings, but ${held:-N MiB} of their data, and the thread names at the end, were not written ...'" "$TMP/err"
fi

SECOND=1 stalled_pipe -d 30
if [ "$rc" = 3 ] && awk -v t="$took" 'BEGIN { exit !(t < 1.5) }' &&
   grep -q "another signal came while writing" "$TMP/err" &&
   whole_or_cut_last "$TMP/p.fxt"; then
	ok "a second SIGTERM while the write stays blocked gives up at once (gone $took s after it)"
else
	fail "a second SIGTERM while the write stays blocked: exit $rc, gone $took s after it, wanted < 1.5 s and 'another signal came'" \
		"$TMP/err" "$TMP/check"
fi

# A reader that is slow, but takes data: after SIGTERM (fxt-collect blocked
# writing to the pipe), it takes 8 KiB every 0.2 s, some 40 KiB/s, and
# the rest (three 64 KiB rings and what fxt-collect holds) takes it longer
# than 2 s. Each piece it takes starts the 2 s anew: nothing is given up,
# the trace is whole. Before, a mutant that timed the 2 s from the signal
# (progress not noted) passed every test.
slow_pipe() {
	rm -f "$TMP/rc" "$TMP/p.fxt" "$TMP/pid" "$TMP/end" "$TMP/go"
	timeout 60 sh -c '
		{ LD_PRELOAD=$1 FAKE_FXTRACE_PATH=$2 FAKE_FXTRACE_RATE=50 \
			"$3" -D "$2" -b 64K -o - -d 30 2>"$4/err" &
		  echo $! >"$4/pid"; wait $!; echo $? >"$4/rc"; date +%s.%N >"$4/end"; } |
		{ while [ ! -e "$4/go" ]; do sleep 0.05; done
		  : >"$4/p.fxt"
		  while :; do
			before=$(wc -c <"$4/p.fxt")
			dd bs=8192 count=1 status=none >>"$4/p.fxt"
			[ "$(wc -c <"$4/p.fxt")" -gt "$before" ] || break
			sleep 0.2
		  done; }' \
		sh "$FAKE" "$DEV" "$COLLECT" "$TMP" &
	sub=$!
	wait_until 10 writing_to_pipe
	date +%s.%N >"$TMP/sent"
	kill -TERM "$(cat "$TMP/pid")"
	: >"$TMP/go"
	wait "$sub"
	rc=$(cat "$TMP/rc" 2>/dev/null || echo none)
	took=$(awk -v a="$(cat "$TMP/sent")" -v b="$(cat "$TMP/end" 2>/dev/null || echo 99999999999)" \
		'BEGIN { printf "%.1f", b - a }')
}
slow_pipe
if { [ "$rc" = 0 ] || [ "$rc" = 3 ]; } &&
   awk -v t="$took" 'BEGIN { exit !(t > 2.5) }' &&
   ! grep -q -e "gave up" -e "took no data" "$TMP/err" &&
   "$DUMP" --check "$TMP/p.fxt" >"$TMP/check" 2>&1; then
	ok "SIGTERM, then a slow reader that takes data: the 2 s start anew with each piece, nothing given up in $took s, a whole trace"
else
	fail "SIGTERM, then a slow reader that takes data: exit $rc after $took s (wanted more than 2.5, to test anything), wanted 0 or 3, no 'gave up' and a whole trace" \
		"$TMP/err" "$TMP/check"
fi

# The same stall while the trace's start (its preamble) is being written:
# the pipe (64 KiB) already holds PREFILL bytes, so fxt-collect's first
# write, all of the preamble, blocks before its end (0 bytes went in
# here: a write longer than a page waits for a free page of the pipe).
# Given up 2 s after the signal, that is no trace: exit 1, "no trace was
# written", saying how many bytes its reader got (all those after the
# prefill). Before, exit 3 ("trace written"), and only "cannot be cut
# back".
PREFILL=65436 stalled_pipe -d 30
got=$(sed -n 's/.*no trace was written: the reader of stdout got \([0-9]*\) bytes of the trace.s start (its preamble), and no record of the kernel.s$/\1/p' "$TMP/err")
size=$(wc -c <"$TMP/p.fxt" 2>/dev/null || echo 0)
if [ "$rc" = 1 ] && [ -n "$got" ] && [ $((size - 65436)) = "$got" ] &&
   grep -q "stdout took no data for 2 s (a reader that does not read?): gave up the rest" "$TMP/err" &&
   ! grep -q "traced 3 rings" "$TMP/err"; then
	ok "SIGTERM while the trace's start is blocked in a stalled pipe: given up, no trace, exit 1, its reader got $got bytes, said"
else
	fail "SIGTERM while the trace's start is blocked in a stalled pipe: exit $rc, wanted 1, 'no trace was written: the reader of stdout got N bytes' (said: ${got:-nothing}, the pipe held $((size - 65436)) after the prefill)" \
		"$TMP/err"
fi

# stalled_stop RATE STOP SECONDS [WRAPPER...]: fxt-collect -o - STOP (its
# words the options; run by WRAPPER, if given, which execs it), writing
# RATE records/ms, into a pipe whose reader sleeps SECONDS, for at most
# 20 s. Then $rc is its status ("none" if it did not end).
stalled_stop() {
	rate=$1 stop=$2 nap=$3
	shift 3
	rm -f "$TMP/rc" "$TMP/p.fxt"
	timeout 20 sh -c '
		nap=$1 fake=$2 dev=$3 collect=$4 tmp=$5 rate=$6 stop=$7
		shift 7
		# $stop unquoted: its words are the options.
		{ LD_PRELOAD=$fake FAKE_FXTRACE_PATH=$dev FAKE_FXTRACE_RATE=$rate \
			"$@" "$collect" -D "$dev" -o - $stop 2>"$tmp/err"
		  echo $? >"$tmp/rc"; } |
		{ sleep "$nap"; cat >"$tmp/p.fxt"; }' \
		sh "$nap" "$FAKE" "$DEV" "$COLLECT" "$TMP" "$rate" "$stop" "$@"
	rc=$(cat "$TMP/rc" 2>/dev/null || echo none)
}

# stalled_d1 SECONDS [WRAPPER...]: stalled_stop with -d 1; 0 if it stopped
# tracing at 1 s and left a whole trace, with nothing given up and no
# failure, else 1.
stalled_d1() {
	stalled_stop 50 '-d 1' "$@"
	{ [ "$rc" = 0 ] || [ "$rc" = 3 ]; } &&
		grep -q "traced 3 rings (one per possible CPU) for 1\.[0-4][0-9]* s" "$TMP/err" &&
		! grep -q -e "gave up" -e "failed" "$TMP/err" &&
		"$DUMP" --check "$TMP/p.fxt" >"$TMP/check" 2>&1
}

# -d 1 with the same stalled reader and no signal: tracing stops at 1 s
# (not when the reader wakes), and fxt-collect waits for the reader to take
# the rest: a whole trace, exit 3 only for the records the full rings
# dropped meanwhile (or 0).
if stalled_d1 4; then
	ok "-d 1 while a write to a stalled pipe blocks: tracing stops at 1 s, the rest waits for the reader, a whole trace"
else
	fail "-d 1 while a write to a stalled pipe blocks: exit $rc, wanted 'traced 3 rings (one per possible CPU) for 1.x s' and a whole trace" \
		"$TMP/err" "$TMP/check"
fi

# The same, with stdout's open file description non-blocking (set by a
# parent that shares it: ssh, node): a full pipe is EAGAIN, not an error
# that cuts the trace. fxt-collect waits for room as on a blocking pipe.
if stalled_d1 3 perl -MFcntl \
	-e 'fcntl(STDOUT, F_SETFL, O_WRONLY | O_NONBLOCK) or die; exec @ARGV or die'; then
	ok "-d 1 into a non-blocking pipe whose reader stalls: waits for room (no EAGAIN error), a whole trace"
else
	fail "-d 1 into a non-blocking pipe whose reader stalls: exit $rc, wanted 'traced 3 rings (one per possible CPU) for 1.x s', no failure and a whole trace" \
		"$TMP/err" "$TMP/check"
fi

# COMMAND exits (sleep 1) while a write to a pipe whose reader sleeps 4 s is
# blocked: tracing stops then, as at the -d deadline, and the rest waits
# for the reader (not given up: no stop signal came). Before, COMMAND's
# exit was seen only between drains: tracing ran on for the reader's 4 s
# (with 50 records/ms the rings also dropped). 20 records/ms fill the pipe
# at once and a 4 MiB ring in about 5 s, so none is dropped even if a
# loaded machine stretches the 1 s; "[12].x s" leaves it a second more.
rm -f "$TMP/check"
stalled_stop 20 '-- sleep 1' 4
if [ "$rc" = 0 ] && grep -q "traced 3 rings (one per possible CPU) for [12]\.[0-9]* s" "$TMP/err" &&
   grep -q "no records dropped" "$TMP/err" &&
   ! grep -q -e "gave up" -e "failed" "$TMP/err" &&
   "$DUMP" --check "$TMP/p.fxt" >"$TMP/check" 2>&1; then
	ok "COMMAND exits while a write to a stalled pipe blocks: tracing stops then (about 1 s, not the reader's 4 s), nothing dropped, the rest waits for the reader, a whole trace"
else
	fail "COMMAND exits while a write to a stalled pipe blocks: exit $rc, wanted 0, 'traced 3 rings (one per possible CPU) for 1.x s', 'no records dropped' and a whole trace" \
		"$TMP/err" "$TMP/check"
fi

# A SIGTERM passed on to COMMAND, which exits on it, while a write to a pipe
# whose reader sleeps is blocked: the signal was COMMAND's, so once it has
# exited fxt-collect waits for the reader to take the rest, however long,
# as when COMMAND exits by itself. Before, the signal counted as a stop of
# fxt-collect once COMMAND was reaped: after 2 s of the reader taking
# nothing, the rest of the rings and the thread names were given up. The
# reader sleeps 3.5 s past the signal. Whole tail: no "gave up", exit 0
# (COMMAND's; 20 records/ms drop nothing), a whole trace whose last
# records_dropped sample (the one after STOP: two in all) is followed by
# thread names.
cat >"$TMP/cmd.sh" <<'EOF'
sleep 30 &
trap 'kill $!; exit 0' TERM
: >"$1"
wait
EOF
# tail_written FILE: FILE is whole and ends with the trailer, as above.
tail_written() {
	"$DUMP" --check "$1" >"$TMP/check" 2>&1 &&
	"$DUMP" "$1" | awk '/ name="records_dropped"/ { n++; names = 0; next }
		/ kernel_object thread / { names++ }
		END { exit !(n == 2 && names > 0) }'
}
rm -f "$TMP/rc" "$TMP/p.fxt" "$TMP/pid" "$TMP/go" "$TMP/ready" "$TMP/check"
timeout 30 sh -c '
	{ LD_PRELOAD=$1 FAKE_FXTRACE_PATH=$2 FAKE_FXTRACE_RATE=20 \
		"$3" -D "$2" -o - -- sh "$4/cmd.sh" "$4/ready" 2>"$4/err" &
	  echo $! >"$4/pid"; wait $!; echo $? >"$4/rc"; } |
	{ while [ ! -e "$4/go" ]; do sleep 0.1; done; cat >"$4/p.fxt"; }' \
	sh "$FAKE" "$DEV" "$COLLECT" "$TMP" &
sub=$!
wait_until 10 test -e "$TMP/ready"
wait_until 10 writing_to_pipe
kill -TERM "$(cat "$TMP/pid")"
sleep 3.5
: >"$TMP/go"
wait "$sub"
rc=$(cat "$TMP/rc" 2>/dev/null || echo none)
if [ "$rc" = 0 ] && ! grep -q -e "gave up" -e "not written" "$TMP/err" &&
   tail_written "$TMP/p.fxt"; then
	ok "a SIGTERM passed on to COMMAND, which exits on it, while a write to a stalled pipe blocks: the rest waits for the reader (3.5 s), the whole tail written, exit 0"
else
	fail "a SIGTERM passed on to COMMAND, which exits on it, while a write to a stalled pipe blocks: exit $rc, wanted 0, nothing given up and the whole tail (thread names after the last records_dropped sample)" \
		"$TMP/err" "$TMP/check"
fi

# timeout(1) signals fxt-collect, then its whole process group: one request,
# not two. The first is passed on to COMMAND, and fxt-collect waits for it
# (COMMAND's status 7), rather than abandoning it with 143.
# COMMAND says it is ready once its trap is set. A run in which it was not
# ready by the deadline (a loaded machine: the ASan build under a VM run
# took more than 0.5 s) says nothing about fxt-collect, as COMMAND died of
# the signal before it could catch it: that run is repeated with twice the
# delay, at most 6 times. Only runs with COMMAND ready count.
bad=0 runs=0 delay=0.5 retries=0
while [ "$runs" -lt 5 ] && [ "$retries" -le 6 ]; do
	rm -f "$TMP/ready"
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV timeout -k 10 --preserve-status "$delay" \
		"$COLLECT" -q -D "$DEV" -o "$TMP/t.fxt" -- \
		sh -c 'trap "sleep 0.3; exit 7" TERM; : >"$1"; sleep 5 & wait' sh "$TMP/ready" \
		2>"$TMP/err"
	rc=$?
	if [ ! -e "$TMP/ready" ]; then
		echo "# COMMAND was not ready $delay s after the start (exit $rc): repeated with twice the delay"
		retries=$((retries + 1))
		delay=$(awk -v d="$delay" 'BEGIN { print d * 2 }')
		continue
	fi
	runs=$((runs + 1))
	[ "$rc" -eq 7 ] || { bad=$((bad + 1)); echo "# run $runs (timeout $delay): exit $rc"; }
done
if [ "$runs" -lt 5 ]; then
	fail "timeout fxt-collect -- COMMAND: COMMAND was ready before the signal in only $runs runs (7 retries, the last with timeout $delay s)" "$TMP/err"
elif [ "$bad" -eq 0 ]; then
	ok "timeout $delay fxt-collect -- COMMAND (SIGTERM to it and to its group): COMMAND's status 7, 5 of 5 runs ($retries repeated: COMMAND not ready yet)"
else
	fail "timeout fxt-collect -- COMMAND: $bad of 5 runs did not wait for COMMAND" "$TMP/err"
fi

# The same, with the two SIGTERMs apart, from one shell (the kill builtin:
# one sender pid): timeout(1)'s two often reach fxt-collect as one pending
# signal, so the run above can pass without the repeat rule at all.
# two_terms GAP TRAP_S: SIGTERM twice, GAP s apart, to fxt-collect running
# COMMAND whose TERM trap sleeps TRAP_S and exits 7; rc = its exit, gap_ms
# = the gap measured around the two kills.
two_terms() {
	rm -f "$TMP/ready"
	LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -q -D "$DEV" \
		-o "$TMP/t.fxt" -- sh -c 'trap "sleep $2; exit 7" TERM; : >"$1"; sleep 10 & wait' \
		sh "$TMP/ready" "$2" 2>"$TMP/err" &
	pid=$!
	wait_until 20 test -e "$TMP/ready"
	t0=$(date +%s%N)
	kill -TERM "$pid"
	sleep "$1"
	kill -TERM "$pid"
	t1=$(date +%s%N)
	gap_ms=$(((t1 - t0) / 1000000))
	wait "$pid"
	rc=$?
}
# Within 100 ms: one request, COMMAND's status. The rule times the
# signals as they are handled, the test as they are sent: on a loaded
# machine the two can be handled further apart than sent. So a try that
# does not give 7 is repeated, up to 5 (without the rule every one gives
# 143), as is one whose kills came more than 80 ms apart.
if ! [ "$(date +%N)" -ge 0 ] 2>/dev/null; then
	echo "ok - SIGTERM twice from one sender, 20 ms and 200 ms apart # SKIP date +%N gives no nanoseconds here"
else
	tries=0
	while :; do
		two_terms 0.02 0.3
		tries=$((tries + 1))
		{ [ "$gap_ms" -le 80 ] && [ "$rc" -eq 7 ]; } || [ "$tries" -ge 5 ] || continue
		break
	done
	if [ "$gap_ms" -le 80 ] && [ "$rc" -eq 7 ]; then
		ok "SIGTERM twice $gap_ms ms apart from one sender: one request, fxt-collect waits for COMMAND (its status 7; try $tries)"
	else
		fail "SIGTERM twice within 100 ms from one sender: exit $rc, wanted COMMAND's 7, in each of $tries tries (the last $gap_ms ms apart)" "$TMP/err"
	fi
	# The control: 200 ms apart is a second request, which gives up on
	# COMMAND (still in its 2 s trap): 128 + 15, and said. Repeated
	# the same way, if the first was handled late.
	tries=0
	while :; do
		two_terms 0.2 2
		tries=$((tries + 1))
		{ [ "$rc" -eq 143 ] && grep -q "is still running; fxt-collect did not wait for it" "$TMP/err"; } ||
			[ "$tries" -ge 3 ] || continue
		break
	done
	if [ "$rc" -eq 143 ] && grep -q "is still running; fxt-collect did not wait for it" "$TMP/err"; then
		ok "SIGTERM twice $gap_ms ms apart: a second request, COMMAND not waited for (exit 143, said; try $tries)"
	else
		fail "SIGTERM twice about 200 ms apart: exit $rc in each of $tries tries, wanted 143 and 'is still running; fxt-collect did not wait for it'" "$TMP/err"
	fi
fi

# A second signal while COMMAND runs leaves it running on every path, also
# when it comes while a write to a FIFO whose reader never reads is
# blocked: the loop then ends with that write given up 2 s later (no data
# taken) or failed (the reader went away: EPIPE), not at the look at the
# signals between drains that abandons COMMAND. fxt-collect must exit 143
# soon after, saying it did not wait for COMMAND (which ignores SIGTERM).
# Before, it said "tracing stopped; waiting for sh" and waited for it.
# term_handled PID: no SIGTERM is pending for PID (the last one sent was
# handled), so the next is not merged with it.
term_handled() {
	for m in $(awk '/^(SigPnd|ShdPnd):/ { print $2 }' "/proc/$1/status" 2>/dev/null); do
		[ $((0x$m & 0x4000)) -eq 0 ] || return 1
	done
}
# blocked_at STAGE: run_bg's fxt-collect is blocked writing to the FIFO
# (STAGE "writing"), and tracing has stopped ("stopped": the fake device's
# STOP note; at -d, say) or not yet ("tracing").
blocked_at() {
	grep -q pipe_write "/proc/$pid/wchan" 2>/dev/null || return 1
	case $1 in
	stopped) [ -e "$TMP/stop-note" ] ;;
	tracing) [ ! -e "$TMP/stop-note" ] ;;
	esac
}
# second_term_fifo HOW [FIRST SECOND OPTION...]: the two SIGTERMs, at least
# 0.3 s apart, while fxt-collect -o FIFO OPTION... -- COMMAND is blocked
# writing, the first once blocked_at FIRST, the second once blocked_at
# SECOND (default: both "writing"); HOW "stall": the reader never reads,
# "epipe": it is killed once the second signal was handled. Then $rc
# (none: still running 8 s later, SIGKILLed), $took (s from the second
# signal to the exit), $cmd (COMMAND's pid, killed here) and $at (the
# stage each signal was sent in, "FIRST SECOND": "-" where it was not).
second_term_fifo() {
	how=$1 first=${2:-writing} second=${3:-writing}
	shift $(($# < 3 ? $# : 3))
	rm -f "$TMP/fifo" "$TMP/cmdpid" "$TMP/stop-note"
	mkfifo "$TMP/fifo"
	# The reader: holds the FIFO open for reading and never reads.
	# shellcheck disable=SC2217
	sleep 60 <"$TMP/fifo" &
	reader=$!
	FAKE_FXTRACE_RATE=50 FAKE_FXTRACE_STOP_NOTE=$TMP/stop-note \
		run_bg -o "$TMP/fifo" "$@" -- \
		sh -c 'trap "" TERM; echo $$ >"$1"; exec sleep 30' sh "$TMP/cmdpid"
	wait_until 10 test -s "$TMP/cmdpid"
	cmd=$(cat "$TMP/cmdpid" 2>/dev/null)
	at=
	for stage in "$first" "$second"; do
		[ -z "$at" ] || sleep 0.3	# past the 0.1 s in which a repeat counts once
		wait_until 10 blocked_at "$stage" || stage=-
		kill -TERM "$pid"
		wait_until 5 term_handled "$pid"
		# sent while tracing: still so once it was handled?
		[ "$stage" != tracing ] || [ ! -e "$TMP/stop-note" ] || stage=-
		at="$at${at:+ }$stage"
	done
	t0=$(date +%s.%N)
	[ "$how" = epipe ] && kill -KILL "$reader"
	if wait_until 8 gone "$pid"; then
		wait "$sub"
		rc=$(cat "$TMP/rc")
	else
		kill -KILL "$pid" 2>/dev/null
		wait "$sub"
		rc=none
	fi
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	kill -KILL "$reader" ${cmd:+"$cmd"} 2>/dev/null
	wait "$reader" 2>/dev/null
}
for how in stall epipe; do
	second_term_fifo $how
	if [ $how = stall ]; then
		why="stopping: $TMP/fifo took no data for 2 s"
	else
		why="writing .* to $TMP/fifo failed: Broken pipe"
	fi
	if [ "$rc" = 143 ] && [ -n "$cmd" ] &&
	   grep -q "^fxt-collect: sh (pid $cmd) is still running; fxt-collect did not wait for it" "$TMP/err" &&
	   grep -q "$why" "$TMP/err" && ! grep -q "waiting for sh" "$TMP/err"; then
		ok "a second SIGTERM while a write to a FIFO blocks, the write then $([ $how = stall ] && echo 'given up' || echo 'failed (EPIPE)'): COMMAND left running, exit 143 $took s after the signal, said"
	else
		fail "a second SIGTERM while a write to a FIFO blocks ($how): exit $rc $took s after the signal, wanted 143 and 'sh (pid ${cmd:-?}) is still running; fxt-collect did not wait for it'" "$TMP/err"
	fi
done

# The same after -d has stopped tracing (the fake device's STOP note) while
# the write stays blocked: -d is no signal, so signals count as without it,
# from COMMAND's start. Both SIGTERMs after -d 1: the first is COMMAND's
# (passed on; it ignores it), the second leaves it running; and one while
# tracing, before -d 3, then one after it: that one is the second. Then,
# as for any second signal, the rest is given up when the FIFO takes
# nothing for 2 s, and fxt-collect exits 143 without waiting for COMMAND,
# saying so (tracing had stopped at -d: "stopped waiting for it", and no
# "waiting for sh"). Before, the -d stop counted as no first signal and
# those two as none: fxt-collect said "tracing stopped; waiting for sh"
# and waited for two more signals (SIGKILLed here 8 s later).
# after_d FIRST D: the two SIGTERMs, the first once blocked_at FIRST, the
# second after -d D stopped tracing.
after_d() {
	second_term_fifo stall "$1" stopped -d "$2"
	[ "$1" = stopped ] && when="after -d stopped tracing" || when="while tracing"
	if [ "$rc" = 143 ] && [ "$at" = "$1 stopped" ] && [ -n "$cmd" ] &&
	   grep -q "^fxt-collect: sh (pid $cmd) is still running; fxt-collect stopped waiting for it (tracing had already stopped" "$TMP/err" &&
	   grep -q "stopping: $TMP/fifo took no data for 2 s" "$TMP/err" &&
	   grep -q "traced 3 rings (one per possible CPU) for $2\.[0-9]* s" "$TMP/err" &&
	   ! grep -q "waiting for sh" "$TMP/err"; then
		ok "-d $2 -- COMMAND, a write to a FIFO blocked: a SIGTERM $when, then one after -d stopped tracing, the second, leaves COMMAND running: exit 143 $took s after it, said"
	else
		fail "-d $2 -- COMMAND, a write to a FIFO blocked, a SIGTERM $when and one after -d stopped tracing (sent at: ${at}): exit $rc $took s after the second, wanted 143 within 8 s, tracing for $2.x s and 'sh (pid ${cmd:-?}) is still running; fxt-collect stopped waiting for it (tracing had already stopped'" "$TMP/err"
	fi
}
after_d stopped 1
after_d tracing 3

# not_run RC WHY TRACE: fxt-collect exited with RC, COMMAND (sh, which
# would have created $TMP/ran) did not run, stderr says WHY, TRACE is whole.
not_run() {
	[ "$rc" -eq "$1" ] && [ ! -e "$TMP/ran" ] &&
		grep -q "sh was not run: $2" "$TMP/err" &&
		"$DUMP" --check "$3" >"$TMP/check" 2>&1
}
ran() { [ -e "$TMP/ran" ] && echo yes || echo no; }

# A stop that comes before COMMAND exists was meant for fxt-collect alone:
# COMMAND is not started (it would run untraced, and with it running the
# first signal would count as COMMAND's, tracing on until it exits). START
# takes 2 s here, and SIGINT comes once it is under way (the fake device
# notes that): the trace ends at once, COMMAND never runs, exit 130.
rm -f "$TMP/ran" "$TMP/c.fxt" "$TMP/starting"
FAKE_FXTRACE_START_DELAY_MS=2000 FAKE_FXTRACE_START_NOTE=$TMP/starting \
	run_bg -o "$TMP/c.fxt" -- sh -c ': >"$1"; sleep 5' sh "$TMP/ran"
wait_until 10 test -e "$TMP/starting"
if ! stop_bg INT 5; then
	fail "SIGINT during START with a COMMAND: still running 5 s later (SIGKILLed)" "$TMP/err"
elif not_run 130 "SIGINT came before it could start; the trace ends there" "$TMP/c.fxt"; then
	ok "SIGINT while START attaches, before COMMAND: COMMAND not run, a whole trace, exit 130"
else
	fail "SIGINT while START attaches, before COMMAND: exit $rc (wanted 130), COMMAND ran: $(ran)" \
		"$TMP/err" "$TMP/check"
fi

# The -d time is up before COMMAND could start (each write to the file
# pauses 300 ms here, so the trace's beginning takes longer than -d 0.1;
# no ring records, or their writes would take minutes): COMMAND is not
# run, untraced, and fxt-collect says why: exit 1.
rm -f "$TMP/ran" "$TMP/d.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_WRITE_PAUSE_US=300000 \
	FAKE_FXTRACE_RATE=0 \
	timeout -k 5 20 "$COLLECT" -D "$DEV" -o "$TMP/d.fxt" -d 0.1 -- \
	sh -c ': >"$1"' sh "$TMP/ran" 2>"$TMP/err"
rc=$?
if not_run 1 "the -d time was up before it could start" "$TMP/d.fxt"; then
	ok "-d up before COMMAND could start (slow output): COMMAND not run, a whole trace, exit 1"
else
	fail "-d up before COMMAND could start: exit $rc (wanted 1), COMMAND ran: $(ran)" \
		"$TMP/err" "$TMP/check"
fi
