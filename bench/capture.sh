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
echo "2. slowdown of a CPU-bound thread (iterations/s; 3 rounds of"
echo "   unsampled / 100 Hz / 1000 Hz, ${secs} s each, medians)"
spin_under() { # HZ (0 = not sampled) -> iterations/s
	./spin $secs > spin.out &
	sp=$!
	if [ "$1" -gt 0 ]; then
		"$cap" -p $sp -F $1 --to collapsed -o - >/dev/null 2>>spin.$1.err &
		cp=$!
	fi
	wait $sp
	[ "$1" -gt 0 ] && wait $cp 2>/dev/null
	cat spin.out
}
: > rounds
for r in 1 2 3; do
	for hz in 0 100 1000; do echo "$hz $(spin_under $hz)" >> rounds; done
done
awk '{ v[$1, ++n[$1]] = $2 }
function med(h,   a, i, j, t, k) { k = n[h]; for (i = 1; i <= k; i++) a[i] = v[h, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((k + 1) / 2)] }
END { b = med(0); printf "  unsampled: %.0f it/s\n", b
	for (h = 100; h <= 1000; h *= 10) printf "  %4d Hz:   %.0f it/s, slowdown %.1f%%\n", h, med(h), 100 * (1 - med(h) / b) }' rounds
for hz in 100 1000; do
	sed -n 's/.*median \([0-9]*\) us.*/\1/p' spin.$hz.err | sort -n | sed -n 2p |
	awk -v hz=$hz '{ printf "  %4d Hz: median stop %d us x %d/s = %.2f%% of the time stopped\n", hz, $1, hz, $1 * hz / 1e4 }'
done
echo "  (on a busy machine the throughput varies more than the effect; the"
echo "  stopped fraction is the direct cost)"

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
