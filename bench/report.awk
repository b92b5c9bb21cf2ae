# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# report.awk - the benchmark table of one view, from guest.sh's BENCH lines
#
#   awk -v calibrate=0|1 -f bench/bench_lines.awk -f bench/report.awk results.txt
#
# Per workload and configuration, over the rounds whose run succeeded:
#   ns/op      median time per operation (round trip, hop). calibrate=1
#              (wall-clock view): each run's time (ns_per_op: all of its
#              pieces) is divided by the getppid() calibration of the same
#              round's "none" run and multiplied by the boot's median of
#              those, which puts the rounds on one scale when the host's
#              speed drifts between them. Every configuration of a round
#              is divided by the same figure, taken with no tracer
#              running: a tracer's reader slows the calibration loop next
#              to it, so a run's own calibrations would take part of the
#              reader's cost away (bench/README.md, "Calibration"). The
#              "none" run's calibration is calib_med_ns, measured between
#              its pieces (fxt-bench --chunks), or else the mean of
#              calib_before and calib_after.
#   old ns/event  (calibrate=1, for a transition) ns/event by the
#              estimator used before: each piece divided by the
#              calibrations just before and after it, taken under the
#              tracer, the median over pieces (norm_per_op) x the boot's
#              median calib_med_ns; without pieces, each run / its own
#              calibration. Its ratios follow the new ones, labelled.
#   spread     (max - min) / median of those times
#   csw/op     context switches of the workload's own tasks per operation
#              (same in every configuration unless a tracer changed the
#              schedule)
#   +ns/op     median over rounds of (this config - "none") in the same round
#   events/op  (recorded + lost) / (ops + warmup): the tracer's own count
#   ns/event   +ns/op / events/op: what one event cost the workload, the
#              events the tracer lost counted as if it had recorded them
#   B/event    output bytes / recorded events (fxtrace: the whole .fxt file;
#              ftrace: the event pages trace-cmd wrote; perf: perf.data's
#              data section)
#   tracer CPU CPU time of the tracer's processes during the interval and in
#              the window after it (--settle) / the interval, median
# Then fxtrace's ns/event as a ratio to ftrace's and to perf's, and the same
# for "probe" (fxtrace's probes alone, nobody draining: the collector's share
# is the difference). A ratio where either side lost events is marked: that
# tracer did not do all the work the other did (it recorded fewer events
# than its events/op counts).
# Runs that failed (rc != 0) are left out and listed, and so are BENCH
# lines that are not whole (bench_lines.awk's whole(): cut short, or with
# a kernel message inside), which are not read at all.
# In the instruction view (calibrate=0) a run's time also charges what the
# tracer's processes did in the quiet window after the loop (fxt-bench
# --settle: tracer_cpu_after_ns / ops): on the one vCPU, a reader draining
# there what was still pending at the loop's end does work the loop caused.
# "Reader work after the loop" shows that share apart, the records still
# unread at the loop's end and after the window, and what draining the
# latter would cost at the reader's measured cost per byte (an estimate,
# added only to the ratios printed with it).

function spread(arr, n,    i, lo, hi, m) {
	if (n < 2)
		return "-"
	lo = hi = arr[1]
	for (i = 2; i <= n; i++) {
		if (arr[i] < lo) lo = arr[i]
		if (arr[i] > hi) hi = arr[i]
	}
	m = median(arr, n)
	return m > 0 ? sprintf("%.1f%%", 100 * (hi - lo) / m) : "-"
}

# The time per operation of run @key as the table uses it; "" for a run
# without the calibration the view needs (missing data, not noise): in
# the wall view, that of its round's "none" run.
function value(key) {
	if (!calibrate)
		return raw[key] + ((key in after_op) ? after_op[key] : 0)
	return round_scaled(key, raw[key])
}

# @x, nanoseconds of run @key, divided by the calibration of its round's
# "none" run and multiplied by the boot's median; "" without the former.
function round_scaled(key, x,    kp, c) {
	split(key, kp, SUBSEP)
	c = round_cal[kp[1], kp[3]]
	if (c == "" || c <= 0)
		return ""
	return x / c * cal_med
}

# The same by the old estimator (calibrate=1): the run's own
# calibrations, taken while its tracer ran.
function old_value(key) {
	if (pieces)
		return norm[key] * old_cal_med
	if (cal[key] == "" || cal[key] <= 0)
		return ""
	return raw[key] / cal[key] * old_cal_med
}

