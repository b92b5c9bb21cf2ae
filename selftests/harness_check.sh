#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# harness_check.sh DIR - the test of harness.h, on the host
#
# Runs DIR/harness_sample_1 ... _5 (harness_sample.c, one per HARNESS_SET;
# make -C selftests harness-check builds them and runs this) and compares
# each one's whole output and exit status with what harness.h must print:
# the TAP line of every outcome, the failure messages, what ran after an
# EXPECT/ASSERT/SKIP, the totals, and the kselftest exit status (0 pass,
# 1 fail, 4 skip). Line numbers in the messages are replaced by N.
# Prints TAP; exit status 0 only if every program printed what it must.

dir=${1:?usage: harness_check.sh DIR}
n=0
failed=0

# check SET WANT-STATUS: SET's output must be the expected text on stdin.
check() {
	n=$((n + 1))
	want=$(cat)
	got=$("$dir/harness_sample_$1" 2>&1)
	rc=$?
	got=$(printf '%s\n' "$got" | sed 's/^\(#   harness_sample\.c\):[0-9]*:/\1:N:/')
	if [ "$got" = "$want" ] && [ "$rc" -eq "$2" ]; then
		echo "ok $n harness_sample_$1 (exit $rc)"
		return
	fi
	failed=$((failed + 1))
	why="exit $rc (want $2)"
	[ "$got" = "$want" ] || why="$why, output differs"
	echo "not ok $n harness_sample_$1: $why"
	printf '%s\n' "$want" > "$dir/want.$1"
	printf '%s\n' "$got" > "$dir/got.$1"
	diff -u "$dir/want.$1" "$dir/got.$1" | sed 's/^/# /'
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

echo "1..$n"
[ "$failed" -eq 0 ]
