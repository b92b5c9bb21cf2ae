# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# pool.awk - one estimate of fxtrace's cost ratio from several boots
#
#   awk [-v other=ftrace] [-v target=0.5] -f bench/bench_lines.awk \
#       -f bench/pool.awk RESULTS/wall/out/results.txt RESULTS2/... ...
#
# Each file is one boot's BENCH lines (bench/run.sh keeps them in
# <results>/<view>/out/results.txt), all of the same view and code. One
# boot's ratio (report.awk) moves by more than the margin to the target
# in the wall view, because fxtrace's cost there is a few percent of a
# round trip and one run's time moves by 3-15%. Pooling the rounds of
# several boots is what narrows that down.
#
# A run's time is taken without the boot's scale, so that boots on a
# faster or slower host can be pooled: in the instruction view ns_per_op
# as it is (instructions: the same scale in every boot) plus the tracer's
# CPU time in the window after the loop per operation
# (tracer_cpu_after_ns / ops), which report.awk charges there; in the wall view
# ns_per_op (all of the run's pieces) divided by the getppid() calibration
# of its round's "none" run: calib_med_ns (measured between that run's
# pieces) where the runs have it, else the mean of its calib_before and
# calib_after. Every configuration of a round is divided by the same
# figure, taken with no tracer running, as in report.awk (bench/README.md
# says why a run's own calibrations are not used). All files must give
# the same kind. A run whose round has no calibrated "none" run is missing
# data: left out, and counted.
#
# For a transition the wall view also prints the same table by the old
# estimator: norm_per_op (each piece divided by the calibrations taken
# around it while the tracer ran), else ns_per_op divided by the run's
# own calibration.
#
# Per workload this prints, for fxtrace against @other:
#   pooled   report.awk's cost per event, the median over rounds of
#            (time(cfg) - time(none)) over the median of cfg's events per
#            op, from every round of every boot at once; fxtrace's over
#            @other's
#   rounds   the ratio of the two costs per event in each round: its
#            median, and a 95% confidence interval of that median from
#            the order statistics (no assumption about the distribution;
#            none for fewer than 6 rounds)
#   boots    each boot's own ratio (report.awk's figure for that boot),
#            their median and its interval, computed as for the rounds,
#            and how many are at most @target (report.awk's "met": both
#            costs > 0). Rounds of one boot share that boot's host and
#            state, so they are not independent draws: where the two
#            intervals differ, the boots' is the one to believe.
# A cost <= 0 is noise larger than the cost. Both sides are treated
# alike: a round (or boot) where fxtrace's cost came out <= 0 and the
# other's > 0 has ratio 0, one where the other's came out <= 0 and
# fxtrace's > 0 has ratio inf; both <= 0 has none. The medians and
# intervals are order statistics, so such a round moves them by one rank
# to its side, and (for an odd count) the median against @other stays
# the reciprocal of the median of @other against fxtrace. The counts of
# the three kinds are printed ("fxtrace / other / both": fxtrace's cost
# alone <= 0, the other's alone, both).
# A boot whose kernel logged warnings or bugs (guest.sh's BENCHINFO
# kernel_warnings above 0, or not a count), or that did not finish (no
# kernel_warnings line: guest.sh writes it last), is left out whole, and
# listed before the table: bench/run.sh fails such a view.
# Runs that failed (rc != 0) are left out, as in report.awk, and so are
# BENCH lines that are not whole (cut short, or with a kernel message
# inside: bench_lines.awk's whole()), named after the table. A tracer that
# could not say what it lost (lost=-) is counted as report.awk counts it,
# by what it recorded, and the runs are named after the table.

# The 1-based rank k of the lower end of a 95% interval for the median of
# n values: the largest k with P(Binomial(n, 1/2) <= k - 1) <= 0.025.
# 0 when n is too small for one. The probabilities are carried as
# logarithms: 2^-n itself underflows to 0 above n = 1074, and the sum
# would then never pass 0.025. Terms too small for a double add 0, and
# do not matter next to 0.025.
function ci_rank(n,    i, lp, cdf, k) {
	lp = -n * log(2)	# log P(X = 0)
	cdf = 0
	k = 0
	for (i = 0; i < n; i++) {
		cdf += exp(lp)
		if (cdf > 0.025)
			break
		k = i + 1
		lp += log((n - i) / (i + 1))
	}
	return k
}

function die(msg) {
	print "pool.awk: " msg > "/dev/stderr"
	bad = 1
	exit 1
}

BEGIN {
	if (other == "")
		other = "ftrace"
	nfile = 0
	nwl = 0
}

FNR == 1 { files[++nfile] = FILENAME }

