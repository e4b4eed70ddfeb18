# The HTML report (sfconv -o X.html): the file itself (one page, a
# Content-Security-Policy that forbids the network, no name as markup),
# then the page in real headless Chromium driven by playwright-core
# (tests/html/browser.js): every view against sfanalyze's tree and the SVG
# writer's frames, selection across views, transforms and undo, the URL
# state, the differential page, gzip'ed data, no network request.
# Browser checks run in the plain pass only (a sanitizer build changes
# nothing in the page) and SKIP without Chromium, node or npm.
. "$TOP/tests/lib.sh"

# Hand-computed: total 11; main 11: a 4 (b 3, c 1), d 4, e 2 (b 2), and
# a frame whose name is markup, 1.
printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\nmain;e;b 2\nmain;<script>alert(1)</script> 1\n' > small.folded
$SFCONV small.folded -o small.html 2>err || fail html-write "$(cat err)"
if [ -s small.html ] && [ "$(head -c 15 small.html)" = "<!DOCTYPE html>" ]; then
	pass html-write
else
	fail html-write "no page written"
fi
# the name is in the data (gzip+base64), never as a tag
if grep -q '<script>alert' small.html; then
	fail html-name-escaped "the markup name appears verbatim"
else
	pass html-name-escaped
fi
# the data decoded independently (tests/html/data.py): hand-computed
# tree of small.folded, names sorted by bytes ('<' before 'a')
DATA="python3 $TOP/tests/html/data.py"
r=$($DATA small.html names)
[ "$r" = '["<script>alert(1)</script>", "a", "b", "c", "d", "e", "main"]' ] &&
	pass html-data-names || fail html-data-names "$r"
# nodes: 1 main, 2 a, 3 b (a), 4 c (a), 5 d, 6 e, 7 b (e), 8 <script>
r=$($DATA small.html stk)
[ "$r" = '[[0, 6], [1, 1], [2, 2], [2, 3], [1, 4], [1, 5], [6, 2], [1, 0]]' ] &&
	pass html-data-stacks || fail html-data-stacks "$r"
r=$($DATA small.html w)
[ "$r" = '{"3": 3, "4": 1, "5": 4, "7": 2, "8": 1}' ] &&
	pass html-data-weights || fail html-data-weights "$r"
# weights that are not integers below 2^52 are written as doubles
printf 'main;a 0.25\nmain;c 10000000000000000000000\nmain;d 4503599627370497\n' > odd.folded
$SFCONV odd.folded -o odd.html 2>/dev/null
r=$($DATA odd.html w)
[ "$r" = '{"2": 0.25, "3": 1e+22, "4": 4503599627370497.0}' ] &&
	pass html-data-odd-weights || fail html-data-odd-weights "$r"
grep -q "Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-" small.html &&
	pass html-csp-meta || fail html-csp-meta "no CSP meta tag"
# the hashes in the CSP are those of the embedded script and style
python3 - small.html <<'PY' && pass html-csp-hashes || fail html-csp-hashes "hash mismatch"
import base64, hashlib, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
csp = re.search(r'Content-Security-Policy" content="([^"]*)"', s).group(1)
js = re.findall(r'<script>(.*?)</script>', s, re.S)
css = re.findall(r'<style>(.*?)</style>', s, re.S)
h = lambda t: "'sha256-" + base64.b64encode(hashlib.sha256(t.encode()).digest()).decode() + "'"
sys.exit(not (len(js) == 1 and len(css) == 1 and h(js[0]) in csp and h(css[0]) in csp))
PY
# no reference to anything outside the file (the SVG and XLink namespace
# names in the script are names, never fetched)
urls=$(grep -oE "https?://[^\"' )]*" small.html | grep -Ev '^http://www\.w3\.org/(2000/svg|1999/xlink)$')
if grep -Eq '(src|href)=|@import|url\(' small.html || [ -n "$urls" ]; then
	fail html-self-contained "$urls $(grep -Eo '(src|href)=.{0,30}' small.html | head -n 3)"
else
	pass html-self-contained
fi
# --to html to standard output is the same page
$SFCONV small.folded --to html > stdout.html && cmp -s stdout.html small.html &&
	pass html-stdout || fail html-stdout "--to html differs from -o X.html"
# -j1 and -jN give the same page (the input cut into parts and merged)
python3 "$TOP/tests/gen_stacks.py" collapsed 11 3000 > par.folded
$SFCONV -j1 par.folded -o par1.html 2>/dev/null
SF_SPLIT_MIN=0 $SFCONV -j4 par.folded -o par4.html 2>/dev/null
cmp -s par1.html par4.html && pass html-jobs-agree || fail html-jobs-agree "-j1 and -j4 pages differ"
# aggregated input: the page does not grow with the number of samples
awk '{ for (i = 0; i < 50; i++) print }' small.folded > many.folded
$SFCONV many.folded -o many.html
$DATA small.html stk > stk.small; $DATA many.html stk > stk.many
[ "$($DATA many.html samples)" = 250 ] && cmp -s stk.small stk.many &&
	[ "$(( $(wc -c < many.html) - $(wc -c < small.html) ))" -lt 64 ] &&
	pass html-size-not-by-samples || fail html-size-not-by-samples "$(wc -c small.html many.html)"
