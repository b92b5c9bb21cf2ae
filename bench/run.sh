#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - the fxtrace benchmark (make bench): fxtrace next to ftrace and
# perf in the same QEMU boot, in two views, plus the host-side benchmarks.
#
#   1. builds, from one source snapshot (a commit, default HEAD, or the
#      working tree), fxtrace.ko for the kernel, static fxt-collect/fxt-dump
#      and fxt-bench, and a payload with Debian's perf and trace-cmd and the
#      shared libraries they load;
#   2. boots the kernel once per view and runs bench/guest.sh there:
#        icount  1 vCPU, QEMU -icount: guest time = instructions executed
#        wall    2 vCPUs, wall-clock time normalized by a getppid() loop
#      (rounds x workloads x [none probe fxtrace ftrace perf], interleaved);
#   3. prints per view the table of bench/report.awk, the record sizes each
#      tracer wrote (bench/sizes.sh), and the host benchmarks
#      (bench/host_bench.sh);
# and keeps everything in the results directory (summary.md).
set -euo pipefail

prog=${0##*/}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$REPO/bench

usage() {
	cat <<EOF
Usage: $prog [options]

Options:
  --kernel FLAVOUR   6.1 (default: Debian 12's perf is the 6.1 one), 6.12,
                     6.12-rt (see scripts/fetch-kernel.sh)
  --views LIST       comma-separated: icount,wall (default both)
  --rounds N         rounds per view, each running every workload under
                     every configuration (default 5)
  --workloads LIST   space- or comma-separated, of pp1 pp2 sw pp1t (default
                     pp1 pp2 sw; pp2 needs 2 vCPUs and is skipped in the
                     icount view; pp1t is pp1 between two threads of one
                     process, to see what the address-space change costs)
  --configs LIST     space- or comma-separated, of none probe fxtrace ftrace
                     perf (default all, in that order; none is required)
  --pp-ops N         ping-pong round trips per run (default 20000)
  --sw-ops N         sleep/wake hops per run (default 40000)
  --sw-threads N     sleep/wake threads, 2 to 1024 (default 32)
  --sw-tokens N      sleep/wake tokens in flight, fewer than --sw-threads
                     (default 1: every hop is one wakeup and one
                     blocking switch, so the schedule does not change
                     with the tracer's speed)
  --calib-ops N      getppid() calls per calibration (default 100000)
  --settle MS        after each run's loop the workload sleeps MS ms while
                     the tracer's reader catches up; its CPU time there is
                     reported, and charged in the icount view (default 300;
                     fxt-collect drains at least every 100 ms)
  --clocksource tsc|kernel
                     the guest's clocksource. tsc (default) boots it with
                     tsc=reliable: QEMU's TCG CPU does not advertise an
                     invariant TSC, so with 2 vCPUs Linux would distrust
                     its TSC (which TCG keeps in step on every vCPU) and
                     fall back to HPET, making every CLOCK_BOOTTIME read
                     (fxtrace's timestamps) an emulated device access,
                     unlike real x86 machines of the last 15 years.
                     kernel: leave the choice to the kernel (HPET in the
                     wall view, TSC in the 1-vCPU icount view)
  --wakeup-preemption on|off
                     the guest scheduler's WAKEUP_PREEMPTION feature (default
                     off: then a tracer's speed cannot change the schedule,
                     and a ping-pong round trip is always 4 events)
  --profile on|off   after the rounds, sample with perf where fxt-collect's
                     time goes while it drains pp1 (default on)
  --rev REV          benchmark commit REV's kmod/, uapi/ and collector/
                     (default HEAD) with this bench/; for an older
                     revision's own figures run its own bench/run.sh from
                     a git worktree (docs/performance.md, "Reproduce")
  --tree             benchmark the working tree as it is, uncommitted
                     changes included, instead of a commit
  --src DIR          benchmark the Kbuild, kmod/, uapi/ and collector/ of
                     DIR (an experiment outside this tree)
  --tcg-thread MODE  TCG threading of the wall view: single (default: both
                     vCPUs take turns on one host thread, so a cross-CPU
                     wakeup does not wait for the host to run two threads
                     at once) or multi (one host thread per vCPU; on a
                     loaded 2-core host its noise hid every overhead)
  --tcg-cpu MODEL    QEMU's -cpu model for both views (default max). E.g.
                     max,-erms,-fsrm: without ERMS the guest kernel copies
                     and clears pages 8 bytes per rep iteration instead of
                     1, and the instruction view counts every iteration
                     (docs/performance.md, "The price of a byte")
  --chunks K         wall view: each run in K pieces (1 to 1000) with a
                     getppid() calibration (--chunk-calib calls) before,
                     between and after them (their median: calib_med_ns);
                     the table divides every run of a round by that
                     median of the round's none run, taken with no tracer
                     running (bench/README.md, "Calibration") (default
                     20; 1 = one piece, calibrated before and after)
  --chunk-calib N    getppid() calls per calibration between pieces
                     (default 5000)
  --calib-tolerance PCT
                     wall view: run again (up to 3 times) a run whose
                     calibrations before and after differ by more than PCT
                     percent (default 0 = never)
  --run-timeout S    per-run limit inside the guest, at most 86400 (default
                     600)
  --vm-timeout S     limit per VM boot (default 7200)
  --out DIR          results directory (default
                     build/bench/results/<date>-<rev>)
  --no-host          skip the host benchmarks (and build of their programs
                     only fxt-dump, for the record sizes)
  --host-only        only the host benchmarks (no VM)
  --host-mb MB       size of the host benchmarks' data (default 1100)
  -h, --help         this text

The VM runs take minutes each (TCG): the default run is about an hour.
Run at most one VM at a time on a shared machine.
Exit status: 0 all views ran (targets are reported, not enforced), 1 a build
or a view failed (also when its guest kernel logged a warning or bug:
guest.sh's BENCHINFO kernel_warnings=N above 0; see <view>/dmesg.txt), 2
usage error.

EXAMPLES
  make bench                                    # everything, defaults
  bench/run.sh --views icount --rounds 3        # the icount view only
  bench/run.sh --tree --workloads pp1 --rounds 5   # try uncommitted kmod work
EOF
}

die() { echo "$prog: error: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }

# bash reads a script as it runs it: everything is in main() so that
# editing this file during an hour-long run cannot change the run.
main() {
	args_given="$*"
	flavour=6.1 views=icount,wall rounds=5 workloads="pp1 pp2 sw" configs="none probe fxtrace ftrace perf"
	pp_ops=20000 sw_ops=40000 sw_threads=32 sw_tokens=1 calib_ops=100000 settle=300
	wakeup_preemption=off profile=on calib_tolerance=0 chunks=20 chunk_calib=5000 rev=HEAD tree=0 src_dir='' tcg_thread=single tcg_cpu=max clocksource=tsc run_timeout=600 vm_timeout=7200
	outdir='' do_host=1 do_vm=1 host_mb=1100

	while [[ $# -gt 0 ]]; do
		case $1 in
		--tree) tree=1; shift; continue ;;
		--no-host) do_host=0; shift; continue ;;
		--host-only) do_vm=0; shift; continue ;;
		-h | --help) usage; exit 0 ;;
		--kernel | --views | --rounds | --workloads | --configs | --pp-ops | --sw-ops | --sw-threads | --sw-tokens | \
			--calib-ops | --settle | --wakeup-preemption | --profile | --calib-tolerance | --chunks | --chunk-calib | --rev | --src | --tcg-thread | --tcg-cpu | --clocksource | --run-timeout | --vm-timeout | --out | --host-mb)
			[[ $# -ge 2 && -n $2 ]] || { echo "$prog: $1 needs a value (see --help)" >&2; exit 2; }
			;;
		*) echo "$prog: unknown argument '$1' (see --help)" >&2; exit 2 ;;
		esac
		case $1 in
		--kernel) flavour=$2 ;;
		--views) views=$2 ;;
		--rounds) rounds=$2 ;;
		--workloads) workloads=${2//,/ } ;;
		--configs) configs=${2//,/ } ;;
		--pp-ops) pp_ops=$2 ;;
		--sw-ops) sw_ops=$2 ;;
		--sw-threads) sw_threads=$2 ;;
		--sw-tokens) sw_tokens=$2 ;;
		--calib-ops) calib_ops=$2 ;;
		--settle) settle=$2 ;;
		--wakeup-preemption) wakeup_preemption=$2 ;;
		--profile) profile=$2 ;;
		--calib-tolerance) calib_tolerance=$2 ;;
		--chunks) chunks=$2 ;;
		--chunk-calib) chunk_calib=$2 ;;
		--rev) rev=$2 ;;
		--src) src_dir=$2 ;;
		--tcg-thread) tcg_thread=$2 ;;
		--tcg-cpu) tcg_cpu=$2 ;;
		--clocksource) clocksource=$2 ;;
		--run-timeout) run_timeout=$2 ;;
		--vm-timeout) vm_timeout=$2 ;;
		--out) outdir=$2 ;;
		--host-mb) host_mb=$2 ;;
		esac
		shift 2
	done
	[[ $calib_tolerance =~ ^[0-9]+$ ]] || { echo "$prog: --calib-tolerance is a whole percentage" >&2; exit 2; }
	# Base 10 whatever the leading zeros; at most a minute, well inside a run's timeout.
	[[ $settle =~ ^[0-9]+$ ]] && ((10#$settle <= 60000)) || { echo "$prog: --settle is a number of milliseconds (0 to 60000)" >&2; exit 2; }
	settle=$((10#$settle))
	for n in "$chunks" "$chunk_calib" "$rounds" "$pp_ops" "$sw_ops" "$sw_threads" "$sw_tokens" "$calib_ops" "$run_timeout" "$vm_timeout" "$host_mb"; do
		[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$prog: '$n' is not a positive number" >&2; exit 2; }
	done
	for c in $configs; do
		[[ $c =~ ^(none|probe|fxtrace|ftrace|perf)$ ]] || { echo "$prog: unknown configuration '$c' (none probe fxtrace ftrace perf)" >&2; exit 2; }
	done
	# Settings the guest's fxt-bench, or the tables, would refuse only
	# after a boot: refused here, saying what to give.
	[[ " $configs " == *" none "* ]] || {
		echo "$prog: --configs '$configs' has no 'none': every overhead is over the round's none run (and the wall view's calibration is its); give e.g. --configs none,${configs// /,}" >&2
		exit 2
	}
	((10#$sw_threads >= 2 && 10#$sw_threads <= 1024)) 2>/dev/null || {
		echo "$prog: --sw-threads is 2 to 1024 (fxt-bench's limit), not '$sw_threads'" >&2
		exit 2
	}
	((10#$sw_tokens < 10#$sw_threads)) 2>/dev/null || {
		echo "$prog: --sw-tokens ($sw_tokens) must be less than --sw-threads ($sw_threads) (fxt-bench sleepwake needs a thread without a token to hand one to); give --sw-tokens $((sw_threads > 1 ? sw_threads - 1 : 1)) or fewer, or more --sw-threads" >&2
		exit 2
	}
	((10#$chunks <= 1000)) 2>/dev/null || { echo "$prog: --chunks is 1 to 1000 (fxt-bench's limit), not '$chunks'" >&2; exit 2; }
	((10#$run_timeout <= 86400)) 2>/dev/null || { echo "$prog: --run-timeout is 1 to 86400 s (fxt-bench's limit), not '$run_timeout'" >&2; exit 2; }
	for w in $workloads; do
		[[ $w =~ ^(pp1|pp2|sw|pp1t)$ ]] || { echo "$prog: unknown workload '$w' (pp1, pp2, sw, pp1t)" >&2; exit 2; }
	done
	IFS=, read -r -a view_list <<<"$views"
	for v in "${view_list[@]}"; do
		[[ $v == icount || $v == wall ]] || { echo "$prog: unknown view '$v' (icount, wall)" >&2; exit 2; }
	done
	# pp2 needs 2 vCPUs: the icount view (1 vCPU) skips it, and with no
	# other workload that view would run nothing.
	if [[ " ${view_list[*]} " == *" icount "* ]] && [[ -z $(for w in $workloads; do [[ $w == pp2 ]] || echo "$w"; done) ]]; then
		echo "$prog: --workloads '$workloads' in the icount view: pp2 needs 2 vCPUs and that view has 1, so it would run nothing; add pp1, sw or pp1t, or give --views wall" >&2
		exit 2
	fi
	# The wall view cuts each ping-pong run into --chunks pieces of at least one round trip.
	if [[ " ${view_list[*]} " == *" wall "* ]] && ((pp_ops < chunks)); then
		echo "$prog: --pp-ops ($pp_ops) must be at least --chunks ($chunks) in the wall view" >&2
		exit 2
	fi
	[[ $tcg_thread == single || $tcg_thread == multi ]] || { echo "$prog: --tcg-thread is single or multi" >&2; exit 2; }
	[[ $tcg_cpu =~ ^[A-Za-z0-9][A-Za-z0-9,=.+_-]*$ ]] || { echo "$prog: --tcg-cpu is a QEMU -cpu model, e.g. max or max,-erms" >&2; exit 2; }
	[[ $clocksource == tsc || $clocksource == kernel ]] || { echo "$prog: --clocksource is tsc or kernel" >&2; exit 2; }
	[[ $wakeup_preemption == on || $wakeup_preemption == off ]] || { echo "$prog: --wakeup-preemption is on or off" >&2; exit 2; }
	[[ $profile == on || $profile == off ]] || { echo "$prog: --profile is on or off" >&2; exit 2; }

	# --- the source snapshot -------------------------------------------------------
	# Others edit kmod/ and collector/ in this tree while the benchmark runs for
	# an hour: build from a commit (or a copy of the tree) so every view
	# measures the same code, and say which.
	if [[ -n $src_dir ]]; then
		[[ -d $src_dir/kmod && -d $src_dir/uapi && -d $src_dir/collector && -f $src_dir/Kbuild ]] ||
			die "--src $src_dir has no Kbuild, kmod/, uapi/ and collector/"
		src_dir=$(cd "$src_dir" && pwd)
		label="src-${src_dir##*/}"
	elif ((tree)); then
		label="tree-$(git -C "$REPO" rev-parse --short HEAD)"
		git -C "$REPO" diff --quiet HEAD -- Kbuild kmod uapi collector || label="$label-dirty"
	else
		commit=$(git -C "$REPO" rev-parse --verify -q "$rev^{commit}") || die "--rev '$rev' is not a commit"
		label=$(git -C "$REPO" rev-parse --short "$commit")
	fi
	work=$REPO/build/bench
	src=$work/src-$label
	outdir=${outdir:-$work/results/$(date +%Y%m%d-%H%M%S)-$label}
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
	rm -rf "$src"
	mkdir -p "$src"
	if [[ -n $src_dir ]]; then
		cp -a "$src_dir/Kbuild" "$src_dir/kmod" "$src_dir/uapi" "$src_dir/collector" "$src/" ||
			die "copying $src_dir to $src failed"
	elif ((tree)); then
		(cd "$REPO" && git ls-files -co --exclude-standard -z -- Kbuild kmod uapi collector |
			xargs -0 cp --parents -t "$src") || die "copying the working tree to $src failed"
	else
		git -C "$REPO" archive "$commit" Kbuild kmod uapi collector | tar -x -C "$src" ||
			die "git archive $commit failed"
	fi
	log "benchmarking $label (sources in $src); results in $outdir"

	summary=$outdir/summary.md
	{
		echo "# fxtrace benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo
		echo "- code: $label$( ((tree)) && echo ' (working tree)')${src_dir:+ ($src_dir)}"
		echo "- host: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)), $(free -g | awk '/^Mem:/ { print $2 }') GiB, kernel $(uname -r), QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')"
		echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "- command: bench/run.sh $args_given"
		echo
	} >"$summary"

	# --- host-side benchmarks --------------------------------------------------------
	# This bench/ is built against the snapshot's collector/ and uapi/. The
	# host benchmarks need all of its programs, tools/tests/gen_trace.c
	# (this tree's, for this tree's ABI) too; without them (--no-host) only
	# fxt-dump, for sizes.sh, and that is the snapshot's own.
	MAKE=${MAKE:-make}
	host_build=$work/host-$label
	host_targets=()
	((do_host)) || host_targets=("$host_build/collector/fxt-dump")
	if ! "$MAKE" -s -C "$BENCH" COLLECTOR="$src/collector" BUILDDIR="$host_build" "${host_targets[@]}" >&2; then
		what="the host benchmark programs (all of bench/'s, for the host benchmarks)"
		((do_host)) || what="the host benchmark programs (only fxt-dump, for sizes.sh: --no-host)"
		if [[ -n $src_dir ]]; then
			die "building $what against $src_dir's collector/ and uapi/ failed (see above). Likely cause: its ABI is not the one this tree's bench/ (and tools/tests/gen_trace.c) is written for; benchmark it with a bench/ of its own time"
		elif ((!tree)) && [[ $commit != "$(git -C "$REPO" rev-parse HEAD)" ]]; then
			hint="or give --no-host, which builds only fxt-dump"
			((do_host)) || hint="its collector/ does not build here"
			die "building $what against $label's collector/ and uapi/ failed (see above). Likely cause: --rev $rev is older than this tree's bench/ (and tools/tests/gen_trace.c), which need this tree's ABI: --rev runs the current bench/ against that revision's kmod/ and collector/. For that revision's own figures run its own bench/run.sh from a git worktree: git worktree add /tmp/fxtrace-$label $label && /tmp/fxtrace-$label/bench/run.sh OPTIONS (without --rev); $hint"
		fi
		die "building $what failed (see above)"
	fi

	run_host() {
		log "host benchmarks (${host_mb} MB)"
		BUILD=$host_build BENCH_MB=$host_mb bash "$BENCH/host_bench.sh" | tee "$outdir/host.txt" ||
			die "the host benchmarks failed (see above)"
		{
			echo "## Host: the collector's drain path and fxt-dump's decoder"
			echo
			echo '```'
			cat "$outdir/host.txt"
			echo '```'
			echo
		} >>"$summary"
	}
	if ((!do_vm)); then
		run_host
		echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$summary"
		cat "$summary"
		exit 0
	fi

	# --- kernel, module, static userspace, payload ---------------------------------
	kinfo=$("$REPO/scripts/fetch-kernel.sh" "$flavour") || die "scripts/fetch-kernel.sh $flavour failed (see above)"
	RELEASE='' KDIR='' VMLINUZ='' MODULES=''
	eval "$kinfo"
	[[ -n $RELEASE && -d $KDIR && -f $VMLINUZ && -d $MODULES ]] || die "scripts/fetch-kernel.sh printed unexpected output: $kinfo"

	log "building fxtrace.ko for $RELEASE from $src"
	"$MAKE" -C "$KDIR" M="$src" W=1 modules >"$outdir/kbuild.log" 2>&1 ||
		{ tail -n 30 "$outdir/kbuild.log" >&2; die "building fxtrace.ko failed (full log: $outdir/kbuild.log)"; }
	ko=$src/kmod/fxtrace.ko
	[[ $(modinfo -F vermagic "$ko") == "$RELEASE "* ]] || die "$ko was not built for $RELEASE"

	vmbin=$work/vm-bin-$label
	"$MAKE" -s -C "$src/collector" BUILDDIR="$vmbin" LDFLAGS=-static all >&2 ||
		die "building the static collector failed"
	"$MAKE" -s -C "$BENCH" COLLECTOR="$src/collector" VM_BINDIR="$vmbin" vm >&2 ||
		die "building the static fxt-bench failed"

	payload=$work/payload-$label
	rm -rf "$payload"
	mkdir -p "$payload/bin" "$payload/lib" "$payload/bench"
	cp "$ko" "$payload/"
	cp "$vmbin/fxt-collect" "$vmbin/fxt-dump" "$vmbin/fxt-bench" "$vmbin/fxt-probe-only" "$payload/bin/"
	cp "$BENCH/guest.sh" "$BENCH/tracer_counts.sh" "$REPO/selftests/kmsg_scan.sh" "$payload/bench/"
	# perf and trace-cmd with every library ldd finds, and the loader.
	for tool in perf trace-cmd; do
		path=$(command -v "$tool") || die "$tool is not installed; run scripts/install-deps.sh"
		cp "$(readlink -f "$path")" "$payload/bin/$tool"
		ldd "$path" | awk '/=> \// { print $3 } /^[[:space:]]*\/lib/ { print $1 }' |
			while read -r lib; do cp -L "$lib" "$payload/lib/"; done
	done
	[[ -f $payload/lib/ld-linux-x86-64.so.2 ]] || die "the dynamic loader was not found by ldd"
	log "payload $payload: $(du -sm "$payload" | cut -f1) MB"

	guest_args=(--rounds "$rounds" --workloads "$workloads" --configs "$configs" --pp-ops "$pp_ops" --sw-ops "$sw_ops"
		--sw-threads "$sw_threads" --sw-tokens "$sw_tokens" --calib-ops "$calib_ops" --timeout "$run_timeout"
		--wakeup-preemption "$wakeup_preemption" --profile "$profile" --settle "$settle")
	printf -v guest_cmd '%q ' sh bench/guest.sh "${guest_args[@]}"

	failed=0
	for view in "${view_list[@]}"; do
		vdir=$outdir/$view
		opts=(--smp 2)
		env=(FXTRACE_VM_TCG_THREAD="$tcg_thread" FXTRACE_VM_TCG_CPU="$tcg_cpu")
		calibrate=1
		view_args=(--view "$view" --calib-tolerance "$calib_tolerance" --chunks "$chunks"
			--chunk-calib "$chunk_calib")
		if [[ $view == icount ]]; then
			# Guest time is instructions: nothing to calibrate away.
			view_args=(--view "$view" --calib-tolerance 0 --chunks 1 --chunk-calib 0)
			opts=(--smp 1 --icount)
			env=(FXTRACE_VM_TCG_THREAD=single FXTRACE_VM_TCG_CPU="$tcg_cpu")
			calibrate=0
		fi
		[[ $clocksource == tsc ]] && opts+=(--append tsc=reliable)
		log "view $view: booting $RELEASE (${opts[*]}, ${env[*]}); this takes a while"
		rc=0
		env "${env[@]}" "$REPO/scripts/vm-run.sh" --kernel "$VMLINUZ" --modules-dir "$MODULES" \
			--payload "$payload" --out "$vdir" --timeout "$vm_timeout" --mem 3072 "${opts[@]}" \
			-- "$guest_cmd$(printf '%q ' "${view_args[@]}")" >"$vdir.console" 2>&1 || rc=$?
		results=$vdir/out/results.txt
		if [[ ! -s $results ]]; then
			# The VM died or hung: take the finished runs from the console.
			# Only whole lines: a BENCH line ends with guest.sh's
			# retries=N, and one the guest's death cut short, or a kernel
			# message split, would be read as a run with the wrong figures.
			results=$vdir.results.txt
			tr -d '\r' <"$vdir.console" | grep -a -E '^BENCHINFO |^BENCH .* retries=[0-9]+$' >"$results" || true
			ncut=$(tr -d '\r' <"$vdir.console" | awk '/^BENCH / && !/ retries=[0-9]+$/ { n++ } END { print n + 0 }') || ncut=0
			((ncut == 0)) || log "view $view: $ncut BENCH lines of the console are cut short (no retries=N at the end): left out of $results"
		fi
		case $rc in
		0) ;;
		124) log "view $view: the VM hit --vm-timeout ($vm_timeout s). Under 2-vCPU TCG a cross-CPU wakeup IPI has been seen to get lost while kernel text was being patched (tracer start/stop), which soft-locks the guest; the runs finished before it are used. Console: $vdir.console"
			failed=1 ;;
		*) log "view $view: the guest exited $rc (see $vdir.console)"; failed=1 ;;
		esac
		if ! grep -q '^BENCH ' "$results"; then
			log "view $view: no results"
			failed=1
			continue
		fi
		# guest.sh's count of kernel log lines that match the selftests'
		# KERNEL_BAD: a view whose kernel complained has failed, whatever
		# its table says.
		kernel_log=$(awk -v dmesg="$vdir/dmesg.txt" -f "$BENCH/kernel_log.awk" "$results") || {
			log "view $view: $kernel_log"
			failed=1
		}
		awk -v calibrate="$calibrate" -f "$BENCH/bench_lines.awk" -f "$BENCH/report.awk" "$results" >"$outdir/table-$view.md" ||
			{ failed=1; continue; }
		if [[ -d $vdir/out/keep ]]; then
			bash "$BENCH/sizes.sh" "$vdir/out/keep" "$host_build/collector/fxt-dump" >"$outdir/sizes-$view.md" ||
				log "view $view: the record size analysis failed"
		fi
		{
			echo "## VM view: $view"
			echo
			[[ $rc -eq 0 ]] || echo "**The VM run did not finish (exit $rc); the table has the runs it completed.**"
			[[ -z $kernel_log ]] || echo "**View failed: $kernel_log.**"
			echo
			cat "$outdir/table-$view.md"
			echo
			[[ -s $outdir/sizes-$view.md ]] && cat "$outdir/sizes-$view.md" && echo
			for p in "$vdir"/out/profile-*.txt; do
				[[ -s $p ]] || continue
				echo "### Profile ($view): ${p##*/profile-}"
				echo
				echo '```'
				head -n 60 "$p"
				echo '```'
				echo
			done
		} >>"$summary"
	done

	((do_host)) && run_host
	echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$summary"
	cat "$summary"
	log "everything is in $outdir (summary.md, per-view tables, consoles, raw tracer logs, kept traces)"
	exit "$failed"
}

main "$@"
