# Compact bulk arrays of the web readers.
#
# The Firefox reader's ways to a thread's sample columns give the same
# model: the root "threads" of a processed profile have their
# samples.stack/time/timeDeltas/weight parsed element by element into
# compact arrays (the gecko form's samples.data rows into their text)
# and are read while the document is; the same profile wrapped as
# {"profile": ...} (the old DevTools form), or as the one process of an
# empty root, is diverted too but read at the end; as a process of a
# process it reaches the reader as a json-c tree.  Generated documents
# with awkward columns go all ways and must give the same bytes; a small
# one is checked against a hand computation.
. "$TOP/tests/lib.sh"

# hand: stacks 0 = a, 1 = a;b, 2 = c; samples (stack, time ms, weight):
# (1, 0, 2), (null, 1, 5), (0, 2, 1), (1, 3, 3), (2, 4, "4"), ("1", 5, null)
# -> a;b 2+3+1 = 6 ("1" is index 1, a null weight stays 1), a 1, c 4
cat > hand.json <<'J'
{"meta":{"interval":1,"startTime":1000,"preprocessedProfileVersion":41},
"threads":[{"name":"main","pid":"7","tid":8,"stringArray":["a","b","c"],
"funcTable":{"length":3,"name":[0,1,2],"resource":[-1,-1,-1]},
"frameTable":{"length":3,"func":[0,1,2]},
"stackTable":{"length":3,"prefix":[null,0,null],"frame":[0,1,2]},
"samples":{"length":6,"weightType":"samples",
 "stack":[1,null,0,1,2,"1"],
 "time":[0,1,2,3,4,5],
 "weight":[2,5,1,3,"4",null]}}]}
J
printf 'a 1\na;b 6\nc 4\n' > hand.want
$SFCONV -q hand.json > hand.out 2>hand.err
expect_same firefox-stream-hand hand.want hand.out

# the same sample times either way: ns since meta.startTime
$SFCONV -q hand.json --to lines -o hand.lines 2>/dev/null
{ printf '{"label":"x","duration":1,"profile":'; cat hand.json; printf '}\n'; } > hand-w.json
$SFCONV -q --from firefox hand-w.json --to lines -o hand-w.lines 2>/dev/null
expect_same firefox-stream-hand-lines hand.lines hand-w.lines

# generated: each case is one profile written twice (root and wrapped)
python3 - <<'P'
import json, random
random.seed(18)
def thread(i, ns, shape):
    nst = 12
    st = {"length": nst, "prefix": [None] + [random.choice([None, random.randrange(k)]) for k in range(1, nst)],
          "frame": [random.randrange(6) for _ in range(nst)]}
    s = {"weightType": shape.get("wt", "samples")}
    def cell(kind):
        r = random.random()
        if kind == "stack":
            return None if r < .1 else str(random.randrange(nst)) if r < .15 else 1.5 if r < .17 else random.randrange(nst)
        if kind == "time":
            return None if r < .05 else round(random.uniform(0, 50), 3)
        return None if r < .05 else "2x" if r < .08 else random.choice([1, 1, 1, 2.5, 0])
    s["stack"] = [cell("stack") for _ in range(ns)]
    if shape.get("deltas"):
        s["timeDeltas"] = [cell("time") for _ in range(ns)]
    if shape.get("time", True):
        s["time"] = [cell("time") for _ in range(ns - shape.get("short", 0))]
    if shape.get("weight") == "const":
        s["weight"] = [1] * ns
    elif shape.get("weight") == "late":
        s["weight"] = [1] * (ns - 1) + [3]
    elif shape.get("weight"):
        s["weight"] = [cell("weight") for _ in range(ns)]
    if shape.get("first"):
        s = dict(reversed(list(s.items())))
    th = {"name": "t%d" % i, "pid": "1", "tid": 10 + i,
          "funcTable": {"name": list(range(6)), "fileName": [6] * 6, "resource": [-1] * 6},
          "frameTable": {"func": list(range(6)), "line": [None, 3, None, 4, None, 5]},
          "stackTable": st, "samples": s}
    if not shape.get("shared"):
        th["stringArray"] = ["f%d" % k for k in range(6)] + ["x.js"]
    return th
