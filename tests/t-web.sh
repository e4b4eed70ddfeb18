# Web-viewer formats: cpuprofile, chrome-trace, speedscope, firefox; and
# UTF-16 collapsed stacks.  Expected values come from the peers' own
# fixtures (the same profile in several formats), from an independent
# Python reader (tests/web/ref_collapsed.py), or from hand computation
# written next to the check.
. "$TOP/tests/lib.sh"

REF="python3 $TOP/tests/web/ref_collapsed.py"

# sum equal stacks of a collapsed file and sort bytewise: how the peers'
# collapsed fixtures compare with our (aggregated, sorted) output
fold() { tr -d '\r' < "$1" | awk 'NF { c = $NF; sub(/[ \t]+[^ \t]+$/, ""); s[$0] += c } END { for (k in s) print k " " s[k] }' | LC_ALL=C sort; }

# ----- hand-written inputs (always run) -----

# speedscope evented: a [0,10], b [2,5] inside: a self 7, a;b 3
cat > ev.speedscope.json <<'J'
{"$schema":"https://www.speedscope.app/file-format-schema.json",
 "shared":{"frames":[{"name":"a"},{"name":"b","file":"x.js","line":3}]},
 "profiles":[{"type":"evented","name":"main","unit":"milliseconds",
  "startValue":0,"endValue":10,"events":[
  {"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":2},
  {"type":"C","frame":1,"at":5},{"type":"C","frame":0,"at":10}]}]}
J
printf 'a 7\na;b 3\n' > ev.want
$SFCONV ev.speedscope.json > ev.out 2>/dev/null
expect_same speedscope-evented-hand ev.want ev.out

# chrome trace, X events nested by time only, plus B/E on a second thread:
# t1: outer [0,10] > inner [2,6] -> outer 6, outer;inner 4
# t2: f [0,3], then g [3,4] -> f 3, g 1
cat > hand.trace.json <<'J'
[{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}},
 {"ph":"X","pid":1,"tid":1,"name":"inner","ts":2,"dur":4},
 {"ph":"X","pid":1,"tid":1,"name":"outer","ts":0,"dur":10},
 {"ph":"B","pid":1,"tid":2,"name":"f","ts":0},
 {"ph":"E","pid":1,"tid":2,"name":"f","ts":3},
 {"ph":"B","pid":1,"tid":2,"name":"g","ts":3},
 {"ph":"E","pid":1,"tid":2,"ts":4}]
J
printf '2;f 3\n2;g 1\nmain-1;outer 6\nmain-1;outer;inner 4\n' > hand.want
$SFCONV --thread-prefix --to collapsed hand.trace.json > hand.out 2>/dev/null
expect_same chrome-trace-hand hand.want hand.out

# the same trace cut off after an event (no closing bracket) still loads
head -c -3 hand.trace.json > cut.json
printf '2;f 3\n2;g 1\nmain-1;outer 6\nmain-1;outer;inner 4\n' > cut.want
$SFCONV --thread-prefix --to collapsed cut.json > cut.out 2>cut.err
expect_same chrome-trace-truncated-loads cut.want cut.out
grep -q 'truncated' cut.err && pass chrome-trace-truncated-warns || fail chrome-trace-truncated-warns "no warning"
# cut inside an event: that event is dropped, the ones before it load
sed '$d' hand.trace.json | sed '$d' > cut2.json
printf ' {"ph":"E","pid":1,"tid":2,"name":"g' >> cut2.json
printf '2;f 3\nmain-1;outer 6\nmain-1;outer;inner 4\n' > cut2.want
$SFCONV --thread-prefix --to collapsed --from chrome-trace cut2.json > cut2.out 2>/dev/null
expect_same chrome-trace-truncated-mid-event cut2.want cut2.out

# a cpuprofile by hand: (root) > main (line 0 -> 1) > work; samples
# main, work, work -> main 1, main;work 2; deltas 0,10,20 us
cat > hand.cpuprofile <<'J'
{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
 {"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":4},"children":[3]},
 {"id":3,"callFrame":{"functionName":"work","scriptId":"1","url":"file:///a.js","lineNumber":9,"columnNumber":0}}],
 "startTime":1000,"endTime":1060,"samples":[2,3,3],"timeDeltas":[0,10,20]}
