# Flame graph SVG without a browser: well-formed XML, widths proportional
# to weights (hand-computed), positions, titles, options, determinism,
# differential colours.
. "$TOP/tests/lib.sh"

CHECK="python3 $TOP/tests/svg/check.py"
wellformed() { # NAME FILE
	if ! have xmllint; then skip "$1" "xmllint missing (libxml2-utils)"; return; fi
	if xmllint --noout "$2" 2>xml.err; then pass "$1"; else
		fail "$1" "$(head -n 2 xml.err)"; fi
}

# total 10: main 10 = a 4 (b 3, c 1) + d 4 + e 2 (b 2).  Width 1200, pad 10:
# 1180 px for 10 samples = 118 px each.  Children in name order.
printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\nmain;e;b 2\n' > small.folded
$SFCONV small.folded -o small.svg
wellformed svg-wellformed small.svg
$CHECK small.svg | cut -f1-3,5 > geom.out
cat > geom.want <<'W'
a	2	10.00	472.00
all	0	10.00	1180.00
b	3	10.00	354.00
b	3	954.00	236.00
c	3	364.00	118.00
d	2	482.00	472.00
e	2	954.00	236.00
main	1	10.00	1180.00
W
expect_same svg-widths-proportional geom.want geom.out

# titles as flamegraph.pl writes them (the root's percentage unrounded,
# and "1 samples")
$CHECK small.svg | cut -f7 | LC_ALL=C sort > titles.out
cat > titles.want <<'W'
a (4 samples, 40.00%)
all (10 samples, 100%)
b (2 samples, 20.00%)
b (3 samples, 30.00%)
c (1 samples, 10.00%)
d (4 samples, 40.00%)
e (2 samples, 20.00%)
main (10 samples, 100.00%)
W
expect_same svg-titles titles.want titles.out

# flame: root at the bottom (height = 52 + 4 levels * 16 + 34 = 150, the
# root's row at 150 - 34 - 16 = 100); icicle: root at the top (y 52)
$CHECK small.svg | awk -F'\t' '$1=="all"||$1=="c"{print $1, $4}' > y.out
printf 'all 100.00\nc 52.00\n' > y.want
expect_same svg-flame-root-bottom y.want y.out
$SFCONV small.folded --inverted -o inv.svg
$CHECK inv.svg | awk -F'\t' '$1=="all"||$1=="c"{print $1, $4}' > yi.out
printf 'all 52.00\nc 100.00\n' > yi.want
expect_same svg-inverted-root-top yi.want yi.out

# determinism: same bytes twice
$SFCONV small.folded -o again.svg
if cmp -s small.svg again.svg; then pass svg-deterministic; else
	fail svg-deterministic "two runs differ"; fi

# --width 600: 580 px for 10 samples
$SFCONV small.folded --width 600 -o w600.svg
$CHECK w600.svg | awk -F'\t' '$1=="a"{print $5}' > w.out
echo 232.00 > w.want
expect_same svg-width-option w.want w.out

# --title, escaped by the XML writer
$SFCONV small.folded --title 'a <b> & "c"' -o title.svg
wellformed svg-title-wellformed title.svg
python3 -c 'import sys,xml.etree.ElementTree as E
r=E.parse(sys.argv[1]).getroot()
print([t.text for t in r.iter("{http://www.w3.org/2000/svg}text") if t.get("id")=="title"][0])' title.svg > t.out
echo 'a <b> & "c"' > t.want
expect_same svg-title-option t.want t.out

# --min-width: tiny is 1180/10001 = 0.118 px: drawn by default (0.1),
# left out with --min-width 1, and the subtitle says so
printf 'main;big 10000\nmain;tiny 1\nmain;tiny;deeper 0\n' > tiny.folded
$SFCONV tiny.folded -o tiny0.svg
$SFCONV tiny.folded --min-width 1 -o tiny1.svg
if $CHECK tiny0.svg | grep -q '^tiny' && ! $CHECK tiny1.svg | grep -q '^tiny'; then
	pass svg-min-width; else fail svg-min-width "tiny frame not elided as expected"; fi
if grep -q '>1 frame narrower than 1 px not drawn<' tiny1.svg; then pass svg-min-width-count
else fail svg-min-width-count "subtitle: $(grep -o 'id="subtitle"[^<]*' tiny1.svg)"; fi

