# tier: slow
# Flame graph SVG in a real browser: headless Chromium driven by
# playwright-core (npm, cached in $TOP/build/npm).  Clicks a frame and
# checks the zoom, searches and checks highlights and the matched
# percentage, and prints the load time of a 100,000-stack graph (printed,
# not asserted).  SKIPs when Chromium, node or npm is missing.
. "$TOP/tests/lib.sh"

need_chromium svg-browser || exit 0
NPMDIR=$TOP/build/npm

# Hand-computed: total 10; a = 4 (b 3, c 1), d = 4, e = 2 (b 2).
printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\nmain;e;b 2\n' > small.folded
$SFCONV small.folded -o small.svg || fail svg-browser-write "sfconv failed"
# differential: grow 1 -> 4, shrink 5 -> 2
printf 'main;grow 1\nmain;shrink 5\n' > base.folded
printf 'main;grow 4\nmain;shrink 2\n' > new.folded
$SFCONV --diff base.folded new.folded -o diff.svg || fail svg-browser-diff-write "sfconv failed"
big=
if [ "${SF_PASS:-plain}" != san ]; then
	python3 "$TOP/tests/svg/gen-stacks.py" 100000 > big.folded &&
	$SFCONV big.folded -o big.svg && big=$SF_TMP/big.svg
fi
node "$TOP/tests/svg/browser.js" "$NPMDIR/node_modules" "$CHROMIUM" \
	"$SF_TMP/small.svg" "$big" "$SF_TMP/diff.svg"
