#!/usr/bin/env bash
# fetch-kernel.sh FLAVOUR -- download and unpack a Debian kernel for VM tests.
# fetch-kernel.sh --known | --known-phrase | --check FLAVOUR -- the supported flavours, offline.
#
# Finds the newest Debian 12 kernel of FLAVOUR that apt can download,
# fetches the image, its headers, the common headers and the kbuild tools
# with `apt-get download`, unpacks them with `dpkg -x` (no maintainer
# scripts, no DKMS, no initramfs hooks) into
#   ${FXTRACE_CACHE:-<repo>/.cache}/kernels/<release>/
# and fixes the paths so that `make -C $KDIR M=<dir> modules` works.
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${FXTRACE_CACHE:-$REPO/.cache}

# The supported kernels, the one list of them: every other script asks
# this one (--known, --check). One line per FLAVOUR: its name, the regex
# of its Debian release (uname -r), and what --help says about it.
KERNELS=(
	'6.1|6\.1\.0-[0-9]+-amd64|newest linux-image-6.1.0-N-amd64             (bookworm)'
	'6.12|6\.12\.[0-9]+\+deb12-amd64|newest linux-image-6.12.N+deb12-amd64        (bookworm-backports/security)'
	'6.12-rt|6\.12\.[0-9]+\+deb12-rt-amd64|newest linux-image-6.12.N+deb12-rt-amd64     (PREEMPT_RT)'
)

# known_flavours: the flavours, one per line.
known_flavours() {
	local k
	for k in "${KERNELS[@]}"; do echo "${k%%|*}"; done
}

