#!/bin/sh
# bench/collapsed-sort.sh: the collapsed writer's cost on many unique
# stacks (issue #8) and on the common case (few unique stacks, big input).
#
#   1. pprof -> collapsed, bench/pprof.sh's 1,000,000-sample profile (every
#      stack distinct: the writer must order 1M lines);
#   2. collapsed -> collapsed, 256 MB from `bench/gen.py collapsed 256
#      20000` (20,000 unique stacks).
# Each: wall, user, peak RSS (/usr/bin/time -v), then a check that the
# output is in byte order of the stack text (`LC_ALL=C sort -c`; these
# inputs have no blanks in names).  OLD=/path/to/sfconv also runs an older
# binary on the same inputs and compares the bytes.
#
#   sh bench/collapsed-sort.sh            (after make)
#   OLD=/tmp/sfconv-before sh bench/collapsed-sort.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
data=$top/bench/data
mkdir -p "$data"
cd "$data"

[ -s pprof-1000000.pb.gz ] || sh "$top/bench/pprof.sh" > /dev/null
[ -s collapsed-256.folded ] ||
	{ python3 "$top/bench/gen.py" collapsed 256 20000 > collapsed-256.tmp &&
	  mv collapsed-256.tmp collapsed-256.folded; }

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)   load: $(cut -d' ' -f1-3 /proc/loadavg)"

run() { # label sfconv input output
	/usr/bin/time -v "$2" -q "$3" --to collapsed -o "$4" 2>.time
	awk -v l="$1" -F': ' '
		/Elapsed \(wall clock\)/ { t = $2 }
		/User time/ { u = $2 }
		/Maximum resident set size/ { r = $2 }
		END { printf "%-44s wall %s  user %ss  peak RSS %.1f MB\n", l, t, u, r / 1024 }' .time
	LC_ALL=C sort -c -t ' ' -k1,1 "$4" ||
		{ echo "bench: $4 is not in byte order" >&2; exit 1; }
}

for what in pprof-1000000.pb.gz collapsed-256.folded; do
	run "$what -> collapsed" "$bin/sfconv" "$what" out-new.folded
	echo "  $(wc -l < out-new.folded) lines"
	if [ -n "${OLD:-}" ]; then
		run "$what -> collapsed (OLD)" "$OLD" "$what" out-old.folded
		cmp out-old.folded out-new.folded && echo "  same bytes as OLD"
	fi
done
rm -f out-new.folded out-old.folded