# a capture (samples with the "state" label, tests/fixtures/html/capture.json:
# main running 2, worker sleeping 1) carries the sample report
$SFCONV "$FIX/html/capture.json" -o cap.html 2>/dev/null
$SFCONV "$FIX/html/capture.json" --to sample > cap.sample.txt 2>/dev/null
$DATA cap.html sample | python3 -c 'import json, sys; sys.stdout.write(json.load(sys.stdin))' > cap.page.txt
grep -q '0% running, 100% blocked' cap.sample.txt &&
	expect_same html-capture-sample-report cap.sample.txt cap.page.txt
# its tracks: per thread the samples in time order, [time, stack node,
# 1 + state index]: main (node 2 = main;compute) running at 1000 and
# 2000, worker (node 3 = main;poll) sleeping at 1000
r=$($DATA cap.html tracks)
[ "$r" = '[[[1000, 2, 1], [2000, 2, 1]], [[1000, 3, 2]]]' ] &&
	[ "$($DATA cap.html states)" = '["running", "sleeping"]' ] &&
	pass html-capture-tracks || fail html-capture-tracks "$r"
# a capture of two processes (the fixture plus a child process 20 whose
# one sample is main;compute): each thread names its process, "comm-PID"
# of the process's main thread, and the page groups the tracks by it
python3 - "$FIX/html/capture.json" > cap2.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["threads"].append({"pid": 20, "tid": 20, "name": "child"})
d["samples"].append([2, 2, 1500, 1, 1])
print(json.dumps(d))
PY
$SFCONV cap2.json -o cap2.html 2>/dev/null
r=$($DATA cap2.html threads)
[ "$r" = '[{"name": "main-10", "proc": "main-10"}, {"name": "worker-11", "proc": "main-10"}, {"name": "child-20", "proc": "child-20"}]' ] &&
	pass html-capture-processes || fail html-capture-processes "$r"
[ "$($DATA small.html tracks)" = null ] && pass html-no-tracks-without-time ||
	fail html-no-tracks-without-time "small.html has tracks"
[ "$($DATA small.html sample)" = null ] && pass html-no-sample-report-without-capture ||
	fail html-no-sample-report-without-capture "small.html has a sample report"

# sfanalyze --html writes the same page, for one profile and a diff
$SFANALYZE --html small.folded -o an.html && cmp -s an.html small.html &&
	pass html-sfanalyze || fail html-sfanalyze "sfanalyze --html differs from sfconv -o X.html"
printf 'main;grow 1\nmain;shrink 5\n' > base.folded
printf 'main;grow 4\nmain;shrink 2\n' > new.folded
$SFCONV --diff base.folded new.folded -o diff.html 2>/dev/null
$SFANALYZE --html --diff base.folded -- new.folded -o an-diff.html &&
	cmp -s an-diff.html diff.html && [ "$($DATA diff.html diff)" = true ] &&
	pass html-sfanalyze-diff || fail html-sfanalyze-diff "sfanalyze --html --diff differs from sfconv --diff -o X.html"
expect_error html-sfanalyze-view-filter 2 "^sfanalyze: --html takes no other report" \
	$SFANALYZE --html --focus a small.folded -o x.html
[ ! -e x.html ] && pass html-sfanalyze-no-output || fail html-sfanalyze-no-output "x.html left behind"

if [ "${SF_PASS:-plain}" = san ]; then
	exit 0
fi
need_chromium html-browser || exit 0
$SFANALYZE --tree --json small.folded > small.tree.json
# the call graph's functions, from the dot sfanalyze writes (tooltip
# "[N] name"); empty when Graphviz cannot be loaded (then no view)
$SFANALYZE --callgraph --dot small.folded |
	sed -n 's/.*tooltip="\[[0-9]*\] \(.*\)", fontsize.*/\1/p' | sort > small.cgnames
# callers/callees against the call graph's node view (Racket's edge
# times; equal to the page's for a profile without recursion)
printf 'main;a;b 3\nmain;a;c 1\nmain;d 4\nmain;e;b 2\nmain;e;a;c 5\n' > sw.folded
$SFCONV sw.folded -o sw.html 2>/dev/null
$SFANALYZE --callgraph --json --peek '^a$' sw.folded > sw.peek.json
# the page's transforms against the same ones on the command line
$SFANALYZE --tree --json --merge-function '^a$' small.folded > small.merge.json
$SFANALYZE --tree --json --focus-function '^e$' small.folded > small.focus.json
$SFCONV small.folded -o small.svg --minwidth 0 &&
	python3 "$TOP/tests/html/svgframes.py" small.svg > small.svgframes
# a profile large enough for gzip+base64 to pay
python3 "$TOP/tests/gen_stacks.py" collapsed 7 3000 > packed.folded
$SFCONV packed.folded -o packed.html
$SFANALYZE --tree --json packed.folded > packed.tree.json
# modules: sin and cos in libm.so (tests/fixtures/perf/libm.perf)
$SFCONV --from perf "$FIX/perf/libm.perf" -o lib.html
node "$TOP/tests/html/browser.js" "$TOP/build/npm/node_modules" "$CHROMIUM" "$SF_TMP"
