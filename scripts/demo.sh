#!/bin/sh
# make demo: the main job on a bundled default.  Build a small
# multi-threaded program (tests/fixtures/capture/target.c: one thread
# spinning, others blocked in read, nanosleep, pthread_cond_wait,
# epoll_wait), sample every thread of it for 3 seconds with sfcapture,
# print the Sampler-style call tree, and draw a flame graph.  Where ptrace
# is not allowed, the same reports are made from a bundled sample file.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$top/build/demo}
bin=$top/bin
mkdir -p "$out"
cd "$out"
cc -O2 -g -pthread -o demo "$top/tests/fixtures/capture/target.c"
if "$bin/sfcapture" -q -d 3 -o demo.trace -- ./demo -e 5 >/dev/null; then
	input=$out/demo.trace
	echo "demo: sampled every thread of ./demo for 3 s at 100 Hz (sfcapture)"
else
	echo "demo: sfcapture could not trace here (see above); using the bundled samples"
	"$bin/sfconv" "$top/tests/fixtures/demo/demo.samples.tsv" -o demo.trace -q
	input=$out/demo.trace
fi
echo
"$bin/sfanalyze" --tree --min-percent 1 "$input"
echo
"$bin/sfconv" -q "$input" -o demo.svg --title "sftools demo: every thread, on and off CPU"
"$bin/sfconv" -q "$input" -o demo.folded
"$bin/sfanalyze" --flat "$input" > demo.flat.txt
echo "demo: Sampler trace:  $input"
echo "demo: flame graph:    $out/demo.svg   (open in a browser: click to zoom, Ctrl-F to search)"
echo "demo: flat profile:   $out/demo.flat.txt"
echo "demo: collapsed:      $out/demo.folded"
