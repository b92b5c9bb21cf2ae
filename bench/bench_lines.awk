# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bench_lines.awk - what report.awk and pool.awk share: reading guest.sh's
# "BENCH k=v k=v ..." lines, and medians. Not a program of its own; load it
# first:
#
#   awk -f bench/bench_lines.awk -f bench/report.awk results.txt

# Split a BENCH line's "k=v" words into kv[] (the first word is "BENCH").
function parse(line,    i, n, parts, eq) {
	delete kv
	n = split(line, parts, " ")
	for (i = 2; i <= n; i++) {
		eq = index(parts[i], "=")
		if (eq)
			kv[substr(parts[i], 1, eq - 1)] = substr(parts[i], eq + 1)
	}
}

# A field that holds a number: "-" and "" mean none, and anything else
# that is not a number (the "2[" of a line a kernel message cut into) is
# none too, not read as its leading digits.
function num(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?$/ }

# Whether BENCH line @line is whole: guest.sh writes retries=N last, and
# every word after "BENCH" is k=v. A line cut short (the guest died while
# printing it to the console) or with other output inside it (a kernel
# message) is not a run: its fields cannot be trusted.
function whole(line,    n, parts, i) {
	if (line !~ / retries=[0-9]+$/)
		return 0
	n = split(line, parts, " ")
	for (i = 2; i <= n; i++)
		if (!index(parts[i], "="))
			return 0
	return 1
}

# "line N (round R WL CFG)": where cut BENCH line @line is, for the list of
# those left out (what of its fields can be read).
function cut_where(line, lineno) {
	parse(line)
	return sprintf("line %d (round %s %s %s)", lineno, kv["round"] == "" ? "?" : kv["round"], \
	               kv["wl"] == "" ? "?" : kv["wl"], kv["cfg"] == "" ? "?" : kv["cfg"])
}

# Sort a[1..n] in place (insertion sort: n is at most a few hundred).
function sort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

# The median of arr[1..n], arr left as it is; "" for n = 0.
function median(arr, n,    i, a) {
	if (n == 0)
		return ""
	for (i = 1; i <= n; i++)
		a[i] = arr[i]
	sort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
