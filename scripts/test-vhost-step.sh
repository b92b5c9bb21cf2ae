#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test-vhost-step.sh -- the VM selftests' vhost_names step (selftests/
# vhost_step.sh) on the host, with fxt-collect and fxt-dump stubbed out:
# where vm-test.sh had vhost_net loaded into the VM (it is in vm-run.sh's
# load-order), a missing /dev/vhost-net or one fxt-vhost cannot open (its
# exit 4, passed on by fxt-collect) fails the step; where it was not, both
# skip it (exit 4); another failure of fxt-collect fails it, and a trace
# naming the vhost worker passes it. Run with busybox's sh (what the VM
# has) when busybox is installed, and with the host's sh.
#
# Prints unnumbered TAP lines ("ok - ..."); collector/tests/run_tests.sh
# runs it in `make -C collector check` and numbers them. Exit status 1 if a
# test failed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d /tmp/fxt-vhost-step.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/out"
# shellcheck source=scripts/tap.sh
. "$REPO/scripts/tap.sh"
tap_begin --unnumbered

printf 'virtio_pci\nvirtio_blk\nvhost_iotlb\nvhost\ntun\ntap\nvhost_net\n' > "$TMP/with-vhost"
printf 'virtio_pci\nvirtio_blk\n' > "$TMP/without-vhost"

# Stubs of the two programs the step runs, first on its PATH.
mkdir -p "$TMP/bin"
cat > "$TMP/bin/fxt-collect" <<'EOF'
#!/bin/sh
# fxt-collect -- fxt-vhost, as seen by the step: exit $COLLECT_RC.
case $COLLECT_RC in
0) echo "4242 vhost-4241" > "$OUT/vhost.txt" ;;
4) echo "SKIP: /dev/vhost-net: No such device (vhost_net not loaded?)" ;;
esac
exit "$COLLECT_RC"
EOF
cat > "$TMP/bin/fxt-dump" <<'EOF'
#!/bin/sh
[ "$1" = --check ] && exit 0
echo 'kernel_object thread koid=4242 name="vhost-4241" process=4241'
EOF
chmod +x "$TMP/bin/fxt-collect" "$TMP/bin/fxt-dump"

# run SHELL DEVICE LOAD-ORDER COLLECT-RC: vhost_names in SHELL ("sh" or
# "busybox") with VHOST_DEV=DEVICE, VHOST_LOAD_ORDER=LOAD-ORDER and an
# fxt-collect that exits COLLECT-RC (after fxt-vhost's output for it). Its
# output lands in $TMP/log, its exit status in $rc.
run() {
	local sh=$1
	[[ $sh == busybox ]] && sh="busybox sh"
	rc=0
	# shellcheck disable=SC2016 # expanded by $sh
	PATH=$TMP/bin:$PATH OUT=$TMP/out VHOST_DEV=$2 VHOST_LOAD_ORDER=$3 \
		COLLECT_RC=$4 STEP=$REPO/selftests/vhost_step.sh \
		$sh -c '. "$STEP"; vhost_names' > "$TMP/log" 2>&1 || rc=$?
}

# expect NAME WANT-RC [TEXT]: the last run exited WANT-RC and printed TEXT.
expect() {
	if [[ $rc -eq $2 ]] && { [[ -z ${3:-} ]] || grep -qF -- "$3" "$TMP/log"; }; then
		tap_ok 0 "$1"
		return
	fi
	tap_ok 1 "$1: exit $rc (want $2)${3:+, want \"$3\" in the output}"
	sed 's/^/# /' "$TMP/log"
}

shells=(sh)
if command -v busybox >/dev/null; then
	shells+=(busybox)
else
	tap_diag "busybox is not installed: the step runs with this host's sh only"
fi
for sh in "${shells[@]}"; do
	run "$sh" /dev/null "$TMP/with-vhost" 4
	expect "$sh: vhost_net was loaded, fxt-vhost cannot open the device (exit 4): the step fails" \
		1 "vhost_net was to be loaded into this VM"
	run "$sh" /dev/null "$TMP/without-vhost" 4
	expect "$sh: vhost_net was not loaded, fxt-vhost cannot open the device (exit 4): the step skips" 4
	run "$sh" "$TMP/none" "$TMP/with-vhost" 0
	expect "$sh: vhost_net was loaded, no device: the step fails" \
		1 "vhost_net was to be loaded into this VM"
	run "$sh" "$TMP/none" "$TMP/without-vhost" 0
	expect "$sh: vhost_net was not loaded, no device: the step skips" 4 "SKIP: this kernel has no vhost_net"
	run "$sh" /dev/null "$TMP/with-vhost" 1
	expect "$sh: fxt-collect -- fxt-vhost exits 1: the step fails" 1 "exit 1"
	run "$sh" /dev/null "$TMP/with-vhost" 0
	expect "$sh: a thread record names the vhost worker: the step passes" 0
done
tap_end