# guest.sh's last line: the count of kernel log lines that match the
# selftests' KERNEL_BAD. Only a boot that has it, as 0, is pooled.
/^BENCHINFO / {
	for (i = 2; i <= NF; i++)
		if (index($i, "kernel_warnings=") == 1)
			kw[nfile] = substr($i, 17)
	next
}

/^BENCH / {
	if (!whole($0)) {
		cut[++ncut] = FILENAME ": " cut_where($0, FNR)
		next
	}
	parse($0)
	if (kv["rc"] != "0" || !num(kv["ns_per_op"]))
		next
	wl = kv["wl"]
	key = nfile SUBSEP wl SUBSEP kv["round"] SUBSEP kv["cfg"]
	raw[key] = kv["ns_per_op"] + 0
	# The run's calibration, and its time by the old estimator.
	unit = ""
	if (kv["view"] == "icount") {
		unit = "ns_per_op"
		cal[key] = 1
		# As report.awk charges it in this view: what the tracer's
		# reader did in the quiet window after the loop, per operation.
		if (num(kv["tracer_cpu_after_ns"]) && kv["ops"] > 0)
			raw[key] += kv["tracer_cpu_after_ns"] / kv["ops"]
		old[key] = raw[key]
	} else if (num(kv["norm_per_op"]) && num(kv["calib_med_ns"])) {
		unit = "calib_med_ns"
		cal[key] = kv["calib_med_ns"] + 0
		old[key] = kv["norm_per_op"] + 0
	} else if (num(kv["calib_before"]) && num(kv["calib_after"])) {
		unit = "calib_before+after"
		cal[key] = (kv["calib_before"] + kv["calib_after"]) / 2
		if (cal[key] > 0)
			old[key] = raw[key] / cal[key]
	}
	if (view == "")
		view = kv["view"]
	else if (kv["view"] != view)
		die(FILENAME ": a boot of the " kv["view"] " view among boots of the " view " view; pool boots of one view only")
	if (unit != "") {
		if (units == "")
			units = unit
		else if (unit != units)
			die(FILENAME ": runs calibrated by " unit ", others by " units "; pool boots of one kind only")
	}
	if (!(wl in seen_wl)) { seen_wl[wl] = 1; wls[++nwl] = wl }
	if (num(kv["events"]) && kv["ops"] + kv["warmup"] > 0) {
		per_op[key] = (kv["events"] + (num(kv["lost"]) ? kv["lost"] : 0)) / (kv["ops"] + kv["warmup"])
		# A tracer that could not say what it lost (lost=-): its
		# events per op count what it recorded; said after the table.
		if (!num(kv["lost"]))
			lost_unknown[nfile, kv["cfg"]]++
	} else if (kv["cfg"] != "none") {
		# No event count at all: no cost per event, and what it lost is
		# not known either; said after the table.
		no_events[nfile, kv["cfg"]]++
	}
	rounds[nfile, wl, kv["round"]] = 1
}

# time[] by estimator @est: "new" (each run / its round's "none" run's
# calibration) or "old" (the run's own calibrations). Returns the number
# of runs left out for want of a calibration.
function set_times(est,    key, kp, kn, c, nmiss) {
	delete time
	nmiss = 0
	for (key in raw) {
		if (est == "old") {
			if (key in old)
				time[key] = old[key]
			else
				nmiss++
			continue
		}
		split(key, kp, SUBSEP)
		kn = kp[1] SUBSEP kp[2] SUBSEP kp[3] SUBSEP "none"
		c = (kn in cal) ? cal[kn] : ""
		if (c != "" && c > 0)
			time[key] = raw[key] / c
		else
			nmiss++
	}
	return nmiss
}

# The time of @cfg in one round minus that of "none" in the same round,
# or "" if either run is missing.
function diff(f, wl, r, cfg,    kn, kc) {
	kn = f SUBSEP wl SUBSEP r SUBSEP "none"
	kc = f SUBSEP wl SUBSEP r SUBSEP cfg
	if (!(kn in time) || !(kc in time))
		return ""
	return time[kc] - time[kn]
}

# d(cfg) of one round: its diff per event, or "".
function cost(f, wl, r, cfg,    d, kc) {
	d = diff(f, wl, r, cfg)
	kc = f SUBSEP wl SUBSEP r SUBSEP cfg
	if (d == "" || !(kc in per_op) || per_op[kc] <= 0)
		return ""
	return d / per_op[kc]
}

