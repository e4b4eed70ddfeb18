# bench/rows-timeline.sh - issue #30's timeline document, sourced by
# bench/run.sh (uses its gen/row/floor_row, $bin, $top; cwd bench/data):
# 400,000 samples in sfcapture's shape, each its own stack of 3-25 frames
# (bench/gen_timeline.c, 77.5 MB of native JSON, 4.16 million stack
# nodes; the size does not follow BENCH_MB).  Rows: the floors `wc -l`
# and `cat` on the same file, then sfconv to collapsed, pprof and svg and
# sfanalyze --tree, --flat, --callgraph; the last column of each row is
# its time over `wc -l`'s, and the CPU time over sfconv -> collapsed's is
# printed after (issue #30: the reports within 1.5x).
[ -x gen_timeline ] || cc -O2 -o gen_timeline "$top/bench/gen_timeline.c"
gen timeline-400k.json ./gen_timeline 400000 3 25 1
echo "-- timeline (issue #30): 400000 samples, $(stat -c %s timeline-400k.json) bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
floor_row "wc -l (timeline 400k)" timeline-400k.json "wc -l timeline-400k.json"
twc=$(cat .floor)
floor_row "cat > /dev/null (timeline 400k)" timeline-400k.json "cat timeline-400k.json"
row "sfconv timeline -> collapsed" timeline-400k.json "$twc" "$bin/sfconv -q timeline-400k.json --to collapsed"
tcpu=$(cat .lastcpu) tratios=
row "sfconv timeline -> pprof" timeline-400k.json "$twc" "$bin/sfconv -q timeline-400k.json --to pprof"
row "sfconv timeline -> svg" timeline-400k.json "$twc" "$bin/sfconv -q timeline-400k.json --to svg"
for r in tree flat callgraph; do
	row "sfanalyze --$r (timeline)" timeline-400k.json "$twc" "$bin/sfanalyze -q --$r timeline-400k.json"
	tratios="$tratios --$r $(awk -v a="$(cat .lastcpu)" -v b="$tcpu" 'BEGIN { printf "%.2fx", a / b }')"
done
echo "CPU time over sfconv timeline -> collapsed's:$tratios"
