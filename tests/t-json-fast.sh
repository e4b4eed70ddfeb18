# tier: slow
# The native JSON reader's layout fast path (json_fast.c, "the fast path")
# and its yajl fallback give the same model: every output of every
# generated profile and fixture is compared byte for byte between the
# default reader and SF_JSON_SLOW=1 (yajl only).  SF_JSON_STRICT=1 (the
# fast path may not be left) proves that the writer's own documents take
# the fast path from end to end and that the perturbed ones below really
# were read by the fallback.
. "$TOP/tests/lib.sh"
GEN="python3 $TOP/tests/gen_json.py"

# both NAME FILE ARGS...: the default and the yajl-only reader agree on
# stdout, stderr and exit status of `sfconv FILE ARGS...`
both() {
	name=$1; f=$2; shift 2
	$SFCONV -q "$f" "$@" > fast.out 2> fast.err; fs=$?
	SF_JSON_SLOW=1 $SFCONV -q "$f" "$@" > slow.out 2> slow.err; ss=$?
	if [ $fs -ne $ss ]; then
		fail "$name" "exit status $fs, yajl only $ss"; head -n 2 fast.err slow.err
	elif ! cmp -s slow.out fast.out || ! cmp -s slow.err fast.err; then
		fail "$name" "output differs from the yajl-only reader"
		diff slow.out fast.out | head -n 5; diff slow.err fast.err | head -n 3
	else
		pass "$name"
	fi
}

# strict NAME FILE: the writer's document W reads by the fast path alone
# and writes back to itself
strict() {
	if SF_JSON_STRICT=1 $SFCONV -q "$2" --to json > strict.out 2> strict.err
	then expect_same "$1" "$2" strict.out
	else fail "$1" "$(head -n 1 strict.err)"; fi
}

# ---- generated profiles: escapes, non-ASCII, labels, times, threads,
# several sample types, fractional, exponent and negative weights
for seed in $(seq 1 20); do
	$GEN profile $seed > g.json || { fail json-fast-gen-$seed "generator failed"; continue; }
	both json-fast-gen-$seed-json g.json --to json
	both json-fast-gen-$seed-lines g.json --to lines
	both json-fast-gen-$seed-collapsed g.json --to collapsed --period 1
	SF_JSON_SLOW=1 $SFCONV -q g.json --to json > w.json
	strict json-fast-gen-$seed-strict w.json
done

# ---- every fixture, through the writer and back by both paths
n=0
for src in $(find "$FIX" -type f ! -name '*.expected' ! -name '*want*' ! -name '*.c' ! -name '*.cc' | LC_ALL=C sort); do
	SF_JSON_SLOW=1 $SFCONV -q "$src" --to json > fx.json 2>/dev/null || continue
	n=$((n + 1))
	b=$(basename "$src")
	strict json-fast-fixture-$b-strict fx.json
	both json-fast-fixture-$b-collapsed fx.json --to collapsed
	both json-fast-fixture-$b-lines fx.json --to lines
