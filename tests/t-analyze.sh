# sfanalyze: call graph (worked examples, random profiles, its text
# against its JSON), tree and flat
# against independent sums, text layout, filters, diff, errors.
. "$TOP/tests/lib.sh"

if have python3; then
	# every PASS/FAIL line comes from the scripts; a crash shows as FAIL
	python3 "$TOP/tests/analyze/cg_examples.py" "$SFANALYZE" ||
		fail cg-examples "exited with status $?"
	n=150; [ "${SF_PASS:-plain}" = san ] && n=40
	python3 "$TOP/tests/analyze/cg_props.py" "$SFANALYZE" $n ||
		fail cg-props "exited with status $?"
	n=60; [ "${SF_PASS:-plain}" = san ] && n=15
	python3 "$TOP/tests/analyze/cg_text.py" "$SFANALYZE" $n ||
		fail cg-text "exited with status $?"
	# and a timeline document of 20,000 samples (190,000 stacks), whose
	# reports take the pages loading leaves (sf_big_keep: off under
	# the sanitizers, so not in their pass)
	tl=
	if [ "${SF_PASS:-plain}" != san ] && have cc &&
	   cc -O2 -o gen_timeline "$TOP/bench/gen_timeline.c" &&
	   ./gen_timeline 20000 3 25 1 > tl.json; then
		tl=tl.json
	fi
	python3 "$TOP/tests/analyze/tree_flat.py" "$SFANALYZE" 40 $tl ||
		fail tree-flat "exited with status $?"
else
	skip cg-examples "python3 is missing"
fi

# Against Racket's own analyzer (profile-lib, in the racket package):
# every value and order of --callgraph --json on seeded random profiles
# with heavy recursion (bench/gen_stacks.c: few functions, deep stacks)
# and one of the benchmark's shape, smaller (200 functions, depth 60).
if have racket && have python3 && have cc &&
   racket -l racket/base -l profile/analyzer -e '' >/dev/null 2>&1; then
	if cc -O2 -o gen_stacks "$TOP/bench/gen_stacks.c"; then
		python3 "$TOP/tests/analyze/cg_racket.py" "$SFANALYZE" \
			"$TOP/bench/callgraph-racket.rkt" ./gen_stacks \
			1 400 8 30 0  2 600 9 60 100  3 2000 200 60 0 ||
			fail cg-racket "exited with status $?"
	else
		fail cg-racket "cannot compile bench/gen_stacks.c"
	fi
else
	skip cg-racket "racket (with profile-lib), python3 or cc is missing"
fi

# A small profile; expected text written by hand: totals main 6, f 4
# (--depth 1 cuts main's two children f and h)
# (self 1), g 3, h 2, and 4 of empty stacks; children by total.
printf '0\t3\tmain;f;g\n0\t1\tmain;f\n0\t2\tmain;h\n0\t4\t\n' > small.samples.tsv
cat > tree.want <<'W'
Call tree (samples, count): total 10 in 4 samples
Total      % Self  Name
   10 100.0%    4  (all samples)
    6  60.0%    0  └─ main
    4  40.0%    1     ├─ f
    3  30.0%    3     │  └─ g
    2  20.0%    2     └─ h
W
$SFANALYZE small.samples.tsv > tree.out 2>&1
expect_same tree-text-default tree.want tree.out

# h (2 of 10) is hidden: one line says how many nodes and how much
cat > prune.want <<'W'
Call tree (samples, count): total 10 in 4 samples
Total      % Self  Name
   10 100.0%    4  (all samples)
    6  60.0%    0  └─ main
    4  40.0%    1     └─ f
    3  30.0%    3        └─ g
(1 node below 25% hidden, 2 in all (20.0%): --min-percent 0 shows all)
W
$SFANALYZE --tree --min-percent 25 small.samples.tsv > prune.out 2>&1
expect_same tree-min-percent prune.want prune.out

cat > depth.want <<'W'
Call tree (samples, count): total 10 in 4 samples
Total      % Self  Name
   10 100.0%    4  (all samples)
    6  60.0%    0  └─ main
(2 deeper branches not shown: --depth 1)
W
$SFANALYZE --tree --depth 1 small.samples.tsv > depth.out 2>&1
expect_same tree-depth depth.want depth.out

# flat, sorted by self: g 3, h 2, f 1, main 0; cumulative 30, 50, 60, 60;
# empty stacks 4 (40%) last
cat > flat.want <<'W'
Flat profile (samples, count): total 10 in 4 samples, sorted by self
   Nr  Self  Self%  Cumul% Total Total%  Function
    1     3  30.0%   30.0%     3  30.0%  g
    2     2  20.0%   50.0%     2  20.0%  h
    3     1  10.0%   60.0%     4  40.0%  f
    4     0   0.0%   60.0%     6  60.0%  main
          4  40.0%  100.0%               (no frames)