cases = {
    "empty": [{}],
    "plain": [{"weight": True}],
    "const-weights": [{"weight": "const"}],
    "late-weight": [{"weight": "late"}],
    "deltas": [{"deltas": True, "weight": True}, {"deltas": True, "time": False}],
    "short-time": [{"short": 7, "weight": True}],
    "columns-first": [{"first": True, "weight": True}],
    "tracing-ms": [{"wt": "tracing-ms", "weight": True}],
    "shared-strings": [{"weight": True, "shared": True}, {"deltas": True, "shared": True}],
}
def gecko(i, ns, shape):
    nst = 12
    rows = []
    for _ in range(ns):
        r = random.random()
        st = None if r < .1 else str(random.randrange(nst)) if r < .15 else random.randrange(nst)
        row = [st, round(random.uniform(0, 50), 3), random.choice([1, 2.5, None, "3"])]
        rows.append(None if r > .98 else 7 if r > .96 else row[:2] if r > .9 else row)
    schema = {"stack": 0, "time": 1}
    if shape.get("weight"):
        schema["weight"] = 2
    samples = {"data": rows, "schema": schema} if shape.get("first") else {"schema": schema, "data": rows}
    return {"name": "g%d" % i, "pid": 1, "tid": 20 + i,
            "stringTable": ["f%d (x.js:%d:%d)" % (k, k + 1, k + 2) for k in range(6)],
            "frameTable": {"schema": {"location": 0, "line": 1}, "data": [[k, None] for k in range(6)]},
            "stackTable": {"schema": {"prefix": 0, "frame": 1},
                           "data": [[None, 0]] + [[random.choice([None, random.randrange(k)]), random.randrange(6)] for k in range(1, nst)]},
            "samples": samples}
cases["gecko"] = [{"gecko": True, "weight": True}, {"gecko": True}]
cases["gecko-data-first"] = [{"gecko": True, "first": True, "weight": True}]
for name, shapes in cases.items():
    ths = [(gecko if sh.get("gecko") else thread)(i, 0 if name == "empty" else 200, sh)
           for i, sh in enumerate(shapes)]
    doc = {"meta": {"interval": 1, "startTime": 5000.25, "preprocessedProfileVersion": 41},
           "threads": ths}
    if name == "shared-strings":
        doc["shared"] = {"stringArray": ["f%d" % k for k in range(6)] + ["x.js"]}
    with open("g-%s.json" % name, "w") as f:
        json.dump(doc, f, indent=1 if name == "plain" else None)
    with open("gw-%s.json" % name, "w") as f:
        json.dump({"label": "x", "duration": 1, "profile": doc}, f)
    # the same start time: the process's times are the root's
    meta = doc["meta"]
    with open("gp-%s.json" % name, "w") as f:
        json.dump({"meta": meta, "threads": [], "processes": [doc]}, f)
    with open("gq-%s.json" % name, "w") as f:
        json.dump({"meta": meta, "threads": [], "processes": [
            {"meta": meta, "threads": [], "processes": [doc]}]}, f)
