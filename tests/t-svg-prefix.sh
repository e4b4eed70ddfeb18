# Flame graphs grouped by process or thread (issue 26): --pid-prefix and
# --thread-prefix give each stack its process (COMM-PID) or thread
# (NAME-TID) as the root frame, as the collapsed writer writes them, so
# the SVG is the one flamegraph.pl draws of that collapsed output.
# Hand-computed widths and positions; flamegraph.pl's own frames where
# Debian's is installed; a capture of a shell that forks.
. "$TOP/tests/lib.sh"

CHECK="python3 $TOP/tests/svg/check.py"
FRAMES="python3 $TOP/tests/svg/frames.py"
FG=${SF_FLAMEGRAPH_PL:-/usr/share/perl5/Devel/NYTProf/flamegraph.pl}

# two processes of two threads: app-10 (app 10: main;a 3; worker 11:
# main;b 1, work 1) and helper-20 (helper 20: main;a 2; io 21: poll 3);
# 10 samples on 1180 px, 118 px each
cat > pp.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[{"pid":10,"tid":10,"name":"app"},{"pid":10,"tid":11,"name":"worker"},
  {"pid":20,"tid":20,"name":"helper"},{"pid":20,"tid":21,"name":"io"}],
 "frames":[{"name":"main"},{"name":"a"},{"name":"b"},{"name":"work"},{"name":"poll"}],
 "stacks":[[0,0],[1,1],[1,2],[0,3],[0,4]],
 "samples":[[2,0,null,0,3],[3,1,null,0,1],[4,1,null,0,1],[2,2,null,0,2],[5,3,null,0,3]]}
J
# NAME DEPTH X WIDTH.  Per process: app-10 (5) at 10, helper-20 (5) at
# 10 + 590; in app-10 main (4) then work (1) at 10 + 4 * 118; in main a
# (3) then b (1) at 10 + 3 * 118; helper-20's main (2) then poll at
# 600 + 236
cat > pid.want <<'W'
a	3	10.00	354.00
a	3	600.00	236.00
all	0	10.00	1180.00
app-10	1	10.00	590.00
b	3	364.00	118.00
helper-20	1	600.00	590.00
main	2	10.00	472.00
main	2	600.00	236.00
poll	2	836.00	354.00
work	2	482.00	118.00
W
$SFCONV -q pp.json --pid-prefix -o pid.svg
$CHECK pid.svg | cut -f1-3,5 > pid.out
expect_same svg-pid-prefix-hand pid.want pid.out
# per thread, by name: app-10 (3), helper-20 (2) at 10 + 354, io-21 (3)
# at 364 + 236, worker-11 (2) at 600 + 354, its work after main (1)
cat > tid.want <<'W'
a	3	10.00	354.00
a	3	364.00	236.00
all	0	10.00	1180.00
app-10	1	10.00	354.00
b	3	954.00	118.00
helper-20	1	364.00	236.00
io-21	1	600.00	354.00
main	2	10.00	354.00
main	2	364.00	236.00
main	2	954.00	118.00
poll	2	600.00	354.00
work	2	1072.00	118.00
worker-11	1	954.00	236.00
W
$SFCONV -q pp.json --thread-prefix -o tid.svg
$CHECK tid.svg | cut -f1-3,5 > tid.out
expect_same svg-thread-prefix-hand tid.want tid.out
# --reverse reverses the whole line, as flamegraph.pl --reverse: the
# process is the leaf; a (5) at 10, b (1) at 600, poll (3) at 718, work
# (1) at 1072; a's caller main (5) and its callers app-10 (3) and
# helper-20 (2) at 10 + 354; b's main and app-10; poll's helper-20;
# work's app-10
$SFCONV -q pp.json --pid-prefix --reverse -o rev.svg
$CHECK rev.svg | cut -f1-3,5 | grep -v '^all' > rev.out
cat > rev.want <<'W'
a	1	10.00	590.00
app-10	2	1072.00	118.00
app-10	3	10.00	354.00
app-10	3	600.00	118.00
b	1	600.00	118.00
helper-20	2	718.00	354.00
helper-20	3	364.00	236.00
main	2	10.00	590.00
main	2	600.00	118.00
poll	1	718.00	354.00
work	1	1072.00	118.00
W
expect_same svg-pid-prefix-reverse rev.want rev.out
# a flame chart: one root frame per process, its threads' samples after
# each other (app's main (3) and then worker's main (1): not merged)
$SFCONV -q pp.json --pid-prefix --flamechart -o chart.svg
n=$($CHECK chart.svg | awk -F'\t' '$2 == 1' | cut -f1 | tr '\n' ' ')
[ "$n" = "app-10 helper-20 " ] && pass svg-pid-prefix-flamechart ||
	fail svg-pid-prefix-flamechart "root frames '$n'"
# --pid-prefix wins over --thread-prefix, as in the collapsed writer
$SFCONV -q pp.json --pid-prefix --thread-prefix -o both.svg
cmp -s pid.svg both.svg && pass svg-pid-prefix-wins || fail svg-pid-prefix-wins "not the --pid-prefix graph"

