#!/usr/bin/env bash
# bench.sh runs the repository's Go benchmarks and prints each one's time
# per operation as a ratio to its floor: the same work's physical limit (for
# example a bare newline echo through the same pipes with no JSON work).
#
# Naming convention (follow it, or a benchmark gets no ratio):
#   A floor is a benchmark whose name contains "Floor":
#     BenchmarkFloor<B>       floors every benchmark of the same package whose name ends with <B>
#     Benchmark<A>Floor<B>    floors every benchmark of the same package whose name starts with <A> and ends with <B>
#   Examples:  BenchmarkFloorSequential   -> BenchmarkCallToolSequential
#              BenchmarkStdioFloor8MiB    -> BenchmarkStdioCall8MiB
#              BenchmarkHTTPFloorBigResult/json -> BenchmarkHTTPBigResult/json (sub-benchmarks: the full name)
#   When several floors fit a benchmark, the longest floor name wins.
#   Peak memory or other figures: report them with b.ReportMetric (e.g.
#   "peak-B"); they are printed as they come.
#
#   scripts/bench.sh                         all packages below, -bench=.
#   BENCH=Sequential BENCHTIME=2s COUNT=9 scripts/bench.sh ./transport
# Each benchmark runs COUNT times (default 5) and the ratios are of the
# medians: a shared machine's noise moves single runs by tens of percent.
# The raw output of each run is kept in .cache/bench/ (the last one also
# as bench.txt).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [[ $# -gt 0 ]]; then
	wanted=("$@")
else
	wanted=(./jsonrpc ./transport ./protocol ./manager ./cli .)
fi
pkgs=()
for p in "${wanted[@]}"; do
	if [[ -d "$p" ]]; then pkgs+=("$p"); else echo "bench: skipping $p (no such package)" >&2; fi
done
mkdir -p .cache/bench
raw=$(mktemp .cache/bench/bench.XXXXXX.txt) # runs at once do not mix

go test -run='^$' -bench="${BENCH:-.}" -benchmem -benchtime="${BENCHTIME:-1s}" -count="${COUNT:-5}" "${pkgs[@]}" | tee "$raw"
cp "$raw" .cache/bench/bench.txt

echo
echo "== ratios to the floors (median time per op; lower is better)"
awk '
/^pkg: / { pkg = $2; next }
/^Benchmark/ {
	name = $1
	sub(/^Benchmark/, "", name)
	sub(/-[0-9]+$/, "", name)          # the GOMAXPROCS suffix
	for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") ns = $i
	key = pkg SUBSEP name
	if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
	runs[key] = runs[key] " " ns
	pkgOf[key] = pkg; nameOf[key] = name
	if (index(name, "Floor") > 0) floor[key] = 1
}
function median(list,    v, m, i, j, t) {
	m = split(list, v, " ")
	for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
	return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
END {
	for (k in runs) nsop[k] = median(runs[k])
	for (k = 1; k <= n; k++) {
		key = order[k]
		if (key in floor) continue
		best = ""; bestLen = -1
		for (f in floor) {
			if (pkgOf[f] != pkgOf[key]) continue
			fn = nameOf[f]; i = index(fn, "Floor")
			a = substr(fn, 1, i - 1); b = substr(fn, i + 5)
			nm = nameOf[key]
			if (length(nm) < length(a) + length(b)) continue
			if (substr(nm, 1, length(a)) != a) continue
			if (substr(nm, length(nm) - length(b) + 1) != b) continue
			if (length(fn) > bestLen) { best = f; bestLen = length(fn) }
		}
		if (best == "") {
			printf "%-16s %-34s %12.0f ns/op   (no floor: see the naming convention in scripts/bench.sh)\n", pkgOf[key], nameOf[key], nsop[key]
		} else {
			printf "%-16s %-34s %12.0f ns/op   %5.2fx  Benchmark%s (%.0f ns/op)\n", pkgOf[key], nameOf[key], nsop[key], nsop[key] / nsop[best], nameOf[best], nsop[best]
		}
	}
}' "$raw"
