#!/bin/sh
# perf script -> collapsed: sfconv against its floor (wc -l) and its peer
# (FlameGraph's stackcollapse-perf.pl), all in one run, best of
# BENCH_RUNS (default 3) runs each.
#
#   sh bench/perf-collapse.sh [SIZE_MB...]     (default: 100 1024)
#
# Inputs: FlameGraph's example-perf-stacks (the shared peer fixtures)
# repeated to each size, made in a temporary directory under /tmp and
# deleted at the end (the 1 GB one as soon as its rows are done).  Rows per
# size: `wc -l` (the floor), sfconv on every core (the default), sfconv -j 1,
# and on the first size also sfconv on the gzip'd input (read on one
# thread) and stackcollapse-perf.pl, whose output must equal sfconv's.
#
# stackcollapse-perf.pl: no Debian or npm package ships it, and it is never
# kept in the repository.  It is taken from $FLAMEGRAPH_DIR, else from PATH,
# else fetched at run time with git (FlameGraph at the commit the peer
# fixtures came from, FG_COMMIT) into the temporary directory; without
# network access its rows say "not measured".
#
# Columns: best wall time (to the millisecond, from a run without GNU
# time; it includes starting the process), MB/s of that, CPU time (user +
# system, from GNU time) of that
# run, peak RSS, and the time relative to wc -l on the same file.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
shared=${SHARED:-$top/../shared}
src=$shared/fixtures/peers/FlameGraph/example-perf-stacks.txt.gz
runs=${BENCH_RUNS:-3}
fg_url=${FG_URL:-https://github.com/brendangregg/FlameGraph}
fg_commit=${FG_COMMIT:-41fee1f99f9276008b7cd112fca19dc3ea84ac32}
[ $# -gt 0 ] || set -- 100 1024
[ -f "$src" ] || { echo "perf-collapse: $src missing" >&2; exit 0; }
tmp=$(mktemp -d /tmp/sf-perf-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# best wall time, its CPU time and peak RSS (KB) over $runs runs of "$@"
measure() {
	best=; cpu=; rss=
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" > "$tmp/out" 2>/dev/null ||
			{ echo "perf-collapse: failed: $*" >&2; exit 1; }
		read -r t u s m < "$tmp/t"
		# the wall time to the millisecond, from a run of its own
		# without GNU time (whose %e has 10 ms steps: 0.02 against
		# 0.04 s could be 1.5x or 2.5x)
		t0=$(date +%s%N)
		"$@" > "$tmp/out" 2>/dev/null
		t1=$(date +%s%N)
		t=$(awk "BEGIN{printf \"%.3f\", ($t1 - $t0) / 1e9}")
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
			best=$t; rss=$m; cpu=$(awk "BEGIN{print $u + $s}")
		fi
		i=$((i + 1))
	done
}

# name file floor-seconds: print the row of the last measure
row() {
	awk -v n="$1" -v t="$best" -v c="$cpu" -v r="$rss" -v s="$(stat -c %s "$2")" -v f="$3" 'BEGIN {
		mbs = t > 0 ? s / 1048576 / t : 0
		vs = f > 0 ? sprintf("%.2fx wc -l", t / f) : "floor"
		printf "%-38s %7.3f s %7.0f MB/s %7.2f s cpu %7.1f MB  %s\n", n, t, mbs, c, r / 1024, vs }'
}

# stackcollapse-perf.pl: FLAMEGRAPH_DIR, PATH, or fetched now
scp=
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
	scp=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
elif command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	scp=$(command -v stackcollapse-perf.pl)
elif command -v git >/dev/null 2>&1 &&
     git init -q "$tmp/fg" &&
     timeout 120 git -C "$tmp/fg" fetch -q --depth 1 "$fg_url" "$fg_commit" 2>/dev/null &&
     git -C "$tmp/fg" -c advice.detachedHead=false checkout -q FETCH_HEAD 2>/dev/null; then
	scp=$tmp/fg/stackcollapse-perf.pl
	echo "stackcollapse-perf.pl: fetched FlameGraph $fg_commit"
fi
[ -z "$scp" ] || command -v perl >/dev/null 2>&1 || scp=

echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)   load average: $(cut -d' ' -f1-3 /proc/loadavg)   best of $runs"
gzip -dc "$src" > "$tmp/one.txt"
one=$(stat -c %s "$tmp/one.txt")
first=1
for mb in "$@"; do
	f=$tmp/perf-$mb.txt
	n=$((mb * 1048576 / one + 1))
	i=0
	while [ $i -lt $n ]; do cat "$tmp/one.txt"; i=$((i + 1)); done > "$f"
	echo "-- $mb MB: example-perf-stacks x $n, $(stat -c %s "$f") bytes"
	sync "$f"   # written back before the timed runs (perf-jobs.sh says why)
	cat "$f" > /dev/null   # the page cache, for every row alike
	measure wc -l "$f"
	wc=$best
	row "wc -l" "$f" 0
	measure "$bin/sfconv" -q --from perf "$f"
	t_sf=$best
	cp "$tmp/out" "$tmp/sf.out"
	row "sfconv perf -> collapsed (-j $(nproc))" "$f" "$wc"
	measure "$bin/sfconv" -q -j 1 --from perf "$f"
	cmp -s "$tmp/out" "$tmp/sf.out" || { echo "perf-collapse: -j 1 output differs" >&2; exit 1; }
	row "sfconv perf -> collapsed (-j 1)" "$f" "$wc"
	if [ $first = 1 ]; then
		gzip -1 -c "$f" > "$f.gz"
		measure "$bin/sfconv" -q --from perf "$f.gz"
		cmp -s "$tmp/out" "$tmp/sf.out" || { echo "perf-collapse: gzip output differs" >&2; exit 1; }
		row "sfconv perf.gz -> collapsed" "$f" "$wc"
		rm -f "$f.gz"
		if [ -n "$scp" ]; then
			measure perl "$scp" "$f"
			row "stackcollapse-perf.pl" "$f" "$wc"
			if cmp -s "$tmp/out" "$tmp/sf.out"; then same="identical output"
			else same="OUTPUTS DIFFER"; fi
			awk -v a="$t_sf" -v b="$best" -v s="$same" 'BEGIN {
				printf "%-38s %.0fx the speed of stackcollapse-perf.pl (%s)\n", "sfconv", b / a, s }'
		else
			printf "%-38s %s\n" "stackcollapse-perf.pl" \
				"not measured: not in FLAMEGRAPH_DIR or PATH, and fetching it failed"
		fi
	fi
	first=0
	rm -f "$f"
done
