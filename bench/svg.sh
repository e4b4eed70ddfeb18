#!/bin/sh
# Flame graph of 100,000 unique stacks: time to write the SVG, and (when
# headless Chromium and playwright-core are there) time to load it.
#   sh bench/svg.sh            (from the top of the tree, after make)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/tests/svg/gen-stacks.py" 100000 > "$tmp/big.folded"
# defaults, then no limits at all
for lim in "0.1 15000" "0 0"; do
	set -- $lim
	start=$(date +%s.%N)
	"$top/bin/sfconv" "$tmp/big.folded" --min-width $1 --max-frames $2 \
		-o "$tmp/big-$1-$2.svg"
	end=$(date +%s.%N)
	echo "sfconv 100000 stacks --min-width $1 --max-frames $2: $(echo "$end - $start" | bc) s"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
mods=$top/build/npm/node_modules
if [ -x /usr/bin/chromium ] && [ -d "$mods/playwright-core" ]; then
	node "$top/bench/svg-load.js" "$mods" /usr/bin/chromium \
		"$tmp/big-0.1-15000.svg" "$tmp/big-0-0.svg"
else
	echo "no chromium or playwright-core (run tests/t-svg-browser.sh once): load time not measured"
fi