# A ratio means something only if both tracers measurably slowed the
# workload; an overhead <= 0 is noise bigger than the cost. @old: by the
# old estimator.
function ratio(wl, a, b, old,    pa, pb) {
	pa = old ? per_event_old[wl, a] : per_event[wl, a]
	pb = old ? per_event_old[wl, b] : per_event[wl, b]
	if (pa == "" || pb == "")
		return "-"
	if (pa <= 0 || pb <= 0)
		return "n/a (overhead <= 0: noise)"
	return sprintf("%.3f", pa / pb) lost_mark(wl, a, b)
}

# "108216 (45.0%)": events lost in all runs, and their share of all the
# events the tracer saw (recorded + lost), so nobody derives it by hand.
# @unk of the @runs runs could not say what they lost: "? (unknown in all
# 5 runs)", or the known count "+ ? (unknown in 2 of 5 runs)".
function lost_cell(l, e, unk, runs,    pct, c) {
	if (unk == runs)
		return sprintf("? (unknown in all %d runs)", runs)
	if (l <= 0 || l + e <= 0)
		c = l
	else if ((pct = 100 * l / (l + e)) < 0.05)
		c = sprintf("%d (<0.1%%)", l)
	else
		c = sprintf("%d (%.1f%%)", l, pct)
	return unk ? sprintf("%s + ? (unknown in %d of %d runs)", c, unk, runs) : c
}

# "perf lost 3", "perf lost ?" or "perf lost 3 + ?" for @cfg in @wl, or ""
# when it lost nothing it knows of and knows it.
function lost_words(wl, cfg,    l, u) {
	l = lost_all[wl, cfg] > 0
	u = lost_unknown_runs[wl, cfg] > 0
	if (u)
		nunknown_marks++
	if (l)
		nlost_marks++
	if (l && u)
		return sprintf("%s lost %d + ?", cfg, lost_all[wl, cfg])
	if (u)
		return cfg " lost ?"
	return l ? sprintf("%s lost %d", cfg, lost_all[wl, cfg]) : ""
}

# " (perf lost 3)" when either of @a and @b lost events in @wl (or cannot
# say), else "".
function lost_mark(wl, a, b,    m, w) {
	m = lost_words(wl, a)
	if ((w = lost_words(wl, b)) != "")
		m = m (m == "" ? "" : ", ") w
	return m == "" ? "" : " (" m ")"
}

function target(wl, other, limit,    f, o) {
	f = per_event[wl, "fxtrace"]
	o = per_event[wl, other]
	if (!(other in seen_cfg)) {
		printf("- %s: fxtrace / %s per event: %s not run\n", wl, other, other)
		return
	}
	if (o == "" || f == "") {
		printf("- %s: fxtrace / %s per event: no figure (missing data: see the runs left out below)\n", wl, other)
		return
	}
	if (o <= 0 || f <= 0) {
		printf("- %s: fxtrace / %s per event: inconclusive (no positive overhead to compare: noise)\n", wl, other)
		return
	}
	printf("- %s: fxtrace / %s per event = %.3f (target <= %s): %s%s%s\n", wl, other, \
	       f / o, limit, f / o <= limit ? "met" : "NOT met", lost_mark(wl, "fxtrace", other), \
	       calibrate ? "; old estimator: " ratio(wl, "fxtrace", other, 1) : "")
}

function fmt(v, f) { return v == "" ? "-" : sprintf(f, v) }

# "N ns (P% of its cost)": writing @cfg's bytes per event in @wl. Per
# event seen (recorded + lost), the unit of its cost per event: a tracer
# that lost a share of its events wrote its bytes for all of them.
function write_floor(wl, cfg,    b, pe) {
	b = bpse_med[wl, cfg]
	if (b == "")
		return "-"
	pe = per_event[wl, cfg]
	if (pe != "" && pe > 0)
		return sprintf("%.0f ns (%.0f%% of its cost)", b * write_ns, 100 * b * write_ns / pe)
	return sprintf("%.0f ns", b * write_ns)
}

# ---- the reader's work after the loop (fxt-bench --settle) ----------------

