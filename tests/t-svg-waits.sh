# Off-CPU flame graphs coloured by wait kind: a capture's blocked samples
# carry "syscall" (sfcapture), and a mostly off-CPU frame takes the
# palette of the wait kind with the most off-CPU weight under it (the
# first of lock, I/O, sleep, other, none on a tie), as docs/formats.md
# states.  Expectations are worked out by hand from that rule.
. "$TOP/tests/lib.sh"

CHECK="python3 $TOP/tests/svg/check.py"

# label sets (1-based): 1 running; 2 futex; 3 read on a pipe;
# 4 clock_nanosleep; 5 ioctl; 6 blocked, no syscall; 7 recvfrom on a
# socket; 8 nanosleep
cat > w.json <<'J'
{"format":"sftools-profile","version":1,"meta":{"source_format":"capture"},
 "sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],
 "frames":[{"name":"main"},{"name":"compute"},{"name":"lockwait"},
  {"name":"pipe_read"},{"name":"nap"},{"name":"ioctl_fn"},
  {"name":"blocked"},{"name":"mixed"},{"name":"tie"},{"name":"half"}],
 "stacks":[[0,0],[1,1],[1,2],[1,3],[1,4],[1,5],[1,6],[1,7],[1,8],[1,9]],
 "label_sets":[[["state","running"]],
  [["state","sleeping"],["syscall","futex"],["futex","0x1000"]],
  [["state","sleeping"],["syscall","read"],["fd.target","pipe:[77]"]],
  [["state","sleeping"],["syscall","clock_nanosleep"]],
  [["state","sleeping"],["syscall","ioctl"]],
  [["state","sleeping"]],
  [["state","sleeping"],["syscall","recvfrom"],["fd.target","socket:[88]"]],
  [["state","sleeping"],["syscall","nanosleep"]]],
 "samples":[[2,null,null,1,4],[3,null,null,2,3],[4,null,null,3,2],
  [5,null,null,4,2],[6,null,null,5,1],[7,null,null,6,1],
  [8,null,null,2,2],[8,null,null,7,3],[8,null,null,1,1],
  [9,null,null,2,1],[9,null,null,8,1],
  [10,null,null,1,2],[10,null,null,2,1]]}
J
# By hand: compute on-CPU -> hot; lockwait futex -> lock; pipe_read
# read -> io; nap clock_nanosleep -> sleep; ioctl_fn -> other; blocked
# -> none; mixed: lock 2, io 3, running 1 -> io; tie: lock 1, sleep 1 ->
# lock (first); half: running 2, futex 1, 1/3 off -> hot; main and all:
# 17 of 24 off, lock 3+2+1+1 = 7, io 2+3 = 5, sleep 3, other 1, none 1
# -> lock.
cat > want <<'W'
all	lock
blocked	none
compute	hot
half	hot
ioctl_fn	other
lockwait	lock
main	lock
mixed	io
nap	sleep
pipe_read	io
tie	lock
W
# the palettes' ranges (flamegraph.pl's formulas): purple r = b in
# 190..255, g 80..140; io r = g in 80..140, b 190..245; aqua r 50..110,
# g = b 165..220; green r = b 50..110, g 200..255; grey r = g = b in
# 150..200; hot r >= 205, b <= 55
classify() {
	$CHECK "$1" | cut -f1,6 | sed 's/rgb(\(.*\))/\1/' | awk -F'[\t,]' '{
		r = $2; g = $3; b = $4; c = "?"
		if (r == b && r >= 190 && g >= 80 && g <= 140) c = "lock"
		else if (r == g && g == b && r >= 150 && r <= 200) c = "none"
		else if (r == g && r >= 80 && r <= 140 && b >= 190) c = "io"
		else if (g == b && r >= 50 && r <= 110 && g >= 165 && g <= 220) c = "sleep"
		else if (r == b && r >= 50 && r <= 110 && g >= 200) c = "other"
		else if (r >= 205 && b <= 55) c = "hot"
		print $1 "\t" c }'
}
$SFCONV -q w.json -o w.svg
classify w.svg > got
expect_same svg-wait-colours want got
sub=$(python3 -c 'import sys,xml.etree.ElementTree as E
r=E.parse(sys.argv[1]).getroot()
print([t.text for t in r.iter("{http://www.w3.org/2000/svg}text") if t.get("id")=="subtitle"][0])' w.svg)
[ "$sub" = "mostly off-CPU, by wait: purple lock, blue I/O, aqua sleep, green other syscall, grey no syscall" ] &&
	pass svg-wait-legend || fail svg-wait-legend "$sub"
# -j1 and -j2 agree
$SFCONV -q -j2 w.json -o w2.svg
cmp -s w.svg w2.svg && pass svg-wait-parallel || fail svg-wait-parallel "-j2 differs"
# the same capture without the syscall labels: off-CPU stays blue (io)
sed 's/\["syscall","[a-z_]*"\]/["note","x"]/g' w.json > nosc.json
$SFCONV -q nosc.json -o nosc.svg
classify nosc.svg | awk -F'\t' '$1 != "compute" && $1 != "half" && $2 != "io" { bad = 1 }
	END { exit bad }' && pass svg-wait-needs-syscall ||
	fail svg-wait-needs-syscall "$(classify nosc.svg | tr '\n' ' ')"

# the titles say the wait kinds: one line per kind with off-CPU weight
# under the frame, heaviest first as the colour picks (the first kind on
# a tie), its share of the frame's samples.  By hand from the labels
# above: mixed 6 samples, I/O 3, lock 2; tie lock 1 = sleep 1; half only
# futex 1 of 3 (hot, but its wait still said); compute none; main 24:
# lock 7, I/O 5, sleep 3, other 1, none 1.
titles() {
	python3 -c 'import sys,xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
for g in E.parse(sys.argv[1]).getroot().iter(ns + "g"):
    t = g.find(ns + "title")
    if t is not None and t.text.split(" (")[0] in sys.argv[2:]:
        print(t.text.replace("\n", " | "))' "$@"
}
cat > want.titles <<'W'
main (24 samples, 100.00%) | off-CPU: 70.83% | lock: 7 samples (29.17%) | I/O: 5 samples (20.83%) | sleep: 3 samples (12.50%) | other syscall: 1 samples (4.17%) | no syscall: 1 samples (4.17%)
compute (4 samples, 16.67%) | off-CPU: 0.00%
half (3 samples, 12.50%) | off-CPU: 33.33% | lock: 1 samples (33.33%)
mixed (6 samples, 25.00%) | off-CPU: 83.33% | I/O: 3 samples (50.00%) | lock: 2 samples (33.33%)
tie (2 samples, 8.33%) | off-CPU: 100.00% | lock: 1 samples (50.00%) | sleep: 1 samples (50.00%)
W
titles w.svg main compute half mixed tie > got.titles
expect_same svg-wait-titles want.titles got.titles
# without syscall labels the titles have no wait lines
titles nosc.svg main mixed > got.nosc
printf '%s\n' 'main (24 samples, 100.00%) | off-CPU: 70.83%' \
	'mixed (6 samples, 25.00%) | off-CPU: 83.33%' > want.nosc
expect_same svg-wait-titles-need-syscall want.nosc got.nosc
