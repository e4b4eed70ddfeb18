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
# skipped).  Rows: best wall time of BENCH_RUNS (default 3) runs, the CPU
# time (user + system) of that run, and the ratio to `wc -l`; then -j1 /
# -j2 (the speed-up of the second core) and the load average when the
# class started, as the machine may be shared.  Needs SIZE_MB free in
# bench/data and, to be fair to every row, in the page cache.  The -j2 output must equal
# -j1's.  stackcollapse-perf.pl ($FLAMEGRAPH_DIR or PATH; no Debian or npm
# package ships it) runs once on the first PERL_MB of each input, its
# output compared with sfconv's on the same slice (FlameGraph at 41fee1f,
# the peer fixtures' commit, which bench/perf-collapse.sh fetches: its
# script weighs each event by the period perf prints before the event
# name, as sfconv does; the 2016 script counts one per event and differs
# wherever `perf script` prints periods); the ratio is per byte,
# the Perl's CPU on the slice against the -j1 row's on the whole input.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
shared=${SHARED:-$top/../shared}
data=$top/bench/data
runs=${BENCH_RUNS:-3}
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

# best wall time ($best) and its CPU time ($cpu) over $runs runs of "$@"
measure() {
	best=; cpu=
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %U %S" -o "$t.time" "$@" > "$t.out" 2>/dev/null ||
			{ echo "perf-jobs: failed: $*" >&2; exit 1; }
		read -r w u s < "$t.time"
		t0=$(date +%s%N)
		"$@" > "$t.out" 2>/dev/null
		t1=$(date +%s%N)
		w=$(awk "BEGIN{printf \"%.3f\", ($t1 - $t0) / 1e9}")
		if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then
			best=$w; cpu=$(awk "BEGIN{print $u + $s}")
		fi
		i=$((i + 1))
	done
}
# name floor-seconds
row() {
	awk -v n="$1" -v t="$best" -v c="$cpu" -v f="$2" 'BEGIN {
		vs = f > 0 ? sprintf("%5.2fx wc -l", t / f) : "floor"
		printf "%-34s %7.3f s  cpu %6.2f s  %s\n", n, t, c, vs }'
}
# one out: `one` repeated to at least $mb MB into out
repeat_to() {
	n=$((mb * 1048576 / $(stat -L -c %s "$1") + 1))
	i=0
	while [ $i -lt $n ]; do cat "$1"; i=$((i + 1)); done > "$2"
}
# class file-of-one-recording
class() {
	f=$data/perf-jobs-$mb.txt
	repeat_to "$2" "$f"
	echo "-- $1: $(stat -c %s "$f") bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	cat "$f" > /dev/null
	measure wc -l "$f"; wc=$best; row "wc -l" 0
	measure cat "$f"; row "cat > /dev/null" 0
	measure "$bin/sfconv" -q -j1 --from perf "$f"; j1=$best; j1cpu=$cpu
	fbytes=$(stat -c %s "$f")
	cp "$t.out" "$t.j1"
	row "sfconv -j1" "$wc"
	measure "$bin/sfconv" -q -j2 --from perf "$f"; j2=$best
	cmp -s "$t.out" "$t.j1" || { echo "perf-jobs: -j2 output differs from -j1" >&2; exit 1; }
	row "sfconv -j2" "$wc"
	awk -v a="$j1" -v b="$j2" 'BEGIN { printf "%-34s %.2fx\n", "-j2 speed-up (-j1 / -j2 wall)", a / b }'
	[ -n "$scp" ] && head -c $((perl_mb * 1048576)) "$f" > "$t.slice"
	rm -f "$f"
	if [ -n "$scp" ]; then
		# cut at the last blank line, so every event is whole
		awk -v RS= -v ORS='\n\n' 'NR > 1 { print prev } { prev = $0 }' "$t.slice" > "$t.whole"
		runs_save=$runs; runs=1
		measure "$bin/sfconv" -q -j1 --from perf "$t.whole"; sf=$cpu
		cp "$t.out" "$t.sf"
		measure perl "$scp" "$t.whole"
		runs=$runs_save
		if cmp -s "$t.out" "$t.sf"; then same=identical; else same=DIFFERENT; fi
		# the ratio per byte, against the -j1 row's CPU on the whole
		# input (the same recording repeated): sfconv's CPU on the slice
		# alone is 0.03-0.1 s, which GNU time gives in 10 ms steps
		awk -v a="$cpu" -v c="$j1cpu" -v fb="$fbytes" -v w="$best" -v s="$(stat -c %s "$t.whole")" -v o="$same" 'BEGIN {
			printf "%-34s %7.3f s  cpu %6.2f s  (%d bytes); sfconv -j1 %.0fx by CPU per byte, outputs %s\n",
				"stackcollapse-perf.pl (slice)", w, a, s, (c > 0 ? (a / s) / (c / fb) : 0), o }'
	fi
}

echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)   ${mb} MB inputs   best of $runs"
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
