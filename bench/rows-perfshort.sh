# bench/rows-perfshort.sh - issue #30's short stacks, sourced by
# bench/run.sh (uses its gen/row/floor_row, $bin, $top; cwd bench/data).
# A `perf record -g` (frame pointers only, so 1-8 frames an event, kernel
# frames included) of a CPython workload (json, zlib, sort) and of gzip,
# made here at bench time, `perf script` of both repeated to 100 MB
# (perf-short-100.txt; the size does not follow BENCH_MB).  Rows: the
# floors `wc -l` and `cat` on the same file, sfconv -j1 and sfconv on
# every core, then stackcollapse-perf.pl from $FLAMEGRAPH_DIR or PATH
# (no Debian or npm package ships it; bench/perf-collapse.sh says how to
# get it) with its output compared to sfconv's.  Without perf, or where
# perf may not record, the rows are skipped with a line saying so.
py=/usr/bin/python3
if [ ! -s perf-short-100.txt ] && command -v perf >/dev/null 2>&1 &&
   [ -x "$py" ] && command -v gzip >/dev/null 2>&1; then
	perf record -q -g -F 4000 -o perf-short-py.data -- "$py" -c '
import json, zlib
d = [{"k": i, "v": str(i) * 5} for i in range(20000)]
for _ in range(40):
    s = json.dumps(d); zlib.compress(s.encode()); json.loads(s)
    sorted(d, key=lambda x: x["v"])
' >/dev/null 2>&1 &&
	seq 1 4000000 > perf-short-gz.in &&
	perf record -q -g -F 4000 -o perf-short-gz.data -- sh -c 'gzip -6 -c perf-short-gz.in | gzip -dc > /dev/null' >/dev/null 2>&1 &&
	{ perf script -i perf-short-py.data; perf script -i perf-short-gz.data; } > perf-short-one.txt 2>/dev/null &&
	[ -s perf-short-one.txt ] && {
		one=$(wc -c < perf-short-one.txt)
		n=$((100 * 1048576 / one + 1))
		i=0
		while [ $i -lt $n ]; do cat perf-short-one.txt; i=$((i + 1)); done > perf-short-100.tmp
		mv perf-short-100.tmp perf-short-100.txt
	}
	rm -f perf-short-py.data perf-short-gz.data perf-short-gz.in perf-short-one.txt
fi
if [ -s perf-short-100.txt ]; then
	echo "-- perf script, short stacks (issue #30): $(stat -c %s perf-short-100.txt) bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	floor_row "wc -l (perf short)" perf-short-100.txt "wc -l perf-short-100.txt"
	swc=$(cat .floor)
	floor_row "cat > /dev/null (perf short)" perf-short-100.txt "cat perf-short-100.txt"
	row "sfconv -j1 perf (short) -> collapsed" perf-short-100.txt "$swc" "$bin/sfconv -q -j1 --from perf perf-short-100.txt"
	row "sfconv perf (short) -> collapsed" perf-short-100.txt "$swc" "$bin/sfconv -q --from perf perf-short-100.txt"
	scp=
	if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
		scp=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
	elif command -v stackcollapse-perf.pl >/dev/null 2>&1; then
		scp=$(command -v stackcollapse-perf.pl)
	fi
	if [ -n "$scp" ]; then
		sfcpu=$(cat .lastcpu)
		row "stackcollapse-perf.pl (perf short)" perf-short-100.txt "$swc" "perl $scp perf-short-100.txt"
		perl "$scp" perf-short-100.txt > perf-short.pl.out
		"$bin/sfconv" -q --from perf perf-short-100.txt > perf-short.sf.out
		if cmp -s perf-short.pl.out perf-short.sf.out; then same=identical; else same=DIFFERENT; fi
		echo "sfconv (CPU) is $(awk -v a="$(cat .lastcpu)" -v b="$sfcpu" 'BEGIN { printf "%.1fx", a / b }') the Perl's speed; outputs $same"
		rm -f perf-short.pl.out perf-short.sf.out
	else
		echo "stackcollapse-perf.pl (perf short): not measured (set FLAMEGRAPH_DIR)"
	fi
else
	echo "-- perf script, short stacks: skipped (perf cannot record here, or no /usr/bin/python3 or gzip)"
fi
