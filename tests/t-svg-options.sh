# Flame graph options flamegraph.pl (Debian's) lacks, with hand-computed
# expectations from their meaning in today's flamegraph.pl and inferno;
# and off-CPU colouring from the "state" label.
. "$TOP/tests/lib.sh"

CHECK="python3 $TOP/tests/svg/check.py"
# the text of the element with id $2 in SVG $1
text_of() {
	python3 -c 'import sys,xml.etree.ElementTree as E
r=E.parse(sys.argv[1]).getroot()
print([t.text for t in r.iter("{http://www.w3.org/2000/svg}text") if t.get("id")==sys.argv[2]][0])' "$1" "$2"
}
rgb() { sed 's/rgb(\(.*\))/\1/'; }

# off-CPU: compute runs 3; read sleeps 6 and runs 2 (75% off-CPU); main
# and all 6 of 11 off (54.55%).  Mostly off-CPU: the io palette (r = g in
# 80..140, b >= 190); mostly on: hot (r >= 205, b <= 55)
cat > off.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],"frames":[{"name":"main"},{"name":"compute"},{"name":"read"}],
 "stacks":[[0,0],[1,1],[1,2]],
 "label_sets":[[["state","running"]],[["state","sleeping"]]],
 "samples":[[2,null,null,1,3],[3,null,null,2,6],[3,null,null,1,2]]}
J
$SFCONV -q off.json -o off.svg
$CHECK off.svg | cut -f1,7 > offt.out
cat > offt.want <<'W'
all	all (11 samples, 100%)|off-CPU: 54.55%
compute	compute (3 samples, 27.27%)|off-CPU: 0.00%
main	main (11 samples, 100.00%)|off-CPU: 54.55%
read	read (8 samples, 72.73%)|off-CPU: 75.00%
W
expect_same svg-offcpu-titles offt.want offt.out
$CHECK off.svg | cut -f1,6 | rgb | awk -F'[\t,]' '
	$1 == "compute" && !($2 >= 205 && $4 <= 55) { bad = 1 }
	$1 != "compute" && !($2 == $3 && $2 >= 80 && $2 <= 140 && $4 >= 190) { bad = 1 }
	END { exit bad }' && pass svg-offcpu-colours ||
	fail svg-offcpu-colours "$($CHECK off.svg | cut -f1,6)"
[ "$(text_of off.svg subtitle)" = "blue: mostly off-CPU" ] && pass svg-offcpu-subtitle ||
	fail svg-offcpu-subtitle "$(text_of off.svg subtitle)"
# the same samples as sample lines (no state label): no off-CPU anywhere
printf '\t3\tmain;compute\n\t8\tmain;read\n' | $SFCONV --from lines --to svg -o on.svg
grep -q 'off-CPU' on.svg && fail svg-offcpu-only-with-label "off-CPU without the label" ||
	pass svg-offcpu-only-with-label

printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\nmain;e;b 2\n' > small.folded

# --subtitle replaces the note line; --notes is a comment in the file
$SFCONV small.folded --subtitle 'My sub' --notes 'build 42' -o sub.svg
[ "$(text_of sub.svg subtitle)" = "My sub" ] && pass svg-subtitle ||
	fail svg-subtitle "$(text_of sub.svg subtitle)"
grep -q '<!-- NOTES: build 42 -->' sub.svg && pass svg-notes || fail svg-notes "no comment"
expect_error svg-notes-bad 2 "--notes expects text without '--'" \
	$SFCONV small.folded --notes 'a--b' -o x.svg

# --flamechart: lines in input order (no timestamps), only consecutive
# equal frames merged.  Total 5, 236 px each: a;b (1) | c (1) | a (3:
# b 2, d 1)
printf 'a;b 1\nc 1\na;b 2\na;d 1\n' > chart.folded
$SFCONV chart.folded --flamechart -o chart.svg
$CHECK chart.svg | cut -f1,3,5 > chart.out
cat > chart.want <<'W'
a	10.00	236.00
a	482.00	708.00
all	10.00	1180.00
b	10.00	236.00
b	482.00	472.00
c	246.00	236.00
d	954.00	236.00
W
expect_same svg-flamechart chart.want chart.out
# a frame's self weight where flamegraph.pl --flamechart draws it: in time
# order between its callees.  Total 13 (90.77 px each): a 5 self | b 5 |
# a 2 self | c 1
printf 'a 5\na;b 5\na 2\na;c 1\n' > chart2.folded
$SFCONV chart2.folded --flamechart -o chart2.svg
$CHECK chart2.svg | cut -f1,3,5 > chart2.out
cat > chart2.want <<'W'
a	10.00	1180.00
all	10.00	1180.00
b	463.85	453.85
c	1099.23	90.77
W
expect_same svg-flamechart-self-between chart2.want chart2.out
# merged: all of a frame's self weight left of its callees, as
# flamegraph.pl's sorted lines ("a 5" before "a;b 5") put it: b at
# 10 + 5/10 * 1180 = 600
printf 'a;b 5\na 5\n' > self.folded
$SFCONV self.folded -o self.svg
$CHECK self.svg | cut -f1,3,5 > self.out
printf 'a\t10.00\t1180.00\nall\t10.00\t1180.00\nb\t600.00\t590.00\n' > self.want
expect_same svg-self-left-of-callees self.want self.out
[ "$(text_of chart.svg title)" = "Flame Chart" ] && pass svg-flamechart-title ||
	fail svg-flamechart-title "$(text_of chart.svg title)"
# with timestamps: time order, not input order (c at t=100 comes first)
cat > chart.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],"frames":[{"name":"a"},{"name":"c"}],
 "stacks":[[0,0],[0,1]],
 "samples":[[1,null,300,0,1],[2,null,100,0,3]]}
