#!/bin/sh
# perf script -> collapsed on each input class of issue #30, -j1 against
# -j2, next to the floors (`wc -l`, `cat > /dev/null`) on the same file in
# the same run, and stackcollapse-perf.pl on a slice:
#
#   sh bench/perf-jobs.sh [SIZE_MB [PERL_MB]]     (default: 1024 100)
#
# Inputs, each repeated to SIZE_MB under bench/data/ (deleted after its
# rows): "deep", FlameGraph's example-perf-stacks (the shared peer
# fixtures); "short", "dwarf" and "64 threads", the recordings
# bench/rows-perfshort.sh makes (bench/data/perf-{short,dwarf,threads}-100.txt;
# run `BENCH_ONLY=perfshort sh bench/run.sh` first, else those classes are
# skipped).  Each command runs BENCH_RUNS times (default 5); -j1 and -j2
# alternate in one loop, so a change of the machine's load in the middle
# falls on both.  A row gives the wall time's minimum and median over the
# runs, the CPU time (user + system, GNU time's 10 ms steps) of the
# median run, and the minimum's ratio to `wc -l`'s minimum; then the -j2
# speed-up three ways: -j1 / -j2 of the minima, of the medians, and the
# median of each round's -j1 / -j2 (the two runs next to each other), and
# the load average when the class started and ended, as this host's
# second core is often busy with something else.  Needs SIZE_MB free in
# bench/data and, to be fair to every row, in the page cache.  Every -j2
# output must equal -j1's.  stackcollapse-perf.pl ($FLAMEGRAPH_DIR or
# PATH; no Debian or npm package ships it) runs once on the first PERL_MB
# of each input, its output compared with sfconv's on the same slice
# (FlameGraph at 41fee1f, the peer fixtures' commit, which
# bench/perf-collapse.sh fetches: its script weighs each event by the
# period perf prints before the event name, as sfconv does; the 2016
# script counts one per event and differs wherever `perf script` prints
# periods); the ratio is per byte, the Perl's CPU on the slice against
# the -j1 row's median CPU on the whole input.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
shared=${SHARED:-$top/../shared}
data=$top/bench/data
runs=${BENCH_RUNS:-5}
mb=${1:-1024}
perl_mb=${2:-100}
mkdir -p "$data"
scp=
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
	scp=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
elif command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	scp=$(command -v stackcollapse-perf.pl)
fi
t=$data/.perf-jobs
trap 'rm -f "$t".*' EXIT INT TERM

