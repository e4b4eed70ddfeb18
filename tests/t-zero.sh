# Samples whose weights are all zero (docs/formats.md, "All-zero
# samples"): left out of every output that folds samples into stacks and
# out of the sfanalyze reports, as pprof leaves them out of -top,
# -traces, -raw and its own -proto output; kept by the writers that write
# each sample (JSON), and by the call graph, which follows Racket.
. "$TOP/tests/lib.sh"

# The same profile three ways.  The function zero_fn is only ever in zero
# samples; main;work has a zero sample too.  Non-zero: main;work 5 and
# main 2, so a report says "total 7 in 2 samples".
cat > z.folded <<'EOF'
main;zero_fn 0
main;work 5
main 2
main;work 0
EOF
cat > z.json <<'J'
{"format":"sftools-profile","version":1,
 "sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],"label_sets":[],
 "frames":[{"name":"main"},{"name":"zero_fn"},{"name":"work"}],
 "stacks":[[0,0],[1,1],[1,2]],
 "samples":[[2,null,null,0,0],[3,null,null,0,5],[1,null,null,0,2],[3,null,null,0,0]]}
J
# a pprof profile.proto written by hand (so no writer of ours decides
# what it holds): the four samples above, locations 1 main, 2 work,
# 3 zero_fn
python3 - > z.pb <<'PY'
import sys
def varint(n):
    out = b""
    while True:
        b = n & 0x7f; n >>= 7
        if n: out += bytes([b | 0x80])
        else: return out + bytes([b])
def field(num, payload):          # length-delimited
    return varint(num << 3 | 2) + varint(len(payload)) + payload
def vfield(num, v):               # varint
    return varint(num << 3) + varint(v)
def packed(num, vals):
    return field(num, b"".join(varint(v) for v in vals))
strs = ["", "samples", "count", "main", "work", "zero_fn"]
out = field(1, vfield(1, 1) + vfield(2, 2))
for locs, v in (([3, 1], 0), ([2, 1], 5), ([1], 2), ([2, 1], 0)):
    out += field(2, packed(1, locs) + packed(2, [v]))
for i, fn in ((1, 1), (2, 2), (3, 3)):
    out += field(4, vfield(1, i) + field(4, vfield(1, fn)))
for i, name in ((1, 3), (2, 4), (3, 5)):
    out += field(5, vfield(1, i) + vfield(2, name))
for s in strs:
    out += field(6, s.encode())
sys.stdout.buffer.write(out)
PY
printf 'main 2\nmain;work 5\n' > z.want