J
printf 'main 1\nmain;work 2\n' > cp.want
$SFCONV hand.cpuprofile > cp.out 2>/dev/null
expect_same cpuprofile-hand cp.want cp.out
# wall time per sample = time to the next one (10, 20, and 30 to endTime):
# main 10, main;work 50
printf 'main 10\nmain;work 50\n' > cpw.want
$SFCONV --to json hand.cpuprofile > cp.json 2>/dev/null
python3 - cp.json > cpw.out <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
wall = [i for i, t in enumerate(d['sample_types']) if t['type'] == 'wall'][0]
names = [f['name'] for f in d['frames']]
stacks = [None] + d['stacks']
def path(s):
    out = []
    while s:
        out.append(names[stacks[s][1]]); s = stacks[s][0]
    return ';'.join(reversed(out))
tot = {}
for s in d['samples']:
    tot[path(s[0])] = tot.get(path(s[0]), 0) + s[4 + wall]
for k in sorted(tot): print(k, tot[k])
P
expect_same cpuprofile-wall-weights cpw.want cpw.out
# to speedscope: in time (microseconds), as speedscope imports a
# .cpuprofile, not in sample counts: weights 10, 20, 30 (by hand above)
$SFCONV hand.cpuprofile --to speedscope > cps.json 2>/dev/null
python3 - cps.json <<'P' && pass cpuprofile-to-speedscope-time || fail cpuprofile-to-speedscope-time "$(head -c 300 cps.json)"
import json, sys
p = json.load(open(sys.argv[1]))["profiles"][0]
sys.exit(not (p["unit"] == "microseconds" and p["weights"] == [10, 20, 30]))
P
# line/column are 0-based in the file, 1-based in the model
grep -q '"name":"main","file":"file:///a.js","line":1,"column":5' cp.json &&
	pass cpuprofile-line-column || fail cpuprofile-line-column "$(grep main cp.json)"

# ----- round trips: writer -> reader keeps the stacks and weights -----
for f in speedscope cpuprofile chrome-trace; do
	case $f in speedscope) ext=.speedscope.json ;; cpuprofile) ext=.cpuprofile ;; *) ext=.trace.json ;; esac
	printf 'main;a;b 3\nmain;a 1\nmain;c;"q" 2\nother 5\n' > rt.folded
	$SFCONV rt.folded --period 1 -o "rt$ext" 2>/dev/null
	$SFCONV "rt$ext" --to collapsed > rt.out 2>/dev/null
	$SFCONV rt.folded > rt.want
	expect_same "roundtrip-$f-collapsed" rt.want rt.out
	# sorted output must be deterministic
	$SFCONV rt.folded --period 1 -o "rt2$ext" 2>/dev/null
	cmp -s "rt$ext" "rt2$ext" && pass "deterministic-$f" || fail "deterministic-$f" "two runs differ"
done
# threads survive speedscope and chrome-trace
printf '1:main\t1\ta;b\n2:worker\t5\ta;c\n1:main\t2\ta\n' > th.lines
$SFCONV --from lines th.lines --to collapsed --thread-prefix > th.want 2>/dev/null
for f in speedscope chrome-trace; do
	$SFCONV --from lines th.lines --to $f -o th.$f 2>/dev/null
	$SFCONV --from $f th.$f --to collapsed --thread-prefix > th.out 2>/dev/null
	if [ $f = speedscope ]; then
		# speedscope has no tids: profile names are "name-tid"
		expect_same "roundtrip-$f-threads" th.want th.out
	else
		expect_same "roundtrip-$f-threads" th.want th.out
	fi
done
# a cpuprofile holds one thread: the heaviest (worker 5 > main 3) unless
# chosen
$SFCONV --from lines th.lines --to cpuprofile --period 1 -o th.cpuprofile 2>th.err
printf 'a;c 5\n' > th1.want
$SFCONV th.cpuprofile > th1.out 2>/dev/null
expect_same cpuprofile-heaviest-thread th1.want th1.out
grep -q 'wrote 1 of 2 threads' th.err && pass cpuprofile-threads-warning || fail cpuprofile-threads-warning "$(cat th.err)"
$SFCONV --from lines th.lines --to cpuprofile --period 1 --cpuprofile-thread main -o th2.cpuprofile 2>/dev/null
printf 'a 2\na;b 1\n' > th2.want
$SFCONV th2.cpuprofile > th2.out 2>/dev/null
expect_same cpuprofile-thread-option th2.want th2.out
# timestamps: a timed profile keeps its gaps as timeDeltas (us)
$SFCONV hand.cpuprofile -o again.cpuprofile 2>/dev/null
grep -q '"timeDeltas":\[0,10,20\]' again.cpuprofile && pass cpuprofile-timedeltas-kept || fail cpuprofile-timedeltas-kept "$(tail -c 120 again.cpuprofile)"