P
for f in g-*.json; do
	n=${f#g-}; n=${n%.json}
	ok=1
	for to in json collapsed; do
		$SFCONV -q --from firefox "$f" --to $to -o "a.$to" 2>a.err
		for w in gw gp gq; do
			$SFCONV -q --from firefox "$w-$n.json" --to $to -o "b.$to" 2>b.err
			if ! cmp -s "a.$to" "b.$to" || [ ! -s "a.$to" -a "$n" != empty ]; then
				ok=0; fail "firefox-stream-$n" "$w: --to $to differs: $(head -c 200 a.err)"
				diff a.$to b.$to | head -n 5
				break 2
			fi
		done
	done
	[ $ok = 1 ] && pass "firefox-stream-$n"
done

# (a root thread with strings in "shared" waits for the end of the
# document, its columns with it; wrapped, the threads keep their order,
# so both threads of that case use "shared")
# errors: an out-of-range stack names the thread and the line of the
# offending index (the 3 on line 7); bad JSON in a column, the line it is
# on (7)
printf '{"meta":{},\n"threads":[{"stringArray":["a"],\n"funcTable":{"name":[0]},\n"frameTable":{"func":[0]},\n"stackTable":{"prefix":[null],"frame":[0]},\n"samples":{"stack":[0,\n3]}}\n]}\n' > oob.json
expect_error firefox-stream-oob-line 1 '^sfconv: oob.json:7: threads\[0\]: samples.stack: index out of range' $SFCONV oob.json -o never.folded
printf '{"meta":{},\n"threads":[{"stringArray":["a"],\n"funcTable":{"name":[0]},\n"frameTable":{"func":[0]},\n"stackTable":{"prefix":[null],"frame":[0]},\n"samples":{"stack":[0,\n0x]}}\n]}\n' > badnum.json
expect_error firefox-stream-bad-json-line 1 '^sfconv: badnum.json:7: invalid JSON' $SFCONV badnum.json -o never.folded
[ ! -e never.folded ] && pass firefox-stream-no-output || fail firefox-stream-no-output "never.folded was written"

# cpuprofile: node ids are kept as int32 until one is not; then all are
# doubles.  Nodes (root) > a (id 1) > b (id 3000000000); samples a, b, a,
# b, b -> a 2, a;b 3 whether or not the wide id comes first
for order in '1,3000000000,1,3000000000,3000000000' '3000000000,1,1,3000000000,3000000000'; do
	printf '{"nodes":[{"id":9,"callFrame":{"functionName":"(root)"},"children":[1]},\n{"id":1,"callFrame":{"functionName":"a"},"children":[3000000000]},\n{"id":3000000000,"callFrame":{"functionName":"b"}}],\n"startTime":0,"endTime":50,\n"samples":[%s],\n"timeDeltas":[0,10,10,10,10]}\n' "$order" > wide.cpuprofile
	printf 'a 2\na;b 3\n' > wide.want
	$SFCONV -q wide.cpuprofile > wide.out 2>wide.err
	expect_same "cpuprofile-wide-ids-${order%%,*}" wide.want wide.out
done
# the times come through: written back, the deltas are the same
$SFCONV -q wide.cpuprofile -o again.cpuprofile 2>/dev/null
grep -q '"timeDeltas":\[0,10,10,10,10\]' again.cpuprofile && pass cpuprofile-wide-ids-times ||
	fail cpuprofile-wide-ids-times "$(tail -c 120 again.cpuprofile)"
# a non-integral id after int32 ones is still refused, at its index
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"a"}}],"samples":[1,1,1.5],"timeDeltas":[0,1,1],"startTime":0}\n' > frac.cpuprofile
expect_error cpuprofile-fractional-id 1 'samples\[2\]: expected a node id' $SFCONV frac.cpuprofile

# a gecko row that is not an array is a sample without a stack, and a
# frame row that is not one a bad frame; neither aborts (json-c asserts)
printf '{"meta":{"startTime":0},"threads":[{"name":"m","stringTable":["a","b"],"frameTable":{"schema":{"location":0},"data":[[0],[1]]},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1]]},"samples":{"schema":{"stack":0,"time":1},"data":[[0,1],null,5,"x",{"a":1},[1,2]]}}]}' > rows.json
printf 'a 1\na;b 1\n' > rows.want
$SFCONV -q rows.json > rows.out 2>&1
expect_same firefox-gecko-odd-rows rows.want rows.out
printf '{"meta":{"startTime":0},"threads":[{"name":"m","stringTable":["a"],"frameTable":{"schema":{"location":0},"data":[7]},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},"samples":{"schema":{"stack":0},"data":[[0]]}}]}' > frow.json
expect_error firefox-gecko-frame-row 1 'threads\[0\]: frameTable: location is not a string index' $SFCONV frow.json

# a gecko frame row that is not a string index names the row's line (3),
# as the tree did before the rows were read one by one
printf '{"meta":{"startTime":0},"threads":[{"name":"m","stringTable":["a"],\n"frameTable":{"schema":{"location":0},"data":[[0],\n[9]]},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},"samples":{"schema":{"stack":0},"data":[[0]]}}]}\n' > frow3.json
expect_error firefox-gecko-frame-row-line 1 '^sfconv: frow3\.json:3: threads\[0\]: frameTable: location is not a string index' $SFCONV frow3.json

