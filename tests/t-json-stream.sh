# The native JSON reader streams: members in any order, line numbers in
# every message, and memory bounded by the unique stacks (not the samples)
# when the output is aggregated.
. "$TOP/tests/lib.sh"

# ---- one profile written in the writer's member order and in another
# order (samples first, stacks before frames, members of elements shuffled,
# an unknown member); both must read to the same model.
cat > canon.json <<'J'
{"format":"sftools-profile","version":1,
"meta":{"source_format":"lines","default_sample_type":1,"properties":[["host","h1"]]},
"sample_types":[{"type":"samples","unit":"count"},{"type":"cpu","unit":"nanoseconds"}],
"threads":[{"pid":1,"tid":2,"name":"main"},{"tid":3}],
"frames":[{"name":"main"},{"name":"parse","file":"p.c","line":7},{"name":"read"}],
"stacks":[[0,0],[1,1],[2,2],[1,2]],
"label_sets":[[["state","R"]]],
"samples":[
[2,0,100,0,1,10],
[3,1,200,1,1,20],
[4,null,null,0,2,5],
[2,1,300,0,1,7],
[1,0,null,1,1,1]]}
J
cat > shuffled.json <<'J'
{"samples":[
[2,0,100,0,1,10],
[3,1,200,1,1,20],
[4,null,null,0,2,5],
[2,1,300,0,1,7],
[1,0,null,1,1,1]],
"x":{"ignored":[1,{"a":[]}]},
"label_sets":[[["state","R"]]],
"stacks":[[0,0],[1,1],[2,2],[1,2]],
"frames":[{"name":"main"},{"line":7,"file":"p.c","name":"parse","unknown":{}},{"name":"read"}],
"threads":[{"name":"main","tid":2,"pid":1},{"tid":3}],
"sample_types":[{"unit":"count","type":"samples"},{"unit":"nanoseconds","type":"cpu"}],
"meta":{"properties":[["host","h1"]],"default_sample_type":1,"source_format":"lines"},
"version":1,"format":"sftools-profile"}
J
# stacks (main, main;parse, main;parse;read, main;read) with the cpu
# weights (the default type) summed over threads and labels, by hand:
# main 1; main;parse 10+7; main;parse;read 20; main;read 5
cat > order.want <<'E'
main 1
main;parse 17
main;parse;read 20
main;read 5
E
for f in canon shuffled; do
	$SFCONV -q $f.json --to collapsed > $f.folded 2> $f.err
	LC_ALL=C sort $f.folded > $f.sorted
	expect_same json-order-$f-collapsed order.want $f.sorted
	$SFCONV $f.json --to json > $f.out.json 2> $f.err ||
		fail json-order-$f-json "$(head -n 1 $f.err)"
done
expect_same json-order-shuffled-same-model canon.out.json shuffled.out.json
# the timeline (times, threads, labels, both types) survives the shuffle
$SFCONV shuffled.json --to lines > shuffled.lines 2>/dev/null
$SFCONV canon.json --to lines > canon.lines 2>/dev/null
expect_same json-order-shuffled-timeline canon.lines shuffled.lines
grep -q '"properties":\[\["host","h1"\]\]' shuffled.out.json &&
	grep -q '"source_format":"lines"' shuffled.out.json &&
	pass json-order-shuffled-meta || fail json-order-shuffled-meta "meta lost"

# label_sets is optional: absent, samples are read at the end
sed '/^"label_sets"/d; s/^\[3,1,200,1,/[3,1,200,0,/; s/^\[1,0,null,1,/[1,0,null,0,/' \
	canon.json > nolabels.json
$SFCONV -q nolabels.json --to collapsed | LC_ALL=C sort > nolabels.sorted
expect_same json-order-no-label-sets order.want nolabels.sorted

# ---- errors name the line
hdr='{"format":"sftools-profile","version":1,
"sample_types":[{"type":"samples","unit":"count"}],
"threads":[],
"frames":[{"name":"a"},{"name":"b"}],'
{ echo "$hdr"; cat <<'J'
"stacks":[[0,0],[1,1]],
"samples":[
[1,null,null,0,1],
[2,null,null,0,1],
[3,null,null,0,1],
[2,null,null,0,1]]}
J
} > badref.json
expect_error json-bad-reference-line 1 \
	'^sfconv: badref.json:9: samples\[2\]: stack, thread, time or labels out of range$' \
	$SFCONV badref.json
# the same reference in samples read before the stacks (kept as text and
# parsed at the end): the line is still the sample's
{ echo '{"samples":[
[1,null,null,0,1],
[3,null,null,0,1]],'; echo "$hdr" | sed 1d; cat <<'J'
"stacks":[[0,0],[1,1]],
"format":"sftools-profile","version":1}
J
} > badref2.json
expect_error json-bad-reference-deferred-line 1 \
	'^sfconv: badref2.json:3: samples\[1\]: stack, thread, time or labels out of range$' \
	$SFCONV badref2.json