# --colors blue (flamegraph.pl: x = 80 + int(60 v), b = 205 + int(50 v)):
# r = g in 80..140, b >= 205 for every frame
$SFCONV small.folded --colors blue -o blue.svg
$CHECK blue.svg | cut -f6 | sed 's/rgb(\(.*\))/\1/' | awk -F, '
	!($1 == $2 && $1 >= 80 && $1 <= 140 && $3 >= 205) { bad = 1 } END { exit bad }' &&
	pass svg-colors-blue || fail svg-colors-blue "a fill is not blue"
# hot: kernel frames (_[k]) orange (blue 0), others red-yellow
printf 'main;sys_read_[k] 1\n' | $SFCONV --from collapsed --to svg > k.svg
$CHECK k.svg | awk -F'\t' '$1=="sys_read_[k]"{print $6}' | grep -q ',0)$' &&
	pass svg-colors-kernel || fail svg-colors-kernel "$($CHECK k.svg | cut -f1,6)"
expect_error svg-colors-unknown 2 "unknown --colors 'nope'" $SFCONV small.folded --colors nope -o x.svg
expect_error svg-width-bad 2 "--width expects" $SFCONV small.folded --width 5x -o x.svg

# names that are not valid UTF-8 or hold control characters stay XML
printf 'main;bad\377\376name;ctl\001x 2\n' > bad.folded
$SFCONV bad.folded -o bad.svg
wellformed svg-invalid-utf8-wellformed bad.svg

# 100,000 unique stacks: written, well-formed, frames elided and counted
python3 "$TOP/tests/svg/gen-stacks.py" 100000 > big.folded
$SFCONV big.folded -o big.svg
wellformed svg-100k-wellformed big.svg
grep -q 'frames narrower than 0.1 px not drawn' big.svg && pass svg-100k-elided ||
	fail svg-100k-elided "no elision note"

# differential: grow 1 -> 4 (+3), shrink 5 -> 2 (-3), main 6 -> 6 (0).
# Widths from NEW (6): grow 4/6 * 1180, shrink 2/6 * 1180.  Colour by
# the change of self weight relative to the largest (3): grow full red,
# shrink full blue; all and main have no self weight: neutral grey.
printf 'main;grow 1\nmain;shrink 5\n' > base.folded
printf 'main;grow 4\nmain;shrink 2\n' > new.folded
$SFCONV --diff base.folded new.folded -o diff.svg
wellformed svg-diff-wellformed diff.svg
$CHECK diff.svg | cut -f1,5,6 > dg.out
cat > dg.want <<'W'
all	1180.00	rgb(235,235,235)
grow	786.67	rgb(255,0,0)
main	1180.00	rgb(235,235,235)
shrink	393.33	rgb(0,0,255)
W
expect_same svg-diff-widths-colours dg.want dg.out
$CHECK diff.svg | awk -F'\t' '$1=="grow"||$1=="shrink"{print $7}' > dt.out
cat > dt.want <<'W'
grow|new: 4 samples (66.67%)|base: 1 samples (16.67%)|change: +3 (+300.00%)|self change: +3
shrink|new: 2 samples (33.33%)|base: 5 samples (83.33%)|change: -3 (-60.00%)|self change: -3
W
expect_same svg-diff-titles dt.want dt.out
# identical inputs: no change anywhere, every frame neutral
$SFCONV --diff small.folded small.folded -o same.svg
$CHECK same.svg | cut -f6 | sort -u > same.out
echo 'rgb(235,235,235)' > same.want
expect_same svg-diff-identical-neutral same.want same.out
# half the change is half the intensity: self changes grow 2 -> 4 (+2),
# shrink 4 -> 0 (-4, only in base: not drawn), main and all 0 (neutral):
# grow is 220 * (1 - 2/4) = 110 short of full red
printf 'main;grow 2\nmain;shrink 4\n' > base2.folded
printf 'main;grow 4\n' > new2.folded
$SFCONV --diff base2.folded new2.folded -o diff2.svg
$CHECK diff2.svg | cut -f1,6 > d2.out
printf 'all\trgb(235,235,235)\ngrow\trgb(255,110,110)\nmain\trgb(235,235,235)\n' > d2.want
expect_same svg-diff-intensity d2.want d2.out
grep -q '1 frame only in base not drawn' diff2.svg && pass svg-diff-removed-noted ||
	fail svg-diff-removed-noted "no note for the removed frame"

