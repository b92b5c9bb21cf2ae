#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_valgrind.sh FXT_DUMP CORPUS_DIR [FXT_COLLECT FAKE_SO]
#
# fxt-dump under valgrind on every file of the corpus that
# test_fxt_malformed left behind (valid and malformed, every mode): no
# invalid reads, no leaks. With FXT_COLLECT and FAKE_SO, also one whole
# fxt-collect session (with a COMMAND) against the fake device.
# Prints unnumbered TAP lines.

DUMP=${1:?usage: $0 FXT_DUMP CORPUS_DIR [FXT_COLLECT FAKE_SO]}
CORPUS=${2:?usage: $0 FXT_DUMP CORPUS_DIR [FXT_COLLECT FAKE_SO]}
COLLECT=${3:-}
FAKE=${4:-}

if ! command -v valgrind >/dev/null 2>&1; then
	echo "ok - valgrind fxt-dump # SKIP valgrind is not installed"
	exit 0
fi
if ! ls "$CORPUS"/*.fxt >/dev/null 2>&1; then
	echo "not ok - valgrind fxt-dump: no corpus in $CORPUS"
	exit 0
fi

log=$(mktemp /tmp/fxt-valgrind.XXXXXX)
trap 'rm -f "$log"' EXIT
failed=0 runs=0
for f in "$CORPUS"/*.fxt; do
	# Every mode on the valid traces (drops-100-cpus.fxt: --summary's
	# drop counters past their first allocation; records-lost.fxt: its
	# per-CPU holes); malformed ones stop early in any mode, so lenient
	# printing and --check cover their paths.
	modes='"" --check'
	case ${f##*/} in
	valid.fxt|drops-100-cpus.fxt|records-lost.fxt) modes='"" --check --summary' ;;
	esac
	eval "set -- $modes"
	for mode in "$@"; do
		runs=$((runs + 1))
		# 99: valgrind found an error; 0/1 are fxt-dump's own answers.
		valgrind -q --error-exitcode=99 --leak-check=full \
			--show-leak-kinds=all --errors-for-leak-kinds=all \
			"$DUMP" ${mode:+"$mode"} "$f" >/dev/null 2>"$log"
		if [ $? -eq 99 ] || grep -q "==[0-9]*==" "$log"; then
			failed=$((failed + 1))
			echo "#   fxt-dump $mode $f:"
			sed 's/^/#     /' "$log" | head -20
		fi
	done
done
if [ "$failed" -eq 0 ]; then
	echo "ok - valgrind fxt-dump: $runs runs over the corpus, no errors, no leaks"
else
	echo "not ok - valgrind fxt-dump: $failed of $runs runs had errors or leaks"
fi
# stdin goes through the read() path instead of mmap().
valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all \
	"$DUMP" --check - <"$CORPUS/valid.fxt" >/dev/null 2>"$log"
if [ $? -eq 0 ] && ! grep -q "==[0-9]*==" "$log"; then
	echo "ok - valgrind fxt-dump --check - (stdin): no errors, no leaks"
else
	echo "not ok - valgrind fxt-dump --check - (stdin)"
	sed 's/^/#     /' "$log" | head -20
fi

[ -n "$COLLECT" ] && [ -n "$FAKE" ] || exit 0
# The fake device keeps its ring memory for the life of the process, so
# only definite leaks count here.
trace=$(mktemp /tmp/fxt-valgrind-trace.XXXXXX)
# Name records out of order (FAKE_FXTRACE_NAMES) exercise name_order.c, and
# COMMAND in the ring data the /proc naming.
LD_PRELOAD=$FAKE FAKE_FXTRACE_PATH=/fake/fxtrace FAKE_FXTRACE_NAMES=30 \
	FAKE_FXTRACE_CHILD=1 valgrind -q --error-exitcode=99 \
	--leak-check=full --errors-for-leak-kinds=definite \
	"$COLLECT" -q -D /fake/fxtrace -o "$trace" -d 1 -- sh -c 'sleep 0.2' \
	>/dev/null 2>"$log"
status=$?
if [ $status -eq 0 ] && ! grep -q "==[0-9]*==" "$log" && "$DUMP" --check "$trace" >/dev/null; then
	echo "ok - valgrind fxt-collect (fake device, kernel names, with a COMMAND): no errors, no leaks"
else
	echo "not ok - valgrind fxt-collect (fake device, kernel names, with a COMMAND): exit $status"
	sed 's/^/#     /' "$log" | head -20
fi
rm -f "$trace"
