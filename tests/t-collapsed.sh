# Collapsed stacks: reading, sorted aggregated writing, errors.
. "$TOP/tests/lib.sh"

# basic.expected was written by hand: lines sorted bytewise, equal stacks
# summed (3 + 1), CRLF and blank lines tolerated, spaces and UTF-8 kept.
$SFCONV "$FIX/collapsed/handmade.folded" > out 2>err
expect_same collapsed-basic "$FIX/collapsed/handmade.expected" out

# same through stdin, through gzip, and to a named file
gzip -c "$FIX/collapsed/handmade.folded" | $SFCONV > out.gz.txt
expect_same collapsed-gzip-stdin "$FIX/collapsed/handmade.expected" out.gz.txt
$SFCONV "$FIX/collapsed/handmade.folded" -o named.folded
expect_same collapsed-named-output "$FIX/collapsed/handmade.expected" named.folded

# a BOM on the first line is not part of the first frame
printf '\357\273\277a;b 2\n' | $SFCONV > bom.out
printf 'a;b 2\n' > bom.want
expect_same collapsed-bom bom.want bom.out

# ';' inside a name cannot be written: it becomes ':' (a name can only
# hold ';' when it comes from a format that quotes names, here JSON)
cat > semi.json <<'J'
{"format":"sftools-profile","version":1,"sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],"frames":[{"name":"root"},{"name":"(FLET X :IN \"SYS:SRC;CODE\")"}],
 "stacks":[[0,0],[1,1]],"samples":[[2,null,null,0,1]]}
J
$SFCONV semi.json > semi.out
printf 'root;(FLET X :IN "SYS:SRC:CODE") 1\n' > semi.want
expect_same collapsed-semicolon-in-name semi.want semi.out

# names on both sides of the 31 bytes the writer keeps in its name
# table's entries (collapsed_levels.c, struct ntxt): 30, 31, 32 and 33
# bytes, at the root, inside a path and as the leaf, one after another;
# the expected lines are the input's in bytewise order (a line's own
# count before its callees: ' ' sorts before ';')
a30=$(printf '%30s' | tr ' ' a); b31=$(printf '%31s' | tr ' ' b)
c32=$(printf '%32s' | tr ' ' c); d33=$(printf '%33s' | tr ' ' d)
printf '%s\n' "$b31;$a30;$c32 2" "$a30;$b31;$d33;e 1" "$a30;$b31 3" \
	"$c32;$b31;$b31 1" "$d33 4" "e;$b31;e;$a30;e 5" > nlen.folded
printf '%s\n' "$a30;$b31 3" "$a30;$b31;$d33;e 1" "$b31;$a30;$c32 2" \
	"$c32;$b31;$b31 1" "$d33 4" "e;$b31;e;$a30;e 5" > nlen.want
for j in 1 2; do
	$SFCONV -j$j nlen.folded > nlen.out
	expect_same collapsed-name-lengths-31-byte-entries-j$j nlen.want nlen.out
done

# --thread-prefix puts NAME-TID as the root frame
printf '7:worker\t1\ta;b\n8:main\t2\ta\n7:worker\t1\ta;b\n' | $SFCONV --from lines --thread-prefix > tp.out
printf 'main-8;a 2\nworker-7;a;b 2\n' > tp.want
expect_same collapsed-thread-prefix tp.want tp.out

# malformed input: one line naming file and line, exit 1, no output file
printf 'a;b 1\na;b\n' > bad1.folded
expect_error collapsed-missing-count 1 '^sfconv: bad1.folded:2: expected' $SFCONV bad1.folded -o never.folded
[ -e never.folded ] && fail collapsed-no-partial-output "never.folded was left behind" || pass collapsed-no-partial-output
ls -a | grep -q '^\.never' && fail collapsed-no-temp-left "temporary file left" || pass collapsed-no-temp-left
printf 'a;b -3\n' > bad2.folded
expect_error collapsed-negative-count 1 '^sfconv: bad2.folded:1: expected' $SFCONV --from collapsed bad2.folded
# ... so no negative count is written either (it could not be read
# back): a model with one, such as pprof's -diff_base output or this
# JSON, is refused naming the sample, counted from 1 (the second here),
# and the fix; collapsed and sample lines alike, no output file left.
# Before, "main;work -2" was written; and "work" of kind jit and "work"
# (one written name) with +2 and -2 gave a line "main;work 0" that
# reading then dropped.
cp "$FIX/json/merged-zero.json" neg.json
expect_error collapsed-write-negative 1 \
	'^sfconv: neg.folded: sample 2: weight -2 cannot be written as a collapsed count \(json and pprof keep negative weights\)$' \
	$SFCONV neg.json -o neg.folded
[ -e neg.folded ] && fail collapsed-write-negative-no-file "neg.folded left" || pass collapsed-write-negative-no-file
expect_error lines-write-negative 1 \
	"^sfconv: neg.lines: sample 2: weight -2 cannot be written as a sample line's WEIGHT" \
	$SFCONV neg.json -o neg.lines