J
$SFCONV chart.json --flamechart -o chartt.svg
$CHECK chartt.svg | cut -f1,3,5 > chartt.out
printf 'a\t895.00\t295.00\nall\t10.00\t1180.00\nc\t10.00\t885.00\n' > chartt.want
expect_same svg-flamechart-time-order chartt.want chartt.out

# --minwidth N%: tiny is 1% of the total; 2% of 1180 px = 23.6 px
printf 'main;big 99\nmain;tiny 1\n' > pct.folded
$SFCONV pct.folded --minwidth 2% -o pct2.svg
$SFCONV pct.folded --minwidth 0.5% -o pct05.svg
if ! $CHECK pct2.svg | grep -q '^tiny' && $CHECK pct05.svg | grep -q '^tiny'; then
	pass svg-minwidth-percent; else fail svg-minwidth-percent "tiny drawn wrongly"; fi
[ "$(text_of pct2.svg subtitle)" = "1 frame narrower than 23.6 px not drawn" ] &&
	pass svg-minwidth-percent-note || fail svg-minwidth-percent-note "$(text_of pct2.svg subtitle)"
expect_error svg-minwidth-bad 2 "--minwidth expects" $SFCONV pct.folded --minwidth 101% -o x.svg
# today's spelling still works, as an alias
$SFCONV pct.folded --min-width 100 -o mw.svg
$CHECK mw.svg | grep -q '^tiny' && fail svg-min-width-alias "tiny drawn" || pass svg-min-width-alias
$SFCONV --help | grep -A3 -e '--minwidth' | grep -q '(also --min-width)' &&
	pass svg-min-width-alias-help || fail svg-min-width-alias-help "not listed as an alias"

# --bgcolors: flamegraph.pl's gradients, or one flat colour
$SFCONV small.folded --bgcolors blue -o bgb.svg
grep -q '<stop stop-color="#eeeeee" offset="5%"/><stop stop-color="#e0e0ff" offset="95%"/>' bgb.svg &&
	pass svg-bgcolors-blue || fail svg-bgcolors-blue "$(grep -o '<defs>.*</defs>' bgb.svg)"
$SFCONV small.folded --bgcolors '#102030' -o bgf.svg
grep -q 'height="100%" fill="#102030"' bgf.svg && ! grep -q linearGradient bgf.svg &&
	pass svg-bgcolors-flat || fail svg-bgcolors-flat "no flat background"
expect_error svg-bgcolors-bad 2 "--bgcolors expects" $SFCONV small.folded --bgcolors pink -o x.svg

# --search-color: the fill the script gives matches
$SFCONV small.folded --search-color '#00ff00' -o sc.svg
grep -q 'sf:search="#00ff00"' sc.svg && pass svg-search-color || fail svg-search-color "not carried"
expect_error svg-search-color-bad 2 "--search-color expects" \
	$SFCONV small.folded --search-color 'x;}' -o x.svg

# labels cut on the right, as flamegraph.pl (--truncate-text-right says
# so): 180 px / (12 x 0.59) = 25 characters, the last two ".."
printf 'abcdefghijklmnopqrstuvwxyz0123456789 1\n' > long.folded
$SFCONV long.folded --width 200 -o tr0.svg
$SFCONV long.folded --width 200 --truncate-text-right -o tr1.svg
for f in tr0 tr1; do
	python3 "$TOP/tests/svg/frames.py" $f.svg | cut -f2 | grep -v '^all$' > $f.out
done
echo 'abcdefghijklmnopqrstuvw..' > tr.want
expect_same svg-truncate-default tr.want tr0.out
expect_same svg-truncate-text-right tr.want tr1.out

# colour keys: by name (default, and --deterministic: the same bytes),
# --random (not by name: the two x frames differ; still the same bytes
# run after run)
printf 'a;x 1\nb;x 1\n' > two.folded
$SFCONV two.folded -o k0.svg
$SFCONV two.folded --deterministic -o kd.svg
cmp -s k0.svg kd.svg && pass svg-deterministic-option || fail svg-deterministic-option "differs from the default"
[ "$($CHECK k0.svg | awk -F'\t' '$1=="x"{print $6}' | sort -u | wc -l)" -eq 1 ] &&
	pass svg-colour-by-name || fail svg-colour-by-name "one name, two colours"
$SFCONV two.folded --random -o kr1.svg
$SFCONV two.folded --random -o kr2.svg
[ "$($CHECK kr1.svg | awk -F'\t' '$1=="x"{print $6}' | sort -u | wc -l)" -eq 2 ] &&
	pass svg-random || fail svg-random "--random coloured x the same twice"
cmp -s kr1.svg kr2.svg && pass svg-random-same-bytes || fail svg-random-same-bytes "two runs differ"

# --cp --palette-file: a colour in the file is used; the others are added;
# the file is written back sorted by name (the root's key is empty)
printf 'x->rgb(1,2,3)\n' > my.map
$SFCONV two.folded --cp --palette-file my.map -o cp.svg
[ "$($CHECK cp.svg | awk -F'\t' '$1=="x"{print $6}' | sort -u)" = "rgb(1,2,3)" ] &&
	pass svg-palette-file-used || fail svg-palette-file-used "$($CHECK cp.svg | cut -f1,6)"
cut -d'>' -f1 my.map | tr '\n' ' ' > map.out
printf -- '- a- b- x- ' > map.want
expect_same svg-palette-file-written map.want map.out
grep -q '^x->rgb(1,2,3)$' my.map && pass svg-palette-file-kept || fail svg-palette-file-kept "$(cat my.map)"
printf 'broken line\n' > bad.map
expect_error svg-palette-file-bad 1 "^sfconv: bad.map:1: expected 'NAME->rgb" \
	$SFCONV two.folded --cp --palette-file bad.map -o x.svg
