#!/bin/sh
# bench/capture-children.sh - what following children costs (issue #26):
# `make -s -j2` of 8 small C files (the first 8 formats/fmt_*.c of this
# tree, -O2, a Makefile of one pattern rule in a temporary directory,
# `make -s clean` before each run), bare, under `perf record -q -g`, and
# under sfcapture (and under an older sfcapture, to compare builds).
# Not a test: timings depend on the machine and its load.
#
# Each row: wall time (min and median), and CPU time: for the bare build
# and perf record the whole run's user + sys (the build's included); for
# the tools, their own CPU apart from the build's (perf stat --no-inherit
# -e task-clock: the tool's process only, not the make it runs).  The
# commands alternate within a round, so load that changes during the run
# falls on all of them alike.
#
# Usage: [SFCAPTURE=BIN] [SFCAPTURE_OLD=BIN] sh bench/capture-children.sh [ROUNDS]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
cap=${SFCAPTURE:-$top/bin/sfcapture}
old=${SFCAPTURE_OLD:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$cap" ] || { echo "bench: build first (make)" >&2; exit 1; }
have_perf=1
perf stat -e task-clock true >/dev/null 2>&1 || have_perf=0

for f in $(ls "$top"/formats/fmt_*.c | head -n 8); do cp "$f" "$tmp/"; done
inc=
for d in formats/base formats/model formats formats/util analyze; do
	inc="$inc -I$top/$d"
done
inc="$inc $(pkg-config --cflags json-c libxml-2.0 2>/dev/null)"
printf 'SRC := $(wildcard *.c)\nall: $(SRC:.c=.o)\n%%.o: %%.c\n\t$(CC) -O2 -D_GNU_SOURCE%s -c $< -o $@\nclean:\n\trm -f *.o\n' \
	"$inc" > "$tmp/Makefile"
cd "$tmp" || exit 1
make -s -j2 >/dev/null 2>&1 || { echo "bench: the 8 files do not build" >&2; exit 1; }

now() { date +%s%N; }
# run NAME CMD...: one timed run after `make -s clean`; appends
# "wall_ms cpu_ms" to NAME.t
run() {
	name=$1; shift
	make -s clean
	t0=$(now)
	case $name in
	bare)
		/usr/bin/time -f '%U %S' -o cpu.t "$@" >/dev/null 2>&1
		cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' cpu.t) ;;
	*)
		if [ $have_perf = 1 ]; then
			perf stat --no-inherit -x, -e task-clock -o cpu.t "$@" >/dev/null 2>&1
			cpu=$(awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { printf "%d", $1 }' cpu.t)
		else
			cpu=-
		fi ;;
	esac
	echo "$(( ($(now) - t0) / 1000000 )) ${cpu:--}" >> "$name.t"
}

echo "$(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds"
i=0
while [ $i -lt "$rounds" ]; do
	run bare make -s -j2
	[ $have_perf = 1 ] && run perf perf record -q -g -o perf.data -- make -s -j2
	[ -n "$old" ] && run old "$old" -q -o mk-old.json -- make -s -j2
	run new "$cap" -q -o mk.json -- make -s -j2
	i=$((i + 1))
done

# row NAME LABEL CPULABEL
row() {
	[ -s "$1.t" ] || return 0
	n=$(wc -l < "$1.t")
	m=$(( (n + 1) / 2 ))
	w=$(cut -d' ' -f1 "$1.t" | sort -n | sed -n "1p;${m}p" | tr '\n' ' ')
	c=$(cut -d' ' -f2 "$1.t" | sort -n | sed -n "1p;${m}p" | tr '\n' ' ')
	set -- "$2" "$3" $w $c
	printf '%-40s wall min %6s med %6s ms, %s min %6s med %6s ms\n' \
		"$1" "$3" "${4:-$3}" "$2" "$5" "${6:-$5}"
}
row bare "make -s -j2" "cpu (user+sys)"
row perf "perf record -q -g -- make -s -j2" "own task-clock"
row old "old sfcapture -q -o mk.json -- make" "own task-clock"
row new "sfcapture -q -o mk.json -- make -s -j2" "own task-clock"
echo "end $(date -u +%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
