#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_fxt_collect_keep.sh FXT_COLLECT FXT_DUMP FAKE_SO
#
# fxt-collect against fake_fxtrace.so (see test_fxt_collect_fake.sh) where
# it must leave things as they were: a failure before tracing starts
# (mmap of the rings, START) keeps an existing -o FILE and its trace, and
# creates no new one (a failure opening or configuring the device comes
# before FILE is opened: nothing is said of it); and a second signal while COMMAND runs stops tracing
# but leaves COMMAND running, and says so (as a second one does while it
# waits for COMMAND after -d, saying that tracing had stopped already).
# Prints unnumbered TAP lines (tests/run_tests.sh numbers them).

# shellcheck disable=SC2034 # read by fake_device_lib.sh
FAKE_LIB_PREFIX=fxt-keep
. "$(dirname "$0")/fake_device_lib.sh"

# A good trace first, as sched.fxt is after an earlier run.
collect -q -o "$TMP/good.fxt" -d 0.2
if [ "$rc" -ne 0 ] || ! "$DUMP" --check "$TMP/good.fxt" >/dev/null 2>&1; then
	fail "a first trace to keep (exit $rc)" "$TMP/err"
	exit 0
fi

# A failure before tracing starts: the previous trace must survive it.
for knob in "FAKE_FXTRACE_MMAP_ERRNO=12:mapping CPU 0's ring" \
	    "FAKE_FXTRACE_START_ERRNO=5:FXTRACE_IOC_START failed"; do
	env=${knob%%:*} step=${knob#*:}
	cp "$TMP/good.fxt" "$TMP/s.fxt"
	# shellcheck disable=SC2086
	env $env LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" \
		-o "$TMP/s.fxt" -d 0.2 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	name="${env%%=*} (fails before tracing): exit 1, the step named, the previous trace kept and said so"
	if [ "$rc" -eq 1 ] && grep -qF "$step" "$TMP/err" &&
	   cmp -s "$TMP/good.fxt" "$TMP/s.fxt" &&
	   grep -qxF "fxt-collect: no trace was written: $TMP/s.fxt was left as it was" "$TMP/err"; then
		ok "$name"
	else
		fail "$name (exit $rc, $(wc -c <"$TMP/s.fxt") bytes of $(wc -c <"$TMP/good.fxt"))" "$TMP/err"
	fi
	rm -f "$TMP/new.fxt"
	# shellcheck disable=SC2086
	env $env LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" \
		-o "$TMP/new.fxt" -d 0.2 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	name="${env%%=*} with a new -o FILE: exit 1, no empty file left behind"
	if [ "$rc" -eq 1 ] && [ ! -e "$TMP/new.fxt" ] &&
	   grep -qxF "fxt-collect: no trace was written: $TMP/new.fxt, which fxt-collect had created, was removed" "$TMP/err"; then
		ok "$name"
	else
		fail "$name (exit $rc)" "$TMP/err"
	fi
done
# Opening the device, GET_INFO and CONFIGURE (ENOMEM: rings larger than
# the memory) fail before -o FILE is opened: an existing FILE is not
# touched, none is created, and nothing is said about it (fxt-collect(1)
# says so; it used to promise a removal and a "no trace was written").
for knob in "FAKE_FXTRACE_OPEN_ERRNO=13:opening $DEV failed" \
	    "FAKE_FXTRACE_ABI=99:ABI" \
	    "FAKE_FXTRACE_CONFIGURE_ERRNO=12:FXTRACE_IOC_CONFIGURE failed"; do
	env=${knob%%:*} step=${knob#*:}
	cp "$TMP/good.fxt" "$TMP/s.fxt"
	rm -f "$TMP/new.fxt"
	# shellcheck disable=SC2086
	env $env LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" \
		-o "$TMP/s.fxt" -d 0.2 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	# shellcheck disable=SC2086
	env $env LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" \
		-o "$TMP/new.fxt" -d 0.2 >"$TMP/out" 2>>"$TMP/err"
	rc2=$?
	name="${env%%=*} (fails before -o FILE is opened): exit 1, the step named, FILE untouched, none created, nothing said of it"
	if [ "$rc" -eq 1 ] && [ "$rc2" -eq 1 ] && grep -qF "$step" "$TMP/err" &&
	   cmp -s "$TMP/good.fxt" "$TMP/s.fxt" && [ ! -e "$TMP/new.fxt" ] &&
	   ! grep -q "no trace was written" "$TMP/err"; then
		ok "$name"
	else
		fail "$name (exit $rc and $rc2)" "$TMP/err"
	fi
done
# ... and fxt-collect(1) says which failures come before FILE is opened.
if command -v groff >/dev/null 2>&1; then
	groff -man -Tascii -P-c -P-b -P-o -P-u "$(dirname "$0")/../fxt-collect.1" 2>/dev/null |
		tr -s ' \n' '  ' >"$TMP/page.txt"
	if grep -qF "Opening the device, FXTRACE_IOC_GET_INFO and FXTRACE_IOC_CONFIGURE (such as ENOMEM, rings larger than the memory available) come before FILE is opened: a failure there neither creates nor touches it" "$TMP/page.txt" &&
	   ! grep -qF "(the device, mapping the rings, starting the module)" "$TMP/page.txt"; then
		ok "fxt-collect(1) -o: device, GET_INFO and CONFIGURE failures come before FILE is opened"
	else
		fail "fxt-collect(1) -o: device, GET_INFO and CONFIGURE failures come before FILE is opened"
	fi
else
	ok "fxt-collect(1) -o # SKIP groff is not installed"
fi
FAKE_FXTRACE_START_ERRNO=5 collect -o /dev/null -d 0.2
if [ "$rc" -eq 1 ] && [ -c /dev/null ] && ! grep -q "no trace was written" "$TMP/err"; then
	ok "START fails with -o /dev/null: exit 1, /dev/null left alone, nothing said of a file"
else
	fail "START fails with -o /dev/null (exit $rc)" "$TMP/err"
fi

# Once tracing has started the file is replaced, as before: a good run over
# the old trace, then one a size limit stops in the preamble (empty file).
cp "$TMP/good.fxt" "$TMP/s.fxt"
head -c 3000000 /dev/urandom >>"$TMP/s.fxt"	# longer than the new trace
collect -q -o "$TMP/s.fxt" -d 0.2
if [ "$rc" -eq 0 ] && "$DUMP" --check "$TMP/s.fxt" >"$TMP/check" 2>&1 &&
   [ "$(wc -c <"$TMP/s.fxt")" -lt 3000000 ]; then
	ok "a good run replaces a longer existing file whole (no old bytes after the trace)"
else
	fail "a good run replaces a longer existing file whole (exit $rc, $(wc -c <"$TMP/s.fxt") bytes)" "$TMP/err" "$TMP/check"
fi
cp "$TMP/good.fxt" "$TMP/s.fxt"
res=$( (ulimit -f 0 && LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV \
	"$COLLECT" -D "$DEV" -o "$TMP/s.fxt" -d 0.2 2>&1 >/dev/null; echo "exit $?") )
echo "$res" >"$TMP/err"
if grep -qx "exit 1" "$TMP/err" && [ -f "$TMP/s.fxt" ] && [ ! -s "$TMP/s.fxt" ] &&
   grep -q "no trace was written: .*s.fxt was cut back to 0 bytes and is empty" "$TMP/err"; then
	ok "a write error after START over an existing file: it is emptied, and fxt-collect says so"
else
	fail "a write error after START over an existing file ($(wc -c <"$TMP/s.fxt") bytes)" "$TMP/err"
fi

# A second signal while COMMAND runs: tracing stops at once, COMMAND is
# left running (here it ignores SIGTERM, so the first one, passed on, did
# not end it), and fxt-collect says so, with COMMAND's pid; its own exit
# status is 128+15, of the signal, not COMMAND's.
# COMMAND: the child of fxt-collect named sleep (the other is the guard).
command_of() {
	for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = sleep ] && echo "$c"
	done
}
# term_twice PID: two SIGTERMs to fxt-collect (PID), 0.3 s apart; its
# status in $rc, its COMMAND's pid in $child, and whether that still runs
# in $alive.
term_twice() {
	child=$(command_of "$1")
	kill -TERM "$1"
	sleep 0.3
	kill -TERM "$1"
	wait "$1"
	rc=$?
	alive=no
	[ -n "$child" ] && kill -0 "$child" 2>/dev/null && alive=yes
}
# term_twice_tracing [VAR=VALUE...]: fxt-collect -o $TMP/s.fxt -- a
# COMMAND that ignores SIGTERM, more fake knobs in the environment; once
# tracing, term_twice, and in $said the COMMAND pid its message names.
term_twice_tracing() {
	rm -f "$TMP/s.fxt"
	env LD_PRELOAD="$FAKE" FAKE_FXTRACE_PATH="$DEV" "$@" \
		"$COLLECT" -D "$DEV" -o "$TMP/s.fxt" -- \
		sh -c 'trap "" TERM; exec sleep 30' >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait_until 5 test -s "$TMP/s.fxt"
	sleep 0.3
	term_twice $pid
	said=$(sed -n 's/^fxt-collect: sh (pid \([0-9]*\)) is still running; fxt-collect did not wait for it.*/\1/p' "$TMP/err")
}
term_twice_tracing
if [ "$rc" -eq 143 ] && [ -n "$child" ] && [ "$said" = "$child" ] && [ "$alive" = yes ] &&
   "$DUMP" --check "$TMP/s.fxt" >/dev/null 2>&1 && grep -q "traced 3 rings (one per possible CPU)" "$TMP/err"; then
	ok "a second SIGTERM with COMMAND: exit 143, a valid trace, 'sh (pid N) is still running; fxt-collect did not wait for it', and it is"
else
	fail "a second SIGTERM with COMMAND: exit $rc, COMMAND pid ${child:-?} (alive: $alive), the message says pid '${said}'" "$TMP/err"
fi
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null

# The same, and then the disk fills up in the last drain (the first write
# after STOP takes half its bytes, every later one fails with ENOSPC):
# COMMAND is still left running and said so, exit 143, the failed write
# and the cut said, and the file is cut back to its last whole record.
term_twice_tracing FAKE_FXTRACE_FULL_AFTER_STOP=1
if [ "$rc" -eq 143 ] && [ -n "$child" ] && [ "$said" = "$child" ] && [ "$alive" = yes ] &&
   grep -q "to $TMP/s.fxt failed: No space left on device" "$TMP/err" &&
   grep -q "s.fxt was cut back to its last whole record" "$TMP/err" &&
   ! grep -q "waiting for sh" "$TMP/err" &&
   "$DUMP" --check "$TMP/s.fxt" >/dev/null 2>&1; then
	ok "a second SIGTERM with COMMAND, then a full disk in the last drain: COMMAND left running and said so, exit 143, the failed write and the cut said, a valid trace"
else
	fail "a second SIGTERM with COMMAND, then a full disk in the last drain: exit $rc (wanted 143), COMMAND pid ${child:-?} (alive: $alive), the message says pid '${said}'; wanted 'No space left on device', the cut said, fxt-dump --check passing" "$TMP/err"
fi
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null

# After -d, tracing has stopped and fxt-collect waits for COMMAND; -d is no
# signal, so the first signal is COMMAND's and the second ends the wait and
# leaves COMMAND running. Tracing had stopped already, so the message must
# not say that a second signal stopped it.
rm -f "$TMP/s.fxt"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV "$COLLECT" -D "$DEV" -o "$TMP/s.fxt" -d 0.2 -- \
	sh -c 'trap "" TERM; exec sleep 30' >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_until 5 grep -q "tracing stopped; waiting for sh" "$TMP/err"
term_twice $pid
said=$(sed -n 's/^fxt-collect: sh (pid \([0-9]*\)) is still running; fxt-collect stopped waiting for it (tracing had already stopped;.*/\1/p' "$TMP/err")
if [ "$rc" -eq 143 ] && [ -n "$child" ] && [ "$said" = "$child" ] && [ "$alive" = yes ] &&
   ! grep -q "second signal stops tracing" "$TMP/err" &&
   "$DUMP" --check "$TMP/s.fxt" >/dev/null 2>&1; then
	ok "two SIGTERMs while waiting for COMMAND after -d: exit 143, 'stopped waiting for it (tracing had already stopped)', not 'a second signal stops tracing'"
else
	fail "two SIGTERMs while waiting for COMMAND after -d: exit $rc, COMMAND pid ${child:-?} (alive: $alive), the message says pid '${said}'" "$TMP/err"
fi
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null

# The same two SIGTERMs, handled just before that wait began (the fake
# device holds fxt-collect's first waitpid() of COMMAND after STOP 1 s, and
# both land in it). Before, a blocking waitpid() then waited for COMMAND
# (5 s here) and fxt-collect exited with its status, 0.
rm -f "$TMP/s.fxt" "$TMP/wait-note"
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=$DEV FAKE_FXTRACE_WAIT_DELAY_MS=1000 \
	FAKE_FXTRACE_WAIT_NOTE=$TMP/wait-note "$COLLECT" -D "$DEV" -o "$TMP/s.fxt" -d 0.2 -- \
	sh -c 'trap "" TERM; exec sleep 5' >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_until 5 test -e "$TMP/wait-note"
term_twice $pid
said=$(sed -n 's/^fxt-collect: sh (pid \([0-9]*\)) is still running; fxt-collect stopped waiting for it (tracing had already stopped;.*/\1/p' "$TMP/err")
if [ "$rc" -eq 143 ] && [ -n "$child" ] && [ "$said" = "$child" ] && [ "$alive" = yes ] &&
   "$DUMP" --check "$TMP/s.fxt" >/dev/null 2>&1; then
	ok "two SIGTERMs just before fxt-collect waits for COMMAND after -d: they end the wait, exit 143"
else
	fail "two SIGTERMs just before fxt-collect waits for COMMAND after -d: exit $rc (wanted 143), COMMAND pid ${child:-?} (alive: $alive), the message says pid '${said}'" "$TMP/err"
fi
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null

# -o through a dangling symbolic link: refused before anything is traced,
# with the link named; its target is not created (it used to be, while
# fxt-collect said the file was left as it was).
ln -s "$TMP/target.fxt" "$TMP/dangling.fxt"
collect -o "$TMP/dangling.fxt" -d 0.2
if [ "$rc" -eq 1 ] && [ ! -e "$TMP/target.fxt" ] && [ -L "$TMP/dangling.fxt" ] &&
   grep -qF "$TMP/dangling.fxt is a symbolic link to a file that does not exist" "$TMP/err" &&
   ! grep -q "no trace was written" "$TMP/err"; then
	ok "-o a dangling symbolic link: exit 1, refused with the link named, its target not created"
else
	fail "-o a dangling symbolic link: exit $rc, target $( [ -e "$TMP/target.fxt" ] && echo created || echo absent)" "$TMP/err"
fi
