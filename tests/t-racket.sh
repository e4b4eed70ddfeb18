# Racket's profiler into sftools: contrib/racket/sftools-export.rkt writes
# the snapshots of Racket's sampler (profile-lib) as native JSON, and
# `sfanalyze --callgraph --timestamps` on that file prints the nodes, their
# order, totals, selfs and percentages that Racket's own text renderer
# (profile/render-text) prints for the same snapshots.  Snapshots written
# by hand (fixed times: recursion, one name at two places, a frame without
# a name, an empty stack, two threads) and snapshots of a real sampled
# run.  Needs Debian's racket (with profile-lib).
. "$TOP/tests/lib.sh"

if ! have racket || ! have python3 ||
   ! racket -l racket/base -l profile/sampler -l profile/render-text -e '' >/dev/null 2>&1; then
	skip racket-export "racket (with profile-lib) or python3 is missing (scripts/install-deps.sh test)"
	exit 0
fi
EXP=$TOP/contrib/racket/sftools-export.rkt
DRIVE="racket $TOP/tests/racket/profile-workload.rkt $EXP"
CMP="python3 $TOP/tests/racket/compare-render.py"

# by hand
if ! $DRIVE hand.json hand > hand.render 2> hand.err; then
	fail racket-export-hand "racket failed: $(head -n 3 hand.err)"
else
	# the document: samples oldest first, thread ids as tids, CPU
	# milliseconds as nanoseconds, sources as file/line/column (column
	# 1-based), the two `loop`s named apart as the renderer shows them
	python3 - hand.json <<'P' && pass racket-export-document || fail racket-export-document "$(head -c 400 hand.json)"
import json, sys
d = json.load(open(sys.argv[1]))
th = d["threads"]
assert [(t["tid"], t["name"]) for t in th] == [(0, "racket-0"), (1, "racket-1")], th
s = d["samples"]
assert [(th[x[1]]["tid"], x[2]) for x in s] == [
    (0, 0), (0, 20000000), (1, 5000000), (0, 30000000), (0, 40000000),
    (1, 12000000), (0, 70000000), (1, 16000000)], s
names = {f["name"]: f for f in d["frames"]}
assert set(names) == {"main", "f", "???", "loop /src/m.rkt:5:2",
                      "loop /src/m.rkt:9:2"}, names
assert names["main"] == {"name": "main", "file": "/src/m.rkt", "line": 1,
                         "column": 1}, names["main"]
assert names["???"]["line"] == 12 and names["???"]["column"] == 5
# the empty stack of thread 0 at 40 ms
assert s[4][0] == 0
P
	if $SFANALYZE --callgraph --timestamps --json hand.json > hand.cg 2> err.txt &&
	   $CMP hand.render hand.cg > hand.cmp; then
		pass racket-export-hand-as-render
	else
		fail racket-export-hand-as-render "$(head -n 3 hand.cmp err.txt)"
	fi
fi

# a real sampled run (the numbers vary from run to run; both sides read
# the same snapshots)
if ! $DRIVE run.json > run.render 2> run.err; then
	fail racket-export-sampled "racket failed: $(head -n 3 run.err)"
elif $SFANALYZE --callgraph --timestamps --json run.json > run.cg 2> err.txt &&
     $CMP run.render run.cg > run.cmp; then
	pass "racket-export-sampled-as-render ($(grep -c '^\[' run.render) nodes)"
else
	fail racket-export-sampled-as-render "$(head -n 3 run.cmp err.txt)"
fi
# a bad argument is refused by the exporter with a clear message
if racket -e "(require (file \"$EXP\")) (write-sftools-samples '(1 2) \"x.json\")" > bad.out 2>&1; then
	fail racket-export-bad-argument "accepted '(1 2)"
elif grep -q "write-sftools-samples: contract violation" bad.out && [ ! -e x.json ]; then
	pass racket-export-bad-argument
else
	fail racket-export-bad-argument "$(head -n 2 bad.out)"
fi
