# sfanalyze reports for people (issue #15): units, pruning, --top, --peek,
# --tag, --granularity, the call graph as dot and as a picture.  Every
# expected value is worked out by hand in the comments.
. "$TOP/tests/lib.sh"

# perf script, cpu-clock (periods in nanoseconds):
#   main;work 250000000, main;work;inner 425224100, main;idle 1000
# The perf reader puts the command (app) as the root frame.
# total 675225100 ns = 675.2251 ms -> 675.23ms; work 675224100 -> 675.22ms,
# self 250000000 -> 250ms; inner 425224100 -> 425.22ms, 63.0%;
# idle 1000 ns = 1us, 0.00015% < 0.5%: hidden by default.
cat > cpu.perf <<'P'
app 100/101 [000] 10.000001: 250000000 cpu-clock:pppH:
	    4005d4 work (/usr/bin/app)
	    4004a0 main (/usr/bin/app)

app 100/101 [000] 10.250001: 425224100 cpu-clock:pppH:
	    4005e0 inner (/usr/bin/app)
	    4005d4 work (/usr/bin/app)
	    4004a0 main (/usr/bin/app)

app 100/101 [000] 10.675225: 1000 cpu-clock:pppH:
	    400600 idle (/usr/bin/app)
	    4004a0 main (/usr/bin/app)

P
cat > tree.want <<'W'
Call tree (cpu-clock, nanoseconds): total 675.23ms in 3 samples
   Total      %     Self  Name
675.23ms 100.0%        0  (all samples)
675.23ms 100.0%        0  └─ app
675.23ms 100.0%        0     └─ main
675.22ms 100.0%    250ms        └─ work
425.22ms  63.0% 425.22ms           └─ inner
(1 node below 0.5% hidden, 1us in all (0.0%): --min-percent 0 shows all)
W
$SFANALYZE cpu.perf > tree.out 2>&1
expect_same units-tree tree.want tree.out

# --raw: the exact numbers and the header of before
cat > raw.want <<'W'
Call tree (cpu-clock, nanoseconds): total 675225100
    Total      %      Self  Name
675225100 100.0%         0  (all samples)
675225100 100.0%         0  └─ app
675225100 100.0%         0     └─ main
675224100 100.0% 250000000        ├─ work
425224100  63.0% 425224100        │  └─ inner
     1000   0.0%      1000        └─ idle
W
$SFANALYZE --raw --min-percent 0 cpu.perf > raw.out 2>&1
expect_same units-raw-tree raw.want raw.out

# flat, --top 2: inner, work shown; idle, app, main left out (self
# 1us + 0 + 0 = 1us, cumulative 100.0%)
cat > flat.want <<'W'
Flat profile (cpu-clock, nanoseconds): total 675.23ms in 3 samples, sorted by self
   Nr     Self  Self%  Cumul%    Total Total%  Function
    1 425.22ms  63.0%   63.0% 425.22ms  63.0%  inner
    2    250ms  37.0%  100.0% 675.22ms 100.0%  work
           1us   0.0%  100.0%                  (3 more functions: --top 5)
W
$SFANALYZE --flat --top 2 cpu.perf > flat.out 2>&1
expect_same units-flat-top flat.want flat.out

# JSON keeps exact numbers and names the unit
$SFANALYZE --flat --json cpu.perf > flat.json
grep -q '"unit":"nanoseconds","samples":3,"total":675225100,' flat.json &&
	grep -q '{"name":"inner","self":425224100,"total":425224100}' flat.json &&
	pass units-json-exact || fail units-json-exact "$(head -c 300 flat.json)"

# --diff JSON names the unit of each side (issue #15): NEW is cpu.perf
# (cpu-clock, nanoseconds, 3 samples, total 675225100); BASE two lines of
# counted samples (samples, count, 2 input samples, total 2 + 1 = 3)
printf '0\t2\tapp;main;work\n0\t1\tapp;main\n' > cnt.samples.tsv
kind='"type":"cpu-clock","unit":"nanoseconds","samples":3,"base_type":"samples","base_unit":"count","base_samples":2'
$SFANALYZE --diff --json cnt.samples.tsv -- cpu.perf > dj.json
grep -q "^{$kind,\"base_total\":3,\"new_total\":675225100,\"functions\":\\[" dj.json &&
	grep -q '^{"name":"inner","base_self":0,"new_self":425224100,' dj.json &&
	pass units-diff-json || fail units-diff-json "$(head -c 300 dj.json)"
