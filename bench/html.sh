#!/bin/sh
# Benchmark (not a test): the HTML report of 100,000 unique stacks.
#   sh bench/html.sh          (from the top of the tree, after make)
# Two inputs: tests/svg/gen-stacks.py (100,000 unique stacks, depth 3-8,
# one sample each) and bench/gen_stacks.c (1,000,000 samples drawn from
# 100,000 distinct stacks of 2,000 functions, depth 1-60, 4 threads).
# For each: time to write the page, its size, the bytes it spends per
# unique stack ((page - page of an empty profile) / stacks), and, when
# headless Chromium and playwright-core are there (tests/t-html.sh
# installs playwright-core into build/npm), the time from navigation to
# the first view drawn (the page's performance.now() when the flame graph
# is on the canvas), best of 3 loads.  The same 100,000 stacks with each
# sample repeated 10 times must give a page of the same size.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/tests/svg/gen-stacks.py" 100000 > "$tmp/flat.folded"
awk '{ for (i = 0; i < 10; i++) print }' "$tmp/flat.folded" > "$tmp/flat10.folded"
cc -O2 -o "$tmp/gen" "$top/bench/gen_stacks.c"
"$tmp/gen" 1000000 2000 60 1 100000 > "$tmp/deep.samples.tsv"
: > "$tmp/empty.folded"
"$top/bin/sfconv" -q --from collapsed "$tmp/empty.folded" -o "$tmp/empty.html"
empty=$(wc -c < "$tmp/empty.html")
echo "empty page: $empty bytes"
for f in flat flat10 deep; do
	in=$(ls "$tmp/$f".*)
	start0=$(date +%s.%N)
	"$top/bin/sfconv" -q "$in" -o "$tmp/$f.html"
	end=$(date +%s.%N)
	start=$(date +%s.%N)
	stacks=$("$top/bin/sfconv" -q "$in" | wc -l)
	end2=$(date +%s.%N)
	size=$(wc -c < "$tmp/$f.html")
	enc=$(grep -o 'id="sf-data" type="[^"]*"' "$tmp/$f.html" | sed 's/.*type="//; s/"//')
	nodes=$(python3 "$top/tests/html/data.py" "$tmp/$f.html" n)
	echo "$f: $(wc -l < "$in") input lines, $stacks unique stacks" \
	     "(collapsed lines), $nodes tree nodes; write $(echo "$end - $start0" | bc) s" \
	     "(the same input to collapsed: $(echo "$end2 - $start" | bc) s)," \
	     "page $size bytes ($enc)," \
	     "$(awk "BEGIN { printf \"%.1f\", ($size - $empty) / $stacks }") bytes per unique stack," \
	     "$(awk "BEGIN { printf \"%.2f\", ($size - $empty) / $nodes }") per tree node"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
mods=$top/build/npm/node_modules
if [ -x /usr/bin/chromium ] && [ -d "$mods/playwright-core" ]; then
	node "$top/bench/html-load.js" "$mods" /usr/bin/chromium \
		"$tmp/flat.html" "$tmp/deep.html"
else
	echo "no chromium or playwright-core (run tests/t-html.sh once): load time not measured"
fi
