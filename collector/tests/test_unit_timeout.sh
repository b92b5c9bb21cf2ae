#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_unit_timeout.sh RUN_TESTS - run_tests.sh's time limit on the C unit
# test programs (UNIT_TIMEOUT), on stand-ins: `run_tests.sh units` on a
# build directory whose programs are small scripts, one of which never
# ends. It must be killed at the limit and reported as one failure naming
# it, the programs after it must still run, and the run must exit 1.
# Also: a program that ends in time is not a timeout, and a UNIT_TIMEOUT
# that is no number of seconds is refused.

RUN_TESTS=${1:?usage: $0 path/to/run_tests.sh}
TMP=$(mktemp -d /tmp/fxt-unit-timeout.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
ok() { echo "ok - $1"; }
fail() {
	echo "not ok - $1"
	shift
	for f in "$@"; do sed 's/^/#   /' "$f"; done
}

# A build directory of stand-ins: each prints one passing test; HANG
# (a program's name) also sleeps for a minute after it.
make_build() {
	rm -rf "$TMP/b"
	mkdir -p "$TMP/b/obj/tests" || exit 1
	for p in test_fxt_roundtrip test_ring_drain test_name_order \
		test_collector_parts test_fxt_malformed; do
		{
			echo '#!/bin/sh'
			echo "echo 'ok - $p ran'"
			[ "$p" = "$1" ] && echo 'sleep 60'
		} >"$TMP/b/obj/tests/$p"
		chmod +x "$TMP/b/obj/tests/$p" || exit 1
	done
}

# run_units [VAR=VALUE...]: run_tests.sh units on $TMP/b; output in
# $TMP/out, exit status in $rc, seconds taken in $took.
run_units() {
	started=$(date +%s)
	env "$@" BUILD="$TMP/b" ASAN_BUILD="$TMP/none" \
		SRCDIR="$(dirname "$RUN_TESTS")/.." GEN_TRACE=/nonexistent \
		sh "$RUN_TESTS" units >"$TMP/out" 2>&1
	rc=$?
	took=$(($(date +%s) - started))
}

make_build test_ring_drain
run_units UNIT_TIMEOUT=2
cat >"$TMP/want" <<'EOF2'
TAP version 13
1..6
ok 1 - test_fxt_roundtrip ran
ok 2 - test_ring_drain ran
not ok 3 - test_ring_drain did not end within 2 s and was killed (a test that never ends? run it alone to see which; on a slow machine, raise UNIT_TIMEOUT)
ok 4 - test_name_order ran
ok 5 - test_collector_parts ran
ok 6 - test_fxt_malformed ran
5 passed, 1 failed
EOF2
if [ "$rc" -eq 1 ] && [ "$took" -lt 30 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "a unit program that never ends is killed at UNIT_TIMEOUT=2 and reported by name, one failure; the rest still run; exit 1 (${took} s)"
else
	diff "$TMP/want" "$TMP/out" >"$TMP/diff"
	fail "a unit program that never ends is killed at UNIT_TIMEOUT=2 and reported by name, one failure; the rest still run; exit 1 (exit $rc, ${took} s)" "$TMP/diff"
fi

# Every program ends in time: all pass, exit 0, no timeout said.
make_build none
run_units UNIT_TIMEOUT=2
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$TMP/out")" = "5 passed, 0 failed" ] &&
   ! grep -q "did not end" "$TMP/out"; then
	ok "unit programs that end in time: 5 passed, 0 failed, exit 0"
else
	fail "unit programs that end in time: 5 passed, 0 failed, exit 0 (exit $rc)" "$TMP/out"
fi

# The default limit is 300 s: said when a program hangs, not tested by
# waiting; here only that an unset UNIT_TIMEOUT runs them.
run_units UNIT_TIMEOUT=
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$TMP/out")" = "5 passed, 0 failed" ]; then
	ok "UNIT_TIMEOUT empty: the default limit, all 5 pass"
else
	fail "UNIT_TIMEOUT empty: the default limit, all 5 pass (exit $rc)" "$TMP/out"
fi

for bad in 0 1.5 abc -3; do
	run_units UNIT_TIMEOUT=$bad
	if [ "$rc" -eq 2 ] && [ "$(cat "$TMP/out")" = "$RUN_TESTS: UNIT_TIMEOUT=$bad: give the unit test programs' time limit as a whole number of seconds, 1 or more (default 300)" ]; then
		ok "UNIT_TIMEOUT=$bad is refused: exit 2, and what to give"
	else
		fail "UNIT_TIMEOUT=$bad is refused: exit 2, and what to give (exit $rc)" "$TMP/out"
	fi
done