# the peer: flamegraph.pl draws the collapsed writer's output with the
# same prefix; a sample without a thread has no prefix, and merges with
# a group whose label its root frame's name equals, as the lines do
python3 - <<'PY'
import json, random
m = json.load(open('pp.json'))
m['frames'].append({'name': 'app-10'})
m['stacks'] += [[0, 5], [6, 1]]
m['samples'].append([7, None, None, 0, 4])
json.dump(m, open('mix.json', 'w'))
r = random.Random(26)
frames = [{'name': 'f%02d' % i} for i in range(30)]   # none a prefix of another
stacks = []
for k in range(300):
    stacks.append([0 if k < 6 or r.random() < 0.1 else r.randrange(1, k + 1),
                   r.randrange(len(frames))])
threads = [{'pid': 100 + p, 'tid': 100 + p + 7 * t, 'name': 'p%d' % p if t == 0 else 't%d' % t}
           for p in range(3) for t in range(3)]
threads.append({'tid': 900})   # a thread without a process
samples = [[r.randrange(1, len(stacks) + 1), r.randrange(len(threads)), None, 0,
            r.randrange(1, 9)] for _ in range(400)]
json.dump({'format': 'sftools-profile', 'version': 1,
           'sample_types': [{'type': 'samples', 'unit': 'count'}],
           'threads': threads, 'frames': frames, 'stacks': stacks,
           'samples': samples}, open('rand.json', 'w'))
PY
# the frames of the way to it before, a collapsed round trip (the same
# frames, places and fills; the file may list them in another order)
for how in pid thread; do
	$SFCONV -q rand.json --$how-prefix -o direct.svg
	$SFCONV -q rand.json --to collapsed --$how-prefix | $SFCONV -q --from collapsed --to svg -o folded.svg
	$CHECK direct.svg > direct.out
	$CHECK folded.svg > folded.out
	expect_same svg-prefix-$how-as-collapsed folded.out direct.out
done
if [ ! -f "$FG" ] || ! have perl; then
	skip svg-prefix-flamegraph-pl "no $FG (Debian package libdevel-nytprof-perl)"
else
	for in in pp mix rand; do
		for how in pid thread; do
			$SFCONV -q $in.json --to collapsed --$how-prefix -o $in-$how.folded
			for opts in "" "--reverse" "--hash --inverted"; do
				name=svg-prefix-fg-$in-$how$(echo "$opts" | tr -d ' ')
				fills=; case $opts in *--hash*) fills=--fills ;; esac
				perl "$FG" $opts $in-$how.folded > peer.svg 2>/dev/null
				$SFCONV -q $in.json --to svg --$how-prefix $opts -o ours.svg
				$FRAMES --compare peer.svg ours.svg $fills > cmp.out
				if [ ! -s cmp.out ] && grep -q '<title>' peer.svg; then pass "$name"
				else fail "$name" "frames differ from flamegraph.pl's: $(head -n 2 cmp.out)"; fi
			done
		done
	done
fi

# a capture of a shell that forks (two sleeps, one in the background):
# one root frame per process the capture lists, COMM-PID; -j1 and -j2
# give the same bytes
timeout 120 "$SFCAPTURE" -q -o fork.json -- sh -c 'sleep 1 & sleep 1; wait' > fork.out 2> fork.err
rc=$?
if [ $rc -ne 0 ] && grep -q 'permission denied\|not permitted\|already traced' fork.err; then
	skip svg-prefix-capture "ptrace not permitted here: $(head -n 1 fork.err)"
elif [ $rc -ne 0 ]; then
	fail svg-prefix-capture "sfcapture status $rc: $(head -n 2 fork.err)"
else
	$SFCONV -q -j1 fork.json --pid-prefix --minwidth 0 --max-frames 0 -o fork1.svg
	$SFCONV -q -j2 fork.json --pid-prefix --minwidth 0 --max-frames 0 -o fork2.svg
	cmp -s fork1.svg fork2.svg && pass svg-prefix-capture-jobs ||
		fail svg-prefix-capture-jobs "-j1 and -j2 differ"
	# the pids of the threads with samples, and the pids of the roots
	python3 - fork.json > fork.want <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
used = {s[1] for s in m['samples'] if s[1] is not None}
for p in sorted({m['threads'][t].get('pid') for t in used}):
    print(p)
PY
	$CHECK fork1.svg | awk -F'\t' '$2 == 1 { n = split($1, w, "-"); print w[n] }' | sort -n > fork.got
	n=$(wc -l < fork.got)
	if [ "$n" -ge 2 ] && cmp -s fork.want fork.got; then pass svg-prefix-capture-roots
	else fail svg-prefix-capture-roots "roots of pids $(tr '\n' ' ' < fork.got), the capture's $(tr '\n' ' ' < fork.want)"; fi
fi
