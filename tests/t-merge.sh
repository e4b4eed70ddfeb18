# Map-reduce with plain pipes: each "host" emits collapsed stacks, a
# reducer merges them in one pass (sort | sfconv --merge), and the result
# equals converting all the samples at once.
. "$TOP/tests/lib.sh"
GEN="python3 $TOP/tests/gen_stacks.py"

$GEN lines 11 20000 > all.tsv
split -n l/4 all.tsv host.          # four hosts' samples
for h in host.*; do
	$SFCONV --from lines "$h" -q > "$h.folded"   # map: each host
done
sort -m host.*.folded | $SFCONV --merge --from collapsed > reduced.folded
$SFCONV all.tsv -q > whole.folded
expect_same merge-sort-pipe-equals-whole whole.folded reduced.folded

# the independent expectation: sum per stack in python
awk -F'\t' '{print $3 " " $2}' all.tsv > all.as-folded
$GEN expect-collapsed all.as-folded > want.folded
expect_same merge-equals-independent-sum want.folded reduced.folded

# several files on the command line merge too, threads kept apart
$SFCONV --merge host.aa host.ab --to json > two.json
python3 - two.json > two.out <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
inputs = sorted({t.get("input", 0) for t in d["threads"]})
print("inputs", inputs)
PY
grep -qx 'inputs \[0, 1\]' two.out && pass merge-keeps-inputs-apart || fail merge-keeps-inputs-apart "$(cat two.out)"

# lines from many hosts reduce the same way
cat host.aa host.ab host.ac host.ad | $SFCONV --merge --from lines -q > cat.folded
expect_same merge-lines-stream whole.folded cat.folded