# the differential tree: the same members on the root, after its children
$SFANALYZE --diff --tree --json cnt.samples.tsv -- cpu.perf > dtj.json
grep -q "^{\"name\":null,\"base_total\":3,\"new_total\":675225100,.*\]\]*,$kind}\$" dtj.json &&
	pass units-diff-tree-json || fail units-diff-tree-json "$(tail -c 300 dtj.json)"

# the call graph: units in text, thread times only where there is time
$SFANALYZE --callgraph cpu.perf > cg.out
grep -q '^  Total time: 675.23ms$' cg.out &&
	grep -q '^  Thread times: 101: 675.23ms$' cg.out &&
	grep -q '^ \[3\]        675.22ms (100.0%)        250ms ( 37.0%)  work$' cg.out &&
	pass units-callgraph || fail units-callgraph "$(sed -n 1,5p cg.out)"

# Chains (issue #15: a deep tree readable on one screen).  Java-style
# input, worked by hand: main;a1..a5 only call the next (total 10, self 0),
# a5 calls x (6, self 6) and y (4, self 3); y;z1;z2;z3;z4 weighs 1 (self
# on z4).  main..a5 is a chain of 6 nodes: one line, 4 frames between;
# z1..z4 a chain of 4: 2 between.  Runs under 4 nodes (none here) stay.
# The tree is 13 node lines, under the screen (60): by default every
# frame is a line (full.want below); --collapse joins anyway.
printf '0\t6\tmain;a1;a2;a3;a4;a5;x\n0\t3\tmain;a1;a2;a3;a4;a5;y\n0\t1\tmain;a1;a2;a3;a4;a5;y;z1;z2;z3;z4\n' > deep.samples.tsv
cat > chain.want <<'W'
Call tree (samples, count): total 10 in 3 samples
Total      % Self  Name
   10 100.0%    0  (all samples)
   10 100.0%    0  └─ main → … (4 frames) → a5
    6  60.0%    6     ├─ x
    4  40.0%    3     └─ y
    1  10.0%    1        └─ z1 → … (2 frames) → z4
W
$SFANALYZE --collapse deep.samples.tsv > chain.out 2>&1
expect_same tree-chains chain.want chain.out
# --no-collapse --min-percent 0: the full exact tree, a line per node
cat > full.want <<'W'
Call tree (samples, count): total 10 in 3 samples
Total      % Self  Name
   10 100.0%    0  (all samples)
   10 100.0%    0  └─ main
   10 100.0%    0     └─ a1
   10 100.0%    0        └─ a2
   10 100.0%    0           └─ a3
   10 100.0%    0              └─ a4
   10 100.0%    0                 └─ a5
    6  60.0%    6                    ├─ x
    4  40.0%    3                    └─ y
    1  10.0%    0                       └─ z1
    1  10.0%    0                          └─ z2
    1  10.0%    0                             └─ z3
    1  10.0%    1                                └─ z4
W
$SFANALYZE --no-collapse --min-percent 0 deep.samples.tsv > full.out 2>&1
expect_same tree-no-collapse full.want full.out
# the default: no node is under 0.5%, 13 lines fit, so the same tree
$SFANALYZE deep.samples.tsv > auto.out 2>&1
expect_same tree-chains-auto-fits full.want auto.out
# --depth counts frames, not lines: the chain stops at depth 5 (a4), whose
# one child (a5) is the cut branch
cat > chaind.want <<'W'
Call tree (samples, count): total 10 in 3 samples
Total      % Self  Name
   10 100.0%    0  (all samples)
   10 100.0%    0  └─ main → … (3 frames) → a4