# Add @cfg's diffs and events per op in boot @f to lists @ds and @es
# (report.awk's inputs: the diffs of the rounds that have a "none" run,
# the events per op of every run); return the number of diffs.
function gather(f, wl, cfg, ds, es,    k, parts, d, kc) {
	for (k in rounds) {
		split(k, parts, SUBSEP)
		if (parts[1] != f || parts[2] != wl)
			continue
		kc = f SUBSEP wl SUBSEP parts[3] SUBSEP cfg
		if (kc in per_op)
			es[++es[0]] = per_op[kc]
		d = diff(f, wl, parts[3], cfg)
		if (d != "")
			ds[++ds[0]] = d
	}
	return ds[0]
}

# report.awk's cost per event from such lists: median diff / median events.
function per_event(ds, es,    d, e) {
	d = median_list(ds)
	e = median_list(es)
	return (d == "" || e == "" || e <= 0) ? "" : d / e
}

# median() of a list whose length is in element 0.
function median_list(l,    i, a) {
	for (i = 1; i <= l[0]; i++)
		a[i] = l[i]
	return median(a, l[0])
}

# A ratio that stands for inf (see rank_ratio()), and the least value
# printed as inf (the mean of it and a finite value, in an even median).
function INF() { return 1e300 }
function is_inf(v) { return v >= 1e299 }

# The ratio of costs @a / @b for the order statistics: 0 when only @a is
# <= 0, INF() when only @b is, "" when both are.
function rank_ratio(a, b) {
	if (a <= 0 && b <= 0)
		return ""
	if (a <= 0)
		return 0
	if (b <= 0)
		return INF()
	return a / b
}

# One value of a median or interval: three places, or inf.
function fmt3(v) { return is_inf(v) ? "inf" : sprintf("%.3f", v) }

# @a / @b to three places; "n/a" when either cost is <= 0 (noise larger
# than the cost), "-" when either is missing.
function fmt_ratio(a, b) {
	if (a == "" || b == "")
		return "-"
	if (b <= 0 || a <= 0)
		return "n/a"
	return sprintf("%.3f", a / b)
}

# Why boot @f is not pooled, or "": its kernel complained, or it did not
# finish (guest.sh writes kernel_warnings after its last round; a boot the
# watchdog stopped, or whose results were taken from its console, has
# none).
function boot_failed(f) {
	if (!(f in kw))
		return "no BENCHINFO kernel_warnings line: the boot did not finish (or did not check its kernel log)"
	if (kw[f] !~ /^[0-9]+$/)
		return "kernel_warnings=" kw[f] ": its kernel log was not checked"
	if (kw[f] + 0 > 0)
		return "kernel_warnings=" kw[f] ": its kernel logged warnings or bugs"
	return ""
}

# Leave out every run of the boots that failed (boot_failed()), listed.
function drop_failed_boots(    f, why, key, kp) {
	for (f = 1; f <= nfile; f++) {
		if ((why = boot_failed(f)) == "")
			continue
		left_out[++nleft] = files[f] ": " why
		failed_boot[f] = 1
	}
	if (!nleft)
		return
	for (key in raw) {
		split(key, kp, SUBSEP)
		if (kp[1] in failed_boot) {
			delete raw[key]; delete cal[key]; delete old[key]; delete per_op[key]
		}
	}
	for (key in rounds) {
		split(key, kp, SUBSEP)
		if (kp[1] in failed_boot)
			delete rounds[key]
	}
}

END {
	if (bad)
		exit 1
	drop_failed_boots()
	if (nleft) {
		printf("%d boot(s) left out (pooled only: boots that finished, their kernel log checked and clean, BENCHINFO kernel_warnings=0):\n", nleft)
		for (i = 1; i <= nleft; i++)
			printf("- %s\n", left_out[i])
		printf("\n")
		if (nleft == nfile) {
			print "pool.awk: every boot was left out: nothing to pool" > "/dev/stderr"
			exit 1
		}
	}
	if (nwl == 0) {
		printf("pool.awk: no whole BENCH lines in the input%s\n", ncut ? sprintf(" (%d cut or interleaved, the first %s)", ncut, cut[1]) : "") > "/dev/stderr"
		exit 1
	}
	if (units == "")
		die("no run has a calibration: nothing to pool")
	nmiss = set_times("new")
	printf("Pooled: %d boot(s) of the %s view, runs timed as %s; fxtrace against %s%s.\n\n",
	       nfile - nleft, view, view == "icount" ? "ns_per_op (instructions)" : \
	       "ns_per_op / the " units " of the round's \"none\" run", other, target != "" ? ", target <= " target : "")
	table()
	if (nmiss)
		printf("\n%d runs left out: their round has no \"none\" run with a calibration (missing data, not noise).\n", nmiss)
	lost_unknown_note("fxtrace")
	lost_unknown_note(other)
	cut_note()
	if (view == "icount")
		exit 0
	nmiss = set_times("old")
	printf("\nThe old estimator, for comparison while the figures are redone (runs timed as %s: calibrated while the tracer ran, whose reader slows the calibration loop too):\n\n", \
	       units == "calib_med_ns" ? "norm_per_op" : "ns_per_op / the run's own calibration")
	table()
	if (nmiss)
		printf("\n%d runs left out by the old estimator: no calibration of their own.\n", nmiss)
}