[ -e neg.lines ] && fail lines-write-negative-no-file "neg.lines left" || pass lines-write-negative-no-file
# without the negative sample the other two are written
sed 's/\[3, null, null, 0, -2\],//' neg.json > pos.json
$SFCONV pos.json > pos.out
printf 'main;idle 3\nmain;work 2\n' > pos.want
expect_same collapsed-write-after-negative pos.want pos.out
# The raw sample is named only while nothing folded before it: here c's
# two samples of -2 (the 5th and 7th read) fold into one of -4 and a's
# four into one, so no sample number is true (before, "sample 7: weight
# -4", the sum of the counts); the message names the stack instead.
printf '%s\n' '{"format": "sftools-profile", "version": 1, "meta": {},' \
	'"sample_types": [{"type": "samples", "unit": "count"}],' \
	'"threads": [], "label_sets": [],' \
	'"frames": [{"name": "a"}, {"name": "b"}, {"name": "c"}],' \
	'"stacks": [[0, 0], [0, 1], [0, 2]],' \
	'"samples": [[1, null, null, 0, 1], [2, null, null, 0, 1],' \
	'[1, null, null, 0, 1], [1, null, null, 0, 1], [3, null, null, 0, -2],' \
	'[1, null, null, 0, 1], [3, null, null, 0, -2]]}' > negfold.json
expect_error collapsed-write-negative-folded 1 \
	'^sfconv: negfold.folded: the stack ending in c: weight -4 \(2 samples summed\) cannot be written as a collapsed count' \
	$SFCONV negfold.json -o negfold.folded
printf 'a;b 1\n' | gzip | head -c 12 > trunc.gz
expect_error collapsed-truncated-gzip 1 'truncated gzip' $SFCONV --from collapsed trunc.gz
expect_error empty-input 1 'empty input' $SFCONV /dev/null
expect_error missing-file 3 '^sfconv: nope.folded: cannot open' $SFCONV nope.folded
expect_error unknown-format 2 "unknown input format 'nope'" $SFCONV --from nope x
expect_error unknown-option 2 "unknown option '--bogus'" $SFCONV --bogus
expect_error unknown-extension 2 "cannot tell the output format" $SFCONV "$FIX/collapsed/handmade.folded" -o x.unknownext
# as sfconv(1) says: refused, with the fix named, and nothing written
expect_error unknown-extension-sf 2 "^sfconv: cannot tell the output format from 'out.sf'; use --to" \
	$SFCONV "$FIX/collapsed/handmade.folded" -o out.sf
[ -e out.sf ] && fail unknown-extension-no-file "out.sf written" || pass unknown-extension-no-file

# a frame name may end in a blank: one blank separates the count, as in
# flamegraph.pl, so "b " and "b" stay apart (not "a;b 8")
printf 'a;b  5\na;b 3\n' | $SFCONV --from collapsed > trail.out
printf 'a;b 3\na;b  5\n' > trail.want
expect_same collapsed-trailing-blank-in-name trail.want trail.out
printf 'a;b  5\na;b 3\n' | $SFCONV > trail2.out
expect_same collapsed-trailing-blank-detected trail.want trail2.out

# detected by what a line is, not its first byte: SBCL's <unknown> and
# Java's <init> start lines of a real collapsed file
printf '<unknown>;foo 3\nmain;<init>;<clinit> 2\n' | gzip -c > lt.gz
$SFCONV --to collapsed < lt.gz > lt.out 2> lt.err
printf '<unknown>;foo 3\nmain;<init>;<clinit> 2\n' > lt.want
expect_same collapsed-detect-angle-bracket lt.want lt.out

# the stack cache: a repeated stack is found by its frames, not a copy of
# its text; stacks that are prefixes, extensions or joins of others stay
# apart; past 64K distinct stacks with no repeats the cache turns itself
# off and stacks still fold (hand-computed sums)
printf 'a;b 1\na;b;c 2\na 4\na;b 8\nab 16\na;bc 32\na;b;c 64\na;;b 128\n' |
	$SFCONV --from collapsed > cache.out
# (the output is sorted by stack, bytewise)
printf 'a 4\na;;b 128\na;b 9\na;b;c 66\na;bc 32\nab 16\n' > cache.want
expect_same collapsed-cache-spelling cache.want cache.out
awk 'BEGIN { for (r = 0; r < 2; r++) for (i = 0; i < 70000; i++)
	printf "m;f%d;g%d %d\n", i % 100, i, r + 1 }' > many.folded
awk 'BEGIN { for (i = 0; i < 70000; i++) printf "m;f%d;g%d 3\n", i % 100, i }' |
	LC_ALL=C sort > many.want
$SFCONV -j 1 many.folded > many.out
expect_same collapsed-cache-off-still-folds many.want many.out
