#!/bin/sh
# bench/capture.sh - what sfcapture costs the target (not a test; timings
# depend on the machine).
#
#   1. time each thread is stopped per sample (median, p99, from
#      sfcapture's own summary: PTRACE_INTERRUPT sent -> PTRACE_DETACH
#      done) for 4 and 64 threads, DWARF and frame-pointer unwinding, on
#      the target built with and without frame pointers;
#   2. slowdown of a CPU-bound thread sampled at 100 Hz and 1000 Hz
#      (iterations per second with and without sfcapture);
#   3. eu-stack -p (elfutils) taking the same snapshot once: time per
#      invocation (the target's threads are stopped during it).
#
# Usage: sh bench/capture.sh [SECONDS]   (default 3 s per run)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-3}
cap=$top/bin/sfcapture
tmp=$(mktemp -d)
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
pids=
[ -x "$cap" ] || { echo "bench: build first (make)" >&2; exit 1; }
cd "$tmp"
cc -O2 -g -pthread -fno-omit-frame-pointer -o target_fp "$top/tests/fixtures/capture/target.c"
cc -O2 -g -pthread -o target_nofp "$top/tests/fixtures/capture/target.c"
cat > spin.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
	double secs = atof(argv[1]), t0 = now(); volatile unsigned long n = 0;
	while (now() - t0 < secs) for (int i = 0; i < 10000; i++) n++;
	printf("%.0f\n", n / secs); return 0; }
C
cc -O2 -o spin spin.c

start() { # BIN ARGS -> sets p (not in a subshell: the target dies with
	  # its parent, prctl PDEATHSIG)
	rm -f out.$$
	"$@" > out.$$ 2>&1 &
	p=$!
	pids="$pids $p"
	while ! grep -q READY out.$$ 2>/dev/null; do sleep 0.02; done
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), kernel $(uname -r)"
echo
echo "1. time stopped per thread per sample, 100 Hz, ${secs} s, one thread at a time"
printf '%-6s %-8s %-6s %10s %10s %9s %7s\n' build threads unwind median_us p99_us samples missed
for build in fp nofp; do
	for n in 4 64; do
		extra=$((n > 6 ? n - 6 : 0))
		start ./target_$build -n $extra
		sel=
		if [ $n -eq 4 ]; then
			sel="--threads $(ls /proc/$p/task | head -n 4 | paste -sd, -)"
		fi
		for uw in dwarf fp; do
			"$cap" -p $p -d $secs --unwind=$uw $sel --to collapsed -o - >/dev/null 2> cap.err
			med=$(sed -n 's/.*median \([0-9]*\) us.*/\1/p' cap.err)
			p99=$(sed -n 's/.*p99 \([0-9]*\) us.*/\1/p' cap.err)
			smp=$(sed -n 's/.*: \([0-9]*\) samples taken, \([0-9]*\) missed.*/\1 \2/p' cap.err)
			printf '%-6s %-8s %-6s %10s %10s %9s %7s\n' $build $n $uw "$med" "$p99" $smp
		done
		"$cap" -p $p -d $secs --all-stop $sel --to collapsed -o - >/dev/null 2> cap.err
		printf '%-6s %-8s %-6s %10s %10s   (--all-stop: whole-process window)\n' $build $n dwarf \
			"$(sed -n 's/.*median \([0-9]*\) us.*/\1/p' cap.err)" "$(sed -n 's/.*p99 \([0-9]*\) us.*/\1/p' cap.err)"
		kill -9 $p
	done
done

echo
echo "2. slowdown of a CPU-bound thread (iterations/s, ${secs} s each)"
base=$(./spin $secs)
for hz in 100 1000; do
	./spin $secs > spin.out &
	sp=$!
	sleep 0.05
	"$cap" -q -p $sp -F $hz --to collapsed -o - >/dev/null &
	cp=$!
	wait $sp
	wait $cp 2>/dev/null
	with=$(cat spin.out)
	base2=$(./spin $secs)
	awk -v a="$base" -v b="$base2" -v w="$with" -v hz=$hz 'BEGIN {
		m = (a + b) / 2
		printf "  %4d Hz: %.0f it/s sampled vs %.0f unsampled (mean of %.0f, %.0f): slowdown %.1f%%\n", hz, w, m, a, b, 100 * (1 - w / m) }'
	base=$base2
done

echo
echo "3. eu-stack -p, one snapshot (wall time per invocation, 10 runs)"
if command -v eu-stack >/dev/null 2>&1; then
	for n in 6 64; do
		start ./target_nofp -n $((n - 6))
		t=$(for i in 1 2 3 4 5 6 7 8 9 10; do
			a=$(date +%s%N); eu-stack -p $p > /dev/null 2>&1; b=$(date +%s%N)
			echo $(( (b - a) / 1000 ))
		done | sort -n | awk '{v[NR] = $1} END { printf "median %d us, max %d us", v[int((NR + 1) / 2)], v[NR] }')
		echo "  $n threads: $t"
		"$cap" -p $p -d $secs --to collapsed -o - >/dev/null 2> cap.err
		echo "  $n threads, sfcapture: $(sed -n 's/.*: target stopped per sample: //p' cap.err) per thread;" \
			"one tick stops each thread once"
		kill -9 $p
	done
else
	echo "  eu-stack not installed (apt-get install elfutils)"
fi
