#!/bin/sh
# demo-capture.sh: build the bundled capture target, sample it for two
# seconds with sfcapture and print the collapsed stacks per thread.
# Needs a C compiler and ptrace (root, or kernel.yama.ptrace_scope <= 1:
# the program is started by sfcapture, so it is our child).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$top/build/demo}
mkdir -p "$out"
cc -O2 -g -pthread -o "$out/demo" "$top/tests/fixtures/capture/target.c"
cd "$out"
# the demo program runs 3 s; the capture stops after 2 s and ends it
"$top/bin/sfcapture" -d 2 -o "$out/capture.json" -- ./demo -e 3 >/dev/null
"$top/bin/sfconv" "$out/capture.json" --thread-prefix -o "$out/capture.folded"
echo "demo-capture: native JSON:      $out/capture.json"
echo "demo-capture: collapsed stacks: $out/capture.folded"
cat "$out/capture.folded"
