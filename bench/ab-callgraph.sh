#!/bin/sh
# bench/ab-callgraph.sh OLD_BINDIR NEW_BINDIR [RUNS] [INPUT...] - issue
# #30 goal 4 on a shared machine: `sfanalyze -q --callgraph F` against
# `sfconv -q F --to collapsed`, old and new builds, -j1 and the default
# jobs, all alternating in one loop RUNS times (default 5), so that load
# from other work falls on every command alike.  Per command the median
# wall time and CPU time (user + sys, /usr/bin/time), then the ratio of
# each --callgraph median to collapsed's (new build, default jobs).  The
# rows "graph" are the new build with `--peek '^NOMATCH$'`: the whole
# graph is built and ordered (the walk, the adjacency, the order and the
# lists' sorts) but no node is printed, so they bound what any change to
# the text alone could reach.  The reports go to /dev/null.  Inputs
# default to the timeline document and the three 100 MB perf script
# classes in bench/data.
set -eu
old=$1 new=$2
n=${3:-5}
[ $# -ge 3 ] && shift 3 || shift $#
d=$(dirname "$0")/data
[ $# -gt 0 ] || set -- "$d/timeline-400k.json" "$d/perf-threads-100.txt" \
	"$d/perf-short-100.txt" "$d/perf-dwarf-100.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# median of the lines of a file of numbers
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# one run: wall and CPU seconds appended to $tmp/NAME.w and NAME.c
run() {
	name=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" > /dev/null
	awk '{ print $1 }' "$tmp/t" >> "$tmp/$name.w"
	awk '{ print $2 + $3 }' "$tmp/t" >> "$tmp/$name.c"
}
echo "$(nproc) cores, $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $n runs each"
for f in "$@"; do
	[ -f "$f" ] || { echo "SKIP: $f absent"; continue; }
	rm -f "$tmp"/*.w "$tmp"/*.c
	i=0
	while [ $i -lt "$n" ]; do
		run coll "$new/sfconv" -q "$f" --to collapsed
		run old1 "$old/sfanalyze" -q -j1 --callgraph "$f"
		run new1 "$new/sfanalyze" -q -j1 --callgraph "$f"
		run old "$old/sfanalyze" -q --callgraph "$f"
		run new "$new/sfanalyze" -q --callgraph "$f"
		run graph1 "$new/sfanalyze" -q -j1 --callgraph --peek '^NOMATCH$' "$f"
		run graph "$new/sfanalyze" -q --callgraph --peek '^NOMATCH$' "$f"
		i=$((i + 1))
	done
	cw=$(med "$tmp/coll.w") cc=$(med "$tmp/coll.c")
	echo "$(basename "$f"): collapsed wall $cw s, cpu $cc s"
	for k in old1 new1 old new graph1 graph; do
		w=$(med "$tmp/$k.w") c=$(med "$tmp/$k.c")
		printf '  --callgraph %-6s wall %5s s (%.2fx)  cpu %5s s (%.2fx)\n' \
			"$k" "$w" "$(echo "$w / $cw" | bc -l)" \
			"$c" "$(echo "$c / $cc" | bc -l)"
	done
done
echo "end $(date -u +%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