for in in z.folded z.json z.pb; do
	n=${in#z.}
	# collapsed: exactly the non-zero stacks
	$SFCONV "$in" --to collapsed > $n.collapsed 2>$n.err
	expect_same zero-collapsed-$n z.want $n.collapsed
	# the other folding writers: zero_fn appears nowhere
	ok=1; why=
	for to in svg callgrind sample sbsprof; do
		# (collapsed weights are not sample counts: sbsprof, like
		# Sampler, needs --period to repeat them as lines)
		per=; [ $to = sbsprof ] && [ $n = folded ] && per="--period 1"
		$SFCONV "$in" --to $to $per > $n.$to 2>$n.err ||
			{ ok=0; why="$why sfconv --to $to failed: $(head -n 1 $n.err);"; continue; }
		grep -q zero_fn $n.$to && { ok=0; why="$why $to names zero_fn;"; }
	done
	[ $ok = 1 ] && pass zero-folding-writers-$n || fail zero-folding-writers-$n "$why"
	# the flame graph's frames: all, main, work (in samples: 7, 7, 5)
	if [ "$(grep -o '<title>[^<]*</title>' $n.svg | tr '\n' '|')" = \
	     "<title>all (7 samples, 100%)</title>|<title>main (7 samples, 100.00%)</title>|<title>work (5 samples, 71.43%)</title>|" ]; then
		pass zero-svg-frames-$n
	else fail zero-svg-frames-$n "$(grep -o '<title>[^<]*</title>' $n.svg | tr '\n' '|')"; fi
	# a comparison of the input with itself: no "0 0" line
	$SFCONV --diff "$in" "$in" --to difffolded > $n.diff 2>$n.err
	printf 'main 2 2\nmain;work 5 5\n' > diff.want
	expect_same zero-difffolded-$n diff.want $n.diff
	# pprof: our file holds no zero sample (read back as JSON, which
	# keeps every sample it is given)
	$SFCONV "$in" -o $n.pb.gz 2>$n.err && $SFCONV $n.pb.gz --to json > $n.pb.json 2>>$n.err
	if python3 - $n.pb.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ws = sorted(s[4] for s in d["samples"])
assert ws == [2, 5], ws
assert "zero_fn" not in [f["name"] for f in d["frames"]], d["frames"]
PY
	then pass zero-pprof-writer-$n; else fail zero-pprof-writer-$n "see the assertion above"; fi

	# every report: no zero_fn, no zero sample counted
	ok=1; why=
	for r in "--tree" "--tree --inverted" "--flat" "--sample" \
		 "--tree --json" "--flat --json"; do
		$SFANALYZE $r "$in" > $n.rep 2>$n.err ||
			{ ok=0; why="$why sfanalyze $r failed: $(head -n 1 $n.err);"; continue; }
		grep -q zero_fn $n.rep && { ok=0; why="$why $r names zero_fn;"; }
	done
	for r in "--diff" "--diff --tree"; do
		$SFANALYZE $r z.want -- "$in" > $n.rep 2>$n.err ||
			{ ok=0; why="$why sfanalyze $r failed: $(head -n 1 $n.err);"; continue; }
		grep -q zero_fn $n.rep && { ok=0; why="$why $r names zero_fn;"; }
	done
	[ $ok = 1 ] && pass zero-reports-$n || fail zero-reports-$n "$why"
	if $SFANALYZE --tree "$in" | head -n 1 | grep -q ': total 7 in 2 samples$' &&
	   $SFANALYZE --flat "$in" | head -n 1 | grep -q ': total 7 in 2 samples, '; then
		pass zero-not-counted-$n
	else fail zero-not-counted-$n "$($SFANALYZE --tree "$in" | head -n 1)"; fi
	# the call graph follows Racket (docs/analyze.md, call graph 5.5, 6):
	# a sample of weight 0 still makes its node and is counted
	if $SFANALYZE --callgraph "$in" > $n.cg && grep -Eq '^ +Samples: 4$' $n.cg &&
	   grep -Eq '^ \[[0-9]+\] +0 \( *0\.0%\) +0 \( *0\.0%\)  zero_fn$' $n.cg &&
	   $SFANALYZE --peek zero_fn "$in" | grep -q 'zero_fn$'; then
		pass zero-callgraph-racket-$n
	else fail zero-callgraph-racket-$n "$(grep -e Samples -e zero_fn $n.cg | tr '\n' '|')"; fi
	# and the same unfolded (the load that keeps each sample)
	if SF_ANALYZE_NO_FOLD=1 $SFANALYZE --flat "$in" > $n.nofold &&
	   ! grep -q zero_fn $n.nofold && head -n 1 $n.nofold | grep -q 'total 7 in 2 samples'; then
		pass zero-reports-unfolded-$n
	else fail zero-reports-unfolded-$n "$(head -n 3 $n.nofold | tr '\n' '|')"; fi
done

# A per-sample writer keeps them: collapsed -> JSON holds all four
# samples, and JSON -> JSON gives the same bytes.
$SFCONV z.folded --to json > rt1.json
$SFCONV rt1.json --to json > rt2.json
if python3 - rt1.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def stack(i):
    out = []
    while i:
        p, f = d["stacks"][i - 1]; out.append(d["frames"][f]["name"]); i = p
    return ";".join(reversed(out))
got = sorted((stack(s[0]), s[4]) for s in d["samples"])
assert got == [("main", 2), ("main;work", 0), ("main;work", 5), ("main;zero_fn", 0)], got
PY
then pass zero-json-keeps; else fail zero-json-keeps "see the assertion above"; fi
expect_same zero-json-roundtrip rt1.json rt2.json
$SFCONV z.pb --to json > pb.json
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(s[4] for s in d["samples"]) == [0, 0, 2, 5], d["samples"]' pb.json; then
	pass zero-json-keeps-pprof-input
else fail zero-json-keeps-pprof-input "see the assertion above"; fi

# Only zero samples: an empty folded output, and reports of nothing.
printf 'a;b 0\n' > only0.folded
$SFCONV only0.folded --to collapsed > only0.out 2>only0.err
if [ $? -eq 0 ] && [ ! -s only0.out ]; then pass zero-only-collapsed-empty
else fail zero-only-collapsed-empty "$(head -c 200 only0.out only0.err)"; fi
if $SFANALYZE --flat only0.folded > only0.flat 2>only0.err && ! grep -q '  [ab]$' only0.flat; then
	pass zero-only-flat
else fail zero-only-flat "$(head -n 3 only0.flat only0.err | tr '\n' '|')"; fi

# What pprof itself does with the hand-written file: -top and -traces
# leave the zero samples out; `sfanalyze --flat` lists the same rows.
. "$TOP/tests/pprof_tool.sh"
printf 'main 2 7\nwork 5 5\n' > rows.want
if [ -n "$PPROF" ]; then
	pp -top -nodecount=100 -nodefraction=0 z.pb |
		awk '$2 ~ /[0-9]%$/ && $5 ~ /[0-9]%$/ { print $6, $1, $4 }' | sort > top.rows
	expect_same zero-pprof-top-peer rows.want top.rows
	if pp -traces z.pb | grep -q zero_fn; then fail zero-pprof-traces-peer "pprof -traces shows zero_fn"
	else pass zero-pprof-traces-peer; fi
else
	skip zero-pprof-top-peer "$why_no_pprof"
	skip zero-pprof-traces-peer "$why_no_pprof"
fi
$SFANALYZE --flat --raw z.pb | awk '$3 ~ /[0-9]%$/ && $6 ~ /[0-9]%$/ { print $7, $2, $5 }' | sort > flat.rows
expect_same zero-flat-rows-as-pprof rows.want flat.rows
