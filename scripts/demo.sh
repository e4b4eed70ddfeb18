#!/bin/sh
# make demo: the main job on a bundled default.  Build a small
# multi-threaded program (tests/fixtures/capture/target.c: one thread
# spinning, others blocked in read, nanosleep, pthread_cond_wait,
# epoll_wait), sample every thread of it for 3 seconds with sfcapture
# into the lossless native JSON, print the report macOS `sample` prints
# (per thread its call tree, then top of stack), the Sampler-style call
# tree, and draw a flame graph with off-CPU frames coloured apart.  Where
# ptrace is not allowed, the same reports are made from a bundled sample
# file.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$top/build/demo}
bin=$top/bin
mkdir -p "$out"
cd "$out"
cc -O2 -g -pthread -o demo "$top/tests/fixtures/capture/target.c"
if "$bin/sfcapture" -q -d 3 -o demo.json.gz -- ./demo -e 5 >/dev/null; then
	input=$out/demo.json.gz
	echo "demo: sampled every thread of ./demo for 3 s at 100 Hz (sfcapture)"
else
	echo "demo: sfcapture could not trace here (see above); using the bundled samples"
	"$bin/sfconv" "$top/tests/fixtures/demo/demo.samples.tsv" -o demo.json.gz -q
	input=$out/demo.json.gz
fi
echo
"$bin/sfanalyze" --sample "$input" > demo.sample.txt
cat demo.sample.txt
echo
"$bin/sfanalyze" --tree "$input"
echo
"$bin/sfconv" -q "$input" -o demo.svg --title "sftools demo: every thread, on and off CPU"
"$bin/sfconv" -q "$input" -o demo.folded
"$bin/sfconv" -q "$input" -o demo.html --title "sftools demo"
"$bin/sfanalyze" --flat "$input" > demo.flat.txt
echo "demo: capture:        $input   (native JSON: threads, states, times, modules)"
echo "demo: sample report:  $out/demo.sample.txt"
echo "demo: report page:    $out/demo.html  (one offline page: flame graph, tree, callers, call graph, threads over time)"
echo "demo: flame graph:    $out/demo.svg   (open in a browser: click to zoom, Ctrl-F to search)"
echo "demo: flat profile:   $out/demo.flat.txt"
echo "demo: collapsed:      $out/demo.folded"
