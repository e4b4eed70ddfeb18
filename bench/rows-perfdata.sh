# bench/rows-perfdata.sh - sourced by bench/run.sh (make bench; uses its
# measure/row/floor_row, $bin; cwd bench/data): perf.data -> collapsed read directly (fmt_perfdata.c) against `perf script` alone
# and `perf script | sfconv --from perf` on the same file.
#
# The input is recorded once into bench/data/perfdata.data (not in git):
# `perf record -g -F PERFDATA_HZ` (default 20000) of a C program built
# with frame pointers, gzip and python3, about PERFDATA_SECS seconds
# (default 8).  Without perf, or where perf may not record, the rows say
# so.  Peak RSS of the pipeline row is its largest process (GNU time's
# children maximum), not the sum.  The collapsed outputs of the direct
# read and of the pipeline must be identical; the row says if not.
echo
echo "-- perf.data -> collapsed: sfconv reading perf.data vs perf script"
pd_hz=${PERFDATA_HZ:-20000}
pd_secs=${PERFDATA_SECS:-8}
if ! command -v perf >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	echo "perf.data rows: not measured (perf or cc missing)"
elif [ ! -s perfdata.data ] && ! (
	cc -O1 -g -fno-omit-frame-pointer -o pd_prog "$top/tests/fixtures/perfdata-prog.c" &&
	head -c 60000000 /dev/urandom > pd_random &&
	perf record -q -g -F "$pd_hz" -o perfdata.data.tmp -- sh -c "
		timeout $((pd_secs / 3 + 1)) ./pd_prog 100000000
		timeout $((pd_secs / 3 + 1)) gzip -9 < pd_random > /dev/null
		timeout $((pd_secs / 3 + 1)) python3 -c 'import json
while True: json.dumps([{\"a\": i} for i in range(1000)])'
		true" > /dev/null 2>&1 &&
	mv perfdata.data.tmp perfdata.data); then
	echo "perf.data rows: not measured (perf record failed here)"
else
	perf script -i perfdata.data 2>/dev/null | "$bin/sfconv" -q --from perf -o pd_pipe.folded -
	"$bin/sfconv" -q perfdata.data -o pd_direct.folded
	floor_row "cat perf.data > /dev/null" perfdata.data "cat perfdata.data > /dev/null"
	row "perf script (alone)" perfdata.data "$(cat .floor)" \
		"perf script -i perfdata.data > /dev/null 2>&1"
	t_script=$(cat .last); c_script=$(cat .lastcpu)
	row "perf script | sfconv --from perf" perfdata.data "$(cat .floor)" \
		"perf script -i perfdata.data 2>/dev/null | $bin/sfconv -q --from perf -o pd_pipe.folded -"
	row "sfconv perf.data -> collapsed" perfdata.data "$(cat .floor)" \
		"$bin/sfconv -q perfdata.data -o pd_direct.folded"
	t_direct=$(cat .last); c_direct=$(cat .lastcpu)
	same="identical output"
	cmp -s pd_pipe.folded pd_direct.folded || same="OUTPUT DIFFERS from the pipeline"
	awk -v a="$t_script" -v b="$t_direct" -v c="$c_script" -v d="$c_direct" -v s="$same" 'BEGIN {
		printf "sfconv perf.data: %.1fx the speed of perf script alone (wall), %.1fx (CPU); %s\n",
			(b > 0 ? a / b : 0), (d > 0 ? c / d : 0), s }'
fi