# one run of "$@", its output in $t.out: $wall (seconds, by the clock
# around it) and $cpu (user + system, by GNU time)
once() {
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S" -o "$t.time" "$@" > "$t.out" 2>/dev/null ||
		{ echo "perf-jobs: failed: $*" >&2; exit 1; }
	t1=$(date +%s%N)
	read -r u s < "$t.time"
	wall=$(awk "BEGIN{printf \"%.3f\", ($t1 - $t0) / 1e9}")
	cpu=$(awk "BEGIN{print $u + $s}")
}
# the runs of one command: walls and CPU times, one "wall cpu" a line,
# in $t.r.NAME
record() {
	once "$@"
	echo "$wall $cpu" >> "$t.r.$name"
}
# NAME: $min and $med of the walls in $t.r.NAME, $cpu of the median run
# (the lower one of an even count)
summary() {
	set -- $(sort -n "$t.r.$1" | awk '{ w[NR] = $1; c[NR] = $2 }
		END { m = int((NR + 1) / 2)
		      med = NR % 2 ? w[m] : (w[m] + w[m + 1]) / 2
		      printf "%.3f %.3f %s", w[1], med, c[m] }')
	min=$1; med=$2; cpu=$3
}
# NAME: $runs runs of "$@" alone (the floors, the Perl)
measure() {
	name=$1; shift
	: > "$t.r.$name"
	i=0
	while [ $i -lt "$runs" ]; do record "$@"; i=$((i + 1)); done
	summary "$name"
}
# label floor-seconds (0: the row is a floor)
row() {
	awk -v n="$1" -v t="$min" -v m="$med" -v c="$cpu" -v f="$2" 'BEGIN {
		vs = f > 0 ? sprintf("%5.2fx wc -l", t / f) : "floor"
		printf "%-24s min %7.3f s  median %7.3f s  cpu %6.2f s  %s\n", n, t, m, c, vs }'
}
# one out: `one` repeated to at least $mb MB into out
repeat_to() {
	n=$((mb * 1048576 / $(stat -L -c %s "$1") + 1))
	i=0
	while [ $i -lt $n ]; do cat "$1"; i=$((i + 1)); done > "$2"
	# written back now: else the kernel's flusher writes the 1 GB out
	# about 30 s later, on one of the two cores, in the middle of the
	# timed runs (runs of either build then took up to 1.6 s for 0.9)
	sync "$2"
}
# class file-of-one-recording
class() {
	f=$data/perf-jobs-$mb.txt
	repeat_to "$2" "$f"
	echo "-- $1: $(stat -c %s "$f") bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	cat "$f" > /dev/null
	measure wc wc -l "$f"; wc=$min; row "wc -l" 0
	measure cat cat "$f"; row "cat > /dev/null" 0
	fbytes=$(stat -c %s "$f")
	: > "$t.r.j1"; : > "$t.r.j2"
	i=0
	while [ $i -lt "$runs" ]; do
		name=j1; record "$bin/sfconv" -q -j1 --from perf "$f"
		[ $i -eq 0 ] && cp "$t.out" "$t.j1"
		name=j2; record "$bin/sfconv" -q -j2 --from perf "$f"
		cmp -s "$t.out" "$t.j1" || { echo "perf-jobs: -j2 output differs from -j1" >&2; exit 1; }
		i=$((i + 1))
	done
	summary j1; j1=$min; j1m=$med; j1cpu=$cpu
	row "sfconv -j1" "$wc"
	summary j2; j2=$min; j2m=$med
	row "sfconv -j2" "$wc"
	# each round's -j1 / -j2, their median
	r=$(paste "$t.r.j1" "$t.r.j2" | awk '{ print $1 / $3 }' | sort -n |
		awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2)
			print NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }')
	awk -v a="$j1" -v b="$j2" -v am="$j1m" -v bm="$j2m" -v r="$r" \
	    -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
		printf "%-24s %.2fx of the minima, %.2fx of the medians, %.2fx median of the rounds; load average at the end: %s\n",
			"-j2 speed-up", a / b, am / bm, r, l }'
	[ -n "$scp" ] && head -c $((perl_mb * 1048576)) "$f" > "$t.slice"
	rm -f "$f"
	if [ -n "$scp" ]; then
		# cut at the last blank line, so every event is whole
		awk -v RS= -v ORS='\n\n' 'NR > 1 { print prev } { prev = $0 }' "$t.slice" > "$t.whole"
		runs_save=$runs; runs=1
		measure slice "$bin/sfconv" -q -j1 --from perf "$t.whole"
		cp "$t.out" "$t.sf"
		measure perl perl "$scp" "$t.whole"
		runs=$runs_save
		if cmp -s "$t.out" "$t.sf"; then same=identical; else same=DIFFERENT; fi
		# the ratio per byte, against the -j1 row's CPU on the whole
		# input (the same recording repeated): sfconv's CPU on the slice
		# alone is 0.03-0.1 s, which GNU time gives in 10 ms steps
		awk -v a="$cpu" -v c="$j1cpu" -v fb="$fbytes" -v w="$min" -v s="$(stat -c %s "$t.whole")" -v o="$same" 'BEGIN {
			printf "%-24s min %7.3f s  cpu %6.2f s  (%d bytes); sfconv -j1 %.0fx by CPU per byte, outputs %s\n",
				"stackcollapse-perf.pl (slice)", w, a, s, (c > 0 ? (a / s) / (c / fb) : 0), o }'
	fi
}

echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)   ${mb} MB inputs   $runs runs each, -j1 and -j2 alternating"
deep=$shared/fixtures/peers/FlameGraph/example-perf-stacks.txt.gz
if [ -f "$deep" ]; then
	gzip -dc "$deep" > "$t.deep"
	class "deep stacks (FlameGraph example)" "$t.deep"
else
	echo "-- deep stacks: skipped ($deep missing)"
fi
for c in short:"short stacks" dwarf:"dwarf" threads:"64 threads"; do
	one=$data/perf-${c%%:*}-100.txt
	if [ -s "$one" ]; then
		class "${c#*:}" "$one"
	else
		echo "-- ${c#*:}: skipped ($one missing: BENCH_ONLY=perfshort sh bench/run.sh makes it)"
	fi
done