# Chrome's JSON Object Format: "stackFrames" is read member by member and
# "samples" one by one, in either order.  Frames: 1 root, 2 kid (parent
# "1"), 3 k3 (parent 2, an integer), a"b q (an escaped key, parent null),
# 9 given twice (json-c kept the last: y).  Samples: sf "2"; sf 3 weight
# "4"; one without sf and a bare 5 (empty stacks); the escaped key; 9.
# Folded by hand: " 2", "q 1", "root;kid 1", "root;kid;k3 4", "y 1".
smp='"samples":[{"sf":"2","ts":1,"pid":1,"tid":2},{"sf":3,"ts":2,"weight":"4"},{"ts":3},5,{"sf":"a\"b"},{"sf":9}]'
frm='"stackFrames":{"1":{"name":"root"},"2":{"name":"kid","parent":"1"},"3":{"name":"k3","parent":2},"a\"b":{"name":"q","parent":null},"9":{"name":"x"},"9":{"name":"y"}}'
printf '{"traceEvents":[],%s,\n%s}\n' "$smp" "$frm" > obj1.trace.json
printf '{"traceEvents":[],%s,\n%s}\n' "$frm" "$smp" > obj2.trace.json
printf ' 2\nq 1\nroot;kid 1\nroot;kid;k3 4\ny 1\n' > obj.want
for n in 1 2; do
	$SFCONV -q obj$n.trace.json > obj$n.out 2>&1
	expect_same chrome-object-format-$n obj.want obj$n.out
done
# a frame's fault names the frame's line (3), a sample's the sample's (2)
printf '{"samples":[{"sf":1}],\n"stackFrames":{"1":{"name":"a","parent":"2"},\n"2":{"name":"b","parent":[1]}}}\n' > objbad.trace.json
expect_error chrome-object-frame-line 1 '^sfconv: objbad\.trace\.json:3: stackFrames: bad parent$' $SFCONV objbad.trace.json
printf '{"stackFrames":{"1":{"name":"a"}},\n"samples":[{"sf":1},\n{"sf":1,"weight":"x"}]}\n' > objw.trace.json
expect_error chrome-object-weight-line 1 '^sfconv: objw\.trace\.json:3: samples\[1\]: weight must be a number$' $SFCONV objw.trace.json

# Bounded memory (docs/RELIABILITY.md, "Bounded memory"): a large input
# whose model is small reads under a --max-memory far below the json-c
# tree it used to need.  Firefox: 1.5 million strings no frame uses, as
# many cells of a column the reader does not read and 500,000 markers
# (63 MB, which took 755 MB); Chrome: 1 million stackFrames of which two
# are used (66 MB, which took 1.2 GB); speedscope: 1.5 million events on
# two frames; cpuprofile: 3 million samples of two nodes.
capped="ulimit -v 524288;"
sh -c "$capped exec $SFCONV --version" >/dev/null 2>&1 || capped=
if ! have python3; then
	skip web-bounded "python3 is needed to write the inputs"
elif [ -z "$capped" ]; then
	skip web-bounded "$SFCONV does not start under ulimit -v (sanitizer build: no budget)"
else
	python3 - <<'P'
n = 1500000
with open('big.firefox.json', 'w') as f:
    f.write('{"meta":{"startTime":0,"interval":1},"threads":[{"name":"m","tid":1,"stringArray":["main"')
    f.write(''.join(',"unused string number %d"' % i for i in range(n)))
    f.write('],"funcTable":{"name":[0]},"frameTable":{"func":[0],"category":[' + ','.join('0' for i in range(n)) + ']},')
    f.write('"stackTable":{"prefix":[null],"frame":[0]},"samples":{"stack":[0,0,0]},')
    f.write('"markers":{"data":[' + ','.join('{"type":"Text","name":%d}' % i for i in range(n // 3)) + ']}}]}')
n = 1000000
with open('big.trace.json', 'w') as f:
    f.write('{"traceEvents":[],"samples":[{"sf":"1"},{"sf":"2"},{"sf":"2"}],"stackFrames":{')
    f.write('"1":{"name":"main"},"2":{"name":"work","parent":"1"}')
    f.write(''.join(',"%d":{"name":"unused%d","parent":"%d","category":"c"}' % (i, i, i - 1) for i in range(3, n)))
    f.write('}}')
n = 750000
with open('big.speedscope.json', 'w') as f:
    f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"main"},{"name":"work"}]},'
            '"profiles":[{"type":"evented","name":"p","unit":"microseconds","startValue":0,"endValue":%d,"events":[' % (2 * n + 1))
    f.write('{"type":"O","frame":0,"at":0},')
    f.write(','.join('{"type":"O","frame":1,"at":%d},{"type":"C","frame":1,"at":%d}' % (2 * i + 1, 2 * i + 2) for i in range(n)))
    f.write(',{"type":"C","frame":0,"at":%d}]}]}' % (2 * n + 1))
