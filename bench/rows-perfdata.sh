# bench/rows-perfdata.sh - sourced by bench/run.sh (make bench; uses its
# measure/row/floor_row, $bin; cwd bench/data): perf.data -> collapsed read directly (fmt_perfdata.c) against `perf script` alone
# and `perf script | sfconv --from perf` on the same file.
#
# The input is recorded once into bench/data/perfdata.data (not in git):
# `perf record -g -F PERFDATA_HZ` (default 20000) of a C program built
# with frame pointers, gzip and python3, about PERFDATA_SECS seconds
# (default 8); and the same workload once more into bench/data/
# pd_dwarf.data with `perf record --call-graph dwarf -F PERFDATA_DWARF_HZ`
# (default 4000: each sample carries an 8 KB stack copy, about 160 MB).
# Without perf, or where perf may not record, the rows say so.  Peak
# RSS of the pipeline row is its largest process (GNU time's children
# maximum), not the sum.  The collapsed outputs of the direct
# read and of the pipeline must be identical; the row says if not.
echo
echo "-- perf.data -> collapsed: sfconv reading perf.data vs perf script"
pd_hz=${PERFDATA_HZ:-20000}
pd_dwarf_hz=${PERFDATA_DWARF_HZ:-4000}
pd_secs=${PERFDATA_SECS:-8}
# pd_record FILE PERF-RECORD-OPTIONS...: the workload, recorded into FILE
pd_record() {
	f=$1; shift
	perf record -q "$@" -o "$f.tmp" -- sh -c "
		timeout $((pd_secs / 3 + 1)) ./pd_prog 100000000
		timeout $((pd_secs / 3 + 1)) gzip -9 < pd_random > /dev/null
		timeout $((pd_secs / 3 + 1)) python3 -c 'import json
while True: json.dumps([{\"a\": i} for i in range(1000)])'
		true" > /dev/null 2>&1 && mv "$f.tmp" "$f"
}
# pd_rows LABEL FILE PREFIX: the rows of one recording.  perf script
# runs addr2line in a child it does not wait for, so GNU time's CPU
# column leaves that out: the last line is perf stat's task-clock, which
# counts every process (one run each).
pd_rows() {
	lb=$1; f=$2; o=$3
	perf script -i "$f" 2>/dev/null | "$bin/sfconv" -q --from perf -o "${o}_pipe.folded" -
	"$bin/sfconv" -q "$f" -o "${o}_direct.folded"
	floor_row "cat $f > /dev/null" "$f" "cat $f > /dev/null"
	row "perf script (alone)$lb" "$f" "$(cat .floor)" \
		"perf script -i $f > /dev/null 2>&1"
	t_script=$(cat .last); c_script=$(cat .lastcpu)
	row "perf script | sfconv --from perf$lb" "$f" "$(cat .floor)" \
		"perf script -i $f 2>/dev/null | $bin/sfconv -q --from perf -o ${o}_pipe.folded -"
	row "sfconv perf.data$lb -> collapsed" "$f" "$(cat .floor)" \
		"$bin/sfconv -q $f -o ${o}_direct.folded"
	t_direct=$(cat .last); c_direct=$(cat .lastcpu)
	same="identical output"
	cmp -s "${o}_pipe.folded" "${o}_direct.folded" || same="OUTPUT DIFFERS from the pipeline"
	awk -v a="$t_script" -v b="$t_direct" -v c="$c_script" -v d="$c_direct" -v s="$same" -v l="$lb" 'BEGIN {
		printf "sfconv perf.data%s: %.1fx the speed of perf script alone (wall), %.1fx (CPU); %s\n",
			l, (b > 0 ? a / b : 0), (d > 0 ? c / d : 0), s }'
	k_script=$(perf stat -x, -e task-clock -- sh -c "perf script -i $f > /dev/null 2>&1" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
	k_direct=$(perf stat -x, -e task-clock -- "$bin/sfconv" -q "$f" -o "${o}_direct.folded" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
	awk -v a="$k_script" -v b="$k_direct" -v l="$lb" 'BEGIN {
		printf "task-clock of all processes%s: perf script %.0f ms, sfconv %.0f ms: %.1fx\n",
			l, a, b, (b > 0 ? a / b : 0) }'
}
if ! command -v perf >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	echo "perf.data rows: not measured (perf or cc missing)"
elif [ ! -s perfdata.data ] && ! (
	cc -O1 -g -fno-omit-frame-pointer -o pd_prog "$top/tests/fixtures/perfdata-prog.c" &&
	head -c 60000000 /dev/urandom > pd_random &&
	pd_record perfdata.data -g -F "$pd_hz"); then
	echo "perf.data rows: not measured (perf record failed here)"
else
	pd_rows "" perfdata.data pd
	# --call-graph dwarf: the user stacks are unwound here (libdwfl)
	# and their inlined functions named (libdw), where perf script
	# runs its unwinder and addr2line
	echo
	echo "-- perf.data (--call-graph dwarf) -> collapsed: sfconv vs perf script"
	if [ ! -s pd_dwarf.data ] && ! pd_record pd_dwarf.data --call-graph dwarf -F "$pd_dwarf_hz"; then
		echo "dwarf rows: not measured (perf record --call-graph dwarf failed here)"
	else
		pd_rows " (dwarf)" pd_dwarf.data pdd
	fi
fi
