# Flame graph SVG against flamegraph.pl itself: for the same folded input
# and each option flamegraph.pl has, the same frames (title "name (N
# samples, P%)"), labels, x, widths and heights, and with --hash the same
# fills.  The peer is the flamegraph.pl Debian ships in
# libdevel-nytprof-perl (an older FlameGraph; SF_FLAMEGRAPH_PL overrides).
# Options it lacks are tested by hand in t-svg-options.sh.
. "$TOP/tests/lib.sh"

FG=${SF_FLAMEGRAPH_PL:-/usr/share/perl5/Devel/NYTProf/flamegraph.pl}
FRAMES="python3 $TOP/tests/svg/frames.py"
if [ ! -f "$FG" ] || ! have perl; then
	skip svg-flamegraph-pl "no $FG (Debian package libdevel-nytprof-perl)"
	exit 0
fi

# the input: generated stacks, long names that need cutting, C++ and
# Java names, blanks inside names, a frame with a trailing blank, a
# separator frame "-" (grey in both), self weight in frames that have
# callees (flamegraph.pl draws it left of them)
python3 "$TOP/tests/svg/gen-stacks.py" 300 > in.folded
cat >> in.folded <<'W'
main;a_rather_long_function_name_that_needs_cutting;x 37
main;ns::Box::fill;java/lang/Thread.run;org/foo/Bar.baz 12
main;with blanks inside;- ;leaf 5
main;trailing ;t 4
main;trailing;t 6
main;-;kernel_entry 9
main 40
main;ns::Box::fill 30
main;with blanks inside 20
W

# compare NAME [--fills] OPTIONS...: the frames of both SVGs (frames.py
# --compare: titles, labels, heights, x and widths to flamegraph.pl's
# 0.1 px rounding, and with --fills the fills)
compare() {
	name=$1; shift
	fills=
	[ "${1-}" = --fills ] && { fills=--fills; shift; }
	if ! perl "$FG" "$@" in.folded > "peer-$name.svg" 2> "peer-$name.err"; then
		fail "$name" "flamegraph.pl failed: $(head -n 1 "peer-$name.err")"; return
	fi
	if ! $SFCONV --from collapsed in.folded --to svg "$@" -o "ours-$name.svg" 2> "ours-$name.err"; then
		fail "$name" "sfconv failed: $(head -n 1 "ours-$name.err")"; return
	fi
	$FRAMES --compare "peer-$name.svg" "ours-$name.svg" $fills > "$name.diff"
	if [ ! -s "$name.diff" ] && grep -q '<title>' "peer-$name.svg"; then pass "$name"
	else fail "$name" "frames differ from flamegraph.pl's"; head -n 6 "$name.diff"; fi
}

compare svg-fg-default
compare svg-fg-hash --fills --hash
for pal in hot mem io red green blue aqua yellow purple orange; do
	compare "svg-fg-colors-$pal" --fills --hash --colors "$pal"
done
# java: a Java path green, C++ yellow, the rest red in both versions
compare svg-fg-colors-java --fills --hash --colors java
compare svg-fg-width --width 700
compare svg-fg-height --height 24
compare svg-fg-minwidth --minwidth 5
compare svg-fg-fontsize --fontsize 9
compare svg-fg-fontwidth --fontwidth 0.8
compare svg-fg-countname --countname bytes
compare svg-fg-factor --factor 3
# a fraction: counts rounded to integers and percentages of the rounded
# counts, as flamegraph.pl prints them
compare svg-fg-factor-fraction --factor 0.013
compare svg-fg-total --total 10000
compare svg-fg-reverse --reverse
compare svg-fg-inverted --inverted
compare svg-fg-options-together --fills --hash --colors mem --width 900 --minwidth 2 --fontsize 10 --countname ms --reverse

# the same titles: --title, and the default of --inverted
for opts in "--title My_Title" "--inverted" ""; do
	perl "$FG" $opts in.folded > pt.svg 2>/dev/null
	$SFCONV --from collapsed in.folded --to svg $opts -o ot.svg
	$FRAMES --meta pt.svg | grep -E '^(title|width)' > pt.txt
	$FRAMES --meta ot.svg | grep -E '^(title|width)' > ot.txt
	expect_same "svg-fg-title${opts:+-}$(echo "$opts" | tr -d ' -')" pt.txt ot.txt
done

# frames are spaced by --height and drawn 1 px shorter, in both
perl "$FG" --height 24 in.folded > ph.svg
$SFCONV --from collapsed in.folded --to svg --height 24 -o oh.svg
for f in ph oh; do
	$FRAMES $f.svg | awk -F'\t' '{print $7}' | sort -n -u |
		awk 'NR > 1 {print $1 - p} {p = $1}' | sort -u > $f.gap
done
printf '24\n' > h.want
expect_same svg-fg-height-spacing-peer h.want ph.gap
expect_same svg-fg-height-spacing h.want oh.gap

