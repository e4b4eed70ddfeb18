#!/bin/sh
# bench/cg-floor.sh BINDIR [RUNS] [INPUT] - issue #30 goal 4: the floor
# of `sfanalyze --callgraph`'s text report.  Makes the report of INPUT
# (default the timeline document) once with BINDIR/sfanalyze -j1, then,
# RUNS times (default 5) in turn: `cat` of it to /dev/null (reading the
# page cache), and bench/cg_floor.c's three ways of writing its lines
# again to /dev/null (copy, digits, printf: see that file), each with
# its CPU time; and the whole `sfanalyze -q --callgraph` to /dev/null at
# -j1, user and system time.  The medians are what to compare: what the
# output's size costs at the least, against what sfanalyze takes.
set -eu
bin=$1
n=${2:-5}
f=${3:-$(dirname "$0")/data/timeline-400k.json}
[ -f "$f" ] || { echo "SKIP: $f absent"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/cg_floor" "$(dirname "$0")/cg_floor.c"
"$bin/sfanalyze" -q -j1 --callgraph "$f" > "$tmp/report"
for m in digits printf; do
	"$tmp/cg_floor" "$tmp/report" $m 2> /dev/null | cmp -s - "$tmp/report" ||
		{ echo "cg_floor $m: not the report's bytes"; exit 1; }
done
echo "$(nproc) cores, $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $n runs each"
echo "report: $(wc -c < "$tmp/report") bytes, $(wc -l < "$tmp/report") lines"
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
i=0
while [ $i -lt "$n" ]; do
	/usr/bin/time -f '%U %S' -o "$tmp/t" cat "$tmp/report" > /dev/null
	awk '{ print ($1 + $2) * 1000 }' "$tmp/t" >> "$tmp/cat"
	for m in copy digits printf; do
		"$tmp/cg_floor" "$tmp/report" $m 2>&1 > /dev/null |
			sed 's/.*, \([0-9]*\) ms CPU.*/\1/' >> "$tmp/$m"
	done
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$bin/sfanalyze" -q -j1 \
		--callgraph "$f" > /dev/null
	awk '{ print $1 * 1000, $2 * 1000 }' "$tmp/t" >> "$tmp/sfa"
	i=$((i + 1))
done
lines=$(wc -l < "$tmp/report")
bytes=$(wc -c < "$tmp/report")
for k in cat copy digits printf; do
	ms=$(med < "$tmp/$k")
	printf '%-7s median %5s ms CPU  %6.1f ns a line  %6.0f MB/s\n' "$k" \
		"$ms" "$(echo "$ms * 1000000 / $lines" | bc -l)" \
		"$(echo "$bytes / 1000 / ($ms + 0.001)" | bc -l)"
done
echo "sfanalyze -j1: median user $(awk '{ print $1 }' "$tmp/sfa" | med) ms, sys $(awk '{ print $2 }' "$tmp/sfa" | med) ms"
echo "end $(date -u +%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
