#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# harness_check.sh DIR - the test of harness.h, on the host
#
# Runs DIR/harness_sample_1 ... _10 (harness_sample.c, one per HARNESS_SET;
# make -C selftests harness-check builds them and runs this) and compares
# each one's whole output and exit status with what harness.h must print:
# the TAP line of every outcome, the failure messages, what ran after an
# EXPECT/ASSERT/SKIP, the totals, and the kselftest exit status (0 pass,
# 1 fail, 4 skip). Line numbers in the messages are replaced by N, and the
# pids of the helpers set 6's tests fork by P. Set 6 must also end well
# within its helpers' HELPER_S and leave none of them running; set 7, sent
# SIGTERM, must take its test and the test's helper with it.
# Prints TAP; exit status 0 only if every program printed what it must.

dir=${1:?usage: harness_check.sh DIR}
n=0
failed=0

# check SET WANT-STATUS [ARG...]: SET's output, run with the ARGs, must be
# the expected text on stdin.
check() {
	n=$((n + 1))
	want=$(cat)
	set_=$1
	want_rc=$2
	shift 2
	label="harness_sample_$set_${*:+ $*}"
	got=$("$dir/harness_sample_$set_" "$@" 2>&1)
	rc=$?
	set -- "$set_" "$want_rc"
	pids=$(printf '%s\n' "$got" | sed -n 's/^# helper \([0-9]*\)$/\1/p')
	# The program's path as DIR: the usage errors name it.
	got=$(printf '%s\n' "$got" | sed -e 's/^\(#   harness_sample\.c\):[0-9]*:/\1:N:/' \
		-e 's/^# helper [0-9]*$/# helper P/' -e "s|$dir/|DIR/|g")
	if [ "$got" = "$want" ] && [ "$rc" -eq "$2" ]; then
		echo "ok $n $label (exit $rc)"
		return
	fi
	failed=$((failed + 1))
	why="exit $rc (want $2)"
	[ "$got" = "$want" ] || why="$why, output differs"
	echo "not ok $n $label: $why"
	printf '%s\n' "$want" > "$dir/want.$n"
	printf '%s\n' "$got" > "$dir/got.$n"
	diff -u "$dir/want.$n" "$dir/got.$n" | sed 's/^/# /'
}

# The helpers the tests of sets 6 and 7 fork sleep this long.
HELPER_S=8