# ----- malformed input: one message with file and line, exit 1 -----
printf '{"nodes":[\n{"id":1,\n"callFrame":{' > bad1.cpuprofile
expect_error cpuprofile-truncated 1 '^sfconv: bad1.cpuprofile:3: truncated JSON' $SFCONV bad1.cpuprofile -o never.folded
[ -e never.folded ] && fail web-no-partial-output "never.folded left" || pass web-no-partial-output
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json",\n"shared":{"frames":[]},\n"profiles":[}\n' > bad2.json
expect_error speedscope-invalid-json 1 '^sfconv: bad2.json:3: invalid JSON' $SFCONV bad2.json
printf '[{"ph":"B","pid":1,"tid":1,"name":"a","ts":0},\n{"ph":"E","pid":1,"tid":1,"ts":"x"}]\n' > bad3.json
expect_error chrome-trace-bad-ts 1 'traceEvents\[1\].*"ts"' $SFCONV --from chrome-trace bad3.json
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[7],"timeDeltas":[0],"startTime":0}\n' > bad4.cpuprofile
expect_error cpuprofile-unknown-node 1 'unknown node id 7' $SFCONV bad4.cpuprofile
printf '{"meta":{"interval":1},"threads":[{"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,5]]},"frameTable":{"schema":{"location":0},"data":[[0]]},"stringTable":["x"],"samples":{"schema":{"stack":0,"time":1},"data":[[0,1]]}}]}\n' > bad5.json
expect_error firefox-bad-frame-index 1 'threads\[0\]: stackTable' $SFCONV bad5.json
expect_error firefox-not-writable 2 '.' $SFCONV ev.speedscope.json --to firefox

