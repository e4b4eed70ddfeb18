#!/bin/sh
# Benchmark (not a test): sfanalyze --callgraph against Racket's own
# profile/analyzer, both as whole processes, on the shape of issue #18:
# 20,000 random samples over 200 functions, depth 1-60, with recursion
# (bench/gen_stacks.c, DISTINCT 0: every sample its own walk; 4 threads,
# weight 1).  Racket runs bench/callgraph-racket.rkt (read the lines,
# analyze-samples, print the result); both outputs are compared value by
# value and order by order (tests/analyze/cg_racket.py) before timing.
# Best wall time of BENCH_RUNS runs (default 3) each, in the same run.
#   sh bench/callgraph-racket.sh [SEED]
# SF_OLD=path/to/an/older/sfanalyze adds a row for it (before/after).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SF_BIN:-$top/bin}
seed=${1:-1}
runs=${BENCH_RUNS:-3}
tmp=${TMPDIR:-/tmp}/sf-bench-cgr.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
if ! racket -l racket/base -l profile/analyzer -e '' >/dev/null 2>&1; then
	printf "%-40s %s\n" "Racket profile/analyzer" \
		"not measured: racket with profile-lib is not installed"
	exit 0
fi
cc -O2 -o "$tmp/gen" "$top/bench/gen_stacks.c"
in=$tmp/random-20000x200.samples.tsv
"$tmp/gen" 20000 200 60 "$seed" 0 > "$in"
if python3 "$top/tests/analyze/cg_racket.py" "$bin/sfanalyze" \
	"$top/bench/callgraph-racket.rkt" "$tmp/gen" "$seed" 20000 200 60 0 \
	> "$tmp/cmp" 2>&1; then
	same="identical values and orders"
else
	same="OUTPUTS DIFFER: $(head -c 200 "$tmp/cmp")"
fi

# best wall time and best CPU time (user + system) in ms over $runs runs,
# finer than /usr/bin/time's 10 ms (the ratio needs it)
best_ms() { # command...
	python3 - "$runs" "$@" <<'PY'
import os, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
wall = cpu = None
for _ in range(runs):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    t = (time.perf_counter() - t0) * 1000
    if status:
        sys.exit("bench: failed: %s" % " ".join(cmd))
    c = (ru.ru_utime + ru.ru_stime) * 1000
    wall = t if wall is None else min(wall, t)
    cpu = c if cpu is None else min(cpu, c)
print("%.1f %.1f" % (wall, cpu))
PY
}

echo "-- call graph: 20,000 random samples, 200 functions, depth 1-60," \
     "seed $seed ($(wc -c < "$in") bytes); load average$(uptime | sed 's/.*load average//')"
set -- $(best_ms "$bin/sfanalyze" --callgraph "$in")
sf=$1; sfc=$2
set -- $(best_ms racket "$top/bench/callgraph-racket.rkt" "$in")
rk=$1; rkc=$2
printf "%-40s %8s ms wall %8s ms CPU\n" "sfanalyze --callgraph" "$sf" "$sfc"
printf "%-40s %8s ms wall %8s ms CPU\n" "racket profile/analyzer (process)" "$rk" "$rkc"
if [ -n "${SF_OLD:-}" ]; then
	set -- $(best_ms "$SF_OLD" --callgraph "$in")
	printf "%-40s %8s ms wall %8s ms CPU\n" "older sfanalyze (SF_OLD)" "$1" "$2"
	awk -v a="$1" -v b="$rk" -v c="$2" -v d="$rkc" 'BEGIN {
		printf "%-40s %.1fx (wall; CPU %.1fx)\n", "older sfanalyze", b / a, d / c }'
fi
awk -v a="$sf" -v b="$rk" -v c="$sfc" -v d="$rkc" -v s="$same" 'BEGIN {
	printf "%-40s %.1fx the speed of Racket'"'"'s analyzer (wall; CPU %.1fx) (%s)\n",
	       "sfanalyze --callgraph", b / a, d / c, s }'
