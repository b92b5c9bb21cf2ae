# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# vhost_step.sh - the vhost_names step of the VM selftests, sourced by
# run_vm_tests.sh, which runs vhost_names as one `step` (busybox sh in the
# guest; $OUT is the results directory). scripts/test-vhost-step.sh runs it
# on the host with its own VHOST_DEV and VHOST_LOAD_ORDER and fxt-collect
# and fxt-dump stubbed out. Every variable here starts with vh_.

VHOST_DEV=${VHOST_DEV:-/dev/vhost-net}
# The modules vm-run.sh loads into the VM, in order (--module NAME and
# their dependencies).
VHOST_LOAD_ORDER=${VHOST_LOAD_ORDER:-/lib/fxtrace-vm/load-order}

# vhost_unavailable: the step's status when vhost_net cannot be used:
# 1 where vm-test.sh asked vm-run.sh to load it (it does where the kernel
# has the module), 4 (skip) where it did not.
vhost_unavailable() {
	if grep -qx vhost_net "$VHOST_LOAD_ORDER" 2>/dev/null; then
		echo "vhost_net was to be loaded into this VM ($VHOST_LOAD_ORDER): a failure, not a reason to skip"
		return 1
	fi
	echo "SKIP: this kernel has no vhost_net"
	return 4
}

# A vhost worker born and gone between two drains (fxt-vhost). On 6.12 it
# is made by copy_process() alone, named there, with no sched_process_fork
# or task_rename: only the name records written at its first wakeup
# (sched_wakeup_new) can name it. On 6.1 it is a kthread, renamed. Needs
# vhost_net in the guest (scripts/vm-test.sh asks vm-run.sh to load it).
vhost_names() {
	if [ ! -c "$VHOST_DEV" ]; then
		if [ -d /sys/module/vhost_net ]; then
			echo "vhost_net is loaded but there is no $VHOST_DEV"
		else
			echo "vhost_net is not loaded (its module or one of vhost, vhost_iotlb, tun, tap missing or refused)"
		fi
		vhost_unavailable
		return
	fi
	fxt-collect -o "$OUT/vhost.fxt" -- fxt-vhost --expect "$OUT/vhost.txt"
	vh_rc=$?
	# fxt-vhost's exit 4 (passed on by fxt-collect): the device is there
	# but would not open (ENOENT, ENODEV or ENXIO, printed above).
	if [ "$vh_rc" -eq 4 ]; then
		echo "fxt-collect -- fxt-vhost: exit 4: $VHOST_DEV is there but fxt-vhost could not open it"
		vhost_unavailable
		return
	fi
	[ "$vh_rc" -eq 0 ] || { echo "fxt-collect -- fxt-vhost: exit $vh_rc"; return "$vh_rc"; }
	fxt-dump --check "$OUT/vhost.fxt" || return 1
	read -r vh_tid vh_name < "$OUT/vhost.txt" || return 1
	fxt-dump "$OUT/vhost.fxt" | grep "kernel_object thread koid=$vh_tid "
	fxt-dump "$OUT/vhost.fxt" |
		grep -q "kernel_object thread koid=$vh_tid name=\"$vh_name\" " || {
		echo "no thread record names tid $vh_tid \"$vh_name\""
		return 1
	}
}
