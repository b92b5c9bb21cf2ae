#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-install.sh -- the packaging targets of the top-level Makefile, on the
# host, in temporary directories only (nothing outside them is touched):
#
#   1. make install DESTDIR=... PREFIX=/usr puts exactly the expected files
#      there with the right modes; the installed programs run, the installed
#      header agrees with them, the installed man pages match the programs
#      (scripts/check-manpage.sh); make uninstall removes every file again.
#   2. make dkms DESTDIR=... writes a DKMS source tree (sources only, the
#      version from VERSION), and the module really builds from it against
#      a cached Debian kernel; make install-module in it uses the module's
#      own release; make modules-clean removes the module's build products
#      and nothing else (kbuild's clean deletes objects and modules at any
#      depth below M=: once that took the kernel cache in .cache/ too), and
#      so does make clean in a copy of the whole tree; make clean with a
#      BUILDDIR that holds the sources deletes none of them.
#   3. The real dkms, in private trees: make dkms (add, build, install), run
#      twice; a "kernel upgrade" (dkms autoinstall for a second cached
#      kernel, as the kernel's postinst hook does); make dkms-remove.
#
# Kernels come from the cache only (FXTRACE_OFFLINE=1: never a download);
# without one, the build steps are skipped with the reason, or fail with
# --require-kernels (scripts/run-tests.sh, once it fetched them). TAP output.
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"

usage() {
	cat <<EOF
Usage: $prog [--kernel FLAVOUR] [--upgrade-kernel FLAVOUR|none] [--require-kernels]

Tests make install/uninstall, the man pages, make dkms and DKMS itself in
temporary directories; prints TAP and exits 1 if a test failed.
  --kernel FLAVOUR          cached kernel to build the module for (default 6.1)
  --upgrade-kernel FLAVOUR  cached kernel that plays the upgrade (default 6.12)
  --require-kernels         a kernel not in the cache fails the DKMS tests
                            instead of skipping them
Kernels are used only if scripts/fetch-kernel.sh has cached them.
EOF
}

kernel=6.1 upgrade=6.12 require=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) kernel=${2:?--kernel needs a flavour}; shift 2 ;;
	--upgrade-kernel) upgrade=${2:?--upgrade-kernel needs a flavour}; shift 2 ;;
	--require-kernels) require=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

