# bench/timeline-lib.sh - what the timeline benches share, sourced by a
# script called as `SCRIPT OLD_BINDIR NEW_BINDIR [RUNS]`: $old, $new, $n
# (RUNS, default 5) and $top (the top of the tree); issue #30's
# 400,000-sample timeline made once in bench/data/ (the current directory
# afterwards) as $f; and the measures: tc CMD (task-clock of one run,
# ms), minmed (min and median of the numbers on stdin), rss CMD (peak
# RSS, KB).
usage="usage: ${0##*/} OLD_BINDIR NEW_BINDIR [RUNS]"
old=$(cd "${1:?$usage}" && pwd)
new=$(cd "${2:?$usage}" && pwd)
n=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$top/bench/data"
cd "$top/bench/data"
[ -x gen_timeline ] || cc -O2 -o gen_timeline "$top/bench/gen_timeline.c"
f=timeline-400k.json
[ -s $f ] || { ./gen_timeline 400000 3 25 1 > $f.tmp && mv $f.tmp $f; }

# task-clock of one run of "$1", in ms
tc() {
	perf stat -x, -e task-clock sh -c "$1 > /dev/null" 2>&1 >/dev/null |
		awk -F, '/task-clock/ { printf "%.0f\n", $1 }'
}
# min and median of the numbers on stdin
minmed() {
	sort -n | awk '{ v[NR] = $1 } END {
		printf "min %6d med %6d ms", v[1], v[int((NR + 1) / 2)] }'
}
rss() {
	/usr/bin/time -f %M sh -c "$1 > /dev/null" 2>&1 >/dev/null | tail -n 1
}