# expected_flavours: the flavours for a message, e.g. "6.1, 6.12 or 6.12-rt".
expected_flavours() {
	local list
	list=$(known_flavours)
	list=${list//$'\n'/, }
	[[ $list == *', '* ]] && list="${list%, *} or ${list##*, }"
	echo "$list"
}

# flavour_re FLAVOUR: the release regex of FLAVOUR; false if it is unknown.
flavour_re() {
	local k rest
	for k in "${KERNELS[@]}"; do
		[[ ${k%%|*} == "$1" ]] || continue
		rest=${k#*|}
		echo "${rest%%|*}"
		return 0
	done
	return 1
}

usage() {
	cat <<EOF
Usage: $prog [-h|--help] FLAVOUR
       $prog --known
       $prog --known-phrase
       $prog --check FLAVOUR

Download (once) and unpack a Debian kernel image + headers for VM tests.

FLAVOUR:
$(for k in "${KERNELS[@]}"; do printf '  %-9s %s\n' "${k%%|*}" "${k##*|}"; done)

  --known           print the supported FLAVOURs, one per line, and exit 0
  --known-phrase    print them for a message ("$(expected_flavours)")
  --check FLAVOUR   exit 0 if FLAVOUR is supported; else say so on stderr,
                    naming the supported ones, and exit 2
These three modes work offline: they download, install and create nothing.

Prints on stdout (shell-quoted, safe for eval):
  RELEASE=<uname -r of the kernel>
  KDIR=<headers dir: make -C \$KDIR M=\$PWD modules>
  VMLINUZ=<kernel image for qemu -kernel>
  MODULES=<lib/modules/<release> dir, for vm-run.sh --modules-dir>
Progress messages go to stderr. A cached kernel is reused without any
download. Runs 'apt-get update' once if apt knows no matching kernel or a
download fails (needs root for that).

Environment:
  FXTRACE_CACHE            cache root (default: <repo>/.cache)
  FXTRACE_KERNEL_RELEASE   use this exact release (e.g. 6.1.0-56-amd64)
                           instead of the newest one
  FXTRACE_OFFLINE=1        do not touch apt; use the newest cached release

Exit status: 0 done, 1 a download or unpack failed, 2 usage error (also an
unknown FLAVOUR).
EOF
}

die() { echo "$prog: error: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }

# check_flavour FLAVOUR: set release_re, or say FLAVOUR is unknown; exit 2.
check_flavour() {
	release_re=$(flavour_re "$1") && return 0
	echo "$prog: error: unknown FLAVOUR '$1' (expected $(expected_flavours); see --help)" >&2
	exit 2
}

case ${1:-} in
-h | --help) usage; exit 0 ;;
--known)
	[[ $# -eq 1 ]] || { usage >&2; exit 2; }
	known_flavours
	exit 0 ;;
--known-phrase)
	[[ $# -eq 1 ]] || { usage >&2; exit 2; }
	expected_flavours
	exit 0 ;;
--check)
	[[ $# -eq 2 ]] || { usage >&2; exit 2; }
	check_flavour "$2"
	exit 0 ;;
-*) echo "$prog: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
'') usage >&2; exit 2 ;;
esac
[[ $# -eq 1 ]] || { usage >&2; exit 2; }
FLAVOUR=$1
check_flavour "$FLAVOUR"

if [[ -n ${FXTRACE_KERNEL_RELEASE:-} ]]; then
	[[ $FXTRACE_KERNEL_RELEASE =~ ^${release_re}$ ]] ||
		die "FXTRACE_KERNEL_RELEASE=$FXTRACE_KERNEL_RELEASE does not match flavour $FLAVOUR"
fi

KROOT=$CACHE/kernels
mkdir -p "$KROOT" || die "cannot create cache dir $KROOT (set FXTRACE_CACHE to a writable dir)"

# Paths inside one unpacked release.
kpaths() { # $1 = release
	rel_dir=$KROOT/$1
	KDIR=$rel_dir/usr/src/linux-headers-$1
	VMLINUZ=$rel_dir/boot/vmlinuz-$1
	MODULES=$rel_dir/lib/modules/$1
}

print_result() { # $1 = release
	kpaths "$1"
	printf 'RELEASE=%q\nKDIR=%q\nVMLINUZ=%q\nMODULES=%q\n' "$1" "$KDIR" "$VMLINUZ" "$MODULES"
}

is_cached() { [[ -f $KROOT/$1/.fxtrace-complete ]]; }

newest_cached() {
	local d best=''
	for d in "$KROOT"/*/.fxtrace-complete; do
		[[ -e $d ]] || continue
		d=${d%/.fxtrace-complete}
		d=${d##*/}
		[[ $d =~ ^${release_re}$ ]] && best+="$d"$'\n'
	done
	printf '%s' "$best" | sort -V | tail -n 1
}

# --- apt helpers -----------------------------------------------------------
# shellcheck source=scripts/apt-retry.sh
. "$REPO/scripts/apt-retry.sh"
updated=0
apt_update_once() {
	((updated)) && return 1
	updated=1
	log "running 'apt-get update' (package lists missing or stale)"
	[[ $(id -u) -eq 0 ]] || die "apt-get update needs root; run 'sudo apt-get update' and retry"
	apt_get update -qq >&2 || die "'apt-get update' failed; check network access to the Debian mirror"
}

has_candidate() { # $1 = package; true if apt can download some version of it
	local c
	# LC_ALL=C: apt translates "Candidate:"
	c=$(LC_ALL=C apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && !n++ {print $2}')
	[[ -n $c && $c != '(none)' ]]
}

# Newest release of this flavour that apt can download (empty if none).
newest_apt_release() {
	apt-cache pkgnames linux-image- 2>/dev/null |
		sed -nE "s/^linux-image-(${release_re})$/\\1/p" | sort -Vr |
		while read -r rel; do
			if has_candidate "linux-headers-$rel" &&
				{ has_candidate "linux-image-$rel" || has_candidate "linux-image-$rel-unsigned"; }; then
				echo "$rel"
				break
			fi
		done
}

# Dependencies of linux-headers-REL that we need: *-common* headers + kbuild.
header_deps() { # $1 = release
	apt-cache show --no-all-versions "linux-headers-$1" |
		awk -F': ' '/^Depends:/ && !n++ {print $2}' | tr ',' '\n' |
		sed -E 's/^ +//; s/ *\(.*//; s/ *\|.*//' |
		grep -E '^(linux-headers-.*-common(-rt)?|linux-kbuild-.*)$' || true
}

# --- pick the release --------------------------------------------------------
if [[ -n ${FXTRACE_KERNEL_RELEASE:-} ]]; then
	RELEASE=$FXTRACE_KERNEL_RELEASE
elif [[ ${FXTRACE_OFFLINE:-0} == 1 ]]; then
	RELEASE=$(newest_cached)
	[[ -n $RELEASE ]] || die "FXTRACE_OFFLINE=1 but no $FLAVOUR kernel is cached in $KROOT"
else
	RELEASE=$(newest_apt_release)
	if [[ -z $RELEASE ]]; then
		apt_update_once || true
		RELEASE=$(newest_apt_release)
	fi
	if [[ -z $RELEASE ]]; then
		RELEASE=$(newest_cached)
		[[ -n $RELEASE ]] || die "apt knows no downloadable linux-image matching '$release_re'. Is bookworm (+ bookworm-security/updates) in /etc/apt/sources.list?"
		log "warning: apt has no $FLAVOUR kernel; using cached $RELEASE"
	fi
fi

if is_cached "$RELEASE"; then
	print_result "$RELEASE"
	exit 0
fi
# FXTRACE_KERNEL_RELEASE names a release not cached: offline, that is an
# error, not a download.
[[ ${FXTRACE_OFFLINE:-0} != 1 ]] ||
	die "FXTRACE_OFFLINE=1 but $RELEASE (FXTRACE_KERNEL_RELEASE) is not cached in $KROOT"

# --- download + unpack (serialised by a lock; another run may be doing it) ---
exec 9>"$KROOT/.lock"
flock 9
if is_cached "$RELEASE"; then
	print_result "$RELEASE"
	exit 0
fi

work=$(mktemp -d "$KROOT/.tmp-$RELEASE.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The packages of $RELEASE: the image (signed, else unsigned), its headers
# and the headers' -common and kbuild dependencies.
choose_packages() {
	image_pkg=linux-image-$RELEASE
	if ! has_candidate "$image_pkg"; then
		image_pkg=linux-image-$RELEASE-unsigned
		has_candidate "$image_pkg" || apt_update_once || true
	fi
	mapfile -t deps < <(header_deps "$RELEASE")
	[[ ${#deps[@]} -ge 2 ]] || die "could not find the -common headers and linux-kbuild packages in the Depends of linux-headers-$RELEASE (got: ${deps[*]:-nothing})"
	pkgs=("$image_pkg" "linux-headers-$RELEASE" "${deps[@]}")
}
choose_packages

download() {
	log "downloading ${pkgs[*]}"
	(cd "$work" && apt_get -q -o APT::Sandbox::User=root download "${pkgs[@]}" >&2)
}
if ! download; then
	apt_update_once || die "apt-get download failed for: ${pkgs[*]}"
	# Stale package lists name a release the mirror no longer has (a
	# security update replaced it): after the update, take the newest
	# release again, unless the caller chose one.
	if [[ -z ${FXTRACE_KERNEL_RELEASE:-} ]]; then
		newest=$(newest_apt_release)
		if [[ -n $newest && $newest != "$RELEASE" ]]; then
			log "the package lists were stale: $newest replaces $RELEASE"
			RELEASE=$newest
			if is_cached "$RELEASE"; then
				print_result "$RELEASE"
				exit 0
			fi
			rm -f "$work"/*.deb
			choose_packages
		fi
	fi
	download || die "apt-get download failed for: ${pkgs[*]} (even after apt-get update)"
fi

dest=$work/root
mkdir -p "$dest"
for deb in "$work"/*.deb; do
	log "unpacking ${deb##*/}"
	dpkg -x "$deb" "$dest" || die "dpkg -x $deb failed (disk full?)"
done

# --- fix up paths for an unpacked (not installed) tree ------------------------
kh=$dest/usr/src/linux-headers-$RELEASE
[[ -f $kh/Makefile ]] || die "headers missing after unpacking: $kh/Makefile"
[[ -f $dest/boot/vmlinuz-$RELEASE ]] || die "kernel image missing after unpacking: boot/vmlinuz-$RELEASE"
moddir=$dest/lib/modules/$RELEASE
[[ -d $moddir/kernel ]] || die "module tree missing after unpacking: lib/modules/$RELEASE/kernel"

# The arch headers' Makefile includes the common headers by absolute path
# (/usr/src/linux-headers-*-common/Makefile); point it at the sibling dir in
# this tree instead, relative to the Makefile itself so the cache can move.
common_name=$(sed -nE 's|^include /usr/src/([^/]+)/Makefile$|\1|p' "$kh/Makefile")
[[ -n $common_name && -d $dest/usr/src/$common_name ]] ||
	die "unexpected $kh/Makefile (cannot find the common headers it includes): $(cat "$kh/Makefile")"
cat >"$kh/Makefile" <<EOF
# Rewritten by fxtrace scripts/fetch-kernel.sh: was include /usr/src/$common_name/Makefile
include \$(dir \$(realpath \$(lastword \$(MAKEFILE_LIST))))../$common_name/Makefile
EOF
# scripts/ and tools/ are already relative (../../lib/linux-kbuild-X/...).
for l in "$kh/scripts" "$dest/usr/src/$common_name/scripts"; do
	[[ -e $l/basic/fixdep || -e $l/Makefile.build ]] || die "broken kbuild link $l -> $(readlink "$l")"
done
ln -sfn "../../../usr/src/linux-headers-$RELEASE" "$moddir/build"
ln -sfn "../../../usr/src/$common_name" "$moddir/source"

# Debian generates modules.dep in postinst; dpkg -x does not run it.
if [[ ! -f $moddir/modules.dep ]]; then
	command -v depmod >/dev/null || die "depmod not found; run scripts/install-deps.sh (package kmod)"
	depmod -b "$dest" "$RELEASE" || die "depmod -b $dest $RELEASE failed"
fi

# The kbuild helpers are binaries built for Debian; make sure they run here.
# fixdep without arguments prints its usage and exits 1; 126/127 or a crash
# means the binary cannot run here.
rc=0
"$kh/scripts/basic/fixdep" </dev/null >/dev/null 2>&1 || rc=$?
[[ $rc -eq 1 || $rc -eq 0 ]] ||
	die "$kh/scripts/basic/fixdep cannot run on this host (rc=$rc); the linux-kbuild package needs a Debian 12 compatible userland"

touch "$dest/.fxtrace-complete"
rm -rf "${KROOT:?}/$RELEASE"
mv "$dest" "$KROOT/$RELEASE"
log "cached $RELEASE in $KROOT/$RELEASE"
print_result "$RELEASE"