# The --settle fields of run @key (in kv[]).
function after_run(key,    b, o) {
	if (!num(kv["tracer_cpu_after_ns"]))
		return
	after_ns[key] = kv["tracer_cpu_after_ns"] + 0
	after_op[key] = after_ns[key] / kv["ops"]
	unread_end[key] = unread("end", key)
	unread_after[key] = unread("after", key)
	if (!num(kv["pending_after_bytes"]))
		return
	# Draining what is left would cost what the reader's measured work
	# cost per byte it did drain (all of the output but those bytes).
	b = kv["pending_after_bytes"]
	o = num(kv["out_bytes"]) ? kv["out_bytes"] - b : 0
	if (o > 0 && num(kv["tracer_cpu_ns"]))
		tail_op[key] = (kv["tracer_cpu_ns"] + after_ns[key]) * b / o / kv["ops"]
}

# Records unread at the loop's @when ("end" or "after" the window): ftrace
# counts them, the others' bytes are divided by the run's bytes per event.
function unread(when, key) {
	if (num(kv["pending_" when "_records"]))
		return kv["pending_" when "_records"] + 0
	if (num(kv["pending_" when "_bytes"]) && (key in bpe) && bpe[key] > 0)
		return kv["pending_" when "_bytes"] / bpe[key]
	return ""
}

# "N (P%)": @v records of the median @rec recorded per run
function share(v, rec) { return v == "" ? "-" : rec > 0 ? sprintf("%.0f (%.1f%%)", v, 100 * v / rec) : sprintf("%.0f", v) }

# Per tracer, medians over rounds: its CPU time in the window, its cost per
# event without and with it, the records unread at the loop's end and
# after the window, and the estimated cost of draining the latter; then
# fxtrace's ratios with those estimates added to every tracer's cost.
function after_table(    w, k, wl, cfg, r, key, base, n, na, ne, nt, nu, nv, d, a, es, rec, t, u, v, e, pe_loop, any, xb, x) {
	for (key in after_ns)
		any = 1
	if (!any)
		return
	printf("\nReader work after the loop (fxt-bench --settle: the tracer's CPU time while the workload slept after it; %s):\n\n", \
	       calibrate ? "not charged in this view, where the readers have a CPU of their own" : \
	       "charged above, as time per operation")
	printf("| workload | config | CPU after (ms) | ns/event loop only | + after the loop | unread at loop end | unread after it | est. ns/event to drain those |\n")
	printf("|---|---|---|---|---|---|---|---|\n")
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		for (k = 1; k <= ncfg; k++) {
			cfg = cfgs[k]
			n = na = ne = nt = nu = nv = 0
			delete d; delete a; delete es; delete t; delete u; delete v; delete rec
			for (r = 1; r <= maxr; r++) {
				key = wl SUBSEP cfg SUBSEP r
				base = wl SUBSEP "none" SUBSEP r
				if (!(key in ok) || !(key in after_ns))
					continue
				a[++na] = after_ns[key] / 1e6
				if ((base in ok) && (xb = loop_value(base)) != "" && loop_value(key) != "")
					d[++n] = loop_value(key) - xb
				if (key in per_op) {
					es[++ne] = per_op[key]
					rec[ne] = ev[key]
				}
				# Raw ns of the run: scaled as its time is.
				if ((key in tail_op) &&
				    (x = calibrate ? round_scaled(key, tail_op[key]) : tail_op[key]) != "")
					t[++nt] = x
				if (unread_end[key] != "")
					u[++nu] = unread_end[key]
				if (unread_after[key] != "")
					v[++nv] = unread_after[key]
			}
			if (na == 0)
				continue
			e = median(es, ne)
			pe_loop = (n && e > 0) ? median(d, n) / e : ""
			tail_pe[wl, cfg] = (nt && e > 0) ? median(t, nt) / e : ""
			printf("| %s | %s | %.2f | %s | %s | %s | %s | %s |\n", wl, cfg, median(a, na), fmt(pe_loop, "%.0f"), \
			       (pe_loop != "" && per_event[wl, cfg] != "") ? sprintf("%+.0f", per_event[wl, cfg] - pe_loop) : "-", \
			       share(median(u, nu), median(rec, ne)), share(median(v, nv), median(rec, ne)), fmt(tail_pe[wl, cfg], "%.0f"))
		}
	}
	printf("\nfxtrace's ratios with each tracer's estimated cost of draining what it still held after the window added (a reader that sleeps until its buffer is half full drains that only when it stops, after the workload):\n\n")
	printf("| workload | fxtrace / ftrace | fxtrace / perf |\n|---|---|---|\n")
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		printf("| %s | %s | %s |\n", wl, ratio_tail(wl, "fxtrace", "ftrace"), ratio_tail(wl, "fxtrace", "perf"))
	}
}