# The BENCH lines left out as not whole, named.
function cut_note(    i) {
	if (!ncut)
		return
	printf("\n%d runs left out (truncated: the BENCH line does not end with guest.sh's retries=N, or has other output inside it, such as a kernel message; its fields cannot be trusted):\n", ncut)
	for (i = 1; i <= ncut; i++)
		printf("- %s\n", cut[i])
}

function lost_unknown_note(cfg,    f, ne, nu) {
	for (f = 1; f <= nfile; f++)
		if (!(f in failed_boot)) {
			ne += no_events[f, cfg]
			nu += lost_unknown[f, cfg]
		}
	if (ne)
		printf("\n%s gave no count of its events in %d runs (events=-): they are left out of its cost per event, and what it lost there is not known.\n", cfg, ne)
	if (nu)
		printf("\n%s could not say how many events it lost in %d runs: its events per op there count what it recorded, and if it lost any, its cost per event is overstated by that share.\n", cfg, nu)
}

# The table of every workload from time[].
function table(    w, wl, nr, nround, nboot, nunder, nbr, f, boots, pa, pb, x, k, parts, a, b, pooled) {
	printf("| workload | boots | rounds | pooled fxtrace / %s | per-round ratio: median [95%% CI] | rounds with a cost <= 0: fxtrace / %s / both | per-boot ratio: median [95%% CI] | per boot (in argument order) |%s\n",
	       other, other, target != "" ? " boots <= target |" : "")
	printf("|---|---|---|---|---|---|---|---|%s\n", target != "" ? "---|" : "")
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		nr = 0; nround = 0; nboot = 0; nunder = 0
		delete noise
		delete fd; delete fe; delete od; delete oe; delete ratios; delete bratios
		nbr = 0
		fd[0] = fe[0] = od[0] = oe[0] = 0
		boots = ""
		for (f = 1; f <= nfile; f++) {
			delete bfd; delete bfe; delete bod; delete boe
			bfd[0] = bfe[0] = bod[0] = boe[0] = 0
			if (gather(f, wl, "fxtrace", bfd, bfe) + gather(f, wl, other, bod, boe) == 0)
				continue
			append(fd, bfd); append(fe, bfe); append(od, bod); append(oe, boe)
			nboot++
			pa = per_event(bfd, bfe)
			pb = per_event(bod, boe)
			boots = boots (boots == "" ? "" : ", ") fmt_ratio(pa, pb)
			if (pa != "" && pb != "" && (x = rank_ratio(pa, pb)) != "") {
				bratios[++nbr] = x
				if (target != "" && pa > 0 && pb > 0 && x <= target + 0)
					nunder++
			}
			for (k in rounds) {
				split(k, parts, SUBSEP)
				if (parts[1] != f || parts[2] != wl)
					continue
				a = cost(f, wl, parts[3], "fxtrace")
				b = cost(f, wl, parts[3], other)
				if (a == "" || b == "")
					continue
				nround++
				noise[(a <= 0) + 2 * (b <= 0)]++
				if ((x = rank_ratio(a, b)) != "")
					ratios[++nr] = x
			}
		}
		pooled = fmt_ratio(per_event(fd, fe), per_event(od, oe))
		printf("| %s | %d | %d | %s | %s | %d / %d / %d | %s | %s |%s\n", wl, nboot, nround,
		       pooled, median_ci(ratios, nr), noise[1], noise[2], noise[3], median_ci(bratios, nbr),
		       boots == "" ? "-" : boots,
		       target != "" ? sprintf(" %d of %d |", nunder, nboot) : "")
	}
}

# "median [low, high]" of @n values (sorted in place), the interval from
# ci_rank(); "-" for no values.
function median_ci(v, n,    k) {
	if (n == 0)
		return "-"
	sort(v, n)
	k = ci_rank(n)
	return fmt3(median(v, n)) (k > 0 ? " [" fmt3(v[k]) ", " fmt3(v[n - k + 1]) "]" : " [-]")
}

# Append list @src to list @dst (lengths in element 0).
function append(dst, src,    i) {
	for (i = 1; i <= src[0]; i++)
		dst[++dst[0]] = src[i]
}
