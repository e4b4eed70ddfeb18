# sfanalyze folds equal (stack, thread, labels) samples at load time
# (issue #8).  Differential: every report, with every filter, is
# byte-identical whether the input is loaded folded (the default) or
# unfolded (SF_ANALYZE_NO_FOLD=1, one sample per input sample), over
# generated inputs with repeats, threads, fractional, zero and huge
# weights.  Plus expectations computed outside sftools: the raw sample
# count (awk over the input) and exact sums done by hand.
. "$TOP/tests/lib.sh"

if ! have python3; then
	skip fold-differential "python3 is missing"
	exit 0
fi

# gen SEED N: sample lines; few names and stacks so stacks repeat, four
# threads (one named, one without an id, one empty field), weights 1,
# small integers, quarters, tenths (sums not exact in double), 0 and
# 2^53-scale values (sums lose the low bits in double)
gen() {
	python3 - "$1" "$2" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
n = int(sys.argv[2])
names = ["main", "a", "b", "c", "d", "rec"]
stacks = []
for _ in range(12):
    d = r.randrange(0, 7)
    stacks.append(";".join(r.choice(names) for _ in range(d)))
threads = ["1", "2:worker", ":bg", ""]
for _ in range(n):
    k = r.randrange(0, 10)
    if k < 4:
        w = "1"
    elif k < 6:
        w = str(r.randrange(0, 50))
    elif k < 7:
        w = str(r.randrange(1, 8) / 4)
    elif k < 8:
        w = "0.%d" % r.randrange(1, 10)
    elif k < 9:
        w = str(9007199254740992 + r.randrange(0, 5))
    else:
        w = "1e17"
    print("%s\t%s\t%s" % (r.choice(threads), w, r.choice(stacks)))
PY
}

# run NAME ARGS...: folded and unfolded output (and status) must agree
run() {
	name=$1; shift
	$SFANALYZE "$@" > fold.out 2> fold.err; s1=$?
	SF_ANALYZE_NO_FOLD=1 $SFANALYZE "$@" > raw.out 2> raw.err; s2=$?
	if [ $s1 -ne $s2 ]; then
		fail "$name" "status $s1 folded, $s2 unfolded"
		head -n 3 fold.err raw.err
	elif ! cmp -s raw.out fold.out || ! cmp -s raw.err fold.err; then
		fail "$name" "folded output differs from unfolded"
		diff raw.out fold.out | head -n 10
	else
		pass "$name"
	fi
}

for seed in 1 2 3 4 5; do
	gen $seed 400 > in$seed.samples.tsv
done
# integer weights only, mostly 1: folding happens everywhere
python3 - > ints.samples.tsv <<'PY'
import random
r = random.Random(7)
for _ in range(3000):
    print("%d\t%d\t%s" % (r.randrange(0, 3), r.choice([1, 1, 1, 2, 10]),
                          ";".join(r.choice("fgh") for _ in range(r.randrange(1, 5)))))
PY
# collapsed input (no threads: the by-stack folding path)
awk -F '\t' '{ print ($3 == "" ? "x" : $3) " " $2 }' ints.samples.tsv > ints.folded

