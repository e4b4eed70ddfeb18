# The sample-lines reader's record cache and batches (issue #8): results
# that depend on the cache being keyed right (thread AND stack text), on
# the thread-field table overflowing (more than 64 fields, fields longer
# than 48 bytes), and on errors inside a batch of lines keeping their line
# number and their order.  Expectations come from awk over the input.
. "$TOP/tests/lib.sh"

# 3000 lines in canonical form (what the lines writer prints): 100
# threads (so the 64-entry thread table overflows), some with names longer
# than 48 bytes, one field empty (no thread), one a bare name; 40 stacks,
# one of them empty; the same stack text under many threads
awk 'BEGIN {
	srand(11);
	for (i = 0; i < 40; i++) {
		d = int(rand() * 6); s = "";
		for (j = 0; j < d; j++) s = s (j ? ";" : "") "fn" int(rand() * 9);
		st[i] = s;
	}
	for (i = 0; i < 3000; i++) {
		t = int(rand() * 102);
		if (t == 100) th = "";
		else if (t == 101) th = ":bare";
		else if (t % 7 == 0) th = t ":a-thread-name-that-is-longer-than-forty-eight-bytes-" t;
		else th = t;
		printf "%s\t%d\t%s\n", th, 1 + int(rand() * 5), st[int(rand() * 40)];
	}
}' > many.samples.tsv

# lines -> lines keeps every sample, in order, with its thread: the output
# is the input (it is in canonical form)
$SFCONV --from lines many.samples.tsv --to lines > back.tsv 2> back.err
expect_same lines-cache-roundtrip many.samples.tsv back.tsv

# lines -> collapsed: sums per stack across threads
awk -F '\t' '{ w[$3] += $2 } END { for (s in w) print s " " w[s] }' \
	many.samples.tsv | LC_ALL=C sort > want.folded
$SFCONV --from lines -q many.samples.tsv --to collapsed | LC_ALL=C sort > got.folded
expect_same lines-cache-collapsed want.folded got.folded

# thread totals: sfanalyze --per-thread numbers threads by first sample;
# awk computes each thread field's total in order of first appearance
awk -F '\t' '!($1 in w) { o[n++] = $1 } { w[$1] += $2 }
	END { for (i = 0; i < n; i++) print w[o[i]] }' many.samples.tsv > want.tot
$SFANALYZE --tree --json --per-thread --thread-ids order many.samples.tsv |
	python3 -c 'import json, sys
d = json.load(sys.stdin)
for k in d: print(d[k]["total"])' > got.tot 2>/dev/null
if have python3; then
	expect_same lines-cache-thread-totals want.tot got.tot
else
	skip lines-cache-thread-totals "python3 is missing"
fi

# errors inside a batch: line 45 (second batch) has a bad weight
awk 'NR == 45 { print "1\tx\ta"; next } { print }' many.samples.tsv > bad45.tsv
expect_error lines-cache-error-line 1 "^sfconv: bad45.tsv:45: expected a non-negative number as WEIGHT, found 'x'" \
	$SFCONV --from lines bad45.tsv --to collapsed
# a bad line before a line too long in the same batch: the bad line is
# reported, as a one-line-at-a-time reader would
long=$(awk 'BEGIN { while (n++ < 300) printf "a" }')
{ head -n 3 many.samples.tsv; printf '1\t1\t\001\n' | tr '\001' '\000'
  printf '1\t1\t%s\n' "$long"; } > order.tsv
expect_error lines-cache-error-order 1 "^sfconv: order.tsv:4: unexpected NUL byte" \
	$SFCONV --from lines --max-line 200 order.tsv --to collapsed
{ head -n 3 many.samples.tsv; printf '1\t1\t%s\n' "$long"; } > long.tsv
expect_error lines-cache-error-long 1 "^sfconv: long.tsv:4: line longer than 200 bytes" \
	$SFCONV --from lines --max-line 200 long.tsv --to collapsed

# thread fields outside the table (longer than 48 bytes), in runs: the
# reader's last-field shortcut; lines -> lines gives the input back
awk 'BEGIN { for (i = 0; i < 300; i++) {
	t = int(i / 7) % 5;
	printf "%d:worker-thread-with-a-rather-long-name-number-%d-xxxxxxxx\t%d\tm;f%d\n", t, t, 1 + i % 3, i % 4 } }' > runs.samples.tsv
$SFCONV --from lines runs.samples.tsv --to lines > runs.out
expect_same lines-cache-long-thread-runs runs.samples.tsv runs.out

# long lines (stacks of 20,000 frames, about 150 KB): batches stop
# growing at 1 MB; collapsed sums from awk
awk 'BEGIN { for (i = 0; i < 12; i++) {
	s = "r"; for (j = 0; j < 20000; j++) s = s ";g" (j + i % 3) % 50;
	printf "%d\t%d\t%s\n", i % 2, i + 1, s } }' > long.samples.tsv
awk -F '\t' '{ w[$3] += $2 } END { for (s in w) print s " " w[s] }' \
	long.samples.tsv | LC_ALL=C sort > long.want
$SFCONV --from lines -q --max-depth 30000 long.samples.tsv --to collapsed | LC_ALL=C sort > long.got
expect_same lines-cache-long-lines long.want long.got
