#!/bin/sh
# make bench: generate inputs deterministically under bench/data (not in
# git), then measure each row side by side with the hardware floor on the
# same file (wc -l, cat > /dev/null) in the same run.  Prints one table.
#
# BENCH_MB=1024 sets the size of the large inputs (default 1 GB).
# Each figure is the best of BENCH_RUNS runs (default 3); peak RSS is from
# /usr/bin/time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
data=$top/bench/data
mb=${BENCH_MB:-1024}
runs=${BENCH_RUNS:-3}
mkdir -p "$data"
cd "$data"

gen() { # file command...
	f=$1; shift
	if [ ! -s "$f" ]; then "$@" > "$f.tmp" && mv "$f.tmp" "$f"; fi
}

# best wall time (s), its peak RSS (KB) and its CPU time (user + system,
# s) over $runs runs of "$@"
measure() {
	best=; rss=; cpu=
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %M %U %S" -o .t sh -c "$*" >/dev/null 2>.err || {
			echo "bench: failed: $*" >&2; cat .err >&2; exit 1; }
		read t m u k < .t
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
			best=$t; rss=$m; cpu=$(awk "BEGIN{print $u + $k}")
		fi
		i=$((i + 1))
	done
	echo "$best $rss $cpu"
}

row() { # name input-file floor-seconds command...
	name=$1; file=$2; floor=$3; shift 3
	set -- $(measure "$@")
	t=$1; rss=$2; cpu=$3
	echo "$t" > .last
	echo "$cpu" > .lastcpu
	size=$(stat -c %s "$file")
	awk -v n="$name" -v t="$t" -v s="$size" -v r="$rss" -v f="$floor" -v c="$cpu" 'BEGIN {
		mbs = t > 0 ? s / 1048576 / t : 0
		printf "%-40s %8.2f s %9.0f MB/s %8.1f MB %7.1fx %9.0f MB/s\n", n, t, mbs, r / 1024, (f > 0 ? t / f : 0), (c > 0 ? s / 1048576 / c : 0) }'
}

floor_row() { # name file command
	set -- "$1" "$2" $(measure "$3")
	awk -v n="$1" -v t="$3" -v s="$(stat -c %s "$2")" -v r="$4" -v c="$5" 'BEGIN {
		printf "%-40s %8.2f s %9.0f MB/s %8.1f MB %7s %9.0f MB/s\n", n, t, s / 1048576 / t, r / 1024, "floor", (c > 0 ? s / 1048576 / c : 0) }'
	echo "$3" > .floor
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)   BENCH_MB=$mb   best of $runs runs"
printf "%-40s %10s %14s %11s %8s %14s\n" "row" "time" "throughput" "peak RSS" "vs wc -l" "CPU MB/s"
echo "(time: best wall time; CPU MB/s: input size / (user + system) of that run, the single-core rate)"

# BENCH_ONLY=NAME runs only bench/rows-NAME.sh (the rows of one issue)
if [ -z "${BENCH_ONLY:-}" ]; then
# collapsed, 1 GB, from 20,000 unique stacks
gen collapsed-$mb.folded python3 "$top/bench/gen.py" collapsed "$mb" 20000
floor_row "wc -l (collapsed ${mb} MB)" collapsed-$mb.folded "wc -l collapsed-$mb.folded"
wc=$(cat .floor)
floor_row "cat > /dev/null" collapsed-$mb.folded "cat collapsed-$mb.folded"
row "sfconv collapsed -> collapsed" collapsed-$mb.folded "$wc" "$bin/sfconv collapsed-$mb.folded"
row "sfconv collapsed -> json (aggregated)" collapsed-$mb.folded "$wc" "$bin/sfconv collapsed-$mb.folded --to json"
"$bin/sfconv" collapsed-$mb.folded --to json > collapsed-$mb.json
row "sfconv json -> collapsed" collapsed-$mb.json 0 "$bin/sfconv collapsed-$mb.json"

# half the input: doubling the input must double the time
head -c $((mb * 524288)) collapsed-$mb.folded | sed '$d' > half-$mb.folded
row "sfconv collapsed -> collapsed, half size" half-$mb.folded "$wc" "$bin/sfconv half-$mb.folded"
fi

for extra in "$top"/bench/rows-${BENCH_ONLY:-*}.sh; do
	[ -f "$extra" ] && . "$extra"
done