W
$SFANALYZE --flat small.samples.tsv > flat.out 2>&1
expect_same flat-text flat.want flat.out

# recursion: a function's total counts each sample once
printf '0\t5\tmain;r;r;r\n' | $SFANALYZE --flat --json --from lines > rec.out
printf '{"type":"samples","unit":"count","samples":1,"total":5,"functions":[\n{"name":"r","self":5,"total":5},\n{"name":"main","self":0,"total":5}]}\n' > rec.want
expect_same flat-recursion-once rec.want rec.out

# recursion beside other stacks, by hand: main;r;r;x 3, main;r 2,
# main;x;r 4.  Flat: r is in all three (9 once, though twice in the
# first), x in the first and third (7); selves r 2+4, x 3.  Trees: a
# node's self is its total less its children's (r under main: 5 - 3).
printf '0\t3\tmain;r;r;x\n0\t2\tmain;r\n0\t4\tmain;x;r\n' > rec3.lines
$SFANALYZE --flat --json --from lines rec3.lines > rec3f.out
printf '{"type":"samples","unit":"count","samples":3,"total":9,"functions":[\n{"name":"r","self":6,"total":9},\n{"name":"x","self":3,"total":7},\n{"name":"main","self":0,"total":9}]}\n' > rec3f.want
expect_same flat-recursion-mixed rec3f.want rec3f.out
$SFANALYZE --tree --json --from lines rec3.lines > rec3t.out
printf '%s\n' '{"name":null,"total":9,"self":0,"children":[{"name":"main","total":9,"self":0,"children":[{"name":"r","total":5,"self":2,"children":[{"name":"r","total":3,"self":0,"children":[{"name":"x","total":3,"self":3,"children":[]}]}]},{"name":"x","total":4,"self":0,"children":[{"name":"r","total":4,"self":4,"children":[]}]}]}],"type":"samples","unit":"count","samples":3}' > rec3t.want
expect_same tree-recursion-self rec3t.want rec3t.out
$SFANALYZE --tree --inverted --json --from lines rec3.lines > rec3i.out
printf '%s\n' '{"name":null,"total":9,"self":0,"children":[{"name":"r","total":6,"self":0,"children":[{"name":"x","total":4,"self":0,"children":[{"name":"main","total":4,"self":4,"children":[]}]},{"name":"main","total":2,"self":2,"children":[]}]},{"name":"x","total":3,"self":0,"children":[{"name":"r","total":3,"self":0,"children":[{"name":"r","total":3,"self":0,"children":[{"name":"main","total":3,"self":3,"children":[]}]}]}]}],"type":"samples","unit":"count","samples":3}' > rec3i.want
expect_same tree-inverted-recursion-self rec3i.want rec3i.out

# gzip and stdin, as sfconv reads them
gzip -c small.samples.tsv > small.samples.tsv.gz
$SFANALYZE small.samples.tsv.gz > gz.out 2>&1
expect_same tree-gzip tree.want gz.out
$SFANALYZE < small.samples.tsv > stdin.out 2>&1
expect_same tree-stdin tree.want stdin.out

# the report says what a weight is
printf 'a;b 3\n' > c.folded
$SFANALYZE c.folded | head -n 1 | grep -q '(samples, count)' &&
	pass report-header-unit || fail report-header-unit "no type/unit"

# deterministic: same bytes twice, callgraph text included
$SFANALYZE --callgraph small.samples.tsv > cg1.out
$SFANALYZE --callgraph small.samples.tsv > cg2.out
expect_same callgraph-deterministic cg1.out cg2.out

# errors: one line, the right status
expect_error bad-regex 2 "bad regular expression" $SFANALYZE --focus '(' small.samples.tsv
expect_error unknown-option 2 "unknown option '--bogus'" $SFANALYZE --bogus
expect_error missing-arg 2 "needs an argument" $SFANALYZE small.samples.tsv --focus
expect_error bad-depth 2 "bad value" $SFANALYZE --depth x small.samples.tsv
expect_error no-such-thread 2 "matches no thread" $SFANALYZE --thread nope small.samples.tsv
expect_error no-timestamps 2 "no timestamps" $SFANALYZE --timestamps small.samples.tsv
expect_error missing-file 3 "cannot open" $SFANALYZE nope.samples.tsv
printf '0\t1\ta\n0\tx\tb\n' > bad.samples.tsv
expect_error bad-input 1 '^sfanalyze: bad.samples.tsv:2: ' $SFANALYZE --from lines bad.samples.tsv
expect_error diff-needs-sides 2 "BASE" $SFANALYZE --diff small.samples.tsv
expect_status help 0 $SFANALYZE --help
grep -q -- '--callgraph' .out && pass help-lists-reports || fail help-lists-reports "no --callgraph in --help"
if have man; then
	man -l "$TOP/docs/sfanalyze.1" >/dev/null 2>man.err && [ ! -s man.err ] &&
		pass man-page || fail man-page "$(head -n 2 man.err)"