(1 deeper branches not shown: --depth 5)
W
$SFANALYZE --collapse --depth 5 deep.samples.tsv > chaind.out 2>&1
expect_same tree-chain-depth chaind.want chaind.out
# inverted: each leaf's callers are one chain down to main, which has
# the self (the samples whose whole stack is the path)
cat > chaini.want <<'W'
Inverted call tree (samples, count): total 10 in 3 samples
Total      % Self  Name
   10 100.0%    0  (all samples)
    6  60.0%    6  ├─ x → … (5 frames) → main
    3  30.0%    3  ├─ y → … (5 frames) → main
    1  10.0%    1  └─ z4 → … (9 frames) → main
W
$SFANALYZE --collapse --inverted deep.samples.tsv > chaini.out 2>&1
expect_same tree-chain-inverted chaini.want chaini.out
# JSON is never joined: the same bytes with or without --no-collapse
$SFANALYZE --json deep.samples.tsv > chain.json
$SFANALYZE --json --no-collapse deep.samples.tsv > nochain.json
expect_same tree-chain-json-full nochain.json chain.json
grep -q '"name":"a3","total":10,"self":0,' chain.json &&
	pass tree-chain-json-nodes || fail tree-chain-json-nodes "$(head -c 300 chain.json)"

# The screen budget (60 node lines, root included), on a capture's shape:
# thread 1 is a small program blocked in pause (5 samples); thread 2 a
# worker start_thread;worker;run;loop with N one-sample leaves.  Per
# thread, thread 2 is 1 + 4 + N lines: N = 55 is 60 (fits, every frame a
# line), N = 56 is 61 (joined: start_thread..loop is a 4-node chain, 2
# frames between).  Thread 1 (7 lines) always shows main_wait.
worker() {
	printf '1\t5\t_start;__libc_start_call_main;__libc_start_main;main;main_wait;pause\n'
	i=10
	while [ $i -lt $((10 + $1)) ]; do
		printf '2\t1\tstart_thread;worker;run;loop;f%d\n' $i
		i=$((i + 1))
	done
}
worker 55 > w55.samples.tsv
worker 56 > w56.samples.tsv
cat > thr1.want <<'W'
== thread 1 (id 1) ==
Call tree (samples, count): total 5 in 1 sample
Total      % Self  Name
    5 100.0%    0  (all samples)
    5 100.0%    0  └─ _start
    5 100.0%    0     └─ __libc_start_call_main
    5 100.0%    0        └─ __libc_start_main
    5 100.0%    0           └─ main
    5 100.0%    0              └─ main_wait
    5 100.0%    5                 └─ pause
W
$SFANALYZE --per-thread w55.samples.tsv > w55t.out 2>&1
sed -n 1,10p w55t.out > thr1.out
expect_same tree-auto-capture-thread thr1.want thr1.out
grep -q '^   55 100.0%    0  └─ start_thread$' w55t.out &&
	grep -q '^   55 100.0%    0           └─ loop$' w55t.out &&
	! grep -q 'frames)' w55t.out &&
	pass tree-auto-60-lines-fit || fail tree-auto-60-lines-fit "$(sed -n 12,20p w55t.out)"
$SFANALYZE --per-thread w56.samples.tsv > w56t.out 2>&1
sed -n 1,10p w56t.out > thr1b.out
grep -q '^   56 100.0%    0  └─ start_thread → … (2 frames) → loop$' w56t.out &&
	[ "$(grep -c '^    1   1.8%    1     [├└]─ f[0-9]*$' w56t.out)" = 56 ] &&
	cmp -s thr1.want thr1b.out &&
	pass tree-auto-61-lines-join || fail tree-auto-61-lines-join "$(sed -n 12,18p w56t.out)"