# A run's time per operation without the reader's work after the loop.
function loop_value(key) { return calibrate ? value(key) : raw[key] }

# ratio() with each side's estimated tail added
function ratio_tail(wl, a, b,    x, y) {
	if (per_event[wl, a] == "" || per_event[wl, b] == "")
		return "-"
	if (tail_pe[wl, a] == "" || tail_pe[wl, b] == "")
		return "- (no estimate)"
	x = per_event[wl, a] + tail_pe[wl, a]
	y = per_event[wl, b] + tail_pe[wl, b]
	if (x <= 0 || y <= 0)
		return "n/a (overhead <= 0: noise)"
	return sprintf("%.3f", x / y) lost_mark(wl, a, b)
}

BEGIN { ncal = 0; nwl = 0; ncfg = 0; nfail = 0 }

/^BENCHINFO / {
	info[++ninfo] = substr($0, 11)
	if (match($0, /tmpfs_write_ns_per_byte=[0-9.]+/))
		write_ns = substr($0, RSTART + 24, RLENGTH - 24) + 0
	next
}

/^BENCH / {
	if (!whole($0)) {
		cut[++ncut] = cut_where($0, FNR)
		next
	}
	parse($0)
	wl = kv["wl"]; cfg = kv["cfg"]; r = kv["round"] + 0
	view = kv["view"]
	if (kv["retries"] > 0) {
		nretried++
		retries += kv["retries"]
	}
	if (!(wl in seen_wl)) { seen_wl[wl] = 1; wls[++nwl] = wl }
	if (!(cfg in seen_cfg)) { seen_cfg[cfg] = 1; cfgs[++ncfg] = cfg }
	if (kv["rc"] != "0" || !num(kv["ns_per_op"])) {
		failed[++nfail] = sprintf("round %d %s %s: exit %s%s", r, wl, cfg, kv["rc"], \
		                          kv["rc"] == "0" ? sprintf(", ns_per_op=%s is not a number", kv["ns_per_op"]) : "")
		next
	}
	key = wl SUBSEP cfg SUBSEP r
	ok[key] = 1
	if (r > maxr) maxr = r
	raw[key] = kv["ns_per_op"] + 0
	if (num(kv["calib_med_ns"]) && kv["calib_med_ns"] > 0)
		cal_in[key] = kv["calib_med_ns"] + 0
	c = ""
	if (num(kv["calib_before"]) && num(kv["calib_after"]))
		c = (kv["calib_before"] + kv["calib_after"]) / 2
	else if (num(kv["calib_before"]))
		c = kv["calib_before"] + 0
	cal[key] = c
	if (c != "")
		cals[++ncal] = c
	if (num(kv["norm_per_op"]) && num(kv["calib_med_ns"])) {
		norm[key] = kv["norm_per_op"] + 0
		ccals[++nccal] = kv["calib_med_ns"] + 0
	} else {
		nonorm++
	}
	if (num(kv["events"])) {
		ev[key] = kv["events"] + 0
		# A tracer that cannot say what it lost (lost=-: perf without
		# PERF_FORMAT_LOST, a summary line missing) is not taken to
		# have lost nothing: its events per op count what it recorded,
		# and the run is marked.
		if (num(kv["lost"])) {
			lost[key] = kv["lost"] + 0
		} else {
			lost[key] = 0
			lost_unknown[key] = 1
		}
		per_op[key] = (ev[key] + lost[key]) / (kv["ops"] + kv["warmup"])
		if (num(kv["out_bytes"]) && ev[key] > 0)
			bpe[key] = kv["out_bytes"] / ev[key]
		# Bytes per event seen (recorded + lost), the unit of the cost
		# per event that write_floor() compares them with.
		if (num(kv["out_bytes"]) && ev[key] + lost[key] > 0)
			bpse[key] = kv["out_bytes"] / (ev[key] + lost[key])
	} else if (cfg != "none") {
		# A tracer's run without its event count (fxt-collect's summary
		# missing from the log): what it lost is not known either, not
		# 0, and its cost per event cannot be computed. Counted, and
		# named after the table.
		lost_unknown[key] = 1
		noev[++nnoev] = sprintf("round %d %s %s", r, wl, cfg)
	}
	if (num(kv["csw"]) && kv["ops"] > 0)
		csw[key] = kv["csw"] / kv["ops"]
	# The tracer's CPU time was measured over the whole interval; what it
	# did in the window after the loop (--settle) was work the loop's
	# events caused, so it counts too, over the same interval: the share
	# of a CPU the reader needs to keep up.
	span = num(kv["interval_ns"]) ? kv["interval_ns"] : kv["elapsed_ns"]
	if (num(kv["tracer_cpu_ns"]) && span > 0)
		cpu[key] = 100 * (kv["tracer_cpu_ns"] + \
				  (num(kv["tracer_cpu_after_ns"]) ? kv["tracer_cpu_after_ns"] : 0)) / span
	after_run(key)
}

