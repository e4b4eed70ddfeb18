# sfanalyze --diff --tree (issue #10): the differential call tree, and
# thread filters applied to both sides of --diff.  Every expected value
# below is computed by hand in the comments next to it.
. "$TOP/tests/lib.sh"

# base: main;f 2, main;g 2, main;old;x 1   (whole 5)
# new:  main;f 2, main;g 4, main;h 2       (whole 8)
printf '0\t2\tmain;f\n0\t2\tmain;g\n0\t1\tmain;old;x\n' > base.tsv
printf '0\t2\tmain;f\n0\t4\tmain;g\n0\t2\tmain;h\n' > new.tsv

# Text, normalised (delta in percentage points of each side's whole):
#   root, main: 8/8 - 5/5 = 0
#   g: 4/8 - 2/5 = +0.10 -> +10.00     f: 2/8 - 2/5 = -0.15 -> -15.00
#   h: 2/8 - 0   = +0.25 (new)          old, x: 0 - 1/5 = -0.20 (gone)
#   children by new total (g 4; f 2 before h 2 by name), gone last
cat > dt.want <<'W'
Differential call tree (samples, count -> samples, count): base total 5, new total 8; delta = change of total share (percentage points)
Base New  Delta  Name
   5   8      0  (all samples)
   5   8      0  └─ main
   2   4 +10.00     ├─ g
   2   2 -15.00     ├─ f
   -   2 +25.00     ├─ h  (new)
   1   - -20.00     └─ old  (gone)
   1   - -20.00        └─ x  (gone)
W
$SFANALYZE --diff --tree --from lines base.tsv -- new.tsv > dt.out 2>dt.err
expect_same difftree-text dt.want dt.out
# raw deltas: root/main 8-5 = +3, g +2, f 0, h +2, old/x -1
cat > dtr.want <<'W'
Differential call tree (samples, count -> samples, count): base total 5, new total 8; delta = change of total
Base New Delta  Name
   5   8    +3  (all samples)
   5   8    +3  └─ main
   2   4    +2     ├─ g
   2   2     0     ├─ f
   -   2    +2     ├─ h  (new)
   1   -    -1     └─ old  (gone)
   1   -    -1        └─ x  (gone)
W
# --tree before --diff is the same report
$SFANALYZE --tree --diff --no-normalize --from lines base.tsv -- new.tsv > dtr.out 2>&1
expect_same difftree-text-raw dtr.want dtr.out
# without --tree, --diff is still the per-function table
$SFANALYZE --diff --from lines base.tsv -- new.tsv > tab.out 2>&1
head -n 1 tab.out | grep -q '^Diff (' && pass diff-table-default ||
	fail diff-table-default "$(head -n 2 tab.out)"

if ! have python3; then
	skip difftree-json "python3 is missing"
	exit 0
fi

# check.py FILE EXPECTED: the JSON tree flattened in pre-order to
# (depth, name, base_total, new_total, base_self, new_self, delta, only)
# must equal EXPECTED (a Python literal), deltas to 1e-12; every node
# must have exactly the documented keys (the root also names the units).
cat > check.py <<'P'
import json, sys, ast
KEYS = {"name", "base_total", "new_total", "base_self", "new_self",
        "delta", "only", "children"}
ROOT = {"type", "unit", "samples", "base_type", "base_unit",
        "base_samples"}
def flat(n, d, out):
    keys = KEYS | ROOT if d == 0 else KEYS
    extra = set(n) - keys - {"pruned"}
    if extra or not keys <= set(n):
        sys.exit("bad keys %s" % sorted(n))
    out.append((d, n["name"], n["base_total"], n["new_total"],
                n["base_self"], n["new_self"], n["delta"], n["only"]))
    for c in n["children"]:
        flat(c, d + 1, out)
    return out
got = flat(json.load(open(sys.argv[1])), 0, [])
want = ast.literal_eval(sys.argv[2])
ok = len(got) == len(want) and all(
    g[:6] == w[:6] and abs(g[6] - w[6]) < 1e-12 and g[7] == w[7]
    for g, w in zip(got, want))
if not ok:
    print("got ", got); print("want", want); sys.exit(1)
P
# jcheck NAME EXPECTED ARGS...: run sfanalyze --diff --tree --json ARGS
jcheck() {
	n=$1; w=$2; shift 2
	$SFANALYZE --diff --tree --json --from lines "$@" > "$n.json" 2>"$n.err" &&
		python3 check.py "$n.json" "$w" > "$n.chk" 2>&1 &&
		pass "$n" || fail "$n" "$(cat "$n.chk" "$n.err" | head -c 600)"
}