# ended PID: true once PID is gone or a zombie, waiting up to 2 s (SIGKILL
# is delivered asynchronously; an orphan's zombie waits for its reaper).
ended() {
	tries=20
	while [ -e "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" != Z ]; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# check_helpers SET WANT-STATUS: check, and SET must also take less than
# half of HELPER_S and leave none of its helpers ($pids) running.
check_helpers() {
	t0=$(date +%s)
	check "$@"
	t=$(($(date +%s) - t0))
	why=''
	[ "$t" -lt $((HELPER_S / 2)) ] ||
		why="took $t s, its helpers sleep $HELPER_S s: the runner waited for them"
	[ -n "$pids" ] || why="${why:+$why; }no helper pids in its output"
	for p in $pids; do
		ended "$p" || why="${why:+$why; }helper $p still runs after the program ended"
	done
	n=$((n + 1))
	if [ -z "$why" ]; then
		echo "ok $n harness_sample_$1 took $t s, left no helper running"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n harness_sample_$1: $why"
}

echo "TAP version 13"

check 1 1 <<'EOF'
TAP version 13
1..7
# passes: reached its end
ok 1 passes
#   harness_sample.c:N: expected 1 (1) == 2 (2)
# fails_by_expect: went on after the EXPECT
not ok 2 fails_by_expect
#   harness_sample.c:N: expected 3 (3) == 4 (4)
not ok 3 fails_by_assert
#   SKIP: no device here
ok 4 skips # SKIP no device here
#   harness_sample.c:N: expected 6 (6) == 7 (7)
#   SKIP: skipped after a failure
not ok 5 fails_by_expect_then_skips
#   killed by signal 11
not ok 6 crashes
#   timed out after 1 s
not ok 7 times_out
# Totals: pass:1 fail:5 xfail:0 xpass:0 skip:1 error:0
EOF

# The command line: -t runs only the tests it names, in the file's order
# whatever the order of the -t's, and the plan counts only them; -l lists
# every test; a name that is no test's, or an argument without -t, is a
# usage error that runs nothing.
check 1 1 -t times_out -t passes <<'EOF'
TAP version 13
1..2
# passes: reached its end
ok 1 passes
#   timed out after 1 s
not ok 2 times_out
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
EOF

check 1 4 --test skips <<'EOF'
TAP version 13
1..1
#   SKIP: no device here
ok 1 skips # SKIP no device here
# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0
EOF

check 1 0 -l <<'EOF'
passes
fails_by_expect
fails_by_assert
skips
fails_by_expect_then_skips
crashes
times_out
EOF

check 1 1 -t passes -t no_such_test <<'EOF'
DIR/harness_sample_1: no test named 'no_such_test' in this program ('DIR/harness_sample_1 -l' lists them)
EOF

check 1 1 passes <<'EOF'
DIR/harness_sample_1: unexpected argument 'passes' (a test is named with -t NAME)
EOF

check 2 0 <<'EOF'
TAP version 13
1..1
# passes: reached its end
ok 1 passes
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
EOF

check 3 4 <<'EOF'
TAP version 13
1..2
#   SKIP: no device here
ok 1 skips # SKIP no device here
#   SKIP: nothing either
ok 2 skips_too # SKIP nothing either
# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:2 error:0
EOF

check 4 0 <<'EOF'
TAP version 13
1..2
# passes: reached its end
ok 1 passes
#   SKIP: no device here
ok 2 skips # SKIP no device here
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0
EOF

check 5 1 <<'EOF'
TAP version 13
1..1
#   harness_sample.c:N: expected 6 (6) == 7 (7)
#   SKIP: skipped after a failure
not ok 1 fails_by_expect_then_skips
# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0
EOF

check_helpers 6 1 <<'EOF'
TAP version 13
1..4
# helper P
#   timed out after 1 s
not ok 1 times_out_leaving_a_helper
# helper P
#   SKIP: a helper is still running
ok 2 skips_leaving_a_helper # SKIP a helper is still running
# helper P
ok 3 passes_leaving_a_helper
ok 4 earlier_tests_helpers_are_gone
# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:1 error:0
EOF

# Set 8: a helper that left its test's group is waited for HARNESS_REAP_S
# (1 s there), then killed: the test fails, the next one runs at once.
t0=$(date +%s)
check 8 1 <<'EOF'
TAP version 13
1..2
#   processes the test started still run 1 s after it ended, outside its process group: killed
not ok 1 leaves_a_helper_outside_its_group
# passes_after_it: ran
ok 2 passes_after_it
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
EOF
t=$(($(date +%s) - t0))
n=$((n + 1))
if [ "$t" -lt 5 ]; then
	echo "ok $n harness_sample_8 took $t s (its helper sleeps 8 s)"
else
	failed=$((failed + 1))
	echo "not ok $n harness_sample_8 took $t s: the helper outside the group was waited for"
fi

# Set 9: a test its kill does not end (stuck in the kernel, played by a
# test that survives the SIGCONT set 9's runner sends in place of SIGKILL)
# is given up HARNESS_REAP_S (1 s) after the kill: its threads' wchan and
# stack (or why they cannot be read) are printed, the run bails out
# without the next test, and the test is SIGKILLed on the way. Before, the
# runner waited for it for ever.
n=$((n + 1))
t0=$(date +%s)
timeout -s KILL 20 "$dir/harness_sample_9" > "$dir/out.9" 2>&1
rc=$?
t=$(($(date +%s) - t0))
why=''
[ "$rc" -eq 1 ] || why="exit $rc, want 1"
[ "$t" -lt 10 ] || why="${why:+$why; }took $t s"
# The dump's lines vary (kernel, privileges): there must be some.
grep -q '^#     ' "$dir/out.9" || why="${why:+$why; }no wchan or stack lines"
sed -e '/^#     /d' -e 's/^# test [0-9]*$/# test P/' "$dir/out.9" > "$dir/got.9"
cat > "$dir/want.9" <<'EOF'
TAP version 13
1..2
# test P
#   timed out after 1 s, and still there 1 s after SIGKILL: stuck in the kernel
not ok 1 survives_its_kill
Bail out! survives_its_kill is stuck in the kernel; 1 test(s) after it not run
# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0
EOF
cmp -s "$dir/want.9" "$dir/got.9" || why="${why:+$why; }output differs"
p=$(sed -n 's/^# test \([0-9]*\)$/\1/p' "$dir/out.9")
[ -n "$p" ] && ended "$p" || why="${why:+$why; }test ${p:-?} still runs after the runner bailed out"
if [ -z "$why" ]; then
	echo "ok $n harness_sample_9: a test its kill did not end is given up after 1 s, its stack shown, the run bailed out"
else
	failed=$((failed + 1))
	echo "not ok $n harness_sample_9: $why"
	diff -u "$dir/want.9" "$dir/got.9" | sed 's/^/# /'
	sed 's/^/# /' "$dir/out.9"
fi

# Set 10: a test's cleanup runs in the runner once the test is over, by
# an ASSERT, a crash, the timeout or its end, before its result line; a
# test without one has none. (Set 9's stuck test has one, never run.)
check 10 1 <<'EOF'
TAP version 13
1..5
#   harness_sample.c:N: expected 3 (3) == 4 (4)
# cleanup: in the runner
not ok 1 fails_by_assert_with_cleanup
#   killed by signal 11
# cleanup: in the runner
not ok 2 crashes_with_cleanup
#   timed out after 1 s
# cleanup: in the runner
not ok 3 times_out_with_cleanup
# passes_with_cleanup: reached its end
# cleanup: in the runner
ok 4 passes_with_cleanup
# passes_without_cleanup: reached its end
ok 5 passes_without_cleanup
# Totals: pass:2 fail:3 xfail:0 xpass:0 skip:0 error:0
EOF

# A device test run by a user (ioctl_test, its device a root-owned 0600
# file here): the device is root's alone, so every test skips, saying why
# (exit 4); in the test VM (FXTRACE_VM=1), where the run is root's, the
# same is a failure. Before, a user's run failed 25 of its tests.
n=$((n + 1))
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	echo "ok $n ioctl_test run by a user skips every test # SKIP needs root and setpriv(1) to become a user"
else
	: > "$dir/fxtrace"
	chmod 600 "$dir/fxtrace"
	user_run() {
		env ${1:+FXTRACE_VM=1} setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$dir/ioctl_test_fakedev" > "$dir/out.user" 2>&1
	}
	user_run
	rc=$?
	why=''
	[ "$rc" -eq 4 ] || why="exit $rc, want 4"
	tests=$(grep -c '^ok [0-9]* .* # SKIP .*fxtrace is root.s alone: run the tests as root$' "$dir/out.user")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$dir/out.user")
	[ -n "$plan" ] && [ "$tests" -eq "$plan" ] || why="${why:+$why; }$tests of ${plan:-?} tests skipped as a user's"
	user_run vm
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "^#   .*fxtrace is root.s alone: run the tests as root (in the test VM, FXTRACE_VM=1)" "$dir/out.user" ||
		why="${why:+$why; }with FXTRACE_VM=1: exit $rc, want 1 with the reason"
	if [ -z "$why" ]; then
		echo "ok $n ioctl_test run by a user skips every test ($tests), saying why; in the test VM it fails"
	else
		failed=$((failed + 1))
		echo "not ok $n ioctl_test run by a user: $why"
		sed 's/^/# /' "$dir/out.user" | head -40
	fi
fi

# Set 7: SIGTERM to the runner (what timeout(1) or a cancelled CI job
# sends) while its test sleeps. Each test runs in a process group of its
# own, which a signal meant for ours misses: the runner must end the test,
# and the test's helper, as it dies of the signal.
n=$((n + 1))
"$dir/harness_sample_7" > "$dir/out.7" 2>&1 &
runner=$!
tries=50
while ! grep -q '^# helper' "$dir/out.7" && [ "$tries" -gt 0 ]; do
	tries=$((tries - 1))
	sleep 0.1
done
kill -TERM "$runner"
wait "$runner"
rc=$?
why=''
[ "$rc" -eq 143 ] || why="exit $rc, want 143 (killed by SIGTERM)"
pids=$(sed -n 's/^# [a-z]* \([0-9]*\)$/\1/p' "$dir/out.7")
[ "$(echo "$pids" | wc -w)" -eq 2 ] || why="${why:+$why; }no test and helper pids in its output"
for p in $pids; do
	ended "$p" || why="${why:+$why; }pid $p still runs after the runner died"
done
if [ -z "$why" ]; then
	echo "ok $n harness_sample_7: SIGTERM ended the runner, its test and the test's helper"
else
	failed=$((failed + 1))
	echo "not ok $n harness_sample_7: $why"
	sed 's/^/# /' "$dir/out.7"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
