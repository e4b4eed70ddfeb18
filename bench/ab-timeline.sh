#!/bin/sh
# bench/ab-timeline.sh OLD_BINDIR NEW_BINDIR [RUNS] - issue #30's timeline
# rows (bench/rows-timeline.sh's input) for two builds on a shared
# machine: CPU time (perf stat task-clock), each command RUNS times
# (default 5) with the two builds alternating, so that load from other
# work falls on both alike; min and median of each, and peak RSS.  The
# floors `wc -l` and `cat` run in the same run.  Needs perf.
set -eu
. "$(dirname "$0")/timeline-lib.sh"
echo "$(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $n runs each"
memnote
for c in "wc -l $f" "cat $f"; do
	i=0; while [ $i -lt "$n" ]; do tc "$c"; i=$((i + 1)); done > .ab
	printf '%-40s %s\n' "$c" "$(minmed < .ab)"
done
for c in "sfconv -q $f --to collapsed" "sfconv -q $f --to pprof" \
	 "sfconv -q $f --to svg" "sfanalyze -q --tree $f" \
	 "sfanalyze -q --flat $f"; do
	: > .ab-old; : > .ab-new
	i=0
	while [ $i -lt "$n" ]; do
		tc "$old/$c" >> .ab-old
		tc "$new/$c" >> .ab-new
		i=$((i + 1))
	done
	printf '%-40s old %s, %s KB | new %s, %s KB\n' "$c" \
		"$(minmed < .ab-old)" "$(rss "$old/$c")" \
		"$(minmed < .ab-new)" "$(rss "$new/$c")"
done
echo "end $(date -u +%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