# a frame index out of range in stacks that come before the frames
{ echo '{"format":"sftools-profile","version":1,
"stacks":[[0,0],
[1,2]],'; echo "$hdr" | sed 1d; echo '"samples":[]}'; } > badframe.json
expect_error json-bad-frame-deferred-line 1 \
	'^sfconv: badframe.json:3: stacks\[1\]: expected \[parent, frame\]' \
	$SFCONV badframe.json
# cut after line 8: the message names line 8, the last one read
head -n 8 badref.json > cut.json
expect_error json-truncated-line 1 \
	'^sfconv: cut.json:8: truncated JSON: the document ends early$' \
	$SFCONV --from json cut.json
gzip -n -c cut.json > cut.json.gz
expect_error json-truncated-line-gzip 1 \
	'^sfconv: cut.json.gz:8: truncated JSON: the document ends early$' \
	$SFCONV --from json cut.json.gz
# cut just after an element of the writer's layout, which the fast path
# reads (no byte left over): still the last line, as yajl alone says it
# (the fast path named the line its section began on: 9 and 5)
cat > cutel.json <<'J'
{"format":"sftools-profile","version":1,
"sample_types":[{"type":"samples","unit":"count"}],
"threads":[],
"frames":[{"name":"a"},{"name":"b"}],
"stacks":[
[0,0],
[1,1]],
"label_sets":[],
"samples":[
[1,null,null,0,1],
[2,null,null,0,2]]}
J
{ head -n 10 cutel.json; printf '[2,null,null,0,2]'; } > cutsm.json
{ head -n 6 cutel.json; printf '[1,1]'; } > cutst.json
for c in cutsm:11 cutst:7; do
	f=${c%:*} l=${c#*:}
	for how in fast slow gzip; do
		in=$f.json env=
		case $how in
		slow) env=SF_JSON_SLOW=1 ;;
		gzip) gzip -n -c $f.json > $f.json.gz; in=$f.json.gz ;;
		esac
		expect_error json-truncated-element-$f-$how 1 \
			"^sfconv: $in:$l: truncated JSON: the document ends early\$" \
			env $env $SFCONV --from json $in
	done
done
# a required member missing: the line where the document ends
{ echo "$hdr"; printf '"stacks":[]\n}\n'; } > nosamples.json
expect_error json-missing-samples 1 '^sfconv: nosamples.json:6: samples: missing member$' \
	$SFCONV nosamples.json
{ echo "$hdr"; printf '"stacks":[],\n"samples":[],\n"stacks":[]}\n'; } > dup.json
expect_error json-duplicate-member 1 '^sfconv: dup.json:7: stacks: duplicate member$' \
	$SFCONV dup.json
printf '{"format":"sftools-profile","version":1,"meta":{"period":"x"}}\n' > meta.json
expect_error json-meta-type 1 '^sfconv: meta.json:1: meta: period: expected a number$' \
	$SFCONV meta.json
printf '[{"format":"sftools-profile"}]\n' > arr.json
expect_error json-root-not-object 1 '^sfconv: arr.json:1: expected a JSON object$' \
	$SFCONV --from json arr.json
printf '{"format":"sftools-profile","version":1,"frames":[{"name":"a" /* c */}]}\n' > comment.json
expect_error json-no-comments 1 '^sfconv: comment.json:1: invalid JSON' $SFCONV comment.json

# a number longer than --max-name: within one piece of input, and across
# pieces (the reader parses 256 KiB at a time; yajl would buffer it whole)
for k in 2000 600000; do
	python3 -c "import sys; sys.stdout.write('{\"format\":\"sftools-profile\",\"x\":\n' + '7' * $k + '}')" > num$k.json
	expect_error json-number-max-name-$k 1 \
		'^sfconv: num'$k'.json:2: JSON number or literal longer than 1000 bytes \(--max-name\)$' \
		$SFCONV --max-name 1000 --from json num$k.json
done

# escapes at every place of a string against the eight-byte words the
# pre-scan reads (a quote, a slash, a backslash; runs of backslashes),
# each name 40 bytes as written: --max-name 40 reads them, the names
# decoded as JSON decodes them; --max-name 39 stops at the first
gen_esc() { # one more plain name, written last, of this many bytes
	python3 -c '
import sys
names = []
for esc, dec in (("\\/", "/"), ("\\\"", "\""), ("\\\\", "\\")):
    for k in range(20):
        names.append(("a" * k + esc + "b" * (38 - k), "a" * k + dec + "b" * (38 - k)))
for k in range(10):
    names.append(("c" * k + "\\\\" * 5 + "d" * (30 - k), "c" * k + "\\" * 5 + "d" * (30 - k)))
names.append(("e" * int(sys.argv[1]), "e" * int(sys.argv[1])))
print("{\"format\":\"sftools-profile\",\"version\":1,")
print("\"sample_types\":[{\"type\":\"samples\",\"unit\":\"count\"}],\"threads\":[],")
print("\"frames\":[\n" + ",\n".join("{\"name\":\"%s\"}" % r for r, _ in names) + "],")
print("\"stacks\":[\n" + ",\n".join("[0,%d]" % i for i in range(len(names))) + "],")
print("\"samples\":[\n" + ",\n".join("[%d,null,null,0,1]" % (i + 1) for i in range(len(names))) + "]}")
with open("esc.want", "w") as f:
    f.write("".join("%s 1\n" % d for _, d in sorted(names, key=lambda x: x[1])))
' "$1"
}
gen_esc 40 > esc.json
$SFCONV --max-name 40 esc.json --to collapsed | LC_ALL=C sort > esc.out
LC_ALL=C sort esc.want > esc.sorted
expect_same json-scan-escapes esc.sorted esc.out
gen_esc 41 > esc41.json
expect_error json-scan-string-max-name 1 \
	'^sfconv: esc41.json:74: JSON string longer than 40 bytes \(--max-name\)$' \
	$SFCONV --max-name 40 esc41.json --to collapsed

