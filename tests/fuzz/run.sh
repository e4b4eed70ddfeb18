#!/bin/sh
# Run every libFuzzer target built by `make fuzz-build` for SECONDS each.
#
#   sh tests/fuzz/run.sh SECONDS [BUILD_DIR [NAME...]]
#
# With NAMEs only those targets run.  Target build/fuzz/fuzz_NAME starts
# from the seeds in tests/fuzz/corpus/NAME/ (fuzz_detect, fuzz_parallel and
# fuzz_roundtrip-* from every format's seeds) and keeps what it finds in
# build/fuzz/corpus/NAME/ (never in the source tree).  A crash, leak,
# timeout or out-of-memory input is written to tests/fuzz/crashes/NAME/,
# where it stays: `make check` replays every file there, so commit it with
# the fix.  tests/fuzz/dict/NAME.dict, if present, is the target's
# dictionary.  Prints one line per target and exits 1 if any target failed.
set -u
secs=${1:-60}
build=${2:-build/fuzz}
[ $# -gt 2 ] && shift 2 || set --
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
status=0
found=0
for t in "$build"/fuzz_*; do
	[ -x "$t" ] || continue
	found=1
	name=${t##*/fuzz_}
	if [ $# -gt 0 ]; then
		want=
		for n in "$@"; do [ "$n" = "$name" ] && want=1; done
		[ -n "$want" ] || continue
	fi
	work="$build/corpus/$name"
	crashes="tests/fuzz/crashes/$name"
	mkdir -p "$work" "$crashes"
	# detect, parallel and roundtrip-* take any format: every seed
	case $name in detect|parallel|roundtrip-*) every=1 ;; *) every= ;; esac
	if [ -n "$every" ]; then
		seeds=$(ls -d tests/fuzz/corpus/*/ 2>/dev/null)
	else
		seeds=$(ls -d "tests/fuzz/corpus/$name/" 2>/dev/null)
	fi
	# dictionaries: tests/fuzz/dict/NAME.dict; detect gets all of them
	dict=""
	if [ -n "$every" ]; then
		cat tests/fuzz/dict/*.dict > "$build/detect.dict" 2>/dev/null &&
			dict="-dict=$build/detect.dict"
	elif [ -f "tests/fuzz/dict/$name.dict" ]; then
		dict="-dict=tests/fuzz/dict/$name.dict"
	fi
	log="$build/$name.log"
	# -rss_limit_mb: a reader must refuse (limit) before it gets near it
	# shellcheck disable=SC2086
	"$t" -max_total_time="$secs" -max_len=65536 -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$crashes/" $dict "$work" $seeds >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "fuzz: $name: clean for ${secs}s (${execs:-?} runs, $cov) $(date -u +%Y-%m-%dT%H:%MZ)"
	else
		status=1
		echo "fuzz: $name: FAILED (exit $rc); see $log; reproducer in $crashes/:"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz_read|artifact_prefix|Test unit written)' "$log" | head -n 5 | sed 's/^/    /'
	fi
	rmdir "$crashes" 2>/dev/null || true
done
if [ $found -eq 0 ]; then
	echo "fuzz: no targets in $build (run make fuzz-build)" >&2
	exit 2
fi
exit $status