# --fonttype: flamegraph.pl puts it on every text, we in the style sheet
$SFCONV --from collapsed in.folded --to svg --fonttype Courier -o ft.svg
perl "$FG" --fonttype Courier in.folded > pft.svg
grep -q 'font-family="Courier"' pft.svg && grep -q 'font-family:Courier,' ft.svg &&
	pass svg-fg-fonttype || fail svg-fg-fonttype "Courier is not the font"

# --nametype: the details line's prefix (flamegraph.pl's script writes
# "$nametype " + info; ours reads sf:nametype)
$SFCONV --from collapsed in.folded --to svg --nametype Frame: -o nt.svg
perl "$FG" --nametype Frame: in.folded > pnt.svg
grep -q '"Frame: " + info' pnt.svg && grep -q 'sf:nametype="Frame:"' nt.svg &&
	pass svg-fg-nametype || fail svg-fg-nametype "the name type is not carried"

# --cp: colours from palette.map; a name it lacks is added; the file is
# written back sorted, "name->rgb(...)" per line.  Every frame's colour
# comes from the map here, so both draw the same fills and write the same
# file.
$FRAMES ours-svg-fg-default.svg | cut -f1 | sed 's/ ([0-9,]* samples, [0-9.%]*)$//' |
	sed 's/^all$//' | LC_ALL=C sort -u |
	awk '{printf "%s->rgb(%d,%d,%d)\n", $0, NR % 256, (7 * NR) % 256, (13 * NR) % 256}' > map.seed
mkdir -p cp-peer cp-ours
# ("-" is grey in both, never in the map)
grep -v '^-->' map.seed > cp-peer/palette.map
cp cp-peer/palette.map cp-ours/palette.map
(cd cp-peer && perl "$FG" --cp ../in.folded > peer.svg)
(cd cp-ours && $SFCONV --from collapsed ../in.folded --to svg --cp -o ours.svg)
$FRAMES --compare cp-peer/peer.svg cp-ours/ours.svg --fills > cp.diff
[ -s cp.diff ] && { fail svg-fg-cp-fills "fills differ"; head -n 4 cp.diff; } ||
	pass svg-fg-cp-fills
LC_ALL=C sort cp-peer/palette.map > cpp.map
LC_ALL=C sort cp-ours/palette.map > cpo.map
expect_same svg-fg-cp-file cpp.map cpo.map

# --negate on a differential input: the same frames grow red (blue with
# --negate) in both.  flamegraph.pl reads "stack BASE NEW" itself.
printf 'main;grow 1 4\nmain;shrink 5 2\nmain;same 3 3\n' > d.folded
for neg in "" --negate; do
	perl "$FG" $neg d.folded > pd.svg
	$SFCONV --from difffolded d.folded --to svg $neg -o od.svg
	for f in pd od; do
		$FRAMES $f.svg | awk -F'\t' '{split($1, n, " "); print n[1], $6}' |
			sed 's/rgb(\(.*\))/\1/' | awk -F'[ ,]' '$1 ~ /^(grow|shrink|same)$/ {
				print $1, ($2 > $4 ? "red" : $4 > $2 ? "blue" : "neutral") }' > $f.hue
	done
	expect_same "svg-fg-diff-hues${neg}" pd.hue od.hue
done

# Frames of one name from two modules are one box, as flamegraph.pl draws
# the folded stacks (which carry no module): perf input where
# _Py_Dealloc@plt comes from two libraries, 4 + 3 = 7 samples; with
# --by-module two boxes of 4 and 3.
printf '%s\n' 'python3 1 [0] 1.0: 4 cycles:' '	10 _Py_Dealloc@plt (/usr/lib/liba.so)' \
	'	20 main (/usr/bin/python3)' '' \
	'python3 1 [0] 2.0: 3 cycles:' '	30 _Py_Dealloc@plt (/usr/lib/libb.so)' \
	'	20 main (/usr/bin/python3)' '' > mod.perf
$SFCONV -q --from perf mod.perf --to collapsed > mod.folded
perl "$FG" mod.folded > pmod.svg 2>/dev/null
$SFCONV -q --from perf mod.perf --to svg --countname samples -o omod.svg
$FRAMES --compare pmod.svg omod.svg > mod.diff
if [ ! -s mod.diff ] && grep -q '<title>_Py_Dealloc@plt (7 samples' omod.svg; then
	pass svg-fg-merge-by-name
else
	fail svg-fg-merge-by-name "not one box of 7: $(grep -o '<title>_Py[^<]*' omod.svg | tr '\n' ' ')"
fi
$SFCONV -q --from perf mod.perf --to svg --countname samples --by-module -o bymod.svg
got=$(grep -o '<title>_Py_Dealloc@plt ([0-9]* samples' bymod.svg | sort | tr '\n' ' ')
if [ "$got" = '<title>_Py_Dealloc@plt (3 samples <title>_Py_Dealloc@plt (4 samples ' ]; then
	pass svg-by-module
else
	fail svg-by-module "want boxes of 3 and 4, got: $got"
fi