# the same tree as difftree-text, in JSON (root name null)
jcheck difftree-json "[
 (0, None,  5, 8, 0, 0, 0, None),
 (1, 'main',5, 8, 0, 0, 0, None),
 (2, 'g',   2, 4, 2, 4, 0.10, None),
 (2, 'f',   2, 2, 2, 2, -0.15, None),
 (2, 'h',   0, 2, 0, 2, 0.25, 'new'),
 (2, 'old', 1, 0, 0, 0, -0.20, 'base'),
 (3, 'x',   1, 0, 1, 0, -0.20, 'base')]" base.tsv -- new.tsv

# identical inputs: every delta 0 (normalised and raw), no only-marker
jcheck difftree-identical "[
 (0, None,  5, 5, 0, 0, 0, None),
 (1, 'main',5, 5, 0, 0, 0, None),
 (2, 'f',   2, 2, 2, 2, 0, None),
 (2, 'g',   2, 2, 2, 2, 0, None),
 (2, 'old', 1, 1, 0, 0, 0, None),
 (3, 'x',   1, 1, 1, 1, 0, None)]" base.tsv -- base.tsv
jcheck difftree-identical-raw "[
 (0, None,  5, 5, 0, 0, 0, None),
 (1, 'main',5, 5, 0, 0, 0, None),
 (2, 'f',   2, 2, 2, 2, 0, None),
 (2, 'g',   2, 2, 2, 2, 0, None),
 (2, 'old', 1, 1, 0, 0, 0, None),
 (3, 'x',   1, 1, 1, 1, 0, None)]" --no-normalize base.tsv -- base.tsv
$SFANALYZE --diff --tree --from lines base.tsv -- base.tsv > same.out 2>&1
if grep -Eq '\((new|gone)\)' same.out || ! grep -q '^   5   5     0  (all samples)$' same.out; then
	fail difftree-identical-text "$(cat same.out)"
else
	pass difftree-identical-text
fi

# doubled: every weight x2 (whole 10): normalised all 0, raw = base
awk -F'\t' 'BEGIN{OFS="\t"} {$2 = $2 * 2; print}' base.tsv > dbl.tsv
jcheck difftree-doubled "[
 (0, None,  5, 10, 0, 0, 0, None),
 (1, 'main',5, 10, 0, 0, 0, None),
 (2, 'f',   2, 4, 2, 4, 0, None),
 (2, 'g',   2, 4, 2, 4, 0, None),
 (2, 'old', 1, 2, 0, 0, 0, None),
 (3, 'x',   1, 2, 1, 2, 0, None)]" base.tsv -- dbl.tsv
jcheck difftree-doubled-raw "[
 (0, None,  5, 10, 0, 0, 5, None),
 (1, 'main',5, 10, 0, 0, 5, None),
 (2, 'f',   2, 4, 2, 4, 2, None),
 (2, 'g',   2, 4, 2, 4, 2, None),
 (2, 'old', 1, 2, 0, 0, 1, None),
 (3, 'x',   1, 2, 1, 2, 1, None)]" --no-normalize base.tsv -- dbl.tsv

# normalisation with different sample counts: base 10 samples (a 5, b 5),
# new 20 samples (a 5, b 15), one line per sample.
# normalised: a 5/20 - 5/10 = -0.25, b 15/20 - 5/10 = +0.25, main 0
# raw: a 0, b +10, main +10
awk 'BEGIN { for (i = 0; i < 5; i++) print "0\t1\tmain;a"
	     for (i = 0; i < 5; i++) print "0\t1\tmain;b" }' > b10.tsv
awk 'BEGIN { for (i = 0; i < 15; i++) print "0\t1\tmain;b"
	     for (i = 0; i < 5; i++) print "0\t1\tmain;a" }' > n20.tsv
jcheck difftree-normalised "[
 (0, None,  10, 20, 0, 0, 0, None),
 (1, 'main',10, 20, 0, 0, 0, None),
 (2, 'b',   5, 15, 5, 15, 0.25, None),
 (2, 'a',   5, 5, 5, 5, -0.25, None)]" b10.tsv -- n20.tsv
jcheck difftree-normalised-raw "[
 (0, None,  10, 20, 0, 0, 10, None),
 (1, 'main',10, 20, 0, 0, 10, None),
 (2, 'b',   5, 15, 5, 15, 10, None),
 (2, 'a',   5, 5, 5, 5, 0, None)]" --no-normalize b10.tsv -- n20.tsv