# a difffolded input (inferno's differential fixture) draws a differential
# graph whose root holds the sum of the NEW column (summed here by awk)
DIFFIN=$PEERS/inferno/flamegraph/differential/perf-cycles-instructions-01-collapsed-all-diff.txt
if [ -f "$DIFFIN" ]; then
	$SFCONV "$DIFFIN" -o peer-diff.svg
	wellformed svg-peer-diff-wellformed peer-diff.svg
	want=$(awk '{n += $NF; b += $(NF-1)} END {printf "all|new: %d samples (100.00%%)|base: %d samples (100.00%%)|", n, b}' "$DIFFIN")
	got=$($CHECK peer-diff.svg | awk -F'\t' '$1=="all"{print $7}')
	case $got in
	"$want"*) pass svg-peer-diff-totals ;;
	*) fail svg-peer-diff-totals "root title '$got', expected '$want...'" ;;
	esac
	grep -q 'sf:mode="diff"' peer-diff.svg && pass svg-peer-diff-mode ||
		fail svg-peer-diff-mode "not drawn as a differential graph"
else
	skip svg-peer-diff "no peer fixture $DIFFIN"
fi

# a frame in perf's kernel module is a kernel frame: orange (blue 0) in hot
cat > kmod.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],"frames":[{"name":"main"},{"name":"do_syscall_64","module":"[kernel.kallsyms]"}],
 "stacks":[[0,0],[1,1]],"samples":[[2,null,null,0,1]]}
J
$SFCONV kmod.json -o kmod.svg
$CHECK kmod.svg | awk -F'\t' '$1=="do_syscall_64"{print $6}' | grep -q ',0)$' &&
	pass svg-colors-kernel-module || fail svg-colors-kernel-module "$($CHECK kmod.svg | cut -f1,6)"

# write errors: one message, exit 3; a closed pipe ends quietly
if [ -w /dev/full ]; then
	expect_error svg-disk-full 3 'write error' sh -c "$SFCONV small.folded --to svg > /dev/full"
else skip svg-disk-full "no /dev/full"; fi
$SFCONV big.folded --to svg 2>pipe.err | head -c 100 > /dev/null
if [ ! -s pipe.err ]; then pass svg-closed-pipe-quiet; else
	fail svg-closed-pipe-quiet "$(head -n 2 pipe.err)"; fi

# palettes as documented in docs/formats.md, section svg (flamegraph.pl's
# formulas)
palette() { # NAME COLORS AWK-CONDITION-ON-r,g,b
	$SFCONV small.folded --colors "$2" -o "pal-$2.svg"
	$CHECK "pal-$2.svg" | cut -f6 | sed 's/rgb(\(.*\))/\1/' |
		awk -F, "!($3) { bad = 1 } END { exit bad }" &&
		pass "$1" || fail "$1" "a fill is outside the $2 palette"
}
palette svg-colors-mem mem '$1 == 0 && $2 >= 190'
palette svg-colors-io io '$1 == $2 && $3 >= 190'
palette svg-colors-green green '$1 == $3 && $1 >= 50 && $1 <= 110 && $2 >= 200'
palette svg-colors-hot hot '$1 >= 205 && $2 <= 230 && $3 <= 55'
# java: a JVM-style name is green, a C++ name yellow, anything else red
printf 'java/lang/Thread.run;Foo::bar;main 1\n' > java.folded
$SFCONV java.folded --colors java -o java.svg
$CHECK java.svg | awk -F'\t' '$1 != "all" {print $1, $6}' | sed 's/rgb(\(.*\))/\1/' |
	awk -F'[ ,]' '
	$1 == "java/lang/Thread.run" && !($3 >= 200 && $2 == $4) { bad = 1 }
	$1 == "Foo::bar" && !($2 == $3 && $4 <= 70) { bad = 1 }
	$1 == "main" && !($2 >= 200 && $3 == $4) { bad = 1 }
	END { exit bad }' && pass svg-colors-java || fail svg-colors-java "$($CHECK java.svg | cut -f1,6)"

# --max-frames: total 15; the 4 widest frames are all, main (15), a (5),
# b (4); c (3) is the 5th widest: frames up to 3/15 * 1180 = 236 px go
printf 'main;a 5\nmain;b 4\nmain;c 3\nmain;d 2\nmain;e 1\n' > mf.folded
$SFCONV mf.folded --max-frames 4 -o mf4.svg
$CHECK mf4.svg | cut -f1 | tr '\n' ' ' > mf4.out
printf 'a all b main ' > mf4.want
expect_same svg-max-frames mf4.want mf4.out
grep -q '>3 frames narrower than 236 px not drawn (--max-frames)<' mf4.svg &&
	pass svg-max-frames-note || fail svg-max-frames-note "$(grep -o 'id="subtitle"[^<]*' mf4.svg)"
$SFCONV mf.folded --max-frames 0 -o mf0.svg
[ "$($CHECK mf0.svg | wc -l)" -eq 7 ] && pass svg-max-frames-0-all ||
	fail svg-max-frames-0-all "expected 7 frames"