done
[ $n -ge 5 ] && pass json-fast-fixtures-read || fail json-fast-fixtures-read "only $n fixtures converted"
# native documents in other layouts (members shuffled, sections deferred)
for f in "$TOP"/tests/fuzz/corpus/json/*.json; do
	both json-fast-corpus-$(basename "$f") "$f" --to json
done

# ---- perturbed documents: not the writer's layout, so the fast path must
# give up (strict fails) and the fallback still reads the same model
$GEN profile 7 300 > g7.json && SF_JSON_SLOW=1 $SFCONV -q g7.json --to json > w7.json
for k in space crlf number order escape stackspace; do
	$GEN perturb w7.json $k > p.json
	if SF_JSON_STRICT=1 $SFCONV -q p.json --to json > /dev/null 2>&1; then
		fail json-fast-perturb-$k-falls-back "the fast path read it all"
	else
		pass json-fast-perturb-$k-falls-back
	fi
	$SFCONV -q p.json --to json > p.out 2> p.err
	expect_same json-fast-perturb-$k-same-model w7.json p.out
	both json-fast-perturb-$k-both p.json --to lines
done

# ---- piece boundaries: the reader takes 256 KiB at a time, so padding the
# first frame's name moves the cut through the "samples" mark (offsets
# 1-11) and through every byte of the sample lines after it; a pipe cuts
# elsewhere again.  All of it stays on the fast path.
$GEN profile 11 12000 > big.json && SF_JSON_SLOW=1 $SFCONV -q big.json --to json > wbig.json
for off in $(seq 0 30); do
	$GEN pad wbig.json $off > pad.json
	strict json-fast-cut-$off pad.json
done
SF_JSON_SLOW=1 $SFCONV -q wbig.json --to collapsed > big.want
cat wbig.json | SF_JSON_STRICT=1 $SFCONV -q - --from json --to collapsed > big.got 2>&1
expect_same json-fast-pipe big.want big.got

# ---- the plain-sample batch (json_fast.c): elements whose values are all
# null or unsigned integers of at most 18 digits are read 32 at a time;
# any other number ends the batch and the generic loop reads it.  Each
# case below rewrites every 7th sample line (so batches start and stop
# around them) to [stack,null,TIME,labels,W1,W2], the other values plain,
# and both readers must agree, error or not.
num() { # NAME TIME W1 W2 [ARGS...]
	name=$1; e="[\\1,null,$2,\\2,$3,$4]"; shift 4
	sed "$line,\$ {0~7s/^\[\([0-9]*\),null,[0-9]*,\([0-9]*\),[^]]*\]/$e/}" \
		w7.json > num.json
	both json-fast-num-$name num.json --to json "$@"
}
line=$(grep -n '^"samples":\[' w7.json | cut -d: -f1)
num plain 5 1 2
num time-18-digits 999999999999999999 1 1
num time-19-digits 1000000000000000000 1 1
num time-20-digits 99999999999999999999 1 1
num time-negative -5 1 1
num time-minus-zero -0 1 1
num time-leading-zero 05 1 1
num time-null null 1 1
num weight-fraction 5 1.0 1
num weight-exponent 5 1 1e0
num weight-zero 5 0 0
num weight-null 5 null 1
num weight-19-digits 5 1 1000000000000000000
num weight-extra 5 1 1,7
num max-name 12345 1 1 --max-name 4
# the same batch reads "stacks" sections ([parent, frame]): in a
# document of 3,000 distinct stacks, stack lines from the 97th on are
# rewritten every 97 (so a batch has run before each), and both readers
# must agree, error or not
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "a;b%d;c%d %d\n", i % 50, i, i + 1 }' > st.folded
SF_JSON_SLOW=1 $SFCONV -q st.folded --to json > st.json
sline=$(grep -n '^"stacks":\[' st.json | cut -d: -f1)
stk() { # NAME REPLACEMENT (\1 parent, \2 frame)
	sed "$sline,\$ {0~97s/^\[\([0-9]*\),\([0-9]*\)\]/$2/}" \
		st.json > stk.json
	both json-fast-stack-$1 stk.json --to json
}
strict json-fast-stack-strict st.json
stk plain '[\1,\2]'
stk extra '[\1,\2,7]'
stk extra-null '[\1,\2,null]'
stk parent-null '[null,\2]'
stk parent-negative '[-\1,\2]'
stk parent-leading-zero '[0\1,\2]'
stk parent-range '[999999,\2]'
stk frame-range '[\1,999999]'
stk frame-exponent '[\1,\2e0]'
stk frame-19-digits '[\1,1000000000000000000]'
stk one-value '[\1]'
# every element plain, cut by the end of a piece at each place: an
# aggregated document (integer counts, no times) padded as above
$GEN profile 11 12000 | SF_JSON_SLOW=1 $SFCONV -q - --from json --to collapsed > plain.folded
SF_JSON_SLOW=1 $SFCONV -q plain.folded --to json > plain.json
for off in $(seq 0 20); do
	$GEN pad plain.json $off > pad.json
	strict json-fast-plain-cut-$off pad.json
	both json-fast-plain-cut-$off-both pad.json --to collapsed
	# a file is mapped, a pipe read into a buffer: the same pieces
	$SFCONV -q pad.json --to collapsed > map.out
	cat pad.json | $SFCONV -q - --from json --to collapsed > pipe.out
	expect_same json-fast-plain-cut-$off-pipe map.out pipe.out
done

# ---- the reader skips its index maps (file index -> model id) while they
# are the identity; a frame or stack node the file repeats, or a second
# input, ends that.  dup.json names frame "a" twice and the stack "a"
# and "a;b" twice each: "a" weighs 5 and "a;b" 1 + 2; rev.json lists
# its frames in the other order (its "a;b" weighs 7), so after dup.json
# neither of its maps is the identity.
cat > dup.json <<'EOF'
{"format":"sftools-profile","version":1,
"sample_types":[{"type":"samples","unit":"count"}],
"threads":[],
"label_sets":[],
"frames":[
{"name":"a"},
{"name":"b"},
{"name":"a"}],
"stacks":[
[0,0],
[1,1],
[0,2],
[3,1]],
"samples":[
[2,null,null,0,1],
[4,null,null,0,2],
[3,null,null,0,5]]}
EOF
cat > rev.json <<'EOF'
{"format":"sftools-profile","version":1,
"sample_types":[{"type":"samples","unit":"count"}],
"threads":[],
"label_sets":[],
"frames":[
{"name":"b"},
{"name":"a"}],
"stacks":[
[0,1],
[1,0]],
"samples":[
[2,null,null,0,7]]}
EOF
printf 'a 5\na;b 3\n' > dup.want
printf 'a 5\na;b 10\n' > duprev.want
SF_JSON_STRICT=1 $SFCONV -q dup.json --to collapsed > dup.got 2>&1
expect_same json-fast-map-repeated dup.want dup.got
SF_JSON_STRICT=1 $SFCONV -q dup.json rev.json --to collapsed > duprev.got 2>&1
expect_same json-fast-map-second-input duprev.want duprev.got
$SFCONV -q rev.json dup.json --to collapsed > revdup.got 2>&1
expect_same json-fast-map-second-input-rev duprev.want revdup.got

# ---- bad input in a fast section: one line, the same as yajl's, at the
# line of the bad element (its line number found here with grep)
bad() { # NAME SED-EXPR WANT-REGEX
	sed "$2" w7.json > bad.json
	expect_error json-fast-bad-$1 1 "$3" $SFCONV -q bad.json --to json
	both json-fast-bad-$1-same bad.json --to json
}
line=$(grep -n '^"samples":\[' w7.json | cut -d: -f1)
l3=$((line + 3))
bad stack-range "${l3}s/^\[[0-9]*,/[99999,/" "bad.json:$l3: samples\[2\]: stack, thread, time or labels out of range"
bad weights "${l3}s/\]/,5]/" "bad.json:$l3: samples\[2\]: expected \[stack"
bad garbage "${l3}s/,/,@/" "bad.json:$l3: invalid JSON"
bad trailing-comma "\$s/\]\]}/],]}/" "invalid JSON"
head -c 3000 wbig.json > cut.json
expect_error json-fast-bad-truncated 1 "cut.json:[0-9]+: truncated JSON" $SFCONV -q cut.json --to json
both json-fast-bad-truncated-same cut.json --to json

# ---- the frames section (json_fast.c, fast_frames): members name,
# module, file, kind and address as plain strings are read without yajl;
# any other frame, and every frame after it, goes to yajl.  Each case is
# frame 1 of three (line 7 of the document; line 7 of the written JSON
# is the frame as the model holds it), the result worked out by hand.
frame_doc() { # FRAME-1
	printf '%s\n' '{"format":"sftools-profile","version":1,' \
		'"sample_types":[{"type":"samples","unit":"count"}],' \
		'"threads":[],' '"label_sets":[],' '"frames":[' \
		'{"name":"a","module":"/m","address":"0x10"},' "$1," \
		'{"name":"c"}],' '"stacks":[' '[0,0],' '[1,1],' '[2,2]],' \
		'"samples":[' '[3,null,null,0,2]]}'
}
fr() { # NAME FRAME-1 WANT-FRAME-1
	frame_doc "$2" > fr.json
	printf '%s,\n' "$3" > fr.want
	$SFCONV -q fr.json --to json 2>&1 | sed -n 7p > fr.got
	expect_same json-fast-frame-$1 fr.want fr.got
	both json-fast-frame-$1-both fr.json --to json
}
fr plain '{"module":"/n","name":"b","address":"0x20"}' \
	'{"name":"b","module":"/n","address":"0x20"}'
fr repeated '{"name":"x","file":"f.c","name":"b","kind":"k"}' \
	'{"name":"b","file":"f.c","kind":"k"}'
fr hex-case '{"name":"b","address":"0xAbC"}' '{"name":"b","address":"0xabc"}'
fr non-ascii '{"name":"bé"}' '{"name":"bé"}'
fr empty-name '{"name":""}' '{"name":""}'
fr escaped '{"name":"b\"q\u0041"}' '{"name":"b\"qA"}'
fr escaped-late '{"name":"lib::function\u0041::é\"x"}' \
	'{"name":"lib::functionA::é\"x"}'
fr unknown '{"name":"b","unknown":"x"}' '{"name":"b"}'
fr line '{"name":"b","line":7}' '{"name":"b","line":7}'
fr space '{"name": "b"}' '{"name":"b"}'
fr address-17-digits '{"name":"b","address":"0x00000000000000010"}' \
	'{"name":"b","address":"0x10"}'
frbad() { # NAME FRAME-1 WANT-REGEX: one message, at line 7
	frame_doc "$2" > fr.json
	expect_error json-fast-frame-$1 1 "fr.json:7: frames\[1\]: $3" \
		$SFCONV -q fr.json --to json
	both json-fast-frame-$1-both fr.json --to json
}
frbad bad-address '{"name":"b","address":"0xZZ"}' 'address: expected "0xHEX"'
frbad no-address '{"name":"b","address":"0xffffffffffffffff"}' \
	'address: expected "0xHEX"'
frbad no-name '{"module":"/m"}' 'expected an object with a "name"'
frbad name-number '{"name":5}' 'expected an object with a "name"'
# frames cut by the end of a 256 KiB piece at each byte of a frame's line:
# 12,000 frames (about 600 KB), the first name padded by 0 to 63 bytes
awk 'BEGIN { for (i = 0; i < 12000; i++)
	printf "a;function_number_%05d;m%d %d\n", i, i % 7, i + 1 }' > fr.folded
SF_JSON_SLOW=1 $SFCONV -q fr.folded --to json > frbig.json
SF_JSON_SLOW=1 $SFCONV -q frbig.json --to collapsed > frbig.want
for off in $(seq 0 63); do
	pad=$(printf "%${off}s" "" | tr ' ' p)
	sed "0,/^{\"name\":\"/s//{\"name\":\"$pad/" frbig.json > frpad.json
	SF_JSON_SLOW=1 $SFCONV -q frpad.json --to collapsed > frpad.want
	$SFCONV -q frpad.json --to collapsed > frpad.got 2>&1
	expect_same json-fast-frame-cut-$off frpad.want frpad.got
done
cat frpad.json | $SFCONV -q - --from json --to collapsed > frpipe.got 2>&1
expect_same json-fast-frame-cut-pipe frpad.want frpipe.got
