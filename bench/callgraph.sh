#!/bin/sh
# Benchmark (not a test): sfanalyze --callgraph and --tree on 1,000,000
# samples of 2,000 functions, depth up to 60, generated deterministically
# (bench/gen_stacks.c, seed 1; DISTINCT stacks drawn with a skew, default
# 50000; 0 makes every sample a fresh walk, the worst case for any prefix
# tree).  Prints user/system/wall time and peak memory from /usr/bin/time
# when it is installed.  --tree output goes to /dev/null (it is large).
#   sh bench/callgraph.sh [SAMPLES [DISTINCT]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
distinct=${2:-50000}
tmp=${TMPDIR:-/tmp}/sf-bench-cg.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/gen" "$top/bench/gen_stacks.c"
"$tmp/gen" "$n" 2000 60 1 "$distinct" > "$tmp/in.samples.tsv"
echo "input: $n samples, $(wc -c < "$tmp/in.samples.tsv") bytes," \
     "$(cut -f3 "$tmp/in.samples.tsv" | sort -u | wc -l) distinct stacks"
echo "== load only: sfconv --to collapsed"
/usr/bin/time -f "user %U s, system %S s, wall %e s, peak %M KB" \
	"$top/bin/sfconv" "$tmp/in.samples.tsv" > /dev/null
for report in --callgraph "--callgraph --json" --tree "--tree --json" --flat; do
	echo "== sfanalyze $report"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$top/bin/sfanalyze" $report "$tmp/in.samples.tsv" \
			> "$tmp/out" 2> "$tmp/time" || { cat "$tmp/time"; exit 1; }
		grep -E 'User time|System time|Elapsed|Maximum resident' "$tmp/time"
	else
		start=$(date +%s.%N)
		"$top/bin/sfanalyze" $report "$tmp/in.samples.tsv" > "$tmp/out"
		end=$(date +%s.%N)
		echo "wall: $(echo "$end - $start" | bc) s"
	fi
	echo "output: $(wc -c < "$tmp/out") bytes"
done
