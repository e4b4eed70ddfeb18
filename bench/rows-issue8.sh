# bench/rows-issue8.sh - the rows of issue #8, sourced by bench/run.sh
# (uses its gen/measure/row/floor_row, $mb, $bin, $top; cwd bench/data).
# Sizes follow BENCH_MB: at 1024 they are the issue's sizes (1 GB inputs,
# 10 million sample lines, 1,000,000 pprof samples); smaller values scale
# them down for a smoke run.

# ---- perf script -> collapsed, 1 GB (and 0.5 GB: no quadratic cost)
perfsrc=${SHARED:-$top/../shared}/fixtures/peers/FlameGraph/example-perf-stacks.txt.gz
perf=perf-$mb.txt
if [ -f "$perfsrc" ]; then
	what="FlameGraph example-perf-stacks repeated"
	# read the fixture in place; repeat it to the size (it ends with
	# the blank line that closes its last record, so copies join cleanly)
	gen perf-one.txt sh -c "gzip -dc '$perfsrc'"
else
	what="generated perf-like records (fixture absent)"
	# perf script records made from collapsed stacks (gen.py, 5,000 unique)
	gen perf-one.txt sh -c "python3 '$top/bench/gen.py' collapsed 4 5000 | awk '{
		n = split(\$1, f, \";\"); printf \"app %d/%d %d.%06d: 1 cycles:\\n\", 100 + NR % 7, 100 + NR % 7, NR, NR % 1000000
		for (i = n; i >= 1; i--) printf \"\\t%x %s (/usr/bin/app)\\n\", 4096 + i * 16, f[i]
		print \"\" }'"
fi
one=$(stat -c %s perf-one.txt)
gen "$perf" sh -c "i=0; while [ \$i -lt $((mb * 1048576 / one + 1)) ]; do cat perf-one.txt; i=\$((i + 1)); done"
gen "perf-half-$mb.txt" sh -c "i=0; while [ \$i -lt $((mb * 524288 / one + 1)) ]; do cat perf-one.txt; i=\$((i + 1)); done"
echo "-- perf script -> collapsed: $what, $(stat -c %s "$perf") bytes"
floor_row "wc -l (perf ${mb} MB)" "$perf" "wc -l $perf"
wc=$(cat .floor)
floor_row "cat > /dev/null" "$perf" "cat $perf"
row "sfconv perf -> collapsed" "$perf" "$wc" "$bin/sfconv -q --from perf $perf"
row "sfconv perf -> collapsed, half size" "perf-half-$mb.txt" "$wc" "$bin/sfconv -q --from perf perf-half-$mb.txt"
# FlameGraph's Perl runs at about 20 MB/s: it is measured on a slice of
# the same records (at most 128 MB, so a run stays under a minute), with
# sfconv on the same slice, and the two outputs must be identical.
scp=
for c in stackcollapse-perf.pl ${FLAMEGRAPH_DIR:+$FLAMEGRAPH_DIR/stackcollapse-perf.pl}; do
	if command -v "$c" >/dev/null 2>&1; then scp=$(command -v "$c"); fi
done
if [ -n "$scp" ]; then
	smb=$((mb < 128 ? mb : 128))
	gen "perf-slice-$smb.txt" sh -c "i=0; while [ \$i -lt $((smb * 1048576 / one + 1)) ]; do cat perf-one.txt; i=\$((i + 1)); done"
	echo "-- FlameGraph $scp on perf-slice-$smb.txt, $(stat -c %s "perf-slice-$smb.txt") bytes"
	row "sfconv perf -> collapsed (slice)" "perf-slice-$smb.txt" 0 "$bin/sfconv -q --from perf perf-slice-$smb.txt"
	t_sf=$(cat .last)
	row "stackcollapse-perf.pl (FlameGraph)" "perf-slice-$smb.txt" 0 "perl $scp perf-slice-$smb.txt"
	t_pl=$(cat .last)
	"$bin/sfconv" -q --from perf "perf-slice-$smb.txt" > .slice-sf.out
	perl "$scp" "perf-slice-$smb.txt" > .slice-pl.out 2>/dev/null
	if cmp -s .slice-sf.out .slice-pl.out; then same="identical output"; else same="OUTPUTS DIFFER"; fi
	awk -v a="$t_sf" -v b="$t_pl" -v s="$same" 'BEGIN { printf "%-40s %.0fx the speed of stackcollapse-perf.pl (%s)\n", "sfconv perf -> collapsed", b / a, s }'
else
	printf "%-40s %s\n" "stackcollapse-perf.pl (FlameGraph)" \
		"not measured: not on PATH (no Debian or npm package; set FLAMEGRAPH_DIR to a FlameGraph checkout)"
fi

# ---- sample lines -> callgraph, 10 million samples (50,000 distinct
# stacks, bench/gen_stacks.c as in bench/callgraph.sh)
n=$((10000000 * mb / 1024))
[ -x gen_stacks ] || cc -O2 -o gen_stacks "$top/bench/gen_stacks.c"
gen "lines-$n.samples.tsv" ./gen_stacks "$n" 2000 60 1 50000
echo "-- sample lines: $n samples, $(stat -c %s "lines-$n.samples.tsv") bytes"
floor_row "wc -l (sample lines)" "lines-$n.samples.tsv" "wc -l lines-$n.samples.tsv"
wc=$(cat .floor)
row "sfanalyze --callgraph (sample lines)" "lines-$n.samples.tsv" "$wc" "$bin/sfanalyze --callgraph lines-$n.samples.tsv"
row "sfconv sample lines -> collapsed" "lines-$n.samples.tsv" "$wc" "$bin/sfconv -q lines-$n.samples.tsv --to collapsed"

# ---- pprof -> collapsed, 1,000,000 distinct samples (bench/pprof.sh's
# generator and file names)
n=$((1000000 * mb / 1024))
[ -s "pprof-$n.pb.gz" ] || BENCH_SAMPLES=$n sh "$top/bench/pprof.sh" > /dev/null
echo "-- pprof: $n samples, $(stat -c %s "pprof-$n.pb.gz") bytes gzip'd"
row "sfconv pprof -> collapsed" "pprof-$n.pb.gz" 0 "$bin/sfconv -q pprof-$n.pb.gz --to collapsed"
row "sfconv collapsed -> pprof" "pprof-$n.folded" 0 "$bin/sfconv -q pprof-$n.folded --to pprof -o /dev/null"

# ---- Sampler trace -> collapsed, 1 GB: bench/sampler.sh's 20,000 stacks
# with their weights scaled so the trace (one record per unit of weight)
# is about BENCH_MB
[ -s sampler-in.folded ] || sh "$top/bench/sampler.sh" > /dev/null
if [ ! -s "sampler-$mb.trace" ]; then
	"$bin/sfconv" -q --from collapsed sampler-in.folded --to sampler -o sampler-probe.trace
	k=$(awk -v s="$(stat -c %s sampler-probe.trace)" -v m="$mb" 'BEGIN { print m * 1048576 / s }')
	awk -v k="$k" '{ w = int($NF * k + 0.5); $NF = w < 1 ? 1 : w; print }' sampler-in.folded > sampler-scaled.folded
	"$bin/sfconv" -q --from collapsed sampler-scaled.folded -o "sampler-$mb.trace.tmp" --to sampler
	mv "sampler-$mb.trace.tmp" "sampler-$mb.trace"
	rm -f sampler-probe.trace sampler-scaled.folded
fi
echo "-- Sampler trace: $(stat -c %s "sampler-$mb.trace") bytes"
floor_row "cat > /dev/null (sampler)" "sampler-$mb.trace" "cat sampler-$mb.trace"
wc=$(cat .floor)
row "sfconv sampler -> collapsed (vs cat)" "sampler-$mb.trace" "$wc" "$bin/sfconv -q sampler-$mb.trace --to collapsed"