fi

# --diff (issue #10); expected values computed by hand:
#   base: f 2, g 2 (main 4, whole 4); new: f 2, g 4, h 2 (main 8, whole 8)
#   normalised delta of total: f 2/8-2/4 = -0.25, h +0.25, g 0, main 0
#   raw: main +4, g +2, h +2, f 0
printf '0\t2\tmain;f\n0\t2\tmain;g\n0\t1\tmain;old\n' > base.tsv
printf '0\t2\tmain;f\n0\t4\tmain;g\n0\t2\tmain;h\n' > new.tsv
printf '0\t2\tmain;f\n0\t2\tmain;g\n' > base2.tsv
if have python3; then
	$SFANALYZE --diff --json --from lines base2.tsv -- new.tsv > d1.out
	python3 - d1.out <<'P' && pass diff-normalised || fail diff-normalised "$(cat d1.out)"
import json, sys
rows = json.load(open(sys.argv[1]))["functions"]
want = [("f", 2, 2, 2, 2, -0.25), ("h", None, 2, None, 2, 0.25),
        ("g", 2, 4, 2, 4, 0), ("main", 0, 0, 4, 8, 0)]
got = [(r["name"], r["base_self"], r["new_self"], r["base_total"],
        r["new_total"], r["delta"]) for r in rows]
want = [(n, bs or 0, ns, bt or 0, nt, d) for n, bs, ns, bt, nt, d in want]
sys.exit(got != want)
P
	# --top 2: the first two of those rows, in text and JSON
	$SFANALYZE --diff --json --top 2 --from lines base2.tsv -- new.tsv > d1t.out
	python3 - d1t.out <<'P' && pass diff-top-json || fail diff-top-json "$(cat d1t.out)"
import json, sys
rows = json.load(open(sys.argv[1]))["functions"]
sys.exit([r["name"] for r in rows] != ["f", "h"])
P
	$SFANALYZE --diff --top 2 --from lines base2.tsv -- new.tsv > d1t.txt
	awk 'NR > 2 {print $NF}' d1t.txt > d1t.names
	printf 'f\nh\n' > d1t.want
	expect_same diff-top-text d1t.want d1t.names
	$SFANALYZE --diff --json --no-normalize --from lines base2.tsv -- new.tsv > d2.out
	python3 - d2.out <<'P' && pass diff-raw || fail diff-raw "$(cat d2.out)"
import json, sys
rows = json.load(open(sys.argv[1]))["functions"]
got = [(r["name"], r["delta"]) for r in rows]
sys.exit(got != [("main", 4), ("g", 2), ("h", 2), ("f", 0)])
P
	$SFANALYZE --diff --json --from lines base.tsv base.tsv -- base.tsv > d3.out
	python3 - d3.out <<'P' && pass diff-identical-zero || fail diff-identical-zero "$(cat d3.out)"
import json, sys
rows = json.load(open(sys.argv[1]))["functions"]
# BASE is base.tsv twice (merged: weights doubled): normalised all zero
sys.exit(not rows or any(r["delta"] != 0 for r in rows) or
         {r["name"] for r in rows} != {"main", "f", "g", "old"} or
         [r["base_total"] for r in rows if r["name"] == "main"] != [10])
P
	# removed function: old (1 of 5 in base) is gone: delta -0.2
	$SFANALYZE --diff --json --from lines base.tsv -- base2.tsv > d4.out
	python3 - d4.out <<'P' && pass diff-removed || fail diff-removed "$(cat d4.out)"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["functions"]}
o = rows.get("old")
sys.exit(o is None or o["new_total"] != 0 or o["base_total"] != 1 or
         abs(o["delta"] + 0.2) > 1e-15 or
         abs(rows["f"]["delta"] - (2 / 4 - 2 / 5)) > 1e-15)
P
	# doubled: every weight x2 -> normalised zero, raw delta = base total
	awk -F'\t' 'BEGIN{OFS="\t"} {$2 = $2 * 2; print}' base.tsv > dbl.tsv
	$SFANALYZE --diff --json --from lines base.tsv -- dbl.tsv > d5.out
	$SFANALYZE --diff --json --no-normalize --from lines base.tsv -- dbl.tsv > d6.out
	python3 - d5.out d6.out <<'P' && pass diff-doubled || fail diff-doubled "$(cat d5.out d6.out)"
