#!/bin/sh
# Flame graph of 100,000 unique stacks: time to write the SVG, and (when
# headless Chromium and playwright-core are there) time to load it.
#   sh bench/svg.sh            (from the top of the tree, after make)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/tests/svg/gen-stacks.py" 100000 > "$tmp/big.folded"
for mw in 0.1 0; do
	start=$(date +%s.%N)
	"$top/bin/sfconv" "$tmp/big.folded" --min-width $mw -o "$tmp/big-$mw.svg"
	end=$(date +%s.%N)
	echo "sfconv 100000 stacks --min-width $mw: $(echo "$end - $start" | bc) s"
done
mods=$top/build/npm/node_modules
if [ -x /usr/bin/chromium ] && [ -d "$mods/playwright-core" ]; then
	node "$top/bench/svg-load.js" "$mods" /usr/bin/chromium \
		"$tmp/big-0.1.svg" "$tmp/big-0.svg"
else
	echo "no chromium or playwright-core (run tests/t-svg-browser.sh once): load time not measured"
fi
