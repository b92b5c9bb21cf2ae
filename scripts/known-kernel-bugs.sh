# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# known-kernel-bugs.sh - recognise, in a guest's saved kernel log, a bug of
# the tested kernel itself that fxtrace neither causes nor can avoid, so
# that scripts/vm-test.sh can boot that guest once more instead of failing
# the whole run on it. Sourced by vm-test.sh; tested by
# scripts/test-known-kernel-bugs.sh on the log of the guest it was found in.
#
# Only an exact signature counts, never "a hang somewhere in mm/": each
# task of the cycle must be reported blocked by the hung-task detector,
# in the function that closes the cycle, and with no fxtrace frame in its
# stack. Anything else stays a failure.
#
#   known_kernel_bug FILE   true, printing one line that names the bug,
#                           if FILE (dmesg as the guest saved it) shows one
#   without_hung_task_reports FILE
#                           FILE less the hung-task detector's reports
#                           (each from its "INFO: task ... blocked for more
#                           than" line to the end of its stack, "</TASK>"):
#                           the rest of the log, which the bug does not
#                           excuse, to be scanned like any other
#   hung_task_onset FILE    the earliest time (s of uptime) at which the
#                           first task the detector reports in FILE can
#                           have blocked; false if FILE reports none

# The Debian 6.12 vmalloc purge deadlock (seen on 6.12.117+deb12, both
# flavours' source). Upstream ec05f51f1e65 ("mm/vmalloc: take
# vmap_purge_lock in shrinker", v7.1-rc1, in 6.12.y) made the vmap-node
# shrinker take vmap_purge_lock. But __purge_vmap_area_lazy() holds that
# mutex while it waits in __flush_work() for per-node purge work, and that
# work may need a new kworker. kthreadd, creating it, allocates the
# worker's stack; in direct reclaim the shrinker then waits for the mutex:
#
#   kworker (drain_vmap_area_work): holds vmap_purge_lock, __flush_work()
#   kthreadd (copy_process -> ... -> vmap_node_shrink_scan): wants it
#
# Nothing in the module is on either path; everything that later needs a
# kernel thread or vmap_purge_lock (a kprobe's set_memory_rox(), a vfree()
# purge) hangs behind them. It needs direct reclaim while a purge waits:
# ioctl_test fills the guest's memory on purpose (its ENOMEM and OOM tests,
# in both builds), and the selftests free rings all the time. Between the
# steps the guest has over 1.7 GiB free (run_vm_tests.sh's "memory after"
# lines), so the fill is the likely trigger: the hung-task detector names a
# task only at its second check after it blocked (the first at 120 s
# uptime), so reports at 242 s fit a deadlock begun during the fill at
# 53 s. It hit 1 of 4 full runs of the test command in session 40, and
# once before during the OOM test itself.
known_kernel_bug() {
	awk '
		function end_task() {
			# Waiting for a mutex: __mutex_lock, or on PREEMPT_RT
			# the rt_mutex under mutex_lock (/proc/kallsyms of
			# 6.12-rt has rt_mutex_slowlock and
			# __rt_mutex_slowlock_locked, and no __mutex_lock); not
			# for a spinlock (rt_spin_lock, rtlock_slowlock_locked
			# there), which would be another bug.
			mutex = f["__mutex_lock"] || f["__mutex_lock_common"] ||
				f["rt_mutex_slowlock"] || f["__rt_mutex_slowlock_locked"]
			if (task == "kthreadd" && f["vmap_node_shrink_scan"] &&
			    mutex && f["copy_process"] && !f["fxtrace"])
				shrinker = 1
			if (drain && f["__purge_vmap_area_lazy"] &&
			    f["__flush_work"] && !f["fxtrace"])
				purger = 1
			task = ""
			drain = 0
			delete f
		}
		# A hung-task report: "INFO: task NAME:PID blocked for more than N seconds."
		/INFO: task .* blocked for more than/ {
			end_task()
			task = $0
			sub(/.*INFO: task /, "", task)
			sub(/:[0-9]+ blocked for more than.*/, "", task)
			in_task = 1
			next
		}
		!in_task { next }
		/<\/TASK>/ { end_task(); in_task = 0; next }
		/Workqueue: [^ ]+ drain_vmap_area_work/ { drain = 1 }
		/\[fxtrace\]/ { f["fxtrace"] = 1 }
		{
			for (i = 1; i <= NF; i++) {
				fn = $i
				sub(/^\?$/, "", fn)
				sub(/\+0x.*/, "", fn)
				sub(/\..*/, "", fn)	# __mutex_lock.constprop.0
				if (fn != "")
					f[fn] = 1
			}
		}
		END {
			if (in_task)
				end_task()
			if (!shrinker || !purger)
				exit 1
			print "the Debian 6.12 vmalloc purge deadlock: kthreadd, creating a kworker, waits in direct reclaim (vmap_node_shrink_scan) for vmap_purge_lock, which a kworker in drain_vmap_area_work holds while it waits in __flush_work for work that needs a new kworker (upstream ec05f51f1e65)"
		}' "$1"
}

without_hung_task_reports() {
	awk '/INFO: task .* blocked for more than/ { in_report = 1 }
	     !in_report { print }
	     in_report && /<\/TASK>/ { in_report = 0 }' "$1"
}

# A report at R s saying "blocked for more than N seconds": the task was
# not yet blocked N s at the detector's previous check, which by default
# (hung_task_check_interval_secs 0) came N s before R. So it blocked after
# R - 2N. What ended before then ended before the deadlock began.
hung_task_onset() {
	awk 'match($0, /^\[ *[0-9]+\.[0-9]+\] INFO: task .* blocked for more than [0-9]+ seconds/) {
		t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t)
		n = $0; sub(/.* blocked for more than /, "", n); sub(/ .*/, "", n)
		printf "%.6f\n", t - 2 * n
		found = 1
		exit
	}
	END { exit !found }' "$1"
}