import json, sys
a = json.load(open(sys.argv[1]))["functions"]; b = json.load(open(sys.argv[2]))["functions"]
sys.exit(any(r["delta"] != 0 for r in a) or
         any(r["delta"] != r["base_total"] for r in b))
P
fi
$SFANALYZE --diff --threshold 10 --from lines base2.tsv -- new.tsv > d7.out
grep -E ' h  <- REGRESSION$' d7.out >/dev/null && ! grep -E ' f  <- REGRESSION' d7.out >/dev/null &&
	grep -q '^1 regression above 10 percentage points$' d7.out &&
	pass diff-threshold || fail diff-threshold "$(cat d7.out)"

# a closed pipe ends quietly with status 0; a full disk is exit 3
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "0\t1\tmain;f%d;g%d\n", i % 97, i }' > many.samples.tsv
bash -c "set -o pipefail; $SFANALYZE many.samples.tsv 2>pipe.err | head -n 1 >/dev/null"
st=$?
[ $st -eq 0 ] && [ ! -s pipe.err ] && pass epipe-quiet || fail epipe-quiet "status $st: $(head -c 200 pipe.err)"
if [ -w /dev/full ]; then
	expect_error full-disk 3 '^sfanalyze: -: write error' sh -c "$SFANALYZE many.samples.tsv > /dev/full"
else
	skip full-disk "no /dev/full"
fi

# The slow sums after an overflow: the recursion counts 1..79 of `a` make
# the common denominator lcm(1..79), past 2^96, so the caller and callee
# times are summed again per divisor.  `b` is in one sample only,
# main;b;b;b (weight 1): b counts 3 there, so each of the two b -> b
# occurrences adds 1/3 to both times (2/3), main -> b adds caller time
# 1/3 (divided by b's count) and callee time 1 (main's count is 1),
# b -> * caller time 1 and callee time 1/3.  (Before session 14 the
# second walk kept the first walk's marks, and a function in one sample
# counted twice: 1/3 and 1/6.)
if have python3; then
	python3 -c "
for k in range(1, 80): print('main;' + ';'.join(['a'] * k), 1)
print('main;b;b;b', 1)" > ovf.folded
	$SFANALYZE -q --callgraph --json ovf.folded > ovf.json
	python3 - ovf.json <<'P' && pass cg-overflow-recount || fail cg-overflow-recount "$(head -c 300 ovf.out)"
import json, sys
d = json.load(open(sys.argv[1]))
b = [n for n in d["nodes"] if n["id"] == "b"][0]
got = sorted((str(e["id"]), e["caller_time"], e["callee_time"]) for e in b["callers"] + b["callees"])
want = sorted([("b", 2/3, 2/3), ("main", 1/3, 1), ("b", 2/3, 2/3), ("None", 1, 1/3)])
if got != want:
    open("ovf.out", "w").write(repr(got))
    sys.exit(1)
P
else
	skip cg-overflow-recount "python3 is missing"
fi

# A profile big enough that the model's arrays are mappings of their own
# (formats/base/ctx.c, sf_big_*: 256 KiB and more) and that sfanalyze
# gives the model's stack tree and samples up once its view is made
# (formats/model/profile_drop.c): 60,000 distinct samples main;f(i%300);gi
# of weight 1.  By hand: main 60,000 with 300 callees, each f 200,
# 60,301 functions, every report from the same view.
if command -v python3 >/dev/null 2>&1; then
	awk 'BEGIN { for (i = 0; i < 60000; i++)
		printf "1\t1\tmain;f%d;g%d\n", i % 300, i }' > big.samples.tsv
	for j in 1 2; do
		$SFANALYZE -q -j$j --callgraph --json big.samples.tsv > bigcg.json &&
		python3 - bigcg.json <<'P' && pass "drop-big-callgraph-j$j" || fail "drop-big-callgraph-j$j" "$(cat big.err)"
import json, sys
d = json.load(open(sys.argv[1]))
m = [n for n in d["nodes"] if n["id"] == "main"][0]
f = [n for n in d["nodes"] if n["id"] == "f7"][0]
got = (d["total_time"], m["total"], len(m["callees"]), len(d["nodes"]), f["total"])
if got != (60000, 60000, 300, 60301, 200):
    open("big.err", "w").write(repr(got))
    sys.exit(1)
P
		$SFANALYZE -q -j$j --tree --json big.samples.tsv > bigtree.json &&
		python3 - bigtree.json <<'P' && pass "drop-big-tree-j$j" || fail "drop-big-tree-j$j" "$(cat big.err)"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["children"][0]
got = (d["total"], m["name"], m["total"], len(m["children"]),
       sorted(set(c["total"] for c in m["children"])))
if got != (60000, "main", 60000, 300, [200]):
    open("big.err", "w").write(repr(got))
    sys.exit(1)
P
	done
else
	skip drop-big "python3 is missing"
fi