# ---- memory: a timeline document (every sample with its own time) read
# into an aggregated output needs memory for the unique stacks only.
# 6,000,000 samples over 1,000 stack nodes and 4 threads: about 150 MB.
# The json-c reader needed about 15 bytes per byte of JSON (2 GB here);
# the bound is 60 MB.  The expected collapsed output is summed by awk from
# the same generator.
gen_big() { # samples
	awk -v n="$1" 'BEGIN {
		print "{\"format\":\"sftools-profile\",\"version\":1,"
		print "\"meta\":{\"default_sample_type\":0},"
		print "\"sample_types\":[{\"type\":\"samples\",\"unit\":\"count\"}],"
		print "\"threads\":[{\"tid\":1},{\"tid\":2},{\"tid\":3},{\"tid\":4}],"
		printf "\"frames\":["
		for (f = 0; f < 50; f++) printf "%s{\"name\":\"fn%d\"}", f ? ",\n" : "\n", f
		printf "],\n\"stacks\":["
		for (k = 0; k < 1000; k++) {
			parent = k % 10 == 0 ? 0 : k
			node = k + 1
			text[node] = (parent ? text[parent] ";" : "") "fn" node % 50
			printf "%s[%d,%d]", k ? ",\n" : "\n", parent, node % 50
		}
		printf "],\n\"label_sets\":[],\n\"samples\":["
		for (j = 0; j < n; j++) {
			s = 1 + (j * 7919) % 1000
			w = 1 + j % 3
			sum[text[s]] += w
			printf "%s[%d,%d,%d,0,%d]", j ? ",\n" : "\n", s, j % 4, j * 1000, w
		}
		print "]}"
		for (t in sum) printf "%s %d\n", t, sum[t] > "big.want.unsorted"
	}' > big.json
	LC_ALL=C sort big.want.unsorted > big.want
}

# peak RSS in KB of a command (stdout to $1)
peak_rss() { # outfile cmd...
	o=$1; shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$@" > "$o" 2> rss.err &&
			sed -n 's/^.*Maximum resident set size (kbytes): //p' rss.err
	else
		python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "wb") as o:
    if subprocess.run(sys.argv[2:], stdout=o).returncode: sys.exit(1)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$o" "$@"
	fi
}

# sanitizer builds (the CI "san" pass, make asan / ubsan) change memory
# use and speed: check the result on a smaller document
if [ "${SF_PASS:-plain}" = san ] || grep -aq -e __asan_init -e __ubsan_handle "$SFCONV"; then
	gen_big 200000
	$SFCONV -q big.json --to collapsed | LC_ALL=C sort > big.got
	expect_same json-timeline-to-collapsed big.want big.got
	skip json-timeline-bounded-memory "peak RSS is not measured under sanitizers"
else
	gen_big 6000000
	size=$(wc -c < big.json)
	rss=$(peak_rss big.got $SFCONV -q big.json --to collapsed)
	LC_ALL=C sort big.got > big.sorted
	expect_same json-timeline-to-collapsed big.want big.sorted
	if [ -z "$rss" ]; then
		fail json-timeline-bounded-memory "could not run or measure"
	elif [ "$rss" -lt 61440 ]; then
		pass json-timeline-bounded-memory
	else
		fail json-timeline-bounded-memory "peak RSS $rss KB for a $size-byte document (bound 60 MB)"
	fi
fi
# a timeline stays a timeline: json -> json keeps every sample, in order
# (the first 1000 samples of the big document are enough here)
s=$(grep -n '^"samples":\[' big.json | cut -d: -f1)
head -n $((s + 1000)) big.json | sed '$s/,$/]}/' > head.json
$SFCONV head.json --to json > head.out.json
awk -F, '/^\[[0-9]+,[0-9]+,[0-9]+,0,[0-9]+\]/ { print $3 }' head.out.json > head.times
seq 0 1000 999000 > head.want
expect_same json-timeline-keeps-samples head.want head.times