# one tree of both threads: 1 + 6 + 4 + 55 = 66 lines, over the screen, so
# both chains are joined (_start..pause: 6 nodes, 4 between); 60 lines of
# output: 2 header, the root, 2 chain lines, 55 leaves
$SFANALYZE w55.samples.tsv > w55.out 2>&1
grep -q '^   55  91.7%    0  ├─ start_thread → … (2 frames) → loop$' w55.out &&
	grep -q '^    5   8.3%    5  └─ _start → … (4 frames) → pause$' w55.out &&
	[ "$(wc -l < w55.out)" = 60 ] &&
	pass tree-auto-joined-whole || fail tree-auto-joined-whole "$(head -5 w55.out)"
# pruning counts: with --min-percent 2 the 1.7% leaves are hidden, the
# tree is 12 lines and nothing is joined; --no-collapse never joins
$SFANALYZE --min-percent 2 w55.samples.tsv > w55p.out 2>&1
$SFANALYZE --no-collapse w55.samples.tsv > w55n.out 2>&1
grep -q '^    5   8.3%    0              └─ main_wait$' w55p.out &&
	! grep -q 'frames)' w55p.out && ! grep -q 'frames)' w55n.out &&
	[ "$(wc -l < w55n.out)" = 68 ] &&
	pass tree-auto-pruned-fits || fail tree-auto-pruned-fits "$(cat w55p.out)"

# --peek: the node view is the call graph's own block for the node
$SFANALYZE --peek '^work$' cpu.perf > peek.out 2> peek.err
awk '/^-+$|^=+$/ { if (blk ~ /\] +[^ ]+ \([ 0-9.]+%\) +[^ ]+ \([ 0-9.]+%\)  work\n/) printf "%s", blk; blk = ""; next }
     { blk = blk $0 "\n" }' cg.out > peek.want
sed -n '/^=\{72\}$/,$p' peek.out | sed '1,/^=\{72\}$/d' | sed '$d' > peek.got
if [ -s peek.want ] && cmp -s peek.want peek.got && [ ! -s peek.err ]; then
	pass peek-node-view
else
	fail peek-node-view "$(diff peek.want peek.got | head -n 5)"
fi
$SFANALYZE --peek 'nosuch' cpu.perf > nopeek.out 2> nopeek.err
st=$?
[ $st -eq 0 ] && grep -q "^sfanalyze: warning: --peek 'nosuch' matches no function$" nopeek.err &&
	pass peek-no-match || fail peek-no-match "status $st: $(cat nopeek.err)"
expect_error peek-bad-regex 2 "bad regular expression '\('" $SFANALYZE --peek '(' cpu.perf

# Labels, threads, lines and addresses: a native JSON profile in bytes.
#   s1 main;f@10 thread main,   state=running   1024
#   s2 main;f@20 thread main,   state=sleeping  2048
#   s3 main;f@10 thread worker, state=running    512
#   s4 main;f@20 thread worker, no labels       1536
# total 5120 B = 5kB
cat > lab.json <<'J'
{"format":"sftools-profile","version":1,
 "meta":{"default_sample_type":0},
 "sample_types":[{"type":"alloc_space","unit":"bytes"}],
 "threads":[{"pid":7,"tid":1,"name":"main"},{"pid":7,"tid":2,"name":"worker"}],
 "frames":[{"name":"main","file":"m.c","line":3,"address":"0x1000"},
           {"name":"f","file":"f.c","line":10,"address":"0x2000"},
           {"name":"f","file":"f.c","line":20,"address":"0x2010"}],
 "stacks":[[0,0],[1,1],[1,2]],
 "label_sets":[[["state","running"]],[["state","sleeping"]]],
 "samples":[[2,0,null,1,1024],[3,0,null,2,2048],[2,1,null,1,512],[3,1,null,0,1536]]}
