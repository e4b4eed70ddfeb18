# pprof profile.proto: reading (peer fixtures, checked against the real
# pprof tool), writing (checked by the real pprof tool), round trips and
# malformed input.
. "$TOP/tests/lib.sh"

. "$TOP/tests/pprof_tool.sh"

# Python helpers, all computing expectations independently of sfconv.
cat > fold.py <<'PY'
# fold.py IN: aggregate collapsed stacks (sum equal stacks, sort bytewise)
import sys
acc = {}
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if not line.strip():
        continue
    stack, n = line.rsplit(" ", 1)
    acc[stack] = acc.get(stack, 0) + int(n)
for k in sorted(acc, key=lambda s: s.encode()):
    print(k, acc[k])
PY
cat > traces.py <<'PY'
# traces.py: `pprof -traces` output (stdin) -> collapsed stacks, root first
import re, sys
acc, cur, val = {}, [], None
def flush():
    if val is not None:
        k = ";".join(reversed(cur))
        acc[k] = acc.get(k, 0) + val
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("-----------+"):
        flush(); cur, val = [], None
        continue
    m = re.match(r"^\s+(\d+)   (\S.*)$", line)
    if m and val is None:
        val = int(m.group(1)); cur.append(m.group(2)); continue
    m = re.match(r"^ {13}(\S.*)$", line)
    if m and val is not None:
        cur.append(m.group(1))
flush()
for k in sorted(acc, key=lambda s: s.encode()):
    print(k, acc[k])
PY
cat > raw.py <<'PY'
# raw.py TYPE_INDEX|dflt: `pprof -raw` output (stdin) -> collapsed stacks of
# one sample type (the names pprof prints for each Line; a location without
# lines is named by its address, 0x%x); prints the default index for dflt.
import re, sys
want = sys.argv[1]
types, samples, locs, cur = [], [], {}, None
section = None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line in ("Samples:", "Locations", "Mappings"):
        section = line; continue
    if section == "Samples:":
        if not types:
            types = line.split(); continue
        m = re.match(r"^\s*(-?\d+(?:\s+-?\d+)*): ((?:\d+ ?)*)$", line)
        if m:
            samples.append(([int(v) for v in m.group(1).split()],
                            [int(x) for x in m.group(2).split()]))
    elif section == "Locations":
        m = re.match(r"^\s*(\d+): (0x[0-9a-f]+|0) (?:M=\d+ )?(?:\[F\] )?(.*)$", line)
        if m:
            cur = int(m.group(1))
            locs[cur] = {"addr": int(m.group(2), 16), "names": []}
            text = m.group(3)
        else:
            text = line.strip()
        if text:
            n = re.match(r"^(.*) (\S*):-?\d+ s=-?\d+(\(.*\))?$", text)
            locs[cur]["names"].append(n.group(1) if n else text)
if want == "dflt":
    d = [i for i, t in enumerate(types) if t.endswith("[dflt]")]
    print(d[0] if d else len(types) - 1); sys.exit(0)
t = int(want)
acc = {}
for vals, ids in samples:
    frames = []
    for i in ids:
        l = locs[i]
        frames += l["names"] if l["names"] else ["0x%x" % l["addr"]]
    k = ";".join(reversed(frames))
    acc[k] = acc.get(k, 0) + vals[t]
for k in sorted(acc, key=lambda s: s.encode()):
    print(k, acc[k])
PY
cat > top.py <<'PY'
# top.py FOLDED: from collapsed input, the flat (self) and cum (inclusive,
# once per stack) value per function, and the total; then compare with
# `pprof -top` output on stdin.
import re, sys
flat, cum, total = {}, {}, 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1); n = int(n); fr = stack.split(";")
    total += n; flat[fr[-1]] = flat.get(fr[-1], 0) + n
    for f in set(fr):
        cum[f] = cum.get(f, 0) + n
