# bench/timeline-lib.sh - what the timeline benches share, sourced by a
# script called as `SCRIPT OLD_BINDIR NEW_BINDIR [RUNS]`: $old, $new, $n
# (RUNS, default 5) and $top (the top of the tree); issue #30's
# 400,000-sample timeline made once in bench/data/ (the current directory
# afterwards) as $f; and the measures: tc CMD (task-clock of one run,
# ms), minmed (min and median of the numbers on stdin), rss CMD (peak
# RSS, KB), memnote (a line on how fresh memory costs on this machine).
#
# BENCH_GAP=S sleeps S seconds before each measured run.  On a VM whose
# balloon reports free pages to its host (virtio-balloon's REPORTING
# feature; Linux reports free 2 MiB blocks about 2 s after they are
# freed), a run that starts within a second of the one before gets the
# huge pages that run freed, still backed by the host; after a gap of 3 s
# or more it gets pages the host must fault in again, and every row
# loads more slowly (docs/PERFORMANCE.md, session 21).  Back to back
# (the default) measures the warm case, BENCH_GAP=3 the cold one.
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
	[ "${BENCH_GAP:-0}" = 0 ] || sleep "$BENCH_GAP"
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
# Is free page reporting on (virtio-balloon feature bit 5)?
memnote() {
	rep=off
	for fe in /sys/bus/virtio/drivers/virtio_balloon/virtio*/features; do
		[ -r "$fe" ] && [ "$(cut -c6 "$fe")" = 1 ] && rep=on
	done
	echo "free page reporting to a host: $rep; ${BENCH_GAP:-0} s idle before each run"
}