for f in in1.samples.tsv in2.samples.tsv in3.samples.tsv in4.samples.tsv \
	 in5.samples.tsv ints.samples.tsv ints.folded; do
	b=${f%%.*}-${f#*.}
	run "fold-$b-callgraph" --callgraph "$f"
	run "fold-$b-callgraph-json" --callgraph --json "$f"
	run "fold-$b-tree" --tree "$f"
	run "fold-$b-tree-json-inverted" --tree --json --inverted "$f"
	run "fold-$b-flat" --flat "$f"
	run "fold-$b-flat-json-total" --flat --json --sort total "$f"
	run "fold-$b-per-thread" --callgraph --per-thread "$f"
	run "fold-$b-per-thread-json" --tree --json --per-thread "$f"
	run "fold-$b-focus" --callgraph --focus '^a$' "$f"
	run "fold-$b-ignore-hide" --callgraph --ignore rec --hide '^b$' "$f"
	run "fold-$b-collapse" --callgraph --json --collapse-recursion "$f"
	run "fold-$b-order-ids" --callgraph --thread-ids order "$f"
	run "fold-$b-diff" --diff "$f" -- in1.samples.tsv
	run "fold-$b-diff-tree" --diff --tree "$f" -- in2.samples.tsv
done
run fold-thread-filter --callgraph --thread worker in1.samples.tsv
run fold-thread-filter-json --flat --json --thread 1 --thread bg in2.samples.tsv
run fold-merge --callgraph in1.samples.tsv in2.samples.tsv ints.samples.tsv
run fold-tids --callgraph --thread-ids tid ints.samples.tsv
run fold-no-thread-error --callgraph --thread nosuch in1.samples.tsv

# Samples: N is the number of input lines (awk), and the JSON
# sample_number too, on the folded default path
for f in in3.samples.tsv ints.samples.tsv ints.folded; do
	want=$(awk 'END { print NR }' "$f")
	got=$($SFANALYZE --callgraph "$f" | sed -n 's/^  Samples: //p')
	if [ "$got" = "$want" ]; then pass "fold-count-$f"; else
		fail "fold-count-$f" "Samples: $got, expected $want"; fi
	got=$($SFANALYZE --callgraph --json "$f" |
		sed -n 's/.*"sample_number":\([0-9]*\).*/\1/p')
	if [ "$got" = "$want" ]; then pass "fold-count-json-$f"; else
		fail "fold-count-json-$f" "sample_number $got, expected $want"; fi
done
# with a thread filter: the lines of that thread (awk)
want=$(awk -F '\t' '$1 == "2:worker"' in4.samples.tsv | wc -l | tr -d ' ')
got=$($SFANALYZE --callgraph --thread worker in4.samples.tsv |
	sed -n 's/^  Samples: //p')
if [ "$got" = "$want" ]; then pass fold-count-thread; else
	fail fold-count-thread "Samples: $got, expected $want"; fi

# Exact sums: 2^60 + 1 + 1 = 1152921504606846978, which a double sum
# would round to 2^60 (by hand: 2^60 = 1152921504606846976).  Before
# exact folding --tree printed 1152921504606846976.
printf '0\t1152921504606846976\tm\n0\t1\tm\n0\t1\tm\n' > big.samples.tsv
got=$($SFANALYZE --tree --json big.samples.tsv |
	sed -n 's/^{"name":null,"total":\([0-9]*\).*/\1/p')
if [ "$got" = 1152921504606846978 ]; then pass fold-exact-big; else
	fail fold-exact-big "total $got, expected 1152921504606846978"; fi
# 0.1 + 0.2 + 0.3 on one stack: exactly 0.6000000000000000055511151231257827
# as rationals of the doubles; the nearest double of that sum is 0.6,
# while the double sum (0.1 + 0.2) + 0.3 is 0.6000000000000001
printf '0\t0.1\tm\n0\t0.2\tm\n0\t0.3\tm\n' > frac.samples.tsv
got=$($SFANALYZE --flat --json frac.samples.tsv | grep -o '"total":[0-9.e-]*' | head -n 1)
if [ "$got" = '"total":0.6' ]; then pass fold-exact-fraction; else
	fail fold-exact-fraction "got $got, expected \"total\":0.6"; fi

# The view skips its node map when no two profile stacks can meet in one
# view node.  Two frames with one name (xf at two addresses) must still be
# one function: by hand, main 2000 -> xf 2000 (self 2000).
printf 'app 100/101 [000] 10.000001: 1000 cycles:\n\t    1000 xf (/usr/bin/app)\n\t    3000 main (/usr/bin/app)\n\napp 100/101 [000] 10.000002: 1000 cycles:\n\t    1100 xf (/usr/bin/app)\n\t    3000 main (/usr/bin/app)\n\n' > dup.perf
cat > dup.want <<'W'
Call tree (cycles, events): total 2000 in 2 samples
Total      % Self  Name
 2000 100.0%    0  (all samples)
 2000 100.0%    0  └─ app
 2000 100.0%    0     └─ main
 2000 100.0% 2000        └─ xf
W
$SFANALYZE --from perf dup.perf > dup.out 2>&1
expect_same fold-view-same-name-frames dup.want dup.out
# a --hide that matches nothing takes the map path: same bytes
for f in in1.samples.tsv ints.samples.tsv; do
	$SFANALYZE --callgraph --json "$f" > direct.out
	$SFANALYZE --callgraph --json --hide 'x^' "$f" > mapped.out
	expect_same "fold-view-map-path-$f" direct.out mapped.out
done

# A negative weight (our JSON reader takes one) is refused naming the
# input sample, the 6th here (counted by hand), folded or not, in every
# report; unfolded this was always so, folded --tree used to say 4.
printf '1\t1\ta\n1\t2\ta;b\n1\t1\ta\n2\t3\ta\n1\t1\ta;b\n1\t5\tc\n1\t1\ta\n' > neg.samples.tsv
$SFCONV --from lines neg.samples.tsv --to json |
	sed 's/^\[3,0,null,0,5\]/[3,0,null,0,-5]/' > neg.json
for r in --callgraph --tree; do
	expect_error "fold-negative-weight$r" 1 '^sfanalyze: sample 6 has weight -5' \
		$SFANALYZE $r neg.json
done