got, gtotal = {}, None
for line in sys.stdin:
    m = re.search(r"of (\d+) total", line)
    if m: gtotal = int(m.group(1))
    m = re.match(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(\S.*)$", line)
    if m: got[m.group(3)] = (int(m.group(1)), int(m.group(2)))
want = {f: (flat.get(f, 0), cum[f]) for f in cum}
if gtotal != total: print("total %s, expected %d" % (gtotal, total)); sys.exit(1)
if got != want: print("got %s\nexpected %s" % (sorted(got.items()), sorted(want.items()))); sys.exit(1)
PY

cat > flattop.py <<'PY'
# flattop.py FLAT TOP: `sfanalyze --flat --raw` (file FLAT) and
# `pprof -top -unit=U` (file TOP, every node) must list the same functions
# with the same self (flat) and total (cum) values and the same total.
# pprof prints a value as NUMBER plus the unit's suffix ("3000000ns", or
# no suffix for counts); both are whole numbers here.
import re, sys
def num(s):
    return int(re.match(r"^(\d+)", s).group(1))
want, wtotal = [], None
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.search(r": total (\d+)", line)
    if m and wtotal is None: wtotal = int(m.group(1)); continue
    m = re.match(r"^\s*\d+\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%  (.*)$", line)
    if m: want.append((m.group(3), int(m.group(1)), int(m.group(2))))
got, gtotal = [], None
for line in open(sys.argv[2], encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.search(r"% of (\S+) total", line)
    if m: gtotal = num(m.group(1)); continue
    m = re.match(r"^\s*(\d+\S*)\s+[\d.]+%\s+[\d.]+%\s+(\d+\S*)\s+[\d.]+%  (.*)$", line)
    if m: got.append((m.group(3), num(m.group(1)), num(m.group(2))))
ok = True
if not want: print("no rows in the sfanalyze output"); ok = False
if wtotal != gtotal: print("total: sfanalyze %s, pprof %s" % (wtotal, gtotal)); ok = False
if sorted(want) != sorted(got):
    print("sfanalyze only: %s" % sorted(set(want) - set(got)))
    print("pprof only: %s" % sorted(set(got) - set(want)))
    ok = False
sys.exit(0 if ok else 1)
PY
# flat_vs_top NAME INPUT UNIT: our pprof file of INPUT, read by the real
# pprof (-top, every node, in UNIT), equals `sfanalyze --flat` of INPUT
flat_vs_top() {
	$SFCONV "$2" -o "$1.pb.gz" 2>/dev/null
	$SFANALYZE --flat --raw "$2" > "$1.flat"
	pp -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 \
		${3:+-unit=$3} "$1.pb.gz" > "$1.top"
	if python3 flattop.py "$1.flat" "$1.top" > "$1.cmp"; then
		pass "pprof-top-equals-flat-$1"
	else fail "pprof-top-equals-flat-$1" "$(head -n 3 "$1.cmp" | tr '\n' '|')"; fi
}

# ---------------------------------------------------------------------
# Writing, checked by the real pprof.
cat > c.folded <<'EOF'
main;parse;read 30
main;parse 10
main;eval;add 25
main;eval;mul;add 5
main;eval 8
idle 2
main;parse;read 4
EOF
python3 fold.py c.folded > c.want
$SFCONV c.folded -o c.pb.gz 2>err
if [ "$(head -c 2 c.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
	pass pprof-write-is-gzip; else fail pprof-write-is-gzip "no gzip magic"; fi
$SFCONV c.folded -o c.pprof
$SFCONV c.folded --to pprof > c.stdout
if [ "$(head -c 2 c.pprof | od -An -tx1 | tr -d ' ')" = 1f8b ] && cmp -s c.pprof c.pb.gz && cmp -s c.stdout c.pb.gz; then
	pass pprof-write-gzip-always; else fail pprof-write-gzip-always "a .pprof or stdout output differs from .pb.gz (single gzip expected)"; fi
$SFCONV c.folded -o c2.pb.gz
if cmp -s c.pb.gz c2.pb.gz; then pass pprof-write-deterministic; else fail pprof-write-deterministic "two runs differ"; fi
# The same bytes in every process, wherever it is loaded: igzip's levels
# 1 and 2 compressed small messages to other bytes (a 4-byte match taken
# or left as literals) in about one process in 100-300 on this project's
# Xeon host, never with address randomisation off (gzfast.c).  400 fresh
# processes on two small messages; with level 1 back, about one of each
# hundred wrote other bytes.
printf 'x 1\n' > det2.folded
cp "$TOP/tests/fixtures/perf/real-fields-nodso.folded" det1.folded
ndiff=0
for f in det1 det2; do
	$SFCONV -q -j 1 $f.folded -o $f.ref.pb.gz
	i=0
	while [ $i -lt 200 ]; do
		$SFCONV -q -j 1 $f.folded --to pprof > $f.run.pb.gz
		cmp -s $f.ref.pb.gz $f.run.pb.gz || ndiff=$((ndiff + 1))
		i=$((i + 1))
	done
done
if [ $ndiff -eq 0 ]; then pass pprof-write-same-every-process; else
	fail pprof-write-same-every-process "$ndiff of 400 processes wrote other bytes"; fi

if [ -n "$PPROF" ]; then
	pp -traces c.pb.gz | python3 traces.py > c.traces
	expect_same pprof-viewer-traces c.want c.traces
	if pp -top -nodecount=100 c.pb.gz | python3 top.py c.want > top.err; then
		pass pprof-viewer-top-flat-cum
	else fail pprof-viewer-top-flat-cum "$(head -n 3 top.err)"; fi
else
	skip pprof-viewer-traces "$why_no_pprof"
	skip pprof-viewer-top-flat-cum "$why_no_pprof"
fi

# The main binary's mapping first (pprof's "File:" is mapping[0]), C++
# template arguments kept (no system_name for pprof to re-simplify), the
# period type and period filled in.  cxx.perf: C++ names, samples of
# 1, 1, 2, 3 and 1 ms; ld-first.perf: gcc whose first samples are in the
# dynamic loader, and a [kernel.kallsyms] frame before any gcc frame.
if [ -n "$PPROF" ]; then
	flat_vs_top cxx "$FIX/pprof/cxx.perf" ns
	flat_vs_top ld-first "$FIX/pprof/ld-first.perf" ns
	flat_vs_top collapsed c.folded
	if grep -qx 'File: demo' cxx.top && grep -qx 'File: gcc-12' ld-first.top &&
	   ! grep -q '^File:' collapsed.top; then
		pass pprof-main-binary-file
	else fail pprof-main-binary-file "$(grep -h '^File:' cxx.top ld-first.top | tr '\n' '|')"; fi
	for n in cxx ld-first collapsed; do pp -raw $n.pb.gz > $n.raw; done
	if [ "$(grep -A1 '^Mappings$' cxx.raw | tail -n 1)" = "1: 0x0/0x0/0x0 /opt/demo/bin/demo  [FN]" ] &&
	   [ "$(grep -A1 '^Mappings$' ld-first.raw | tail -n 1)" = "1: 0x0/0x0/0x0 /usr/libexec/gcc/x86_64-linux-gnu/12/gcc-12  [FN]" ]; then
		pass pprof-main-binary-mapping-first
	else fail pprof-main-binary-mapping-first "$(grep -h -A1 '^Mappings$' cxx.raw ld-first.raw | tr '\n' '|')"; fi
	# the cxx samples weigh 8 ms in 5 samples: 1.6 ms each on average
	if grep -qx 'PeriodType: cpu-clock nanoseconds' cxx.raw && grep -qx 'Period: 1600000' cxx.raw &&
	   grep -qx 'PeriodType: cpu-clock nanoseconds' ld-first.raw && grep -qx 'Period: 1001001' ld-first.raw &&
	   grep -qx 'PeriodType: samples count' collapsed.raw && grep -qx 'Period: 1' collapsed.raw; then
		pass pprof-period-type-from-samples
	else fail pprof-period-type-from-samples "$(grep -h '^Period' cxx.raw ld-first.raw collapsed.raw | tr '\n' '|')"; fi
	if grep -q '  ns::Pair<int, ns::Box<char, std::allocator<char> > >::swap$' cxx.top &&
	   grep -q '  std::vector<long, std::allocator<long> >::_M_realloc_insert<long const&>$' cxx.top; then
		pass pprof-cxx-names-whole
	else fail pprof-cxx-names-whole "$(grep -h '::' cxx.top | head -n 3 | tr '\n' '|')"; fi
else
	for t in top-equals-flat-cxx top-equals-flat-ld-first top-equals-flat-collapsed \
		 main-binary-file main-binary-mapping-first period-type-from-samples cxx-names-whole; do
		skip pprof-$t "$why_no_pprof"; done
fi

# The same on a real recording: a C++ program built with g++, recorded
# by perf (cpu-clock, which needs no hardware counter).  The program
# spends its time in its own templated function.
cat > box.cc <<'CC'
#include <vector>
namespace ns {
template <class T, class A = std::allocator<T> > struct Box {
	std::vector<T, A> v;
	__attribute__((noinline)) T fill(long n)
	{
		T s = 0;
		for (long i = 0; i < n; i++)
			s += (T)(i * i % 7);
		return s;
	}
};
}
volatile long sink;
int main()
{
	ns::Box<long> b;
	for (int k = 0; k < 40; k++)
		sink = sink + b.fill(5000000);
	return 0;   /* perf record exits with the program's status */
}
CC
why_no_rec=
if [ -z "$PPROF" ]; then why_no_rec=$why_no_pprof
elif ! have g++ || ! have perf; then why_no_rec="g++ or perf is not installed"
elif ! g++ -O1 -g -fno-omit-frame-pointer -o box box.cc 2>rec.err; then why_no_rec="g++ failed: $(head -n 1 rec.err)"
elif ! perf record -q -e cpu-clock -F 499 -g -o box.data ./box >rec.err 2>&1 ||
     ! perf script -i box.data > box.perf 2>>rec.err; then
	why_no_rec="perf cannot record here: $(head -n 1 rec.err)"
elif ! grep -q 'ns::Box<long, std::allocator<long> >::fill' box.perf; then
	why_no_rec="perf recorded no sample in the program's function"
fi
if [ -z "$why_no_rec" ]; then
	flat_vs_top recorded box.perf ns
	if grep -qx 'File: box' recorded.top &&
	   grep -q '  ns::Box<long, std::allocator<long> >::fill$' recorded.top; then
		pass pprof-recorded-main-binary-and-names
	else fail pprof-recorded-main-binary-and-names "$(grep -h -e '^File:' -e 'fill' recorded.top | tr '\n' '|')"; fi
else
	skip pprof-top-equals-flat-recorded "$why_no_rec"
	skip pprof-recorded-main-binary-and-names "$why_no_rec"
fi

# inline frames, threads, labels, two sample types, default type (JSON
# written by hand)
cat > rich.json <<'J'
{"format":"sftools-profile","version":1,
 "meta":{"default_sample_type":0,"period_type":{"type":"cpu","unit":"nanoseconds"},"period":1000,"duration":5000000000},
 "sample_types":[{"type":"samples","unit":"count"},{"type":"alloc_space","unit":"bytes"}],
 "threads":[{"pid":10,"tid":11,"name":"worker"}],
 "frames":[{"name":"main","file":"m.c","line":3},{"name":"helper","file":"h.c","line":7,"inline":true},
           {"name":"leaf","module":"/lib/libx.so","address":"0x1234"}],
 "stacks":[[0,0],[1,1],[2,2]],
 "label_sets":[[["color","red"],["#bytes","512 bytes"]]],
 "samples":[[3,0,null,1,2,100],[2,null,null,0,5,7]]}
J
$SFCONV rich.json -o rich.pb.gz
if [ -n "$PPROF" ]; then
	pp -traces rich.pb.gz > rich.traces
	if grep -q '^ *5   helper (inline)$' rich.traces && grep -q '^ *2   leaf$' rich.traces &&
	   grep -q '^ *thread:  worker$' rich.traces && grep -q '^ *tid:  11$' rich.traces &&
	   grep -q '^ *pid:  10$' rich.traces && grep -q '^ *color:  red$' rich.traces &&
	   grep -q '^ *bytes:  512B$' rich.traces; then
		pass pprof-viewer-inline-labels-threads
	else fail pprof-viewer-inline-labels-threads "pprof -traces: $(tr '\n' '|' < rich.traces | head -c 300)"; fi
	pp -raw rich.pb.gz > rich.raw
	if grep -q '^samples/count\[dflt\] alloc_space/bytes$' rich.raw &&
	   grep -q '^PeriodType: cpu nanoseconds$' rich.raw && grep -q '^Period: 1000$' rich.raw &&
	   grep -q '^Duration: 5s$' rich.raw; then
		pass pprof-viewer-types-period
	else fail pprof-viewer-types-period "$(head -n 6 rich.raw | tr '\n' '|')"; fi
	# one location holds both the inlined helper and main
	# ("()": pprof -raw shows a system_name that differs from the name,
	# here the empty one)
	if grep -A1 ' helper h.c:7 ' rich.raw | grep -Eq '^ *main m.c:3 s=0(\(\))?$'; then
		pass pprof-viewer-inline-one-location
	else fail pprof-viewer-inline-one-location "$(grep -A3 Locations rich.raw | tr '\n' '|')"; fi
else
	for t in inline-labels-threads types-period inline-one-location; do
		skip pprof-viewer-$t "$why_no_pprof"; done
fi
# and back: what the JSON said comes back from the pprof file
$SFCONV rich.pb.gz -o rich.back.json
if python3 - rich.back.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["threads"] == [{"pid": 10, "tid": 11, "name": "worker"}], d["threads"]
assert [t["type"] for t in d["sample_types"]] == ["samples", "alloc_space"]
assert d["meta"]["default_sample_type"] == 0
assert d["meta"]["period"] == 1000 and d["meta"]["duration"] == 5000000000
assert d["meta"]["period_type"] == {"type": "cpu", "unit": "nanoseconds"}
fr = {f["name"]: f for f in d["frames"]}
assert fr["helper"].get("inline") and fr["helper"]["file"] == "h.c" and fr["helper"]["line"] == 7
assert not fr["main"].get("inline") and fr["main"]["line"] == 3
assert fr["leaf"]["module"] == "/lib/libx.so" and fr["leaf"]["address"] == "0x1234"
assert d["label_sets"] == [[["#bytes", "512 bytes"], ["color", "red"]]], d["label_sets"]
def stack(i):
    out = []
    while i:
        p, f = d["stacks"][i - 1]; out.append(d["frames"][f]["name"]); i = p
    return ";".join(reversed(out))
got = sorted((stack(s[0]), s[1], s[3], s[4:]) for s in d["samples"])
assert got == [("main;helper", None, 0, [5, 7]), ("main;helper;leaf", 0, 1, [2, 100])], got
PY
then pass pprof-read-back-rich; else fail pprof-read-back-rich "see the assertion above"; fi

# comments, drop/keep frames and the start time (props of the model)
cat > props.json <<'J'
{"format":"sftools-profile","version":1,
 "meta":{"properties":[["pprof.comment.0","first note"],["pprof.comment.1","second"],["pprof.drop_frames","^runtime\\."],["pprof.keep_frames","main"]],"start_time":1500000000000000000},
 "sample_types":[{"type":"samples","unit":"count"}],
 "threads":[],"frames":[{"name":"main"},{"name":"runtime.x"}],"stacks":[[0,0],[1,1]],
 "samples":[[2,null,null,0,3],[1,null,null,0,4]]}
J
$SFCONV props.json -o props.pb.gz
if [ -n "$PPROF" ]; then
	pp -raw props.pb.gz > props.raw
	if [ "$(grep '^Comment: ' props.raw)" = "$(printf 'Comment: first note\nComment: second')" ] &&
	   grep -q '^Time: 2017-07-14 02:40:00 +0000 UTC$' props.raw; then
		pass pprof-viewer-comments-time
	else fail pprof-viewer-comments-time "$(head -n 5 props.raw | tr '\n' '|')"; fi
else
	skip pprof-viewer-comments-time "$why_no_pprof"
fi
$SFCONV props.pb.gz -o props.back.json
if python3 - props.back.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["meta"]
assert m["start_time"] == 1500000000000000000, m
assert sorted(map(tuple, m["properties"])) == [("pprof.comment.0", "first note"), ("pprof.comment.1", "second"),
    ("pprof.drop_frames", "^runtime\\."), ("pprof.keep_frames", "main")], m["properties"]
PY
then pass pprof-read-back-props; else fail pprof-read-back-props "see the assertion above"; fi

# ---------------------------------------------------------------------
# Reading the peer pprof files, checked against `pprof -raw` of each.
if have_peers; then
	peerlist=$(awk -F'\t' '$2 == "pprof-proto;gzip" { print $1 }' "$PEERS/MANIFEST.tsv")
	for f in $peerlist; do
		n=$(basename "$f")
		[ -n "$PPROF" ] || { skip "pprof-read-$n" "$why_no_pprof"; continue; }
		pp -raw "$PEERS/$f" > "$n.raw"
		types=$(sed -n '/^Samples:$/{n;p;q}' "$n.raw" | sed 's/\[dflt\]//g')
		i=0; ok=1
		for tu in $types; do
			python3 raw.py $i < "$n.raw" > "$n.$i.want"
			$SFCONV --sample-type "${tu%%/*}" "$PEERS/$f" > "$n.$i.got" 2>"$n.err" || ok=0
			if ! cmp -s "$n.$i.want" "$n.$i.got"; then
				ok=0; fail "pprof-read-$n" "sample type $tu differs from pprof -raw"
				diff -u "$n.$i.want" "$n.$i.got" | head -n 10
			fi
			i=$((i + 1))
		done
		[ $i -gt 0 ] || { ok=0; fail "pprof-read-$n" "no sample types in pprof -raw"; }
		[ $ok = 1 ] && pass "pprof-read-$n"
		# default type: default_sample_type, else the last
		d=$(python3 raw.py dflt < "$n.raw")
		$SFCONV "$PEERS/$f" > "$n.dflt" 2>/dev/null
		expect_same "pprof-read-default-type-$n" "$n.$d.want" "$n.dflt"
		# round trips: pprof -> json -> pprof -> collapsed, every type
		$SFCONV "$PEERS/$f" -o "$n.json" && $SFCONV "$n.json" -o "$n.rt.pb.gz"
		i=0; ok=1
		for tu in $types; do
			$SFCONV --sample-type "${tu%%/*}" "$n.rt.pb.gz" > "$n.$i.rt" 2>/dev/null
			cmp -s "$n.$i.want" "$n.$i.rt" || { ok=0; diff -u "$n.$i.want" "$n.$i.rt" | head -n 6; }
			i=$((i + 1))
		done
		[ $ok = 1 ] && pass "pprof-roundtrip-json-$n" || fail "pprof-roundtrip-json-$n" "stacks differ after pprof -> json -> pprof"
		# and our file still reads the same in the real pprof
		pp -raw "$n.rt.pb.gz" > "$n.rt.raw"
		i=0; ok=1
		for tu in $types; do
			python3 raw.py $i < "$n.rt.raw" > "$n.$i.rtraw"
			cmp -s "$n.$i.want" "$n.$i.rtraw" || ok=0
			i=$((i + 1))
		done
		[ $ok = 1 ] && pass "pprof-roundtrip-viewer-$n" || fail "pprof-roundtrip-viewer-$n" "pprof -raw of our rewrite differs"
	done
else
	skip pprof-read-peers "no peer fixtures ($PEERS)"
fi

# collapsed -> pprof -> collapsed is the identity (after aggregation)
$SFCONV c.pb.gz > c.back
expect_same pprof-roundtrip-collapsed c.want c.back
# fractional weights: to the nearest integer (ties to even), but never
# to 0, or reading the file would leave the sample out and writing what
# it read would differ (the roundtrip-pprof fuzz target found 0.5)
printf 'a;x 0.5\nb 0.2\nc 1.5\nd 2.5\ne 3\n' > frac.folded
printf 'a;x 1\nb 1\nc 2\nd 2\ne 3\n' > frac.want
$SFCONV -q frac.folded --to pprof -o frac.pb.gz
$SFCONV -q frac.pb.gz --to collapsed > frac.got
expect_same pprof-fraction-never-zero frac.want frac.got
$SFCONV -q frac.pb.gz --to pprof -o frac2.pb.gz
if cmp -s frac.pb.gz frac2.pb.gz; then
	pass pprof-fraction-fixpoint
else
	fail pprof-fraction-fixpoint "pprof -> pprof changed the bytes"
fi
# detection by content: no extension, and raw (not gzip'd) protobuf
cp c.pb.gz prof.data
$SFCONV prof.data > c.detect 2>/dev/null
expect_same pprof-detect-by-content c.want c.detect
gzip -dc c.pb.gz > c.raw.pb
$SFCONV c.raw.pb > c.rawback 2>/dev/null
expect_same pprof-read-uncompressed c.want c.rawback
expect_error pprof-unknown-sample-type 2 "no sample type 'nope' \\(the profile has: samples\\)" \
	$SFCONV --sample-type nope c.pb.gz

# ---------------------------------------------------------------------
# Malformed input: one message with the byte offset, exit 1, no output.
bytes() { python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))" "$1"; }
# field 1, length varint of 11 bytes (0xff x 10, 0x01) starting at byte 1
bytes 0affffffffffffffffffff01 > badvarint.pb
expect_error pprof-bad-varint 1 '^sfconv: badvarint.pb: byte 1: malformed varint' \
	$SFCONV --from pprof badvarint.pb -o never.json
[ -e never.json ] && fail pprof-bad-no-output "never.json left behind" || pass pprof-bad-no-output
# a sample type (4 bytes), then field 2 with length 127 (at byte 5) and
# only 2 bytes left
bytes 0a020801127f0a01 > badlen.pb
expect_error pprof-length-past-end 1 '^sfconv: badlen.pb: byte 5: length 127 of field 2 runs past the end of the input \(2 bytes left\)' \
	$SFCONV --from pprof badlen.pb
# a sample (at byte 4, 3 bytes) whose location list says 5 bytes (the
# length is at byte 7) with 1 byte left in the sample
bytes 0a02080012030a05013200 > badnest.pb
expect_error pprof-length-past-message 1 '^sfconv: badnest.pb: byte 7: length 5 of field 1 runs past the end of the enclosing message \(1 bytes left\)' \
	$SFCONV --from pprof badnest.pb
bytes 0801 > badwire.pb
expect_error pprof-wrong-wire-type 1 '^sfconv: badwire.pb: byte 0: field 1 of Profile has wire type 0, expected 2' \
	$SFCONV --from pprof badwire.pb
bytes 0a0208053200 > badstr.pb
expect_error pprof-string-index 1 '^sfconv: badstr.pb: byte 0: string index 5 out of range \(the string table has 1 entries\)' \
	$SFCONV --from pprof badstr.pb
# a sample (at byte 4) refers to location 9, which does not exist
bytes 0a02080012050a010910003200 > badloc.pb
expect_error pprof-missing-location 1 '^sfconv: badloc.pb: byte 4: sample refers to location 9, which is not in the profile' \
	$SFCONV --from pprof badloc.pb
# protobuf-shaped garbage: 3000 'x' are 1500 varint fields number 15;
# the reader stopped at the end, byte 3000
head -c 3000 /dev/zero | tr '\0' x > xs.pb
expect_error pprof-no-string-table 1 '^sfconv: xs.pb: byte 3000: not a pprof profile: no string table \(field 6\) up to the end$' \
	$SFCONV --from pprof xs.pb
# the string table (at byte 4, text at 6) must start with ""
bytes 0a0208003201613200 > badstr0.pb
expect_error pprof-string-zero 1 '^sfconv: badstr0.pb: byte 6: string_table\[0\] must be the empty string$' \
	$SFCONV --from pprof badstr0.pb
# truncations of a valid file at several offsets
size=$(wc -c < c.raw.pb)
for cut in 1 2 5 17 $((size / 2)) $((size - 1)); do
	head -c $cut c.raw.pb > cut$cut.pb
	expect_error "pprof-truncated-at-$cut" 1 "^sfconv: cut$cut.pb: byte [0-9]+: (truncated varint|length [0-9]+ of field [0-9]+ runs past the end|truncated fixed-size)" \
		$SFCONV --from pprof cut$cut.pb
done
head -c 40 c.pb.gz > cut.pb.gz
expect_error pprof-truncated-gzip 1 'truncated gzip' $SFCONV cut.pb.gz
# the whole message is held in memory: --max-decompressed bounds it
expect_error pprof-max-decompressed 1 'exceeds 100 bytes \(--max-decompressed\)' \
	$SFCONV --max-decompressed 100 c.pb.gz
expect_error pprof-max-size-raw 1 'input larger than 100 bytes' \
	$SFCONV --max-decompressed 100 --from pprof c.raw.pb

# With two jobs the gzip stream is compressed on a second thread while
# the samples are encoded (sf_output_threads): the same deflate calls,
# so the same bytes as one job.  40,000 distinct stacks make a message of
# several of a gzip output's 256 KiB buffers (-o x.json.gz below), each
# handed over in turn (big.folded: 120,000 for pprof's blocks, below).
python3 - > big.folded <<'PY'
for i in range(120000):
    fr = ["main", "w%d" % (i % 97), "f%d" % (i % 1009), "g%d" % i]
    print(";".join(fr), i % 13 + 1)
PY
head -n 40000 big.folded > many.folded
$SFCONV -q -j 1 many.folded -o many1.pb.gz
$SFCONV -q -j 2 many.folded -o many2.pb.gz
$SFCONV -q -j 2 many.folded --to pprof > many3.pb.gz
raw=$(gzip -dc many1.pb.gz | wc -c)
if [ "$raw" -gt $((3 * 262144)) ]; then pass pprof-jobs-input-size; else
	fail pprof-jobs-input-size "message of $raw bytes, wanted more than 3 buffers"; fi
expect_same pprof-jobs-same many1.pb.gz many2.pb.gz
expect_same pprof-jobs-same-stdout many1.pb.gz many3.pb.gz
# any gzip output (-o NAME.gz) compresses so with two jobs
$SFCONV -q -j 1 many.folded -o many1.json.gz
$SFCONV -q -j 2 many.folded -o many2.json.gz
expect_same gzip-jobs-same many1.json.gz many2.json.gz
# and it reads back to the input
python3 fold.py many.folded > many.want
$SFCONV -q many2.pb.gz --to collapsed > many.got
expect_same pprof-jobs-roundtrip many.want many.got
# a write error on the second thread is the writer's error, once
if [ -w /dev/full ]; then
	expect_error pprof-jobs-full-disk 3 '^sfconv: -: write error: No space left on device$' \
		sh -c "$SFCONV -q -j 2 many.folded --to pprof > /dev/full"
else
	skip pprof-jobs-full-disk "no /dev/full"
fi

# pprof -> pprof is a fixpoint when two frames of the model differ only
# in what pprof does not hold: a `sample` report's "main + 9" and
# "main + 10" at one address are two frames (their offsets differ) but
# one written location, so the writer makes them one Location and the
# two stacks through them one Sample.  By hand: the locations are
# Thread_7, start, main and work (4), so are the functions (4), and the
# one sample has 6 + 4 = 10.  Written so, the file read back and written
# again gives the same bytes (before, 5 locations and samples of 6 and 4,
# which reading merged).
cat > offs.sample.txt <<'TXT'
Analysis of sampling app (pid 42) every 1 millisecond
Process:         app [42]

Call graph:
    10 Thread_7
    + 10 start  (in libdyld.dylib) + 1  [0x1001]
    +   6 main  (in app) + 9  [0x2010]
    +   ! 6 work  (in app) + 5  [0x3005]
    +   4 main  (in app) + 10  [0x2010]
    +     4 work  (in app) + 5  [0x3005]

Total number in stack (recursive counted multiple times):
TXT
cat > pbcount.py <<'PY'
# pbcount.py FILE: "locations N functions N samples V,V,..." of a gzip'd
# pprof Profile (fields 4, 5 and 2; a sample's values are its field 2);
# pbcount.py --mappings FILE: each Mapping's filename, in order
import gzip, sys
def varint(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1; r |= (c & 0x7f) << s; s += 7
        if c < 0x80: return r, i
def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        if k & 7 == 0: v, i = varint(b, i)
        elif k & 7 == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        else: sys.exit("unexpected wire type %d" % (k & 7))
        yield k >> 3, v
d = gzip.decompress(open(sys.argv[-1], "rb").read())
if sys.argv[1] == "--mappings":
    strs = [v.decode() for f, v in fields(d) if f == 6]
    for f, v in fields(d):
        if f == 3: print(strs[dict(fields(v))[5]])
    sys.exit(0)
n = {4: 0, 5: 0}
vals = []
for f, v in fields(d):
    if f in n: n[f] += 1
    if f == 2:
        for g, x in fields(v):
            if g == 2: vals.append(varint(x, 0)[0])
print("locations %d functions %d samples %s" %
      (n[4], n[5], ",".join(map(str, vals))))
PY
$SFCONV -q offs.sample.txt -o offs1.pb.gz
echo "locations 4 functions 4 samples 10" > offs.want
python3 pbcount.py offs1.pb.gz > offs.got
expect_same pprof-written-locations offs.want offs.got
$SFCONV -q offs1.pb.gz --to pprof -o offs2.pb.gz
expect_same pprof-pprof-fixpoint offs1.pb.gz offs2.pb.gz

# With -j the main binary is chosen on a thread of its own beside the
# locations' trie (pprof_write.c, first_passes), on one thread before
# it: the same bytes.  ld-first.perf's first samples are in the dynamic
# loader and one has a kernel frame before gcc's, yet mapping[0] is
# gcc-12's (read here without pprof), then the others in first use:
# ld-linux (the loader's samples come first), the kernel, libc.
$SFCONV -q -j 1 "$FIX/pprof/ld-first.perf" --to pprof -o ldf1.pb.gz
$SFCONV -q -j 2 "$FIX/pprof/ld-first.perf" --to pprof -o ldf2.pb.gz
expect_same pprof-main-binary-j1-j2 ldf1.pb.gz ldf2.pb.gz
cat > ldf.want <<'TXT'
/usr/libexec/gcc/x86_64-linux-gnu/12/gcc-12
/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[kernel.kallsyms]
/usr/lib/x86_64-linux-gnu/libc.so.6
TXT
python3 pbcount.py --mappings ldf2.pb.gz > ldf.got
expect_same pprof-main-binary-mapping-order ldf.want ldf.got

# A sample whose values are all 0 is not written, also when it is made
# of two that merge: "work" of kind jit and "work" are two frames of the
# model but one written location, so the samples main;work +2 and
# main;work -2 are one sample of 0, which reading would leave out (as
# pprof does).  By hand: only main;idle 3 is written, with 2 locations
# and 2 functions (main, idle), and no string "work"; read back and
# written again, the same bytes from the first write on (before, the
# first write held 3 locations and samples 0 and 3).
cp "$FIX/json/merged-zero.json" zero.json
$SFCONV -q zero.json --to pprof -o zero1.pb.gz
echo "locations 2 functions 2 samples 3" > zero.want
python3 pbcount.py zero1.pb.gz > zero.got
expect_same pprof-merged-zero-not-written zero.want zero.got
if gzip -dc zero1.pb.gz | grep -aq work; then
	fail pprof-merged-zero-strings "string \"work\" written"
else
	pass pprof-merged-zero-strings
fi
$SFCONV -q zero1.pb.gz --to pprof -o zero2.pb.gz
$SFCONV -q zero2.pb.gz --to pprof -o zero3.pb.gz
expect_same pprof-merged-zero-fixpoint zero1.pb.gz zero2.pb.gz
expect_same pprof-merged-zero-fixpoint-2 zero2.pb.gz zero3.pb.gz

# The gzip member is made by igzip from the output's 256 KiB buffers as
# they fill (output.c's sf_output_set_gzip), on the output's second thread
# with two jobs: the bytes must not depend on the jobs nor on the output
# being a file or a pipe.  120,000 distinct stacks make a message of more
# than 4 MiB, twenty buffers.
$SFCONV -q -j 1 big.folded -o big1.pb.gz
$SFCONV -q -j 2 big.folded -o big2.pb.gz
$SFCONV -q -j 8 big.folded -o big8.pb.gz
$SFCONV -q -j 2 big.folded --to pprof > big3.pb.gz
gzip -dc big1.pb.gz > big1.pb
raw=$(wc -c < big1.pb)
if [ "$raw" -gt $((4 * 1048576)) ]; then pass pprof-gzip-input-size; else
	fail pprof-gzip-input-size "message of $raw bytes, wanted more than 4 MiB"; fi
expect_same pprof-gzip-j1-j2 big1.pb.gz big2.pb.gz
expect_same pprof-gzip-j1-j8 big1.pb.gz big8.pb.gz
expect_same pprof-gzip-stdout big1.pb.gz big3.pb.gz
# one gzip member that gzip and Python's zlib read whole, to the message
# our reader reads back to the input; compressed at a fast level, as Go's
# runtime/pprof compresses its profiles (compress/gzip's BestSpeed): on
# this made-up message Go's is 14.5% larger than zlib's level 1 in one
# piece and igzip's level 3 14.2% (its level 1 14.9%), so within 20%; on
# a perf profile of 64 threads 3.1% and 3.6% (level 1), on the timeline
# of bench/ 3.0% and 1.7% (level 1; level 3 is 0.9% smaller there)
if gzip -t big2.pb.gz; then pass pprof-gzip-gzip-t; else
	fail pprof-gzip-gzip-t "gzip -t failed"; fi
if python3 - big2.pb.gz big1.pb <<'PY'
import sys, zlib
gz = open(sys.argv[1], "rb").read()
want = open(sys.argv[2], "rb").read()
d = zlib.decompressobj(16 + 15)
got = d.decompress(gz)
assert d.eof and not d.unused_data, "not one gzip member"
assert got == want, "inflates to other bytes than gzip -dc"
one = len(zlib.compress(want, 1)) + 18 - 6
assert abs(len(gz) - one) < one / 5, (len(gz), one)
PY
then pass pprof-gzip-one-member; else fail pprof-gzip-one-member "see above"; fi
python3 fold.py big.folded > big.want
$SFCONV -q big8.pb.gz --to collapsed > big.got
expect_same pprof-gzip-roundtrip big.want big.got
