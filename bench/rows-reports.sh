# Sourced by bench/run.sh (make bench): the reports of issue #15 on the
# 1 GB perf input (FlameGraph's example-perf-stacks repeated, as
# bench/perf-collapse.sh builds it), each beside sfconv perf -> collapsed
# on the same file, and the rendered call graph beside the same analysis
# written as dot (the difference is layout and rendering).
# Skipped without the shared peer fixture.
rsrc=${SHARED:-$top/../shared}/fixtures/peers/FlameGraph/example-perf-stacks.txt.gz
if [ -f "$rsrc" ]; then
	if [ ! -s perf-$mb.txt ]; then
		gzip -dc "$rsrc" > perf-one.txt && echo >> perf-one.txt
		one=$(wc -c < perf-one.txt)
		n=$((mb * 1048576 / one + 1))
		i=0
		while [ $i -lt $n ]; do cat perf-one.txt; i=$((i + 1)); done > perf-$mb.tmp
		mv perf-$mb.tmp perf-$mb.txt
		rm -f perf-one.txt
	fi
	echo "reports (issue #15), perf script ${mb} MB; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	row "sfconv perf -> collapsed" perf-$mb.txt 0 "$bin/sfconv -q --from perf perf-$mb.txt"
	base=$(cat .last) basecpu=$(cat .lastcpu) ratios=
	for r in tree flat callgraph; do
		row "sfanalyze --$r" perf-$mb.txt "$base" "$bin/sfanalyze -q --from perf --$r perf-$mb.txt"
		ratios="$ratios --$r $(awk -v a="$(cat .lastcpu)" -v b="$basecpu" 'BEGIN { printf "%.2fx", a / b }')"
	done
	row "sfanalyze --callgraph --dot" perf-$mb.txt "$base" "$bin/sfanalyze -q --from perf --callgraph --dot perf-$mb.txt"
	dott=$(cat .last) dotcpu=$(cat .lastcpu)
	row "sfanalyze --callgraph -o graph.svg" perf-$mb.txt "$base" "$bin/sfanalyze -q --from perf --callgraph -o graph.svg perf-$mb.txt"
	echo "(the 'vs' column here is the wall time over sfconv perf -> collapsed's; goal <= 1.5x)"
	echo "CPU time over sfconv perf -> collapsed's:$ratios"
	awk -v a="$(cat .last)" -v b="$dott" -v c="$(cat .lastcpu)" -v d="$dotcpu" 'BEGIN { printf "render beyond the analysis: %.2f s wall (svg %.2f s - dot %.2f s), %.2f s CPU; goal < 2 s\n", a - b, a, b, c - d }'
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
