# callgrind writer: costs parsed back from the written file equal the
# totals computed here from the input stacks; callgrind_annotate (a real
# parser, from Debian's valgrind) agrees on inclusive costs.
. "$TOP/tests/lib.sh"

# parse.py FILE: a callgrind reader written from valgrind's
# docs/callgrind-format (name compression, fn/fl/ob and cfn/cfi/cob,
# calls= followed by the call cost line).  Prints, sorted:
#   events E...          summary N...
#   self FN N...         call FN -> FN calls=K N...
cat > parse.py <<'PY'
import re, sys
names = {}
def name(kind, v):
    m = re.match(r"^\((\d+)\)(?: (.*))?$", v)
    if not m: return v
    if m.group(2) is not None: names[(kind, m.group(1))] = m.group(2)
    return names[(kind, m.group(1))]
fn = cfn = None; pending = None
self_, calls, head = {}, {}, []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line or line.startswith("#"): continue
    m = re.match(r"^(events|summary): *(.*)$", line)
    if m: head.append("%s %s" % (m.group(1), m.group(2))); continue
    m = re.match(r"^(\w+)=(.*)$", line)
    if m:
        k, v = m.groups()
        if k == "fn": fn = name("fn", v)
        elif k == "cfn": cfn = name("fn", v)
        elif k in ("fl", "fi", "fe", "cfi", "cfl"): name("fl", v)
        elif k in ("ob", "cob"): name("ob", v)
        elif k == "calls": pending = int(v.split()[0])
        continue
    if re.match(r"^(\w+):", line): continue
    nums = [int(x) for x in line.split()[1:]]
    if pending is not None:
        key = (fn, cfn)
        c = calls.setdefault(key, [0, [0] * len(nums)])
        c[0] += pending; c[1] = [a + b for a, b in zip(c[1], nums)]
        pending = None
    else:
        s = self_.setdefault(fn, [0] * len(nums))
        self_[fn] = [a + b for a, b in zip(s, nums)]
out = head[:]
out += ["self %s %s" % (f, " ".join(map(str, v))) for f, v in self_.items()]
out += ["call %s -> %s calls=%d %s" % (a, b, c[0], " ".join(map(str, c[1])))
        for (a, b), c in calls.items()]
print("\n".join(sorted(out)))
PY
# expect.py FOLDED TYPE: the same lines computed from collapsed stacks:
# self = weight of the stacks a function is the leaf of; a call edge
# (adjacent caller -> callee, not a function calling itself) costs the
# weight of the stacks holding it, once per stack; calls= counts the
# distinct stacks (sfconv folds equal stacks).
cat > expect.py <<'PY'
import sys
acc = {}
for line in open(sys.argv[1]):
    s, n = line.rstrip("\n").rsplit(" ", 1)
    acc[s] = acc.get(s, 0) + int(n)
self_, calls, total = {}, {}, 0
for s, n in acc.items():
    fr = s.split(";"); total += n
    self_[fr[-1]] = self_.get(fr[-1], 0) + n
    for e in set(zip(fr, fr[1:])):
        if e[0] == e[1]: continue
        c = calls.setdefault(e, [0, 0]); c[0] += 1; c[1] += n
out = ["events %s" % sys.argv[2], "summary %d" % total]
out += ["self %s %d" % kv for kv in self_.items()]
out += ["call %s -> %s calls=%d %d" % (a, b, c[0], c[1]) for (a, b), c in calls.items()]
print("\n".join(sorted(out)))
PY

cat > in.folded <<'EOF'
main;parse;read 30
main;parse 10
main;eval;add 25
main;eval;mul;add 5
main;eval 8
main;main;eval 3
idle 2
main;parse;read 4
EOF
$SFCONV in.folded -o callgrind.out.1 2>err
if [ -s callgrind.out.1 ]; then pass callgrind-by-extension; else fail callgrind-by-extension "$(cat err)"; fi
python3 parse.py callgrind.out.1 > got.txt
python3 expect.py in.folded samples > want.txt
expect_same callgrind-costs want.txt got.txt
if head -n 1 callgrind.out.1 | grep -q '^# callgrind format$'; then
	pass callgrind-header; else fail callgrind-header "first line: $(head -n 1 callgrind.out.1)"; fi
$SFCONV in.folded --to callgrind > again.out
if cmp -s again.out callgrind.out.1; then pass callgrind-deterministic; else fail callgrind-deterministic "two runs differ"; fi

# two sample types, files and lines: self cost at the leaf's line, call
# cost at the caller's line (hand-written JSON; values computed by hand)
cat > two.json <<'J'
{"format":"sftools-profile","version":1,
 "sample_types":[{"type":"samples","unit":"count"},{"type":"alloc space","unit":"bytes"}],
 "threads":[],
 "frames":[{"name":"main","file":"m.c","line":3},{"name":"f","file":"f.c","line":9},{"name":"main","file":"m.c","line":4}],
 "stacks":[[0,0],[1,1],[0,2],[3,1]],
 "samples":[[2,null,null,0,2,100],[4,null,null,0,1,10],[3,null,null,0,4,0]]}
