#!/bin/sh
# make demo: run the main job on the bundled default input and say where
# the output went.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$top/build/demo}
mkdir -p "$out"
in=$top/tests/fixtures/demo/demo.samples.tsv
"$top/bin/sfconv" "$in" -o "$out/demo.json"
"$top/bin/sfconv" "$in" -o "$out/demo.folded"
echo "demo: converted $in"
echo "demo: native JSON:      $out/demo.json"
echo "demo: collapsed stacks: $out/demo.folded"
cat "$out/demo.folded"