END {
	if (nwl == 0) {
		printf("report.awk: no whole BENCH lines in the input%s\n", ncut ? sprintf(" (%d cut or interleaved, the first at %s)", ncut, cut[1]) : "") > "/dev/stderr"
		exit 1
	}
	old_cal_med = median(cals, ncal)
	pieces = calibrate && nccal > 0 && nonorm == 0
	if (pieces)
		old_cal_med = median(ccals, nccal)
	# Each round's divisor: its "none" run's calibration, the one measured
	# between the run's pieces when every "none" run has that.
	in_run = 1
	for (key in ok) {
		split(key, kp, SUBSEP)
		if (kp[2] == "none" && !(key in cal_in))
			in_run = 0
	}
	nrc = 0
	for (key in ok) {
		split(key, kp, SUBSEP)
		if (kp[2] != "none")
			continue
		c = in_run ? cal_in[key] : cal[key]
		if (c != "" && c > 0) {
			round_cal[kp[1], kp[3]] = c
			rcs[++nrc] = c
		}
	}
	cal_med = median(rcs, nrc)
	if (calibrate && cal_med == "") {
		print "report.awk: calibrate=1 but no \"none\" run has a calibration (each round is divided by its \"none\" run's)" > "/dev/stderr"
		exit 1
	}
	if (!calibrate)
		how = " (guest time = instructions executed)"
	else
		how = sprintf(" (calibrated: each run's time / the getppid() time of its round's \"none\" run, %s, x the boot's median %.1f ns per getppid(); every configuration of a round has the same divisor, taken with no tracer running)", \
		              in_run ? "measured between its pieces" : "measured before and after it", cal_med)
	# The "+%" column divides by the "none" runs' median, whatever the
	# order of the configurations.
	for (w = 1; w <= nwl; w++) {
		n = 0
		delete xs
		for (r = 1; r <= maxr; r++) {
			key = wls[w] SUBSEP "none" SUBSEP r
			if ((key in ok) && (x = value(key)) != "")
				xs[++n] = x
		}
		none_med[wls[w]] = median(xs, n)
	}
	printf("View: %s%s\n\n", view, how)
	for (i = 1; i <= ninfo; i++)
		printf("    %s\n", info[i])
	printf("\n| workload | config | runs | ns/op | spread | csw/op | +ns/op | +%% | events/op | ns/event | recorded/run | lost (all runs, %% of recorded + lost) | B/event | tracer CPU |%s\n",
	       calibrate ? " raw ns/op | raw spread | old ns/event |" : "")
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|%s\n", calibrate ? "---|---|---|" : "")
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		for (k = 1; k <= ncfg; k++) {
			cfg = cfgs[k]
			n = 0; nd = 0; ne = 0; nb = 0; nbs = 0; nc = 0; nr = 0; ns = 0; lsum = 0; esum = 0; nod = 0; nunk = 0; nlc = 0
			delete xs; delete ds; delete es; delete bs; delete bss; delete cs; delete rs; delete recs; delete sws; delete ods
			for (r = 1; r <= maxr; r++) {
				key = wl SUBSEP cfg SUBSEP r
				if (!(key in ok))
					continue
				x = value(key)
				rs[++nr] = raw[key]
				base = wl SUBSEP "none" SUBSEP r
				if (x == "") {
					nocal[++nnocal] = sprintf("round %d %s %s", r, wl, cfg)
				} else {
					xs[++n] = x
					if (cfg != "none" && (base in ok) && (xb = value(base)) != "")
						ds[++nd] = x - xb
				}
				if (calibrate) {
					x = old_value(key)
					if (x == "")
						nocal_old[++nnocal_old] = sprintf("round %d %s %s", r, wl, cfg)
					else if (cfg != "none" && (base in ok) && (xb = old_value(base)) != "")
						ods[++nod] = x - xb
				}
				if (key in per_op) {
					es[++ne] = per_op[key]
					recs[ne] = ev[key]
					lsum += lost[key]
					esum += ev[key]
				}
				# Runs with a lost count or without one (no
				# event count at all, or lost=-).
				nlc += (key in per_op) || (key in lost_unknown)
				nunk += (key in lost_unknown)
				if (key in bpe)
					bs[++nb] = bpe[key]
				if (key in bpse)
					bss[++nbs] = bpse[key]
				if (key in cpu)
					cs[++nc] = cpu[key]
				if (key in csw)
					sws[++ns] = csw[key]
			}
			if (nr == 0)
				continue
			m = median(xs, n)
			d = median(ds, nd)
			e = median(es, ne)
			pe = (d != "" && e != "" && e > 0) ? d / e : ""
			od = median(ods, nod)
			per_event_old[wl, cfg] = (od != "" && e != "" && e > 0) ? od / e : ""
			per_event[wl, cfg] = pe
			lost_all[wl, cfg] = lsum
			lost_unknown_runs[wl, cfg] = nunk
			cpu_med[wl, cfg] = median(cs, nc)
			bpe_med[wl, cfg] = median(bs, nb)
			bpse_med[wl, cfg] = median(bss, nbs)
			printf("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", \
			       wl, cfg, n, fmt(m, "%.0f"), spread(xs, n), fmt(median(sws, ns), "%.2f"), fmt(d, "%.0f"), \
			       (d != "" && none_med[wl] > 0) ? sprintf("%.1f%%", 100 * d / none_med[wl]) : "-", \
			       fmt(e, "%.2f"), fmt(pe, "%.0f"), fmt(median(recs, ne), "%.0f"), \
			       nlc ? lost_cell(lsum, esum, nunk, nlc) : "-", fmt(median(bs, nb), "%.1f"), \
			       nc ? sprintf("%.1f%%", median(cs, nc)) : "-")
			if (calibrate)
				printf(" %.0f | %s | %s |", median(rs, nr), spread(rs, nr), fmt(per_event_old[wl, cfg], "%.0f"))
			printf("\n")
		}
	}
	printf("\nfxtrace's cost per event (recorded + lost, as each tracer counts them) as a fraction of the others' (same boot; \"probe\" = fxtrace's probes alone, nobody draining):\n\n")
	printf("| workload | fxtrace / ftrace | fxtrace / perf | probe / ftrace | probe / perf |\n|---|---|---|---|---|\n")
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		printf("| %s | %s | %s | %s | %s |\n", wl, ratio(wl, "fxtrace", "ftrace"), \
		       ratio(wl, "fxtrace", "perf"), ratio(wl, "probe", "ftrace"), ratio(wl, "probe", "perf"))
	}
	if (calibrate) {
		printf("\nThe same by the old estimator, for comparison until the figures are redone (%s, measured under the tracer, whose reader slows that loop too: it takes part of the reader's cost away):\n\n", \
		       pieces ? "each piece of a run / the getppid() time just before and after it" : "each run / its own getppid() time before and after it")
		printf("| workload | fxtrace / ftrace | fxtrace / perf | probe / ftrace | probe / perf |\n|---|---|---|---|---|\n")
		for (w = 1; w <= nwl; w++) {
			wl = wls[w]
			printf("| %s | %s | %s | %s | %s |\n", wl, ratio(wl, "fxtrace", "ftrace", 1), \
			       ratio(wl, "fxtrace", "perf", 1), ratio(wl, "probe", "ftrace", 1), ratio(wl, "probe", "perf", 1))
		}
	}
	if (nlost_marks)
		printf("\n\"X lost N\": X lost N events over these runs. Its cost per event counts them as if recorded, though it did not record them: the two tracers did unlike work, and that one's cost per event can be lower than recording every event would have cost.\n")
	if (nunknown_marks)
		printf("\n\"X lost ?\": X could not say how many events it lost in some runs (the lost column says how many; perf before Linux 6.0 counts lost samples only above 5%%). Its events per op there count what it recorded: if it lost any, its cost per event is overstated by that share.\n")
	after_table()
	# What writing each tracer's output costs at the measured price per
	# byte (fxt-bench writecost): a floor under its reader's share.
	if (write_ns > 0) {
		printf("\nWriting output to tmpfs costs %.2f ns per byte in this view (fxt-bench writecost%s); at each tracer's bytes per event seen (recorded + lost) that is, per event:\n\n", \
		       write_ns, calibrate ? ", timed once after the rounds, its ns not calibrated" : "")
		printf("| workload | fxtrace | ftrace | perf |\n|---|---|---|---|\n")
		for (w = 1; w <= nwl; w++) {
			wl = wls[w]
			printf("| %s | %s | %s | %s |\n", wl, write_floor(wl, "fxtrace"), \
			       write_floor(wl, "ftrace"), write_floor(wl, "perf"))
		}
	}
	# The issue's targets, read from this view's numbers (not enforced).
	printf("\nTargets (issue 4), this view:\n\n")
	for (w = 1; w <= nwl; w++) {
		wl = wls[w]
		if (!((wl, "fxtrace") in per_event))
			continue
		if (calibrate) {
			target(wl, "ftrace", 0.5)
		} else {
			target(wl, "ftrace", 0.25)
			target(wl, "perf", 0.125)
		}
	}
	if (("pp1", "fxtrace") in lost_all) {
		if (lost_all["pp1", "fxtrace"] > 0)
			printf("- pp1: fxtrace lost %d events over all runs at the default buffer size (target 0): NOT met\n", \
			       lost_all["pp1", "fxtrace"])
		else if (lost_unknown_runs["pp1", "fxtrace"] > 0)
			printf("- pp1: fxtrace's count of lost events is missing in %d runs (fxt-collect's summary not found in their logs, or it skipped invalid ring data; target 0): not known\n", \
			       lost_unknown_runs["pp1", "fxtrace"])
		else
			printf("- pp1: fxtrace lost 0 events over all runs at the default buffer size (target 0): met\n")
		c = cpu_med["pp1", "fxtrace"]
		if (c != "")
			printf("- pp1: fxt-collect used %.1f%% of a CPU (median; target < 5%%): %s\n", \
			       c, c < 5 ? "met" : "NOT met")
	}
	# A reader that never ran inside the timed interval was not measured.
	for (w = 1; w <= nwl; w++)
		for (k = 1; k <= ncfg; k++)
			if ((wls[w], cfgs[k]) in cpu_med && cpu_med[wls[w], cfgs[k]] != "" && cpu_med[wls[w], cfgs[k]] < 0.05)
				printf("\nWarning: %s's reader used no CPU during %s's timed runs: they were shorter than its drain period, so its cost is missing (use more --pp-ops/--sw-ops).\n", cfgs[k], wls[w])
	if (nretried)
		printf("\n%d runs were repeated (%d times in all) because the calibration before and after them differed too much: the host's speed changed during the run.\n", nretried, retries)
	if (nfail) {
		printf("\nRuns left out (failed):\n")
		for (i = 1; i <= nfail; i++)
			printf("- %s\n", failed[i])
	}
	if (nnoev) {
		printf("\nRuns left out of the per-event figures (the tracer's count of events is missing, events=-: its cost per event cannot be computed, and what it lost is not known):\n")
		for (i = 1; i <= nnoev; i++)
			printf("- %s\n", noev[i])
	}
	if (ncut) {
		printf("\nRuns left out (truncated: the BENCH line does not end with guest.sh's retries=N, or has other output inside it, such as a kernel message; its fields cannot be trusted):\n")
		for (i = 1; i <= ncut; i++)
			printf("- %s\n", cut[i])
	}
	if (nnocal) {
		printf("\nRuns left out of the calibrated figures (their round's \"none\" run has no calibration, or did not run: missing data, not noise):\n")
		for (i = 1; i <= nnocal; i++)
			printf("- %s\n", nocal[i])
	}
	if (nnocal_old) {
		printf("\nRuns the old estimator left out (no calibration of their own):\n")
		for (i = 1; i <= nnocal_old; i++)
			printf("- %s\n", nocal_old[i])
	}
}
