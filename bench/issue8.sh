#!/bin/sh
# Benchmark (not a test) for issue #8: sample lines from bench/gen_stacks.c
# (as bench/callgraph.sh: 2,000 functions, depth 1-60, seed 1, DISTINCT
# stacks, 4 threads) at 1M and 10M samples; sfanalyze --callgraph (folded
# at load time) and sfconv lines -> collapsed (the sample-lines reader).
# Prints wall, user and system time and peak RSS from /usr/bin/time -v.
#   sh bench/issue8.sh [DISTINCT [BIN]]     (default 50000, ./bin)
# BIN may name another build's bin/ to compare (e.g. one of main).
# Inputs are kept in ${TMPDIR:-/tmp}/sf-bench-issue8 (1.8 GB).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
distinct=${1:-50000}
bin=${2:-$top/bin}
dir=${TMPDIR:-/tmp}/sf-bench-issue8
mkdir -p "$dir"
[ -x "$dir/gen" ] || cc -O2 -o "$dir/gen" "$top/bench/gen_stacks.c"
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time"; exit 1; }

measure() {   # NAME CMD...
	name=$1; shift
	/usr/bin/time -v "$@" > "$dir/out" 2> "$dir/time" ||
		{ tail -n 30 "$dir/time"; exit 1; }
	awk -v n="$name" -F': ' '
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Elapsed/ { w = $2 } /Maximum resident/ { m = $2 }
		END { printf "%-44s wall %8s  user %6s s  sys %5s s  peak %7.1f MB\n",
		      n, w, u, s, m / 1024 }' "$dir/time"
}

echo "machine: $(nproc) CPUs, $(awk '/model name/ { $1 = $2 = $3 = ""; print; exit }' /proc/cpuinfo)," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in 1000000 10000000; do
	f=$dir/lines-$n-$distinct.samples.tsv
	[ -s "$f" ] || "$dir/gen" "$n" 2000 60 1 "$distinct" > "$f"
	echo "-- $n samples, $distinct distinct stacks, $(stat -L -c %s "$f") bytes"
	measure "sfanalyze --callgraph" "$bin/sfanalyze" --callgraph "$f"
	measure "sfconv lines -> collapsed" "$bin/sfconv" -q "$f" --to collapsed
done