# ----- UTF-16 and CRLF collapsed (speedscope's fixtures) -----
if have_peers; then
	S=$PEERS/speedscope
	fold "$S/stackcollapse/simple.txt" > simple.want
	for f in simple-crlf simple-utf16-le simple-utf16-be; do
		$SFCONV "$S/stackcollapse/$f.txt" > "$f.out" 2>/dev/null
		expect_same "collapsed-$f" simple.want "$f.out"
	done

	# the same profile as speedscope JSON, evented and sampled
	for f in 0.0.1/simple 0.0.1/simple-no-pretty-print 0.1.2/simple-sampled; do
		$SFCONV "$S/speedscope/$f.speedscope.json" > ss.out 2>/dev/null
		expect_same "speedscope-$(basename $f)" simple.want ss.out
	done
	# two profiles "one" and "two", each the simple profile
	sed 's/^/one;/' simple.want > two.want; sed 's/^/two;/' simple.want >> two.want
	$SFCONV --thread-prefix --to collapsed "$S/speedscope/0.6.0/two-sampled.speedscope.json" > two.out 2>/dev/null
	expect_same speedscope-two-profiles two.want two.out
	# speedscope rejects out-of-order events, so do we; an unclosed
	# frame is closed at endValue (A open 0..100)
	expect_error speedscope-out-of-order 1 'events\[6\]: closes a frame' $SFCONV "$S/speedscope/invalid/out-of-order-events.json"
	printf 'A 100\n' > inc.want
	$SFCONV "$S/speedscope/invalid/incomplete-trace.json" > inc.out 2>/dev/null
	expect_same speedscope-incomplete-closed inc.want inc.out

	# trace events, by hand from the file: alpha [0,14] > beta [1,13] >
	# gamma X [2,7]; epsilon has no "dur": alpha 2, beta 7, gamma 5
	printf 'alpha 2\nalpha;beta 7\nalpha;beta;gamma 5\n' > tr.want
	for f in simple simple-partial simple-partial-trailing-comma simple-partial-whitespace; do
		$SFCONV "$S/trace-event/$f.json" > tr.out 2>/dev/null
		expect_same "chrome-trace-$f" tr.want tr.out
	done
	# the object form holds alpha [0,14] > beta [1,13] and an X event
	# with neither name nor "dur": alpha 2, beta 12
	printf 'alpha 2\nalpha;beta 12\n' > tro.want
	$SFCONV "$S/trace-event/simple-object.json" > tro.out 2>/dev/null
	expect_same chrome-trace-simple-object tro.want tro.out
	# multiprocess: 8 threads, each with one 1-us event
	n=$($SFCONV --thread-prefix --to collapsed "$S/trace-event/multiprocess.json" 2>/dev/null | awk '$NF == 1' | wc -l)
	[ "$n" -eq 8 ] && pass chrome-trace-multiprocess || fail chrome-trace-multiprocess "$n lines with weight 1"
	# zero-duration events hold no time: only A [0,10]
	printf 'A 10\n' > z.want
	$SFCONV "$S/trace-event/zero-duration-events.json" > z.out 2>/dev/null
	expect_same chrome-trace-zero-duration z.want z.out
	# every trace-event fixture loads
	for f in "$S"/trace-event/*.json "$S"/Chrome/*/*.json "$PEERS"/firefox-profiler/chrome*.json.gz "$PEERS"/firefox-profiler/test.chrome-unchunked.json; do
		n=$(basename "$f")
		$SFCONV --to json "$f" > fx.json 2>fx.err
		if [ $? -eq 0 ] && grep -q '"source_format":"chrome-trace"' fx.json; then pass "chrome-trace-loads-$n"
		else fail "chrome-trace-loads-$n" "$(head -n 2 fx.err)"; fi
	done
	# Chrome 69's trace holds V8 samples: (idle) and a;b;g chains from
	# ProfileChunk events, not the renderer's X events
	$SFCONV "$S/Chrome/69/simple.json" > c69.out 2>/dev/null
	grep -q '^(anonymous);alpha;beta;gamma [0-9]' c69.out && ! grep -q 'RunTask' c69.out &&
		pass chrome-trace-profilechunk-samples || fail chrome-trace-profilechunk-samples "$(head -n 3 c69.out)"

	# cpuprofiles against the independent reader; Chrome 65 and Node 10
	# hold the same profile in the new and the legacy layout
	for f in "$S/Chrome/65/simple.cpuprofile" "$S/node/10.11.0/example.cpuprofile" "$PEERS/firefox-profiler/hello.cjs-20231120T211435.cpuprofile"; do
		n=$(basename "$f")
		$SFCONV "$f" > c.out 2>/dev/null
		if [ "$n" = example.cpuprofile ]; then
			$REF cpuprofile "$S/Chrome/65/simple.cpuprofile" > c.want
		else
			$REF cpuprofile "$f" > c.want
		fi
		expect_same "cpuprofile-$n" c.want c.out
	done

	# Firefox: the upgrade fixtures are one profile in five versions:
	# 3 threads of 7 samples each (21)
	for f in gecko-1 gecko-2 processed-1 processed-2 processed-3; do
		t=$($SFCONV "$PEERS/firefox-profiler/$f.json" 2>/dev/null | awk '{s += $NF} END {print s}')
		[ "$t" = 21 ] && pass "firefox-$f-total" || fail "firefox-$f-total" "total $t, expected 21"
	done
	for f in "$PEERS"/firefox-profiler/processed-*.json "$PEERS/samply/ls-linux/ls-profile.json"; do
		$REF firefox-processed "$f" > ff.want
		$SFCONV "$f" > ff.out 2>/dev/null
		expect_same "firefox-ref-$(basename "$f")" ff.want ff.out
	done
	# samply's sample times (ms since meta.startTime, 0.248791 for the
	# second sample of GeckoMain) become exact ns since the start
	$SFCONV --to json "$PEERS/samply/ls-linux/ls-profile.json" > sam.json 2>/dev/null
	grep -q '^\[[0-9]*,0,248791,0,1\]' sam.json && grep -q '"start_time":1671458961578105' sam.json &&
		pass firefox-sample-times || fail firefox-sample-times "$(grep -m 3 '^\[' sam.json)"
	# gecko JS frames "name (loader -> file:line[:col])" are split into
	# their fields; all three DevTools recordings hold this one
	for f in 59/simple-firefox 61/recursion 63/simple-firefox; do
		$SFCONV --to json "$S/Firefox/$f.json" > ffx.json 2>ffx.err
		if grep -q '"source_format":"firefox"' ffx.json &&
		   grep -q '"name":"exports.makeInfallible/<","file":"resource://devtools/shared/ThreadSafeDevToolsUtils.js","line":107' ffx.json; then
			pass "firefox-devtools-$(echo $f | tr / -)"
		else
			fail "firefox-devtools-$(echo $f | tr / -)" "$(head -n 2 ffx.err)"
		fi
	done
else
	skip web-peers "no peer fixtures at $PEERS"
fi