J
total() { sed -n 's/^Flat profile (alloc_space, bytes): total \([^ ]*\) in \([0-9]*\) samples\{0,1\},.*/\1 \2/p' "$1"; }
check_total() {   # NAME WANT OPTIONS...
	name=$1; want=$2; shift 2
	$SFANALYZE --flat "$@" lab.json > t.out 2> t.err
	got=$(total t.out)
	[ "$got" = "$want" ] && pass "$name" || fail "$name" "got '$got', expected '$want' ($(cat t.err))"
}
check_total tag-none '5kB 4'
# s1 + s3 = 1536 B = 1.50kB
check_total tag-state '1.50kB 2' --tag state=running
# s2 + s4 = 3584 B = 3.50kB
check_total tag-ignore '3.50kB 2' --tag-ignore state=running
# thread by name: s3 + s4 = 2048 = 2kB; by tid: the same
check_total tag-thread '2kB 2' --tag thread=worker
check_total tag-thread-tid '2kB 2' --tag thread=2
# keys must all hold: running and worker = s3 = 512B
check_total tag-and '512B 1' --tag state=running --tag thread=worker
# values of one key are alternatives: running or sleeping = s1 s2 s3
check_total tag-or '3.50kB 3' --tag state=running --tag state=sleeping
$SFANALYZE --flat --tag state=disk-wait lab.json > t.out 2> t.err
st=$?
[ $st -eq 0 ] && grep -q "^sfanalyze: warning: --tag 'state=disk-wait' matches no sample$" t.err &&
	pass tag-no-match || fail tag-no-match "status $st: $(cat t.err)"
expect_error tag-no-equals 2 "--tag 'state': expected KEY=VALUE" $SFANALYZE --tag state lab.json
# the same filter in sfconv: running samples only, back through sfanalyze
$SFCONV --tag state=running lab.json -o lab-run.json 2> conv.err &&
	$SFANALYZE --flat lab-run.json > t.out && [ "$(total t.out)" = '1.50kB 2' ] &&
	pass sfconv-tag || fail sfconv-tag "$(cat conv.err) $(head -n 1 t.out)"
$SFCONV --tag-ignore state=running lab.json -o lab-norun.json 2> conv.err &&
	$SFANALYZE --flat lab-norun.json > t.out && [ "$(total t.out)" = '3.50kB 2' ] &&
	pass sfconv-tag-ignore || fail sfconv-tag-ignore "$(cat conv.err) $(head -n 1 t.out)"

# granularity: f@10 = s1 + s3 = 1536 (1.50kB), f@20 = s2 + s4 = 3584
# (3.50kB); functions: f = 5120 (5kB)
if have python3; then
	for g in functions lines addresses; do
		$SFANALYZE --flat --json --granularity $g lab.json > g-$g.json
	done
	python3 - <<'PY' && pass granularity || fail granularity "see g-*.json"
import json, sys
def rows(g):
    return {r["name"]: (r["self"], r["total"])
            for r in json.load(open("g-%s.json" % g))["functions"]}
ok = rows("functions") == {"f": (5120, 5120), "main": (0, 5120)}
ok &= rows("lines") == {"f f.c:10": (1536, 1536), "f f.c:20": (3584, 3584),
                        "main m.c:3": (0, 5120)}
ok &= rows("addresses") == {"f 0x2000": (1536, 1536),
                            "f 0x2010": (3584, 3584),
                            "main 0x1000": (0, 5120)}
sys.exit(not ok)
PY
fi
printf 'a;b 3\n' > nolines.folded
expect_error granularity-no-lines 2 "--granularity lines: the input has no line numbers" $SFANALYZE --granularity lines nolines.folded
expect_error granularity-bad 2 "granularity" $SFANALYZE --granularity words nolines.folded

# an unknown sample type lists those the input has
expect_error sample-type-lists 2 "no such sample type; it has alloc_space \(bytes\)" $SFANALYZE --sample-type cpu lab.json

# ----- the call graph as a picture -----
# A graph with small parts: 300 samples over 12 functions, weights 1..50,
# so the default fractions (0.5% nodes, 0.1% edges) and larger ones prune.
if have python3; then
	python3 - > pic.samples.tsv <<'PY'
import random
r = random.Random(15)
names = ["main", "parse", "lex", "eval", "apply", "gc", "mark", "sweep",
         "io", "read", "write", "rare"]
for _ in range(300):
    d = r.randint(1, 6)
    s = ["main"] + [r.choice(names[1:-1]) for _ in range(d)]
    print("%d\t%d\t%s" % (r.randint(0, 1), r.randint(1, 50), ";".join(s)))