# inverted (roots are leaf functions): g 2->4 (+0.10), f 2->2 (-0.15),
# h new 2 (+0.25), x gone 1 (-0.20); under each its callers
jcheck difftree-inverted "[
 (0, None,  5, 8, 0, 0, 0, None),
 (1, 'g',   2, 4, 0, 0, 0.10, None),
 (2, 'main',2, 4, 2, 4, 0.10, None),
 (1, 'f',   2, 2, 0, 0, -0.15, None),
 (2, 'main',2, 2, 2, 2, -0.15, None),
 (1, 'h',   0, 2, 0, 0, 0.25, 'new'),
 (2, 'main',0, 2, 0, 2, 0.25, 'new'),
 (1, 'x',   1, 0, 0, 0, -0.20, 'base'),
 (2, 'old', 1, 0, 0, 0, -0.20, 'base'),
 (3, 'main',1, 0, 1, 0, -0.20, 'base')]" --inverted base.tsv -- new.tsv

# --min-percent 30: a node stays when either share reaches 30%:
# g (40% / 50%), f (40% / 25%) stay; h (0 / 25%), x (20% / 0) are pruned:
# 2 nodes, base 1, new 2
$SFANALYZE --diff --tree --json --inverted --min-percent 30 --from lines \
	base.tsv -- new.tsv > mp.json 2>&1
python3 - mp.json <<'P' && pass difftree-min-percent || fail difftree-min-percent "$(cat mp.json)"
import json, sys
t = json.load(open(sys.argv[1]))
sys.exit([c["name"] for c in t["children"]] != ["g", "f"] or
         t.get("pruned") != {"nodes": 2, "base_total": 1, "new_total": 2})
P
# --depth 1: only main below the root; its 4 children are cut
$SFANALYZE --diff --tree --depth 1 --from lines base.tsv -- new.tsv > dp.out 2>&1
[ "$(grep -c . dp.out)" -eq 5 ] && grep -q '└─ main$' dp.out &&
	grep -q '^(4 deeper branches not shown: --depth 1)$' dp.out &&
	pass difftree-depth || fail difftree-depth "$(cat dp.out)"

# Thread filters apply to both sides.  Threads 1 and 2 on each side:
#   base: 1: main;a 3          2: main;b 7
#   new:  1: main;a 2, main;c 2   2: main;b 100
# --thread 1 compares base (a 3, whole 3) with new (a 2, c 2, whole 4):
#   a 2/4 - 3/3 = -0.5, c new +0.5, main 0; b appears nowhere
printf '1\t3\tmain;a\n2\t7\tmain;b\n' > tb.tsv
printf '1\t2\tmain;a\n1\t2\tmain;c\n2\t100\tmain;b\n' > tn.tsv
jcheck difftree-thread "[
 (0, None,  3, 4, 0, 0, 0, None),
 (1, 'main',3, 4, 0, 0, 0, None),
 (2, 'a',   3, 2, 3, 2, -0.5, None),
 (2, 'c',   0, 2, 0, 2, 0.5, 'new')]" --thread 1 tb.tsv -- tn.tsv
# thread 2 alone: b 7 -> 100, shares 1 -> 1: all 0, raw +93
jcheck difftree-thread2-raw "[
 (0, None,  7, 100, 0, 0, 93, None),
 (1, 'main',7, 100, 0, 0, 93, None),
 (2, 'b',   7, 100, 7, 100, 93, None)]" --no-normalize --thread 2 tb.tsv -- tn.tsv
# the per-function table honours --thread on both sides too:
# rows by |delta| then name: a -0.5, c +0.5, main 0
$SFANALYZE --diff --json --thread 1 --from lines tb.tsv -- tn.tsv > tt.json 2>&1
python3 - tt.json <<'P' && pass diff-table-thread || fail diff-table-thread "$(cat tt.json)"
import json, sys
rows = json.load(open(sys.argv[1]))["functions"]
got = [(r["name"], r["base_total"], r["new_total"], r["delta"]) for r in rows]
sys.exit(got != [("a", 3, 2, -0.5), ("c", 0, 2, 0.5), ("main", 3, 4, 0)])
P
# a thread that only one side has is a usage error, not an empty side
printf '1\t3\tmain;a\n' > t1only.tsv
expect_error diff-thread-missing 2 "matches no thread" \
	$SFANALYZE --diff --tree --thread 2 --from lines t1only.tsv -- tn.tsv

# a side left empty by the filters: --focus old keeps only base's
# main;old;x (1); NEW has nothing (total 0, share taken as 0):
# every delta 0 - 1/1 = -1, every node below the root gone
jcheck difftree-empty-new "[
 (0, None,  1, 0, 0, 0, -1, None),
 (1, 'main',1, 0, 0, 0, -1, 'base'),
 (2, 'old', 1, 0, 0, 0, -1, 'base'),
 (3, 'x',   1, 0, 1, 0, -1, 'base')]" --focus old base.tsv -- new.tsv