expect_error svg-max-frames-bad 2 "--max-frames expects" $SFCONV mf.folded --max-frames -1 -o x.svg

# A frame's x counts the siblings sorted before it that are not drawn.
# Total 13, so 1180/13 px a sample; the 5th widest is f (2), so the
# frames drawn are all, a (10), c (5) and e (3): a after 0z (1) at x 1,
# c after b (1) at 1 + 1 = 2, e after c and d at 2 + 5 + 1 = 8; the
# lefts are 10 + x * 1180/13 px, the widths w * 1180/13 px (names all
# distinct: the graph of the drawn frames alone, svg_drawn.c).  Halved
# weights are not integers and take the whole graph's way: the same
# picture.  The cut is 2 samples: 2 * 1180/13 = 181.5 px, written to 3
# digits.
printf '0z 1\na;b 1\na;c 5\na;d 1\na;e 3\nf 2\n' > gap.folded
printf '0z 0.5\na;b 0.5\na;c 2.5\na;d 0.5\na;e 1.5\nf 1\n' > gaph.folded
printf '%s\n' 'a 100.77 907.69' 'all 10.00 1180.00' 'c 191.54 453.85' \
	'e 736.15 272.31' > gap.want
for g in gap gaph; do
	$SFCONV $g.folded --max-frames 4 -o $g.svg
	$CHECK $g.svg | awk -F'\t' '{print $1, $3, $5}' > $g.out
	expect_same svg-gaps-$g gap.want $g.out
done
grep -q '>4 frames narrower than 182 px not drawn (--max-frames)<' gap.svg &&
	pass svg-gaps-note || fail svg-gaps-note "$(grep -o 'id="subtitle"[^<]*' gap.svg)"

# Where no two frames share a name (or, with --by-module, name, module and
# kind), the graph is the model's stack tree and is made without merging;
# a profile whose frames share a name goes the merging way.  Both ways
# must draw the same graph: doc B differs from doc A only in that the
# frame "x" under p1 and p2 has a module in one place (two frames of one
# name: merging), where A has one frame "x" (all names distinct).  The
# module does not show in the drawing; weights, order and the
# --max-frames cut do.  (Not --by-module: it names frames by module, so
# both documents would take the same path and the case compare it with
# itself.)
python3 - <<'PY'
import json, random
for doc, split in (("a", False), ("b", True)):
    r = random.Random(7)
    frames = [{"name": "f%d" % i} for i in range(400)]
    frames += [{"name": "p1"}, {"name": "p2"}, {"name": "x"}]
    if split:
        frames.append({"name": "x", "module": "/lib/other.so"})
    stacks, samples = [], []
    def push(parent, frame):
        stacks.append([parent, frame])
        return len(stacks)
    p1 = push(0, 400)
    p2 = push(0, 401)
    x1 = push(p1, 402)
    x2 = push(p2, 403 if split else 402)
    for s in (x1, x2):
        samples.append([s, None, None, 0, 5])
    for n in range(3000):
        s = r.choice([0, p1, p2, x1, x2] + list(range(5, len(stacks) + 1)))
        s = push(s, r.randrange(400)) if r.random() < 0.7 else s
        if s:
            samples.append([s, None, None, 0, r.randrange(1, 9)])
    # the same (parent, frame) never twice: the model's prefix tree
    seen, st = {}, []
    remap = [0]
    for par, f in stacks:
        key = (remap[par], f)
        if key not in seen:
            st.append([remap[par], f])
            seen[key] = len(st)
        remap.append(seen[key])
    samples = [[remap[s], t, ti, l, w] for s, t, ti, l, w in samples]
    json.dump({"format": "sftools-profile", "version": 1,
               "meta": {"source_format": "collapsed",
                        "default_sample_type": 0},
               "sample_types": [{"type": "samples", "unit": "count"}],
               "threads": [], "frames": frames, "stacks": st,
               "label_sets": [], "samples": samples},
              open("ways-%s.json" % doc, "w"))
PY
for opts in "" "--max-frames 40" "--minwidth 0"; do
	name=svg-ways-same${opts:+-$(echo "$opts" | tr -d ' -')}
	$SFCONV -q ways-a.json --to svg $opts > ways-a.svg
	$SFCONV -q ways-b.json --to svg $opts > ways-b.svg
	if [ "$(grep -c '<g' ways-a.svg)" -lt 100 ] && [ -z "$opts" ]; then
		fail "$name" "only $(grep -c '<g' ways-a.svg) frames drawn"
	else
		expect_same "$name" ways-a.svg ways-b.svg
	fi
done