# speedscope's bulk arrays are parsed element by element: errors still name
# the element and its line, and an empty profile is fine
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","unit":"none",\n"startValue":0,"endValue":1,"events":[\n{"type":"O","frame":0,"at":0},\n{"type":"X","frame":0,"at":1}]}]}\n' > badev.speedscope.json
expect_error speedscope-bad-event-line 1 '^sfconv: badev.speedscope.json:4: profiles\[0\]\.events\[1\]: expected' $SFCONV badev.speedscope.json
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none",\n"startValue":0,"endValue":1,"samples":[[0],\n[0 0]],"weights":[1,1]}]}\n' > badsm.speedscope.json
expect_error speedscope-bad-sample-json 1 '^sfconv: badsm.speedscope.json:3: invalid JSON' $SFCONV badsm.speedscope.json
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","startValue":0,"endValue":0,"samples":[],"weights":[]},{"type":"sampled","unit":"none","startValue":0,"endValue":2,"samples":[[0],[0]],"weights":[1,1]}]}\n' > emp.speedscope.json
printf 'a 2\n' > emp.want
$SFCONV emp.speedscope.json > emp.out 2>/dev/null
expect_same speedscope-empty-profile emp.want emp.out
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","startValue":0,"endValue":2,"samples":[[0],[0]],"weights":[1]}]}\n' > mis.speedscope.json
expect_error speedscope-weights-count 1 'a different number of weights' $SFCONV mis.speedscope.json

# V8 samples in traces against the independent reader (chunks with
# `parent` links, and rspack's chunks with `children` lists)
if have_peers; then
	for f in "$PEERS/speedscope/Chrome/69/simple.json" "$PEERS/firefox-profiler/chrome-trace-issue-5429.json.gz"; do
		n=$(basename "$f")
		gzip -dcf "$f" > chunk.json
		$REF trace-samples chunk.json > chunk.want
		$SFCONV --to collapsed chunk.json > chunk.out 2>/dev/null
		expect_same "chrome-trace-samples-ref-$n" chunk.want chunk.out
	done
fi
# per-sample arrays are parsed element by element: a bad one is named with
# its line
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],\n"startTime":0,\n"samples":[1,\n"one"],"timeDeltas":[0,1]}\n' > bad6.cpuprofile
expect_error cpuprofile-bad-sample-line 1 '^sfconv: bad6.cpuprofile:4: samples\[1\]: expected a number' $SFCONV bad6.cpuprofile

# A trace names a thread by (pid, tid) alone.  Two threads of one pid and
# tid, or a thread without a tid, must not be written under a pair another
# thread has: read back, their events would interleave in one thread (a
# fuzz finding of roundtrip-chrome-trace).  The rule: such a thread gets
# the next tid above every tid of the profile (here 2), in thread order.
cat > dupthr.json <<'J'
{"format":"sftools-profile","version":1,
"meta":{"default_sample_type":0},
"sample_types":[{"type":"cpu","unit":"microseconds"}],
"threads":[{"pid":1,"tid":2,"name":"a"},{"name":"b"},{"pid":1,"tid":2,"name":"c"}],
"frames":[{"name":"x"},{"name":"y"}],
"stacks":[[0,0],[1,1]],
"samples":[[1,0,null,0,5],[2,1,null,0,7],[1,2,null,0,3]]}
J
printf 'a-2;x 5\nb-3;x;y 7\nc-4;x 3\n' > dupthr.want
$SFCONV dupthr.json --to chrome-trace -o dupthr.trace.json 2>dupthr.err
$SFCONV dupthr.trace.json -t collapsed --thread-prefix -o dupthr.out 2>/dev/null
expect_same chrome-trace-unique-tids dupthr.want dupthr.out
if grep -q '2 threads would share a pid and tid with another at the same time' dupthr.err; then
	pass chrome-trace-unique-tids-warns
else
	fail chrome-trace-unique-tids-warns "$(head -n 2 dupthr.err)"
fi

# A legacy "head" that is an array holds no node: no "nodes", one line.
# Its values once reached the node code with no node open (undefined
# behaviour that the sanitizer pass stops on).
printf '{"head":[1,"a",null,[2]],"startTime":0,"endTime":1,"samples":[],"timestamps":[]}\n' > head-array.cpuprofile
expect_error cpuprofile-head-array 1 \
	'^sfconv: head-array\.cpuprofile:1: not a CPU profile: no "nodes" array$' \
	$SFCONV head-array.cpuprofile

# a legacy head node with two "children" lists: json-c and JSON.parse keep
# the last, but the first list's nodes are read before the second begins,
# so the reader refuses it with the line of the second list
printf '{"head":{"id":1,"functionName":"(root)","children":[{"id":2,"functionName":"a"}],\n"children":[{"id":3,"functionName":"c"}]},"startTime":0,"endTime":2,"samples":[2,3],"timeDeltas":[1,1]}\n' > dupch.cpuprofile
expect_error cpuprofile-head-children-twice 1 \
	'^sfconv: dupch\.cpuprofile:2: head: a node with two "children" lists$' \
	$SFCONV dupch.cpuprofile -t collapsed
