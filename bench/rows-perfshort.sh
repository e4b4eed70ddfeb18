# bench/rows-perfshort.sh - issue #30's perf script inputs, sourced by
# bench/run.sh (uses its gen/row/floor_row, $bin, $top; cwd bench/data),
# recorded here at bench time and repeated to 100 MB (the size does not
# follow BENCH_MB):
#   perf-short-100.txt  `perf record -g` (frame pointers only, so 1-8
#                       frames an event, mostly 1-2, kernel frames) of a
#                       CPython workload (json, zlib, sort) and of gzip
#   perf-dwarf-100.txt  `perf record --call-graph dwarf` of the CPython
#                       workload on 4 threads (9-31 frames an event)
#   perf-threads-100.txt  `perf record -g` of the CPython workload on 64
#                       threads (65 thread ids)
# Rows per input: the floors `wc -l` and `cat` on the same file, sfconv
# -j1 and sfconv on every core, then stackcollapse-perf.pl from
# $FLAMEGRAPH_DIR or PATH (no Debian or npm package ships it;
# bench/perf-collapse.sh says how to get it) with its output compared to
# sfconv's.  Without perf, or where perf may not record, the rows are
# skipped with a line saying so.
py=/usr/bin/python3
# one out: `one` (non-empty) repeated to at least 100 MB into `out`
repeat_to_100() {
	[ -s "$1" ] || return 1
	n=$((100 * 1048576 / $(wc -c < "$1") + 1))
	i=0
	while [ $i -lt $n ]; do cat "$1"; i=$((i + 1)); done > "$2.tmp"
	mv "$2.tmp" "$2"
}
# the CPython workload: THREADS threads, each LOOPS rounds over N records
py_work='
import json, os, zlib, threading
n, loops = int(os.environ["N"]), int(os.environ["LOOPS"])
def work():
    d = [{"k": i, "v": str(i) * 5} for i in range(n)]
    for _ in range(loops):
        s = json.dumps(d); zlib.compress(s.encode()); json.loads(s)
        sorted(d, key=lambda x: x["v"])
ts = [threading.Thread(target=work) for _ in range(int(os.environ["THREADS"]))]
[t.start() for t in ts]; [t.join() for t in ts]
'
# out threads n loops perf-record-options...: record the workload, its
# perf script repeated to 100 MB into out
py_record() {
	out=$1; shift
	[ -s "$out" ] && return 0
	command -v perf >/dev/null 2>&1 && [ -x "$py" ] || return 0
	THREADS=$1 N=$2 LOOPS=$3; shift 3
	THREADS=$THREADS N=$N LOOPS=$LOOPS perf record -q "$@" -o "$out.data" -- "$py" -c "$py_work" >/dev/null 2>&1 &&
	perf script -i "$out.data" > "$out.one" 2>/dev/null &&
	repeat_to_100 "$out.one" "$out"
	rm -f "$out.data" "$out.one"
}
if [ ! -s perf-short-100.txt ] && command -v perf >/dev/null 2>&1 &&
   [ -x "$py" ] && command -v gzip >/dev/null 2>&1; then
	seq 1 4000000 > perf-short-gz.in &&
	THREADS=1 N=20000 LOOPS=40 perf record -q -g -F 4000 -o perf-short-py.data -- "$py" -c "$py_work" >/dev/null 2>&1 &&
	perf record -q -g -F 4000 -o perf-short-gz.data -- sh -c 'gzip -6 -c perf-short-gz.in | gzip -dc > /dev/null' >/dev/null 2>&1 &&
	{ perf script -i perf-short-py.data; perf script -i perf-short-gz.data; } > perf-short-one.txt 2>/dev/null &&
	repeat_to_100 perf-short-one.txt perf-short-100.txt
	rm -f perf-short-py.data perf-short-gz.data perf-short-gz.in perf-short-one.txt
fi
py_record perf-dwarf-100.txt 4 20000 6 --call-graph dwarf,16384 -F 500
py_record perf-threads-100.txt 64 3000 10 -g -F 2000
scp=
if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
	scp=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
elif command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	scp=$(command -v stackcollapse-perf.pl)
fi
# name file: the rows of one input
perf_rows() {
	if [ ! -s "$2" ]; then
		echo "-- perf script, $1: skipped (perf cannot record here, or no /usr/bin/python3 or gzip)"
		return
	fi
	echo "-- perf script, $1 (issue #30): $(stat -c %s "$2") bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	floor_row "wc -l (perf $1)" "$2" "wc -l $2"
	swc=$(cat .floor)
	floor_row "cat > /dev/null (perf $1)" "$2" "cat $2"
	row "sfconv -j1 perf ($1) -> collapsed" "$2" "$swc" "$bin/sfconv -q -j1 --from perf $2"
	row "sfconv perf ($1) -> collapsed" "$2" "$swc" "$bin/sfconv -q --from perf $2"
	if [ -n "$scp" ]; then
		sfcpu=$(cat .lastcpu)
		row "stackcollapse-perf.pl (perf $1)" "$2" "$swc" "perl $scp $2"
		perl "$scp" "$2" > perf-rows.pl.out
		"$bin/sfconv" -q --from perf "$2" > perf-rows.sf.out
		if cmp -s perf-rows.pl.out perf-rows.sf.out; then same=identical; else same=DIFFERENT; fi
		echo "sfconv (CPU) is $(awk -v a="$(cat .lastcpu)" -v b="$sfcpu" 'BEGIN { printf "%.1fx", a / b }') the Perl's speed; outputs $same"
		rm -f perf-rows.pl.out perf-rows.sf.out
	else
		echo "stackcollapse-perf.pl (perf $1): not measured (set FLAMEGRAPH_DIR)"
	fi
}
perf_rows "short stacks" perf-short-100.txt
perf_rows "dwarf" perf-dwarf-100.txt
perf_rows "64 threads" perf-threads-100.txt