export PATH=$PATH:/sbin:/usr/sbin	# modinfo, depmod, dkms for non-root
tmp=$(mktemp -d /tmp/fxtrace-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
version=$(<VERSION)

# no_kernel NAME FLAVOUR: a test that needs a kernel the cache does not have.
no_kernel() {
	if ((require)); then
		tap_ok 1 "$1 (no cached $2 kernel, and --require-kernels)"
	else
		tap_skip "$1" "no cached $2 kernel (scripts/fetch-kernel.sh $2)"
	fi
}
# run NAME LOG CMD...: a command as a test, its output in LOG.
run() {
	local name=$1 log=$2
	shift 2
	"$@" >"$log" 2>&1
	tap_ok $? "$name" "$log"
}
# The kernel release a module was built for.
vermagic() { modinfo -F vermagic "$1" 2>/dev/null | cut -d' ' -f1; }
# kernel_env FLAVOUR: RELEASE and KDIR of a cached kernel, or fail.
kernel_env() {
	FXTRACE_OFFLINE=1 scripts/fetch-kernel.sh "$1" 2>/dev/null
}

# copy_tracked DIR: the tracked files of the tree, copied into DIR.
copy_tracked() {
	mkdir -p "$1" && git ls-files -z | xargs -0 cp --parents -t "$1"
}

# Files that look like build products but are not the module's: a
# kernel's module and object in the fetch cache, a VM build's library and a
# copy of a module in build/, a userspace object.
bystanders=(.cache/kernels/r/lib/modules/r/kernel/drivers/virtio/virtio_ring.ko
	    .cache/kernels/r/usr/src/linux-headers-r/scripts/mod/empty.o
	    build/vm-r/bin/libfxt.a build/fxtrace-6.1.ko collector/planted.o)
# plant_bystanders TREE
plant_bystanders() {
	local f
	for f in "${bystanders[@]}"; do
		mkdir -p "$1/${f%/*}" && echo "not the module's" >"$1/$f"
	done
}
# check_cleaned TREE WHAT: after WHAT, no product of the module's build is
# left in TREE, and every bystander is.
check_cleaned() {
	local f left gone=()
	left=$(cd "$1" && find . -path ./.cache -prune -o -path ./build -prune -o \
		\( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name Module.symvers -o -name modules.order \) \
		-print | grep -vx ./collector/planted.o)
	[[ -z $left ]]
	tap_ok $? "$2 removes every product of the module's build${left:+ (left: $left)}"
	for f in "${bystanders[@]}"; do
		[[ -f $1/$f ]] || gone+=("$f")
	done
	tap_ok ${#gone[@]} "$2 leaves ${#bystanders[@]} files that are not the module's (.cache/, build/, collector/)${gone[*]:+ (deleted: ${gone[*]})}"
}

tap_begin --version

# ---- 1. make install / uninstall -------------------------------------------
stage=$tmp/stage
expected=(
	"/usr/bin/fxt-collect 755" "/usr/bin/fxt-dump 755" "/usr/bin/fxt-sched 755"
	"/usr/bin/fxt2json 755"
	"/usr/share/man/man1/fxt-collect.1 644" "/usr/share/man/man1/fxt-dump.1 644"
	"/usr/share/man/man1/fxt-sched.1 644" "/usr/share/man/man1/fxt2json.1 644"
	"/usr/include/linux/fxtrace.h 644"
)
# A rebuild of kmod/fxtrace.ko by someone else must not change the answer
# between the install and the checks: decide once.
ko_release=
[[ -f kmod/fxtrace.ko ]] && ko_release=$(vermagic kmod/fxtrace.ko)
[[ -z $ko_release ]] || expected+=("/lib/modules/$ko_release/extra/fxtrace.ko 644")

set +e
run "make install DESTDIR=\$tmp PREFIX=/usr" "$tmp/install.log" \
	make install DESTDIR="$stage" PREFIX=/usr
for e in "${expected[@]}"; do
	f=${e% *} mode=${e#* }
	actual=$(stat -c %a "$stage$f" 2>/dev/null)
	if [[ $mode == 755 ]]; then
		[[ -f $stage$f && -x $stage$f && $actual == 755 ]]
	else
		[[ -f $stage$f && -r $stage$f && $actual == 644 ]]
	fi
	tap_ok $? "installed $f, mode $mode (is: ${actual:-missing})"
done
if [[ -z $ko_release ]]; then
	grep -q "kmod/fxtrace.ko is not built" "$tmp/install.log"
	tap_ok $? "no kmod/fxtrace.ko: make install says so and skips it" "$tmp/install.log"
	tap_skip "the installed module is the built one" "kmod/fxtrace.ko is not built (make modules KDIR=...)"
else
	[[ $(modinfo -F name "$stage/lib/modules/$ko_release/extra/fxtrace.ko" 2>/dev/null) == fxtrace ]]
	tap_ok $? "the installed module is fxtrace.ko for $ko_release (its vermagic)"
fi
# Exactly these files: nothing forgotten, nothing extra.
(cd "$stage" 2>/dev/null && find . -type f | sed 's/^\.//' | sort) >"$tmp/files.txt"
printf '%s\n' "${expected[@]}" | cut -d' ' -f1 | sort >"$tmp/expected.txt"
diff "$tmp/expected.txt" "$tmp/files.txt" >"$tmp/files.diff"
tap_ok $? "make install installed exactly ${#expected[@]} files" "$tmp/files.diff"
tap_diag "installed: $(tr '\n' ' ' <"$tmp/files.txt")"

# The installed header must describe the ABI the installed collector speaks.
cat >"$tmp/abi.c" <<'EOF'
#include <stdio.h>
#include <linux/fxtrace.h>
int main(void) { printf("%d\n", FXTRACE_ABI_VERSION); return 0; }
EOF
cc -std=c11 -Wall -Wextra -Werror -I"$stage/usr/include" -o "$tmp/abi" "$tmp/abi.c" \
	>"$tmp/abi.log" 2>&1 && abi=$("$tmp/abi") &&
	"$stage/usr/bin/fxt-collect" --version >"$tmp/version.txt" 2>&1 &&
	grep -q "ABI version $abi)" "$tmp/version.txt"
tap_ok $? "installed <linux/fxtrace.h> compiles alone and matches fxt-collect --version ($(cat "$tmp/version.txt" 2>/dev/null))" \
	"$tmp/abi.log"
grep -q "^\.TH .* \"fxtrace $version\" " "$stage/usr/share/man/man1/fxt-collect.1"
tap_ok $? "installed man pages carry the version $version"

# Each page against the installed program it documents and its getopt_long
# table.
check_page() {
	local page=$stage/usr/share/man/man1/$1 bin=$stage/usr/bin/$2 rc
	shift 2
	scripts/check-manpage.sh "$page" "$bin" "$@" >"$tmp/page.tap" 2>&1
	rc=$?
	sed 's/^/    /' "$tmp/page.tap"
	tap_ok $rc "man page ${page##*/} matches ${bin##*/} ($(grep -c '^ok' "$tmp/page.tap") checks passed)"
}
check_page fxt-collect.1 fxt-collect collector/collect_options.c
check_page fxt-dump.1 fxt-dump collector/fxt_dump.c
check_page fxt-sched.1 fxt-sched tools/fxt_sched.c
check_page fxt2json.1 fxt2json tools/fxt2json.c

run "make uninstall DESTDIR=\$tmp PREFIX=/usr" "$tmp/uninstall.log" \
	make uninstall DESTDIR="$stage" PREFIX=/usr
left=$(find "$stage" -type f)
[[ -z $left ]]
tap_ok $? "make uninstall removed every installed file${left:+ (left: $left)}"

# With BUILDDIR (relative, as a user types it), make install-programs
# builds the programs there and installs those: not collector/'s or
# tools/' own (it once installed those, or failed without them).
bstage=$tmp/bstage
run "make install-programs BUILDDIR=<relative> DESTDIR=\$tmp PREFIX=/usr" "$tmp/binstall.log" \
	make install-programs BUILDDIR="$(realpath --relative-to=. "$tmp/bd")" DESTDIR="$bstage" PREFIX=/usr
same=0
for p in fxt-collect fxt-dump fxt-sched fxt2json; do
	cmp -s "$tmp/bd/$p" "$bstage/usr/bin/$p" && same=$((same + 1))
done
[[ $same -eq 4 ]]
tap_ok $? "make install-programs BUILDDIR=<dir>: the 4 programs built in that dir are the ones installed ($same of 4)" "$tmp/binstall.log"
set -e

# ---- 2. make dkms DESTDIR=...: the source tree, built with plain make ------
dkroot=$tmp/dkmsroot
tree=$dkroot/usr/src/fxtrace-$version
set +e
run "make dkms DESTDIR=\$tmp" "$tmp/dkms.log" make dkms DESTDIR="$dkroot"
grep -qx "PACKAGE_VERSION=\"$version\"" "$tree/dkms.conf" &&
	! grep -q '#MODULE_VERSION#' "$tree/dkms.conf"
tap_ok $? "dkms.conf in /usr/src/fxtrace-$version has PACKAGE_VERSION=\"$version\" (from VERSION)"
# The objects kmod/Kbuild links (fxtrace-y := / += lines), as sources.
kbuild_sources=$(sed -nE 's/^fxtrace-y *[:+]?= *//p' kmod/Kbuild | tr ' ' '\n' |
	sed -n 's|^\(.*\)\.o$|kmod/\1.c|p')
missing=()
for f in dkms.conf Makefile Kbuild VERSION kmod/Kbuild uapi/linux/fxtrace.h \
	$kbuild_sources kmod/*.h; do
	[[ -f $tree/$f ]] || missing+=("$f")
done
tap_ok ${#missing[@]} "the tree has dkms.conf, Makefile, Kbuild, kmod/Kbuild, the $(wc -w <<<"$kbuild_sources") sources kmod/Kbuild names, kmod/*.h, the uapi header${missing[*]:+ (missing: ${missing[*]})}"
products=$(find "$tree" -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name Module.symvers -o -name modules.order)
[[ -z $products ]]
tap_ok $? "the tree has no build products${products:+ ($products)}"
set -e

kdir='' release=''
if ! kenv=$(kernel_env "$kernel"); then
	no_kernel "the module builds from the DKMS tree" "$kernel"
else
	# shellcheck disable=SC2153 # RELEASE and KDIR come from the eval
	release=$(eval "$kenv"; echo "$RELEASE")
	# shellcheck disable=SC2153
	kdir=$(eval "$kenv"; echo "$KDIR")
	set +e
	run "make -C /usr/src/fxtrace-$version modules KDIR=<$release headers>" \
		"$tmp/tree-build.log" make -C "$tree" modules KDIR="$kdir"
	[[ $(vermagic "$tree/kmod/fxtrace.ko") == "$release" ]]
	tap_ok $? "the module built from the DKMS tree is for $release"
	run "make install-module in the DKMS tree" "$tmp/tree-install.log" \
		make -C "$tree" install-module DESTDIR="$tmp/modstage"
	[[ -f $tmp/modstage/lib/modules/$release/extra/fxtrace.ko ]]
	tap_ok $? "install-module put it in lib/modules/$release/extra (the module's release, not $(uname -r))" \
		"$tmp/tree-install.log"
	# kbuild's clean deletes objects and modules at any depth below its
	# M= directory: files like the fetched kernels' (.cache/) and the VM
	# builds' (build/) must survive modules-clean and make clean.
	plant_bystanders "$tree"
	make -C "$tree" modules-clean KDIR="$kdir" >"$tmp/tree-clean.log" 2>&1
	tap_ok $? "make modules-clean in the DKMS tree" "$tmp/tree-clean.log"
	check_cleaned "$tree" "make modules-clean in the DKMS tree"
	set -e
fi

# ---- 2b. make clean in a copy of the whole tree ---------------------------
if [[ -z $kdir ]]; then
	no_kernel "make clean removes the module's products and nothing else" "$kernel"
else
	copy=$tmp/copy
	set +e
	copy_tracked "$copy"
	tap_ok $? "copied the tracked files to \$tmp/copy"
	run "make modules KDIR=<$release headers> in the copy" "$tmp/copy-build.log" \
		make -C "$copy" modules KDIR="$kdir"
	plant_bystanders "$copy"
	make -C "$copy" clean KDIR="$kdir" >"$tmp/copy-clean.log" 2>&1
	tap_ok $? "make clean KDIR=<$release headers> in the copy" "$tmp/copy-clean.log"
	check_cleaned "$copy" "make clean"
	set -e
fi

# ---- 2c. a BUILDDIR that holds the sources is never removed --------------
# BUILDDIR given to the top-level make reaches every sub-make; fuzz/ and
# bench/ remove their BUILDDIR whole, tools/ its libfxt.a build directory.
bcopy=$tmp/bcopy
set +e
copy_tracked "$bcopy"
make -k -C "$bcopy" clean KDIR=/nonexistent BUILDDIR=. >"$tmp/bclean.log" 2>&1
make -C "$bcopy/tools" clean BUILDDIR=.. >>"$tmp/bclean.log" 2>&1
deleted=$(git ls-files | while IFS= read -r f; do [[ -e $bcopy/$f ]] || echo "$f"; done | sed -n 1,5p)
[[ -z $deleted ]]
tap_ok $? "make clean BUILDDIR=. and make -C tools clean BUILDDIR=.. delete no source file${deleted:+ (deleted: $deleted ...)}" \
	"$tmp/bclean.log"
set -e

# ---- 3. the real dkms, in private trees -------------------------------------
why=
command -v dkms >/dev/null || why="no dkms command (scripts/install-deps.sh installs it)"
[[ -n $why || $(id -u) -eq 0 ]] || why="dkms install needs root"
if [[ -z $why && -z $release ]]; then
	no_kernel "dkms add/build/install, autoinstall, remove" "$kernel"
elif [[ -n $why ]]; then
	tap_skip "dkms add/build/install, autoinstall, remove" "$why"
else
	src=$tmp/dkms-src inst=$tmp/dkms-lib
	mkdir -p "$tmp/dkms-tree" "$inst/$release"
	# The system's /var/lib/dkms, /usr/src and /lib/modules are never used.
	dk=(dkms --dkmstree "$tmp/dkms-tree" --sourcetree "$src" --installtree "$inst" --no-depmod)
	mk=(make dkms DKMS_SOURCE_TREE="$src" DKMS_KERNEL="$release"
	    DKMS="${dk[*]} --kernelsourcedir $kdir")
	ko=$inst/$release/updates/dkms/fxtrace.ko
	set +e
	run "make dkms: dkms add, build, install for $release" "$tmp/dkms-make.log" "${mk[@]}"
	"${dk[@]}" status >"$tmp/status.txt" 2>&1
	tap_diag "dkms status: $(tr '\n' ' ' <"$tmp/status.txt")"
	grep -q "^fxtrace/$version, $release, .*: installed" "$tmp/status.txt" &&
		[[ $(vermagic "$ko") == "$release" ]]
	tap_ok $? "dkms installed fxtrace/$version into updates/dkms for $release" "$tmp/dkms-make.log"
	run "make dkms again replaces the registered version" "$tmp/dkms-make2.log" "${mk[@]}"

	if [[ $upgrade != none ]] && ukenv=$(kernel_env "$upgrade"); then
		# shellcheck disable=SC2153 # set by the eval
		up_release=$(eval "$ukenv"; echo "$RELEASE")
		# shellcheck disable=SC2153
		up_kdir=$(eval "$ukenv"; echo "$KDIR")
		mkdir -p "$inst/$up_release"
		# What /etc/kernel/postinst.d/dkms does for a new kernel.
		"${dk[@]}" autoinstall -k "$up_release" --kernelsourcedir "$up_kdir" \
			>"$tmp/autoinstall.log" 2>&1 &&
			[[ $(vermagic "$inst/$up_release/updates/dkms/fxtrace.ko") == "$up_release" ]]
		tap_ok $? "kernel upgrade: dkms autoinstall built and installed it for $up_release (AUTOINSTALL=yes)" \
			"$tmp/autoinstall.log"
	elif [[ $upgrade == none ]]; then
		tap_skip "kernel upgrade: dkms autoinstall" "--upgrade-kernel none"
	else
		no_kernel "kernel upgrade: dkms autoinstall" "$upgrade"
	fi

	run "make dkms-remove" "$tmp/dkms-remove.log" make dkms-remove \
		DKMS_SOURCE_TREE="$src" DKMS="${dk[*]}"
	left=$(find "$inst" "$src" -type f 2>/dev/null; "${dk[@]}" status 2>&1)
	[[ -z $left ]]
	tap_ok $? "after dkms-remove: not registered, no module, no source tree${left:+ (left: $left)}"
	set -e
fi

tap_end