print("0\t1\tmain;rare;rare")
PY
	$SFANALYZE --callgraph --json pic.samples.tsv > pic.json
	for fr in "0.005 0.001" "0.05 0.02" "0 0"; do
		set -- $fr
		$SFANALYZE --callgraph --dot --node-fraction $1 --edge-fraction $2 \
			pic.samples.tsv > pic-$1.dot 2> dot.err
		python3 "$TOP/tests/reports/cg_picture.py" pic.json pic-$1.dot $1 $2 > cmp.out &&
			pass "dot-equals-json-$1-$2" || fail "dot-equals-json-$1-$2" "$(head -n 3 cmp.out)"
	done
	# defaults are pprof's: 0.005 and 0.001
	$SFANALYZE --callgraph --dot pic.samples.tsv > pic-default.dot
	cmp -s pic-default.dot pic-0.005.dot && pass dot-default-fractions ||
		fail dot-default-fractions "differs from --node-fraction 0.005 --edge-fraction 0.001"
	# recursion (rare -> rare) is drawn, dashed, not constraining the ranks
	grep -Eq '^N([0-9]+) -> N\1 \[.*constraint=false, style=dashed' pic-0.dot &&
		pass dot-recursion-edge || fail dot-recursion-edge "no dashed self edge"
	if have dot; then
		dot -Tsvg pic-default.dot > /dev/null 2> dotcheck.err && [ ! -s dotcheck.err ] &&
			pass dot-parses || fail dot-parses "$(head -n 2 dotcheck.err)"
	else
		skip dot-parses "no dot (Debian package graphviz)"
	fi
	$SFANALYZE --callgraph -o pic.svg pic.samples.tsv 2> svg.err
	head -c 200 pic.svg | grep -q '<svg\|<?xml' && [ ! -s svg.err ] &&
		pass render-svg || fail render-svg "$(head -c 100 pic.svg) $(cat svg.err)"
	$SFANALYZE --callgraph -o pic.png pic.samples.tsv 2> png.err
	[ "$(head -c 8 pic.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		pass render-png || fail render-png "not a PNG: $(cat png.err)"
	$SFANALYZE --callgraph -o pic.pdf pic.samples.tsv 2> pdf.err
	[ "$(head -c 5 pic.pdf)" = '%PDF-' ] && pass render-pdf || fail render-pdf "not a PDF: $(cat pdf.err)"
	# deterministic
	$SFANALYZE --callgraph -o pic2.svg pic.samples.tsv
	cmp -s pic.svg pic2.svg && pass render-deterministic || fail render-deterministic "two SVGs differ"
	expect_error render-per-thread 2 "one picture" $SFANALYZE --callgraph --per-thread -o x.svg pic.samples.tsv
	[ ! -e x.svg ] && pass render-no-file-left || fail render-no-file-left "x.svg left behind"

	# the SVG in a real browser: node and edge titles equal the JSON's
	CHROMIUM=${SF_CHROMIUM:-/usr/bin/chromium}
	MODS=$TOP/build/npm/node_modules
	if [ ! -x "$CHROMIUM" ] || ! have node; then
		skip svg-chromium "no chromium or node"
	elif ! need_playwright; then
		skip svg-chromium "cannot npm install playwright-core: $(tail -n 1 "$SF_TMP/npm.log")"
	else
		node "$TOP/tests/reports/browser.js" "$MODS" "$CHROMIUM" "$SF_TMP/pic.svg" > br.json
		st=$?
		if [ $st -eq 3 ]; then
			skip svg-chromium "$(cat br.json)"
		elif python3 "$TOP/tests/reports/cg_picture.py" pic.json pic-default.dot 0.005 0.001 br.json > cmp.out; then
			pass svg-chromium
		else
			fail svg-chromium "$(head -n 3 cmp.out)"
		fi
	fi
else
	skip dot-equals-json "python3 is missing"
fi

# A heap profile's freed allocations weigh 0 in inuse_space (the default)
# but not in alloc_space: their functions get no --flat row, as in pprof
# -top.  By hand: rows kept (4kB self) and main (4kB total) only.
cat > heap.json <<'J'
{"format":"sftools-profile","version":1,
 "meta":{"default_sample_type":1},
 "sample_types":[{"type":"alloc_space","unit":"bytes"},{"type":"inuse_space","unit":"bytes"}],
 "threads":[],
 "frames":[{"name":"main"},{"name":"kept"},{"name":"freed"},{"name":"freedCaller"}],
 "stacks":[[0,0],[1,1],[1,3],[3,2]],
 "samples":[[2,null,null,0,4096,4096],[4,null,null,0,8192,0]]}
J
$SFANALYZE -q --flat heap.json > heap.flat
awk 'NR > 2 {print $NF}' heap.flat > heap.rows
printf 'kept\nmain\n' > heap.want
expect_same flat-no-zero-rows heap.want heap.rows

# Units as pprof writes them: pprof's own test profiles (peer fixtures),
# converted to profile.proto by the real pprof, then `pprof -top
# -unit=auto` beside our --flat: every row's flat and cum strings, and the
# total (nanoseconds, bytes, microseconds).  Unsymbolized ones: the total.
. "$TOP/tests/pprof_tool.sh"
ptd=$PEERS/pprof/profile/testdata
if [ -z "$PPROF" ]; then
	skip units-as-pprof "$why_no_pprof"
elif [ ! -d "$ptd" ]; then
	skip units-as-pprof "no peer fixtures ($ptd)"
else
	for n in java.cpu java.heap java.contention cppbench.cpu cppbench.heap cppbench.contention; do
		case $n in cppbench.*) only=--totals ;; *) only= ;; esac
		if pp -proto "$ptd/$n" > $n.pb.gz && pp -top -unit=auto -nodecount=100000 $n.pb.gz > $n.top &&
		   $SFANALYZE -q --flat $n.pb.gz > $n.flat &&
		   python3 "$TOP/tests/reports/pprof_top.py" $n.top $n.flat $only > $n.cmp; then
			pass "units-as-pprof-$n"
		else
			fail "units-as-pprof-$n" "$(cat $n.cmp 2>/dev/null)"
		fi
	done
	# the zero rows: the same rows as pprof -top
	if $SFCONV -q heap.json -o heap.pb.gz && pp -top -unit=auto -nodefraction=0 heap.pb.gz > heap.top &&
	   python3 "$TOP/tests/reports/pprof_top.py" heap.top heap.flat > heap.cmp; then
		pass flat-no-zero-rows-as-pprof
	else
		fail flat-no-zero-rows-as-pprof "$(cat heap.cmp 2>/dev/null)"
	fi
	# the headers count samples as pprof does (its samples/count type),
	# not the records that hold them (153 records hold gobench's 305)
	for n in gobench.cpu java.cpu cppbench.cpu; do
		want=$(pp -proto "$ptd/$n" > $n.pb.gz && pp -top -sample_index=samples $n.pb.gz |
			sed -n 's/^Showing nodes accounting for .* of \([0-9]*\) total$/\1/p')
		got=$($SFANALYZE -q --flat $n.pb.gz | sed -n '1s/.* in \([0-9]*\) samples.*/\1/p')
		if [ -n "$want" ] && [ "$want" = "$got" ]; then pass "samples-as-pprof-$n"
		else fail "samples-as-pprof-$n" "pprof $want samples, header says $got"; fi
	done
	# --granularity lines names a line as pprof -lines does: "name file:line"
	for n in java.cpu java.heap; do
		if pp -top -unit=auto -lines -nodecount=100000 $n.pb.gz > $n.ltop &&
		   $SFANALYZE -q --flat --granularity lines $n.pb.gz > $n.lflat &&
		   python3 "$TOP/tests/reports/pprof_top.py" $n.ltop $n.lflat > $n.lcmp; then
			pass "granularity-lines-as-pprof-$n"
		else
			fail "granularity-lines-as-pprof-$n" "$(cat $n.lcmp 2>/dev/null)"
		fi
	done
fi
