# tier: slow
# Round trips through the native JSON on generated inputs: collapsed ->
# JSON -> collapsed and lines -> JSON -> lines are identity (collapsed after
# summing and sorting, computed independently by tests/gen_stacks.py).
. "$TOP/tests/lib.sh"
GEN="python3 $TOP/tests/gen_stacks.py"

for seed in 1 2 3; do
	$GEN collapsed $seed 2000 > in.folded
	$GEN expect-collapsed in.folded > want.folded
	$SFCONV in.folded -o mid.json && $SFCONV mid.json -o back.folded
	expect_same "collapsed-json-collapsed-seed$seed" want.folded back.folded
	# JSON is a fixed point: reading it and writing it again
	$SFCONV mid.json -o mid2.json
	expect_same "json-fixed-point-seed$seed" mid.json mid2.json
	$GEN lines $seed 2000 > in.tsv
	$SFCONV in.tsv -o mid.json && $SFCONV mid.json -o back.samples.tsv
	expect_same "lines-json-lines-seed$seed" in.tsv back.samples.tsv
	# gzip on both sides changes nothing
	$SFCONV in.tsv -o mid.json.gz && $SFCONV mid.json.gz --to lines > back2.tsv
	expect_same "lines-json-gz-lines-seed$seed" in.tsv back2.tsv
done

# empty stacks survive (collapsed " N" and lines with an empty third field)
printf ' 4\na 1\n' > empty.folded
$SFCONV empty.folded --to json | $SFCONV --to collapsed > empty.out
expect_same empty-stack-collapsed empty.folded empty.out

# a 10,000-frame stack
$GEN deep 10000 > deep.folded
$SFCONV deep.folded -o deep.json && $SFCONV deep.json > deep.out
expect_same deep-10000-frames deep.folded deep.out

# a million samples, in order, through JSON and back
$GEN lines 7 1000000 > big.tsv
$SFCONV big.tsv -o big.json && $SFCONV big.json --to lines > big.out
expect_same million-samples-lines big.tsv big.out
awk -F'\t' '{print $3 " " $2}' big.tsv > big.as-folded
$GEN expect-collapsed big.as-folded > big.want
$SFCONV big.json --to collapsed -q > big.folded
expect_same million-samples-collapsed big.want big.folded

# deterministic: the same input gives the same bytes
$SFCONV big.tsv --to json > j1 && $SFCONV big.tsv --to json > j2
expect_same deterministic-json j1 j2