J
$SFCONV two.json --to callgrind > two.out
python3 parse.py two.out > two.got
cat > two.want <<'EOF'
call main -> f calls=2 3 110
events samples alloc_space
self f 3 110
self main 4 0
summary 7 110
EOF
expect_same callgrind-two-types two.want two.got
if grep -q '^fl=([0-9]*) m.c$' two.out && grep -q '^4 4 0$' two.out &&
   grep -q '^calls=[0-9]* 9$' two.out; then
	pass callgrind-lines; else fail callgrind-lines "$(tr '\n' '|' < two.out)"; fi

# callgrind_annotate --inclusive=yes: inclusive cost per function equals
# the weight of the stacks the function appears in (once per stack)
if have callgrind_annotate; then
	callgrind_annotate --inclusive=yes callgrind.out.1 > ann.txt 2>ann.err
	python3 - in.folded ann.txt <<'PY' > ann.diff
import re, sys
acc = {}
for line in open(sys.argv[1]):
    s, n = line.rstrip("\n").rsplit(" ", 1)
    for f in set(s.split(";")): acc[f] = acc.get(f, 0) + int(n)
total = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]))
got, gtotal = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"^\s*([\d,]+) \([\d. %]+\)\s+(PROGRAM TOTALS|\S+:(\S+))", line)
    if not m: continue
    v = int(m.group(1).replace(",", ""))
    if m.group(2) == "PROGRAM TOTALS": gtotal = v
    else: got[m.group(3)] = v
if gtotal != total or got != acc:
    print("totals %s/%d, got %s, want %s" % (gtotal, total, sorted(got.items()), sorted(acc.items())))
PY
	if [ ! -s ann.diff ] && grep -q 'PROGRAM TOTALS' ann.txt; then pass callgrind-annotate-inclusive
	else fail callgrind-annotate-inclusive "$(cat ann.diff ann.err | head -n 3)"; fi
else
	skip callgrind-annotate-inclusive "callgrind_annotate not installed (Debian valgrind)"
fi

# pprof's own callgrind output (`pprof -callgrind`, units of ms) on the peer
# pprof files has the same self cost per function and the same call-edge
# costs as ours made from the same file (ns, default type first)
. "$TOP/tests/pprof_tool.sh"
cat > cgsum.py <<'PY'
# cgsum.py FILE SCALE: self cost per function and cost per call edge of
# the first event, times SCALE; any "positions:" column count.
import re, sys
names, fn, cfn, pending, npos = {}, None, None, False, 1
def name(v):
    m = re.match(r"^\((\d+)\)(?: (.*))?$", v)
    if not m: return v
    if m.group(2) is not None: names[m.group(1)] = m.group(2)
    return names[m.group(1)]
self_, calls = {}, {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line or line.startswith("#"): continue
    m = re.match(r"^positions: *(.*)$", line)
    if m: npos = len(m.group(1).split()); continue
    m = re.match(r"^(\w+)=(.*)$", line)
    if m:
        k, v = m.groups()
        if k == "fn": fn = name(v)
        elif k == "cfn": cfn = name(v)
        elif k == "calls": pending = True
        continue
    if re.match(r"^(\w+):", line): continue
    v = round(float(line.split()[npos]) * float(sys.argv[2]), 6)
    if pending: calls[(fn, cfn)] = calls.get((fn, cfn), 0) + v; pending = False
    else: self_[fn] = self_.get(fn, 0) + v
out = ["self %s %g" % kv for kv in self_.items() if kv[1]]
out += ["call %s -> %s %g" % (a, b, c) for (a, b), c in calls.items()]
print("\n".join(sorted(out)))
PY
for f in speedscope/pprof/simple.prof pprof/internal/report/testdata/sample.cpu; do
	n=$(basename "$f")
	if ! have_peers; then skip "callgrind-vs-pprof-$n" "no peer fixtures"; continue; fi
	if [ -z "$PPROF" ]; then skip "callgrind-vs-pprof-$n" "$why_no_pprof"; continue; fi
	pp -callgrind "$PEERS/$f" > "$n.pprof.cg"
	$SFCONV -q --sample-type cpu "$PEERS/$f" --to callgrind > "$n.ours.cg"
	python3 cgsum.py "$n.pprof.cg" 1 > "$n.pprof.sum"
	python3 cgsum.py "$n.ours.cg" 1e-6 > "$n.ours.sum"
	if [ -s "$n.pprof.sum" ]; then
		expect_same "callgrind-vs-pprof-$n" "$n.pprof.sum" "$n.ours.sum"
	else fail "callgrind-vs-pprof-$n" "pprof -callgrind gave nothing"; fi
done
