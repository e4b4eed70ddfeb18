# tier: slow
# Chrome formats with the real thing: headless Chromium records a V8 CPU
# profile of a known call chain (outer -> middle -> leaf) through the
# DevTools protocol, and our reader must find that chain; our .cpuprofile
# and trace writers are checked against the structural rules DevTools and
# the Trace Event Format document state (tests/web/check-chrome.js).
. "$TOP/tests/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if ! have node; then
	skip web-chromium "node not installed (scripts/install-deps.sh test)"
	exit 0
fi
CHECK="node $TOP/tests/web/check-chrome.js"

# ----- writers: structure (needs node only) -----
printf 'main;a;b 3\nmain;a 1\nmain;c 2\nother 5\n' > w.folded
# collapsed weights are not sample counts: --period 1 counts each unit
$SFCONV w.folded --period 1 -o w.cpuprofile 2>/dev/null
r=$($CHECK cpuprofile w.cpuprofile) && pass cpuprofile-writer-structure || fail cpuprofile-writer-structure "$r"
$SFCONV w.folded -o w.trace.json 2>/dev/null
r=$($CHECK trace w.trace.json) && pass trace-writer-structure || fail trace-writer-structure "$r"
printf '1:main\t1\ta;b\n2:worker\t3\ta;c\n1:main\t2\ta\n1:main\t1\tz\n' > w.lines
$SFCONV --from lines w.lines -o w2.trace.json 2>/dev/null
r=$($CHECK trace w2.trace.json) && pass trace-writer-structure-threads || fail trace-writer-structure-threads "$r"
if have_peers; then
	for f in "$PEERS/speedscope/Chrome/69/simple.json" "$PEERS/firefox-profiler/test.chrome-unchunked.json" "$PEERS/samply/ls-linux/ls-profile.json"; do
		n=$(basename "$f" .json)
		$SFCONV "$f" -o "p-$n.trace.json" 2>/dev/null
		r=$($CHECK trace "p-$n.trace.json") && pass "trace-writer-structure-$n" || fail "trace-writer-structure-$n" "$r"
		$SFCONV "$f" -o "p-$n.cpuprofile" 2>/dev/null
		r=$($CHECK cpuprofile "p-$n.cpuprofile") && pass "cpuprofile-writer-structure-$n" || fail "cpuprofile-writer-structure-$n" "$r"
	done
fi

# ----- a real Chromium profile -----
if [ -z "$CHROMIUM" ]; then
	skip chromium-cpuprofile "chromium not installed (scripts/install-deps.sh test)"
	exit 0
fi
if ! timeout 120 node "$TOP/tests/web/cdp-profile.js" "$CHROMIUM" real.cpuprofile >cdp.log 2>&1; then
	skip chromium-cpuprofile "headless chromium did not produce a profile: $(tail -n 1 cdp.log)"
	exit 0
fi
$SFCONV real.cpuprofile > real.folded 2>real.err
if grep -Eq '(^|;)outer;middle;leaf [0-9]+$' real.folded; then
	pass chromium-cpuprofile-call-chain
else
	fail chromium-cpuprofile-call-chain "no outer;middle;leaf stack: $(head -n 5 real.folded)"
fi
# leaf does all the work: it must hold most of the outer() samples
awk '/(^|;)outer(;|$)/ { all += $NF } /;leaf [0-9]+$/ { leaf += $NF }
     END { exit !(all > 0 && leaf * 2 > all) }' real.folded &&
	pass chromium-cpuprofile-leaf-dominates || fail chromium-cpuprofile-leaf-dominates "$(cat real.folded)"
# the independent reader agrees stack for stack
python3 "$TOP/tests/web/ref_collapsed.py" cpuprofile real.cpuprofile > real.ref
expect_same chromium-cpuprofile-vs-reference real.ref real.folded
# and it survives our writer with the same stacks and counts
$SFCONV real.cpuprofile -o again.cpuprofile 2>/dev/null
r=$($CHECK cpuprofile again.cpuprofile) && pass chromium-cpuprofile-rewrite-structure || fail chromium-cpuprofile-rewrite-structure "$r"
$SFCONV again.cpuprofile > again.folded 2>/dev/null
expect_same chromium-cpuprofile-roundtrip real.folded again.folded

# a performance trace as DevTools records it: V8 samples arrive as
# Profile/ProfileChunk events on the renderer's main thread
if ! timeout 120 node "$TOP/tests/web/cdp-profile.js" "$CHROMIUM" real.trace.json trace >cdpt.log 2>&1; then
	skip chromium-trace "headless chromium did not produce a trace: $(tail -n 1 cdpt.log)"
	exit 0
fi
$SFCONV --thread-prefix --to collapsed real.trace.json > rt.folded 2>rt.err
if grep -Eq '^CrRendererMain-[0-9]+;(.*;)?outer;middle;leaf [0-9]+$' rt.folded; then
	pass chromium-trace-call-chain
else
	fail chromium-trace-call-chain "no CrRendererMain ... outer;middle;leaf stack: $(head -n 5 rt.folded)"
fi
python3 "$TOP/tests/web/ref_collapsed.py" trace-samples real.trace.json > rt.ref
$SFCONV --to collapsed real.trace.json > rt2.folded 2>/dev/null
expect_same chromium-trace-vs-reference rt.ref rt2.folded
# our trace writer keeps those samples (counts as 1-us events)
$SFCONV real.trace.json -o again.trace.json 2>/dev/null
r=$($CHECK trace again.trace.json) && pass chromium-trace-rewrite-structure || fail chromium-trace-rewrite-structure "$r"
$SFCONV --thread-prefix --to collapsed again.trace.json > again-t.folded 2>/dev/null
expect_same chromium-trace-roundtrip rt.folded again-t.folded