n = 3000000
with open('big.cpuprofile', 'w') as f:
    f.write('{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},'
            '{"id":2,"callFrame":{"functionName":"main"},"children":[3]},{"id":3,"callFrame":{"functionName":"work"}}],'
            '"startTime":0,"endTime":%d,"samples":[' % n)
    f.write(','.join('3' if i % 3 else '2' for i in range(n)))
    f.write('],"timeDeltas":[' + ','.join('1' for i in range(n)) + ']}')
# the Firefox profile again, wrapped and as a nested process
body = open('big.firefox.json').read()
with open('bigw.firefox.json', 'w') as f:
    f.write('{"label":"x","duration":1,"profile":' + body + '}')
with open('bigp.firefox.json', 'w') as f:
    f.write('{"meta":{"startTime":0,"interval":1},"threads":[],"processes":[' + body + ']}')
# a legacy head of 400,001 nodes (1,000 under the root, 400 under each)
# and three samples; node ids: root 1, child c 2+c, grandchild after
with open('big-head.cpuprofile', 'w') as f:
    f.write('{"head":{"functionName":"(root)","url":"","lineNumber":0,"id":1,"children":[')
    nid = 1002
    for c in range(1000):
        f.write((',' if c else '') + '{"functionName":"f%d","url":"x.js","lineNumber":%d,"id":%d,"children":[' % (c, c, 2 + c))
        f.write(','.join('{"functionName":"g%d","url":"x.js","lineNumber":%d,"children":[],"id":%d}' % (k, k, nid + k) for k in range(400)))
        nid += 400
        f.write(']}')
    f.write(']},"startTime":0,"endTime":0,"samples":[2,1003,1003],"timestamps":[0,1,2]}')
# 1.5 million objects in a root member speedscope does not know
with open('big-extra.speedscope.json', 'w') as f:
    f.write('{"shared":{"frames":[{"name":"main"}]},"extra":[')
    f.write(','.join('{"k":%d,"v":[1,2]}' % i for i in range(1500000)))
    f.write('],"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":2,"samples":[[0],[0]],"weights":[1,1]}]}')
P
	printf 'main 3\n' > big.firefox.want
	printf 'main 1\nmain;work 2\n' > big.trace.want
	# main open from 0 to 1,500,001 us, work inside it from 2i+1 to 2i+2:
	# main alone 750,001 us, main;work 750,000
	printf 'main 750001\nmain;work 750000\n' > big.speedscope.want
	printf 'main 1000000\nmain;work 2000000\n' > big.cpuprofile.want
	cp big.firefox.want bigw.firefox.want
	cp big.firefox.want bigp.firefox.want
	# node 2 is f0, node 1003 is g1 under f0 (ids 1002.. are f0's)
	printf 'f0 1\nf0;g1 2\n' > big-head.cpuprofile.want
	printf 'main 2\n' > big-extra.speedscope.want
	for f in big.firefox.json big.trace.json big.speedscope.json \
		 big.cpuprofile bigw.firefox.json bigp.firefox.json \
		 big-head.cpuprofile big-extra.speedscope.json; do
		w=${f%.json}.want
		$SFCONV -q --max-memory 160M "$f" -o "$f.folded" 2>"$f.err"
		expect_same "web-bounded-${f#big.}" "$w" "$f.folded"
	done
fi
